//! Prometheus metrics: what an operator graphs and alerts on across replicas.
//!
//! One [`Metrics`] per process. Requests are counted and timed by method, *route
//! template* (`/v1/skills/{name}`, never the raw path, so the label set stays bounded)
//! and status; the patch pipeline's stages, webhook deliveries, blob writes and garbage
//! collection are counted where they happen. Queue depths and stored blob bytes are read
//! from the database when scraped, so every replica reports the same team-wide numbers.
//!
//! Served in the OpenMetrics text format on `CAIRN_METRICS_LISTEN` (a separate port, so
//! the public ingress never exposes it).

use std::time::Duration;

use cairn_store::Store;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

/// Labels of a request counter: the method, the route template and the status code.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `GET`, `POST`, … (gRPC calls are `POST`).
    pub method: String,
    /// The matched route template, or `unmatched`.
    pub route: String,
    /// The response's status code.
    pub status: u16,
}

/// Labels of a request-latency histogram.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RouteLabels {
    /// `GET`, `POST`, …
    pub method: String,
    /// The matched route template, or `unmatched`.
    pub route: String,
}

/// Labels naming one pipeline stage (`validate`, `apply`, `rebase`, `scan`, `decide`,
/// and the registry's own `store_blobs` and `record`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StageLabels {
    /// The stage.
    pub stage: &'static str,
}

/// Labels of a webhook delivery outcome (`delivered`, `retry`, `failed`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// The outcome.
    pub outcome: &'static str,
}

/// Labels of an index build: what made the registry read an organisation's whole index
/// (`request` or `background`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TriggerLabels {
    /// The trigger.
    pub trigger: &'static str,
}

/// Labels naming a dependency (`database`, `blobs`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct DependencyLabels {
    /// The dependency.
    pub dependency: &'static str,
}

/// Labels of a transparency-log append: whether it wrote on the head this process assumed
/// (`assumed`, one statement) or read the head under its lock first (`locked`).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HeadLabels {
    /// `assumed` or `locked`.
    pub head: &'static str,
}

type Timings<L> = Family<L, Histogram, fn() -> Histogram>;

/// Latency buckets from 0.5 ms to about 33 s (doubling).
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.000_5, 2.0, 17))
}

