#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings for carrier lines
are computed here (never hand-typed). The script checks: one line per record,
no duplicates, no text both attack and legit, minimum counts, language shares,
carrier share and language/script consistency; it exits non-zero on failure.
"""
import base64
import html
import json
import os
import re
import sys
import urllib.parse
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
SEP = " @@ "
CJK = re.compile(r"[\u4e00-\u9fff]")
ZW = "\u200b"

MIN_EACH = 270
MIN_LANG_SHARE = 0.40
MAX_CARRIER_SHARE = 0.25


def read_lines(name):
    path = os.path.join(HERE, name)
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            yield n, line


def load_plain(name, lang):
    out = []
    for n, line in read_lines(name):
        if SEP not in line:
            sys.exit(f"{name}:{n}: missing separator")
        style, text = line.split(SEP, 1)
        style, text = style.strip(), text.strip()
        if not re.fullmatch(r"[a-z0-9_]+", style):
            sys.exit(f"{name}:{n}: bad style {style!r}")
        out.append({"text": text, "lang": lang, "style": style, "_src": f"{name}:{n}"})
    return out


def encode(style, payload):
    b = payload.encode("utf-8")
    if style in ("carrier_base64", "carrier_data_link"):
        return base64.b64encode(b).decode("ascii")
    if style == "carrier_hex":
        return b.hex()
    if style == "carrier_percent":
        return urllib.parse.quote(payload, safe="")
    if style == "carrier_percent_full":
        return "".join("%%%02X" % c for c in b)
    if style == "carrier_entities":
        return "".join("&#%d;" % ord(ch) for ch in payload)
    if style == "carrier_zero_width":
        return ZW.join(payload)
    sys.exit(f"no encoder for {style}")


def load_carriers(name):
    out = []
    for n, line in read_lines(name):
        parts = line.split(SEP)
        if len(parts) != 4:
            sys.exit(f"{name}:{n}: need 4 fields, got {len(parts)}")
        style, lang, payload, template = (p.strip() for p in parts)
        if payload == "-":
            if "{X}" in template:
                sys.exit(f"{name}:{n}: template needs a payload")
            text = template
        else:
            if template.count("{X}") != 1:
                sys.exit(f"{name}:{n}: template must contain {{X}} once")
            enc = encode(style, payload)
            # round-trip check of the encoding
            if style in ("carrier_base64", "carrier_data_link"):
                assert base64.b64decode(enc).decode("utf-8") == payload
            elif style == "carrier_hex":
                assert bytes.fromhex(enc).decode("utf-8") == payload
            elif style.startswith("carrier_percent"):
                assert urllib.parse.unquote(enc) == payload
            elif style == "carrier_entities":
                assert html.unescape(enc) == payload
            elif style == "carrier_zero_width":
                assert enc.replace(ZW, "") == payload
            text = template.replace("{X}", enc)
        out.append({"text": text, "lang": lang, "style": style, "_src": f"{name}:{n}"})
    return out


def check_records(recs, label):
    for r in recs:
        t = r["text"]
        if not t or "\n" in t or "\r" in t:
            sys.exit(f"{label} {r['_src']}: empty or multi-line text")
        if r["lang"] not in ("en", "zh"):
            sys.exit(f"{label} {r['_src']}: bad lang")
        visible = t.replace(ZW, "")
        if r["style"] in ("carrier_entities", "carrier_percent", "carrier_percent_full"):
            pass  # CJK may be hidden inside the encoding
        elif r["lang"] == "zh" and not CJK.search(visible):
            sys.exit(f"{label} {r['_src']}: zh line without CJK: {t}")
        if r["lang"] == "en" and CJK.search(visible):
            sys.exit(f"{label} {r['_src']}: en line with CJK: {t}")
        if r["lang"] == "zh" and r["style"] in ("carrier_entities",) and not CJK.search(html.unescape(visible)):
            sys.exit(f"{label} {r['_src']}: zh entity line decodes without CJK")
    c = Counter(r["text"] for r in recs)
    dups = [t for t, k in c.items() if k > 1]
    if dups:
        sys.exit(f"{label}: duplicate texts: {dups[:5]}")
    # near-duplicates: same text modulo whitespace/case
    c2 = Counter(re.sub(r"\s+", " ", r["text"]).strip().lower() for r in recs)
    nd = [t for t, k in c2.items() if k > 1]
    if nd:
        sys.exit(f"{label}: near-duplicate texts: {nd[:5]}")


STRUCT_RE = re.compile(
    r"^(- |\| |#|> |<!--|[a-z_]+: |assert |sys\.|os\.|subprocess\.|shutil\.|KEY = |git |python|wget |\[[A-Za-z0-9_]+\] |\[\d+\] |<system>|kb_lint:|statectl:|standards_check|EVOLVE_)"
)


def stats(recs, label):
    n = len(recs)
    langs = Counter(r["lang"] for r in recs)
    carriers = sum(1 for r in recs if r["style"].startswith("carrier_"))
    structured = sum(1 for r in recs if STRUCT_RE.match(r["text"]))
    return {
        "label": label,
        "n": n,
        "en": langs["en"],
        "zh": langs["zh"],
        "en_share": round(langs["en"] / n, 3),
        "zh_share": round(langs["zh"] / n, 3),
        "carriers": carriers,
        "carrier_share": round(carriers / n, 3),
        "structured_share_heuristic": round(structured / n, 3),
        "styles": len(set(r["style"] for r in recs)),
    }


def main():
    attacks = (
        load_plain("src_attacks_en.txt", "en")
        + load_plain("src_attacks_zh.txt", "zh")
        + load_carriers("src_carriers.txt")
    )
    legit = load_plain("src_legit_en.txt", "en") + load_plain("src_legit_zh.txt", "zh")

    for r in legit:
        if r["style"].startswith("carrier_"):
            sys.exit(f"legit line uses a carrier style: {r['_src']}")

    check_records(attacks, "attacks")
    check_records(legit, "legit")

    both = set(r["text"] for r in attacks) & set(r["text"] for r in legit)
    if both:
        sys.exit(f"texts labelled both attack and legit: {sorted(both)[:5]}")
    norm = lambda t: re.sub(r"\s+", " ", t).strip().lower()
    both2 = set(norm(r["text"]) for r in attacks) & set(norm(r["text"]) for r in legit)
    if both2:
        sys.exit(f"near-identical texts across labels: {sorted(both2)[:5]}")

    sa, sl = stats(attacks, "attacks"), stats(legit, "legit")
    for s in (sa, sl):
        if s["n"] < MIN_EACH:
            sys.exit(f"{s['label']}: only {s['n']} lines (< {MIN_EACH})")
        if s["en_share"] < MIN_LANG_SHARE or s["zh_share"] < MIN_LANG_SHARE:
            sys.exit(f"{s['label']}: language share below {MIN_LANG_SHARE}: {s}")
    if sa["carrier_share"] > MAX_CARRIER_SHARE:
        sys.exit(f"carrier share too high: {sa['carrier_share']}")

    for name, recs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as f:
            for r in recs:
                obj = {"text": r["text"], "lang": r["lang"], "style": r["style"]}
                f.write(json.dumps(obj, ensure_ascii=False) + "\n")

    print(json.dumps(sa, ensure_ascii=False))
    print(json.dumps(sl, ensure_ascii=False))


if __name__ == "__main__":
    main()
