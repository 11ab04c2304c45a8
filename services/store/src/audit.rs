//! Reading the audit log (rows are written by each mutation, in its own transaction).

use chrono::{DateTime, Utc};
use tracing::instrument;

use crate::skills::escape_like;
use crate::{AuditEntry, Store, StoreError};

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
