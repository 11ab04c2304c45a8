//! The discovery endpoints other skill clients read (issue 9): the `/.well-known/skills/`
//! index and files, the agentskills 0.2.0 index with deterministic archives, who may read
//! them (tokens, capability URLs, the anonymous-read setting), and Hermes Agent itself
//! installing from them.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use cairn_e2e::app::{TestApp, bytes_of, item_strs};
use cairn_store::{Actor, Role};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::Digest;

use crate::fixtures::write_skill;

/// An app with two skills: `demo` (SKILL.md, a reference and an executable script) and
/// `notes` (SKILL.md alone); `demo` has a second revision.
async fn catalog() -> (TestApp, tempfile::TempDir) {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_skill(
        tree.path(),
        "ops/demo",
        "demo",
        "## Steps\n\n1. Run `scripts/run.sh`.\n",
        &[
            ("references/notes.md", "# Notes\n\nkeep them\n"),
            ("scripts/run.sh", "#!/bin/sh\necho ok\n"),
        ],
    );
    write_skill(tree.path(), "writing/notes", "notes", "Write notes.\n", &[]);
    make_executable(&tree.path().join("ops/demo/scripts/run.sh"));
    app.import(tree.path()).await.unwrap();
    write_skill(
        tree.path(),
        "ops/demo",
        "demo",
        "## Steps\n\n1. Run `scripts/run.sh`.\n2. Read the output.\n",
        &[
            ("references/notes.md", "# Notes\n\nkeep them\n"),
            ("scripts/run.sh", "#!/bin/sh\necho ok\n"),
        ],
    );
    make_executable(&tree.path().join("ops/demo/scripts/run.sh"));
    app.import(tree.path()).await.unwrap();
    (app, tree)
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

async fn get(app: &TestApp, path: &str, token: Option<&str>) -> reqwest::Response {
    let mut request = app.client.get(app.url(path));
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn the_skills_index_serves_the_latest_files_to_tokens_and_capability_urls_only() {
    let (app, tree) = catalog().await;
    let (_, reader) = app.user_with_token("ci", Role::Reader).await.unwrap();

    // Anonymous access is off by default: a clear 401, for every discovery path.
    for path in [
        "/.well-known/skills/index.json",
        "/.well-known/skills/demo/SKILL.md",
        "/.well-known/agent-skills/index.json",
        "/.well-known/agent-skills/demo.tar.gz",
    ] {
        let response = get(&app, path, None).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path}");
        let body: Value = response.json().await.unwrap();
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("--anonymous-read on"),
            "{body}"
        );
    }

    let response = get(&app, "/.well-known/skills/index.json", Some(&reader)).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/json");
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let index: Value = response.json().await.unwrap();
    assert_eq!(
        index,
        json!({"skills": [
            {"name": "demo", "description": "demo does things", "files": ["SKILL.md", "references/notes.md", "scripts/run.sh"]},
            {"name": "notes", "description": "notes does things", "files": ["SKILL.md"]},
        ]})
    );
    let again = app
        .get_as(&reader, "/.well-known/skills/index.json")
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);

    // Every file byte-identical to the latest revision, through a capability URL too.
    for file in ["SKILL.md", "references/notes.md", "scripts/run.sh"] {
        let expected = std::fs::read(tree.path().join("ops/demo").join(file)).unwrap();
        let direct = get(&app, &format!("/.well-known/skills/demo/{file}"), Some(&reader)).await;
        assert_eq!(direct.status(), StatusCode::OK, "{file}");
        assert_eq!(direct.bytes().await.unwrap().as_ref(), expected.as_slice(), "{file}");
        let capability = get(&app, &format!("/t/{reader}/.well-known/skills/demo/{file}"), None).await;
        assert_eq!(
            capability.bytes().await.unwrap().as_ref(),
            expected.as_slice(),
            "{file}"
        );
    }
    let missing = get(&app, "/.well-known/skills/demo/references/none.md", Some(&reader)).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let missing = get(&app, "/.well-known/skills/ghost/SKILL.md", Some(&reader)).await;
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    // Capability URLs only read, serve the token's organisation, and die with the token.
    let before = app.state_snapshot().await.unwrap();
    let write = app
        .client
        .post(app.url(&format!("/t/{reader}/v1/patches")))
        .json(&json!({"skill": "demo", "base_revision": 2, "ops": []}))
        .send()
        .await
        .unwrap();
    assert_eq!(write.status(), StatusCode::FORBIDDEN);
    assert_eq!(app.state_snapshot().await.unwrap(), before);
    let other_org = get(&app, "/o/elsewhere/.well-known/skills/index.json", Some(&reader)).await;
    assert_eq!(other_org.status(), StatusCode::FORBIDDEN);
    let bad = get(&app, "/t/not-a-token/.well-known/skills/index.json", None).await;
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    // Only read-only tokens travel in URLs.
    let admin_url = get(
        &app,
        &format!("/t/{}/.well-known/skills/index.json", app.admin_token),
        None,
    )
    .await;
    assert_eq!(admin_url.status(), StatusCode::FORBIDDEN);
    assert!(admin_url.text().await.unwrap().contains("read-only tokens"));
    // What a token reads is private to it; the answer depends on who asks.
    let response = get(&app, &format!("/t/{reader}/.well-known/skills/index.json"), None).await;
    assert_eq!(response.headers()["cache-control"], "private, no-cache");
    assert_eq!(response.headers()["vary"], "authorization");
    assert_eq!(response.headers()["referrer-policy"], "no-referrer");
    let file = get(&app, "/.well-known/skills/demo/SKILL.md", Some(&reader)).await;
    let etag = file.headers()["etag"].to_str().unwrap().to_owned();
    let again = app
        .get_as(&reader, "/.well-known/skills/demo/SKILL.md")
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    let whoami: Value = get(&app, "/v1/whoami", Some(&reader)).await.json().await.unwrap();
    assert_eq!(
        app.delete_token(&app.admin_token, whoami["token_id"].as_str().unwrap())
            .await,
        StatusCode::OK
    );
    let revoked = get(&app, &format!("/t/{reader}/.well-known/skills/index.json"), None).await;
    assert_eq!(revoked.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn anonymous_read_serves_only_approved_non_yanked_versions_and_can_be_closed() {
    let (app, _tree) = catalog().await;
    let admin = Actor::cli("test");
    let org = app.store.set_anonymous_read(app.org_id, true, &admin).await.unwrap();
    assert!(org.anonymous_read);
    let index: Value = get(&app, "/.well-known/skills/index.json", None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(index["skills"].as_array().unwrap().len(), 2);
    let response = get(&app, "/.well-known/skills/index.json", None).await;
    assert_eq!(response.headers()["cache-control"], "no-cache");
    // The organisation prefix names it explicitly; an unknown one, or one that did not
    // open its endpoints, is refused.
    let named = get(&app, "/o/default/.well-known/skills/index.json", None).await;
    assert_eq!(named.status(), StatusCode::OK);
    let unknown = get(&app, "/o/nobody/.well-known/skills/index.json", None).await;
    assert_eq!(unknown.status(), StatusCode::UNAUTHORIZED);
    app.store.create_org("acme", "Acme", &admin).await.unwrap();
    let closed = get(&app, "/o/acme/.well-known/skills/index.json", None).await;
    assert_eq!(closed.status(), StatusCode::UNAUTHORIZED);
    // The rest of the API still needs a token.
    assert_eq!(get(&app, "/v1/index", None).await.status(), StatusCode::UNAUTHORIZED);

    // Yanking the latest revision serves the previous one; its archive is gone.
    let yank = app.post("/v1/skills/demo/versions/2/yank").send().await.unwrap();
    assert_eq!(yank.status(), StatusCode::OK);
    let skill_md = get(&app, "/.well-known/skills/demo/SKILL.md", None)
        .await
        .text()
        .await
        .unwrap();
    assert!(!skill_md.contains("Read the output"), "{skill_md}");
    let agent: Value = get(&app, "/.well-known/agent-skills/index.json", None)
        .await
        .json()
        .await
        .unwrap();
    let demo = agent["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "demo")
        .unwrap();
    assert_eq!(demo["url"], "demo/1.tar.gz");
    let yanked = get(&app, "/.well-known/agent-skills/demo/2.tar.gz", None).await;
    assert_eq!(yanked.status(), StatusCode::NOT_FOUND);

    app.store.set_anonymous_read(app.org_id, false, &admin).await.unwrap();
    assert_eq!(
        get(&app, "/.well-known/skills/index.json", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    let audit: Value = get(&app, "/v1/audit?action=org.anonymous_read", Some(&app.admin_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(audit["items"].as_array().unwrap().len(), 2);
}

/// The entries of a tar.gz: path → (bytes, mode, mtime).
fn untar(bytes: &[u8]) -> Vec<(String, Vec<u8>, u32, u64)> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    archive
        .entries()
        .unwrap()
        .map(|entry| {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let (mode, mtime) = (entry.header().mode().unwrap(), entry.header().mtime().unwrap());
            let mut data = Vec::new();
            entry.read_to_end(&mut data).unwrap();
            (path, data, mode, mtime)
        })
        .collect()
}

#[tokio::test]
async fn agent_skills_archives_are_deterministic_and_match_their_digests_on_every_replica() {
    let (app, tree) = catalog().await;
    let response = get(&app, "/.well-known/agent-skills/index.json", Some(&app.admin_token)).await;
    assert_eq!(response.status(), StatusCode::OK);
    let index: Value = response.json().await.unwrap();
    assert_eq!(
        index["$schema"],
        "https://schemas.agentskills.io/discovery/0.2.0/schema.json"
    );
    let skills = index["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 2);
    let replica = app.replica().await.unwrap();
    for skill in skills {
        let name = skill["name"].as_str().unwrap();
        assert_eq!(skill["type"], "archive");
        assert_eq!(skill["description"], format!("{name} does things"));
        let url = skill["url"].as_str().unwrap();
        let digest = skill["digest"].as_str().unwrap();
        assert!(digest.starts_with("sha256:") && digest.len() == 71, "{digest}");
        // Relative to the index, pinned to the revision.
        let archive = get(
            &app,
            &format!("/.well-known/agent-skills/{url}"),
            Some(&app.admin_token),
        )
        .await;
        assert_eq!(archive.headers()["content-type"], "application/gzip");
        let bytes = archive.bytes().await.unwrap();
        assert_eq!(
            format!("sha256:{}", hex::encode(sha2::Sha256::digest(&bytes))),
            digest,
            "{name}"
        );
        // The same bytes from another replica, and for the conventional latest name.
        let other = bytes_of(
            app.client
                .get(format!("{}/.well-known/agent-skills/{url}", replica.base_url))
                .bearer_auth(&app.admin_token),
        )
        .await;
        assert_eq!(other, bytes, "{name}");
        let latest = get(
            &app,
            &format!("/.well-known/agent-skills/{name}.tar.gz"),
            Some(&app.admin_token),
        )
        .await;
        assert_eq!(latest.bytes().await.unwrap(), bytes, "{name}");

        // Sorted entries at the root, SKILL.md among them, fixed timestamps, the files as stored.
        let entries = untar(&bytes);
        let paths: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
        let mut sorted = paths.clone();
        sorted.sort();
        assert_eq!(paths, sorted);
        assert!(paths.contains(&"SKILL.md"));
        assert!(entries.iter().all(|e| e.3 == entries[0].3), "one fixed mtime");
        let folder = if name == "demo" { "ops/demo" } else { "writing/notes" };
        for (path, data, mode, _) in &entries {
            assert_eq!(
                data,
                &std::fs::read(tree.path().join(folder).join(path)).unwrap(),
                "{path}"
            );
            let executable = path.ends_with(".sh");
            assert_eq!(mode & 0o111 != 0, executable, "{path} mode {mode:o}");
        }
    }
    // A second request (digests now kept on the versions) and a restart give the same index.
    let again: Value = get(&app, "/.well-known/agent-skills/index.json", Some(&app.admin_token))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again, index);
    let other: Value = app
        .client
        .get(format!("{}/.well-known/agent-skills/index.json", replica.base_url))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(other, index);
    replica.stop().await.unwrap();
    for bad in [
        "demo/0.tar.gz",
        "demo/x.tar.gz",
        "demo/9.tar.gz",
        "demo/2.zip",
        "ghost.tar.gz",
        "demo",
    ] {
        let response = get(
            &app,
            &format!("/.well-known/agent-skills/{bad}"),
            Some(&app.admin_token),
        )
        .await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{bad}");
    }
}

/// Loaded into the `hermes` process (`sitecustomize`): every name lookup or connection
/// to anything but loopback fails at once and is written down, so the test never leaves
/// this machine (Hermes also asks its own hub, skills.sh and GitHub before the
/// `well-known` source) and can prove it did not.
const LOOPBACK_ONLY: &str = r#"
import os, socket
_LOG = os.environ["CAIRN_BLOCKED_LOG"]
_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
def _blocked(what):
    with open(_LOG, "a") as log:
        log.write(str(what) + "\n")
_real_getaddrinfo = socket.getaddrinfo
def _getaddrinfo(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if name is not None and name not in _LOOPBACK:
        _blocked(name)
        raise socket.gaierror(socket.EAI_NONAME, "blocked: this test only reaches 127.0.0.1")
    return _real_getaddrinfo(host, *args, **kwargs)
socket.getaddrinfo = _getaddrinfo
_real_connect = socket.socket.connect
def _connect(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in _LOOPBACK:
        _blocked(address[0])
        raise OSError("blocked: this test only reaches 127.0.0.1")
    return _real_connect(self, address)
socket.socket.connect = _connect
"#;

/// Runs `hermes` with its home in `home`, allowed to reach loopback only.
fn run_hermes(home: &Path, args: &[&str]) -> (bool, String) {
    let started = std::time::Instant::now();
    let guard = home.join("guard");
    std::fs::create_dir_all(&guard).unwrap();
    std::fs::write(guard.join("sitecustomize.py"), LOOPBACK_ONLY).unwrap();
    let output = std::process::Command::new(cairn_e2e::mcp_clients::hermes())
        .args(args)
        .env("PYTHONPATH", &guard)
        .env("CAIRN_BLOCKED_LOG", home.join("blocked.log"))
        .env("HERMES_HOME", home)
        .env("HERMES_ALLOW_PRIVATE_URLS", "true")
        .env("NO_COLOR", "1")
        .env("HOME", home)
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env("NO_PROXY", "*")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!("hermes {args:?}: {:?}", started.elapsed());
    (output.status.success(), text)
}

/// Every file under `dir`, by relative path.
fn files_under(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                let rel = entry.path().strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(entry.path()).unwrap());
            }
        }
    }
    out
}

#[tokio::test]
async fn hermes_agent_installs_a_skill_byte_identical_and_sees_the_next_revision() {
    let (app, tree) = catalog().await;
    let (_, reader) = app.user_with_token("hermes-ci", Role::Reader).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let base = format!("{}/t/{reader}/.well-known/skills", app.base_url);
    let hermes_home = home.path().to_owned();
    let source = format!("well-known:{base}/demo");
    let (ok, out) = tokio::task::spawn_blocking({
        let (home, source) = (hermes_home.clone(), source.clone());
        move || run_hermes(&home, &["skills", "install", &source, "--yes"])
    })
    .await
    .unwrap();
    assert!(ok, "hermes skills install failed:\n{out}");
    let installed =
        find_skill_dir(&hermes_home.join("skills"), "demo").unwrap_or_else(|| panic!("not installed:\n{out}"));
    let got = files_under(&installed);
    for file in ["SKILL.md", "references/notes.md", "scripts/run.sh"] {
        assert_eq!(
            got.get(file)
                .unwrap_or_else(|| panic!("{file} missing: {:?}", got.keys())),
            &std::fs::read(tree.path().join("ops/demo").join(file)).unwrap(),
            "{file}"
        );
    }

    // A new revision is approved (imported here): `hermes skills check` sees the update.
    write_skill(
        tree.path(),
        "ops/demo",
        "demo",
        "## Steps\n\n1. Run `scripts/run.sh`.\n2. Read the output.\n3. Keep the log.\n",
        &[
            ("references/notes.md", "# Notes\n\nkeep them\n"),
            ("scripts/run.sh", "#!/bin/sh\necho ok\n"),
        ],
    );
    app.import(tree.path()).await.unwrap();
    let (ok, out) = tokio::task::spawn_blocking(move || run_hermes(&hermes_home, &["skills", "check"]))
        .await
        .unwrap();
    assert!(ok, "hermes skills check failed:\n{out}");
    assert!(out.to_lowercase().contains("update"), "{out}");
    assert!(out.contains("demo"), "{out}");
    // What Hermes tried beyond loopback was refused inside its process: nothing left.
    let blocked = std::fs::read_to_string(home.path().join("blocked.log")).unwrap_or_default();
    eprintln!(
        "hermes was kept from reaching: {:?}",
        blocked.lines().collect::<std::collections::BTreeSet<_>>()
    );
}

/// The folder Hermes installed `name` into (it keeps categories as folders).
fn find_skill_dir(root: &Path, name: &str) -> Option<PathBuf> {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).ok()? {
            let entry = entry.ok()?;
            if entry.file_type().ok()?.is_dir() {
                if entry.file_name() == name && entry.path().join("SKILL.md").exists() {
                    return Some(entry.path());
                }
                stack.push(entry.path());
            }
        }
    }
    None
}

/// The pinned `skills` CLI: the newest release that runs on this machine's Node.js 20
/// (1.7.2 and later fail at start; 1.5.20 and later declare Node ≥ 22 but 1.7.1 runs).
const SKILLS_CLI: &str = "skills@1.7.1";

/// A folder with [`SKILLS_CLI`] installed: `$CAIRN_SKILLS_CLI` (CI prepares it), else one
/// made under the system temp directory and kept for later runs. The test itself then runs
/// it offline.
fn skills_cli() -> PathBuf {
    npm_cli(
        "CAIRN_SKILLS_CLI",
        SKILLS_CLI,
        "cairn-skills-cli-1.7.1",
        "skills/bin/cli.mjs",
    )
}

/// The entry point `entry` (under `node_modules/`) of the npm package `package`, installed
/// into the folder `$<variable>` names, else `<temp>/<default_dir>`, when not there yet.
fn npm_cli(variable: &str, package: &str, default_dir: &str, entry: &str) -> PathBuf {
    let prefix = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(default_dir));
    let cli = prefix.join("node_modules").join(entry);
    if !cli.exists() {
        let installed = std::process::Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
            .arg(&prefix)
            .arg(package)
            .status()
            .unwrap_or_else(|e| panic!("npm must be installed for the {package} test: {e}"));
        assert!(
            installed.success(),
            "npm install {package} failed (the npm registry must be reachable)"
        );
    }
    cli
}

/// Preloaded into the `node` process (`--require`): name lookups and connections beyond
/// loopback fail at once and are written down.
const NODE_LOOPBACK_ONLY: &str = r#"
const fs = require("fs"), dns = require("dns"), net = require("net");
const log = process.env.CAIRN_BLOCKED_LOG;
const loopback = (host) => host === "127.0.0.1" || host === "::1" || host === "localhost";
const lookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  if (!loopback(host)) {
    fs.appendFileSync(log, host + "\n");
    const callback = rest[rest.length - 1];
    const error = Object.assign(new Error("blocked: this test only reaches 127.0.0.1"), { code: "ENOTFOUND" });
    process.nextTick(() => callback(error));
    return {};
  }
  return lookup.call(this, host, ...rest);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const options = typeof args[0] === "object" && args[0] !== null ? args[0] : { port: args[0], host: args[1] };
  if (!options.path && options.host && net.isIP(options.host) && !loopback(options.host)) {
    fs.appendFileSync(log, options.host + "\n");
    throw new Error("blocked: this test only reaches 127.0.0.1");
  }
  return connect.apply(this, args);
};
"#;

