#!/usr/bin/env bash
# Whole-process timings of the release binary (issues 5 and 3, "Speed").
#
#   scripts/timings.sh                  # both sections, 100k entries, 30 runs per command
#   RUNS=50 ENTRIES=10000 scripts/timings.sh
#   SKIP_ANALYTICS=1 scripts/timings.sh # lookup section only
#   SKIP_LOOKUP=1 scripts/timings.sh    # analytics section only
#   WORK=/tmp/evokb-timings KEEP=1 scripts/timings.sh   # reuse/keep the generated data
#   NO_HYPERFINE=1 scripts/timings.sh   # force the bash loop
#
# Section 1 (lookup): generates a synthetic ENTRIES-entry knowledge base in the real format,
# imports it, and measures `evokb query`, `evokb search` and `grep -rl` over the same markdown in
# the same run. A search that returns results also records a hit (a write transaction and a
# rewrite of kb_search_log.jsonl), so the table also has a search that returns nothing (no hit
# recorded) and a query with an empty result (process start + store open), which bound how much
# of `search` is the hit recording and how much is fixed cost.
#
# Section 2 (analytics): generates a model-iteration registry (scripts/gen-registry.py, CASES
# cases x ROUNDS rounds) and times errors/rounds import, the recurrence figures and the chart.
#
# Uses hyperfine when installed (apt-get install -y hyperfine), else a bash loop with
# `date +%s%N`. Medians and p90 (nearest rank) are computed from the raw run times.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ENTRIES=${ENTRIES:-100000}
RUNS=${RUNS:-30}
CASES=${CASES:-100000}
ROUNDS=${ROUNDS:-20}
ANALYTICS_RUNS=${ANALYTICS_RUNS:-5}
KEEP=${KEEP:-0}

if [[ -z "${WORK:-}" ]]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/evokb-timings.XXXXXX")
    [[ "$KEEP" == 1 ]] || trap 'rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK"

echo "== building (cargo build --release -j1)" >&2
(cd "$ROOT" && cargo build --release -j1 --quiet -p evokb -p evokb-synth)
# Private copies, so a concurrent rebuild of target/ cannot change the binaries mid-run.
cp "$ROOT/target/release/evokb" "$WORK/evokb"
cp "$ROOT/target/release/evokb-synth" "$WORK/evokb-synth"
EVOKB="$WORK/evokb"
SYNTH="$WORK/evokb-synth"

HAVE_HYPERFINE=0
if [[ "${NO_HYPERFINE:-0}" != 1 ]] && command -v hyperfine >/dev/null 2>&1; then HAVE_HYPERFINE=1; fi

now_ns() { date +%s%N; }

# measure NAME RUNS WARMUP CMD...: run CMD (no shell) RUNS times, stdout to /dev/null, and write
# one wall time in seconds per line to $WORK/times/NAME.
measure() {
    local name=$1 runs=$2 warmup=$3
    shift 3
    mkdir -p "$WORK/times"
    local out="$WORK/times/$name"
    if [[ "$HAVE_HYPERFINE" == 1 ]]; then
        local cmd="" a
        for a in "$@"; do cmd+="$(printf '%q' "$a") "; done
        if ! hyperfine -N --style none --warmup "$warmup" --runs "$runs" \
            --export-json "$out.json" "$cmd" >/dev/null 2>"$out.err"; then
            cat "$out.err" >&2
            return 1
        fi
        python3 -c 'import json,sys; [print(t) for t in json.load(open(sys.argv[1]))["results"][0]["times"]]' \
            "$out.json" >"$out"
    else
        local i t0 t1
        for ((i = 0; i < warmup; i++)); do "$@" >/dev/null; done
        : >"$out"
        for ((i = 0; i < runs; i++)); do
            t0=$(now_ns)
            "$@" >/dev/null
            t1=$(now_ns)
            echo "$((t1 - t0))e-9" >>"$out"
        done
    fi
}

# once NAME CMD...: one timed run (for commands whose first run differs from later ones).
once() {
    local name=$1
    shift
    mkdir -p "$WORK/times"
    local t0 t1
    t0=$(now_ns)
    "$@" >/dev/null
    t1=$(now_ns)
    echo "$((t1 - t0))e-9" >"$WORK/times/$name"
}

secs() { python3 -c 'import sys; print(f"{float(open(sys.argv[1]).read()):.2f}")' "$WORK/times/$1"; }

