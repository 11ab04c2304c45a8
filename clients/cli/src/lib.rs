//! The `cairn` client: local skill tools ([`patch`]) and the registry client — today the
//! login ([`config`], [`remote`]) and pinned pulls for CI ([`ci`]); pulling and pushing
//! skills to agents land with the rest of the sync milestone.

#![forbid(unsafe_code)]

pub mod ci;
pub mod config;
pub mod folder;
pub mod mcp;
pub mod patch;
pub mod provenance;
pub mod remote;
pub mod rotation;
pub mod sync;
pub mod verify;
pub mod witness;
