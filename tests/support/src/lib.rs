//! What the tests of every crate share, standing on the store and skill crates alone: a
//! freshly migrated PostgreSQL database per test ([`db`]), where the shared corpus lives
//! ([`corpus`]), and builders of skills as bundles and as folders ([`skills`]).
//!
//! Database tests need a PostgreSQL server reachable through `DATABASE_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates its own database and
//! drops it afterwards.

pub mod db;
pub mod skills;

use std::path::PathBuf;

/// The shared test corpus: `../shared/corpus` beside the repository (see its README).
pub fn corpus() -> PathBuf {
    repo_root().join("../shared/corpus")
}

/// The repository root: the nearest directory above the running package that holds the
/// workspace's `Cargo.lock` (tests of every package use this).
pub fn repo_root() -> PathBuf {
    let package = manifest_dir();
    package
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .map_or(package.clone(), PathBuf::from)
}

/// The running package's directory, read when the test runs: cargo and nextest set it for
/// test processes, and a binary reused from a shared target directory may have been
/// compiled in another checkout (the compile-time value would point there).
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}