# table BASELINE NAME...: median, p90, min, mean CPU (user + sys, hyperfine only) and the ratio
# of medians to BASELINE ("-" for no ratio column).
table() {
    python3 - "$WORK/times" "$@" <<'EOF'
import json, math, statistics, sys
d, base, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(n):
    return sorted(float(l) for l in open(f"{d}/{n}") if l.strip())
def p90(ts):
    return ts[max(0, math.ceil(0.9 * len(ts)) - 1)]
def cpu(n):
    # Mean user + system time from hyperfine: less sensitive than wall time to other load.
    try:
        r = json.load(open(f"{d}/{n}.json"))["results"][0]
        return f"{(r['user'] + r['system'])*1e3:.2f}"
    except (OSError, KeyError, ValueError):
        return "-"
b = statistics.median(load(base)) if base != "-" else None
w = max(len(n) for n in names)
hdr = f"{'command':<{w}}  {'runs':>4}  {'median ms':>10}  {'p90 ms':>9}  {'min ms':>9}  {'cpu ms':>8}"
print(hdr + (f"  {'x grep':>8}" if b else ""))
print("-" * (len(hdr) + (10 if b else 0)))
for n in names:
    ts = load(n)
    m = statistics.median(ts)
    row = f"{n:<{w}}  {len(ts):>4}  {m*1e3:>10.2f}  {p90(ts)*1e3:>9.2f}  {ts[0]*1e3:>9.2f}  {cpu(n):>8}"
    if b:
        row += f"  {m/b:>8.1f}"
    print(row)
EOF
}

echo "evokb timings: $(cd "$ROOT" && git rev-parse --short HEAD 2>/dev/null || echo '?')$(cd "$ROOT" && git diff --quiet 2>/dev/null || echo '+dirty'), $(nproc) cores, $(uname -sr)"
echo "tool: $([[ $HAVE_HYPERFINE == 1 ]] && hyperfine --version || echo 'bash loop (date +%s%N)')"

