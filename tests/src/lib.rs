//! Test harness for Cairn's end-to-end tests: a fresh PostgreSQL database per test, an
//! in-process S3 server, and the real registry server on a random loopback port.
//!
//! Database tests need a PostgreSQL server reachable through `DATABASE_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates its own database and
//! drops it afterwards.

pub mod app;
pub mod db;
pub mod s3;

use std::path::PathBuf;

/// The shared test corpus (`../shared/corpus` beside the repository).
pub fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus")
}
