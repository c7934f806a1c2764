#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files.

Each source line is `style⟫text`; lines starting with '#' and blank lines are skipped.
Language is detected from the text (>= 3 CJK characters -> zh, else en).
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = "\u27eb"  # ⟫
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE = re.compile(r"^[a-z][a-z0-9_]*$")

SOURCES = {
    "attack": ["src_attack_zh.txt", "src_attack_en.txt"],
    "legit": ["src_legit_zh.txt", "src_legit_en.txt"],
}


def lang_of(text):
    return "zh" if len(CJK.findall(text)) >= 3 else "en"


def load(names):
    rows = []
    for name in names:
        path = os.path.join(HERE, name)
        with open(path, encoding="utf-8") as fh:
            for n, raw in enumerate(fh, 1):
                line = raw.rstrip("\n")
                if not line.strip() or line.startswith("#"):
                    continue
                if SEP not in line:
                    sys.exit(f"{name}:{n}: missing separator")
                style, text = line.split(SEP, 1)
                style = style.strip()
                if not STYLE.match(style):
                    sys.exit(f"{name}:{n}: bad style {style!r}")
                if not text.strip() or "\n" in text or "\r" in text:
                    sys.exit(f"{name}:{n}: empty or multi-line text")
                rows.append({"text": text, "lang": lang_of(text), "style": style, "_src": f"{name}:{n}"})
    return rows


def check(label, rows, errors):
    seen = {}
    for r in rows:
        if r["text"] in seen:
            errors.append(f"{label}: duplicate text at {r['_src']} and {seen[r['text']]}")
        seen[r["text"]] = r["_src"]
    n = len(rows)
    zh = sum(r["lang"] == "zh" for r in rows)
    en = n - zh
    if n < 270:
        errors.append(f"{label}: only {n} rows (< 270)")
    if zh / n < 0.60:
        errors.append(f"{label}: zh share {zh / n:.3f} < 0.60")
    if en == 0:
        errors.append(f"{label}: no English rows")
    return n, zh, en, set(seen)


def main():
    errors = []
    data = {k: load(v) for k, v in SOURCES.items()}
    stats = {}
    texts = {}
    for label, rows in data.items():
        n, zh, en, tset = check(label, rows, errors)
        stats[label] = (n, zh, en)
        texts[label] = tset
    both = texts["attack"] & texts["legit"]
    for t in sorted(both):
        errors.append(f"line labelled both attack and legit: {t}")
    # normalised near-duplicate check across labels (whitespace/punctuation-insensitive)
    norm = lambda s: re.sub(r"[\s\W_]+", "", s.lower())
    na = {norm(r["text"]): r["_src"] for r in data["attack"]}
    for r in data["legit"]:
        if norm(r["text"]) in na:
            errors.append(f"near-duplicate across labels: {r['_src']} vs {na[norm(r['text'])]}")
    if errors:
        print("\n".join(errors))
        sys.exit(1)
    for label, fname in (("attack", "attacks.jsonl"), ("legit", "legit.jsonl")):
        with open(os.path.join(HERE, fname), "w", encoding="utf-8") as fh:
            for r in data[label]:
                fh.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]}, ensure_ascii=False) + "\n")
    for label, (n, zh, en) in stats.items():
        print(f"{label}: {n} rows, zh {zh} ({zh / n:.1%}), en {en} ({en / n:.1%})")


if __name__ == "__main__":
    main()
