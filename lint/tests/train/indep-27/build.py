#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from hand-written src_*.txt files.

Reads sources relative to this script's directory, computes carrier encodings,
runs consistency checks and writes the two jsonl files next to this script.
"""
import base64
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
ZW = "\u200b"


def read_lines(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield ln, line


def plain(name, lang):
    out = []
    for ln, line in read_lines(name):
        parts = line.split("\t")
        if len(parts) != 2:
            sys.exit(f"{name}:{ln}: expected 2 tab-separated fields, got {len(parts)}")
        style, text = parts
        out.append({"text": text.strip(), "lang": lang, "style": style.strip()})
    return out


def encode(enc, payload):
    b = payload.encode("utf-8")
    if enc == "base64":
        return base64.b64encode(b).decode("ascii")
    if enc == "hex":
        return b.hex()
    if enc == "percent":
        return urllib.parse.quote(payload, safe="")
    if enc == "html_entities":
        return "".join(f"&#{ord(c)};" for c in payload)
    if enc == "zwsp":
        return ZW.join(payload)
    if enc == "html_comment":
        return f"<!-- {payload} -->"
    if enc in ("md_js", "md_data", "md_file", "none"):
        return payload
    sys.exit(f"unknown encoding {enc}")


def carriers(name):
    out = []
    for ln, line in read_lines(name):
        parts = line.split("\t")
        if len(parts) != 6:
            sys.exit(f"{name}:{ln}: expected 6 tab-separated fields, got {len(parts)}")
        style, lang, enc, prefix, payload, suffix = parts
        if enc == "md_js":
            assert payload.startswith("javascript:"), (name, ln)
        if enc == "md_data":
            assert payload.startswith("data:"), (name, ln)
        if enc == "md_file":
            assert payload.startswith("file:"), (name, ln)
        text = prefix + encode(enc, payload) + suffix
        out.append({"text": text.strip(), "lang": lang, "style": style})
    return out


def check(rows, kind):
    for r in rows:
        t = r["text"]
        assert t, (kind, r)
        assert "\n" not in t and "\r" not in t, (kind, t[:60])
        assert r["lang"] in ("en", "zh"), r
        assert STYLE_RE.match(r["style"]), r["style"]
        if r["lang"] == "zh":
            assert CJK.search(t), ("zh line without CJK", t[:60])


def main():
    attacks = (plain("src_attack_en.txt", "en") + plain("src_attack_zh.txt", "zh")
               + carriers("src_carrier_attack.txt"))
    legit = (plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh")
             + carriers("src_carrier_legit.txt"))
    check(attacks, "attack")
    check(legit, "legit")

    # duplicates
    for name, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            if r["text"] in seen:
                sys.exit(f"duplicate in {name}: {r['text'][:80]}")
            seen[r["text"]] = 1
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if both:
        sys.exit(f"line in both sets: {sorted(both)[0][:80]}")

    # counts and shares
    assert len(attacks) >= 270, len(attacks)
    assert len(legit) >= 270, len(legit)
    for name, rows in (("attacks", attacks), ("legit", legit)):
        n = len(rows)
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in rows) / n
            assert share >= 0.40, (name, lang, share)
    n_car = sum(r["style"].startswith("carrier_") for r in attacks)
    car_share = n_car / len(attacks)
    assert car_share <= 0.25, car_share
    assert not any(r["style"].startswith("carrier_") for r in legit)

    for fname, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, fname), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    def summary(rows):
        en = sum(r["lang"] == "en" for r in rows)
        return f"{len(rows)} (en {en}, zh {len(rows) - en})"
    print("attacks:", summary(attacks), f"carriers {n_car} ({car_share:.1%})")
    print("legit:  ", summary(legit))
    styles = {}
    for r in attacks:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("attack styles:", dict(sorted(styles.items())))
    styles = {}
    for r in legit:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("legit styles:", dict(sorted(styles.items())))


if __name__ == "__main__":
    main()
