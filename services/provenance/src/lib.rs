//! Provenance of published versions, written once for the registry and the client.
//!
//! Every version the registry publishes (and every yank, unyank and key event) becomes an
//! in-toto Statement v1 ([`statement`]) in a DSSE envelope ([`dsse`]) signed with the
//! registry's Ed25519 key ([`keys`]). Each envelope is a leaf of an append-only RFC 6962
//! Merkle tree ([`merkle`]) whose signed checkpoints use the C2SP signed-note format
//! ([`checkpoint`]). Anyone holding the registry's public keys can check an envelope, its
//! inclusion in the log and the log's consistency offline ([`verify`]).
//!
//! Pure: no IO, no clock, no randomness (keys are made from seeds the caller draws).
#![forbid(unsafe_code)]

pub mod checkpoint;
pub mod dsse;
pub mod keys;
pub mod merkle;
pub mod statement;
pub mod verify;

pub use checkpoint::Checkpoint;
pub use dsse::Envelope;
pub use keys::{KeyId, PublicKey, SigningKey};
pub use merkle::{ConsistencyProof, Hash, InclusionProof};
pub use statement::{Statement, VersionPredicate};
