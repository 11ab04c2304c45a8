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
//!   reported as a warning; so is a `description` over the 1,024-character limit (reading
//!   is tolerant; writing through patches is not).
//! - Every skill passes the security scanner, as patches do: a `dangerous` skill is not
//!   published but quarantined — its bundle and findings kept for an admin to release or
//!   delete (unless that content already is the skill's latest version, released before)
//!   — and a `caution` one is imported with a warning.
//! - Unchanged content is a no-op; changed content becomes the next revision.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cairn_skill::path::{SKILL_MD, normalize_nfc};
use cairn_skill::{Bundle, BundleBuilder, Category, Limits, RelPath, SkillName};
use cairn_store::blob::BlobStore;
use cairn_store::{Actor, NewQuarantined, PublishOutcome, Store, VersionSource};
use serde::Serialize;

use super::publish::{Candidate, PublishError, commit, upload_missing_blobs};

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
    /// Skills held back because they scan `dangerous`: kept out of the index, listed for
    /// an admin to release or delete.
    pub quarantined: Vec<QuarantinedSkill>,
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
    #[serde(serialize_with = "lossy_path")]
    pub path: PathBuf,
}

/// Serialises a path even when it is not valid UTF-8 (the report must never fail after
/// the import committed).
fn lossy_path<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

/// A skill held back in quarantine.
#[derive(Debug, Serialize)]
pub struct QuarantinedSkill {
    /// Skill name.
    pub name: String,
    /// The quarantine entry (for releasing or deleting it).
    pub id: uuid::Uuid,
    /// Where it was read from.
    #[serde(serialize_with = "lossy_path")]
    pub path: PathBuf,
    /// The worst finding, and what to do next.
    pub reason: String,
    /// Whether this import put it there (`false`: the same content already was).
    pub new: bool,
}

/// A skill that was skipped, or a warning about one, by path.
#[derive(Debug, Serialize)]
pub struct SkippedSkill {
    /// The skill's folder.
    #[serde(serialize_with = "lossy_path")]
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
    let root_error = |source: std::io::Error| ImportError::Root {
        path: root.to_path_buf(),
        source,
    };
    let root_owned = root.to_path_buf();
    let discovery = tokio::task::spawn_blocking(move || discover(&root_owned))
        .await
        .map_err(|e| root_error(std::io::Error::other(e)))?
        .map_err(root_error)?;

    let mut report = ImportReport {
        skipped: discovery.skipped,
        ..ImportReport::default()
    };
    // Reading and hashing the next chunk (blocking I/O and CPU) overlaps with uploading
    // and committing the current one.
    let load = |chunk: Vec<FoundSkill>| {
        let limits = limits.clone();
        tokio::task::spawn_blocking(move || {
            chunk
                .into_iter()
                .map(|f| (f.dir.clone(), load_skill(&f, &limits)))
                .collect::<Vec<_>>()
        })
    };
    let mut chunks = discovery.found.chunks(CHUNK).map(<[FoundSkill]>::to_vec);
    let mut next = chunks.next().map(load);
    // Blobs of one chunk upload while the previous chunk commits; commits stay in order.
    let mut committing: Option<tokio::task::JoinHandle<CommittedChunk>> = None;
    let outcome: Result<(), ImportError> = async {
        while let Some(pending) = next.take() {
            next = chunks.next().map(load);
            let loaded = pending.await.map_err(|e| root_error(std::io::Error::other(e)))?;
            let mut candidates = Vec::new();
            let mut paths = Vec::new();
            let mut held = Vec::new();
            for (dir, result) in loaded {
                match result {
                    Err(reason) => report.skipped.push(SkippedSkill { path: dir, reason }),
                    Ok(loaded) => {
                        report
                            .warnings
                            .extend(loaded.warnings.into_iter().map(|reason| SkippedSkill {
                                path: dir.clone(),
                                reason,
                            }));
                        match loaded.dangerous {
                            // Dangerous content that already is the latest version (an
                            // admin released it): nothing to hold back, nothing to publish.
                            Some(scan) => match latest_revision_with(store, org_id, &loaded.candidate).await? {
                                Some(revision) => report.unchanged.push(ImportedSkill {
                                    name: loaded.candidate.name.to_string(),
                                    revision,
                                    path: dir,
                                }),
                                None => held.push((loaded.candidate, scan, dir)),
                            },
                            None => {
                                candidates.push(loaded.candidate);
                                paths.push(dir);
                            }
                        }
                    }
                }
            }
            if !candidates.is_empty() || !held.is_empty() {
                let bundles = candidates.iter().chain(held.iter().map(|(c, _, _)| c));
                upload_missing_blobs(store, blobs, bundles.map(|c| &c.bundle)).await?;
            }
            if !held.is_empty() {
                report
                    .quarantined
                    .extend(quarantine(store, org_id, &held, actor).await?);
            }
            if let Some(previous) = committing.take() {
                record(&mut report, join(previous).await?);
            }
            if !candidates.is_empty() {
                let (store, actor) = (store.clone(), actor.clone());
                committing = Some(tokio::spawn(async move {
                    let outcomes = commit(&store, org_id, &candidates, VersionSource::Import, None, &actor).await?;
                    Ok((candidates, paths, outcomes))
                }));
            }
        }
        Ok(())
    }
    .await;
    // Whatever happened, the chunk in flight finishes and is reported before returning:
    // nothing commits behind the caller's back.
    let last = match committing.take() {
        Some(last) => Some(join(last).await),
        None => None,
    };
    outcome?;
    if let Some(last) = last {
        record(&mut report, last?);
    }
    Ok(report)
}