if [[ "${SKIP_LOOKUP:-0}" != 1 ]]; then
    KB="$WORK/kb$ENTRIES"
    echo
    echo "== lookup: $ENTRIES entries, $RUNS runs per command (work dir $WORK)"
    if [[ ! -d "$KB/.evokb" ]]; then
        rm -rf "$KB"
        once setup_gen_corpus "$SYNTH" --entries "$ENTRIES" "$KB"
        "$EVOKB" --root "$KB" init >/dev/null
        once setup_import "$EVOKB" --root "$KB" import
        echo "setup: gen-corpus $(secs setup_gen_corpus) s, import $(secs setup_import) s" \
            "(markdown $(du -sh "$KB/.agents" | cut -f1), store $(du -sh "$KB/.evokb" | cut -f1))"
    fi
    q_rows=$("$EVOKB" --root "$KB" query --family attention --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
    q_bytes=$("$EVOKB" --root "$KB" query --family attention --json | wc -c)
    n_grep=$(grep -rl attention "$KB/.agents" | wc -l)
    log="$KB/.agents/evolution/kb_search_log.jsonl"
    log_before=$(wc -l <"$log")

    # Interleaving is not possible with hyperfine; run the baseline first and last instead and
    # keep the first (the second shows the drift over the run).
    measure grep_rl "$RUNS" 3 grep -rl attention "$KB/.agents"
    measure grep_rc_fullscan "$RUNS" 3 grep -rc attention "$KB/.agents"
    measure version_noop "$RUNS" 3 "$EVOKB" --version
    measure query_empty "$RUNS" 3 "$EVOKB" --root "$KB" query --id-prefix NO-SUCH-ID --json
    measure query_family_json "$RUNS" 3 "$EVOKB" --root "$KB" query --family attention --json
    measure query_family_table "$RUNS" 3 "$EVOKB" --root "$KB" query --family attention
    measure query_and_4facets "$RUNS" 3 "$EVOKB" --root "$KB" query --family attention --dtype fp16 --api T.gemm --status stale --json
    measure search_nohit "$RUNS" 3 "$EVOKB" --root "$KB" search zzyzx --json
    measure search_hit "$RUNS" 3 "$EVOKB" --root "$KB" search 搬运 带宽 --json
    measure grep_rl_again "$RUNS" 3 grep -rl attention "$KB/.agents"

    log_after=$(wc -l <"$log")
    echo "query --family attention returns $q_rows rows ($q_bytes bytes of JSON); grep -rl lists $n_grep files"
    echo "search 搬运 带宽 recorded $((log_after - log_before)) hits (kb_search_log.jsonl: $log_before -> $log_after lines)"
    echo
    table grep_rl grep_rl grep_rc_fullscan version_noop query_empty query_family_json \
        query_family_table query_and_4facets search_nohit search_hit grep_rl_again
    python3 - "$WORK/times" <<'EOF'
import json, statistics, sys
d = sys.argv[1]
m = lambda n: statistics.median(float(l) for l in open(f"{d}/{n}") if l.strip()) * 1e3
def cpu(n):
    try:
        r = json.load(open(f"{d}/{n}.json"))["results"][0]
        return (r["user"] + r["system"]) * 1e3
    except (OSError, KeyError, ValueError):
        return None
q, s, sn, qe = m("query_family_json"), m("search_hit"), m("search_nohit"), m("query_empty")
print()
print(f"target query --family attention --json <= 5 ms median: {q:.2f} ms -> {'met' if q <= 5 else 'MISSED'}")
print(f"target search <= 20 ms median:                        {s:.2f} ms -> {'met' if s <= 20 else 'MISSED'}")
print("search, wall medians: hit recording ~ %.2f ms (search_hit - search_nohit), lookup ~ %.2f ms"
      " (search_nohit - query_empty), process start + store open/close ~ %.2f ms (query_empty)"
      % (s - sn, sn - qe, qe))
c = [cpu(n) for n in ("search_hit", "search_nohit", "query_empty")]
if None not in c:
    print("search, mean CPU:     hit recording ~ %.2f ms, lookup ~ %.2f ms, start + open/close ~ %.2f ms"
          % (c[0] - c[1], c[1] - c[2], c[2]))
EOF
fi

if [[ "${SKIP_ANALYTICS:-0}" != 1 ]]; then
    REG="$WORK/registry"
    AST="$WORK/analytics-store"
    echo
    echo "== analytics: $CASES cases x $ROUNDS rounds ($ANALYTICS_RUNS runs per figure)"
    python3 "$ROOT/scripts/gen-registry.py" --cases "$CASES" --rounds "$ROUNDS" "$REG" >/dev/null
    rm -rf "$AST" && mkdir -p "$AST"
    "$EVOKB" --root "$AST" init >/dev/null
    echo "registry: $(wc -l <"$REG/results/error_registry.jsonl") cases, $(du -h "$REG/results/error_registry.jsonl" | cut -f1)"
    once errors_import_first "$EVOKB" --root "$AST" errors import "$REG/results/error_registry.jsonl"
    once rounds_import_first "$EVOKB" --root "$AST" rounds import "$REG/results/iteration_log.jsonl"
    measure errors_import_again "$ANALYTICS_RUNS" 0 "$EVOKB" --root "$AST" errors import "$REG/results/error_registry.jsonl"
    measure rounds_import_again "$ANALYTICS_RUNS" 0 "$EVOKB" --root "$AST" rounds import "$REG/results/iteration_log.jsonl"
    measure stats_transitions "$ANALYTICS_RUNS" 1 "$EVOKB" --root "$AST" stats transitions --json
    measure stats_recurrence "$ANALYTICS_RUNS" 1 "$EVOKB" --root "$AST" stats recurrence --json
    measure stats_recurrence_fix "$ANALYTICS_RUNS" 1 "$EVOKB" --root "$AST" stats recurrence --after fix --json
    measure stats_recurrence_injection "$ANALYTICS_RUNS" 1 "$EVOKB" --root "$AST" stats recurrence --after injection --json
    measure chart_recurrence_svg "$ANALYTICS_RUNS" 1 "$EVOKB" --root "$AST" chart recurrence --svg "$WORK/recurrence.svg"
    echo
    table - errors_import_first rounds_import_first errors_import_again rounds_import_again \
        stats_transitions stats_recurrence stats_recurrence_fix stats_recurrence_injection \
        chart_recurrence_svg
    echo
    echo "recurrence: $("$EVOKB" --root "$AST" stats recurrence --json | tr -d ' \n')"
    echo "after fix:  $("$EVOKB" --root "$AST" stats recurrence --after fix --json | tr -d ' \n')"
fi

[[ "$KEEP" == 1 ]] && echo && echo "kept $WORK"
exit 0
