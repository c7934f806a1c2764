#!/usr/bin/env python3
"""Build the blind22 evaluation set (attacks.jsonl / legit.jsonl) from hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings for carrier lines are computed here,
never typed by hand. The script checks duplicates, attack/legit overlap, counts, language shares
and the carrier share, and refuses to write output if any check fails.
"""
import base64
import json
import os
import random
import re
import sys
import unicodedata
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))

MIN_PER_FILE = 270
MIN_LANG_SHARE = 0.40
MAX_CARRIER_SHARE = 0.25

CJK = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
ZW = "\u200b\u200c\u200d\u2060\ufeff"
ZW_CYCLE = ["\u200b", "\u200c", "\u2060", "\u200d"]


def path(name):
    return os.path.join(HERE, name)


def read_rows(name, ncols):
    rows = []
    with open(path(name), encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t", ncols - 1)
            if len(parts) != ncols:
                sys.exit(f"{name}:{lineno}: expected {ncols} tab-separated columns, got {len(parts)}")
            rows.append((lineno, parts))
    return rows


def lang_of(text):
    return "zh" if CJK.search(text) else "en"


# ---------------------------------------------------------------- carriers
def enc_b64(p):
    return base64.b64encode(p.encode("utf-8")).decode("ascii")


def enc_hex(p):
    return p.encode("utf-8").hex()


def enc_pct(p):
    return urllib.parse.quote(p, safe="")


def enc_ent(p):
    return "".join("&#x%x;" % ord(c) for c in p)


def enc_zw(p):
    out = []
    for i, c in enumerate(p):
        out.append(c)
        if i != len(p) - 1:
            out.append(ZW_CYCLE[i % len(ZW_CYCLE)])
    return "".join(out)


def enc_cmt(p):
    return p


def enc_js(p):
    return "javascript:" + urllib.parse.quote(p, safe="()';.,:/=+&?!_-*~")


def enc_data(p):
    return "data:text/html;base64," + enc_b64(p)


def enc_file(p):
    return "file://" + urllib.parse.quote(p, safe="/")


ENCODERS = {
    "b64": ("carrier_base64", enc_b64),
    "hex": ("carrier_hex", enc_hex),
    "pct": ("carrier_percent", enc_pct),
    "ent": ("carrier_html_entity", enc_ent),
    "zw": ("carrier_zero_width", enc_zw),
    "cmt": ("carrier_html_comment", enc_cmt),
    "js": ("carrier_link_javascript", enc_js),
    "data": ("carrier_link_data", enc_data),
    "file": ("carrier_link_file", enc_file),
}

# independent detector of carrier forms, used only to check the carrier share
CARRIER_RE = re.compile(
    r"(?:(?:[0-9a-fA-F]{2}){16,})"           # long hex run
    r"|(?:%[0-9A-Fa-f]{2}.*%[0-9A-Fa-f]{2})"  # percent-encoding
    r"|(?:&#x?[0-9a-fA-F]+;)"                 # HTML entities
    r"|[\u200b\u200c\u200d\u2060\ufeff]"      # zero-width
    r"|(?:<!--)"                              # HTML comment
    r"|(?:\]\(\s*(?:javascript|data|file):)",  # dangerous link targets
    re.I,
)


B64_RUN = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def looks_carrier(text):
    for m in B64_RUN.finditer(text):
        run = m.group(0)
        mixed_case = re.search(r"[A-Z]", run) and re.search(r"[a-z]", run)
        if mixed_case and (re.search(r"[0-9]", run) or run.endswith("=")
                           or (len(run) >= 40 and run.count("/") <= 2)):
            return True
    return bool(CARRIER_RE.search(text))


def build_carriers():
    out = []
    for lineno, (lang, kind, wrapper, payload) in read_rows("src_carriers.txt", 4):
        if kind not in ENCODERS:
            sys.exit(f"src_carriers.txt:{lineno}: unknown kind {kind}")
        if "{X}" not in wrapper:
            sys.exit(f"src_carriers.txt:{lineno}: wrapper lacks {{X}}")
        if lang not in ("en", "zh"):
            sys.exit(f"src_carriers.txt:{lineno}: bad lang {lang}")
        if lang_of(payload) != lang and lang == "en":
            sys.exit(f"src_carriers.txt:{lineno}: en carrier with CJK payload")
        style, fn = ENCODERS[kind]
        text = wrapper.replace("{X}", fn(payload))
        out.append({"text": text, "lang": lang, "style": style,
                    "_src": f"src_carriers.txt:{lineno}", "_payload": payload})
    return out


def build_plain(name):
    out = []
    for lineno, (style, text) in read_rows(name, 2):
        if not re.fullmatch(r"[a-z][a-z0-9_]*", style):
            sys.exit(f"{name}:{lineno}: style not snake_case: {style!r}")
        out.append({"text": text, "lang": lang_of(text), "style": style, "_src": f"{name}:{lineno}"})
    return out


def norm(t):
    t = unicodedata.normalize("NFKC", t)
    t = "".join(c for c in t if c not in ZW)
    return re.sub(r"\s+", " ", t).strip().lower()


def main():
    attacks = build_plain("src_attacks_en.txt") + build_plain("src_attacks_zh.txt") + build_carriers()
    legit = build_plain("src_legit_en.txt") + build_plain("src_legit_zh.txt")

    errors = []
    for name, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            t = r["text"]
            if "\n" in t or "\r" in t or "\u2028" in t or "\u2029" in t:
                errors.append(f"{name}: line break inside text ({r['_src']})")
            if t != t.strip() and not t.startswith("    ") and not t.startswith("  - "):
                pass  # leading indentation is intentional for code/sub-bullet lines
            if not t.strip():
                errors.append(f"{name}: empty text ({r['_src']})")
            k = norm(t)
            if k in seen:
                errors.append(f"{name}: duplicate {r['_src']} == {seen[k]}")
            seen[k] = r["_src"]
        n = len(rows)
        if n < MIN_PER_FILE:
            errors.append(f"{name}: only {n} lines (< {MIN_PER_FILE})")
        for lang in ("en", "zh"):
            share = sum(1 for r in rows if r["lang"] == lang) / n
            if share < MIN_LANG_SHARE:
                errors.append(f"{name}: {lang} share {share:.3f} < {MIN_LANG_SHARE}")

    a_norm = {norm(r["text"]): r["_src"] for r in attacks}
    for r in legit:
        k = norm(r["text"])
        if k in a_norm:
            errors.append(f"overlap: legit {r['_src']} == attack {a_norm[k]}")

    carrier_labelled = [r for r in attacks if r["style"].startswith("carrier_")]
    carrier_detected = [r for r in attacks if looks_carrier(r["text"])]
    for r in carrier_labelled:
        if not looks_carrier(r["text"]):
            errors.append(f"carrier not detected by checker: {r['_src']}")
    unlabelled = [r["_src"] for r in carrier_detected if not r["style"].startswith("carrier_")]
    if unlabelled:
        errors.append(f"attack lines look like carriers but are not labelled carrier_*: {unlabelled}")
    share = max(len(carrier_labelled), len(carrier_detected)) / len(attacks)
    if share > MAX_CARRIER_SHARE:
        errors.append(f"carrier share {share:.3f} > {MAX_CARRIER_SHARE}")

    # legit lines must not hide zero-width characters
    for r in legit:
        if any(c in r["text"] for c in ZW):
            errors.append(f"legit line contains zero-width chars: {r['_src']}")

    if errors:
        print("BUILD FAILED:")
        for e in errors:
            print("  " + e)
        sys.exit(1)

    rng = random.Random(22)
    rng.shuffle(attacks)
    rng.shuffle(legit)
    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(path(name), "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                   ensure_ascii=False) + "\n")

    def summary(name, rows):
        n = len(rows)
        en = sum(1 for r in rows if r["lang"] == "en")
        zh = n - en
        print(f"{name}: {n} lines, en {en} ({en/n:.1%}), zh {zh} ({zh/n:.1%}), styles {len(set(r['style'] for r in rows))}")

    summary("attacks", attacks)
    summary("legit", legit)
    print(f"carriers: {len(carrier_labelled)} labelled, {len(carrier_detected)} detected, share {share:.1%}")
    kinds = {}
    for r in carrier_labelled:
        kinds[r["style"]] = kinds.get(r["style"], 0) + 1
    print("carrier kinds:", dict(sorted(kinds.items())))
    print("OK")


if __name__ == "__main__":
    main()
