//! Pinned skills for CI: `cairn ci lock` records the team index as it is (server, and per
//! skill the revision, version digest and every file's sha256); `cairn ci pull` fetches
//! exactly those versions into a folder, verifying every byte, and fails precisely on any
//! difference — a yanked version, a registry that answers another manifest, a tampered
//! lock or a tampered file. The lock also pins the registry's signing keys and a
//! checkpoint of its transparency log, and per skill the attestation's envelope digest
//! and log index: `cairn ci pull --verify` then proves, against those pins only, that
//! the registry signed, logged and (by policy) approved every version it installs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cairn_skill::{RelPath, Sha256Hash};

use crate::folder::NewFile;
use serde::{Deserialize, Serialize};

use crate::provenance::{Expected, LockedAttestation, Pins, Policy, ProvenanceError, check_attestation};
use crate::remote::{FileEntry, Registry, RemoteError};
use futures::StreamExt as _;

/// Exit code of a verification failure (yanked, digest or file mismatch).
pub const EXIT_MISMATCH: u8 = 4;
/// The lock format written (2: with provenance pins).
pub const LOCK_VERSION: u32 = 2;
/// Lock formats read (1: without provenance; `--verify` needs 2).
const READABLE_LOCK_VERSIONS: [u32; 2] = [1, 2];
/// Versions whose attestations are asked for in one request (the registry's limit).
const ATTESTATION_BATCH: usize = 1000;
/// Attestation batches asked for at once.
const CONCURRENT_ATTESTATION_BATCHES: usize = 2;
/// Locked versions asked for at once.
const CONCURRENT_VERSIONS: usize = 16;
/// Blob ids per batch request (the registry's limit).
const BATCH: usize = 1000;

/// `cairn.lock`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Always [`LOCK_VERSION`].
    pub version: u32,
    /// The registry it was made against.
    pub server: String,
    /// The index cursor it reflects.
    pub cursor: i64,
    /// The organisation whose versions are locked (format 2, from their attestations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<String>,
    /// The registry's keys and log checkpoint when locked (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Pins>,
    /// Skill → pinned version.
    pub skills: BTreeMap<String, LockedSkill>,
}

/// One pinned version.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LockedSkill {
    /// The revision.
    pub revision: i32,
    /// The version digest over the files.
    pub digest: String,
    /// Every file.
    pub files: Vec<FileEntry>,
    /// The version's attestation (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attestation: Option<LockedAttestation>,
}