/// The process's metrics (see the module documentation).
pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    request_seconds: Timings<RouteLabels>,
    in_flight: Gauge,
    stage_seconds: Timings<StageLabels>,
    patches_pending: Gauge,
    webhook_queue: Gauge,
    webhook_deliveries: Family<OutcomeLabels, Counter>,
    blobs_stored: Gauge,
    blob_bytes_stored: Gauge,
    blob_bytes_written: Counter,
    gc_blobs_deleted: Counter,
    gc_bytes_deleted: Counter,
    gc_runs: Family<OutcomeLabels, Counter>,
    watches_open: Gauge,
    dependency_up: Family<DependencyLabels, Gauge>,
    conflicts_resolved: Counter,
    index_builds: Family<TriggerLabels, Counter>,
    log_appends: Family<HeadLabels, Counter>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Registers every metric under the `cairn_` prefix.
    pub fn new() -> Self {
        let mut root = Registry::default();
        let registry = root.sub_registry_with_prefix("cairn");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "http_requests",
            "Requests answered, by method, route and status",
            requests.clone(),
        );
        let request_seconds: Timings<RouteLabels> = Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "http_request_duration",
            "Time to produce a response, by method and route (streams: until their headers)",
            Unit::Seconds,
            request_seconds.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "http_requests_in_flight",
            "Requests being handled now",
            in_flight.clone(),
        );
        let stage_seconds: Timings<StageLabels> = Family::new_with_constructor(latency_histogram);
        registry.register_with_unit(
            "pipeline_stage_duration",
            "Time spent in each stage of the patch pipeline",
            Unit::Seconds,
            stage_seconds.clone(),
        );
        let patches_pending = Gauge::default();
        registry.register(
            "patches_pending_review",
            "Patches waiting for a reviewer (all organisations)",
            patches_pending.clone(),
        );
        let webhook_queue = Gauge::default();
        registry.register(
            "webhook_deliveries_pending",
            "Webhook deliveries not yet delivered or given up",
            webhook_queue.clone(),
        );
        let webhook_deliveries = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "webhook_delivery_attempts",
            "Webhook delivery attempts by this process, by outcome (delivered, retry, failed)",
            webhook_deliveries.clone(),
        );
        let blobs_stored = Gauge::default();
        registry.register("blobs_stored", "Blobs the database tracks", blobs_stored.clone());
        let blob_bytes_stored = Gauge::default();
        registry.register_with_unit(
            "blob_stored",
            "Bytes of the blobs the database tracks",
            Unit::Bytes,
            blob_bytes_stored.clone(),
        );
        let blob_bytes_written = Counter::default();
        registry.register_with_unit(
            "blob_written",
            "Bytes this process wrote to the blob store",
            Unit::Bytes,
            blob_bytes_written.clone(),
        );
        let gc_blobs_deleted = Counter::default();
        registry.register(
            "gc_blobs_deleted",
            "Unreferenced blobs this process deleted",
            gc_blobs_deleted.clone(),
        );
        let gc_bytes_deleted = Counter::default();
        registry.register_with_unit(
            "gc_deleted",
            "Bytes of the unreferenced blobs this process deleted",
            Unit::Bytes,
            gc_bytes_deleted.clone(),
        );
        let gc_runs = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "gc_runs",
            "Scheduled blob collections by this process, by outcome (ok, failed)",
            gc_runs.clone(),
        );
        let watches_open = Gauge::default();
        registry.register(
            "live_watches_open",
            "Live-change streams open on this process",
            watches_open.clone(),
        );
        let conflicts_resolved = Counter::default();
        registry.register(
            "patch_conflicts_resolved",
            "Patches in conflict that merged when their skill moved on (re-checked by this process)",
            conflicts_resolved.clone(),
        );
        let index_builds = Family::<TriggerLabels, Counter>::default();
        registry.register(
            "index_builds",
            "Whole organisation indexes read from the database, by trigger (background: start-up or a change; \
             request: a client found none built)",
            index_builds.clone(),
        );
        let log_appends = Family::<HeadLabels, Counter>::default();
        registry.register(
            "log_appends",
            "Version events appended to the transparency log by this process, by how the head was taken \
             (assumed: one statement on the head it last wrote; locked: the head read under its lock first, \
             as after another replica appended)",
            log_appends.clone(),
        );
        let dependency_up = Family::<DependencyLabels, Gauge>::default();
        registry.register(
            "dependency_up",
            "Whether a dependency answered the last readiness check (1) or not (0)",
            dependency_up.clone(),
        );
        Metrics {
            registry: root,
            requests,
            request_seconds,
            in_flight,
            stage_seconds,
            patches_pending,
            webhook_queue,
            webhook_deliveries,
            blobs_stored,
            blob_bytes_stored,
            blob_bytes_written,
            gc_blobs_deleted,
            gc_bytes_deleted,
            gc_runs,
            watches_open,
            dependency_up,
            conflicts_resolved,
            index_builds,
            log_appends,
        }
    }

    /// Counts one whole index read from the database.
    pub fn index_built(&self, trigger: crate::app::index::BuildTrigger) {
        self.index_builds
            .get_or_create(&TriggerLabels {
                trigger: trigger_label(trigger),
            })
            .inc();
    }

    /// Whole indexes read so far for `trigger` (tests and diagnostics).
    pub fn index_builds(&self, trigger: crate::app::index::BuildTrigger) -> u64 {
        self.index_builds
            .get_or_create(&TriggerLabels {
                trigger: trigger_label(trigger),
            })
            .get()
    }

    /// Marks a request as started; the guard counts and times it when dropped or
    /// [`InFlight::finish`]ed.
    pub fn start_request(&self) -> InFlight<'_> {
        self.in_flight.inc();
        InFlight {
            metrics: self,
            started: std::time::Instant::now(),
            done: false,
        }
    }

    /// Records how long a pipeline stage took.
    pub fn stage(&self, stage: &'static str, took: Duration) {
        self.stage_seconds
            .get_or_create(&StageLabels { stage })
            .observe(took.as_secs_f64());
    }

    /// Counts patches whose conflict a re-check resolved.
    pub fn conflicts_resolved(&self, patches: usize) {
        self.conflicts_resolved.inc_by(patches as u64);
    }

    /// Counts one webhook delivery attempt's outcome.
    pub fn webhook_attempt(&self, outcome: &'static str) {
        self.webhook_deliveries.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// Counts bytes written to the blob store.
    pub fn blob_written(&self, bytes: u64) {
        self.blob_bytes_written.inc_by(bytes);
    }

    /// Counts blobs deleted by garbage collection.
    pub fn gc_deleted(&self, blobs: u64, bytes: u64) {
        self.gc_blobs_deleted.inc_by(blobs);
        self.gc_bytes_deleted.inc_by(bytes);
    }

    /// Counts one scheduled collection's outcome (`ok` or `failed`).
    pub fn gc_run(&self, outcome: &'static str) {
        self.gc_runs.get_or_create(&OutcomeLabels { outcome }).inc();
    }

    /// Records a readiness verdict for a dependency.
    pub fn dependency(&self, dependency: &'static str, up: bool) {
        self.dependency_up
            .get_or_create(&DependencyLabels { dependency })
            .set(i64::from(up));
    }

    /// Reads the team-wide gauges from the database (queue depths, stored blobs) and the
    /// process's open streams, then encodes everything. A database that does not answer
    /// leaves the last values and marks `cairn_dependency_up{dependency="database"}` 0.
    pub async fn render(&self, store: &Store, watches_open: usize) -> String {
        self.watches_open.set(i64::try_from(watches_open).unwrap_or(i64::MAX));
        if let Some(signer) = store.log_signer() {
            let counts = signer.append_counts();
            for (head, count) in [("assumed", counts.assumed_head), ("locked", counts.locked_head)] {
                let counter = self.log_appends.get_or_create(&HeadLabels { head });
                counter.inner().store(count, std::sync::atomic::Ordering::Relaxed);
            }
        }
        match tokio::time::timeout(Duration::from_secs(3), store.operational_counts()).await {
            Ok(Ok(counts)) => {
                self.patches_pending.set(counts.patches_pending);
                self.webhook_queue.set(counts.webhook_deliveries_pending);
                self.blobs_stored.set(counts.blobs);
                self.blob_bytes_stored.set(counts.blob_bytes);
                self.dependency("database", true);
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, "metrics: reading queue depths failed");
                self.dependency("database", false);
            }
            Err(_) => {
                tracing::warn!("metrics: reading queue depths timed out");
                self.dependency("database", false);
            }
        }
        let mut text = String::new();
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &self.registry) {
            tracing::error!(%error, "encoding metrics failed");
        }
        text
    }
}

