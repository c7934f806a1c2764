#!/usr/bin/env bash
# Recomputes the registry recurrence rate from evokb's Parquet export with DuckDB, overall and
# per pattern, and checks that it equals `evokb stats recurrence` (issue 12, "Export").
#
#   scripts/duckdb-recurrence.sh                       # the bundled model-iteration fixture
#   scripts/duckdb-recurrence.sh REGISTRY.jsonl LOG.jsonl
#
# Builds evokb (debug, or release with PROFILE=release), loads the registry and the log into a
# fresh store in a temporary folder, runs `evokb export --format parquet`, and queries
# cases.parquet with DuckDB's Python package. DuckDB is installed with pip into a virtual
# environment under ${XDG_CACHE_HOME:-~/.cache}/evokb-duckdb when `import duckdb` fails, so the
# script works from a fresh clone. Exit 0 when every figure matches, 1 otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
REGISTRY=${1:-$ROOT/tests/data/model-iteration/results/error_registry.jsonl}
LOG=${2:-$ROOT/tests/data/model-iteration/results/iteration_log.jsonl}
PROFILE=${PROFILE:-debug}
REGISTRY=$(cd "$(dirname "$REGISTRY")" && pwd)/$(basename "$REGISTRY")
LOG=$(cd "$(dirname "$LOG")" && pwd)/$(basename "$LOG")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/evokb-duckdb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "== building evokb ($PROFILE)" >&2
if [[ "$PROFILE" == release ]]; then
    (cd "$ROOT" && cargo build --release -j2 --quiet)
else
    (cd "$ROOT" && cargo build -j2 --quiet)
fi
EVOKB=${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE/evokb

PY=python3
if ! "$PY" -c "import duckdb" 2>/dev/null; then
    VENV=${XDG_CACHE_HOME:-$HOME/.cache}/evokb-duckdb
    if ! "$VENV/bin/python" -c "import duckdb" 2>/dev/null; then
        echo "== installing duckdb into $VENV" >&2
        python3 -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check duckdb
    fi
    PY=$VENV/bin/python
fi

KB=$WORK/kb
mkdir -p "$KB"
(
    cd "$KB"
    "$EVOKB" init >/dev/null
    "$EVOKB" errors import "$REGISTRY" >/dev/null
    "$EVOKB" rounds import "$LOG" >/dev/null
    "$EVOKB" export --format parquet "$WORK/out" >/dev/null
    "$EVOKB" stats recurrence --json >"$WORK/recurrence.json"
    "$EVOKB" stats recurrence --by pattern --json >"$WORK/by-pattern.json"
)

"$PY" - "$WORK/out/cases.parquet" "$WORK/recurrence.json" "$WORK/by-pattern.json" <<'PYEOF'
import json
import sys

import duckdb

cases, overall_path, by_pattern_path = sys.argv[1:4]
con = duckdb.connect()
# A case recurs when it failed in two or more distinct rounds; the rate is over the cases that
# failed at least once (README, Analytics: recurrence).
query = """
    WITH per_case AS (
        SELECT case_hash, any_value(pattern) AS pattern,
               count(DISTINCT round) FILTER (WHERE failed) AS failed_rounds
        FROM read_parquet(?) GROUP BY case_hash
    )
    SELECT {group} count(*) FILTER (WHERE failed_rounds >= 1) AS failing,
           count(*) FILTER (WHERE failed_rounds >= 2) AS recurring
    FROM per_case {group_by}
"""


def rate(recurring, failing):
    return None if failing == 0 else round(recurring / failing, 4)


failures = 0
failing, recurring = con.execute(query.format(group="", group_by=""), [cases]).fetchone()
want = json.load(open(overall_path))
got = {"failing_cases": failing, "recurring_cases": recurring, "rate": rate(recurring, failing)}
print(f"duckdb: {got}")
print(f"evokb:  {want}")
if got != want:
    failures += 1
    print("MISMATCH: overall recurrence")
rows = con.execute(
    query.format(group="pattern,", group_by="GROUP BY pattern ORDER BY pattern"), [cases]
).fetchall()
by_duck = {p: {"failing_cases": f, "recurring_cases": r, "rate": rate(r, f)} for p, f, r in rows}
for row in json.load(open(by_pattern_path)):
    pattern = row.pop("pattern")
    if by_duck.get(pattern) != row:
        failures += 1
        print(f"MISMATCH: pattern {pattern}: duckdb {by_duck.get(pattern)} evokb {row}")
print(f"{len(by_duck)} patterns compared")
if failures:
    print(f"{failures} mismatches")
    sys.exit(1)
print("ok: DuckDB over cases.parquet equals evokb stats recurrence")
PYEOF
