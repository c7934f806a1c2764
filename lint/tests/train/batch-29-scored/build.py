#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from hand-written src_*.txt files.

All paths are relative to this file's directory. Encodings for carrier
lines are computed here (never hand-typed)."""
import base64, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
P = lambda name: os.path.join(HERE, name)

STYLE_RE = re.compile(r'^[a-z][a-z0-9_]*$')
ZW_CHARS = ['\u200b', '\u200c', '\u200d', '\u2060']
CARRIER_STYLE = {
    'b64': 'carrier_base64', 'hex': 'carrier_hex', 'pct': 'carrier_percent',
    'ent': 'carrier_html_entity', 'zw': 'carrier_zero_width',
    'cmt': 'carrier_html_comment', 'js': 'carrier_link_javascript',
    'data': 'carrier_link_data', 'file': 'carrier_link_file',
}

def read_plain(name, lang):
    out = []
    with open(P(name), encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            style, _, text = line.partition(' ')
            if not STYLE_RE.match(style) or not text.strip():
                sys.exit(f'{name}:{n}: bad line')
            out.append({'text': text, 'lang': lang, 'style': style})
    return out

def encode(kind, payload, idx):
    b = payload.encode('utf-8')
    if kind == 'b64':
        return base64.b64encode(b).decode('ascii')
    if kind == 'hex':
        return b.hex()
    if kind == 'pct':
        return urllib.parse.quote(payload, safe='')
    if kind == 'ent':
        if idx % 2 == 0:
            return ''.join(f'&#{ord(c)};' for c in payload)
        return ''.join(f'&#x{ord(c):x};' for c in payload)
    if kind == 'zw':
        return ZW_CHARS[idx % len(ZW_CHARS)].join(payload)
    if kind == 'cmt':
        return f'<!-- {payload} -->'
    if kind == 'js':
        return 'javascript:' + urllib.parse.quote(payload, safe="()'+=:/?.,;_-")
    if kind == 'data':
        return 'data:text/plain;base64,' + base64.b64encode(b).decode('ascii')
    if kind == 'file':
        return 'file://' + payload
    raise ValueError(kind)

def read_carriers(name):
    out = []
    counters = {}
    with open(P(name), encoding='utf-8') as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            parts = [x.strip() for x in line.split(' ::: ')]
            if len(parts) != 4 or parts[0] not in CARRIER_STYLE or parts[1] not in ('en', 'zh') or '{X}' not in parts[2]:
                sys.exit(f'{name}:{n}: bad carrier line')
            kind, lang, tmpl, payload = parts
            i = counters.get(kind, 0); counters[kind] = i + 1
            text = tmpl.replace('{X}', encode(kind, payload, i))
            out.append({'text': text, 'lang': lang, 'style': CARRIER_STYLE[kind]})
    return out

def is_carrier(rec):
    return rec['style'].startswith('carrier_')

def main():
    attacks = read_plain('src_attacks_en.txt', 'en') + read_plain('src_attacks_zh.txt', 'zh') + read_carriers('src_carriers.txt')
    legit = read_plain('src_legit_en.txt', 'en') + read_plain('src_legit_zh.txt', 'zh')
    errors = []
    for label, recs in (('attack', attacks), ('legit', legit)):
        seen = set()
        for r in recs:
            t = r['text']
            if '\n' in t or '\r' in t:
                errors.append(f'{label}: newline in {t!r}')
            if t in seen:
                errors.append(f'{label}: duplicate {t!r}')
            seen.add(t)
            if label == 'legit' and r['style'].startswith('carrier_'):
                errors.append('legit line with carrier style')
            if not is_carrier(r):
                if any(z in t for z in ZW_CHARS) or '<!--' in t or re.search(r'\]\((javascript|data|file):', t):
                    errors.append(f'{label}: hidden carrier in non-carrier line {t!r}')
    both = {r['text'] for r in attacks} & {r['text'] for r in legit}
    for t in both:
        errors.append(f'line in both files: {t!r}')
    na, nl = len(attacks), len(legit)
    if na < 270: errors.append(f'too few attacks: {na}')
    if nl < 270: errors.append(f'too few legit: {nl}')
    stats = {}
    for label, recs in (('attacks', attacks), ('legit', legit)):
        n = len(recs)
        en = sum(r['lang'] == 'en' for r in recs) / n
        zh = sum(r['lang'] == 'zh' for r in recs) / n
        stats[label] = {'total': n, 'en_share': round(en, 3), 'zh_share': round(zh, 3)}
        if en < 0.40 or zh < 0.40:
            errors.append(f'{label}: language share en={en:.3f} zh={zh:.3f}')
        # a zh-labelled line must contain CJK; an en-labelled plain line should be mostly non-CJK
        for r in recs:
            has_cjk = re.search(r'[\u4e00-\u9fff]', r['text']) is not None
            if r['lang'] == 'zh' and not has_cjk and r['style'] not in ('carrier_base64', 'carrier_hex', 'carrier_percent', 'carrier_html_entity', 'carrier_link_javascript', 'carrier_link_data', 'carrier_link_file'):
                errors.append(f'zh line without CJK: {r["text"]!r}')
    nc = sum(is_carrier(r) for r in attacks)
    share = nc / na
    stats['attacks']['carriers'] = nc
    stats['attacks']['carrier_share'] = round(share, 3)
    if share > 0.25:
        errors.append(f'carrier share too high: {share:.3f}')
    if errors:
        print('\n'.join(errors)); sys.exit(1)
    for name, recs in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
        with open(P(name), 'w', encoding='utf-8', newline='\n') as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
    print(json.dumps(stats, ensure_ascii=False))
    from collections import Counter
    print('attack styles:', dict(Counter(r['style'] for r in attacks)))
    print('legit styles:', dict(Counter(r['style'] for r in legit)))

if __name__ == '__main__':
    main()
