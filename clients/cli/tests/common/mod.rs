//! What the client's end-to-end tests share: a member's machine (a home folder with its
//! own configuration, state, cache and Hermes home) that runs the real `cairn` binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;

use cairn_e2e::app::TestApp;
use cairn_store::Role;
use serde_json::Value;

/// One member's machine.
pub struct Member {
    /// The home folder.
    pub home: tempfile::TempDir,
    /// The whole environment `cairn` runs with.
    pub env: Vec<(String, String)>,
}

impl Member {
    /// A fresh machine talking to `server` with `token`.
    pub fn new(server: &str, token: &str) -> Member {
        let home = tempfile::tempdir().unwrap();
        let path = |p: &str| home.path().join(p).display().to_string();
        let env = vec![
            ("HOME".to_owned(), path("")),
            ("XDG_CONFIG_HOME".to_owned(), path("config")),
            ("XDG_STATE_HOME".to_owned(), path("state")),
            ("XDG_CACHE_HOME".to_owned(), path("cache")),
            ("HERMES_HOME".to_owned(), path(".hermes")),
            ("CAIRN_SERVER".to_owned(), server.to_owned()),
            ("CAIRN_TOKEN".to_owned(), token.to_owned()),
        ];
        Member { home, env }
    }

    /// A new user `handle` with `role` on `app`, on a fresh machine: how most tests bring one in.
    pub async fn joining(app: &TestApp, handle: &str, role: Role) -> Member {
        let (_, token) = app.user_with_token(handle, role).await.unwrap();
        Member::new(&app.base_url, &token)
    }

    /// The Hermes home.
    pub fn hermes(&self) -> PathBuf {
        self.home.path().join(".hermes")
    }

    /// The Hermes skills folder.
    pub fn skills(&self) -> PathBuf {
        self.hermes().join("skills")
    }

    /// Sets (or replaces) one variable.
    pub fn set(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_owned(), value.to_owned()));
    }

    /// Runs `cairn` with this machine's environment only.
    pub async fn cairn(&self, args: &[&str]) -> Output {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
        command
            .args(args)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap()
    }

    /// Runs `cairn`, which must succeed, and parses its JSON output.
    pub async fn json(&self, args: &[&str]) -> Value {
        let out = self.cairn(args).await;
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    /// `cairn pull --target hermes --json`: the report of the target.
    pub async fn pull(&self) -> Value {
        self.json(&["pull", "--target", "hermes", "--json"]).await[0].clone()
    }
}

/// A pull report's `(skill, action)` pairs: what the pull and push tests assert on.
pub fn actions(report: &Value) -> Vec<(String, String)> {
    skills_with(report, "action")
}

/// Each skill of a report (`{"skills": [...]}`) with its `field`: the pairs tests compare.
pub fn skills_with(report: &Value, field: &str) -> Vec<(String, String)> {
    report["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["name"].as_str().unwrap().to_owned(),
                o[field].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Writes a file, creating its folders.
pub fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}
