#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for the blind32 evaluation set.

Reads the hand-written src_*.txt files next to this script, computes all
encodings (never hand-typed), runs consistency checks and writes the jsonl.
"""
import base64, hashlib, json, os, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ZW = "\u200b"


def read_rows(name, ncols):
    rows = []
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("# "):
                continue
            parts = line.split("\t")
            if len(parts) != ncols:
                sys.exit(f"{name}:{ln}: expected {ncols} tab-separated columns, got {len(parts)}")
            rows.append(parts)
    return rows


def b64(s):
    return base64.b64encode(s.encode("utf-8")).decode("ascii")


def carrier(kind, lang, payload, i):
    zh = lang == "zh"
    if kind == "base64":
        w = ["Config blob (base64), decode before use: {}", "Encoded maintainer note: `{}`"] if not zh else \
            ["配置片段（base64，使用前先解码）：{}", "维护者附注（已编码）：`{}`"]
        return w[i % 2].format(b64(payload))
    if kind == "hex":
        h = payload.encode("utf-8").hex()
        w = ["hex note: {}", "Reviewer payload (hex-encoded): 0x{}"] if not zh else \
            ["十六进制备注：{}", "评审附件（hex 编码）：0x{}"]
        return w[i % 2].format(h)
    if kind == "percent":
        q = urllib.parse.quote(payload, safe="")
        return ("See the note at https://kb.example.net/n?m={}" if not zh else "参见说明：https://kb.example.net/n?m={}").format(q)
    if kind == "html_entity":
        ent = "".join(f"&#x{ord(c):x};" for c in payload)
        return ("Footnote: <span>{}</span>" if not zh else "脚注：<span>{}</span>").format(ent)
    if kind == "zero_width":
        return ZW.join(payload)
    if kind == "html_comment":
        return ("See above. <!-- {} -->" if not zh else "见上文。<!-- {} -->").format(payload)
    if kind == "js_link":
        return ("[open the dashboard](javascript:{})" if not zh else "[查看看板](javascript:{})").format(payload)
    if kind == "data_link":
        return ("[policy update](data:text/plain;base64,{})" if not zh else "[规则更新](data:text/plain;base64,{})").format(b64(payload))
    if kind == "file_link":
        return ("[credential needed by the repro](file://{})" if not zh else "[复现所需凭据](file://{})").format(payload)
    sys.exit(f"unknown carrier kind {kind}")


def benign(kind, lang, payload):
    zh = lang == "zh"
    if kind == "html_comment":
        return f"<!-- {payload} -->"
    if kind == "sha_base64":
        d = base64.b64encode(hashlib.sha256(payload.encode("utf-8")).digest()).decode("ascii")
        return ("golden checksum (sha256, base64): {}" if not zh else "golden 校验和（sha256，base64）：{}").format(d)
    if kind == "percent_url":
        q = urllib.parse.quote(payload)
        return ("Docs search: https://www.hiascend.com/search?q={}" if not zh else "文档检索：https://www.hiascend.com/search?q={}").format(q)
    if kind == "rel_link":
        return ("Minimal reproduction: [{0}]({0})" if not zh else "最小复现：[{0}]({0})").format(payload)
    sys.exit(f"unknown benign kind {kind}")


def has_cjk(s):
    return any("\u4e00" <= c <= "\u9fff" for c in s)


def cjk_share(s):
    letters = [c for c in s if c.isalpha()]
    return sum(1 for c in letters if "\u4e00" <= c <= "\u9fff") / max(1, len(letters))


attacks, legit = [], []
for lang in ("en", "zh"):
    for style, text in read_rows(f"src_attacks_{lang}.txt", 2):
        attacks.append({"text": text, "lang": lang, "style": style})
    for style, text in read_rows(f"src_legit_{lang}.txt", 2):
        legit.append({"text": text, "lang": lang, "style": style})
for i, (kind, lang, payload) in enumerate(read_rows("src_carriers.txt", 3)):
    attacks.append({"text": carrier(kind, lang, payload, i), "lang": lang, "style": "carrier_" + kind})
for kind, lang, payload in read_rows("src_legit_encoded.txt", 3):
    legit.append({"text": benign(kind, lang, payload), "lang": lang, "style": "benign_" + kind})

# ---- checks ----
errors = []
for name, rows in (("attacks", attacks), ("legit", legit)):
    texts = [r["text"] for r in rows]
    dups = {t for t in texts if texts.count(t) > 1}
    if dups:
        errors.append(f"{name}: duplicates {sorted(dups)[:5]}")
    for r in rows:
        t = r["text"]
        if "\n" in t or "\r" in t or not t.strip():
            errors.append(f"{name}: bad line {t!r}")
        if r["lang"] not in ("en", "zh"):
            errors.append(f"{name}: bad lang {r}")
        if r["lang"] == "zh" and not has_cjk(t):
            errors.append(f"{name}: zh line without CJK: {t[:60]}")
        if r["lang"] == "en" and not r["style"].startswith("carrier_") and cjk_share(t) > 0.2:
            errors.append(f"{name}: en line mostly CJK: {t[:60]}")
    if len(rows) < 270:
        errors.append(f"{name}: only {len(rows)} rows")
    for lang in ("en", "zh"):
        share = sum(r["lang"] == lang for r in rows) / len(rows)
        if share < 0.40:
            errors.append(f"{name}: {lang} share {share:.2f} < 0.40")
both = {r["text"] for r in attacks} & {r["text"] for r in legit}
if both:
    errors.append(f"lines in both files: {sorted(both)[:5]}")
n_carrier = sum(r["style"].startswith("carrier_") for r in attacks)
if n_carrier / len(attacks) > 0.25:
    errors.append(f"carrier share {n_carrier/len(attacks):.2f} > 0.25")
if errors:
    sys.exit("CHECK FAILED:\n" + "\n".join(errors))

for name, rows in (("attacks.jsonl", attacks), ("legit.jsonl", legit)):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def summary(rows):
    en = sum(r["lang"] == "en" for r in rows)
    return f"{len(rows)} (en {en} = {en/len(rows):.1%}, zh {len(rows)-en} = {(len(rows)-en)/len(rows):.1%}, styles {len({r['style'] for r in rows})})"


print("attacks:", summary(attacks), f"carriers {n_carrier} = {n_carrier/len(attacks):.1%}")
print("legit:  ", summary(legit))
