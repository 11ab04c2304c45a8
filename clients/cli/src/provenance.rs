//! Checking where skills come from, without trusting the registry that serves them: the
//! registry's keys and a checkpoint of its transparency log are pinned once (`cairn ci
//! lock`, or a witness's first run); afterwards every attestation must be signed by a
//! pinned key, be included in the pinned tree, and say exactly what the lock says —
//! and, when asked, pass a policy (approved by a reviewer, a scan verdict no worse than
//! a bound).

use cairn_provenance::merkle::{self, Hash};
use cairn_provenance::verify::{KeyStatus, Keyring, Verified, verify_in};
use cairn_provenance::{Checkpoint, PublicKey};
use serde::{Deserialize, Serialize};

use cairn_wire::SigningKeyItem;

use crate::remote::{Registry, RemoteError};

/// What a lock (or a witness) pins about a registry's provenance.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Pins {
    /// The log's origin: the registry's name in every subject and checkpoint.
    pub origin: String,
    /// The registry's keys as they were when pinned.
    pub keys: Vec<PinnedKey>,
    /// The signed checkpoint seen (a C2SP signed note).
    pub checkpoint: String,
}

/// One pinned key.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PinnedKey {
    /// SHA-256 of the raw public key, hex.
    pub key_id: String,
    /// The raw Ed25519 public key, hex.
    pub public_key: String,
    /// `active`, `retired` or `revoked`.
    pub status: String,
    /// For a revoked key: its signatures count only below this log index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_after_index: Option<u64>,
}

/// Why provenance could not be established.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    /// The registry could not be asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The pins are malformed (an edited lock or state file).
    #[error("{0}")]
    Pins(String),
    /// Something does not verify: the reason says what.
    #[error("{0}")]
    Failed(String),
}

impl From<SigningKeyItem> for PinnedKey {
    fn from(key: SigningKeyItem) -> Self {
        PinnedKey {
            revoked_after_index: if key.status == "revoked" {
                key.revoked_after_index
            } else {
                None
            },
            key_id: key.key_id,
            public_key: key.public_key,
            status: key.status,
        }
    }
}

impl Pins {
    /// Takes what the registry says about its keys now: a pinned key's status only moves
    /// forward (see [`crate::witness::tighten`]); a key not pinned yet is added only with
    /// `add_new`. Returns whether anything changed.
    pub fn merge_keys(&mut self, keys: impl IntoIterator<Item = PinnedKey>, add_new: bool) -> bool {
        let before = self.keys.clone();
        for key in keys {
            match self.keys.iter_mut().find(|k| k.key_id == key.key_id) {
                Some(pinned) => crate::witness::tighten(pinned, &key.status, key.revoked_after_index),
                None if add_new => self.keys.push(key),
                None => {}
            }
        }
        self.keys != before
    }

    /// The keys as a verifier trusts them; each key id must be its key's.
    pub fn keyring(&self) -> Result<Keyring, ProvenanceError> {
        let mut keys = Vec::with_capacity(self.keys.len());
        for pinned in &self.keys {
            let key = PublicKey::from_hex(&pinned.public_key)
                .map_err(|e| ProvenanceError::Pins(format!("pinned key {}: {e}", pinned.key_id)))?;
            if key.id().as_str() != pinned.key_id {
                return Err(ProvenanceError::Pins(format!(
                    "pinned key {} is not the SHA-256 of its public key: the pins were edited",
                    pinned.key_id
                )));
            }
            let status = match (pinned.status.as_str(), pinned.revoked_after_index) {
                ("active", None) => KeyStatus::Active,
                ("retired", None) => KeyStatus::Retired,
                ("revoked", Some(revoked_after_index)) => KeyStatus::Revoked { revoked_after_index },
                (status, _) => {
                    return Err(ProvenanceError::Pins(format!(
                        "pinned key {} has status '{status}' (with a revocation index only when revoked)",
                        pinned.key_id
                    )));
                }
            };
            keys.push((key, status));
        }
        Ok(Keyring::new(keys))
    }

    /// The pinned checkpoint, its signature checked against the pinned keys.
    pub fn checkpoint(&self) -> Result<Checkpoint, ProvenanceError> {
        open_checkpoint(&self.checkpoint, &self.origin, &self.keyring()?)
    }
}

/// Opens a signed checkpoint of `origin` with the keys of `keyring` that may sign one.
pub fn open_checkpoint(note: &str, origin: &str, keyring: &Keyring) -> Result<Checkpoint, ProvenanceError> {
    Checkpoint::open(note, origin, &keyring.for_checkpoint())
        .map(|(checkpoint, _)| checkpoint)
        .map_err(|e| ProvenanceError::Failed(e.to_string()))
}

/// The pins of `registry` now: its keys and its current checkpoint, checked against each
/// other.
pub async fn fetch_pins(registry: &Registry) -> Result<Pins, ProvenanceError> {
    Ok(fetch_pins_listed(registry).await?.0)
}

