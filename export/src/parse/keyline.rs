//! `key: value` lines, as used by front-matter, yaml blocks and queue bullets.

/// A `key: value` line split into its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLine<'a> {
    /// The key.
    pub key: &'a str,
    /// The colon and the whitespace after it.
    pub sep: &'a str,
    /// The rest of the line.
    pub value: &'a str,
}

/// Splits `key: value`. The key is `[A-Za-z_][A-Za-z0-9_-]*` and the colon must be followed by
/// whitespace or the end of the line, so `http://x` is not a key line.
pub fn split(content: &str) -> Option<KeyLine<'_>> {
    let bytes = content.as_bytes();
    let first = *bytes.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let key_len = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
        .unwrap_or(bytes.len());
    if bytes.get(key_len) != Some(&b':') {
        return None;
    }
    let after = &content[key_len + 1..];
    let ws = after.len() - after.trim_start_matches([' ', '\t']).len();
    if ws == 0 && !after.is_empty() {
        return None;
    }
    Some(KeyLine {
        key: &content[..key_len],
        sep: &content[key_len..key_len + 1 + ws],
        value: &after[ws..],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_key_lines() {
        let kl = split("origin_task:  x / y ").expect("key line");
        assert_eq!((kl.key, kl.sep, kl.value), ("origin_task", ":  ", "x / y "));
        assert_eq!(split("repro:").map(|k| k.value), Some(""));
        assert_eq!(split("http://example"), None);
        assert_eq!(split("- type: P"), None);
        assert_eq!(split("中文: x"), None);
        assert_eq!(split(""), None);
    }
}
