#!/usr/bin/env bash
# Fuzzes every importer for FUZZ_SECONDS (default 60) each, one target after another, and prints
# the number of executions of each run. Exits non-zero if any target crashes, hangs, runs out of
# memory or fails to build. A documented script, not part of CI: see fuzz/README.md.
#
# Works on the stable toolchain: the targets are built with `cargo fuzz --sanitizer none`, whose
# coverage flags (-Cpasses=sancov-module, -Cllvm-args=-sanitizer-coverage-*) are stable. With
# FUZZ_SANITIZER=address (or another sanitizer), RUSTC_BOOTSTRAP=1 unlocks -Zsanitizer on stable.
#
# Environment:
#   FUZZ_SECONDS    seconds per target (default 60)
#   FUZZ_TARGETS    space-separated targets (default: all seven)
#   FUZZ_SANITIZER  none (default), address, leak, ...
#   FUZZ_TIMEOUT    seconds one input may take before it counts as a hang (default 10)
#   FUZZ_MAX_LEN    largest input in bytes (default 4096)
#   CARGO_BUILD_JOBS  parallel compile jobs (default 1)
#
# The targets are built once with `cargo fuzz build` and the binaries are then run directly, so a
# concurrent edit of the workspace cannot rebuild or break them halfway through the runs. Each
# run reads the committed seeds in fuzz/corpus/<target> and writes new inputs to the git-ignored
# fuzz/target/corpus/<target>, crashes to fuzz/artifacts/<target>, its log to fuzz/target/logs.
# Reproduce or minimise a crash with
#   cargo fuzz run --sanitizer none <target> fuzz/artifacts/<target>/<file>
#   cargo fuzz tmin --sanitizer none <target> fuzz/artifacts/<target>/<file> [-- -timeout=1]
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"topic_file index queue stats gaps bottlenecks search_log"}
sanitizer=${FUZZ_SANITIZER:-none}
timeout=${FUZZ_TIMEOUT:-10}
max_len=${FUZZ_MAX_LEN:-4096}
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
if [ "$sanitizer" != none ]; then
    export RUSTC_BOOTSTRAP=1
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked -j "$CARGO_BUILD_JOBS" || exit 2
fi

cd "$here/fuzz" || exit 2
echo "== building the fuzz targets (sanitizer: $sanitizer)"
if ! cargo fuzz build --sanitizer "$sanitizer"; then
    echo "fuzz.sh: the fuzz targets do not build" >&2
    exit 2
fi

triple=$(rustc -vV | sed -n 's/^host: //p')
bin_dir="target/$triple/release"
mkdir -p target/logs
failed=()
results=()
for t in $targets; do
    mkdir -p "target/corpus/$t" "artifacts/$t"
    log="target/logs/$t.log"
    echo "== $t: fuzzing for ${seconds}s (log: fuzz/$log)"
    "$bin_dir/$t" "target/corpus/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -dict=evokb.dict -max_total_time="$seconds" -timeout="$timeout" -max_len="$max_len" \
        -print_final_stats=1 -rss_limit_mb=2048 >"$log" 2>&1
    rc=$?
    # libFuzzer's final statistics; "#N DONE" / "Done N runs" as fallbacks.
    execs=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\)[[:space:]]*DONE.*/\1/p' "$log" | tail -n 1)
    [ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
    status=ok
    if [ "$rc" -ne 0 ]; then
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        status="FAILED (exit $rc${artifact:+, input: fuzz/$artifact})"
        failed+=("$t")
        grep -m 1 -E "panicked at|ERROR: libFuzzer|ALARM|out-of-memory" "$log" || tail -n 20 "$log"
    fi
    line=$(printf '%-12s %12s executions  %8s exec/s  %s' "$t" "${execs:-?}" "${rate:-?}" "$status")
    echo "$line"
    results+=("$line")
done

echo "== summary (${seconds}s per target)"
printf '%s\n' "${results[@]}"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "fuzz.sh: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
