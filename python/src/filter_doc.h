/*
 * filter_doc.h — the docstrings of tdbf.Filter (what help(tdbf.Filter)
 * shows).  The first lines of each are its text signature, which
 * inspect.signature reads.
 */
#ifndef PYTDBF_FILTER_DOC_H
#define PYTDBF_FILTER_DOC_H

PyDoc_STRVAR(doc_filter,
"Filter(window=None, error=0.01, *, window_items=None, window_seconds=None, design=None, seed=None, capacity=None, max_memory=None, k=None, l=None, max_error_ratio=1.5)\n"
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
"            a str: a count ('1000', '1e6', '1M' = 10**6, '64Ki') or a\n"
"            duration ('10m', '1h30m', '250ms'; units ns us ms s m h d), as\n"
"            the tdbf tool and the Redis module read it; a datetime.timedelta:\n"
"            a time window.  A float is a TypeError (1e6: keys or seconds?):\n"
"            say window_items= or window_seconds=.  Give one of the three.\n"
"window_items   an int: the count window, by name.\n"
"window_seconds an int or float: the time window in seconds, by name.\n"
"error       target false-positive rate, strictly between 0 and 1: a float\n"
"            or a str ('0.01', '1e-2', '1%').\n"
"design      'apbf-line' (default for count windows: one cache-line access\n"
"            per key), 'sqf' (count windows, the least memory: fingerprints\n"
"            with age tags, one bin per key), 'tlbf-line' (default for time\n"
"            windows: the same units, sized from the rate), 'tlbf', 'apbf',\n"
"            'apbbf', 'clock', 'rotating',\n"
"            'tbf', 'btbf', 'fpdecay', 'stable', 'bloom', 'exact' (see\n"
"            tdbf.designs()).\n"
"seed        hash seed, 1 .. 2**64-1 (an int or a str: '42', '0x2a'), for\n"
"            reproducible filters; None: random\n"
"            (read it back from .seed).  Keys chosen by someone who knows the\n"
"            seed can collide on purpose: keep it secret for untrusted input.\n"
"capacity    time windows: keys expected per window, a sizing hint (an int\n"
"            or a str such as '10k'; default 1024; the time designs grow\n"
"            with the rate, never losing a key).\n"
"max_memory  refuse filters needing more bytes than this (an int or a str\n"
"            such as '512M' (2**20) or '1GB' (10**9); default 4 GiB).\n"
"k, l        apbf, apbbf: an explicit shape instead of the planner's.\n"
"max_error_ratio  refuse adds (tdbf.FullError) once the estimated false-\n"
"            positive rate (current_error) is above this times `error`: a\n"
"            fixed-size design (bloom, clock, rotating) fed past what it was\n"
"            sized for.  Default 1.5, as the Redis module; 0 or None: never.\n"
"\n"
"Every option is read by libtdbf's parameter language (tdbf_config_set):\n"
"an int is passed as its decimal text, so the ranges and messages are the\n"
"tdbf tool's and the Redis module's.  Raises ValueError \"<keyword>: <why>\"\n"
"for a value out of range or a window the design does not take, TypeError\n"
"for a wrong type, MemoryError if it cannot be allocated.  Read back what\n"
"was built: design, window_items, window_ns, error, seed, capacity,\n"
"max_memory; repr() shows the window asked for and the one built.\n"
"\n"
"Time designs take the time of each call as `now` (seconds, on any scale the\n"
"caller keeps to, e.g. Unix time from a log; or a datetime, naive = UTC) or\n"
"`now_ns` (int nanoseconds).  A call without a time uses the filter's clock\n"
"mode (.clock): 'wall', the wall clock, until the first call that gives a\n"
"time; 'filter' from then on: the filter's own clock (.now_ns, the largest\n"
"time an add or advance gave it), so that after f.add(k, now=5.0), `k in f`\n"
"answers at 5 s, not at today's date.  Time never goes back: a `now` behind\n"
"the latest seen counts as that latest.  Count designs ignore time and\n"
"never read a clock.\n"
"\n"
"Thread safety: every call takes the filter's own lock, so one filter may be\n"
"used from any number of threads.  add_many, contains_many, save, to_bytes,\n"
"stats and the loaders release the GIL while the library works.\n"
"\n"
"Filters pickle (through to_bytes/from_bytes) and copy (copy.copy,\n"
"copy.deepcopy and f.copy() give the same independent filter).  close()\n"
"frees the filter at once; `with tdbf.Filter(...) as f:` closes it at the\n"
"end of the block (tdbf.open also loads and saves a file).");

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
"now / now_ns: the time of the add (time designs); neither: the wall clock\n"
"if f.clock is 'wall', f.now_ns if 'filter' (see Filter).\n"
"Raises tdbf.FullError, adding nothing, when the filter is past its error\n"
"bound (see max_error_ratio).");