/// Why `ci` failed.
#[derive(Debug, thiserror::Error)]
pub enum CiError {
    /// The registry could not be asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The lock file cannot be read or used.
    #[error("{path}: {reason}")]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// What is wrong, and what to do.
        reason: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The request cannot be carried out as asked (what to do instead is said).
    #[error("{0}")]
    Usage(String),
    /// A skill folder could not be read or written.
    #[error(transparent)]
    Folder(#[from] crate::folder::FolderError),
    /// Something differs from the lock: nothing further was written.
    #[error("{0}")]
    Mismatch(String),
}

impl From<ProvenanceError> for CiError {
    fn from(error: ProvenanceError) -> Self {
        match error {
            ProvenanceError::Remote(e) => CiError::Remote(e),
            ProvenanceError::Pins(reason) => CiError::Mismatch(format!(
                "the lock's provenance pins are damaged ({reason}): write the lock again with `cairn ci lock`"
            )),
            ProvenanceError::Failed(reason) => CiError::Mismatch(reason),
        }
    }
}

impl CiError {
    /// The process exit code: [`EXIT_MISMATCH`] for verification failures, else 2.
    pub fn exit_code(&self) -> u8 {
        match self {
            CiError::Mismatch(_) => EXIT_MISMATCH,
            _ => 2,
        }
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CiError + '_ {
    move |source| CiError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Makes the lock of the registry's current index (every skill, or those named). Given
/// the lock it replaces (same registry, with provenance), the registry's log must be an
/// extension of the one that lock pinned — proved by a consistency proof — and the keys it
/// pinned are kept, only ever tightened: a registry cannot rewrite its history between
/// two locks unnoticed. A new key is pinned when its activation follows from the pinned
/// keys, or with `trust_new_keys`.
pub async fn lock(
    registry: &Registry,
    only: &[String],
    previous: Option<&Lock>,
    trust_new_keys: bool,
) -> Result<Lock, CiError> {
    let index = registry.index().await?;
    let mut skills = BTreeMap::new();
    for entry in index.skills {
        if only.is_empty() || only.contains(&entry.name) {
            let mut files = entry.files;
            files.sort();
            skills.insert(
                entry.name,
                LockedSkill {
                    revision: entry.revision,
                    digest: entry.digest,
                    files,
                    attestation: None,
                },
            );
        }
    }
    if let Some(missing) = only.iter().find(|name| !skills.contains_key(*name)) {
        return Err(CiError::Usage(format!(
            "skill '{missing}' is not in the registry's index (it does not exist, or every version is yanked)"
        )));
    }
    // Pinned after the index was read, so the checkpoint's tree holds every version in
    // it; each attestation is verified against these pins before the lock is written.
    let (mut pins, listed) = crate::provenance::fetch_pins_listed(registry).await?;
    if let Some(old) = previous
        .filter(|old| old.server == registry.server())
        .and_then(|old| old.provenance.as_ref())
    {
        pins = crate::provenance::extend_pins(registry, old, pins, &listed, trust_new_keys).await?;
    }
    let verified = verify_all(registry, &pins, &skills, false, None).await?;
    // Every version of the index is the caller's organisation's: pinned, so a pull can
    // refuse another organisation's identical version.
    let mut organizations: Vec<&str> = verified
        .iter()
        .map(|(_, v)| v.predicate.organization.as_str())
        .collect();
    organizations.dedup();
    if organizations.len() > 1 {
        return Err(CiError::Mismatch(format!(
            "the registry attests versions of several organisations ({}) for one index: do not trust it until you know why",
            organizations.join(", ")
        )));
    }
    let organization = organizations.first().map(|o| (*o).to_owned());
    for (name, verified) in verified {
        if let Some(skill) = skills.get_mut(&name) {
            skill.attestation = Some(LockedAttestation {
                envelope_sha256: verified.envelope_sha256,
                log_index: verified.attestation_index,
            });
        }
    }
    Ok(Lock {
        version: LOCK_VERSION,
        server: registry.server().to_owned(),
        cursor: index.cursor,
        organization,
        provenance: Some(pins),
        skills,
    })
}

/// What verifying one locked skill established.
pub(crate) struct VerifiedSkill {
    pub(crate) envelope_sha256: String,
    pub(crate) attestation_index: u64,
    pub(crate) predicate: cairn_provenance::VersionPredicate,
}

/// Verifies every skill's attestation against `pins`, asking for them in batches; with
/// `pinned`, each must also be the envelope the lock pins.
pub(crate) async fn verify_all(
    registry: &Registry,
    pins: &Pins,
    skills: &BTreeMap<String, LockedSkill>,
    pinned: bool,
    organization: Option<&str>,
) -> Result<Vec<(String, VerifiedSkill)>, CiError> {
    if pinned
        && let Some(name) = skills
            .iter()
            .find_map(|(name, s)| s.attestation.is_none().then_some(name))
    {
        return Err(CiError::Mismatch(format!(
            "skill '{name}' has no attestation in the lock: write the lock again with `cairn ci lock`"
        )));
    }
    let keyring = pins.keyring()?;
    let checkpoint = pins.checkpoint()?;
    let (keyring, checkpoint) = (&keyring, &checkpoint);
    let listed: Vec<(&String, &LockedSkill)> = skills.iter().collect();
    let batches = futures::stream::iter(listed.chunks(ATTESTATION_BATCH).map(|batch| async move {
        let asked = batch
            .iter()
            .map(|(name, skill)| cairn_wire::VersionRef {
                name: (*name).clone(),
                revision: skill.revision,
            })
            .collect();
        let served = registry.attestations(asked, checkpoint.size).await?;
        if served.attestations.len() != batch.len() {
            return Err(CiError::Mismatch(format!(
                "the registry answered {} attestations for the {} versions asked: it is not serving this lock's \
                 versions faithfully",
                served.attestations.len(),
                batch.len()
            )));
        }
        batch
            .iter()
            .zip(served.attestations)
            .map(|((name, skill), served)| {
                let expected = expected_of(name, skill, pinned, organization);
                let verified = check_attestation(served, pins, keyring, checkpoint, &expected)?;
                Ok::<_, CiError>((
                    (*name).clone(),
                    VerifiedSkill {
                        envelope_sha256: verified.envelope_sha256,
                        attestation_index: verified.log_index,
                        predicate: verified.predicate,
                    },
                ))
            })
            .collect::<Result<Vec<_>, _>>()
    }))
    .buffered(CONCURRENT_ATTESTATION_BATCHES);
    let mut verified = Vec::with_capacity(skills.len());
    for batch in batches.collect::<Vec<_>>().await {
        verified.extend(batch?);
    }
    Ok(verified)
}

/// What the lock says `skill` is, as the attestation must state it.
fn expected_of<'a>(name: &'a str, skill: &'a LockedSkill, pinned: bool, organization: Option<&'a str>) -> Expected<'a> {
    Expected {
        name,
        revision: skill.revision,
        digest: &skill.digest,
        files: skill
            .files
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.sha256.as_str(),
                    u64::try_from(f.size).ok(),
                    f.executable,
                )
            })
            .collect(),
        attestation: if pinned { skill.attestation.as_ref() } else { None },
        organization,
    }
}

