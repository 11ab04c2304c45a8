//! Webhooks and their delivery log (`/v1/webhooks…`).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A webhook.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Webhook {
    /// Its id.
    pub id: String,
    /// Where events are posted.
    pub url: String,
    /// The events it receives.
    pub events: Vec<String>,
    /// Whether deliveries are attempted.
    pub active: bool,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// The signing secret: only in the answer to its creation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// One delivery of an event to a webhook.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Delivery {
    /// Its id.
    pub id: i64,
    /// The event.
    pub event: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    /// Attempts made.
    pub attempts: i32,
    /// When the next attempt is due (pending deliveries only).
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// The receiver's last HTTP status.
    pub last_status_code: Option<i32>,
    /// The last failure, in words.
    pub last_error: Option<String>,
    /// When the event happened.
    pub created_at: DateTime<Utc>,
    /// When it was delivered.
    pub delivered_at: Option<DateTime<Utc>>,
}
