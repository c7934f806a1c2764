#!/usr/bin/env bash
# Whole-process timing of `evokb lint` on the generated corpus (issue 10 item 3, "Speed").
#
#   scripts/lint_timing.sh EVOKB [EVOKB_OTHER] [RUNS]
#
# Generates a 10k-entry corpus with evokb-synth (ENTRIES, default 10000; WORK, default
# /tmp/evokb-lint-timing; reused when present), imports it, then runs RUNS rounds (default 7)
# of: `cat` of every corpus file (the baseline: reading the same bytes), `EVOKB lint`, and
# `EVOKB_OTHER lint` when given (e.g. the binary before a change), alternated so that the
# machine's load falls on each command alike. Prints, per command, the median wall time and
# the median CPU time (user + sys, from /usr/bin/time), and the ratio of each median to the
# baseline's (when the baseline reaches the timer's tick of 0.01 s; `cat` of a corpus in the page
# cache usually does not). CPU time is the figure to compare on a shared machine.
set -euo pipefail

EVOKB=${1:?usage: lint_timing.sh EVOKB [EVOKB_OTHER] [RUNS]}
OTHER=${2:-}
RUNS=${3:-7}
ENTRIES=${ENTRIES:-10000}
WORK=${WORK:-/tmp/evokb-lint-timing}
SYNTH=${SYNTH:-$(dirname "$EVOKB")/evokb-synth}
KB="$WORK/kb$ENTRIES"

if [[ ! -d "$KB/.evokb" ]]; then
    rm -rf "$KB"
    mkdir -p "$WORK"
    "$SYNTH" --entries "$ENTRIES" "$KB" >/dev/null
    "$EVOKB" --root "$KB" init >/dev/null
    "$EVOKB" --root "$KB" import >/dev/null
fi
mapfile -t FILES < <(cd "$KB" && find . -path ./.evokb -prune -o -type f -print | sort)

T="$WORK/times"
rm -rf "$T"
mkdir -p "$T"
run() { # NAME CMD...: one run, "wall cpu" appended to $T/NAME
    local name=$1
    shift
    /usr/bin/time -f "%e %U %S" -o "$T/.one" "$@" >/dev/null 2>&1 || true
    awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$T/.one" >>"$T/$name"
}
for ((i = 0; i < RUNS; i++)); do
    (cd "$KB" && run cat cat "${FILES[@]}")
    run lint "$EVOKB" --root "$KB" lint
    [[ -n "$OTHER" ]] && run lint-other "$OTHER" --root "$KB" lint
done

echo "evokb lint on $ENTRIES entries, $RUNS alternated runs, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$T" cat lint ${OTHER:+lint-other} <<'PY'
import statistics, sys
d, names = sys.argv[1], sys.argv[2:]
med = {}
for n in names:
    rows = [tuple(map(float, l.split())) for l in open(f"{d}/{n}") if l.strip()]
    med[n] = (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows))
b = med["cat"]
# /usr/bin/time counts in hundredths of a second: a baseline below that (cat of a corpus in the
# page cache) has no ratio to print.
ratio = lambda x, base: f"{x / base:.1f}" if base >= 0.01 else "< tick"
print(f"{'command':<11} {'wall s':>7} {'cpu s':>7} {'wall/cat':>9} {'cpu/cat':>8}")
for n in names:
    w, c = med[n]
    print(f"{n:<11} {w:>7.3f} {c:>7.3f} {ratio(w, b[0]):>9} {ratio(c, b[1]):>8}")
PY
