//! `cairn verify <dir>`: checks, without writing anything, that every skill in a folder is
//! exactly a version the registry signed and logged — a `ci pull` destination against
//! its lock's pins, or a synced target against the keys and checkpoint this machine's
//! witness trusts (pinned on first use, then only ever extended by a consistency proof).

use std::path::Path;

use serde::Serialize;

use crate::ci::{CiError, Lock, LockedSkill, existing_difference, verify_all};
use crate::provenance::{Pins, Policy};
use crate::remote::{FileEntry, Registry};

/// One verified skill.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct VerifiedFolder {
    /// The skill.
    pub name: String,
    /// Its folder, relative to the directory.
    pub folder: String,
    /// The revision it holds.
    pub revision: i32,
    /// Its publication's log index.
    pub log_index: u64,
}

/// Verifies a `ci pull` destination against `lock`.
pub async fn locked(
    registry: &Registry,
    dir: &Path,
    lock: &Lock,
    policy: Policy,
) -> Result<Vec<VerifiedFolder>, CiError> {
    let Some(pins) = &lock.provenance else {
        return Err(CiError::Mismatch(
            "the lock pins no provenance (format 1): write it again with `cairn ci lock` to verify".to_owned(),
        ));
    };
    let folders: Vec<(String, String)> = lock.skills.keys().map(|name| (name.clone(), name.clone())).collect();
    check(
        registry,
        dir,
        pins,
        &lock.skills,
        &folders,
        true,
        lock.organization.as_deref(),
        policy,
    )
    .await
}

/// Verifies a synced target: each synced skill's folder holds exactly the files it was
/// synced with, and that version is attested under `pins`.
pub async fn synced(
    registry: &Registry,
    dir: &Path,
    state: &crate::sync::state::TargetState,
    pins: &Pins,
    policy: Policy,
) -> Result<Vec<VerifiedFolder>, CiError> {
    let mut skills = std::collections::BTreeMap::new();
    let mut folders = Vec::new();
    for (name, synced) in &state.skills {
        let files = synced
            .files
            .iter()
            .map(|(path, file)| FileEntry {
                path: path.clone(),
                sha256: file.sha256.clone(),
                size: -1,
                executable: file.executable,
            })
            .collect();
        skills.insert(
            name.clone(),
            LockedSkill {
                revision: synced.revision,
                digest: synced.digest.clone(),
                files,
                attestation: None,
            },
        );
        folders.push((name.clone(), synced.folder.clone()));
    }
    check(registry, dir, pins, &skills, &folders, false, None, policy).await
}

#[allow(clippy::too_many_arguments)]
async fn check(
    registry: &Registry,
    dir: &Path,
    pins: &Pins,
    skills: &std::collections::BTreeMap<String, LockedSkill>,
    folders: &[(String, String)],
    pinned: bool,
    organization: Option<&str>,
    policy: Policy,
) -> Result<Vec<VerifiedFolder>, CiError> {
    for (name, folder) in folders {
        let path = dir.join(folder);
        if !path.is_dir() {
            return Err(CiError::Mismatch(format!(
                "skill '{name}': {} is missing",
                path.display()
            )));
        }
        if let Some(difference) = existing_difference(&path, &skills[name].files)? {
            return Err(CiError::Mismatch(format!(
                "skill '{name}': {difference}: the folder no longer holds the version it came from"
            )));
        }
    }
    let verified = verify_all(registry, pins, skills, pinned, organization).await?;
    let mut out = Vec::with_capacity(verified.len());
    for (name, verified) in verified {
        if let Some(reason) = policy.violation(&verified.predicate) {
            return Err(CiError::Mismatch(format!(
                "skill '{name}' revision {} fails the policy: {reason}",
                verified.predicate.revision
            )));
        }
        let folder = folders
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| f.clone())
            .unwrap_or_default();
        out.push(VerifiedFolder {
            revision: verified.predicate.revision,
            log_index: verified.attestation_index,
            name,
            folder,
        });
    }
    Ok(out)
}

impl From<crate::witness::WitnessError> for CiError {
    fn from(error: crate::witness::WitnessError) -> Self {
        match error {
            crate::witness::WitnessError::Remote(e) => CiError::Remote(e),
            crate::witness::WitnessError::Fork(reason) => CiError::Mismatch(reason),
            other => CiError::Usage(other.to_string()),
        }
    }
}
