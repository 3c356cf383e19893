/*
 * filter_doc.h — the docstrings of tdbf.Filter (what help(tdbf.Filter)
 * shows).  The first lines of each are its text signature, which
 * inspect.signature reads.
 */
#ifndef PYTDBF_FILTER_DOC_H
#define PYTDBF_FILTER_DOC_H

PyDoc_STRVAR(doc_filter,
"Filter(window, error=0.01, *, design=None, seed=None, capacity=None, max_memory=None, k=None, l=None, max_error_ratio=1.5)\n"
"--\n"
"\n"
"A time-decaying Bloom filter: \"have I seen this key recently?\"\n"
"\n"
"It remembers the keys of a sliding window -- the last N insertions (count\n"
"window) or the last T of time (time window) -- in a few bits per key.  A key\n"
"added inside the window is always found (no false negatives); a key not in\n"
"the window is wrongly found with probability `error` at most (a false\n"
"positive).  Re-adding a key refreshes it: it stays until a whole window has\n"
"passed since its latest add.  A key slightly older than the window may still\n"
"be found (each design's slack, see stats()).\n"
"\n"
"window      an int: a count window of that many insertions (1 .. 2**64-1);\n"
"            a str duration ('10m', '1h30m', '250ms'; units ns us ms s m h d),\n"
"            a float (seconds) or a datetime.timedelta: a time window.\n"
"error       target false-positive rate, strictly between 0 and 1.\n"
"design      'apbf-line' (default for count windows: one cache-line access\n"
"            per key), 'tlbf-line' (default for time windows: the same units,\n"
"            sized from the rate), 'tlbf', 'apbf', 'apbbf', 'clock', 'rotating',\n"
"            'tbf', 'btbf', 'fpdecay', 'stable', 'bloom', 'exact' (see\n"
"            tdbf.designs()).\n"
"seed        hash seed, 1 .. 2**64-1, for reproducible filters; None: random\n"
"            (read it back from .seed).  Keys chosen by someone who knows the\n"
"            seed can collide on purpose: keep it secret for untrusted input.\n"
"capacity    time windows: keys expected per window, a sizing hint (default\n"
"            1024; the time designs grow with the rate, never losing a key).\n"
"max_memory  refuse filters needing more bytes than this (default 4 GiB).\n"
"k, l        apbf, apbbf: an explicit shape instead of the planner's.\n"
"max_error_ratio  refuse adds (tdbf.FullError) once the estimated false-\n"
"            positive rate (current_error) is above this times `error`: a\n"
"            fixed-size design (bloom, clock, rotating) fed past what it was\n"
"            sized for.  Default 1.5, as the Redis module; 0 or None: never.\n"
"\n"
"Raises ValueError for a parameter out of range or a window the design does\n"
"not take, TypeError for a wrong type, MemoryError if it cannot be allocated.\n"
"\n"
"Time designs take the time of each call as `now` (seconds, on any scale the\n"
"caller keeps to, e.g. Unix time from a log; a datetime works too) or\n"
"`now_ns` (int nanoseconds); by default the wall clock.  Time never goes\n"
"back: a `now` behind the latest seen counts as that latest.  Count designs\n"
"ignore time.\n"
"\n"
"Thread safety: every call takes the filter's own lock, so one filter may be\n"
"used from any number of threads.  add_many, contains_many, save, to_bytes,\n"
"stats and the loaders release the GIL while the library works.\n"
"\n"
"Filters pickle and copy (through to_bytes/from_bytes).");

PyDoc_STRVAR(doc_add,
"add($self, key, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"Test and insert: return True if `key` was new in the window, False if it\n"
"was already there (or a false positive), then insert it (refreshing its\n"
"age).  The one call a de-duplication loop needs.\n"
"\n"
"key is bytes, str (hashed as UTF-8) or any C-contiguous buffer\n"
"(bytearray, memoryview, array); empty keys and NUL bytes are fine.\n"
"now / now_ns: the time of the add (time designs), see Filter.\n"
"Raises tdbf.FullError, adding nothing, when the filter is past its error\n"
"bound (see max_error_ratio).");

