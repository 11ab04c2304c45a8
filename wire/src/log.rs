//! The transparency log's wire shapes: entries, proofs, a version's attestation and the
//! registry's public keys (docs/PROVENANCE.md). Hashes are lowercase hex.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One log entry (`GET /v1/log/entries/{index}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LogEntry {
    /// Its index (0-based).
    pub index: u64,
    /// `published`, `yanked`, `unyanked` (a version) or `activated`, `retired`, `revoked`
    /// (a signing key).
    pub event: String,
    /// The key that signed the envelope.
    pub key_id: String,
    /// When it was appended.
    pub created_at: DateTime<Utc>,
    /// The leaf hash: SHA-256 of `0x00` and the envelope's compact JSON.
    pub leaf_hash: String,
    /// The DSSE envelope; its compact JSON (keys in this order, no spaces) is the entry.
    pub envelope: serde_json::Value,
}

/// An inclusion proof (`GET /v1/log/proof/inclusion`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InclusionProof {
    /// The entry's index.
    pub index: u64,
    /// The size of the tree the proof leads to.
    pub size: u64,
    /// The sibling hashes from the leaf up.
    pub hashes: Vec<String>,
}

/// A consistency proof (`GET /v1/log/proof/consistency`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConsistencyProof {
    /// The older tree's size.
    pub from: u64,
    /// The newer tree's size.
    pub to: u64,
    /// The proof's hashes (RFC 6962 §2.1.2).
    pub hashes: Vec<String>,
}

/// A version's attestation with everything needed to check it offline
/// (`GET /v1/skills/{name}/versions/{rev}/attestation`): the entry and its proof, and the
/// signed checkpoint the proof leads to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VersionAttestation {
    /// The envelope, its log index and inclusion proof.
    #[serde(flatten)]
    pub entry: AttestationEntry,
    /// The signed checkpoint (C2SP signed note) the proof leads to.
    pub checkpoint: String,
}

/// Body of `POST /v1/attestations/batch`: the attestations of many versions in one request,
/// so verifying a lock of thousands of skills is a handful of round trips, not thousands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttestationBatchRequest {
    /// The versions, at most 1,000 (a version asked twice is answered once).
    pub versions: Vec<VersionRef>,
    /// Prove against the tree of this many entries (a pinned checkpoint's size);
    /// default: the current tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

/// One version named by its skill and revision.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VersionRef {
    /// The skill.
    pub name: String,
    /// The revision (from 1).
    pub revision: i32,
}

/// The answer of `POST /v1/attestations/batch`: one signed checkpoint, and every asked
/// version's attestation (in request order) with its inclusion proof in that checkpoint's tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttestationBatch {
    /// The signed checkpoint (C2SP signed note) every proof leads to.
    pub checkpoint: String,
    /// One per asked version, in request order.
    pub attestations: Vec<AttestationEntry>,
}

/// A version's publication envelope, its log index and its inclusion proof — an
/// attestation without the checkpoint its proof leads to (a batch carries that once).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttestationEntry {
    /// The skill.
    pub name: String,
    /// The revision.
    pub revision: i32,
    /// The DSSE envelope around the in-toto statement.
    pub envelope: serde_json::Value,
    /// SHA-256 of the envelope's compact JSON (what a lock records).
    pub envelope_sha256: String,
    /// The envelope's index in the log.
    pub log_index: u64,
    /// Its inclusion proof in the checkpoint's tree.
    pub inclusion_proof: Vec<String>,
}

/// The registry's signing keys (`GET /.well-known/cairn/keys`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SigningKeys {
    /// The log's origin: the registry name in every subject and checkpoint.
    pub origin: String,
    /// Every key the log has known, oldest first.
    pub keys: Vec<SigningKeyItem>,
}

/// One signing key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SigningKeyItem {
    /// SHA-256 of the raw public key, hex (the DSSE `keyid`).
    pub key_id: String,
    /// The raw Ed25519 public key, hex.
    pub public_key: String,
    /// The same key as a PEM SubjectPublicKeyInfo.
    pub public_key_pem: String,
    /// The key as C2SP signed-note tools take it (`<origin>+<hash>+<base64>`).
    pub note_verifier_key: String,
    /// `active`, `retired` or `revoked`.
    pub status: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it stopped signing.
    pub retired_at: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// For a revoked key: its signatures count only on entries below this index.
    pub revoked_after_index: Option<u64>,
    /// Its activation: the log entry signed by it and by the key it replaced, which a
    /// verifier that trusts the old key checks (and proves in the log) to trust this one.
    #[serde(default)]
    pub activation: Option<KeyActivation>,
}

/// Where and how a signing key was activated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct KeyActivation {
    /// The entry's index in the log.
    pub index: u64,
    /// The entry: a DSSE envelope around the key's activation statement.
    pub envelope: serde_json::Value,
}
