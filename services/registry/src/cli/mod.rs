//! The commands of the `cairn-registry` binary besides `serve` and `import`: operators'
//! administration (organisations, users, tokens, keys, blobs, garbage collection) and
//! the offline `scan`. Binary only: the library (and so every transport) never sees
//! them.

pub mod admin;
pub mod scan;
pub mod signing;
