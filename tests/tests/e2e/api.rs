//! The REST API end to end: real server, real database, real blob store.

use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use cairn_e2e::app::{TestApp, bytes_of, error_code, item_strs, json_of, send};
use cairn_e2e::corpus;
use cairn_registry::auth::TokenKeys;
use cairn_registry::rest::wire::ToWire;
use cairn_skill::{Limits, Sha256Hash};
use cairn_store::{Actor, Role};
use reqwest::StatusCode;
use serde_json::Value;

use crate::fixtures::{copy_tree, write_skill};

#[tokio::test]
async fn imported_corpus_reads_back_byte_identical() {
    let app = TestApp::spawn().await.unwrap();
    let root = corpus().join("skills/anthropic");
    let report = app.import(&root).await.unwrap();
    // claude-api's description is 1068 characters: over the 1024 limit, imported with a
    // warning (reading is tolerant).
    assert!(report.skipped.is_empty(), "skipped: {:?}", report.skipped);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.path.ends_with("claude-api") && w.reason.contains("1024"))
    );
    assert_eq!(report.created.len(), 12);
    let hermes = app.import(&corpus().join("skills/hermes")).await.unwrap();
    for s in &hermes.skipped {
        eprintln!("hermes skipped {}: {}", s.path.display(), s.reason);
    }
    assert!(
        hermes.created.len() >= 150,
        "only {} hermes skills imported",
        hermes.created.len()
    );

    let (status, index) = send(app.get("/v1/index")).await;
    assert_eq!(status, StatusCode::OK);
    let entries = index["skills"].as_array().unwrap();
    assert_eq!(entries.len(), report.created.len() + hermes.created.len());

    let by_name: BTreeMap<String, std::path::PathBuf> = report
        .created
        .iter()
        .chain(&hermes.created)
        .map(|s| (s.name.clone(), s.path.clone()))
        .collect();
    let mut files_checked = 0;
    for entry in entries {
        let name = entry["name"].as_str().unwrap();
        let dir = &by_name[name];
        let mut manifest = Vec::new();
        for file in entry["files"].as_array().unwrap() {
            let path = file["path"].as_str().unwrap();
            let response = app
                .get(&format!("/v1/skills/{name}/versions/latest/files/{path}"))
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "{name}/{path}");
            let served = response.bytes().await.unwrap();
            let on_disk = std::fs::read(dir.join(path)).unwrap();
            assert!(served[..] == on_disk[..], "{name}/{path} differs from disk");
            let sha = Sha256Hash::of(&served);
            assert_eq!(file["sha256"], sha.to_hex());
            assert_eq!(file["size"], on_disk.len());
            manifest.push((cairn_skill::RelPath::parse(path).unwrap(), sha));
            files_checked += 1;
        }
        let digest = cairn_skill::digest::version_digest(manifest.iter().map(|(p, s)| (p, s)));
        assert_eq!(entry["digest"], digest, "digest of {name}");
    }
    assert!(files_checked > 500, "checked {files_checked} files");

    // Whole-bundle download: deterministic and identical to the index entry.
    let first = entries[0]["name"].as_str().unwrap();
    let a = app
        .get(&format!("/v1/skills/{first}/versions/1/bundle"))
        .send()
        .await
        .unwrap();
    assert_eq!(a.status(), StatusCode::OK);
    assert_eq!(a.headers()["content-type"], "application/gzip");
    let a = a.bytes().await.unwrap();
    let b = bytes_of(app.get(&format!("/v1/skills/{first}/versions/1/bundle"))).await;
    assert_eq!(a, b, "bundle archives are deterministic");
    let unpacked = cairn_skill::archive::unpack(&a[..], &Limits::default()).unwrap();
    assert_eq!(unpacked.digest(), entries[0]["digest"].as_str().unwrap());
}

