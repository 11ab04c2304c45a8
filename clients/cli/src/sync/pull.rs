//! `cairn pull`: the index delta since the last pull, only the blobs not already cached,
//! fetched in batches; each skill folder replaced whole. A local edit is never lost: an
//! unmodified folder is updated, a modified one is merged three-way with the upstream
//! change (a conflicting file keeps the local text, with the upstream one beside it as
//! `<file>.upstream`), and folders of skills never synced are never touched.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use cairn_skill::Sha256Hash;
use serde::Serialize;

use super::state::{self, StateError, SyncedSkill, TargetState};
use super::target::Target;
use crate::folder::{self, FileState, FolderError, NewFile};
use crate::remote::{FileEntry, IndexEntry, Registry, RemoteError};

/// Skills handled per round of blob fetching (bounds the memory of a cold pull).
const SKILLS_PER_ROUND: usize = 200;
/// Blob ids per batch request (the registry's limit).
const BATCH: usize = 1000;
/// Suffix of the upstream side of a conflicting file.
pub const UPSTREAM_SUFFIX: &str = ".upstream";

/// Why a pull failed.
#[derive(Debug, thiserror::Error)]
pub enum PullError {
    /// The registry could not be asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// A skill folder could not be read or written.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// The sync state cannot be used.
    #[error(transparent)]
    State(#[from] StateError),
    /// The target was synced from another registry.
    #[error(
        "{root} was synced from {synced} and you are pulling from {now}: pull it from {synced} (CAIRN_SERVER), or \
         move its state file {state} away to start over"
    )]
    OtherRegistry {
        /// The target root.
        root: String,
        /// Where it was synced from.
        synced: String,
        /// Where this pull goes.
        now: String,
        /// The state file.
        state: String,
    },
    /// Another `cairn` kept the target busy (in `watch`, where each round takes the lock).
    #[error(transparent)]
    Lock(#[from] super::lock::LockError),
    /// The registry sent something that does not add up.
    #[error("{0}")]
    Inconsistent(String),
}

/// What a pull did to one skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// New in the target.
    Added,
    /// Replaced by a newer revision (it had no local edits).
    Updated,
    /// Local edits merged with the newer revision, cleanly.
    Merged,
    /// Local edits and the newer revision conflict in some files (see `conflicts`).
    Conflict,
    /// Removed or yanked upstream, and removed here (it had no local edits).
    Removed,
    /// Removed or yanked upstream, and kept here because it has local edits (it now stands
    /// `removed_upstream`: `push` proposes it again only with `--include-removed`).
    KeptModified,
    /// A folder of that name exists here but was never synced: not touched.
    KeptLocalOnly,
    /// A folder never synced that holds exactly the upstream version (a skill proposed
    /// from here and approved): recorded as synced, not touched.
    Adopted,
    /// Deleted here after it was synced: not restored.
    KeptDeleted,
}

/// One skill's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The skill.
    pub name: String,
    /// What happened.
    pub action: Action,
    /// The revision it is at now (upstream), if any.
    pub revision: Option<i32>,
    /// Its folder.
    pub folder: PathBuf,
    /// Conflicting files (their upstream side is beside them as `<file>.upstream`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
}

/// What a pull did.
#[derive(Clone, Debug, Serialize)]
pub struct PullReport {
    /// The target as named.
    pub target: String,
    /// Its skills folder.
    pub root: PathBuf,
    /// The index cursor now.
    pub cursor: i64,
    /// Whether the whole index was read (first pull, or an expired cursor).
    pub full: bool,
    /// Every skill that changed or was left alone for a reason, by name.
    pub skills: Vec<Outcome>,
    /// Blobs downloaded (the others came from the local cache).
    pub blobs_fetched: usize,
}

/// Told how a pull advances (a progress bar on a terminal; nothing otherwise).
pub trait Progress {
    /// `total` changed skills are about to be handled.
    fn start(&self, total: u64);
    /// `done` more are handled.
    fn advance(&self, done: u64);
    /// The pull is over.
    fn finish(&self);
}

