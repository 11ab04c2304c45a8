//! The ways a remembered line may differ from the file's, from least to most tolerant.

use std::borrow::Cow;

use super::Strategy;

/// How much of a line's spelling is ignored when comparing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// Trailing whitespace (and a `\r`).
    Trailing,
    /// Leading and trailing whitespace.
    Indentation,
    /// Also: a run of whitespace inside the line counts as one space.
    Whitespace,
    /// Also: typographic quotes, dashes, ellipses and spaces count as their ASCII forms.
    Unicode,
}

impl Level {
    /// Every level, least tolerant first.
    pub const ALL: [Level; 4] = [Level::Trailing, Level::Indentation, Level::Whitespace, Level::Unicode];

    /// The strategy a match at this level reports.
    pub fn strategy(self) -> Strategy {
        match self {
            Level::Trailing => Strategy::LineTrimmed,
            Level::Indentation => Strategy::IndentationFlexible,
            Level::Whitespace => Strategy::WhitespaceNormalized,
            Level::Unicode => Strategy::UnicodeNormalized,
        }
    }
}

/// `line` as compared at `level` (borrowed when nothing changes).
pub fn normalize(line: &str, level: Level) -> Cow<'_, str> {
    match level {
        Level::Trailing => Cow::Borrowed(line.trim_end()),
        Level::Indentation => Cow::Borrowed(line.trim()),
        Level::Whitespace => collapse(line.trim()),
        Level::Unicode => {
            let trimmed = line.trim_matches(|c: char| c.is_whitespace() || is_unicode_space(c));
            if trimmed.is_ascii() {
                let collapsed = collapse(trimmed);
                if collapsed.contains("--") {
                    Cow::Owned(collapse_dashes(&collapsed))
                } else {
                    collapsed
                }
            } else {
                let mut ascii = String::with_capacity(trimmed.len());
                for c in trimmed.chars() {
                    match ascii_form(c) {
                        Some(form) => ascii.push_str(form),
                        None => ascii.push(c),
                    }
                }
                Cow::Owned(collapse_dashes(&collapse(&ascii)))
            }
        }
    }
}

/// A line's skeleton: its [`Level::Unicode`] form without any whitespace. Lines equal at
/// any level have equal skeletons, so comparing skeletons (as hashes, see
/// [`skeleton_hash`]) first finds every candidate for a match at any level in one pass.
#[cfg(test)]
fn skeleton(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    skeleton_into(line, &mut out);
    out
}

/// The hash of `line`'s [`skeleton`], built in `buffer` (reused between lines, so a pass
/// over a file allocates nothing per line). Equal skeletons have equal hashes; a match is
/// always confirmed on the text itself.
pub fn skeleton_hash(line: &str, buffer: &mut String) -> u64 {
    use std::hash::BuildHasher as _;
    buffer.clear();
    skeleton_into(line, buffer);
    foldhash::fast::FixedState::with_seed(0).hash_one(buffer.as_str())
}

fn skeleton_into(line: &str, out: &mut String) {
    let mut previous = '\0';
    let mut push = |c: char, out: &mut String| {
        if !(c == '-' && previous == '-') {
            out.push(c);
            previous = c;
        }
    };
    if line.is_ascii() {
        for &b in line.as_bytes() {
            if !b.is_ascii_whitespace() {
                push(char::from(b), out);
            }
        }
        return;
    }
    for c in line.chars() {
        if c.is_whitespace() || is_unicode_space(c) {
            continue;
        }
        match ascii_form(c) {
            Some(form) => form.chars().for_each(|f| push(f, out)),
            None => push(c, out),
        }
    }
}

/// Collapses runs of whitespace into one space (borrowed when there are none).
fn collapse(line: &str) -> Cow<'_, str> {
    if line.is_ascii() {
        let bytes = line.as_bytes();
        let needs = bytes
            .iter()
            .enumerate()
            .any(|(i, &b)| b.is_ascii_whitespace() && (b != b' ' || bytes.get(i + 1) == Some(&b' ')));
        if !needs {
            return Cow::Borrowed(line);
        }
    }
    let mut previous_space = false;
    let needs = line.chars().any(|c| {
        let space = c.is_whitespace();
        let run = space && (previous_space || c != ' ');
        previous_space = space;
        run
    });
    if !needs {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut in_space = false;
    for c in line.chars() {
        if c.is_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    Cow::Owned(out)
}

/// Runs of hyphens count as one: agents write an em dash as `-` or `--`.
fn collapse_dashes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut previous = '\0';
    for c in line.chars() {
        if !(c == '-' && previous == '-') {
            out.push(c);
        }
        previous = c;
    }
    out
}

fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{2007}' | '\u{202f}' | '\u{2009}' | '\u{200a}' | '\u{2002}'..='\u{2006}'
    )
}

/// The ASCII an agent types for a typographic character.
fn ascii_form(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' | '\u{2032}' | '\u{ff07}' => "'",
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' | '\u{ff02}' | '\u{ab}' | '\u{bb}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => "-",
        '\u{2026}' => "...",
        '\u{2022}' => "*",
        '\u{2192}' => "->",
        '\u{2190}' => "<-",
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' => "",
        c if is_unicode_space(c) => " ",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_forgives_a_little_more() {
        assert_eq!(normalize("  a  b \r", Level::Trailing), "  a  b");
        assert_eq!(normalize("  a  b \r", Level::Indentation), "a  b");
        assert_eq!(normalize("  a \t b ", Level::Whitespace), "a b");
        assert_eq!(normalize("“Don’t” — wait…", Level::Unicode), "\"Don't\" - wait...");
        assert_eq!(normalize("a -- b", Level::Unicode), "a - b");
        assert_eq!(normalize("x\u{a0}\u{a0}y", Level::Unicode), "x y");
        assert!(matches!(normalize("plain line", Level::Unicode), Cow::Borrowed(_)));
        assert!(matches!(
            normalize("one space each", Level::Whitespace),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn lines_equal_at_any_level_have_equal_skeletons() {
        let pairs = [
            ("  a  b \r", "a b"),
            ("“Don’t” — wait…", "\"Don't\" -- wait..."),
            ("x\u{a0}y", "x y"),
            ("a -- b", "a — b"),
        ];
        for (a, b) in pairs {
            for level in Level::ALL {
                if normalize(a, level) == normalize(b, level) {
                    assert_eq!(skeleton(a), skeleton(b), "{a:?} {b:?} {level:?}");
                }
            }
        }
        assert_eq!(skeleton("a  --  b\t"), "a-b");
        assert_ne!(skeleton("beta(2)"), skeleton("beta(9)"));
        let mut buffer = String::new();
        assert_eq!(skeleton_hash("a b", &mut buffer), skeleton_hash(" a  b ", &mut buffer));
        assert_ne!(
            skeleton_hash("beta(2)", &mut buffer),
            skeleton_hash("beta(9)", &mut buffer)
        );
    }
}