/// Like [`fetch_pins`], with the keys document's entries as the registry listed them
/// (activations included), for following a rotation from keys pinned before.
pub async fn fetch_pins_listed(registry: &Registry) -> Result<(Pins, Vec<SigningKeyItem>), ProvenanceError> {
    let document = registry.signing_keys().await?;
    let listed = document.keys.clone();
    let pins = Pins {
        origin: document.origin,
        keys: document.keys.into_iter().map(PinnedKey::from).collect(),
        checkpoint: registry.checkpoint().await?,
    };
    pins.checkpoint()
        .map_err(|e| ProvenanceError::Failed(format!("the registry's own checkpoint does not verify: {e}")))?;
    Ok((pins, listed))
}

/// `new` (the registry's pins now, with `listed`, its keys document) checked against `old`
/// (pinned before): the same log, its tree an extension of the old one (a consistency
/// proof), and the old keys kept — their status only tightened by what the registry says
/// now. A key the old pins do not hold is added only when its activation follows from
/// them (signed by the key it replaced and proved in the new tree, as the witness follows
/// it), or with `trust_new_keys` (after the registry's operators confirmed a rotation).
pub async fn extend_pins(
    registry: &Registry,
    old: &Pins,
    new: Pins,
    listed: &[SigningKeyItem],
    trust_new_keys: bool,
) -> Result<Pins, ProvenanceError> {
    if new.origin != old.origin {
        return Err(ProvenanceError::Failed(format!(
            "the registry's log is now named '{}', the lock's was '{}': it is another log; do not trust it until \
             you know why",
            new.origin, old.origin
        )));
    }
    let mut keys = old.clone();
    let (_, followed) = crate::rotation::take_keys(&mut keys, listed, trust_new_keys)?;
    let before = old.checkpoint()?;
    let now = open_checkpoint(&new.checkpoint, &old.origin, &keys.keyring()?).map_err(|e| {
        ProvenanceError::Failed(format!(
            "the registry's checkpoint does not verify with the keys the lock pinned ({e}); if its operators \
             rotated the key, confirm it with them and lock once with --trust-new-keys"
        ))
    })?;
    match prove_extends(registry, &before, &now).await {
        Ok(()) => {}
        Err(NotExtended::Remote(e)) => return Err(e.into()),
        Err(NotExtended::Fork(why)) => {
            return Err(ProvenanceError::Failed(format!(
                "FORK: {why}: the registry's log is not an extension of the one the lock pinned at size {} (root \
                 {}); do not trust it until its operators explain it",
                before.size, before.root
            )));
        }
    }
    crate::rotation::prove_activations(registry, &followed, &now).await?;
    Ok(Pins { keys: keys.keys, ..new })
}

/// Why a newer checkpoint was not proved to extend an older one.
pub enum NotExtended {
    /// The proof could not be fetched.
    Remote(RemoteError),
    /// The newer tree is not an extension of the older one (why).
    Fork(String),
}

/// Proves that the tree of `now` extends the tree of `before`: never smaller, the same
/// root at the same size, and otherwise the registry's consistency proof between them.
pub async fn prove_extends(registry: &Registry, before: &Checkpoint, now: &Checkpoint) -> Result<(), NotExtended> {
    if now.size < before.size {
        return Err(NotExtended::Fork(format!(
            "the log shrank from {} to {} entries",
            before.size, now.size
        )));
    }
    if now.size == before.size {
        return if now.root == before.root {
            Ok(())
        } else {
            Err(NotExtended::Fork(format!(
                "the root at size {} changed to {}",
                now.size, now.root
            )))
        };
    }
    if before.size == 0 {
        return Ok(());
    }
    let proof = registry
        .consistency(before.size, now.size)
        .await
        .map_err(NotExtended::Remote)?;
    let hashes: Option<Vec<Hash>> = proof.hashes.iter().map(|h| Hash::from_hex(h)).collect();
    let hashes = hashes.ok_or_else(|| NotExtended::Fork("the consistency proof is malformed".to_owned()))?;
    merkle::verify_consistency(&hashes, before.size, before.root, now.size, now.root).map_err(|_| {
        NotExtended::Fork(format!(
            "the tree of {} entries is not an extension of the tree of {}",
            now.size, before.size
        ))
    })
}

/// What a policy requires of an attested version.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// A reviewer approved it: a patch with an approval, or a direct publish (made by a
    /// reviewer). Operator imports do not count.
    pub require_approval: bool,
    /// The scan verdict may be at most this (`None`: any; a version never scanned fails
    /// any bound).
    pub max_verdict: Option<Verdict>,
}

/// Scan verdicts in order of concern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Verdict {
    /// No finding of concern.
    Safe,
    /// Findings a reviewer should read.
    Caution,
    /// Findings that block publishing (only a release over them publishes it).
    Dangerous,
}

impl Verdict {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "safe" => Some(Self::Safe),
            "caution" => Some(Self::Caution),
            "dangerous" => Some(Self::Dangerous),
            _ => None,
        }
    }
}

