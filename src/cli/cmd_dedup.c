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
 * (--window T, design TLBF by default) or a count window (--last N, APBF_LINE)
 * held in a filter of a few bits per key instead of the keys themselves.
 * Every line is one tdbf_add (test-and-insert); a line is printed when the
 * filter says its key is new.  So a repeat inside the window is always
 * dropped (no false negatives), and a new key is wrongly dropped with
 * probability --error at most (a false positive).  A key seen a little
 * longer ago than the window may still be dropped: every design has a
 * slack (APBF about (k+1)/l of the window, TLBF (k+1)/l of T); see `tdbf
 * info` for the parameters of a saved filter.  Re-adding refreshes, so a
 * key that keeps coming at intervals shorter than the window is printed
 * once.
 *
 * The pipeline of one input block:
 *
 *   read(2) into a 1 MiB buffer ──> split at '\n' ──> key (field, regex or
 *   line) and time (clock at the read, or a field) ──> batches of up to
 *   256 keys with one time ──> tdbf_add_batch (same answers as single
 *   adds, with prefetching) ──> print by the answers into a 1 MiB output
 *   buffer ──> write(2)
 *
 * Lines point into the read buffer; nothing is allocated per line.  A
 * line longer than the buffer grows it.  A last line without a newline
 * is printed with one.
 *
 * Time.  With --time-field the time of a line is its timestamp, so a
 * recorded log replays to the same output every time (with --seed).
 * Otherwise it is the moment the block was read: CLOCK_MONOTONIC, offset
 * so that it reads the wall clock (ns since 1970) at start.  Resuming a
 * --state later then continues the filter's clock instead of restarting
 * it (the library clamps time, so a clock that steps back only pauses
 * expiry).
 *
 * State.  --state FILE loads the filter saved there if the file exists
 * (the options, when given, must agree with it), and saves it atomically
 * (tdbf_save_file: temporary file, fsync, rename) at the end of the
 * input, every --checkpoint, and on SIGINT/SIGTERM.  The handlers only
 * set a flag; the main loop sees it after the current block (a blocked
 * read returns EINTR), flushes the output, saves and exits 128 + signal.
 * The output is always flushed before the state is saved, so the saved
 * filter never holds a line whose output was lost.  An error exit (bad
 * input, write failure) leaves the file as it was at the last save.
 *
 * Exit status (common/diag.h): 0 done, 1 bad input (a bad time field, a corrupt
 * or mismatched state file), 2 bad options, 3 I/O error, 130/143
 * interrupted (state saved; stderr says how many lines were taken and
 * how to resume).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "dedup_open.h"
#include "dedup_parse.h"
#include "dedup_state.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tdbf.h>

#define READ_BUFFER_BYTES  ((size_t)1 << 20)
#define WRITE_BUFFER_BYTES ((size_t)1 << 20)
#define BATCH_KEYS         256

/* Set by the SIGINT/SIGTERM handler; 0 while running. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

/* ======================================================================
 * Output: a byte buffer flushed with write(2)
 * ====================================================================== */

typedef struct output {
    char  *buf;
    size_t used;
    int    failed;    /* a write failed: errno was reported */
} output;

/* Write all of data to stdout, retrying after signals (the state must
 * never get ahead of the output). */
static int write_all(output *out, const char *data, size_t len)
{
    while (len > 0 && !out->failed) {
        ssize_t n = write(STDOUT_FILENO, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            cli_error("dedup", "cannot write the output: %s",
                      n < 0 ? strerror(errno) : "nothing written");
            out->failed = 1;
        } else {
            data += n;
            len -= (size_t)n;
        }
    }
    return out->failed ? -1 : 0;
}

static int output_flush(output *out)
{
    int rc = write_all(out, out->buf, out->used);
    out->used = 0;
    return rc;
}

static int output_bytes(output *out, const char *data, size_t len)
{
    if (out->used + len > WRITE_BUFFER_BYTES) {
        if (output_flush(out) != 0)
            return -1;
        if (len > WRITE_BUFFER_BYTES)   /* a huge line: straight out */
            return write_all(out, data, len);
    }
    memcpy(out->buf + out->used, data, len);
    out->used += len;
    return 0;
}

/* ======================================================================
 * The run
 * ====================================================================== */

