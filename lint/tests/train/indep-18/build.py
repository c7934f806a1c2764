#!/usr/bin/env python3
"""Build attacks.jsonl / legit.jsonl from the hand-written src_*.txt files in this directory."""
import base64, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')
STYLE = re.compile(r'^[a-z][a-z0-9_]*$')

def read_plain(name, lang):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            style, text = line.split('\t', 1)
            rows.append({'text': text, 'lang': lang, 'style': style, '_src': f'{name}:{n}'})
    return rows

def encode(enc, payload):
    b = payload.encode('utf-8')
    if enc == 'base64':
        return base64.b64encode(b).decode('ascii')
    if enc == 'hex':
        return b.hex()
    if enc == 'percent':
        return urllib.parse.quote(payload, safe='')
    if enc == 'entity':
        return ''.join(f'&#{ord(c)};' for c in payload)
    if enc == 'zw':
        return '\u200b'.join(payload)
    if enc in ('comment', 'jslink', 'filelink'):
        return payload
    if enc == 'datalink':
        return 'data:text/html;base64,' + base64.b64encode(b).decode('ascii')
    raise ValueError(enc)

STYLE_OF = {'base64': 'carrier_base64', 'hex': 'carrier_hex', 'percent': 'carrier_percent',
            'entity': 'carrier_html_entity', 'zw': 'carrier_zero_width', 'comment': 'carrier_html_comment',
            'jslink': 'carrier_js_link', 'datalink': 'carrier_data_link', 'filelink': 'carrier_file_link'}

def read_carriers(name):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            enc, lang, wrapper, payload = line.split('\t')
            assert '{}' in wrapper, (name, n)
            text = wrapper.replace('{}', encode(enc, payload))
            rows.append({'text': text, 'lang': lang, 'style': STYLE_OF[enc], '_src': f'{name}:{n}', '_carrier': True})
    return rows

def main():
    attacks = read_plain('src_attacks_zh.txt', 'zh') + read_plain('src_attacks_en.txt', 'en') + read_carriers('src_carriers.txt')
    legit = read_plain('src_legit_zh.txt', 'zh') + read_plain('src_legit_en.txt', 'en')
    errors = []
    for label, rows in (('attack', attacks), ('legit', legit)):
        seen = {}
        for r in rows:
            t = r['text']
            if '\n' in t or '\r' in t or not t.strip():
                errors.append(f'{label} bad text {r["_src"]}')
            if not STYLE.match(r['style']):
                errors.append(f'{label} bad style {r["_src"]}')
            if r['lang'] not in ('zh', 'en'):
                errors.append(f'{label} bad lang {r["_src"]}')
            # plain (non-carrier) lines: lang must match script
            if not r.get('_carrier'):
                has = bool(CJK.search(t))
                if (r['lang'] == 'zh') != has:
                    errors.append(f'{label} lang/script mismatch {r["_src"]}: {t[:40]}')
            if t in seen:
                errors.append(f'{label} duplicate {r["_src"]} == {seen[t]}')
            seen[t] = r['_src']
    both = {r['text'] for r in attacks} & {r['text'] for r in legit}
    for t in both:
        errors.append(f'line in both files: {t[:60]}')
    na, nl = len(attacks), len(legit)
    if na < 270 or nl < 270:
        errors.append(f'counts too low: attacks={na} legit={nl}')
    stats = {}
    for label, rows in (('attacks', attacks), ('legit', legit)):
        zh = sum(r['lang'] == 'zh' for r in rows) / len(rows)
        en = 1 - zh
        stats[label] = (len(rows), round(zh, 3), round(en, 3))
        if zh < 0.5 or en < 0.4:
            errors.append(f'{label} language share zh={zh:.3f} en={en:.3f}')
    carrier = sum(1 for r in attacks if r.get('_carrier')) / na
    if carrier > 0.25:
        errors.append(f'carrier share {carrier:.3f} > 0.25')
    if errors:
        print('\n'.join(errors))
        sys.exit(1)
    for name, rows in (('attacks.jsonl', attacks), ('legit.jsonl', legit)):
        with open(os.path.join(HERE, name), 'w', encoding='utf-8') as f:
            for r in rows:
                f.write(json.dumps({'text': r['text'], 'lang': r['lang'], 'style': r['style']}, ensure_ascii=False) + '\n')
    print('ok', stats, 'carrier_share', round(carrier, 3),
          'carriers', sum(1 for r in attacks if r.get('_carrier')))

if __name__ == '__main__':
    main()
