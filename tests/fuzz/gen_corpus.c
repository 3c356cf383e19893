/*
 * gen_corpus.c — seed corpus of the loader fuzz target: saved filters of
 * every design (those that cannot be saved yet are skipped), small enough
 * to mutate quickly (a few KiB at most), empty and partly filled, count
 * and time windows; and a filter followed by sections (a `tdbf dedup`
 * key section, an unknown one), so mutations reach the section reader.
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
    unsigned     block_bits;   /* APBBF, BLOOM; TLBF_LINE: unit bits; SQF: bin bits */
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
    {"sqf-w100-empty",    TDBF_SQF, 100, 0, 0.1, 0, 0, 0},
    {"sqf-w100-turned",   TDBF_SQF, 100, 0, 0.05, 512, 250, 0},
    {"sqf-w300-bins128",  TDBF_SQF, 300, 0, 0.01, 1024, 200, 0},
};

/* The line designs and SQF name their unit (bin) cfg.unit_bits; the
 * others take cfg.block_bits. */
static int takes_unit_bits(tdbf_design design)
{
    return design == TDBF_TLBF_LINE || design == TDBF_APBF_LINE || design == TDBF_SQF;
}

static int write_stdio(void *ctx, const void *buf, size_t len)
{
    return fwrite(buf, 1, len, ctx) == len ? 0 : -1;
}

static tdbf_section section_of(const char *tag, uint32_t version, const void *body,
                               uint32_t length)
{
    tdbf_section s = {.version = version, .length = length, .body = body};
    memcpy(s.tag, tag, TDBF_SECTION_TAG_BYTES);
    return s;
}

/* A filter followed by sections, as a `tdbf dedup --state` file is: a
 * key section (version 2, the whole line, --last 100) and, with `unknown`,
 * a section of a tag no loader knows before it. */
static int save_with_sections(const tdbf *f, const char *path, int unknown)
{
    static const unsigned char keys_body[44] = {100, 0, 0, 0, 0, 0, 0, 0,   /* --last */
                                                0, 0, 0, 0, 0, 0, 0, 0,     /* --window */
                                                0xff, 0xff, 0xff, 0xff};    /* blanks */
    static const char note[] = "a section only a later tdbf reads";
    tdbf_section keys = section_of("TDBFKEYS", 2, keys_body, sizeof keys_body);
    tdbf_section other = section_of("TDBFNOTE", 1, note, sizeof note - 1);
    FILE *out = fopen(path, "wb");
    if (!out)
        return TDBF_EIO;
    int rc = tdbf_save(f, write_stdio, out);
    if (rc == TDBF_OK && unknown)
        rc = tdbf_save_section(write_stdio, out, &other);
    if (rc == TDBF_OK)
        rc = tdbf_save_section(write_stdio, out, &keys);
    if (fclose(out) != 0 && rc == TDBF_OK)
        rc = TDBF_EIO;
    return rc;
}

/* Two seeds with sections after a small count filter. */
static int sectioned_seeds(const char *dir)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.window_items = 100;
    cfg.seed = 0x5eed5ec7;
    tdbf *f;
    int rc = tdbf_open(&f, &cfg);
    for (unsigned k = 0; k < 40 && rc >= 0; k++) {
        char key[32];
        int len = snprintf(key, sizeof key, "line-%u", k);
        rc = tdbf_add(f, key, (size_t)len, 0);
    }
    char path[4096];
    for (int unknown = 0; unknown <= 1 && rc >= 0; unknown++) {
        snprintf(path, sizeof path, "%s/%s", dir,
                 unknown ? "sections-note-keys.tdbf" : "sections-keys.tdbf");
        rc = save_with_sections(f, path, unknown);
    }
    tdbf_close(f);
    if (rc < 0)
        fprintf(stderr, "gen_corpus: sections: %s\n", tdbf_strerror(rc));
    return rc < 0;
}

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
        if (takes_unit_bits(s->design))
            cfg.unit_bits = s->block_bits;
        else
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
    failures += sectioned_seeds(argv[1]);
    return failures ? 1 : 0;
}
