//! The backup and restore procedure of docs/OPERATIONS.md, step by step: `pg_dump` and
//! `cairn-registry blobs export` from a registry on the filesystem blob store; then, after
//! the original is lost, `pg_restore` into a new database, `blobs import` into a Garage
//! bucket and `blobs verify`; the restored registry serves exactly the state at backup
//! time, byte for byte.

mod common;

use std::path::{Path, PathBuf};

use cairn_e2e::db::TestDb;
use cairn_e2e::garage::Garage;
use cairn_skill::Sha256Hash;
use cairn_store::blob::{BlobStore, S3BlobStore};
use common::{registry, serve_until_listening, terminate};
use serde_json::{Value, json};

const JWT_SECRET: &str = "backup-test-signing-secret-0123456789";
/// The registry's attestation key, restored with the configuration like the JWT secret
/// (made with `openssl genpkey -algorithm ed25519`; a test key, signing nothing real).
const SIGNING_KEY: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIDfHVSBeY1F1PZDGfamgKJeGP50wd3VTIj34H5S8RJqf
-----END PRIVATE KEY-----
";

/// A PostgreSQL client program (`pg_dump`, `pg_restore`): on PATH, or the newest
/// installed under /usr/lib/postgresql.
fn pg_program(name: &str) -> PathBuf {
    let mut installed: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin").join(name))
        .filter(|p| p.is_file())
        .collect();
    installed.sort();
    installed.pop().unwrap_or_else(|| PathBuf::from(name))
}