/// Progress nobody watches.
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _total: u64) {}
    fn advance(&self, _done: u64) {}
    fn finish(&self) {}
}

/// Pulls the index into `target`, with blobs cached in `cache`.
pub async fn pull(registry: &Registry, target: &Target, cache: &Path) -> Result<PullReport, PullError> {
    pull_with(registry, target, cache, &Silent).await
}

/// [`pull`], telling `progress` how it advances.
pub async fn pull_with(
    registry: &Registry,
    target: &Target,
    cache: &Path,
    progress: &dyn Progress,
) -> Result<PullReport, PullError> {
    std::fs::create_dir_all(&target.root).map_err(folder::io(&target.root))?;
    let state_path = state::path_for(&target.root)?;
    let clean = state::clean_marker(&state_path);
    // What an interrupted pull left behind (a pull that ended cleanly left nothing, and
    // said so: looking would stat every skill folder).
    let was_clean = clean.exists();
    if !was_clean {
        folder::remove_leftovers_under(&target.root)?;
    }
    let head = state::load_head(&state_path)?;
    if !head.server.is_empty() && head.server != registry.server() {
        return Err(PullError::OtherRegistry {
            root: target.root.display().to_string(),
            synced: head.server.clone(),
            now: registry.server().to_owned(),
            state: state_path.display().to_string(),
        });
    }
    let (index, full) = registry.index_since(head.cursor).await?;
    // Nothing new and nothing to settle: the state is not even read whole.
    let nothing_new = !full && index.skills.is_empty() && index.removed.as_deref().unwrap_or_default().is_empty();
    if nothing_new
        && !head.removed_upstream
        && head.cursor == Some(index.cursor)
        && head.version == state::STATE_VERSION
    {
        if !was_clean {
            mark_clean(&clean);
        }
        remember(target);
        return Ok(PullReport {
            target: target.label.clone(),
            root: target.root.clone(),
            cursor: index.cursor,
            full,
            skills: Vec::new(),
            blobs_fetched: 0,
        });
    }
    let mut state = state::load(&state_path)?;
    // Folders may be written from here on: until this pull ends, the next one looks for
    // what an interruption would leave.
    forget_clean(&clean)?;
    // A skill removed upstream while edited here that is back (unyanked, published again):
    // synced again from the base it had, so its return is merged with the local edits.
    for entry in &index.skills {
        if let Some(base) = state.removed_upstream.remove(&entry.name) {
            state.skills.entry(entry.name.clone()).or_insert(base);
        }
    }
    let mut removed: Vec<String> = index.removed.clone().unwrap_or_default();
    if full {
        removed.extend(
            state
                .skills
                .keys()
                .filter(|name| !index.skills.iter().any(|e| &e.name == *name))
                .cloned(),
        );
    }
    let mut outcomes = Vec::new();
    let mut fetched = 0;
    progress.start(index.skills.len() as u64);
    for round in index.skills.chunks(SKILLS_PER_ROUND) {
        let mut plans = Vec::new();
        for entry in round {
            if let Some(mut plan) = plan(target, &state, entry, &mut outcomes)? {
                own_published_base(registry, &state, &mut plan).await?;
                plans.push(plan);
            }
        }
        let needed: Vec<String> = plans.iter().flat_map(Plan::blobs).collect();
        let (blobs, downloaded) = blobs(registry, cache, needed).await?;
        fetched += downloaded;
        for plan in plans {
            match apply(target, &mut state, plan, &blobs) {
                Ok(outcome) => outcomes.push(outcome),
                Err(e) => {
                    // Keep what was already written on record (the cursor stays where it
                    // was, so the next pull reads these changes again).
                    state::save(&state_path, &state)?;
                    return Err(e);
                }
            }
        }
        // On record round by round: a pull stopped midway loses no folder's base.
        state::save(&state_path, &state)?;
        progress.advance(round.len() as u64);
    }
    progress.finish();
    for name in removed {
        if let Some(outcome) = remove(target, &mut state, &name)? {
            outcomes.push(outcome);
        }
    }
    let settled = settle_removed(target, &mut state, &mut outcomes)?;
    // A pull that changed nothing leaves the state file alone (no rewrite, no fsync of it).
    let unchanged = !full && !settled && outcomes.is_empty() && state.cursor == Some(index.cursor);
    if !unchanged {
        state.version = state::STATE_VERSION;
        state.server = registry.server().to_owned();
        state.root = target.root.clone();
        state.cursor = Some(index.cursor);
        state::save(&state_path, &state)?;
    }
    mark_clean(&clean);
    remember(target);
    outcomes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(PullReport {
        target: target.label.clone(),
        root: target.root.clone(),
        cursor: index.cursor,
        full,
        skills: outcomes,
        blobs_fetched: fetched,
    })
}