fn trigger_label(trigger: crate::app::index::BuildTrigger) -> &'static str {
    match trigger {
        crate::app::index::BuildTrigger::Request => "request",
        crate::app::index::BuildTrigger::Background => "background",
    }
}

/// A request being handled; counted and timed once, when finished. A guard dropped
/// unfinished (the client went away first) only leaves the in-flight gauge.
pub struct InFlight<'a> {
    metrics: &'a Metrics,
    started: std::time::Instant,
    done: bool,
}

impl InFlight<'_> {
    /// Counts the request with its route and status.
    pub fn finish(mut self, method: &str, route: &str, status: u16) {
        self.record(method, route, status);
    }

    fn record(&mut self, method: &str, route: &str, status: u16) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        self.metrics.in_flight.dec();
        let labels = RouteLabels {
            method: method.to_owned(),
            route: route.to_owned(),
        };
        self.metrics
            .request_seconds
            .get_or_create(&labels)
            .observe(self.started.elapsed().as_secs_f64());
        self.metrics
            .requests
            .get_or_create(&RequestLabels {
                method: labels.method,
                route: labels.route,
                status,
            })
            .inc();
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.done = true;
            self.metrics.in_flight.dec();
        }
    }
}

/// The metrics listener's application: `GET /metrics` and nothing else.
pub fn router(state: crate::AppState) -> axum::Router {
    use axum::http::header;
    use axum::response::IntoResponse;
    axum::Router::new()
        .route(
            "/metrics",
            axum::routing::get(
                |axum::extract::State(state): axum::extract::State<crate::AppState>| async move {
                    let text = state.metrics.render(&state.store, state.live.open_watches()).await;
                    ([(header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response()
                },
            ),
        )
        .with_state(state)
}

/// Serves [`router`] on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: crate::AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}

/// The content type of the OpenMetrics text format.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_counted_by_route_template_and_timed() {
        let metrics = Metrics::new();
        metrics.start_request().finish("GET", "/v1/skills/{name}", 200);
        metrics.start_request().finish("GET", "/v1/skills/{name}", 200);
        metrics.start_request().finish("POST", "/v1/patches", 503);
        drop(metrics.start_request());
        metrics.stage("scan", Duration::from_millis(3));
        metrics.webhook_attempt("failed");
        let mut text = String::new();
        prometheus_client::encoding::text::encode(&mut text, &metrics.registry).unwrap();
        assert!(
            text.contains(r#"cairn_http_requests_total{method="GET",route="/v1/skills/{name}",status="200"} 2"#),
            "{text}"
        );
        assert!(
            text.contains(r#"cairn_http_requests_total{method="POST",route="/v1/patches",status="503"} 1"#),
            "{text}"
        );
        assert!(text.contains("cairn_http_requests_in_flight 0"), "{text}");
        assert!(
            text.contains(r#"cairn_http_request_duration_seconds_count{method="GET",route="/v1/skills/{name}"} 2"#),
            "{text}"
        );
        assert!(
            text.contains(r#"cairn_pipeline_stage_duration_seconds_count{stage="scan"} 1"#),
            "{text}"
        );
        assert!(
            text.contains(r#"cairn_webhook_delivery_attempts_total{outcome="failed"} 1"#),
            "{text}"
        );
    }
}
