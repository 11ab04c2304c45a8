//! The team story end to end: member A's agent adds a pitfall to a pulled skill and
//! writes a new skill; `cairn push` proposes both; a reviewer approves; member B's
//! `cairn pull` gets them. Every request of A's pull/push cycle passes a recording proxy,
//! which proves the agent's memory, profile and configuration never leave the machine.

mod common;

use std::sync::{Arc, Mutex};

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_store::Role;
use serde_json::Value;

use common::{Member, actions, write};

const DEMO: &str = "---\nname: demo\ndescription: The demo skill.\n---\n# Demo\n\n## Steps\n\n1. Install the tool.\n2. Run it on the data.\n\n## Pitfalls\n\n- None yet.\n";
const SECRETS: [&str; 4] = [
    "SECRET-MEMORY-7f3a",
    "SECRET-USER-91bc",
    "SECRET-MEMORIES-22d0",
    "SECRET-CONFIG-5e61",
];

/// Every byte clients sent through the proxy, per connection.
type Recorded = Arc<Mutex<Vec<Vec<u8>>>>;

/// A TCP proxy to the registry that records everything the client sends (request lines,
/// headers and bodies, verbatim) and passes everything on both ways, streams included.
async fn recording_proxy(upstream: &str) -> (String, Recorded) {
    let upstream = upstream.trim_start_matches("http://").to_owned();
    let seen: Recorded = Arc::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let record = seen.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (record, upstream) = (record.clone(), upstream.clone());
            tokio::spawn(async move {
                let server = tokio::net::TcpStream::connect(&upstream).await.unwrap();
                let index = {
                    let mut seen = record.lock().unwrap();
                    seen.push(Vec::new());
                    seen.len() - 1
                };
                let (mut client_read, mut client_write) = client.into_split();
                let (mut server_read, mut server_write) = server.into_split();
                let requests = async {
                    let mut buffer = [0u8; 16 * 1024];
                    loop {
                        let n = match tokio::io::AsyncReadExt::read(&mut client_read, &mut buffer).await {
                            Ok(0) | Err(_) => break,
                            Ok(n) => n,
                        };
                        record.lock().unwrap()[index].extend_from_slice(&buffer[..n]);
                        if tokio::io::AsyncWriteExt::write_all(&mut server_write, &buffer[..n])
                            .await
                            .is_err()
                        {
                            break;
                        }
                    }
                    let _ = tokio::io::AsyncWriteExt::shutdown(&mut server_write).await;
                };
                let answers = tokio::io::copy(&mut server_read, &mut client_write);
                let _ = tokio::join!(requests, answers);
            });
        }
    });
    (url, seen)
}

