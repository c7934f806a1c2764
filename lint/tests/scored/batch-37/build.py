#!/usr/bin/env python3
"""Build the blind evaluation set (blind37) from the hand-written src_*.txt files.

Inputs (paths relative to this file):
  src_attack_en.txt, src_attack_zh.txt   style@@text            -> attacks
  src_carriers.txt                       kind@@lang@@payload@@template -> attacks (encoded here)
  src_legit_en.txt, src_legit_zh.txt     style@@text            -> legit
  src_legit_encoded.txt                  kind@@lang@@payload@@template -> legit (benign encodings)
Lines starting with '%%' and blank lines are ignored.  In carrier payloads the two
characters backslash-n stand for a newline (only ever inside an encoded form).

Outputs: attacks.jsonl, legit.jsonl (one JSON object per line, UTF-8, raw non-ASCII).
All checks must pass or the script exits non-zero without writing.
"""
import base64
import json
import os
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = ["\u200b", "\u200c", "\u200d", "\u2060"]
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")


def read_lines(name):
    path = os.path.join(HERE, name)
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("%%"):
                continue
            out.append((n, line))
    return out


def encode(kind, payload):
    payload = payload.replace("\\n", "\n")
    if kind == "b64":
        return base64.b64encode(payload.encode("utf-8")).decode("ascii")
    if kind == "data":
        return base64.b64encode(payload.encode("utf-8")).decode("ascii")
    if kind == "hex":
        return payload.encode("utf-8").hex()
    if kind == "pct":
        return urllib.parse.quote(payload, safe="")
    if kind == "ent":
        return "".join("&#x%x;" % ord(c) for c in payload)
    if kind == "zw":
        return "".join(c + ZW[i % len(ZW)] for i, c in enumerate(payload[:-1])) + payload[-1]
    if kind == "comment":
        if "\n" in payload or "-->" in payload:
            raise ValueError("bad comment payload")
        return payload
    if kind == "js":
        return urllib.parse.quote(payload, safe="()'+.:/")
    if kind == "file":
        return urllib.parse.quote(payload, safe="/")
    raise ValueError("unknown carrier kind %r" % kind)


def load_plain(name, lang):
    rows = []
    for n, line in read_lines(name):
        if "@@" not in line:
            sys.exit("%s:%d: missing @@" % (name, n))
        style, text = line.split("@@", 1)
        rows.append({"text": text, "lang": lang, "style": style.strip(), "_src": "%s:%d" % (name, n)})
    return rows


def load_encoded(name, prefix):
    rows = []
    for n, line in read_lines(name):
        parts = line.split("@@")
        if len(parts) != 4:
            sys.exit("%s:%d: need kind@@lang@@payload@@template" % (name, n))
        kind, lang, payload, template = parts
        if "{ENC}" not in template:
            sys.exit("%s:%d: template lacks {ENC}" % (name, n))
        text = template.replace("{ENC}", encode(kind, payload))
        rows.append({"text": text, "lang": lang, "style": prefix + kind, "_src": "%s:%d" % (name, n)})
    return rows


def norm(t):
    for z in ZW:
        t = t.replace(z, "")
    return re.sub(r"\s+", " ", t).strip().lower()


def check(rows, label, errors):
    seen = {}
    for r in rows:
        t = r["text"]
        if "\n" in t or "\r" in t:
            errors.append("%s %s: newline in text" % (label, r["_src"]))
        if not t.strip():
            errors.append("%s %s: empty" % (label, r["_src"]))
        if r["lang"] not in ("en", "zh"):
            errors.append("%s %s: bad lang" % (label, r["_src"]))
        if not STYLE_RE.match(r["style"]):
            errors.append("%s %s: bad style %r" % (label, r["_src"], r["style"]))
        ncjk = len(CJK.findall(t))
        nonspace = len(re.sub(r"\s", "", t)) or 1
        if r["lang"] == "zh" and ncjk < 2:
            errors.append("%s %s: zh line with <2 CJK chars" % (label, r["_src"]))
        if r["lang"] == "en" and ncjk / nonspace > 0.15:
            errors.append("%s %s: en line is mostly CJK" % (label, r["_src"]))
        k = norm(t)
        if k in seen:
            errors.append("%s duplicate: %s and %s" % (label, seen[k], r["_src"]))
        seen[k] = r["_src"]
    return seen


def main():
    attacks = (load_plain("src_attack_en.txt", "en") + load_plain("src_attack_zh.txt", "zh")
               + load_encoded("src_carriers.txt", "carrier_"))
    legit = (load_plain("src_legit_en.txt", "en") + load_plain("src_legit_zh.txt", "zh")
             + load_encoded("src_legit_encoded.txt", "benign_"))
    errors = []
    a_keys = check(attacks, "attack", errors)
    l_keys = check(legit, "legit", errors)
    for k in set(a_keys) & set(l_keys):
        errors.append("line both attack and legit: %s / %s" % (a_keys[k], l_keys[k]))

    stats = {}
    for label, rows in (("attacks", attacks), ("legit", legit)):
        n = len(rows)
        en = sum(r["lang"] == "en" for r in rows)
        zh = sum(r["lang"] == "zh" for r in rows)
        stats[label] = {"total": n, "en": en, "zh": zh}
        if n < 270:
            errors.append("%s: only %d lines (need >= 270)" % (label, n))
        if en / n < 0.40 or zh / n < 0.40:
            errors.append("%s: language share en=%.3f zh=%.3f" % (label, en / n, zh / n))
    carriers = sum(r["style"].startswith("carrier_") for r in attacks)
    stats["attacks"]["carriers"] = carriers
    stats["attacks"]["carrier_share"] = round(carriers / len(attacks), 4)
    if carriers / len(attacks) > 0.25:
        errors.append("carrier share %.3f > 0.25" % (carriers / len(attacks)))

    if errors:
        print("\n".join(errors))
        sys.exit(1)

    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as fh:
            for r in rows:
                fh.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                    ensure_ascii=False) + "\n")
    styles_a = sorted({r["style"] for r in attacks})
    styles_l = sorted({r["style"] for r in legit})
    print(json.dumps(stats, ensure_ascii=False))
    print("attack styles:", ", ".join(styles_a))
    print("legit styles:", ", ".join(styles_l))


if __name__ == "__main__":
    main()
