/*
 * test_check.c — the library's invariants are live in the test builds.
 *
 *   on         the tests are compiled with TDBF_CHECKS, and the library
 *              they link was too: tdbf_check_failed, defined only then
 *              (util/check.c), links;
 *   library    a broken invariant inside a library object (apbf-line's
 *              turns: turned g + turn_rest = fill units) stops the
 *              program with SIGABRT;
 *   header     so does one in an inlined header (Algorithm 1's walk,
 *              model/run.h: fewer than k matches before it answers).
 *
 * The broken states are made by hand in a child process; a release build
 * compiles every TDBF_ASSERT out, which `make` and the packages use.
 */
#include "driver.h"
#include "util/check.h"
#include "model/run.h"
#include "designs/apbf_line/internal.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run `breaks` in a child with stderr discarded; its wait status. */
static int status_of_child(void (*breaks)(void))
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, STDERR_FILENO);
        breaks();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void assert_aborted(int status)
{
    if (!WIFSIGNALED(status))
        fail_msg("the broken invariant went unnoticed: exit status %d", WEXITSTATUS(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void test_checks_on(void **state)
{
    (void)state;
#ifndef TDBF_CHECKS
    fail_msg("the unit tests must be built with TDBF_CHECKS (Makefile: CHECKS)");
#endif
    void (*stop)(const char *, const char *, int) = tdbf_check_failed;
    assert_non_null(stop);
}

/* One add counted in fill, its share of the turns (units / g) nowhere. */
static void break_turns(void)
{
    line_filter t = {.k = 2, .l = 6, .units = 4, .g = 10, .fill = 1};
    tdbf_line_take_turns(&t);
}

static void test_library_invariant_aborts(void **state)
{
    (void)state;
    assert_aborted(status_of_child(break_turns));
}

/* A walk that already holds its k = 3 matches and has not answered. */
static void break_walk(void)
{
    tdbf_run_walk walk = {.i = 1, .before_jump = 2, .run = 1};
    tdbf_run_step(&walk, 3, 1);
}

static void test_header_invariant_aborts(void **state)
{
    (void)state;
    assert_aborted(status_of_child(break_walk));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checks_on),
        cmocka_unit_test(test_library_invariant_aborts),
        cmocka_unit_test(test_header_invariant_aborts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
