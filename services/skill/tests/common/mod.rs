//! Helpers shared by the integration tests: locating and reading the skill corpus.

#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use cairn_skill::path::normalize_nfc;
use cairn_skill::{BundleFile, RelPath};

/// `shared/corpus/skills`.
pub fn corpus_root() -> PathBuf {
    cairn_test_support::corpus().join("skills")
}

/// Every file named `SKILL.md` under `dir` (dot-folders skipped), sorted.
pub fn find_skill_mds(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut |p| {
        if p.file_name().is_some_and(|n| n == "SKILL.md") {
            out.push(p.to_path_buf());
        }
    });
    out.sort();
    out
}

/// Directories under `dir` that contain a `SKILL.md`, sorted.
pub fn find_skill_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = find_skill_mds(dir)
        .into_iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("read {}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let ty = entry.file_type().unwrap();
        if ty.is_dir() {
            walk(&entry.path(), f);
        } else if ty.is_file() {
            f(&entry.path());
        }
    }
}

/// The files of one skill folder as bundle entries (dot-files skipped, names NFC-normalized,
/// executable from the file mode).
pub fn read_skill_dir(dir: &Path) -> Vec<(RelPath, BundleFile)> {
    let mut out = Vec::new();
    walk(dir, &mut |p| {
        let rel = p.strip_prefix(dir).unwrap().to_str().expect("UTF-8 file name");
        let rel = RelPath::parse(&normalize_nfc(rel)).unwrap_or_else(|e| panic!("{e}"));
        let meta = fs::metadata(p).unwrap();
        let executable = meta.permissions().mode() & 0o111 != 0;
        out.push((rel, BundleFile::new(fs::read(p).unwrap(), executable)));
    });
    out
}
