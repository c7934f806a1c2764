#!/usr/bin/env python3
"""Build the blind31 evaluation set from hand-written src_*.txt files.

Plain source files: one item per line, "style :: text".
Encoded source files: "lang :: kind :: template :: payload"; the encoding of
payload is computed here and substituted for {enc} in template.
"""
import base64, hashlib, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " :: "
CJK = re.compile(r"[\u4e00-\u9fff]")
ZW = ["\u200b", "\u200c", "\u200d"]


def read_lines(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def read_plain(name, lang):
    out = []
    for i, l in enumerate(read_lines(name), 1):
        style, sep, text = l.partition(SEP)
        if not sep or not re.fullmatch(r"[a-z0-9_]+", style) or not text.strip():
            sys.exit(f"{name}:{i}: bad line: {l!r}")
        out.append({"text": text.strip(), "lang": lang, "style": style})
    return out


def encode(kind, payload, legit=False):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode()
    if kind == "hex":
        return b.hex()
    if kind == "pct":
        return urllib.parse.quote(payload, safe="") if legit else "".join("%%%02X" % x for x in b)
    if kind == "entity":
        return "".join("&#x%X;" % ord(c) for c in payload)
    if kind == "zw":
        return "".join(c + ZW[i % 3] for i, c in enumerate(payload[:-1])) + payload[-1]
    if kind == "comment":
        return payload
    if kind == "jslink":
        return "javascript:" + payload
    if kind == "datalink":
        mime = "text/html" if "<script" in payload else "text/plain"
        return "data:%s;base64,%s" % (mime, base64.b64encode(b).decode())
    if kind == "filelink":
        return "file://" + urllib.parse.quote(payload, safe="/")
    if kind == "sha256":
        return hashlib.sha256(b).hexdigest()
    sys.exit("unknown kind " + kind)


def read_encoded(name, legit):
    out = []
    for i, l in enumerate(read_lines(name), 1):
        parts = l.split(SEP, 3)
        if len(parts) != 4 or parts[0] not in ("en", "zh") or "{enc}" not in parts[2]:
            sys.exit(f"{name}:{i}: bad line: {l!r}")
        lang, kind, tmpl, payload = parts
        text = tmpl.replace("{enc}", encode(kind, payload.strip(), legit))
        style = ("benign_" if legit else "carrier_") + kind
        out.append({"text": text, "lang": lang, "style": style})
    return out


attacks = (read_plain("src_attack_en.txt", "en") + read_plain("src_attack_zh.txt", "zh")
           + read_encoded("src_carriers.txt", legit=False))
legit = (read_plain("src_legit_en.txt", "en") + read_plain("src_legit_zh.txt", "zh")
         + read_encoded("src_legit_encoded.txt", legit=True))

# ---- checks ----
errors = []
CARRIER_RE = re.compile(r"<!--|javascript:|data:[a-z]+/|file://|&#x?[0-9a-fA-F]+;|[\u200b-\u200d\u2060\ufeff]|%[0-9A-F]{2}%[0-9A-F]{2}%[0-9A-F]{2}")
for name, rows in (("attacks", attacks), ("legit", legit)):
    seen = set()
    for r in rows:
        t = r["text"]
        if "\n" in t or "\r" in t:
            errors.append(f"{name}: newline in {t!r}")
        if t in seen:
            errors.append(f"{name}: duplicate {t!r}")
        seen.add(t)
        if r["lang"] == "zh" and not CJK.search(t) and not r["style"].startswith(("carrier_", "benign_")):
            errors.append(f"{name}: zh line without CJK {t!r}")
        if r["lang"] == "en" and len(CJK.findall(t)) > 0.2 * len(t):
            errors.append(f"{name}: en line mostly CJK {t!r}")
    n = len(rows)
    if n < 270:
        errors.append(f"{name}: only {n} lines")
    for lang in ("en", "zh"):
        share = sum(r["lang"] == lang for r in rows) / n
        if share < 0.40:
            errors.append(f"{name}: {lang} share {share:.2f} < 0.40")
both = {r["text"] for r in attacks} & {r["text"] for r in legit}
if both:
    errors.append(f"lines in both sets: {sorted(both)}")
# carrier share: labelled carriers plus any unlabelled line that looks like one
carrier_n = sum(1 for r in attacks if r["style"].startswith("carrier_") or CARRIER_RE.search(r["text"]))
share = carrier_n / len(attacks)
if share > 0.25:
    errors.append(f"carrier share {share:.3f} > 0.25")
unlabelled = [r["text"] for r in attacks if not r["style"].startswith("carrier_") and CARRIER_RE.search(r["text"])]
if errors:
    print("\n".join(errors))
    sys.exit(1)

for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")

def summary(rows):
    en = sum(r["lang"] == "en" for r in rows)
    return f"{len(rows)} (en {en}, zh {len(rows) - en})"
print("attacks:", summary(attacks))
print("legit:  ", summary(legit))
print(f"carrier-like attacks: {carrier_n}/{len(attacks)} = {share:.3f} (unlabelled carrier-like: {len(unlabelled)})")
print("attack styles:", len({r['style'] for r in attacks}), "legit styles:", len({r['style'] for r in legit}))
