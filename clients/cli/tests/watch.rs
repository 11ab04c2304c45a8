//! `cairn watch` against a live registry: an approved change arrives in the target
//! without a command, and an edit the agent makes is pushed after the quiet period.

use std::path::Path;
use std::time::Duration;

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_store::Role;
use serde_json::json;

const DEMO: &str = "---\nname: demo\ndescription: The demo skill.\n---\n# Demo\n\n1. Install the tool.\n2. Run it.\n";
const WAIT: Duration = Duration::from_secs(20);

/// Waits until `check` holds, polling.
async fn eventually(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let until = tokio::time::Instant::now() + WAIT;
    while tokio::time::Instant::now() < until {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what} did not happen within {WAIT:?}");
}

/// Kills the watcher when the test ends, however it ends.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `cairn watch <args>` for `token` with its home, state and cache in `home`,
/// logging to `log`.
fn spawn_watch(app: &TestApp, token: &str, home: &Path, args: &[&str], log: &Path) -> Running {
    Running(
        std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
            .arg("watch")
            .args(args)
            .env_clear()
            .env("HOME", home)
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_STATE_HOME", home.join("state"))
            .env("XDG_CACHE_HOME", home.join("cache"))
            .env("CAIRN_SERVER", &app.base_url)
            .env("CAIRN_TOKEN", token)
            .stdout(std::fs::File::create(log).unwrap())
            .spawn()
            .unwrap(),
    )
}

/// A member's patch of `demo` (revision 1) replacing "2. Run it." — approved by the admin.
async fn approve_run_it_twice(app: &TestApp, member: &str) {
    let submitted = app.post_json(member, "/v1/patches", &json!({"skill": "demo", "base_revision": 1, "ops": [{"op": "patch", "old": "2. Run it.", "new": "2. Run it twice."}]})).await.1;
    let approve = app
        .post(&format!("/v1/patches/{}/approve", submitted["id"].as_str().unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(approve.status(), StatusCode::OK);
}

#[tokio::test]
async fn watch_pulls_announced_changes_and_pushes_quiet_edits() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("demo/SKILL.md", DEMO)]).await;
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let target = home.path().join("skills");
    let log = home.path().join("watch.log");
    let target_arg = target.to_str().unwrap();
    let _watcher = spawn_watch(
        &app,
        &member,
        home.path(),
        &["--target", target_arg, "--quiet", "1s", "--agent", "hermes"],
        &log,
    );
    let skill_md = target.join("demo/SKILL.md");
    eventually("the first pull", async || {
        std::fs::read_to_string(&skill_md).is_ok_and(|t| t == DEMO)
    })
    .await;

    // The watcher holds the target only per round: a manual pull gets in between.
    let mut manual = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
    manual
        .args(["pull", "--target", target_arg])
        .env_clear()
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env("CAIRN_SERVER", &app.base_url)
        .env("CAIRN_TOKEN", &member)
        .env("CAIRN_LOCK_WAIT", "10s");
    let out = tokio::task::spawn_blocking(move || manual.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // Upstream: a patch approved; the watcher brings it without being asked.
    approve_run_it_twice(&app, &member).await;
    eventually("the announced change", async || {
        std::fs::read_to_string(&skill_md).is_ok_and(|t| t.contains("2. Run it twice."))
    })
    .await;

    // The agent edits the skill: after the quiet period, a patch is proposed.
    let edited = std::fs::read_to_string(&skill_md).unwrap() + "\n## Pitfalls\n\n- Check the disk first.\n";
    std::fs::write(&skill_md, &edited).unwrap();
    eventually("the pushed edit", async || {
        let page = app.get_json("/v1/patches?status=pending_review").await;
        page["items"]
            .as_array()
            .is_some_and(|items| items.iter().any(|p| p["author"] == "mia"))
    })
    .await;
    let page = app.get_json("/v1/patches?status=pending_review").await;
    let id = page["items"][0]["id"].as_str().unwrap();
    let patch = app.get_json(&format!("/v1/patches/{id}")).await;
    assert_eq!(patch["base_revision"], 2);
    assert_eq!(patch["agent"]["name"], "hermes");
    assert!(
        patch["ops"][0]["content"]
            .as_str()
            .unwrap()
            .contains("Check the disk first.")
    );
}

#[tokio::test]
async fn a_target_that_fails_to_pull_does_not_keep_the_others_from_changes() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("demo/SKILL.md", DEMO)]).await;
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let (broken, good) = (home.path().join("broken"), home.path().join("good"));
    let log = home.path().join("watch.log");
    let (broken_arg, good_arg) = (broken.to_str().unwrap(), good.to_str().unwrap());
    let _watcher = spawn_watch(
        &app,
        &member,
        home.path(),
        &["--no-push", "--target", broken_arg, "--target", good_arg],
        &log,
    );
    eventually("the first pull into both targets", async || {
        broken.join("demo/SKILL.md").exists() && good.join("demo/SKILL.md").exists()
    })
    .await;
    // The first target stops being a folder it can write: its pulls fail from now on.
    std::fs::remove_dir_all(&broken).unwrap();
    std::fs::write(&broken, "not a folder").unwrap();

    approve_run_it_twice(&app, &member).await;
    eventually("the change in the target listed after the failing one", async || {
        std::fs::read_to_string(good.join("demo/SKILL.md")).is_ok_and(|t| t.contains("2. Run it twice."))
    })
    .await;
    eventually("the failure logged with its target", async || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.contains(&format!("pull into {} failed", broken.display())))
    })
    .await;
    assert_eq!(std::fs::read_to_string(&broken).unwrap(), "not a folder");
}
