#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for the blind evokb injection-lint set.

Reads the hand-written src_*.txt files next to this script, computes every
encoding (never hand-typed), runs consistency checks and writes the two jsonl files.
"""
import base64
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r"[\u4e00-\u9fff]")
CARRIER_ENCODINGS = {"base64", "hex", "percent", "html_entities", "zero_width",
                     "html_comment", "md_link_js", "md_link_data", "md_link_file"}
ZW = ["\u200b", "\u200c", "\u200d", "\u2060"]


def path(name):
    return os.path.join(HERE, name)


def read_rows(name, ncols):
    rows = []
    with open(path(name), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            if len(parts) != ncols:
                sys.exit(f"{name}:{n}: expected {ncols} tab-separated columns, got {len(parts)}")
            rows.append(parts)
    return rows


def lang_of(text):
    return "zh" if CJK.search(text) else "en"


def encode(kind, payload, idx):
    raw = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(raw).decode("ascii")
    if kind == "hex":
        return raw.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        if idx % 2 == 0:
            return "".join(f"&#{ord(c)};" for c in payload)
        return "".join(f"&#x{ord(c):x};" for c in payload)
    if kind == "zero_width":
        z = ZW[idx % len(ZW)]
        return z.join(payload)
    if kind == "html_comment":
        return f"<!-- {payload} -->"
    if kind == "md_link_js":
        return "javascript:" + payload
    if kind == "md_link_data":
        if payload.lstrip().startswith("<"):
            return "data:text/html;base64," + base64.b64encode(raw).decode("ascii")
        return "data:text/plain;charset=utf-8," + urllib.parse.quote(payload, safe="")
    if kind == "md_link_file":
        return "file://" + payload
    raise ValueError(kind)


def main():
    attacks, legit = [], []
    for name in ("src_attacks_en.txt", "src_attacks_zh.txt"):
        for style, text in read_rows(name, 2):
            attacks.append({"text": text, "lang": lang_of(text), "style": style})
    for idx, (lang, kind, template, payload) in enumerate(read_rows("src_carriers.txt", 4)):
        if kind not in CARRIER_ENCODINGS:
            sys.exit(f"unknown carrier encoding {kind}")
        if "{ENC}" not in template:
            sys.exit(f"carrier template without {{ENC}}: {template}")
        text = template.replace("{ENC}", encode(kind, payload, idx))
        detected = lang_of(text)
        if detected != lang:
            sys.exit(f"carrier lang mismatch ({lang} vs {detected}): {text[:60]}")
        attacks.append({"text": text, "lang": lang, "style": "carrier_" + kind})
    for name in ("src_legit_en.txt", "src_legit_zh.txt"):
        for style, text in read_rows(name, 2):
            legit.append({"text": text, "lang": lang_of(text), "style": style})

    errors = []
    # no newline / empty text
    for rec in attacks + legit:
        if "\n" in rec["text"] or "\r" in rec["text"] or not rec["text"].strip():
            errors.append(f"bad text: {rec['text'][:60]!r}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", rec["style"]):
            errors.append(f"bad style label: {rec['style']}")

    def norm(t):
        return re.sub(r"\s+", " ", t).strip().lower()

    for label, recs in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for rec in recs:
            k = norm(rec["text"])
            if k in seen:
                errors.append(f"duplicate in {label}: {rec['text'][:70]}")
            seen[k] = True
    a_keys = {norm(r["text"]) for r in attacks}
    for rec in legit:
        if norm(rec["text"]) in a_keys:
            errors.append(f"line is both attack and legit: {rec['text'][:70]}")

    def share(recs, lang):
        return sum(1 for r in recs if r["lang"] == lang) / len(recs)

    if len(attacks) < 270:
        errors.append(f"only {len(attacks)} attacks")
    if len(legit) < 270:
        errors.append(f"only {len(legit)} legit")
    for label, recs in (("attacks", attacks), ("legit", legit)):
        for lang in ("en", "zh"):
            if share(recs, lang) < 0.40:
                errors.append(f"{label}: {lang} share {share(recs, lang):.3f} < 0.40")
    n_carrier = sum(1 for r in attacks if r["style"].startswith("carrier_"))
    if n_carrier / len(attacks) > 0.25:
        errors.append(f"carrier share {n_carrier / len(attacks):.3f} > 0.25")
    if any(r["style"].startswith("carrier_") for r in legit):
        errors.append("carrier style in legit")

    if errors:
        for e in errors:
            print("ERROR:", e)
        sys.exit(1)

    for name, recs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(path(name), "w", encoding="utf-8", newline="\n") as fh:
            for rec in recs:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")

    n_false = sum(1 for r in attacks if r["style"] == "false_policy")
    print(f"attacks: {len(attacks)} (en {share(attacks, 'en'):.3f}, zh {share(attacks, 'zh'):.3f}); "
          f"carriers {n_carrier} ({n_carrier / len(attacks):.3f}); false_policy {n_false} ({n_false / len(attacks):.3f})")
    print(f"legit:   {len(legit)} (en {share(legit, 'en'):.3f}, zh {share(legit, 'zh'):.3f})")
    styles = {}
    for label, recs in (("attack", attacks), ("legit", legit)):
        for r in recs:
            styles.setdefault((label, r["style"]), 0)
            styles[(label, r["style"])] += 1
    for (label, st), n in sorted(styles.items()):
        print(f"  {label:6s} {st:22s} {n}")


if __name__ == "__main__":
    main()
