/*
 * fuzz_cli.c — libFuzzer target for the command-line side of `tdbf
 * dedup`: the option parser (util.c, dedup_parse.c), field splitting,
 * key extraction and timestamp parsing, without running the command.
 *
 * Input: the first line is the command line after "dedup", words split
 * at spaces; every further line is an input line.  A --key-regex value
 * is replaced by one of a fixed set of patterns (the C library's regex
 * compiler is not what is under test, and some patterns take it
 * exponential time).  When the options do not parse, the lines are
 * still cut with options derived from the input bytes.  Checked: no
 * crash, leak or out-of-bounds read (each line sits in its own exact
 * allocation), keys inside their line, times that parse re-parse the
 * same, and the seed-file reader never accepts 0.
 *
 * Seeds: tests/fuzz/corpus/cli/.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dedup_parse.h"

#define MAX_WORDS 64
#define MAX_LINES 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const patterns[] = {
    "id=([0-9]+)", "^([^,]*),", "user:([a-z]+)|uid=([0-9]+)", "[0-9]+",
    "(a|b)*c", "^$", "()", "x{0,3}(y?)",
};

static void fail(const char *what)
{
    fprintf(stderr, "fuzz_cli: %s\n", what);
    __builtin_trap();
}

/* Options from the input bytes, for lines when the command line fails. */
static void derived_args(dedup_args *a, const uint8_t *data, size_t size)
{
    static const int delimiters[] = {DEDUP_BLANKS, ',', '\t', ':', ' '};
    memset(a, 0, sizeof *a);
    uint8_t b0 = size > 0 ? data[0] : 0, b1 = size > 1 ? data[1] : 0;
    a->delimiter = delimiters[b0 % 5];
    a->field = b0 / 5 % 4;             /* 0: whole line */
    a->time_field = 1 + b1 % 3;
    a->time_format = (dedup_time_format)(DEDUP_TIME_UNIX + b1 / 3 % 5);
}

static void check_line(const dedup_args *a, const char *text, size_t len)
{
    char *line = malloc(len + 1);   /* exact: line[len] is the spare byte */
    if (line == NULL)
        return;
    memcpy(line, text, len);
    line[len] = '\n';
    const char *key;
    size_t key_len;
    dedup_line_key(a, line, len, &key, &key_len);
    if (key < line || key_len > len || (size_t)(key - line) > len - key_len)
        fail("key outside its line");
    if (line[len] != '\n')
        fail("the byte after the line was not restored");
    uint64_t ns;
    if (a->time_field != 0 && a->time_format != DEDUP_TIME_ARRIVAL)
        (void)dedup_line_time(a, line, len, &ns);
    /* every format on the whole line; what parses must be stable */
    for (int f = DEDUP_TIME_UNIX; f <= DEDUP_TIME_ISO8601; f++) {
        uint64_t again;
        if (dedup_parse_time((dedup_time_format)f, line, len, &ns) == 0 &&
            (dedup_parse_time((dedup_time_format)f, line, len, &again) != 0 ||
             again != ns))
            fail("a time parses differently twice");
    }
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *end = text + size;
    const char *newline = memchr(text, '\n', size);
    size_t first_len = newline ? (size_t)(newline - text) : size;

    /* argv from the first line (NUL bytes end a word early: C strings) */
    char *words = malloc(first_len + 1);
    if (words == NULL)
        return 0;
    memcpy(words, text, first_len);
    words[first_len] = '\0';
    char *argv[MAX_WORDS + 2];
    int argc = 0;
    argv[argc++] = "dedup";
    for (char *w = strtok(words, " "); w != NULL && argc <= MAX_WORDS;
         w = strtok(NULL, " "))
        argv[argc++] = w;
    argv[argc] = NULL;
    static char joined[MAX_WORDS + 2][64];
    for (int i = 1; i < argc; i++) {
        size_t pick = strlen(argv[i]) % (sizeof patterns / sizeof patterns[0]);
        if (strncmp(argv[i], "--key-regex=", 12) == 0) {
            snprintf(joined[i], sizeof joined[i], "--key-regex=%s",
                     patterns[pick]);
            argv[i] = joined[i];
        } else if (strcmp(argv[i], "--key-regex") == 0 && i + 1 < argc) {
            argv[++i] = (char *)(uintptr_t)patterns[pick];
        }
    }

    dedup_args args;
    int parsed = dedup_parse_args(&args, argc, argv) == 0;
    if (!parsed)
        derived_args(&args, data, size);

    const char *line = newline ? newline + 1 : end;
    for (int n = 0; line < end && n < MAX_LINES; n++) {
        const char *stop = memchr(line, '\n', (size_t)(end - line));
        size_t len = (size_t)((stop ? stop : end) - line);
        check_line(&args, line, len);
        line = stop ? stop + 1 : end;
    }
    if (parsed)
        dedup_args_free(&args);
    free(words);

    uint64_t seed;
    if (dedup_parse_seed(data, size, &seed) == 0 && seed == 0)
        fail("seed 0 accepted");
    return 0;
}
