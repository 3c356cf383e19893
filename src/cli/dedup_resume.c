/*
 * dedup_resume.c — how a stopped `tdbf dedup` run goes on (see
 * dedup_resume.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "dedup_resume.h"
#include "common/output.h"

#include <stdio.h>
#include <string.h>

/* "line" or "lines", "was" or "were": the word for a count of n. */
static const char *for_count(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

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

/* "tdbf dedup OPTIONS [- FILES]": this run's options, then standard
 * input (which carries the unfinished source), then the inputs after
 * `source_index`. */
static void print_resume_command(const dedup_resume *r, size_t source_index)
{
    const dedup_args *a = r->args;
    fputs(" tdbf dedup", stderr);
    for (int i = 1; i < r->argc; i++)
        if (!is_operand(a, r->argv[i]) && strcmp(r->argv[i], "--") != 0)
            print_word(stderr, r->argv[i]);
    int dashes = 0;
    for (size_t i = source_index + 1; i < a->n_files; i++)
        dashes |= a->files[i][0] == '-' && a->files[i][1] != '\0';
    if (dashes)
        fputs(" --", stderr);
    if (source_index + 1 < a->n_files)
        fputs(" -", stderr);
    for (size_t i = source_index + 1; i < a->n_files; i++)
        print_word(stderr, a->files[i]);
    fputc('\n', stderr);
}

/* What the state file holds after a stop, as the end of the sentence
 * "... after N input lines". */
static void print_what_is_saved(const dedup_resume *r, const dedup_position *at)
{
    char count[32];
    const char *path = r->args->state_path;
    if (r->saves == 0)
        fprintf(stderr, "; nothing was saved in this run, so %s is as the "
                "run found it: read all of them again.\n", path);
    else if (at->lines_in == r->lines_in)
        fprintf(stderr, "; the state in %s holds them.\n", path);
    else
        fprintf(stderr, "; the state in %s holds the first %s of them (its "
                "last good save).\n", path,
                cli_format_count(count, sizeof count, at->lines_in));
}

/* How to feed the input from `at` on to a resumed run. */
static void print_resume_from(const dedup_resume *r, const dedup_position *at)
{
    const dedup_args *a = r->args;
    char count[32], next[32];
    const char *name = a->n_files > 0 ? a->files[at->source_index] : "-";
    snprintf(next, sizeof next, "%llu", (unsigned long long)at->line_no + 1);
    if (strcmp(name, "-") == 0) {
        fprintf(stderr, "tdbf dedup: %s %s of standard input %s taken; to resume, "
                "feed it from line %s on to:\n ",
                cli_format_count(count, sizeof count, at->line_no),
                for_count(at->line_no, "line", "lines"), for_count(at->line_no, "was", "were"),
                next);
        print_resume_command(r, at->source_index);
        return;
    }
    fprintf(stderr, "tdbf dedup: %s %s of %s %s taken; to resume:\n  tail%s -n +%s",
            cli_format_count(count, sizeof count, at->line_no),
            for_count(at->line_no, "line", "lines"), name,
            for_count(at->line_no, "was", "were"),
            a->terminator == '\0' ? " -z" : "", next);
    print_word(stderr, name);
    fputs(" |", stderr);
    print_resume_command(r, at->source_index);
}

void dedup_print_resume(const dedup_resume *r, const char *why, int finished)
{
    char count[32];
    fprintf(stderr, "tdbf dedup: %s after %s input %s", why,
            cli_format_count(count, sizeof count, r->lines_in),
            for_count(r->lines_in, "line", "lines"));
    if (r->args->state_path == NULL) {
        fputs("; without --state nothing was saved, so a rerun starts afresh\n", stderr);
        return;
    }
    print_what_is_saved(r, &r->saved);
    if (finished) {
        fputs("tdbf dedup: all the input had been read: nothing is left to resume\n", stderr);
        return;
    }
    print_resume_from(r, &r->saved);
}