/// Records the target so `push`, `status`, `diff` and `watch` find it without --target.
/// The pull itself is done and recorded: a list that cannot be written only costs the
/// convenience, so it is said, not failed on.
fn remember(target: &Target) {
    if let Err(e) = super::remembered::remember(target) {
        eprintln!("warning: {e} (the pull is complete; name the target with --target next time)");
    }
}

/// Says the target holds no leftovers. Not flushed: should a power loss take it back, the
/// next pull only looks once more. A marker that cannot be written only costs the next
/// pull a look, so the pull does not fail for it.
fn mark_clean(clean: &Path) {
    let written = clean
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(clean, b""));
    if let Err(e) = written {
        eprintln!(
            "warning: cannot write {} ({e}); the next pull looks for leftovers again",
            clean.display()
        );
    }
}

/// Removes the clean marker durably, before any folder is written (a marker a power loss
/// brought back would hide an interrupted pull's leftovers).
fn forget_clean(clean: &Path) -> Result<(), PullError> {
    match std::fs::remove_file(clean) {
        Ok(()) => folder::sync_dir(clean.parent().unwrap_or(Path::new(".")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(folder::io(clean)(e).into()),
    }
    Ok(())
}

/// What to do with one changed skill.
struct Plan {
    entry: IndexEntry,
    folder: PathBuf,
    /// The local files and what they were synced from, when the folder has local edits.
    merge: Option<(BTreeMap<String, FileState>, SyncedSkill)>,
    added: bool,
    /// The folder already holds exactly this version: only record it.
    adopt: bool,
}

impl Plan {
    fn blobs(&self) -> Vec<String> {
        if self.adopt {
            return Vec::new();
        }
        let mut ids: Vec<String> = self.entry.files.iter().map(|f| f.sha256.clone()).collect();
        if let Some((_, base)) = &self.merge {
            ids.extend(base.files.values().map(|f| f.sha256.clone()));
        }
        ids
    }
}

fn upstream_files(entry: &IndexEntry) -> BTreeMap<String, FileState> {
    entry
        .files
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                FileState {
                    sha256: f.sha256.clone(),
                    executable: f.executable,
                },
            )
        })
        .collect()
}

/// Decides what a changed index entry means here; skills left alone are reported at once.
/// Refuses what no registry may send: a skill name or category that is not one (they
/// become folder names under the target's root).
fn check_entry(entry: &IndexEntry) -> Result<(), PullError> {
    cairn_skill::SkillName::parse(&entry.name).map_err(|e| {
        PullError::Inconsistent(format!(
            "the registry sent a skill named '{}': {e}; nothing was written for it",
            entry.name
        ))
    })?;
    if let Some(category) = &entry.category {
        cairn_skill::Category::parse(category).map_err(|e| {
            PullError::Inconsistent(format!(
                "the registry sent skill '{}' with category '{category}': {e}; nothing was written for it",
                entry.name
            ))
        })?;
    }
    Ok(())
}

