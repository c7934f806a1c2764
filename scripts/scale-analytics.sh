#!/usr/bin/env bash
# Whole-process time and peak memory of the analytics commands on a generated registry of
# CASES cases x ROUNDS rounds (issue 12, "Scale": 1M x 50; targets: errors import <= 15 s,
# every figure <= 3 s, export <= 20 s, peak RSS <= 1 GB). Measured, never asserted.
#
#   scripts/scale-analytics.sh                     # 1M x 50 (the registry is ~550 MB)
#   CASES=100000 ROUNDS=20 scripts/scale-analytics.sh
#   WORK=/tmp/evokb-scale KEEP=1 scripts/scale-analytics.sh   # reuse/keep registry and store
#   CSV=1 scripts/scale-analytics.sh                           # also time the CSV export
#   EVOKB=/tmp/evokb-before scripts/scale-analytics.sh         # time that binary, no build
#
# Needs GNU time (/usr/bin/time, Debian package `time`). Builds the release binary with -j2
# unless EVOKB names one.
# Each command runs once (the numbers are whole-process wall time, CPU time (user + system) and
# maximum resident set size as /usr/bin/time -v reports them) and the table goes to stdout. On a
# shared machine the wall time includes waiting for a CPU; the CPU column does not.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CASES=${CASES:-1000000}
ROUNDS=${ROUNDS:-50}
KEEP=${KEEP:-0}
if [[ -z "${WORK:-}" ]]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/evokb-scale.XXXXXX")
    [[ "$KEEP" == 1 ]] || trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

if [[ -z "${EVOKB:-}" ]]; then
    echo "== building (cargo build --release -j2)" >&2
    (cd "$ROOT" && cargo build --release -j2 --quiet)
    EVOKB=${CARGO_TARGET_DIR:-$ROOT/target}/release/evokb
fi

REG=$WORK/data/results/error_registry.jsonl
LOG=$WORK/data/results/iteration_log.jsonl
if [[ ! -s "$REG" ]]; then
    echo "== generating $CASES cases x $ROUNDS rounds" >&2
    python3 "$ROOT/scripts/gen-registry.py" --cases "$CASES" --rounds "$ROUNDS" "$WORK/data" >&2
fi
echo "registry: $(du -h "$REG" | cut -f1), $(wc -l <"$REG") lines"

KB=$WORK/kb
rm -rf "$KB"
mkdir -p "$KB"
(cd "$KB" && "$EVOKB" init >/dev/null)

# On a shared machine the wall time depends on the neighbours: the load average goes with it.
printf '%-58s %9s %9s %11s  %s\n' command seconds cpu_s peak_MiB load_1min
measure() {
    local label=$1
    shift
    local log=$WORK/time.log
    (cd "$KB" && /usr/bin/time -v "$@" >"$WORK/out.txt" 2>"$log") || {
        echo "FAILED: $label" >&2
        cat "$log" >&2
        return 1
    }
    local wall rss user sys
    wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$log")
    user=$(sed -n 's/.*User time (seconds): //p' "$log")
    sys=$(sed -n 's/.*System time (seconds): //p' "$log")
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$log")
    # m:ss.ss or h:mm:ss -> seconds
    local secs
    secs=$(awk -v t="$wall" 'BEGIN { n = split(t, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.2f", s }')
    printf '%-58s %9s %9.2f %11.0f  %s\n' "$label" "$secs" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
        "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$(cut -d' ' -f1 /proc/loadavg)"
}

measure "errors import" "$EVOKB" errors import "$REG"
measure "errors import, again (unchanged)" "$EVOKB" errors import "$REG"
measure "rounds import" "$EVOKB" rounds import "$LOG"
measure "stats transitions" "$EVOKB" stats transitions --json
measure "stats transitions --by subset" "$EVOKB" stats transitions --by subset --json
measure "stats transitions --by pattern" "$EVOKB" stats transitions --by pattern --json
measure "stats transitions --cases --class new_fail --from R48" "$EVOKB" stats transitions --cases --class new_fail --from R48 --json
measure "stats recurrence" "$EVOKB" stats recurrence --json
measure "stats recurrence --by pattern" "$EVOKB" stats recurrence --by pattern --json
measure "stats recurrence --after fix" "$EVOKB" stats recurrence --after fix --json
measure "stats recurrence --after fix --by subset" "$EVOKB" stats recurrence --after fix --by subset --json
measure "stats recurrence --after injection" "$EVOKB" stats recurrence --after injection --json
measure "stats recurrence --after injection --by subset" "$EVOKB" stats recurrence --after injection --by subset --json
measure "report round R$((ROUNDS - 1))" "$EVOKB" report round "R$((ROUNDS - 1))"
measure "export --format parquet" "$EVOKB" export --format parquet "$WORK/export-parquet"
echo "parquet: $(du -sh "$WORK/export-parquet" | cut -f1)"
if [[ "${CSV:-0}" == 1 ]]; then
    # ~100 bytes per case x round: about 5 GB at 1M x 50.
    measure "export --format csv" "$EVOKB" export --format csv "$WORK/export-csv"
    echo "csv: $(du -sh "$WORK/export-csv" | cut -f1)"
fi
