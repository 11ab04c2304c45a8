//! The *rebase* stage: a patch made against an older revision is placed onto the latest
//! the way its author meant it.
//!
//! File by file: a file only the patch changed is taken as the patch has it; a file both
//! changed is merged by lines ([`crate::merge`]: changes to different lines both land,
//! insertions at one point both land in approval order); when that conflicts and the
//! patch changed the file only with `patch` ops, the ops are replayed on the latest file
//! with the matcher (the text they change may have moved). Whatever placed the lines, the
//! result must account for every line ([`crate::merge::accounts_for`]) or it is a
//! conflict: nothing is guessed and no lesson is silently garbled.

use std::collections::{BTreeMap, BTreeSet};

use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleFile};

use crate::matcher::{self, Edit, Strategy};
use crate::merge::{self, Conflicted};
use crate::ops::ValidOp;
pub use crate::report::{ConflictHunk, FileConflict, FilePlacement, OpPlacement, Placement};

/// The rebase stage's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Rebased {
    /// All files of the merged skill (meaningless when there are conflicts).
    pub files: BTreeMap<RelPath, BundleFile>,
    /// How each file the patch changes was placed.
    pub placements: Vec<FilePlacement>,
    /// How each op was placed.
    pub ops: Vec<OpPlacement>,
    /// The files that conflict.
    pub conflicts: Vec<FileConflict>,
}

impl Rebased {
    /// Whether every file was placed.
    pub fn is_clean(&self) -> bool {
        self.conflicts.is_empty()
    }

    /// The files changed on both sides and combined.
    pub fn merged_files(&self) -> Vec<String> {
        self.placements
            .iter()
            .filter(|p| {
                matches!(
                    p.placement,
                    Placement::Merged | Placement::StructuralInsertion | Placement::Replayed
                )
            })
            .map(|p| p.file.clone())
            .collect()
    }
}

/// A replayed op: its index, how `old` was found in the latest file, and the first line
/// of each replaced place there.
type ReplayedOp = (usize, Strategy, Vec<usize>);

/// One file placed: its content, how, and for replayed ops where each landed.
struct Placed {
    file: BundleFile,
    placement: Placement,
    detail: String,
    replayed: Vec<ReplayedOp>,
}

/// Places the change `base → patched` (made by `ops`) onto `latest`.
pub fn rebase(base: &Bundle, ops: &[ValidOp], patched: &Bundle, latest: &Bundle) -> Rebased {
    let paths: BTreeSet<&RelPath> = base
        .files()
        .keys()
        .chain(patched.files().keys())
        .chain(latest.files().keys())
        .collect();
    let mut out = Rebased {
        files: BTreeMap::new(),
        placements: Vec::new(),
        ops: Vec::new(),
        conflicts: Vec::new(),
    };
    let mut by_file: BTreeMap<String, (Placement, Vec<ReplayedOp>)> = BTreeMap::new();
    for path in paths {
        let (b, p, l) = (base.get(path), patched.get(path), latest.get(path));
        if p == b {
            if let Some(l) = l {
                out.files.insert(path.clone(), l.clone());
            }
            continue;
        }
        let placed = if l == b {
            p.map(|p| Placed {
                file: p.clone(),
                placement: Placement::Applied,
                detail: "the latest revision left this file as the patch's base had it".to_owned(),
                replayed: Vec::new(),
            })
            .ok_or(None)
        } else if p == l {
            p.map(|p| Placed {
                file: p.clone(),
                placement: Placement::AlreadyThere,
                detail: "the latest revision already has this change".to_owned(),
                replayed: Vec::new(),
            })
            .ok_or(None)
        } else {
            match (b, p, l) {
                (Some(b), Some(p), Some(l)) => place_text(path, b, p, l, ops).map_err(Some),
                (_, None, _) => Err(Some(plain_conflict(
                    "the patch removes this file, which the latest revision changed",
                ))),
                (_, _, None) => Err(Some(plain_conflict(
                    "the patch changes this file, which the latest revision removed",
                ))),
                (None, Some(_), Some(_)) => Err(Some(plain_conflict(
                    "the patch and the latest revision both add this file, with different contents",
                ))),
            }
        };
        let file = path.as_str().to_owned();
        match placed {
            Ok(placed) => {
                out.placements.push(FilePlacement {
                    file: file.clone(),
                    placement: placed.placement,
                    detail: placed.detail,
                });
                by_file.insert(file, (placed.placement, placed.replayed));
                out.files.insert(path.clone(), placed.file);
            }
            // Removed by the patch, untouched by the latest revision.
            Err(None) => {
                out.placements.push(FilePlacement {
                    file: file.clone(),
                    placement: Placement::Applied,
                    detail: "removed; the latest revision left it as the patch's base had it".to_owned(),
                });
                by_file.insert(file, (Placement::Applied, Vec::new()));
            }
            Err(Some(conflict)) => {
                out.placements.push(FilePlacement {
                    file: file.clone(),
                    placement: Placement::Conflict,
                    detail: conflict.reason.clone(),
                });
                by_file.insert(file.clone(), (Placement::Conflict, Vec::new()));
                out.conflicts.push(FileConflict { file, ..conflict });
            }
        }
    }
    for (index, op) in ops.iter().enumerate() {
        let file = op_file(op).map(str::to_owned);
        let (placement, strategy, lines) = match file.as_ref().and_then(|f| by_file.get(f)) {
            Some((placement, replayed)) => match replayed.iter().find(|(i, ..)| *i == index) {
                Some((_, strategy, lines)) => (*placement, Some(*strategy), lines.clone()),
                None => (*placement, None, Vec::new()),
            },
            None => (Placement::Applied, None, Vec::new()),
        };
        out.ops.push(OpPlacement {
            index,
            op: op.kind().to_owned(),
            file,
            placement,
            strategy,
            lines,
        });
    }
    out
}

