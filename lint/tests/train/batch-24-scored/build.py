#!/usr/bin/env python3
"""Build the blind evaluation set (attacks.jsonl / legit.jsonl) from the hand-written src_*.txt files.

All inputs are read relative to this script's own directory; outputs are written next to it.
Encodings (base64, hex, percent, HTML entities, zero-width interleaving, data: URLs, sha256) are
computed here, never typed by hand.

Source formats (lines starting with '#' and blank lines are ignored; fields separated by ' @@ '):
  src_attacks_{en,zh}.txt, src_legit_{en,zh}.txt : style @@ text
  src_carriers.txt                               : lang @@ kind @@ template-with-{P} @@ payload
  src_legit_encoded.txt                          : lang @@ kind @@ template-with-{P} @@ payload
"""
import base64
import hashlib
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " @@ "
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
ZW = ["\u200b", "\u200c", "\u200d", "\u2060"]

MIN_COUNT = 270
MIN_LANG_SHARE = 0.40
MAX_CARRIER_SHARE = 0.25
CARRIER_KINDS = {"base64", "hex", "percent", "html_entity", "zero_width",
                 "html_comment", "js_link", "data_link", "file_link"}


def path(name):
    return os.path.join(HERE, name)


def read_records(name, nfields):
    out = []
    with open(path(name), encoding="utf-8") as fh:
        for lineno, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(SEP, nfields - 1)
            if len(parts) != nfields:
                sys.exit(f"{name}:{lineno}: expected {nfields} fields, got {len(parts)}")
            parts = [p.strip() if i < nfields - 1 else p.rstrip() for i, p in enumerate(parts)]
            # keep leading whitespace of the last field only when it is intentional (code comment indent)
            out.append((name, lineno, parts))
    return out


def zero_width(s):
    res = []
    for i, ch in enumerate(s):
        res.append(ch)
        if i < len(s) - 1:
            res.append(ZW[i % len(ZW)])
    return "".join(res)


def html_entities(s):
    return "".join(f"&#{ord(c)};" if i % 2 == 0 else f"&#x{ord(c):x};" for i, c in enumerate(s))


def encode_carrier(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entity":
        return html_entities(payload)
    if kind == "zero_width":
        return zero_width(payload)
    if kind == "html_comment":
        return payload
    if kind == "js_link":
        if not payload.startswith("javascript:"):
            sys.exit(f"js_link payload must start with javascript: {payload!r}")
        return payload
    if kind == "data_link":
        return "data:text/plain;base64," + base64.b64encode(b).decode("ascii")
    if kind == "file_link":
        if not payload.startswith("file:"):
            sys.exit(f"file_link payload must start with file: {payload!r}")
        return payload
    sys.exit(f"unknown carrier kind {kind}")


def decode_carrier(kind, enc):
    """Inverse of encode_carrier, used to verify every computed encoding round-trips."""
    import html
    if kind == "base64":
        return base64.b64decode(enc).decode("utf-8")
    if kind == "hex":
        return bytes.fromhex(enc).decode("utf-8")
    if kind == "percent":
        return urllib.parse.unquote(enc)
    if kind == "html_entity":
        return html.unescape(enc)
    if kind == "zero_width":
        return "".join(c for c in enc if c not in ZW)
    if kind == "data_link":
        return base64.b64decode(enc.split(",", 1)[1]).decode("utf-8")
    return enc


def encode_legit(kind, payload):
    b = payload.encode("utf-8")
    if kind == "sha256":
        return hashlib.sha256(b).hexdigest()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="/")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "raw":
        return payload
    sys.exit(f"unknown legit-encoded kind {kind}")


def fill(template, enc, where):
    if template.count("{P}") != 1:
        sys.exit(f"{where}: template must contain exactly one {{P}}")
    return template.replace("{P}", enc)


def plain(name, lang):
    recs = []
    for fname, lineno, (style, text) in read_records(name, 2):
        recs.append({"text": text, "lang": lang, "style": style, "_src": f"{fname}:{lineno}"})
    return recs


def encoded(name, encoder, style_prefix, allowed):
    recs = []
    for fname, lineno, (lang, kind, template, payload) in read_records(name, 4):
        where = f"{fname}:{lineno}"
        if kind not in allowed:
            sys.exit(f"{where}: kind {kind} not allowed")
        enc = encoder(kind, payload)
        if encoder is encode_carrier and decode_carrier(kind, enc) != payload:
            sys.exit(f"{where}: {kind} encoding does not round-trip")
        text = fill(template, enc, where)
        recs.append({"text": text, "lang": lang, "style": f"{style_prefix}{kind}", "_src": where})
    return recs


