#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for the blind injection-lint evaluation set (train19).

Reads the hand-written sources next to this file, computes every encoding
(no encoded string is hand-typed), runs the consistency checks and writes
the two jsonl files.
"""
import base64
import html
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r"[\u4e00-\u9fff]")
ZWSP = "\u200b"


def path(name):
    return os.path.join(HERE, name)


def read_plain(name, lang):
    rows = []
    with open(path(name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            raw = raw.rstrip("\n")
            if not raw.strip():
                continue
            parts = raw.split("\t")
            if len(parts) != 2:
                sys.exit(f"{name}:{n}: expected style<TAB>text, got {len(parts)} fields")
            style, text = parts
            rows.append({"text": text, "lang": lang, "style": style})
    return rows


def b64(s):
    return base64.b64encode(s.encode("utf-8")).decode("ascii")


def encode(style, payload):
    kind = style.split("_", 1)[1]
    if kind == "base64":
        return b64(payload)
    if kind == "hex":
        return payload.encode("utf-8").hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        if style.startswith("benign_"):
            return html.escape(payload)
        return "".join(f"&#{ord(c)};" for c in payload)
    if kind == "zero_width":
        return ZWSP.join(payload)
    if kind == "html_comment":
        return "<!-- " + payload + " -->"
    if kind == "js_link":
        return payload
    if kind == "data_link":
        return b64(payload)
    if kind == "file_link":
        return payload
    sys.exit(f"unknown encoding style {style}")


def read_encoded(name):
    rows = []
    with open(path(name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            raw = raw.rstrip("\n")
            if not raw.strip():
                continue
            parts = raw.split("\t")
            if len(parts) != 5:
                sys.exit(f"{name}:{n}: expected 5 tab fields, got {len(parts)}")
            style, lang, prefix, payload, suffix = parts
            text = prefix + encode(style, payload) + suffix
            rows.append({"text": text, "lang": lang, "style": style})
    return rows


def check_rows(rows, label):
    for r in rows:
        t = r["text"]
        assert t and t == t.strip() or t.strip(), f"{label}: empty text"
        assert "\n" not in t and "\r" not in t, f"{label}: newline in {t!r}"
        assert r["lang"] in ("en", "zh"), r
        assert re.fullmatch(r"[a-z0-9_]+", r["style"]), r
        cjk = len(CJK.findall(t))
        latin = len(re.findall(r"[A-Za-z]", t))
        if r["lang"] == "zh":
            assert cjk > 0, f"{label}: zh line without CJK: {t!r}"
        else:
            assert cjk == 0 or latin > cjk, f"{label}: en line dominated by CJK: {t!r}"


def main():
    attacks = (read_plain("src_attacks_en.txt", "en") + read_plain("src_attacks_zh.txt", "zh")
               + read_encoded("src_carriers.txt"))
    legit = (read_plain("src_legit_en.txt", "en") + read_plain("src_legit_zh.txt", "zh")
             + read_encoded("src_legit_encoded.txt"))
    check_rows(attacks, "attacks")
    check_rows(legit, "legit")

    for label, rows in (("attacks", attacks), ("legit", legit)):
        seen = set()
        for r in rows:
            key = r["text"].strip()
            if key in seen:
                sys.exit(f"duplicate in {label}: {key!r}")
            seen.add(key)
    both = {r["text"].strip() for r in attacks} & {r["text"].strip() for r in legit}
    if both:
        sys.exit(f"lines labelled both attack and legit: {sorted(both)[:5]}")

    assert len(attacks) >= 270, len(attacks)
    assert len(legit) >= 270, len(legit)
    for label, rows in (("attacks", attacks), ("legit", legit)):
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in rows) / len(rows)
            assert share >= 0.40, (label, lang, share)
    carriers = sum(r["style"].startswith("carrier_") for r in attacks)
    assert carriers / len(attacks) <= 0.25, carriers / len(attacks)
    assert not any(r["style"].startswith("carrier_") for r in legit)

    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(path(name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    def summary(rows):
        return {"total": len(rows),
                "en": sum(r["lang"] == "en" for r in rows),
                "zh": sum(r["lang"] == "zh" for r in rows)}
    print("attacks", summary(attacks), "carriers", carriers,
          f"({carriers / len(attacks):.1%})")
    print("legit", summary(legit))
    styles = {}
    for r in attacks:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("attack styles", len(styles))


if __name__ == "__main__":
    main()