fn plan(
    target: &Target,
    state: &TargetState,
    entry: &IndexEntry,
    outcomes: &mut Vec<Outcome>,
) -> Result<Option<Plan>, PullError> {
    check_entry(entry)?;
    let synced = state.skills.get(&entry.name);
    let folder = match synced {
        Some(synced) => target.root.join(&synced.folder),
        None => target.folder_for(&entry.name, entry.category.as_deref()),
    };
    let local = folder::read(&folder)?;
    let report = |action| Outcome {
        name: entry.name.clone(),
        action,
        revision: Some(entry.revision),
        folder: folder.clone(),
        conflicts: Vec::new(),
    };
    match (synced, local) {
        (None, Some(local)) if local == upstream_files(entry) => Ok(Some(Plan {
            entry: entry.clone(),
            folder,
            merge: None,
            added: false,
            adopt: true,
        })),
        (None, Some(_)) => {
            outcomes.push(report(Action::KeptLocalOnly));
            Ok(None)
        }
        (None, None) => Ok(Some(Plan {
            entry: entry.clone(),
            folder,
            merge: None,
            added: true,
            adopt: false,
        })),
        (Some(synced), _) if synced.revision == entry.revision && synced.digest == entry.digest => Ok(None),
        (Some(_), None) => {
            outcomes.push(report(Action::KeptDeleted));
            Ok(None)
        }
        (Some(synced), Some(local)) => {
            let edited = local != synced.files;
            Ok(Some(Plan {
                entry: entry.clone(),
                folder,
                merge: edited.then(|| (local, synced.clone())),
                added: false,
                adopt: false,
            }))
        }
    }
}

/// A folder whose local edits are exactly a patch this target pushed and the registry
/// published: its base for the merge is that published revision, not the one it was
/// synced from (the agent's lesson is upstream already; only what others added since is
/// merged in, and nothing conflicts with itself).
async fn own_published_base(registry: &Registry, state: &TargetState, plan: &mut Plan) -> Result<(), PullError> {
    let Some((local, synced)) = &mut plan.merge else {
        return Ok(());
    };
    let Some(proposal) = state.proposals.get(&plan.entry.name) else {
        return Ok(());
    };
    let patch = match registry.patch(&proposal.patch).await {
        Ok(patch) => patch,
        // Unknown to the registry (reset, another organisation): merge as usual.
        Err(RemoteError::Refused { status: 404, .. }) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    let Some(revision) = patch["result_revision"].as_i64().and_then(|r| i32::try_from(r).ok()) else {
        return Ok(());
    };
    if patch["status"] != "approved" || revision <= synced.revision || revision > plan.entry.revision {
        return Ok(());
    }
    let version = registry.version(&plan.entry.name, revision).await?;
    let published: BTreeMap<String, FileState> = version
        .files
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                FileState {
                    sha256: f.sha256.clone(),
                    executable: f.executable,
                },
            )
        })
        .collect();
    if *local == published {
        synced.revision = version.revision;
        synced.digest = version.digest;
        synced.files = published;
    }
    Ok(())
}

/// Writes a planned skill and records it in the state.
fn apply(
    target: &Target,
    state: &mut TargetState,
    plan: Plan,
    blobs: &HashMap<String, Vec<u8>>,
) -> Result<Outcome, PullError> {
    let blob = |sha: &str| {
        blobs
            .get(sha)
            .ok_or_else(|| PullError::Inconsistent(format!("the registry did not send blob {sha}")))
    };
    let mut conflicts = Vec::new();
    let action = match &plan.merge {
        None if plan.adopt => Action::Adopted,
        None => {
            let mut files = Vec::with_capacity(plan.entry.files.len());
            for f in &plan.entry.files {
                files.push(NewFile {
                    path: &f.path,
                    bytes: blob(&f.sha256)?,
                    executable: f.executable,
                });
            }
            // The folder must still be as planned: absent for a new skill, as synced otherwise.
            let expected = match state.skills.get(&plan.entry.name) {
                Some(synced) if !plan.added => synced.files.clone(),
                _ => BTreeMap::new(),
            };
            folder::replace(&plan.folder, &files, Some(&expected))?;
            if plan.added { Action::Added } else { Action::Updated }
        }
        Some((local, base)) => {
            let merged = merge(
                &plan.folder,
                local,
                &base.conflicts,
                &base.files,
                &plan.entry.files,
                blobs,
                &mut conflicts,
            )?;
            let files: Vec<NewFile<'_>> = merged
                .iter()
                .map(|(path, (bytes, executable))| NewFile {
                    path,
                    bytes,
                    executable: *executable,
                })
                .collect();
            folder::replace(&plan.folder, &files, Some(local))?;
            if conflicts.is_empty() {
                Action::Merged
            } else {
                Action::Conflict
            }
        }
    };
    state.skills.insert(
        plan.entry.name.clone(),
        SyncedSkill {
            folder: target.relative(&plan.folder),
            revision: plan.entry.revision,
            digest: plan.entry.digest.clone(),
            files: upstream_files(&plan.entry),
            conflicts: conflicts.clone(),
        },
    );
    Ok(Outcome {
        name: plan.entry.name,
        action,
        revision: Some(plan.entry.revision),
        folder: plan.folder,
        conflicts,
    })
}

