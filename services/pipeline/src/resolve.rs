//! A reviewer resolving a conflict by hand: the patch's change placed onto the latest
//! revision, with the reviewer's text for each file that conflicted, turned into ops
//! against the latest revision (which then run through every stage again).

use std::collections::BTreeMap;

use base64::Engine as _;
use cairn_skill::limits::Limits;
use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleFile};

use crate::apply::{ApplyError, Outcome, apply_ops};
use crate::ops::{Op, OpError, WritableRoots, validate};
use crate::rebase::rebase;

/// Why a resolution cannot be used (nothing is stored).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ResolveError {
    /// The patch's ops no longer parse or apply to its base.
    #[error(transparent)]
    Ops(#[from] OpError),
    /// The patch's ops no longer apply to its base.
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The patch deletes the skill or creates it: nothing to resolve by text.
    #[error("this patch creates or deletes the skill: there are no lines to resolve; reject it or ask its author")]
    NotText,
    /// The patch merges onto the latest revision: nothing to resolve.
    #[error("this patch merges onto the latest revision without a conflict: approve it as it is")]
    NoConflict,
    /// A conflicting file was not resolved.
    #[error("{0} is in conflict: send its resolved text too")]
    Missing(String),
    /// A file that does not conflict was sent.
    #[error("{0} is not in conflict: send only the files the conflict lists")]
    NotInConflict(String),
    /// A conflict marker is left in.
    #[error(
        "{file} line {line} still has a conflict marker ('{marker}'): keep the lines you mean and remove the markers"
    )]
    Marker {
        /// The file.
        file: String,
        /// 1-based.
        line: usize,
        /// The marker.
        marker: String,
    },
}

/// The ops, against `latest`, of the patch `ops` (made against `base`) placed onto
/// `latest` with `resolved` text (path → content) for every file that conflicted.
pub fn resolve(
    base: &Bundle,
    ops: &[Op],
    latest: &Bundle,
    resolved: &BTreeMap<String, String>,
    limits: &Limits,
    roots: &WritableRoots,
) -> Result<Vec<Op>, ResolveError> {
    let valid = validate(ops, roots)?;
    let unlimited = Limits::unlimited();
    let applied = apply_ops(Some(base), &valid, if base == latest { limits } else { &unlimited })?;
    let Outcome::Bundle(patched) = applied.outcome else {
        return Err(ResolveError::NotText);
    };
    let rebased = rebase(base, &valid, &patched, latest);
    if rebased.is_clean() {
        return Err(ResolveError::NoConflict);
    }
    let conflicting: Vec<&str> = rebased.conflicts.iter().map(|c| c.file.as_str()).collect();
    if let Some(extra) = resolved.keys().find(|f| !conflicting.contains(&f.as_str())) {
        return Err(ResolveError::NotInConflict(extra.clone()));
    }
    let mut files = rebased.files;
    for file in &conflicting {
        let Some(text) = resolved.get(*file) else {
            return Err(ResolveError::Missing((*file).to_owned()));
        };
        if let Some((line, marker)) = leftover_marker(text) {
            return Err(ResolveError::Marker {
                file: (*file).to_owned(),
                line,
                marker,
            });
        }
        let path = RelPath::parse(file).map_err(|_| ResolveError::NotInConflict((*file).to_owned()))?;
        let executable = latest
            .get(&path)
            .or_else(|| patched.get(&path))
            .is_some_and(|f| f.executable);
        files.insert(path, BundleFile::new(text.as_bytes().to_vec(), executable));
    }
    Ok(ops_between(latest.files(), &files))
}

/// The first line that still holds a conflict marker.
fn leftover_marker(text: &str) -> Option<(usize, String)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let marker = ["<<<<<<<", "|||||||", "=======", ">>>>>>>"]
            .into_iter()
            .find(|m| line.starts_with(m) && line[m.len()..].chars().all(|c| c == ' ' || c.is_alphanumeric()))?;
        Some((i + 1, marker.to_owned()))
    })
}

/// Ops turning `from` into `to`: `edit` for SKILL.md, `write_file` and `remove_file` for
/// the others.
fn ops_between(from: &BTreeMap<RelPath, BundleFile>, to: &BTreeMap<RelPath, BundleFile>) -> Vec<Op> {
    let mut ops = Vec::new();
    for (path, file) in to {
        if from.get(path).is_some_and(|f| f.bytes == file.bytes) {
            continue;
        }
        if path.is_skill_md() {
            ops.push(Op::Edit {
                content: String::from_utf8_lossy(&file.bytes).into_owned(),
            });
            continue;
        }
        ops.push(match std::str::from_utf8(&file.bytes) {
            Ok(text) => Op::WriteFile {
                file: path.as_str().to_owned(),
                content: Some(text.to_owned()),
                content_base64: None,
            },
            Err(_) => Op::WriteFile {
                file: path.as_str().to_owned(),
                content: None,
                content_base64: Some(base64::engine::general_purpose::STANDARD.encode(&file.bytes)),
            },
        });
    }
    for path in from.keys().filter(|p| !to.contains_key(*p)) {
        ops.push(Op::RemoveFile {
            file: path.as_str().to_owned(),
        });
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(skill: &str) -> Bundle {
        Bundle::from_files(
            [(RelPath::skill_md(), BundleFile::new(skill.as_bytes().to_vec(), false))],
            &Limits::default(),
        )
        .unwrap()
    }

    const HEAD: &str = "---\nname: demo\ndescription: A demo.\n---\n";

    #[test]
    fn a_resolution_becomes_an_edit_against_the_latest_revision() {
        let base = bundle(&format!("{HEAD}step: a\nother\n"));
        let latest = bundle(&format!("{HEAD}step: c\nother\n"));
        let ops: Vec<Op> = vec![Op::Patch {
            file: "SKILL.md".into(),
            old: "step: a".into(),
            new: "step: b".into(),
            replace_all: false,
        }];
        let limits = Limits::default();
        let roots = WritableRoots::default();
        let mut resolved = BTreeMap::new();
        assert_eq!(
            resolve(&base, &ops, &latest, &resolved, &limits, &roots),
            Err(ResolveError::Missing("SKILL.md".into()))
        );
        resolved.insert("SKILL.md".to_owned(), format!("{HEAD}<<<<<<< patch\nstep: b\n"));
        assert!(matches!(
            resolve(&base, &ops, &latest, &resolved, &limits, &roots),
            Err(ResolveError::Marker { line: 5, .. })
        ));
        resolved.insert("SKILL.md".to_owned(), format!("{HEAD}step: b and c\nother\n"));
        assert_eq!(
            resolve(&base, &ops, &latest, &resolved, &limits, &roots).unwrap(),
            vec![Op::Edit {
                content: format!("{HEAD}step: b and c\nother\n")
            }]
        );
        resolved.insert("references/x.md".to_owned(), "x".into());
        assert_eq!(
            resolve(&base, &ops, &latest, &resolved, &limits, &roots),
            Err(ResolveError::NotInConflict("references/x.md".into()))
        );
        // A patch that merges needs no resolution.
        let clean = bundle(&format!("{HEAD}step: a\nother, changed\n"));
        assert_eq!(
            resolve(&base, &ops, &clean, &BTreeMap::new(), &limits, &roots),
            Err(ResolveError::NoConflict)
        );
    }
}
