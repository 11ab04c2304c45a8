//! One side's change against the base, as hunks in base coordinates.

use similar::algorithms::{Capture, Replace, diff_deadline};
use similar::{Algorithm, DiffOp};

/// Lines `start..end` of the base replaced by `lines` (`start == end`: an insertion
/// before base line `start`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hunk<'a> {
    /// First base line replaced.
    pub start: usize,
    /// One past the last base line replaced.
    pub end: usize,
    /// What replaces them.
    pub lines: Vec<&'a str>,
}

impl Hunk<'_> {
    /// Whether the hunk only adds lines.
    pub fn is_insertion(&self) -> bool {
        self.start == self.end
    }
}

/// The diff algorithm behind every merge: Myers, a shortest edit script (chosen by
/// measurement on half of the real edit pairs, docs/BENCHMARKS.md).
const ALGORITHM: Algorithm = Algorithm::Myers;

/// The change from `base` to `side`, hunk by hunk, in base order. Insertions that could
/// equally sit a line lower (the inserted block starts with the line that follows it)
/// are moved as low as they go, so two sides inserting the same shape of block at one
/// place agree on that place whichever way their diffs happened to align.
pub(crate) fn hunks<'a>(base: &[&'a str], side: &[&'a str]) -> Option<Vec<Hunk<'a>>> {
    let mut out: Vec<Hunk<'a>> = Vec::new();
    for op in diff_ops(base, side) {
        let (old, new) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete { old_index, old_len, .. } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (old_index..old_index + old_len, new_index..new_index + new_len),
        };
        let lines = &side[new];
        match out.last_mut() {
            // similar reports a replacement as a delete and an insert next to each other.
            Some(last) if last.end == old.start => {
                last.end = old.end;
                last.lines.extend_from_slice(lines);
            }
            _ => out.push(Hunk {
                start: old.start,
                end: old.end,
                lines: lines.to_vec(),
            }),
        }
    }
    slide_insertions_down(base, &mut out);
    // The hunks must rebuild the side exactly, or nothing built on them can be trusted.
    (render(base, &out) == side).then_some(out)
}

/// The edit script from `old` to `new`, uncompacted (compaction moves hunks for looks;
/// the merge places insertions itself, and needs ops that tile both sides exactly).
pub(crate) fn diff_ops<T: Eq + std::hash::Hash + Ord>(old: &[T], new: &[T]) -> Vec<DiffOp> {
    let mut capture = Replace::new(Capture::new());
    // The capture hook never fails.
    let _ = diff_deadline(ALGORITHM, &mut capture, old, 0..old.len(), new, 0..new.len(), None);
    capture.into_inner().into_ops()
}

/// The base with `hunks` applied.
pub(crate) fn render<'a>(base: &[&'a str], hunks: &[Hunk<'a>]) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(base.len());
    let mut at = 0;
    for h in hunks {
        if h.start < at || h.end > base.len() {
            return Vec::new();
        }
        out.extend_from_slice(&base[at..h.start]);
        out.extend_from_slice(&h.lines);
        at = h.end;
    }
    out.extend_from_slice(&base[at..]);
    out
}

fn slide_insertions_down<'a>(base: &[&'a str], hunks: &mut [Hunk<'a>]) {
    for i in 0..hunks.len() {
        if !hunks[i].is_insertion() || hunks[i].lines.is_empty() {
            continue;
        }
        // Stop a line short of the next hunk, so the two stay apart.
        let limit = hunks.get(i + 1).map_or(base.len(), |next| next.start.saturating_sub(1));
        let hunk = &mut hunks[i];
        while hunk.start < limit && hunk.lines[0] == base[hunk.start] {
            hunk.lines.rotate_left(1);
            hunk.start += 1;
            hunk.end += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.split_terminator('\n').collect()
    }

    #[test]
    fn replacements_deletions_and_insertions() {
        let base = lines("a\nb\nc\nd\n");
        assert_eq!(
            hunks(&base, &lines("a\nB\nc\nd\ne\n")).unwrap(),
            vec![
                Hunk {
                    start: 1,
                    end: 2,
                    lines: vec!["B"]
                },
                Hunk {
                    start: 4,
                    end: 4,
                    lines: vec!["e"]
                },
            ]
        );
        assert_eq!(
            hunks(&base, &lines("a\nd\n")).unwrap(),
            vec![Hunk {
                start: 1,
                end: 3,
                lines: vec![]
            }]
        );
    }

    #[test]
    fn insertions_that_can_slide_go_as_low_as_they_can() {
        // "- c" followed by a blank line, inserted after "- b" + blank: the diff may put
        // it before or after the blank line; both read the same, the lower one is kept.
        let base = lines("- a\n\n- b\n\n## Next\n");
        let side = lines("- a\n\n- b\n\n- c\n\n## Next\n");
        let h = hunks(&base, &side).unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!((h[0].start, h[0].end), (4, 4));
        assert_eq!(h[0].lines, vec!["- c", ""]);
    }
}