typedef struct dedup_run {
    const dedup_args *args;
    tdbf    *filter;
    output   out;

    /* the batch: keys of consecutive lines that share one time */
    size_t       batch_n;
    uint64_t     batch_ns;
    const void  *keys[BATCH_KEYS];
    size_t       key_lens[BATCH_KEYS];
    const char  *lines[BATCH_KEYS];
    size_t       line_lens[BATCH_KEYS];   /* without the newline */
    uint8_t      repeats[BATCH_KEYS];

    /* the read buffer */
    char    *in;
    size_t   in_size;        /* usable bytes; one more is allocated */

    /* counters */
    uint64_t lines_in, lines_out, lines_repeat, lines_bad;
    char     first_bad[160]; /* "file:line: why" of the first skipped line */

    /* where we are */
    const char *source;      /* file name for messages */
    size_t      source_index;/* in args->files (0 for standard input) */
    uint64_t    line_no;     /* in the current source */
    int         argc;        /* the command line, to print how to resume */
    char      **argv;

    /* clocks */
    uint64_t wall_offset;    /* wall clock - monotonic clock, at start */
    uint64_t started;        /* monotonic */
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

/* Print the lines of the batch that the answers select, then empty it. */
static int flush_batch(dedup_run *run)
{
    if (run->batch_n == 0)
        return 0;
    const dedup_args *a = run->args;
    int rc = tdbf_add_batch(run->filter, run->batch_n, run->keys,
                            run->key_lens, run->batch_ns, run->repeats);
    if (rc != TDBF_OK) {
        run->batch_n = 0;
        return cli_lib_error("dedup", "adding keys", rc);
    }
    for (size_t i = 0; i < run->batch_n; i++) {
        int repeat = run->repeats[i];
        run->lines_repeat += (uint64_t)repeat;
        if (!a->count && repeat != a->invert)
            continue;
        if ((a->count && output_bytes(&run->out, repeat ? "1\t" : "0\t", 2)) ||
            output_bytes(&run->out, run->lines[i], run->line_lens[i]) ||
            output_bytes(&run->out, "\n", 1)) {
            run->batch_n = 0;
            return CLI_EXIT_IO;
        }
        run->lines_out++;
    }
    run->batch_n = 0;
    return 0;
}

/* Copy up to 40 bytes of text for a message, unprintable bytes as '?'. */
static void quote_for_message(char *dst, size_t size, const char *text,
                              size_t len)
{
    size_t n = len < 40 ? len : 40;
    if (n >= size)
        n = size - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)text[i];
        dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    dst[n] = '\0';
}

/* A line whose time field is missing or bad: skip it, or fail. */
static int bad_time(dedup_run *run, const char *line, size_t len, int why)
{
    const dedup_args *a = run->args;
    char message[128];
    if (why == -1) {
        snprintf(message, sizeof message, "no field %u (the time)",
                 a->time_field);
    } else {
        const char *text = "";
        size_t text_len = 0;
        char shown[48];
        dedup_field(line, len, a->delimiter, a->time_field, &text, &text_len);
        quote_for_message(shown, sizeof shown, text, text_len);
        snprintf(message, sizeof message, "time field %u '%s' is not %s",
                 a->time_field, shown,
                 dedup_time_format_name(a->time_format));
    }
    if (!a->skip_bad) {
        return cli_error("dedup", "%s:%llu: %s (--skip-bad drops such lines)",
                         run->source, (unsigned long long)run->line_no, message);
    }
    if (run->lines_bad++ == 0)
        snprintf(run->first_bad, sizeof run->first_bad, "%s:%llu: %s",
                 run->source, (unsigned long long)run->line_no, message);
    return 0;
}

/* One line (without its newline; line[len] is writable). */
static int take_line(dedup_run *run, char *line, size_t len, uint64_t now)
{
    const dedup_args *a = run->args;
    run->lines_in++;
    run->line_no++;
    if (a->time_field != 0) {
        int why = dedup_line_time(a, line, len, &now);
        if (why != 0) {
            /* lines before it go out first, in order */
            int rc = flush_batch(run);
            return rc != 0 ? rc : bad_time(run, line, len, why);
        }
    }
    if (run->batch_n == BATCH_KEYS ||
        (run->batch_n > 0 && now != run->batch_ns)) {
        int rc = flush_batch(run);
        if (rc != 0)
            return rc;
    }
    size_t i = run->batch_n++;
    const char *key;
    dedup_line_key(a, line, len, &key, &run->key_lens[i]);
    run->keys[i] = key;
    run->lines[i] = line;
    run->line_lens[i] = len;
    run->batch_ns = now;
    return 0;
}

/* ======================================================================
 * State, checkpoints, progress
 * ====================================================================== */

