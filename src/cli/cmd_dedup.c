/*
 * cmd_dedup.c — `tdbf dedup`: pass each line of the input whose key was
 * not seen within a window, drop the others.
 *
 *     tail -F access.log | tdbf dedup --window 10m --field 1
 *     tdbf dedup --last 1M urls.txt > fresh.txt
 *     tdbf dedup --window 1h --time-field 1 --time-format unix_ms \
 *                --state seen.tdbf events.log
 *
 * It is `awk '!seen[$0]++'` with a memory that forgets: a time window
 * (--window T, design tlbf-line by default) or a count window (--last N,
 * apbf-line) held in a filter of a few bits per key instead of the keys
 * themselves.  Every line is one tdbf_add (test-and-insert); a line is
 * printed when the filter says its key is new.  So a repeat inside the
 * window is always dropped (no false negatives), and a new key is
 * wrongly dropped with probability --error at most (a false positive).
 * A key seen a little longer ago than the window may still be dropped:
 * every design has a slack (the defaults: apbf-line about a third of
 * the window, tlbf-line a quarter to two fifths of T, as the help says;
 * the APBF (k+1)/l of it); see `tdbf info` for the parameters of a saved
 * filter.
 * Re-adding refreshes, so a key that keeps coming at intervals shorter
 * than the window is printed once.
 *
 * The pipeline of one input block:
 *
 *   read(2) into a 1 MiB buffer ──> split at '\n' (or NUL, --null-data)
 *   ──> key (field, regex or line) and time (clock at the read, or a
 *   field) ──> batches of up to 256 keys with one time ──> capacity check
 *   (tdbf_current_error) ──> tdbf_add_batch (same answers as single adds,
 *   with prefetching) ──> print by the answers into a 1 MiB output buffer
 *   ──> write(2)
 *
 * Lines point into the read buffer; nothing is allocated per line.  A
 * line longer than the buffer grows it.  A last line without a newline
 * is printed with one.
 *
 * Output that flows (dedup_output.c).  The output buffer is written out
 * when it is full and whenever the next read would wait, so a quiet pipe
 * shows each line as soon as it is decided while a file keeps the big
 * buffer's throughput.  --line-buffered writes after every line.
 *
 * Time.  With --time-field the time of a line is its timestamp, so a
 * recorded log replays to the same output every time (with --seed).  A
 * stamp more than --max-skew (1 day) ahead of the wall clock when the
 * line is read is bad: the library never rewinds time, so one garbage
 * stamp would otherwise freeze the window at it for the rest of the run.
 * A stamp behind the latest one taken is taken at the latest (as the
 * library would clamp it) and counted ("clamped back").  Bad lines stop
 * the run (exit 1), pass through unfiltered (--skip-bad) or are dropped
 * (--drop-bad).  Without --time-field the time is the moment the block
 * was read: CLOCK_MONOTONIC, offset so that it reads the wall clock (ns
 * since 1970) at start, so a resumed --state continues its clock.
 *
 * Capacity.  Before each batch the filter's error estimate
 * (tdbf_current_error) is compared with CLI_OVERLOAD_FACTOR times --error.
 * A design of fixed size fed past its capacity (bloom over --last N adds,
 * clock or rotating over --capacity keys per window) would otherwise drop
 * nearly every new line as a repeat, silently; dedup stops instead, names
 * the option that fixes it, saves the state and says where to resume.
 * The growing and count-window defaults (tlbf-line, apbf-line) stay
 * inside the bound, bursts included.
 *
 * State and the invariant.  --state FILE loads the filter saved there if
 * the file exists (the options, when given, must agree with it), and
 * saves it atomically (tdbf_save_file: temporary file, fsync, rename) at
 * the end of the input, every --checkpoint, at a capacity stop or a bad
 * line, and on SIGINT, SIGTERM or SIGHUP.  Every line read is either written to the
 * output or read again by the resumed run: the output is flushed before
 * each save, and once a write has failed (a full disk, EPIPE from a closed
 * pipe) no save follows, since the filter then holds keys whose lines
 * were lost.  The file keeps its last good save, and stderr says from
 * which input line that save resumes (each save records the input
 * position it covers).  A failed save (a full disk) leaves the previous
 * file in place, the same way.
 *
 * Signals (dedup_signal.c).  The handlers only set a flag; the main loop
 * sees it after the current block, flushes the output, saves and exits
 * 128 + signal.  A blocked write goes on after one signal; a second gives
 * the output up like a failed write (no save).  A closed output (SIGPIPE
 * is ignored) is the same stop without the save.
 *
 * What the run tells on stderr (the progress line, the summary of bad
 * times, --stats) is in dedup_report.c.
 *
 * Exit status (common/diag.h): 0 done, 1 bad input (a bad time field, a
 * corrupt or mismatched state file) or a capacity stop, 2 bad options, 3
 * I/O error (unreadable input, unwritable output, a state that cannot be
 * saved), 129/130/143 stopped by SIGHUP/SIGINT/SIGTERM (state saved;
 * stderr says how many lines were taken and how to resume), 141 the
 * output was closed (EPIPE).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "common/measure.h"
#include "dedup_open.h"
#include "dedup_output.h"
#include "dedup_parse.h"
#include "dedup_report.h"
#include "dedup_resume.h"
#include "dedup_signal.h"
#include "dedup_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tdbf.h>

#define READ_BUFFER_BYTES  ((size_t)1 << 20)
#define BATCH_KEYS         256


/* How read_source and flush_batch end a run early without an error. */
enum {
    STOP_SIGNAL   = -1,   /* SIGINT, SIGTERM or SIGHUP: dedup_stop_signal */
    STOP_CAPACITY = -2,   /* the filter is past its error bound */
    STOP_BAD_LINE = -3    /* a bad time, without --skip-bad/--drop-bad */
};

