//! Skill folders on disk: reading one as a manifest, and replacing one whole (staged in a
//! sibling folder, then renamed into place), shared by `ci pull` and `pull`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cairn_skill::{RelPath, Sha256Hash};

/// Prefix of the staging folders written beside skill folders.
pub const STAGING_PREFIX: &str = ".cairn-";

/// A file's content digest and mode, as a folder holds it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
pub struct FileState {
    /// Hex sha256 of the contents.
    pub sha256: String,
    /// Whether it is executable.
    pub executable: bool,
}

/// One file to write.
pub struct NewFile<'a> {
    /// Path in the skill folder.
    pub path: &'a str,
    /// Its bytes.
    pub bytes: &'a [u8],
    /// Whether it is executable.
    pub executable: bool,
}

/// A file operation failed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct FolderError {
    /// The file or folder.
    pub path: PathBuf,
    /// What failed.
    pub source: std::io::Error,
}

/// Wraps an I/O error with its path.
pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError {
        path: path.to_owned(),
        source,
    }
}

/// Every file under `folder` (relative `/`-separated path → digest and mode); `None` when
/// the folder does not exist. Hidden entries (names starting with `.`) are left out. A
/// symbolic link anywhere in it is an error: nothing outside a skill folder is ever read.
pub fn read(folder: &Path) -> Result<Option<BTreeMap<String, FileState>>, FolderError> {
    match std::fs::symlink_metadata(folder) {
        Err(_) => return Ok(None),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(FolderError {
                path: folder.to_owned(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "is a symbolic link: Cairn never follows links in skill folders",
                ),
            });
        }
        Ok(meta) if !meta.is_dir() => return Ok(None),
        Ok(_) => {}
    }
    let mut files = BTreeMap::new();
    walk(folder, folder, &mut files)?;
    Ok(Some(files))
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, FileState>) -> Result<(), FolderError> {
    for entry in std::fs::read_dir(dir).map_err(io(dir))? {
        let entry = entry.map_err(io(dir))?;
        let path = entry.path();
        // Hidden entries (editor swap files, .DS_Store, .git) are not part of a skill: never
        // compared, merged or sent, and kept in place when the folder is replaced.
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        // The entry itself, not what a link points to: nothing outside the folder is read.
        let kind = entry.file_type().map_err(io(&path))?;
        if kind.is_symlink() {
            return Err(FolderError {
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "is a symbolic link: Cairn never follows links in skill folders; replace it with the file itself",
                ),
                path,
            });
        }
        if kind.is_dir() {
            walk(root, &path, out)?;
            continue;
        }
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(
            rel,
            FileState {
                sha256: Sha256Hash::of(&bytes).to_hex(),
                executable: is_executable(&path)?,
            },
        );
    }
    Ok(())
}

/// Writes `files` as the folder `target` (replacing what is there): staged in a sibling
/// folder first, so an interruption leaves the old folder or the new one, plus at most a
/// staging folder that [`remove_leftovers`] clears. With `expected`, the folder being
/// replaced must still hold exactly those files (an empty map: no folder at all); if it
/// changed meanwhile (an agent edited it) it is put back untouched and the replacement
/// is refused.
///
/// Durable when it returns: every file and folder written is flushed to disk, and so is
/// the folder holding `target` after the swap — so a state written afterwards never
/// records a folder a power loss could take back. Where the system can (Linux's
/// `renameat2` with `RENAME_EXCHANGE`), the old and new folders are exchanged in one
/// step, so `target` never stops existing; elsewhere, or when the file system refuses,
/// the old folder is set aside and the new one renamed into place.
pub fn replace(
    target: &Path,
    files: &[NewFile<'_>],
    expected: Option<&BTreeMap<String, FileState>>,
) -> Result<(), FolderError> {
    let parent = target.parent().unwrap_or(Path::new("."));
    create_dirs_durably(parent)?;
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staging = tempfile::Builder::new()
        .prefix(&format!("{STAGING_PREFIX}{name}-"))
        .tempdir_in(parent)
        .map_err(io(parent))?;
    let mut folders = vec![staging.path().to_owned()];
    for file in files {
        let rel = RelPath::parse(file.path).map_err(|e| FolderError {
            path: target.join(file.path),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, e.to_string()),
        })?;
        let path = staging.path().join(rel.as_str());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
            for folder in dir.ancestors().take_while(|d| *d != staging.path()) {
                if !folders.iter().any(|f| f == folder) {
                    folders.push(folder.to_owned());
                }
            }
        }
        write_durably(&path, file.bytes, file.executable)?;
    }
    let changed = || FolderError {
        path: target.to_owned(),
        source: std::io::Error::other("changed while Cairn was replacing it; it was left as it is: pull again"),
    };
    let holds_expected = |folder: &Path| expected.is_none_or(|e| read(folder).ok().flatten().as_ref() == Some(e));
    if std::fs::symlink_metadata(target).is_ok() {
        // Checked before the swap too, so a folder edited earlier is never swapped out.
        if !holds_expected(target) {
            return Err(changed());
        }
        for folder in &folders {
            sync_dir(folder)?;
        }
        if exchange(staging.path(), target).map_err(io(target))? {
            // The old folder is now where the new one was staged.
            let old = staging.keep();
            if !holds_expected(&old) {
                // Edited in the instant between the check and the swap: put it back.
                exchange(&old, target).map_err(io(target))?;
                std::fs::remove_dir_all(&old).map_err(io(&old))?;
                return Err(changed());
            }
            let mut moved = Vec::new();
            move_hidden(&old, target, &mut moved)?;
            for folder in &moved {
                sync_dir(folder)?;
            }
            sync_dir(parent)?;
            std::fs::remove_dir_all(&old).map_err(io(&old))?;
            return Ok(());
        }
        let old = parent.join(format!("{STAGING_PREFIX}old-{name}-{}", std::process::id()));
        std::fs::rename(target, &old).map_err(io(target))?;
        if !holds_expected(&old) {
            std::fs::rename(&old, target).map_err(io(target))?;
            return Err(changed());
        }
        let mut moved = Vec::new();
        move_hidden(&old, staging.path(), &mut moved)?;
        for folder in &moved {
            sync_dir(folder)?;
        }
        let staged = staging.keep();
        std::fs::rename(&staged, target).map_err(io(target))?;
        sync_dir(parent)?;
        std::fs::remove_dir_all(&old).map_err(io(&old))?;
    } else {
        if expected.is_some_and(|e| !e.is_empty()) {
            return Err(changed());
        }
        for folder in &folders {
            sync_dir(folder)?;
        }
        let staged = staging.keep();
        std::fs::rename(&staged, target).map_err(io(target))?;
        sync_dir(parent)?;
    }
    Ok(())
}

