//! Syncing an agent's skills folder with the team index (`cairn pull`, `push`, `status`,
//! `diff`, `watch`); the targets pulled into are remembered ([`remembered`]).
//!
//! Only skill folders are read or written — never anything else in the agent's home
//! (`MEMORY.md`, `USER.md`, `memories/`, configuration) — and only the registry's index,
//! manifests and blobs are fetched; a pull sends nothing but its requests for them.

pub mod diff;
pub mod follow;
pub mod lock;
pub mod pull;
pub mod push;
pub mod remembered;
pub mod state;
pub mod status;
pub mod target;
pub mod watch;
