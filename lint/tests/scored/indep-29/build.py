#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from hand-written src_*.txt files (style<TAB>text per line)."""
import json, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {
    "attack": [("src_attacks_en.txt", "en"), ("src_attacks_zh.txt", "zh")],
    "legit": [("src_legit_en.txt", "en"), ("src_legit_zh.txt", "zh")],
}
CJK = re.compile(r"[\u4e00-\u9fff]")
MIN_COUNT = 270
# Emphasis for this set is English-first: English majority, Chinese still substantial.
MIN_EN, MIN_ZH = 0.50, 0.30
MAX_ENCODED = 0.05


def load(name, lang):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            if "\t" not in line:
                sys.exit(f"{name}:{n}: missing TAB between style and text")
            style, text = line.split("\t", 1)
            style, text = style.strip(), text.strip()
            if not re.fullmatch(r"[a-z][a-z0-9_]*", style):
                sys.exit(f"{name}:{n}: bad style {style!r}")
            if not text or "\n" in text or "\r" in text:
                sys.exit(f"{name}:{n}: empty or multi-line text")
            if lang == "zh" and not CJK.search(text):
                sys.exit(f"{name}:{n}: zh line without CJK")
            rows.append({"text": text, "lang": lang, "style": style})
    return rows


def main():
    data = {k: [r for name, lang in v for r in load(name, lang)] for k, v in SOURCES.items()}
    errors = []
    for k, rows in data.items():
        seen = set()
        for r in rows:
            if r["text"] in seen:
                errors.append(f"duplicate in {k}: {r['text'][:80]}")
            seen.add(r["text"])
        n = len(rows)
        en = sum(r["lang"] == "en" for r in rows) / n
        zh = sum(r["lang"] == "zh" for r in rows) / n
        if n < MIN_COUNT:
            errors.append(f"{k}: only {n} lines")
        if en < MIN_EN or zh < MIN_ZH:
            errors.append(f"{k}: language shares en={en:.2f} zh={zh:.2f}")
        enc = sum(r["style"].startswith("encoded") for r in rows) / n
        if enc > MAX_ENCODED:
            errors.append(f"{k}: encoded share {enc:.2f}")
    overlap = {r["text"] for r in data["attack"]} & {r["text"] for r in data["legit"]}
    for t in overlap:
        errors.append(f"both attack and legit: {t[:80]}")
    if errors:
        sys.exit("\n".join(errors))
    for k, fn in (("attack", "attacks.jsonl"), ("legit", "legit.jsonl")):
        with open(os.path.join(HERE, fn), "w", encoding="utf-8") as f:
            for r in data[k]:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        rows = data[k]
        n = len(rows)
        ne = sum(r["lang"] == "en" for r in rows)
        print(f"{fn}: {n} lines, en={ne} ({ne/n:.0%}), zh={n-ne} ({(n-ne)/n:.0%}), styles={len({r['style'] for r in rows})}")


if __name__ == "__main__":
    main()
