//! Tokens and secrets never reach the logs or traces.
//!
//! Everything emitted in this process at TRACE level, for every target (the registry, the
//! store, sqlx, tower-http, the HTTP client, `log` records bridged into tracing), in both
//! the text and the JSON format and with span creation and close events, is captured
//! while requests carry valid, tampered, foreign-signed, freshly issued and revoked
//! tokens and a Basic credential; the configuration is logged with a signing secret and
//! a database password in it. Then the captured text is searched for every secret.
//!
//! This is its own test binary because it installs a global subscriber.

use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_e2e::app::TestApp;
use cairn_registry::auth::TokenKeys;
use cairn_registry::bootstrap::DEFAULT_ORG;
use cairn_registry::config::Config;
use cairn_store::Role;
use reqwest::StatusCode;
use reqwest::header::AUTHORIZATION;
use serde_json::{Value, json};
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// The signing secret handed to the configuration path.
const JWT_SECRET: &str = "super-secret-signing-key-0123456789abcdef";
/// The database password handed to the configuration path.
const DB_PASSWORD: &str = "hunter2";
/// `user:pass`, base64: a Basic credential.
const BASIC_CREDENTIAL: &str = "dXNlcjpwYXNz";

/// An in-memory log sink every formatted line is appended to.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Capture {
    /// Everything captured so far.
    fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|e| e.into_inner());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl io::Write for Capture {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Capture {
    type Writer = Capture;

    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// Installs the global subscriber: TRACE for all targets, a text and a JSON layer, both
/// into the returned buffer (span creation and close included, so span fields are seen
/// even when no event is emitted inside the span).
fn capture_logs() -> Capture {
    let capture = Capture::default();
    let text = tracing_subscriber::fmt::layer()
        .with_writer(capture.clone())
        .with_ansi(false)
        .with_target(true)
        .with_span_events(FmtSpan::NEW | FmtSpan::CLOSE);
    let json = tracing_subscriber::fmt::layer()
        .json()
        .with_writer(capture.clone())
        .with_current_span(true)
        .with_span_list(true)
        .with_span_events(FmtSpan::NEW | FmtSpan::CLOSE);
    tracing_subscriber::registry()
        .with(LevelFilter::TRACE)
        .with(text)
        .with(json)
        .try_init()
        .expect("installing the capturing subscriber (this binary must install no other)");
    capture
}

/// The status of a GET of `path` with `authorization` as the `Authorization` header.
async fn status_with(app: &TestApp, path: &str, authorization: &str) -> StatusCode {
    app.client
        .get(app.url(path))
        .header(AUTHORIZATION, authorization)
        .send()
        .await
        .unwrap()
        .status()
}

/// The same token with its last character changed so that the signature no longer
/// matches (the replacement differs in the bits that count, not only in padding bits).
fn tamper(token: &str) -> String {
    let (head, last) = token.split_at(token.len() - 1);
    let replacement = if last == "A" { "Q" } else { "A" };
    format!("{head}{replacement}")
}

/// The lines of `logs` that contain `needle`.
fn lines_with<'a>(logs: &'a str, needle: &str) -> Vec<&'a str> {
    logs.lines().filter(|line| line.contains(needle)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_and_secrets_never_reach_the_logs() {
    let logs = capture_logs();
    let app = TestApp::spawn().await.unwrap();
    let admin = app.admin_token.clone();
    let bearer = |token: &str| format!("Bearer {token}");

    // The valid admin token.
    for path in ["/v1/whoami", "/v1/index", "/v1/tokens"] {
        assert_eq!(status_with(&app, path, &bearer(&admin)).await, StatusCode::OK, "{path}");
    }

    // A tampered token.
    let tampered = tamper(&admin);
    assert_ne!(tampered, admin);
    assert_eq!(
        status_with(&app, "/v1/whoami", &bearer(&tampered)).await,
        StatusCode::UNAUTHORIZED
    );

    // A user's own valid token, and a well-formed one for them signed by another key.
    let (user, user_token) = app.user_with_token("mallory", Role::Member).await.unwrap();
    assert_eq!(
        status_with(&app, "/v1/whoami", &bearer(&user_token)).await,
        StatusCode::OK
    );
    let other_keys = TokenKeys::from_secret(&[7u8; 32]).unwrap();
    let foreign = app
        .token_for(&user, DEFAULT_ORG, Duration::from_secs(60), &other_keys)
        .await
        .unwrap();
    assert_eq!(
        status_with(&app, "/v1/whoami", &bearer(&foreign)).await,
        StatusCode::UNAUTHORIZED
    );

    // A token issued through the API, used, revoked, then refused.
    let response = app
        .client
        .post(app.url("/v1/tokens"))
        .header(AUTHORIZATION, bearer(&admin))
        .json(&json!({"name": "ci", "ttl": "1d", "scopes": ["read"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    let body: Value = response.json().await.unwrap();
    let issued = body["token"].as_str().expect("the issued token").to_owned();
    let issued_id = body["id"].as_str().expect("the issued token's id").to_owned();
    assert_eq!(status_with(&app, "/v1/whoami", &bearer(&issued)).await, StatusCode::OK);
    let revoke = app
        .client
        .delete(app.url(&format!("/v1/tokens/{issued_id}")))
        .header(AUTHORIZATION, bearer(&admin))
        .send()
        .await
        .unwrap();
    assert_eq!(revoke.status(), StatusCode::OK);
    assert_eq!(
        status_with(&app, "/v1/whoami", &bearer(&issued)).await,
        StatusCode::UNAUTHORIZED
    );

    // Another scheme altogether.
    assert_eq!(
        status_with(&app, "/v1/whoami", &format!("Basic {BASIC_CREDENTIAL}")).await,
        StatusCode::UNAUTHORIZED
    );

    // The configuration path, with a signing secret and a database password.
    let database_url = format!("postgres://u:{DB_PASSWORD}@localhost/db");
    let config = Config::from_lookup(PathBuf::from("/data"), |key| match key {
        "CAIRN_JWT_SECRET" => Some(JWT_SECRET.to_owned()),
        "CAIRN_DATABASE_URL" => Some(database_url.clone()),
        _ => None,
    })
    .unwrap();
    assert_eq!(
        config.jwt_secret.as_ref().map(|s| s.expose().as_str()),
        Some(JWT_SECRET)
    );
    assert_eq!(config.database_url.as_ref().map(|s| s.expose()), Some(&database_url));
    tracing::info!(?config, "resolved configuration");
    let keys = TokenKeys::load(
        config.jwt_secret.as_ref().map(|s| s.expose().as_str()),
        &[],
        &config.data_dir,
    )
    .unwrap();
    tracing::info!(?keys, server_keys = ?app.keys, "signing keys");

    // A request with its own id: the id is on the response and on the request's log lines.
    let traced = app
        .client
        .get(app.url("/v1/whoami"))
        .bearer_auth(&app.admin_token)
        .header("x-request-id", "ops-trace-0001")
        .send()
        .await
        .unwrap();
    assert_eq!(traced.headers()["x-request-id"], "ops-trace-0001");

    app.stop().await.unwrap();
    let logs = logs.text();

    // Not vacuous: request spans were captured, in both formats, and the configuration.
    let (json_lines, text_lines): (Vec<&str>, Vec<&str>) = logs.lines().partition(|line| line.starts_with('{'));
    let json_records: Vec<Value> = json_lines
        .iter()
        .map(|line| serde_json::from_str(line).expect("a JSON-format log line"))
        .collect();
    let request_span = |method: &str, route: &str| {
        json_records.iter().any(|record| {
            record["span"]["name"] == "http" && record["span"]["method"] == method && record["span"]["route"] == route
        })
    };
    assert!(
        json_records
            .iter()
            .any(|record| record["span"]["name"] == "http" && record["span"]["request_id"] == "ops-trace-0001"),
        "no JSON-format record carries the request id ops-trace-0001"
    );
    for (method, route) in [
        ("GET", "/v1/whoami"),
        ("POST", "/v1/tokens"),
        ("DELETE", "/v1/tokens/{id}"),
    ] {
        assert!(
            request_span(method, route),
            "no JSON-format record in the request span of {method} {route} among {} JSON lines",
            json_records.len()
        );
    }
    assert!(
        text_lines
            .iter()
            .any(|line| line.contains("http{method=GET") && line.contains("/v1/whoami")),
        "no text-format line in the request span of GET /v1/whoami among {} text lines",
        text_lines.len()
    );
    assert_eq!(
        lines_with(&logs, "resolved configuration").len(),
        2,
        "the configuration was not logged in both formats"
    );

    let tokens = [
        ("admin token", &admin),
        ("tampered admin token", &tampered),
        ("member token", &user_token),
        ("token signed by another key", &foreign),
        ("token issued by POST /v1/tokens", &issued),
    ];
    let mut secrets: Vec<(String, String)> = Vec::new();
    for (what, token) in tokens {
        let parts: Vec<&str> = token.split('.').collect();
        assert_eq!(parts.len(), 3, "{what} is not a JWT");
        secrets.push((what.to_owned(), token.to_string()));
        secrets.push((format!("payload of the {what}"), parts[1].to_owned()));
        secrets.push((format!("signature of the {what}"), parts[2].to_owned()));
    }
    secrets.push(("Basic credential".to_owned(), BASIC_CREDENTIAL.to_owned()));
    secrets.push(("JWT signing secret".to_owned(), "super-secret-signing-key".to_owned()));
    secrets.push(("database password".to_owned(), DB_PASSWORD.to_owned()));

    let leaks: Vec<String> = secrets
        .iter()
        .filter_map(|(what, needle)| {
            let lines = lines_with(&logs, needle);
            (!lines.is_empty()).then(|| format!("{what} leaked in:\n  {}", lines.join("\n  ")))
        })
        .collect();
    assert!(leaks.is_empty(), "secrets reached the logs:\n{}", leaks.join("\n"));
}
