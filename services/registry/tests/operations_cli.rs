//! The operational commands of the binary: `probe` (the container health check), `gc`
//! and the metrics listener.

mod common;

use cairn_e2e::db::TestDb;
use common::{registry, serve_until_listening, terminate};

fn on(data_dir: &std::path::Path, db: &TestDb) -> tokio::process::Command {
    let mut command = registry(data_dir);
    command.env("CAIRN_DATABASE_URL", &db.url);
    command
}

#[tokio::test]
async fn probe_gc_and_metrics_work_against_a_running_registry() {
    let db = TestDb::unmigrated().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let metrics_port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut serve = on(dir.path(), &db);
    serve
        .env("CAIRN_METRICS_LISTEN", format!("127.0.0.1:{metrics_port}"))
        .stdout(std::process::Stdio::piped());
    let (child, url, _) = serve_until_listening(serve).await;
    let listen = url.trim_start_matches("http://").to_owned();

    // Listening comes before ready (the index is built first): the probe answers "not
    // ready" until then, as an orchestrator's health check would see it, and then ready.
    let started = std::time::Instant::now();
    let ready = loop {
        let ready = on(dir.path(), &db)
            .args(["probe", "--listen", &listen])
            .output()
            .await
            .unwrap();
        if ready.status.success() || started.elapsed() > std::time::Duration::from_secs(30) {
            break ready;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert!(ready.status.success(), "{}", String::from_utf8_lossy(&ready.stderr));

    let metrics = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("cairn_http_requests_total"), "{metrics}");
    assert!(metrics.contains("# EOF"), "{metrics}");

    let dry = on(dir.path(), &db).args(["gc", "--dry-run"]).output().await.unwrap();
    let out = String::from_utf8_lossy(&dry.stdout);
    assert!(
        dry.status.success() && out.contains("would delete 0 unreferenced blobs"),
        "{out}"
    );
    let json = on(dir.path(), &db).args(["gc", "--json"]).output().await.unwrap();
    let report: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report, serde_json::json!({"deleted": 0, "bytes": 0}));

    // Bad input: a grace period a publish could outlast is refused before anything runs.
    let short = on(dir.path(), &db)
        .args(["gc", "--grace", "10s"])
        .output()
        .await
        .unwrap();
    assert!(!short.status.success());
    let message = String::from_utf8_lossy(&short.stderr);
    assert!(message.contains("shorter than 1m"), "{message}");

    assert!(terminate(child).await.success());
    // Nothing listens any more: not ready, and the message says where it looked.
    let gone = on(dir.path(), &db)
        .args(["probe", "--listen", &listen])
        .output()
        .await
        .unwrap();
    assert_eq!(gone.status.code(), Some(1));
    let message = String::from_utf8_lossy(&gone.stderr);
    assert!(message.contains("not ready") && message.contains(&listen), "{message}");
}

#[tokio::test]
async fn managed_postgresql_over_tls_is_reached_and_an_unverifiable_certificate_is_refused() {
    // The test server has TLS on with a self-signed certificate (Debian's default).
    let db = TestDb::unmigrated().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let separator = if db.url.contains('?') { '&' } else { '?' };
    let over_tls = registry(dir.path())
        .env("CAIRN_DATABASE_URL", format!("{}{separator}sslmode=require", db.url))
        .arg("migrate")
        .output()
        .await
        .unwrap();
    assert!(
        over_tls.status.success(),
        "{}",
        String::from_utf8_lossy(&over_tls.stderr)
    );
    // (Built without TLS, `sslmode=require` fails: success means the session was encrypted.)

    let unverifiable = registry(dir.path())
        .env(
            "CAIRN_DATABASE_URL",
            format!("{}{separator}sslmode=verify-full", db.url),
        )
        .arg("migrate")
        .output()
        .await
        .unwrap();
    assert!(!unverifiable.status.success());
    let message = String::from_utf8_lossy(&unverifiable.stderr);
    assert!(message.contains("connecting to PostgreSQL failed"), "{message}");
}
