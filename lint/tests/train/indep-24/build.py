#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files.

Plain source lines: "<style> <text>" (style = first token, snake_case).
Carrier source lines: "<kind> ||| <lang> ||| <wrapper with {P}> ||| <payload>";
the encoded payload is computed here, never typed by hand.
"""
import base64, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r"[\u4e00-\u9fff]")
STYLE = re.compile(r"^[a-z][a-z0-9_]*$")


def read_plain(name, lang):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            style, _, text = line.partition(" ")
            assert STYLE.match(style), (name, n, style)
            text = text.strip()
            assert text, (name, n)
            out.append({"text": text, "lang": lang, "style": style})
    return out


def encode(kind, payload):
    b = payload.encode("utf-8")
    if kind == "base64":
        return base64.b64encode(b).decode("ascii")
    if kind == "hex":
        return b.hex()
    if kind == "percent":
        return urllib.parse.quote(payload, safe="")
    if kind == "html_entities":
        return "".join("&#x%X;" % ord(c) for c in payload)
    if kind == "zero_width":
        return "\u200b".join(payload)
    if kind == "html_comment":
        return "<!-- " + payload + " -->"
    if kind == "md_js":
        return "javascript:" + payload
    if kind == "md_data":
        return "data:text/html;base64," + base64.b64encode(b).decode("ascii")
    if kind == "md_file":
        return "file://" + payload
    raise ValueError(kind)


def read_carriers(name):
    out = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip():
                continue
            parts = [p.strip() for p in line.split(" ||| ")]
            assert len(parts) == 4, (name, n, parts)
            kind, lang, wrapper, payload = parts
            assert lang in ("en", "zh") and "{P}" in wrapper, (name, n)
            text = wrapper.replace("{P}", encode(kind, payload))
            out.append({"text": text, "lang": lang, "style": "carrier_" + kind})
    return out


def main():
    attacks = (read_plain("src_attack_zh.txt", "zh") + read_plain("src_attack_en.txt", "en")
               + read_carriers("src_carrier.txt"))
    legit = read_plain("src_legit_zh.txt", "zh") + read_plain("src_legit_en.txt", "en")

    errors = []
    for label, rows in (("attacks", attacks), ("legit", legit)):
        seen = set()
        for r in rows:
            t = r["text"]
            if "\n" in t or "\r" in t:
                errors.append(f"{label}: newline in {t!r}")
            if t in seen:
                errors.append(f"{label}: duplicate {t!r}")
            seen.add(t)
            n_cjk = len(CJK.findall(t))
            if r["lang"] == "zh" and n_cjk == 0:
                errors.append(f"{label}: zh line without CJK {t!r}")
            if r["lang"] == "en" and n_cjk > 6:
                errors.append(f"{label}: en line with much CJK {t!r}")
    both = {r["text"] for r in attacks} & {r["text"] for r in legit}
    for t in sorted(both):
        errors.append(f"in both files: {t!r}")

    stats = {}
    for label, rows in (("attacks", attacks), ("legit", legit)):
        n = len(rows)
        zh = sum(r["lang"] == "zh" for r in rows)
        en = sum(r["lang"] == "en" for r in rows)
        car = sum(r["style"].startswith("carrier_") for r in rows)
        stats[label] = dict(total=n, zh=zh, en=en, zh_share=round(zh / n, 3),
                            en_share=round(en / n, 3), carriers=car,
                            carrier_share=round(car / n, 3),
                            styles=len({r["style"] for r in rows}))
        if n < 270:
            errors.append(f"{label}: only {n} lines")
        if zh / n < 0.5:
            errors.append(f"{label}: zh share {zh/n:.3f} < 0.5")
        if en / n < 0.4:
            errors.append(f"{label}: en share {en/n:.3f} < 0.4")
    if stats["attacks"]["carrier_share"] > 0.25:
        errors.append("carrier share above 25%")
    if stats["legit"]["carriers"]:
        errors.append("legit file contains carrier-style lines")

    print(json.dumps(stats, ensure_ascii=False, indent=2))
    if errors:
        print("\n".join(errors), file=sys.stderr)
        sys.exit(1)

    for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
        with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print("wrote attacks.jsonl and legit.jsonl")


if __name__ == "__main__":
    main()
