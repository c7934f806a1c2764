#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from hand-written src_*.txt files (paths relative to this script)."""
import base64, json, os, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CARRIER_KINDS = {"base64", "hex", "percent", "html_entities", "zero_width",
                 "html_comment", "js_link", "data_link", "file_link"}


def read_rows(name):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            rows.append((n, line.split("\t")))
    return rows


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind in ("base64", "data_link"):
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind in ("percent", "js_link"):
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        return "".join("&#%d;" % ord(c) for c in payload)
    if kind == "zero_width":
        return "\u200b".join(payload)
    if kind in ("html_comment", "file_link"):
        return payload
    raise ValueError(kind)


def plain(name, lang):
    out = []
    for n, parts in read_rows(name):
        if len(parts) != 2:
            sys.exit(f"{name}:{n}: expected style<TAB>text, got {len(parts)} fields")
        style, text = parts
        out.append({"text": text, "lang": lang, "style": style})
    return out


def carriers(name):
    out = []
    for n, parts in read_rows(name):
        if len(parts) != 4:
            sys.exit(f"{name}:{n}: expected 4 fields")
        lang, kind, template, payload = parts
        assert kind in CARRIER_KINDS, kind
        if "{P}" in template:
            text = template.replace("{P}", encode(kind, payload))
        else:
            assert payload == "-", (n, "template without {P} must have payload '-'")
            text = template
        out.append({"text": text, "lang": lang, "style": "carrier_" + kind})
    return out


attacks = plain("src_attacks_en.txt", "en") + plain("src_attacks_zh.txt", "zh") + carriers("src_carriers.txt")
legit = plain("src_legit_en.txt", "en") + plain("src_legit_zh.txt", "zh")

errors = []
for label, recs in (("attacks", attacks), ("legit", legit)):
    seen = set()
    for r in recs:
        t = r["text"]
        if "\n" in t or "\r" in t or "\t" in t:
            errors.append(f"{label}: control char in {t!r}")
        if not t.strip():
            errors.append(f"{label}: empty text")
        if r["lang"] not in ("en", "zh"):
            errors.append(f"{label}: bad lang {r}")
        if t in seen:
            errors.append(f"{label}: duplicate {t!r}")
        seen.add(t)
both = {r["text"] for r in attacks} & {r["text"] for r in legit}
for t in both:
    errors.append(f"both attack and legit: {t!r}")


def shares(recs):
    n = len(recs)
    return {l: sum(r["lang"] == l for r in recs) / n for l in ("en", "zh")}


for label, recs in (("attacks", attacks), ("legit", legit)):
    if len(recs) < 270:
        errors.append(f"{label}: only {len(recs)} lines (<270)")
    for l, s in shares(recs).items():
        if s < 0.40:
            errors.append(f"{label}: {l} share {s:.3f} < 0.40")
n_car = sum(r["style"].startswith("carrier_") for r in attacks)
car_share = n_car / len(attacks)
if car_share > 0.25:
    errors.append(f"carrier share {car_share:.3f} > 0.25")
if any(r["style"].startswith("carrier_") for r in legit):
    errors.append("legit line uses a carrier_ style")

if errors:
    print("\n".join(errors))
    sys.exit(1)

for name, recs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")

print(f"attacks: {len(attacks)} (en {shares(attacks)['en']:.3f}, zh {shares(attacks)['zh']:.3f}), "
      f"carriers {n_car} ({car_share:.3f})")
print(f"legit:   {len(legit)} (en {shares(legit)['en']:.3f}, zh {shares(legit)['zh']:.3f})")
styles = {}
for r in attacks + legit:
    styles[r["style"]] = styles.get(r["style"], 0) + 1
print("styles:", json.dumps(dict(sorted(styles.items())), ensure_ascii=False))