/// Three-way merge of a skill folder, file by file: what only one side changed is taken
/// from it; text changed on both sides is merged line by line; anything else conflicts,
/// keeping the local file and writing the upstream one beside it.
fn merge(
    folder: &Path,
    local: &BTreeMap<String, FileState>,
    previous_conflicts: &[String],
    base: &BTreeMap<String, FileState>,
    upstream: &[FileEntry],
    blobs: &HashMap<String, Vec<u8>>,
    conflicts: &mut Vec<String>,
) -> Result<BTreeMap<String, (Vec<u8>, bool)>, PullError> {
    let upstream: BTreeMap<&str, FileState> = upstream
        .iter()
        .map(|f| {
            (
                f.path.as_str(),
                FileState {
                    sha256: f.sha256.clone(),
                    executable: f.executable,
                },
            )
        })
        .collect();
    // The upstream sides written for the last conflicts are regenerated (or dropped when the
    // file merges now), never merged as if they were the agent's files.
    let stale: Vec<String> = previous_conflicts
        .iter()
        .map(|f| format!("{f}{UPSTREAM_SUFFIX}"))
        .collect();
    let mut paths: Vec<&str> = local
        .keys()
        .map(String::as_str)
        .filter(|p| !stale.iter().any(|s| s == p))
        .collect();
    paths.extend(base.keys().map(String::as_str));
    paths.extend(upstream.keys().copied());
    paths.sort_unstable();
    paths.dedup();
    let read_local = |path: &str| std::fs::read(folder.join(path)).map_err(folder::io(&folder.join(path)));
    let from_blob = |state: &FileState| {
        blobs
            .get(&state.sha256)
            .cloned()
            .ok_or_else(|| PullError::Inconsistent(format!("the registry did not send blob {}", state.sha256)))
    };
    let mut out = BTreeMap::new();
    for path in paths {
        let (l, b, u) = (local.get(path), base.get(path), upstream.get(path));
        if l == b {
            if let Some(u) = u {
                out.insert(path.to_owned(), (from_blob(u)?, u.executable));
            }
        } else if u == b || l == u {
            if let Some(l) = l {
                out.insert(path.to_owned(), (read_local(path)?, l.executable));
            }
        } else {
            let local_bytes = l.map(|_| read_local(path)).transpose()?;
            let upstream_bytes = u.map(from_blob).transpose()?;
            let base_bytes = b.map(from_blob).transpose()?;
            let texts = (
                base_bytes.as_deref().map(std::str::from_utf8),
                local_bytes.as_deref().map(std::str::from_utf8),
                upstream_bytes.as_deref().map(std::str::from_utf8),
            );
            if let (Some(Ok(base)), Some(Ok(mine)), Some(Ok(theirs))) = texts
                && let Ok(merged) = cairn_pipeline::merge::merge3(base, mine, theirs)
            {
                // The mode, like the text, from the side that changed it.
                let executable = match (l, b, u) {
                    (Some(l), Some(b), Some(u)) if l.executable == b.executable => u.executable,
                    (Some(l), _, _) => l.executable,
                    _ => false,
                };
                out.insert(path.to_owned(), (merged.text.into_bytes(), executable));
                continue;
            }
            conflicts.push(path.to_owned());
            if let (Some(l), Some(bytes)) = (l, local_bytes) {
                out.insert(path.to_owned(), (bytes, l.executable));
            }
            if let (Some(u), Some(bytes)) = (u, upstream_bytes) {
                out.insert(format!("{path}{UPSTREAM_SUFFIX}"), (bytes, u.executable));
            }
        }
    }
    Ok(out)
}

