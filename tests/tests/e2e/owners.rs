//! Owners: admins name the reviewers of a skill or a category over REST; a patch to an
//! owned skill asks its owners for review (`review_requested`), its read names them,
//! bad lists change nothing, and concurrent changes of one list leave one of them whole.

use std::collections::BTreeSet;

use cairn_e2e::app::{TestApp, send};
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

const BODY: &str = "## Steps\n\n1. Install the tool.\n2. Run it on the data.\n3. Check the output.\n";

struct Org {
    app: TestApp,
    mia: String,
    rex: String,
    rita: String,
}

async fn org() -> Org {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/db/demo", "demo", BODY, &[]).await;
    app.import_skill("tools/lint", "lint", BODY, &[]).await;
    let (_, mia) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, rex) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let (_, rita) = app.user_with_token("rita", Role::Reviewer).await.unwrap();
    Org { app, mia, rex, rita }
}

impl Org {
    async fn put_as(&self, token: &str, path: &str, body: Value) -> (StatusCode, Value) {
        send(self.app.client.put(self.app.url(path)).bearer_auth(token).json(&body)).await
    }

    async fn put(&self, path: &str, owners: &[&str]) -> (StatusCode, Value) {
        self.put_as(&self.app.admin_token, path, json!({ "owners": owners }))
            .await
    }

    async fn submit(&self, token: &str, skill: &str) -> String {
        let (status, body) = send(self.app.post_as(token, "/v1/patches").json(&json!({
            "skill": skill,
            "base_revision": 1,
            "summary": "a lesson",
            "rationale": "hit a pitfall",
            "ops": [{"op": "patch", "old": "3. Check the output.", "new": "3. Check the output.\n4. Keep the log."}],
        })))
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    async fn requested(&self, token: &str) -> Vec<String> {
        let (status, body) = send(self.app.get_as(token, "/v1/patches?review_requested=me")).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].as_str().unwrap().to_owned())
            .collect()
    }
}