static int save_state(dedup_run *run)
{
    if (run->args->state_path == NULL)
        return 0;
    if (output_flush(&run->out) != 0)
        return CLI_EXIT_IO;
    dedup_keyspec spec;
    dedup_args_keyspec(run->args, &spec);
    int rc = dedup_state_save(run->args->state_path, run->filter, &spec);
    if (rc == DEDUP_STATE_NOMEM)
        return cli_error("dedup", "%s: cannot save the state: out of memory",
                         run->args->state_path);
    if (rc != DEDUP_STATE_OK)
        return cli_io_error("dedup", "%s: cannot save the state: %s",
                            run->args->state_path, strerror(errno));
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
        char in[32], out[32];
        double seconds = (double)(now - run->started) / 1e9;
        cli_progress("dedup", "%s lines in, %s out, %.3g lines/s",
                     cli_format_count(in, sizeof in, run->lines_in),
                     cli_format_count(out, sizeof out, run->lines_out),
                     seconds > 0 ? (double)run->lines_in / seconds : 0.0);
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
 * newline (from an earlier call). */
static int take_block(dedup_run *run, size_t *end, size_t *scanned,
                      uint64_t now)
{
    char *in = run->in;
    size_t pos = 0;
    size_t search = *scanned;
    char *newline;
    while ((newline = memchr(in + search, '\n', *end - search)) != NULL) {
        size_t stop = (size_t)(newline - in);
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
    if (bigger == NULL) {
        return cli_error("dedup", "%s:%llu: line too long (out of memory)",
                         run->source, (unsigned long long)run->line_no + 1);
    }
    run->in = bigger;
    run->in_size *= 2;
    return 0;
}

/* Stream one input.  Returns 0, an EXIT_* code, or -1 when a stop signal
 * arrived (the unfinished line is dropped). */
static int read_source(dedup_run *run, int fd)
{
    const dedup_args *a = run->args;
    int arrival = a->time_field == 0 && a->window_ns != 0;
    size_t end = 0, scanned = 0;
    uint64_t now = arrival ? arrival_ns(run) : 0;
    run->line_no = 0;

    for (;;) {
        if (stop_signal)
            return -1;
        if (end == run->in_size) {
            int rc = grow_input(run);
            if (rc != 0)
                return rc;
        }
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
        int rc = take_block(run, &end, &scanned, now);
        if (rc == 0)
            rc = between_blocks(run);
        if (rc != 0)
            return rc;
    }
    if (end > 0) {   /* a last line without a newline */
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
        if (strcmp(name, "-") != 0) {
            fd = open(name, O_RDONLY);
            if (fd < 0)
                return cli_io_error("dedup", "%s: cannot open: %s", name,
                                    strerror(errno));
        }
        run->source = strcmp(name, "-") == 0 ? "(stdin)" : name;
        run->source_index = i;
        int rc = read_source(run, fd);
        if (fd != STDIN_FILENO)
            close(fd);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ======================================================================
 * Statistics
 * ====================================================================== */

static void print_stats(const dedup_run *run)
{
    tdbf_stats st;
    if (tdbf_get_stats(run->filter, &st) != TDBF_OK)
        return;
    double seconds = (double)(cli_now_ns() - run->started) / 1e9;
    char a[32], b[32], c[32], d[32], e[32];
    cli_table t;
    cli_table_init(&t, 2, "ll");
    cli_table_cell(&t, "lines in");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, run->lines_in));
    cli_table_cell(&t, "lines out");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, run->lines_out));
    cli_table_cell(&t, "repeats");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, run->lines_repeat));
    if (run->args->time_field != 0) {
        cli_table_cell(&t, "bad times skipped");
        cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, run->lines_bad));
    }
    cli_table_cell(&t, "time");
    cli_table_cell(&t, "%s, %s lines/s",
                   cli_format_duration_ns(e, sizeof e, cli_now_ns() - run->started),
                   cli_format_count(a, sizeof a, seconds > 0
                       ? (uint64_t)((double)run->lines_in / seconds) : 0));
    cli_table_cell(&t, "design");
    if (st.window_ns != 0)
        cli_table_cell(&t, "%s, window %s", tdbf_design_name(st.design),
                       cli_format_duration_ns(b, sizeof b, st.window_ns));
    else
        cli_table_cell(&t, "%s, window %s lines", tdbf_design_name(st.design),
                       cli_format_count(b, sizeof b, st.window_items));
    tdbf_shape shape;
    char expiry[320];
    if (tdbf_get_shape(run->filter, &shape) == TDBF_OK) {
        cli_table_cell(&t, "slack");
        cli_table_cell(&t, "%s", cli_format_expiry(expiry, sizeof expiry, &shape, "lines",
                                                   "dropped", 0));
    }
    cli_table_cell(&t, "memory");
    cli_table_cell(&t, "%s", cli_format_bytes(c, sizeof c, st.memory_bytes));
    cli_table_cell(&t, "error: configured");
    cli_table_cell(&t, "%.4g", st.error_configured);
    cli_table_cell(&t, "error: planned");
    cli_table_cell(&t, "%.4g", st.error_planned);
    cli_table_cell(&t, "error: estimated now");
    cli_table_cell(&t, "%.4g", st.error_estimated);
    cli_table_cell(&t, "filter adds (all runs)");
    cli_table_cell(&t, "%s", cli_format_count(d, sizeof d, st.items));
    fputs("tdbf dedup: statistics\n", stderr);
    cli_table_print(&t, stderr, "  ", 0);
    cli_table_free(&t);
}

