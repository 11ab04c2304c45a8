//! `cairn ci lock` and `cairn ci pull` against a live registry: exact, verified, pinned
//! versions with a `reader` token, and every mismatch refused with its exit code and
//! nothing written.

use std::path::Path;
use std::process::Output;

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_store::Role;
use serde_json::Value;

async fn cairn(env: &[(&str, &str)], args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
    command
        .args(args)
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env_remove("CAIRN_SERVER")
        .env_remove("CAIRN_TOKEN");
    for (key, value) in env {
        command.env(key, value);
    }
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    drop(home);
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// Asserts `cairn` exited with `code` and said every one of `needles` on stderr (each refusal).
fn assert_refused(out: &Output, code: i32, needles: &[&str]) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in: {stderr}");
    }
}

fn skill(name: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n\n{body}\n")
}

/// Every file under `dir` with its bytes and executable bit.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(snapshot(&path));
        } else {
            #[cfg(unix)]
            let executable = {
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o111 != 0
            };
            #[cfg(not(unix))]
            let executable = false;
            out.push((path.display().to_string(), std::fs::read(&path).unwrap(), executable));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn ci_pulls_exactly_the_locked_versions_and_refuses_every_mismatch() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Run scripts/run.sh."));
    write(tree.path(), "alpha/scripts/run.sh", "#!/bin/sh\necho run\n");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(
            tree.path().join("alpha/scripts/run.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    write(tree.path(), "beta/SKILL.md", &skill("beta", "1. Beta."));
    app.import(tree.path()).await.unwrap();
    let (_, reader) = app.user_with_token("ci", Role::Reader).await.unwrap();
    let env = [
        ("CAIRN_SERVER", app.base_url.as_str()),
        ("CAIRN_TOKEN", reader.as_str()),
    ];
    let work = tempfile::tempdir().unwrap();
    let lock = work.path().join("cairn.lock");
    let dest = work.path().join("skills");
    let lock_arg = lock.to_str().unwrap();
    let dest_arg = dest.to_str().unwrap();

    let out = cairn(&env, &["ci", "lock", "--out", lock_arg]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let locked: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(locked["server"], app.base_url.as_str());
    assert_eq!(locked["skills"]["alpha"]["revision"], 1);
    assert_eq!(locked["skills"]["alpha"]["files"].as_array().unwrap().len(), 2);

    // A reader token, the server from the lock alone: fetched, byte for byte, modes too.
    let token_only = [("CAIRN_TOKEN", reader.as_str())];
    let out = cairn(
        &token_only,
        &["ci", "pull", "--lock", lock_arg, "--dest", dest_arg, "--json"],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["skills"][0]["action"], "fetched");
    let pulled = snapshot(&dest);
    let expected = snapshot(tree.path());
    let strip = |files: Vec<(String, Vec<u8>, bool)>, root: &Path| -> Vec<(String, Vec<u8>, bool)> {
        files
            .into_iter()
            .map(|(p, b, x)| (p.strip_prefix(root.to_str().unwrap()).unwrap().to_owned(), b, x))
            .collect()
    };
    assert_eq!(strip(pulled.clone(), &dest), strip(expected, tree.path()));
    assert!(
        pulled
            .iter()
            .any(|(p, _, x)| p.ends_with("run.sh") && (*x || cfg!(not(unix))))
    );

    // A newer revision upstream changes nothing: the lock pins revision 1.
    write(
        tree.path(),
        "alpha/SKILL.md",
        &skill("alpha", "1. Run scripts/run.sh twice."),
    );
    app.import(tree.path()).await.unwrap();
    let out = cairn(&env, &["ci", "pull", "--lock", lock_arg, "--dest", dest_arg]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("0 fetched, 0 replaced, 2 unchanged"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(snapshot(&dest), pulled);

    // A tampered file: --frozen refuses (exit 4) and leaves it; without, it is repaired.
    let skill_md = dest.join("alpha/SKILL.md");
    std::fs::write(&skill_md, "tampered\n").unwrap();
    let tampered = snapshot(&dest);
    let out = cairn(
        &env,
        &["ci", "pull", "--lock", lock_arg, "--dest", dest_arg, "--frozen"],
    )
    .await;
    assert_refused(&out, 4, &["alpha/SKILL.md has sha256", "--frozen"]);
    assert_eq!(snapshot(&dest), tampered, "a refused pull writes nothing");
    std::fs::write(dest.join("beta/extra.md"), "extra\n").unwrap();
    // What an interrupted pull leaves behind is cleared by the next one.
    write(&dest, ".cairn-alpha-interrupted/SKILL.md", "half\n");
    let out = cairn(&env, &["ci", "pull", "--lock", lock_arg, "--dest", dest_arg]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("2 replaced"), "{}", text(&out.stdout));
    assert_eq!(snapshot(&dest), pulled);
    let leftovers: Vec<_> = std::fs::read_dir(&dest)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(leftovers.len(), 2, "no staging folders left: {leftovers:?}");

    // An edited lock is caught before anything is fetched.
    let edited = work.path().join("edited.lock");
    let mut bad = locked.clone();
    bad["skills"]["beta"]["files"][0]["sha256"] = Value::from("0".repeat(64));
    std::fs::write(&edited, serde_json::to_string(&bad).unwrap()).unwrap();
    let fresh = work.path().join("fresh");
    let out = cairn(
        &env,
        &[
            "ci",
            "pull",
            "--lock",
            edited.to_str().unwrap(),
            "--dest",
            fresh.to_str().unwrap(),
        ],
    )
    .await;
    assert_refused(&out, 4, &["the lock was edited"]);
    assert!(!fresh.exists());

    // Bad lock files and arguments: exit 2, naming the file.
    let missing = work.path().join("nope.lock");
    let out = cairn(
        &env,
        &["ci", "pull", "--lock", missing.to_str().unwrap(), "--dest", dest_arg],
    )
    .await;
    assert_refused(&out, 2, &["nope.lock", "cairn ci lock"]);
    std::fs::write(&edited, "{not json").unwrap();
    let out = cairn(
        &env,
        &["ci", "pull", "--lock", edited.to_str().unwrap(), "--dest", dest_arg],
    )
    .await;
    assert_refused(&out, 2, &["not a Cairn lock file"]);
    let out = cairn(
        &env,
        &["ci", "lock", "--out", edited.to_str().unwrap(), "--skill", "gamma"],
    )
    .await;
    assert_refused(&out, 2, &["skill 'gamma' is not in the registry's index"]);
    assert_eq!(
        std::fs::read_to_string(&edited).unwrap(),
        "{not json",
        "a refused lock writes nothing"
    );
    let elsewhere = [("CAIRN_SERVER", "http://127.0.0.1:9"), ("CAIRN_TOKEN", reader.as_str())];
    let out = cairn(&elsewhere, &["ci", "pull", "--lock", lock_arg, "--dest", dest_arg]).await;
    assert_refused(&out, 2, &["the lock was made against"]);

    // A yanked version: exit 4, named.
    let yank = app.post("/v1/skills/alpha/versions/1/yank").send().await.unwrap();
    assert_eq!(yank.status(), StatusCode::OK);
    let before = snapshot(&dest);
    let out = cairn(&env, &["ci", "pull", "--lock", lock_arg, "--dest", dest_arg]).await;
    assert_refused(&out, 4, &["skill 'alpha' revision 1 is yanked"]);
    assert_eq!(snapshot(&dest), before);
}

/// A registry signing with `key` under the same name as another, with a history of its
/// own (four entries): what a registry that rewrote its log looks like.
async fn forked_registry(key: cairn_provenance::SigningKey) -> TestApp {
    let fork = TestApp::spawn_with_signing_key(key).await.unwrap();
    let other = tempfile::tempdir().unwrap();
    for name in ["gamma", "delta", "epsilon"] {
        write(other.path(), &format!("{name}/SKILL.md"), &skill(name, "1. Other."));
    }
    fork.import(other.path()).await.unwrap();
    fork
}

/// A fresh Ed25519 key.
fn new_key() -> cairn_provenance::SigningKey {
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    seed[16..].copy_from_slice(uuid::Uuid::new_v4().as_bytes());
    cairn_provenance::SigningKey::from_seed(seed)
}

/// Rewrites the lock at `path` with `edit` applied to its JSON.
fn edited_lock(path: &Path, to: &Path, edit: impl FnOnce(&mut Value)) {
    let mut lock: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut lock);
    std::fs::write(to, serde_json::to_string_pretty(&lock).unwrap()).unwrap();
}

#[tokio::test]
async fn ci_pull_verify_proves_provenance_against_the_lock_and_refuses_every_alteration() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Alpha."));
    app.import(tree.path()).await.unwrap();
    // beta is published by a reviewer: approved; alpha was imported by the operator.
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let bundle = cairn_test_support::skills::bundle("beta", "1. Beta.", &[]);
    let response = app
        .post_as(&reviewer, "/v1/skills/beta/versions")
        .header("content-type", "application/gzip")
        .body(cairn_skill::archive::pack(&bundle, Vec::new()).unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let (_, reader) = app.user_with_token("ci", Role::Reader).await.unwrap();
    let env = [
        ("CAIRN_SERVER", app.base_url.as_str()),
        ("CAIRN_TOKEN", reader.as_str()),
    ];
    let work = tempfile::tempdir().unwrap();
    let lock = work.path().join("cairn.lock");
    let dest = work.path().join("skills");
    let (lock_arg, dest_arg) = (lock.to_str().unwrap(), dest.to_str().unwrap());

    let out = cairn(&env, &["ci", "lock", "--out", lock_arg]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let locked: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    assert_eq!(locked["version"], 2);
    assert_eq!(locked["provenance"]["origin"], cairn_e2e::app::TEST_REGISTRY);
    assert_eq!(locked["provenance"]["keys"][0]["key_id"], app.signing_key.id().as_str());
    assert!(locked["provenance"]["checkpoint"].as_str().unwrap().contains("\n\n— "));
    assert_eq!(locked["skills"]["alpha"]["attestation"]["log_index"], 1);
    assert_eq!(
        locked["skills"]["beta"]["attestation"]["envelope_sha256"]
            .as_str()
            .unwrap()
            .len(),
        64
    );

    // Verified against the pins; the answer names each entry.
    let out = cairn(
        &env,
        &[
            "ci", "pull", "--lock", lock_arg, "--dest", dest_arg, "--verify", "--json",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pulled: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pulled["skills"][0]["log_index"], 1);
    let out = cairn(
        &env,
        &[
            "ci",
            "pull",
            "--lock",
            lock_arg,
            "--dest",
            dest_arg,
            "--verify",
            "--max-verdict",
            "safe",
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("proved in its log"), "{}", text(&out.stdout));
    let installed = snapshot(&dest);

    // Policy: alpha was never approved by a reviewer.
    let fresh = work.path().join("fresh");
    let fresh_arg = fresh.to_str().unwrap();
    let out = cairn(
        &env,
        &[
            "ci",
            "pull",
            "--lock",
            lock_arg,
            "--dest",
            fresh_arg,
            "--verify",
            "--require-approval",
        ],
    )
    .await;
    assert_refused(
        &out,
        4,
        &["skill 'alpha'", "no reviewer approved it", "imported by an operator"],
    );
    assert!(!fresh.exists(), "nothing is written when verification fails");
    let out = cairn(
        &env,
        &[
            "ci",
            "pull",
            "--lock",
            lock_arg,
            "--dest",
            fresh_arg,
            "--require-approval",
        ],
    )
    .await;
    assert_eq!(out.status.code(), Some(2), "--require-approval needs --verify");

    // Every alteration of the lock's provenance is refused, and nothing is written.
    let other_key = new_key();
    let tampered = work.path().join("tampered.lock");
    let tampered_arg = tampered.to_str().unwrap();
    type Edit = Box<dyn FnOnce(&mut Value)>;
    let cases: Vec<(&str, Edit, &[&str])> = vec![
        (
            "envelope digest",
            Box::new(|l: &mut Value| l["skills"]["alpha"]["attestation"]["envelope_sha256"] = "0".repeat(64).into()),
            &["skill 'alpha'", "the lock pins"],
        ),
        (
            "log index",
            Box::new(|l: &mut Value| l["skills"]["beta"]["attestation"]["log_index"] = 1.into()),
            &["skill 'beta'", "log index"],
        ),
        (
            "checkpoint",
            Box::new(|l: &mut Value| {
                let note = l["provenance"]["checkpoint"]
                    .as_str()
                    .unwrap()
                    .replacen("\n3\n", "\n2\n", 1);
                l["provenance"]["checkpoint"] = note.into();
            }),
            &["not signed by a trusted key"],
        ),
        (
            "pinned key",
            Box::new(move |l: &mut Value| {
                l["provenance"]["keys"][0]["public_key"] = other_key.public().to_hex().into();
                l["provenance"]["keys"][0]["key_id"] = other_key.id().as_str().into();
            }),
            &["not signed by a trusted key"],
        ),
        (
            "key id",
            Box::new(|l: &mut Value| l["provenance"]["keys"][0]["key_id"] = "1".repeat(64).into()),
            &["pins are damaged"],
        ),
        (
            "format 1",
            Box::new(|l: &mut Value| {
                l["version"] = 1.into();
                l.as_object_mut().unwrap().remove("provenance");
            }),
            &["format 1", "cairn ci lock"],
        ),
    ];
    for (what, edit, needles) in cases {
        edited_lock(&lock, &tampered, edit);
        let out = cairn(
            &env,
            &["ci", "pull", "--lock", tampered_arg, "--dest", dest_arg, "--verify"],
        )
        .await;
        assert_eq!(out.status.code(), Some(4), "{what}: {}", text(&out.stderr));
        assert_refused(&out, 4, needles);
        assert_eq!(snapshot(&dest), installed, "{what}: nothing written");
    }
}

#[tokio::test]
async fn the_witness_follows_a_growing_log_and_fails_loudly_on_a_fork() {
    let key = new_key();
    let app = TestApp::spawn_with_signing_key(key.clone()).await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Alpha."));
    app.import(tree.path()).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let state = work.path().join("witness.json");
    let state_arg = state.to_str().unwrap();
    // No real token: checkpoints and consistency proofs are public.
    let watch = |env: [(&'static str, String); 2]| {
        let state_arg = state_arg.to_owned();
        async move {
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
            cairn(&env, &["log", "watch", "--state", &state_arg, "--json"]).await
        }
    };
    let here = || {
        [
            ("CAIRN_SERVER", app.base_url.clone()),
            ("CAIRN_TOKEN", "unused".to_owned()),
        ]
    };
    let out = watch(here()).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (seen["outcome"].as_str(), seen["size"].as_u64()),
        (Some("started"), Some(2))
    );
    let out = watch(here()).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["outcome"],
        "unchanged"
    );

    write(tree.path(), "beta/SKILL.md", &skill("beta", "1. Beta."));
    app.import(tree.path()).await.unwrap();
    let out = watch(here()).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (seen["outcome"].as_str(), seen["from"].as_u64(), seen["to"].as_u64()),
        (Some("grew"), Some(2), Some(3))
    );

    // Another registry with the same key and name but another history: a fork.
    let fork = forked_registry(key.clone()).await;
    let mut state_json: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    state_json["server"] = fork.base_url.as_str().into();
    std::fs::write(&state, state_json.to_string()).unwrap();
    let before = std::fs::read(&state).unwrap();
    let there = [
        ("CAIRN_SERVER", fork.base_url.clone()),
        ("CAIRN_TOKEN", "unused".to_owned()),
    ];
    let out = watch(there.clone()).await;
    assert_refused(&out, 4, &["FORK", "not an extension", "size 3"]);
    assert_eq!(
        std::fs::read(&state).unwrap(),
        before,
        "the last good checkpoint is kept"
    );
    // A log that shrank is a fork too.
    let small = TestApp::spawn_with_signing_key(app.signing_key.clone()).await.unwrap();
    state_json["server"] = small.base_url.as_str().into();
    std::fs::write(&state, state_json.to_string()).unwrap();
    let out = watch([
        ("CAIRN_SERVER", small.base_url.clone()),
        ("CAIRN_TOKEN", "unused".to_owned()),
    ])
    .await;
    assert_refused(&out, 4, &["FORK", "shrank from 3 to 1"]);
    // A registry signing with another key is refused until the operator trusts it.
    let stranger = TestApp::spawn().await.unwrap();
    stranger.import(tree.path()).await.unwrap();
    state_json["server"] = stranger.base_url.as_str().into();
    std::fs::write(&state, state_json.to_string()).unwrap();
    let out = watch([
        ("CAIRN_SERVER", stranger.base_url.clone()),
        ("CAIRN_TOKEN", "unused".to_owned()),
    ])
    .await;
    assert_refused(
        &out,
        4,
        &["does not follow from the keys pinned here", "--trust-new-keys"],
    );
    // A damaged state file is an error, not a fork.
    std::fs::write(&state, "{}").unwrap();
    let out = watch(here()).await;
    assert_refused(&out, 2, &["not a witness state file"]);
}

#[tokio::test]
async fn the_witness_follows_a_rotation_from_the_key_it_pinned() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Alpha."));
    app.import(tree.path()).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let state = work.path().join("witness.json");
    let state_arg = state.to_str().unwrap();
    let watch = async |server: &str| {
        let env = [("CAIRN_SERVER", server), ("CAIRN_TOKEN", "unused")];
        cairn(&env, &["log", "watch", "--state", state_arg, "--json"]).await
    };
    let out = watch(&app.base_url).await;
    assert!(out.status.success(), "{}", text(&out.stderr));

    // The operators rotate: the activation is signed by the old key and the new one, and
    // the replicas are given the new key.
    let old = cairn_store::log::LogSigner::new(app.signing_key.clone());
    let next = new_key();
    let new = cairn_store::log::LogSigner::new(next.clone());
    app.store
        .activate_key(&old, &new, &cairn_store::Actor::cli("test"))
        .await
        .unwrap();
    let replica = app.replica_with_key(next.clone()).await.unwrap();
    let mut state_json: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    state_json["server"] = replica.base_url.as_str().into();
    std::fs::write(&state, state_json.to_string()).unwrap();
    // No --trust-new-keys: the witness follows the rotation from the key it pinned.
    let out = watch(&replica.base_url).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (seen["outcome"].as_str(), seen["from"].as_u64(), seen["to"].as_u64()),
        (Some("grew"), Some(2), Some(4)),
        "the old key retired and the new one activated"
    );
    let pinned: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let statuses: Vec<(String, String)> = pinned["pins"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["key_id"].as_str().unwrap().to_owned(),
                k["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            (app.signing_key.id().to_string(), "retired".to_owned()),
            (next.id().to_string(), "active".to_owned())
        ]
    );
    let out = watch(&replica.base_url).await;
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["outcome"],
        "unchanged"
    );
    replica.stop().await.unwrap();
}

/// How the registry in front of the real one lies about attestation batches.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lie {
    /// It tells the truth.
    None,
    /// It answers the versions in another order.
    Reordered,
    /// It leaves a version out.
    Dropped,
    /// It answers one version with another's attestation, relabelled.
    Relabelled,
}

/// A registry in front of `upstream` that forwards every request and, while `lie` says so,
/// alters the answers of `POST /v1/attestations/batch`. Returns its address.
async fn lying_registry(upstream: String, lie: std::sync::Arc<std::sync::Mutex<Lie>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let client = reqwest::Client::new();
    let forward = move |request: axum::extract::Request| {
        let (client, upstream, lie) = (client.clone(), upstream.clone(), *lie.lock().unwrap());
        async move {
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX).await.unwrap();
            let path = parts.uri.path_and_query().map_or("/", |p| p.as_str()).to_owned();
            let mut outgoing = client
                .request(parts.method.clone(), format!("{upstream}{path}"))
                .body(body);
            for name in ["authorization", "content-type"] {
                if let Some(value) = parts.headers.get(name) {
                    outgoing = outgoing.header(name, value);
                }
            }
            let answer = outgoing.send().await.unwrap();
            let status = answer.status();
            let content_type = answer.headers().get("content-type").cloned();
            let mut bytes = answer.bytes().await.unwrap().to_vec();
            if parts.uri.path() == "/v1/attestations/batch" && status.is_success() && lie != Lie::None {
                let mut batch: Value = serde_json::from_slice(&bytes).unwrap();
                let items = batch["attestations"].as_array_mut().unwrap();
                match lie {
                    Lie::Reordered => items.reverse(),
                    Lie::Dropped => drop(items.pop()),
                    Lie::Relabelled => {
                        let (name, revision) = (items[0]["name"].clone(), items[0]["revision"].clone());
                        items[0] = items[1].clone();
                        items[0]["name"] = name;
                        items[0]["revision"] = revision;
                    }
                    Lie::None => {}
                }
                bytes = serde_json::to_vec(&batch).unwrap();
            }
            let mut response = axum::response::Response::new(axum::body::Body::from(bytes));
            *response.status_mut() = status;
            if let Some(content_type) = content_type {
                response.headers_mut().insert("content-type", content_type);
            }
            response
        }
    };
    let router = axum::Router::new().fallback(forward);
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    address
}

