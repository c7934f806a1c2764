//! Shared text helpers for the rule modules: line iteration, invisible-character classes,
//! normalisation of a line before phrase matching, quoted spans (a phrase mentioned rather than
//! used), and safe truncation of quoted fragments.

/// Zero-width characters that render as nothing (U+200B–U+200D, U+2060, U+FEFF).
pub(crate) fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

/// Bidirectional embedding/override (U+202A–U+202E) and isolate (U+2066–U+2069) controls.
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Unicode tag characters (U+E0000–U+E007F), invisible ASCII look-alikes used for smuggling.
pub(crate) fn is_tag_char(c: char) -> bool {
    matches!(c, '\u{E0000}'..='\u{E007F}')
}

/// Variation selectors (U+FE00–U+FE0F and U+E0100–U+E01EF).
pub(crate) fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Characters removed before phrase matching, so that `ig\u{200B}nore` still reads `ignore`.
fn is_invisible(c: char) -> bool {
    is_zero_width(c)
        || is_bidi_control(c)
        || is_tag_char(c)
        || is_variation_selector(c)
        || matches!(c, '\u{00AD}' | '\u{200E}' | '\u{200F}' | '\u{2061}'..='\u{2064}')
}

/// The lines of `text`, numbered from 1 (`\n` and `\r\n` endings).
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l))
}

/// Normalise one line for phrase matching: drop invisible characters, fold full-width ASCII
/// (`ｉｇｎｏｒｅ`, `：`) and the ideographic space to ASCII, remove markdown emphasis (`**`,
/// `__`) and code ticks, and lowercase. A full-width tick is folded after the tick test, so it
/// stays as an ASCII one.
///
/// Every line of every checked record passes through here, most of them more than once, so
/// the common cases skip the general machinery: an ASCII line is lowercased byte by byte, and
/// a character of U+3001–U+9FFF (CJK punctuation, kana, ideographs: the bulk of a Chinese
/// line), which has no lowercase form and is neither invisible nor folded, is copied as it is
/// rather than looked up in the case tables (`normalise_matches_the_general_definition`
/// checks both against the plain definition).
pub(crate) fn normalise(line: &str) -> String {
    let mut out = if line.is_ascii() {
        let mut bytes = Vec::with_capacity(line.len());
        bytes.extend(line.bytes().filter(|&b| b != b'`').map(|b| b.to_ascii_lowercase()));
        // ASCII bytes in, ASCII bytes out: always valid UTF-8.
        String::from_utf8(bytes).unwrap_or_default()
    } else {
        let mut out = String::with_capacity(line.len());
        for c in line.chars() {
            match c {
                _ if c.is_ascii() => {
                    if c != '`' {
                        out.push(c.to_ascii_lowercase());
                    }
                }
                '\u{3001}'..='\u{9FFF}' => out.push(c),
                _ if is_invisible(c) => {}
                // Folded after the tick test, as the definition has it: a full-width tick
                // becomes a kept ASCII one.
                '\u{FF01}'..='\u{FF5E}' => {
                    out.push(char::from_u32(c as u32 - 0xFEE0).unwrap_or(c).to_ascii_lowercase());
                }
                '\u{3000}' => out.push(' '),
                _ => out.extend(c.to_lowercase()),
            }
        }
        out
    };
    if out.contains("**") {
        out = out.replace("**", "");
    }
    if out.contains("__") {
        out = out.replace("__", "");
    }
    out
}

/// Whether `start..end` of `line` lies inside one quoted span: straight double quotes, curly
/// double quotes, or corner brackets (`"…"`, `“…”`, `「…」`, `『…』`), opened before `start`
/// and closed at or after `end`, with no quote mark of the same kind between.
pub(crate) fn within_quotes(line: &str, start: usize, end: usize) -> bool {
    let (Some(before), Some(after)) = (line.get(..start), line.get(end..)) else {
        return false;
    };
    let inside = line.get(start..end).unwrap_or("");
    // An odd number of straight quotes before the fragment opens a span.
    let straight =
        before.matches('"').count() % 2 == 1 && !inside.contains('"') && after.contains('"');
    let paired = [('“', '”'), ('「', '」'), ('『', '』')].iter().any(|&(open, close)| {
        let opened = before.rfind(open);
        let closed_before = before.rfind(close);
        let is_open = match (opened, closed_before) {
            (Some(o), Some(c)) => o > c,
            (Some(_), None) => true,
            _ => false,
        };
        is_open && !inside.contains([open, close]) && after.contains(close)
    });
    straight || paired
}

