//! Offline verification of an attestation: the checkpoint by a trusted key, the envelope
//! by a key valid at its log index, the envelope's inclusion in the checkpoint's tree and
//! the statement about the expected version.

use serde::{Deserialize, Serialize};

use crate::checkpoint::{Checkpoint, CheckpointError};
use crate::dsse::{Envelope, EnvelopeError, IN_TOTO_PAYLOAD_TYPE};
use crate::keys::{KeyId, PublicKey};
use crate::merkle::{self, Hash, ProofError};
use crate::statement::{KeyEvent, KeyPredicate, Statement, StatementError, VersionPredicate};

/// Where a key stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum KeyStatus {
    /// The key signs new entries.
    Active,
    /// The key signs nothing new; what it signed stays valid.
    Retired,
    /// The key is compromised: only entries below `revoked_after_index` it signed count.
    Revoked {
        /// The first log index whose signature by this key is not trusted.
        revoked_after_index: u64,
    },
}

/// A registry's keys as a verifier trusts them (pinned in a lock, or read from
/// `/.well-known/cairn/keys` and then pinned).
#[derive(Clone, Debug, Default)]
pub struct Keyring {
    keys: Vec<(PublicKey, KeyStatus)>,
}

impl Keyring {
    /// A keyring of `keys`.
    pub fn new(keys: Vec<(PublicKey, KeyStatus)>) -> Self {
        Self { keys }
    }

    /// The keys and their status.
    pub fn keys(&self) -> &[(PublicKey, KeyStatus)] {
        &self.keys
    }

    /// The key `id` if its signature counts on the log entry at `index`.
    pub fn for_entry(&self, id: &str, index: u64) -> Option<&PublicKey> {
        self.keys
            .iter()
            .find(|(key, status)| {
                key.id().as_str() == id
                    && match status {
                        KeyStatus::Active | KeyStatus::Retired => true,
                        KeyStatus::Revoked { revoked_after_index } => index < *revoked_after_index,
                    }
            })
            .map(|(key, _)| key)
    }

    /// The keys whose signature counts on a checkpoint: never a revoked key's (whoever
    /// holds a leaked key could sign a checkpoint of any size with any root), so an entry
    /// a revoked key signed counts only when a key that is not revoked signed the
    /// checkpoint it is proved in.
    pub fn for_checkpoint(&self) -> Vec<&PublicKey> {
        self.keys
            .iter()
            .filter(|(_, status)| !matches!(status, KeyStatus::Revoked { .. }))
            .map(|(key, _)| key)
            .collect()
    }
}

/// An attestation as the registry serves it (`GET …/versions/{rev}/attestation`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attestation {
    /// The DSSE envelope (its compact JSON is the log entry).
    pub envelope: Envelope,
    /// The envelope's index in the log.
    pub log_index: u64,
    /// The inclusion proof of the entry in the checkpoint's tree.
    pub inclusion_proof: Vec<Hash>,
    /// The signed checkpoint the proof leads to (a C2SP signed note).
    pub checkpoint: String,
}

