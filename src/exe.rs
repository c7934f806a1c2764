//! The running evokb binary as git and the shell must call it: its absolute path, quoted.
//!
//! git runs the merge driver and the hook through the shell with its own `PATH`, so a bare
//! `evokb` fails with "evokb: not found" whenever the binary was run as `target/release/evokb`;
//! registering the absolute path, as git's filter tools do, makes them run either way. `doctor`
//! prints its fixes with the same word.

/// `s` as one POSIX shell word: single-quoted, with `'` written as `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The running binary's canonical absolute path as a shell word (`evokb` if it cannot be known).
pub fn evokb_command() -> String {
    match std::env::current_exe().and_then(|p| p.canonicalize()) {
        Ok(p) => shell_quote(&p.display().to_string()),
        Err(_) => "evokb".to_string(),
    }
}

/// The first word of a shell command line as the shell reads it (single quotes, with `'\''`
/// escapes, double quotes or a bare word), and the rest of the line.
#[cfg(feature = "git")]
pub fn first_shell_word(line: &str) -> (String, &str) {
    let line = line.trim_start();
    let mut word = String::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => return (word, line[i..].trim_start()),
            '\'' | '"' => {
                chars.next();
                for (_, q) in chars.by_ref() {
                    if q == c {
                        break;
                    }
                    word.push(q);
                }
            }
            '\\' => {
                chars.next();
                if let Some((_, e)) = chars.next() {
                    word.push(e);
                }
            }
            c => {
                word.push(c);
                chars.next();
            }
        }
    }
    (word, "")
}

#[cfg(all(test, feature = "git"))]
mod tests {
    use super::*;

    #[test]
    fn a_quoted_path_reads_back_as_one_word() {
        for path in ["/usr/bin/evokb", "/tmp/it's here/evokb", "/a b/c"] {
            let line = format!("{} merge-driver %O %A %B %P", shell_quote(path));
            assert_eq!(first_shell_word(&line), (path.to_string(), "merge-driver %O %A %B %P"));
        }
        assert_eq!(first_shell_word("evokb --version"), ("evokb".to_string(), "--version"));
        assert_eq!(first_shell_word("\"/x y/evokb\""), ("/x y/evokb".to_string(), ""));
    }
}