/// Removes the folder `folder` and flushes its parent, so the removal outlives a power
/// loss before the state that records it.
pub fn remove_durably(folder: &Path) -> Result<(), FolderError> {
    std::fs::remove_dir_all(folder).map_err(io(folder))?;
    sync_dir(folder.parent().unwrap_or(Path::new(".")))
}

/// Exchanges the folders `a` and `b` in one step; `false` when the system or file system
/// cannot (the caller then falls back to two renames).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    use rustix::io::Errno;
    match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
        Ok(()) => Ok(true),
        // An old kernel, or a file system without exchange (some network ones).
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Writes a new file and flushes it (contents and mode) to disk.
fn write_durably(path: &Path, bytes: &[u8], executable: bool) -> Result<(), FolderError> {
    let mut file = std::fs::File::create(path).map_err(io(path))?;
    std::io::Write::write_all(&mut file, bytes).map_err(io(path))?;
    set_executable(path, executable)?;
    file.sync_all().map_err(io(path))
}

/// Creates `dir` and its missing parents, flushing each new entry to disk.
fn create_dirs_durably(dir: &Path) -> Result<(), FolderError> {
    if dir.as_os_str().is_empty() || dir.is_dir() {
        return Ok(());
    }
    let missing: Vec<&Path> = dir
        .ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .collect();
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    for created in missing.iter().rev() {
        if let Some(parent) = created.parent().filter(|p| !p.as_os_str().is_empty()) {
            sync_dir(parent)?;
        }
    }
    Ok(())
}

/// Flushes a folder's entries (names created, renamed or removed in it) to disk.
#[cfg(unix)]
pub fn sync_dir(dir: &Path) -> Result<(), FolderError> {
    std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))
}

/// Folders cannot be opened for flushing here; their entries are written by the system.
#[cfg(not(unix))]
pub fn sync_dir(_dir: &Path) -> Result<(), FolderError> {
    Ok(())
}

/// Replaces the file at `path` whole: written to a temporary file beside it (with `mode`,
/// when given, before any byte is written), flushed to disk when `durable`, then renamed
/// over it — a reader never sees half of it; when `durable`, the rename is flushed too.
pub fn write_atomically(path: &Path, bytes: &[u8], mode: Option<u32>, durable: bool) -> Result<(), FolderError> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io(dir))?;
    if let Some(mode) = mode {
        set_mode(file.path(), mode)?;
    }
    std::io::Write::write_all(&mut file, bytes).map_err(io(path))?;
    if durable {
        file.as_file().sync_all().map_err(io(path))?;
    }
    file.persist(path).map_err(|e| io(path)(e.error))?;
    if durable {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Moves the hidden entries of `from` (at any depth) to the same places under `to`, so a
/// replaced folder keeps its editor files and the like; the folders that received one
/// are added to `moved` (to be flushed).
fn move_hidden(from: &Path, to: &Path, moved: &mut Vec<PathBuf>) -> Result<(), FolderError> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let source = entry.path();
        let destination = to.join(&name);
        if name.to_string_lossy().starts_with('.') {
            if std::fs::symlink_metadata(&destination).is_err() {
                std::fs::create_dir_all(to).map_err(io(to))?;
                std::fs::rename(&source, &destination).map_err(io(&destination))?;
                if !moved.iter().any(|m| m == to) {
                    moved.push(to.to_owned());
                }
            }
        } else if entry.file_type().is_ok_and(|k| k.is_dir()) {
            move_hidden(&source, &destination, moved)?;
        }
    }
    Ok(())
}

