//! The Cairn registry: configuration, application services, the REST and gRPC APIs and
//! the admin commands of the `cairn-registry` binary.
//!
//! `main` and the end-to-end tests share [`serve`]: the tests bind `127.0.0.1:0`, build an
//! [`AppState`] and run the real server in-process.

pub mod access;
pub mod app;
pub mod auth;
pub mod bootstrap;
pub mod compat;
pub mod config;
pub mod error;
pub mod grpc;
pub mod mcp;
pub mod metrics;
pub mod private_file;
pub mod ratelimit;
pub mod rest;
pub mod runtime;
pub mod server;
pub mod serving;
pub mod signing;
pub mod telemetry;
pub mod web;

use std::sync::Arc;

use cairn_store::Store;
use cairn_store::blob::BlobStore;
use cairn_store::gc::TrackedBlobStore;

pub use server::{router, serve};

/// Everything a request handler may need, behind one `Arc`: handlers clone the state on
/// every request, and one reference count is measurably cheaper under load than one per
/// field.
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

/// The shared services of a registry process (see [`AppState`]).
pub struct Services {
    /// Metadata store.
    pub store: Store,
    /// Blob backend.
    pub blobs: Arc<dyn BlobStore>,
    /// Token verification.
    pub auth: Arc<auth::Authenticator>,
    /// Token lifetimes, rate limits, proxies.
    pub access: config::AccessSettings,
    /// Request rate limiters.
    pub limiters: Arc<ratelimit::RateLimiters>,
    /// The index's cursor and full-index cache (`app::index`).
    pub index_cache: Arc<app::index::IndexCache>,
    /// The full index's JSON, per organisation (REST).
    pub index_json: Arc<app::index::EncodedIndex>,
    /// The full index's protobuf encoding, per organisation (gRPC `GetIndex`).
    pub index_proto: Arc<app::index::EncodedIndex>,
    /// Bounds how many bundle archives are built at once (each holds a whole bundle in
    /// memory, up to the 10 MiB limit).
    pub archive_permits: Arc<tokio::sync::Semaphore>,
    /// The last readiness verdicts (database, blob store) and when they were taken.
    pub readiness: Arc<std::sync::Mutex<Option<Readiness>>>,
    /// Bundle limits for everything written (patches, publishing).
    pub limits: cairn_skill::limits::Limits,
    /// Scan reports of published versions by digest: a patch's delta scan then scans
    /// only its candidate.
    pub scans: Arc<app::patches::ScanCache>,
    /// Live index changes for watchers (gRPC `WatchIndex`, `GET /v1/events`).
    pub live: Arc<app::live::LiveFeed>,
    /// The statuses the gRPC health service answers (kept in line with readiness).
    pub grpc_health: tonic_health::server::HealthReporter,
    /// Audited changes as they commit (the review queue's live view).
    pub activity: Arc<app::activity::ActivityFeed>,
    /// Encrypts the admin pages' session and CSRF cookies.
    pub session_key: auth::SessionKey,
    /// The discovery indexes (`/.well-known/…`) as last encoded.
    pub discovery_indexes: Arc<app::discovery::EncodedIndexes>,
    /// Prometheus metrics of this process.
    pub metrics: Arc<metrics::Metrics>,
    /// Metrics listener and blob garbage collection settings.
    pub operations: config::OperationsSettings,
    /// Skills whose conflicts this process re-checks next (`app::patches::recheck`).
    pub rechecks: Arc<app::patches::recheck::Rechecks>,
    /// One approval at a time per skill in this process (`app::patches::turns`).
    pub approval_turns: Arc<app::patches::turns::Turns>,
    /// The addresses webhooks may reach (`CAIRN_WEBHOOK_ALLOW_NETWORKS`).
    pub outbound: Arc<app::outbound::OutboundPolicy>,
    /// The `Host` names the MCP endpoint answers (`CAIRN_MCP_ALLOWED_HOSTS`).
    pub mcp_hosts: Arc<Vec<String>>,
    /// Each organisation's index as agents search it (`app::served`).
    pub search_indexes: Arc<app::served::SearchIndexes>,
}