#[tokio::test]
async fn index_supports_etag_and_deltas_after_reimport() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    copy_tree(&corpus().join("skills/openai"), tree.path());
    let first = app.import(tree.path()).await.unwrap();
    assert!(first.skipped.is_empty(), "{:?}", first.skipped);
    let count = first.created.len();
    assert!(count >= 5);

    let response = app.get("/v1/index").send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    let index: Value = response.json().await.unwrap();
    let cursor = index["cursor"].as_i64().unwrap();
    assert_eq!(index["skills"].as_array().unwrap().len(), count);

    // Unchanged index: 304 with the same validator.
    let response = app
        .get("/v1/index")
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(response.headers()["etag"].to_str().unwrap(), etag);

    // Re-import of unchanged content is a no-op.
    let before = app.state_snapshot().await.unwrap();
    let again = app.import(tree.path()).await.unwrap();
    assert_eq!(again.unchanged.len(), count);
    assert!(again.created.is_empty() && again.updated.is_empty());
    assert_eq!(app.state_snapshot().await.unwrap(), before);

    // Change exactly one skill and re-import: the delta holds exactly that change.
    let changed = &first.created[0];
    let skill_md = changed.path.join("SKILL.md");
    let mut text = std::fs::read_to_string(&skill_md).unwrap();
    text.push_str("\n## Pitfalls\n\n- Learned the hard way: check the exit code.\n");
    std::fs::write(&skill_md, text).unwrap();
    let third = app.import(tree.path()).await.unwrap();
    assert_eq!(third.updated.len(), 1);
    assert_eq!(third.updated[0].name, changed.name);
    assert_eq!(third.updated[0].revision, 2);
    assert_eq!(third.unchanged.len(), count - 1);

    tokio::time::sleep(cairn_registry::app::index::CURSOR_TTL + Duration::from_millis(100)).await;
    let response = app
        .get("/v1/index")
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK, "a changed index is not 304");
    let (status, delta) = send(app.get(&format!("/v1/index?since={cursor}"))).await;
    assert_eq!(status, StatusCode::OK);
    let skills = delta["skills"].as_array().unwrap();
    assert_eq!(skills.len(), 1);
    assert_eq!(skills[0]["name"], changed.name.as_str());
    assert_eq!(skills[0]["revision"], 2);
    assert_eq!(delta["removed"], Value::Array(vec![]));
    assert!(delta["cursor"].as_i64().unwrap() > cursor);

    // The changed SKILL.md is served as revision 2, revision 1 still as before.
    let served = app
        .get(&format!("/v1/skills/{}/versions/2/files/SKILL.md", changed.name))
        .send()
        .await
        .unwrap();
    assert!(served.text().await.unwrap().contains("Learned the hard way"));
    let old = app
        .get(&format!("/v1/skills/{}/versions/1/files/SKILL.md", changed.name))
        .send()
        .await
        .unwrap();
    assert!(!old.text().await.unwrap().contains("Learned the hard way"));

    // An empty delta from the newest cursor.
    let newest = delta["cursor"].as_i64().unwrap();
    let (_, empty) = send(app.get(&format!("/v1/index?since={newest}"))).await;
    assert_eq!(empty["skills"], Value::Array(vec![]));

    // The full index after the change (patched from the cached one) equals one built
    // from scratch; so it does after a skill loses its last version (yanked).
    let from_scratch = |snapshot| serde_json::to_value(ToWire::to_wire(snapshot)).unwrap();
    let (_, patched) = send(app.get("/v1/index")).await;
    assert_eq!(patched, from_scratch(app.store.index(app.org_id, None).await.unwrap()));
    assert_eq!(patched["skills"].as_array().unwrap().len(), count);
    let gone = first.created[1].name.clone();
    sqlx::query("UPDATE versions SET yanked = TRUE WHERE skill_id = (SELECT id FROM skills WHERE name = $1)")
        .bind(&gone)
        .execute(app.store.pool())
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO index_changes (org_id, skill_id, kind, revision) SELECT org_id, id, 'yanked', 1 FROM skills WHERE name = $1",
    )
    .bind(&gone)
    .execute(app.store.pool())
    .await
    .unwrap();
    tokio::time::sleep(cairn_registry::app::index::CURSOR_TTL + Duration::from_millis(100)).await;
    let (_, patched) = send(app.get("/v1/index")).await;
    assert_eq!(patched, from_scratch(app.store.index(app.org_id, None).await.unwrap()));
    assert_eq!(patched["skills"].as_array().unwrap().len(), count - 1);
    assert!(
        patched["skills"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["name"] != gone.as_str())
    );
}

