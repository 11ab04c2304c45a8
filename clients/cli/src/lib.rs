//! The `cairn` client: local skill tools ([`patch`]) and the registry client — today the
//! login ([`config`], [`remote`]); pulling and pushing skills land with the sync milestone.

#![forbid(unsafe_code)]

pub mod config;
pub mod patch;
pub mod remote;
