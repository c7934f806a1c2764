#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for the blind45 evaluation set.

Reads the hand-written src_*.txt files that sit next to this script,
computes every encoding (never hand-typed), runs the consistency checks
and writes the two jsonl files into the same directory.
"""
import base64
import json
import os
import random
import re
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r"[\u4e00-\u9fff]")
ZW = ["\u200b", "\u200c", "\u2060"]


def p(name):
    return os.path.join(HERE, name)


def read_plain(name, label, lang):
    rows = []
    with open(p(name), encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("# "):
                continue
            parts = line.split("\t", 1)
            if len(parts) != 2 or not parts[1].strip():
                sys.exit(f"{name}:{n}: expected 'style<TAB>text'")
            style, text = parts[0].strip(), parts[1]
            rows.append({"label": label, "text": text, "lang": lang, "style": style, "src": f"{name}:{n}"})
    return rows


def encode(kind, payload, idx):
    if kind == "b64":
        return base64.b64encode(payload.encode("utf-8")).decode("ascii")
    if kind == "hex":
        return payload.encode("utf-8").hex()
    if kind == "pct":
        return urllib.parse.quote(payload, safe="")
    if kind == "ent":
        if idx % 2:
            return "".join(f"&#x{ord(c):x};" for c in payload)
        return "".join(f"&#{ord(c)};" for c in payload)
    if kind == "zw":
        z = ZW[idx % len(ZW)]
        return z.join(payload)
    if kind == "none":
        return payload
    sys.exit(f"unknown encoding {kind}")


def read_carriers(name):
    rows = []
    with open(p(name), encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.startswith("# "):
                continue
            parts = line.split("\t")
            if len(parts) != 6:
                sys.exit(f"{name}:{n}: expected 6 tab-separated fields, got {len(parts)}")
            label, style, lang, kind, template, payload = parts
            if "{P}" not in template:
                sys.exit(f"{name}:{n}: template lacks {{P}}")
            enc = encode(kind, payload, n)
            # round-trip check of the computed encoding
            if kind == "b64":
                assert base64.b64decode(enc).decode("utf-8") == payload
            elif kind == "hex":
                assert bytes.fromhex(enc).decode("utf-8") == payload
            elif kind == "pct":
                assert urllib.parse.unquote(enc) == payload
            elif kind == "zw":
                assert "".join(c for c in enc if c not in ZW) == payload
            text = template.replace("{P}", enc)
            rows.append({"label": label, "text": text, "lang": lang, "style": style,
                         "src": f"{name}:{n}", "payload": template.replace("{P}", payload)})
    return rows


def main():
    rows = []
    rows += read_plain("src_attack_en.txt", "attack", "en")
    rows += read_plain("src_attack_zh.txt", "attack", "zh")
    rows += read_plain("src_legit_en.txt", "legit", "en")
    rows += read_plain("src_legit_zh.txt", "legit", "zh")
    rows += read_carriers("src_carrier.txt")

    errors = []
    seen = {}
    for r in rows:
        t = r["text"]
        if "\n" in t or "\r" in t:
            errors.append(f"newline in {r['src']}")
        if t != t.strip() and not t.startswith(" "):
            errors.append(f"trailing whitespace in {r['src']}")
        if r["lang"] not in ("en", "zh"):
            errors.append(f"bad lang in {r['src']}")
        probe = r.get("payload", t)
        if r["lang"] == "zh" and not CJK.search(probe):
            errors.append(f"zh line without CJK: {r['src']}")
        if r["lang"] == "en":
            cjk = len(CJK.findall(probe))
            if cjk and cjk / max(1, len(probe)) > 0.15:
                errors.append(f"en line mostly CJK: {r['src']}")
        key = t.strip()
        if key in seen:
            other = seen[key]
            if other["label"] != r["label"]:
                errors.append(f"line both attack and legit: {r['src']} / {other['src']}")
            else:
                errors.append(f"duplicate: {r['src']} / {other['src']}")
        else:
            seen[key] = r

    attacks = [r for r in rows if r["label"] == "attack"]
    legit = [r for r in rows if r["label"] == "legit"]
    carriers = [r for r in attacks if r["style"].startswith("carrier_")]

    def share(rs, lang):
        return sum(1 for r in rs if r["lang"] == lang) / max(1, len(rs))

    if len(attacks) < 270:
        errors.append(f"only {len(attacks)} attacks")
    if len(legit) < 270:
        errors.append(f"only {len(legit)} legit")
    for nm, rs in (("attacks", attacks), ("legit", legit)):
        for lang in ("en", "zh"):
            if share(rs, lang) < 0.40:
                errors.append(f"{nm}: {lang} share {share(rs, lang):.3f} < 0.40")
    if len(carriers) / len(attacks) > 0.25:
        errors.append(f"carrier share {len(carriers) / len(attacks):.3f} > 0.25")
    if any(r["style"].startswith("carrier_") for r in legit):
        errors.append("legit row uses a carrier_ style label")

    if errors:
        print("\n".join(errors))
        sys.exit(1)

    rng = random.Random(45)
    for name, rs in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        rs = list(rs)
        rng.shuffle(rs)
        with open(p(name), "w", encoding="utf-8") as fh:
            for r in rs:
                fh.write(json.dumps({"text": r["text"], "lang": r["lang"], "style": r["style"]},
                                    ensure_ascii=False) + "\n")

    print(f"attacks: {len(attacks)} (en {share(attacks, 'en'):.3f}, zh {share(attacks, 'zh'):.3f}), "
          f"carriers {len(carriers)} ({len(carriers) / len(attacks):.3f})")
    print(f"legit:   {len(legit)} (en {share(legit, 'en'):.3f}, zh {share(legit, 'zh'):.3f})")
    styles = {}
    for r in rows:
        styles.setdefault((r["label"], r["style"]), 0)
        styles[(r["label"], r["style"])] += 1
    print("styles:", ", ".join(f"{l}/{s}={c}" for (l, s), c in sorted(styles.items())))


if __name__ == "__main__":
    main()
