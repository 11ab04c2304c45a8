//! Provenance as callers read it: the log's signed checkpoint, its entries and proofs, a
//! version's attestation with everything needed to check it offline, and the registry's
//! public keys. Every transport answers these through here.

use cairn_provenance::checkpoint::note_verifier_key;
use cairn_provenance::merkle::{self, Hash, ProofError};
use cairn_provenance::{Checkpoint, Envelope, PublicKey};
use cairn_store::log::{LogEntryRecord, LogHead};
use cairn_store::{RevisionSelector, StoreError};
use cairn_wire::{
    AttestationBatch, AttestationBatchRequest, AttestationEntry, ConsistencyProof, InclusionProof, KeyActivation,
    LogEntry, SigningKeyItem, SigningKeys, VersionAttestation,
};

use crate::Services;

/// Why a provenance read failed.
#[derive(Debug, thiserror::Error)]
pub enum ProvenanceError {
    /// The entry, version or attestation does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The sizes or indexes asked for do not describe a proof of this log.
    #[error("{0}")]
    OutOfRange(String),
    /// The request is malformed (what to send instead is said).
    #[error("{0}")]
    Invalid(String),
    /// This process holds no signing key, or not the log's active one: it signs nothing.
    #[error("this registry process does not hold the log's active signing key")]
    NotSigning,
    /// Stored data that should be well-formed is not.
    #[error("stored log data is corrupt: {0}")]
    Corrupt(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Resolving the version failed.
    #[error(transparent)]
    Catalog(#[from] crate::app::catalog::CatalogError),
}

fn proof_error(error: ProofError) -> ProvenanceError {
    match error {
        ProofError::OutOfRange(message) => ProvenanceError::OutOfRange(message),
        other => ProvenanceError::Corrupt(other.to_string()),
    }
}

fn hexes(hashes: &[Hash]) -> Vec<String> {
    hashes.iter().map(Hash::to_hex).collect()
}

/// The checkpoint of `head`, signed by this process's key — only while it is the log's
/// active key (a replica left with a retired key signs nothing new).
fn sign_checkpoint(services: &Services, head: &LogHead) -> Result<String, ProvenanceError> {
    let signer = services.store.log_signer().ok_or(ProvenanceError::NotSigning)?;
    if head.active_key.as_deref() != Some(signer.key().id().as_str()) {
        return Err(ProvenanceError::NotSigning);
    }
    Checkpoint {
        origin: head.origin.clone(),
        size: head.size,
        root: head.root,
    }
    .sign(&[signer.key()])
    .map_err(|e| ProvenanceError::Corrupt(e.to_string()))
}

/// The log's current signed checkpoint (a C2SP signed note).
pub async fn checkpoint(services: &Services) -> Result<String, ProvenanceError> {
    let head = services.store.log_head().await?;
    sign_checkpoint(services, &head)
}

/// The entry at `index`: key events for anyone, version events only for their own
/// organisation.
pub async fn entry(services: &Services, org_id: i64, index: u64) -> Result<LogEntry, ProvenanceError> {
    let not_found =
        || ProvenanceError::NotFound(format!("log entry {index} does not exist in your organisation's view"));
    let record = services.store.log_entry(index).await?.ok_or_else(not_found)?;
    if record.org_id.is_some_and(|org| org != org_id) {
        return Err(not_found());
    }
    let envelope: serde_json::Value =
        serde_json::from_slice(&record.entry).map_err(|e| ProvenanceError::Corrupt(e.to_string()))?;
    Ok(LogEntry {
        index: record.index,
        event: record.event,
        key_id: record.key_id,
        created_at: record.created_at,
        leaf_hash: merkle::leaf_hash(&record.entry).to_hex(),
        envelope,
    })
}

/// The size a proof is asked for, checked against the log's `head` (`None`: the current
/// size).
fn proof_size(head: &LogHead, size: Option<u64>) -> Result<u64, ProvenanceError> {
    match size {
        None => Ok(head.size),
        Some(size) if size <= head.size => Ok(size),
        Some(size) => Err(ProvenanceError::OutOfRange(format!(
            "the log holds {} entries, not {size}: ask for a size up to the checkpoint's",
            head.size
        ))),
    }
}

async fn inclusion_hashes(services: &Services, index: u64, size: u64) -> Result<Vec<Hash>, ProvenanceError> {
    let needs = merkle::inclusion_needs(index, size).map_err(proof_error)?;
    let known = services.store.log_hashes(&needs).await?;
    merkle::inclusion_proof(index, size, &known).map_err(proof_error)
}

/// The proof that entry `index` is in the tree of `size` entries (default: the current
/// size).
pub async fn inclusion(services: &Services, index: u64, size: Option<u64>) -> Result<InclusionProof, ProvenanceError> {
    let size = proof_size(&services.store.log_head().await?, size)?;
    let hashes = inclusion_hashes(services, index, size).await?;
    Ok(InclusionProof {
        index,
        size,
        hashes: hexes(&hashes),
    })
}

/// The proof that the tree of `from` entries is a prefix of the tree of `to` entries
/// (default: the current size).
pub async fn consistency(services: &Services, from: u64, to: Option<u64>) -> Result<ConsistencyProof, ProvenanceError> {
    let to = proof_size(&services.store.log_head().await?, to)?;
    let needs = merkle::consistency_needs(from, to).map_err(proof_error)?;
    let known = services.store.log_hashes(&needs).await?;
    let hashes = merkle::consistency_proof(from, to, &known).map_err(proof_error)?;
    Ok(ConsistencyProof {
        from,
        to,
        hashes: hexes(&hashes),
    })
}

/// The tree proofs are asked against: the current head, or the tree of its first `size`
/// entries (a lock pins a checkpoint; proofs against it need no newer one).
async fn tree_at(services: &Services, size: Option<u64>) -> Result<LogHead, ProvenanceError> {
    let mut head = services.store.log_head().await?;
    if let Some(size) = size {
        let size = proof_size(&head, Some(size))?;
        let known = services.store.log_hashes(&merkle::root_needs(size)).await?;
        head.root = merkle::root(size, &known).map_err(proof_error)?;
        head.size = size;
    }
    Ok(head)
}

/// Refuses an entry the tree of `size` entries does not hold yet.
fn within(size: u64, index: u64, what: impl std::fmt::Display) -> Result<(), ProvenanceError> {
    if index >= size {
        return Err(ProvenanceError::OutOfRange(format!(
            "{what} is log entry {index}, after the tree of {size} entries: ask for a larger size (or none for the \
             current tree)"
        )));
    }
    Ok(())
}

/// The attestation entry of `name`@`revision` stored as `record`, with its inclusion proof.
fn entry_of(
    name: String,
    revision: i32,
    record: &LogEntryRecord,
    proof: &[Hash],
) -> Result<AttestationEntry, ProvenanceError> {
    use sha2::Digest as _;
    let envelope = Envelope::from_json(&record.entry).map_err(|e| ProvenanceError::Corrupt(e.to_string()))?;
    Ok(AttestationEntry {
        name,
        revision,
        envelope: serde_json::to_value(&envelope).map_err(|e| ProvenanceError::Corrupt(e.to_string()))?,
        envelope_sha256: hex::encode(sha2::Sha256::digest(&record.entry)),
        log_index: record.index,
        inclusion_proof: hexes(proof),
    })
}

/// A version's attestation: its publication envelope, log index, an inclusion proof and
/// the signed checkpoint that proof leads to — of the current tree, or of the tree of
/// `size` entries.
pub async fn attestation(
    services: &Services,
    org_id: i64,
    name: &cairn_skill::SkillName,
    selector: RevisionSelector,
    size: Option<u64>,
) -> Result<VersionAttestation, ProvenanceError> {
    let resolved = crate::app::catalog::resolve(&services.store, org_id, name.as_str(), selector).await?;
    let revision = resolved.version.revision;
    let record = services
        .store
        .version_log_entry(org_id, name.as_str(), revision)
        .await?
        .ok_or_else(|| {
            ProvenanceError::NotFound(format!(
                "revision {revision} of skill '{name}' has no attestation yet: it was published before this \
                 registry signed versions; ask the registry's operator to restart it (it attests older versions on \
                 start)"
            ))
        })?;
    let head = tree_at(services, size).await?;
    within(
        head.size,
        record.index,
        format_args!("revision {revision} of skill '{name}'"),
    )?;
    let hashes = inclusion_hashes(services, record.index, head.size).await?;
    Ok(VersionAttestation {
        entry: entry_of(name.as_str().to_owned(), revision, &record, &hashes)?,
        checkpoint: sign_checkpoint(services, &head)?,
    })
}

/// Most versions one attestation batch may ask for.
pub const MAX_ATTESTATION_BATCH: usize = 1000;

/// Many versions' attestations at once, every inclusion proof against one signed
/// checkpoint (the current tree, or the tree of `request.size` entries): three reads of
/// the store whatever the number of versions. A version asked twice is answered once;
/// one unknown version fails the whole batch, naming every unknown one.
pub async fn attestations(
    services: &Services,
    org_id: i64,
    request: &AttestationBatchRequest,
) -> Result<AttestationBatch, ProvenanceError> {
    let count = request.versions.len();
    if count == 0 || count > MAX_ATTESTATION_BATCH {
        return Err(ProvenanceError::Invalid(format!(
            "a batch asks for 1 to {MAX_ATTESTATION_BATCH} versions, not {count}: split the request"
        )));
    }
    let mut seen = std::collections::HashSet::new();
    let mut wanted = Vec::with_capacity(count);
    for version in &request.versions {
        let name = cairn_skill::SkillName::parse(&version.name)
            .map_err(|e| ProvenanceError::Invalid(format!("'{}' is not a skill name: {e}", version.name)))?;
        if version.revision < 1 {
            return Err(ProvenanceError::Invalid(format!(
                "skill '{name}': revision {} does not exist; revisions count from 1",
                version.revision
            )));
        }
        if seen.insert((name.as_str().to_owned(), version.revision)) {
            wanted.push((name.as_str().to_owned(), version.revision));
        }
    }
    let mut records = services.store.version_log_entries(org_id, &wanted).await?;
    let mut found = Vec::with_capacity(wanted.len());
    let mut missing = Vec::new();
    for (name, revision) in wanted {
        match records.remove(&(name.clone(), revision)) {
            Some(record) => found.push((name, revision, record)),
            None => missing.push(format!("{name}@{revision}")),
        }
    }
    if !missing.is_empty() {
        return Err(ProvenanceError::NotFound(format!(
            "no attestation for {}: these versions are not in your organisation, or were published before this \
             registry signed versions (it attests them when it starts); check the names and revisions asked for",
            missing.join(", ")
        )));
    }
    let head = tree_at(services, request.size).await?;
    let mut needs = std::collections::BTreeSet::new();
    for (name, revision, record) in &found {
        within(
            head.size,
            record.index,
            format_args!("revision {revision} of skill '{name}'"),
        )?;
        needs.extend(merkle::inclusion_needs(record.index, head.size).map_err(proof_error)?);
    }
    let known = services
        .store
        .log_hashes(&needs.into_iter().collect::<Vec<_>>())
        .await?;
    let mut attestations = Vec::with_capacity(found.len());
    for (name, revision, record) in found {
        let hashes = merkle::inclusion_proof(record.index, head.size, &known).map_err(proof_error)?;
        attestations.push(entry_of(name, revision, &record, &hashes)?);
    }
    Ok(AttestationBatch {
        checkpoint: sign_checkpoint(services, &head)?,
        attestations,
    })
}

/// A key's activation entry, stored at `index`.
async fn activation(services: &Services, index: Option<i64>) -> Result<Option<KeyActivation>, ProvenanceError> {
    let Some(index) = index.and_then(|i| u64::try_from(i).ok()) else {
        return Ok(None);
    };
    let record = services
        .store
        .log_entry(index)
        .await?
        .ok_or_else(|| ProvenanceError::Corrupt(format!("the activation entry {index} is missing from the log")))?;
    let envelope = serde_json::from_slice(&record.entry).map_err(|e| ProvenanceError::Corrupt(e.to_string()))?;
    Ok(Some(KeyActivation { index, envelope }))
}

/// The registry's public keys with their status.
pub async fn keys(services: &Services) -> Result<SigningKeys, ProvenanceError> {
    let head = services.store.log_head().await?;
    let mut keys = Vec::new();
    for record in services.store.signing_keys().await? {
        let public = PublicKey::from_bytes(&record.public_key).map_err(|e| ProvenanceError::Corrupt(e.to_string()))?;
        keys.push(SigningKeyItem {
            key_id: record.key_id,
            public_key: public.to_hex(),
            public_key_pem: public.to_pem(),
            note_verifier_key: note_verifier_key(&head.origin, &public),
            status: record.status,
            created_at: record.created_at,
            retired_at: record.retired_at,
            revoked_at: record.revoked_at,
            revoked_after_index: record.revoked_after_index.and_then(|i| u64::try_from(i).ok()),
            activation: activation(services, record.activated_index).await?,
        });
    }
    Ok(SigningKeys {
        origin: head.origin,
        keys,
    })
}
