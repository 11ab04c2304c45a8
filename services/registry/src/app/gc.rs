//! Blob garbage collection on a schedule (see `cairn_store::gc` for why it is safe with
//! writers and with other replicas collecting at the same time).

use cairn_store::gc::{CollectReport, CollectSettings, collect};

use crate::AppState;

/// Rows claimed per collection transaction.
pub const BATCH: i64 = 500;

/// Collects unreferenced blobs every `CAIRN_GC_INTERVAL` (±10 %, so replicas started
/// together spread out), for as long as the returned future runs.
pub async fn collect_forever(state: AppState) {
    let Some(interval) = state.operations.gc_interval else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(interval.mul_f64(rand::random_range(0.9..1.1))).await;
        match run(&state, false).await {
            Ok(report) if report.deleted > 0 => {
                tracing::info!(
                    deleted = report.deleted,
                    bytes = report.bytes,
                    "collected unreferenced blobs"
                );
            }
            Ok(_) => tracing::debug!("no unreferenced blobs to collect"),
            Err(error) => tracing::warn!(%error, "blob collection failed; retrying at the next interval"),
        }
    }
}

/// One collection with the configured grace period; counted in the metrics.
pub async fn run(state: &AppState, dry_run: bool) -> Result<CollectReport, cairn_store::gc::CollectError> {
    let settings = CollectSettings {
        grace: state.operations.gc_grace,
        batch: BATCH,
        dry_run,
    };
    let result = collect(&state.store, state.blobs.as_ref(), settings).await;
    if !dry_run {
        match &result {
            Ok(report) => {
                state.metrics.gc_deleted(report.deleted, report.bytes);
                state.metrics.gc_run("ok");
            }
            Err(_) => state.metrics.gc_run("failed"),
        }
    }
    result
}
