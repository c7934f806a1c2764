#!/usr/bin/env bash
# Runs a real MCP client, the official Python SDK from PyPI, against `evokb mcp` on a copy of the
# bundled sample. Installs the SDK into a virtual environment (target/mcp-venv, or
# $EVOKB_MCP_VENV) and builds evokb if needed. Exits non-zero on any mismatch.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${EVOKB_MCP_VENV:-target/mcp-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import mcp' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check 'mcp==2.3.0'
fi
cargo build --quiet -j2 --bin evokb
evokb=$(pwd)/target/debug/evokb
kb=$(mktemp -d)
trap 'rm -rf "$kb"' EXIT
cp -R tests/data/tilelang-kb/. "$kb"
"$evokb" --root "$kb" init >/dev/null
"$evokb" --root "$kb" import >/dev/null
"$venv/bin/python" scripts/mcp-client.py "$evokb" "$kb"
