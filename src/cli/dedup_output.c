/*
 * dedup_output.c — the output of `tdbf dedup`: a byte buffer flushed with
 * write(2).
 *
 * Output that flows.  The buffer is written out when it is full, and
 * also whenever the next read would wait (poll(2) with a zero timeout
 * finds no input: a pipe, terminal or socket that has gone quiet).  So
 * `tail -F log | tdbf dedup ... | grep` shows each line as soon as it is
 * decided, while a file or a fast pipe keeps the big buffer and its
 * throughput.
 *
 * A failed write is sticky: once out->error is set nothing more is
 * written, and the run saves no more state, since the filter then holds
 * keys whose lines were lost.
 */
#define _POSIX_C_SOURCE 200809L

#include "dedup_output.h"

#include "cli.h"
#include "dedup_signal.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITE_BUFFER_BYTES ((size_t)1 << 20)

int dedup_output_init(dedup_output *out)
{
    out->buf = malloc(WRITE_BUFFER_BYTES);
    out->used = 0;
    out->error = 0;
    return out->buf != NULL ? 0 : -1;
}

void dedup_output_free(dedup_output *out)
{
    free(out->buf);
    out->buf = NULL;
    out->used = 0;
}

int dedup_output_status(const dedup_output *out)
{
    if (out->error == EPIPE)
        return CLI_EXIT_SIGNAL + SIGPIPE;
    return out->error == EINTR ? CLI_EXIT_SIGNAL + dedup_stop_signal()
                               : CLI_EXIT_IO;
}

/* Write all of data to stdout.  A stop signal does not interrupt it: the
 * lines it holds are in the filter, and a save must not get ahead of
 * them.  But a reader that has stalled would keep the run from ever
 * stopping, so a second stop signal during a blocked write gives the
 * output up (no save follows; the last good one stays).  A closed pipe
 * is not reported: it is how `| head` says it has enough. */
static int write_all(dedup_output *out, const char *data, size_t len)
{
    while (len > 0 && out->error == 0) {
        ssize_t n = write(STDOUT_FILENO, data, len);
        if (n < 0 && errno == EINTR && dedup_stop_count() < 2)
            continue;
        if (n < 0 && errno == EINTR) {
            out->error = EINTR;
            cli_error("dedup", "a second %s while the output was blocked: "
                      "gave up writing it",
                      dedup_signal_name(dedup_stop_signal()));
        } else if (n <= 0) {
            out->error = n < 0 ? errno : EIO;
            if (out->error != EPIPE)
                cli_error("dedup", "cannot write the output: %s",
                          strerror(out->error));
        } else {
            data += n;
            len -= (size_t)n;
        }
    }
    return out->error != 0 ? dedup_output_status(out) : 0;
}

int dedup_output_flush(dedup_output *out)
{
    int rc = write_all(out, out->buf, out->used);
    out->used = 0;
    return rc;
}

int dedup_output_bytes(dedup_output *out, const char *data, size_t len)
{
    if (out->used + len > WRITE_BUFFER_BYTES) {
        int rc = dedup_output_flush(out);
        if (rc != 0)
            return rc;
        if (len > WRITE_BUFFER_BYTES)   /* a huge line: straight out */
            return write_all(out, data, len);
    }
    memcpy(out->buf + out->used, data, len);
    out->used += len;
    return 0;
}

/* 1 if a read of fd would return at once (data, EOF or an error), 0 if it
 * would wait.  A regular file is always ready. */
static int input_ready(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN, .revents = 0};
    return poll(&p, 1, 0) > 0;
}

int dedup_output_flush_before_wait(dedup_output *out, int input_fd)
{
    if (out->used == 0 || input_ready(input_fd))
        return 0;
    return dedup_output_flush(out);
}
