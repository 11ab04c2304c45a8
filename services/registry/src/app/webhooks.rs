//! Webhooks: subscriptions (admins) and the delivery worker. Events are written to the
//! outbox in the transaction that makes them true (`cairn_store::webhooks`); every
//! replica runs a worker that claims due deliveries (`FOR UPDATE SKIP LOCKED`), posts
//! them signed with HMAC-SHA256, and retries failures with exponential backoff.

use std::time::Duration;

use cairn_store::{Actor, ClaimedDelivery, Store, StoreError, WEBHOOK_EVENTS, WebhookInfo};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

/// How often an idle worker looks for due deliveries.
const POLL: Duration = Duration::from_millis(500);
/// How long a claimed delivery is reserved for its worker: longer than a whole batch
/// can take (deliveries of a batch are sent concurrently, each within [`TIMEOUT`]).
const LEASE: Duration = Duration::from_secs(300);
/// Deliveries of a batch in flight at once.
const CONCURRENCY: usize = 16;
/// How long a receiver may take to answer.
const TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts before a delivery is given up (about 21 hours of backoff in all).
pub const MAX_ATTEMPTS: i32 = 12;
/// Deliveries claimed at once.
const BATCH: i64 = 16;

/// Why a webhook request was refused.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A webhook just created, with its secret (shown this once).
#[derive(Debug)]
pub struct CreatedWebhook {
    /// The webhook.
    pub info: WebhookInfo,
    /// The signing secret.
    pub secret: String,
}

/// Adds a webhook after checking its URL, events and secret (one is made when none is
/// given).
pub async fn create(
    store: &Store,
    org_id: i64,
    url: &str,
    events: &[String],
    secret: Option<String>,
    actor: &Actor,
) -> Result<CreatedWebhook, WebhookError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| WebhookError::Invalid(format!("url {url:?}: {e}: give an http(s) URL")))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() || url.len() > 2000 {
        return Err(WebhookError::Invalid(format!(
            "url {url:?}: webhooks need an http:// or https:// URL with a host, at most 2000 characters"
        )));
    }
    if events.is_empty() {
        return Err(WebhookError::Invalid(format!(
            "events is empty: subscribe to at least one of {}",
            WEBHOOK_EVENTS.join(", ")
        )));
    }
    if let Some(unknown) = events.iter().find(|e| !WEBHOOK_EVENTS.contains(&e.as_str())) {
        return Err(WebhookError::Invalid(format!(
            "event {unknown:?} does not exist: use {}",
            WEBHOOK_EVENTS.join(", ")
        )));
    }
    let secret = match secret {
        Some(s) if (16..=200).contains(&s.chars().count()) => s,
        Some(_) => {
            return Err(WebhookError::Invalid(
                "secret must be 16 to 200 characters (or leave it out and one is made)".to_owned(),
            ));
        }
        None => hex::encode(rand::random::<[u8; 32]>()),
    };
    let mut events = events.to_vec();
    events.sort();
    events.dedup();
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(WebhookError::Invalid(
            "url carries credentials: put the receiver's secret in `secret` (deliveries are signed with it)".to_owned(),
        ));
    }
    let info = store
        .create_webhook(org_id, Uuid::new_v4(), parsed.as_str(), &secret, &events, actor)
        .await?;
    Ok(CreatedWebhook { info, secret })
}

/// The `X-Cairn-Signature` value of `body`: `sha256=` and the hex HMAC-SHA256 with the
/// webhook's secret. Receivers recompute it over the raw body and compare.
pub fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The wait before attempt `attempts + 1`: 10 s, doubling, at most 6 hours.
pub fn backoff(attempts: i32) -> Duration {
    let exponent = u32::try_from(attempts.saturating_sub(1)).unwrap_or(0).min(16);
    Duration::from_secs(10u64.saturating_mul(1 << exponent)).min(Duration::from_secs(6 * 3600))
}

/// Delivers due webhooks for as long as the future runs.
pub async fn deliver_forever(store: Store, metrics: std::sync::Arc<crate::metrics::Metrics>) {
    // No redirects: a receiver cannot bounce the registry's request somewhere else.
    let client = match reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(client) => client,
        Err(e) => {
            tracing::error!(error = %e, "webhook delivery is off: cannot build an HTTP client");
            return;
        }
    };
    loop {
        match store.claim_deliveries(BATCH, LEASE).await {
            Ok(batch) if !batch.is_empty() => {
                use futures::StreamExt as _;
                futures::stream::iter(batch)
                    .for_each_concurrent(CONCURRENCY, |delivery| deliver(&store, &client, &metrics, delivery))
                    .await;
            }
            Ok(_) => tokio::time::sleep(POLL).await,
            Err(e) => {
                tracing::warn!(error = %e, "claiming webhook deliveries failed; retrying");
                tokio::time::sleep(POLL).await;
            }
        }
    }
}

async fn deliver(
    store: &Store,
    client: &reqwest::Client,
    metrics: &crate::metrics::Metrics,
    delivery: ClaimedDelivery,
) {
    let body = serde_json::to_vec(&delivery.payload).unwrap_or_default();
    let result = client
        .post(&delivery.url)
        .header("content-type", "application/json")
        .header("user-agent", "cairn-registry-webhooks")
        .header("x-cairn-event", &delivery.event)
        .header("x-cairn-delivery", delivery.id.to_string())
        .header("x-cairn-signature", signature(&delivery.secret, &body))
        .body(body)
        .send()
        .await;
    let (delivered, status, error) = match result {
        Ok(response) if response.status().is_success() => (true, Some(i32::from(response.status().as_u16())), None),
        Ok(response) => (
            false,
            Some(i32::from(response.status().as_u16())),
            Some(format!("the receiver answered {}", response.status())),
        ),
        Err(e) => (false, None, Some(format!("could not deliver: {e}"))),
    };
    let retry_in = (!delivered && delivery.attempts < MAX_ATTEMPTS).then(|| backoff(delivery.attempts));
    metrics.webhook_attempt(match (delivered, retry_in) {
        (true, _) => "delivered",
        (false, Some(_)) => "retry",
        (false, None) => "failed",
    });
    if let Err(e) = store
        .finish_delivery(
            delivery.id,
            delivery.attempts,
            delivered,
            status,
            error.as_deref(),
            retry_in,
        )
        .await
    {
        tracing::warn!(error = %e, delivery = delivery.id, "recording a webhook delivery failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_and_backoff() {
        // RFC 4231 test case 2.
        assert_eq!(
            signature("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(backoff(1), Duration::from_secs(10));
        assert_eq!(backoff(2), Duration::from_secs(20));
        assert_eq!(backoff(40), Duration::from_secs(6 * 3600));
    }
}