fn run(program: &Path, args: &[&str]) {
    let output = std::process::Command::new(program).args(args).output().unwrap();
    assert!(
        output.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// `cairn-registry` on `database` with the filesystem blob store under `data_dir`.
fn on_fs(data_dir: &Path, database: &str) -> tokio::process::Command {
    let mut command = registry(data_dir);
    command
        .env("CAIRN_DATABASE_URL", database)
        .env("CAIRN_JWT_SECRET", JWT_SECRET)
        .env("CAIRN_SIGNING_KEY", SIGNING_KEY);
    command
}

/// `cairn-registry` on `database` with the Garage bucket as blob store.
fn on_garage(data_dir: &Path, database: &str, garage: &Garage) -> tokio::process::Command {
    let mut command = on_fs(data_dir, database);
    command.envs(garage.env());
    command
}

async fn ok(mut command: tokio::process::Command, args: &[&str]) -> String {
    let output = command.args(args).output().await.unwrap();
    assert!(
        output.status.success(),
        "cairn-registry {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

async fn fails(mut command: tokio::process::Command, args: &[&str]) -> String {
    let output = command.args(args).output().await.unwrap();
    assert!(!output.status.success(), "cairn-registry {args:?} succeeded");
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Submits a patch on the registry at `url`; returns its id.
async fn submit(client: &reqwest::Client, url: &str, token: &str, body: &Value) -> String {
    let patch: Value = client
        .post(format!("{url}/v1/patches"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    patch["id"].as_str().unwrap().to_owned()
}

fn write_skill(tree: &Path, name: &str, step: &str) {
    let dir = tree.join("ops").join(name);
    std::fs::create_dir_all(dir.join("references")).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        format!("---\nname: {name}\ndescription: {name} for the backup test.\n---\n## Steps\n1. {step}\n"),
    )
    .unwrap();
    std::fs::write(dir.join("references/notes.md"), format!("notes of {name}\n")).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_restores_into_a_new_database_and_bucket_exactly_as_it_was() {
    let source_db = TestDb::unmigrated().await.unwrap();
    let source = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_skill(tree.path(), "deploy", "Roll out.");
    write_skill(tree.path(), "rollback", "Roll back.");
    let tree_arg = tree.path().to_str().unwrap();
    ok(on_fs(source.path(), &source_db.url), &["import", tree_arg]).await;
    write_skill(tree.path(), "deploy", "Roll out, then watch the error rate.");
    ok(on_fs(source.path(), &source_db.url), &["import", tree_arg]).await;
    let admin = std::fs::read_to_string(source.path().join(cairn_registry::bootstrap::ADMIN_TOKEN_FILE))
        .unwrap()
        .trim()
        .to_owned();

    // A rejected patch: its candidate's blob is recorded but referenced by nothing.
    let mut serve = on_fs(source.path(), &source_db.url);
    serve.stdout(std::process::Stdio::piped());
    let (child, url, _) = serve_until_listening(serve).await;
    let client = reqwest::Client::new();
    let lesson = json!({
        "skill": "deploy", "base_revision": 2,
        "ops": [{"op": "write_file", "file": "references/lesson.md", "content": "a lesson worth keeping\n"}],
    });
    let id = submit(&client, &url, &admin, &lesson).await;
    let rejected = client
        .post(format!("{url}/v1/patches/{id}/reject"))
        .bearer_auth(&admin)
        .json(&json!({"comment": "not yet"}))
        .send()
        .await
        .unwrap();
    assert!(rejected.status().is_success());
    assert!(terminate(child).await.success());

    // The backup: the database first, then the blobs it references.
    let backup = tempfile::tempdir().unwrap();
    let dump = backup.path().join("cairn.dump");
    run(
        &pg_program("pg_dump"),
        &["--format=custom", "--file", dump.to_str().unwrap(), &source_db.url],
    );
    let blobs_dir = backup.path().join("blobs");
    let out = ok(
        on_fs(source.path(), &source_db.url),
        &["blobs", "export", "--to", blobs_dir.to_str().unwrap()],
    )
    .await;
    // 5 referenced (2 + 2 files, a new SKILL.md) and the rejected candidate's file.
    assert!(out.contains("exported 6 blobs"), "{out}");
    // Exporting again copies nothing new.
    let out = ok(
        on_fs(source.path(), &source_db.url),
        &["blobs", "export", "--to", blobs_dir.to_str().unwrap()],
    )
    .await;
    assert!(out.contains("exported 0 blobs"), "{out}");

    // Work after the backup is not in it.
    write_skill(tree.path(), "deploy", "A third revision, after the backup.");
    ok(on_fs(source.path(), &source_db.url), &["import", tree_arg]).await;

    // The original is lost; restore into a new database and an S3 bucket.
    drop(source_db);
    let target_db = TestDb::unmigrated().await.unwrap();
    let garage = Garage::start().await.unwrap();
    let target = tempfile::tempdir().unwrap();
    run(
        &pg_program("pg_restore"),
        &["--no-owner", "--dbname", &target_db.url, dump.to_str().unwrap()],
    );

    // Bad input first: a directory that is not a backup changes nothing.
    let message = fails(
        on_garage(target.path(), &target_db.url, &garage),
        &["blobs", "import", "--from", "/nonexistent/backup"],
    )
    .await;
    assert!(message.contains("is not a blob backup"), "{message}");
    let message = fails(on_garage(target.path(), &target_db.url, &garage), &["blobs", "verify"]).await;
    assert!(message.contains("5 of 5 referenced blobs are missing"), "{message}");

    let out = ok(
        on_garage(target.path(), &target_db.url, &garage),
        &["blobs", "import", "--from", blobs_dir.to_str().unwrap()],
    )
    .await;
    assert!(out.contains("imported 6 blobs"), "{out}");
    let out = ok(on_garage(target.path(), &target_db.url, &garage), &["blobs", "verify"]).await;
    assert!(out.contains("all 5 referenced blobs are present and intact"), "{out}");

    // The restored registry serves the state at backup time, with the same tokens.
    let mut serve = on_garage(target.path(), &target_db.url, &garage);
    serve.stdout(std::process::Stdio::piped());
    let (child, url, _) = serve_until_listening(serve).await;
    let client = reqwest::Client::new();
    let index: Value = client
        .get(format!("{url}/v1/index"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let skills = index["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 2, "{index}");
    let deploy = skills.iter().find(|s| s["name"] == "deploy").unwrap();
    assert_eq!(deploy["revision"], 2, "work after the backup came back: {deploy}");
    let skill_md = client
        .get(format!("{url}/v1/skills/deploy/versions/2/files/SKILL.md"))
        .bearer_auth(&admin)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(skill_md.contains("then watch the error rate"), "{skill_md}");
    for file in deploy["files"].as_array().unwrap() {
        let id = Sha256Hash::parse_hex(file["sha256"].as_str().unwrap()).unwrap();
        let bytes = client
            .get(format!("{url}/v1/blobs/{}", id.to_hex()))
            .bearer_auth(&admin)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(Sha256Hash::of(&bytes), id, "{file}");
    }
    // The rejected lesson, sent again after the restore, reuses its restored blob and
    // publishes whole.
    let id = submit(&client, &url, &admin, &lesson).await;
    let approved = client
        .post(format!("{url}/v1/patches/{id}/approve"))
        .bearer_auth(&admin)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    // The bootstrap admin approves its own patch only if the policy allows it; either
    // way the candidate's blob must be readable.
    let candidate = Sha256Hash::of(b"a lesson worth keeping\n");
    let bytes = S3BlobStore::new(garage.settings())
        .unwrap()
        .get(&candidate)
        .await
        .unwrap();
    assert_eq!(
        bytes.as_deref(),
        Some(&b"a lesson worth keeping\n"[..]),
        "{}",
        approved.status()
    );
    assert!(terminate(child).await.success());

    // A blob lost after the restore is named by verify.
    let lost = Sha256Hash::parse_hex(deploy["files"][0]["sha256"].as_str().unwrap()).unwrap();
    S3BlobStore::new(garage.settings())
        .unwrap()
        .delete(&lost)
        .await
        .unwrap();
    let message = fails(on_garage(target.path(), &target_db.url, &garage), &["blobs", "verify"]).await;
    assert!(
        message.contains(&format!("{} (missing)", lost.to_hex())) && message.contains("1 of 6"),
        "{message}"
    );
}
