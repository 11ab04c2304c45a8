//! Edits whose text arrived with its escapes still on: a tool call serialised twice turns
//! a newline into the two characters `\n` and a quote into `\"`.

/// The edit with `\n`, `\r`, `\t`, `\"`, `\'` and `\\` decoded in `old` (when it has any)
/// and in `new` (when it has any too: the agent wrote both the same way).
pub fn unescape_edit(old: &str, new: &str) -> Option<(String, String)> {
    let old = unescape(old)?;
    let new = unescape(new).unwrap_or_else(|| new.to_owned());
    Some((old, new))
}

/// `text` with its escape sequences decoded, or `None` when it has none.
fn unescape(text: &str) -> Option<String> {
    if !text.contains('\\') {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut changed = false;
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.peek() {
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('"') => '"',
            Some('\'') => '\'',
            Some('\\') => '\\',
            _ => {
                out.push(c);
                continue;
            }
        };
        chars.next();
        out.push(decoded);
        changed = true;
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_common_escapes_and_leaves_others() {
        assert_eq!(unescape(r#"a\nb\t\"c\" \\ \d"#).as_deref(), Some("a\nb\t\"c\" \\ \\d"));
        assert_eq!(unescape("no escapes"), None);
        assert_eq!(unescape(r"C:\dir"), None);
        let (old, new) = unescape_edit(r"x\ny", "x\nz").unwrap();
        assert_eq!((old.as_str(), new.as_str()), ("x\ny", "x\nz"));
    }
}
