/*
 * check.c — where a broken invariant stops a checking build (check.h).
 *
 * Compiled into every build, empty but for a declaration unless
 * TDBF_CHECKS is defined: a release library has no way to abort.
 */
#include "util/check.h"

#ifdef TDBF_CHECKS
#include <stdio.h>
#include <stdlib.h>

_Noreturn void tdbf_check_failed(const char *cond, const char *file, int line)
{
    fprintf(stderr, "%s:%d: invariant failed: %s\n", file, line, cond);
    fflush(stderr);
    abort();
}
#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int tdbf_check_unused;
#endif