#[tokio::test]
async fn bad_tokens_are_refused_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    let (user, _) = app.user_with_token("dev", Role::Member).await.unwrap();
    let actor = Actor::cli("test");
    let other_keys = TokenKeys::from_secret(&[7u8; 32]).unwrap();
    let minute = Duration::from_secs(60);
    let wrong_key = app.token_for(&user, "default", minute, &other_keys).await.unwrap();
    let expired = app
        .token_for(&user, "default", Duration::ZERO, &app.keys)
        .await
        .unwrap();
    let revoked = app.token_for(&user, "default", minute, &app.keys).await.unwrap();
    let id: uuid::Uuid = sqlx::query_scalar("SELECT id FROM api_tokens ORDER BY created_at DESC LIMIT 1")
        .fetch_one(app.store.pool())
        .await
        .unwrap();
    app.store.revoke_token(app.org_id, None, id, &actor).await.unwrap();
    let (_, disabled_token) = app.user_with_token("gone", Role::Member).await.unwrap();
    sqlx::query("UPDATE users SET disabled = TRUE WHERE handle = 'gone'")
        .execute(app.store.pool())
        .await
        .unwrap();
    // Header {"alg":"none"} with valid-looking claims and no signature.
    let alg_none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhZG1pbiIsIm9yZyI6ImRlZmF1bHQiLCJyb2xlIjoiYWRtaW4iLCJzY29wZXMiOltdLCJqdGkiOiIwMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDAiLCJleHAiOjQxMDI0NDQ4MDAsImlhdCI6MCwibmJmIjowfQ.";
    let tampered = {
        let mut t = app.admin_token.clone();
        let last = t.pop().unwrap();
        t.push(if last == 'A' { 'B' } else { 'A' });
        t
    };

    let before = app.state_snapshot().await.unwrap();
    let cases: Vec<(&str, Option<String>, &str)> = vec![
        ("missing", None, "needs a token"),
        ("basic scheme", Some("Basic YWRtaW46YWRtaW4=".into()), "Bearer <token>"),
        ("empty bearer", Some("Bearer ".into()), "Bearer <token>"),
        ("garbage", Some("Bearer not.a.jwt".into()), "not valid"),
        ("alg none", Some(format!("Bearer {alg_none}")), "not valid"),
        ("wrong key", Some(format!("Bearer {wrong_key}")), "not valid"),
        ("tampered signature", Some(format!("Bearer {tampered}")), "not valid"),
        ("expired", Some(format!("Bearer {expired}")), "expired"),
        ("revoked", Some(format!("Bearer {revoked}")), "revoked"),
        ("disabled user", Some(format!("Bearer {disabled_token}")), "disabled"),
    ];
    for (label, header, message) in cases {
        for path in ["/v1/index", "/v1/skills", "/v1/blobs/batch"] {
            let mut request = if path.ends_with("batch") {
                app.client
                    .post(app.url(path))
                    .json(&serde_json::json!({"sha256": ["0".repeat(64)]}))
            } else {
                app.client.get(app.url(path))
            };
            if let Some(h) = &header {
                request = request.header("authorization", h);
            }
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{label} {path}");
            assert!(response.headers().contains_key("www-authenticate"), "{label}");
            let (_, body) = json_of(response).await;
            assert_eq!(error_code(&body), "unauthorized", "{label}");
            let text = body["error"]["message"].as_str().unwrap();
            assert!(text.contains(message), "{label}: {text}");
        }
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before);

    // The admin token and a member token work; whoami reports the database role.
    let (status, me) = send(app.get("/v1/whoami")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["user"], "admin");
    assert_eq!(me["role"], "admin");
    assert_eq!(me["org"], "default");
}

