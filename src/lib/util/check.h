/*
 * check.h — TDBF_ASSERT, the library's invariants made executable (private).
 *
 * An invariant is what the code relies on and never tests for: a loader's
 * field already validated, a walk's count within its bound.  The builds
 * the tests use (the unit tests' library objects, the sanitizer, tsan and
 * fuzz builds) define TDBF_CHECKS, and there a broken invariant stops the
 * program at once, naming the condition, where it is cheapest to find.
 * Release builds (make, make install, the Debian package, the Python
 * extension) leave TDBF_CHECKS undefined: the condition is not evaluated,
 * and the library keeps its promise never to print or abort.
 *
 * An assert is never a way to handle input: what a caller or a file can
 * get wrong is a return code.  Conditions must have no side effects.
 */
#ifndef TDBF_CHECK_H
#define TDBF_CHECK_H

#ifdef TDBF_CHECKS
/* Prints "file:line: invariant failed: cond" and aborts (util/check.c). */
_Noreturn void tdbf_check_failed(const char *cond, const char *file, int line);
#define TDBF_ASSERT(cond) ((cond) ? (void)0 : tdbf_check_failed(#cond, __FILE__, __LINE__))
#else
/* sizeof keeps the condition's variables "used" without evaluating it. */
#define TDBF_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#endif

#endif
