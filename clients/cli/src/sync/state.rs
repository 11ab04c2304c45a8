//! What the client remembers per target: the registry, the index cursor, and for each
//! synced skill the folder, revision and file digests it was synced from — so a local
//! edit is told apart from an upstream change. Kept outside the agent's folder, in
//! `$XDG_STATE_HOME/cairn/targets/` (`~/.local/state/cairn/targets/`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::folder::FileState;

/// The state format written and read.
pub const STATE_VERSION: u32 = 1;

/// One target's sync state.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
pub struct TargetState {
    /// Always [`STATE_VERSION`] once written.
    pub version: u32,
    /// The registry the skills came from.
    pub server: String,
    /// The skills folder.
    pub root: PathBuf,
    /// The index cursor of the last pull (`None`: never pulled).
    pub cursor: Option<i64>,
    /// Skill → what it was synced from.
    pub skills: BTreeMap<String, SyncedSkill>,
    /// Skill → what it was last synced from, for skills deleted or wholly yanked upstream
    /// while edited here: the folder is kept, and `push` leaves it alone unless asked
    /// (`--include-removed`), instead of taking it for a new local skill.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub removed_upstream: BTreeMap<String, SyncedSkill>,
    /// Skill → the last proposal pushed (so the same edits are not proposed twice).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub proposals: BTreeMap<String, Proposal>,
}

impl TargetState {
    /// What `name` was last synced from: a synced skill, or one removed upstream and kept
    /// here because it was edited (a pull of its return merges from that base).
    pub fn base(&self, name: &str) -> Option<&SyncedSkill> {
        self.skills.get(name).or_else(|| self.removed_upstream.get(name))
    }
}

/// A patch pushed for a skill's local content.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Proposal {
    /// The version digest of the local content that was proposed.
    pub digest: String,
    /// The patch's id.
    pub patch: String,
    /// Its state when the registry was last asked (`pending_review`, `conflict`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The earlier patch this one carries on (a resubmission after a conflict).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
    /// The newest comment on it already shown here (reviewers' comments are shown once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seen_comment: Option<i64>,
}

/// What one skill was synced from.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct SyncedSkill {
    /// Its folder, relative to the root.
    pub folder: String,
    /// The revision.
    pub revision: i32,
    /// The version digest.
    pub digest: String,
    /// The files as the registry had them.
    pub files: BTreeMap<String, FileState>,
    /// Files left in conflict by the last merge (the upstream side is beside them as
    /// `<file>.upstream`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
}

/// Why the state cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// No state folder is known.
    #[error("cannot tell where to keep the sync state: set XDG_STATE_HOME or HOME")]
    NoStateDir,
    /// Reading or writing failed.
    #[error(transparent)]
    Io(#[from] crate::folder::FolderError),
    /// The file is not valid.
    #[error(
        "{path} is not a valid sync state ({reason}): move it away to start the target over (local edits are kept; every skill then counts as local-only)"
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The list of remembered targets is not valid.
    #[error(
        "{path} is not a valid list of synced targets ({reason}): delete it (the next `cairn pull --target …` writes it again), or name the target with --target"
    )]
    InvalidList {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// The state file of the target at `root`.
pub fn path_for(root: &Path) -> Result<PathBuf, StateError> {
    let base = dirs::state_dir().ok_or(StateError::NoStateDir)?;
    let canonical = canonical_even_if_missing(root);
    let id = cairn_skill::Sha256Hash::of(canonical.to_string_lossy().as_bytes()).to_hex();
    Ok(base.join("cairn/targets").join(format!("{}.json", &id[..16])))
}

/// `root` as it will canonicalize once it exists: a folder not made yet (a first pull)
/// is its deepest existing ancestor, canonicalized (symbolic links and `..` resolved),
/// with the missing rest appended, so the first pull and every later command agree on
/// the state file and the lock.
fn canonical_even_if_missing(root: &Path) -> PathBuf {
    let absolute = std::path::absolute(root).unwrap_or_else(|_| root.to_owned());
    let mut missing = Vec::new();
    let mut existing = absolute.as_path();
    loop {
        if let Ok(canonical) = std::fs::canonicalize(existing) {
            let mut path = canonical;
            for part in missing.iter().rev() {
                match part {
                    std::path::Component::ParentDir => {
                        path.pop();
                    }
                    std::path::Component::CurDir => {}
                    other => path.push(other.as_os_str()),
                }
            }
            return path;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                missing.push(last);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Reads a target's state (empty when none was written).
pub fn load(path: &Path) -> Result<TargetState, StateError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TargetState::default()),
        Err(e) => return Err(crate::folder::io(path)(e).into()),
    };
    let state: TargetState = serde_json::from_str(&text).map_err(|e| StateError::Invalid {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    if let Some((name, _)) = state.skills.iter().chain(&state.removed_upstream).find(|(_, s)| {
        let folder = Path::new(&s.folder);
        folder.is_absolute()
            || folder
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
    }) {
        return Err(StateError::Invalid {
            path: path.to_owned(),
            reason: format!("the folder of skill '{name}' is not inside the target"),
        });
    }
    if state.version != STATE_VERSION {
        return Err(StateError::Invalid {
            path: path.to_owned(),
            reason: format!("format {} (this cairn reads {STATE_VERSION})", state.version),
        });
    }
    Ok(state)
}

/// What a pull decides from before reading the whole state: where the target was synced
/// from and to which cursor, and whether any skill stands removed upstream. Reading only
/// this (the skills are skipped, not built) keeps a pull that finds nothing new cheap.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct StateHead {
    /// As [`TargetState::version`].
    #[serde(default)]
    pub version: u32,
    /// As [`TargetState::server`].
    #[serde(default)]
    pub server: String,
    /// As [`TargetState::cursor`].
    #[serde(default)]
    pub cursor: Option<i64>,
    /// Skills removed upstream while edited here (their folders are settled on each pull).
    #[serde(default, deserialize_with = "any_entries")]
    pub removed_upstream: bool,
    // `skills` and `proposals` are skipped (unknown fields are ignored, not built).
}

/// Whether a map has entries, without keeping them.
fn any_entries<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    let entries: BTreeMap<String, serde::de::IgnoredAny> = Deserialize::deserialize(deserializer)?;
    Ok(!entries.is_empty())
}

/// Reads only the head of a target's state ([`StateHead`]; the default when none was
/// written). A state [`load`] would refuse is left for it to refuse, with its reasons.
pub fn load_head(path: &Path) -> Result<StateHead, StateError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StateHead::default()),
        Err(e) => return Err(crate::folder::io(path)(e).into()),
    };
    serde_json::from_slice(&bytes).map_err(|e| StateError::Invalid {
        path: path.to_owned(),
        reason: e.to_string(),
    })
}

