/*
 * dedup_open.c — how `tdbf dedup` gets its filter: built from the options
 * (with the sizing checks and the messages that say what to change), or
 * loaded from --state and checked against the options given again (see
 * dedup_open.h).
 */
#define _POSIX_C_SOURCE 200809L /* open, read */

#include "dedup_open.h"
#include "dedup_state.h"
#include "filter_sizing.h"
#include "common/diag.h"
#include "common/output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEED_FILE_MAX      4096
#define SAMPLE_BYTES       65536     /* read to learn an input's line length */
#define HINT_LEAST         1024      /* fewer lines: the library's default */
#define HINT_MEMORY_SHARE  4         /* a hint takes at most 1/4 of --max-memory */

static void config_from_args(const dedup_args *a, uint64_t seed,
                             tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    cfg->design = a->design_given ? a->design : cli_default_design(a->window_ns != 0);
    if (a->error > 0.0)
        cfg->error = a->error;
    cfg->window_ns = a->window_ns;
    cfg->window_items = a->window_items;
    cfg->capacity = a->capacity;
    cfg->seed = seed;
    if (a->max_memory != 0)
        cfg->max_memory = a->max_memory;
}

/* Comma-separated names of the designs that take a window of this kind
 * (tdbf_plan_shape of a small one succeeds). */
static void designs_with(int time_window, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        tdbf_config cfg;
        tdbf_config_init(&cfg);
        cfg.design = (tdbf_design)d;
        if (time_window)
            cfg.window_ns = UINT64_C(1000000000);
        else
            cfg.window_items = 1000;
        tdbf_shape shape;
        if (tdbf_plan_shape(&cfg, &shape) != TDBF_OK)
            continue;
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", used > 0 ? ", " : "",
                 tdbf_design_name((tdbf_design)d));
    }
}

/* Lines in the regular file open at fd from its offset on, estimated from
 * the size and the mean length of the first SAMPLE_BYTES (pread: the
 * offset stays); 0 when not a regular file or nothing could be read. */
static uint64_t lines_in_fd(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (at < 0 || at >= st.st_size)
        return 0;
    char sample[SAMPLE_BYTES];
    ssize_t n = pread(fd, sample, sizeof sample, at);
    if (n <= 0)
        return 0;
    uint64_t newlines = 0;
    for (ssize_t i = 0; i < n; i++)
        newlines += sample[i] == '\n';
    double rest = (double)(st.st_size - at);
    return newlines ? (uint64_t)(rest * (double)newlines / (double)n) + 1 : 1;
}

/* Lines in all the inputs, if every one is a regular file (0 if not):
 * read on arrival, a file goes by in seconds, so its lines are one burst
 * inside a window of minutes, and the filter is best sized for them. */
static uint64_t lines_in_inputs(const dedup_args *a)
{
    if (a->n_files == 0)
        return lines_in_fd(STDIN_FILENO);
    uint64_t lines = 0;
    for (size_t i = 0; i < a->n_files; i++) {
        /* open only a regular file: opening a FIFO here would connect its
         * writer to a reader that goes away, and the writer would get
         * SIGPIPE before the real read opens it */
        struct stat st;
        int is_stdin = strcmp(a->files[i], "-") == 0;
        if (!is_stdin && (stat(a->files[i], &st) != 0 || !S_ISREG(st.st_mode)))
            return 0;
        int fd = is_stdin ? STDIN_FILENO : open(a->files[i], O_RDONLY);
        uint64_t in = fd < 0 ? 0 : lines_in_fd(fd);
        if (fd > STDIN_FILENO)
            close(fd);
        if (in == 0)
            return 0;
        lines += in;
    }
    return lines;
}

/* A time window on arrival times with no --capacity: the inputs' lines,
 * when they are files, as the capacity hint (at most a quarter of the
 * memory cap's worth: a file read slower than the window makes it too
 * large, and the filter then shrinks to the rate). */
