//! Line strategies: `old`'s lines against runs of the file's lines, compared at a
//! [`Level`]; replacements keep the file's own text for the lines the edit leaves alone
//! and follow the file's indentation for the lines it writes.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::BTreeMap;

use similar::{Algorithm, DiffTag};

use super::normalize::{Level, normalize};
use super::{Applied, Edit, MatchError};

/// A file split into lines, with each level's normalised lines computed on first use.
pub struct FileLines<'a> {
    /// The whole file.
    pub text: &'a str,
    starts: Vec<usize>,
    ends: Vec<usize>,
    normalized: [OnceCell<Vec<Cow<'a, str>>>; 4],
}

impl<'a> FileLines<'a> {
    /// Splits `text` into lines (`\n` or `\r\n`; a final line without one counts).
    pub fn new(text: &'a str) -> FileLines<'a> {
        let mut starts = Vec::new();
        let mut ends = Vec::new();
        let mut at = 0;
        for piece in text.split_inclusive('\n') {
            let body = piece.strip_suffix('\n').unwrap_or(piece);
            let body = body.strip_suffix('\r').unwrap_or(body);
            starts.push(at);
            ends.push(at + body.len());
            at += piece.len();
        }
        FileLines {
            text,
            starts,
            ends,
            normalized: Default::default(),
        }
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Line `index` without its terminator.
    pub fn line(&self, index: usize) -> &'a str {
        &self.text[self.starts[index]..self.ends[index]]
    }

    /// The line (0-based) holding byte `at`.
    pub fn line_of(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s <= at).saturating_sub(1)
    }

    /// Every line normalised at `level`.
    pub fn normalized(&self, level: Level) -> &[Cow<'a, str>] {
        self.normalized[level as usize]
            .get_or_init(|| (0..self.len()).map(|i| normalize(self.line(i), level)).collect())
    }

    /// Start lines of the non-overlapping runs of lines equal to `old_lines` at `level`.
    pub fn find(&self, old_lines: &[&str], level: Level) -> Vec<usize> {
        let wanted: Vec<Cow<'_, str>> = old_lines.iter().map(|l| normalize(l, level)).collect();
        let Some(anchor) = wanted.iter().position(|l| !l.is_empty()) else {
            return Vec::new();
        };
        let n = wanted.len();
        if n > self.len() {
            return Vec::new();
        }
        let file = self.normalized(level);
        let mut found = Vec::new();
        let mut i = 0;
        while i + n <= file.len() {
            if file[i + anchor] == wanted[anchor] && (0..n).all(|k| file[i + k] == wanted[k]) {
                found.push(i);
                i += n;
            } else {
                i += 1;
            }
        }
        found
    }

    /// The line strategies, least tolerant first; the first level that finds `old`
    /// decides.
    pub fn replace_lines(&self, edit: Edit<'_>) -> Result<Option<Applied>, MatchError> {
        let (old_lines, old_newline) = split_lines(edit.old);
        for level in Level::ALL {
            let starts = self.find(&old_lines, level);
            if starts.is_empty() {
                continue;
            }
            if starts.len() > 1 && !edit.replace_all {
                return Err(MatchError::Ambiguous {
                    strategy: level.strategy(),
                    lines: starts.iter().map(|s| s + 1).collect(),
                });
            }
            return Ok(Some(self.splice(&starts, &old_lines, old_newline, edit, level)));
        }
        Ok(None)
    }

    /// Replaces the runs starting at `starts` (each `old_lines.len()` long).
    pub fn splice(
        &self,
        starts: &[usize],
        old_lines: &[&str],
        old_newline: bool,
        edit: Edit<'_>,
        level: Level,
    ) -> Applied {
        let n = old_lines.len();
        let mut out = String::with_capacity(self.text.len() + edit.new.len());
        let mut from = 0;
        let mut similarity = 1.0f64;
        for &start in starts {
            let last = start + n - 1;
            let region_start = self.starts[start];
            let (new_lines, region_end) = match (old_newline, edit.new.strip_suffix('\n')) {
                (true, Some(body)) => (split_lines(body).0, self.ends[last]),
                (true, None) => (
                    split_lines(edit.new).0,
                    self.starts.get(last + 1).copied().unwrap_or(self.text.len()),
                ),
                (false, _) => (edit.new.split('\n').map(strip_cr).collect(), self.ends[last]),
            };
            let window: Vec<&str> = (start..=last).map(|i| self.line(i)).collect();
            let terminator = if self.text[self.ends[start]..].starts_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            out.push_str(&self.text[from..region_start]);
            out.push_str(&rebuild(&window, old_lines, &new_lines, level).join(terminator));
            from = region_end;
            similarity = similarity.min(text_similarity(
                &old_lines.join("\n"),
                &self.text[region_start..self.ends[last]],
            ));
        }
        out.push_str(&self.text[from..]);
        Applied {
            content: out,
            strategy: level.strategy(),
            similarity,
            replacements: starts.len(),
            lines: starts.iter().map(|s| s + 1).collect(),
        }
    }
}

