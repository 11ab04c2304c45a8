//! Audited changes as they commit, on any replica: what the review queue's live view
//! listens to. One `LISTEN` connection per process fans out to every open page through a
//! bounded broadcast; a page that falls behind or a dropped subscription only means the
//! page reloads its list, so nothing here needs to be exact.

use std::time::Duration;

use cairn_store::Store;
use cairn_store::notify::Notification;
use serde::Deserialize;
use tokio::sync::broadcast;

/// Activities buffered per subscriber before it counts as lagging.
const BUFFER: usize = 256;

/// One audited change.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Activity {
    /// The organisation.
    #[serde(rename = "org")]
    pub org_id: i64,
    /// The audit action (`patch.submit`, `patch.approve`, `token.issue`, …).
    pub action: String,
    /// Its target (`patch:<id>`, `user:alice`, …).
    #[serde(default)]
    pub target: String,
}

/// What a subscriber receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActivityEvent {
    /// A change committed.
    Changed(Activity),
    /// Changes may have been missed (a lagging subscriber, a re-established
    /// subscription): re-read whatever is shown.
    Resync,
}

/// The process-wide feed of audited changes.
#[derive(Debug)]
pub struct ActivityFeed {
    sender: broadcast::Sender<ActivityEvent>,
    /// Set when the server shuts down, so open pages' streams end and draining finishes.
    closing: tokio::sync::watch::Sender<bool>,
}

impl Default for ActivityFeed {
    fn default() -> Self {
        ActivityFeed {
            sender: broadcast::channel(BUFFER).0,
            closing: tokio::sync::watch::Sender::new(false),
        }
    }
}

impl ActivityFeed {
    /// A new subscription (events from now on).
    pub fn subscribe(&self) -> broadcast::Receiver<ActivityEvent> {
        self.sender.subscribe()
    }

    /// Tells streams when the server shuts down (`true`).
    pub fn closing(&self) -> tokio::sync::watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Ends every stream (server shutdown); streams started later end at once.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Follows the database's activity notifications for as long as the returned future
    /// runs, re-subscribing with backoff when the connection fails.
    pub async fn follow(&self, store: Store) {
        let mut backoff = Duration::from_millis(100);
        loop {
            match store.activity_notifications().await {
                Ok(mut notifications) => {
                    backoff = Duration::from_millis(100);
                    let _ = self.sender.send(ActivityEvent::Resync);
                    loop {
                        match notifications.next().await {
                            Ok(Notification::Changed(payload)) => match serde_json::from_str::<Activity>(&payload) {
                                Ok(activity) => {
                                    let _ = self.sender.send(ActivityEvent::Changed(activity));
                                }
                                Err(_) => tracing::warn!(%payload, "ignoring a malformed activity notification"),
                            },
                            Ok(Notification::Reconnected) => {
                                let _ = self.sender.send(ActivityEvent::Resync);
                            }
                            Err(e) => {
                                tracing::warn!(error = %e, "lost the activity subscription; resubscribing");
                                break;
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot subscribe to activity notifications; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(10));
        }
    }
}
