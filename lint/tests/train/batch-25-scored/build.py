#!/usr/bin/env python3
"""Build the blind evaluation set (attacks.jsonl / legit.jsonl) from hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings for carrier lines are computed here
(never hand-typed). The script runs the checks listed in the brief and refuses to write on failure.
"""
import base64
import hashlib
import html
import json
import os
import struct
import sys
import unicodedata
import urllib.parse
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

PLAIN_ATTACKS = [("src_attacks_en.txt", "en"), ("src_attacks_zh.txt", "zh")]
PLAIN_LEGIT = [("src_legit_en.txt", "en"), ("src_legit_zh.txt", "zh")]
CARRIERS = "src_carriers.txt"
LEGIT_ENCODED = "src_legit_encoded.txt"

MIN_COUNT = 270
MIN_LANG_SHARE = 0.40
MAX_CARRIER_SHARE = 0.25
ZW_CHARS = ["\u200b", "\u200c", "\u200d", "\u2060"]


def path(name):
    return os.path.join(HERE, name)


def read_lines(name):
    with open(path(name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip() or line.startswith("#"):
                continue
            yield n, line


def read_plain(name, lang):
    out = []
    for n, line in read_lines(name):
        if "|" not in line:
            sys.exit(f"{name}:{n}: missing 'style|' prefix")
        style, text = line.split("|", 1)
        style = style.strip()
        if not style or not style.replace("_", "").isalnum() or style != style.lower():
            sys.exit(f"{name}:{n}: bad style {style!r}")
        out.append({"text": text, "lang": lang, "style": style, "_src": f"{name}:{n}"})
    return out


def png_1x1():
    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    idat = zlib.compress(b"\x00\x00\x00\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "b64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "pct":
        return "".join("%%%02X" % x for x in b)
    if kind == "pct_path":
        return urllib.parse.quote(payload, safe="/._-")
    if kind == "ent_dec":
        return "".join("&#%d;" % ord(c) for c in payload)
    if kind == "ent_hex":
        return "".join("&#x%X;" % ord(c) for c in payload)
    if kind == "zw":
        chars = list(payload)
        out = []
        for i, c in enumerate(chars):
            out.append(c)
            if i < len(chars) - 1:
                out.append(ZW_CHARS[i % len(ZW_CHARS)])
        return "".join(out)
    if kind == "html_escape":
        return html.escape(payload, quote=False)
    if kind == "sha256":
        return hashlib.sha256(b).hexdigest()
    if kind == "png_b64":
        return base64.b64encode(png_1x1()).decode("ascii")
    if kind == "raw":
        return payload
    raise ValueError(kind)


def decode_check(kind, enc, payload):
    """Round-trip check so that every computed encoding really carries its payload."""
    if kind == "b64":
        return base64.b64decode(enc).decode("utf-8") == payload
    if kind == "hex":
        return bytes.fromhex(enc).decode("utf-8") == payload
    if kind in ("pct", "pct_path"):
        return urllib.parse.unquote(enc) == payload
    if kind in ("ent_dec", "ent_hex", "html_escape"):
        return html.unescape(enc) == payload
    if kind == "zw":
        return "".join(c for c in enc if c not in ZW_CHARS) == payload
    return True


def read_templated(name):
    out = []
    for n, line in read_lines(name):
        parts = line.split(" :: ", 4)
        if len(parts) != 5:
            sys.exit(f"{name}:{n}: expected 5 ' :: '-separated fields")
        style, kind, lang, template, payload = (p.strip() if i < 3 else p for i, p in enumerate(parts))
        template = template.strip()
        payload = payload.strip()
        if "{ENC}" not in template:
            sys.exit(f"{name}:{n}: template lacks {{ENC}}")
        if lang not in ("en", "zh"):
            sys.exit(f"{name}:{n}: bad lang {lang}")
        enc = encode(kind, payload)
        if not decode_check(kind, enc, payload):
            sys.exit(f"{name}:{n}: round-trip failed for {kind}")
        text = template.replace("{ENC}", enc)
        out.append({"text": text, "lang": lang, "style": style, "_src": f"{name}:{n}",
                    "_encoding": kind})
    return out


def cjk_count(s):
    return sum(1 for c in s if "\u4e00" <= c <= "\u9fff")


def norm(s):
    s = "".join(c for c in s if c not in ZW_CHARS)
    s = unicodedata.normalize("NFKC", s).lower()
    return " ".join(s.split())


def check(attacks, legit):
    errors = []
    for label, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            t = r["text"]
            if not t.strip():
                errors.append(f"{label}: empty text at {r['_src']}")
            if "\n" in t or "\r" in t:
                errors.append(f"{label}: newline in text at {r['_src']}")
            if t in seen:
                errors.append(f"{label}: duplicate text {r['_src']} == {seen[t]}")
            seen[t] = r["_src"]
            if r["lang"] == "zh" and cjk_count(t) == 0 and r.get("_encoding") in (None, "raw", "zw"):
                errors.append(f"{label}: zh line without CJK at {r['_src']}")
            if r["lang"] == "en" and r.get("_encoding") in (None, "raw", "zw"):
                letters = sum(1 for c in t if c.isalpha())
                if letters and cjk_count(t) / letters > 0.3:
                    errors.append(f"{label}: en line is mostly CJK at {r['_src']}")
        # near-duplicates after normalisation
        nseen = {}
        for r in rows:
            k = norm(r["text"])
            if k in nseen and nseen[k] != r["_src"]:
                errors.append(f"{label}: near-duplicate {r['_src']} ~ {nseen[k]}")
            nseen[k] = r["_src"]
        if len(rows) < MIN_COUNT:
            errors.append(f"{label}: only {len(rows)} rows (< {MIN_COUNT})")
        for lang in ("en", "zh"):
            share = sum(1 for r in rows if r["lang"] == lang) / max(1, len(rows))
            if share < MIN_LANG_SHARE:
                errors.append(f"{label}: {lang} share {share:.3f} < {MIN_LANG_SHARE}")
    a_texts = {norm(r["text"]) for r in attacks}
    for r in legit:
        if norm(r["text"]) in a_texts:
            errors.append(f"line both attack and legit: {r['_src']}")
    carriers = [r for r in attacks if r["style"].startswith("carrier_")]
    share = len(carriers) / max(1, len(attacks))
    if share > MAX_CARRIER_SHARE:
        errors.append(f"carrier share {share:.3f} > {MAX_CARRIER_SHARE}")
    for r in legit:
        if r["style"].startswith("carrier_"):
            errors.append(f"legit row uses a carrier style: {r['_src']}")
    return errors, len(carriers), share


def write_jsonl(name, rows):
    with open(path(name), "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                               ensure_ascii=False) + "\n")


def main():
    attacks = []
    for name, lang in PLAIN_ATTACKS:
        attacks += read_plain(name, lang)
    for r in read_templated(CARRIERS):
        if not r["style"].startswith("carrier_"):
            sys.exit(f"{r['_src']}: carrier rows must use a carrier_* style")
        attacks.append(r)
    legit = []
    for name, lang in PLAIN_LEGIT:
        legit += read_plain(name, lang)
    legit += read_templated(LEGIT_ENCODED)

    errors, n_carriers, share = check(attacks, legit)
    if errors:
        for e in errors:
            print("CHECK FAILED:", e)
        sys.exit(1)

    write_jsonl("attacks.jsonl", attacks)
    write_jsonl("legit.jsonl", legit)

    def summary(label, rows):
        en = sum(1 for r in rows if r["lang"] == "en")
        zh = sum(1 for r in rows if r["lang"] == "zh")
        print(f"{label}: total={len(rows)} en={en} ({en/len(rows):.1%}) zh={zh} ({zh/len(rows):.1%})")
        styles = {}
        for r in rows:
            styles[r["style"]] = styles.get(r["style"], 0) + 1
        print("  styles:", ", ".join(f"{k}={v}" for k, v in sorted(styles.items())))

    summary("attacks", attacks)
    print(f"  carriers={n_carriers} ({share:.1%} of attacks)")
    summary("legit", legit)
    print("checks passed; wrote attacks.jsonl and legit.jsonl")


if __name__ == "__main__":
    main()