/// The request lines ("METHOD /path HTTP/1.1") in what was recorded.
fn request_lines(seen: &Recorded) -> Vec<String> {
    let methods = ["GET ", "POST ", "PUT ", "PATCH ", "DELETE ", "HEAD "];
    seen.lock()
        .unwrap()
        .iter()
        .flat_map(|bytes| {
            String::from_utf8_lossy(bytes)
                .split("\r\n")
                .filter(|line| methods.iter().any(|m| line.starts_with(m)) && line.ends_with("HTTP/1.1"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect()
}

async fn approve(app: &TestApp, reviewer: &str, id: &str) -> Value {
    let response = app
        .post_as(reviewer, &format!("/v1/patches/{id}/approve"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.json().await.unwrap()
}

#[tokio::test]
async fn a_pitfall_pushed_by_one_member_reaches_another_and_memory_never_leaves() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let (_, token_a) = app.user_with_token("ana", Role::Member).await.unwrap();
    let (_, token_b) = app.user_with_token("ben", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let (proxy, seen) = recording_proxy(&app.base_url).await;
    let ana = Member::new(&proxy, &token_a);
    let ben = Member::new(&app.base_url, &token_b);
    write(&ana.hermes(), "MEMORY.md", SECRETS[0]);
    write(&ana.hermes(), "USER.md", SECRETS[1]);
    write(&ana.hermes(), "memories/today.md", SECRETS[2]);
    write(&ana.hermes(), "config.yaml", SECRETS[3]);

    ana.json(&["pull", "--target", "hermes", "--json"]).await;
    ben.json(&["pull", "--target", "hermes", "--json"]).await;

    // Ana's agent adds a pitfall and writes a new skill with a reference.
    let demo = ana.hermes().join("skills/ops/demo/SKILL.md");
    let learned = DEMO.replace(
        "- None yet.",
        "- The tool needs 2 GB of free disk: check with `df -h` first.",
    );
    std::fs::write(&demo, &learned).unwrap();
    write(
        &ana.hermes(),
        "skills/ops/triage/SKILL.md",
        "---\nname: triage\ndescription: Triage a failing job.\n---\n# Triage\n\n1. Read the last log lines.\n",
    );
    write(
        &ana.hermes(),
        "skills/ops/triage/references/signals.md",
        "OOM means memory.\n",
    );

    // A dry run sends nothing.
    let before = request_lines(&seen).len();
    let dry = ana.json(&["push", "--target", "hermes", "--dry-run", "--json"]).await;
    assert_eq!(dry.as_array().unwrap().len(), 2);
    assert!(
        dry.as_array().unwrap().iter().all(|p| p["action"] == "would_submit"),
        "{dry}"
    );
    assert_eq!(request_lines(&seen).len(), before, "a dry run made requests");

    let env_agent = {
        let mut machine = Member::new(&proxy, &token_a);
        machine.env = ana.env.clone();
        machine.set("CAIRN_AGENT", "hermes");
        machine.set("CAIRN_MODEL", "m-1");
        machine
    };
    let pushed = env_agent
        .json(&[
            "push",
            "--target",
            "hermes",
            "-m",
            "Check the disk first",
            "--session",
            "s-42",
            "--json",
        ])
        .await;
    let pushed = pushed.as_array().unwrap();
    assert_eq!(pushed.len(), 2);
    let by_name = |name: &str| pushed.iter().find(|p| p["name"] == name).unwrap().clone();
    let (edit, create) = (by_name("demo"), by_name("triage"));
    assert_eq!(
        (edit["action"].as_str(), edit["status"].as_str()),
        (Some("submitted"), Some("pending_review"))
    );
    assert_eq!(edit["ops"], serde_json::json!(["edit SKILL.md"]));
    assert_eq!(edit["preflight"]["verdict"], "safe");
    // The review page of the patch, in the review web.
    assert_eq!(
        edit["url"].as_str().unwrap(),
        format!("{}/admin/patches/{}", proxy, edit["patch"].as_str().unwrap())
    );
    assert_eq!(
        create["ops"],
        serde_json::json!(["create", "write_file references/signals.md"])
    );
    let patch = app
        .get_json(&format!("/v1/patches/{}", edit["patch"].as_str().unwrap()))
        .await;
    assert_eq!(patch["author"], "ana");
    assert_eq!(patch["base_revision"], 1);
    assert_eq!(patch["summary"], "Check the disk first");
    assert_eq!(
        patch["agent"],
        serde_json::json!({"name": "hermes", "model": "m-1", "session": "s-42"})
    );

    // Pushing the same edits again proposes nothing new.
    let again = ana.json(&["push", "--target", "hermes", "--json"]).await;
    assert!(
        again.as_array().unwrap().iter().all(|p| p["action"] == "skipped"),
        "{again}"
    );

    // The reviewer approves both; Ben's pull brings the pitfall and the new skill.
    let approved = approve(&app, &reviewer, edit["patch"].as_str().unwrap()).await;
    assert_eq!(approved["result_revision"], 2);
    approve(&app, &reviewer, create["patch"].as_str().unwrap()).await;
    let report = ben.json(&["pull", "--target", "hermes", "--json"]).await;
    let actions = actions(&report[0]);
    assert_eq!(
        actions,
        vec![("demo".into(), "updated".into()), ("triage".into(), "added".into())]
    );
    assert_eq!(
        std::fs::read_to_string(ben.hermes().join("skills/ops/demo/SKILL.md")).unwrap(),
        learned
    );
    assert_eq!(
        std::fs::read_to_string(ben.hermes().join("skills/ops/triage/references/signals.md")).unwrap(),
        "OOM means memory.\n"
    );
    // Before she pulls, her status says the edits she still has are published upstream.
    let out = ana.cairn(&["status", "--target", "hermes"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("approved: published; `cairn pull` brings the reviewed revision here"),
        "{text}"
    );
    // Ana pulls her own approved edits back: her folders match upstream again, and the
    // skill she proposed is adopted as synced.
    let report = ana.json(&["pull", "--target", "hermes", "--json"]).await;
    assert_eq!(report[0]["skills"][1]["action"], "adopted", "{report}");
    let status = ana.json(&["status", "--target", "hermes", "--json"]).await;
    assert!(
        status[0]["skills"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["standing"] == "up_to_date"),
        "{status}"
    );

    // Ana's agent keeps working under `cairn watch`: a new edit is pushed by the watcher.
    let pushes = |seen: &Recorded| {
        request_lines(seen)
            .iter()
            .filter(|l| l.starts_with("POST /v1/patches "))
            .count()
    };
    let pushed_before = pushes(&seen);
    let mut watcher = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["watch", "--target", "hermes", "--quiet", "1s"])
        .env_clear()
        .envs(ana.env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !request_lines(&seen).iter().any(|l| l.starts_with("GET /v1/events")) && std::time::Instant::now() < until {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let triage = ana.hermes().join("skills/ops/triage/SKILL.md");
    let more = std::fs::read_to_string(&triage).unwrap() + "2. Look for OOM first.\n";
    std::fs::write(&triage, more).unwrap();
    while pushes(&seen) == pushed_before && std::time::Instant::now() < until {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let _ = watcher.kill();
    let _ = watcher.wait();
    assert!(pushes(&seen) > pushed_before, "the watcher did not push the edit");

    // What crossed the wire in the whole pull/push/watch cycle: requests for the index,
    // the change stream, blobs, patches and the published version of the agent's own
    // lesson (its manifest: the base a later pull merges from) only, and not one byte of
    // the agent's memory, profile or configuration.
    let lines = request_lines(&seen);
    assert!(
        lines.iter().any(|l| l.starts_with("POST /v1/patches ")),
        "the push went through the proxy"
    );
    for line in &lines {
        let path = line.split_whitespace().nth(1).unwrap_or_default();
        assert!(
            ["/v1/index", "/v1/events", "/v1/blobs/batch", "/v1/patches"]
                .iter()
                .any(|p| path.starts_with(p))
                || (line.starts_with("GET ") && path.starts_with("/v1/skills/") && path.contains("/versions/")),
            "unexpected request {line}"
        );
    }
    for bytes in seen.lock().unwrap().iter() {
        let text = String::from_utf8_lossy(bytes);
        for secret in SECRETS {
            assert!(!text.contains(secret), "a request carried {secret}");
        }
    }
}

#[tokio::test]
async fn pushes_that_cannot_be_sent_say_why_and_send_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("demo/SKILL.md", DEMO)]).await;
    let ana = Member::joining(&app, "ana", Role::Member).await;
    let folder = ana.home.path().join("team");
    let target = folder.to_str().unwrap();
    ana.json(&["pull", "--target", target, "--json"]).await;
    let before = app.state_snapshot().await.unwrap();

    // A file outside the writable folders, and a skill whose SKILL.md is invalid.
    write(&folder, "demo/notes.txt", "loose file\n");
    write(&folder, "broken/SKILL.md", "no frontmatter\n");
    let out = ana.cairn(&["push", "--target", target, "--json"]).await;
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    let pushed: Value = serde_json::from_slice(&out.stdout).unwrap();
    for p in pushed.as_array().unwrap() {
        assert_eq!(p["action"], "refused", "{p}");
        assert!(p["message"].as_str().unwrap().starts_with("not sent:"), "{p}");
    }
    assert_eq!(
        app.state_snapshot().await.unwrap(),
        before,
        "a refused push stored something"
    );

    // A symbolic link in a skill folder is never followed, so its target is never sent.
    std::fs::remove_file(folder.join("demo/notes.txt")).unwrap();
    std::fs::remove_dir_all(folder.join("broken")).unwrap();
    write(ana.home.path(), "MEMORY.md", "SECRET-LINKED-MEMORY\n");
    std::fs::create_dir_all(folder.join("demo/references")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(
            ana.home.path().join("MEMORY.md"),
            folder.join("demo/references/memory.md"),
        )
        .unwrap();
        let out = ana.cairn(&["push", "--target", target]).await;
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("symbolic link") && stderr.contains("memory.md"),
            "{stderr}"
        );
        assert_eq!(app.state_snapshot().await.unwrap(), before);
        std::fs::remove_file(folder.join("demo/references/memory.md")).unwrap();
    }

    // A name with nothing to push.
    let out = ana.cairn(&["push", "nothing-here", "--target", target]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no local edits and is not local-only"));
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn a_skill_removed_upstream_while_edited_here_is_pushed_only_when_asked() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let mia = Member::joining(&app, "mia", Role::Member).await;
    mia.pull().await;
    let skill_md = mia.skills().join("ops/demo/SKILL.md");
    std::fs::write(&skill_md, DEMO.replace("- None yet.", "- Check the disk first.")).unwrap();
    let yank = app.post("/v1/skills/demo/versions/1/yank").send().await.unwrap();
    assert_eq!(yank.status(), StatusCode::OK);
    let report = mia.pull().await;
    assert_eq!(report["skills"][0]["action"], "kept_modified", "{report}");
    assert!(skill_md.is_file());

    // It has a standing of its own, not local-only.
    let status = mia.json(&["status", "--target", "hermes", "--offline", "--json"]).await;
    let skills = status[0]["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1, "{status}");
    assert_eq!(skills[0]["standing"], "removed_upstream");
    assert_eq!(skills[0]["changed"], serde_json::json!(["SKILL.md"]));
    let text = mia.cairn(&["status", "--target", "hermes", "--offline"]).await;
    assert!(
        String::from_utf8_lossy(&text.stdout).contains("removed upstream, kept because you edited it"),
        "{}",
        String::from_utf8_lossy(&text.stdout)
    );

    // Push leaves it alone; naming it says how to ask; a wrong name is refused. Nothing is sent.
    let pushed = mia.json(&["push", "--target", "hermes", "--json"]).await;
    assert_eq!(pushed, serde_json::json!([]));
    let out = mia.cairn(&["push", "demo", "--target", "hermes"]).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("`cairn push --include-removed demo`"), "{stderr}");
    let out = mia
        .cairn(&["push", "--include-removed", "nope", "--target", "hermes"])
        .await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(stderr.contains("'nope' is not a skill removed upstream"), "{stderr}");
    let page = app.get_json("/v1/patches").await;
    assert_eq!(page["items"], serde_json::json!([]), "{page}");

    // Asked for: proposed again as a new skill, in its category.
    let pushed = mia
        .json(&["push", "--include-removed", "demo", "--target", "hermes", "--json"])
        .await;
    assert_eq!(pushed[0]["name"], "demo", "{pushed}");
    assert_eq!(pushed[0]["ops"][0], "create", "{pushed}");
    assert_eq!(pushed[0]["action"], "submitted", "{pushed}");
    let id = pushed[0]["patch"].as_str().unwrap();
    let patch = app.get_json(&format!("/v1/patches/{id}")).await;
    assert_eq!(patch["ops"][0]["category"], "ops", "{patch}");
}
