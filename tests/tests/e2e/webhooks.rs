//! Webhooks end to end: a receiver on a random port gets signed deliveries for patch and
//! version events; a failing receiver's deliveries are retried and logged; bad
//! subscriptions are refused and change nothing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode as AxumStatus};
use cairn_e2e::app::TestApp;
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::write_skill;

type Received = Arc<Mutex<Vec<(HeaderMap, Vec<u8>)>>>;

/// A receiver: `/ok` records and answers 200, `/fail` records and answers 500.
async fn receiver() -> (String, Received) {
    let received: Received = Arc::default();
    let record = |answer: AxumStatus| {
        let received = received.clone();
        move |headers: HeaderMap, body: axum::body::Bytes| {
            let received = received.clone();
            async move {
                received.lock().unwrap().push((headers, body.to_vec()));
                answer
            }
        }
    };
    let app = axum::Router::new()
        .route("/ok", axum::routing::post(record(AxumStatus::OK)))
        .route("/fail", axum::routing::post(record(AxumStatus::INTERNAL_SERVER_ERROR)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), received)
}

async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json::<Value>().await.unwrap_or(Value::Null))
}

async fn wait_for(received: &Received, n: usize) -> Vec<(HeaderMap, Vec<u8>)> {
    for _ in 0..150 {
        if received.lock().unwrap().len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    received.lock().unwrap().clone()
}

#[tokio::test]
async fn patch_and_version_events_arrive_signed() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_skill(tree.path(), "ops/demo", "demo", "1. Run it.", &[]);
    app.import(tree.path()).await.unwrap();
    let (base, received) = receiver().await;
    let (status, hook) = send(app.post("/v1/webhooks").json(&json!({
        "url": format!("{base}/ok"),
        "events": ["patch.submitted", "patch.approved", "version.published"],
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    let secret = hook["secret"].as_str().unwrap().to_owned();
    let (_, listed) = send(app.get("/v1/webhooks")).await;
    assert!(listed["items"][0].get("secret").is_none(), "secrets are shown once");

    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (status, p) = send(app.client.post(app.url("/v1/patches")).bearer_auth(&member).json(&json!({
        "skill": "demo", "base_revision": 1, "ops": [{"op": "patch", "old": "1. Run it.", "new": "1. Run it twice."}],
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{p}");
    let (status, _) = send(
        app.post(&format!("/v1/patches/{}/approve", p["id"].as_str().unwrap()))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let got = wait_for(&received, 3).await;
    let mut events: Vec<String> = Vec::new();
    for (headers, body) in &got {
        let signature = headers["x-cairn-signature"].to_str().unwrap();
        assert_eq!(
            signature,
            cairn_registry::app::webhooks::signature(&secret, body),
            "signed with the secret"
        );
        let payload: Value = serde_json::from_slice(body).unwrap();
        assert_eq!(
            headers["x-cairn-event"].to_str().unwrap(),
            payload["event"].as_str().unwrap()
        );
        events.push(payload["event"].as_str().unwrap().to_owned());
        if payload["event"] == "version.published" {
            assert_eq!(
                (payload["data"]["skill"].as_str(), payload["data"]["revision"].as_i64()),
                (Some("demo"), Some(2))
            );
        }
    }
    events.sort();
    assert_eq!(events, vec!["patch.approved", "patch.submitted", "version.published"]);
    // The receiver answers before the registry records the outcome: wait for the record.
    let deliveries = format!("/v1/webhooks/{}/deliveries", hook["id"].as_str().unwrap());
    let mut items = Vec::new();
    for _ in 0..100 {
        let (_, log) = send(app.get(&deliveries)).await;
        items = log["items"].as_array().unwrap().clone();
        if items.iter().all(|d| d["status"] != "pending") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(items.len(), 3);
    assert!(
        items
            .iter()
            .all(|d| d["status"] == "delivered" && d["attempts"] == 1 && d["last_status_code"] == 200),
        "{items:?}"
    );
}

#[tokio::test]
async fn a_failing_receiver_is_retried_and_the_log_says_why() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    let (base, received) = receiver().await;
    let (_, hook) = send(app.post("/v1/webhooks").json(&json!({
        "url": format!("{base}/fail"), "events": ["version.published"],
    })))
    .await;
    write_skill(tree.path(), "ops/demo", "demo", "1. Run it.", &[]);
    app.import(tree.path()).await.unwrap();
    assert_eq!(wait_for(&received, 1).await.len(), 1);
    let path = format!("/v1/webhooks/{}/deliveries", hook["id"].as_str().unwrap());
    let mut entry = Value::Null;
    for _ in 0..50 {
        let (_, log) = send(app.get(&path)).await;
        entry = log["items"][0].clone();
        if entry["last_status_code"] == 500 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        (entry["status"].as_str(), entry["attempts"].as_i64()),
        (Some("pending"), Some(1)),
        "{entry}"
    );
    assert!(entry["last_error"].as_str().unwrap().contains("500"));
    assert!(entry["next_attempt_at"].is_string(), "the retry is scheduled");
}

#[tokio::test]
async fn bad_subscriptions_are_refused_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    let before = app.state_snapshot().await.unwrap();
    for body in [
        json!({"url": "ftp://example.com/x", "events": ["patch.approved"]}),
        json!({"url": "not a url", "events": ["patch.approved"]}),
        json!({"url": "https://example.com/x", "events": []}),
        json!({"url": "https://example.com/x", "events": ["patch.exploded"]}),
        json!({"url": "https://example.com/x", "events": ["patch.approved"], "secret": "short"}),
        json!({"url": "https://example.com/x", "events": ["patch.approved"], "extra": true}),
        json!({"url": "https://user:pw@example.com/x", "events": ["patch.approved"]}),
    ] {
        let (status, answer) = send(app.post("/v1/webhooks").json(&body)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
    }
    let (status, _) = send(
        app.client
            .delete(app.url(&format!("/v1/webhooks/{}", uuid::Uuid::new_v4())))
            .bearer_auth(&app.admin_token),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = send(app.get("/v1/webhooks/nope/deliveries")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn urls_are_stored_normalised_and_https_is_delivered_over_tls() {
    let app = TestApp::spawn().await.unwrap();
    let (status, hook) = send(app.post("/v1/webhooks").json(&json!({
        "url": "HTTPS://127.0.0.1:1/Hook", "events": ["version.published"],
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED, "{hook}");
    assert_eq!(hook["url"], "https://127.0.0.1:1/Hook");
    let tree = tempfile::tempdir().unwrap();
    write_skill(tree.path(), "ops/demo", "demo", "1. Run it.", &[]);
    app.import(tree.path()).await.unwrap();
    let path = format!("/v1/webhooks/{}/deliveries", hook["id"].as_str().unwrap());
    let mut entry = Value::Null;
    for _ in 0..100 {
        let (_, log) = send(app.get(&path)).await;
        entry = log["items"][0].clone();
        if !entry["last_error"].is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Nothing listens there: a connection error, not "scheme is not http" (TLS is built in).
    let error = entry["last_error"].as_str().unwrap_or_default();
    assert!(
        error.contains("could not deliver") && !error.contains("scheme"),
        "{entry}"
    );
}
