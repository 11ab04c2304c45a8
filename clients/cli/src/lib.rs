//! The `cairn` client. Today: local skill tools ([`patch`]); the registry sync client
//! lands here with its milestone.

#![forbid(unsafe_code)]

pub mod patch;