#[tokio::test]
async fn a_registry_that_answers_attestation_batches_falsely_is_refused_and_nothing_is_written() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Alpha."));
    write(tree.path(), "beta/SKILL.md", &skill("beta", "1. Beta."));
    app.import(tree.path()).await.unwrap();
    let lie = std::sync::Arc::new(std::sync::Mutex::new(Lie::None));
    let liar = lying_registry(app.base_url.clone(), lie.clone()).await;
    let (_, reader) = app.user_with_token("ci", Role::Reader).await.unwrap();
    let env = [("CAIRN_SERVER", liar.as_str()), ("CAIRN_TOKEN", reader.as_str())];
    let work = tempfile::tempdir().unwrap();
    let lock = work.path().join("cairn.lock");
    let dest = work.path().join("skills");
    let (lock_arg, dest_arg) = (lock.to_str().unwrap(), dest.to_str().unwrap());
    let out = cairn(&env, &["ci", "lock", "--out", lock_arg]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pull = ["ci", "pull", "--lock", lock_arg, "--dest", dest_arg, "--verify"];
    for (told, needles) in [
        (
            Lie::Reordered,
            &["skill 'alpha'", "the attestation of beta@1 in its place"][..],
        ),
        (Lie::Dropped, &["answered 1 attestations for the 2 versions asked"][..]),
        (Lie::Relabelled, &["skill 'alpha'", "the lock pins"][..]),
    ] {
        *lie.lock().unwrap() = told;
        let out = cairn(&env, &pull).await;
        assert_refused(&out, 4, needles);
        assert!(!dest.exists(), "nothing is written when the registry lies");
        // A lock is not written from a lying answer either.
        let again = work.path().join("again.lock");
        let out = cairn(&env, &["ci", "lock", "--out", again.to_str().unwrap()]).await;
        assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
        assert!(!again.exists(), "no lock is written when the registry lies");
    }
    *lie.lock().unwrap() = Lie::None;
    let out = cairn(&env, &pull).await;
    assert!(out.status.success(), "the truth verifies: {}", text(&out.stderr));
}

