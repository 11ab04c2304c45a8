//! `cairn status` and `cairn diff`: how each synced skill of a target stands against what
//! it was synced from — from the state and the folders alone, so they work offline —
//! plus, when the registry answers, which skills have newer upstream revisions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::pull::UPSTREAM_SUFFIX;
use super::state::{self, StateError, TargetState};
use super::target::Target;
use crate::folder::{self, FileState, FolderError};
use crate::remote::Index;

/// How a skill stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// As synced, and no newer revision is known.
    UpToDate,
    /// As synced locally, and the registry has a newer revision (pull).
    Behind,
    /// Edited here since it was synced.
    ModifiedLocally,
    /// The last pull left files in conflict (`<file>.upstream` beside them).
    Conflict,
    /// Synced, then deleted here.
    DeletedLocally,
    /// A skill folder here that was never synced (push would propose it).
    LocalOnly,
    /// Deleted or wholly yanked upstream while edited here: kept, and proposed again (as a
    /// new skill) only by `cairn push --include-removed NAME`.
    RemovedUpstream,
}

/// A skill's last pushed patch.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ProposalStatus {
    /// The patch id.
    pub patch: String,
    /// Its state (`None`: never asked).
    pub status: Option<String>,
    /// The earlier patch it carries on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// The reviewer who requested changes, while the request is outstanding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes_requested_by: Option<String>,
    /// Reviewers' comments not shown before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<super::follow::ReviewNote>,
}

/// One skill's standing.
#[derive(Clone, Debug, Serialize)]
pub struct SkillStatus {
    /// The skill (the folder name for local-only ones).
    pub name: String,
    /// How it stands.
    pub standing: Standing,
    /// The revision it was synced from.
    pub revision: Option<i32>,
    /// The newest upstream revision, when known and newer.
    pub upstream_revision: Option<i32>,
    /// Its folder.
    pub folder: PathBuf,
    /// The last patch pushed for it, and where it stands (`cairn status` fills this in).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposalStatus>,
    /// Files added, changed or removed here (for `modified_locally`, `conflict` and
    /// `removed_upstream`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changed: Vec<String>,
}

/// A target's status.
#[derive(Clone, Debug, Serialize)]
pub struct TargetStatus {
    /// The target as named.
    pub target: String,
    /// Its skills folder.
    pub root: PathBuf,
    /// The registry it syncs with (empty before the first pull).
    pub server: String,
    /// Whether upstream revisions were checked (false: offline, or not asked).
    pub checked_upstream: bool,
    /// Every synced or local-only skill, by name.
    pub skills: Vec<SkillStatus>,
}

/// Why status could not be told.
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    /// The sync state cannot be used.
    #[error(transparent)]
    State(#[from] StateError),
    /// A folder could not be read.
    #[error(transparent)]
    Folder(#[from] FolderError),
}

/// The target's state (empty before its first pull).
pub fn target_state(target: &Target) -> Result<TargetState, StatusError> {
    Ok(state::load(&state::path_for(&target.root)?)?)
}

/// The files that differ between `synced` and `local` (added, changed or removed).
pub fn changed_files(synced: &BTreeMap<String, FileState>, local: &BTreeMap<String, FileState>) -> Vec<String> {
    let mut changed: Vec<String> = local
        .iter()
        .filter(|(path, state)| synced.get(*path) != Some(state))
        .map(|(path, _)| path.clone())
        .chain(synced.keys().filter(|path| !local.contains_key(*path)).cloned())
        .collect();
    changed.sort();
    changed.dedup();
    changed
}

/// How every skill of `target` stands; `upstream` (a delta since the state's cursor, when
/// the registry answered) marks skills with newer revisions as behind.
pub fn status(target: &Target, state: &TargetState, upstream: Option<&Index>) -> Result<TargetStatus, StatusError> {
    let newer: BTreeMap<&str, i32> = upstream
        .map(|index| index.skills.iter().map(|e| (e.name.as_str(), e.revision)).collect())
        .unwrap_or_default();
    let mut skills = Vec::new();
    for (name, synced) in &state.skills {
        let folder = target.root.join(&synced.folder);
        let upstream_revision = newer.get(name.as_str()).copied().filter(|r| *r != synced.revision);
        let (standing, changed) = match folder::read(&folder)? {
            None => (Standing::DeletedLocally, Vec::new()),
            Some(local) => {
                let changed = changed_files(&synced.files, &local);
                let conflicted = synced
                    .conflicts
                    .iter()
                    .any(|file| local.contains_key(&format!("{file}{UPSTREAM_SUFFIX}")));
                if conflicted {
                    (Standing::Conflict, changed)
                } else if !changed.is_empty() {
                    (Standing::ModifiedLocally, changed)
                } else if upstream_revision.is_some() {
                    (Standing::Behind, changed)
                } else {
                    (Standing::UpToDate, changed)
                }
            }
        };
        skills.push(SkillStatus {
            name: name.clone(),
            standing,
            revision: Some(synced.revision),
            upstream_revision,
            folder,
            proposal: None,
            changed,
        });
    }
    for (name, synced) in &state.removed_upstream {
        let folder = target.root.join(&synced.folder);
        // Gone here too: nothing is left to tell (the next pull forgets it).
        let Some(local) = folder::read(&folder)? else {
            continue;
        };
        skills.push(SkillStatus {
            name: name.clone(),
            standing: Standing::RemovedUpstream,
            revision: Some(synced.revision),
            upstream_revision: None,
            folder,
            proposal: None,
            changed: changed_files(&synced.files, &local),
        });
    }
    let synced_folders: Vec<PathBuf> = state
        .skills
        .values()
        .chain(state.removed_upstream.values())
        .map(|s| target.root.join(&s.folder))
        .collect();
    for folder in skill_folders(&target.root)? {
        if !synced_folders.contains(&folder) {
            let name = folder
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            skills.push(SkillStatus {
                name,
                standing: Standing::LocalOnly,
                revision: None,
                upstream_revision: None,
                folder,
                proposal: None,
                changed: Vec::new(),
            });
        }
    }
    skills.sort_by(|a, b| a.name.cmp(&b.name).then(a.folder.cmp(&b.folder)));
    Ok(TargetStatus {
        target: target.label.clone(),
        root: target.root.clone(),
        server: state.server.clone(),
        checked_upstream: upstream.is_some(),
        skills,
    })
}

/// Folders under `root` holding a `SKILL.md` (the outermost one wins; hidden folders are
/// skipped).
fn skill_folders(root: &Path) -> Result<Vec<PathBuf>, FolderError> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(found);
    };
    for entry in entries {
        let entry = entry.map_err(folder::io(root))?;
        let path = entry.path();
        // Real folders only: links are not followed out of the target.
        let real_dir = entry.file_type().is_ok_and(|k| k.is_dir());
        if !real_dir || entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.join(cairn_skill::path::SKILL_MD).is_file() {
            found.push(path);
        } else {
            found.extend(skill_folders(&path)?);
        }
    }
    Ok(found)
}