/* ======================================================================
 * The run
 * ====================================================================== */

/* Lines with a bad time: why each was refused. */
enum {
    BAD_NO_FIELD = -1,       /* dedup_line_time's codes */
    BAD_FORMAT   = -2,
    BAD_AHEAD    = DEDUP_TIME_AHEAD   /* more than --max-skew ahead */
};

typedef struct dedup_run {
    const dedup_args *args;
    tdbf    *filter;
    dedup_output out;

    /* the batch: keys of consecutive lines that share one time */
    size_t       batch_limit;       /* keys per batch (see batch_keys) */
    size_t       batch_n;
    uint64_t     batch_ns;
    uint64_t     batch_first_line;  /* line_no of its first line */
    const void  *keys[BATCH_KEYS];
    size_t       key_lens[BATCH_KEYS];
    const char  *lines[BATCH_KEYS];
    size_t       line_lens[BATCH_KEYS];   /* without the terminator */
    uint8_t      repeats[BATCH_KEYS];

    /* the read buffer */
    char    *in;
    size_t   in_size;        /* usable bytes; one more is allocated */
    char    *key_scratch;    /* as big as `in`: the key of the line at
                                in + i, when it is not a slice of the line
                                (joined fields, folded case), is built at
                                key_scratch + i, so a batch's keys never
                                overlap */

    dedup_tally tally;       /* counts, error estimates, start time */

    /* where we are */
    const char *source;      /* file name for messages */
    size_t      source_index;/* in args->files (0 for standard input) */
    uint64_t    line_no;     /* in the current source */
    dedup_position saved;    /* what the last good save covers */
    int         saves;       /* successful saves in this run */
    int         save_failed; /* a save failed (reported) */
    int         argc;        /* the command line, to print how to resume */
    char      **argv;

    /* clocks */
    uint64_t wall_offset;    /* wall clock - monotonic clock, at start */
    uint64_t read_wall_ns;   /* wall clock at the latest read */
    uint64_t latest_ns;      /* largest line time taken (the filter's) */
    uint64_t next_checkpoint;
    uint64_t next_progress;
    int      progress;       /* stderr is a terminal and not --quiet */
} dedup_run;

/* The arrival time of a line: the monotonic clock on the wall clock's
 * scale. */
static uint64_t arrival_ns(const dedup_run *run)
{
    return run->wall_offset + cli_now_ns();
}

static uint64_t wall_minus_monotonic(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0 || ts.tv_sec < 0)
        return 0;
    uint64_t wall = (uint64_t)ts.tv_sec * UINT64_C(1000000000) +
                    (uint64_t)ts.tv_nsec;
    uint64_t mono = cli_now_ns();
    return wall > mono ? wall - mono : 0;
}

static dedup_position current_position(const dedup_run *run)
{
    dedup_position at = {run->source_index, run->line_no, run->tally.lines_in};
    return at;
}