static void hint_from_inputs(const dedup_args *a, tdbf_config *cfg)
{
    if (a->window_ns == 0 || a->time_field != 0 || a->capacity != 0)
        return;
    uint64_t lines = lines_in_inputs(a), bytes = 0;
    if (lines < HINT_LEAST)
        return;
    cfg->capacity = lines;
    uint64_t limit = (cfg->max_memory ? cfg->max_memory : TDBF_DEFAULT_MAX_MEMORY) /
                     HINT_MEMORY_SHARE;
    if (cli_planned_bytes(cfg, &bytes) != 0)
        cfg->capacity = 0;
    else if (bytes > limit)
        cfg->capacity = (uint64_t)((double)lines * (double)limit / (double)bytes);
    if (cfg->capacity < HINT_LEAST)
        cfg->capacity = 0;
}

/* A filter over the memory cap: say what it would need and how to allow
 * it.  Exit 2: the options ask for it. */
static int too_big(const dedup_args *a, const tdbf_config *cfg)
{
    char cap[32], need[32], window[48], raise[32];
    uint64_t limit = cfg->max_memory ? cfg->max_memory : TDBF_DEFAULT_MAX_MEMORY;
    uint64_t bytes = 0;
    cli_format_bytes(cap, sizeof cap, limit);
    if (a->window_ns != 0)
        snprintf(window, sizeof window, "--window %s",
                 cli_format_duration_ns(need, sizeof need, a->window_ns));
    else
        snprintf(window, sizeof window, "--last %s",
                 cli_format_count(need, sizeof need, a->window_items));
    if (cli_planned_bytes(cfg, &bytes) != 0 || bytes <= limit)
        return cli_usage_error("dedup", "the %s filter for %s at error %g needs more than "
                               "the %s --max-memory allows; raise it, or ask for a shorter "
                               "window or a larger --error", tdbf_design_name(cfg->design),
                               window, cfg->error, cap);
    cli_format_bytes(need, sizeof need, bytes);
    cli_size_suggestion(raise, sizeof raise, bytes);
    return cli_usage_error("dedup", "the %s filter for %s at error %g needs %s, more than "
                           "the %s --max-memory allows; raise it (--max-memory %s), or ask "
                           "for a shorter window or a larger --error",
                           tdbf_design_name(cfg->design), window, cfg->error, need, cap,
                           raise);
}

static int open_error(const dedup_args *a, const tdbf_config *cfg, int rc)
{
    const char *name = tdbf_design_name(cfg->design);
    char names[256];
    int time_window = cfg->window_ns != 0;
    if (rc == TDBF_ETOOBIG)
        return too_big(a, cfg);
    if (rc == TDBF_EWINDOW) {
        designs_with(time_window, names, sizeof names);
        return cli_usage_error("dedup", "design %s has no %s window (%s); designs "
                               "that have one: %s", name, time_window ? "time" : "count",
                               time_window ? "--window" : "--last", names);
    }
    return cli_lib_error("dedup", name, rc);
}

/* The secret seed of --seed-file. */
static int read_seed_file(const char *path, uint64_t *seed)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return cli_io_error("dedup", "--seed-file %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        fprintf(stderr, "tdbf dedup: warning: the seed file %s is accessible "
                "to other users (chmod 600 it)\n", path);
    unsigned char data[SEED_FILE_MAX];
    size_t len = 0;
    ssize_t n;
    while (len < sizeof data &&
           ((n = read(fd, data + len, sizeof data - len)) > 0 ||
            (n < 0 && errno == EINTR)))
        if (n > 0)
            len += (size_t)n;
    close(fd);
    /* never echo the contents: they are the secret */
    if (len == sizeof data || dedup_parse_seed(data, len, seed) != 0)
        return cli_error("dedup", "--seed-file %s: not a seed (a non-zero "
                         "number, decimal or 0x hex, or exactly 8 raw bytes)",
                         path);
    return 0;
}

/* The window a filter opened with these options would guarantee, when the
 * state does not say which was asked for (a state saved before states
 * kept their key section): the shape tdbf_open would build. */
