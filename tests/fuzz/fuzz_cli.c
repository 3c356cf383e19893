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
 * still cut with options derived from the input bytes (field lists,
 * --ignore-case and time patterns included).  Checked: no crash, leak or
 * out-of-bounds read (each line and its key scratch sit in their own
 * exact allocations), keys inside their line or the scratch and never
 * empty unless the line is, folded keys free of upper-case ASCII, times
 * that parse re-parse the same (with every named format and every time
 * pattern below), the bad-time message always terminated, and the
 * seed-file reader never accepts 0.
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

/* Time patterns tried on every line; the fixed reference dates those
 * without a year (2026-01-02, so the year before is taken for most). */
static const char *const time_patterns[] = {
    "%Y-%m-%d %H:%M:%S", "%b %e %H:%M:%S", "[%d/%b/%Y:%H:%M:%S %z]",
    "%s.%f", "%Y%m%dT%H%M%S%z", "%d %B %Y %T.%f", "%%%s",
};
#define REFERENCE_NS UINT64_C(1767312000000000000)

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
    uint8_t b2 = size > 2 ? data[2] : 0;
    a->delimiter = delimiters[b0 % 5];
    /* 0: the whole line; 1..3: that field; 4, 5: two or three fields
     * from field 2 on, 1 to 3 apart */
    unsigned shape = b0 / 5 % 6;
    a->fields.count = shape == 0 ? 0 : shape <= 3 ? 1 : shape - 2;
    for (unsigned i = 0; i < a->fields.count; i++)
        a->fields.index[i] = shape <= 3 ? shape : 2 + i * (b2 % 3 + 1);
    a->field = a->fields.count > 0 ? a->fields.index[0] : 0;
    a->ignore_case = b2 >> 7;
    a->time_fields.count = 1 + b1 % 3;
    for (unsigned i = 0; i < a->time_fields.count; i++)
        a->time_fields.index[i] = 1 + i;
    a->time_field = 1;
    a->time_format = (dedup_time_format)(DEDUP_TIME_UNIX + b1 / 3 % 6);
    if (a->time_format == DEDUP_TIME_PATTERN) {
        a->time_pattern = time_patterns[b2 % (sizeof time_patterns / sizeof time_patterns[0])];
        a->time_needs_year = strstr(a->time_pattern, "%Y") == NULL &&
                             strstr(a->time_pattern, "%s") == NULL;
    }
}

static void check_folded(const char *key, size_t key_len)
{
    for (size_t i = 0; i < key_len; i++)
        if (key[i] >= 'A' && key[i] <= 'Z')
            fail("--ignore-case left an upper-case letter");
}

/* A time that parses must parse the same again. */
static void check_stable(int parsed, uint64_t ns, int again_parsed, uint64_t again)
{
    if (parsed == 0 && (again_parsed != 0 || again != ns))
        fail("a time parses differently twice");
}

static void check_line(const dedup_args *a, const char *text, size_t len)
{
    char *line = malloc(len + 1);   /* exact: line[len] is the spare byte */
    char *scratch = malloc(len > 0 ? len : 1);   /* exact: len bytes */
    if (line == NULL || scratch == NULL) {
        free(line);
        free(scratch);
        return;
    }
    memcpy(line, text, len);
    line[len] = '\n';
    const char *key;
    size_t key_len;
    dedup_line_key(a, line, len, scratch, &key, &key_len);
    int in_line = key >= line && key_len <= len && (size_t)(key - line) <= len - key_len;
    if (!in_line && !(key == scratch && key_len <= len))
        fail("key outside its line and its scratch");
    if (key_len == 0 && len != 0)
        fail("an empty key for a line that is not empty");
    if (a->ignore_case)
        check_folded(key, key_len);
    if (line[len] != '\n')
        fail("the byte after the line was not restored");
    uint64_t ns = 0, again = 0;
    if (a->time_field != 0 && a->time_format != DEDUP_TIME_ARRIVAL) {
        int why = dedup_line_time(a, line, len, REFERENCE_NS, &ns);
        char message[96];
        if (why != 0) {
            dedup_bad_time_message(a, line, len, why, message, sizeof message);
            if (memchr(message, '\0', sizeof message) == NULL)
                fail("a bad-time message without its terminator");
        }
    }
    /* every format on the whole line; what parses must be stable */
    for (int f = DEDUP_TIME_UNIX; f <= DEDUP_TIME_ISO8601; f++)
        check_stable(dedup_parse_time((dedup_time_format)f, line, len, &ns), ns,
                     dedup_parse_time((dedup_time_format)f, line, len, &again), again);
    for (size_t p = 0; p < sizeof time_patterns / sizeof time_patterns[0]; p++)
        check_stable(dedup_parse_time_pattern(time_patterns[p], line, len, REFERENCE_NS, &ns),
                     ns, dedup_parse_time_pattern(time_patterns[p], line, len,
                                                  REFERENCE_NS, &again), again);
    free(line);
    free(scratch);
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
