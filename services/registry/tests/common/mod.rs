//! Helpers shared by the binary tests: running `cairn-registry` with a clean environment,
//! starting `serve` on a random port. A fresh PostgreSQL database per test is the test
//! harness's (`cairn_e2e::db::TestDb`, unmigrated: the registry migrates it on its first command).

// Each test file compiles this module on its own and uses only part of it.
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

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
