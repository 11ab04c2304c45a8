//! Webhooks: subscriptions (admins) and the delivery worker. Events are written to the
//! outbox in the transaction that makes them true (`cairn_store::webhooks`); every
//! replica runs a worker that claims due deliveries (`FOR UPDATE SKIP LOCKED`), posts
//! them signed with HMAC-SHA256, and retries failures with exponential backoff.
//!
//! A webhook's URL is a tenant's choice, so the addresses it may reach are limited
//! (`app::outbound`): at creation and again at every connection, after DNS resolution.
//! Redirects are not followed and no proxy from the environment is used. The delivery log
//! keeps the receiver's status code and the time, never what it answered.

use std::sync::Arc;
use std::time::Duration;

use cairn_store::{Actor, ClaimedDelivery, Store, StoreError, WEBHOOK_EVENTS, WebhookInfo};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

use super::outbound::{GuardedResolver, Lookup, OutboundPolicy, Refused, SystemLookup};

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
    /// The URL names an address webhooks may not reach.
    #[error("url: {0}")]
    Address(#[from] Refused),
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

/// Adds a webhook after checking its URL (against `outbound`, the addresses webhooks may
/// reach), events and secret (one is made when none is given).
pub async fn create(
    store: &Store,
    outbound: &OutboundPolicy,
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
    if let Some(host) = parsed.host() {
        outbound.check_host(host)?;
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

/// The HTTP client deliveries are sent with: names are resolved by `lookup` and checked
/// against `outbound` at every connection, redirects are not followed (a receiver cannot
/// bounce the request elsewhere) and no proxy is taken from the environment (it would
/// connect on the registry's behalf without the check).
pub fn delivery_client(outbound: Arc<OutboundPolicy>, lookup: Arc<dyn Lookup>) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .dns_resolver(Arc::new(GuardedResolver::new(outbound, lookup)))
        .build()
}

/// Delivers due webhooks for as long as the future runs.
pub async fn deliver_forever(store: Store, metrics: Arc<crate::metrics::Metrics>, outbound: Arc<OutboundPolicy>) {
    let client = match delivery_client(outbound.clone(), Arc::new(SystemLookup)) {
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
                    .for_each_concurrent(CONCURRENCY, |delivery| {
                        deliver(&store, &client, &outbound, &metrics, delivery)
                    })
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

/// How one attempt went, as the delivery log records it: the receiver's status code, or
/// why nothing was sent. Never the receiver's answer.
#[derive(Debug, PartialEq, Eq)]
pub struct Attempt {
    /// Whether the receiver answered with a success status.
    pub delivered: bool,
    /// The receiver's status code, when it answered.
    pub status: Option<i32>,
    /// What went wrong, when something did.
    pub error: Option<String>,
}

/// Sends one delivery: `url` is checked against `outbound` first when its host is an
/// address (names are checked by the client's resolver).
pub async fn send(
    client: &reqwest::Client,
    outbound: &OutboundPolicy,
    url: &str,
    event: &str,
    delivery_id: i64,
    secret: &str,
    payload: &serde_json::Value,
) -> Attempt {
    let not_delivered = |error: String| Attempt {
        delivered: false,
        status: None,
        error: Some(error),
    };
    let parsed = match reqwest::Url::parse(url) {
        Ok(parsed) => parsed,
        Err(e) => return not_delivered(format!("the webhook's url is not valid: {e}")),
    };
    if let Some(Err(e)) = parsed.host().map(|host| outbound.check_host(host)) {
        return not_delivered(format!("not sent: {e}"));
    }
    let body = serde_json::to_vec(payload).unwrap_or_default();
    let result = client
        .post(parsed)
        .header("content-type", "application/json")
        .header("user-agent", "cairn-registry-webhooks")
        .header("x-cairn-event", event)
        .header("x-cairn-delivery", delivery_id.to_string())
        .header("x-cairn-signature", signature(secret, &body))
        .body(body)
        .send()
        .await;
    match result {
        Ok(response) => {
            let status = response.status();
            Attempt {
                delivered: status.is_success(),
                status: Some(i32::from(status.as_u16())),
                error: (!status.is_success()).then(|| format!("the receiver answered {status}")),
            }
        }
        Err(e) => not_delivered(sending_error(&e)),
    }
}

/// Why a request failed, without the URL (the log shows it already): a refused address,
/// else the innermost cause (a refused connection, a DNS failure, a timeout).
fn sending_error(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!(
            "could not deliver: the receiver did not answer within {} s",
            TIMEOUT.as_secs()
        );
    }
    let mut cause: &dyn std::error::Error = error;
    loop {
        if let Some(refused) = cause.downcast_ref::<Refused>() {
            return format!("not sent: {refused}");
        }
        match cause.source() {
            Some(next) => cause = next,
            None => return format!("could not deliver: {cause}"),
        }
    }
}

async fn deliver(
    store: &Store,
    client: &reqwest::Client,
    outbound: &OutboundPolicy,
    metrics: &crate::metrics::Metrics,
    delivery: ClaimedDelivery,
) {
    let Attempt {
        delivered,
        status,
        error,
    } = send(
        client,
        outbound,
        &delivery.url,
        &delivery.event,
        delivery.id,
        &delivery.secret,
        &delivery.payload,
    )
    .await;
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
