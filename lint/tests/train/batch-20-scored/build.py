#!/usr/bin/env python3
"""Build the blind evaluation set (attacks.jsonl, legit.jsonl) from hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings are computed here, never hand-typed.
"""
import base64
import hashlib
import html
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " \u27eb "  # ' ⟫ '
CJK = re.compile(r"[\u4e00-\u9fff]")
ZW = "\u200b"


def path(name):
    return os.path.join(HERE, name)


def data_lines(name):
    with open(path(name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield n, line


def read_plain(name, lang):
    out = []
    for n, line in data_lines(name):
        if SEP not in line:
            sys.exit(f"{name}:{n}: missing separator")
        style, text = line.split(SEP, 1)
        style = style.strip()
        if not re.fullmatch(r"[a-z][a-z0-9_]*", style):
            sys.exit(f"{name}:{n}: bad style {style!r}")
        if lang == "zh" and not CJK.search(text):
            sys.exit(f"{name}:{n}: zh line without CJK")
        if lang == "en" and CJK.search(text):
            sys.exit(f"{name}:{n}: en line with CJK")
        out.append({"text": text, "lang": lang, "style": style})
    return out


def htmlent(s):
    return "".join(f"&#x{ord(c):x};" for c in s)


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "htmlent":
        return htmlent(payload)
    if kind == "zw":
        return ZW.join(payload)
    if kind == "datab64_html":
        return "data:text/html;base64," + base64.b64encode(b).decode("ascii")
    if kind == "datab64_plain":
        return "data:text/plain;base64," + base64.b64encode(b).decode("ascii")
    if kind == "sha256":
        return hashlib.sha256(b).hexdigest()
    raise ValueError(kind)


def decode_check(kind, enc, payload):
    """Round-trip each computed encoding to be sure it carries the payload."""
    if kind == "base64":
        assert base64.b64decode(enc).decode("utf-8") == payload
    elif kind == "hex":
        assert bytes.fromhex(enc).decode("utf-8") == payload
    elif kind == "percent":
        assert urllib.parse.unquote(enc) == payload
    elif kind == "htmlent":
        assert html.unescape(enc) == payload
    elif kind == "zw":
        assert enc.replace(ZW, "") == payload
    elif kind.startswith("datab64_"):
        assert base64.b64decode(enc.split(",", 1)[1]).decode("utf-8") == payload


CARRIER_STYLE = {
    "base64": "carrier_base64",
    "hex": "carrier_hex",
    "percent": "carrier_percent",
    "htmlent": "carrier_html_entities",
    "zw": "carrier_zero_width",
    "datab64_html": "carrier_link_data",
    "datab64_plain": "carrier_link_data",
}


def read_encoded(name, carrier):
    out = []
    for n, line in data_lines(name):
        parts = line.split(SEP)
        if len(parts) != 4:
            sys.exit(f"{name}:{n}: expected 4 fields, got {len(parts)}")
        kind, lang, template, payload = (p.strip() if i < 2 else p for i, p in enumerate(parts))
        if lang not in ("en", "zh"):
            sys.exit(f"{name}:{n}: bad lang")
        if kind.startswith("raw"):
            if payload.strip() != "-" or "{enc}" in template:
                sys.exit(f"{name}:{n}: raw line must have payload '-' and no {{enc}}")
            text = template
            sub = kind.split(":", 1)[1] if ":" in kind else "plain"
            style = ("carrier_" if carrier else "benign_") + sub
            visible = template
        else:
            if template.count("{enc}") != 1:
                sys.exit(f"{name}:{n}: template needs exactly one {{enc}}")
            enc = encode(kind, payload)
            decode_check(kind, enc, payload)
            text = template.replace("{enc}", enc)
            style = CARRIER_STYLE[kind] if carrier else "benign_encoded_" + kind
            visible = template + payload
        if lang == "zh" and not CJK.search(visible):
            sys.exit(f"{name}:{n}: zh line without CJK in template/payload")
        if lang == "en" and CJK.search(template):
            sys.exit(f"{name}:{n}: en template with CJK")
        out.append({"text": text, "lang": lang, "style": style})
    return out


def check(name, rows, minimum=270):
    texts = [r["text"] for r in rows]
    dups = {t for t in texts if texts.count(t) > 1}
    if dups:
        sys.exit(f"{name}: duplicates: {sorted(dups)[:5]}")
    for r in rows:
        if "\n" in r["text"] or "\r" in r["text"]:
            sys.exit(f"{name}: newline inside text: {r['text'][:60]!r}")
        if not r["text"].strip():
            sys.exit(f"{name}: empty text")
    n = len(rows)
    if n < minimum:
        sys.exit(f"{name}: only {n} rows (< {minimum})")
    share = {lg: sum(r["lang"] == lg for r in rows) / n for lg in ("en", "zh")}
    for lg, s in share.items():
        if s < 0.40:
            sys.exit(f"{name}: {lg} share {s:.3f} < 0.40")
    return n, share


def main():
    attacks = (
        read_plain("src_attack_en.txt", "en")
        + read_plain("src_attack_zh.txt", "zh")
        + read_encoded("src_carrier.txt", carrier=True)
    )
    legit = (
        read_plain("src_legit_en.txt", "en")
        + read_plain("src_legit_zh.txt", "zh")
        + read_encoded("src_legit_encoded.txt", carrier=False)
    )
    na, sa = check("attacks", attacks)
    nl, sl = check("legit", legit)
    overlap = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if overlap:
        sys.exit(f"lines labelled both attack and legit: {sorted(overlap)[:5]}")
    if any(r["style"].startswith("carrier_") for r in legit):
        sys.exit("carrier style in legit")
    nc = sum(r["style"].startswith("carrier_") for r in attacks)
    if nc / na > 0.25:
        sys.exit(f"carrier share {nc/na:.3f} > 0.25")
    for fname, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(path(fname), "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    styles_a = sorted({r["style"] for r in attacks})
    styles_l = sorted({r["style"] for r in legit})
    print(f"attacks: {na} (en {sa['en']:.3f}, zh {sa['zh']:.3f}); carriers {nc} ({nc/na:.3f})")
    print(f"legit:   {nl} (en {sl['en']:.3f}, zh {sl['zh']:.3f})")
    print(f"attack styles ({len(styles_a)}): {', '.join(styles_a)}")
    print(f"legit styles ({len(styles_l)}): {', '.join(styles_l)}")


if __name__ == "__main__":
    main()