/* One output record: an optional prefix, the line, the terminator. */
static int print_line(dedup_run *run, const char *prefix, const char *line,
                      size_t len)
{
    const dedup_args *a = run->args;
    int rc = 0;
    if (prefix != NULL)
        rc = dedup_output_bytes(&run->out, prefix, strlen(prefix));
    if (rc == 0)
        rc = dedup_output_bytes(&run->out, line, len);
    if (rc == 0)
        rc = dedup_output_bytes(&run->out, &a->terminator, 1);
    if (rc == 0 && a->line_buffered)
        rc = dedup_output_flush(&run->out);
    if (rc == 0)
        run->tally.lines_out++;
    return rc;
}

/* 1 if the filter is past its error bound at `now`: its estimate is
 * above CLI_OVERLOAD_FACTOR x the configured error. */
static int past_capacity(dedup_run *run, uint64_t now)
{
    double estimate;
    if (run->tally.error_target <= 0 ||
        tdbf_current_error(run->filter, now, &estimate) != TDBF_OK)
        return 0;
    if (estimate > run->tally.error_peak)
        run->tally.error_peak = estimate;
    if (estimate <= CLI_OVERLOAD_FACTOR * run->tally.error_target)
        return 0;
    run->tally.error_at_stop = estimate;
    return 1;
}

/* The batch's lines are not taken: the run stops before its first. */
static int stop_before_batch(dedup_run *run)
{
    uint64_t untaken = run->line_no - (run->batch_first_line - 1);
    run->line_no -= untaken;
    run->tally.lines_in -= untaken;
    run->batch_n = 0;
    return STOP_CAPACITY;
}

/* Add the batch's keys and print the lines the answers select, then
 * empty it.  STOP_CAPACITY (nothing added) when the filter is full. */
static int flush_batch(dedup_run *run)
{
    if (run->batch_n == 0)
        return 0;
    const dedup_args *a = run->args;
    if (past_capacity(run, run->batch_ns))
        return stop_before_batch(run);
    int rc = tdbf_add_batch(run->filter, run->batch_n, run->keys,
                            run->key_lens, run->batch_ns, run->repeats);
    if (rc != TDBF_OK) {
        run->batch_n = 0;
        return cli_lib_error("dedup", "adding keys", rc);
    }
    for (size_t i = 0; i < run->batch_n && rc == 0; i++) {
        int repeat = run->repeats[i];
        run->tally.lines_repeat += (uint64_t)repeat;
        if (a->count)
            rc = print_line(run, repeat ? "1\t" : "0\t", run->lines[i],
                            run->line_lens[i]);
        else if (repeat == a->invert)
            rc = print_line(run, NULL, run->lines[i], run->line_lens[i]);
    }
    run->batch_n = 0;
    return rc;
}

/* A line whose time is missing, bad or too far ahead: stop, pass it
 * through unfiltered (--skip-bad) or drop it (--drop-bad). */
static int bad_time(dedup_run *run, const char *line, size_t len, int why)
{
    const dedup_args *a = run->args;
    char message[192];
    dedup_bad_time_message(a, line, len, why, message, sizeof message);
    if (!a->skip_bad && !a->drop_bad) {
        run->line_no--;   /* not taken: a resumed run starts at it */
        run->tally.lines_in--;
        cli_error("dedup", "%s:%llu: %s (--skip-bad passes such lines "
                  "through, --drop-bad drops them)", run->source,
                  (unsigned long long)run->line_no + 1, message);
        return STOP_BAD_LINE;
    }
    run->tally.lines_ahead += why == BAD_AHEAD;
    if (run->tally.lines_bad++ == 0)
        snprintf(run->tally.first_bad, sizeof run->tally.first_bad,
                 "%s:%llu: %s", run->source, (unsigned long long)run->line_no, message);
    return a->skip_bad ? print_line(run, NULL, line, len) : 0;
}

/* The time of a line from its field: 0, or a BAD_* code.  A time behind
 * the latest one taken is taken at the latest (the filter would clamp it
 * the same way) and counted. */
static int line_time(dedup_run *run, const char *line, size_t len,
                     uint64_t *now)
{
    const dedup_args *a = run->args;
    /* a pattern without a year dates lines by the wall clock */
    uint64_t reference = dedup_time_needs_reference(a) ? run->read_wall_ns : 0;
    int why = dedup_line_time(a, line, len, reference, now);
    if (why != 0)
        return why;
    if (a->max_skew_ns != 0 && *now > run->read_wall_ns &&
        *now - run->read_wall_ns > a->max_skew_ns)
        return BAD_AHEAD;
    if (*now < run->latest_ns) {
        *now = run->latest_ns;
        run->tally.lines_clamped++;
    }
    run->latest_ns = *now;
    return 0;
}

