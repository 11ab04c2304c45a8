//! Two members' agents change the same line at once: the registry publishes one and puts
//! the other in conflict; the second member's `cairn status` says so, `cairn push` pulls
//! the latest and keeps the lesson beside it, and once resolved it goes again as a patch
//! that supersedes the old one. Lessons on different lines from the same revision merge
//! on their own.

mod common;

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_store::Role;
use serde_json::{Value, json};

use common::Member;

const DEMO: &str = "---\nname: demo\ndescription: The demo skill.\n---\n# Demo\n\n## Steps\n\n1. Install the tool.\n2. Run it on the data.\n\n## Pitfalls\n\n- None yet.\n";

async fn decide(app: &TestApp, reviewer: &str, id: &str) -> (StatusCode, Value) {
    app.post_json(reviewer, &format!("/v1/patches/{id}/approve"), &json!({}))
        .await
}

fn pushed_patch(pushed: &Value, skill: &str) -> String {
    pushed
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == skill)
        .and_then(|p| p["patch"].as_str())
        .unwrap_or_else(|| panic!("no patch for {skill}: {pushed}"))
        .to_owned()
}

#[tokio::test]
async fn a_conflicting_lesson_is_kept_resolved_and_resubmitted_superseding_the_old_patch() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let (_, token_a) = app.user_with_token("ana", Role::Member).await.unwrap();
    let (_, token_b) = app.user_with_token("ben", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let ana = Member::new(&app.base_url, &token_a);
    let ben = Member::new(&app.base_url, &token_b);
    ana.pull().await;
    ben.pull().await;
    let file = |m: &Member| m.hermes().join("skills/ops/demo/SKILL.md");

    // Both agents rewrite step 2, each their own way; Ana also adds a pitfall.
    let ana_text = DEMO
        .replace("2. Run it on the data.", "2. Run it on a sample first.")
        .replace("- None yet.", "- None yet.\n- Check the disk first.");
    std::fs::write(file(&ana), &ana_text).unwrap();
    std::fs::write(file(&ben), DEMO.replace("2. Run it on the data.", "2. Run it twice.")).unwrap();
    let a = pushed_patch(&ana.json(&["push", "--target", "hermes", "--json"]).await, "demo");
    let b = pushed_patch(&ben.json(&["push", "--target", "hermes", "--json"]).await, "demo");
    assert_eq!(decide(&app, &reviewer, &a).await.0, StatusCode::OK);
    let (status, body) = decide(&app, &reviewer, &b).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");

    // Ben's status says where his lesson stands.
    let status = ben.json(&["status", "--target", "hermes", "--json"]).await;
    let demo = &status[0]["skills"][0];
    assert_eq!(demo["proposal"]["patch"], b.as_str(), "{status}");
    assert_eq!(demo["proposal"]["status"], "conflict", "{status}");

    // Push follows it up: pulls revision 2, merges his change onto it; the same lines
    // changed, so the lesson waits beside the upstream text for him (nothing is lost).
    let out = ben.cairn(&["push", "--target", "hermes"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("patch {b} is conflict")), "{text}");
    assert!(text.contains("in conflict: resolve"), "{text}");
    let local = std::fs::read_to_string(file(&ben)).unwrap();
    assert!(local.contains("2. Run it twice."), "his lesson is kept: {local}");
    let upstream = std::fs::read_to_string(ben.hermes().join("skills/ops/demo/SKILL.md.upstream")).unwrap();
    assert_eq!(upstream, ana_text);

    // He resolves it (keeping both lessons) and pushes: a new patch supersedes the old.
    std::fs::write(
        file(&ben),
        ana_text.replace(
            "2. Run it on a sample first.",
            "2. Run it on a sample first, then twice.",
        ),
    )
    .unwrap();
    std::fs::remove_file(ben.hermes().join("skills/ops/demo/SKILL.md.upstream")).unwrap();
    let pushed = ben.json(&["push", "--target", "hermes", "--json"]).await;
    let c = pushed_patch(&pushed, "demo");
    assert_ne!(c, b);
    assert!(pushed[0]["message"].as_str().unwrap().contains(&b), "{pushed}");
    let new = app.get_json(&format!("/v1/patches/{c}")).await;
    assert_eq!(
        (new["supersedes"].as_str(), new["status"].as_str()),
        (Some(b.as_str()), Some("pending_review"))
    );
    assert_eq!(new["base_revision"], 2, "made against the revision he now has");
    let old = app.get_json(&format!("/v1/patches/{b}")).await;
    assert_eq!(
        (old["status"].as_str(), old["superseded_by"].as_str()),
        (Some("superseded"), Some(c.as_str()))
    );
    assert_eq!(decide(&app, &reviewer, &c).await.0, StatusCode::OK);
    ana.pull().await;
    let final_text = std::fs::read_to_string(file(&ana)).unwrap();
    assert!(
        final_text.contains("first, then twice.") && final_text.contains("- Check the disk first."),
        "{final_text}"
    );
}

#[tokio::test]
async fn lessons_on_different_lines_from_one_revision_all_land() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let mut members = Vec::new();
    for n in 0..4 {
        let member = Member::joining(&app, &format!("m{n}"), Role::Member).await;
        member.pull().await;
        members.push(member);
    }
    let edits = [
        DEMO.replace("- None yet.", "- None yet.\n- Pitfall from m0."),
        DEMO.replace("- None yet.", "- None yet.\n- Pitfall from m1."),
        DEMO.replace("1. Install the tool.", "1. Install the tool (version 2)."),
        format!("{DEMO}\n## Troubleshooting\n\nRestart it.\n"),
    ];
    let mut ids = Vec::new();
    for (member, text) in members.iter().zip(&edits) {
        std::fs::write(member.hermes().join("skills/ops/demo/SKILL.md"), text).unwrap();
        ids.push(pushed_patch(
            &member.json(&["push", "--target", "hermes", "--json"]).await,
            "demo",
        ));
    }
    for id in &ids {
        let (status, body) = decide(&app, &reviewer, id).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    // Each member's next pull brings everyone's lesson, and their own is not duplicated.
    for member in &members {
        member.pull().await;
        let text = std::fs::read_to_string(member.hermes().join("skills/ops/demo/SKILL.md")).unwrap();
        for lesson in ["- Pitfall from m0.\n- Pitfall from m1.\n", "(version 2)", "Restart it."] {
            assert_eq!(text.matches(lesson).count(), 1, "{lesson}: {text}");
        }
    }
}
