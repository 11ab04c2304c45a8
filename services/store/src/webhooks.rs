//! Webhooks: each organisation's subscriptions, and the delivery outbox written in the
//! same transaction as the event it announces.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

use crate::audit::record_audit;
use crate::{Actor, Store, StoreError};

/// The events a webhook can subscribe to.
pub const WEBHOOK_EVENTS: [&str; 8] = [
    "patch.submitted",
    "patch.revised",
    "patch.approved",
    "patch.rejected",
    "patch.blocked",
    "patch.commented",
    "patch.changes_requested",
    "version.published",
];

/// A webhook as listed (without its secret).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct WebhookInfo {
    /// Its id.
    pub id: Uuid,
    /// Where deliveries go.
    pub url: String,
    /// The events it receives.
    pub events: Vec<String>,
    /// Whether it is active.
    pub active: bool,
    /// Created at.
    pub created_at: DateTime<Utc>,
}

/// One delivery (the delivery log).
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct DeliveryInfo {
    /// Its id.
    pub id: i64,
    /// The event.
    pub event: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    /// Attempts so far.
    pub attempts: i32,
    /// The next attempt, while pending.
    pub next_attempt_at: DateTime<Utc>,
    /// The receiver's last HTTP status.
    pub last_status_code: Option<i32>,
    /// The last error (network, timeout, non-2xx).
    pub last_error: Option<String>,
    /// Enqueued at.
    pub created_at: DateTime<Utc>,
    /// Delivered at.
    pub delivered_at: Option<DateTime<Utc>>,
}

/// A delivery claimed by a worker.
#[derive(Clone, Debug)]
pub struct ClaimedDelivery {
    /// Its id.
    pub id: i64,
    /// The event.
    pub event: String,
    /// The body to send.
    pub payload: serde_json::Value,
    /// Where to.
    pub url: String,
    /// The webhook's signing secret.
    pub secret: String,
    /// Attempts including this one.
    pub attempts: i32,
}

/// Enqueues `event` for every active webhook of the organisation subscribed to it, in
/// the caller's transaction (the outbox commits with the event or not at all).
pub(crate) async fn enqueue(
    tx: &mut Transaction<'_, Postgres>,
    org_id: i64,
    event: &str,
    data: serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO webhook_deliveries (webhook_id, event, payload) \
         SELECT id, $2, jsonb_build_object('event', $2::text, 'at', now(), 'data', $3::jsonb) \
         FROM webhooks WHERE org_id = $1 AND active AND $2 = ANY(events)",
    )
    .bind(org_id)
    .bind(event)
    .bind(Json(data))
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl Store {
    /// Adds a webhook.
    pub async fn create_webhook(
        &self,
        org_id: i64,
        id: Uuid,
        url: &str,
        secret: &str,
        events: &[String],
        actor: &Actor,
    ) -> Result<WebhookInfo, StoreError> {
        let mut tx = self.pool.begin().await?;
        let info: WebhookInfo = sqlx::query_as(
            "INSERT INTO webhooks (id, org_id, url, secret, events) VALUES ($1, $2, $3, $4, $5) \
             RETURNING id, url, events, active, created_at",
        )
        .bind(id)
        .bind(org_id)
        .bind(url)
        .bind(secret)
        .bind(events)
        .fetch_one(&mut *tx)
        .await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "webhook.create",
            &format!("webhook:{id}"),
            serde_json::json!({ "url": url, "events": events }),
        )
        .await?;
        tx.commit().await?;
        Ok(info)
    }

    /// The organisation's webhooks.
    pub async fn list_webhooks(&self, org_id: i64) -> Result<Vec<WebhookInfo>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, url, events, active, created_at FROM webhooks WHERE org_id = $1 ORDER BY created_at, id",
        )
        .bind(org_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Deletes a webhook and its deliveries.
    pub async fn delete_webhook(&self, org_id: i64, id: Uuid, actor: &Actor) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let deleted = sqlx::query("DELETE FROM webhooks WHERE org_id = $1 AND id = $2")
            .bind(org_id)
            .bind(id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        if deleted == 0 {
            return Err(StoreError::NotFound(format!("webhook {id}")));
        }
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "webhook.delete",
            &format!("webhook:{id}"),
            serde_json::json!({}),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// A webhook's deliveries, newest first (at most `limit`).
    pub async fn webhook_deliveries(&self, org_id: i64, id: Uuid, limit: i64) -> Result<Vec<DeliveryInfo>, StoreError> {
        let exists: Option<Uuid> = sqlx::query_scalar("SELECT id FROM webhooks WHERE org_id = $1 AND id = $2")
            .bind(org_id)
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        if exists.is_none() {
            return Err(StoreError::NotFound(format!("webhook {id}")));
        }
        Ok(sqlx::query_as(
            "SELECT id, event, status, attempts, next_attempt_at, last_status_code, last_error, created_at, delivered_at \
             FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY id DESC LIMIT $2",
        )
        .bind(id)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Claims up to `limit` due deliveries for this worker: each is leased for `lease`
    /// (its next attempt moved past it, its attempt counted), so another worker or
    /// replica skips it; rows locked by others are skipped, not waited for.
    pub async fn claim_deliveries(
        &self,
        limit: i64,
        lease: std::time::Duration,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let lease_secs = lease.as_secs_f64();
        let rows: Vec<(i64, String, Json<serde_json::Value>, String, String, i32)> = sqlx::query_as(
            "WITH due AS ( \
                 SELECT d.id FROM webhook_deliveries d \
                 WHERE d.status = 'pending' AND d.next_attempt_at <= now() \
                 ORDER BY d.next_attempt_at, d.id LIMIT $1 FOR UPDATE SKIP LOCKED) \
             UPDATE webhook_deliveries d SET attempts = d.attempts + 1, \
                 next_attempt_at = now() + make_interval(secs => $2) \
             FROM due, webhooks w WHERE d.id = due.id AND w.id = d.webhook_id \
             RETURNING d.id, d.event, d.payload, w.url, w.secret, d.attempts",
        )
        .bind(limit)
        .bind(lease_secs)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, event, payload, url, secret, attempts)| ClaimedDelivery {
                id,
                event,
                payload: payload.0,
                url,
                secret,
                attempts,
            })
            .collect())
    }

    /// Records a delivery attempt: delivered, or retried after `retry_in`, or failed for
    /// good when `retry_in` is `None`. Fenced by the attempt number: a worker whose lease
    /// ran out (and whose delivery another worker claimed) changes nothing.
    pub async fn finish_delivery(
        &self,
        id: i64,
        attempt: i32,
        delivered: bool,
        status_code: Option<i32>,
        error: Option<&str>,
        retry_in: Option<std::time::Duration>,
    ) -> Result<(), StoreError> {
        let status = match (delivered, retry_in) {
            (true, _) => "delivered",
            (false, Some(_)) => "pending",
            (false, None) => "failed",
        };
        sqlx::query(
            "UPDATE webhook_deliveries SET status = $2, last_status_code = $3, last_error = $4, \
             next_attempt_at = now() + make_interval(secs => $5), \
             delivered_at = CASE WHEN $2 = 'delivered' THEN now() END \
             WHERE id = $1 AND status = 'pending' AND attempts = $6",
        )
        .bind(id)
        .bind(status)
        .bind(status_code)
        .bind(error)
        .bind(retry_in.map_or(0.0, |d| d.as_secs_f64()))
        .bind(attempt)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
