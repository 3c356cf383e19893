/*
 * eval_util.c — what every `tdbf eval` experiment shares: CSV output, the
 * comparison with the paper's printed digits, and the streams of distinct
 * keys the measured experiments replay (the table printer and the
 * progress line are the lab's: report.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <tdbf.h>

/* ---- CSV output ------------------------------------------------------ */

int csv_open(eval_csv *csv, const char *path)
{
    csv->out = NULL;
    csv->close = 0;
    if (path == NULL)
        return 0;
    if (strcmp(path, "-") == 0) {
        csv->out = stdout;
        return 0;
    }
    csv->out = fopen(path, "w");
    if (csv->out == NULL)
        return -1;
    csv->close = 1;
    return 0;
}

void csv_line(eval_csv *csv, const char *fmt, ...)
{
    if (csv->out == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(csv->out, fmt, ap);
    va_end(ap);
    fputc('\n', csv->out);
}

/* Close the CSV; returns 0, or -1 if anything failed to be written. */
int csv_close(eval_csv *csv)
{
    if (csv->out == NULL)
        return 0;
    int failed = ferror(csv->out) != 0;
    if (csv->close)
        failed |= fclose(csv->out) != 0;
    else
        failed |= fflush(csv->out) != 0;
    csv->out = NULL;
    return failed ? -1 : 0;
}

/* Write into `list` the names of the values that, printed with the paper's
 * decimals, differ from the paper's ("eff+npws"), or "" if none does.
 * Returns 1 if any differs. */
int differences(const paper_value *values, size_t n, char *list,
                       size_t size)
{
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char a[48], b[48];
        snprintf(a, sizeof a, "%.*f", values[i].decimals, values[i].ours);
        snprintf(b, sizeof b, "%.*f", values[i].decimals, values[i].paper);
        if (strcmp(a, b) != 0 && used < size) {
            snprintf(list + used, size - used, "%s%s", used ? "+" : "",
                     values[i].name);
            used = strlen(list);
        }
    }
    return list[0] != '\0';
}

void table_header(cli_table *t, const char *const *headers, size_t n)
{
    for (size_t c = 0; c < n; c++)
        cli_table_cell(t, "%s", headers[c]);
}

int eval_print_table(cli_table *t, const char *cmd, const eval_request *req)
{
    if (req->markdown_path != NULL) {
        FILE *out = fopen(req->markdown_path, "w");
        if (out == NULL) {
            cli_table_free(t);
            return cli_io_error(cmd, "cannot create %s", req->markdown_path);
        }
        fprintf(out, "<!-- written by `tdbf eval %s%s --markdown` (make eval%s) -->\n\n",
                req->experiment, req->large ? " --large" : "", req->large ? "-large" : "");
        int failed = lab_table_markdown(t, out) != 0 || ferror(out) != 0;
        failed |= fclose(out) != 0;
        if (failed) {
            cli_table_free(t);
            return cli_io_error(cmd, "cannot write %s", req->markdown_path);
        }
    }
    return lab_print_table(t, cmd, 1);
}

/* ---- streams of distinct keys (eval.h) ------------------------------- */

int eval_add_keys(tdbf *f, uint64_t *next, uint64_t count, uint64_t from_ns,
                  uint64_t span_ns, uint64_t *times)
{
    for (uint64_t i = 0; i < count; i++) {
        uint64_t id = (*next)++;
        /* evenly spaced: key i of `count` at from + i*span/count */
        uint64_t now = from_ns + (uint64_t)((double)span_ns * (double)i / (double)count);
        if (times)
            times[id] = now;
        unsigned char key[8];
        lab_key_u64(id, key);
        int rc = tdbf_add(f, key, sizeof key, now);
        if (rc < 0)
            return rc;
    }
    return TDBF_OK;
}

int eval_has_key(const tdbf *f, uint64_t id, uint64_t now_ns)
{
    unsigned char key[8];
    lab_key_u64(id, key);
    return tdbf_contains(f, key, sizeof key, now_ns);
}

int eval_probe_fp(const tdbf *f, uint64_t probes, uint64_t *next_probe,
                  uint64_t now_ns, double *fp)
{
    uint64_t yes = 0;
    for (uint64_t i = 0; i < probes; i++) {
        int rc = eval_has_key(f, EVAL_PROBE_BIT | (*next_probe)++, now_ns);
        if (rc < 0)
            return rc;
        yes += (uint64_t)rc;
    }
    *fp = probes ? (double)yes / (double)probes : 0.0;
    return TDBF_OK;
}

int eval_keys16(tdbf *f, uint64_t stream, uint64_t n, uint64_t *hits)
{
    unsigned char keys[EVAL_BATCH][LAB_KEY16_BYTES];
    const void *ptrs[EVAL_BATCH];
    size_t lens[EVAL_BATCH];
    uint8_t answers[EVAL_BATCH];
    for (uint64_t done = 0; done < n;) {
        size_t batch = n - done < EVAL_BATCH ? (size_t)(n - done) : EVAL_BATCH;
        for (size_t i = 0; i < batch; i++) {
            lab_key16(stream, done + i, keys[i]);
            ptrs[i] = keys[i];
            lens[i] = LAB_KEY16_BYTES;
        }
        int rc = hits ? tdbf_contains_batch(f, batch, ptrs, lens, 0, answers)
                      : tdbf_add_batch(f, batch, ptrs, lens, 0, NULL);
        if (rc != TDBF_OK)
            return rc;
        if (hits)
            for (size_t i = 0; i < batch; i++)
                *hits += answers[i];
        done += batch;
    }
    return TDBF_OK;
}

int eval_point_failed(const char *cmd, int progress, cli_table *t, const char *design,
                      uint64_t window, int rc)
{
    lab_progress_end(progress);
    cli_table_free(t);
    if (rc == EVAL_NOT_AT_WORST)
        return cli_error(cmd, "%s window %llu: the fill did not stop at the end of a "
                         "generation", design, (unsigned long long)window);
    return cli_lib_error(cmd, design, rc);
}

int eval_probe_worst(const tdbf_config *cfg, eval_worst_fn worst_at, uint64_t key_stream,
                     uint64_t probe_stream, uint64_t probes, tdbf_stats *st, uint64_t *hits)
{
    tdbf *f;
    int rc = tdbf_open(&f, cfg);
    if (rc != TDBF_OK)
        return rc;
    eval_worst worst = {0, 0};
    rc = tdbf_get_stats(f, st);
    if (rc == TDBF_OK) {
        worst = worst_at(st);
        rc = eval_keys16(f, key_stream, worst.adds, NULL);
    }
    if (rc == TDBF_OK)
        rc = tdbf_get_stats(f, st);
    if (rc == TDBF_OK && st->generation_fill != worst.fill)
        rc = EVAL_NOT_AT_WORST;
    if (rc == TDBF_OK)
        rc = eval_keys16(f, probe_stream, probes, hits);
    tdbf_close(f);
    return rc;
}
