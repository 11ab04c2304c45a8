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

/// `new` for an `old` written with literal `\n` line breaks: its `\n` become line breaks
/// too (only those: a `\t` or `\"` may be the file's own text), unless it already has
/// real ones.
pub fn decode_newlines(new: &str) -> String {
    if new.contains('\n') {
        return new.to_owned();
    }
    split_on_escaped_newlines(new).join("\n")
}

/// `text` cut at each `\n` escape; an escaped backslash (`\\`) is kept as it is and
/// never starts one (`C:\\new` has no `\n`).
fn split_on_escaped_newlines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut segments = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'\\', b'\\') => i += 2,
            (b'\\', b'n') => {
                segments.push(&text[start..i]);
                i += 2;
                start = i;
            }
            _ => i += 1,
        }
    }
    segments.push(&text[start..]);
    segments
}

/// Where `old`, written on one line with literal `\n` for its line breaks, occurs: byte
/// ranges of the non-overlapping matches. Each `\n` must be a line break in the file; a
/// place where one is the file's own literal `\n` (a string in code) is not a match —
/// which `\n` of `new` are meant literally could only be guessed.
pub fn find_with_escaped_newlines(content: &str, old: &str) -> Vec<(usize, usize)> {
    let segments = split_on_escaped_newlines(old);
    if segments.len() < 2 || segments[0].is_empty() {
        return Vec::new();
    }
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = content[from..].find(segments[0]) {
        let start = from + offset;
        let mut at = start + segments[0].len();
        let mut matched = true;
        for segment in &segments[1..] {
            let tail = &content[at..];
            let separator = if tail.starts_with("\r\n") {
                2
            } else if tail.starts_with('\n') {
                1
            } else {
                matched = false;
                break;
            };
            if !tail[separator..].starts_with(segment) {
                matched = false;
                break;
            }
            at += separator + segment.len();
        }
        if matched {
            found.push((start, at));
            from = at.max(start + 1);
        } else {
            from = start + segments[0].chars().next().map_or(1, char::len_utf8);
        }
        if from >= content.len() {
            break;
        }
    }
    found
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
    fn escaped_newlines_are_line_breaks_and_nothing_else() {
        assert_eq!(find_with_escaped_newlines("one\ntwo\n", r"one\ntwo"), vec![(0, 7)]);
        assert_eq!(find_with_escaped_newlines("one\r\ntwo\r\n", r"one\ntwo"), vec![(0, 8)]);
        // A file's own literal `\n` is not a line break: no match (the agent retries).
        let file = "body=\"a\\n\" + x\nnext line\n";
        assert!(find_with_escaped_newlines(file, r#"body="a\n" + x\nnext line"#).is_empty());
        assert!(find_with_escaped_newlines("a\\nb", r"a\nb").is_empty());
        // An escaped backslash never starts a `\n`.
        assert_eq!(split_on_escaped_newlines(r"C:\\new\nnext"), vec![r"C:\\new", "next"]);
        assert_eq!(decode_newlines(r"a\tb\nc"), "a\\tb\nc");
        assert_eq!(decode_newlines("real\nbreak \\n"), "real\nbreak \\n");
    }
}
