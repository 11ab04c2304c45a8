//! The conversation on a patch over REST and gRPC: comments on lines of the diff and on
//! the patch, in threads; a reviewer's request for changes that keeps the patch open;
//! every comment audited; bad comments refused without a trace; many members commenting
//! at once.

use cairn_e2e::app::{TestApp, error_message, send};
use cairn_proto::v1 as pb;
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

const BODY: &str = "## Steps\n\n1. Install the tool.\n2. Run it on the data.\n3. Check the output.\n";

/// An app with the skill `demo`, a member's open patch on it, the member's token and a
/// reviewer's.
struct Review {
    app: TestApp,
    patch: String,
    member: String,
    reviewer: String,
    /// The line of SKILL.md the patch adds, as its diff numbers it.
    added_line: i64,
}

async fn review() -> Review {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let (status, patch) = send(app.post_as(&member, "/v1/patches").json(&json!({
        "skill": "demo",
        "base_revision": 1,
        "summary": "check the exit code",
        "ops": [{"op": "patch", "old": "3. Check the output.", "new": "3. Check the output and the exit code."}],
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{patch}");
    let added_line = added_line(&patch["diff"][0]["unified"], "+3. Check the output and the exit code.");
    Review {
        patch: patch["id"].as_str().unwrap().to_owned(),
        app,
        member,
        reviewer,
        added_line,
    }
}

/// The new-side number of the diff line `wanted` (with its `+`).
fn added_line(unified: &Value, wanted: &str) -> i64 {
    let mut new_no = 0;
    for line in unified.as_str().unwrap().lines() {
        if let Some(header) = line.strip_prefix("@@ -") {
            let new = header.split_whitespace().nth(1).unwrap().trim_start_matches('+');
            new_no = new.split(',').next().unwrap().parse::<i64>().unwrap();
            continue;
        }
        if line == wanted {
            return new_no;
        }
        if !line.starts_with('-') && !line.starts_with("---") && !line.starts_with("+++") {
            new_no += 1;
        }
    }
    panic!("{wanted} is not in {unified}");
}

impl Review {
    async fn comment(&self, token: &str, body: Value) -> (StatusCode, Value) {
        send(
            self.app
                .post_as(token, &format!("/v1/patches/{}/comments", self.patch))
                .json(&body),
        )
        .await
    }

    async fn request_changes(&self, token: &str, body: Value) -> (StatusCode, Value) {
        send(
            self.app
                .post_as(token, &format!("/v1/patches/{}/request-changes", self.patch))
                .json(&body),
        )
        .await
    }

    async fn read(&self, token: &str) -> Value {
        self.app
            .get_json_as(token, &format!("/v1/patches/{}", self.patch))
            .await
    }
}

#[tokio::test]
async fn a_reviewer_comments_on_a_line_requests_changes_and_the_author_reads_both() {
    let r = review().await;
    let line = r.added_line;
    let (status, first) = r
        .comment(
            &r.reviewer,
            json!({"body": "Which **exit code** means success?", "file": "SKILL.md", "line": line}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    assert_eq!(
        (first["author"].as_str(), first["kind"].as_str()),
        (Some("rex"), Some("comment"))
    );
    let thread = first["id"].as_i64().unwrap();
    let (status, answer) = r
        .comment(
            &r.member,
            json!({"body": "Zero; anything else is a failure.", "reply_to": thread}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let (status, patch) = r
        .request_changes(
            &r.reviewer,
            json!({"comment": "Say in the step that zero means success."}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{patch}");
    assert_eq!(patch["status"], "pending_review", "the patch stays open");
    assert_eq!(patch["changes_requested"]["by"], "rex");

    // The author's agent reads the same conversation.
    let read = r.read(&r.member).await;
    assert_eq!(read["threads"], patch["threads"]);
    let threads = read["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 2, "{read}");
    assert_eq!(
        (
            threads[0]["id"].as_i64(),
            threads[0]["file"].as_str(),
            threads[0]["line"].as_i64(),
            threads[0]["end_line"].as_i64(),
            threads[0]["side"].as_str()
        ),
        (Some(thread), Some("SKILL.md"), Some(line), Some(line), Some("new"))
    );
    let bodies: Vec<&str> = threads[0]["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["body"].as_str().unwrap())
        .collect();
    assert_eq!(
        bodies,
        [
            "Which **exit code** means success?",
            "Zero; anything else is a failure."
        ]
    );
    assert_eq!(threads[1]["comments"][0]["kind"], "changes_requested");
    assert!(
        threads[1].get("file").is_none(),
        "a request for changes is on the patch"
    );
    let listed = r.app.get_json_as(&r.member, "/v1/patches?status=open").await;
    assert_eq!(listed["items"][0]["changes_requested_by"], "rex");

    // gRPC reads the same threads.
    let mut grpc = r.app.grpc(Some(&r.member)).await.unwrap();
    let over_grpc = grpc
        .get_patch(pb::GetPatchRequest { id: r.patch.clone() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(over_grpc.changes_requested_by.as_deref(), Some("rex"));
    assert_eq!(over_grpc.threads.len(), 2);
    assert_eq!(over_grpc.threads[0].line, Some(line as i32));
    assert_eq!(over_grpc.threads[0].comments[1].author, "mia");
    assert_eq!(over_grpc.threads[1].comments[0].kind, "changes_requested");

    // Every comment and the decision are audited against the patch.
    let audit = r
        .app
        .get_json(&format!("/v1/audit?target=patch:{}&limit=50", r.patch))
        .await;
    let mut actions: Vec<&str> = audit["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .filter(|a| *a != "patch.submit")
        .collect();
    actions.sort_unstable();
    assert_eq!(
        actions,
        ["patch.comment", "patch.comment", "patch.request_changes"],
        "{audit}"
    );

    // Once decided, the request is no longer outstanding; comments still go on, a new
    // request for changes does not.
    let (status, approved) = send(
        r.app
            .post_as(&r.reviewer, &format!("/v1/patches/{}/approve", r.patch))
            .json(&json!({})),
    )
    .await;
    assert_eq!(
        (status, approved["status"].as_str()),
        (StatusCode::OK, Some("approved")),
        "{approved}"
    );
    assert!(approved["changes_requested"].is_null());
    let (status, late) = r
        .request_changes(&r.reviewer, json!({"comment": "one more thing"}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{late}");
    assert!(error_message(&late).contains("approved"), "{late}");
    let (status, _) = r.comment(&r.member, json!({"body": "Thanks!"})).await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn bad_comments_are_refused_and_change_nothing() {
    let r = review().await;
    let line = r.added_line;
    let (_, thread) = r.comment(&r.reviewer, json!({"body": "first"})).await;
    let thread = thread["id"].as_i64().unwrap();
    let (_, reply) = r
        .comment(&r.member, json!({"body": "an answer", "reply_to": thread}))
        .await;
    let reply = reply["id"].as_i64().unwrap();
    let before = r.app.state_snapshot().await.unwrap();
    let long = "x".repeat(10_001);
    let cases: Vec<(Value, StatusCode, &str)> = vec![
        (json!({"body": ""}), StatusCode::BAD_REQUEST, "needs text"),
        (json!({"body": " \n\t"}), StatusCode::BAD_REQUEST, "needs text"),
        (json!({"body": long}), StatusCode::BAD_REQUEST, "longer than"),
        (json!({}), StatusCode::BAD_REQUEST, "body"),
        (
            json!({"body": "x", "colour": "red"}),
            StatusCode::BAD_REQUEST,
            "unknown field",
        ),
        (
            json!({"body": "x", "file": "SKILL.md"}),
            StatusCode::BAD_REQUEST,
            "both \"file\" and \"line\"",
        ),
        (
            json!({"body": "x", "line": line}),
            StatusCode::BAD_REQUEST,
            "both \"file\" and \"line\"",
        ),
        (
            json!({"body": "x", "end_line": line}),
            StatusCode::BAD_REQUEST,
            "both \"file\" and \"line\"",
        ),
        (
            json!({"body": "x", "file": "SKILL.md", "line": 0}),
            StatusCode::BAD_REQUEST,
            "not a range",
        ),
        (
            json!({"body": "x", "file": "SKILL.md", "line": line, "end_line": line - 1}),
            StatusCode::BAD_REQUEST,
            "not a range",
        ),
        (
            json!({"body": "x", "file": "references/none.md", "line": 1}),
            StatusCode::BAD_REQUEST,
            "not a file this patch changes",
        ),
        (
            json!({"body": "x", "file": "SKILL.md", "line": 900}),
            StatusCode::BAD_REQUEST,
            "does not show",
        ),
        (
            json!({"body": "x", "file": "SKILL.md", "line": line, "side": "both"}),
            StatusCode::BAD_REQUEST,
            "side",
        ),
        (
            json!({"body": "x", "file": "SKILL.md", "line": line, "reply_to": thread}),
            StatusCode::BAD_REQUEST,
            "not both",
        ),
        (
            json!({"body": "x", "reply_to": 999_999}),
            StatusCode::NOT_FOUND,
            "no thread",
        ),
        (
            json!({"body": "x", "reply_to": reply}),
            StatusCode::NOT_FOUND,
            "no thread",
        ),
        (
            json!({"body": "x", "line": "one"}),
            StatusCode::BAD_REQUEST,
            "invalid type",
        ),
    ];
    for (body, status, says) in cases {
        let (got, answer) = r.comment(&r.reviewer, body.clone()).await;
        assert_eq!(got, status, "{body} → {answer}");
        assert!(error_message(&answer).contains(says), "{body} → {answer}");
    }
    assert_eq!(
        r.app.state_snapshot().await.unwrap(),
        before,
        "refused comments change nothing"
    );

    // Another patch's thread is no thread of this one.
    let (_, other) = send(r.app.post_as(&r.member, "/v1/patches").json(&json!({
        "skill": "demo", "base_revision": 1,
        "ops": [{"op": "patch", "old": "1. Install the tool.", "new": "1. Install the tool with pipx."}],
    })))
    .await;
    let other = other["id"].as_str().unwrap();
    let before = r.app.state_snapshot().await.unwrap();
    let (status, answer) = send(
        r.app
            .post_as(&r.reviewer, &format!("/v1/patches/{other}/comments"))
            .json(&json!({"body": "x", "reply_to": thread})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{answer}");

    // Unknown and malformed patches, and requests for changes that may not be made.
    let (_, reader) = r.app.user_with_token("rita", Role::Reader).await.unwrap();
    let missing = uuid::Uuid::new_v4();
    let requests: Vec<(reqwest::RequestBuilder, StatusCode, &str)> = vec![
        (
            r.app
                .post_as(&r.reviewer, &format!("/v1/patches/{missing}/comments"))
                .json(&json!({"body": "x"})),
            StatusCode::NOT_FOUND,
            "does not exist",
        ),
        (
            r.app
                .post_as(&r.reviewer, "/v1/patches/nope/comments")
                .json(&json!({"body": "x"})),
            StatusCode::BAD_REQUEST,
            "",
        ),
        (
            r.app
                .post_as(&reader, &format!("/v1/patches/{}/comments", r.patch))
                .json(&json!({"body": "x"})),
            StatusCode::FORBIDDEN,
            "",
        ),
        (
            r.app
                .post_as(&r.reviewer, &format!("/v1/patches/{}/request-changes", r.patch))
                .json(&json!({"comment": "  "})),
            StatusCode::BAD_REQUEST,
            "say what the author should change",
        ),
        (
            r.app
                .post_as(&r.reviewer, &format!("/v1/patches/{}/request-changes", r.patch))
                .json(&json!({})),
            StatusCode::BAD_REQUEST,
            "comment",
        ),
        (
            r.app
                .post_as(&r.member, &format!("/v1/patches/{}/request-changes", r.patch))
                .json(&json!({"comment": "please"})),
            StatusCode::FORBIDDEN,
            "",
        ),
        (
            r.app
                .post_as(&r.reviewer, &format!("/v1/patches/{missing}/request-changes"))
                .json(&json!({"comment": "please"})),
            StatusCode::NOT_FOUND,
            "does not exist",
        ),
    ];
    for (request, status, says) in requests {
        let (got, answer) = send(request).await;
        assert_eq!(got, status, "{answer}");
        assert!(error_message(&answer).contains(says), "{answer}");
    }
    // The author may not request changes of their own patch, even as a reviewer.
    let (_, own) = send(r.app.post_as(&r.reviewer, "/v1/patches").json(&json!({
        "skill": "demo", "base_revision": 1,
        "ops": [{"op": "patch", "old": "2. Run it on the data.", "new": "2. Run it on a copy of the data."}],
    })))
    .await;
    let own = own["id"].as_str().unwrap().to_owned();
    assert_eq!(
        r.app.state_snapshot().await.unwrap().0.get("patch_comments"),
        before.0.get("patch_comments"),
        "no refused request was stored"
    );
    let before = r.app.state_snapshot().await.unwrap();
    let (status, answer) = send(
        r.app
            .post_as(&r.reviewer, &format!("/v1/patches/{own}/request-changes"))
            .json(&json!({"comment": "myself"})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    assert!(error_message(&answer).contains("you wrote this patch"), "{answer}");
    assert_eq!(r.app.state_snapshot().await.unwrap(), before, "refusals change nothing");
    let read = r.read(&r.member).await;
    assert!(read["changes_requested"].is_null(), "{read}");
}

#[tokio::test]
async fn many_members_comment_at_once_and_nothing_is_lost_or_doubled() {
    let r = review().await;
    let (_, thread) = r.comment(&r.reviewer, json!({"body": "thoughts?"})).await;
    let thread = thread["id"].as_i64().unwrap();
    let mut tokens = Vec::new();
    for i in 0..6 {
        let (_, token) = r.app.user_with_token(&format!("m{i}"), Role::Reviewer).await.unwrap();
        tokens.push(token);
    }
    let r = &r;
    let writes = tokens.iter().enumerate().flat_map(|(i, token)| {
        (0..4).map(move |j| {
            let body = match j % 2 {
                0 => json!({"body": format!("answer {i}.{j}"), "reply_to": thread}),
                _ => json!({"body": format!("thread {i}.{j}"), "file": "SKILL.md", "line": r.added_line}),
            };
            let request = r
                .app
                .post_as(token, &format!("/v1/patches/{}/comments", r.patch))
                .json(&body);
            async move { send(request).await }
        })
    });
    let changes = tokens.iter().map(|token| {
        let request = r
            .app
            .post_as(token, &format!("/v1/patches/{}/request-changes", r.patch))
            .json(&json!({"comment": "please add the exit code"}));
        async move { send(request).await }
    });
    let (written, requested) = tokio::join!(futures::future::join_all(writes), futures::future::join_all(changes));
    assert!(written.iter().all(|(s, _)| *s == StatusCode::CREATED), "{written:?}");
    assert!(requested.iter().all(|(s, _)| *s == StatusCode::OK), "{requested:?}");

    let read = r.read(&r.member).await;
    let threads = read["threads"].as_array().unwrap();
    let all: Vec<&Value> = threads.iter().flat_map(|t| t["comments"].as_array().unwrap()).collect();
    assert_eq!(all.len(), 1 + 24 + 6, "every comment kept once");
    let mut ids: Vec<i64> = all.iter().map(|c| c["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len());
    assert_eq!(
        threads[0]["comments"].as_array().unwrap().len(),
        1 + 12,
        "answers joined their thread"
    );
    assert_eq!(threads.len(), 1 + 12 + 6);
    let requested_by: Vec<&str> = requested
        .iter()
        .map(|(_, p)| p["changes_requested"]["by"].as_str().unwrap())
        .collect();
    assert!(requested_by.contains(&read["changes_requested"]["by"].as_str().unwrap()));
    let audit = r
        .app
        .get_json(&format!("/v1/audit?target=patch:{}&action=patch.&limit=100", r.patch))
        .await;
    let audited = audit["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| matches!(e["action"].as_str(), Some("patch.comment" | "patch.request_changes")))
        .count();
    assert_eq!(audited, all.len(), "one audit row per comment");
}

/// The author's next round of the review's patch (the whole change again, from revision 1).
async fn next_round(r: &Review, token: &str, new: &str) -> (StatusCode, Value) {
    send(
        r.app
            .post_as(token, &format!("/v1/patches/{}/revisions", r.patch))
            .json(&json!({
                "base_revision": 1,
                "rationale": "answered the review",
                "ops": [{"op": "patch", "old": "3. Check the output.", "new": new}],
            })),
    )
    .await
}

#[tokio::test]
async fn the_author_answers_requested_changes_with_a_new_round_of_the_same_patch() {
    let r = review().await;
    let (_, first) = r
        .comment(
            &r.reviewer,
            json!({"body": "Which code?", "file": "SKILL.md", "line": r.added_line}),
        )
        .await;
    let (status, _) = r
        .request_changes(&r.reviewer, json!({"comment": "Say that zero means success."}))
        .await;
    assert_eq!(status, StatusCode::OK);

    let (status, patch) = next_round(&r, &r.member, "3. Check the output and that the exit code is zero.").await;
    assert_eq!(status, StatusCode::OK, "{patch}");
    assert_eq!(patch["id"], r.patch.as_str(), "the same patch");
    assert_eq!(
        (patch["round"].as_i64(), patch["status"].as_str()),
        (Some(2), Some("pending_review"))
    );
    assert!(
        patch["changes_requested"].is_null(),
        "the new round answers the request"
    );
    assert_eq!(patch["summary"], "check the exit code", "kept from round 1");
    assert_eq!(patch["rationale"], "answered the review");
    let rounds = patch["rounds"].as_array().unwrap();
    assert_eq!(rounds.len(), 1);
    assert_eq!(
        (rounds[0]["round"].as_i64(), rounds[0]["status"].as_str()),
        (Some(1), Some("pending_review"))
    );
    // What changed between the rounds, and the latest diff, both say so.
    let between = patch["round_diff"][0]["unified"].as_str().unwrap();
    assert!(
        between.contains("-3. Check the output and the exit code.")
            && between.contains("+3. Check the output and that the exit code is zero."),
        "{between}"
    );
    assert!(
        patch["diff"][0]["unified"]
            .as_str()
            .unwrap()
            .contains("+3. Check the output and that the exit code is zero.")
    );
    // The threads stay, each with the round whose lines it is about.
    let threads = patch["threads"].as_array().unwrap();
    assert_eq!(
        (threads[0]["id"].as_i64(), threads[0]["round"].as_i64()),
        (first["id"].as_i64(), Some(1))
    );
    let (_, later) = r.comment(&r.reviewer, json!({"body": "Better."})).await;
    let read = r.read(&r.member).await;
    let last = read["threads"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["id"].clone(), last["round"].as_i64()),
        (later["id"].clone(), Some(2))
    );
    let audit = r
        .app
        .get_json(&format!("/v1/audit?target=patch:{}&action=patch.revise", r.patch))
        .await;
    assert_eq!(audit["items"][0]["details"]["round"], 2, "{audit}");

    // A reviewer who read round 1 cannot approve round 2 unseen.
    let before = r.app.state_snapshot().await.unwrap();
    let (status, stale) = r
        .app
        .post_json(
            &r.reviewer,
            &format!("/v1/patches/{}/approve", r.patch),
            &json!({"round": 1}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{stale}");
    assert!(error_message(&stale).contains("review the new round"), "{stale}");
    // Nor comment on it or ask for changes as if it had read it.
    for (status, stale) in [
        r.comment(&r.reviewer, json!({"body": "About round 1.", "round": 1}))
            .await,
        r.request_changes(&r.reviewer, json!({"comment": "Still wrong.", "round": 1}))
            .await,
    ] {
        assert_eq!(status, StatusCode::CONFLICT, "{stale}");
        assert!(
            error_message(&stale).contains("read round 1 of this patch and it is in round 2 now"),
            "{stale}"
        );
    }
    assert_eq!(r.app.state_snapshot().await.unwrap(), before);
    let (status, current) = r
        .comment(&r.reviewer, json!({"body": "About round 2.", "round": 2}))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{current}");

    // Approving publishes round 2's text.
    let (status, approved) = r
        .app
        .post_json(
            &r.reviewer,
            &format!("/v1/patches/{}/approve", r.patch),
            &json!({"round": 2}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let text = r
        .app
        .get("/v1/skills/demo/versions/2/files/SKILL.md")
        .send()
        .await
        .unwrap();
    assert!(text.text().await.unwrap().contains("that the exit code is zero."));
    // A decided patch takes no new round.
    let (status, answer) = next_round(&r, &r.member, "3. Again.").await;
    assert_eq!(status, StatusCode::CONFLICT, "{answer}");
    assert!(error_message(&answer).contains("send a new patch instead"), "{answer}");
}

#[tokio::test]
async fn bad_rounds_are_refused_and_change_nothing() {
    let r = review().await;
    let before = r.app.state_snapshot().await.unwrap();
    let revisions = |token: &str, body: Value| {
        r.app
            .post_as(token, &format!("/v1/patches/{}/revisions", r.patch))
            .json(&body)
    };
    let ops = json!([{"op": "patch", "old": "3. Check the output.", "new": "3. Check twice."}]);
    let cases: Vec<(reqwest::RequestBuilder, StatusCode, &str)> = vec![
        (
            revisions(&r.reviewer, json!({"base_revision": 1, "ops": ops})),
            StatusCode::FORBIDDEN,
            "only its author",
        ),
        (
            revisions(&r.member, json!({"ops": ops})),
            StatusCode::BAD_REQUEST,
            "base_revision",
        ),
        (
            revisions(&r.member, json!({"base_revision": 1, "ops": ops, "skill": "other"})),
            StatusCode::BAD_REQUEST,
            "unknown field",
        ),
        (
            revisions(
                &r.member,
                json!({"base_revision": 1, "ops": [{"op": "patch", "old": "not in the file", "new": "x"}]}),
            ),
            StatusCode::UNPROCESSABLE_ENTITY,
            "",
        ),
        (
            revisions(&r.member, json!({"base_revision": 7, "ops": ops})),
            StatusCode::NOT_FOUND,
            "no revision 7",
        ),
        (
            revisions(&r.member, json!({"base_revision": 1, "ops": "patch"})),
            StatusCode::BAD_REQUEST,
            "ops",
        ),
        (
            r.app
                .post_as(&r.member, &format!("/v1/patches/{}/revisions", uuid::Uuid::new_v4()))
                .json(&json!({"base_revision": 1, "ops": ops})),
            StatusCode::NOT_FOUND,
            "does not exist",
        ),
    ];
    for (request, status, says) in cases {
        let (got, answer) = send(request).await;
        assert_eq!(got, status, "{answer}");
        assert!(error_message(&answer).contains(says), "{answer}");
    }
    assert_eq!(
        r.app.state_snapshot().await.unwrap(),
        before,
        "refused rounds change nothing"
    );
    assert_eq!(r.read(&r.member).await["round"], 1);
}

#[tokio::test]
async fn rounds_sent_at_once_each_land_once_or_are_told_to_read_again() {
    let r = review().await;
    let attempts = (0..8).map(|i| {
        let r = &r;
        async move { next_round(r, &r.member, &format!("3. Check the output ({i}).")).await }
    });
    let answers = futures::future::join_all(attempts).await;
    let landed = answers.iter().filter(|(s, _)| *s == StatusCode::OK).count();
    let told = answers
        .iter()
        .filter(|(s, body)| *s == StatusCode::CONFLICT && error_message(body).contains("read the patch again"))
        .count();
    assert!(landed >= 1, "{answers:?}");
    assert_eq!(landed + told, answers.len(), "{answers:?}");
    let read = r.read(&r.member).await;
    assert_eq!(read["round"].as_i64(), Some(1 + landed as i64));
    let rounds: Vec<i64> = read["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["round"].as_i64().unwrap())
        .collect();
    assert_eq!(
        rounds,
        (1..=landed as i64).collect::<Vec<_>>(),
        "each earlier round kept once"
    );
}

#[tokio::test]
async fn the_review_page_shows_the_second_round_and_what_changed_since_the_first() {
    let r = review().await;
    let (_, first) = r
        .comment(
            &r.reviewer,
            json!({"body": "Which code?", "file": "SKILL.md", "line": r.added_line}),
        )
        .await;
    let (status, _) = next_round(&r, &r.member, "3. Check the output and that the exit code is zero.").await;
    assert_eq!(status, StatusCode::OK);
    let mut web = cairn_e2e::web::WebSession::login(&r.app.base_url, &r.reviewer)
        .await
        .unwrap();
    let page = web.get(&format!("/admin/patches/{}", r.patch)).await.unwrap();
    assert_eq!(page.status, StatusCode::OK);
    let body = &page.body;
    let section = &body[body.find("id=\"rounds\"").expect("the rounds section")..];
    // Changed words are marked inside the lines; the text reads through the marks.
    let section = section[..section.find("</section>").unwrap()]
        .replace("<mark class=\"word\">", "")
        .replace("</mark>", "");
    assert!(section.contains("Round 2: what changed since round 1"), "{section}");
    assert!(section.contains("3. Check the output and the exit code."), "{section}");
    assert!(
        section.contains("3. Check the output and that the exit code is zero."),
        "{section}"
    );
    assert!(
        !section.contains("Comment on line"),
        "lines between rounds are not commented on"
    );
    // Round 1's thread stays in the conversation, marked with its round, not under a
    // line of round 2's diff.
    let thread = format!("id=\"thread-{}\"", first["id"]);
    let conversation = &body[body.find("id=\"conversation\"").unwrap()..body.find("id=\"rounds\"").unwrap()];
    assert!(conversation.contains(&thread), "{conversation}");
    assert!(
        conversation.contains("(round 1: those lines may have changed since)"),
        "{conversation}"
    );
    assert!(body.contains("id=\"patch-round\">2<"));
}
