//! Operations (issue 10): metrics, blob garbage collection, and retryable answers while
//! PostgreSQL is down.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use cairn_e2e::app::{TestApp, send};
use cairn_registry::app::publish::upload_missing_blobs;
use cairn_skill::digest::Sha256Hash;
use cairn_store::blob::BlobStore;
use cairn_store::gc::{CollectSettings, collect, tracked_blobs};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::bundle;

/// A registry with one imported skill, `demo` (SKILL.md and one reference).
async fn app_with_demo() -> TestApp {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill(
        "ops/demo",
        "demo",
        "## Steps\n1. Do the thing.\n",
        &[("references/notes.md", "notes\n")],
    )
    .await;
    app
}

/// Submits a patch adding `file` with `content` to `demo`; returns its id.
async fn submit(app: &TestApp, file: &str, content: &str) -> String {
    let body = json!({
        "skill": "demo", "base_revision": 1,
        "ops": [{"op": "write_file", "file": file, "content": content}],
    });
    let (status, patch) = send(app.post("/v1/patches").json(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{patch}");
    assert_eq!(patch["status"], "pending_review", "{patch}");
    patch["id"].as_str().unwrap().to_owned()
}

fn id_of(content: &str) -> Sha256Hash {
    Sha256Hash::of(content.as_bytes())
}

/// Makes every tracked blob but `except` look last written two days ago.
async fn age_blobs(app: &TestApp, except: &[Sha256Hash]) {
    let keep: Vec<String> = except.iter().map(Sha256Hash::to_hex).collect();
    sqlx::query("UPDATE blobs SET seen_at = now() - interval '2 days' WHERE sha256 <> ALL($1)")
        .bind(&keep)
        .execute(app.store.pool())
        .await
        .unwrap();
}

async fn scrape(url: &str) -> String {
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(
        content_type.starts_with("application/openmetrics-text"),
        "{content_type}"
    );
    response.text().await.unwrap()
}

/// The value of the sample whose line starts with `series` (name and labels).
fn sample(text: &str, series: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("no sample {series} in:\n{text}"))
        .parse()
        .unwrap()
}

#[tokio::test]
async fn metrics_count_requests_by_route_and_report_stages_queues_and_blobs() {
    let app = app_with_demo().await;
    let metrics_url = app.serve_metrics().await;

    submit(&app, "references/lesson.md", "a lesson learned\n").await;
    for _ in 0..2 {
        assert_eq!(app.get("/v1/index").send().await.unwrap().status(), StatusCode::OK);
    }
    assert_eq!(
        app.get("/v1/skills/demo").send().await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        app.get("/v1/skills/nope").send().await.unwrap().status(),
        StatusCode::NOT_FOUND
    );

    let text = scrape(&metrics_url).await;
    assert_eq!(
        sample(
            &text,
            r#"cairn_http_requests_total{method="GET",route="/v1/index",status="200"}"#
        ),
        2.0
    );
    // Route templates, never raw paths: the label set stays bounded.
    assert_eq!(
        sample(
            &text,
            r#"cairn_http_requests_total{method="GET",route="/v1/skills/{name}",status="404"}"#
        ),
        1.0
    );
    assert!(!text.contains("/v1/skills/nope"), "a raw path became a label");
    assert_eq!(
        sample(
            &text,
            r#"cairn_http_requests_total{method="POST",route="/v1/patches",status="201"}"#
        ),
        1.0
    );
    assert_eq!(
        sample(
            &text,
            r#"cairn_http_request_duration_seconds_count{method="GET",route="/v1/index"}"#
        ),
        2.0
    );
    for stage in ["validate", "apply", "rebase", "scan", "decide", "store_blobs", "record"] {
        let series = format!(r#"cairn_pipeline_stage_duration_seconds_count{{stage="{stage}"}}"#);
        assert_eq!(sample(&text, &series), 1.0, "{stage}");
    }
    assert_eq!(sample(&text, "cairn_patches_pending_review"), 1.0);
    assert_eq!(sample(&text, "cairn_webhook_deliveries_pending"), 0.0);
    // SKILL.md, the reference and the patch's new file.
    assert_eq!(sample(&text, "cairn_blobs_stored"), 3.0);
    assert!(sample(&text, "cairn_blob_stored_bytes") > 0.0);
    assert_eq!(
        sample(&text, "cairn_blob_written_bytes_total"),
        "a lesson learned\n".len() as f64
    );
    assert_eq!(sample(&text, "cairn_http_requests_in_flight"), 0.0);
    assert_eq!(sample(&text, r#"cairn_dependency_up{dependency="database"}"#), 1.0);

    // The metrics port serves nothing else.
    let other = metrics_url.replace("/metrics", "/v1/index");
    assert_eq!(reqwest::get(other).await.unwrap().status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn unreferenced_blobs_are_collected_after_the_grace_period_and_everything_referenced_is_kept() {
    let app = app_with_demo().await;
    let version_blobs = tracked_blobs(&app.store).await.unwrap();
    assert_eq!(version_blobs.len(), 2);

    // A pending patch keeps its candidate; a rejected one does not.
    submit(&app, "references/pending.md", "pending lesson\n").await;
    let rejected = submit(&app, "references/rejected.md", "rejected lesson\n").await;
    let (status, body) = send(
        app.post(&format!("/v1/patches/{rejected}/reject"))
            .json(&json!({"comment": "not this one"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Written but never referenced (an upload never published, a failed publish).
    let orphan = Bytes::from_static(b"an upload nobody published\n");
    let orphan_id = Sha256Hash::of(&orphan);
    app.state.blobs.put(&orphan_id, orphan).await.unwrap();
    let fresh = Bytes::from_static(b"written a moment ago\n");
    let fresh_id = Sha256Hash::of(&fresh);
    app.state.blobs.put(&fresh_id, fresh).await.unwrap();
    age_blobs(&app, &[fresh_id]).await;

    let dry = cairn_registry::app::gc::run(&app.state, true).await.unwrap();
    assert_eq!(dry.deleted, 2, "{dry:?}");
    assert!(
        app.blobs.contains(&orphan_id).await.unwrap(),
        "a dry run deleted something"
    );

    let report = cairn_registry::app::gc::run(&app.state, false).await.unwrap();
    assert_eq!(report.deleted, 2, "{report:?}");
    assert_eq!(
        report.bytes,
        ("an upload nobody published\n".len() + "rejected lesson\n".len()) as u64
    );
    for gone in [orphan_id, id_of("rejected lesson\n")] {
        assert!(!app.blobs.contains(&gone).await.unwrap(), "{gone} kept");
    }
    for kept in [fresh_id, id_of("pending lesson\n")] {
        assert!(app.blobs.contains(&kept).await.unwrap(), "{kept} collected");
    }
    for hex in &version_blobs {
        let id = Sha256Hash::parse_hex(hex).unwrap();
        assert!(app.blobs.contains(&id).await.unwrap(), "version blob {hex} collected");
    }
    let left = tracked_blobs(&app.store).await.unwrap();
    assert!(!left.contains(&orphan_id.to_hex()), "the row outlived its blob");

    // Nothing left to collect; the published skill still reads whole.
    assert_eq!(
        cairn_registry::app::gc::run(&app.state, false).await.unwrap().deleted,
        0
    );
    let (status, skill) = send(app.get("/v1/skills/demo/versions/latest")).await;
    assert_eq!(status, StatusCode::OK, "{skill}");
    let (status, _) = send(app.get("/v1/skills/demo/versions/1/files/references/notes.md")).await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn a_writer_reusing_a_blob_the_collector_holds_waits_and_writes_it_again() {
    let app = TestApp::spawn().await.unwrap();
    let content = "a file an old failed publish left behind\n";
    let id = id_of(content);
    let bytes = Bytes::from(content.as_bytes().to_vec());
    // The same blob twice in one batch is recorded once.
    app.state
        .blobs
        .put_many(vec![(id, bytes.clone()), (id, bytes)])
        .await
        .unwrap();
    age_blobs(&app, &[]).await;

    // A collector claims the row, as `collect` does.
    let mut collector = app.store.pool().begin().await.unwrap();
    let claimed: Vec<String> = sqlx::query_scalar(
        "SELECT sha256 FROM blobs WHERE sha256 = $1 AND seen_at < now() - interval '1 day' FOR UPDATE SKIP LOCKED",
    )
    .bind(id.to_hex())
    .fetch_all(&mut *collector)
    .await
    .unwrap();
    assert_eq!(claimed, vec![id.to_hex()]);

    // A publish reusing the same content starts meanwhile.
    let reused = bundle("reuser", "## Steps\n1. Reuse.\n", &[("references/old.md", content)]);
    let writer = {
        let store = app.store.clone();
        let blobs: Arc<dyn BlobStore> = app.state.blobs.clone();
        tokio::spawn(async move { upload_missing_blobs(&store, blobs.as_ref(), std::iter::once(&reused)).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!writer.is_finished(), "the writer did not wait for the collector");

    // The collector deletes the bytes and the row, and commits.
    app.blobs.delete(&id).await.unwrap();
    sqlx::query("DELETE FROM blobs WHERE sha256 = $1")
        .bind(id.to_hex())
        .execute(&mut *collector)
        .await
        .unwrap();
    collector.commit().await.unwrap();

    writer.await.unwrap().unwrap();
    assert_eq!(
        app.blobs.get(&id).await.unwrap().as_deref(),
        Some(content.as_bytes()),
        "the writer trusted a row the collector removed"
    );
    let stored: bool = sqlx::query_scalar("SELECT stored FROM blobs WHERE sha256 = $1")
        .bind(id.to_hex())
        .fetch_one(app.store.pool())
        .await
        .unwrap();
    assert!(stored);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn collectors_on_several_replicas_split_the_work_without_errors() {
    let app = TestApp::spawn().await.unwrap();
    let blobs: Vec<(Sha256Hash, Bytes)> = (0..300)
        .map(|n| {
            let bytes = Bytes::from(format!("orphan number {n}\n"));
            (Sha256Hash::of(&bytes), bytes)
        })
        .collect();
    app.state.blobs.put_many(blobs.clone()).await.unwrap();
    age_blobs(&app, &[]).await;
    let settings = CollectSettings {
        grace: Duration::from_secs(3600),
        batch: 25,
        dry_run: false,
    };
    let runs = (0..3).map(|_| {
        let store = app.store.clone();
        let blob_store = app.state.blobs.clone();
        tokio::spawn(async move { collect(&store, blob_store.as_ref(), settings).await })
    });
    let mut deleted = 0;
    for run in futures::future::join_all(runs).await {
        deleted += run.unwrap().unwrap().deleted;
    }
    assert_eq!(deleted, 300, "each blob deleted exactly once");
    assert!(tracked_blobs(&app.store).await.unwrap().is_empty());
    for (id, _) in &blobs {
        assert!(!app.blobs.contains(id).await.unwrap());
    }
}

#[tokio::test]
async fn a_grace_period_shorter_than_a_minute_is_refused() {
    let error = cairn_registry::config::Config::from_lookup("/data".into(), |key| {
        (key == "CAIRN_GC_GRACE").then(|| "30s".to_owned())
    })
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("CAIRN_GC_GRACE") && error.contains("at least 1m"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_postgresql_restarts_requests_get_503_with_retry_after_and_the_process_recovers() {
    use cairn_store::embedded::EmbeddedPostgres;
    // A cluster of our own (the shared server must keep running for the other tests).
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o711)).unwrap();
    let cluster = dir.path().join("postgres");
    let pg = EmbeddedPostgres::start(&cluster).await.unwrap();
    pg.ensure_database("cairn").await.unwrap();
    let store = cairn_store::Store::connect(&pg.database_url("cairn"), 4).await.unwrap();
    store.migrate().await.unwrap();
    let keys = cairn_registry::auth::TokenKeys::from_secret(&[7u8; 32]).unwrap();
    let token = cairn_registry::bootstrap::bootstrap(&store, &keys, dir.path())
        .await
        .unwrap()
        .unwrap();
    let blobs: Arc<dyn BlobStore> = Arc::new(cairn_store::blob::FsBlobStore::new(dir.path().join("blobs")).unwrap());
    let state = cairn_registry::AppState::new(store, blobs, keys, cairn_e2e::app::no_rate_limits());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(cairn_registry::serve(listener, state, async move {
        let _ = stop_rx.await;
    }));
    let client = reqwest::Client::new();
    // Listing patches reads the database on every request (the index may be served from
    // the process's cache).
    let patches = || client.get(format!("{base}/v1/patches")).bearer_auth(&token).send();
    assert_eq!(patches().await.unwrap().status(), StatusCode::OK);

    pg.stop().await.unwrap();
    let response = patches().await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(response.headers()["retry-after"], "5");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "unavailable", "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("retry"), "{body}");
    // Readiness verdicts are reused for a second: the next fresh one says why.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let ready = client.get(format!("{base}/readyz")).send().await.unwrap();
    assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
    let ready: Value = ready.json().await.unwrap();
    assert_eq!(ready["checks"]["database"], "failing", "{ready}");
    assert_eq!(ready["checks"]["blobs"], "ok", "{ready}");

    // The same process, pool and caches recover once the server is back.
    let pg = EmbeddedPostgres::start(&cluster).await.unwrap();
    let mut recovered = false;
    for _ in 0..30 {
        if patches().await.unwrap().status() == StatusCode::OK {
            recovered = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert!(recovered, "the registry did not recover after PostgreSQL came back");
    let _ = stop_tx.send(());
    server.await.unwrap().unwrap();
    pg.stop().await.unwrap();
}