static int install_handlers(struct sigaction *old_int,
                            struct sigaction *old_term)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;   /* no SA_RESTART: a blocked read returns EINTR */
    stop_signal = 0;
    if (sigaction(SIGINT, &sa, old_int) != 0 ||
        sigaction(SIGTERM, &sa, old_term) != 0)
        return cli_error("dedup", "cannot install signal handlers: %s",
                         strerror(errno));
    return 0;
}

/* ======================================================================
 * After a stop signal: what was taken, and how to go on
 * ====================================================================== */

/* One shell word: as is when plain, else in single quotes. */
static void print_word(FILE *out, const char *word)
{
    if (*word != '\0' && strspn(word, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                       "0123456789_@%+=:,./-") == strlen(word)) {
        fprintf(out, " %s", word);
        return;
    }
    fputs(" '", out);
    for (; *word != '\0'; word++)
        if (*word == '\'')
            fputs("'\\''", out);
        else
            fputc(*word, out);
    fputc('\'', out);
}

static int is_operand(const dedup_args *a, const char *arg)
{
    for (size_t i = 0; i < a->n_files; i++)
        if (a->files[i] == arg)
            return 1;
    return 0;
}

/* "tdbf dedup OPTIONS [-] [FILES]": this run's options, then the inputs
 * it had not finished, the current one from standard input. */
static void print_resume_command(const dedup_run *run, int from_stdin)
{
    const dedup_args *a = run->args;
    fputs(" tdbf dedup", stderr);
    for (int i = 1; i < run->argc; i++)
        if (!is_operand(a, run->argv[i]) && strcmp(run->argv[i], "--") != 0)
            print_word(stderr, run->argv[i]);
    int dashes = 0;
    for (size_t i = run->source_index + 1; i < a->n_files; i++)
        dashes |= a->files[i][0] == '-' && a->files[i][1] != '\0';
    if (dashes)
        fputs(" --", stderr);
    if (from_stdin && run->source_index + 1 < a->n_files)
        fputs(" -", stderr);
    for (size_t i = run->source_index + 1; i < a->n_files; i++)
        print_word(stderr, a->files[i]);
    fputc('\n', stderr);
}

static void print_resume(const dedup_run *run, int finished)
{
    const dedup_args *a = run->args;
    char count[32], next[32];
    fprintf(stderr, "tdbf dedup: stopped by %s after %s input lines",
            stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
            cli_format_count(count, sizeof count, run->lines_in));
    if (a->state_path == NULL) {
        fputs("; without --state nothing was saved, so a rerun starts afresh\n", stderr);
        return;
    }
    fprintf(stderr, "; the state in %s holds them.\n", a->state_path);
    if (finished) {
        fputs("tdbf dedup: all the input had been read: nothing is left to resume\n", stderr);
        return;
    }
    const char *name = a->n_files > 0 ? a->files[run->source_index] : "-";
    snprintf(next, sizeof next, "%llu", (unsigned long long)run->line_no + 1);
    if (strcmp(name, "-") == 0) {
        fprintf(stderr, "tdbf dedup: %s lines of standard input were taken; to resume, "
                "feed it from line %s on to:\n ", cli_format_count(count, sizeof count,
                                                                  run->line_no), next);
        print_resume_command(run, 1);
        return;
    }
    fprintf(stderr, "tdbf dedup: %s lines of %s were taken; to resume:\n  tail -n +%s",
            cli_format_count(count, sizeof count, run->line_no), name, next);
    print_word(stderr, name);
    fputs(" |", stderr);
    print_resume_command(run, 1);
}

