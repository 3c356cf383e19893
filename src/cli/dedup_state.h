/*
 * dedup_state.h — the state file of `tdbf dedup --state`.
 *
 * A state file is a saved filter in the library's format (docs/format.md),
 * followed by a small section of the command's own (one of the format's
 * sections, tag "TDBFKEYS", so every loader steps over it): how lines become keys
 * and times (--field, --delimiter, --key-regex, --ignore-case,
 * --time-field, --time-format) and the window the run asked for.  A resumed run compares its options with it,
 * so keys of another shape never meet the filter's old ones.  The section
 * is versioned; a file without one (saved by an older tdbf, or by
 * tdbf_save_file) still loads, and gets one at its next save.
 *
 * Layout of the section (little-endian; docs/format.md, "tdbf dedup
 * state files"):
 *
 *   8  tag "TDBFKEYS"
 *   4  version (2 is written; 1 is read too)
 *   4  n, bytes of the body
 *   n  body, version 2:
 *        8 window_items   --last as given (0: none)
 *        8 window_ns      --window as given (0: none)
 *        4 delimiter      the byte, or 0xffffffff for runs of blanks
 *        4 time_format    dedup_time_format (0: arrival, 6: a pattern)
 *        4 flags          bit 0: --ignore-case; the others 0
 *        4 key fields     count c <= 16 (0: the whole line), then c x 4:
 *                         the --field list, 1-based, distinct, in order
 *        4 time fields    count t <= 16 (0: arrival time), then t x 4
 *        4 regex_len      then the --key-regex pattern, no NUL (0: none)
 *        4 pattern_len    then the --time-format pattern, no NUL (0: none;
 *                         present exactly when time_format is 6)
 *      body, version 1 (read only):
 *        8 window_items, 8 window_ns, 4 field (0: the whole line),
 *        4 delimiter, 4 time_field (0: arrival), 4 time_format (0..5),
 *        4 regex_len, then the regex
 *   8  FNV-1a 64 of the body
 */
#ifndef TDBF_CLI_DEDUP_STATE_H
#define TDBF_CLI_DEDUP_STATE_H

#include <stddef.h>
#include <stdint.h>

#include <tdbf.h>

#include "dedup_parse.h"

/* Outcomes of the functions below. */
enum {
    DEDUP_STATE_OK = 0,
    DEDUP_STATE_IO = -1,       /* errno says why */
    DEDUP_STATE_CORRUPT = -2,  /* *why says what */
    DEDUP_STATE_NOMEM = -3
};

/* A section found after the filter (docs/format.md, "Sections"). */
typedef struct dedup_section_seen {
    char     tag[TDBF_SECTION_TAG_BYTES + 1];   /* NUL-terminated */
    uint32_t version;
    uint32_t length;                            /* body bytes */
    int      known;                             /* the key section */
} dedup_section_seen;

/* Sections listed by name; a file with more gives their count only. */
#define DEDUP_SECTIONS_LISTED 8

/* A loaded state: the filter and, if the file had one, its key spec
 * (its regex and time pattern point into `strings`), and the sections
 * the file holds, in file order. */
typedef struct dedup_state {
    tdbf              *filter;
    int                has_spec;
    dedup_keyspec      spec;
    char              *strings;
    unsigned           sections;            /* how many the file holds */
    dedup_section_seen seen[DEDUP_SECTIONS_LISTED];
    unsigned char     *others;              /* the sections of other tags, as
                                               in the file (malloc'd) */
    size_t             others_len;
} dedup_state;

/* Load `path`.  On DEDUP_STATE_OK *state holds the filter (release with
 * dedup_state_free).  Sections of other tags are checked, listed in
 * state->seen and kept as they are in state->others, for the next save.  On DEDUP_STATE_CORRUPT *why is a static phrase
 * ("a filter: <tdbf_strerror>", "its key section: bad checksum").
 * opts as tdbf_load's. */
int dedup_state_load(const char *path, const tdbf_load_options *opts,
                     dedup_state *state, const char **why);
void dedup_state_free(dedup_state *state);

/* Save the filter, the spec's key section, then `others_len` bytes of
 * other sections (a loaded state's `others`, or NULL) to `path`
 * atomically: a temporary file beside it, fsync, rename over path, fsync
 * of the directory.  A crash leaves the old file or the new one.
 * DEDUP_STATE_OK, DEDUP_STATE_IO (errno) or DEDUP_STATE_NOMEM; on failure
 * path is untouched. */
int dedup_state_save(const char *path, const tdbf *f, const dedup_keyspec *spec,
                     const unsigned char *others, size_t others_len);

/* Check, before any input is read, that a state can be saved at `path`
 * later: create and remove a temporary file beside it (an existing state
 * is not touched).  DEDUP_STATE_OK or DEDUP_STATE_IO (errno). */
int dedup_state_writable(const char *path);

/* 1 if two specs make the same keys and times of a line (the windows
 * are not compared), else 0. */
int dedup_keyspec_equal(const dedup_keyspec *a, const dedup_keyspec *b);

/* The spec as the options that give it, for messages:
 * "--field 2 --delimiter ','" or "(whole line)". */
void dedup_keyspec_describe(const dedup_keyspec *spec, char *buf, size_t size);

/* The sections of a loaded state for people: "TDBFKEYS v2, 60 bytes;
 * TDBFNOTE v1, 33 bytes (not read by this tdbf)". */
void dedup_sections_describe(const dedup_state *state, char *buf, size_t size);

#endif /* TDBF_CLI_DEDUP_STATE_H */
