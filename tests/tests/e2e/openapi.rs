//! The OpenAPI document (`GET /openapi.json`): it names every REST route the server
//! has and no other, and a property-based fuzzer that reads only the document
//! (schemathesis, from PyPI) finds no server error and no answer that breaks its schema.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use cairn_e2e::app::TestApp;
use cairn_e2e::corpus;
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::Value;

async fn document(app: &TestApp) -> Value {
    // Public: no token.
    let response = reqwest::get(app.url("/openapi.json")).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/json");
    response.json().await.unwrap()
}

#[tokio::test]
async fn the_served_document_names_every_rest_route_and_no_other() {
    let app = TestApp::spawn().await.unwrap();
    let document = document(&app).await;
    assert_eq!(document["openapi"], "3.1.0");

    let routes: BTreeSet<(String, String)> = cairn_registry::rest::routes()
        .into_iter()
        .map(|(rule, _)| (rule.method.as_str().to_ascii_lowercase(), rule.path.replace("{*", "{")))
        .collect();
    assert!(routes.len() > 40, "{routes:?}");
    let mut documented = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("a path item") {
            assert!(
                operation["responses"].as_object().is_some_and(|r| !r.is_empty()),
                "{method} {path} has no responses"
            );
            documented.insert((method.clone(), path.clone()));
        }
    }
    let undocumented: Vec<_> = routes.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "routes missing from /openapi.json: {undocumented:?}"
    );
    let made_up: Vec<_> = documented.difference(&routes).collect();
    assert!(made_up.is_empty(), "documented but not served: {made_up:?}");

    // Every REST route of the server's table, which the gate authorises by.
    let served: BTreeSet<(String, String)> = cairn_registry::server::rules()
        .into_iter()
        // The signing keys document is ours too (the other /.well-known routes are the
        // compatibility APIs').
        .filter(|rule| {
            rule.path.starts_with("/v1/") || rule.path == "/openapi.json" || rule.path == "/.well-known/cairn/keys"
        })
        .map(|rule| (rule.method.as_str().to_ascii_lowercase(), rule.path.replace("{*", "{")))
        .collect();
    assert_eq!(served, routes, "a REST route is served outside rest::endpoints()");

    // Operations name the scope they need; the public document needs none.
    assert_eq!(document["paths"]["/v1/patches"]["post"]["x-cairn-scope"], "submit");
    assert_eq!(
        document["paths"]["/openapi.json"]["get"]["security"],
        serde_json::json!([])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn schemathesis_finds_no_server_error_and_no_answer_off_its_schema() {
    let app = TestApp::spawn().await.unwrap();
    // Real content for the fuzzer's stateful phase to walk: skills, a patch by a member.
    app.import(&corpus().join("skills/openai")).await.unwrap();
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let submitted = app
        .post_as(&member, "/v1/patches")
        .json(&serde_json::json!({
            "skill": "create-plan", "base_revision": 1, "summary": "Say what to check",
            "ops": [{"op": "write_file", "file": "references/checks.md", "content": "Check the output.\n"}],
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        submitted.status(),
        StatusCode::CREATED,
        "{}",
        submitted.text().await.unwrap()
    );

    // The registry's own request counter says which operations the fuzzer got a success
    // from (a run that only ever hears 4xx proves little).
    let metrics_url = app.serve_metrics().await;
    let seeded = successes(&reqwest::get(&metrics_url).await.unwrap().text().await.unwrap());

    let st = tokio::task::spawn_blocking(schemathesis).await.unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let schema = app.url("/openapi.json");
    let auth = format!("Authorization: Bearer {}", app.admin_token);
    // Revoking the token the fuzzer runs with would end the run early: the token
    // routes run on their own, last (their links revoke the tokens the run issues).
    let runs: [&[&str]; 2] = [
        &["--exclude-operation-id", "delete_tokens_by_id"],
        &["--include-path-regex", "^/v1/tokens"],
    ];
    for selection in runs {
        let mut command = Command::new(&st);
        command
            .args(["run", &schema, "--header", &auth])
            .args([
                "--checks",
                "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance",
            ])
            // The event stream never ends by design (tests/e2e/live.rs covers it).
            .args(["--exclude-path", "/v1/events"])
            .args(["--max-examples", "20", "--seed", "1", "--request-timeout", "30", "--no-color"])
            // Nothing kept between runs, nothing written into the checkout.
            .args(["--generation-database", "none"])
            .current_dir(scratch.path())
            .args(selection)
            .env_remove("HTTP_PROXY")
            .env_remove("HTTPS_PROXY");
        let run = tokio::task::spawn_blocking(move || run_bounded(command, Duration::from_secs(600)))
            .await
            .unwrap();
        assert!(
            run.0,
            "schemathesis {selection:?} found failures:\n{}",
            tail(&run.1, 12_000)
        );
        assert!(
            // " 0 generated", not "0 generated": "2910 generated" ends with that too.
            run.1.contains(" passed") && !run.1.contains(" 0 generated"),
            "schemathesis tested nothing:\n{}",
            tail(&run.1, 4_000)
        );
    }

    let after = successes(&reqwest::get(&metrics_url).await.unwrap().text().await.unwrap());
    let succeeded: BTreeSet<String> = after
        .into_iter()
        .filter(|(operation, count)| seeded.get(operation).is_none_or(|before| count > before))
        .map(|(operation, _)| operation)
        .collect();
    eprintln!(
        "operations the fuzzer got a success from ({}): {succeeded:#?}",
        succeeded.len()
    );
    for core in [
        "GET /v1/skills",
        "GET /v1/skills/{name}",
        "GET /v1/skills/{name}/versions",
        "GET /v1/index",
        "GET /v1/patches",
        "GET /v1/audit",
        "POST /v1/tokens",
        "POST /v1/users",
        "POST /v1/skills/{name}/versions/{rev}/yank",
    ] {
        assert!(
            succeeded.contains(core),
            "the fuzzer never got a success from {core}: {succeeded:#?}"
        );
    }
    assert!(
        succeeded.len() >= 20,
        "the fuzzer got a success from only {} operations: {succeeded:#?}",
        succeeded.len()
    );
}

#[tokio::test]
async fn raw_body_routes_refuse_an_oversize_body_with_the_documented_error_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import(&corpus().join("skills/openai")).await.unwrap();
    let before = app.state_snapshot().await.unwrap();
    let id = uuid::Uuid::new_v4();
    let huge = vec![b'x'; 300 * 1024];
    for path in [
        format!("/v1/patches/{id}/approve"),
        format!("/v1/patches/{id}/reject"),
        format!("/v1/patches/{id}/duplicate"),
        "/v1/admin/rescan".to_owned(),
    ] {
        let response = app.post(&path).body(huge.clone()).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::PAYLOAD_TOO_LARGE, "{path}");
        assert_eq!(response.headers()["content-type"], "application/json", "{path}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "payload_too_large", "{path}: {body}");
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

/// Per operation (`METHOD /route`), how many answers were a success (2xx or 304), read
/// from the registry's request counter.
fn successes(metrics: &str) -> std::collections::BTreeMap<String, f64> {
    let mut out = std::collections::BTreeMap::new();
    for line in metrics.lines() {
        let Some((labels, value)) = line
            .strip_prefix("cairn_http_requests_total{")
            .and_then(|rest| rest.split_once("} "))
        else {
            continue;
        };
        let label = |name: &str| {
            labels
                .split(&format!("{name}=\""))
                .nth(1)
                .and_then(|v| v.split('"').next())
                .unwrap_or_default()
                .to_owned()
        };
        let status = label("status");
        if status.starts_with('2') || status == "304" {
            let count: f64 = value.trim().parse().unwrap_or(0.0);
            *out.entry(format!("{} {}", label("method"), label("route")))
                .or_insert(0.0) += count;
        }
    }
    out
}

/// Runs `command`, killing it after `limit`: (succeeded, everything it printed).
fn run_bounded(mut command: Command, limit: Duration) -> (bool, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let mut child = command
        .stdout(out.reopen().unwrap())
        .stderr(out.reopen().unwrap())
        .spawn()
        .expect("schemathesis starts");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let printed = std::fs::read_to_string(out.path()).unwrap_or_default();
    match status {
        Some(status) => (status.success(), printed),
        None => (false, format!("{printed}\n(killed after {limit:?})")),
    }
}

fn tail(text: &str, bytes: usize) -> &str {
    let mut start = text.len().saturating_sub(bytes);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The pinned fuzzer.
const SCHEMATHESIS: &str = "schemathesis==4.32.5";

/// `st` from a virtualenv with [`SCHEMATHESIS`]: `$CAIRN_SCHEMATHESIS_VENV` (CI prepares
/// it), else one made under the system temp directory and kept for later runs.
fn schemathesis() -> PathBuf {
    let venv = std::env::var_os("CAIRN_SCHEMATHESIS_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("cairn-schemathesis-venv-4.32.5"));
    let st = venv.join("bin/st");
    let ready = Command::new(&st)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ready {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 must be installed for the OpenAPI fuzzing test");
        assert!(made.success(), "python3 -m venv {} failed", venv.display());
        let installed = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check", SCHEMATHESIS])
            .status()
            .unwrap();
        assert!(
            installed.success(),
            "pip install {SCHEMATHESIS} failed (PyPI must be reachable)"
        );
    }
    st
}
