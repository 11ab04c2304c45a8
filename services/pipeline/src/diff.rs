//! The bundle diff reviewers read: per file added, removed or changed, with a unified
//! diff for text.

use cairn_skill::BundleFile;
use cairn_skill::path::RelPath;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// How a file changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// New file.
    Added,
    /// File removed.
    Removed,
    /// Contents or mode changed.
    Modified,
}

/// One changed file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileDiff {
    /// The file.
    pub file: String,
    /// How it changes.
    pub change: Change,
    /// Unified diff of the text (empty for binary files).
    pub unified: String,
    /// Whether either side is not UTF-8 text.
    #[serde(default)]
    pub binary: bool,
    /// Whether the executable bit changes.
    #[serde(default)]
    pub mode_changed: bool,
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// The diff from `before` to `after` (either may be empty: a new or deleted skill).
pub fn diff(before: &BTreeMap<RelPath, BundleFile>, after: &BTreeMap<RelPath, BundleFile>) -> Vec<FileDiff> {
    let paths: BTreeSet<&RelPath> = before.keys().chain(after.keys()).collect();
    let mut out = Vec::new();
    for path in paths {
        let (old, new) = (before.get(path), after.get(path));
        if old == new {
            continue;
        }
        let change = match (old, new) {
            (None, _) => Change::Added,
            (_, None) => Change::Removed,
            _ => Change::Modified,
        };
        let (a, b) = (std::str::from_utf8(bytes_of(old)), std::str::from_utf8(bytes_of(new)));
        let (unified, binary) = match (a, b) {
            (Ok(a), Ok(b)) => (
                similar::TextDiff::from_lines(a, b)
                    .unified_diff()
                    .context_radius(CONTEXT)
                    .header(&format!("a/{}", path.as_str()), &format!("b/{}", path.as_str()))
                    .to_string(),
                false,
            ),
            _ => (String::new(), true),
        };
        out.push(FileDiff {
            file: path.as_str().to_owned(),
            change,
            unified,
            binary,
            mode_changed: matches!((old, new), (Some(o), Some(n)) if o.executable != n.executable),
        });
    }
    out
}

/// The lines one `@@` hunk of a unified diff covers on each side: comments on a patch
/// are anchored to lines its diff shows, and the review web numbers its rows from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HunkRange {
    /// The first old line (1-based; 0 when the hunk has no old lines).
    pub old_start: usize,
    /// How many old lines.
    pub old_count: usize,
    /// The first new line.
    pub new_start: usize,
    /// How many new lines.
    pub new_count: usize,
}

impl HunkRange {
    /// Whether lines `first..=last` of one side (`new`, else old) lie in this hunk.
    pub fn covers(&self, new: bool, first: usize, last: usize) -> bool {
        let (start, count) = if new {
            (self.new_start, self.new_count)
        } else {
            (self.old_start, self.old_count)
        };
        count > 0 && first >= start && last < start + count && first <= last
    }
}

/// Parses a hunk header, `@@ -a[,b] +c[,d] @@…` (a missing count means 1).
pub fn hunk_header(header: &str) -> Option<HunkRange> {
    let mut parts = header.strip_prefix("@@")?.split_whitespace();
    let (old_start, old_count) = parse_range(parts.next()?.strip_prefix('-')?)?;
    let (new_start, new_count) = parse_range(parts.next()?.strip_prefix('+')?)?;
    Some(HunkRange {
        old_start,
        old_count,
        new_start,
        new_count,
    })
}

/// Every hunk of a unified diff.
pub fn hunk_ranges(unified: &str) -> Vec<HunkRange> {
    unified.lines().filter_map(hunk_header).collect()
}

/// Parses `start[,count]`.
fn parse_range(range: &str) -> Option<(usize, usize)> {
    match range.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((range.parse().ok()?, 1)),
    }
}

fn bytes_of(file: Option<&BundleFile>) -> &[u8] {
    file.map_or(&[][..], |f| f.bytes.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(list: &[(&str, &[u8])]) -> BTreeMap<RelPath, BundleFile> {
        list.iter()
            .map(|(p, b)| (RelPath::parse(p).unwrap(), BundleFile::new(b.to_vec(), false)))
            .collect()
    }

    #[test]
    fn hunk_ranges_say_which_lines_a_diff_shows() {
        let before = files(&[("SKILL.md", b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")]);
        let after = files(&[("SKILL.md", b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n")]);
        let unified = &diff(&before, &after)[0].unified;
        let hunks = hunk_ranges(unified);
        assert_eq!(
            hunks,
            vec![HunkRange {
                old_start: 8,
                old_count: 3,
                new_start: 8,
                new_count: 4
            }]
        );
        assert!(hunks[0].covers(true, 11, 11));
        assert!(hunks[0].covers(true, 8, 11));
        assert!(!hunks[0].covers(true, 7, 8), "line 7 is not shown");
        assert!(!hunks[0].covers(false, 11, 11), "the old side has ten lines");
        assert!(!hunks[0].covers(true, 10, 9), "a range ends after it starts");
        assert_eq!(
            hunk_header("@@ -0,0 +1 @@").map(|h| (h.new_start, h.new_count)),
            Some((1, 1))
        );
        assert_eq!(hunk_header("@@ nonsense"), None);
    }

    #[test]
    fn added_removed_modified_and_binary() {
        let before = files(&[
            ("SKILL.md", b"a\nb\n"),
            ("references/old.md", b"x"),
            ("assets/i.bin", b"\xff\x00"),
        ]);
        let after = files(&[
            ("SKILL.md", b"a\nB\n"),
            ("references/new.md", b"y"),
            ("assets/i.bin", b"\xfe\x00"),
        ]);
        let d = diff(&before, &after);
        let summary: Vec<(&str, Change, bool)> = d.iter().map(|f| (f.file.as_str(), f.change, f.binary)).collect();
        assert_eq!(
            summary,
            vec![
                ("SKILL.md", Change::Modified, false),
                ("assets/i.bin", Change::Modified, true),
                ("references/new.md", Change::Added, false),
                ("references/old.md", Change::Removed, false),
            ]
        );
        assert!(d[0].unified.contains("-b\n+B\n"));
        assert!(diff(&before, &before).is_empty());
    }
}
