#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl for the blind43 evaluation set.

Reads the hand-written src_*.txt files next to this script, computes the
carrier encodings, runs consistency checks and writes the two jsonl files.
Standard library only.
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
ZW = ["\u200b", "\u200c", "\u200d", "\u2060"]


def path(name):
    return os.path.join(HERE, name)


def read_lines(name):
    with open(path(name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith(";;"):
                continue
            yield n, line


def read_plain(name, lang):
    out = []
    for n, line in read_lines(name):
        if "|" not in line:
            sys.exit(f"{name}:{n}: missing style separator")
        style, text = line.split("|", 1)
        out.append({"text": text, "lang": lang, "style": style, "_src": f"{name}:{n}"})
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
        return "".join(f"&#{ord(c)};" for c in payload)
    if kind == "html_entity_partial":  # benign: entity for a single symbol
        return "".join(f"&#{ord(c)};" for c in payload)
    if kind == "zero_width":
        out = []
        for i, c in enumerate(payload):
            out.append(c)
            if i < len(payload) - 1:
                out.append(ZW[i % len(ZW)])
        return "".join(out)
    if kind == "html_comment":
        return f"<!-- {payload} -->"
    if kind == "js_link":
        return "javascript:" + payload
    if kind == "data_link":
        return "data:text/html;base64," + base64.b64encode(b).decode("ascii")
    if kind == "file_link":
        return "file://" + payload
    sys.exit(f"unknown carrier kind {kind}")


def read_encoded(name, style_prefix):
    out = []
    for n, line in read_lines(name):
        parts = line.split("\t")
        if len(parts) != 4:
            sys.exit(f"{name}:{n}: expected 4 tab-separated fields, got {len(parts)}")
        kind, lang, template, payload = parts
        if "{enc}" not in template:
            sys.exit(f"{name}:{n}: template lacks {{enc}}")
        enc = encode(kind, payload)
        # round-trip sanity for the reversible encodings
        if kind == "base64":
            assert base64.b64decode(enc).decode("utf-8") == payload
        if kind == "hex":
            assert bytes.fromhex(enc).decode("utf-8") == payload
        if kind == "percent":
            assert urllib.parse.unquote(enc) == payload
        if kind == "zero_width":
            assert "".join(c for c in enc if c not in ZW) == payload
        text = template.replace("{enc}", enc)
        out.append({"text": text, "lang": lang, "style": style_prefix + kind,
                    "_src": f"{name}:{n}", "_carrier": True})
    return out


def main():
    attacks = (read_plain("src_attack_en.txt", "en")
               + read_plain("src_attack_zh.txt", "zh")
               + read_encoded("src_attack_carriers.txt", "carrier_"))
    legit = (read_plain("src_legit_en.txt", "en")
             + read_plain("src_legit_zh.txt", "zh")
             + read_encoded("src_legit_encoded.txt", "encoded_benign_"))

    errors = []
    for label, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            t = r["text"]
            if "\n" in t or "\r" in t:
                errors.append(f"{label} {r['_src']}: newline inside text")
            if t != t.strip() and not t.startswith("  - "):
                errors.append(f"{label} {r['_src']}: leading/trailing whitespace")
            if not t.strip():
                errors.append(f"{label} {r['_src']}: empty text")
            if not STYLE_RE.match(r["style"]):
                errors.append(f"{label} {r['_src']}: bad style {r['style']!r}")
            if r["lang"] not in ("en", "zh"):
                errors.append(f"{label} {r['_src']}: bad lang")
            has_cjk = bool(CJK.search(t))
            if r["lang"] == "zh" and not has_cjk:
                errors.append(f"{label} {r['_src']}: zh line without CJK")
            if r["lang"] == "en" and has_cjk:
                errors.append(f"{label} {r['_src']}: en line with CJK")
            if t in seen:
                errors.append(f"{label} {r['_src']}: duplicate of {seen[t]}")
            seen[t] = r["_src"]
        n = len(rows)
        if n < 270:
            errors.append(f"{label}: only {n} lines (<270)")
        for lang in ("en", "zh"):
            share = sum(r["lang"] == lang for r in rows) / n
            if share < 0.40:
                errors.append(f"{label}: {lang} share {share:.3f} < 0.40")

    a_texts = {r["text"] for r in attacks}
    a_norm = {" ".join(t.split()).lower() for t in a_texts}
    for r in legit:
        if r["text"] in a_texts:
            errors.append(f"legit {r['_src']}: identical to an attack line")
        elif " ".join(r["text"].split()).lower() in a_norm:
            errors.append(f"legit {r['_src']}: equal to an attack line after normalisation")

    n_carrier = sum(1 for r in attacks if r.get("_carrier"))
    carrier_share = n_carrier / len(attacks)
    if carrier_share > 0.25:
        errors.append(f"carrier share {carrier_share:.3f} > 0.25")
    # plain attack lines must not accidentally look like carriers
    for r in attacks:
        if not r.get("_carrier") and any(z in r["text"] for z in ZW):
            errors.append(f"attacks {r['_src']}: zero-width char in a non-carrier line")

    if errors:
        print("\n".join(errors))
        sys.exit(1)

    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(path(name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                   ensure_ascii=False) + "\n")

    def summary(label, rows):
        n = len(rows)
        en = sum(r["lang"] == "en" for r in rows)
        zh = n - en
        styles = {}
        for r in rows:
            styles[r["style"]] = styles.get(r["style"], 0) + 1
        print(f"{label}: {n} lines, en {en} ({en/n:.1%}), zh {zh} ({zh/n:.1%}), {len(styles)} styles")
        return styles

    summary("attacks", attacks)
    print(f"  carriers: {n_carrier} ({carrier_share:.1%})")
    summary("legit", legit)


if __name__ == "__main__":
    main()
