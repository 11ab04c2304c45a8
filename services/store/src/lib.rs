//! Cairn's storage layer: PostgreSQL metadata through sqlx, content-addressed blobs on a
//! filesystem or S3, and the embedded PostgreSQL launcher used when nothing is configured.
//!
//! Callers see domain types and [`StoreError`], never sqlx types: "row not found" becomes
//! [`StoreError::NotFound`], unique violations [`StoreError::Conflict`], the rest
//! [`StoreError::Database`].

mod audit;
pub mod blob;
mod bootstrap;
mod comments;
pub mod embedded;
mod error;
mod findings;
pub mod gc;
mod index;
pub mod log;
pub mod models;
pub mod notify;
mod orgs;
mod owners;
mod patches;
mod rounds;
mod skills;
mod tokens;
mod users;
mod webhooks;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

pub use audit::AuditQuery;
pub use bootstrap::AdminToken;
pub use comments::{CommentKind, CommentRecord, CommentRefusal, LineAnchor, NewComment};
pub use error::StoreError;
pub use findings::{DismissOutcome, DismissalRecord, NewDismissal, NewQuarantined, QuarantinedRecord, ReleaseOutcome};
pub use index::IndexChangeRecord;
pub use models::*;
pub use notify::{ACTIVITY_CHANNEL, AUTH_CHANNEL, INDEX_CHANNEL};
pub use owners::{OwnedKind, OwnerRule, OwnersRefusal, SkillOwner};
pub use patches::{
    Approval, ApproveOutcome, CloseDuplicates, Decision, DuplicateMark, NewPatch, OPEN_PATCH_STATUSES, Onto,
    OpenLesson, PATCH_STATUSES, PatchKey, PatchOrder, PatchQuery, PatchRecord,
};
pub use rounds::RoundRecord;
pub use skills::{ArchiveDigest, CategoryUpdate, NewVersion, RevisionSelector, SkillQuery, VersionScan, YankOutcome};
pub use tokens::{NewToken, TokenQuery};
pub use users::{AuthChange, AuthChanges, UserUpdate};
pub use webhooks::{ClaimedDelivery, DeliveryInfo, WEBHOOK_EVENTS, WebhookInfo};

/// The forward-only schema migrations in `migrations/`, embedded at build time.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// Handle to the metadata database. Cheap to clone; all clones share one pool.
#[derive(Clone, Debug)]
pub struct Store {
    pool: PgPool,
    /// Signs the transparency log's entries (`None`: a store opened for maintenance).
    log: Option<std::sync::Arc<log::LogSigner>>,
}

impl Store {
    /// Connects a pool of at most `max_connections` to `url`.
    #[tracing::instrument(skip_all)]
    pub async fn connect(url: &str, max_connections: u32) -> Result<Self, StoreError> {
        // Sessions show up in pg_stat_activity as `cairn-<pid>`, so operators can tell
        // which registry process holds them.
        let application_name = format!("cairn-{}", std::process::id());
        let options = url.parse::<PgConnectOptions>()?.application_name(&application_name);
        let pool = PgPoolOptions::new()
            .max_connections(max_connections)
            // A request waits this long for a connection (busy pool, or the database
            // restarting), then answers 503 (retryable) instead of hanging.
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect_with(options)
            .await?;
        Ok(Self { pool, log: None })
    }

    /// The store signing every version event into the transparency log with `signer`
    /// (see [`Store::open_log`]).
    pub fn with_log_signer(mut self, signer: log::LogSigner) -> Self {
        self.log = Some(std::sync::Arc::new(signer));
        self
    }

    /// The log signer, when this store signs.
    pub fn log_signer(&self) -> Option<&log::LogSigner> {
        self.log.as_deref()
    }

    /// The underlying pool, for health checks and tests.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Applies every pending migration. Safe to run from several processes at once
    /// (sqlx serialises migrators with an advisory lock).
    #[tracing::instrument(skip_all)]
    pub async fn migrate(&self) -> Result<(), StoreError> {
        MIGRATOR
            .run(&self.pool)
            .await
            .map_err(|e| StoreError::Migration(e.to_string()))
    }

    /// Round-trips a trivial query: the database half of `/readyz`.
    #[tracing::instrument(skip_all)]
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}