/// `text`'s lines (without `\r`), and whether it ended with a newline (which is not a
/// line of its own).
pub fn split_lines(text: &str) -> (Vec<&str>, bool) {
    match text.strip_suffix('\n') {
        Some(body) => (body.split('\n').map(strip_cr).collect(), true),
        None => (text.split('\n').map(strip_cr).collect(), false),
    }
}

fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

/// The replacement for one matched run: lines the edit keeps (equal in `old` and `new`)
/// come from the file as it is; lines it writes come from `new`, re-indented to the
/// file's indentation.
pub fn rebuild<'t>(window: &[&'t str], old_lines: &[&str], new_lines: &[&'t str], level: Level) -> Vec<Cow<'t, str>> {
    let indent = Reindent::new(window, old_lines, level);
    let mut out = Vec::with_capacity(new_lines.len());
    for op in similar::capture_diff_slices(Algorithm::Myers, old_lines, new_lines) {
        match op.tag() {
            DiffTag::Equal => out.extend(op.old_range().map(|k| Cow::Borrowed(window[k]))),
            DiffTag::Delete => {}
            DiffTag::Insert | DiffTag::Replace => out.extend(op.new_range().map(|j| indent.apply(new_lines[j]))),
        }
    }
    out
}

/// How `old`'s indentation maps onto the file's (a shift, or a change of unit such as
/// two spaces to four, or spaces to tabs).
struct Reindent {
    /// Old indentation width → file indentation width, from the matched lines.
    widths: BTreeMap<usize, usize>,
    tabs: bool,
    identity: bool,
}

/// Columns a tab counts for when comparing indentation.
const TAB_WIDTH: usize = 4;

impl Reindent {
    fn new(window: &[&str], old_lines: &[&str], level: Level) -> Reindent {
        let mut widths = BTreeMap::new();
        let mut tabs = false;
        let mut identity = true;
        if level != Level::Trailing {
            for (file, old) in window.iter().zip(old_lines) {
                if old.trim().is_empty() || file.trim().is_empty() {
                    continue;
                }
                let (fi, oi) = (leading(file), leading(old));
                tabs |= fi.contains('\t');
                identity &= fi == oi;
                widths.entry(width(oi)).or_insert(width(fi));
            }
        }
        Reindent { widths, tabs, identity }
    }

    fn apply<'t>(&self, line: &'t str) -> Cow<'t, str> {
        if self.identity || self.widths.is_empty() || line.trim().is_empty() {
            return Cow::Borrowed(line);
        }
        let own = leading(line);
        let target = self.target(width(own));
        let mut out = if self.tabs {
            "\t".repeat(target / TAB_WIDTH) + &" ".repeat(target % TAB_WIDTH)
        } else {
            " ".repeat(target)
        };
        out.push_str(&line[own.len()..]);
        Cow::Owned(out)
    }

    fn target(&self, old_width: usize) -> usize {
        if let Some(&w) = self.widths.get(&old_width) {
            return w;
        }
        let (&x1, &y1) = self.widths.first_key_value().expect("non-empty");
        let (&x2, &y2) = self.widths.last_key_value().expect("non-empty");
        if x1 == x2 {
            return (old_width + y1).saturating_sub(x1);
        }
        let slope = (y2 as f64 - y1 as f64) / (x2 as f64 - x1 as f64);
        let y = y1 as f64 + slope * (old_width as f64 - x1 as f64);
        y.round().max(0.0) as usize
    }
}

fn leading(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn width(indent: &str) -> usize {
    indent.chars().map(|c| if c == '\t' { TAB_WIDTH } else { 1 }).sum()
}

/// Similarity of two texts, 0–1 (characters for short texts, lines for long ones).
pub fn text_similarity(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    let diff = if a.len() + b.len() <= 8_000 {
        similar::TextDiff::configure()
            .algorithm(Algorithm::Myers)
            .diff_chars(a, b)
    } else {
        similar::TextDiff::configure()
            .algorithm(Algorithm::Myers)
            .diff_lines(a, b)
    };
    (f64::from(diff.ratio()) * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_terminators() {
        let f = FileLines::new("a\r\nb\n\nc");
        assert_eq!(f.len(), 4);
        assert_eq!((f.line(0), f.line(1), f.line(2), f.line(3)), ("a", "b", "", "c"));
        assert_eq!((f.line_of(0), f.line_of(3), f.line_of(7)), (0, 1, 3));
        assert_eq!(split_lines("x\ny\n"), (vec!["x", "y"], true));
        assert_eq!(split_lines("x\r\ny"), (vec!["x", "y"], false));
    }

    #[test]
    fn reindent_shifts_scales_and_converts_units() {
        let shift = Reindent::new(&["    a", "        b"], &["a", "    b"], Level::Indentation);
        assert_eq!(shift.apply("  c"), "      c");
        let scale = Reindent::new(&["    a", "        b"], &["  a", "    b"], Level::Indentation);
        assert_eq!(scale.apply("      c"), "            c");
        let tabs = Reindent::new(&["\ta", "\t\tb"], &["    a", "        b"], Level::Indentation);
        assert_eq!(tabs.apply("        c"), "\t\tc");
        let same = Reindent::new(&["  a"], &["  a"], Level::Indentation);
        assert_eq!(same.apply(" odd"), " odd");
    }
}