#[tokio::test]
async fn the_skills_cli_installs_a_skill_from_the_agent_skills_index() {
    let (app, tree) = catalog().await;
    let (_, reader) = app.user_with_token("skills-ci", Role::Reader).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let project = work.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(work.path().join("guard.cjs"), NODE_LOOPBACK_ONLY).unwrap();
    let cli = skills_cli();
    let source = format!("{}/t/{reader}", app.base_url);
    let output = tokio::task::spawn_blocking({
        let (work, project) = (work.path().to_owned(), project.clone());
        move || {
            std::process::Command::new("node")
                .arg("--require")
                .arg(work.join("guard.cjs"))
                .arg(cli)
                .args([
                    "add",
                    &source,
                    "--skill",
                    "demo",
                    "--agent",
                    "claude-code",
                    "--yes",
                    "--copy",
                ])
                .current_dir(&project)
                .env("HOME", &work)
                .env("CAIRN_BLOCKED_LOG", work.join("blocked.log"))
                .env("DISABLE_TELEMETRY", "1")
                .env("DO_NOT_TRACK", "1")
                .env("NO_COLOR", "1")
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    let out = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "skills add failed:\n{out}");
    let installed = project.join(".claude/skills/demo");
    for file in ["SKILL.md", "references/notes.md", "scripts/run.sh"] {
        assert_eq!(
            std::fs::read(installed.join(file)).unwrap_or_else(|e| panic!("{file}: {e}\n{out}")),
            std::fs::read(tree.path().join("ops/demo").join(file)).unwrap(),
            "{file}"
        );
    }
    // It verified and recorded the archive digest our agent-skills index published.
    let lock: Value = serde_json::from_slice(&std::fs::read(project.join("skills-lock.json")).unwrap()).unwrap();
    let index: Value = get(&app, "/.well-known/agent-skills/index.json", Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    let demo = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "demo")
        .unwrap();
    assert_eq!(lock["skills"]["demo"]["wellKnownDigest"], demo["digest"], "{lock}");
    assert_eq!(lock["skills"]["demo"]["sourceType"], "well-known");
    let blocked = std::fs::read_to_string(work.path().join("blocked.log")).unwrap_or_default();
    eprintln!(
        "the skills CLI was kept from reaching: {:?}",
        blocked.lines().collect::<std::collections::BTreeSet<_>>()
    );
}

/// The pinned ClawHub CLI.
const CLAWHUB_CLI: &str = "clawhub@0.23.3";

/// A folder with [`CLAWHUB_CLI`] installed: `$CAIRN_CLAWHUB_CLI` (CI prepares it), else
/// one made under the system temp directory and kept. The test runs it offline.
fn clawhub_cli() -> PathBuf {
    npm_cli(
        "CAIRN_CLAWHUB_CLI",
        CLAWHUB_CLI,
        "cairn-clawhub-cli-0.23.3",
        "clawhub/bin/clawdhub.js",
    )
}

/// Runs the ClawHub CLI (offline but for 127.0.0.1) against `registry` with `token`.
fn run_clawhub(work: &Path, registry: &str, token: &str, args: &[&str]) -> (bool, String) {
    std::fs::write(work.join("guard.cjs"), NODE_LOOPBACK_ONLY).unwrap();
    let config = work.join("clawhub.json");
    std::fs::write(
        &config,
        serde_json::to_vec(&json!({"registry": registry, "token": token})).unwrap(),
    )
    .unwrap();
    let output = std::process::Command::new("node")
        .arg("--require")
        .arg(work.join("guard.cjs"))
        .arg(clawhub_cli())
        .args(["--workdir"])
        .arg(work.join("project"))
        .args(["--no-input"])
        .args(args)
        .env("HOME", work)
        .env("CLAWHUB_REGISTRY", registry)
        .env("CLAWHUB_CONFIG_PATH", &config)
        .env("CLAWHUB_DISABLE_TELEMETRY", "1")
        .env("CAIRN_BLOCKED_LOG", work.join("blocked.log"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

#[tokio::test]
async fn the_clawhub_cli_searches_installs_and_updates_from_cairn() {
    let (app, tree) = catalog().await;
    let (_, reader) = app.user_with_token("claw", Role::Reader).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(work.path().join("project")).unwrap();
    let registry = app.base_url.clone();
    let run = |args: &'static [&'static str]| {
        let (work, registry, reader) = (work.path().to_owned(), registry.clone(), reader.clone());
        tokio::task::spawn_blocking(move || run_clawhub(&work, &registry, &reader, args))
    };

    let (ok, out) = run(&["whoami"]).await.unwrap();
    assert!(ok && out.contains("claw"), "whoami:\n{out}");
    let (ok, out) = run(&["search", "demo"]).await.unwrap();
    assert!(ok && out.contains("demo") && out.contains("1.0.2"), "search:\n{out}");

    let (ok, out) = run(&["install", "demo"]).await.unwrap();
    assert!(ok, "install:\n{out}");
    let installed = work.path().join("project/skills/demo");
    for file in ["SKILL.md", "references/notes.md", "scripts/run.sh"] {
        assert_eq!(
            std::fs::read(installed.join(file)).unwrap_or_else(|e| panic!("{file}: {e}\n{out}")),
            std::fs::read(tree.path().join("ops/demo").join(file)).unwrap(),
            "{file}"
        );
    }

    // Nothing new: up to date (the fingerprint of the installed files matches 1.0.2).
    let (ok, out) = run(&["update", "demo"]).await.unwrap();
    assert!(ok && out.contains("up to date"), "update:\n{out}");

    // A new revision is approved: update brings it.
    write_skill(
        tree.path(),
        "ops/demo",
        "demo",
        "## Steps\n\n1. Run `scripts/run.sh`.\n2. Read the output.\n3. Keep the log.\n",
        &[
            ("references/notes.md", "# Notes\n\nkeep them\n"),
            ("scripts/run.sh", "#!/bin/sh\necho ok\n"),
        ],
    );
    app.import(tree.path()).await.unwrap();
    let (ok, out) = run(&["update", "demo"]).await.unwrap();
    assert!(ok && out.contains("1.0.3"), "update:\n{out}");
    assert!(
        std::fs::read_to_string(installed.join("SKILL.md"))
            .unwrap()
            .contains("Keep the log")
    );
    let blocked = std::fs::read_to_string(work.path().join("blocked.log")).unwrap_or_default();
    eprintln!(
        "the ClawHub CLI was kept from reaching: {:?}",
        blocked.lines().collect::<std::collections::BTreeSet<_>>()
    );
}

#[tokio::test]
async fn the_clawhub_api_maps_versions_and_fingerprints_and_refuses_in_plain_text() {
    let (app, tree) = catalog().await;
    let (_, reader) = app.user_with_token("claw", Role::Reader).await.unwrap();
    let skill: Value = get(&app, "/api/v1/skills/demo", Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(skill["skill"]["slug"], "demo");
    assert_eq!(skill["latestVersion"]["version"], "1.0.2");
    let versions: Value = get(&app, "/api/v1/skills/demo/versions", Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    let listed = item_strs(&versions, "version");
    assert_eq!(listed, ["1.0.2", "1.0.1"]);
    let version: Value = get(&app, "/api/v1/skills/demo/versions/1.0.1", Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(version["version"]["files"].as_array().unwrap().len(), 3);

    // The fingerprint the CLI computes (paths sorted by localeCompare) finds the version.
    let files: Vec<(String, String)> = ["SKILL.md", "references/notes.md", "scripts/run.sh"]
        .iter()
        .map(|f| {
            let bytes = std::fs::read(tree.path().join("ops/demo").join(f)).unwrap();
            ((*f).to_owned(), hex::encode(sha2::Sha256::digest(&bytes)))
        })
        .collect();
    // The order Node's localeCompare gives these paths (SKILL.md last).
    let order = ["references/notes.md", "scripts/run.sh", "SKILL.md"];
    let payload = order
        .iter()
        .map(|p| format!("{p}:{}", files.iter().find(|f| f.0 == *p).unwrap().1))
        .collect::<Vec<_>>()
        .join("\n");
    let hash = hex::encode(sha2::Sha256::digest(payload.as_bytes()));
    let resolved: Value = get(&app, &format!("/api/v1/resolve?slug=demo&hash={hash}"), Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        resolved,
        json!({"match": {"version": "1.0.2"}, "latestVersion": {"version": "1.0.2"}})
    );
    let unknown: Value = get(&app, "/api/v1/resolve?slug=demo&hash=00", Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(unknown["match"], Value::Null);

    // The zip holds the files at the root, byte for byte, the same every time.
    let zip = get(&app, "/api/v1/download?slug=demo&version=1.0.2", Some(&reader)).await;
    assert_eq!(zip.headers()["content-type"], "application/zip");
    let bytes = zip.bytes().await.unwrap();
    let again = get(&app, "/api/v1/download?slug=demo", Some(&reader))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(bytes, again);
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
    for (path, _) in &files {
        let mut data = Vec::new();
        archive.by_name(path).unwrap().read_to_end(&mut data).unwrap();
        assert_eq!(
            data,
            std::fs::read(tree.path().join("ops/demo").join(path)).unwrap(),
            "{path}"
        );
    }

    // Yanked versions are gone from every answer; bad requests are plain text; nothing changes.
    let yank = app.post("/v1/skills/demo/versions/1/yank").send().await.unwrap();
    assert_eq!(yank.status(), StatusCode::OK);
    let before = app.state_snapshot().await.unwrap();
    for (path, status, says) in [
        ("/api/v1/skills/demo/versions/1.0.1", StatusCode::NOT_FOUND, "withdrawn"),
        (
            "/api/v1/download?slug=demo&version=1.0.1",
            StatusCode::NOT_FOUND,
            "withdrawn",
        ),
        (
            "/api/v1/download?slug=demo&version=2.0.0",
            StatusCode::NOT_FOUND,
            "1.0.<revision>",
        ),
        (
            "/api/v1/download?slug=demo&version=1.0.9",
            StatusCode::NOT_FOUND,
            "revision 9",
        ),
        ("/api/v1/download", StatusCode::BAD_REQUEST, "?slug="),
        ("/api/v1/skills/ghost", StatusCode::NOT_FOUND, "clawhub search"),
        ("/api/v1/skills/demo/file", StatusCode::BAD_REQUEST, "?path="),
        (
            "/api/v1/skills/demo/file?path=nope.md",
            StatusCode::NOT_FOUND,
            "nope.md",
        ),
        ("/api/v1/resolve?hash=00", StatusCode::BAD_REQUEST, "?slug="),
    ] {
        let response = get(&app, path, Some(&reader)).await;
        assert_eq!(response.status(), status, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/plain"),
            "{path}"
        );
        let text = response.text().await.unwrap();
        assert!(text.contains(says), "{path}: {text}");
    }
    let versions: Value = get(&app, "/api/v1/skills/demo/versions", Some(&reader))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(versions["items"].as_array().unwrap().len(), 1);
    // Without a token (anonymous read off) nothing is served; whoami needs a token.
    assert_eq!(
        get(&app, "/api/v1/search?q=demo", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        get(&app, "/api/v1/whoami", None).await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(app.state_snapshot().await.unwrap(), before);
    let well_known: Value = get(&app, "/.well-known/clawhub.json", None).await.json().await.unwrap();
    assert_eq!(well_known["apiBase"], app.base_url);

    // Publishing: uploads are checked against their tickets; a refused publish changes
    // nothing (no blob, no patch).
    let (mia, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, other_member) = app.user_with_token("ola", Role::Member).await.unwrap();
    let post = |path: &str, token: &str, body: Value| app.post_as(token, path).json(&body).send();
    let md = b"---\nname: demo\ndescription: demo does things\n---\nNew.\n";
    let sha = hex::encode(sha2::Sha256::digest(md));
    let before = app.state_snapshot().await.unwrap();
    let publish = |ticket: String| {
        post(
            "/api/v1/skills",
            &member,
            json!({"slug": "demo", "files": [{"path": "SKILL.md", "storageId": sha, "uploadTicket": ticket}]}),
        )
    };
    let ask = post(
        "/api/v1/skills/-/upload-url",
        &member,
        json!({"path": "SKILL.md", "size": md.len(), "sha256": sha}),
    )
    .await
    .unwrap();
    let ask: Value = ask.json().await.unwrap();
    let ticket = ask["uploadTicket"].as_str().unwrap().to_owned();
    assert!(
        ask["uploadUrl"]
            .as_str()
            .unwrap()
            .ends_with(&format!("/api/v1/skills/-/upload/{ticket}"))
    );
    let upload = |token: &str, ticket: &str, bytes: &[u8]| {
        app.post_as(token, &format!("/api/v1/skills/-/upload/{ticket}"))
            .body(bytes.to_vec())
            .send()
    };
    // A genuine ticket whose lifetime is over, and one whose expiry was pushed back.
    let now = chrono::Utc::now().timestamp();
    let expired =
        cairn_registry::app::clawhub::publish::upload_ticket(&app.state, mia.id, &sha, md.len() as u64, now - 1);
    let stretched = {
        let mut parts: Vec<String> = expired.split('.').map(str::to_owned).collect();
        parts[2] = (now + 86_400).to_string();
        parts.join(".")
    };
    for (token, ticket, bytes, says) in [
        (
            &member,
            ticket.as_str(),
            b"other bytes".as_slice(),
            "not the file announced",
        ),
        (&other_member, ticket.as_str(), md.as_slice(), "not valid"),
        (&member, "garbage", md.as_slice(), "not valid"),
        (&member, expired.as_str(), md.as_slice(), "expired"),
        (&member, stretched.as_str(), md.as_slice(), "not valid"),
    ] {
        let response = upload(token, ticket, bytes).await.unwrap();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert!(response.text().await.unwrap().contains(says));
    }
    let refused = publish(ticket.clone()).await.unwrap();
    assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
    assert!(refused.text().await.unwrap().contains("never uploaded"));
    let late = publish(expired.clone()).await.unwrap();
    assert_eq!(late.status(), StatusCode::BAD_REQUEST);
    assert!(late.text().await.unwrap().contains("expired"));
    let reader_tries = post(
        "/api/v1/skills/-/upload-url",
        &reader,
        json!({"path": "SKILL.md", "size": 1, "sha256": sha}),
    )
    .await
    .unwrap();
    assert_eq!(reader_tries.status(), StatusCode::FORBIDDEN);
    let forged = publish(format!("{sha}.{}.00", md.len())).await.unwrap();
    assert_eq!(forged.status(), StatusCode::BAD_REQUEST);
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn every_file_route_serves_an_agents_page_as_inert_bytes() {
    let app = TestApp::spawn().await.unwrap();
    let page = "<html><script>alert(document.cookie)</script></html>\n";
    let image = "<svg xmlns=\"http://www.w3.org/2000/svg\"><script>alert(1)</script></svg>\n";
    app.import_skill(
        "web/pages",
        "pages",
        "## Steps\n\n1. Open `assets/page.html`.\n",
        &[("assets/page.html", page), ("assets/logo.svg", image)],
    )
    .await;
    let (_, reader) = app.user_with_token("viewer", Role::Reader).await.unwrap();
    for file in ["assets/page.html", "assets/logo.svg"] {
        for route in [
            format!("/v1/skills/pages/versions/latest/files/{file}"),
            format!("/.well-known/skills/pages/{file}"),
            format!("/api/v1/skills/pages/file?path={file}"),
        ] {
            let response = get(&app, &route, Some(&reader)).await;
            assert_eq!(response.status(), StatusCode::OK, "{route}");
            let headers = response.headers();
            let content_type = headers["content-type"].to_str().unwrap();
            assert!(
                ["text/plain; charset=utf-8", "application/octet-stream"].contains(&content_type),
                "{route}: {content_type}"
            );
            assert_eq!(headers["x-content-type-options"], "nosniff", "{route}");
            assert_eq!(headers["content-security-policy"], "sandbox", "{route}");
        }
    }
}
