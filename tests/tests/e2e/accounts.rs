//! Token and user administration over REST, the audit log, rate limits and yanking.

use cairn_e2e::app::{TestApp, error_code, error_message, item_strs, json_of, send};
use cairn_registry::config::AccessSettings;
use cairn_registry::ratelimit::{Limit, RateLimits};
use cairn_store::Role;
use cairn_store::blob::FsBlobStore;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::write_skill;

#[tokio::test]
async fn tokens_are_issued_listed_and_revoked_by_their_owner_and_by_admins() {
    let app = TestApp::spawn().await.unwrap();
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, other) = app.user_with_token("olaf", Role::Member).await.unwrap();
    let as_member =
        |method: reqwest::Method, path: &str| app.client.request(method, app.url(path)).bearer_auth(&member);

    // Self-service: a read-only CI token, 1 day.
    let response = as_member(reqwest::Method::POST, "/v1/tokens")
        .json(&json!({ "name": "ci", "ttl": "1d", "scopes": ["read"] }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["cache-control"], "no-store");
    let (status, issued) = json_of(response).await;
    assert_eq!(status, StatusCode::CREATED, "{issued}");
    assert_eq!(issued["user"], "mia");
    assert_eq!(issued["scopes"], json!(["read"]));
    let expires: chrono::DateTime<chrono::Utc> = issued["expires_at"].as_str().unwrap().parse().unwrap();
    let ttl = expires - chrono::Utc::now();
    assert!(
        ttl > chrono::Duration::hours(23) && ttl <= chrono::Duration::hours(24),
        "{ttl}"
    );
    let ci = issued["token"].as_str().unwrap().to_owned();
    let ci_id = issued["id"].as_str().unwrap().to_owned();
    let (status, me) = send(app.get_as(&ci, "/v1/whoami")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (me["user"].as_str(), me["scopes"].clone()),
        (Some("mia"), json!(["read"]))
    );

    // The read-only token cannot mint a stronger one; a member cannot get admin.
    let before = app.state_snapshot().await.unwrap();
    for (token, body, expected) in [
        (
            &ci,
            json!({ "scopes": ["read", "submit"] }),
            "cannot grant submit: the token you are using can grant at most: read",
        ),
        (
            &member,
            json!({ "scopes": ["admin"] }),
            "cannot grant admin: 'mia' has the role 'member', which allows at most: read, submit",
        ),
    ] {
        let (status, body) = send(app.post_as(token, "/v1/tokens").json(&body)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
        assert!(error_message(&body).contains(expected), "{body}");
    }
    // Bad input: each a clear 4xx, nothing written.
    for (body, status, expected) in [
        (json!({ "ttl": "forever" }), StatusCode::BAD_REQUEST, "not a duration"),
        (json!({ "ttl": "10s" }), StatusCode::BAD_REQUEST, "between 1 minute"),
        (
            json!({ "ttl": "400d" }),
            StatusCode::BAD_REQUEST,
            "between 1 minute and 366 days",
        ),
        (
            json!({ "scopes": ["write"] }),
            StatusCode::BAD_REQUEST,
            "unknown scope 'write'",
        ),
        (json!({ "name": "" }), StatusCode::BAD_REQUEST, "token name"),
        (
            json!({ "name": "x".repeat(101) }),
            StatusCode::BAD_REQUEST,
            "token name",
        ),
        (json!({ "nmae": "typo" }), StatusCode::BAD_REQUEST, "unknown field"),
        (json!({ "user": "olaf" }), StatusCode::FORBIDDEN, "only admins"),
        (json!(["not", "an", "object"]), StatusCode::BAD_REQUEST, "not valid"),
    ] {
        let (got, answer) = send(as_member(reqwest::Method::POST, "/v1/tokens").json(&body)).await;
        assert_eq!(got, status, "{body}: {answer}");
        assert!(error_message(&answer).contains(expected), "{body}: {answer}");
    }
    let response = as_member(reqwest::Method::POST, "/v1/tokens")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(app.state_snapshot().await.unwrap(), before);

    // Listing: members see their own tokens, admins everyone's or one user's.
    let (_, mine) = send(as_member(reqwest::Method::GET, "/v1/tokens")).await;
    let owners = item_strs(&mine, "user");
    assert_eq!(owners, vec!["mia", "mia"]);
    assert!(
        !mine.to_string().contains(&ci),
        "a token listing must never contain the token"
    );
    let (status, body) = send(as_member(reqwest::Method::GET, "/v1/tokens?user=olaf")).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    let (_, all) = send(app.get("/v1/tokens?limit=2")).await;
    assert_eq!(all["items"].as_array().unwrap().len(), 2);
    let cursor = all["next_cursor"].as_str().unwrap();
    let (_, rest) = send(app.get(&format!("/v1/tokens?limit=200&cursor={cursor}"))).await;
    // admin (bootstrap), mia ×2, olaf: four tokens over two pages, none twice.
    let mut ids: Vec<String> = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .chain(rest["items"].as_array().unwrap())
        .map(|t| t["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4);
    let (_, olafs) = send(app.get("/v1/tokens?user=olaf")).await;
    assert_eq!(olafs["items"].as_array().unwrap().len(), 1);
    let olaf_id = olafs["items"][0]["id"].as_str().unwrap().to_owned();

    // Members cannot see or revoke other people's tokens (404: not theirs to know of).
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = as_member(method, &format!("/v1/tokens/{olaf_id}"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
    }
    let (status, body) = send(as_member(reqwest::Method::DELETE, "/v1/tokens/not-a-uuid")).await;
    assert_eq!((status, error_code(&body)), (StatusCode::BAD_REQUEST, "bad_request"));

    // The owner revokes their CI token: it stops at once; revoking again is a no-op.
    let (status, revoked) = send(as_member(reqwest::Method::DELETE, &format!("/v1/tokens/{ci_id}"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(revoked["revoked_at"].is_string());
    let response = app.get_as(&ci, "/v1/whoami").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let audits = app.store.audit_count(app.org_id).await.unwrap();
    let response = as_member(reqwest::Method::DELETE, &format!("/v1/tokens/{ci_id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(app.store.audit_count(app.org_id).await.unwrap(), audits);
    // Revoked tokens leave the default listing but stay visible with `all=true`.
    let (_, mine) = send(as_member(reqwest::Method::GET, "/v1/tokens")).await;
    assert_eq!(mine["items"].as_array().unwrap().len(), 1);
    let (_, mine) = send(as_member(reqwest::Method::GET, "/v1/tokens?all=true")).await;
    assert_eq!(mine["items"].as_array().unwrap().len(), 2);

    // An admin revokes Olaf's token and issues Olaf a reader-scoped one.
    let response = app
        .client
        .delete(app.url(&format!("/v1/tokens/{olaf_id}")))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let response = app.get_as(&other, "/v1/whoami").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    let (status, issued) = send(
        app.post("/v1/tokens")
            .json(&json!({ "user": "olaf", "name": "handed over" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{issued}");
    assert_eq!(
        (issued["user"].as_str(), issued["scopes"].clone()),
        (Some("olaf"), json!(["read", "submit"]))
    );
    let (status, body) = send(app.post("/v1/tokens").json(&json!({ "user": "nobody" }))).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
}

#[tokio::test]
async fn admins_manage_users_and_cannot_lock_the_organisation_out() {
    let app = TestApp::spawn().await.unwrap();
    let (status, created) = send(
        app.post("/v1/users")
            .json(&json!({ "handle": "rita", "role": "reviewer" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(
        (created["handle"].as_str(), created["role"].as_str()),
        (Some("rita"), Some("reviewer"))
    );
    assert_eq!(created["disabled"], false);

    let before = app.state_snapshot().await.unwrap();
    for (method, path, body, status, expected) in [
        (
            "POST",
            "/v1/users",
            json!({ "handle": "rita", "role": "member" }),
            StatusCode::CONFLICT,
            "already exists",
        ),
        (
            "POST",
            "/v1/users",
            json!({ "handle": "Rita!", "role": "member" }),
            StatusCode::BAD_REQUEST,
            "not a valid user handle",
        ),
        (
            "POST",
            "/v1/users",
            json!({ "handle": "sam", "role": "owner" }),
            StatusCode::BAD_REQUEST,
            "unknown role 'owner'",
        ),
        (
            "POST",
            "/v1/users",
            json!({ "handle": "sam" }),
            StatusCode::BAD_REQUEST,
            "role",
        ),
        (
            "PATCH",
            "/v1/users/rita",
            json!({}),
            StatusCode::BAD_REQUEST,
            "nothing to change",
        ),
        (
            "PATCH",
            "/v1/users/rita",
            json!({ "disabled": "yes" }),
            StatusCode::BAD_REQUEST,
            "not valid",
        ),
        (
            "PATCH",
            "/v1/users/nobody",
            json!({ "role": "member" }),
            StatusCode::NOT_FOUND,
            "user 'nobody' does not exist",
        ),
        (
            "PATCH",
            "/v1/users/admin",
            json!({ "role": "member" }),
            StatusCode::CONFLICT,
            "last active admin",
        ),
        (
            "PATCH",
            "/v1/users/admin",
            json!({ "disabled": true }),
            StatusCode::CONFLICT,
            "last active admin",
        ),
    ] {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let (got, answer) = send(
            app.client
                .request(method.clone(), app.url(path))
                .bearer_auth(&app.admin_token)
                .json(&body),
        )
        .await;
        assert_eq!(got, status, "{method} {path} {body}: {answer}");
        assert!(
            error_message(&answer).contains(expected),
            "{method} {path} {body}: {answer}"
        );
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before);

    // With a second admin, the first may step down.
    let response = app
        .client
        .patch(app.url("/v1/users/rita"))
        .bearer_auth(&app.admin_token)
        .json(&json!({ "role": "admin" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (status, me) = send(
        app.client
            .patch(app.url("/v1/users/rita"))
            .bearer_auth(&app.admin_token)
            .json(&json!({ "role": "admin" })),
    )
    .await;
    assert_eq!(
        (status, me["role"].as_str()),
        (StatusCode::OK, Some("admin")),
        "setting the same role is a no-op"
    );

    // Paging by handle.
    for handle in ["u1", "u2", "u3"] {
        app.post("/v1/users")
            .json(&json!({ "handle": handle, "role": "reader" }))
            .send()
            .await
            .unwrap();
    }
    let (_, page) = send(app.get("/v1/users?limit=2")).await;
    let handles = item_strs(&page, "handle");
    assert_eq!(handles, vec!["admin", "rita"]);
    let (_, page) = send(app.get(&format!(
        "/v1/users?limit=2&cursor={}",
        page["next_cursor"].as_str().unwrap()
    )))
    .await;
    let handles = item_strs(&page, "handle");
    assert_eq!(handles, vec!["u1", "u2"]);
    let (status, user) = send(app.get("/v1/users/u3")).await;
    assert_eq!((status, user["role"].as_str()), (StatusCode::OK, Some("reader")));
    let (status, _) = send(app.get("/v1/users/BAD")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn every_mutation_is_audited_with_who_what_where_and_can_be_filtered_and_paged() {
    let app = TestApp::spawn().await.unwrap();
    let response = app
        .post("/v1/users")
        .header("x-request-id", "req-audit-1")
        .json(&json!({ "handle": "ana", "role": "member" }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    assert_eq!(response.headers()["x-request-id"], "req-audit-1");
    let response = app
        .post("/v1/tokens")
        .json(&json!({ "user": "ana", "name": "laptop" }))
        .send()
        .await
        .unwrap();
    let generated_id = response.headers()["x-request-id"].to_str().unwrap().to_owned();
    let (_, issued) = json_of(response).await;
    let token_id = issued["id"].as_str().unwrap().to_owned();
    app.client
        .patch(app.url("/v1/users/ana"))
        .bearer_auth(&app.admin_token)
        .json(&json!({ "role": "reviewer", "disabled": true }))
        .send()
        .await
        .unwrap();
    app.client
        .delete(app.url(&format!("/v1/tokens/{token_id}")))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap();

    let (status, log) = send(app.get("/v1/audit?actor=admin")).await;
    assert_eq!(status, StatusCode::OK);
    let items = log["items"].as_array().unwrap();
    let actions: Vec<&str> = items.iter().map(|e| e["action"].as_str().unwrap()).collect();
    assert_eq!(
        actions,
        vec![
            "token.revoke",
            "user.disable",
            "user.set_role",
            "token.issue",
            "user.create"
        ]
    );
    let created = &items[4];
    assert_eq!(created["target"], "user:ana");
    assert_eq!(created["request_id"], "req-audit-1");
    assert_eq!(created["client_addr"], "127.0.0.1");
    assert_eq!(created["details"]["role"], "member");
    assert!(created["at"].is_string());
    assert_eq!(items[3]["request_id"], generated_id.as_str());
    assert_eq!(items[3]["target"], format!("token:{token_id}"));
    assert_eq!(items[2]["details"], json!({ "from": "member", "to": "reviewer" }));
    assert!(
        !log.to_string().contains(issued["token"].as_str().unwrap()),
        "the audit log must never hold a token"
    );

    // Filters: an action family, an exact target, a time window; paging by cursor.
    let (_, tokens) = send(app.get("/v1/audit?action=token.")).await;
    let actions = item_strs(&tokens, "action");
    assert_eq!(
        actions,
        vec!["token.revoke", "token.issue", "token.issue"],
        "bootstrap issued the first"
    );
    let (_, ana) = send(app.get("/v1/audit?target=user:ana")).await;
    assert_eq!(ana["items"].as_array().unwrap().len(), 3);
    let (_, none) = send(app.get("/v1/audit?until=2000-01-01T00:00:00Z")).await;
    assert_eq!(none["items"], json!([]));
    let (_, first) = send(app.get("/v1/audit?limit=3")).await;
    let (_, second) = send(app.get(&format!(
        "/v1/audit?limit=3&cursor={}",
        first["next_cursor"].as_str().unwrap()
    )))
    .await;
    let first_ids: Vec<i64> = first["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    let second_ids: Vec<i64> = second["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert!(
        first_ids.windows(2).all(|w| w[0] > w[1]) && first_ids[2] > second_ids[0],
        "{first_ids:?} {second_ids:?}"
    );

    for bad in [
        "since=yesterday",
        "until=2026-13-01",
        "cursor=abc",
        "cursor=-4",
        "limit=0",
    ] {
        let (status, body) = send(app.get(&format!("/v1/audit?{bad}"))).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
}

#[tokio::test]
async fn rate_limits_answer_429_with_retry_after_and_tell_the_remaining_budget() {
    let data_dir = tempfile::tempdir().unwrap();
    let blobs = std::sync::Arc::new(FsBlobStore::new(data_dir.path().join("blobs")).unwrap());
    let settings = AccessSettings {
        rate_limits: RateLimits {
            per_token: Limit::parse("3/min").unwrap(),
            per_address: Limit::parse("8/min").unwrap(),
            proposals_per_token: None,
            proposals_per_user: None,
        },
        ..AccessSettings::default()
    };
    let app = TestApp::spawn_with_settings(data_dir, blobs, settings).await.unwrap();
    let mut remaining = Vec::new();
    for _ in 0..3 {
        let response = app.get("/v1/whoami").send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["ratelimit-limit"], "3");
        remaining.push(response.headers()["ratelimit-remaining"].to_str().unwrap().to_owned());
        assert!(response.headers().contains_key("ratelimit-reset"));
    }
    assert_eq!(remaining, vec!["2", "1", "0"]);
    let response = app.get("/v1/whoami").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=20).contains(&retry), "{retry}");
    assert_eq!(response.headers()["ratelimit-remaining"], "0");
    let (_, body) = json_of(response).await;
    assert_eq!(error_code(&body), "rate_limited");
    assert!(
        error_message(&body).contains("this token (limit 3/min)") && error_message(&body).contains("retry after"),
        "{body}"
    );

    // Another token has its own budget, until the address budget (8) runs out too; the
    // address limit also covers requests without a token.
    let (_, other) = app.user_with_token("second", Role::Reader).await.unwrap();
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(app.get_as(&other, "/v1/whoami").send().await.unwrap().status());
    }
    assert_eq!(statuses[..3], [StatusCode::OK; 3]);
    let response = app.client.get(app.url("/v1/whoami")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let (_, body) = json_of(response).await;
    assert!(error_message(&body).contains("this address (limit 8/min)"), "{body}");
}

#[tokio::test]
async fn yanking_hides_a_version_from_latest_and_the_index_and_unyanking_restores_it() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_skill(tree.path(), "ops/deploy", "deploy", "One.", &[]);
    app.import(tree.path()).await.unwrap();
    write_skill(tree.path(), "ops/deploy", "deploy", "Two.", &[]);
    app.import(tree.path()).await.unwrap();
    let (_, index) = send(app.get("/v1/index")).await;
    let cursor = index["cursor"].as_i64().unwrap();

    let (status, body) = send(app.post("/v1/skills/deploy/versions/2/yank")).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({ "name": "deploy", "revision": 2, "yanked": true, "changed": true, "latest_revision": 1 })
    );
    let (_, latest) = send(app.get("/v1/skills/deploy/versions/latest")).await;
    assert_eq!(latest["revision"], 1);
    let (_, pinned) = send(app.get("/v1/skills/deploy/versions/2")).await;
    assert_eq!(pinned["yanked"], true, "a yanked version stays readable by number");
    let (_, delta) = send(app.get(&format!("/v1/index?since={cursor}"))).await;
    assert_eq!(delta["skills"][0]["revision"], 1, "{delta}");
    // Yanking again changes nothing and writes nothing.
    let audits = app.store.audit_count(app.org_id).await.unwrap();
    let (_, again) = send(app.post("/v1/skills/deploy/versions/2/yank")).await;
    assert_eq!(again["changed"], false);
    assert_eq!(app.store.audit_count(app.org_id).await.unwrap(), audits);

    // Yanking the last one removes the skill from the index; unyanking brings it back.
    app.post("/v1/skills/deploy/versions/1/yank").send().await.unwrap();
    let (_, delta) = send(app.get(&format!("/v1/index?since={cursor}"))).await;
    assert_eq!(delta["removed"], json!(["deploy"]), "{delta}");
    let (_, body) = send(app.post("/v1/skills/deploy/versions/2/unyank")).await;
    assert_eq!(body["latest_revision"], 2);
    let (_, index) = send(app.get("/v1/index")).await;
    assert_eq!(index["skills"][0]["revision"], 2);

    let before = app.state_snapshot().await.unwrap();
    for (path, status) in [
        ("/v1/skills/deploy/versions/latest/yank", StatusCode::BAD_REQUEST),
        ("/v1/skills/deploy/versions/0/yank", StatusCode::BAD_REQUEST),
        ("/v1/skills/deploy/versions/9/yank", StatusCode::NOT_FOUND),
        ("/v1/skills/nope/versions/1/yank", StatusCode::NOT_FOUND),
        ("/v1/skills/Bad%20Name/versions/1/yank", StatusCode::BAD_REQUEST),
    ] {
        let (got, body) = send(app.post(path)).await;
        assert_eq!(got, status, "{path}: {body}");
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn a_token_never_mints_a_stronger_or_longer_lived_one() {
    let app = TestApp::spawn().await.unwrap();
    app.user_with_token("rev", Role::Reviewer).await.unwrap();
    // An admin's narrowed token (read + admin, no review) cannot hand out `review`, even to
    // a reviewer whose role would allow it.
    let (_, narrowed) = send(
        app.post("/v1/tokens")
            .json(&json!({ "scopes": ["admin"], "ttl": "2h" })),
    )
    .await;
    let narrowed = narrowed["token"].as_str().unwrap().to_owned();
    let issue = |token: &str, body: Value| app.post_as(token, "/v1/tokens").json(&body).send();
    let before = app.state_snapshot().await.unwrap();
    let (status, body) = json_of(
        issue(&narrowed, json!({ "user": "rev", "scopes": ["review"] }))
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert!(
        error_message(&body).contains("cannot grant review: the token you are using can grant at most: read"),
        "{body}"
    );
    // Nor outlive itself: an explicit longer ttl is refused, the default is shortened.
    let (status, body) = json_of(issue(&narrowed, json!({ "ttl": "1d" })).await.unwrap()).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        error_message(&body).contains("cannot outlive the token that issues it"),
        "{body}"
    );
    assert_eq!(app.state_snapshot().await.unwrap(), before);
    let (status, child) = json_of(issue(&narrowed, json!({})).await.unwrap()).await;
    assert_eq!(status, StatusCode::CREATED, "{child}");
    let expires: chrono::DateTime<chrono::Utc> = child["expires_at"].as_str().unwrap().parse().unwrap();
    assert!(expires <= chrono::Utc::now() + chrono::Duration::hours(2), "{child}");
    // An admin issuing for someone else may give up to that user's role, for as long as
    // the settings allow.
    let (status, body) = send(
        app.post("/v1/tokens")
            .json(&json!({ "user": "rev", "scopes": ["review"], "ttl": "90d" })),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["scopes"], json!(["read", "review"]));
}

#[tokio::test]
async fn a_user_holds_at_most_a_hundred_active_tokens() {
    let app = TestApp::spawn().await.unwrap();
    let (user, token) = app.user_with_token("many", Role::Member).await.unwrap();
    for _ in 1..100 {
        app.token_for(&user, "default", std::time::Duration::from_secs(3600), &app.keys)
            .await
            .unwrap();
    }
    let before = app.state_snapshot().await.unwrap();
    let (status, body) = send(app.post_as(&token, "/v1/tokens").json(&json!({}))).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(
        error_message(&body).contains("100 active tokens: revoke unused ones"),
        "{body}"
    );
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn unknown_paths_count_against_the_address_but_probes_never_do() {
    let data_dir = tempfile::tempdir().unwrap();
    let blobs = std::sync::Arc::new(FsBlobStore::new(data_dir.path().join("blobs")).unwrap());
    let settings = AccessSettings {
        rate_limits: RateLimits {
            per_token: None,
            per_address: Limit::parse("4/min").unwrap(),
            proposals_per_token: None,
            proposals_per_user: None,
        },
        ..AccessSettings::default()
    };
    let app = TestApp::spawn_with_settings(data_dir, blobs, settings).await.unwrap();
    for _ in 0..10 {
        let response = app.client.get(app.url("/readyz")).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(!response.headers().contains_key("ratelimit-limit"));
    }
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(app.client.get(app.url("/nope")).send().await.unwrap().status());
    }
    assert_eq!(statuses[..4], [StatusCode::NOT_FOUND; 4]);
    assert_eq!(statuses[4], StatusCode::TOO_MANY_REQUESTS);
    let response = app.client.get(app.url("/v1/whoami")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    let reset: u64 = response.headers()["ratelimit-reset"].to_str().unwrap().parse().unwrap();
    // Retry-After: one more request; RateLimit-Reset: the whole budget (4 × 15 s).
    assert!(
        retry <= 15 && (45..=60).contains(&reset),
        "retry {retry}, reset {reset}"
    );
    assert_eq!(
        app.client.get(app.url("/healthz")).send().await.unwrap().status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn client_request_ids_are_kept_only_when_they_look_like_ids() {
    let app = TestApp::spawn().await.unwrap();
    for (sent, kept) in [
        ("req-42.a_b:c", true),
        ("forged <script>", false),
        (&*"x".repeat(65), false),
    ] {
        let response = app.get("/v1/whoami").header("x-request-id", sent).send().await.unwrap();
        let echoed = response.headers()["x-request-id"].to_str().unwrap();
        assert_eq!(echoed == sent, kept, "{sent} → {echoed}");
        assert!(!echoed.is_empty());
    }
}