/// When readiness was last checked, and the (database, blob store) verdicts.
pub type Readiness = (std::time::Instant, (&'static str, &'static str));

/// Bundle archives built concurrently at most, per process.
pub const MAX_CONCURRENT_ARCHIVES: usize = 8;

impl AppState {
    /// Assembles the state from opened resources. Blob writes go through a
    /// [`TrackedBlobStore`] (recorded in the database first, so garbage collection can
    /// find blobs no commit referenced) and are counted in the metrics.
    pub fn new(store: Store, blobs: Arc<dyn BlobStore>, keys: auth::TokenKeys, access: config::AccessSettings) -> Self {
        let session_key = auth::SessionKey::derive(keys.session_key_material());
        let metrics = Arc::new(metrics::Metrics::new());
        let blobs = tracked(&store, blobs, &metrics);
        AppState(Arc::new(Services {
            store,
            blobs,
            auth: Arc::new(auth::Authenticator::new(keys)),
            access,
            limiters: Arc::new(ratelimit::RateLimiters::new(access.rate_limits)),
            index_cache: Arc::default(),
            index_json: Arc::default(),
            index_proto: Arc::default(),
            archive_permits: Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT_ARCHIVES)),
            readiness: Arc::default(),
            limits: cairn_skill::limits::Limits::default(),
            scans: Arc::default(),
            live: Arc::new(app::live::LiveFeed::new(app::live::LiveSettings::new(
                access.max_watches_per_token,
            ))),
            grpc_health: tonic_health::server::HealthReporter::new(),
            activity: Arc::default(),
            session_key,
            discovery_indexes: Arc::default(),
            metrics,
            operations: config::OperationsSettings::default(),
            rechecks: Arc::default(),
            approval_turns: Arc::default(),
            outbound: Arc::new(app::outbound::OutboundPolicy::strict()),
            mcp_hosts: Arc::new(config::DEFAULT_MCP_ALLOWED_HOSTS.map(String::from).to_vec()),
            search_indexes: Arc::default(),
        }))
    }

    /// The state with other operations settings (call before the state is shared).
    pub fn with_operations(mut self, operations: config::OperationsSettings) -> Self {
        if let Some(services) = Arc::get_mut(&mut self.0) {
            services.operations = operations;
        }
        self
    }

    /// The state with other networks webhooks may reach (call before the state is
    /// shared).
    pub fn with_outbound(mut self, outbound: app::outbound::OutboundPolicy) -> Self {
        if let Some(services) = Arc::get_mut(&mut self.0) {
            services.outbound = Arc::new(outbound);
        }
        self
    }

    /// The state with other `Host` names the MCP endpoint answers (call before the state
    /// is shared).
    pub fn with_mcp_hosts(mut self, hosts: Vec<String>) -> Self {
        if let Some(services) = Arc::get_mut(&mut self.0) {
            services.mcp_hosts = Arc::new(hosts);
        }
        self
    }

    /// The state with other live-feed settings (call before the state is shared).
    pub fn with_live_settings(mut self, settings: app::live::LiveSettings) -> Self {
        if let Some(services) = Arc::get_mut(&mut self.0) {
            services.live = Arc::new(app::live::LiveFeed::new(settings));
        }
        self
    }

    /// The state with other bundle limits (call before the state is shared).
    pub fn with_limits(mut self, limits: cairn_skill::limits::Limits) -> Self {
        if let Some(services) = Arc::get_mut(&mut self.0) {
            services.limits = limits;
        }
        self
    }
}

/// `blobs` with every write recorded in `store` first and counted in `metrics`.
pub fn tracked(store: &Store, blobs: Arc<dyn BlobStore>, metrics: &Arc<metrics::Metrics>) -> Arc<dyn BlobStore> {
    let metrics = metrics.clone();
    Arc::new(TrackedBlobStore::new(
        store.clone(),
        blobs,
        Some(Arc::new(move |bytes| metrics.blob_written(bytes))),
    ))
}
