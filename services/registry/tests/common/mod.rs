//! Helpers shared by the binary tests: running `cairn-registry` with a clean environment,
//! starting `serve` on a random port, and a fresh PostgreSQL database per test.

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use sqlx::Connection;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_cairn-registry");

/// The registry without any database or blob configuration from the environment.
pub fn registry(data_dir: &Path) -> Command {
    let mut command = Command::new(BIN);
    command
        .env_remove("DATABASE_URL")
        .env_remove("CAIRN_DATABASE_URL")
        .env_remove("CAIRN_BLOB_STORE")
        .env_remove("CAIRN_JWT_SECRET")
        .env("CAIRN_LOG", "warn")
        .arg("--data-dir")
        .arg(data_dir)
        .kill_on_drop(true);
    command
}

/// A temporary directory the embedded server's unprivileged user can traverse.
pub fn traversable_tempdir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o711)).unwrap();
    dir
}

/// Starts `serve` on a random port and returns the child, its base URL and its stdout lines so far.
pub async fn start_serve(data_dir: &Path) -> (Child, String, Vec<String>) {
    serve_until_listening(registry(data_dir)).await
}

/// Runs `command` (a [`registry`] command, configured further by the caller) as
/// `serve --listen 127.0.0.1:0` and waits until it listens; returns the child, its base
/// URL and its stdout lines before the address.
pub async fn serve_until_listening(mut command: Command) -> (Child, String, Vec<String>) {
    let mut child = command
        .args(["serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let url = tokio::time::timeout(Duration::from_secs(120), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("Cairn registry listening on ") {
                return url.to_owned();
            }
            seen.push(line);
        }
        panic!("serve exited before listening; stdout: {seen:?}");
    })
    .await
    .expect("serve did not start within 120s");
    (child, url, seen)
}

/// Stops a `serve` child with SIGTERM (a graceful shutdown) and returns its exit status.
pub async fn terminate(mut child: Child) -> std::process::ExitStatus {
    let pid = child.id().unwrap().to_string();
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(status.success());
    tokio::time::timeout(Duration::from_secs(60), child.wait())
        .await
        .expect("serve did not stop")
        .unwrap()
}

/// The PostgreSQL server the test databases are created on (`DATABASE_URL`).
pub fn server_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// An empty database on the [`server_url`] server, dropped when this value is dropped.
/// The registry migrates it on its first command.
#[derive(Debug)]
pub struct TestDb {
    /// URL of the test database.
    pub url: String,
    /// Its name.
    pub name: String,
    server: String,
}

impl TestDb {
    /// Creates `cairn_test_<random>`.
    pub async fn new() -> Self {
        let server = server_url();
        let name = format!("cairn_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(&server)
            .await
            .unwrap_or_else(|e| panic!("connecting to the test PostgreSQL at DATABASE_URL failed: {e}"));
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let url = with_database(&server, &name);
        TestDb { url, name, server }
    }

    /// A small connection pool on this database.
    pub async fn pool(&self) -> sqlx::PgPool {
        sqlx::postgres::PgPoolOptions::new()
            .max_connections(2)
            .connect(&self.url)
            .await
            .unwrap()
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let server = self.server.clone();
        let name = self.name.clone();
        // Drop runs inside the test's runtime; use a thread with its own runtime.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                return;
            };
            rt.block_on(async {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&server).await {
                    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .execute(&mut conn)
                    .await;
                    let _ = conn.close().await;
                }
            });
        })
        .join();
    }
}

/// `server` (`scheme://authority/db?query`) with its database replaced by `database`.
fn with_database(server: &str, database: &str) -> String {
    let scheme_end = server
        .find("://")
        .expect("DATABASE_URL must look like postgres://user@host:port/db")
        + 3;
    let (head, rest) = server.split_at(scheme_end);
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let query = path.split_once('?').map(|(_, q)| format!("?{q}")).unwrap_or_default();
    format!("{head}{authority}/{database}{query}")
}
