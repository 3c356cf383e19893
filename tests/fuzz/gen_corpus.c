/*
 * gen_corpus.c — seed corpus of the loader fuzz target: saved filters of
 * every design (those that cannot be saved yet are skipped), small enough
 * to mutate quickly (a few KiB at most), empty and partly filled, count
 * and time windows.
 *
 * Usage: gen_corpus DIR     (writes DIR/NN-design-shape.tdbf)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tdbf.h>

#define NS_PER_MS UINT64_C(1000000)

typedef struct seed_filter {
    const char  *name;
    tdbf_design  design;
    uint64_t     window_items;
    uint64_t     window_ns;
    double       error;
    unsigned     block_bits;   /* APBBF, BLOOM; TLBF_LINE: unit bits */
    unsigned     adds;         /* keys added before saving */
    uint64_t     step_ns;      /* time between adds */
} seed_filter;

static const seed_filter seeds[] = {
    {"apbf-w1-empty",     TDBF_APBF, 1, 0, 0.1, 0, 0, 0},
    {"apbf-w10",          TDBF_APBF, 10, 0, 0.1, 0, 25, 0},
    {"apbf-w100",         TDBF_APBF, 100, 0, 0.01, 0, 150, 0},
    {"apbf-w1000",        TDBF_APBF, 1000, 0, 0.01, 0, 700, 0},
    {"apbbf-w100-line",   TDBF_APBBF, 100, 0, 0.01, 512, 130, 0},
    {"apbbf-w200-word",   TDBF_APBBF, 200, 0, 0.05, 64, 90, 0},
    {"tlbf-1s-empty",     TDBF_TLBF, 0, 1000 * NS_PER_MS, 0.1, 0, 0, 0},
    {"tlbf-1s",           TDBF_TLBF, 0, 1000 * NS_PER_MS, 0.1, 0, 60, 37 * NS_PER_MS},
    {"tlbf-10ms-burst",   TDBF_TLBF, 0, 10 * NS_PER_MS, 0.05, 0, 200, 0},
    {"tlbf-50ms-grown",   TDBF_TLBF, 0, 50 * NS_PER_MS, 0.2, 0, 120, NS_PER_MS},
    {"bloom-100",         TDBF_BLOOM, 100, 0, 0.01, 0, 40, 0},
    {"bloom-200-blocked", TDBF_BLOOM, 200, 0, 0.02, 512, 40, 0},
    {"bloom-100-word",    TDBF_BLOOM, 100, 0, 0.05, 64, 10, 0},
    {"exact-count-8",     TDBF_EXACT, 8, 0, 0.01, 0, 20, 0},
    {"exact-time-5ms",    TDBF_EXACT, 0, 5 * NS_PER_MS, 0.01, 0, 12, NS_PER_MS},
    {"tbf-w50",           TDBF_TBF, 50, 0, 0.05, 0, 80, 0},
    {"btbf-w200",         TDBF_BTBF, 200, 0, 0.05, 0, 150, 0},
    {"clock-20ms",        TDBF_CLOCK, 0, 20 * NS_PER_MS, 0.05, 0, 60, NS_PER_MS},
    {"rotating-w100",     TDBF_ROTATING, 100, 0, 0.05, 0, 130, 0},
    {"rotating-10ms",     TDBF_ROTATING, 0, 10 * NS_PER_MS, 0.05, 0, 50, NS_PER_MS},
    {"fpdecay-w100",      TDBF_FPDECAY, 100, 0, 0.05, 0, 120, 0},
    {"stable-w100",       TDBF_STABLE, 100, 0, 0.05, 0, 120, 0},
    {"tlbf-line-1s-empty", TDBF_TLBF_LINE, 0, 1000 * NS_PER_MS, 0.1, 512, 0, 0},
    {"tlbf-line-1s",      TDBF_TLBF_LINE, 0, 1000 * NS_PER_MS, 0.1, 512, 60, 37 * NS_PER_MS},
    {"tlbf-line-burst",   TDBF_TLBF_LINE, 0, 10 * NS_PER_MS, 0.1, 512, 400, 0},
    {"tlbf-line-grown",   TDBF_TLBF_LINE, 0, 50 * NS_PER_MS, 0.2, 512, 300, 3 * NS_PER_MS},
};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_corpus DIR\n");
        return 2;
    }
    int failures = 0;
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        const seed_filter *s = &seeds[i];
        tdbf_config cfg;
        tdbf_config_init(&cfg);
        cfg.design = s->design;
        cfg.window_items = s->window_items;
        cfg.window_ns = s->window_ns;
        cfg.error = s->error;
        cfg.block_bits = s->block_bits;
        cfg.seed = 0x5eed0000u + i;
        tdbf *f;
        int rc = tdbf_open(&f, &cfg);
        if (rc == TDBF_OK) {
            uint64_t now = UINT64_C(1700000000) * 1000 * NS_PER_MS;
            for (unsigned k = 0; k < s->adds && rc >= 0; k++) {
                char key[32];
                int len = snprintf(key, sizeof key, "key-%u", k % 97);
                rc = tdbf_add(f, key, (size_t)len, now);
                now += s->step_ns;
            }
            if (rc >= 0) {
                char path[4096];
                snprintf(path, sizeof path, "%s/%02zu-%s.tdbf", argv[1], i,
                         s->name);
                rc = tdbf_save_file(f, path);
            }
            tdbf_close(f);
        }
        if (rc == TDBF_ENOTSUP)
            continue;   /* a design that cannot be saved yet: no seed */
        if (rc < 0) {
            fprintf(stderr, "gen_corpus: %s: %s\n", s->name, tdbf_strerror(rc));
            failures++;
        }
    }
    return failures ? 1 : 0;
}
