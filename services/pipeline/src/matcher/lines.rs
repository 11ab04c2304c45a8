//! Line strategies: `old`'s lines against runs of the file's lines, compared at a
//! [`Level`]; replacements keep the file's own text for the lines the edit leaves alone
//! and follow the file's indentation for the lines it writes.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};

use similar::{Algorithm, DiffTag};

use super::normalize::{Level, normalize, skeleton_hash};
use super::{Applied, Edit, MatchError};

/// A file split into lines, with each level's normalised lines computed on first use.
pub struct FileLines<'a> {
    /// The whole file.
    pub text: &'a str,
    /// Where each line starts and where its text ends (before `\r\n` or `\n`), built on
    /// first use: an exact match never needs it.
    index: OnceCell<LineIndex>,
    skeletons: OnceCell<Vec<u64>>,
    skeleton_counts: OnceCell<HashMap<u64, usize, foldhash::fast::FixedState>>,
    crlf: OnceCell<bool>,
}

struct LineIndex {
    starts: Vec<usize>,
    ends: Vec<usize>,
}

impl<'a> FileLines<'a> {
    /// A file to split into lines (`\n` or `\r\n`; a final line without one counts).
    pub fn new(text: &'a str) -> FileLines<'a> {
        FileLines {
            text,
            index: OnceCell::new(),
            skeletons: OnceCell::new(),
            skeleton_counts: OnceCell::new(),
            crlf: OnceCell::new(),
        }
    }

    fn index(&self) -> &LineIndex {
        self.index.get_or_init(|| {
            let mut starts = Vec::new();
            let mut ends = Vec::new();
            let mut at = 0;
            for piece in self.text.split_inclusive('\n') {
                let body = piece.strip_suffix('\n').unwrap_or(piece);
                let body = body.strip_suffix('\r').unwrap_or(body);
                starts.push(at);
                ends.push(at + body.len());
                at += piece.len();
            }
            LineIndex { starts, ends }
        })
    }

    /// Whether the file's lines end with `\r\n` (most of them do), found once.
    pub fn crlf(&self) -> bool {
        *self.crlf.get_or_init(|| {
            let crlf = memchr::memmem::find_iter(self.text.as_bytes(), b"\r\n").count();
            crlf > 0 && crlf * 2 >= memchr::memchr_iter(b'\n', self.text.as_bytes()).count()
        })
    }

    /// `text` with its line breaks in the file's style (`\r\n` in a CRLF file).
    pub fn with_line_endings<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if !text.contains('\n') || !self.crlf() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len() + 16);
        let mut previous = '\0';
        for c in text.chars() {
            if c == '\n' && previous != '\r' {
                out.push('\r');
            }
            out.push(c);
            previous = c;
        }
        Cow::Owned(out)
    }

    /// Number of lines.
    pub fn len(&self) -> usize {
        self.index().starts.len()
    }

    /// Line `index` without its terminator.
    pub fn line(&self, index: usize) -> &'a str {
        let lines = self.index();
        &self.text[lines.starts[index]..lines.ends[index]]
    }

    /// The line (0-based) holding byte `at`.
    pub fn line_of(&self, at: usize) -> usize {
        match self.index.get() {
            Some(lines) => lines.starts.partition_point(|&s| s <= at).saturating_sub(1),
            None => memchr::memchr_iter(b'\n', &self.text.as_bytes()[..at]).count(),
        }
    }

    /// The 1-based lines holding the bytes `offsets` (ascending), in one pass over the
    /// file when its line index is not built.
    pub fn line_numbers(&self, offsets: &[usize]) -> Vec<usize> {
        if self.index.get().is_some() {
            return offsets.iter().map(|&at| self.line_of(at) + 1).collect();
        }
        let bytes = self.text.as_bytes();
        let (mut line, mut from) = (0, 0);
        offsets
            .iter()
            .map(|&at| {
                line += memchr::memchr_iter(b'\n', &bytes[from..at.max(from)]).count();
                from = from.max(at);
                line + 1
            })
            .collect()
    }

    /// How many lines have each skeleton hash, computed once.
    pub fn skeleton_counts(&self) -> &HashMap<u64, usize, foldhash::fast::FixedState> {
        self.skeleton_counts.get_or_init(|| {
            let mut counts = HashMap::default();
            for &h in self.skeletons() {
                *counts.entry(h).or_insert(0) += 1;
            }
            counts
        })
    }

    /// Every line's skeleton hash ([`skeleton_hash`]), computed once.
    pub fn skeletons(&self) -> &[u64] {
        self.skeletons.get_or_init(|| {
            let mut buffer = String::new();
            (0..self.len())
                .map(|i| skeleton_hash(self.line(i), &mut buffer))
                .collect()
        })
    }

    /// Start lines of the non-overlapping runs of lines equal to `old_lines` at `level`.
    /// Only runs whose anchor line has the right skeleton are compared line by line.
    pub fn find(&self, old_lines: &[&str], level: Level) -> Vec<usize> {
        let wanted: Vec<Cow<'_, str>> = old_lines.iter().map(|l| normalize(l, level)).collect();
        let Some(anchor) = wanted.iter().position(|l| !l.is_empty()) else {
            return Vec::new();
        };
        let n = wanted.len();
        if n > self.len() {
            return Vec::new();
        }
        // Small files: compare the first line with text directly. Large ones: anchor on
        // the line of `old` whose skeleton is rarest in the file (computed once), so a file
        // of near-identical lines costs no more than any other.
        let anchor = if self.len() > RAREST_ANCHOR_FROM_LINES {
            let counts = self.skeleton_counts();
            let mut buffer = String::new();
            (0..n)
                .filter(|&k| !wanted[k].is_empty())
                .min_by_key(|&k| {
                    counts
                        .get(&skeleton_hash(old_lines[k], &mut buffer))
                        .copied()
                        .unwrap_or(0)
                })
                .unwrap_or(anchor)
        } else {
            anchor
        };
        let anchor_skeleton = skeleton_hash(old_lines[anchor], &mut String::new());
        let skeletons = (level >= Level::Whitespace || self.len() > RAREST_ANCHOR_FROM_LINES).then(|| self.skeletons());
        let anchored = |i: usize| match skeletons {
            Some(skeletons) => skeletons[i] == anchor_skeleton,
            None => normalize(self.line(i), level) == wanted[anchor],
        };
        let mut found = Vec::new();
        let mut i = 0;
        while i + n <= self.len() {
            if anchored(i + anchor) && (0..n).all(|k| normalize(self.line(i + k), level) == wanted[k]) {
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
            return self.splice(&starts, &old_lines, old_newline, edit, level).map(Some);
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
    ) -> Result<Applied, MatchError> {
        let n = old_lines.len();
        let LineIndex {
            starts: line_starts,
            ends,
        } = self.index();
        let mut out = String::with_capacity(self.text.len() + edit.new.len());
        let mut from = 0;
        let mut similarity = 1.0f64;
        for &start in starts {
            let last = start + n - 1;
            let region_start = line_starts[start];
            let (new_lines, region_end) = match (old_newline, edit.new.strip_suffix('\n')) {
                (true, Some(body)) => (split_lines(body).0, ends[last]),
                (true, None) => (
                    split_lines(edit.new).0,
                    line_starts.get(last + 1).copied().unwrap_or(self.text.len()),
                ),
                (false, _) => (edit.new.split('\n').map(strip_cr).collect(), ends[last]),
            };
            let window: Vec<&str> = (start..=last).map(|i| self.line(i)).collect();
            let terminator = if self.crlf() { "\r\n" } else { "\n" };
            out.push_str(&self.text[from..region_start]);
            let rebuilt = rebuild(&window, old_lines, &new_lines, level).ok_or(MatchError::Indentation {
                start_line: start + 1,
                end_line: last + 1,
            })?;
            out.push_str(&rebuilt.join(terminator));
            from = region_end;
            let region = &self.text[region_start..ends[last]];
            similarity = similarity.min(if level == Level::Unicode {
                text_similarity(&old_lines.join("\n"), region)
            } else {
                whitespace_similarity(old_lines, region)
            });
        }
        out.push_str(&self.text[from..]);
        Ok(Applied {
            content: out,
            strategy: level.strategy(),
            similarity,
            replacements: starts.len(),
            lines: starts.iter().map(|s| s + 1).collect(),
        })
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

/// Similarity of texts that differ only in whitespace: the share of whitespace kept.
fn whitespace_similarity(old_lines: &[&str], region: &str) -> f64 {
    let old_len: usize = old_lines.iter().map(|l| l.len() + 1).sum::<usize>().saturating_sub(1);
    let (a, b) = (old_len.min(region.len()), old_len.max(region.len()));
    if b == 0 {
        return 1.0;
    }
    (a as f64 / b as f64 * 1000.0).round() / 1000.0
}

/// The edit operations turning `old_lines` into `new_lines`, computed on interned line
/// ids (comparing ids is cheaper than comparing strings).
pub fn line_ops<'l>(old_lines: &[&'l str], new_lines: &[&'l str]) -> Vec<similar::DiffOp> {
    let mut ids: HashMap<&'l str, u32> = HashMap::new();
    let mut id = |line: &'l str| {
        let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
        *ids.entry(line).or_insert(next)
    };
    let a: Vec<u32> = old_lines.iter().map(|&l| id(l)).collect();
    let b: Vec<u32> = new_lines.iter().map(|&l| id(l)).collect();
    similar::capture_diff_slices(Algorithm::Myers, &a, &b)
}

/// The replacement for one matched run: lines the edit keeps (equal in `old` and `new`)
/// come from the file as it is; lines it writes come from `new`, re-indented to the
/// file's indentation. `None` when `old`'s indentation does not map onto the file's
/// consistently and a written line has no counterpart to take its indentation from.
pub fn rebuild<'t>(
    window: &[&'t str],
    old_lines: &[&str],
    new_lines: &[&'t str],
    level: Level,
) -> Option<Vec<Cow<'t, str>>> {
    let indent = Reindent::new(window, old_lines, level);
    let mut out = Vec::with_capacity(new_lines.len());
    for op in line_ops(old_lines, new_lines) {
        match op.tag() {
            DiffTag::Equal => out.extend(op.old_range().map(|k| Cow::Borrowed(window[k]))),
            DiffTag::Delete => {}
            DiffTag::Insert | DiffTag::Replace if indent.consistent => {
                out.extend(op.new_range().map(|j| indent.apply(new_lines[j])));
            }
            DiffTag::Replace if op.old_range().len() == op.new_range().len() => {
                // Line by line: a rewritten line keeps the indentation of the file's line
                // it replaces, if the agent kept its own.
                for (k, j) in op.old_range().zip(op.new_range()) {
                    let (old, new) = (old_lines[k], new_lines[j]);
                    if leading(old) != leading(new) {
                        return None;
                    }
                    out.push(Cow::Owned(format!(
                        "{}{}",
                        leading(window[k]),
                        &new[leading(new).len()..]
                    )));
                }
            }
            DiffTag::Insert | DiffTag::Replace => return None,
        }
    }
    Some(out)
}

/// How `old`'s indentation maps onto the file's (a shift, or a change of unit such as
/// two spaces to four, or spaces to tabs).
struct Reindent {
    /// Old indentation width → file indentation width, from the matched lines.
    widths: BTreeMap<usize, usize>,
    tabs: bool,
    identity: bool,
    /// Whether each old width maps to one file width, in the same order (agents that
    /// drop all indentation make every old width 0: that maps onto nothing).
    consistent: bool,
}

/// Files longer than this anchor line searches on `old`'s rarest line.
const RAREST_ANCHOR_FROM_LINES: usize = 2_000;

/// Columns a tab counts for when comparing indentation.
const TAB_WIDTH: usize = 4;

impl Reindent {
    fn new(window: &[&str], old_lines: &[&str], level: Level) -> Reindent {
        let mut widths = BTreeMap::new();
        let mut tabs = false;
        let mut identity = true;
        let mut consistent = true;
        if level != Level::Trailing {
            for (file, old) in window.iter().zip(old_lines) {
                if old.trim().is_empty() || file.trim().is_empty() {
                    continue;
                }
                let (fi, oi) = (leading(file), leading(old));
                tabs |= fi.contains('\t');
                identity &= fi == oi;
                consistent &= *widths.entry(width(oi)).or_insert(width(fi)) == width(fi);
            }
            consistent &= widths.values().zip(widths.values().skip(1)).all(|(a, b)| a < b);
        }
        Reindent {
            widths,
            tabs,
            identity,
            consistent,
        }
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
        let (Some((&x1, &y1)), Some((&x2, &y2))) = (self.widths.first_key_value(), self.widths.last_key_value()) else {
            return old_width;
        };
        if let Some(&w) = self.widths.get(&old_width) {
            return w;
        }
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
        let fresh = FileLines::new("a\r\nb\n\nc");
        assert_eq!(
            fresh.line_numbers(&[0, 3, 7]),
            vec![1, 2, 4],
            "one pass, before the index exists"
        );
        assert_eq!(f.line_numbers(&[0, 3, 7]), vec![1, 2, 4]);
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