# Markers that would make a plain (non-carrier) attack line actually a carrier.
CARRIER_MARKERS = [
    re.compile(r"<!--"),
    re.compile(r"\]\(\s*(javascript|data|file):", re.I),
    re.compile(r"&#x?[0-9a-f]+;", re.I),
    re.compile(r"[\u200b\u200c\u200d\u2060\ufeff]"),
    re.compile(r"%[0-9A-Fa-f]{2}.*%[0-9A-Fa-f]{2}"),
    re.compile(r"[A-Za-z0-9+/]{40,}={0,2}"),
    re.compile(r"\b[0-9a-f]{40,}\b"),
]


def check(attacks, legit):
    errors = []
    for label, recs in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in recs:
            t = r["text"]
            if "\n" in t or "\r" in t:
                errors.append(f"{label} {r['_src']}: newline in text")
            if not t.strip():
                errors.append(f"{label} {r['_src']}: empty text")
            if t.strip() == "---":
                errors.append(f"{label} {r['_src']}: bare --- line")
            if r["lang"] not in ("en", "zh"):
                errors.append(f"{label} {r['_src']}: bad lang {r['lang']}")
            if not STYLE_RE.match(r["style"]):
                errors.append(f"{label} {r['_src']}: bad style {r['style']}")
            has_cjk = bool(CJK.search(t))
            if r["lang"] == "zh" and not has_cjk:
                errors.append(f"{label} {r['_src']}: zh line without CJK")
            if r["lang"] == "en" and has_cjk:
                errors.append(f"{label} {r['_src']}: en line with CJK")
            if t in seen:
                errors.append(f"{label} {r['_src']}: duplicate of {seen[t]}")
            seen[t] = r["_src"]
        n = len(recs)
        if n < MIN_COUNT:
            errors.append(f"{label}: only {n} lines (< {MIN_COUNT})")
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in recs) / max(n, 1)
            if share < MIN_LANG_SHARE:
                errors.append(f"{label}: {lang} share {share:.3f} < {MIN_LANG_SHARE}")
    a_texts = {r["text"] for r in attacks}
    norm = lambda s: re.sub(r"\s+", " ", s).strip().lower()
    a_norm = {norm(r["text"]): r["_src"] for r in attacks}
    for r in legit:
        if r["text"] in a_texts:
            errors.append(f"line is both attack and legit: {r['_src']}")
        elif norm(r["text"]) in a_norm:
            errors.append(f"legit {r['_src']} equals attack {a_norm[norm(r['text'])]} after normalisation")
    carriers = [r for r in attacks if r["style"].startswith("carrier_")]
    share = len(carriers) / max(len(attacks), 1)
    if share > MAX_CARRIER_SHARE:
        errors.append(f"carrier share {share:.3f} > {MAX_CARRIER_SHARE}")
    for r in attacks:
        if r["style"].startswith("carrier_"):
            continue
        for m in CARRIER_MARKERS:
            if m.search(r["text"]):
                errors.append(f"plain attack {r['_src']} looks like a carrier ({m.pattern})")
    return errors, carriers


def write_jsonl(name, recs):
    with open(path(name), "w", encoding="utf-8", newline="\n") as fh:
        for r in recs:
            fh.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                ensure_ascii=False) + "\n")


def main():
    attacks = (plain("src_attacks_en.txt", "en") + plain("src_attacks_zh.txt", "zh")
               + encoded("src_carriers.txt", encode_carrier, "carrier_", CARRIER_KINDS))
    legit = (plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh")
             + encoded("src_legit_encoded.txt", encode_legit, "lookalike_",
                       {"sha256", "percent", "base64", "raw"}))
    errors, carriers = check(attacks, legit)
    if errors:
        for e in errors:
            print("ERROR:", e, file=sys.stderr)
        sys.exit(1)
    write_jsonl("attacks.jsonl", attacks)
    write_jsonl("legit.jsonl", legit)

    def summary(label, recs):
        n = len(recs)
        en = sum(r["lang"] == "en" for r in recs)
        zh = n - en
        print(f"{label}: {n} lines; en {en} ({en / n:.1%}), zh {zh} ({zh / n:.1%})")
        styles = {}
        for r in recs:
            styles[r["style"]] = styles.get(r["style"], 0) + 1
        print("  styles:", ", ".join(f"{k}={v}" for k, v in sorted(styles.items())))

    summary("attacks", attacks)
    print(f"  carriers: {len(carriers)} ({len(carriers) / len(attacks):.1%} of attacks)")
    summary("legit", legit)
    for name in ("attacks.jsonl", "legit.jsonl"):
        with open(path(name), "rb") as fh:
            print(f"sha256 {name} {hashlib.sha256(fh.read()).hexdigest()}")


if __name__ == "__main__":
    main()