/// The file an op changes.
fn op_file(op: &ValidOp) -> Option<&str> {
    match op {
        ValidOp::Patch { file, .. } | ValidOp::WriteFile { file, .. } | ValidOp::RemoveFile { file } => {
            Some(file.as_str())
        }
        ValidOp::Edit { .. } | ValidOp::Create { .. } => Some(cairn_skill::path::SKILL_MD),
        ValidOp::Delete => None,
    }
}

fn plain_conflict(reason: &str) -> FileConflict {
    FileConflict {
        file: String::new(),
        reason: reason.to_owned(),
        hunks: Vec::new(),
        marked: None,
    }
}

/// A text file both sides changed: merged by lines, else the patch's ops replayed.
fn place_text(
    path: &RelPath,
    base: &BundleFile,
    patched: &BundleFile,
    latest: &BundleFile,
    ops: &[ValidOp],
) -> Result<Placed, FileConflict> {
    let executable = if patched.executable != base.executable {
        patched.executable
    } else {
        latest.executable
    };
    let texts = (
        std::str::from_utf8(&base.bytes),
        std::str::from_utf8(&patched.bytes),
        std::str::from_utf8(&latest.bytes),
    );
    let (Ok(b), Ok(p), Ok(l)) = texts else {
        return Err(plain_conflict(
            "a binary file changed both in the patch and in the latest revision",
        ));
    };
    let conflicted = match merge::merge3(b, p, l) {
        Ok(merged) => {
            let (placement, detail) = if merged.shared_insertions > 0 {
                (
                    Placement::StructuralInsertion,
                    format!(
                        "both inserted lines at the same place ({} point{}): both kept, the latest revision's first",
                        merged.shared_insertions,
                        if merged.shared_insertions == 1 { "" } else { "s" }
                    ),
                )
            } else if merged.beside > 0 {
                (
                    Placement::Merged,
                    "changed right beside lines the latest revision changed: both kept".to_owned(),
                )
            } else {
                (
                    Placement::Merged,
                    "both changed this file, at different lines: both kept".to_owned(),
                )
            };
            return Ok(Placed {
                file: BundleFile::new(merged.text.into_bytes(), executable),
                placement,
                detail,
                replayed: Vec::new(),
            });
        }
        Err(conflicted) => conflicted,
    };
    if let Some(replayed) = replay(path, b, p, l, ops) {
        return Ok(Placed {
            file: BundleFile::new(replayed.0.into_bytes(), executable),
            placement: Placement::Replayed,
            detail: "the lines around this change moved or changed: its ops were found again in the latest file and applied there".to_owned(),
            replayed: replayed.1,
        });
    }
    let Conflicted { hunks, marked } = conflicted;
    Err(FileConflict {
        file: String::new(),
        reason: "the patch and the latest revision change the same lines differently".to_owned(),
        hunks,
        marked: Some(marked),
    })
}

