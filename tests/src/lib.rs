//! Test harness for Cairn's end-to-end tests: a fresh PostgreSQL database per test, an
//! in-process S3 server, and the real registry server on a random loopback port.
//!
//! Database tests need a PostgreSQL server reachable through `DATABASE_URL` (default
//! `postgres://postgres@127.0.0.1:5432/postgres`); each test creates its own database and
//! drops it afterwards.

pub mod app;
pub mod browser;
pub mod garage;
pub mod load;
pub mod mcp_clients;
pub mod s3;
pub mod scale;
pub mod verifiers;
pub mod web;

pub use cairn_test_support::{corpus, db, repo_root};