/// The skill's latest revision when the candidate's content already is that version.
async fn latest_revision_with(store: &Store, org_id: i64, candidate: &Candidate) -> Result<Option<i32>, PublishError> {
    match store.skill(org_id, candidate.name.as_str()).await {
        Ok(skill) if skill.digest.as_deref() == Some(candidate.bundle.digest().as_str()) => Ok(skill.latest_revision),
        Ok(_) | Err(cairn_store::StoreError::NotFound(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Holds dangerous skills back: stored in quarantine with their findings.
async fn quarantine(
    store: &Store,
    org_id: i64,
    held: &[(Candidate, cairn_scanner::Report, PathBuf)],
    actor: &Actor,
) -> Result<Vec<QuarantinedSkill>, PublishError> {
    let digests: Vec<String> = held.iter().map(|(c, _, _)| c.bundle.digest()).collect();
    let paths: Vec<String> = held.iter().map(|(_, _, p)| p.to_string_lossy().into_owned()).collect();
    let rows: Vec<NewQuarantined<'_>> = held
        .iter()
        .zip(&digests)
        .zip(&paths)
        .map(|(((candidate, scan, _), digest), path)| NewQuarantined {
            id: uuid::Uuid::new_v4(),
            name: candidate.name.as_str(),
            category: candidate.category.as_ref().map(Category::as_str),
            digest,
            manifest: super::publish::manifest_json(&candidate.bundle),
            scan: serde_json::to_value(scan).unwrap_or_default(),
            source_path: path,
        })
        .collect();
    let entries = store.quarantine(org_id, &rows, actor).await?;
    let mut out = Vec::with_capacity(held.len());
    for ((candidate, scan, path), (id, new)) in held.iter().zip(entries) {
        let worst = scan.active().max_by_key(|f| f.severity);
        out.push(QuarantinedSkill {
            name: candidate.name.to_string(),
            id,
            path: path.clone(),
            reason: match worst {
                Some(f) => format!(
                    "the security scanner finds it dangerous ({} at {}:{}: {}); an admin releases or deletes it from the quarantine (the admin pages, or the API)",
                    f.rule, f.file, f.line, f.message
                ),
                None => "the security scanner finds it dangerous".to_owned(),
            },
            new,
        });
    }
    Ok(out)
}

/// A committed chunk: its candidates, their folders and what publishing did.
type CommittedChunk = Result<(Vec<Candidate>, Vec<PathBuf>, Vec<PublishOutcome>), PublishError>;

/// Waits for a chunk's commit task.
async fn join(
    task: tokio::task::JoinHandle<CommittedChunk>,
) -> Result<(Vec<Candidate>, Vec<PathBuf>, Vec<PublishOutcome>), ImportError> {
    match task.await {
        Ok(result) => Ok(result?),
        Err(e) => Err(ImportError::Publish(PublishError::Interrupted(e.to_string()))),
    }
}

/// Files a committed chunk's outcomes into the report.
fn record(
    report: &mut ImportReport,
    (candidates, paths, outcomes): (Vec<Candidate>, Vec<PathBuf>, Vec<PublishOutcome>),
) {
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

/// What the walk found: skill folders to load, and folders skipped before loading.
#[derive(Debug, Default)]
struct Discovery {
    found: Vec<FoundSkill>,
    skipped: Vec<SkippedSkill>,
}

/// Finds skill folders under `root`, in walk order, and reports what it passes over.
fn discover(root: &Path) -> std::io::Result<Discovery> {
    let meta = std::fs::metadata(root)?;
    if !meta.is_dir() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "not a directory",
        ));
    }
    let mut discovery = Discovery::default();
    if is_regular_file(&root.join(SKILL_MD)) {
        let name = root
            .canonicalize()?
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        discovery.found.push(FoundSkill {
            dir: root.to_path_buf(),
            segments: vec![name],
        });
        return Ok(discovery);
    }
    std::fs::read_dir(root)?;
    walk(root, &mut Vec::new(), &mut discovery);

    // Same name twice: the first in walk order wins, whether or not it loads cleanly.
    let mut first_seen: HashMap<String, PathBuf> = HashMap::new();
    let mut unique = Vec::with_capacity(discovery.found.len());
    for skill in discovery.found {
        let name = normalize_nfc(skill.segments.last().map_or("", String::as_str));
        match first_seen.get(&name) {
            Some(winner) => discovery.skipped.push(SkippedSkill {
                path: skill.dir,
                reason: format!(
                    "duplicate skill name '{name}': {} comes first in the tree and wins; rename one of the folders",
                    winner.display()
                ),
            }),
            None => {
                first_seen.insert(name, skill.dir.clone());
                unique.push(skill);
            }
        }
    }
    discovery.found = unique;
    Ok(discovery)
}

fn walk(dir: &Path, segments: &mut Vec<String>, discovery: &mut Discovery) {
    let entries = match sorted_entries(dir, true) {
        Ok(entries) => entries,
        Err(e) => {
            discovery.skipped.push(SkippedSkill {
                path: dir.to_path_buf(),
                reason: format!("cannot read this folder ({e}): skills below it were not imported"),
            });
            return;
        }
    };
    for (name, path, file_type) in entries {
        if name.starts_with('.') {
            if file_type.is_dir() && holds_skills(&path) {
                discovery.skipped.push(SkippedSkill {
                    path,
                    reason:
                        "hidden folder holding skills: dot-folders are not imported; import it directly to include it"
                            .to_owned(),
                });
            }
            continue;
        }
        if file_type.is_symlink() {
            if path.is_dir() {
                discovery.skipped.push(SkippedSkill {
                    path,
                    reason: "symbolic link to a folder: links are not followed; import the link's target directly"
                        .to_owned(),
                });
            }
            continue;
        }
        if !file_type.is_dir() {
            continue;
        }
        let skill_md = path.join(SKILL_MD);
        let skill_md_kind = std::fs::symlink_metadata(&skill_md).ok().map(|m| m.file_type());
        segments.push(name);
        match skill_md_kind {
            Some(kind) if kind.is_file() => discovery.found.push(FoundSkill {
                dir: path,
                segments: segments.clone(),
            }),
            Some(_) => discovery.skipped.push(SkippedSkill {
                path,
                reason: "SKILL.md is not a regular file (a link or special file): replace it with the file itself"
                    .to_owned(),
            }),
            None => walk(&path, segments, discovery),
        }
        segments.pop();
    }
}

/// Whether a (hidden) folder holds a skill at its top or one level down.
fn holds_skills(dir: &Path) -> bool {
    if is_regular_file(&dir.join(SKILL_MD)) {
        return true;
    }
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().any(|e| is_regular_file(&e.path().join(SKILL_MD))))
        .unwrap_or(false)
}

/// A directory's entries sorted by name bytes, dot-entries only when asked for; symlinks
/// are reported as such by `file_type` (never followed).
fn sorted_entries(dir: &Path, include_hidden: bool) -> std::io::Result<Vec<(String, PathBuf, std::fs::FileType)>> {
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && !include_hidden {
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

/// A skill folder read and validated.
struct Loaded {
    candidate: Candidate,
    /// Things worth knowing about it.
    warnings: Vec<String>,
    /// Its scan, when it is `dangerous` (then it is quarantined, not published).
    dangerous: Option<cairn_scanner::Report>,
}

/// Reads and validates one skill folder. `Err` is the reason it is skipped.
fn load_skill(found: &FoundSkill, limits: &Limits) -> Result<Loaded, String> {
    let (folder, parents) = found.segments.split_last().ok_or("empty skill path")?;
    let name = SkillName::parse(&normalize_nfc(folder)).map_err(|e| format!("{e}; rename the folder"))?;
    let category = if parents.is_empty() {
        None
    } else {
        let joined = parents.iter().map(|s| normalize_nfc(s)).collect::<Vec<_>>().join("/");
        Some(Category::parse(&joined).map_err(|e| format!("{e}; rename the folder"))?)
    };
    // Reading is tolerant: a description over the limit (real skills have them) is
    // imported with a warning; patches that lengthen it are still refused.
    let tolerant = limits.with_description_chars(usize::MAX);
    let mut builder = Bundle::builder(&tolerant);
    let mut warnings = Vec::new();
    collect_files(&found.dir, "", &mut builder, &mut warnings)?;
    let bundle = builder.finish().map_err(|e| e.to_string())?;
    let description_chars = bundle.description().chars().count();
    if description_chars > limits.max_description_chars {
        warnings.push(format!(
            "SKILL.md frontmatter 'description' is {description_chars} characters, more than the {}-character \
             limit: imported as it is; patches may keep it but not lengthen it (shorten it and move detail into the body)",
            limits.max_description_chars
        ));
    }
    if let Some(declared) = bundle.frontmatter().name()
        && declared != name.as_str()
    {
        warnings.push(format!(
            "frontmatter name '{declared}' differs from the folder name; imported as '{name}' (the folder name)"
        ));
    }
    // Imports pass the security scanner like patches: never around it.
    let report = cairn_pipeline::stages::scan_bundle(&bundle);
    let worst = report.findings.iter().max_by_key(|f| f.severity);
    if let (cairn_scanner::Verdict::Caution, Some(f)) = (report.verdict, worst) {
        warnings.push(format!(
            "the security scanner advises caution: {} at {}:{} ({})",
            f.rule, f.file, f.line, f.message
        ));
    }
    let verdict = report.verdict;
    let dangerous = (report.verdict == cairn_scanner::Verdict::Dangerous).then_some(report);
    Ok(Loaded {
        candidate: Candidate {
            name,
            category,
            bundle,
            verdict: Some(verdict),
        },
        warnings,
        dangerous,
    })
}

/// Adds the files under `dir` to `bundle`, checking sizes before reading anything so an
/// oversized tree is refused without loading it.
fn collect_files(
    dir: &Path,
    prefix: &str,
    bundle: &mut BundleBuilder,
    warnings: &mut Vec<String>,
) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let entries = sorted_entries(dir, false).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for (name, path, file_type) in entries {
        let rel = format!("{prefix}{}", normalize_nfc(&name));
        if file_type.is_symlink() {
            return Err(format!(
                "contains a symbolic link at '{rel}': bundles cannot hold links; copy the file in instead"
            ));
        }
        if file_type.is_dir() {
            collect_files(&path, &format!("{rel}/"), bundle, warnings)?;
            continue;
        }
        if !file_type.is_file() {
            return Err(format!(
                "contains a special file at '{rel}' (device, socket or pipe): remove it"
            ));
        }
        let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read '{rel}': {e}"))?;
        let limits = bundle.limits();
        if meta.len() > limits.max_file_bytes {
            return Err(format!(
                "file '{rel}' is {} bytes, over the limit of {} bytes per file",
                meta.len(),
                limits.max_file_bytes
            ));
        }
        if bundle.total_bytes().saturating_add(meta.len()) > limits.max_total_bytes {
            return Err(format!(
                "is larger than {} bytes in all, the limit per skill",
                limits.max_total_bytes
            ));
        }
        let rel_path = RelPath::parse(&rel).map_err(|e| e.to_string())?;
        if rel_path.as_str().ends_with("/SKILL.md") {
            warnings.push(format!(
                "nested SKILL.md at '{rel}' is kept as a file of this skill, not imported as a separate skill"
            ));
        }
        if bundle.contains(&rel_path) {
            return Err(format!(
                "has two files named '{rel}' once normalised to Unicode NFC: rename one"
            ));
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read '{rel}': {e}"))?;
        let executable = meta.permissions().mode() & 0o111 != 0;
        bundle.add(rel_path, bytes, executable).map_err(|e| e.to_string())?;
    }
    Ok(())
}
