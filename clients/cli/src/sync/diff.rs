//! `cairn diff`: what was edited in synced skill folders, as unified diffs against the
//! version each was synced from (read from the local blob cache, so it works offline).

use std::path::Path;

use serde::Serialize;

use super::state::TargetState;
use super::status::changed_files;
use super::target::Target;
use crate::folder::{self, FolderError};

/// One edited file.
#[derive(Clone, Debug, Serialize)]
pub struct FileChange {
    /// The skill.
    pub skill: String,
    /// The file, relative to the skill folder.
    pub file: String,
    /// `added`, `modified` or `removed` (here, against the synced version).
    pub change: &'static str,
    /// The unified diff (empty for binary files).
    pub unified: String,
    /// Whether either side is not UTF-8 text.
    pub binary: bool,
}

/// Why a diff could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// A folder or file could not be read.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The synced version of a file is not in the cache.
    #[error(
        "the synced version of {skill}/{file} is not in the local cache ({cache}): run `cairn pull` once online, \
         then diff again"
    )]
    NotCached {
        /// The skill.
        skill: String,
        /// The file.
        file: String,
        /// The cache folder.
        cache: String,
    },
    /// The named skill was never synced to this target.
    #[error("skill '{0}' was never synced to this target: `cairn status` lists the synced ones")]
    NotSynced(String),
}

/// The edits of every synced skill of `target` (or only `only`), file by file.
pub fn diff(
    target: &Target,
    state: &TargetState,
    only: Option<&str>,
    cache: &Path,
) -> Result<Vec<FileChange>, DiffError> {
    if let Some(name) = only
        && state.base(name).is_none()
    {
        return Err(DiffError::NotSynced(name.to_owned()));
    }
    let mut changes = Vec::new();
    for (name, synced) in state.skills.iter().chain(&state.removed_upstream) {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let folder = target.root.join(&synced.folder);
        let Some(local) = folder::read(&folder)? else {
            continue;
        };
        for file in changed_files(&synced.files, &local) {
            let base = match synced.files.get(&file) {
                Some(state) => Some(
                    std::fs::read(cache.join(&state.sha256)).map_err(|_| DiffError::NotCached {
                        skill: name.clone(),
                        file: file.clone(),
                        cache: cache.display().to_string(),
                    })?,
                ),
                None => None,
            };
            let mine = match local.get(&file) {
                Some(_) => Some(std::fs::read(folder.join(&file)).map_err(folder::io(&folder.join(&file)))?),
                None => None,
            };
            let change = match (&base, &mine) {
                (None, _) => "added",
                (_, None) => "removed",
                _ => "modified",
            };
            let old = std::str::from_utf8(base.as_deref().unwrap_or_default());
            let new = std::str::from_utf8(mine.as_deref().unwrap_or_default());
            let (unified, binary) = match (old, new) {
                (Ok(old), Ok(new)) => (
                    similar::TextDiff::from_lines(old, new)
                        .unified_diff()
                        .context_radius(3)
                        .header(&format!("a/{name}/{file}"), &format!("b/{name}/{file}"))
                        .to_string(),
                    false,
                ),
                _ => (String::new(), true),
            };
            changes.push(FileChange {
                skill: name.clone(),
                file,
                change,
                unified,
                binary,
            });
        }
    }
    Ok(changes)
}
