#!/usr/bin/env python3
"""A naive BM25 over the entries of a knowledge base: the baseline `scripts/cost.py` sets
against `evokb search`. It reads every topic file, splits entries at front-matter openings,
tokenises on non-word characters, scores every entry for the query, prints the top 5 ids, and
appends a search-log line as the tool evokb replaces does (so the work compared is the same).

    python3 scripts/bm25_naive.py KB_ROOT QUERY
"""
import json
import math
import os
import re
import sys

kb, query = sys.argv[1], sys.argv[2]
docs = []
for d, _, names in os.walk(os.path.join(kb, ".agents")):
    for n in names:
        if n.endswith(".md") and n != "INDEX.md" and "pattern-library" in d:
            text = open(os.path.join(d, n), encoding="utf-8").read()
            for part in text.split("\n---\nid: ")[1:]:
                ident = part.split("\n", 1)[0].strip()
                docs.append((ident, re.findall(r"\w+", part.lower())))
n = len(docs) or 1
avg = sum(len(t) for _, t in docs) / n
terms = re.findall(r"\w+", query.lower())
df = {t: sum(1 for _, toks in docs if t in toks) for t in terms}
k1, b = 1.2, 0.75
scores = []
for ident, toks in docs:
    s = 0.0
    for t in terms:
        f = toks.count(t)
        if f:
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(toks) / avg))
    scores.append((s, ident))
top = [i for s, i in sorted(scores, reverse=True)[:5] if s > 0]
print("\n".join(top))
with open(os.path.join(os.path.dirname(os.path.abspath(kb)), "bm25_baseline_log.jsonl"), "a", encoding="utf-8") as f:
    f.write(json.dumps({"query": query, "returned": top}, ensure_ascii=False) + "\n")
