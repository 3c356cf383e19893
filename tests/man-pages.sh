#!/bin/sh
# man-pages.sh — the man pages say what the code does.
#
#   tdbf(1):    every subcommand the tool lists (tdbf --help) has a section
#               (.SS "tdbf CMD ..."), and every long option a subcommand
#               parses -- its --help option list, printed from the very
#               table the parser reads -- is a tagged entry (.BI \-\-opt or
#               .B \-\-opt) in that section.
#   libtdbf(3), libtdbf_model(3): every function include/tdbf.h (for
#               libtdbf) or include/tdbf_model.h (for libtdbf_model)
#               exports is named in the text and on a ".\" links:" line
#               (make install turns those into tdbf_*(3) pages), and no
#               page links a function its header does not export.
#   all:        the .TH line names the version of include/tdbf.h, and
#               groff renders them without a warning (when groff is here).
#
# Usage: sh tests/man-pages.sh [PATH/TO/tdbf]   (default build/tdbf)
# The last line is "man: N passed, N failed".
set -u

cd "$(dirname "$0")/.."
tdbf=${1:-build/tdbf}
man1=man/tdbf.1
man3=man/libtdbf.3
man3_model=man/libtdbf_model.3
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() {
    echo "man-pages: FAIL: $*" >&2
    failed=$((failed + 1))
}

# The lines of one subcommand's section of tdbf(1): from its .SS heading to
# the next .SS or .SH.  A heading may name several commands ("tdbf
# version, tdbf help").
section_of() {
    awk -v cmd="$1" '
        /^\.S[SH] / {
            inside = 0
            if ($0 ~ "^\\.SS \"?(.*[ ,])?tdbf " cmd "([ ,\"]|$)") inside = 1
            next
        }
        inside { print }
    ' "$man1"
}

# Subcommands: the "Commands:" block of the top-level help.
commands=$("$tdbf" --help | awk '/^Commands:/ { on = 1; next }
                                 on && /^  [a-z]/ { print $1; next }
                                 on { on = 0 }')
[ -n "$commands" ] || { bad "no commands in '$tdbf --help'"; commands=""; }

for cmd in $commands; do
    section=$(section_of "$cmd")
    if [ -z "$section" ]; then
        bad "$man1 has no section for 'tdbf $cmd'"
        continue
    fi
    ok
    [ "$cmd" = help ] && continue   # takes a command name, no options
    # "  --name", or "  -x, --name" / "      --name" where a table has aliases
    options=$("$tdbf" "$cmd" --help | awk '/^Options:/ { on = 1; next }
                                           on && /^  (-[^-], |    )?--/ {
                                               name = ""
                                               for (i = 1; i <= NF; i++)
                                                   if ($i ~ /^--/) { name = $i; break }
                                               print substr(name, 3) }')
    for opt in $options; do
        [ "$opt" = help ] && continue
        # roff spells '-' as '\-': --key-regex is \-\-key\-regex.
        roff=$(printf '%s' "--$opt" | sed 's/-/\\\\-/g')
        if printf '%s\n' "$section" | grep -q "^\.B[IR]\{0,1\} $roff\( \|$\)"; then
            ok
        else
            bad "$man1: 'tdbf $cmd --$opt' is not an entry of its section"
        fi
    done
done

# A library page and its header: every function the header exports is
# named in the page's text and on its links: lines, and every name on the
# links: lines is one the header exports (a stale link would install a
# page for a function that is gone).
check_library_page() {
    page=$1 header=$2
    functions=$(sed -n 's/.*TDBF_API[^(]*[ *]\(tdbf_[a-z0-9_]*\)(.*/\1/p' "$header")
    [ -n "$functions" ] || bad "no TDBF_API functions found in $header"
    links=$(sed -n 's/^\.\\" links: *//p' "$page")
    for fn in $functions; do
        if ! grep -v '^\.\\"' "$page" | grep -q "$fn"; then
            bad "$page does not document $fn (add it to its section)"
        elif ! printf ' %s \n' "$links" | tr '\n' ' ' | grep -q " $fn "; then
            bad "$page: $fn is missing from the '.\\\" links:' lines"
        else
            ok
        fi
    done
    for fn in $links; do
        if printf ' %s \n' "$functions" | tr '\n' ' ' | grep -q " $fn "; then
            ok
        else
            bad "$page links $fn, which $header does not export"
        fi
    done
}
check_library_page "$man3" include/tdbf.h
check_library_page "$man3_model" include/tdbf_model.h

# The version: each page's .TH names the one in tdbf.h.
version=$(sed -n 's/^#define TDBF_VERSION_STRING "\(.*\)"/\1/p' include/tdbf.h)
for page in "$man1" "$man3" "$man3_model"; do
    if grep -q "^\.TH .* \"tdbf $version\" " "$page"; then
        ok
    else
        bad "$page: its .TH line does not name tdbf $version (TDBF_VERSION_STRING)"
    fi
done

# Rendering: no groff warnings.
if command -v groff >/dev/null 2>&1; then
    for page in "$man1" "$man3" "$man3_model"; do
        warnings=$(groff -t -man -ww -z "$page" 2>&1)
        if [ -n "$warnings" ]; then
            bad "$page: groff warns: $warnings"
        else
            ok
        fi
    done
fi

echo "man: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