impl Policy {
    /// Why the attested version fails the policy (`None`: it passes).
    pub fn violation(&self, predicate: &cairn_provenance::VersionPredicate) -> Option<String> {
        if self.require_approval && predicate.approvals.is_empty() && predicate.source != "publish" {
            return Some(format!(
                "no reviewer approved it (it was {})",
                if predicate.source == "import" {
                    "imported by an operator"
                } else {
                    "published without an approval"
                }
            ));
        }
        if let Some(bound) = self.max_verdict {
            let verdict = predicate.scan.as_ref().and_then(|s| Verdict::parse(&s.verdict));
            match verdict {
                None => return Some("its attestation records no scan verdict".to_owned()),
                Some(verdict) if verdict > bound => {
                    return Some(
                        format!("its scan verdict is {:?}, above the allowed {:?}", verdict, bound).to_lowercase(),
                    );
                }
                Some(_) => {}
            }
        }
        None
    }
}

/// A locked version's attestation: the envelope's SHA-256 and its log index.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LockedAttestation {
    /// SHA-256 of the envelope's compact JSON (the log entry).
    pub envelope_sha256: String,
    /// The entry's index.
    pub log_index: u64,
}

/// What a version must be, as a lock pins it.
pub struct Expected<'a> {
    /// The skill.
    pub name: &'a str,
    /// The revision.
    pub revision: i32,
    /// The version digest.
    pub digest: &'a str,
    /// `(path, sha256, size, executable)` of every file, by path (the size when known).
    pub files: Vec<(&'a str, &'a str, Option<u64>, bool)>,
    /// The pinned envelope digest and index (`None`: pin what the registry serves now).
    pub attestation: Option<&'a LockedAttestation>,
    /// The organisation the version must belong to (when pinned).
    pub organization: Option<&'a str>,
}

/// Checks, offline against the pins, the attestation the registry served for
/// `expected` (proved against the pinned tree): the envelope is the pinned one (when
/// pinned), signed by a key valid at its index, included in the pinned checkpoint's tree,
/// and its statement names exactly this skill, revision, digest and files. Returns what
/// was verified.
pub fn check_attestation(
    served: cairn_wire::AttestationEntry,
    pins: &Pins,
    keyring: &Keyring,
    checkpoint: &Checkpoint,
    expected: &Expected<'_>,
) -> Result<Verified, ProvenanceError> {
    let name = expected.name;
    let revision = expected.revision;
    let fail = |reason: String| ProvenanceError::Failed(format!("skill '{name}' revision {revision}: {reason}"));
    if served.name != name || served.revision != revision {
        return Err(fail(format!(
            "the registry answered with the attestation of {}@{} in its place",
            served.name, served.revision
        )));
    }
    let envelope: cairn_provenance::Envelope =
        serde_json::from_value(served.envelope).map_err(|e| fail(format!("the envelope is malformed: {e}")))?;
    let inclusion_proof = served
        .inclusion_proof
        .iter()
        .map(|h| Hash::from_hex(h))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| fail("the inclusion proof is malformed".to_owned()))?;
    // Proved in the pinned checkpoint (opened once by the caller), not the registry's.
    let verified = verify_in(
        &envelope,
        served.log_index,
        &inclusion_proof,
        checkpoint.clone(),
        &pins.origin,
        keyring,
    )
    .map_err(|e| fail(e.to_string()))?;
    if let Some(locked) = expected.attestation {
        if verified.envelope_sha256 != locked.envelope_sha256 {
            return Err(fail(format!(
                "the registry serves an envelope with SHA-256 {}, the lock pins {}",
                verified.envelope_sha256, locked.envelope_sha256
            )));
        }
        if verified.log_index != locked.log_index {
            return Err(fail(format!(
                "the registry places it at log index {}, the lock at {}",
                verified.log_index, locked.log_index
            )));
        }
    }
    let predicate = &verified.predicate;
    if predicate.skill != name || predicate.revision != revision {
        return Err(fail(format!("the attestation is about {}", predicate.subject_name())));
    }
    if predicate.event != cairn_provenance::statement::VersionEvent::Published {
        return Err(fail(format!(
            "the registry serves a '{}' statement as the version's attestation, not its publication",
            predicate.event.as_str()
        )));
    }
    if let Some(organization) = expected.organization
        && predicate.organization != organization
    {
        return Err(fail(format!(
            "the attestation is organisation '{}''s version, the lock pins '{organization}'",
            predicate.organization
        )));
    }
    if predicate.digest != expected.digest {
        return Err(fail(format!(
            "the attestation states digest {}, the lock {}",
            predicate.digest, expected.digest
        )));
    }
    let same = predicate.files.len() == expected.files.len()
        && predicate
            .files
            .iter()
            .zip(&expected.files)
            .all(|(f, (path, sha, size, executable))| {
                f.path == *path && f.sha256 == *sha && size.is_none_or(|s| s == f.size) && f.executable == *executable
            });
    if !same {
        return Err(fail("the attestation lists other files than the lock".to_owned()));
    }
    Ok(verified)
}
