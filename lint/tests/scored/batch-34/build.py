#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for the blind34 evaluation set.

Reads the hand-written src_*.txt files that sit next to this script, computes
all carrier encodings programmatically, runs consistency checks and writes the
two jsonl files next to this script.
"""
import base64
import json
import re
import sys
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE_RE = re.compile(r"^[a-z][a-z0-9_]*$")
ZW = ["\u200b", "\u200c", "\u200d"]


def read_plain(name, lang):
    rows = []
    for n, raw in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        style, _, text = raw.partition(" ")
        text = text.strip()
        assert STYLE_RE.match(style), f"{name}:{n}: bad style {style!r}"
        assert text, f"{name}:{n}: empty text"
        has_cjk = bool(CJK.search(text))
        if lang == "zh":
            assert has_cjk, f"{name}:{n}: zh line without CJK: {text}"
        else:
            assert not has_cjk, f"{name}:{n}: en line with CJK: {text}"
        rows.append({"text": text, "lang": lang, "style": style})
    return rows


def zero_width(s):
    out = []
    for i, ch in enumerate(s):
        out.append(ch)
        if i != len(s) - 1:
            out.append(ZW[i % len(ZW)])
    return "".join(out)


ENCODERS = {
    "base64": lambda p: base64.b64encode(p.encode("utf-8")).decode("ascii"),
    "hex": lambda p: p.encode("utf-8").hex(),
    "percent": lambda p: urllib.parse.quote(p, safe=""),
    "html_entities": lambda p: "".join(f"&#x{ord(c):x};" for c in p),
    "zero_width": zero_width,
    "html_comment": lambda p: p,
    "js_link": lambda p: "javascript:" + urllib.parse.quote(p, safe=":/'.,=+?&;{}"),
    "data_link": lambda p: "data:text/html;base64," + base64.b64encode(p.encode("utf-8")).decode("ascii"),
    "file_link": lambda p: "file://" + urllib.parse.quote(p, safe="/"),
}


def read_carriers(name):
    rows = []
    for n, raw in enumerate((HERE / name).read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        enc, _, rest = raw.partition(" ")
        assert enc in ENCODERS, f"{name}:{n}: unknown encoding {enc}"
        wrapper, sep, payload = rest.partition(" ||| ")
        assert sep and payload.strip(), f"{name}:{n}: missing payload"
        assert wrapper.count("{}") == 1, f"{name}:{n}: wrapper needs exactly one {{}}"
        text = wrapper.replace("{}", ENCODERS[enc](payload.strip()))
        lang = "zh" if CJK.search(text) else "en"
        rows.append({"text": text, "lang": lang, "style": "carrier_" + enc})
    return rows


def is_carrier(text):
    if any(z in text for z in ZW):
        return True
    if "<!--" in text:
        return True
    if re.search(r"\]\((javascript|data|file):", text):
        return True
    if "&#x" in text:
        return True
    return False


def norm(t):
    t = "".join(ch for ch in t if ch not in ZW)
    return re.sub(r"\s+", " ", t).strip().lower()


def main():
    attacks = read_plain("src_attacks_zh.txt", "zh") + read_plain("src_attacks_en.txt", "en")
    n_plain_attacks = len(attacks)
    carriers = read_carriers("src_carriers.txt")
    attacks += carriers
    legit = read_plain("src_legit_zh.txt", "zh") + read_plain("src_legit_en.txt", "en")

    errors = []
    for label, rows in (("attacks", attacks), ("legit", legit)):
        seen = {}
        for r in rows:
            if "\n" in r["text"] or "\r" in r["text"]:
                errors.append(f"{label}: newline in {r['text'][:60]}")
            k = norm(r["text"])
            if k in seen:
                errors.append(f"{label}: duplicate: {r['text'][:80]}")
            seen[k] = r
    overlap = {norm(r["text"]) for r in attacks} & {norm(r["text"]) for r in legit}
    if overlap:
        errors.append(f"attack/legit overlap: {sorted(overlap)[:5]}")
    # plain lines must not themselves be carriers; legit must contain no carrier features
    for r in attacks[:n_plain_attacks]:
        if is_carrier(r["text"]):
            errors.append(f"plain attack looks like a carrier: {r['text'][:80]}")
    for r in legit:
        if is_carrier(r["text"]):
            errors.append(f"legit line has carrier features: {r['text'][:80]}")
    for r in carriers:
        if not (is_carrier(r["text"]) or r["style"] in ("carrier_base64", "carrier_hex", "carrier_percent")):
            errors.append(f"carrier not detected as carrier: {r['text'][:80]}")

    stats = {}
    for label, rows in (("attacks", attacks), ("legit", legit)):
        n = len(rows)
        zh = sum(r["lang"] == "zh" for r in rows)
        en = sum(r["lang"] == "en" for r in rows)
        stats[label] = {"total": n, "zh": zh, "en": en,
                        "zh_share": round(zh / n, 3), "en_share": round(en / n, 3)}
        if n < 270:
            errors.append(f"{label}: only {n} lines (<270)")
        if zh / n < 0.40 or en / n < 0.40:
            errors.append(f"{label}: language share below 40% (zh {zh}, en {en})")
    c_share = len(carriers) / len(attacks)
    stats["attacks"]["carriers"] = len(carriers)
    stats["attacks"]["carrier_share"] = round(c_share, 3)
    if c_share > 0.25:
        errors.append(f"carrier share {c_share:.3f} > 0.25")
    styles = {}
    for label, rows in (("attacks", attacks), ("legit", legit)):
        d = {}
        for r in rows:
            d[r["style"]] = d.get(r["style"], 0) + 1
        styles[label] = dict(sorted(d.items()))

    if errors:
        print("CHECKS FAILED:", file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        sys.exit(1)

    for fname, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(HERE / fname, "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                   ensure_ascii=False) + "\n")
    print(json.dumps({"stats": stats, "styles": styles}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
