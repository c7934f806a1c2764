#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from hand-written src_*.txt files (blind training set, train31)."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {
    "attack": [("src_attacks_en.txt", "en"), ("src_attacks_zh.txt", "zh")],
    "legit": [("src_legit_en.txt", "en"), ("src_legit_zh.txt", "zh")],
}
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE = re.compile(r"^[a-z][a-z0-9_]*$")
B64 = re.compile(r"[A-Za-z0-9+/]{60,}={0,2}")


def load(fname, lang):
    rows = []
    with open(os.path.join(HERE, fname), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if "\t" not in line:
                sys.exit(f"{fname}:{n}: missing TAB")
            style, text = line.split("\t", 1)
            if not STYLE.match(style):
                sys.exit(f"{fname}:{n}: bad style {style!r}")
            if not text.strip() or "\n" in text or "\r" in text:
                sys.exit(f"{fname}:{n}: empty or multi-line text")
            ncjk = len(CJK.findall(text))
            if lang == "zh" and ncjk < 4:
                sys.exit(f"{fname}:{n}: zh line without enough CJK")
            if lang == "en" and ncjk > 0.25 * len(text):
                sys.exit(f"{fname}:{n}: en line is mostly CJK")
            rows.append({"text": text, "lang": lang, "style": style})
    return rows


def main():
    data = {k: [r for fn, lang in v for r in load(fn, lang)] for k, v in SOURCES.items()}
    for k, rows in data.items():
        seen = set()
        for r in rows:
            if r["text"] in seen:
                sys.exit(f"duplicate in {k}: {r['text'][:80]}")
            seen.add(r["text"])
    overlap = {r["text"] for r in data["attack"]} & {r["text"] for r in data["legit"]}
    if overlap:
        sys.exit(f"line both attack and legit: {sorted(overlap)[:3]}")
    for k, rows in data.items():
        n = len(rows)
        if n < 270:
            sys.exit(f"{k}: only {n} lines")
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in rows) / n
            if share < 0.40:
                sys.exit(f"{k}: {lang} share {share:.2f} < 0.40")
    enc = sum(bool(B64.search(r["text"])) for r in data["attack"])
    if enc > 0.05 * len(data["attack"]):
        sys.exit(f"too many encoded carriers: {enc}")
    out = {"attack": "attacks.jsonl", "legit": "legit.jsonl"}
    for k, rows in data.items():
        with open(os.path.join(HERE, out[k]), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        en = sum(r["lang"] == "en" for r in rows)
        print(f"{out[k]}: {len(rows)} lines, en {en} ({en/len(rows):.1%}), zh {len(rows)-en} ({(len(rows)-en)/len(rows):.1%}), styles {len({r['style'] for r in rows})}, encoded {sum(bool(B64.search(r['text'])) for r in rows)}")


if __name__ == "__main__":
    main()
