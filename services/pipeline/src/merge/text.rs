//! Text files as lines for merging.
//!
//! A line is compared without its `\n`, and whether the file ends with a newline is kept
//! apart: in a file without a final newline the last line then equals the same line
//! anywhere else, so appending after it, or removing a section above it, is an ordinary
//! change instead of "the last line changed" (the shape that made three-way merges bring
//! removed sections back). A `\r` before the `\n` stays part of the line, so CRLF files
//! merge line by line like any other.

/// A text split into lines (without their `\n`), and whether it ends with a newline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Lines<'a> {
    /// The lines, in order.
    pub lines: Vec<&'a str>,
    /// Whether the text ends with `\n` (an empty text counts as ending with one).
    pub final_newline: bool,
}

impl<'a> Lines<'a> {
    /// Splits `text`.
    pub fn split(text: &'a str) -> Lines<'a> {
        if text.is_empty() {
            return Lines {
                lines: Vec::new(),
                final_newline: true,
            };
        }
        let final_newline = text.ends_with('\n');
        let body = if final_newline { &text[..text.len() - 1] } else { text };
        Lines {
            lines: body.split('\n').collect(),
            final_newline,
        }
    }
}

/// Joins lines back into a text.
pub(crate) fn join(lines: &[&str], final_newline: bool) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    if final_newline {
        out.push('\n');
    }
    out
}

/// Whether the merged text ends with a newline: the side that changed it from the base
/// decides (both can only have changed it the same way). A side left empty says nothing
/// about it (an empty text has no last line to end).
pub(crate) fn merged_final_newline(base: &Lines<'_>, patch: &Lines<'_>, latest: &Lines<'_>) -> bool {
    match (patch.lines.is_empty(), latest.lines.is_empty()) {
        (true, false) => latest.final_newline,
        (false, true) => patch.final_newline,
        _ if patch.final_newline != base.final_newline => patch.final_newline,
        _ => latest.final_newline,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_and_join_round_trip() {
        for text in ["", "a", "a\n", "a\nb", "a\nb\n", "\n", "\n\n", "a\r\nb\r\n", "a\r\nb"] {
            let lines = Lines::split(text);
            assert_eq!(join(&lines.lines, lines.final_newline), text, "{text:?}");
        }
        assert_eq!(Lines::split("a\nb").lines, Lines::split("a\nb\n").lines);
        assert_eq!(Lines::split("\n").lines, vec![""]);
    }
}
