//! Many agents learning at once (issue 18), end to end over REST and gRPC: lessons made
//! against one revision all land when approved in order, approvals racing on two
//! replicas give a linear history, conflicts are re-checked when the skill moves on or
//! resolved by a reviewer, duplicates are marked, grouped and closed with one approval,
//! batches decide many patches, and every bad request changes nothing.

use cairn_e2e::app::{TestApp, send};
use cairn_proto::v1 as pb;
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::skill_md;

const BODY: &str = "## Steps\n\n1. Install the tool.\n2. Run it on the data.\n3. Check the output.\n\n## Pitfalls\n\n- Large inputs need `--stream`.\n- The cache lives in `~/.cache/tool`.\n- Logs go to stderr.\n";

/// The skill `demo` at revision 1, a reviewer, and members.
struct Team {
    app: TestApp,
    reviewer: String,
    members: Vec<String>,
}

async fn team(members: usize) -> Team {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let mut tokens = Vec::new();
    for n in 0..members {
        let (_, token) = app.user_with_token(&format!("member{n}"), Role::Member).await.unwrap();
        tokens.push(token);
    }
    Team {
        app,
        reviewer,
        members: tokens,
    }
}

impl Team {
    async fn submit(&self, token: &str, body: Value) -> (StatusCode, Value) {
        send(self.app.post_as(token, "/v1/patches").json(&body)).await
    }

    async fn post(&self, token: &str, path: &str, body: Value) -> (StatusCode, Value) {
        send(self.app.post_as(token, path).json(&body)).await
    }

    /// Members 0 and 1 rewrite line `old` of r1 as `first`, then `clash` (by `agent`): two patches that conflict.
    async fn clashing(&self, old: &str, first: &str, clash: &str, agent: &str) -> (Value, Value) {
        let (_, first) = self
            .submit(&self.members[0], edit(&BODY.replace(old, first), "a"))
            .await;
        let (_, clash) = self
            .submit(&self.members[1], edit(&BODY.replace(old, clash), agent))
            .await;
        (first, clash)
    }

    /// Member `n` of the first ones each adds one pitfall after the last one of r1 (its
    /// agent `agent-n`): the patches' ids, in order.
    async fn add_pitfalls(&self, lines: &[&str]) -> Vec<String> {
        let mut ids = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            let body = BODY.replace("- Logs go to stderr.\n", &format!("- Logs go to stderr.\n{line}"));
            let (status, p) = self.submit(&self.members[n], edit(&body, &format!("agent-{n}"))).await;
            assert_eq!(status, StatusCode::CREATED, "{p}");
            ids.push(id_of(&p));
        }
        ids
    }

    /// The authors a version of `demo` names among its contributors, in order.
    async fn contributors(&self, revision: i32) -> Vec<String> {
        let (_, v) = send(self.app.get(&format!("/v1/skills/demo/versions/{revision}"))).await;
        v["contributors"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .map(|c| c["author"].as_str().unwrap().to_owned())
            .collect()
    }

    /// The reviewer approves patch `id` (the step most of these tests repeat).
    async fn approve(&self, id: &str) -> (StatusCode, Value) {
        self.post(&self.reviewer, &format!("/v1/patches/{id}/approve"), json!({}))
            .await
    }

    async fn patch(&self, id: &str) -> Value {
        send(self.app.get(&format!("/v1/patches/{id}"))).await.1
    }

    async fn skill_md(&self) -> String {
        let response = self
            .app
            .get("/v1/skills/demo/versions/latest/files/SKILL.md")
            .send()
            .await
            .unwrap();
        response.text().await.unwrap()
    }
}

/// The whole SKILL.md of revision 1 with `body` instead of [`BODY`]: what `cairn push`
/// sends (an `edit` against the synced revision).
fn edit(body: &str, agent: &str) -> Value {
    json!({
        "skill": "demo", "base_revision": 1, "summary": "a pitfall", "rationale": "hit it",
        "agent": {"name": agent, "model": "m", "session": "s"},
        "ops": [{"op": "edit", "content": skill_md("demo", "demo does things", body)}],
    })
}