#[tokio::test]
async fn verify_checks_a_pulled_folder_and_a_synced_target_and_refuses_changed_files() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Alpha."));
    write(tree.path(), "beta/SKILL.md", &skill("beta", "1. Beta."));
    app.import(tree.path()).await.unwrap();
    let (_, reader) = app.user_with_token("ci", Role::Reader).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    // One home for every command: the synced target's state and the witness live there.
    let home = work.path().join("home");
    let run = async |args: &[&str]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
        command
            .args(args)
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("CAIRN_SERVER", &app.base_url)
            .env("CAIRN_TOKEN", &reader);
        tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap()
    };
    let lock = work.path().join("cairn.lock");
    let pulled = work.path().join("pulled");
    let target = work.path().join("target");
    let (lock_arg, pulled_arg, target_arg) = (
        lock.to_str().unwrap(),
        pulled.to_str().unwrap(),
        target.to_str().unwrap(),
    );
    assert!(run(&["ci", "lock", "--out", lock_arg]).await.status.success());
    assert!(
        run(&["ci", "pull", "--lock", lock_arg, "--dest", pulled_arg])
            .await
            .status
            .success()
    );
    assert!(run(&["pull", "--target", target_arg]).await.status.success());

    let out = run(&["verify", pulled_arg, "--lock", lock_arg, "--json"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["skills"].as_array().unwrap().len(), 2);
    let out = run(&["verify", target_arg]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("2 skills"), "{}", text(&out.stdout));
    // The first use pinned the witness state; the next run extends it.
    let out = run(&["verify", target_arg, "--max-verdict", "safe"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["verify", target_arg, "--require-approval"]).await;
    assert_refused(&out, 4, &["no reviewer approved it"]);

    // A changed byte, in either folder: exit 4, naming the file; nothing is written.
    write(&pulled, "alpha/SKILL.md", &skill("alpha", "1. Alpha, changed."));
    let before = snapshot(&pulled);
    let out = run(&["verify", pulled_arg, "--lock", lock_arg]).await;
    assert_refused(&out, 4, &["skill 'alpha'", "SKILL.md", "no longer holds"]);
    assert_eq!(snapshot(&pulled), before);
    write(&target, "beta/SKILL.md", &skill("beta", "1. Beta, changed."));
    let out = run(&["verify", target_arg]).await;
    assert_refused(&out, 4, &["skill 'beta'", "no longer holds"]);
    // A folder that is neither: a clear error.
    let out = run(&["verify", work.path().to_str().unwrap()]).await;
    assert_refused(&out, 2, &["not a synced target", "--lock"]);
}

#[tokio::test]
async fn relocking_extends_the_old_lock_and_refuses_a_rewritten_log() {
    let key = new_key();
    let app = TestApp::spawn_with_signing_key(key.clone()).await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "alpha/SKILL.md", &skill("alpha", "1. Alpha."));
    app.import(tree.path()).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let lock = work.path().join("cairn.lock");
    let lock_arg = lock.to_str().unwrap();
    let env_for = |url: &str| {
        [
            ("CAIRN_SERVER", url.to_owned()),
            ("CAIRN_TOKEN", app.admin_token.clone()),
        ]
    };
    let run = async |env: [(&'static str, String); 2]| {
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        cairn(&env, &["ci", "lock", "--out", lock_arg]).await
    };
    let out = run(env_for(&app.base_url)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let size = |lock: &Path| {
        let locked: Value = serde_json::from_str(&std::fs::read_to_string(lock).unwrap()).unwrap();
        let note = locked["provenance"]["checkpoint"].as_str().unwrap().to_owned();
        note.lines().nth(1).unwrap().parse::<u64>().unwrap()
    };
    assert_eq!(size(&lock), 2);

    // The log grew: the new lock extends the old one.
    write(tree.path(), "beta/SKILL.md", &skill("beta", "1. Beta."));
    app.import(tree.path()).await.unwrap();
    let out = run(env_for(&app.base_url)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(size(&lock), 3);

    // Another history under the same name and key (the registry rewrote its log): refused,
    // and the old lock is kept.
    let fork = forked_registry(key.clone()).await;
    let mut locked: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    locked["server"] = fork.base_url.as_str().into();
    std::fs::write(&lock, serde_json::to_string_pretty(&locked).unwrap()).unwrap();
    let before = std::fs::read(&lock).unwrap();
    let env = [
        ("CAIRN_SERVER", fork.base_url.clone()),
        ("CAIRN_TOKEN", fork.admin_token.clone()),
    ];
    let out = run(env).await;
    assert_refused(
        &out,
        4,
        &["FORK", "not an extension of the one the lock pinned at size 3"],
    );
    assert_eq!(std::fs::read(&lock).unwrap(), before);

    let point_at = |url: &str| {
        let mut locked: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
        locked["server"] = url.into();
        std::fs::write(&lock, serde_json::to_string_pretty(&locked).unwrap()).unwrap();
        std::fs::read(&lock).unwrap()
    };
    // A registry signing with a key that does not follow from the pinned one is refused,
    // the old lock kept; trusting its key does not make its history an extension either.
    let stranger = TestApp::spawn().await.unwrap();
    stranger.import(tree.path()).await.unwrap();
    let before = point_at(&stranger.base_url);
    let stranger_env = [
        ("CAIRN_SERVER", stranger.base_url.clone()),
        ("CAIRN_TOKEN", stranger.admin_token.clone()),
    ];
    let out = run(stranger_env.clone()).await;
    assert_refused(
        &out,
        4,
        &["does not follow from the keys pinned here", "--trust-new-keys"],
    );
    assert_eq!(std::fs::read(&lock).unwrap(), before);
    let env: Vec<(&str, &str)> = stranger_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let out = cairn(&env, &["ci", "lock", "--out", lock_arg, "--trust-new-keys"]).await;
    assert_refused(&out, 4, &["FORK"]);
    assert_eq!(std::fs::read(&lock).unwrap(), before);

    // The operators rotate (the activation signed by the old key and the new one) and the
    // replicas sign with the new key: the re-lock follows the rotation from the key the
    // lock pinned, without --trust-new-keys, and keeps the old key, retired.
    let next = new_key();
    app.store
        .activate_key(
            &cairn_store::log::LogSigner::new(key.clone()),
            &cairn_store::log::LogSigner::new(next.clone()),
            &cairn_store::Actor::cli("test"),
        )
        .await
        .unwrap();
    let replica = app.replica_with_key(next.clone()).await.unwrap();
    point_at(&replica.base_url);
    let out = run(env_for(&replica.base_url)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(size(&lock), 5, "the old key retired and the new one activated");
    let locked: Value = serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
    let statuses: Vec<(&str, &str)> = locked["provenance"]["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| (k["key_id"].as_str().unwrap(), k["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        [(key.id().as_str(), "retired"), (next.id().as_str(), "active")]
    );
    replica.stop().await.unwrap();
}