#[tokio::test]
async fn owners_named_by_an_admin_are_asked_to_review_their_skills_patches() {
    let org = org().await;
    let (status, rule) = org.put("/v1/owners/skills/demo", &["rex", " rex"]).await;
    assert_eq!(status, StatusCode::OK, "{rule}");
    assert_eq!(rule, json!({"kind": "skill", "name": "demo", "owners": ["rex"]}));
    // A category's owners own the categories under it too (demo is in ops/db).
    let (status, rule) = org.put("/v1/owners/categories/ops", &["rita", "rex"]).await;
    assert_eq!(status, StatusCode::OK, "{rule}");
    assert_eq!(rule["owners"], json!(["rex", "rita"]));
    let listed = org.app.get_json_as(&org.mia, "/v1/owners").await;
    assert_eq!(
        listed["items"],
        json!([
            {"kind": "skill", "name": "demo", "owners": ["rex"]},
            {"kind": "category", "name": "ops", "owners": ["rex", "rita"]},
        ])
    );

    let by_mia = org.submit(&org.mia, "demo").await;
    let to_lint = org.submit(&org.mia, "lint").await;
    let by_rex = org.submit(&org.rex, "demo").await;
    assert_eq!(
        org.requested(&org.rex).await,
        vec![by_mia.clone()],
        "rex wrote the other one"
    );
    assert_eq!(org.requested(&org.rita).await, [by_rex.clone(), by_mia.clone()]);
    assert!(
        org.requested(&org.app.admin_token).await.is_empty(),
        "the admin owns nothing"
    );
    let (_, for_rita) = send(org.app.get("/v1/patches?review_requested=rita&sort=oldest")).await;
    assert_eq!(for_rita["items"][0]["id"], json!(by_mia));
    assert!(!org.requested(&org.rita).await.contains(&to_lint));

    let read = org.app.get_json_as(&org.mia, &format!("/v1/patches/{by_mia}")).await;
    assert_eq!(
        read["owners"],
        json!([
            {"handle": "rex", "via": "skill", "name": "demo"},
            {"handle": "rita", "via": "category", "name": "ops"},
        ])
    );
    let read = org.app.get_json_as(&org.mia, &format!("/v1/patches/{to_lint}")).await;
    assert_eq!(read["owners"], json!([]));

    // Waiting for its author's answer, a patch asks no one; a new round asks again.
    let (status, body) = send(
        org.app
            .post_as(&org.rita, &format!("/v1/patches/{by_mia}/request-changes"))
            .json(&json!({"comment": "Say which log."})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(org.requested(&org.rex).await, Vec::<String>::new());
    assert_eq!(org.requested(&org.rita).await, vec![by_rex.clone()]);

    // A decided patch asks no one, whatever the list's state filter.
    let (status, body) = send(
        org.app
            .post_as(&org.rita, &format!("/v1/patches/{by_rex}/reject"))
            .json(&json!({"comment": "Not needed."})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(org.requested(&org.rita).await.is_empty());

    // A demoted owner is asked for nothing; the list still names them for the admins.
    let (status, _) = send(
        org.app
            .client
            .patch(org.app.url("/v1/users/rita"))
            .bearer_auth(&org.app.admin_token)
            .json(&json!({"role": "member"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    org.app.wait_following().await.unwrap();
    let (_, for_rita) = send(org.app.get("/v1/patches?review_requested=rita")).await;
    assert_eq!(for_rita["items"], json!([]));

    // A category's list stays removable after its last skill moved elsewhere.
    let (status, _) = org.put("/v1/owners/categories/tools", &["rex"]).await;
    assert_eq!(status, StatusCode::OK);
    // (An import from another folder moves a skill; here the row is moved directly.)
    sqlx::query("UPDATE skills SET category = 'misc' WHERE name = 'lint'")
        .execute(org.app.store.pool())
        .await
        .unwrap();
    let (status, rule) = org.put("/v1/owners/categories/tools", &["rex"]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "tools is empty now: {rule}");
    let (status, rule) = org.put("/v1/owners/categories/tools", &[]).await;
    assert_eq!(status, StatusCode::OK, "{rule}");
    let (status, rule) = org.put("/v1/owners/categories/never", &[]).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no list and no skill: a typo: {rule}");
    // An empty list removes the owners; every change is in the audit log.
    let (status, rule) = org.put("/v1/owners/skills/demo", &[]).await;
    assert_eq!(status, StatusCode::OK, "{rule}");
    let listed = org.app.get_json("/v1/owners").await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 1, "{listed}");
    let audit = org.app.get_json("/v1/audit?action=owners.set").await;
    let targets: Vec<&str> = audit["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        [
            "skill:demo",
            "category:tools",
            "category:tools",
            "category:ops",
            "skill:demo"
        ],
        "{audit}"
    );
}

#[tokio::test]
async fn a_bad_owner_list_is_refused_with_what_to_do_and_changes_nothing() {
    let org = org().await;
    let (status, _) = org.put("/v1/owners/skills/demo", &["rex"]).await;
    assert_eq!(status, StatusCode::OK);
    let before = org.app.state_snapshot().await.unwrap();
    let owners_before = org.app.get_json("/v1/owners").await;
    let too_many: Vec<String> = (0..21).map(|i| format!("r{i}")).collect();
    for (path, body, want, says) in [
        (
            "/v1/owners/skills/demo",
            json!({"owners": ["nobody"]}),
            StatusCode::NOT_FOUND,
            "add them first",
        ),
        (
            "/v1/owners/skills/demo",
            json!({"owners": ["rex", "mia"]}),
            StatusCode::BAD_REQUEST,
            "make them a reviewer first",
        ),
        (
            "/v1/owners/skills/demo",
            json!({"owners": ["Bad Handle"]}),
            StatusCode::BAD_REQUEST,
            "not a valid user handle",
        ),
        (
            "/v1/owners/skills/demo",
            json!({"owners": too_many}),
            StatusCode::BAD_REQUEST,
            "at most 20",
        ),
        (
            "/v1/owners/skills/demo",
            json!({"owners": "rex"}),
            StatusCode::BAD_REQUEST,
            "",
        ),
        (
            "/v1/owners/skills/demo",
            json!({"owners": ["rex"], "extra": 1}),
            StatusCode::BAD_REQUEST,
            "extra",
        ),
        (
            "/v1/owners/skills/ghost",
            json!({"owners": ["rex"]}),
            StatusCode::NOT_FOUND,
            "or for its category",
        ),
        (
            "/v1/owners/skills/Demo",
            json!({"owners": ["rex"]}),
            StatusCode::BAD_REQUEST,
            "",
        ),
        (
            "/v1/owners/categories/nope",
            json!({"owners": ["rex"]}),
            StatusCode::NOT_FOUND,
            "check the spelling",
        ),
        (
            "/v1/owners/categories/ops/Db",
            json!({"owners": ["rex"]}),
            StatusCode::BAD_REQUEST,
            "invalid segment",
        ),
    ] {
        let (status, answer) = org.put_as(&org.app.admin_token, path, body.clone()).await;
        assert_eq!(status, want, "{path} {body}: {answer}");
        assert!(answer.to_string().contains(says), "{path} {body}: {answer}");
    }
    // Only admins name owners.
    let (status, answer) = org
        .put_as(&org.rex, "/v1/owners/skills/demo", json!({"owners": ["rex", "rita"]}))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{answer}");
    // A list filter naming no member says so.
    let (status, answer) = send(org.app.get("/v1/patches?review_requested=ghost")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert!(answer.to_string().contains("'me'"), "{answer}");
    assert_eq!(org.app.state_snapshot().await.unwrap(), before);
    assert_eq!(org.app.get_json("/v1/owners").await, owners_before);
}

#[tokio::test]
async fn concurrent_changes_to_owner_lists_leave_each_list_as_one_change_made_it() {
    let org = org().await;
    let mut handles = Vec::new();
    for i in 0..6 {
        org.app
            .user_with_token(&format!("rev{i}"), Role::Reviewer)
            .await
            .unwrap();
        handles.push(format!("rev{i}"));
    }
    // Eight admins' writes at once: four lists for one skill, four for two categories.
    let mut tasks = tokio::task::JoinSet::new();
    let sets: Vec<(String, Vec<String>)> = (0..8)
        .map(|i| {
            let path = match i % 4 {
                0 | 1 => "/v1/owners/skills/demo".to_owned(),
                2 => "/v1/owners/categories/ops".to_owned(),
                _ => "/v1/owners/categories/tools".to_owned(),
            };
            (path, vec![handles[i % 6].clone(), handles[(i + 1) % 6].clone()])
        })
        .collect();
    for (path, owners) in sets.clone() {
        let (client, url, token) = (org.app.client.clone(), org.app.url(&path), org.app.admin_token.clone());
        tasks.spawn(async move { send(client.put(url).bearer_auth(token).json(&json!({ "owners": owners }))).await });
    }
    while let Some(result) = tasks.join_next().await {
        let (status, body) = result.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let listed = org.app.get_json("/v1/owners").await;
    let items = listed["items"].as_array().unwrap();
    assert_eq!(items.len(), 3, "one list per skill or category: {listed}");
    for item in items {
        let path = match item["kind"].as_str().unwrap() {
            "skill" => format!("/v1/owners/skills/{}", item["name"].as_str().unwrap()),
            _ => format!("/v1/owners/categories/{}", item["name"].as_str().unwrap()),
        };
        let got: BTreeSet<String> = item["owners"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap().to_owned())
            .collect();
        assert!(
            sets.iter()
                .any(|(p, owners)| *p == path && owners.iter().cloned().collect::<BTreeSet<_>>() == got),
            "{path}: {got:?} is not one write's list"
        );
    }
    let audit = org.app.get_json("/v1/audit?action=owners.set&limit=50").await;
    let written = audit["items"].as_array().unwrap().len();
    assert!((3..=8).contains(&written), "{written} audit rows for 8 writes: {audit}");
}