fn id_of(patch: &Value) -> String {
    patch["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn ten_agents_add_a_pitfall_from_the_same_revision_and_every_lesson_lands_in_approval_order() {
    let team = team(10).await;
    let mut ids = Vec::new();
    for (n, token) in team.members.iter().enumerate() {
        let lesson = format!("- Pitfall {n}: retry step {n} when the proxy drops.\n");
        let body = BODY.replace("- Logs go to stderr.\n", &format!("- Logs go to stderr.\n{lesson}"));
        let (status, p) = team.submit(token, edit(&body, &format!("agent-{n}"))).await;
        assert_eq!(status, StatusCode::CREATED, "{p}");
        ids.push(id_of(&p));
    }
    for (n, id) in ids.iter().enumerate() {
        let (status, p) = team.approve(id).await;
        assert_eq!(status, StatusCode::OK, "lesson {n}: {p}");
        assert_eq!(p["result_revision"], n as i64 + 2);
        let placement = &p["rebase"]["files"][0]["placement"];
        if n == 0 {
            assert_eq!(p["rebase"]["rebased"], false, "made against the latest: {p}");
        } else {
            assert_eq!(placement, "structural_insertion", "{p}");
            assert_eq!(p["rebase"]["ops"][0]["placement"], "structural_insertion");
        }
    }
    let lessons: String = (0..10)
        .map(|n| format!("- Pitfall {n}: retry step {n} when the proxy drops.\n"))
        .collect();
    let expected = skill_md(
        "demo",
        "demo does things",
        &BODY.replace("- Logs go to stderr.\n", &format!("- Logs go to stderr.\n{lessons}")),
    );
    assert_eq!(team.skill_md().await, expected, "every lesson once, in approval order");
    // The version names the patch that made it and who reported the lesson.
    let (_, v) = send(team.app.get("/v1/skills/demo/versions/11")).await;
    assert_eq!(v["patch"], ids[9].as_str());
    assert_eq!(v["contributors"][0]["author"], "member9");
    assert_eq!(v["contributors"][0]["agent"]["name"], "agent-9");
}

#[tokio::test]
async fn approvals_racing_on_two_replicas_give_one_revision_per_lesson() {
    let team = team(1).await;
    let replica = team.app.replica().await.unwrap();
    // Lessons of three shapes against revision 1: bullets appended to the pitfalls list,
    // a note on a distinct existing line, a new section at the end.
    let mut bodies = Vec::new();
    for n in 0..8 {
        bodies.push(BODY.replace(
            "- Logs go to stderr.\n",
            &format!("- Logs go to stderr.\n- Lesson {n}.\n"),
        ));
    }
    bodies.push(BODY.replace("1. Install the tool.", "1. Install the tool (pin the version)."));
    bodies.push(BODY.replace("3. Check the output.", "3. Check the output against the sample."));
    bodies.push(format!("{BODY}\n## Troubleshooting\n\nRestart the daemon first.\n"));
    let mut ids = Vec::new();
    for body in &bodies {
        let (status, p) = team.submit(&team.members[0], edit(body, "hermes")).await;
        assert_eq!(status, StatusCode::CREATED, "{p}");
        ids.push(id_of(&p));
    }
    let client = team.app.client.clone();
    let approvals = ids.iter().enumerate().map(|(n, id)| {
        let base = if n % 2 == 0 {
            team.app.base_url.clone()
        } else {
            replica.base_url.clone()
        };
        let (client, token) = (client.clone(), team.reviewer.clone());
        async move {
            send(
                client
                    .post(format!("{base}/v1/patches/{id}/approve"))
                    .bearer_auth(token)
                    .json(&json!({})),
            )
            .await
        }
    });
    let results = futures::future::join_all(approvals).await;
    let mut revisions: Vec<i64> = results
        .iter()
        .map(|(status, p)| {
            assert_eq!(*status, StatusCode::OK, "{p}");
            p["result_revision"].as_i64().unwrap()
        })
        .collect();
    revisions.sort_unstable();
    assert_eq!(
        revisions,
        (2..=12).collect::<Vec<_>>(),
        "one revision per approval, none lost or doubled"
    );
    let produced: Vec<(i32, Option<uuid::Uuid>)> = sqlx::query_as(
        "SELECT v.revision, v.patch_id FROM versions v JOIN skills s ON s.id = v.skill_id WHERE s.name = 'demo' ORDER BY 1",
    )
    .fetch_all(team.app.store.pool())
    .await
    .unwrap();
    let mut patches: Vec<String> = produced.iter().filter_map(|(_, p)| p.map(|p| p.to_string())).collect();
    patches.sort();
    let mut expected = ids.clone();
    expected.sort();
    assert_eq!(patches, expected, "each approved patch is exactly one revision");
    let text = team.skill_md().await;
    for n in 0..8 {
        assert_eq!(text.matches(&format!("- Lesson {n}.\n")).count(), 1, "{text}");
    }
    for line in [
        "(pin the version)",
        "against the sample",
        "Restart the daemon first.",
        "- Logs go to stderr.\n",
    ] {
        assert_eq!(text.matches(line).count(), 1, "{line}: {text}");
    }
    replica.stop().await.unwrap();
}

#[tokio::test]
async fn a_conflict_is_audited_and_rechecked_when_the_skill_moves_on() {
    let team = team(2).await;
    let (first, clash) = team
        .clashing(
            "2. Run it on the data.",
            "2. Run it on a sample first.",
            "2. Run it twice.",
            "b",
        )
        .await;
    let (status, _) = team.approve(&id_of(&first)).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = team.approve(&id_of(&clash)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let c = team.patch(&id_of(&clash)).await;
    assert_eq!(c["status"], "conflict");
    assert_eq!(c["rebase"]["files"][0]["placement"], "conflict");
    let marked = c["rebase"]["conflicts"][0]["marked"].as_str().unwrap();
    assert!(marked.contains("<<<<<<< patch\n2. Run it twice.\n||||||| base\n2. Run it on the data.\n=======\n2. Run it on a sample first.\n>>>>>>> latest\n"), "{marked}");
    // What the agent meant stays readable: its own diff against its base.
    assert!(
        c["authored_diff"][0]["unified"]
            .as_str()
            .unwrap()
            .contains("+2. Run it twice."),
        "{c}"
    );
    let (_, audit) = send(team.app.get("/v1/audit?action=patch.conflict")).await;
    assert_eq!(
        audit["items"].as_array().unwrap().len(),
        1,
        "the approve attempt that made it conflict: {audit}"
    );

    // Another lesson restores the line: the conflict merges now, without anyone asking.
    let revert = json!({
        "skill": "demo", "base_revision": 2, "summary": "undo", "ops": [{"op": "patch", "old": "2. Run it on a sample first.", "new": "2. Run it on the data."}],
    });
    let (_, undo) = team.submit(&team.members[0], revert).await;
    let (status, _) = team.approve(&id_of(&undo)).await;
    assert_eq!(status, StatusCode::OK);
    let mut now = Value::Null;
    for _ in 0..100 {
        now = team.patch(&id_of(&clash)).await;
        if now["status"] == "pending_review" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(now["status"], "pending_review", "{now}");
    assert_eq!(
        now["rebase"]["onto_digest"],
        send(team.app.get("/v1/skills/demo/versions/latest")).await.1["digest"]
    );
    let (_, audit) = send(team.app.get("/v1/audit?action=patch.recheck")).await;
    assert_eq!(audit["items"][0]["actor"], "system:recheck", "{audit}");
    let (status, p) = team.approve(&id_of(&clash)).await;
    assert_eq!(status, StatusCode::OK, "{p}");
    assert!(team.skill_md().await.contains("2. Run it twice."));
}

#[tokio::test]
async fn a_reviewer_resolves_a_conflict_and_the_resolution_supersedes_it() {
    let team = team(2).await;
    let (first, clash) = team
        .clashing(
            "3. Check the output.",
            "3. Check the output twice.",
            "3. Check the output and the logs.",
            "hermes",
        )
        .await;
    team.approve(&id_of(&first)).await;
    team.approve(&id_of(&clash)).await;
    let clash_id = id_of(&clash);
    let marked = team.patch(&clash_id).await["rebase"]["conflicts"][0]["marked"]
        .as_str()
        .unwrap()
        .to_owned();
    let resolve = format!("/v1/patches/{clash_id}/resolve");

    // Bad resolutions are refused and change nothing.
    let before = team.app.state_snapshot().await.unwrap();
    for (body, expect) in [
        (json!({"files": {"SKILL.md": marked}}), "conflict marker"),
        (json!({"files": {}}), "SKILL.md is in conflict"),
        (
            json!({"files": {"SKILL.md": "x", "references/a.md": "y"}}),
            "not in conflict",
        ),
        (json!({"files": {"SKILL.md": 3}}), "invalid"),
        (json!({"files": {"SKILL.md": "x"}, "extra": 1}), "unknown field"),
    ] {
        let (status, body) = team.post(&team.reviewer, &resolve, body).await;
        assert!(status.is_client_error(), "{body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(expect),
            "{expect}: {body}"
        );
    }
    let (status, body) = team
        .post(&team.members[0], &resolve, json!({"files": {"SKILL.md": "x"}}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, _) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/resolve", id_of(&first)),
            json!({"files": {}}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "an approved patch has nothing to resolve");
    assert_eq!(team.app.state_snapshot().await.unwrap(), before);

    let resolved_text = skill_md(
        "demo",
        "demo does things",
        &BODY.replace("3. Check the output.", "3. Check the output twice, and the logs."),
    );
    // The resolution is the reviewer's text: approving it at once is self-approval, which
    // the default policy does not allow (refused before anything is stored).
    let (status, body) = team
        .post(
            &team.reviewer,
            &resolve,
            json!({"files": {"SKILL.md": resolved_text}, "approve": true}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another reviewer approves it"),
        "{body}"
    );
    assert_eq!(team.app.state_snapshot().await.unwrap(), before);
    let (status, new) = team
        .post(
            &team.reviewer,
            &resolve,
            json!({"files": {"SKILL.md": resolved_text}, "comment": "kept both"}),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{new}");
    assert_eq!(new["status"], "pending_review", "{new}");
    assert!(
        new["duplicate"].is_null(),
        "a resolution is no duplicate of the patch it carries on: {new}"
    );
    let (status, new) = team
        .post(
            &team.app.admin_token,
            &format!("/v1/patches/{}/approve", id_of(&new)),
            json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{new}");
    assert_eq!(new["author"], "member1", "the lesson stays its author's");
    assert_eq!(new["agent"]["name"], "hermes");
    assert_eq!(new["resolved_by"], "rex");
    assert_eq!(new["supersedes"], clash_id.as_str());
    let old = team.patch(&clash_id).await;
    assert_eq!(
        (old["status"].as_str(), old["superseded_by"].as_str()),
        (Some("superseded"), new["id"].as_str())
    );
    assert_eq!(team.skill_md().await, resolved_text);
}

/// Seen trying it as a team would: four agents add lessons to a deploy skill; with plain
/// word overlap three distinct ones were marked as repeats of the skill's own lines,
/// because they all name `make deploy` or `make promote`, and the one real rewording was
/// marked against a line instead of the lesson it repeats.
#[tokio::test]
async fn lessons_that_share_only_the_skill_subject_are_not_marked_and_a_rewording_is() {
    let app = TestApp::spawn().await.unwrap();
    let body = "## Steps\n\n1. Run the test suite with `make test`.\n2. Run `make deploy ENV=staging` and watch the logs.\n\
                3. Promote with `make promote`.\n\n## Pitfalls\n\n- The staging database is reset every night at 02:00 UTC.\n\
                - `make deploy` needs the VPN.\n";
    app.import_skill("ops/deploy-notes", "deploy-notes", body, &[]).await;
    let lessons = [
        "- `make deploy` silently skips migrations unless `MIGRATE=1` is set; pass it when the release has a schema change.",
        "- Staging logs lag about two minutes behind in Grafana; tail them with `kubectl logs -f` instead of waiting.",
        "- `make promote` refuses to run while a staging deploy is still rolling out; wait for the rollout to finish first.",
        "- Deploys that change the schema need `MIGRATE=1`: without it `make deploy` quietly leaves the migrations unapplied.",
    ];
    let mut patches = Vec::new();
    for (n, lesson) in lessons.iter().enumerate() {
        let (_, token) = app.user_with_token(&format!("agent{n}"), Role::Member).await.unwrap();
        let edited = format!("{body}{lesson}\n");
        let submit = json!({
            "skill": "deploy-notes", "base_revision": 1, "summary": "a pitfall", "rationale": "hit it",
            "agent": {"name": format!("agent-{n}"), "model": "m", "session": "s"},
            "ops": [{"op": "edit", "content": skill_md("deploy-notes", "deploy-notes does things", &edited)}],
        });
        let (status, p) = send(app.post_as(&token, "/v1/patches").json(&submit)).await;
        assert_eq!(status, StatusCode::CREATED, "{p}");
        patches.push(p);
    }
    for p in &patches[..3] {
        assert_eq!(p["duplicate"], Value::Null, "a distinct lesson: {p}");
    }
    assert_eq!(patches[3]["duplicate"]["patch"], patches[0]["id"], "{}", patches[3]);
}

/// Seen in a user flow: four agents pushed at once and the one that repeated another's
/// lesson was not marked, because neither submission could see the other before both
/// were stored. Each rewording, submitted at the same moment as the lesson it repeats, is
/// marked and grouped with it once both are stored; a distinct lesson stays unmarked.
#[tokio::test]
async fn rewordings_submitted_at_the_same_moment_are_still_marked() {
    let app = TestApp::spawn().await.unwrap();
    let body = "## Steps\n\n1. Run the test suite with `make test`.\n2. Run `make deploy ENV=staging` and watch the logs.\n\
                3. Promote with `make promote`.\n\n## Pitfalls\n\n- The staging database is reset every night at 02:00 UTC.\n\
                - `make deploy` needs the VPN.\n";
    app.import_skill("ops/deploy-notes", "deploy-notes", body, &[]).await;
    let lessons = [
        "- `make deploy` silently skips migrations unless `MIGRATE=1` is set; pass it when the release has a schema change.",
        "- Deploys that change the schema need `MIGRATE=1`: without it `make deploy` quietly leaves the migrations unapplied.",
        "- Staging logs lag about two minutes behind in Grafana; tail them with `kubectl logs -f` instead of waiting.",
    ];
    for round in 0..3 {
        let mut tokens = Vec::new();
        for n in 0..lessons.len() {
            let (_, token) = app
                .user_with_token(&format!("agent{round}x{n}"), Role::Member)
                .await
                .unwrap();
            tokens.push(token);
        }
        let submits = lessons.iter().zip(&tokens).enumerate().map(|(n, (lesson, token))| {
            let edited = format!("{body}{lesson}\n");
            let submit = json!({
                "skill": "deploy-notes", "base_revision": 1, "summary": "a pitfall", "rationale": "hit it",
                "agent": {"name": format!("agent-{n}"), "model": "m", "session": "s"},
                "ops": [{"op": "edit", "content": skill_md("deploy-notes", "deploy-notes does things", &edited)}],
            });
            send(app.post_as(token, "/v1/patches").json(&submit))
        });
        let answers = futures::future::join_all(submits).await;
        let mut ids = Vec::new();
        for (status, p) in &answers {
            assert_eq!(*status, StatusCode::CREATED, "{p}");
            ids.push(p["id"].as_str().unwrap().to_owned());
        }
        let mut read = Vec::new();
        for id in &ids {
            read.push(app.get_json(&format!("/v1/patches/{id}")).await);
        }
        let (migrations, again, logs) = (&read[0], &read[1], &read[2]);
        assert!(
            migrations["duplicate"]["patch"] == again["id"] || again["duplicate"]["patch"] == migrations["id"],
            "round {round}: {migrations} / {again}"
        );
        assert!(migrations["duplicate_group"].is_string(), "{migrations}");
        assert_eq!(migrations["duplicate_group"], again["duplicate_group"]);
        assert_eq!(logs["duplicate"], Value::Null, "a distinct lesson: {logs}");
        // Clear the queue for the next round: every lesson again races the same ones.
        for id in &ids {
            let (status, p) = send(
                app.post(&format!("/v1/patches/{id}/reject"))
                    .json(&json!({"comment": "next round"})),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{p}");
        }
    }
}

/// A group grows by likeness to any member, and likeness does not carry over: a report
/// that joined through another member's lesson may teach something else, and approving the
/// first with its duplicates must not close it (the lessons benchmark lost distinct lessons
/// this way).
#[tokio::test]
async fn a_report_that_joined_the_group_through_another_stays_open_when_the_first_is_approved() {
    use cairn_e2e::web::WebSession;
    let team = team(3).await;
    let chain = [
        "- Rotate the grafana admin password through vault before the quarterly audit window closes.\n",
        "- Rotate the grafana admin password through vault; kibana service tokens also expire every month.\n",
        "- Kibana service tokens expire every month: renew them with the elasticsearch curator cron job.\n",
    ];
    let ids = team.add_pitfalls(&chain).await;
    let (first, second, third) = (
        team.patch(&ids[0]).await,
        team.patch(&ids[1]).await,
        team.patch(&ids[2]).await,
    );
    assert_eq!(second["duplicate"]["patch"], ids[0].as_str(), "{second}");
    assert_eq!(third["duplicate"]["patch"], ids[1].as_str(), "{third}");
    assert_eq!(first["duplicate_group"], second["duplicate_group"]);
    assert_eq!(
        first["duplicate_group"], third["duplicate_group"],
        "it joined through the second"
    );

    // The first one's page says which reports repeat it and which only joined through another.
    let mut web = WebSession::login(&team.app.base_url, &team.reviewer).await.unwrap();
    let page = web.get(&format!("/admin/patches/{}", ids[0])).await.unwrap();
    assert!(page.body.contains("3 agents reported this"), "{}", page.body);
    assert!(page.body.contains("repeats this lesson (similarity"), "{}", page.body);
    assert!(
        page.body
            .contains("joined through another report (similarity to this one 0.00): stays open when this is approved"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("Also close the 1 other report that repeats this lesson")
    );
    assert!(
        page.body.contains(&format!("name=\"shown\" value=\"{}\"", ids[1])),
        "{}",
        page.body
    );

    // Over the API, close_duplicates closes only the report that repeats the approved lesson.
    let (status, approved) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/approve", ids[0]),
            json!({"close_duplicates": true}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let (second, third) = (team.patch(&ids[1]).await, team.patch(&ids[2]).await);
    assert_eq!(
        (second["status"].as_str(), second["duplicate_of"].as_str()),
        (Some("duplicate"), Some(ids[0].as_str())),
        "{second}"
    );
    assert_eq!(
        third["status"], "pending_review",
        "a distinct lesson is not lost: {third}"
    );
    assert_eq!(team.contributors(2).await, ["member0", "member1"]);
    // Its own lesson lands with its own approval.
    let (status, landed) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/approve", ids[2]),
            json!({"close_duplicates": true}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{landed}");
    let text = team.skill_md().await;
    assert!(
        text.contains("quarterly audit window") && text.contains("elasticsearch curator"),
        "{text}"
    );
    assert_eq!(team.app.assert_publications_restate().await.unwrap(), 3);
}

#[tokio::test]
async fn duplicates_are_marked_grouped_and_closed_with_one_approval() {
    let team = team(3).await;
    let wordings = [
        "- Set `HF_HOME` to the data disk before downloading models, or the cache fills the root partition.\n",
        "- Downloading models filled `/root`: export HF_HOME to the big data disk first so the cache lands there.\n",
        "- The model cache fills the root partition unless `HF_HOME` points at the data disk before downloading.\n",
    ];
    let ids = team.add_pitfalls(&wordings).await;
    let distinct = BODY.replace(
        "- Logs go to stderr.\n",
        "- Logs go to stderr.\n- Pass `--gradient-checkpointing` when the model does not fit in GPU memory.\n",
    );
    let (_, other) = team.submit(&team.members[0], edit(&distinct, "agent-0")).await;
    assert_eq!(
        other["duplicate"],
        Value::Null,
        "a different lesson is not a duplicate: {other}"
    );
    for id in &ids[1..] {
        let p = team.patch(id).await;
        assert_eq!(p["status"], "pending_review", "a mark never closes anything by itself");
        assert!(p["duplicate"]["patch"].is_string(), "{p}");
        assert!(p["duplicate"]["similarity"].as_f64().unwrap() >= 0.14);
        assert_eq!(p["duplicate_group"], ids[0].as_str());
    }
    let (_, listed) = send(team.app.get("/v1/patches?status=open")).await;
    let grouped = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["duplicate_group"] == ids[0].as_str())
        .count();
    assert_eq!(grouped, 3);

    // A new round with another lesson leaves the group; one with the lesson again rejoins it.
    let app = &team.app;
    let revise = |n: usize, body: &str| {
        let mut round = edit(body, &format!("agent-{n}"));
        round.as_object_mut().unwrap().remove("skill");
        let path = format!("/v1/patches/{}/revisions", ids[n]);
        let token = team.members[n].clone();
        async move { send(app.post_as(&token, &path).json(&round)).await }
    };
    let elsewhere = BODY.replace(
        "- Logs go to stderr.\n",
        "- Logs go to stderr.\n- Pin the CUDA driver version in the image; upgrades break the kernels.\n",
    );
    let (status, moved) = revise(2, &elsewhere).await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(
        (moved["round"].as_i64(), &moved["duplicate_group"]),
        (Some(2), &Value::Null),
        "{moved}"
    );
    let (status, back) = revise(
        2,
        &BODY.replace(
            "- Logs go to stderr.\n",
            &format!("- Logs go to stderr.\n{}", wordings[2]),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{back}");
    assert_eq!(back["duplicate_group"], ids[0].as_str(), "{back}");

    let (status, approved) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/approve", ids[0]),
            json!({"close_duplicates": true}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    for id in &ids[1..] {
        let p = team.patch(id).await;
        assert_eq!(
            (p["status"].as_str(), p["duplicate_of"].as_str()),
            (Some("duplicate"), Some(ids[0].as_str())),
            "{p}"
        );
    }
    assert_eq!(
        team.patch(&id_of(&other)).await["status"],
        "pending_review",
        "distinct lessons stay open"
    );
    assert_eq!(team.contributors(2).await, ["member0", "member1", "member2"]);
    assert_eq!(team.app.assert_publications_restate().await.unwrap(), 2);
    let (_, audit) = send(team.app.get("/v1/audit?action=patch.duplicate")).await;
    assert_eq!(audit["items"].as_array().unwrap().len(), 2);

    // A lesson that repeats text already published is marked with where it is.
    let base2 = BODY.replace(
        "- Logs go to stderr.\n",
        &format!("- Logs go to stderr.\n{}", wordings[0]),
    );
    let again = json!({
        "skill": "demo", "base_revision": 2, "summary": "again",
        "ops": [{"op": "edit", "content": skill_md("demo", "demo does things", &format!("{base2}- Export HF_HOME on the data disk before any model download; otherwise the root partition fills with the cache.\n"))}],
    });
    let (status, p) = team.submit(&team.members[2], again).await;
    assert_eq!(status, StatusCode::CREATED, "{p}");
    assert_eq!(p["duplicate"]["revision"], 2, "{p}");
    assert_eq!(p["duplicate"]["file"], "SKILL.md");
    // A patch cannot be closed as the duplicate of one that is itself closed: two
    // reviewers never close both carriers of a lesson.
    let (_, x) = team
        .submit(
            &team.members[0],
            edit(&BODY.replace("1. Install the tool.", "1. Install the tool (x)."), "x"),
        )
        .await;
    let (_, y) = team
        .submit(
            &team.members[1],
            edit(&BODY.replace("3. Check the output.", "3. Check the output (y)."), "y"),
        )
        .await;
    let (status, _) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/duplicate", id_of(&x)),
            json!({"of": id_of(&y)}),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/duplicate", id_of(&y)),
            json!({"of": id_of(&x)}),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(team.patch(&id_of(&y)).await["status"], "pending_review");
    // Closing it as a duplicate of the approved patch records which one.
    let (status, closed) = team
        .post(
            &team.reviewer,
            &format!("/v1/patches/{}/duplicate", id_of(&p)),
            json!({"of": ids[0]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{closed}");
    assert_eq!(closed["duplicate_of"], ids[0].as_str());
}

#[tokio::test]
async fn a_batch_decides_in_order_and_reports_each_patch() {
    let team = team(2).await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let body = BODY.replace(
            "- Logs go to stderr.\n",
            &format!("- Logs go to stderr.\n- Batch lesson {n}.\n"),
        );
        ids.push(id_of(&team.submit(&team.members[0], edit(&body, "a")).await.1));
    }
    let own = id_of(
        &team
            .submit(
                &team.reviewer,
                edit(&BODY.replace("1. Install", "1. Carefully install"), "r"),
            )
            .await
            .1,
    );
    let missing = uuid::Uuid::new_v4().to_string();
    let (status, body) = team
        .post(
            &team.reviewer,
            "/v1/patches/review",
            json!({"action": "approve", "ids": [ids[0], missing, own, ids[1]]}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let results = body["results"].as_array().unwrap();
    assert_eq!(results[0]["patch"]["result_revision"], 2);
    assert_eq!(results[1]["error"]["code"], "not_found");
    assert_eq!(results[2]["error"]["code"], "forbidden", "the reviewer's own patch");
    assert_eq!(
        results[3]["patch"]["result_revision"], 3,
        "re-checked and published after the first"
    );
    assert!(team.skill_md().await.contains("- Batch lesson 0.\n- Batch lesson 1.\n"));

    // gRPC: the same use case.
    let mut grpc = team.app.grpc(Some(&team.reviewer)).await.unwrap();
    let answer = grpc
        .review_patches(pb::ReviewPatchesRequest {
            ids: vec![ids[2].clone(), own.clone()],
            decision: pb::review_patch_request::Decision::Reject.into(),
            comment: Some("not now".into()),
            close_duplicates: false,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(answer.results[0].patch.as_ref().unwrap().status, "rejected");
    assert_eq!(answer.results[1].patch.as_ref().unwrap().status, "rejected");

    // Two reports of one lesson approved in one batch with their duplicates closed: the
    // second was closed by the first, and the batch says so instead of an error.
    let mut group = Vec::new();
    for (n, wording) in [
        "- Set `HF_HOME` to the data disk before downloading models, or the cache fills the root partition.\n",
        "- The model cache fills the root partition unless `HF_HOME` points at the data disk before downloading.\n",
    ]
    .into_iter()
    .enumerate()
    {
        let body = BODY.replace("- Logs go to stderr.\n", &format!("- Logs go to stderr.\n{wording}"));
        let (status, p) = team.submit(&team.members[n], edit(&body, &format!("agent-{n}"))).await;
        assert_eq!(status, StatusCode::CREATED, "{p}");
        group.push(id_of(&p));
    }
    assert_eq!(team.patch(&group[1]).await["duplicate"]["patch"], group[0].as_str());
    let (status, body) = team
        .post(
            &team.reviewer,
            "/v1/patches/review",
            json!({"action": "approve", "ids": group, "close_duplicates": true}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["results"][0]["patch"]["status"], "approved", "{body}");
    assert_eq!(body["results"][1]["patch"]["status"], "duplicate", "{body}");
    assert_eq!(body["results"][1]["patch"]["duplicate_of"], group[0].as_str(), "{body}");
    // Approving a patch some other action closed is still refused.
    let (_, again) = team
        .post(
            &team.reviewer,
            "/v1/patches/review",
            json!({"action": "approve", "ids": [group[1]]}),
        )
        .await;
    assert_eq!(again["results"][0]["error"]["code"], "conflict", "{again}");

    // Malformed batches are refused before anything is decided.
    let fresh = id_of(
        &team
            .submit(&team.members[1], edit(&BODY.replace("Logs go", "Logs always go"), "b"))
            .await
            .1,
    );
    let before = team.app.state_snapshot().await.unwrap();
    let many: Vec<String> = (0..101).map(|_| uuid::Uuid::new_v4().to_string()).collect();
    for (body, expect) in [
        (json!({"action": "approve", "ids": []}), "names no patches"),
        (json!({"action": "approve", "ids": [fresh, fresh]}), "named twice"),
        (json!({"action": "approve", "ids": many}), "more than 100"),
        (json!({"action": "merge", "ids": [fresh]}), "not a batch decision"),
        (json!({"action": "reject", "ids": [fresh]}), "needs a comment"),
        (
            json!({"action": "reject", "ids": [fresh], "comment": "x", "close_duplicates": true}),
            "goes with approve",
        ),
        (json!({"action": "approve", "ids": ["nope"]}), "not a patch id"),
        (
            json!({"action": "approve", "ids": [fresh], "extra": true}),
            "unknown field",
        ),
    ] {
        let (status, body) = team.post(&team.reviewer, "/v1/patches/review", body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{expect}: {body}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(expect),
            "{expect}: {body}"
        );
    }
    let (status, _) = team
        .post(
            &team.members[0],
            "/v1/patches/review",
            json!({"action": "approve", "ids": [fresh]}),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(team.app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn a_resubmission_supersedes_its_authors_conflicting_patch_and_bad_ones_change_nothing() {
    let team = team(2).await;
    let (first, clash) = team
        .clashing(
            "2. Run it on the data.",
            "2. Run it on a sample.",
            "2. Run it twice.",
            "b",
        )
        .await;
    team.approve(&id_of(&first)).await;
    team.approve(&id_of(&clash)).await;
    let clash_id = id_of(&clash);
    let latest_body = BODY.replace("2. Run it on the data.", "2. Run it on a sample, twice.");
    let resubmit = |supersedes: &str| {
        json!({
            "skill": "demo", "base_revision": 2, "summary": "again", "supersedes": supersedes,
            "ops": [{"op": "edit", "content": skill_md("demo", "demo does things", &latest_body)}],
        })
    };
    let before = team.app.state_snapshot().await.unwrap();
    // Someone else's patch, a patch of another skill's id, a decided patch, a bad id.
    let (status, body) = team.submit(&team.members[0], resubmit(&clash_id)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (status, body) = team.submit(&team.members[0], resubmit(&id_of(&first))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("only an open patch"),
        "{body}"
    );
    let (status, _) = team.submit(&team.members[1], resubmit("nope")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = team
        .submit(&team.members[1], resubmit(&uuid::Uuid::new_v4().to_string()))
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(team.app.state_snapshot().await.unwrap(), before);

    let (status, new) = team.submit(&team.members[1], resubmit(&clash_id)).await;
    assert_eq!(status, StatusCode::CREATED, "{new}");
    assert_eq!(new["supersedes"], clash_id.as_str());
    let old = team.patch(&clash_id).await;
    assert_eq!(
        (old["status"].as_str(), old["superseded_by"].as_str()),
        (Some("superseded"), new["id"].as_str())
    );
    // A patch is superseded once.
    let (status, body) = team.submit(&team.members[1], resubmit(&clash_id)).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}

#[tokio::test]
async fn the_review_web_groups_duplicates_decides_batches_and_resolves_conflicts() {
    use cairn_e2e::web::WebSession;
    let team = team(4).await;
    let app = &team.app;
    let hf = [
        "- Set `HF_HOME` to the data disk before downloading models, or the cache fills the root partition.\n",
        "- Downloading models filled `/root`: export HF_HOME to the big data disk first so the cache lands there.\n",
    ];
    let mut dups = Vec::new();
    for (n, line) in hf.iter().enumerate() {
        let body = BODY.replace("- Logs go to stderr.\n", &format!("- Logs go to stderr.\n{line}"));
        dups.push(id_of(&team.submit(&team.members[n], edit(&body, "hermes")).await.1));
    }
    let distinct = id_of(
        &team
            .submit(
                &team.members[2],
                edit(
                    &BODY.replace("1. Install the tool.", "1. Install the tool from the release page."),
                    "codex",
                ),
            )
            .await
            .1,
    );
    let mut web = WebSession::login(&app.base_url, &team.reviewer).await.unwrap();
    let queue = web.get("/admin/queue").await.unwrap();
    assert!(queue.body.contains("2 agents reported this"), "{}", queue.body);
    assert!(queue.body.contains("class=\"duplicate-member\""));
    assert!(queue.body.contains(&format!("name=\"ids\" value=\"{distinct}\"")));

    // A batch that cannot be decided says why and changes nothing.
    let before = app.state_snapshot().await.unwrap();
    let page = web
        .post("/admin/queue/batch", &[("ids", &distinct), ("action", "reject")])
        .await
        .unwrap();
    let shown = web.get(page.location.as_deref().unwrap()).await.unwrap();
    assert!(shown.body.contains("a rejection needs a comment"), "{}", shown.body);
    assert_eq!(app.state_snapshot().await.unwrap(), before);
    // Approve the distinct one from the queue.
    web.get("/admin/queue").await.unwrap();
    let page = web
        .post("/admin/queue/batch", &[("ids", &distinct), ("action", "approve")])
        .await
        .unwrap();
    let shown = web.get(page.location.as_deref().unwrap()).await.unwrap();
    assert!(shown.body.contains("1 of 1 patches approved."), "{}", shown.body);

    // The group's page offers to close the other report with the approval.
    let page = web.get(&format!("/admin/patches/{}", dups[0])).await.unwrap();
    assert!(page.body.contains("2 agents reported this"), "{}", page.body);
    assert!(
        page.body
            .contains("Also close the 1 other report that repeats this lesson")
    );
    assert!(
        page.body.contains("The skill moved to r2"),
        "the skill moved since it was checked"
    );
    // The form names the reports it showed: only those are closed (a report that joined
    // later would stay open).
    assert!(
        page.body.contains(&format!("name=\"shown\" value=\"{}\"", dups[1])),
        "{}",
        page.body
    );
    let unshown = web
        .post(
            &format!("/admin/patches/{}/approve", dups[0]),
            &[("close_duplicates", "1"), ("shown", "")],
        )
        .await
        .unwrap();
    assert_eq!(unshown.status, StatusCode::SEE_OTHER);
    assert_eq!(
        team.patch(&dups[1]).await["status"],
        "pending_review",
        "it was not on the page"
    );
    // Reopen the case: approve the other report with the first shown as its duplicate.
    web.get(&format!("/admin/patches/{}", dups[1])).await.unwrap();
    let page = web.get(&format!("/admin/patches/{}", dups[1])).await.unwrap();
    assert!(
        page.body.contains("2 agents reported this") || page.body.contains("Likely"),
        "{}",
        page.body
    );
    let done = web
        .post(&format!("/admin/patches/{}/duplicate", dups[1]), &[("of", &dups[0])])
        .await
        .unwrap();
    assert_eq!(done.status, StatusCode::SEE_OTHER);
    assert_eq!(team.patch(&dups[1]).await["status"], "duplicate");
    let other = web.get(&format!("/admin/patches/{}", dups[1])).await.unwrap();
    assert!(
        other.body.contains(&format!("href=\"/admin/patches/{}\"", dups[0])),
        "links the duplicated patch"
    );

    // A conflict is resolved on its page (the organisation lets reviewers approve their
    // own resolutions at once).
    let (status, _) = send(
        app.client
            .put(app.url("/v1/patch-policy"))
            .bearer_auth(&app.admin_token)
            .json(&json!({"authors_may_approve_own": true})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, clash) = team
        .submit(
            &team.members[3],
            edit(
                &BODY.replace("1. Install the tool.", "1. Install the tool with pipx."),
                "hermes",
            ),
        )
        .await;
    let clash = id_of(&clash);
    let (status, _) = team.approve(&clash).await;
    assert_eq!(status, StatusCode::CONFLICT);
    let page = web.get(&format!("/admin/patches/{clash}")).await.unwrap();
    assert!(page.body.contains("id=\"resolve-form\""), "{}", page.body);
    assert!(
        page.body.contains("&lt;&lt;&lt;&lt;&lt;&lt;&lt; patch"),
        "markers in the editor"
    );
    assert!(page.body.contains("id=\"placements\""));
    let before = app.state_snapshot().await.unwrap();
    let marked = team.patch(&clash).await["rebase"]["conflicts"][0]["marked"]
        .as_str()
        .unwrap()
        .to_owned();
    let refused = web
        .post(
            &format!("/admin/patches/{clash}/resolve"),
            &[("file:SKILL.md", &marked)],
        )
        .await
        .unwrap();
    let shown = web.get(refused.location.as_deref().unwrap()).await.unwrap();
    assert!(shown.body.contains("still has a conflict marker"), "{}", shown.body);
    assert_eq!(app.state_snapshot().await.unwrap(), before);
    web.get(&format!("/admin/patches/{clash}")).await.unwrap();
    let resolved = team
        .skill_md()
        .await
        .replace("from the release page.", "from the release page, with pipx.");
    // Browsers send textareas with CRLF line ends: the file keeps its own.
    let sent = resolved.replace('\n', "\r\n");
    let shown = web
        .post_and_follow(
            &format!("/admin/patches/{clash}/resolve"),
            &[("file:SKILL.md", &sent), ("approve", "1")],
        )
        .await
        .unwrap();
    assert!(shown.body.contains("Resolved and approved"), "{}", shown.body);
    assert_eq!(team.skill_md().await, resolved);
    assert_eq!(team.patch(&clash).await["status"], "superseded");

    // Two reports of one lesson approved together from the queue, duplicates closed: the
    // summary says one was approved and the other closed with it, not that one failed.
    let mut pair = Vec::new();
    for (n, line) in [
        "- `make deploy` silently skips migrations unless `MIGRATE=1` is set; pass it when the release has a schema change.\n",
        "- Deploys that change the schema need `MIGRATE=1`: without it `make deploy` quietly leaves the migrations unapplied.\n",
    ]
    .iter()
    .enumerate()
    {
        let body = BODY.replace("- Logs go to stderr.\n", &format!("- Logs go to stderr.\n{line}"));
        pair.push(id_of(&team.submit(&team.members[n], edit(&body, "hermes")).await.1));
    }
    assert_eq!(team.patch(&pair[1]).await["duplicate"]["patch"], pair[0].as_str());
    web.get("/admin/queue").await.unwrap();
    let page = web
        .post(
            "/admin/queue/batch",
            &[
                ("ids", &pair[0]),
                ("ids", &pair[1]),
                ("action", "approve"),
                ("close_duplicates", "1"),
                ("shown", &pair[1]),
            ],
        )
        .await
        .unwrap();
    let shown = web.get(page.location.as_deref().unwrap()).await.unwrap();
    assert!(
        shown
            .body
            .contains("1 of 2 patches approved, 1 closed as a duplicate of one approved with it."),
        "{}",
        shown.body
    );
    assert_eq!(team.patch(&pair[1]).await["duplicate_of"], pair[0].as_str());
}
