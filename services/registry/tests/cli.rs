//! The `cairn-registry` binary as an operator runs it: nothing configured, so it starts
//! the embedded PostgreSQL from the installed server binaries, bootstraps, serves, and
//! admin commands reach the same data while it runs.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use common::{registry, start_serve, terminate, traversable_tempdir};

fn corpus_skill() -> PathBuf {
    cairn_e2e::corpus().join("skills/anthropic/skills/mcp-builder")
}

#[tokio::test]
async fn trial_mode_serves_bootstraps_and_shares_data_with_admin_commands() {
    let tmp = traversable_tempdir();
    let data_dir = tmp.path().join("cairn-data");
    let (child, url, stdout) = start_serve(&data_dir).await;

    // First start: the admin token is printed once and saved with mode 0600.
    let token_file = data_dir.join("admin.token");
    let token = std::fs::read_to_string(&token_file).unwrap().trim().to_owned();
    assert!(
        stdout.iter().any(|l| l == &token),
        "token printed on first start: {stdout:?}"
    );
    assert_eq!(
        std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::metadata(data_dir.join("jwt.secret"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o600
    );
    assert!(
        data_dir.join("postgres/PG_VERSION").exists(),
        "embedded cluster lives in the data dir"
    );

    let client = reqwest::Client::new();
    let me: serde_json::Value = client
        .get(format!("{url}/v1/whoami"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["role"], "admin");
    let unauthenticated = client.get(format!("{url}/v1/index")).send().await.unwrap();
    assert_eq!(unauthenticated.status(), 401);

    // An admin command while serve runs reaches the same database and blobs.
    let import = registry(&data_dir)
        .arg("import")
        .arg(corpus_skill())
        .output()
        .await
        .unwrap();
    let import_out = String::from_utf8_lossy(&import.stdout);
    assert!(
        import.status.success(),
        "import failed: {import_out} {}",
        String::from_utf8_lossy(&import.stderr)
    );
    assert!(import_out.contains("1 new"), "{import_out}");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let index: serde_json::Value = client
        .get(format!("{url}/v1/index"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(index["skills"][0]["name"], "mcp-builder");
    let file = client
        .get(format!("{url}/v1/skills/mcp-builder/versions/1/files/SKILL.md"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(&file[..], &std::fs::read(corpus_skill().join("SKILL.md")).unwrap()[..]);

    // The import left the server running (serve still had connections).
    let ready = client.get(format!("{url}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), 200);

    // Graceful stop also stops the embedded PostgreSQL it started.
    let status = terminate(child).await;
    assert!(status.success(), "serve exit status {status:?}");
    assert!(
        !data_dir.join("postgres/postmaster.pid").exists(),
        "embedded PostgreSQL stopped"
    );

    // Restart reuses the cluster: no second bootstrap, same token works, data is there.
    let (child, url, stdout) = start_serve(&data_dir).await;
    assert!(
        !stdout.iter().any(|l| l.contains("Admin token")),
        "no second bootstrap: {stdout:?}"
    );
    let index: serde_json::Value = client
        .get(format!("{url}/v1/index"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(index["skills"][0]["name"], "mcp-builder");
    assert!(terminate(child).await.success());

    // `migrate` on its own starts and stops the embedded server.
    let migrate = registry(&data_dir).arg("migrate").output().await.unwrap();
    assert!(migrate.status.success(), "{}", String::from_utf8_lossy(&migrate.stderr));
    assert!(!data_dir.join("postgres/postmaster.pid").exists());
}

#[tokio::test]
async fn bad_configuration_and_arguments_fail_clearly() {
    let tmp = traversable_tempdir();
    let data_dir = tmp.path().join("data");

    let output = registry(&data_dir)
        .env("CAIRN_BLOB_STORE", "ftp")
        .arg("migrate")
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("CAIRN_BLOB_STORE") && stderr.contains("'fs'"),
        "{stderr}"
    );

    let output = registry(&data_dir)
        .env("CAIRN_JWT_SECRET", "short")
        .arg("migrate")
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("at least 32"));

    let output = registry(&data_dir)
        .args(["import", "/nonexistent/skills"])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent/skills"));

    let output = registry(&data_dir)
        .args(["import", "--org", "nope"])
        .arg(corpus_skill())
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("organisation 'nope' does not exist"));

    let output = registry(&data_dir)
        .args(["serve", "--listen", "not-an-address"])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--listen"));
    assert!(
        !data_dir.join("postgres/postmaster.pid").exists(),
        "failed commands leave no server running"
    );
}