PyDoc_STRVAR(doc_contains,
"contains($self, key, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"Return True if `key` is in the window as of `now` (possibly a false\n"
"positive), False if not.  Never changes the filter.  `key in f` is the\n"
"same call at the wall clock.");

PyDoc_STRVAR(doc_add_many,
"add_many($self, keys, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"add() for each key of an iterable, in order, at one time: returns a list\n"
"of bools, True where the key was new (a key repeated within the batch is\n"
"new only the first time).  Keys go to the library in blocks of 1024 with\n"
"the GIL released, hashed together and prefetched: no Python call per key\n"
"(measured: 1.5x to 3x the keys/s of an add() loop, at windows of 10^5\n"
"to 10^7 keys).  Each block is checked against max_error_ratio first: past\n"
"it, tdbf.FullError is raised with .answers, the answers of the blocks\n"
"added before (a block is up to 1024 keys, so a filter far smaller than a\n"
"block may take one block past its capacity before the refusal).");

PyDoc_STRVAR(doc_contains_many,
"contains_many($self, keys, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"contains() for each key of an iterable, at one time: a list of bools.\n"
"The GIL is released while the library works.");

PyDoc_STRVAR(doc_advance,
"advance($self, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"Move a time design's clock to `now` and free what has expired, without\n"
"inserting (adds do this on their own).  Count designs: nothing to do.");

PyDoc_STRVAR(doc_current_error,
"current_error($self, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"The false-positive rate a query at `now` has, estimated from the insert\n"
"counts the filter keeps (cheap: no scan of the bits).  A time filter fed\n"
"far above its capacity never loses a key, but this rate climbs.");

PyDoc_STRVAR(doc_stats,
"stats($self, /)\n"
"--\n"
"\n"
"A dict describing the filter: design, window (int count or float seconds),\n"
"window_items, window_ns, memory_bytes, bits_per_item, items (adds since\n"
"open), k, l (slices set per insertion, extra slices), slices, seed,\n"
"error_configured, error_planned (analytic worst case of the chosen shape),\n"
"error_estimated (from the current fill of the bits), generation_size,\n"
"generations, now_ns, keys, cap_hits, simd, and the timer fields of tbf and\n"
"btbf.  Costs a pass over the bits for some designs.");

PyDoc_STRVAR(doc_posterior,
"posterior($self, key, universe, now=None, *, model='uniform', exponent=1.0, key_probability=None, now_ns=None)\n"
"--\n"
"\n"
"The probability that `key` was added within the window, given which of\n"
"its cells or slices match, under a prior of the stream: `universe` keys\n"
"occur, equally likely (model='uniform') or by a power law of `exponent`\n"
"(model='power_law', which needs the key's own `key_probability`).  0\n"
"exactly when contains() says no.  Designs tbf, btbf, apbf, apbbf and\n"
"apbf-line; others raise tdbf.Error.");

PyDoc_STRVAR(doc_expected_age,
"expected_age($self, key, universe, now=None, *, model='uniform', exponent=1.0, key_probability=None, now_ns=None)\n"
"--\n"
"\n"
"The expected number of insertions since `key` was last added, given its\n"
"cells and the prior (as posterior()).");

PyDoc_STRVAR(doc_copy,
"copy($self, /)\n"
"--\n"
"\n"
"An independent copy: same design, parameters, seed, clock and contents,\n"
"so it answers every query as this filter does.  The GIL is released while\n"
"the library copies (O(memory)).  copy.copy, copy.deepcopy and pickle work\n"
"too, through to_bytes().");

PyDoc_STRVAR(doc_clear,
"clear($self, /)\n"
"--\n"
"\n"
"Forget every key and count no adds, as if just opened with the same\n"
"configuration and seed (time designs drop the slices they grew; the\n"
"clock is kept).  A filter made by load or from_bytes does not know the\n"
"configuration it was opened with: it raises tdbf.Error; open a new Filter\n"
"instead.");

PyDoc_STRVAR(doc_to_bytes,
"to_bytes($self, /)\n"
"--\n"
"\n"
"The filter in libtdbf's portable format (docs/format.md: versioned,\n"
"little-endian, checksummed); Filter.from_bytes reads it back.");

PyDoc_STRVAR(doc_save,
"save($self, path, /)\n"
"--\n"
"\n"
"Write the filter to `path` atomically: a temporary file beside it, fsync,\n"
"rename.  A crash leaves the old file or the new one, never a torn one.\n"
"Raises OSError if it cannot be written.");

PyDoc_STRVAR(doc_from_bytes,
"from_bytes($type, data, /)\n"
"--\n"
"\n"
"A filter from to_bytes() output, or the bytes of any saved filter file\n"
"(any bytes-like object).  Every field is checked before use: corrupt,\n"
"truncated or foreign data raises tdbf.Error.");

PyDoc_STRVAR(doc_load,
"load($type, path, /)\n"
"--\n"
"\n"
"A filter from a file written by save(), `tdbf dedup --state` (its key\n"
"section after the filter is checked and skipped) or the Redis module's\n"
"TDBF.SCANDUMP chunks joined.  Raises OSError if it cannot be read,\n"
"tdbf.Error if it is not a valid filter.");

PyDoc_STRVAR(doc_reduce, "Pickle support: the filter's bytes and from_bytes.");

PyDoc_STRVAR(doc_design, "The design's name ('apbf-line', 'tlbf', ...).");
PyDoc_STRVAR(doc_window,
"The window: an int (insertions, as guaranteed: at least what was asked)\n"
"or a float (seconds).");
PyDoc_STRVAR(doc_time_window, "True for a time window, False for a count window.");
PyDoc_STRVAR(doc_error, "The configured false-positive rate.");
PyDoc_STRVAR(doc_seed, "The hash seed in use (never 0).");

PyDoc_STRVAR(doc_max_error_ratio,
"Adds are refused with tdbf.FullError once current_error() is above this\n"
"times `error` (default 1.5; 0: never).  Writable.");

#endif /* PYTDBF_FILTER_DOC_H */