static int probe_window(const dedup_args *a, const tdbf_shape *have, tdbf_shape *want)
{
    tdbf_config cfg;
    dedup_args same = *a;
    same.design = have->design;
    same.design_given = 1;
    config_from_args(&same, have->seed, &cfg);
    cfg.error = have->error_configured;
    int rc = tdbf_plan_shape(&cfg, want);
    return rc == TDBF_OK ? 0 : open_error(a, &cfg, rc);
}

/* A key section that records the window the state was made with (one
 * written by a run that named none holds zeros: the filter tells). */
static int spec_names_window(const dedup_state *state)
{
    return state->has_spec && (state->spec.window_ns != 0 || state->spec.window_items != 0);
}

/* A run that names no window takes the state's: it then reads the clock
 * for a time window, and saves the window with its keys for the next. */
static void adopt_window(dedup_args *a, const dedup_state *state, const tdbf_shape *have)
{
    if (a->window_ns != 0 || a->window_items != 0)
        return;
    if (spec_names_window(state)) {
        a->window_ns = state->spec.window_ns;
        a->window_items = state->spec.window_items;
    } else {
        a->window_ns = have->window_ns;   /* a count window's --last is unknown */
    }
}

/* "--last N" or "--window T", as a run gave it. */
static void describe_window(uint64_t items, uint64_t ns, char *buf, size_t size)
{
    char duration[32];
    if (ns != 0)
        snprintf(buf, size, "--window %s",
                 cli_format_duration_ns(duration, sizeof duration, ns));
    else
        snprintf(buf, size, "--last %llu", (unsigned long long)items);
}

/* The window the options ask for must be the state's. */
static int check_window(const dedup_args *a, const char *path, const dedup_state *state,
                        const tdbf_shape *have)
{
    char shown[48], asked[48];
    if (a->window_ns == 0 && a->window_items == 0)
        return 0;
    if (spec_names_window(state)) {
        const dedup_keyspec *spec = &state->spec;
        if (spec->window_ns == a->window_ns && spec->window_items == a->window_items)
            return 0;
        describe_window(spec->window_items, spec->window_ns, shown, sizeof shown);
        describe_window(a->window_items, a->window_ns, asked, sizeof asked);
        return cli_error("dedup", "%s was made with the window %s, not %s", path, shown,
                         asked);
    }
    tdbf_shape want;
    int rc = probe_window(a, have, &want);
    if (rc != 0)
        return rc;
    if (want.window_ns != have->window_ns)
        return cli_error("dedup", "%s has a window of %s, not %s", path,
                         cli_format_duration_ns(shown, sizeof shown, have->window_ns),
                         cli_format_duration_ns(asked, sizeof asked, want.window_ns));
    if (want.window_items != have->window_items)
        return cli_error("dedup", "%s has a window of %llu lines, not %llu "
                         "(--last %llu)", path, (unsigned long long)have->window_items,
                         (unsigned long long)want.window_items,
                         (unsigned long long)a->window_items);
    return 0;
}

/* Keys must be cut from lines as they were when the state was made: the
 * options given must say the same, and none given take the state's. */
static int check_keys(dedup_args *a, const char *path, const dedup_state *state)
{
    if (!state->has_spec)
        return 0;        /* an older state: it does not say; trust the options */
    if (!dedup_args_name_keys(a))
        return dedup_args_adopt_keyspec(a, &state->spec) == 0 ? 0 : CLI_EXIT_DATA;
    dedup_keyspec asked;
    dedup_args_keyspec(a, &asked);
    if (dedup_keyspec_equal(&asked, &state->spec))
        return 0;
    char made[512], now[512];
    dedup_keyspec_describe(&state->spec, made, sizeof made);
    dedup_keyspec_describe(&asked, now, sizeof now);
    return cli_error("dedup", "%s was made with keys from %s; this run asks for %s.  Resume "
                     "with the same key options (or none, to take the state's), or use "
                     "another --state", path, made, now);
}