#[tokio::test]
async fn bad_requests_get_clear_errors_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill(
        "devops/deploy",
        "deploy",
        "Steps.",
        &[("references/api.md", "API notes")],
    )
    .await;
    let before = app.state_snapshot().await.unwrap();
    let sha = Sha256Hash::of(b"API notes").to_hex();

    let cases: Vec<(String, StatusCode, &str, &str)> = vec![
        (
            "/v1/skills/nope".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "skill 'nope' does not exist",
        ),
        (
            "/v1/skills/nope/versions".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "skill 'nope' does not exist",
        ),
        (
            "/v1/skills/nope/versions/latest".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "skill 'nope' does not exist",
        ),
        (
            "/v1/skills/deploy/versions/7".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "has no revision 7",
        ),
        (
            "/v1/skills/deploy/versions/7/bundle".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "has no revision 7",
        ),
        (
            "/v1/skills/deploy/versions/0".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "positive number",
        ),
        (
            "/v1/skills/deploy/versions/abc".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "positive number",
        ),
        (
            "/v1/skills/Bad_Name/versions/1".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "lowercase",
        ),
        (
            "/v1/skills/deploy/versions/1/files/nope.md".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "has no file 'nope.md'",
        ),
        (
            "/v1/skills/deploy/versions/1/files/..%2F..%2Fetc%2Fpasswd".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "has no file '../../etc/passwd'",
        ),
        (
            "/v1/skills/%FF".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "URL path is not valid",
        ),
        (
            "/v1/skills?limit=1&limit=2".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "query string is not valid",
        ),
        // A misspelt filter is refused with the parameters the endpoint takes, not
        // ignored (it would list everything).
        (
            "/v1/patches?state=pending_review".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "unknown query parameter 'state': this endpoint takes author, author_contains, cursor, limit, review_requested, skill, skill_contains, sort, status, verdict",
        ),
        (
            "/v1/index?sinse=3".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "unknown query parameter 'sinse'",
        ),
        (
            "/v1/index?since=999999".into(),
            StatusCode::GONE,
            "cursor_expired",
            "fetch the full index",
        ),
        (
            "/v1/skills?limit=0".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "from 1 to 200",
        ),
        (
            "/v1/skills?limit=abc".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "from 1 to 200",
        ),
        (
            "/v1/skills?category=Not%20Valid".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "category",
        ),
        (
            "/v1/skills/deploy/versions?cursor=x".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "next_cursor",
        ),
        (
            "/v1/index?since=-1".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "since",
        ),
        (
            "/v1/index?since=abc".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "since",
        ),
        (
            "/v1/blobs/xyz".into(),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "64-character",
        ),
        (
            format!("/v1/blobs/{}", sha.to_uppercase()),
            StatusCode::BAD_REQUEST,
            "bad_request",
            "64-character",
        ),
        (
            format!("/v1/blobs/{}", "0".repeat(64)),
            StatusCode::NOT_FOUND,
            "not_found",
            "does not exist",
        ),
        (
            "/v1/nothing-here".into(),
            StatusCode::NOT_FOUND,
            "not_found",
            "no such endpoint",
        ),
    ];
    for (path, status, code, message) in cases {
        let (got, body) = send(app.get(&path)).await;
        assert_eq!(got, status, "{path}: {body}");
        assert_eq!(error_code(&body), code, "{path}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(message),
            "{path}: {body}"
        );
    }

    let batch_cases: Vec<(String, StatusCode, &str)> = vec![
        ("{\"sha256\": []}".into(), StatusCode::BAD_REQUEST, "at least one"),
        ("not json".into(), StatusCode::BAD_REQUEST, "must be JSON"),
        ("{\"digests\": []}".into(), StatusCode::BAD_REQUEST, "must be JSON"),
        (
            "{\"sha256\": [\"nothex\"]}".into(),
            StatusCode::BAD_REQUEST,
            "64-character",
        ),
        (
            format!("{{\"sha256\": [\"{sha}\", \"{}\"]}}", "1".repeat(64)),
            StatusCode::NOT_FOUND,
            "1 requested blob(s) do not exist",
        ),
        (
            serde_json::json!({ "sha256": vec![sha.clone(); 1001] }).to_string(),
            StatusCode::BAD_REQUEST,
            "at most 1000",
        ),
    ];
    for (body, status, message) in batch_cases {
        let response = app
            .post("/v1/blobs/batch")
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap();
        let (got, json_body) = json_of(response).await;
        assert_eq!(got, status, "{body}: {json_body}");
        assert!(
            json_body["error"]["message"].as_str().unwrap().contains(message),
            "{body}: {json_body}"
        );
    }
    let oversized = format!("{{\"sha256\": [\"{}\"]}}", "a".repeat(300_000));
    let response = app
        .post("/v1/blobs/batch")
        .header("content-type", "application/json")
        .body(oversized)
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(response).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(error_code(&body), "payload_too_large");
    let response = app
        .client
        .delete(app.url("/v1/index"))
        .bearer_auth(&app.admin_token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn blobs_single_and_batch() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skills(&[
        (
            "a",
            "a",
            "Alpha.",
            &[("references/x.md", "shared"), ("scripts/run.sh", "echo hi")],
        ),
        ("b", "b", "Beta.", &[("references/y.md", "shared")]),
    ])
    .await;

    let shared = Sha256Hash::of(b"shared").to_hex();
    let response = app.get(&format!("/v1/blobs/{shared}")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["cache-control"]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    assert_eq!(response.bytes().await.unwrap().as_ref(), b"shared");
    let cached = app
        .get(&format!("/v1/blobs/{shared}"))
        .header("if-none-match", etag)
        .send()
        .await
        .unwrap();
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);

    let index = app.get_json("/v1/index").await;
    let mut wanted: Vec<String> = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            s["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["sha256"].as_str().unwrap().to_owned())
        })
        .collect();
    wanted.push(shared.clone()); // a duplicate is sent once
    let response = app
        .post("/v1/blobs/batch")
        .json(&serde_json::json!({ "sha256": wanted }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "application/x-tar");
    let body = response.bytes().await.unwrap();
    let mut archive = tar::Archive::new(&body[..]);
    let mut received = Vec::new();
    for entry in archive.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        let mut content = Vec::new();
        entry.read_to_end(&mut content).unwrap();
        assert_eq!(
            Sha256Hash::of(&content).to_hex(),
            name,
            "entry content matches its name"
        );
        received.push(name);
    }
    let expected: Vec<String> = {
        let mut seen = std::collections::HashSet::new();
        wanted.iter().filter(|w| seen.insert((*w).clone())).cloned().collect()
    };
    assert_eq!(received, expected, "one entry per distinct blob, in request order");
}

