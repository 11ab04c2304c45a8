//! Following the registry's key rotations from the keys already pinned, instead of taking
//! the registry's word for a new key: each activation is a log entry signed by the new key
//! and by the key it replaced, and it must be in the tree the witness proves consistent.

use cairn_provenance::merkle::{self, Hash};
use cairn_provenance::verify::{Keyring, verify_activation};
use cairn_provenance::{Checkpoint, Envelope, PublicKey};
use cairn_wire::{KeyActivation, SigningKeyItem};

use crate::provenance::{PinnedKey, Pins, ProvenanceError};
use crate::remote::Registry;

/// A key followed from the pins: trusted once its activation entry is proved in a
/// checkpoint the witness verifies ([`prove_activations`]).
#[derive(Clone, Debug)]
pub struct Followed {
    /// The key, pinned as the registry lists it now.
    pub key: PinnedKey,
    /// Its activation entry's index.
    pub index: u64,
    /// That entry's bytes (the leaf).
    pub entry: Vec<u8>,
}

fn refused(key: &SigningKeyItem, why: impl std::fmt::Display) -> ProvenanceError {
    ProvenanceError::Failed(format!(
        "the registry lists key {} as activated, but its activation does not follow from the keys pinned \
         here ({why}): do not trust it; ask the registry's operators, and only if they confirm the rotation run \
         once with --trust-new-keys",
        key.key_id
    ))
}

/// The keys `listed` (the public keys document, activations included) that `pins` do not
/// hold and that follow from them, oldest activation first, so a key can vouch for the
/// next (a witness that missed two rotations follows both). Only the key that was active
/// vouches — `active`, the keys active in the pins before the registry's document was
/// merged, then each key followed — never a retired one (a stolen retired key must not
/// mint keys), and revocations the document brought (already merged into `pins`) apply.
/// A listed key without its activation (an older registry) is left out; one whose
/// activation does not verify is an error. Needs nothing from the registry but what it
/// listed.
pub fn follow(pins: &Pins, active: &[String], listed: &[SigningKeyItem]) -> Result<Vec<Followed>, ProvenanceError> {
    let mut new: Vec<(&SigningKeyItem, &KeyActivation)> = listed
        .iter()
        .filter(|k| !pins.keys.iter().any(|p| p.key_id == k.key_id))
        .filter_map(|k| Some((k, k.activation.as_ref()?)))
        .collect();
    new.sort_by_key(|(_, activation)| activation.index);
    let mut working = pins.clone();
    let mut vouchers: Vec<String> = active.to_vec();
    let mut followed = Vec::new();
    for (listed_key, activation) in new {
        let index = activation.index;
        let key = PublicKey::from_hex(&listed_key.public_key).map_err(|e| refused(listed_key, e))?;
        if key.id().as_str() != listed_key.key_id {
            return Err(refused(listed_key, "its id is not the SHA-256 of its public key"));
        }
        let envelope: Envelope =
            serde_json::from_value(activation.envelope.clone()).map_err(|e| refused(listed_key, e))?;
        let keyring = Keyring::new(
            working
                .keyring()?
                .keys()
                .iter()
                .filter(|(k, _)| vouchers.iter().any(|v| v == k.id().as_str()))
                .cloned()
                .collect(),
        );
        verify_activation(&envelope, index, &working.origin, &keyring, &key).map_err(|e| refused(listed_key, e))?;
        vouchers = vec![listed_key.key_id.clone()];
        let pinned = PinnedKey::from(listed_key.clone());
        working.keys.push(pinned.clone());
        followed.push(Followed {
            key: pinned,
            index,
            entry: envelope.to_json(),
        });
    }
    Ok(followed)
}

/// Takes the registry's keys document `listed` into `pins`: a pinned key's status only
/// tightens; a new key is added when its activation follows from the keys active in
/// `pins` before ([`follow`]), or — with `trust_new_keys`, once the operators confirmed
/// a rotation — as listed. Returns whether the pins changed and the keys followed, whose
/// activations the caller proves in a checkpoint it verified ([`prove_activations`]).
pub fn take_keys(
    pins: &mut Pins,
    listed: &[SigningKeyItem],
    trust_new_keys: bool,
) -> Result<(bool, Vec<Followed>), ProvenanceError> {
    let active_before: Vec<String> = pins
        .keys
        .iter()
        .filter(|k| k.status == "active")
        .map(|k| k.key_id.clone())
        .collect();
    let merged = pins.merge_keys(listed.iter().cloned().map(PinnedKey::from), trust_new_keys);
    let followed = if trust_new_keys {
        Vec::new()
    } else {
        follow(pins, &active_before, listed)?
    };
    pins.keys.extend(followed.iter().map(|f| f.key.clone()));
    Ok((merged || !followed.is_empty(), followed))
}

/// Proves every followed activation is an entry of the tree of `checkpoint` (one the
/// witness verified and proves consistent with what it saw before).
pub async fn prove_activations(
    registry: &Registry,
    followed: &[Followed],
    checkpoint: &Checkpoint,
) -> Result<(), ProvenanceError> {
    for key in followed {
        let proof = registry.inclusion(key.index, checkpoint.size).await?;
        let hashes: Option<Vec<Hash>> = proof.hashes.iter().map(|h| Hash::from_hex(h)).collect();
        let proved = hashes.is_some_and(|hashes| {
            merkle::verify_inclusion(
                &hashes,
                key.index,
                checkpoint.size,
                checkpoint.root,
                merkle::leaf_hash(&key.entry),
            )
            .is_ok()
        });
        if !proved {
            return Err(ProvenanceError::Failed(format!(
                "the activation of key {} (log entry {}) is not in the log's tree of {} entries: the registry \
                 shows a key history the log does not hold",
                key.key.key_id, key.index, checkpoint.size
            )));
        }
    }
    Ok(())
}