/// Reads and checks a lock file: its format, and each skill's digest against its files
/// (a hand-edited lock is caught here, before anything is fetched).
pub fn read_lock(path: &Path) -> Result<Lock, CiError> {
    let bad = |reason: String| CiError::Lock {
        path: path.to_owned(),
        reason,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("{e}: write it with `cairn ci lock`")))?;
    let lock: Lock = serde_json::from_str(&text)
        .map_err(|e| bad(format!("not a Cairn lock file ({e}): write it with `cairn ci lock`")))?;
    if !READABLE_LOCK_VERSIONS.contains(&lock.version) {
        return Err(bad(format!(
            "lock format {} is not supported (this cairn reads {READABLE_LOCK_VERSIONS:?}): write it again with \
             this cairn",
            lock.version
        )));
    }
    for (name, skill) in &lock.skills {
        cairn_skill::SkillName::parse(name).map_err(|e| bad(format!("skill '{name}': {e}")))?;
        let mut hashes = Vec::with_capacity(skill.files.len());
        for file in &skill.files {
            let rel = RelPath::parse(&file.path).map_err(|e| bad(format!("skill '{name}': {e}")))?;
            let hash = Sha256Hash::parse_hex(&file.sha256)
                .map_err(|_| bad(format!("skill '{name}' file {}: the sha256 is not valid", file.path)))?;
            hashes.push((rel, hash));
        }
        let digest = cairn_skill::digest::version_digest(hashes.iter().map(|(p, h)| (p, h)));
        if digest != skill.digest {
            return Err(CiError::Mismatch(format!(
                "{}: skill '{name}' lists files whose digest is {digest}, not the locked {}: the lock was edited; \
                 write it again with `cairn ci lock`",
                path.display(),
                skill.digest
            )));
        }
    }
    Ok(lock)
}

/// What `ci pull` did with one skill.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Pulled {
    /// The skill.
    pub name: String,
    /// The pinned revision.
    pub revision: i32,
    /// `fetched` (new), `replaced` (differed, not frozen) or `unchanged` (already exact).
    pub action: &'static str,
    /// With `--verify`: the verified attestation's log index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log_index: Option<u64>,
}