/* One line (without its terminator; line[len] is writable). */
static int take_line(dedup_run *run, char *line, size_t len, uint64_t now)
{
    const dedup_args *a = run->args;
    run->tally.lines_in++;
    run->line_no++;
    if (a->time_field != 0) {
        int why = line_time(run, line, len, &now);
        if (why != 0) {
            /* lines before it go out first, in order */
            int rc = flush_batch(run);
            return rc != 0 ? rc : bad_time(run, line, len, why);
        }
    }
    if (run->batch_n == run->batch_limit ||
        (run->batch_n > 0 && now != run->batch_ns)) {
        int rc = flush_batch(run);
        if (rc != 0)
            return rc;
    }
    if (run->batch_n == 0)
        run->batch_first_line = run->line_no;
    size_t i = run->batch_n++;
    const char *key;
    dedup_line_key(a, line, len, run->key_scratch + (line - run->in), &key,
                   &run->key_lens[i]);
    run->keys[i] = key;
    run->lines[i] = line;
    run->line_lens[i] = len;
    run->batch_ns = now;
    return 0;
}

/* ======================================================================
 * State, checkpoints, progress
 * ====================================================================== */

/* Flush the output, then save: the saved filter never holds a key whose
 * line is still unwritten.  Records the input position the save covers. */
static int save_state(dedup_run *run)
{
    if (run->args->state_path == NULL)
        return 0;
    int rc = dedup_output_flush(&run->out);
    if (rc != 0)
        return rc;
    dedup_keyspec spec;
    dedup_args_keyspec(run->args, &spec);
    rc = dedup_state_save(run->args->state_path, run->filter, &spec,
                          run->args->kept_sections, run->args->kept_len);
    run->save_failed = rc != DEDUP_STATE_OK;
    if (rc == DEDUP_STATE_NOMEM)
        return cli_error("dedup", "%s: cannot save the state: out of memory; "
                         "the file keeps its previous contents",
                         run->args->state_path);
    if (rc != DEDUP_STATE_OK)
        return cli_io_error("dedup", "%s: cannot save the state: %s; the file "
                            "keeps its previous contents",
                            run->args->state_path, strerror(errno));
    run->saved = current_position(run);
    run->saves++;
    return 0;
}

static void progress_clear(dedup_run *run)
{
    if (run->progress)
        cli_progress_clear();
}

