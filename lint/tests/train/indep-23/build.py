#!/usr/bin/env python3
"""Build attacks.jsonl and legit.jsonl from the hand-written src_*.txt files.

All paths are relative to this script's own directory. Encodings for carrier
lines are computed here (never hand-typed). Checks: no duplicates, no line in
both sets, no newline inside a line, counts, language shares, carrier share.
"""
import base64, json, os, re, sys, urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
CJK = re.compile(r'[\u4e00-\u9fff]')


def read_styled(name, lang):
    rows, style = [], None
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for raw in f:
            line = raw.rstrip('\n')
            if not line.strip():
                continue
            if line.startswith('@style '):
                style = line[len('@style '):].strip()
                continue
            if line.startswith('# ') and line[2:].startswith(('Format', 'kinds')):
                continue
            assert style, (name, line)
            rows.append({'text': line, 'lang': lang, 'style': style})
    return rows


def encode(kind, payload):
    b = payload.encode('utf-8')
    if kind in ('b64', 'link_data'):
        return base64.b64encode(b).decode('ascii')
    if kind == 'hex':
        return b.hex()
    if kind == 'pct':
        return urllib.parse.quote(payload, safe='')
    if kind == 'html_ent':
        return ''.join('&#%d;' % ord(c) for c in payload)
    if kind == 'zw':
        return '\u200b'.join(payload)
    return None


STYLE = {'b64': 'carrier_base64', 'hex': 'carrier_hex', 'pct': 'carrier_percent',
         'html_ent': 'carrier_html_entity', 'zw': 'carrier_zero_width',
         'html_comment': 'carrier_html_comment', 'link_js': 'carrier_link_javascript',
         'link_data': 'carrier_link_data', 'link_file': 'carrier_link_file'}


def read_carriers(name):
    rows = []
    with open(os.path.join(HERE, name), encoding='utf-8') as f:
        for raw in f:
            line = raw.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            lang, kind, template, payload = line.split('\t')
            enc = encode(kind, payload)
            text = template
            if '{enc}' in text:
                text = text.replace('{enc}', enc)
            if '{payload}' in text:
                text = text.replace('{payload}', payload)
            rows.append({'text': text, 'lang': lang, 'style': STYLE[kind]})
    return rows


def main():
    attacks = read_styled('src_attacks_en.txt', 'en') + read_styled('src_attacks_zh.txt', 'zh') + read_carriers('src_carriers.txt')
    legit = read_styled('src_legit_en.txt', 'en') + read_styled('src_legit_zh.txt', 'zh')
    errors = []
    for label, rows in (('attacks', attacks), ('legit', legit)):
        seen = set()
        for r in rows:
            t = r['text']
            if '\n' in t or '\r' in t:
                errors.append('%s: newline in %r' % (label, t))
            if t in seen:
                errors.append('%s: duplicate %r' % (label, t))
            seen.add(t)
            if r['lang'] == 'zh' and not CJK.search(t) and not r['style'].startswith('carrier_'):
                errors.append('%s: zh line without CJK %r' % (label, t))
            if r['lang'] == 'en' and len(CJK.findall(t)) > 0.3 * len(t.replace(' ', '')):
                errors.append('%s: en line mostly CJK %r' % (label, t))
        n = len(rows)
        en = sum(r['lang'] == 'en' for r in rows)
        zh = sum(r['lang'] == 'zh' for r in rows)
        if n < 270:
            errors.append('%s: only %d lines' % (label, n))
        if en / n < 0.5:
            errors.append('%s: English share %.3f < 0.5' % (label, en / n))
        if zh / n < 0.4:
            errors.append('%s: Chinese share %.3f < 0.4' % (label, zh / n))
        print('%s: total=%d en=%d (%.1f%%) zh=%d (%.1f%%)' % (label, n, en, 100 * en / n, zh, 100 * zh / n))
    overlap = {r['text'] for r in attacks} & {r['text'] for r in legit}
    if overlap:
        errors.append('lines in both sets: %r' % sorted(overlap))
    carriers = sum(r['style'].startswith('carrier_') for r in attacks)
    share = carriers / len(attacks)
    print('carriers=%d share=%.1f%%' % (carriers, 100 * share))
    if share > 0.25:
        errors.append('carrier share %.3f > 0.25' % share)
    if any(r['style'].startswith('carrier_') for r in legit):
        errors.append('carrier style in legit')
    if errors:
        print('\n'.join(errors), file=sys.stderr)
        sys.exit(1)
    for label, rows in (('attacks', attacks), ('legit', legit)):
        with open(os.path.join(HERE, label + '.jsonl'), 'w', encoding='utf-8') as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + '\n')
    styles = {}
    for r in attacks:
        styles.setdefault(('attack', r['style']), 0)
        styles[('attack', r['style'])] += 1
    for r in legit:
        styles.setdefault(('legit', r['style']), 0)
        styles[('legit', r['style'])] += 1
    for k in sorted(styles):
        print('  %s/%s: %d' % (k[0], k[1], styles[k]))
    print('OK')


if __name__ == '__main__':
    main()
