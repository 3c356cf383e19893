/*
 * dedup_signal.h — how `tdbf dedup` hears that it should stop
 * (dedup_signal.c): SIGINT, SIGTERM and SIGHUP only set a flag, which the
 * run checks between blocks, and SIGPIPE is ignored so that a closed
 * output is an EPIPE from write(2).
 *
 * One run at a time: the flag and the saved actions are the process's.
 */
#ifndef TDBF_CLI_DEDUP_SIGNAL_H
#define TDBF_CLI_DEDUP_SIGNAL_H

/* Install the stop handlers and ignore SIGPIPE, keeping the previous
 * actions for dedup_signals_restore; clears the flag.  Reports and
 * returns a CLI_EXIT_* code. */
int dedup_signals_install(void);

/* Put back the actions dedup_signals_install replaced (SIG_DFL for any
 * it did not reach, should installing have failed midway). */
void dedup_signals_restore(void);

/* The latest stop signal received, or 0 while running. */
int dedup_stop_signal(void);

/* How many stop signals came, counted up to 2: a second one gives up a
 * blocked write. */
int dedup_stop_count(void);

/* "SIGINT", "SIGTERM", "SIGHUP", or "a signal". */
const char *dedup_signal_name(int sig);

#endif /* TDBF_CLI_DEDUP_SIGNAL_H */