/* Between blocks: progress line and checkpoint when due. */
static int between_blocks(dedup_run *run)
{
    if (!run->progress && run->next_checkpoint == 0)
        return 0;
    uint64_t now = cli_now_ns();
    if (run->progress && now >= run->next_progress) {
        dedup_print_progress(&run->tally, now);
        run->next_progress = now + CLI_PROGRESS_PERIOD_NS;
    }
    if (run->next_checkpoint != 0 && now >= run->next_checkpoint) {
        run->next_checkpoint = now + run->args->checkpoint_ns;
        int rc = save_state(run);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ======================================================================
 * Reading
 * ====================================================================== */

/* Split the complete lines of in[0 .. *end) and take them; keep the
 * unfinished last line at the front.  *scanned: bytes known to hold no
 * terminator (from an earlier call). */
static int take_block(dedup_run *run, size_t *end, size_t *scanned,
                      uint64_t now)
{
    char *in = run->in;
    size_t pos = 0;
    size_t search = *scanned;
    char *stop_at;
    while ((stop_at = memchr(in + search, run->args->terminator,
                             *end - search)) != NULL) {
        size_t stop = (size_t)(stop_at - in);
        int rc = take_line(run, in + pos, stop - pos, now);
        if (rc != 0)
            return rc;
        pos = search = stop + 1;
    }
    /* the batch points into the buffer: finish it before moving bytes */
    int rc = flush_batch(run);
    if (rc != 0)
        return rc;
    if (pos > 0)
        memmove(in, in + pos, *end - pos);
    *end -= pos;
    *scanned = *end;
    return 0;
}

/* Double the read buffer when one line fills it. */
static int grow_input(dedup_run *run)
{
    if (run->in_size > SIZE_MAX / 4) {
        return cli_error("dedup", "%s:%llu: line too long", run->source,
                         (unsigned long long)run->line_no + 1);
    }
    char *bigger = realloc(run->in, 2 * run->in_size + 1);
    if (bigger != NULL)
        run->in = bigger;
    char *scratch = bigger != NULL ? realloc(run->key_scratch, 2 * run->in_size + 1)
                                   : NULL;
    if (scratch == NULL) {
        return cli_error("dedup", "%s:%llu: line too long (out of memory)",
                         run->source, (unsigned long long)run->line_no + 1);
    }
    run->key_scratch = scratch;
    run->in_size *= 2;
    return 0;
}

/* Stream one input.  Returns 0, an EXIT_* code, or a STOP_* code (a stop
 * signal drops the unfinished line: the resumed run reads it again). */
static int read_source(dedup_run *run, int fd)
{
    const dedup_args *a = run->args;
    int arrival = a->time_field == 0 && a->window_ns != 0;
    size_t end = 0, scanned = 0;
    uint64_t now = arrival ? arrival_ns(run) : 0;
    run->line_no = 0;

    for (;;) {
        if (dedup_stop_signal() != 0)
            return STOP_SIGNAL;
        if (end == run->in_size) {
            int rc = grow_input(run);
            if (rc != 0)
                return rc;
        }
        int rc = dedup_output_flush_before_wait(&run->out, fd);
        if (rc != 0)
            return rc;
        ssize_t n = read(fd, run->in + end, run->in_size - end);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return cli_io_error("dedup", "%s: cannot read: %s", run->source,
                                strerror(errno));
        }
        if (n == 0)
            break;
        end += (size_t)n;
        if (arrival)
            now = arrival_ns(run);
        else if (a->time_field != 0)
            run->read_wall_ns = arrival_ns(run);
        rc = take_block(run, &end, &scanned, now);
        if (rc == 0)
            rc = between_blocks(run);
        if (rc != 0)
            return rc;
    }
    if (end > 0) {   /* a last line without a terminator */
        int rc = take_line(run, run->in, end, now);
        if (rc == 0)
            rc = flush_batch(run);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int read_inputs(dedup_run *run)
{
    const dedup_args *a = run->args;
    size_t count = a->n_files > 0 ? a->n_files : 1;
    for (size_t i = 0; i < count; i++) {
        const char *name = a->n_files > 0 ? a->files[i] : "-";
        int fd = STDIN_FILENO;
        run->source_index = i;
        run->line_no = 0;
        if (strcmp(name, "-") != 0) {
            fd = open(name, O_RDONLY);
            if (fd < 0)
                return cli_io_error("dedup", "%s: cannot open: %s", name,
                                    strerror(errno));
        }
        run->source = strcmp(name, "-") == 0 ? "(stdin)" : name;
        int rc = read_source(run, fd);
        if (fd != STDIN_FILENO)
            close(fd);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ======================================================================
 * After a stop
 * ====================================================================== */

/* What dedup_print_resume needs of the run. */
static void print_resume(const dedup_run *run, const char *why, int finished)
{
    dedup_resume resume = {run->args, run->argc, run->argv, run->tally.lines_in,
                           run->saved, run->saves};
    dedup_print_resume(&resume, why, finished);
}

/* The capacity stop: what is full, and which option fixes it. */
static void report_capacity(const dedup_run *run)
{
    const dedup_args *a = run->args;
    const char *fix = a->window_items != 0
        ? "a design that forgets (the default apbf-line) or a larger --last N"
        : "a larger --capacity N (keys per window), or a design that grows "
          "with the rate (the default tlbf-line)";
    cli_error("dedup", "%s:%llu: the filter is past its capacity: its estimated "
              "false-positive rate %.3g is above %g x the target %g, so new lines "
              "would be dropped as repeats; use %s",
              run->source, (unsigned long long)run->line_no + 1,
              run->tally.error_at_stop, CLI_OVERLOAD_FACTOR,
              run->tally.error_target, fix);
}

/* ======================================================================
 * The command
 * ====================================================================== */

/* An error stopped the run (or the save at its end failed): write what
 * was decided if the output still works, and with --state say where the
 * last good save resumes from.  The state is not saved now: after an
 * output failure the filter holds keys whose lines were lost. */
static int finish_error(dedup_run *run, int status)
{
    if (run->out.error == 0 && dedup_output_flush(&run->out) != 0)
        status = dedup_output_status(&run->out);
    if (run->args->state_path == NULL)
        return status;
    char stopped[64];
    snprintf(stopped, sizeof stopped, "stopped by %s with the output blocked",
             dedup_signal_name(dedup_stop_signal()));
    const char *why = run->out.error == EPIPE ? "the output was closed (EPIPE)"
                    : run->out.error == EINTR ? stopped
                    : run->out.error != 0 ? "the output could not be written"
                    : run->save_failed ? "the state could not be saved"
                    : "stopped by an error";
    print_resume(run, why, 0);
    return status;
}

/* The end of the input, a stop signal, a capacity stop or a bad line:
 * everything before it is decided, so write the output, save, and say
 * how to go on.  Returns the exit status. */
static int finish_stop(dedup_run *run, int status)
{
    int saved = dedup_output_flush(&run->out);
    if (saved == 0)
        saved = save_state(run);
    if (saved != 0)
        return finish_error(run, saved);
    if (status == STOP_CAPACITY) {
        report_capacity(run);
        print_resume(run, "stopped at the filter's capacity", 0);
        return CLI_EXIT_DATA;
    }
    if (status == STOP_BAD_LINE) {
        if (run->args->state_path != NULL)
            print_resume(run, "stopped at a bad line", 0);
        return CLI_EXIT_DATA;
    }
    if (dedup_stop_signal() != 0) {   /* even if the input ended meanwhile */
        char why[48];
        snprintf(why, sizeof why, "stopped by %s",
                 dedup_signal_name(dedup_stop_signal()));
        print_resume(run, why, status == 0);
        return CLI_EXIT_SIGNAL + dedup_stop_signal();
    }
    return CLI_EXIT_OK;
}

/* Keys per batch.  The capacity check runs before each batch, so a batch
 * may overshoot the filter's capacity by its size: a small count window
 * (--last 10 with bloom) gets batches of a quarter of it. */
static size_t batch_keys(const dedup_args *a)
{
    if (a->window_items == 0 || a->window_items >= 4 * BATCH_KEYS)
        return BATCH_KEYS;
    return a->window_items >= 4 ? (size_t)(a->window_items / 4) : 1;
}

static int start_run(dedup_run *run, dedup_args *args, int argc, char **argv)
{
    run->args = args;
    run->argc = argc;
    run->argv = argv;
    run->in_size = READ_BUFFER_BYTES;
    run->in = malloc(run->in_size + 1);
    run->key_scratch = malloc(run->in_size + 1);
    int no_output = dedup_output_init(&run->out);
    if (run->in == NULL || run->key_scratch == NULL || no_output != 0)
        return cli_error("dedup", "out of memory");
    int status = dedup_check_state_writable(args);
    if (status == 0)
        status = dedup_open_filter(args, &run->filter);
    if (status != 0)
        return status;
    run->batch_limit = batch_keys(args);   /* a resumed run's window is the state's */
    tdbf_stats st;
    if (tdbf_get_stats(run->filter, &st) == TDBF_OK) {
        run->tally.error_target = st.error_configured;
        run->latest_ns = st.now_ns;   /* a resumed filter's clock */
    }
    run->wall_offset = wall_minus_monotonic();
    run->tally.started = cli_now_ns();
    run->read_wall_ns = arrival_ns(run);
    run->progress = !args->quiet && isatty(STDERR_FILENO);
    run->next_progress = run->tally.started + CLI_PROGRESS_PERIOD_NS;
    if (args->checkpoint_ns != 0)
        run->next_checkpoint = run->tally.started + args->checkpoint_ns;
    return 0;
}

static int run_dedup(const cli_command *self, int argc, char **argv)
{
    dedup_args args;
    int rc = dedup_parse_args(&args, argc, argv);
    if (rc == CLI_OPT_HELP) {
        cli_command_help(self, stdout);
        return CLI_EXIT_OK;
    }
    if (rc != 0)
        return CLI_EXIT_USAGE;

    dedup_run *run = calloc(1, sizeof *run);
    /* The handlers go in before the filter is opened (planning may take
     * tens of ms): a stop signal from then on is seen by the first read,
     * which stops before taking a line and saves the state as it is. */
    int handlers = run != NULL;
    int status = run == NULL ? cli_error("dedup", "out of memory")
                             : dedup_signals_install();
    if (status == 0)
        status = start_run(run, &args, argc, argv);
    if (status == 0) {
        status = read_inputs(run);
        progress_clear(run);
        if (status == 0 || status == STOP_SIGNAL || status == STOP_CAPACITY ||
            status == STOP_BAD_LINE)
            status = finish_stop(run, status);
        else
            status = finish_error(run, status);
        dedup_print_summary(&args, &run->tally);
        if (args.stats)
            dedup_print_stats(&args, run->filter, &run->tally);
    }
    if (handlers)
        dedup_signals_restore();
    if (run != NULL) {
        tdbf_close(run->filter);
        free(run->in);
        free(run->key_scratch);
        dedup_output_free(&run->out);
        free(run);
    }
    dedup_args_free(&args);
    return status;
}

const cli_command cli_cmd_dedup = {
    .name = "dedup",
    .summary = "print the lines whose key was not seen within a time or count window",
    .usage = "(--window T | --last N) [OPTIONS] [FILE...]\n"
             "--state FILE [OPTIONS] [FILE...]",
    .details =
        "Reads the FILEs (or standard input; '-' is standard input) and prints\n"
        "each line unless its key was seen within the window: the last T of\n"
        "time (--window 10m) or the last N lines (--last 1M).  Like\n"
        "awk '!seen[$0]++', but in a few bits per key, and forgetting: a key\n"
        "passes again once the window has gone by since its latest line.\n"
        "A repeat inside the window is always dropped.  A key last seen a\n"
        "little before it may still be dropped: within the design's slack past\n"
        "the window (default designs: a third of it for --last, a quarter to\n"
        "two fifths for --window; tdbf plan, tdbf info and --stats give the\n"
        "numbers).  Keys never seen, or last seen longer ago than window +\n"
        "slack, are wrongly dropped at a rate of --error at most.\n"
        "\n"
        "Key: the whole line (without its newline), field N (--field), fields\n"
        "joined by the delimiter (--field 2,5 or 1-3), or the first group of a\n"
        "regex (--key-regex 'user=([0-9]+)').  A line without one of the\n"
        "fields, with one empty, that the regex does not match or where its\n"
        "group is empty, is keyed by the whole line.  -i folds ASCII letters.\n"
        "\n"
        "Time: when the line is read, or fields of it (--time-field 1, or 1,2\n"
        "joined by a blank), which replays a recorded log to the same output\n"
        "every time.  --time-format: unix (default), unix_ms, unix_us, unix_ns;\n"
        "iso8601 is 2024-05-01T12:00:00.25Z (to the second at least: a date\n"
        "alone is a bad time; fraction, Z or +02:00 optional, none means UTC;\n"
        "T, or a blank when the time spans two fields); or a strptime-style\n"
        "pattern: %Y year, %m month, %d day, %e blank-padded day, %H %M %S,\n"
        "%T = %H:%M:%S, %b/%B English month name, %z zone (Z, +hhmm, -hh:mm),\n"
        "%s unix seconds, %f fraction, %% a '%'; blanks match runs of blanks.\n"
        "It must give month, day and time to the second (or %s).  Without %z:\n"
        "UTC.  Without %Y: this year, or last year if that is more than a day\n"
        "ahead of the clock (December's log read in January).\n"
        "    --time-field 1,2 --time-format '%Y-%m-%d %H:%M:%S'      (dpkg.log)\n"
        "    --time-field 1-3 --time-format '%b %e %H:%M:%S'         (syslog)\n"
        "    --time-field 4,5 --time-format '[%d/%b/%Y:%H:%M:%S %z]' (Apache)\n"
        "\n"
        "Bad times: a line whose time is missing, does not parse or is\n"
        "impossible (Feb 30, 24:00:00), or is more than --max-skew ahead of\n"
        "the clock when it is read (default 1d: wider than any honest clock\n"
        "or time-zone skew, and it keeps one garbage stamp such as 2099-01-01\n"
        "from freezing the window there, as time never goes back), stops the run with its line number (exit 1);\n"
        "--skip-bad passes such lines through to the output unchanged,\n"
        "without adding them to the filter; --drop-bad drops them.  Either way\n"
        "stderr counts them and names the first.  A time behind the latest\n"
        "one taken is taken at the latest (clamped back), and counted.\n"
        "\n"
        "Designs: --window uses tlbf-line by default, --last apbf-line; any\n"
        "design with that kind of window works (exact keeps the keys: exact,\n"
        "and big).  A time window learns the rate of keys, so a burst costs it\n"
        "memory; read on arrival from files (not pipes), whose lines come in\n"
        "one burst, it is sized for their lines instead (--capacity sets it).\n"
        "Capacity: a filter of fixed size fed past what it was sized for\n"
        "(bloom over --last N adds, clock or rotating over --capacity keys per\n"
        "window) would drop almost every new line as a repeat.  dedup checks\n"
        "the filter's estimated false-positive rate before each batch of\n"
        "lines; above 1.5 x --error it stops: it says which option fixes it,\n"
        "saves --state with the lines decided so far, and exits 1 with the\n"
        "line to resume from.  The defaults never stop this way.\n"
        "\n"
        "State: --state FILE loads FILE if it exists -- options given must\n"
        "match it; sizing options (--capacity) apply only when it is made --\n"
        "and saves the filter there atomically at the end, every --checkpoint,\n"
        "at a capacity stop, and on SIGINT/SIGTERM/SIGHUP (exit 130/143/129\n"
        "after saving; stderr then says how many lines were taken and the\n"
        "command that resumes).  The state also keeps how keys and times were\n"
        "cut from lines (--field, --delimiter, --key-regex, --ignore-case,\n"
        "--time-field, --time-format): a resumed run that gives none of them\n"
        "takes the state's, one that gives others is refused (exit 1).\n"
        "Any saved filter is a state (Python's Filter.save, Redis's\n"
        "TDBF.SCANDUMP chunks in a file): without options it keeps its own\n"
        "window and design, and the whole line is the key.  A state loads in\n"
        "Python, tdbf info and TDBF.LOADCHUNK too.\n"
        "Whether FILE can be written is checked before any input is read\n"
        "(exit 3).\n"
        "\n"
        "Nothing is lost: every line read is either written to the output or\n"
        "read again by the resumed run.  Lines are written before the state\n"
        "that includes them is saved.  When the output cannot be written (a\n"
        "full disk: exit 3; a closed pipe, as in '| head': exit 141, SIGPIPE\n"
        "being ignored) nothing more is saved, since the filter then holds keys\n"
        "whose lines were lost: FILE keeps its last good save, and stderr says\n"
        "from which input line to resume it.  When saving fails (a full disk)\n"
        "FILE keeps its previous contents, and stderr says the same.  A bad\n"
        "time stops after saving the lines before it (resume from it once it\n"
        "is mended); an unreadable input stops without saving.  A stop signal\n"
        "waits for a blocked write (a reader that stopped reading); a second\n"
        "one gives the output up, saving nothing more, as above.\n"
        "\n"
        "Memory: a filter larger than --max-memory (default 4G) is refused\n"
        "before anything is read, with the size it would need (exit 2).\n"
        "\n"
        "Hash seed: random by default (and kept in the state).  Anyone who\n"
        "knows the seed can craft keys that collide, making new keys look\n"
        "like repeats and get dropped.  For input an adversary controls, keep\n"
        "a secret seed in a file only you can read and pass --seed-file:\n"
        "    head -c 8 /dev/urandom > seed && chmod 600 seed\n"
        "--seed N is for reproducible runs, not for secrecy.\n"
        "\n"
        "Output: stdout, in a 1 MiB buffer that is written out when full and\n"
        "whenever the input has nothing more to read at once (a quiet pipe or\n"
        "terminal), so a line shows as soon as it is decided; --line-buffered\n"
        "writes after every line.  A last line without a newline gets one.\n"
        "--count prints every line as '0<TAB>line' (new) or '1<TAB>line'\n"
        "(repeat): a filter knows whether, not how often.  --invert prints\n"
        "only the repeats.  --null-data ends records with a NUL byte instead\n"
        "of a newline, on input and output (find -print0, sort -z).\n"
        "\n"
        "Exit status of dedup: 0 done; 1 bad input (a bad time, a corrupt or\n"
        "mismatched state) or a capacity stop; 2 bad options; 3 I/O error (an\n"
        "input, the output or the state cannot be read or written); 129, 130,\n"
        "143 stopped by SIGHUP, SIGINT, SIGTERM (state saved); 141 the output\n"
        "was closed (EPIPE).\n",
    .options = dedup_options,
    .aliases = dedup_aliases,
    .run = run_dedup,
};
