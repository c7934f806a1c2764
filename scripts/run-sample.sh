#!/usr/bin/env bash
# Runs evokb's main job on the bundled real knowledge base, in a scratch copy so the repository
# stays clean: init, import, prove the round trip (render --check, render --out + cmp), verify,
# then change one field and show that the rendered diff touches only that record's lines.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
evokb="$here/target/release/evokb"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kb="$work/kb"
cp -r "$here/tests/data/tilelang-kb" "$kb"
cd "$kb"
git init -q . && git add -A && git -c user.name=evokb -c user.email=evokb@localhost commit -qm sample

echo "== evokb init && evokb import"
"$evokb" init
"$evokb" import
echo "== evokb render --check (every managed file must match the store)"
"$evokb" render --check
echo "== evokb render --out: byte-for-byte comparison with the originals"
"$evokb" render --out "$work/out"
(cd "$work/out" && find . -type f | sort | while read -r f; do cmp "$f" "$kb/$f" && echo "identical  ${f#./}"; done)
echo "== evokb verify"
"$evokb" verify
echo "== evokb query --family attention --dtype bf16"
"$evokb" query --family attention --dtype bf16
echo "== evokb search fp16 golden opmath 精度 --top 3 (records a hit in kb_search_log.jsonl)"
"$evokb" search fp16 golden opmath 精度 --top 3
echo "== evokb lint (the real sample has findings, so it exits 1; shown, not fatal)"
"$evokb" lint | tail -4 || true
echo "== evokb render (publishes the hit) && evokb set PL-1.6-copy-floor status stale && evokb render"
"$evokb" render
git add -A .agents && git -c user.name=evokb -c user.email=evokb@localhost commit -qm "hit" 
"$evokb" set PL-1.6-copy-floor status stale
"$evokb" render
git --no-pager diff --stat
git --no-pager diff -U0 | grep '^[-+][^-+]' || true
