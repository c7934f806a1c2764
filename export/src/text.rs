//! Line splitting with exact byte accounting, and UTF-8 decoding that reports a line number.
//!
//! Every parser works on [`Line`]s: the content without its terminator, the terminator itself
//! (`"\n"`, `"\r\n"` or `""` at end of file), and the 1-based line number. Concatenating
//! `content + eol` over all lines gives back the input exactly, which is what lets the
//! importer account for every byte.

/// One line of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The text without its line terminator (a trailing `\r` of a CRLF is not included).
    pub content: &'a str,
    /// The terminator: `"\n"`, `"\r\n"`, or `""` for a last line without one.
    pub eol: &'a str,
    /// The 1-based line number.
    pub no: usize,
}

impl<'a> Line<'a> {
    /// Content and terminator together, as in the file.
    pub fn full(&self) -> String {
        let mut s = String::with_capacity(self.content.len() + self.eol.len());
        s.push_str(self.content);
        s.push_str(self.eol);
        s
    }

    /// Whether the line holds only whitespace.
    pub fn is_blank(&self) -> bool {
        self.content.trim().is_empty()
    }

    /// Whether the line starts with a space or a tab.
    pub fn is_indented(&self) -> bool {
        self.content.starts_with([' ', '\t'])
    }
}

/// Splits text into lines. An empty text has no lines.
pub fn lines(text: &str) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut no = 1;
    while !rest.is_empty() {
        let (line, tail) = match rest.find('\n') {
            Some(i) => rest.split_at(i + 1),
            None => rest.split_at(rest.len()),
        };
        let (content, eol) = if let Some(c) = line.strip_suffix("\r\n") {
            (c, "\r\n")
        } else if let Some(c) = line.strip_suffix('\n') {
            (c, "\n")
        } else {
            (line, "")
        };
        out.push(Line { content, eol, no });
        no += 1;
        rest = tail;
    }
    out
}

/// The byte-order mark some editors put at the start of UTF-8 files.
pub const BOM: &str = "\u{feff}";

/// Decodes a file's bytes, or says where the first invalid UTF-8 sequence is.
pub fn decode_utf8(bytes: &[u8]) -> Result<&str, (usize, String)> {
    std::str::from_utf8(bytes).map_err(|err| {
        let valid = &bytes[..err.valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = valid.len() - valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        (
            line,
            format!(
                "invalid UTF-8 at byte {} (column {column}); expected UTF-8 text",
                err.valid_up_to()
            ),
        )
    })
}

/// The line terminator a record or file mostly uses, for text that evokb writes into it.
pub fn dominant_eol(text: &str) -> &'static str {
    let crlf = text.matches("\r\n").count();
    let lf = text.matches('\n').count() - crlf;
    if crlf > lf {
        "\r\n"
    } else {
        "\n"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_account_for_every_byte() {
        for text in ["", "a", "a\n", "a\r\nb", "\n\n", "x\r\n\r\ny\n", "中文\r\n"] {
            let joined: String = lines(text).iter().map(Line::full).collect();
            assert_eq!(joined, text);
        }
        let ls = lines("a\r\nb\nc");
        assert_eq!((ls[0].content, ls[0].eol, ls[0].no), ("a", "\r\n", 1));
        assert_eq!((ls[2].content, ls[2].eol, ls[2].no), ("c", "", 3));
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let (line, msg) = decode_utf8(b"ok\nalso ok\nbad \xff here").unwrap_err();
        assert_eq!(line, 3);
        assert!(msg.contains("column 5"), "{msg}");
    }
}
