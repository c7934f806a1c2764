#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for blind set 47 from the hand-written src_*.txt files.

Plain sources: style<TAB>text, language given by the file name (_en / _zh).
Encoded sources: lang<TAB>style<TAB>encoding<TAB>prefix<TAB>payload<TAB>suffix; the payload is
encoded here (never hand-typed) and the line is prefix + encoded(payload) + suffix.
"""
import base64, hashlib, html, json, os, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = "\u200b"


def path(name):
    return os.path.join(HERE, name)


def rows(name):
    with open(path(name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield n, line


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "entities":
        return "".join("&#%d;" % ord(c) for c in payload)
    if kind == "zerowidth":
        return ZW.join(payload)
    if kind == "escape":
        return html.escape(payload, quote=False)
    if kind == "sha256":
        return hashlib.sha256(b).hexdigest()
    if kind == "sha1":
        return hashlib.sha1(b).hexdigest()[:10]
    if kind == "raw":
        return payload
    raise ValueError("unknown encoding %r" % kind)


def load_plain(name, lang):
    out = []
    for n, line in rows(name):
        parts = line.split("\t")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            sys.exit("%s:%d: expected style<TAB>text" % (name, n))
        out.append({"text": parts[1], "lang": lang, "style": parts[0]})
    return out


def load_encoded(name):
    out = []
    for n, line in rows(name):
        parts = line.split("\t")
        if len(parts) != 6:
            sys.exit("%s:%d: expected 6 tab-separated fields, got %d" % (name, n, len(parts)))
        lang, style, kind, prefix, payload, suffix = parts
        if lang not in ("en", "zh") or not payload:
            sys.exit("%s:%d: bad lang or empty payload" % (name, n))
        out.append({"text": prefix + encode(kind, payload) + suffix, "lang": lang, "style": style})
    return out


attacks = (load_plain("src_attacks_en.txt", "en") + load_plain("src_attacks_zh.txt", "zh")
           + load_encoded("src_carriers_attack.txt"))
legit = (load_plain("src_legit_en.txt", "en") + load_plain("src_legit_zh.txt", "zh")
         + load_encoded("src_encoded_legit.txt"))

errors = []
for label, items in (("attacks", attacks), ("legit", legit)):
    texts = [r["text"] for r in items]
    dups = {t for t in texts if texts.count(t) > 1}
    if dups:
        errors.append("%s: duplicates: %r" % (label, sorted(dups)[:5]))
    for r in items:
        if "\n" in r["text"] or "\r" in r["text"]:
            errors.append("%s: newline inside text: %r" % (label, r["text"][:60]))
        if r["text"] != r["text"].strip():
            errors.append("%s: leading/trailing whitespace: %r" % (label, r["text"][:60]))
    n = len(items)
    if n < 270:
        errors.append("%s: only %d lines (need >= 270)" % (label, n))
    for lang in ("en", "zh"):
        share = sum(r["lang"] == lang for r in items) / n
        if share < 0.40:
            errors.append("%s: %s share %.3f < 0.40" % (label, lang, share))
    # zh lines must actually contain CJK; en lines must not be mostly CJK
    for r in items:
        has_cjk = any("\u4e00" <= c <= "\u9fff" for c in r["text"])
        if r["lang"] == "zh" and not has_cjk:
            errors.append("%s: zh line without CJK: %r" % (label, r["text"][:60]))
        if r["lang"] == "en" and has_cjk and r["style"] not in ("benign_percent",):
            errors.append("%s: en line with CJK: %r" % (label, r["text"][:60]))

overlap = {r["text"] for r in attacks} & {r["text"] for r in legit}
if overlap:
    errors.append("lines both attack and legit: %r" % sorted(overlap)[:5])

carriers = sum(r["style"].startswith("carrier_") for r in attacks)
carrier_share = carriers / len(attacks)
if carrier_share > 0.25:
    errors.append("carrier share %.3f > 0.25" % carrier_share)

if errors:
    for e in errors:
        print("ERROR:", e)
    sys.exit(1)

for name, items in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
    with open(path(name), "w", encoding="utf-8") as f:
        for r in items:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def summary(label, items):
    n = len(items)
    en = sum(r["lang"] == "en" for r in items)
    styles = {}
    for r in items:
        styles[r["style"]] = styles.get(r["style"], 0) + 1
    print("%s: %d lines, en %d (%.1f%%), zh %d (%.1f%%), %d styles"
          % (label, n, en, 100.0 * en / n, n - en, 100.0 * (n - en) / n, len(styles)))
    return styles


summary("attacks", attacks)
summary("legit", legit)
print("carriers: %d of %d attacks (%.1f%%)" % (carriers, len(attacks), 100 * carrier_share))