/// A skill removed (or wholly yanked) upstream: removed here unless edited; an edited
/// one is kept and remembered as removed upstream (so `push` does not take it for a new
/// skill).
fn remove(target: &Target, state: &mut TargetState, name: &str) -> Result<Option<Outcome>, PullError> {
    let Some(synced) = state.skills.remove(name) else {
        return Ok(None);
    };
    let folder = target.root.join(&synced.folder);
    let action = match folder::read(&folder)? {
        None => return Ok(None),
        Some(local) if local == synced.files => {
            folder::remove_durably(&folder)?;
            Action::Removed
        }
        Some(_) => {
            state.removed_upstream.insert(name.to_owned(), synced);
            Action::KeptModified
        }
    };
    Ok(Some(Outcome {
        name: name.to_owned(),
        action,
        revision: None,
        folder,
        conflicts: Vec::new(),
    }))
}

/// Skills removed upstream and kept because they were edited: forgotten once their
/// folder is gone, removed once their edits were undone. Answers whether any changed.
fn settle_removed(target: &Target, state: &mut TargetState, outcomes: &mut Vec<Outcome>) -> Result<bool, PullError> {
    let mut settled = false;
    let names: Vec<String> = state.removed_upstream.keys().cloned().collect();
    for name in names {
        let Some(synced) = state.removed_upstream.get(&name) else {
            continue;
        };
        let folder = target.root.join(&synced.folder);
        match folder::read(&folder)? {
            None => {}
            Some(local) if local == synced.files => {
                folder::remove_durably(&folder)?;
                outcomes.push(Outcome {
                    name: name.clone(),
                    action: Action::Removed,
                    revision: None,
                    folder,
                    conflicts: Vec::new(),
                });
            }
            Some(_) => continue,
        }
        state.removed_upstream.remove(&name);
        settled = true;
    }
    Ok(settled)
}

/// The blobs' bytes: from the local cache, the rest fetched in batches, checked against
/// their ids and added to the cache. Returns them and how many were downloaded.
async fn blobs(
    registry: &Registry,
    cache: &Path,
    mut ids: Vec<String>,
) -> Result<(HashMap<String, Vec<u8>>, usize), PullError> {
    ids.sort_unstable();
    ids.dedup();
    let mut found = HashMap::with_capacity(ids.len());
    let mut missing = Vec::new();
    for id in ids {
        match std::fs::read(cache.join(&id)) {
            Ok(bytes) if Sha256Hash::of(&bytes).to_hex() == id => {
                found.insert(id, bytes);
            }
            _ => missing.push(id),
        }
    }
    if !missing.is_empty() {
        std::fs::create_dir_all(cache).map_err(folder::io(cache))?;
    }
    for batch in missing.chunks(BATCH) {
        for (id, bytes) in registry.blobs(batch).await? {
            folder::write_atomically(&cache.join(&id), &bytes, None, false)?;
            found.insert(id, bytes);
        }
    }
    Ok((found, missing.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, category: Option<&str>) -> IndexEntry {
        IndexEntry {
            name: name.to_owned(),
            category: category.map(str::to_owned),
            description: String::new(),
            revision: 1,
            digest: String::new(),
            updated_at: chrono::Utc::now(),
            files: Vec::new(),
        }
    }

    #[test]
    fn names_and_categories_that_would_leave_the_target_are_refused() {
        assert!(check_entry(&entry("deploy", Some("devops/ci"))).is_ok());
        for (name, category) in [
            ("../escape", None),
            ("/etc", None),
            ("a/b", None),
            ("deploy", Some("../../.config")),
            ("deploy", Some("/abs")),
        ] {
            let e = check_entry(&entry(name, category)).unwrap_err().to_string();
            assert!(e.contains("nothing was written"), "{name} {category:?}: {e}");
        }
    }
}
