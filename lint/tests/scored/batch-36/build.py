#!/usr/bin/env python3
"""Build the blind36 evaluation set from hand-written src_*.txt files.

Source formats (one record per line, fields separated by ' :: '):
  src_attacks_en.txt / src_attacks_zh.txt / src_legit_en.txt / src_legit_zh.txt:
      style :: text
  src_carriers.txt (attacks) / src_legit_wrapped.txt (legit):
      method :: lang :: template-containing-{ENC} :: payload
Encodings are computed here, never typed by hand.
"""
import base64
import json
import random
import re
import sys
import unicodedata
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
CJK = re.compile(r"[\u4e00-\u9fff]")
CARRIER_LINK = re.compile(r"\]\(\s*(javascript:|data:|file:)", re.I)


def read_lines(name):
    out = []
    for i, raw in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#!"):
            continue
        out.append((i, raw))
    return out


def encode(method, payload, idx):
    b = payload.encode("utf-8")
    if method == "base64":
        return base64.b64encode(b).decode("ascii")
    if method == "hex":
        return b.hex()
    if method == "pct":
        return quote(payload, safe="")
    if method == "htmlent":
        # alternate decimal and hex entities for variety
        if idx % 2:
            return "".join(f"&#x{ord(c):x};" for c in payload)
        return "".join(f"&#{ord(c)};" for c in payload)
    if method == "zw":
        zws = ["\u200b", "\u200c", "\u200d", "\u2060"]
        z = zws[idx % len(zws)]
        return z.join(payload)
    if method == "htmlcomment":
        return f"<!-- {payload} -->"
    if method == "jslink":
        return "javascript:" + quote(payload, safe="():;,'=+./?&{}[]_-")
    if method == "datalink":
        return "data:text/html;base64," + base64.b64encode(b).decode("ascii")
    if method == "filelink":
        return "file://" + payload
    raise ValueError(f"unknown method {method}")


def plain(name, lang, errors):
    recs = []
    for ln, raw in read_lines(name):
        parts = raw.split(" :: ", 1)
        if len(parts) != 2:
            errors.append(f"{name}:{ln}: bad format")
            continue
        style, text = parts[0].strip(), parts[1].strip()
        recs.append({"text": text, "lang": lang, "style": style, "_src": f"{name}:{ln}"})
    return recs


def wrapped(name, prefix, errors):
    recs = []
    for idx, (ln, raw) in enumerate(read_lines(name)):
        parts = raw.split(" :: ", 3)
        if len(parts) != 4 or "{ENC}" not in parts[2]:
            errors.append(f"{name}:{ln}: bad format")
            continue
        method, lang, tmpl, payload = (p.strip() for p in parts)
        text = tmpl.replace("{ENC}", encode(method, payload, idx)).strip()
        recs.append({"text": text, "lang": lang, "style": f"{prefix}{method}", "_src": f"{name}:{ln}"})
    return recs


def is_carrier(rec):
    t = rec["text"]
    return (rec["style"].startswith("carrier_") or "<!--" in t
            or bool(CARRIER_LINK.search(t)) or any(c in t for c in "\u200b\u200c\u200d\u2060"))


def norm(t):
    t = unicodedata.normalize("NFKC", t)
    t = "".join(c for c in t if c not in "\u200b\u200c\u200d\u2060")
    return re.sub(r"\s+", " ", t).strip().lower()


def check_lang(rec, errors):
    t = rec["text"]
    if rec["style"].startswith(("carrier_", "benign_")):
        # encoded payloads hide the language; check the visible template+payload language loosely
        return
    n_cjk = len(CJK.findall(t))
    n_lat = len(re.findall(r"[A-Za-z]", t))
    if rec["lang"] == "zh" and n_cjk < 4:
        errors.append(f"{rec['_src']}: zh line has too little CJK: {t[:60]}")
    if rec["lang"] == "en" and n_cjk > 0.2 * (n_cjk + n_lat):
        errors.append(f"{rec['_src']}: en line has too much CJK: {t[:60]}")


def main():
    errors = []
    attacks = plain("src_attacks_en.txt", "en", errors) + plain("src_attacks_zh.txt", "zh", errors)
    attacks += wrapped("src_carriers.txt", "carrier_", errors)
    legit = plain("src_legit_en.txt", "en", errors) + plain("src_legit_zh.txt", "zh", errors)
    legit += wrapped("src_legit_wrapped.txt", "benign_", errors)

    for r in attacks + legit:
        if "\n" in r["text"] or "\r" in r["text"]:
            errors.append(f"{r['_src']}: newline in text")
        if r["lang"] not in ("en", "zh"):
            errors.append(f"{r['_src']}: bad lang")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", r["style"]):
            errors.append(f"{r['_src']}: bad style {r['style']}")
        check_lang(r, errors)

    seen = {}
    for label, recs in (("attack", attacks), ("legit", legit)):
        for r in recs:
            k = norm(r["text"])
            if k in seen:
                errors.append(f"duplicate/overlap: {r['_src']} ({label}) vs {seen[k]}")
            else:
                seen[k] = f"{r['_src']} ({label})"

    stats = {}
    for label, recs in (("attacks", attacks), ("legit", legit)):
        n = len(recs)
        en = sum(r["lang"] == "en" for r in recs)
        zh = sum(r["lang"] == "zh" for r in recs)
        car = sum(is_carrier(r) for r in recs)
        stats[label] = {"n": n, "en": en, "zh": zh, "en_share": round(en / n, 3),
                        "zh_share": round(zh / n, 3), "carrier_like": car,
                        "carrier_share": round(car / n, 3)}
        if n < 270:
            errors.append(f"{label}: only {n} lines")
        if en / n < 0.40 or zh / n < 0.40:
            errors.append(f"{label}: language share violated {en}/{zh}")
    if stats["attacks"]["carrier_share"] > 0.25:
        errors.append("attacks: carrier share above 25%")

    if errors:
        print("BUILD FAILED", file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        sys.exit(1)

    rng = random.Random(36)
    for name, recs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        recs = list(recs)
        rng.shuffle(recs)
        with open(HERE / name, "w", encoding="utf-8", newline="\n") as f:
            for r in recs:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                   ensure_ascii=False) + "\n")
    styles = {}
    for label, recs in (("attacks", attacks), ("legit", legit)):
        c = {}
        for r in recs:
            c[r["style"]] = c.get(r["style"], 0) + 1
        styles[label] = dict(sorted(c.items()))
    print(json.dumps({"stats": stats, "styles": styles}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
