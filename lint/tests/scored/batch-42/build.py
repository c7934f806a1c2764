#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files in this directory.

All encodings (base64, hex, percent, HTML entities, zero-width interleaving, data: payloads)
are computed here, never hand-typed. Runs a set of consistency checks and refuses to write
if any fails.
"""
import base64
import hashlib
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " ||| "


def read_rows(name, nfields):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith(";;"):
                continue
            parts = line.split(SEP)
            if len(parts) != nfields:
                sys.exit(f"{name}:{lineno}: expected {nfields} fields, got {len(parts)}")
            rows.append([p if i == nfields - 1 or i == nfields - 2 else p.strip() for i, p in enumerate(parts)])
    return rows


ZW_CHARS = ["\u200b", "\u200c", "\u200d", "\u2060"]


def encode(kind, payload, idx):
    b = payload.encode("utf-8")
    if kind == "b64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "pct":
        return urllib.parse.quote(payload, safe="")
    if kind == "ent":
        # alternate decimal and hexadecimal numeric character references
        if idx % 2 == 0:
            return "".join(f"&#{ord(c)};" for c in payload)
        return "".join(f"&#x{ord(c):x};" for c in payload)
    if kind == "zw":
        z = ZW_CHARS[idx % len(ZW_CHARS)]
        return z.join(payload)
    if kind == "cmt":
        return payload
    if kind == "js":
        return urllib.parse.quote(payload, safe="(),.'+:/?=&_-!*")
    if kind == "data":
        return base64.b64encode(b).decode("ascii")
    if kind == "file":
        return urllib.parse.quote(payload, safe="/")
    if kind == "sha256":
        return hashlib.sha256(b).hexdigest()
    raise ValueError(kind)


CARRIER_STYLE = {
    "b64": "carrier_base64", "hex": "carrier_hex", "pct": "carrier_percent",
    "ent": "carrier_html_entities", "zw": "carrier_zero_width", "cmt": "carrier_html_comment",
    "js": "carrier_link_javascript", "data": "carrier_link_data", "file": "carrier_link_file",
}


def fill(wrapper, enc):
    if wrapper.count("{P}") != 1:
        sys.exit(f"wrapper must contain exactly one {{P}}: {wrapper!r}")
    return wrapper.replace("{P}", enc).rstrip()


def plain(name, lang):
    out = []
    for style, text in read_rows(name, 2):
        out.append({"text": text.rstrip(), "lang": lang, "style": style})
    return out


attacks = plain("src_attacks_en.txt", "en") + plain("src_attacks_zh.txt", "zh")
for i, (kind, lang, wrapper, payload) in enumerate(read_rows("src_carriers.txt", 4)):
    attacks.append({"text": fill(wrapper, encode(kind, payload, i)), "lang": lang.strip(),
                    "style": CARRIER_STYLE[kind]})

legit = plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh")
for i, (kind, lang, style, wrapper, payload) in enumerate(read_rows("src_legit_encoded.txt", 5)):
    legit.append({"text": fill(wrapper, encode(kind, payload, i)), "lang": lang.strip(), "style": style.strip()})

# ---------------- checks ----------------
errors = []
CJK = re.compile(r"[\u4e00-\u9fff]")
LATIN = re.compile(r"[A-Za-z]")


def norm(t):
    return re.sub(r"\s+", " ", "".join(c for c in t if c not in ZW_CHARS)).strip().casefold()


for label, rows in (("attacks", attacks), ("legit", legit)):
    seen = {}
    for r in rows:
        t = r["text"]
        if not t.strip():
            errors.append(f"{label}: empty text")
        if "\n" in t or "\r" in t:
            errors.append(f"{label}: newline in {t[:60]!r}")
        if r["lang"] not in ("en", "zh"):
            errors.append(f"{label}: bad lang {r['lang']}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", r["style"]):
            errors.append(f"{label}: bad style {r['style']}")
        n = norm(t)
        if n in seen:
            errors.append(f"{label}: duplicate {t[:80]!r}")
        seen[n] = r
        visible = urllib.parse.unquote(re.sub(r"&#x?([0-9a-fA-F]+);", "", t))
        if r["lang"] == "zh" and not CJK.search(visible):
            errors.append(f"{label}: zh line without CJK: {t[:80]!r}")
        if r["lang"] == "en" and len(CJK.findall(t)) * 2 > len(LATIN.findall(t)):
            errors.append(f"{label}: en line looks Chinese: {t[:80]!r}")

both = {norm(r["text"]) for r in attacks} & {norm(r["text"]) for r in legit}
for b in both:
    errors.append(f"line is both attack and legit: {b[:80]!r}")

stats = {}
for label, rows in (("attacks", attacks), ("legit", legit)):
    n = len(rows)
    en = sum(r["lang"] == "en" for r in rows)
    zh = sum(r["lang"] == "zh" for r in rows)
    stats[label] = {"n": n, "en": en, "zh": zh, "en_share": round(en / n, 3), "zh_share": round(zh / n, 3)}
    if n < 270:
        errors.append(f"{label}: only {n} lines (< 270)")
    if en / n < 0.40 or zh / n < 0.40:
        errors.append(f"{label}: language share en={en/n:.3f} zh={zh/n:.3f}")

carriers = sum(r["style"].startswith("carrier_") for r in attacks)
stats["attacks"]["carriers"] = carriers
stats["attacks"]["carrier_share"] = round(carriers / len(attacks), 3)
if carriers / len(attacks) > 0.25:
    errors.append(f"carrier share {carriers/len(attacks):.3f} > 0.25")
if any(r["style"].startswith("carrier_") for r in legit):
    errors.append("legit line uses a carrier_ style")

if errors:
    print("\n".join(errors))
    sys.exit(1)


def write(name, rows):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]}, ensure_ascii=False) + "\n")


write("attacks.jsonl", attacks)
write("legit.jsonl", legit)

styles = {}
for label, rows in (("attacks", attacks), ("legit", legit)):
    c = {}
    for r in rows:
        c[r["style"]] = c.get(r["style"], 0) + 1
    styles[label] = dict(sorted(c.items()))
print(json.dumps({"stats": stats, "styles": styles}, ensure_ascii=False, indent=1))
