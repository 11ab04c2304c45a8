//! `cairn pull` against a live registry: first pull, no-op, upstream updates, local edits
//! merged or kept in conflict, skills never synced left alone, removals, and nothing
//! outside the skill folders touched.

mod common;

use std::path::Path;

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_store::Role;
use serde_json::{Value, json};

use common::{Member, actions, skills_with, write};

const DEMO: &str = "---\nname: demo\ndescription: The demo skill.\n---\n# Demo\n\n## Steps\n\n1. Install the tool.\n2. Run it on the data.\n3. Check the output.\n\n## Pitfalls\n\n- None yet.\n";

async fn skill_md(app: &TestApp, name: &str, rev: &str) -> String {
    let response = app
        .get(&format!("/v1/skills/{name}/versions/{rev}/files/SKILL.md"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    response.text().await.unwrap()
}

/// A member's patch approved by the admin; the new revision.
async fn publish_patch(app: &TestApp, member: &str, base: i64, old: &str, new: &str) -> i64 {
    let submitted = app
        .post_json(
            member,
            "/v1/patches",
            &json!({"skill": "demo", "base_revision": base, "ops": [{"op": "patch", "old": old, "new": new}]}),
        )
        .await
        .1;
    let id = submitted["id"].as_str().unwrap_or_else(|| panic!("{submitted}"));
    let approved: Value = app
        .post(&format!("/v1/patches/{id}/approve"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    approved["result_revision"]
        .as_i64()
        .unwrap_or_else(|| panic!("{approved}"))
}

#[tokio::test]
async fn pulls_bring_upstream_changes_and_never_lose_a_local_edit() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[
        ("ops/demo/SKILL.md", DEMO),
        ("ops/demo/references/notes.md", "notes\n"),
        (
            "other/SKILL.md",
            "---\nname: other\ndescription: Other.\n---\n# Other\n",
        ),
    ])
    .await;
    let (_, token) = app.user_with_token("mia", Role::Member).await.unwrap();
    let mia = Member::new(&app.base_url, &token);
    // The agent's own things, which a pull must never touch.
    let hermes = mia.home.path().join(".hermes");
    write(&hermes, "MEMORY.md", "private memory\n");
    write(&hermes, "memories/2026.md", "private\n");
    write(&hermes, "config.yaml", "model: x\n");

    // First pull: everything, in the Hermes layout.
    let report = mia.pull().await;
    assert_eq!(report["full"], true);
    assert_eq!(
        actions(&report),
        vec![("demo".into(), "added".into()), ("other".into(), "added".into())]
    );
    let demo = mia.skills().join("ops/demo");
    assert_eq!(std::fs::read_to_string(demo.join("SKILL.md")).unwrap(), DEMO);
    assert_eq!(
        std::fs::read_to_string(demo.join("references/notes.md")).unwrap(),
        "notes\n"
    );
    assert!(mia.skills().join("other/SKILL.md").is_file());

    // A no-op pull reads the delta only and downloads nothing.
    let report = mia.pull().await;
    assert_eq!(
        (report["full"].clone(), report["blobs_fetched"].clone()),
        (json!(false), json!(0))
    );
    assert!(actions(&report).is_empty());

    // Upstream change, no local edit: updated; only the new blob is downloaded.
    let rev2 = publish_patch(
        &app,
        &token,
        1,
        "2. Run it on the data.",
        "2. Run it on a copy of the data.",
    )
    .await;
    let report = mia.pull().await;
    assert_eq!(actions(&report), vec![("demo".into(), "updated".into())]);
    assert_eq!(report["blobs_fetched"], 1);
    assert_eq!(
        std::fs::read_to_string(demo.join("SKILL.md")).unwrap(),
        skill_md(&app, "demo", "2").await
    );

    // A local edit and an upstream change elsewhere in the file: merged, both kept.
    let local = std::fs::read_to_string(demo.join("SKILL.md"))
        .unwrap()
        .replace("- None yet.", "- Check the disk first.");
    std::fs::write(demo.join("SKILL.md"), &local).unwrap();
    std::fs::write(demo.join("references/mine.md"), "my own notes\n").unwrap();
    let rev3 = publish_patch(
        &app,
        &token,
        rev2,
        "1. Install the tool.",
        "1. Install the tool (version 2).",
    )
    .await;
    let report = mia.pull().await;
    assert_eq!(actions(&report), vec![("demo".into(), "merged".into())]);
    let merged = std::fs::read_to_string(demo.join("SKILL.md")).unwrap();
    assert!(
        merged.contains("- Check the disk first.") && merged.contains("(version 2)"),
        "{merged}"
    );
    assert_eq!(
        std::fs::read_to_string(demo.join("references/mine.md")).unwrap(),
        "my own notes\n"
    );

    // Both sides change the same line: the local text stays, upstream is beside it.
    let local = merged.replace("3. Check the output.", "3. Check the output by hand.");
    std::fs::write(demo.join("SKILL.md"), &local).unwrap();
    publish_patch(
        &app,
        &token,
        rev3,
        "3. Check the output.",
        "3. Check the output with the checker.",
    )
    .await;
    let report = mia.pull().await;
    assert_eq!(actions(&report), vec![("demo".into(), "conflict".into())]);
    assert_eq!(report["skills"][0]["conflicts"], json!(["SKILL.md"]));
    assert_eq!(std::fs::read_to_string(demo.join("SKILL.md")).unwrap(), local);
    assert_eq!(
        std::fs::read_to_string(demo.join("SKILL.md.upstream")).unwrap(),
        skill_md(&app, "demo", "4").await
    );

    // A skill published upstream under the name of a folder never synced: left alone.
    write(&mia.skills(), "fresh/SKILL.md", "mine\n");
    app.import_files(&[(
        "fresh/SKILL.md",
        "---\nname: fresh\ndescription: Fresh.\n---\n# Fresh\n",
    )])
    .await;
    let report = mia.pull().await;
    assert_eq!(actions(&report), vec![("fresh".into(), "kept_local_only".into())]);
    assert_eq!(
        std::fs::read_to_string(mia.skills().join("fresh/SKILL.md")).unwrap(),
        "mine\n"
    );

    // Removed upstream: an unedited folder goes, an edited one stays.
    let yank = app.post("/v1/skills/other/versions/1/yank").send().await.unwrap();
    assert_eq!(yank.status(), StatusCode::OK);
    let report = mia.pull().await;
    assert_eq!(actions(&report), vec![("other".into(), "removed".into())]);
    assert!(!mia.skills().join("other").exists());
    let unyank = app.post("/v1/skills/other/versions/1/unyank").send().await.unwrap();
    assert_eq!(unyank.status(), StatusCode::OK);
    assert_eq!(actions(&mia.pull().await), vec![("other".into(), "added".into())]);
    std::fs::write(mia.skills().join("other/SKILL.md"), "edited\n").unwrap();
    app.post("/v1/skills/other/versions/1/yank").send().await.unwrap();
    let report = mia.pull().await;
    assert_eq!(actions(&report), vec![("other".into(), "kept_modified".into())]);
    assert_eq!(
        std::fs::read_to_string(mia.skills().join("other/SKILL.md")).unwrap(),
        "edited\n"
    );

    // The agent's own files are exactly as they were; no staging folders are left.
    assert_eq!(
        std::fs::read_to_string(hermes.join("MEMORY.md")).unwrap(),
        "private memory\n"
    );
    assert_eq!(
        std::fs::read_to_string(hermes.join("memories/2026.md")).unwrap(),
        "private\n"
    );
    assert_eq!(
        std::fs::read_to_string(hermes.join("config.yaml")).unwrap(),
        "model: x\n"
    );
    let stray: Vec<_> = std::fs::read_dir(mia.skills().join("ops"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".cairn-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

#[tokio::test]
async fn pull_refusals_say_what_to_do_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("demo/SKILL.md", DEMO)]).await;
    let (_, token) = app.user_with_token("mia", Role::Reader).await.unwrap();
    let mut mia = Member::new(&app.base_url, &token);

    let out = mia.cairn(&["pull"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("name a target: --target hermes"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // A folder target, then the same folder from another registry: refused.
    let folder = mia.home.path().join("team");
    let target = folder.to_str().unwrap();
    let out = mia.cairn(&["pull", "--target", target]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(folder.join("demo/SKILL.md").is_file());
    let other = TestApp::spawn().await.unwrap();
    // (Mia's machine, pointed at the other registry.)
    mia.set("CAIRN_SERVER", &other.base_url);
    mia.set("CAIRN_TOKEN", &other.admin_token);
    let out = mia.cairn(&["pull", "--target", target]).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stderr.contains("was synced from") && stderr.contains(&app.base_url),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(folder.join("demo/SKILL.md")).unwrap(), DEMO);

    // An unreachable registry: the URL is named.
    let mut offline = Member::new("http://127.0.0.1:9", &token);
    offline.set("CAIRN_TOKEN", &token);
    let out = offline.cairn(&["pull", "--target", "claude"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot reach the registry at http://127.0.0.1:9"));
}

fn standings(report: &Value) -> Vec<(String, String)> {
    skills_with(&report[0], "standing")
}

#[tokio::test]
async fn status_and_diff_tell_local_edits_and_work_offline() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "ops/demo/SKILL.md", DEMO);
    write(
        tree.path(),
        "other/SKILL.md",
        "---\nname: other\ndescription: Other.\n---\n# Other\n",
    );
    write(
        tree.path(),
        "third/SKILL.md",
        "---\nname: third\ndescription: Third.\n---\n# Third\n",
    );
    app.import(tree.path()).await.unwrap();
    let mia = Member::joining(&app, "mia", Role::Member).await;
    mia.pull().await;

    let demo = mia.skills().join("ops/demo");
    std::fs::write(
        demo.join("SKILL.md"),
        DEMO.replace("- None yet.", "- Check the disk first."),
    )
    .unwrap();
    write(
        &mia.skills(),
        "mine/SKILL.md",
        "---\nname: mine\ndescription: Mine.\n---\n# Mine\n",
    );
    std::fs::remove_dir_all(mia.skills().join("third")).unwrap();
    write(
        tree.path(),
        "other/SKILL.md",
        "---\nname: other\ndescription: Other, improved.\n---\n# Other\n",
    );
    app.import(tree.path()).await.unwrap();

    let out = mia.cairn(&["status", "--target", "hermes", "--json"]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report[0]["checked_upstream"], true);
    assert_eq!(
        standings(&report),
        vec![
            ("demo".into(), "modified_locally".into()),
            ("mine".into(), "local_only".into()),
            ("other".into(), "behind".into()),
            ("third".into(), "deleted_locally".into()),
        ]
    );
    assert_eq!(report[0]["skills"][0]["changed"], json!(["SKILL.md"]));
    assert_eq!(report[0]["skills"][2]["upstream_revision"], 2);

    // --offline: the same, but nothing can be known to be behind.
    let out = mia
        .cairn(&["status", "--target", "hermes", "--offline", "--json"])
        .await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report[0]["checked_upstream"], false);
    assert_eq!(standings(&report)[2], ("other".into(), "up_to_date".into()));

    // The registry gone: status says so and still answers; diff needs no registry.
    app.stop().await.unwrap();
    let text = mia.cairn(&["status", "--target", "hermes"]).await;
    assert!(text.status.success());
    let stdout = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        stdout.contains("upstream not checked: cannot reach the registry"),
        "{stdout}"
    );
    assert!(stdout.contains("modified locally: SKILL.md"), "{stdout}");
    let out = mia.cairn(&["diff", "demo", "--target", "hermes", "--json"]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let changes: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(changes.as_array().unwrap().len(), 1);
    assert_eq!(changes[0]["file"], "SKILL.md");
    assert_eq!(changes[0]["change"], "modified");
    let unified = changes[0]["unified"].as_str().unwrap();
    assert!(
        unified.contains("-- None yet.") && unified.contains("+- Check the disk first."),
        "{unified}"
    );
    let out = mia.cairn(&["diff", "--target", "hermes"]).await;
    assert!(String::from_utf8_lossy(&out.stdout).contains("+- Check the disk first."));
    let out = mia.cairn(&["diff", "nope", "--target", "hermes"]).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never synced to this target"));
}

#[tokio::test]
async fn a_pull_killed_midway_leaves_every_skill_whole_and_the_next_pull_finishes() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    const SKILLS: usize = 300;
    for i in 0..SKILLS {
        let name = format!("skill-{i:03}");
        write(
            tree.path(),
            &format!("{name}/SKILL.md"),
            &format!(
                "---\nname: {name}\ndescription: Skill {i}.\n---\n# {name}\n\n{}\n",
                "Step.\n".repeat(200)
            ),
        );
        write(
            tree.path(),
            &format!("{name}/references/a.md"),
            &format!("reference {i}\n{}", "x".repeat(4000)),
        );
        write(tree.path(), &format!("{name}/references/b.md"), &format!("more {i}\n"));
    }
    app.import(tree.path()).await.unwrap();
    let mia = Member::joining(&app, "mia", Role::Reader).await;
    let target = mia.home.path().join("team");

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["pull", "--target", target.to_str().unwrap()])
        .env_clear()
        .envs(mia.env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it as soon as the first skill folder is in place.
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(60) {
        let any = std::fs::read_dir(&target)
            .map(|entries| {
                entries
                    .flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with("skill-"))
            })
            .unwrap_or(false);
        if any || child.try_wait().unwrap().is_some() {
            break;
        }
        // (An async sleep: the registry runs on this test's runtime.)
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
    let _ = child.kill();
    child.wait().unwrap();

    // Every skill folder there is whole: exactly the published files.
    let whole = |folder: &Path, name: &str| -> bool {
        let expected = ["SKILL.md", "references/a.md", "references/b.md"];
        let mut found = Vec::new();
        let mut stack = vec![folder.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                if entry.path().is_dir() {
                    stack.push(entry.path());
                } else {
                    found.push(
                        entry
                            .path()
                            .strip_prefix(folder)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
        found.sort();
        found == expected
            && expected.iter().all(|f| {
                std::fs::read(folder.join(f)).unwrap() == std::fs::read(tree.path().join(name).join(f)).unwrap()
            })
    };
    let mut present = 0;
    for entry in std::fs::read_dir(&target).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("skill-") {
            present += 1;
            assert!(whole(&entry.path(), &name), "{name} is half-written");
        }
    }
    assert!(present < SKILLS, "the pull was not interrupted: {present} skills");

    // The next pull completes the target and clears what the interrupted one left.
    let out = mia
        .cairn(&["pull", "--target", target.to_str().unwrap(), "--json"])
        .await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        SKILLS,
        "only skill folders are left: {:?}",
        names.iter().filter(|n| !n.starts_with("skill-")).collect::<Vec<_>>()
    );
    for name in names {
        assert!(whole(&target.join(&name), &name), "{name}");
    }
}

#[tokio::test]
async fn the_targets_pulled_into_are_used_when_none_is_named() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("demo/SKILL.md", DEMO)]).await;
    let mia = Member::joining(&app, "mia", Role::Member).await;
    mia.pull().await;
    let team = mia.home.path().join("team");
    let out = mia.cairn(&["pull", "--target", team.to_str().unwrap()]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let team_label = std::fs::canonicalize(&team).unwrap().display().to_string();
    std::fs::write(
        mia.skills().join("demo/SKILL.md"),
        DEMO.replace("- None yet.", "- Check the disk first."),
    )
    .unwrap();

    // No --target and no `targets` in config.toml: push, status and diff use both.
    let pushed = mia.json(&["push", "--dry-run", "--json"]).await;
    assert_eq!(pushed.as_array().unwrap().len(), 1, "{pushed}");
    assert_eq!(
        (pushed[0]["name"].as_str(), pushed[0]["action"].as_str()),
        (Some("demo"), Some("would_submit"))
    );
    let report = mia.json(&["status", "--offline", "--json"]).await;
    let labels: Vec<&str> = report
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["hermes", team_label.as_str()]);
    assert_eq!(standings(&report), vec![("demo".into(), "modified_locally".into())]);
    let changes = mia.json(&["diff", "--json"]).await;
    assert_eq!(changes.as_array().unwrap().len(), 1, "{changes}");
    let pulled = mia.json(&["pull", "--json"]).await;
    assert_eq!(pulled.as_array().unwrap().len(), 2, "{pulled}");

    // A target whose folder is gone is forgotten, with a note; the other is still used.
    std::fs::remove_dir_all(&team).unwrap();
    let out = mia.cairn(&["status", "--offline", "--json"]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stderr.contains(&format!("forgot target {team_label}")) && stderr.contains("its folder is gone"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report.as_array().unwrap().len(), 1);
    assert_eq!(report[0]["target"], "hermes");
    let out = mia.cairn(&["status", "--offline"]).await;
    assert!(String::from_utf8_lossy(&out.stderr).is_empty(), "noted once");

    // A broken list is named with the fix, and left as it is.
    let list = mia.home.path().join("state/cairn/synced-targets.json");
    std::fs::write(&list, "[broken").unwrap();
    let out = mia.cairn(&["push", "--dry-run"]).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        stderr.contains("synced-targets.json") && stderr.contains("delete it"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&list).unwrap(), "[broken");
    // A named target still works.
    let out = mia.cairn(&["status", "--offline", "--target", "hermes"]).await;
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A proxy to the registry that holds every connection until the gate opens.
async fn gated_proxy(upstream: &str) -> (String, tokio::sync::watch::Sender<bool>) {
    let upstream = upstream.trim_start_matches("http://").to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let (gate, opened) = tokio::sync::watch::channel(false);
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let (upstream, mut opened) = (upstream.clone(), opened.clone());
            tokio::spawn(async move {
                let _ = opened.wait_for(|open| *open).await;
                let mut server = tokio::net::TcpStream::connect(&upstream).await.unwrap();
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
    (url, gate)
}

/// Starts `cairn <args>` on `member`'s machine with `extra` variables.
fn spawn_cairn(member: &Member, args: &[&str], extra: &[(&str, &str)]) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(args)
        .env_clear()
        .envs(member.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .envs(extra.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (without blocking the registry's runtime) for a child to exit.
async fn finished(child: std::process::Child) -> std::process::Output {
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn two_cairns_on_one_target_take_turns_and_a_waiter_names_the_holder() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("demo/SKILL.md", DEMO)]).await;
    let (_, token) = app.user_with_token("mia", Role::Reader).await.unwrap();
    let (proxy, gate) = gated_proxy(&app.base_url).await;
    let mia = Member::new(&proxy, &token);
    let pull = ["pull", "--target", "hermes", "--json"];

    // The first pull holds the target while the registry (behind the gate) keeps it waiting.
    let first = spawn_cairn(&mia, &pull, &[]);
    let first_pid = first.id();
    let locks = mia.home.path().join("state/cairn/targets");
    let started = std::time::Instant::now();
    let lock_text = loop {
        let text: String = std::fs::read_dir(&locks)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "lock"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .collect();
        if !text.is_empty() {
            break text;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the first pull never took the lock"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert!(lock_text.contains(&format!("\"pid\":{first_pid}")), "{lock_text}");

    // A second one that may wait only briefly gives up, names the holder, and writes nothing.
    let brief = finished(spawn_cairn(&mia, &pull, &[("CAIRN_LOCK_WAIT", "300ms")])).await;
    assert_eq!(brief.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&brief.stderr).into_owned();
    assert!(
        stderr.contains(&format!("pid {first_pid}: cairn pull --target hermes --json"))
            && stderr.contains(&format!("kill {first_pid}"))
            && stderr.contains("CAIRN_LOCK_WAIT"),
        "{stderr}"
    );
    assert!(!mia.skills().join("demo").exists());
    // A wait that is not a duration: refused before anything happens.
    let bad = finished(spawn_cairn(&mia, &pull, &[("CAIRN_LOCK_WAIT", "soon")])).await;
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("CAIRN_LOCK_WAIT='soon' is not a duration"));

    // A third one waits its turn: it starts only once the first is done.
    let mut third = spawn_cairn(&mia, &pull, &[("CAIRN_LOCK_WAIT", "60s")]);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(third.try_wait().unwrap().is_none(), "the third pull did not wait");
    gate.send(true).unwrap();
    let first = finished(first).await;
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let first_report: Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(actions(&first_report[0]), vec![("demo".into(), "added".into())]);
    let third = finished(third).await;
    assert!(third.status.success(), "{}", String::from_utf8_lossy(&third.stderr));
    let third_report: Value = serde_json::from_slice(&third.stdout).unwrap();
    assert!(actions(&third_report[0]).is_empty(), "{third_report}");
    assert_eq!(
        std::fs::read_to_string(mia.skills().join("demo/SKILL.md")).unwrap(),
        DEMO
    );
}

#[tokio::test]
async fn a_completed_pull_is_on_disk_before_the_state_records_it() {
    if !strace_available() {
        return;
    }
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write(tree.path(), "ops/demo/SKILL.md", DEMO);
    write(tree.path(), "ops/demo/references/notes.md", "notes\n");
    app.import(tree.path()).await.unwrap();
    let mia = Member::joining(&app, "mia", Role::Reader).await;
    mia.pull().await;
    // Upstream changes: the next pull replaces the folder that is there.
    write(tree.path(), "ops/demo/references/notes.md", "notes, revised\n");
    app.import(tree.path()).await.unwrap();
    let (report, log) = traced_pull(
        &mia,
        &[
            "-y",
            "-e",
            "trace=fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat",
        ],
    )
    .await;
    assert_eq!(actions(&report[0]), vec![("demo".into(), "updated".into())]);
    assert_eq!(
        std::fs::read_to_string(mia.skills().join("ops/demo/references/notes.md")).unwrap(),
        "notes, revised\n"
    );

    let calls: Vec<&str> = log.lines().filter(|l| l.ends_with("= 0")).collect();
    let position = |what: &str, check: &dyn Fn(&str) -> bool| {
        calls
            .iter()
            .position(|l| check(l))
            .unwrap_or_else(|| panic!("no {what} in the trace:\n{log}"))
    };
    let skills = mia.skills().display().to_string();
    // The old and new folders are exchanged in one step: the skill folder never vanishes.
    let swap = position("exchange of the skill folder", &|l| {
        l.contains("renameat2(") && l.contains("RENAME_EXCHANGE") && l.contains(&format!("\"{skills}/ops/demo\""))
    });
    // Before it, every file and folder of the new one is flushed…
    for file in ["/SKILL.md>", "/references/notes.md>", "/references>"] {
        let synced = position(file, &|l| {
            l.contains("fsync(") && l.contains("/.cairn-demo-") && l.contains(file)
        });
        assert!(synced < swap, "{file} flushed after the swap:\n{log}");
    }
    // The marker saying the last pull ended cleanly goes, durably, before any folder is
    // staged: a pull interrupted from here on is cleaned up by the next.
    let state_dir = mia.home.path().join("state/cairn/targets").display().to_string();
    let unmarked = position("the clean marker removed", &|l| {
        l.contains("unlink") && l.contains(&state_dir) && l.contains(".clean\"")
    });
    let first_staging = position("a staging folder made", &|l| {
        l.contains("mkdir") && l.contains(&format!("{skills}/ops/.cairn-demo-"))
    });
    assert!(
        calls[unmarked..first_staging]
            .iter()
            .any(|l| l.contains("fsync(") && l.contains(&format!("<{state_dir}>"))),
        "the clean marker's removal is not flushed before the first staging folder:\n{log}"
    );
    let staged = position("the staging folder flushed", &|l| {
        l.contains("fsync(")
            && l.contains(&format!("{skills}/ops/.cairn-demo-"))
            && !l.contains("/SKILL.md")
            && !l.contains("/references")
    });
    assert!(staged < swap);
    // …after it, the folder holding it; and only then does the state record the new revision.
    let parent = swap
        + calls[swap..]
            .iter()
            .position(|l| l.contains("fsync(") && l.contains(&format!("<{skills}/ops>")))
            .unwrap_or_else(|| panic!("the folder holding the skill is not flushed after the swap:\n{log}"));
    let state = position("the state written", &|l| {
        (l.contains("rename(") || l.contains("renameat"))
            && l.contains("/state/cairn/targets/")
            && l.contains(".json\"")
    });
    assert!(
        parent < state,
        "the state was recorded before the folder was on disk:\n{log}"
    );
    assert!(
        calls[state..]
            .iter()
            .any(|l| l.contains("fsync(") && l.contains(&format!("<{state_dir}>"))),
        "the state's rename is not flushed:\n{log}"
    );
}

#[tokio::test]
async fn a_reader_that_leaves_early_ends_the_command_quietly() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let mia = Member::joining(&app, "mia", Role::Member).await;
    mia.pull().await;
    // `cairn status | head -0`: the reading end is closed before anything is printed.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_cairn"));
    command
        .args(["status", "--target", "hermes", "--offline"])
        .env_clear()
        .envs(mia.env.iter().map(|(k, v)| (k, v)))
        .stdout(writer)
        .stderr(std::process::Stdio::piped());
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(141), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// `cairn pull --target hermes --json` on `member`'s machine under strace with `options`
/// (following threads): the report, and the trace.
async fn traced_pull(member: &Member, options: &[&str]) -> (Value, String) {
    let trace = member.home.path().join("strace.log");
    let mut command = std::process::Command::new("strace");
    command
        .arg("-f")
        .args(options)
        .arg("-o")
        .arg(&trace)
        .args([env!("CARGO_BIN_EXE_cairn"), "pull", "--target", "hermes", "--json"])
        .env_clear()
        .envs(member.env.iter().map(|(k, v)| (k, v)));
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        std::fs::read_to_string(&trace).unwrap(),
    )
}

/// Skips (locally) or fails (in CI, which installs it) when strace is missing.
fn strace_available() -> bool {
    if std::process::Command::new("strace").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "strace is not installed: .ci/run installs it"
    );
    eprintln!("skipped: this test watches the client's system calls with strace, which is not installed");
    false
}

#[tokio::test]
async fn a_pull_that_finds_nothing_new_looks_at_no_skill_folder() {
    if !strace_available() {
        return;
    }
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    for i in 0..120 {
        let name = format!("skill-{i}");
        let body = DEMO.replace("name: demo", &format!("name: {name}"));
        write(tree.path(), &format!("cat-{}/{name}/SKILL.md", i % 4), &body);
    }
    app.import(tree.path()).await.unwrap();
    let mia = Member::joining(&app, "mia", Role::Reader).await;
    assert_eq!(mia.pull().await["skills"].as_array().unwrap().len(), 120);

    let (report, log) = traced_pull(&mia, &["-e", "trace=%file,%desc"]).await;
    assert!(actions(&report[0]).is_empty(), "{report}");
    // One conditional index request and nothing else: no skill folder is listed, opened
    // or even looked up (with 120 skills, looking for leftovers used to stat each).
    let skills = format!("{}/", mia.skills().display());
    let inside: Vec<&str> = log.lines().filter(|l| l.contains(&skills)).collect();
    assert!(
        inside.is_empty(),
        "a no-op pull touched skill folders:\n{}",
        inside.join("\n")
    );
}

#[tokio::test]
async fn a_pull_interrupted_midway_is_cleaned_up_by_the_next() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let mia = Member::joining(&app, "mia", Role::Reader).await;
    mia.pull().await;
    let targets = mia.home.path().join("state/cairn/targets");
    let marker = std::fs::read_dir(&targets)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "clean"))
        .expect("a pull that ended cleanly says so");
    // What a pull killed while swapping `demo` leaves: no marker, the folder set aside
    // under its staging name (with the member's edit), and a half-written staging folder.
    std::fs::remove_file(&marker).unwrap();
    let ops = mia.skills().join("ops");
    std::fs::rename(ops.join("demo"), ops.join(".cairn-old-demo-4242")).unwrap();
    write(&ops, ".cairn-old-demo-4242/SKILL.md", "edited here\n");
    write(&ops, ".cairn-demo-Xy12/SKILL.md", "half\n");

    let report = mia.pull().await;
    assert!(marker.exists());
    let left: Vec<String> = std::fs::read_dir(&ops)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, vec!["demo".to_owned()], "{report}");
    // The set-aside folder was put back, edit and all (then merged like any local edit).
    assert_eq!(
        std::fs::read_to_string(ops.join("demo/SKILL.md")).unwrap(),
        "edited here\n"
    );
}
