//! The targets this machine has pulled into, remembered so that after
//! `cairn pull --target hermes` a plain `cairn push`, `status`, `diff` or `watch` knows
//! where to look. A target named on the command line or listed in `config.toml` always
//! wins; the remembered ones are used only when neither names any.
//!
//! Kept in `$XDG_STATE_HOME/cairn/synced-targets.json` beside the per-target states,
//! replaced whole (written atomically, read and rewritten under a lock so two pulls into
//! different targets never drop each other's entry). A remembered target whose folder or
//! sync state is gone is forgotten, with a note, the next time the list is read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::state::{self, StateError};
use super::target::{Layout, NAMED, Target};
use crate::folder;

/// The list format written and read.
const LIST_VERSION: u32 = 1;

/// One remembered target.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct Remembered {
    /// How it is shown: `hermes`, `claude`, … as named, or the folder's absolute path.
    pub label: String,
    /// The skills folder that was pulled into (absolute).
    pub root: PathBuf,
    /// Its layout.
    pub layout: Layout,
}

impl Remembered {
    fn target(&self) -> Target {
        Target {
            label: self.label.clone(),
            root: self.root.clone(),
            layout: self.layout,
        }
    }
}

/// `synced-targets.json`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ListFile {
    version: u32,
    targets: Vec<Remembered>,
}

/// A remembered target that was dropped from the list, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forgotten {
    /// The target.
    pub target: Remembered,
    /// Why, in words (`its folder is gone`).
    pub reason: String,
}

/// What [`recall`] found.
#[derive(Clone, Debug, Default)]
pub struct Recalled {
    /// The targets still usable, in the order they were first pulled into.
    pub targets: Vec<Target>,
    /// Those dropped now (their folder or state vanished), for a note to the user.
    pub forgotten: Vec<Forgotten>,
}

/// The list file: `$XDG_STATE_HOME/cairn/synced-targets.json`.
pub fn path() -> Result<PathBuf, StateError> {
    Ok(dirs::state_dir()
        .ok_or(StateError::NoStateDir)?
        .join("cairn/synced-targets.json"))
}

/// Adds `target` to the list (or updates its label and layout); writes nothing when it
/// is already there as it is, or when the list is not valid (a pull does not fail for it;
/// the commands that read the list say what is wrong with it).
pub fn remember(target: &Target) -> Result<(), StateError> {
    remember_in(&path()?, target)
}

/// [`remember`] with the list at `list`.
pub fn remember_in(list: &Path, target: &Target) -> Result<(), StateError> {
    let root = std::fs::canonicalize(&target.root).unwrap_or_else(|_| target.root.clone());
    let label = if NAMED.contains(&target.label.as_str()) {
        target.label.clone()
    } else {
        root.display().to_string()
    };
    let entry = Remembered {
        label,
        root,
        layout: target.layout,
    };
    let _guard = lock_list(list)?;
    let mut file = match read(list) {
        Ok(file) => file,
        // Left as it is for the user to see: the commands that need it name it, with the fix.
        Err(StateError::InvalidList { .. }) => return Ok(()),
        Err(e) => return Err(e),
    };
    match file.targets.iter_mut().find(|t| t.root == entry.root) {
        Some(known) if *known == entry => return Ok(()),
        Some(known) => *known = entry,
        None => file.targets.push(entry),
    }
    write(list, &mut file)
}

/// The remembered targets; those whose folder or sync state vanished are dropped from
/// the list (and reported in [`Recalled::forgotten`]).
pub fn recall() -> Result<Recalled, StateError> {
    recall_from(&path()?)
}

/// [`recall`] with the list at `list`.
pub fn recall_from(list: &Path) -> Result<Recalled, StateError> {
    if !list.exists() {
        return Ok(Recalled::default());
    }
    let _guard = lock_list(list)?;
    let mut file = read(list)?;
    let mut recalled = Recalled::default();
    let mut kept = Vec::new();
    for known in std::mem::take(&mut file.targets) {
        let reason = if !known.root.is_dir() {
            Some("its folder is gone")
        } else if !state::path_for(&known.root)?.is_file() {
            Some("its sync state is gone")
        } else {
            None
        };
        match reason {
            Some(reason) => recalled.forgotten.push(Forgotten {
                target: known,
                reason: reason.to_owned(),
            }),
            None => {
                recalled.targets.push(known.target());
                kept.push(known);
            }
        }
    }
    if !recalled.forgotten.is_empty() {
        file.targets = kept;
        write(list, &mut file)?;
    }
    Ok(recalled)
}

fn read(list: &Path) -> Result<ListFile, StateError> {
    let text = match std::fs::read_to_string(list) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ListFile::default()),
        Err(e) => return Err(folder::io(list)(e).into()),
    };
    let invalid = |reason: String| StateError::InvalidList {
        path: list.to_owned(),
        reason,
    };
    let file: ListFile = serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    if file.version != LIST_VERSION {
        return Err(invalid(format!(
            "format {} (this cairn reads {LIST_VERSION})",
            file.version
        )));
    }
    if let Some(bad) = file.targets.iter().find(|t| !t.root.is_absolute()) {
        return Err(invalid(format!("the folder {} is not absolute", bad.root.display())));
    }
    Ok(file)
}

fn write(list: &Path, file: &mut ListFile) -> Result<(), StateError> {
    file.version = LIST_VERSION;
    let text = serde_json::to_string_pretty(file).map_err(|e| StateError::InvalidList {
        path: list.to_owned(),
        reason: e.to_string(),
    })?;
    folder::write_atomically(list, format!("{text}\n").as_bytes(), None, true)?;
    Ok(())
}

/// Holds the list's lock file (`synced-targets.json.lock`) while it is read and rewritten.
fn lock_list(list: &Path) -> Result<std::fs::File, StateError> {
    let dir = list.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(folder::io(dir))?;
    let lock_path = list.with_extension("json.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(folder::io(&lock_path))?;
    // Held only for a read and a small write: waiting is always short.
    lock.lock().map_err(folder::io(&lock_path))?;
    Ok(lock)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder_target(root: &Path) -> Target {
        Target {
            label: "team".to_owned(),
            root: root.to_owned(),
            layout: Layout::Flat,
        }
    }

    #[test]
    fn targets_are_remembered_once_and_a_broken_list_is_named_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("synced-targets.json");
        let root = dir.path().join("skills");
        std::fs::create_dir_all(&root).unwrap();
        remember_in(&list, &folder_target(&root)).unwrap();
        remember_in(&list, &folder_target(&root)).unwrap();
        let file = read(&list).unwrap();
        assert_eq!(file.targets.len(), 1);
        assert_eq!(
            file.targets[0].label,
            std::fs::canonicalize(&root).unwrap().display().to_string()
        );

        std::fs::write(&list, "{not json").unwrap();
        remember_in(&list, &folder_target(&root)).unwrap();
        assert_eq!(std::fs::read_to_string(&list).unwrap(), "{not json");
        let e = recall_from(&list).unwrap_err().to_string();
        assert!(e.contains("synced-targets.json") && e.contains("delete it"), "{e}");
        assert_eq!(std::fs::read_to_string(&list).unwrap(), "{not json");
    }
}
