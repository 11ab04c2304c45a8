//! Webhooks end to end: a receiver on a random port gets signed deliveries for patch and
//! version events; a failing receiver's deliveries are retried and logged; bad
//! subscriptions are refused and change nothing.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::{HeaderMap, StatusCode as AxumStatus};
use cairn_e2e::app::{TestApp, send};
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

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

async fn wait_for(received: &Received, n: usize) -> Vec<(HeaderMap, Vec<u8>)> {
    for _ in 0..150 {
        if received.lock().unwrap().len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    received.lock().unwrap().clone()
}

/// The newest delivery of a webhook once its first attempt failed (waits up to 10 s).
async fn first_failure(app: &TestApp, hook: &str) -> Value {
    let path = format!("/v1/webhooks/{hook}/deliveries");
    let mut entry = Value::Null;
    for _ in 0..100 {
        let (_, log) = send(app.get(&path)).await;
        entry = log["items"][0].clone();
        if !entry["last_error"].is_null() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    entry
}

#[tokio::test]
async fn patch_and_version_events_arrive_signed() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", "1. Run it.", &[]).await;
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
    let (status, p) = send(app.post_as(&member, "/v1/patches").json(&json!({
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
    let (base, received) = receiver().await;
    let (_, hook) = send(app.post("/v1/webhooks").json(&json!({
        "url": format!("{base}/fail"), "events": ["version.published"],
    })))
    .await;
    app.import_skill("ops/demo", "demo", "1. Run it.", &[]).await;
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
    app.import_skill("ops/demo", "demo", "1. Run it.", &[]).await;
    let entry = first_failure(&app, hook["id"].as_str().unwrap()).await;
    // Nothing listens there: a connection error, not "scheme is not http" (TLS is built in).
    let error = entry["last_error"].as_str().unwrap_or_default();
    assert!(
        error.contains("could not deliver") && !error.contains("scheme"),
        "{entry}"
    );
}

/// One URL per address class webhooks may not reach (IPv4, IPv6, IPv4-mapped IPv6 and
/// names that always mean this machine or a metadata service), with the rule's words.
const INTERNAL_URLS: &[(&str, &str)] = &[
    ("http://169.254.169.254/latest/meta-data/", "cloud metadata"),
    ("http://[fd00:ec2::254]/latest/", "cloud metadata"),
    ("http://metadata.google.internal/computeMetadata/v1/", "cloud metadata"),
    ("http://127.0.0.1:5432/", "loopback"),
    ("http://[::1]:7878/v1/index", "loopback"),
    ("http://[::ffff:127.0.0.1]:7878/", "loopback"),
    ("http://localhost:7878/", "loopback"),
    ("http://0.0.0.0:7878/", "unspecified"),
    ("http://[::]/", "unspecified"),
    ("http://10.0.0.1/hook", "private-network"),
    ("http://172.16.5.4/hook", "private-network"),
    ("http://192.168.1.1/hook", "private-network"),
    ("http://[::ffff:10.0.0.1]/hook", "private-network"),
    ("http://100.64.0.1/hook", "carrier-grade NAT"),
    ("http://169.254.10.10/hook", "link-local"),
    ("http://[fe80::1]/hook", "link-local"),
    ("http://[fd12:3456::1]/hook", "unique-local"),
    ("http://224.0.0.1/hook", "multicast"),
    ("http://[ff02::1]/hook", "multicast"),
    ("http://255.255.255.255/hook", "reserved"),
    // Other spellings of an address that the URL parser normalises.
    ("http://2130706433/", "loopback"),
    ("http://0x7f.1/", "loopback"),
];

#[tokio::test]
async fn internal_addresses_are_refused_at_creation_and_change_nothing() {
    let app = TestApp::spawn_with_outbound(cairn_registry::app::outbound::OutboundPolicy::strict())
        .await
        .unwrap();
    let before = app.state_snapshot().await.unwrap();
    for (url, rule) in INTERNAL_URLS {
        let (status, answer) = send(app.post("/v1/webhooks").json(&json!({
            "url": url, "events": ["patch.approved"],
        })))
        .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{url}: {answer}");
        assert_eq!(answer["error"]["code"], "address_not_allowed", "{url}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains(rule) && message.contains("CAIRN_WEBHOOK_ALLOW_NETWORKS"),
            "{url}: {message}"
        );
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before, "nothing stored");
    // A public address is accepted (nothing is sent until an event happens).
    let (status, _) = send(app.post("/v1/webhooks").json(&json!({
        "url": "https://93.184.215.14/hook", "events": ["patch.approved"],
    })))
    .await;
    assert_eq!(status, StatusCode::CREATED);
}

#[tokio::test]
async fn allowed_networks_are_reachable_and_others_stay_refused() {
    let allowed = cairn_registry::app::outbound::OutboundPolicy::parse("127.0.0.0/8").unwrap();
    let app = TestApp::spawn_with_outbound(allowed).await.unwrap();
    for (url, expected) in [
        ("http://127.0.0.1:9/hook", StatusCode::CREATED),
        ("http://localhost:9/hook", StatusCode::CREATED),
        ("http://[::1]:9/hook", StatusCode::UNPROCESSABLE_ENTITY),
        ("http://169.254.169.254/", StatusCode::UNPROCESSABLE_ENTITY),
    ] {
        let (status, answer) = send(app.post("/v1/webhooks").json(&json!({
            "url": url, "events": ["patch.approved"],
        })))
        .await;
        assert_eq!(status, expected, "{url}: {answer}");
    }
}

/// Answers every name with fixed addresses: a "public" name that resolves to loopback,
/// without any DNS traffic.
struct Rebound(std::net::IpAddr);

impl cairn_registry::app::outbound::Lookup for Rebound {
    fn lookup(&self, _name: String) -> futures::future::BoxFuture<'static, std::io::Result<Vec<std::net::IpAddr>>> {
        let ip = self.0;
        Box::pin(async move { Ok(vec![ip]) })
    }
}

#[tokio::test]
async fn a_name_that_resolves_to_an_internal_address_is_not_contacted() {
    use cairn_registry::app::outbound::OutboundPolicy;
    use cairn_registry::app::webhooks::{delivery_client, send as deliver};
    let (base, received) = receiver().await;
    let port = base.rsplit(':').next().unwrap();
    let url = format!("http://hooks.rebound.test:{port}/ok");
    let payload = json!({"event": "patch.approved"});
    let lookup = Arc::new(Rebound("127.0.0.1".parse().unwrap()));

    let strict = Arc::new(OutboundPolicy::strict());
    let client = delivery_client(strict.clone(), lookup.clone()).unwrap();
    let attempt = deliver(
        &client,
        &strict,
        &url,
        "patch.approved",
        1,
        "s3cret-s3cret-s3cret",
        &payload,
    )
    .await;
    assert!(!attempt.delivered && attempt.status.is_none(), "{attempt:?}");
    let error = attempt.error.unwrap();
    assert!(
        error.starts_with("not sent: hooks.rebound.test (127.0.0.1) is a loopback address"),
        "{error}"
    );
    assert!(received.lock().unwrap().is_empty(), "the receiver was never contacted");

    // The same name with loopback allowed reaches the receiver: the refusal above was the
    // rule, not a broken client.
    let allowed = Arc::new(OutboundPolicy::parse("127.0.0.0/8").unwrap());
    let client = delivery_client(allowed.clone(), lookup).unwrap();
    let attempt = deliver(
        &client,
        &allowed,
        &url,
        "patch.approved",
        2,
        "s3cret-s3cret-s3cret",
        &payload,
    )
    .await;
    assert!(attempt.delivered, "{attempt:?}");
    assert_eq!(attempt.status, Some(200));
    assert_eq!(received.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_stored_webhook_to_an_internal_address_is_not_sent_and_the_log_says_why() {
    // A webhook stored before the rule (or before its network was dropped from the allowed
    // list) is refused when a delivery connects.
    let app = TestApp::spawn_with_outbound(cairn_registry::app::outbound::OutboundPolicy::strict())
        .await
        .unwrap();
    let (base, received) = receiver().await;
    let hook = app
        .store
        .create_webhook(
            app.org_id,
            uuid::Uuid::new_v4(),
            &format!("{base}/ok"),
            "s3cret-s3cret-s3cret",
            &["version.published".to_owned()],
            &cairn_store::Actor::cli("test"),
        )
        .await
        .unwrap();
    app.import_skill("ops/demo", "demo", "1. Run it.", &[]).await;
    let entry = first_failure(&app, &hook.id.to_string()).await;
    let error = entry["last_error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("not sent: 127.0.0.1 is a loopback address"),
        "{entry}"
    );
    assert!(entry["last_status_code"].is_null(), "{entry}");
    assert!(received.lock().unwrap().is_empty(), "the receiver was never contacted");
}
