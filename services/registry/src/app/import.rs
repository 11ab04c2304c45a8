//! Bulk import of a skills tree (`cairn-registry import <dir>`), such as `~/.hermes/skills`
//! or a checkout of a skills repository.
//!
//! Rules (real trees are messy; every skipped or odd skill is reported by path):
//! - The tree is walked in byte order of names, never following symbolic links; dot-files
//!   and dot-folders are ignored.
//! - A folder holding a `SKILL.md` file is a skill. Its name is the folder's name (as
//!   Hermes resolves it); the folders between the import root and it form its category
//!   (`devops/k8s`). When the root itself holds `SKILL.md`, the root is the one skill.
//! - Everything under a skill's folder belongs to its bundle. A `SKILL.md` nested deeper
//!   inside stays a file of the outer skill and is reported as a warning, never imported
//!   as a separate skill.
//! - Two folders with the same skill name: the first in walk order is imported, later
//!   ones are skipped and reported with the path that won.
//! - A folder name or category segment that breaks the naming rules, a bundle that breaks
//!   a limit, a symbolic link or special file inside a skill: the skill is skipped and
//!   reported with the reason.
//! - A frontmatter `name` that differs from the folder name is kept as metadata and
//!   reported as a warning.
//! - Unchanged content is a no-op; changed content becomes the next revision.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use cairn_skill::path::normalize_nfc;
use cairn_skill::{Bundle, Category, Limits, RelPath, SkillName};
use cairn_store::blob::BlobStore;
use cairn_store::{Actor, PublishOutcome, Store, VersionSource};
use serde::Serialize;

use super::publish::{Candidate, PublishError, publish};

/// Skills per database transaction during import.
const CHUNK: usize = 100;

/// What an import did, skill by skill.
#[derive(Debug, Default, Serialize)]
pub struct ImportReport {
    /// Skills created (revision 1).
    pub created: Vec<ImportedSkill>,
    /// Existing skills that got a new revision.
    pub updated: Vec<ImportedSkill>,
    /// Skills whose content was already the latest version.
    pub unchanged: Vec<ImportedSkill>,
    /// Skills not imported, with the reason.
    pub skipped: Vec<SkippedSkill>,
    /// Imported skills with something worth knowing.
    pub warnings: Vec<SkippedSkill>,
}

/// One imported skill.
#[derive(Debug, Serialize)]
pub struct ImportedSkill {
    /// Skill name.
    pub name: String,
    /// Its revision after the import.
    pub revision: i32,
    /// Where it was read from.
    pub path: PathBuf,
}

/// A skill that was skipped, or a warning about one, by path.
#[derive(Debug, Serialize)]
pub struct SkippedSkill {
    /// The skill's folder.
    pub path: PathBuf,
    /// What happened and what to do about it.
    pub reason: String,
}

/// Why the import as a whole failed (individual bad skills are only skipped).
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The root cannot be read.
    #[error("cannot read {path}: {source}")]
    Root {
        /// The root.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Storing failed; skills of earlier chunks stay imported, re-running resumes.
    #[error(transparent)]
    Publish(#[from] PublishError),
}

/// A skill folder found by the walk.
#[derive(Debug, Clone)]
struct FoundSkill {
    dir: PathBuf,
    /// Folder names from the root to the skill folder, the skill folder last.
    segments: Vec<String>,
}

/// Imports every skill under `root` into organisation `org_id`.
pub async fn import_tree(
    store: &Store,
    blobs: &dyn BlobStore,
    org_id: i64,
    root: &Path,
    limits: &Limits,
    actor: &Actor,
) -> Result<ImportReport, ImportError> {
    let root_owned = root.to_path_buf();
    let found = tokio::task::spawn_blocking(move || discover(&root_owned))
        .await
        .map_err(|e| ImportError::Root {
            path: root.to_path_buf(),
            source: std::io::Error::other(e),
        })?
        .map_err(|source| ImportError::Root {
            path: root.to_path_buf(),
            source,
        })?;

    let mut report = ImportReport::default();
    let mut first_seen: HashMap<String, PathBuf> = HashMap::new();
    for chunk in found.chunks(CHUNK) {
        let chunk = chunk.to_vec();
        let limits = limits.clone();
        let loaded = tokio::task::spawn_blocking(move || {
            chunk
                .into_iter()
                .map(|f| (f.dir.clone(), load_skill(&f, &limits)))
                .collect::<Vec<_>>()
        })
        .await
        .map_err(|e| ImportError::Root {
            path: root.to_path_buf(),
            source: std::io::Error::other(e),
        })?;

        let mut candidates = Vec::new();
        let mut paths = Vec::new();
        for (dir, result) in loaded {
            match result {
                Err(reason) => report.skipped.push(SkippedSkill { path: dir, reason }),
                Ok((candidate, warnings)) => {
                    if let Some(winner) = first_seen.get(candidate.name.as_str()) {
                        report.skipped.push(SkippedSkill {
                            path: dir,
                            reason: format!(
                                "duplicate skill name '{}': already imported from {}; rename one of the folders",
                                candidate.name,
                                winner.display()
                            ),
                        });
                        continue;
                    }
                    first_seen.insert(candidate.name.as_str().to_owned(), dir.clone());
                    report.warnings.extend(warnings.into_iter().map(|reason| SkippedSkill {
                        path: dir.clone(),
                        reason,
                    }));
                    candidates.push(candidate);
                    paths.push(dir);
                }
            }
        }
        if candidates.is_empty() {
            continue;
        }
        let outcomes = publish(store, blobs, org_id, &candidates, VersionSource::Import, None, actor).await?;
        for ((candidate, path), outcome) in candidates.iter().zip(paths).zip(outcomes) {
            let name = candidate.name.to_string();
            match outcome {
                PublishOutcome::Created {
                    revision,
                    new_skill: true,
                } => {
                    report.created.push(ImportedSkill { name, revision, path });
                }
                PublishOutcome::Created {
                    revision,
                    new_skill: false,
                } => {
                    report.updated.push(ImportedSkill { name, revision, path });
                }
                PublishOutcome::Unchanged { revision, .. } => {
                    report.unchanged.push(ImportedSkill { name, revision, path });
                }
            }
        }
    }
    Ok(report)
}

/// Finds skill folders under `root`, in walk order.
fn discover(root: &Path) -> std::io::Result<Vec<FoundSkill>> {
    let meta = std::fs::metadata(root)?;
    if !meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "not a directory",
        ));
    }
    let mut found = Vec::new();
    if is_regular_file(&root.join(cairn_skill::path::SKILL_MD)) {
        let name = root
            .canonicalize()?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        found.push(FoundSkill {
            dir: root.to_path_buf(),
            segments: vec![name],
        });
        return Ok(found);
    }
    walk(root, &mut Vec::new(), &mut found)?;
    Ok(found)
}