PyDoc_STRVAR(doc_contains,
"contains($self, key, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"Return True if `key` is in the window as of `now` (possibly a false\n"
"positive), False if not.  Never changes the filter (a time given still\n"
"sets f.clock to 'filter').  `key in f` is the same call without a time:\n"
"at the wall clock if f.clock is 'wall', at f.now_ns if 'filter'.");

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
"The GIL is released while the library works.  Without a time: the wall\n"
"clock or f.now_ns, as f.clock says.");

PyDoc_STRVAR(doc_advance,
"advance($self, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"Move a time design's clock to `now` and free what has expired, without\n"
"inserting (adds do this on their own).  Without a time: the wall clock if\n"
"f.clock is 'wall' (f.clock 'filter': f.now_ns, nothing moves).  Count\n"
"designs: nothing to do.");

PyDoc_STRVAR(doc_current_error,
"current_error($self, /, now=None, *, now_ns=None)\n"
"--\n"
"\n"
"The false-positive rate a query at `now` has, estimated from the insert\n"
"counts the filter keeps (cheap: no scan of the bits).  A time filter fed\n"
"far above its capacity never loses a key, but this rate climbs.  Without\n"
"a time: the wall clock or f.now_ns, as f.clock says.");

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
"btbf.  Costs a pass over the bits for some designs.  Reads no clock.");

PyDoc_STRVAR(doc_posterior,
"posterior($self, key, universe, now=None, *, model='uniform', exponent=1.0, key_probability=None, now_ns=None)\n"
"--\n"
"\n"
"The probability that `key` was added within the window, given which of\n"
"its cells or slices match, under a prior of the stream: `universe` keys\n"
"occur, equally likely (model='uniform') or by a power law of `exponent`\n"
"(model='power_law', which needs the key's own `key_probability`).  0\n"
"exactly when contains() says no.  Designs tbf, btbf, apbf, apbbf and\n"
"apbf-line; others raise tdbf.Error.  Without a time: the wall clock or\n"
"f.now_ns, as f.clock says.");

PyDoc_STRVAR(doc_expected_age,
"expected_age($self, key, universe, now=None, *, model='uniform', exponent=1.0, key_probability=None, now_ns=None)\n"
"--\n"
"\n"
"The expected number of insertions since `key` was last added, given its\n"
"cells and the prior (as posterior()).  Without a time: the wall clock or\n"
"f.now_ns, as f.clock says.");

PyDoc_STRVAR(doc_copy,
"copy($self, /)\n"
"--\n"
"\n"
"An independent copy: same design, parameters, seed, clock (and clock\n"
"mode), count and contents, so it answers every query as this filter does,\n"
"and clear() works on it as on this one.  The GIL is released while the\n"
"library copies (O(memory)).  copy.copy and copy.deepcopy are this call\n"
"(a subclass's attributes copied too); pickle goes through to_bytes().\n"
"Reads no clock.");

PyDoc_STRVAR(doc_clear,
"clear($self, /)\n"
"--\n"
"\n"
"Forget every key and count no adds, as if just opened with the same\n"
"configuration and seed (time designs drop the slices they grew; the\n"
"clock is kept), count back to 0.  A filter made by load or from_bytes\n"
"(or pickle) does not know the configuration it was opened with: it raises\n"
"tdbf.Error; open a new Filter instead.  Reads no clock.");

PyDoc_STRVAR(doc_to_bytes,
"to_bytes($self, /)\n"
"--\n"
"\n"
"The filter in libtdbf's portable format (docs/format.md: versioned,\n"
"little-endian, checksummed); Filter.from_bytes reads it back.  It keeps\n"
"the filter's clock (now_ns), not its clock mode.  Reads no clock.");

PyDoc_STRVAR(doc_save,
"save($self, path, /)\n"
"--\n"
"\n"
"Write the filter to `path` atomically: a temporary file beside it, fsync,\n"
"rename.  A crash leaves the old file or the new one, never a torn one.\n"
"Raises OSError if it cannot be written.  Keeps the filter's clock, not\n"
"its clock mode (see load).  Reads no clock.");

PyDoc_STRVAR(doc_from_bytes,
"from_bytes($type, data, /, clock=None)\n"
"--\n"
"\n"
"A filter from to_bytes() output, or the bytes of any saved filter file\n"
"(any bytes-like object).  Every field is checked before use: corrupt,\n"
"truncated or foreign data raises tdbf.Error.  clock: as load().");