#[tokio::test]
async fn skills_list_search_versions_and_files_over_http() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    for (rel, name) in [
        ("devops/alpha", "alpha"),
        ("devops/k8s/beta", "beta"),
        ("ml/gamma", "gamma"),
    ] {
        write_skill(tree.path(), rel, name, &format!("{name} body"), &[]);
    }
    app.import(tree.path()).await.unwrap();

    let (_, page1) = send(app.get("/v1/skills?limit=2")).await;
    let names = item_strs(&page1, "name");
    assert_eq!(names, ["alpha", "beta"]);
    let cursor = page1["next_cursor"].as_str().unwrap();
    let (_, page2) = send(app.get(&format!("/v1/skills?limit=2&cursor={cursor}"))).await;
    assert_eq!(page2["items"][0]["name"], "gamma");
    assert_eq!(page2["next_cursor"], Value::Null);

    let (_, devops) = send(app.get("/v1/skills?category=devops")).await;
    assert_eq!(devops["items"].as_array().unwrap().len(), 2);
    let (_, found) = send(app.get("/v1/skills?q=gamma%20does")).await;
    assert_eq!(found["items"][0]["name"], "gamma");

    let (status, skill) = send(app.get("/v1/skills/beta")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(skill["category"], "devops/k8s");
    assert_eq!(skill["latest_revision"], 1);

    let (_, versions) = send(app.get("/v1/skills/beta/versions")).await;
    assert_eq!(versions["items"][0]["revision"], 1);
    assert_eq!(versions["items"][0]["source"], "import");
    let (_, version) = send(app.get("/v1/skills/beta/versions/latest")).await;
    assert_eq!(version["files"][0]["path"], "SKILL.md");
    assert_eq!(version["frontmatter"]["name"], "beta");
    assert_eq!(version["frontmatter"]["metadata"]["hermes"]["tags"][0], "test");

    let file = app
        .get("/v1/skills/beta/versions/1/files/SKILL.md")
        .send()
        .await
        .unwrap();
    assert_eq!(file.headers()["content-type"], "text/markdown; charset=utf-8");
    assert!(file.headers()["cache-control"].to_str().unwrap().contains("immutable"));
}

