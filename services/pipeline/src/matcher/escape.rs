//! Edits whose text arrived with its escapes still on: a tool call serialised twice turns
//! a newline into the two characters `\n` and a quote into `\"`.

/// The edit with `\n`, `\r`, `\t`, `\"`, `\'` and `\\` decoded in `old` (when it has any)
/// and in `new` (when it was written the same way: it has escapes and no real newline).
pub fn unescape_edit(old: &str, new: &str) -> Option<(String, String)> {
    let old = unescape(old)?;
    Some((old, unescape_new(new)))
}

/// `new` decoded when it was serialised like `old` (no real newline in it), else as is.
pub fn unescape_new(new: &str) -> String {
    if new.contains('\n') {
        return new.to_owned();
    }
    unescape(new).unwrap_or_else(|| new.to_owned())
}

/// Where `old` occurs when each literal `\n` in it may stand for a line break or for the
/// two characters themselves (a file of code has real `\n` in its strings): byte ranges of
/// the non-overlapping matches that use at least one line break.
pub fn find_with_escaped_newlines(content: &str, old: &str) -> Vec<(usize, usize)> {
    let segments: Vec<&str> = old.split("\\n").collect();
    if segments.len() < 2 || segments[0].is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = content[from..].find(segments[0]) {
        let start = from + offset;
        match extend(content, start + segments[0].len(), &segments[1..], false) {
            Some(end) => {
                found.push((start, end));
                from = end.max(start + 1);
            }
            None => from = start + segments[0].chars().next().map_or(1, char::len_utf8),
        }
        if from >= content.len() {
            break;
        }
    }
    found
}

/// Matches `segments` at `at`, each preceded by a line break or a literal `\n`; the end of
/// the match, when one uses a line break.
fn extend(content: &str, at: usize, segments: &[&str], used_break: bool) -> Option<usize> {
    let Some((first, rest)) = segments.split_first() else {
        return used_break.then_some(at);
    };
    let tail = &content[at..];
    for (separator, is_break) in [("\n", true), ("\r\n", true), ("\\n", false)] {
        if let Some(after) = tail.strip_prefix(separator)
            && after.starts_with(first)
            && let Some(end) = extend(
                content,
                at + separator.len() + first.len(),
                rest,
                used_break || is_break,
            )
        {
            return Some(end);
        }
    }
    None
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
        let (_, new) = unescape_edit(r"x\ny", r"x\nz").unwrap();
        assert_eq!(new, "x\nz");
    }

    #[test]
    fn escaped_newlines_match_breaks_or_themselves() {
        let file = "body=\"a\\n\" + x\nnext line\n";
        let old = r#"body="a\n" + x\nnext line"#;
        assert_eq!(find_with_escaped_newlines(file, old), vec![(0, file.len() - 1)]);
        // Without any real break it is not this strategy's match.
        assert!(find_with_escaped_newlines("a\\nb", r"a\nb").is_empty());
        assert!(find_with_escaped_newlines("nothing here", r"a\nb").is_empty());
    }
}
