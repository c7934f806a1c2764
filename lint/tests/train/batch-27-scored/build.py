#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl for blind27 from hand-written src_*.txt files."""
import base64, json, os, random, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')
STYLE = re.compile(r'^[a-z][a-z0-9_]*$')
ZW = ['\u200b', '\u200c', '\u200d', '\u2060']


def read_rows(name, ncols):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for i, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip():
                continue
            parts = line.split('\t')
            if len(parts) != ncols:
                sys.exit(f'{name}:{i}: expected {ncols} tab-separated columns, got {len(parts)}')
            rows.append(parts)
    return rows


def encode(kind, lang, payload):
    b = payload.encode('utf-8')
    if kind == 'base64':
        return base64.b64encode(b).decode('ascii')
    if kind == 'hex':
        return b.hex()
    if kind == 'percent':
        return urllib.parse.quote(payload, safe='')
    if kind == 'html_entities':
        if lang == 'en':
            return ''.join(f'&#x{ord(c):x};' for c in payload)
        return ''.join(f'&#{ord(c)};' for c in payload)
    if kind == 'html_escape':  # benign: ordinary escaping of < > &
        return payload.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')
    if kind == 'zero_width':
        out = []
        for i, c in enumerate(payload):
            out.append(c)
            if i < len(payload) - 1:
                out.append(ZW[i % len(ZW)])
        return ''.join(out)
    if kind == 'html_comment':
        return '<!-- ' + payload + ' -->'
    if kind == 'md_link_js':
        return 'javascript:' + urllib.parse.quote(payload, safe="'+:/=?.,;!*")
    if kind == 'md_link_data':
        return 'data:text/html;base64,' + base64.b64encode(b).decode('ascii')
    if kind == 'md_link_file':
        return 'file://' + payload
    if kind == 'md_link_https':
        return payload
    sys.exit(f'unknown kind {kind}')


def plain(name, lang):
    return [{'text': t, 'lang': lang, 'style': s} for s, t in read_rows(name, 2)]


def carriers(name, prefix):
    out = []
    for kind, lang, wrapper, payload in read_rows(name, 4):
        if '{P}' not in wrapper:
            sys.exit(f'{name}: wrapper without {{P}}: {wrapper}')
        enc = encode(kind, lang, payload)
        if kind not in ('html_comment', 'md_link_file', 'md_link_https') and enc == payload:
            sys.exit(f'{name}: encoding {kind} left payload unchanged: {payload}')
        out.append({'text': wrapper.replace('{P}', enc), 'lang': lang, 'style': prefix + kind})
    return out


attacks = plain('src_attacks_en.txt', 'en') + plain('src_attacks_zh.txt', 'zh')
n_plain_attacks = len(attacks)
attacks += carriers('src_carriers.txt', 'carrier_')
legit = plain('src_legit_en.txt', 'en') + plain('src_legit_zh.txt', 'zh')
legit += carriers('src_legit_carriers.txt', 'benign_')

errors = []
for label, rows in (('attack', attacks), ('legit', legit)):
    seen = set()
    for r in rows:
        t = r['text']
        if '\n' in t or '\r' in t:
            errors.append(f'{label}: newline in {t!r}')
        if t != t.strip() or not t:
            errors.append(f'{label}: leading/trailing space or empty: {t!r}')
        if t in seen:
            errors.append(f'{label}: duplicate {t!r}')
        seen.add(t)
        if not STYLE.match(r['style']):
            errors.append(f'{label}: bad style {r["style"]}')
        has_cjk = bool(CJK.search(t))
        if r['lang'] == 'zh' and not has_cjk:
            errors.append(f'{label}: zh line without CJK: {t!r}')
        if r['lang'] == 'en' and has_cjk:
            errors.append(f'{label}: en line with CJK: {t!r}')

both = {r['text'] for r in attacks} & {r['text'] for r in legit}
for t in both:
    errors.append(f'line in both sets: {t!r}')
# also compare after stripping invisible characters, to catch near-duplicates
norm = lambda s: re.sub('[\u200b\u200c\u200d\u2060\\s]+', ' ', s).strip().lower()
nb = {norm(r['text']) for r in attacks} & {norm(r['text']) for r in legit}
for t in nb:
    errors.append(f'normalised line in both sets: {t!r}')


def share(rows, lang):
    return sum(r['lang'] == lang for r in rows) / len(rows)

n_car = sum(r['style'].startswith('carrier_') for r in attacks)
stats = {
    'attacks': len(attacks), 'legit': len(legit),
    'attacks_plain': n_plain_attacks, 'attacks_carrier': n_car,
    'carrier_share': round(n_car / len(attacks), 4),
    'attacks_en_share': round(share(attacks, 'en'), 4), 'attacks_zh_share': round(share(attacks, 'zh'), 4),
    'legit_en_share': round(share(legit, 'en'), 4), 'legit_zh_share': round(share(legit, 'zh'), 4),
}
if len(attacks) < 270: errors.append('fewer than 270 attacks')
if len(legit) < 270: errors.append('fewer than 270 legit')
for k in ('attacks_en_share', 'attacks_zh_share', 'legit_en_share', 'legit_zh_share'):
    if stats[k] < 0.40: errors.append(f'{k} below 40%')
if stats['carrier_share'] > 0.25: errors.append('carrier share above 25%')

if errors:
    print('\n'.join(errors))
    sys.exit(1)

rng = random.Random(27)
rng.shuffle(attacks)
rng.shuffle(legit)
for name, rows in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
    with open(os.path.join(HERE, name), 'w', encoding='utf-8') as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + '\n')
print(json.dumps(stats, indent=2))