/* ======================================================================
 * The command
 * ====================================================================== */

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
    int status = CLI_EXIT_DATA;
    struct sigaction old_int, old_term;
    int handlers = 0;
    if (run == NULL) {
        cli_error("dedup", "out of memory");
        goto done;
    }
    run->args = &args;
    run->argc = argc;
    run->argv = argv;
    run->in_size = READ_BUFFER_BYTES;
    run->in = malloc(run->in_size + 1);
    run->out.buf = malloc(WRITE_BUFFER_BYTES);
    if (run->in == NULL || run->out.buf == NULL) {
        cli_error("dedup", "out of memory");
        goto done;
    }
    status = dedup_check_state_writable(&args);
    if (status == 0)
        status = dedup_open_filter(&args, &run->filter);
    if (status != 0)
        goto done;
    status = install_handlers(&old_int, &old_term);
    if (status != 0)
        goto done;
    handlers = 1;

    run->wall_offset = wall_minus_monotonic();
    run->started = cli_now_ns();
    run->progress = !args.quiet && isatty(STDERR_FILENO);
    run->next_progress = run->started + CLI_PROGRESS_PERIOD_NS;
    if (args.checkpoint_ns != 0)
        run->next_checkpoint = run->started + args.checkpoint_ns;

    status = read_inputs(run);
    progress_clear(run);
    if (status == 0 || status == -1) {
        /* done, or stopped by a signal: everything taken is saved */
        int finished = status == 0;
        int saved = output_flush(&run->out) != 0 ? CLI_EXIT_IO : save_state(run);
        if (saved != 0) {
            status = saved;
        } else if (stop_signal) {   /* even if the input ended meanwhile */
            status = CLI_EXIT_SIGNAL + stop_signal;
            print_resume(run, finished);
        }
    }
    if (run->lines_bad > 0)
        cli_error("dedup", "skipped %llu line%s with a bad time; the first: %s",
                  (unsigned long long)run->lines_bad,
                  run->lines_bad == 1 ? "" : "s", run->first_bad);
    if (args.stats)
        print_stats(run);

done:
    if (handlers) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
    }
    if (run != NULL) {
        if (status != 0 && status != CLI_EXIT_IO && run->out.buf != NULL &&
            !run->out.failed)
            output_flush(&run->out);   /* the lines before an input error */
        tdbf_close(run->filter);
        free(run->in);
        free(run->out.buf);
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
        "numbers).  Keys\n"
        "never seen, or last seen longer ago than window + slack, are wrongly\n"
        "dropped at a rate of --error at most.\n"
        "\n"
        "Key: the whole line (without its newline), field N (--field), or\n"
        "the first group of a regex (--key-regex 'user=([0-9]+)').  A line\n"
        "without that field, or that the regex does not match, is keyed by\n"
        "the whole line.  Time: when the line is read, or a field of it\n"
        "(--time-field N --time-format unix_ms), which replays a recorded log\n"
        "to the same output every time.  iso8601 is 2024-05-01T12:00:00.25Z\n"
        "(offsets +02:00 allowed; none means UTC); with the default blank\n"
        "delimiter write the T, not a space.  A missing or bad time stops the\n"
        "run with its line number (exit 1) unless --skip-bad.\n"
        "\n"
        "Designs: --window uses tlbf-line by default, --last apbf-line; any\n"
        "design with that kind of window works (exact keeps the keys: exact,\n"
        "and big).  A time window learns the rate of keys, so a burst costs it\n"
        "memory; read on arrival from files (not pipes), whose lines come in\n"
        "one burst, it is sized for their lines instead (--capacity sets it).\n"
        "\n"
        "State: --state FILE loads FILE if it exists -- options given must\n"
        "match it; sizing options (--capacity) apply only when it is made --\n"
        "and saves the filter there atomically at the end, every --checkpoint,\n"
        "and on SIGINT/SIGTERM (exit 130/143 after saving; stderr then says\n"
        "how many lines were taken and the command that resumes).  The state\n"
        "also keeps how keys and times were cut from lines (--field,\n"
        "--delimiter, --key-regex, --time-field, --time-format): a resumed run\n"
        "that gives none of them takes the state's, one that gives others is\n"
        "refused (exit 1).  Whether FILE can be written is checked before any\n"
        "input is read (exit 3).  Lines are printed before the state that\n"
        "includes them is saved.  On an error exit the file keeps its last\n"
        "saved contents.\n"
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
        "Output: stdout, fully buffered (1 MiB).  A last line without a\n"
        "newline gets one.  --count prints every line as '0<TAB>line' (new)\n"
        "or '1<TAB>line' (repeat): a filter knows whether, not how often.\n",
    .options = dedup_options,
    .run = run_dedup,
};