/* The saved filter must be what the options describe, where given. */
static int check_state(dedup_args *a, const char *path, const dedup_state *state,
                       uint64_t seed)
{
    tdbf_shape have;
    tdbf_get_shape(state->filter, &have);
    const char *have_name = tdbf_design_name(have.design);
    int have_time = have.window_ns != 0;

    if ((a->window_ns != 0 && !have_time) || (a->window_items != 0 && have_time))
        return cli_error("dedup", "%s holds a %s-window %s filter; the options "
                         "ask for a %s window", path, have_time ? "time" : "count",
                         have_name, have_time ? "count" : "time");
    if (a->design_given && a->design != have.design)
        return cli_error("dedup", "%s holds a %s filter, not %s", path,
                         have_name, tdbf_design_name(a->design));
    if (a->error > 0.0 && a->error != have.error_configured)
        return cli_error("dedup", "%s was made with --error %g, not %g", path,
                         have.error_configured, a->error);
    if (seed != 0 && seed != have.seed)
        return cli_error("dedup", "%s was made with another hash seed", path);
    int rc = check_window(a, path, state, &have);
    if (rc == 0)
        adopt_window(a, state, &have);
    return rc != 0 ? rc : check_keys(a, path, state);
}

/* Load --state: CLI_EXIT_OK with *out set, or an exit code. */
static int load_state(dedup_args *a, uint64_t seed, tdbf **out)
{
    tdbf_load_options opts = {0};
    opts.max_memory = a->max_memory;
    dedup_state state;
    const char *why = NULL;
    int rc = dedup_state_load(a->state_path, &opts, &state, &why);
    if (rc == DEDUP_STATE_IO)
        return cli_io_error("dedup", "%s: cannot read the state: %s", a->state_path,
                            strerror(errno));
    if (rc == DEDUP_STATE_NOMEM)
        return cli_error("dedup", "%s: out of memory loading the state", a->state_path);
    if (rc != DEDUP_STATE_OK && strcmp(why, tdbf_strerror(TDBF_ETOOBIG)) == 0)
        return cli_usage_error("dedup", "%s: the state is larger than the %s --max-memory "
                               "allows; raise it", a->state_path,
                               a->max_memory ? "cap" : "default 4 GiB");
    if (rc != DEDUP_STATE_OK)
        return cli_error("dedup", "%s: not a usable state file: %s", a->state_path, why);
    rc = check_state(a, a->state_path, &state, seed);
    if (rc == 0) {
        *out = state.filter;
        state.filter = NULL;
        /* sections of other tags go back into the file at every save */
        a->kept_sections = state.others;
        a->kept_len = state.others_len;
        state.others = NULL;
    }
    dedup_state_free(&state);
    return rc;
}

/* Open the filter: load --state if the file exists, else create. */
int dedup_open_filter(dedup_args *a, tdbf **out)
{
    uint64_t seed = a->seed;
    *out = NULL;
    if (a->seed_file != NULL) {
        int rc = read_seed_file(a->seed_file, &seed);
        if (rc != 0)
            return rc;
    }

    struct stat st;
    if (a->state_path != NULL && stat(a->state_path, &st) == 0)
        return load_state(a, seed, out);
    if (a->state_path != NULL && errno != ENOENT)
        return cli_io_error("dedup", "%s: %s", a->state_path, strerror(errno));
    if (a->window_ns == 0 && a->window_items == 0)
        return cli_usage_error("dedup", "give a window: --window T (time) or --last N "
                               "(count)%s", a->state_path != NULL
                               ? ", or an existing --state file" : "");

    tdbf_config cfg;
    config_from_args(a, seed, &cfg);
    hint_from_inputs(a, &cfg);
    int rc = tdbf_open(out, &cfg);
    return rc == TDBF_OK ? 0 : open_error(a, &cfg, rc);
}

/* Before any input is read: a --state that could not be saved at the end
 * would lose the whole run. */
int dedup_check_state_writable(const dedup_args *a)
{
    if (a->state_path == NULL)
        return 0;
    struct stat st;
    if (stat(a->state_path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_io_error("dedup", "--state %s is a directory", a->state_path);
    if (dedup_state_writable(a->state_path) != DEDUP_STATE_OK)
        return cli_io_error("dedup", "--state %s: cannot write there (%s); nothing was "
                            "read", a->state_path, strerror(errno));
    return 0;
}
