//! The audit log: the writer every mutation calls inside its own transaction
//! ([`record_audit`]), events that write nothing else, and reading the log.

use chrono::{DateTime, Utc};
use tracing::instrument;

use sqlx::{Postgres, Transaction};

use crate::notify::ACTIVITY_CHANNEL;
use crate::skills::escape_like;
use crate::{Actor, AuditEntry, Store, StoreError};

/// Filters and paging for [`Store::list_audit`].
#[derive(Clone, Debug, Default)]
pub struct AuditQuery {
    /// Exactly this actor (a handle, or e.g. `cli:import`).
    pub actor: Option<String>,
    /// This action, or every action under it when it ends with `.` (`token.`).
    pub action: Option<String>,
    /// Exactly this target (e.g. `user:alice`).
    pub target: Option<String>,
    /// At or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Before this time.
    pub until: Option<DateTime<Utc>>,
    /// Keyset paging: entries with a smaller id (newest first).
    pub before_id: Option<i64>,
    /// Page size.
    pub limit: i64,
}

impl Store {
    /// An organisation's audit entries, newest first, filtered and paged.
    #[instrument(skip_all)]
    pub async fn list_audit(&self, org_id: i64, query: &AuditQuery) -> Result<Vec<AuditEntry>, StoreError> {
        let (action_exact, action_prefix) = match query.action.as_deref() {
            Some(prefix) if prefix.ends_with('.') => (None, Some(format!("{}%", escape_like(prefix)))),
            other => (other, None),
        };
        Ok(sqlx::query_as::<_, AuditEntry>(
            "SELECT id, created_at, actor, action, target, request_id, client_addr, details FROM audit_log \
             WHERE org_id = $1 \
               AND ($2::text IS NULL OR actor = $2) \
               AND ($3::text IS NULL OR action = $3) \
               AND ($4::text IS NULL OR action LIKE $4) \
               AND ($5::text IS NULL OR target = $5) \
               AND ($6::timestamptz IS NULL OR created_at >= $6) \
               AND ($7::timestamptz IS NULL OR created_at < $7) \
               AND ($8::bigint IS NULL OR id < $8) \
             ORDER BY id DESC LIMIT $9",
        )
        .bind(org_id)
        .bind(&query.actor)
        .bind(action_exact)
        .bind(action_prefix)
        .bind(&query.target)
        .bind(query.since)
        .bind(query.until)
        .bind(query.before_id)
        .bind(query.limit)
        .fetch_all(&self.pool)
        .await?)
    }
}

impl Store {
    /// Records an operator action that concerns every organisation (a signing-key
    /// rotation ends or keeps every organisation's tokens): one audit row in each
    /// organisation's log, in one transaction, so each organisation's admins see it.
    #[instrument(skip_all)]
    pub async fn audit_every_org(
        &self,
        actor: &Actor,
        action: &str,
        target: &str,
        details: serde_json::Value,
    ) -> Result<usize, StoreError> {
        let mut tx = self.pool.begin().await?;
        let count = record_audit_every_org(&mut tx, actor, action, target, details).await?;
        tx.commit().await?;
        Ok(count)
    }

    /// Records an action that wrote nothing else (an admin's rescan): one audit row.
    #[instrument(skip_all)]
    pub async fn record_event(
        &self,
        org_id: i64,
        actor: &Actor,
        action: &str,
        target: &str,
        details: serde_json::Value,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        record_audit(&mut tx, Some(org_id), actor, action, target, details).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Counts audit rows of an organisation (used by tests and by operators' checks).
    #[instrument(skip_all)]
    pub async fn audit_count(&self, org_id: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE org_id = $1")
            .bind(org_id)
            .fetch_one(&self.pool)
            .await?)
    }
}

impl Store {
    /// Subscribes to the audited changes of every organisation ([`ACTIVITY_CHANNEL`]),
    /// committed by any process on this database.
    #[instrument(skip_all)]
    pub async fn activity_notifications(&self) -> Result<crate::notify::Notifications, StoreError> {
        crate::notify::Notifications::subscribe(&self.pool, ACTIVITY_CHANNEL).await
    }
}

/// Appends one audit row per organisation inside the caller's transaction (a change that
/// concerns everyone: a key). Returns how many rows.
pub(crate) async fn record_audit_every_org(
    tx: &mut Transaction<'_, Postgres>,
    actor: &Actor,
    action: &str,
    target: &str,
    details: serde_json::Value,
) -> Result<usize, StoreError> {
    let orgs: Vec<i64> = sqlx::query_scalar("SELECT id FROM organizations ORDER BY id")
        .fetch_all(&mut **tx)
        .await?;
    for org in &orgs {
        record_audit(tx, Some(*org), actor, action, target, details.clone()).await?;
    }
    Ok(orgs.len())
}

/// Appends one audit row inside the caller's transaction, so the record commits (or
/// rolls back) together with the mutation it describes.
pub(crate) async fn record_audit(
    tx: &mut Transaction<'_, Postgres>,
    org_id: Option<i64>,
    actor: &Actor,
    action: &str,
    target: &str,
    details: serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO audit_log (org_id, actor_id, actor, action, target, request_id, client_addr, details) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(org_id)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(action)
    .bind(target)
    .bind(&actor.request_id)
    .bind(&actor.client_addr)
    .bind(sqlx::types::Json(details))
    .execute(&mut **tx)
    .await?;
    if let Some(org_id) = org_id {
        // Delivered at commit, to every process listening (the review queue's live view).
        let payload = serde_json::json!({ "org": org_id, "action": action, "target": target }).to_string();
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(ACTIVITY_CHANNEL)
            .bind(payload)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}
