#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files next to this script.

Carrier encodings (base64, hex, percent, HTML entities, zero-width interleaving, data: URLs)
are computed here, never typed by hand.
"""
import base64
import json
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " ¦ "
ZWSP = "\u200b"


def rows(name, nfields):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(SEP, nfields - 1)
            if len(parts) != nfields:
                sys.exit(f"{name}:{ln}: expected {nfields} fields: {line!r}")
            out.append([p.strip() if i < nfields - 1 else p for i, p in enumerate(parts)])
    return out


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entity":
        return "".join(f"&#{ord(c)};" if i % 2 == 0 else f"&#x{ord(c):x};" for i, c in enumerate(payload))
    if kind == "zero_width":
        return ZWSP.join(payload)
    if kind in ("html_comment", "md_js", "md_file"):
        return payload  # hidden by placement (comment) or by link scheme, not by encoding
    if kind == "md_data":
        return base64.b64encode(b).decode("ascii")
    sys.exit(f"unknown carrier kind {kind}")


def has_cjk(s):
    return any("\u4e00" <= c <= "\u9fff" for c in s)


def main():
    attacks = []
    for style, lang, text in rows("src_attacks.txt", 3):
        attacks.append({"text": text, "lang": lang, "style": style})
    n_plain_attacks = len(attacks)
    for kind, lang, template, payload in rows("src_carriers.txt", 4):
        if template.count("{}") != 1:
            sys.exit(f"carrier template needs exactly one {{}}: {template!r}")
        text = template.replace("{}", encode(kind, payload))
        attacks.append({"text": text, "lang": lang, "style": "carrier_" + kind})
    legit = [{"text": t, "lang": l, "style": s} for s, l, t in rows("src_legit.txt", 3)]

    errors = []
    for name, items in (("attacks", attacks), ("legit", legit)):
        texts = [r["text"] for r in items]
        dups = {t for t in texts if texts.count(t) > 1}
        if dups:
            errors.append(f"{name}: duplicates {sorted(dups)[:5]}")
        for r in items:
            if "\n" in r["text"] or "\r" in r["text"]:
                errors.append(f"{name}: newline in {r['text'][:60]!r}")
            if r["lang"] not in ("en", "zh"):
                errors.append(f"{name}: bad lang {r['lang']}")
            if not r["style"] or not all(c.islower() or c.isdigit() or c == "_" for c in r["style"]):
                errors.append(f"{name}: bad style {r['style']!r}")
            if r["lang"] == "zh" and not r["style"].startswith("carrier_") and not has_cjk(r["text"]):
                errors.append(f"{name}: zh line without CJK: {r['text'][:60]!r}")
        if len(items) < 270:
            errors.append(f"{name}: only {len(items)} lines (< 270)")
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in items) / len(items)
            if share < 0.40:
                errors.append(f"{name}: {lang} share {share:.3f} < 0.40")
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    if both:
        errors.append(f"lines in both sets: {sorted(both)[:5]}")
    n_carrier = sum(r["style"].startswith("carrier_") for r in attacks)
    if n_carrier / len(attacks) > 0.25:
        errors.append(f"carrier share {n_carrier/len(attacks):.3f} > 0.25")
    # sanity: every encoded carrier must decode back to its payload
    for kind, lang, template, payload in rows("src_carriers.txt", 4):
        enc = encode(kind, payload)
        if kind in ("base64", "md_data"):
            assert base64.b64decode(enc).decode("utf-8") == payload
        elif kind == "hex":
            assert bytes.fromhex(enc).decode("utf-8") == payload
        elif kind == "percent":
            assert urllib.parse.unquote(enc) == payload
        elif kind == "html_entity":
            import html
            assert html.unescape(enc) == payload
        elif kind == "zero_width":
            assert enc.replace(ZWSP, "") == payload
    if errors:
        for e in errors:
            print("ERROR:", e)
        sys.exit(1)

    for name, items in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in items:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")

    def summary(items):
        en = sum(r["lang"] == "en" for r in items)
        return f"{len(items)} (en {en} = {en/len(items):.1%}, zh {len(items)-en} = {(len(items)-en)/len(items):.1%})"

    print("attacks:", summary(attacks), f"plain {n_plain_attacks}, carriers {n_carrier} = {n_carrier/len(attacks):.1%}")
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
