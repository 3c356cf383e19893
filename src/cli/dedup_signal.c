/*
 * dedup_signal.c — the stop signals of `tdbf dedup`.
 *
 * The handlers only set a flag; the main loop sees it after the current
 * block (the handlers are installed without SA_RESTART, so a blocked
 * read returns EINTR), flushes the output, saves and exits 128 + signal.
 * A blocked write goes on after one signal (its lines are in the
 * filter); a second gives the output up (dedup_output.c).  SIGPIPE is
 * ignored: a closed output shows up as EPIPE from write(2), and is the
 * same stop without the save.
 */
#define _POSIX_C_SOURCE 200809L

#include "dedup_signal.h"

#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

/* Set by the stop-signal handler: the latest signal, and how many came;
 * 0 while running. */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_count;

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define STOP_SIGNAL_COUNT (sizeof stop_signals / sizeof stop_signals[0])

/* The actions replaced: the stop signals', then SIGPIPE's. */
static struct sigaction saved_actions[STOP_SIGNAL_COUNT + 1];

static void on_stop_signal(int sig)
{
    stop_signal = sig;
    if (stop_count < 2)
        stop_count++;
}

int dedup_stop_signal(void)
{
    return stop_signal;
}

int dedup_stop_count(void)
{
    return stop_count;
}

const char *dedup_signal_name(int sig)
{
    switch (sig) {
    case SIGINT:  return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP:  return "SIGHUP";
    default:      return "a signal";
    }
}

int dedup_signals_install(void)
{
    struct sigaction sa, ignore;
    memset(saved_actions, 0, sizeof saved_actions);   /* SIG_DFL */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;   /* no SA_RESTART: a blocked read returns EINTR */
    ignore = sa;
    ignore.sa_handler = SIG_IGN;
    stop_signal = 0;
    stop_count = 0;
    for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
        if (sigaction(stop_signals[i], &sa, &saved_actions[i]) != 0)
            return cli_error("dedup", "cannot install signal handlers: %s",
                             strerror(errno));
    if (sigaction(SIGPIPE, &ignore, &saved_actions[STOP_SIGNAL_COUNT]) != 0)
        return cli_error("dedup", "cannot ignore SIGPIPE: %s", strerror(errno));
    return 0;
}

void dedup_signals_restore(void)
{
    for (size_t i = 0; i < STOP_SIGNAL_COUNT; i++)
        sigaction(stop_signals[i], &saved_actions[i], NULL);
    sigaction(SIGPIPE, &saved_actions[STOP_SIGNAL_COUNT], NULL);
}
