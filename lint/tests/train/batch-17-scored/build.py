#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

Source formats (one item per non-empty line, fields separated by '@@'):
  src_attacks_{en,zh}.txt, src_legit_{en,zh}.txt : style@@text
  src_carriers.txt, src_legit_encoded.txt        : kind@@lang@@template@@payload
    The template contains {ENC}; the encoding of payload for `kind` is computed here.
"""
import base64, json, os, re, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r"[\u4e00-\u9fff]")
ZW = "\u200b"
CARRIER_KINDS = {"base64", "hex", "percent", "html_entity", "zero_width", "html_comment",
                 "md_link_js", "md_link_data", "md_link_file"}


def read(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f if l.strip()]


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return "".join("%%%02X" % x for x in b)
    if kind == "html_entity":
        return "".join("&#%d;" % ord(c) for c in payload)
    if kind == "zero_width":
        return ZW.join(payload)
    if kind == "html_comment":
        return "<!-- %s -->" % payload
    if kind == "md_link_js":
        return "javascript:" + payload
    if kind == "md_link_data":
        mime = "text/html" if payload.lstrip().startswith("<") else "text/plain"
        return "data:%s;charset=utf-8;base64,%s" % (mime, base64.b64encode(b).decode("ascii"))
    if kind == "md_link_file":
        return "file://" + payload
    raise ValueError(kind)


def plain(name, lang):
    out = []
    for l in read(name):
        style, text = l.split("@@", 1)
        out.append({"text": text, "lang": lang, "style": style})
    return out


def encoded(name, prefix):
    out = []
    for l in read(name):
        kind, lang, tmpl, payload = l.split("@@", 3)
        assert kind in CARRIER_KINDS, kind
        assert "{ENC}" in tmpl, l
        out.append({"text": tmpl.replace("{ENC}", encode(kind, payload)), "lang": lang,
                    "style": prefix + kind})
    return out


attacks = plain("src_attacks_en.txt", "en") + plain("src_attacks_zh.txt", "zh") + encoded("src_carriers.txt", "carrier_")
legit = plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh") + encoded("src_legit_encoded.txt", "benign_encoded_")

errors = []


def visible(t):
    return t.replace(ZW, "")


for setname, items in (("attacks", attacks), ("legit", legit)):
    texts = [i["text"] for i in items]
    for t, n in Counter(texts).items():
        if n > 1:
            errors.append("%s duplicate: %r" % (setname, t))
    for i in items:
        t = i["text"]
        if "\n" in t or "\r" in t:
            errors.append("newline in %r" % t)
        if not t.strip():
            errors.append("empty text")
        if i["lang"] == "zh" and not CJK.search(t):
            errors.append("zh line without CJK: %r" % t)
        if i["lang"] == "en" and CJK.search(t):
            errors.append("en line with CJK: %r" % t)
        if not re.fullmatch(r"[a-z][a-z0-9_]*", i["style"]):
            errors.append("bad style %r" % i["style"])

overlap = {i["text"] for i in attacks} & {i["text"] for i in legit}
overlap |= {visible(i["text"]).strip() for i in attacks} & {visible(i["text"]).strip() for i in legit}
for t in overlap:
    errors.append("line in both sets: %r" % t)

stats = {}
for setname, items in (("attacks", attacks), ("legit", legit)):
    n = len(items)
    en = sum(i["lang"] == "en" for i in items)
    zh = sum(i["lang"] == "zh" for i in items)
    stats[setname] = {"total": n, "en": en, "zh": zh}
    if n < 270:
        errors.append("%s count %d < 270" % (setname, n))
    if en / n < 0.40 or zh / n < 0.40:
        errors.append("%s language share en=%d zh=%d of %d" % (setname, en, zh, n))
car = sum(i["style"].startswith("carrier_") for i in attacks)
stats["attacks"]["carriers"] = car
if car / len(attacks) > 0.25:
    errors.append("carrier share %d/%d > 25%%" % (car, len(attacks)))

if errors:
    print("\n".join(errors))
    sys.exit(1)

for setname, items in (("attacks", attacks), ("legit", legit)):
    with open(os.path.join(HERE, setname + ".jsonl"), "w", encoding="utf-8") as f:
        for i in items:
            f.write(json.dumps(i, ensure_ascii=False) + "\n")

print(json.dumps(stats))
print("carrier share %.3f" % (car / len(attacks)))
print("attack styles:", dict(Counter(i["style"] for i in attacks)))
print("legit styles:", dict(Counter(i["style"] for i in legit)))