/// The marker beside a target's state that says its last pull ended cleanly: no staging
/// folder can be left in the target, so the next pull need not look for one.
pub fn clean_marker(state_path: &Path) -> PathBuf {
    state_path.with_extension("clean")
}

/// Writes a target's state atomically.
pub fn save(path: &Path, state: &TargetState) -> Result<(), StateError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(crate::folder::io(dir))?;
    let text = serde_json::to_string_pretty(state).map_err(|e| StateError::Invalid {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    crate::folder::write_atomically(path, text.as_bytes(), None, true)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_whose_folders_leave_the_target_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        for folder in ["../memories", "/home/x/.ssh", "a/../../b"] {
            let state = serde_json::json!({"version": 1, "server": "http://s", "root": "/r", "cursor": 1,
                "skills": {"x": {"folder": folder, "revision": 1, "digest": "d", "files": {}}}});
            std::fs::write(&path, state.to_string()).unwrap();
            let e = load(&path).unwrap_err().to_string();
            assert!(e.contains("not inside the target"), "{folder}: {e}");
        }
    }

    #[test]
    fn the_head_agrees_with_the_whole_state() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        assert_eq!(load_head(&path).unwrap(), StateHead::default());
        let synced = SyncedSkill {
            folder: "ops/deploy".into(),
            revision: 3,
            digest: "d".into(),
            files: BTreeMap::new(),
            conflicts: Vec::new(),
        };
        let mut state = TargetState {
            version: STATE_VERSION,
            server: "http://registry".into(),
            root: "/r".into(),
            cursor: Some(42),
            skills: BTreeMap::from([("deploy".to_owned(), synced.clone())]),
            ..TargetState::default()
        };
        save(&path, &state).unwrap();
        let head = load_head(&path).unwrap();
        assert_eq!(
            (head.version, head.server.as_str(), head.cursor, head.removed_upstream),
            (STATE_VERSION, "http://registry", Some(42), false)
        );
        state.removed_upstream.insert("gone".into(), synced);
        save(&path, &state).unwrap();
        assert!(load_head(&path).unwrap().removed_upstream);
        std::fs::write(&path, "{not json").unwrap();
        assert!(matches!(load_head(&path), Err(StateError::Invalid { .. })));
    }

    #[test]
    fn a_target_not_made_yet_is_named_as_it_will_canonicalize() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        // Through a symbolic link and `..`, before the target exists…
        let before = canonical_even_if_missing(&link.join("x/../skills"));
        std::fs::create_dir_all(real.join("skills")).unwrap();
        // …it is the same path as the made folder canonicalizes to.
        assert_eq!(before, std::fs::canonicalize(real.join("skills")).unwrap());
        assert_eq!(canonical_even_if_missing(&link.join("skills")), before);
    }
}