/// Why an attestation was refused.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The checkpoint.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The envelope.
    #[error(transparent)]
    Envelope(#[from] EnvelopeError),
    /// The statement inside it.
    #[error(transparent)]
    Statement(#[from] StatementError),
    /// The inclusion proof.
    #[error("log entry {index}: {source}")]
    Proof {
        /// The entry's index.
        index: u64,
        /// What failed.
        source: ProofError,
    },
    /// The statement is about another version than the one expected.
    #[error("the attestation is about {found}, expected {expected}")]
    Subject {
        /// What the statement names.
        found: String,
        /// What was expected.
        expected: String,
    },
}

/// What a verified attestation proves.
#[derive(Clone, Debug)]
pub struct Verified {
    /// The statement's predicate.
    pub predicate: VersionPredicate,
    /// The checkpoint the entry was proved against.
    pub checkpoint: Checkpoint,
    /// The keys whose envelope signatures verified.
    pub signed_by: Vec<KeyId>,
    /// The SHA-256 of the envelope's JSON (the log entry), lowercase hex.
    pub envelope_sha256: String,
    /// The entry's index in the log.
    pub log_index: u64,
}

/// The log entry of an envelope: its compact JSON, as the registry appends it.
pub fn entry_bytes(envelope: &Envelope) -> Vec<u8> {
    envelope.to_json()
}

/// Verifies `attestation` offline against `keyring` and the log `origin`: the checkpoint
/// signature, the envelope signature by a key valid at the entry's index, the entry's
/// inclusion in the checkpoint's tree, and the statement's shape. The caller compares the
/// predicate (name, revision, digest, policy) with what it expects.
pub fn verify_attestation(attestation: &Attestation, origin: &str, keyring: &Keyring) -> Result<Verified, VerifyError> {
    let (checkpoint, _) = Checkpoint::open(&attestation.checkpoint, origin, &keyring.for_checkpoint())?;
    verify_in(
        &attestation.envelope,
        attestation.log_index,
        &attestation.inclusion_proof,
        checkpoint,
        origin,
        keyring,
    )
}

/// [`verify_attestation`] against a checkpoint already opened (its signature checked):
/// many attestations proved in one pinned checkpoint open it once.
pub fn verify_in(
    envelope: &Envelope,
    index: u64,
    inclusion_proof: &[Hash],
    checkpoint: Checkpoint,
    origin: &str,
    keyring: &Keyring,
) -> Result<Verified, VerifyError> {
    let (payload, signed_by) = envelope.verify(IN_TOTO_PAYLOAD_TYPE, |id| keyring.for_entry(id, index))?;
    let entry = entry_bytes(envelope);
    merkle::verify_inclusion(
        inclusion_proof,
        index,
        checkpoint.size,
        checkpoint.root,
        merkle::leaf_hash(&entry),
    )
    .map_err(|source| VerifyError::Proof { index, source })?;
    let predicate = Statement::from_json(&payload)?.version_predicate()?;
    if predicate.registry != origin {
        return Err(VerifyError::Subject {
            found: predicate.subject_name(),
            expected: format!("a version of registry '{origin}'"),
        });
    }
    use sha2::Digest as _;
    Ok(Verified {
        predicate,
        checkpoint,
        signed_by,
        envelope_sha256: hex::encode(sha2::Sha256::digest(&entry)),
        log_index: index,
    })
}

/// Checks that `envelope`, the log entry at `index`, activates `key` in the log `origin`
/// with the consent of a key already trusted: its statement is an activation naming
/// exactly `key`, signed by `key` itself (whoever activated it held it) and by a key
/// `keyring` trusts at that index (the registry's previous key vouched for it). A
/// verifier that pinned the old key follows a rotation this way instead of taking the
/// registry's word; it still proves the entry is in a checkpoint it verifies.
pub fn verify_activation(
    envelope: &Envelope,
    index: u64,
    origin: &str,
    keyring: &Keyring,
    key: &PublicKey,
) -> Result<KeyPredicate, VerifyError> {
    let (payload, _) = envelope.verify(IN_TOTO_PAYLOAD_TYPE, |id| keyring.for_entry(id, index))?;
    envelope.verify(IN_TOTO_PAYLOAD_TYPE, |id| (id == key.id().as_str()).then_some(key))?;
    let predicate = Statement::from_json(&payload)?.key_predicate()?;
    let named = (&predicate.registry, &predicate.key_id, &predicate.public_key);
    if predicate.event != KeyEvent::Activated || named != (&origin.to_owned(), &key.id().to_string(), &key.to_hex()) {
        return Err(VerifyError::Subject {
            found: format!(
                "a {:?} event of key {} in '{}'",
                predicate.event, predicate.key_id, predicate.registry
            ),
            expected: format!("the activation of key {} in '{origin}'", key.id()),
        });
    }
    Ok(predicate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merkle::MemoryLog;
    use crate::statement::{Statement, VersionEvent, VersionPredicate};
    use crate::{Envelope, SigningKey};

    fn predicate() -> VersionPredicate {
        VersionPredicate {
            event: VersionEvent::Published,
            registry: "r.example".into(),
            organization: "default".into(),
            skill: "demo".into(),
            revision: 1,
            digest: format!("sha256:{}", "ab".repeat(32)),
            category: None,
            files: Vec::new(),
            source: "import".into(),
            patch: None,
            publisher: None,
            approvals: Vec::new(),
            scan: None,
            published_at: "2026-12-04T00:00:00.000Z".into(),
            recorded_at: "2026-12-04T00:00:00.000Z".into(),
        }
    }

    /// A log of one envelope signed by `envelope_key`, its checkpoint signed by
    /// `checkpoint_key`.
    fn attestation(envelope_key: &SigningKey, checkpoint_key: &SigningKey) -> Attestation {
        let statement = Statement::for_version(&predicate());
        let envelope = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &statement.to_json(), &[envelope_key]);
        let mut log = MemoryLog::default();
        log.push(&envelope.to_json());
        let checkpoint = Checkpoint {
            origin: "r.example".into(),
            size: 1,
            root: log.root(1).unwrap(),
        }
        .sign(&[checkpoint_key])
        .unwrap();
        Attestation {
            envelope,
            log_index: 0,
            inclusion_proof: Vec::new(),
            checkpoint,
        }
    }

    #[test]
    fn a_leaked_revoked_key_cannot_forge_a_log_of_its_own() {
        let leaked = SigningKey::from_seed([1; 32]);
        let current = SigningKey::from_seed([2; 32]);
        let keyring = Keyring::new(vec![
            (
                leaked.public().clone(),
                KeyStatus::Revoked {
                    revoked_after_index: 100,
                },
            ),
            (current.public().clone(), KeyStatus::Active),
        ]);
        // Everything signed by the leaked key, the checkpoint too: refused.
        let forged = attestation(&leaked, &leaked);
        assert!(matches!(
            verify_attestation(&forged, "r.example", &keyring),
            Err(VerifyError::Checkpoint(_))
        ));
        // An entry it signed below its revocation, proved under a checkpoint of a key
        // that is not revoked: valid.
        let genuine = attestation(&leaked, &current);
        verify_attestation(&genuine, "r.example", &keyring).unwrap();
        // The same entry at or above the revocation index: refused.
        let late = Keyring::new(vec![
            (leaked.public().clone(), KeyStatus::Revoked { revoked_after_index: 0 }),
            (current.public().clone(), KeyStatus::Active),
        ]);
        assert!(matches!(
            verify_attestation(&genuine, "r.example", &late),
            Err(VerifyError::Envelope(_))
        ));
    }

    fn activation(key: &SigningKey, event: KeyEvent, signers: &[&SigningKey]) -> Envelope {
        let statement = Statement::for_key(&KeyPredicate {
            event,
            registry: "r.example".into(),
            key_id: key.id().to_string(),
            public_key: key.public().to_hex(),
            revoked_after_index: None,
            by: "ops".into(),
            at: "2026-12-05T00:00:00.000Z".into(),
        });
        Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &statement.to_json(), signers)
    }

    #[test]
    fn a_rotation_is_followed_only_when_the_old_key_vouched_and_the_new_one_signed() {
        let old = SigningKey::from_seed([1; 32]);
        let new = SigningKey::from_seed([2; 32]);
        let other = SigningKey::from_seed([3; 32]);
        let pinned = Keyring::new(vec![(old.public().clone(), KeyStatus::Active)]);
        let follow =
            |envelope: &Envelope, keyring: &Keyring| verify_activation(envelope, 5, "r.example", keyring, new.public());
        let both = activation(&new, KeyEvent::Activated, &[&old, &new]);
        assert_eq!(follow(&both, &pinned).unwrap().key_id, new.id().to_string());
        // The registry alone (the new key, unvouched), or the old key alone (no proof the
        // activator held the new one): refused.
        for signers in [vec![&new], vec![&old], vec![&other, &new]] {
            let envelope = activation(&new, KeyEvent::Activated, &signers);
            assert!(matches!(follow(&envelope, &pinned), Err(VerifyError::Envelope(_))));
        }
        // Another event, another key or another log: refused.
        let retired = activation(&new, KeyEvent::Retired, &[&old, &new]);
        assert!(matches!(follow(&retired, &pinned), Err(VerifyError::Subject { .. })));
        let elsewhere = activation(&other, KeyEvent::Activated, &[&old, &new]);
        assert!(matches!(follow(&elsewhere, &pinned), Err(VerifyError::Subject { .. })));
        assert!(verify_activation(&both, 5, "elsewhere.example", &pinned, new.public()).is_err());
        // Vouched for by a key revoked before the activation's index: refused.
        let revoked = Keyring::new(vec![(
            old.public().clone(),
            KeyStatus::Revoked { revoked_after_index: 5 },
        )]);
        assert!(matches!(follow(&both, &revoked), Err(VerifyError::Envelope(_))));
    }
}
