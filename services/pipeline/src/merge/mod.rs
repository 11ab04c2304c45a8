//! Three-way merge of text files by lines, for patches whose base is behind the latest
//! revision (docs/CONCURRENT.md).
//!
//! Each side's change against the base is a list of hunks ([`hunks`]); the hunks are
//! woven together in base order ([`weave`]): changes to different lines both apply, also
//! when they sit right beside each other; two insertions at one point (two new bullets
//! after the same item, two items appended to one list, two sections appended to the
//! file) both land, the latest revision's first because it was approved first; only
//! different changes to the same base lines conflict. A merge is then checked line by
//! line ([`accounted`]): every line must occur in the result exactly as often as the
//! latest revision has it plus what the patch added minus what it removed. A merge that
//! fails the check is reported as a conflict, never published.

mod hunks;
mod text;
mod weave;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

pub(crate) use hunks::diff_ops;
use text::{Lines, join, merged_final_newline};
use weave::{Piece, weave};

/// One conflicting region of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ConflictHunk {
    /// The lines as the patch has them.
    pub patch: String,
    /// The lines as the base revision had them.
    pub base: String,
    /// The lines as the latest revision has them.
    pub latest: String,
}

/// A clean merge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Merged {
    /// The merged text.
    pub text: String,
    /// Points where both sides inserted different lines, both kept.
    pub shared_insertions: usize,
    /// Changes of the patch right beside a change of the latest revision.
    pub beside: usize,
}

/// A merge that cannot be made without a person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflicted {
    /// The conflicting regions.
    pub hunks: Vec<ConflictHunk>,
    /// The whole merged text with each conflicting region between markers
    /// (`<<<<<<< patch`, `||||||| base`, `=======`, `>>>>>>> latest`), the starting point
    /// for a reviewer who resolves it by hand.
    pub marked: String,
}

/// Merges the change `base → patch` with the change `base → latest`.
pub fn merge3(base: &str, patch: &str, latest: &str) -> Result<Merged, Conflicted> {
    let (b, p, l) = (Lines::split(base), Lines::split(patch), Lines::split(latest));
    let (Some(ours), Some(theirs)) = (hunks::hunks(&b.lines, &p.lines), hunks::hunks(&b.lines, &l.lines)) else {
        return Err(Conflicted {
            hunks: vec![ConflictHunk {
                patch: patch.to_owned(),
                base: base.to_owned(),
                latest: latest.to_owned(),
            }],
            marked: marked_whole(base, patch, latest),
        });
    };
    let woven = weave(&b.lines, &ours, &theirs);
    let final_newline = merged_final_newline(&b, &p, &l);
    if woven.clashes.is_empty() {
        let mut lines = Vec::new();
        for piece in &woven.pieces {
            if let Piece::Lines(part) = piece {
                lines.extend_from_slice(part);
            }
        }
        let agreed: Vec<(&[&str], &[&str])> = woven
            .agreed
            .iter()
            .map(|(span, both)| (&b.lines[span.clone()], both.as_slice()))
            .collect();
        if accounted(&b.lines, &p.lines, &l.lines, &lines, &agreed) {
            return Ok(Merged {
                text: join(&lines, final_newline),
                shared_insertions: woven.shared_insertions,
                beside: woven.beside,
            });
        }
        // Never expected (the weave takes every line once); a conflict is the safe answer.
        return Err(Conflicted {
            hunks: vec![ConflictHunk {
                patch: patch.to_owned(),
                base: base.to_owned(),
                latest: latest.to_owned(),
            }],
            marked: marked_whole(base, patch, latest),
        });
    }
    let text = |lines: &[&str]| {
        let mut s = join(lines, true);
        if lines.is_empty() {
            s.clear();
        }
        s
    };
    let hunks = woven
        .clashes
        .iter()
        .map(|c| ConflictHunk {
            patch: text(&c.patch),
            base: text(&b.lines[c.base.clone()]),
            latest: text(&c.latest),
        })
        .collect::<Vec<_>>();
    let mut marked: Vec<&str> = Vec::new();
    for piece in &woven.pieces {
        match piece {
            Piece::Lines(part) => marked.extend_from_slice(part),
            Piece::Clash(i) => {
                let clash = &woven.clashes[*i];
                marked.push("<<<<<<< patch");
                marked.extend_from_slice(&clash.patch);
                marked.push("||||||| base");
                marked.extend_from_slice(&b.lines[clash.base.clone()]);
                marked.push("=======");
                marked.extend_from_slice(&clash.latest);
                marked.push(">>>>>>> latest");
            }
        }
    }
    let ends_in_marker = matches!(woven.pieces.last(), Some(Piece::Clash(_)));
    let marked = join(&marked, final_newline || ends_in_marker);
    Err(Conflicted { hunks, marked })
}

fn marked_whole(base: &str, patch: &str, latest: &str) -> String {
    let line = |s: &str| {
        if s.is_empty() || s.ends_with('\n') {
            s.to_owned()
        } else {
            format!("{s}\n")
        }
    };
    format!(
        "<<<<<<< patch\n{}||||||| base\n{}=======\n{}>>>>>>> latest\n",
        line(patch),
        line(base),
        line(latest)
    )
}

/// Whether `merged` accounts for every line: each distinct line occurs in it as often as
/// in `latest`, plus what the patch added, minus what the patch removed — except that a
/// change both sides made identically (`agreed`: base lines and what both made of them)
/// counts once. This is what rules out a silent wrong merge whatever placed the lines:
/// a line neither side touched is kept exactly once, every line the patch adds appears
/// exactly once, and nothing the patch removed comes back.
pub(crate) fn accounted<'a>(
    base: &[&'a str],
    patch: &[&'a str],
    latest: &[&'a str],
    merged: &[&'a str],
    agreed: &[(&[&'a str], &[&'a str])],
) -> bool {
    let mut balance: HashMap<&'a str, i64> = HashMap::new();
    let mut add = |lines: &[&'a str], sign: i64| {
        for line in lines {
            *balance.entry(line).or_default() += sign;
        }
    };
    add(merged, 1);
    add(latest, -1);
    add(patch, -1);
    add(base, 1);
    for (was, now) in agreed {
        add(now, 1);
        add(was, -1);
    }
    balance.values().all(|n| *n == 0)
}

/// The base lines (0-based ranges) that `latest` rewrote with other text — not those it
/// kept or only removed. A replayed op must not land where its text was rewritten: the
/// copy the matcher finds elsewhere is then someone else's text, not the author's.
pub(crate) fn rewritten_lines(base: &str, latest: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let (b, l) = (Lines::split(base), Lines::split(latest));
    Some(
        hunks::hunks(&b.lines, &l.lines)?
            .into_iter()
            .filter(|h| !h.is_insertion() && !h.lines.is_empty())
            .map(|h| h.start..h.end)
            .collect(),
    )
}

/// [`accounted`] for whole texts, with nothing agreed: the check a replayed file passes.
pub fn accounts_for(base: &str, patch: &str, latest: &str, merged: &str) -> bool {
    let split = |s| Lines::split(s).lines;
    accounted(&split(base), &split(patch), &split(latest), &split(merged), &[])
}

#[cfg(test)]
mod tests;