/// Cleans up after an interrupted run in `dir`: a folder set aside for replacement
/// (`.cairn-old-<name>-<pid>`) whose replacement never arrived is put back; every other
/// staging folder is removed.
pub fn remove_leftovers(dir: &Path) -> Result<(), FolderError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let mut changed = false;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if !name.starts_with(STAGING_PREFIX) || !path.is_dir() {
            continue;
        }
        changed = true;
        if let Some(original) = set_aside_name(&name) {
            let target = dir.join(original);
            if !target.exists() {
                std::fs::rename(&path, &target).map_err(io(&target))?;
                continue;
            }
        }
        std::fs::remove_dir_all(&path).map_err(io(&path))?;
    }
    // On disk before anything (the pull's clean marker) says the target is clean.
    if changed {
        sync_dir(dir)?;
    }
    Ok(())
}

/// The folder name a `.cairn-old-<name>-<pid>` folder was set aside from.
fn set_aside_name(staging: &str) -> Option<&str> {
    let rest = staging.strip_prefix(STAGING_PREFIX)?.strip_prefix("old-")?;
    let (name, pid) = rest.rsplit_once('-')?;
    (!name.is_empty() && !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(name)
}

/// Removes staging folders anywhere in a skills tree: in `root` and in the category
/// folders below it (skill folders themselves are not entered).
pub fn remove_leftovers_under(root: &Path) -> Result<(), FolderError> {
    remove_leftovers(root)?;
    let Ok(entries) = std::fs::read_dir(root) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let real_dir = entry.file_type().is_ok_and(|k| k.is_dir());
        if real_dir && !name.starts_with('.') && !path.join(cairn_skill::path::SKILL_MD).exists() {
            remove_leftovers_under(&path)?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(path: &Path) -> Result<bool, FolderError> {
    use std::os::unix::fs::PermissionsExt as _;
    Ok(std::fs::metadata(path).map_err(io(path))?.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(_path: &Path) -> Result<bool, FolderError> {
    Ok(false)
}

fn set_executable(path: &Path, executable: bool) -> Result<(), FolderError> {
    set_mode(path, if executable { 0o755 } else { 0o644 })
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<(), FolderError> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io(path))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> Result<(), FolderError> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_set_aside_by_an_interrupted_swap_is_put_back_and_staging_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Interrupted between the two renames: the old folder aside, the new one staged.
        std::fs::create_dir_all(root.join(".cairn-old-demo-4242")).unwrap();
        std::fs::write(root.join(".cairn-old-demo-4242/SKILL.md"), "edited locally\n").unwrap();
        std::fs::create_dir_all(root.join(".cairn-demo-Xy12")).unwrap();
        // Interrupted after the swap: the old folder aside, the new one in place.
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::create_dir_all(root.join(".cairn-old-other-7")).unwrap();
        remove_leftovers(root).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join("demo/SKILL.md")).unwrap(),
            "edited locally\n"
        );
        let mut left: Vec<String> = std::fs::read_dir(root)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["demo", "other"]);
        assert_eq!(set_aside_name(".cairn-old-my-skill-12"), Some("my-skill"));
        assert_eq!(set_aside_name(".cairn-my-skill-AbC"), None);
    }

    #[test]
    fn hidden_files_are_not_part_of_a_skill_and_survive_its_replacement() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("demo");
        std::fs::create_dir_all(skill.join("references")).unwrap();
        std::fs::write(skill.join("SKILL.md"), "old\n").unwrap();
        std::fs::write(skill.join(".SKILL.md.swp"), "vim\n").unwrap();
        std::fs::write(skill.join("references/.DS_Store"), "finder\n").unwrap();
        let before = read(&skill).unwrap().unwrap();
        assert_eq!(before.keys().collect::<Vec<_>>(), ["SKILL.md"]);
        let new = [NewFile {
            path: "SKILL.md",
            bytes: b"new\n",
            executable: false,
        }];
        replace(&skill, &new, Some(&before)).unwrap();
        assert_eq!(std::fs::read_to_string(skill.join("SKILL.md")).unwrap(), "new\n");
        assert_eq!(std::fs::read_to_string(skill.join(".SKILL.md.swp")).unwrap(), "vim\n");
        assert_eq!(
            std::fs::read_to_string(skill.join("references/.DS_Store")).unwrap(),
            "finder\n"
        );
        // Edited meanwhile: refused, left as it was.
        std::fs::write(skill.join("SKILL.md"), "edited\n").unwrap();
        let e = replace(&skill, &new, Some(&before)).unwrap_err().to_string();
        assert!(e.contains("changed while Cairn was replacing it"), "{e}");
        assert_eq!(std::fs::read_to_string(skill.join("SKILL.md")).unwrap(), "edited\n");
    }
}