#[tokio::test]
async fn health_and_readiness() {
    let app = TestApp::spawn().await.unwrap();
    let (status, body) = send(app.client.get(app.url("/healthz"))).await;
    assert_eq!((status, body["status"].as_str()), (StatusCode::OK, Some("ok")));
    let (status, body) = send(app.client.get(app.url("/readyz"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["checks"]["database"], "ok");
    assert_eq!(body["checks"]["blobs"], "ok");
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert!(response.headers().contains_key("x-request-id"));

    // Break the blob store: readiness says so without leaking details.
    let blobs = app.data_dir.path().join("blobs");
    std::fs::remove_dir_all(&blobs).unwrap();
    std::fs::write(&blobs, b"not a directory").unwrap();
    // Verdicts are reused for a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = send(app.client.get(app.url("/readyz"))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(body["checks"]["blobs"], "failing");
}

#[tokio::test]
async fn other_organisations_see_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("private", "private", "Ours.", &[("references/secret.md", "only ours")])
        .await;
    let actor = Actor::cli("test");
    let other = app.store.create_org("acme", "Acme", &actor).await.unwrap();
    let outsider = app
        .store
        .create_user(other.id, "eve", Role::Admin, &actor)
        .await
        .unwrap();
    let token = app
        .token_for(&outsider, "acme", Duration::from_secs(60), &app.keys)
        .await
        .unwrap();
    let sha = Sha256Hash::of(b"only ours").to_hex();
    for path in [
        "/v1/skills/private".to_owned(),
        "/v1/skills/private/versions/1/files/SKILL.md".to_owned(),
        format!("/v1/blobs/{sha}"),
    ] {
        let response = app.get_as(&token, &path).send().await.unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    let response = app
        .post_as(&token, "/v1/blobs/batch")
        .json(&serde_json::json!({"sha256": [sha]}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let index = app.get_json_as(&token, "/v1/index").await;
    assert_eq!(index["skills"], Value::Array(vec![]));
    assert_eq!(index["cursor"], 0);
}

/// Polls until `done` holds (10 s at most).
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..1000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("{what} did not happen within 10 s");
}

#[tokio::test]
async fn no_client_waits_for_the_index_to_be_built() {
    use cairn_registry::app::index::BuildTrigger;
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    for i in 0..20 {
        write_skill(tree.path(), &format!("s{i}"), &format!("skill-{i}"), "Body.", &[]);
    }
    app.import(tree.path()).await.unwrap();
    let newest = app.store.index_cursor(app.org_id).await.unwrap();

    // A process started now (a replica, or this one restarted) is ready only once the
    // index is built…
    let replica = app.replica().await.unwrap();
    let cached = |state: &cairn_registry::AppState| state.index_cache.cached(app.org_id).map(|i| i.cursor);
    assert_eq!(cached(&replica.state), Some(newest));
    // …and the running one patched its own when the import's changes were announced.
    eventually("the running server's index catching up", || {
        cached(&app.state) == Some(newest)
    })
    .await;

    for (base, state) in [(&app.base_url, &app.state), (&replica.base_url, &replica.state)] {
        let (status, body) = send(app.client.get(format!("{base}/v1/index")).bearer_auth(&app.admin_token)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["skills"].as_array().unwrap().len(), 20);
        let mut grpc = cairn_e2e::app::grpc_client(base, Some(&app.admin_token)).await.unwrap();
        let index = grpc
            .get_index(cairn_proto::v1::GetIndexRequest { since: None })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(index.skills.len(), 20);
        assert_eq!(state.metrics.index_builds(BuildTrigger::Request), 0, "{base}");
        assert!(state.metrics.index_builds(BuildTrigger::Background) >= 1, "{base}");
        let (status, ready) = send(app.client.get(format!("{base}/readyz"))).await;
        assert_eq!(
            (status, &ready["checks"]["index"]),
            (StatusCode::OK, &Value::from("ok"))
        );
    }
    replica.stop().await.unwrap();
}

#[tokio::test]
async fn concurrent_first_reads_build_the_index_once() {
    use cairn_registry::app::index::{self, BuildTrigger};
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("one", "one", "Body.", &[]).await;
    // A process that has not built anything yet (no keeper runs for it).
    let state = cairn_registry::AppState::new(
        app.store.clone(),
        app.blobs.clone(),
        app.keys.clone(),
        cairn_e2e::app::no_rate_limits(),
    );
    let newest = app.store.index_cursor(app.org_id).await.unwrap();
    let reads = (0..10).map(|_| index::full(&state, app.org_id, newest));
    let built = futures::future::join_all(reads).await;
    assert!(built.iter().all(|b| b.as_ref().is_ok_and(|i| i.entries.len() == 1)));
    assert_eq!(state.metrics.index_builds(BuildTrigger::Request), 1);
}

/// Reads `path` as the wire type `T` and writes it back: the same JSON, so the shared
/// shapes the client reads with lose and invent nothing of what the registry sends.
async fn reads_back_as<T: serde::de::DeserializeOwned + serde::Serialize>(app: &TestApp, path: &str) -> T {
    let (status, sent) = send(app.get(path)).await;
    assert_eq!(status, StatusCode::OK, "{path}: {sent}");
    let read: T = serde_json::from_value(sent.clone())
        .unwrap_or_else(|e| panic!("{path} does not read as its wire type: {e}\n{sent}"));
    assert_eq!(
        serde_json::to_value(&read).unwrap(),
        sent,
        "{path} changed on the way through its wire type"
    );
    read
}

#[tokio::test]
async fn every_shared_answer_reads_back_through_its_wire_type() {
    use cairn_wire::{AuditItem, Index, Page, Patch, PatchItem, SkillItem, TokenItem, UserItem, VersionItem, WhoAmI};
    let app = TestApp::spawn().await.unwrap();
    app.import_skill(
        "ops/demo",
        "demo",
        "## Steps\n\n1. Run it.\n",
        &[("references/a.md", "notes\n")],
    )
    .await;
    let (_, author) = app.user_with_token("mia", Role::Member).await.unwrap();
    let submitted = app
        .post_as(&author, "/v1/patches")
        .json(&serde_json::json!({
            "skill": "demo", "base_revision": 1, "summary": "Say when",
            "agent": {"name": "hermes", "model": "m", "session": "s"},
            "ops": [{"op": "patch", "old": "1. Run it.", "new": "1. Run it.\n2. Check the output."}],
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(submitted.status(), StatusCode::CREATED);
    let id = submitted.json::<Patch>().await.unwrap().id;

    let me: WhoAmI = reads_back_as(&app, "/v1/whoami").await;
    assert_eq!(me.user, "admin");
    let index: Index = reads_back_as(&app, "/v1/index").await;
    assert_eq!(index.skills[0].files.len(), 2);
    let delta: Index = reads_back_as(&app, &format!("/v1/index?since={}", index.cursor)).await;
    assert_eq!(delta.removed, Some(Vec::new()));
    reads_back_as::<Page<SkillItem>>(&app, "/v1/skills").await;
    reads_back_as::<SkillItem>(&app, "/v1/skills/demo").await;
    reads_back_as::<Page<VersionItem>>(&app, "/v1/skills/demo/versions").await;
    let version: VersionItem = reads_back_as(&app, "/v1/skills/demo/versions/1").await;
    assert_eq!(version.files.as_ref().map(Vec::len), Some(2));
    reads_back_as::<Page<TokenItem>>(&app, "/v1/tokens").await;
    reads_back_as::<Page<UserItem>>(&app, "/v1/users").await;
    reads_back_as::<Page<AuditItem>>(&app, "/v1/audit").await;
    reads_back_as::<Page<PatchItem>>(&app, "/v1/patches").await;
    let patch: Patch = reads_back_as(&app, &format!("/v1/patches/{id}")).await;
    assert_eq!(
        (patch.status.as_str(), patch.author.as_str()),
        ("pending_review", "mia")
    );
    assert!(!patch.match_report.is_empty() && !patch.diff.is_empty());
    let hook = app
        .post("/v1/webhooks")
        .json(&serde_json::json!({"url": "http://127.0.0.1:9/hook", "events": ["version.published"]}))
        .send()
        .await
        .unwrap()
        .json::<cairn_wire::Webhook>()
        .await
        .unwrap();
    assert!(hook.secret.is_some());
    reads_back_as::<Page<cairn_wire::Webhook>>(&app, "/v1/webhooks").await;
    reads_back_as::<Page<cairn_wire::Delivery>>(&app, &format!("/v1/webhooks/{}/deliveries", hook.id)).await;
    reads_back_as::<cairn_wire::Items<cairn_wire::Dismissal>>(&app, "/v1/skills/demo/dismissals").await;
    reads_back_as::<cairn_wire::Items<cairn_wire::Quarantined>>(&app, "/v1/admin/quarantine").await;
    for (path, body) in [
        ("/v1/admin/rescan", serde_json::json!({"skill": "demo"})),
        (
            "/v1/patches/review",
            serde_json::json!({"action": "approve", "ids": [id, uuid::Uuid::new_v4().to_string()]}),
        ),
    ] {
        let sent = app.post_json(&app.admin_token, path, &body).await.1;
        let through = if path.ends_with("rescan") {
            serde_json::to_value(serde_json::from_value::<cairn_wire::Rescan>(sent.clone()).unwrap()).unwrap()
        } else {
            let batch: cairn_wire::BatchResults = serde_json::from_value(sent.clone()).unwrap();
            assert!(
                batch.results[0].patch.is_some() && batch.results[1].error.is_some(),
                "{sent}"
            );
            serde_json::to_value(batch).unwrap()
        };
        assert_eq!(through, sent, "{path} changed on the way through its wire type");
    }
    // Errors have one shape too.
    let (status, missing) = send(app.get("/v1/skills/nothing-here")).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let error: cairn_wire::ErrorBody = serde_json::from_value(missing).unwrap();
    assert_eq!(error.error.code, "not_found");
}
