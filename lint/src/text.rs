//! Shared text helpers for the rule modules: line iteration, invisible-character classes,
//! normalisation of a line before phrase matching, and safe truncation of quoted fragments.

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
/// `__`) and code ticks, and lowercase.
pub(crate) fn normalise(line: &str) -> String {
    if line.is_ascii() {
        // Fast path for the common case: nothing to fold but case, ticks and emphasis.
        let mut out: String = line
            .bytes()
            .filter(|&b| b != b'`')
            .map(|b| char::from(b.to_ascii_lowercase()))
            .collect();
        if out.contains("**") {
            out = out.replace("**", "");
        }
        if out.contains("__") {
            out = out.replace("__", "");
        }
        return out;
    }
    let mut out = String::with_capacity(line.len());
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