fn walk(dir: &Path, segments: &mut Vec<String>, found: &mut Vec<FoundSkill>) -> std::io::Result<()> {
    for (name, path, file_type) in sorted_entries(dir)? {
        if !file_type.is_dir() {
            continue;
        }
        segments.push(name);
        if is_regular_file(&path.join(cairn_skill::path::SKILL_MD)) {
            found.push(FoundSkill {
                dir: path,
                segments: segments.clone(),
            });
        } else {
            walk(&path, segments, found)?;
        }
        segments.pop();
    }
    Ok(())
}

/// A directory's entries without dot-entries, sorted by name bytes; symlinks are
/// reported as such by `file_type` (never followed).
fn sorted_entries(dir: &Path) -> std::io::Result<Vec<(String, PathBuf, std::fs::FileType)>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        entries.push((name, entry.path(), entry.file_type()?));
    }
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(entries)
}

fn is_regular_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
}

/// Reads and validates one skill folder. `Err` is the reason it is skipped.
fn load_skill(found: &FoundSkill, limits: &Limits) -> Result<(Candidate, Vec<String>), String> {
    let (folder, parents) = found.segments.split_last().ok_or("empty skill path")?;
    let name = SkillName::parse(&normalize_nfc(folder)).map_err(|e| format!("{e}; rename the folder"))?;
    let category = if parents.is_empty() {
        None
    } else {
        let joined = parents.iter().map(|s| normalize_nfc(s)).collect::<Vec<_>>().join("/");
        Some(Category::parse(&joined).map_err(|e| format!("{e}; rename the folder"))?)
    };
    let mut files = BTreeMap::new();
    let mut warnings = Vec::new();
    collect_files(&found.dir, "", limits, &mut files, &mut warnings)?;
    let bundle = Bundle::from_files(files, limits).map_err(|e| e.to_string())?;
    if let Some(declared) = bundle.frontmatter().name()
        && declared != name.as_str()
    {
        warnings.push(format!(
            "frontmatter name '{declared}' differs from the folder name; imported as '{name}' (the folder name)"
        ));
    }
    Ok((Candidate { name, category, bundle }, warnings))
}

fn collect_files(
    dir: &Path,
    prefix: &str,
    limits: &Limits,
    files: &mut BTreeMap<RelPath, cairn_skill::BundleFile>,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let entries = sorted_entries(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for (name, path, file_type) in entries {
        let rel = format!("{prefix}{}", normalize_nfc(&name));
        if file_type.is_symlink() {
            return Err(format!(
                "contains a symbolic link at '{rel}': bundles cannot hold links; copy the file in instead"
            ));
        }
        if file_type.is_dir() {
            collect_files(&path, &format!("{rel}/"), limits, files, warnings)?;
            continue;
        }
        if !file_type.is_file() {
            return Err(format!(
                "contains a special file at '{rel}' (device, socket or pipe): remove it"
            ));
        }
        let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read '{rel}': {e}"))?;
        if meta.len() > limits.max_file_bytes {
            return Err(format!(
                "file '{rel}' is {} bytes, over the limit of {} bytes per file",
                meta.len(),
                limits.max_file_bytes
            ));
        }
        if files.len() >= limits.max_files {
            return Err(format!("has more than {} files, the limit per skill", limits.max_files));
        }
        let rel_path = RelPath::parse(&rel).map_err(|e| e.to_string())?;
        if rel_path.as_str().ends_with("/SKILL.md") {
            warnings.push(format!(
                "nested SKILL.md at '{rel}' is kept as a file of this skill, not imported as a separate skill"
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read '{rel}': {e}"))?;
        let executable = meta.permissions().mode() & 0o111 != 0;
        files.insert(rel_path, cairn_skill::BundleFile { bytes, executable });
    }
    Ok(())
}