/// Replays the patch's `patch` ops on the latest file, when those are the only ops that
/// touch it; `None` when one cannot be placed with certainty or the result does not
/// account for every line.
fn replay(
    path: &RelPath,
    base: &str,
    patched: &str,
    latest: &str,
    ops: &[ValidOp],
) -> Option<(String, Vec<ReplayedOp>)> {
    let mut text = latest.to_owned();
    let mut placed = Vec::new();
    let rewritten = merge::rewritten_lines(base, latest)?;
    for (index, op) in ops.iter().enumerate() {
        match op {
            ValidOp::Patch {
                file,
                old,
                new,
                replace_all,
            } if file == path => {
                // Where the author's text was in the base: the latest must have kept it
                // there or moved it (removed it there), never rewritten it.
                let edit = Edit {
                    old,
                    new,
                    replace_all: *replace_all,
                };
                let at_base = matcher::apply(base, edit).ok()?;
                let height = old.trim_end_matches('\n').lines().count().max(1);
                let touched = at_base.lines.iter().any(|first| {
                    let region = first.saturating_sub(1)..first.saturating_sub(1) + height;
                    rewritten.iter().any(|r| r.start < region.end && region.start < r.end)
                });
                if touched {
                    return None;
                }
                let applied = matcher::apply(
                    &text,
                    Edit {
                        old,
                        new,
                        replace_all: *replace_all,
                    },
                )
                .ok()?;
                if applied.strategy == Strategy::AlreadyApplied {
                    return None;
                }
                placed.push((index, applied.strategy, applied.lines));
                text = applied.content;
            }
            other if op_file(other) == Some(path.as_str()) => return None,
            _ => {}
        }
    }
    (!placed.is_empty() && merge::accounts_for(base, patched, latest, &text)).then_some((text, placed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_skill::limits::Limits;

    fn bundle(skill: &str, extra: &[(&str, &str)]) -> Bundle {
        let mut files = vec![(RelPath::skill_md(), BundleFile::new(skill.as_bytes().to_vec(), false))];
        for (p, t) in extra {
            files.push((
                RelPath::parse(p).unwrap(),
                BundleFile::new(t.as_bytes().to_vec(), false),
            ));
        }
        Bundle::from_files(files, &Limits::default()).unwrap()
    }

    fn patch_op(old: &str, new: &str) -> ValidOp {
        ValidOp::Patch {
            file: RelPath::skill_md(),
            old: old.to_owned(),
            new: new.to_owned(),
            replace_all: false,
        }
    }

    const HEAD: &str = "---\nname: demo\ndescription: A demo.\n---\n";
    const SKILL: &str = "---\nname: demo\ndescription: A demo.\n---\nBody.\n";

    fn skill_text(r: &Rebased) -> String {
        String::from_utf8(r.files[&RelPath::skill_md()].bytes.clone()).unwrap()
    }

    #[test]
    fn changes_to_different_lines_merge() {
        let base = bundle(&format!("{HEAD}one\ntwo\nthree\nfour\nfive\n"), &[]);
        let patched = bundle(
            &format!("{HEAD}ONE\ntwo\nthree\nfour\nfive\n"),
            &[("references/a.md", "new")],
        );
        let latest = bundle(&format!("{HEAD}one\ntwo\nthree\nfour\nFIVE\n"), &[]);
        let r = rebase(&base, &[], &patched, &latest);
        assert!(r.is_clean());
        assert_eq!(r.merged_files(), vec!["SKILL.md".to_owned()]);
        assert_eq!(skill_text(&r), format!("{HEAD}ONE\ntwo\nthree\nfour\nFIVE\n"));
        assert!(r.files.contains_key(&RelPath::parse("references/a.md").unwrap()));
        let how: Vec<(&str, Placement)> = r.placements.iter().map(|p| (p.file.as_str(), p.placement)).collect();
        assert_eq!(
            how,
            vec![("SKILL.md", Placement::Merged), ("references/a.md", Placement::Applied)]
        );
    }

    #[test]
    fn changes_to_the_same_lines_conflict_with_hunks_and_markers() {
        let base = bundle(&format!("{HEAD}step: a\n"), &[]);
        let patched = bundle(&format!("{HEAD}step: b\n"), &[]);
        let latest = bundle(&format!("{HEAD}step: c\n"), &[]);
        let r = rebase(&base, &[], &patched, &latest);
        assert_eq!(r.conflicts.len(), 1);
        assert_eq!(r.conflicts[0].file, "SKILL.md");
        assert_eq!(
            r.conflicts[0].hunks,
            vec![ConflictHunk {
                patch: "step: b\n".into(),
                base: "step: a\n".into(),
                latest: "step: c\n".into()
            }]
        );
        assert!(
            r.conflicts[0]
                .marked
                .as_deref()
                .unwrap()
                .contains("<<<<<<< patch\nstep: b\n")
        );
        assert_eq!(r.placements[0].placement, Placement::Conflict);
    }

    #[test]
    fn a_patch_op_whose_text_moved_is_replayed_where_it_now_is() {
        // The latest revision moved the section the patch edits to the end.
        let c = "## C\n\ng1\ng2\ng3\ng4\ng5\ng6\n";
        let base = format!("{HEAD}## A\n\nalpha\n\n## B\n\nbeta one\nbeta two\n\n{c}");
        let latest = format!("{HEAD}## A\n\nalpha\n\n{c}\n## B\n\nbeta one\nbeta two\n");
        let op = patch_op("beta one\nbeta two\n", "beta one\nbeta two, carefully\n");
        let patched = base.replace("beta two\n", "beta two, carefully\n");
        let r = rebase(
            &bundle(&base, &[]),
            &[op],
            &bundle(&patched, &[]),
            &bundle(&latest, &[]),
        );
        assert!(r.is_clean(), "{:?}", r.conflicts);
        assert_eq!(skill_text(&r), latest.replace("beta two\n", "beta two, carefully\n"));
        assert_eq!(r.ops[0].placement, Placement::Replayed);
        assert_eq!(r.ops[0].strategy, Some(Strategy::Exact));
        assert_eq!(r.ops[0].lines, vec![20]);
    }

    #[test]
    fn a_replay_that_would_undo_the_latest_change_is_a_conflict() {
        // The patch removes a section; the latest changed a line inside it. Replaying the
        // removal (the matcher tolerates the changed line) would drop the latest change.
        let base = format!("{HEAD}## Keep\n\nk\n\n## Drop\n\nd1\nd2\nd3\n\n## End\n");
        let latest = base.replace("d2\n", "d2 (important)\n");
        let op = patch_op("## Drop\n\nd1\nd2\nd3\n\n", "");
        let patched = base.replace("## Drop\n\nd1\nd2\nd3\n\n", "");
        let r = rebase(
            &bundle(&base, &[]),
            &[op],
            &bundle(&patched, &[]),
            &bundle(&latest, &[]),
        );
        assert!(!r.is_clean());
        assert_eq!(r.ops[0].placement, Placement::Conflict);
    }

    #[test]
    fn a_replay_never_lands_on_a_copy_the_latest_added_where_it_rewrote_the_original() {
        let base = format!("{HEAD}## Build\n\n- Run the tests.\n\n## Deploy\n\n- Check the logs.\n");
        let latest = base
            .replace("- Run the tests.\n", "- Run the tests (all of them).\n")
            .replace("- Check the logs.\n", "- Check the logs.\n- Run the tests.\n");
        let op = patch_op("- Run the tests.", "- Run the tests with --locked.");
        let patched = base.replace("- Run the tests.", "- Run the tests with --locked.");
        let r = rebase(
            &bundle(&base, &[]),
            &[op],
            &bundle(&patched, &[]),
            &bundle(&latest, &[]),
        );
        assert!(!r.is_clean(), "{:?}", r.placements);
    }

    #[test]
    fn removals_against_changes_conflict_and_identical_changes_agree() {
        let base = bundle(SKILL, &[("references/a.md", "x")]);
        let patched = bundle(SKILL, &[]);
        let latest = bundle(SKILL, &[("references/a.md", "y")]);
        let r = rebase(&base, &[], &patched, &latest);
        assert!(r.conflicts[0].reason.contains("removes"));
        let same = bundle(SKILL, &[("references/a.md", "z")]);
        let r = rebase(&base, &[], &same, &same);
        assert!(r.is_clean());
        assert_eq!(r.placements[0].placement, Placement::AlreadyThere);
    }
}
