//! `cairn login` and `cairn whoami` against a live registry (real PostgreSQL, the server
//! in-process on a random port): the saved configuration, environment overrides, and
//! every refusal saying what to do while saving nothing.

use std::path::Path;
use std::process::Output;

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_store::Role;
use serde_json::Value;

/// Runs `cairn` with its configuration under `home` and no CAIRN_* from the outside.
async fn cairn(home: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
    command
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("CAIRN_SERVER")
        .env_remove("CAIRN_TOKEN");
    for (key, value) in env {
        command.env(key, value);
    }
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `dir`, with its contents.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(files(&path));
            } else {
                out.push((
                    path.display().to_string(),
                    std::fs::read_to_string(&path).unwrap_or_default(),
                ));
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn login_checks_the_token_saves_it_privately_and_whoami_uses_it() {
    let app = TestApp::spawn().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = cairn(
        home.path(),
        &[],
        &[
            "login",
            "--server",
            &format!("{}/", app.base_url),
            "--token",
            &app.admin_token,
        ],
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Logged in to") && text(&out.stdout).contains("admin (admin)"),
        "{}",
        text(&out.stdout)
    );
    let dir = home.path().join("config/cairn");
    assert_eq!(
        std::fs::read_to_string(dir.join("token")).unwrap().trim(),
        app.admin_token
    );
    let config = std::fs::read_to_string(dir.join("config.toml")).unwrap();
    assert!(
        config.contains(&app.base_url) && !config.contains(&app.admin_token),
        "{config}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(dir.join("token")).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }

    let out = cairn(home.path(), &[], &["whoami", "--json"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let me: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(me["server"], app.base_url.as_str());
    assert_eq!(me["whoami"]["user"], "admin");
    assert_eq!(me["whoami"]["org"], "default");
    assert_eq!(me["whoami"]["role"], "admin");

    // The environment overrides the saved login: a member's token, no files needed.
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let bare = tempfile::tempdir().unwrap();
    let env = [
        ("CAIRN_SERVER", app.base_url.as_str()),
        ("CAIRN_TOKEN", member.as_str()),
    ];
    let out = cairn(bare.path(), &env, &["whoami"]).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("mia (member) in organisation default"),
        "{}",
        text(&out.stdout)
    );
    let out = cairn(home.path(), &[("CAIRN_TOKEN", member.as_str())], &["whoami", "--json"]).await;
    let me: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(me["whoami"]["user"], "mia", "CAIRN_TOKEN wins over the saved token");
}

#[tokio::test]
async fn refused_logins_say_why_and_what_to_do_and_save_nothing() {
    let app = TestApp::spawn().await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}", listener.local_addr().unwrap())
    };
    let forged = {
        let mut parts: Vec<String> = app.admin_token.split('.').map(str::to_owned).collect();
        parts[2] = "AAAA".repeat(10);
        parts.join(".")
    };
    let cases: [(&str, &str, &str); 6] = [
        (app.base_url.as_str(), "not-a-token", "refused the token"),
        (
            app.base_url.as_str(),
            forged.as_str(),
            "run `cairn login` with a valid token",
        ),
        (app.base_url.as_str(), "two words", "copy it whole"),
        (
            closed.as_str(),
            app.admin_token.as_str(),
            "cannot reach the registry at",
        ),
        ("cairn.example.com", app.admin_token.as_str(), "is not a registry URL"),
        ("ftp://example.com", app.admin_token.as_str(), "use http:// or https://"),
    ];
    for (server, token, expected) in cases {
        let out = cairn(home.path(), &[], &["login", "--server", server, "--token", token]).await;
        assert_eq!(out.status.code(), Some(2), "{server} {token}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(expected), "{server} {token}: {stderr}");
        assert!(
            files(home.path()).is_empty(),
            "a refused login saved something: {:?}",
            files(home.path())
        );
    }
    let out = cairn(
        home.path(),
        &[],
        &["login", "--server", &closed, "--token", &app.admin_token],
    )
    .await;
    assert!(text(&out.stderr).contains(&closed), "the error names the URL");

    // A failed login keeps the previous one.
    let ok = cairn(
        home.path(),
        &[],
        &["login", "--server", &app.base_url, "--token", &app.admin_token],
    )
    .await;
    assert!(ok.status.success());
    let before = files(home.path());
    let out = cairn(
        home.path(),
        &[],
        &["login", "--server", &app.base_url, "--token", "not-a-token"],
    )
    .await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(files(home.path()), before);

    // whoami: not logged in, and a revoked token.
    let nobody = tempfile::tempdir().unwrap();
    let out = cairn(nobody.path(), &[], &["whoami"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not logged in: run `cairn login --server"),
        "{}",
        text(&out.stderr)
    );
    let (user, token) = app.user_with_token("leaver", Role::Reader).await.unwrap();
    let env = [("CAIRN_SERVER", app.base_url.as_str()), ("CAIRN_TOKEN", token.as_str())];
    let me = cairn(nobody.path(), &env, &["whoami", "--json"]).await;
    let id = serde_json::from_slice::<Value>(&me.stdout).unwrap()["whoami"]["token_id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(app.delete_token(&app.admin_token, &id).await, StatusCode::OK);
    let out = cairn(nobody.path(), &env, &["whoami"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("revoked"), "{}", text(&out.stderr));
    assert_eq!(user.handle, "leaver");
}