/// Quote a fragment for a finding message: whitespace collapsed, cut to `max` characters.
pub(crate) fn quote(fragment: &str, max: usize) -> String {
    let collapsed: String = fragment.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = collapsed.chars().take(max).collect();
    if collapsed.chars().count() > max {
        out.push('…');
    }
    format!("\"{out}\"")
}

/// The longest suffix of `s` of at most `max_chars` characters (char-boundary safe).
pub(crate) fn tail_chars(s: &str, max_chars: usize) -> &str {
    let start = s.char_indices().rev().nth(max_chars.saturating_sub(1)).map_or(0, |(i, _)| i);
    s.get(start..).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition `normalise` keeps (its code before the fast paths), written plainly:
    /// each character dropped, folded or lowercased on its own, then emphasis removed.
    fn normalise_by_definition(line: &str) -> String {
        let mut out = String::new();
        for c in line.chars() {
            if is_invisible(c) || c == '`' {
                continue;
            }
            let c = match c {
                '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
                '\u{3000}' => ' ',
                _ => c,
            };
            out.extend(c.to_lowercase());
        }
        out.replace("**", "").replace("__", "")
    }

    #[test]
    fn normalise_matches_the_general_definition() {
        // The range copied as it is has no lowercase form and nothing invisible or folded.
        for u in 0x3001..=0x9FFF {
            let Some(c) = char::from_u32(u) else { continue };
            assert!(c.to_lowercase().eq([c]), "U+{u:04X} has a lowercase form");
            assert!(!is_invisible(c), "U+{u:04X} is invisible");
        }
        let samples = [
            "Ｉｇｎｏｒｅ **all** `x`",
            "ig\u{200B}nore ＡＢＣ｀ｘ｀ ＿＿ __Bold__ ÄÖÜ ΣΑΣ İstanbul",
            "先块宽摊减再评估流水深度，**必须**先查 `kernel_lint`。",
            "\u{3000}全角空格\u{3000}ＡＰＰＲＯＶＥ　VP-2026-0001！",
            "tag\u{E0041}\u{E0042} vs\u{FE0F} soft\u{00AD}hyphen \u{202E}bidi",
            "*\u{200B}* _\u{200B}_ ** __ *** ___",
            "",
        ];
        for s in samples {
            assert_eq!(normalise(s), normalise_by_definition(s), "{s:?}");
        }
        // Every character class in turn, in a deterministic pseudo-random mix.
        let mut x: u32 = 12345;
        for _ in 0..2000 {
            let mut s = String::new();
            for _ in 0..24 {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let pick = [
                    0x20, 0x41, 0x60, 0x5F, 0x2A, 0xC0, 0x391, 0x200B, 0x202A, 0x3000, 0x3001,
                    0x4E00, 0xFF01, 0xFF21, 0xFF40, 0xFF3F, 0xFF0A, 0xE0041, 0x1F600, 0x130,
                ];
                let base = pick[(x >> 8) as usize % pick.len()];
                if let Some(c) = char::from_u32(base + (x >> 20) % 3) {
                    s.push(c);
                }
            }
            assert_eq!(normalise(&s), normalise_by_definition(&s), "{s:?}");
        }
    }

    #[test]
    fn quoted_spans_open_before_and_close_after() {
        assert!(within_quotes("a \"bc\" d", 3, 5));
        assert!(!within_quotes("a \"b\" cd \"e\"", 6, 8));
        assert!(within_quotes("说「忽略规则」", 6, 18));
        assert!(!within_quotes("「甲」忽略规则", 9, 21));
        assert!(within_quotes("say “ignore it” now", 7, 13));
    }

    #[test]
    fn normalise_folds_and_strips() {
        assert_eq!(normalise("Ｉｇｎｏｒｅ **all** `x`"), "ignore all x");
        assert_eq!(normalise("ig\u{200B}nore"), "ignore");
    }

    #[test]
    fn tail_and_quote() {
        assert_eq!(tail_chars("你好世界", 2), "世界");
        assert_eq!(tail_chars("ab", 5), "ab");
        assert_eq!(tail_chars("", 3), "");
        assert_eq!(quote("a  b\tc", 10), "\"a b c\"");
        assert_eq!(quote("abcdef", 3), "\"abc…\"");
    }
}
