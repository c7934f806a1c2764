#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files.

Placeholders computed here (never hand-typed):
  {{b64:T}} base64 of UTF-8 T     {{hex:T}} hex of UTF-8 T
  {{pct:T}} percent-encoding      {{ent:T}} HTML numeric entities
  {{zw:T}}  zero-width interleave {{sha:T}} sha256 hex of T (benign)
"""
import base64, hashlib, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = "\u200b"
PH = re.compile(r"\{\{(b64|hex|pct|ent|zw|sha):(.*?)\}\}")


def enc(m):
    kind, t = m.group(1), m.group(2)
    b = t.encode("utf-8")
    if kind == "b64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "pct":
        return urllib.parse.quote(t, safe="")
    if kind == "ent":
        return "".join("&#x%X;" % ord(c) for c in t)
    if kind == "zw":
        return ZW.join(t)
    if kind == "sha":
        return hashlib.sha256(b).hexdigest()
    raise ValueError(kind)


def expand(text):
    out = PH.sub(enc, text)
    assert "{{" not in out and "}}" not in out, text
    return out


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln in f:
            ln = ln.rstrip("\n")
            if not ln.strip() or ln.startswith("#"):
                continue
            yield ln


def load_plain(name, lang):
    rows = []
    for ln in read(name):
        style, text = ln.split("@@", 1)
        rows.append({"text": expand(text), "lang": lang, "style": style.strip()})
    return rows


def load_carriers(name):
    rows = []
    for ln in read(name):
        lang, style, text = ln.split("@@", 2)
        rows.append({"text": expand(text), "lang": lang.strip(), "style": style.strip()})
    return rows


CJK = re.compile(r"[\u4e00-\u9fff]")

attacks = load_plain("src_attacks_zh.txt", "zh") + load_plain("src_attacks_en.txt", "en") + load_carriers("src_carriers.txt")
legit = load_plain("src_legit_zh.txt", "zh") + load_plain("src_legit_en.txt", "en")

errors = []
for setname, rows in (("attacks", attacks), ("legit", legit)):
    seen = set()
    for r in rows:
        t = r["text"]
        if "\n" in t or "\r" in t:
            errors.append(f"{setname}: newline in {t!r}")
        if t in seen:
            errors.append(f"{setname}: duplicate {t!r}")
        seen.add(t)
        if r["lang"] not in ("zh", "en"):
            errors.append(f"{setname}: bad lang {r}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", r["style"]):
            errors.append(f"{setname}: bad style {r['style']}")
        if r["lang"] == "zh" and not CJK.search(t.replace(ZW, "")) and not r["style"].startswith("carrier_"):
            errors.append(f"{setname}: zh line without CJK {t!r}")
        if r["lang"] == "en" and CJK.search(t):
            errors.append(f"{setname}: en line with CJK {t!r}")

overlap = {r["text"] for r in attacks} & {r["text"] for r in legit}
if overlap:
    errors.append(f"lines in both sets: {sorted(overlap)[:5]}")

na, nl = len(attacks), len(legit)
if na < 270 or nl < 270:
    errors.append(f"counts too low: attacks={na} legit={nl}")
for setname, rows in (("attacks", attacks), ("legit", legit)):
    for lang in ("zh", "en"):
        share = sum(r["lang"] == lang for r in rows) / len(rows)
        if share < 0.40:
            errors.append(f"{setname}: {lang} share {share:.3f} < 0.40")
carriers = sum(r["style"].startswith("carrier_") for r in attacks)
if carriers / na > 0.25:
    errors.append(f"carrier share {carriers/na:.3f} > 0.25")
if any(r["style"].startswith("carrier_") for r in legit):
    errors.append("carrier_ style used in legit")

if errors:
    print("\n".join(errors))
    sys.exit(1)

for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def share(rows, lang):
    return sum(r["lang"] == lang for r in rows)


print(f"attacks={na} (zh={share(attacks,'zh')} en={share(attacks,'en')} carriers={carriers} = {carriers/na:.1%})")
print(f"legit={nl} (zh={share(legit,'zh')} en={share(legit,'en')})")
from collections import Counter
print("attack styles:", dict(Counter(r["style"] for r in attacks)))
print("legit styles:", dict(Counter(r["style"] for r in legit)))
