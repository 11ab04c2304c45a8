//! Test harness for Cairn's end-to-end tests: a fresh PostgreSQL database per test, an
//! in-process S3 server, and the real registry server on a random loopback port.
//!
//! Database tests need a PostgreSQL server reachable through `DATABASE_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates its own database and
//! drops it afterwards.

pub mod app;
pub mod db;
pub mod garage;
pub mod load;
pub mod s3;
pub mod scale;
pub mod web;

use std::path::PathBuf;

/// The shared test corpus (`../shared/corpus` beside the repository).
pub fn corpus() -> PathBuf {
    manifest_dir().join("../../shared/corpus")
}

/// The repository root: the nearest directory above the running package that holds the
/// workspace's `Cargo.lock` (tests of other packages use this harness too).
pub fn repo_root() -> PathBuf {
    let package = manifest_dir();
    package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .map_or(package.clone(), PathBuf::from)
}

/// The package directory, read when the test runs: cargo and nextest set it for test
/// processes, and a binary reused from a shared target directory may have been compiled
/// in another checkout (the compile-time value would point there).
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}
