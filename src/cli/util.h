/*
 * util.h — every shared helper of the tdbf command-line tool, for a file
 * that wants most of them (the subcommands).  Each concern has its own
 * header in common/; a file that needs one or two includes those.
 *
 *   common/diag.h      exit codes, "tdbf CMD: message" diagnostics
 *   common/options.h   the long-option parser ("--opt value", "--opt=value")
 *   common/numbers.h   strict number parsing (counts, durations, sizes)
 *   common/format.h    thousands separators, bytes and durations for people
 *   common/json.h      a tiny one-line JSON writer
 *   common/clock.h     the monotonic clock, chunked timings
 *   common/progress.h  the progress line on stderr
 *   common/rng.h       pseudo-random numbers for generated workloads
 *   common/table.h     aligned text tables
 *
 * The CLI sees the library only through <tdbf.h>, like any other user.
 */
#ifndef TDBF_CLI_UTIL_H
#define TDBF_CLI_UTIL_H

#include "common/diag.h"
#include "common/options.h"
#include "common/numbers.h"
#include "common/format.h"
#include "common/json.h"
#include "common/clock.h"
#include "common/progress.h"
#include "common/rng.h"
#include "common/table.h"

#endif /* TDBF_CLI_UTIL_H */