PyDoc_STRVAR(doc_load,
"load($type, path, /, clock=None)\n"
"--\n"
"\n"
"A filter from a file written by save(), `tdbf dedup --state` (its key\n"
"section after the filter is checked and skipped) or the Redis module's\n"
"TDBF.SCANDUMP chunks joined.  Raises OSError if it cannot be read,\n"
"tdbf.Error if it is not a valid filter.\n"
"\n"
"The file keeps the filter's clock (.now_ns) but not how it was driven.\n"
"clock='wall' or 'filter' sets .clock; None (default) guesses: 'wall' if\n"
"the saved clock reads as a past wall-clock time (2001-09-09 or later, at\n"
"most a day ahead of now: a filter fed by the wall clock, as `tdbf dedup\n"
"--state` without --time, whose keys keep expiring by the wall clock after\n"
"a restart) or was never moved; 'filter' otherwise (small times from a\n"
"simulation or time.monotonic(), a time in the future), so that `key in f`\n"
"answers at the filter's own clock.  A filter replayed from a log's Unix\n"
"times reads as 'wall' until a call gives a time: pass clock='filter'.\n"
"Count designs ignore the clock.  Loading reads the wall clock only for\n"
"this guess.");

PyDoc_STRVAR(doc_close,
"close($self, /)\n"
"--\n"
"\n"
"Free the filter's memory now (waiting for a running batch call); any\n"
"later call raises ValueError.  Closing twice is fine.  `with f:` closes\n"
"at the end of the block; a filter also frees itself when collected.");

PyDoc_STRVAR(doc_enter, "`with Filter(...) as f:` -- the filter itself.");
PyDoc_STRVAR(doc_exit, "The end of a `with` block: close().");
PyDoc_STRVAR(doc_sizeof,
"Bytes of the object and of the filter it holds (stats()['memory_bytes']).");
PyDoc_STRVAR(doc_dunder_copy, "copy.copy(f): f.copy().");
PyDoc_STRVAR(doc_deepcopy, "copy.deepcopy(f): f.copy(), attributes copied deeply.");

PyDoc_STRVAR(doc_reduce, "Pickle support: the filter's bytes and from_bytes.");

PyDoc_STRVAR(doc_design, "The design's name ('apbf-line', 'tlbf', ...).");
PyDoc_STRVAR(doc_window,
"The window: an int (insertions, as guaranteed: at least what was asked)\n"
"or a float (seconds).");
PyDoc_STRVAR(doc_time_window, "True for a time window, False for a count window.");
PyDoc_STRVAR(doc_error, "The configured false-positive rate.");
PyDoc_STRVAR(doc_seed, "The hash seed in use (never 0).");
PyDoc_STRVAR(doc_window_items,
"The count window built, in insertions (at least what was asked; the\n"
"designs round up to whole generations); 0 for a time window.");
PyDoc_STRVAR(doc_window_ns, "The time window in ns; 0 for a count window.");
PyDoc_STRVAR(doc_capacity,
"The capacity asked for (keys expected per time window), or None: the\n"
"default, or a loaded filter (the file does not keep it).");
PyDoc_STRVAR(doc_max_memory,
"The max_memory in bytes the filter was opened with (default 4 GiB), or\n"
"None for a loaded filter (the file does not keep it).");
PyDoc_STRVAR(doc_count,
"The adds since the filter was opened or cleared (stats()['items'], kept\n"
"by save and load): every add counts, repeats of a key too, and keys that\n"
"have left the window since.  Not the keys in the window, which a Bloom\n"
"filter cannot count: that is why a Filter has no len().");
PyDoc_STRVAR(doc_clock,
"Where a call without now/now_ns takes its time: 'wall' (the wall clock,\n"
"ns since 1970) or 'filter' (.now_ns, the filter's own clock).  'wall' for\n"
"a new filter; 'filter' from the first call that gives a time; load()\n"
"restores or guesses it.  Writable.  Count designs ignore it.");
PyDoc_STRVAR(doc_now_ns,
"The filter's clock: the largest time in ns an add or advance gave it\n"
"(stats()['now_ns']); 0 before any.  Queries do not move it.");

PyDoc_STRVAR(doc_max_error_ratio,
"Adds are refused with tdbf.FullError once current_error() is above this\n"
"times `error` (default 1.5; 0: never).  Writable.");

#endif /* PYTDBF_FILTER_DOC_H */
