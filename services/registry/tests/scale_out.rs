//! The scale-out and fault test (issue 10): three `cairn-registry` processes on one
//! PostgreSQL and one Garage under a mixed load, while one replica is killed with SIGKILL
//! and restarted, PostgreSQL is restarted and the S3 server is stopped for ten seconds.
//! The runner is `cairn_e2e::scale`; `deploy/dev/scale-out.sh` runs the same runner
//! longer, with 1 and 3 replicas, for docs/OPERATIONS.md.
//!
//! `CAIRN_SCALE_SECONDS`, `CAIRN_SCALE_REPLICAS` and `CAIRN_SCALE_FAULTS=off` change the
//! run; `CAIRN_REGISTRY_BIN` runs another build (the script passes a release build).

use std::path::PathBuf;
use std::time::Duration;

use cairn_e2e::scale::{Settings, run};

fn settings() -> Settings {
    let bin = std::env::var_os("CAIRN_REGISTRY_BIN")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_cairn-registry")), PathBuf::from);
    let mut settings = Settings::test(bin);
    if let Some(seconds) = std::env::var("CAIRN_SCALE_SECONDS").ok().and_then(|v| v.parse().ok()) {
        settings.duration = Duration::from_secs(seconds);
    }
    if let Some(replicas) = std::env::var("CAIRN_SCALE_REPLICAS").ok().and_then(|v| v.parse().ok()) {
        settings.replicas = replicas;
    }
    if std::env::var("CAIRN_SCALE_FAULTS").is_ok_and(|v| v == "off") {
        settings.faults = false;
    }
    settings
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_survive_sigkill_a_database_restart_and_an_s3_outage_without_losing_anything() {
    let settings = settings();
    // Bounded: the load, the faults, the catch-up and the checks.
    let limit = settings.duration + Duration::from_secs(240);
    let report = tokio::time::timeout(limit, run(settings.clone()))
        .await
        .expect("the scale-out run did not finish in time")
        .expect("the scale-out run failed");
    println!("{}", report.markdown());
    if std::env::var_os("CAIRN_SCALE_TIMELINE").is_some() {
        println!("{}", report.timeline.join("\n"));
    }
    assert!(
        report.problems.is_empty(),
        "{:#?}\n{}",
        report.problems,
        report.markdown()
    );
    assert!(
        report.non_retryable.is_empty(),
        "clients saw errors that were not 503 + Retry-After: {:#?}",
        report.non_retryable
    );
    // The load did real work on every path.
    for kind in ["index", "blob_batch", "submit", "approve"] {
        let done = report.ops.get(kind).map_or(0, |s| s.completed);
        assert!(done > 0, "no {kind} completed\n{}", report.markdown());
    }
    assert!(report.revisions > 0 && report.approved == report.revisions);
    // The collectors ran under the load and removed abandoned blobs.
    assert!(report.orphans_collected > 0, "{}", report.markdown());
    assert_eq!(report.interrupted_outside_faults, 0, "{}", report.timeline.join("\n"));
    if settings.faults {
        assert_eq!(report.faults.len(), 3);
        // The killed replica's clients failed over; the database restart and the S3
        // outage were answered with 503 + Retry-After.
        assert!(
            report.faults[0].failovers > 0 || report.faults[0].interrupted > 0,
            "{}",
            report.markdown()
        );
        assert!(report.faults[2].retryable > 0, "{}", report.markdown());
    }
}
