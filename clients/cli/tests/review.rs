//! A reviewer answers an agent's lesson: comments on its line and requests changes. The
//! member's `cairn status` shows them (each comment once, the request until answered),
//! the agent edits the skill again and `cairn push` sends the edits as the next round of
//! the same patch, which the reviewer reads in the review web (in Chromium) as round 2;
//! once approved, a teammate's pull brings the answered lesson.

mod common;

use cairn_e2e::app::{StatusCode, TestApp};
use cairn_e2e::browser::Browser;
use cairn_store::Role;
use serde_json::json;

use common::Member;

const DEMO: &str = "---\nname: demo\ndescription: The demo skill.\n---\n# Demo\n\n## Steps\n\n1. Install the tool.\n2. Run it on the data.\n\n## Pitfalls\n\n- None yet.\n";

#[tokio::test]
async fn requested_changes_reach_the_agent_and_its_next_push_is_the_next_round() {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[("ops/demo/SKILL.md", DEMO)]).await;
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let ana = Member::joining(&app, "ana", Role::Member).await;
    let ben = Member::joining(&app, "ben", Role::Member).await;
    ana.pull().await;
    ben.pull().await;
    let file = |m: &Member| m.hermes().join("skills/ops/demo/SKILL.md");
    std::fs::write(
        file(&ana),
        DEMO.replace("- None yet.", "- The tool hangs on big files."),
    )
    .unwrap();
    let pushed = ana.json(&["push", "--target", "hermes", "--json"]).await;
    let id = pushed[0]["patch"].as_str().unwrap().to_owned();

    // The reviewer asks on the line, then requests changes.
    let patch = app.get_json(&format!("/v1/patches/{id}")).await;
    let header = patch["diff"][0]["unified"]
        .as_str()
        .unwrap()
        .lines()
        .find(|l| l.starts_with("@@"))
        .unwrap()
        .to_owned();
    let new_start: i64 = header
        .split(['+', ',', ' '])
        .filter(|s| !s.is_empty())
        .nth(3)
        .unwrap()
        .parse()
        .unwrap();
    let line = new_start + 3;
    let (status, answer) = app
        .post_json(
            &reviewer,
            &format!("/v1/patches/{id}/comments"),
            &json!({"body": "How big is big?", "file": "SKILL.md", "line": line}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{answer} ({header})");
    let (status, _) = app
        .post_json(
            &reviewer,
            &format!("/v1/patches/{id}/request-changes"),
            &json!({"comment": "Give the size and what to do instead."}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    // Ana's status shows both comments once, and the request every time.
    let status = ana.json(&["status", "--target", "hermes", "--json"]).await;
    let proposal = &status[0]["skills"][0]["proposal"];
    assert_eq!(proposal["changes_requested_by"], "rex", "{status}");
    let comments: Vec<(&str, &str)> = proposal["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["place"].as_str().unwrap(), c["body"].as_str().unwrap()))
        .collect();
    assert_eq!(
        comments,
        [
            (format!("SKILL.md line {line}").as_str(), "How big is big?"),
            ("the patch", "Give the size and what to do instead.")
        ]
    );
    let out = ana.cairn(&["status", "--target", "hermes"]).await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("rex requested changes"), "{text}");
    let again = ana.json(&["status", "--target", "hermes", "--json"]).await;
    let proposal = &again[0]["skills"][0]["proposal"];
    assert_eq!(proposal["changes_requested_by"], "rex");
    assert!(proposal.get("comments").is_none(), "comments are shown once: {again}");

    // The agent answers: the next push is round 2 of the same patch.
    std::fs::write(
        file(&ana),
        DEMO.replace("- None yet.", "- The tool hangs on files over 2 GB: split them first."),
    )
    .unwrap();
    let pushed = ana.json(&["push", "--target", "hermes", "--json"]).await;
    assert_eq!(
        (pushed[0]["action"].as_str(), pushed[0]["patch"].as_str()),
        (Some("revised"), Some(id.as_str())),
        "{pushed}"
    );
    assert!(pushed[0]["message"].as_str().unwrap().contains("round 2"), "{pushed}");
    let patch = app.get_json(&format!("/v1/patches/{id}")).await;
    assert_eq!(
        (patch["round"].as_i64(), patch["changes_requested"].clone()),
        (Some(2), json!(null))
    );
    // The reviewer reads the round `cairn push` sent in the review web (Chromium): round 2,
    // what changed since round 1, and the earlier thread marked as round 1's.
    let browser = Browser::start().await;
    browser.log_in(&app.base_url, &reviewer).await;
    browser
        .client
        .goto(&format!("{}/admin/patches/{id}", app.base_url))
        .await
        .unwrap();
    assert_eq!(browser.text("#patch-round").await, "2");
    assert!(
        browser
            .text("#rounds-title")
            .await
            .contains("Round 2: what changed since round 1")
    );
    let rounds = browser.text("#rounds").await;
    assert!(
        rounds.contains("over 2 GB: split them first.") && rounds.contains("hangs on big files"),
        "{rounds}"
    );
    assert!(
        browser
            .text("#conversation")
            .await
            .contains("round 1: those lines may have changed since")
    );
    browser.check_accessibility("a round sent by cairn push").await;
    browser.screenshot("patch-round-2-from-cairn-push").await;
    browser.stop().await;
    let (status, _) = app
        .post_json(&reviewer, &format!("/v1/patches/{id}/approve"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK);
    ben.pull().await;
    let text = std::fs::read_to_string(file(&ben)).unwrap();
    assert!(text.contains("over 2 GB: split them first."), "{text}");
}