/// Fetches exactly the locked versions into `dest/<name>/`. Every version is checked with
/// the registry first (not yanked, same digest and manifest), then every blob against its
/// sha256; a skill folder already in `dest` is kept when it matches the lock exactly, and
/// otherwise replaced — or, with `frozen`, the pull fails naming the first difference.
/// Nothing is written before every check that needs no download has passed; each skill
/// folder is swapped in whole.
pub async fn pull(
    registry: &Registry,
    lock: &Lock,
    dest: &Path,
    frozen: bool,
    verify: Option<Policy>,
) -> Result<Vec<Pulled>, CiError> {
    if registry.server() != lock.server {
        return Err(CiError::Usage(format!(
            "the lock was made against {} but the configured registry is {}: log in to that registry (or set \
             CAIRN_SERVER), or write the lock again",
            lock.server,
            registry.server()
        )));
    }
    // Provenance first, against the lock's pins only: nothing is written unless every
    // version is signed, logged and within the policy.
    let mut indexes = BTreeMap::new();
    if let Some(policy) = verify {
        let Some(pins) = &lock.provenance else {
            return Err(CiError::Mismatch(
                "the lock pins no provenance (format 1): write it again with `cairn ci lock` to verify".to_owned(),
            ));
        };
        for (name, verified) in verify_all(registry, pins, &lock.skills, true, lock.organization.as_deref()).await? {
            if let Some(reason) = policy.violation(&verified.predicate) {
                return Err(CiError::Mismatch(format!(
                    "skill '{name}' revision {} fails the policy: {reason}",
                    verified.predicate.revision
                )));
            }
            indexes.insert(name, verified.attestation_index);
        }
    }
    let mut plan = Vec::new();
    // Several versions asked at once; each answer is checked in the lock's order, so the
    // first mismatch named is the same whatever order the answers come in.
    let mut versions = futures::stream::iter(&lock.skills)
        .map(|(name, locked)| async move { (name, locked, registry.version(name, locked.revision).await) })
        .buffered(CONCURRENT_VERSIONS);
    while let Some((name, locked, answer)) = versions.next().await {
        let version = match answer {
            Ok(version) => version,
            Err(RemoteError::Refused {
                status: 404, message, ..
            }) => {
                return Err(CiError::Mismatch(format!(
                    "skill '{name}' revision {} is not in the registry ({message}): the registry was reset, or the \
                     lock belongs to another one",
                    locked.revision
                )));
            }
            Err(e) => return Err(e.into()),
        };
        if version.yanked {
            return Err(CiError::Mismatch(format!(
                "skill '{name}' revision {} is yanked: find out why, then lock another revision with `cairn ci lock`",
                locked.revision
            )));
        }
        let mut files = version.files;
        files.sort();
        if version.digest != locked.digest || files != locked.files {
            return Err(CiError::Mismatch(format!(
                "skill '{name}' revision {} in the registry has digest {}, the lock {}: the registry's content \
                 changed under this revision; do not trust it until you know why",
                locked.revision, version.digest, locked.digest
            )));
        }
        let folder = dest.join(name);
        let action = match existing_difference(&folder, &locked.files)? {
            None if folder.exists() => "unchanged",
            None => "fetched",
            Some(difference) if frozen => {
                return Err(CiError::Mismatch(format!(
                    "{difference}: the folder differs from the lock and --frozen forbids replacing it; remove {} to \
                     fetch it again, or pull without --frozen",
                    folder.display()
                )));
            }
            Some(_) => "replaced",
        };
        plan.push((name, locked, action));
    }
    std::fs::create_dir_all(dest).map_err(io(dest))?;
    crate::folder::remove_leftovers(dest)?;
    let mut needed: Vec<String> = plan
        .iter()
        .filter(|(_, _, action)| *action != "unchanged")
        .flat_map(|(_, locked, _)| locked.files.iter().map(|f| f.sha256.clone()))
        .collect();
    needed.sort();
    needed.dedup();
    let mut blobs = std::collections::HashMap::with_capacity(needed.len());
    for batch in needed.chunks(BATCH) {
        blobs.extend(registry.blobs(batch).await?);
    }
    let mut pulled = Vec::with_capacity(plan.len());
    for (name, locked, action) in plan {
        if action != "unchanged" {
            install(dest, name, &locked.files, &blobs)?;
        }
        pulled.push(Pulled {
            name: name.clone(),
            revision: locked.revision,
            action,
            log_index: indexes.get(name).copied(),
        });
    }
    Ok(pulled)
}

/// How `folder` differs from `files` (`None`: it is exactly them, or it does not exist).
pub(crate) fn existing_difference(folder: &Path, files: &[FileEntry]) -> Result<Option<String>, CiError> {
    let Some(on_disk) = crate::folder::read(folder)? else {
        return Ok(None);
    };
    if let Some(extra) = on_disk.keys().find(|p| !files.iter().any(|f| &f.path == *p)) {
        return Ok(Some(format!(
            "{} is not in the locked version",
            folder.join(extra).display()
        )));
    }
    for file in files {
        let path = folder.join(&file.path);
        match on_disk.get(&file.path) {
            None => return Ok(Some(format!("{} is missing", path.display()))),
            Some(found) if found.sha256 != file.sha256 => {
                return Ok(Some(format!(
                    "{} has sha256 {}, the lock {}",
                    path.display(),
                    found.sha256,
                    file.sha256
                )));
            }
            Some(found) if found.executable != file.executable => {
                return Ok(Some(format!(
                    "{} has another executable bit than the lock",
                    path.display()
                )));
            }
            Some(_) => {}
        }
    }
    Ok(None)
}

/// Writes a skill's files from the fetched blobs as `dest/<name>/`.
fn install(
    dest: &Path,
    name: &str,
    files: &[FileEntry],
    blobs: &std::collections::HashMap<String, Vec<u8>>,
) -> Result<(), CiError> {
    let mut new_files = Vec::with_capacity(files.len());
    for file in files {
        let bytes = blobs
            .get(&file.sha256)
            .ok_or_else(|| CiError::Mismatch(format!("the registry did not send blob {}", file.sha256)))?;
        new_files.push(NewFile {
            path: &file.path,
            bytes,
            executable: file.executable,
        });
    }
    crate::folder::replace(&dest.join(name), &new_files, None)?;
    Ok(())
}

/// Writes the lock file atomically.
pub fn write_lock(path: &Path, lock: &Lock) -> Result<(), CiError> {
    let mut text = serde_json::to_string_pretty(lock).map_err(|e| CiError::Lock {
        path: path.to_owned(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    crate::folder::write_atomically(path, text.as_bytes(), None, false)?;
    Ok(())
}
