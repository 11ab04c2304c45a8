//! PostgreSQL `NOTIFY` channels and subscriptions to them: how every registry process
//! hears of changes committed by any other (audited activity, access changes, index
//! changes).

use crate::StoreError;

/// The PostgreSQL `NOTIFY` channel told of every audited change of an organisation, at
/// commit: the payload is `{"org": id, "action": "patch.submit", "target": "patch:…"}`.
pub const ACTIVITY_CHANNEL: &str = "cairn_activity";

/// The PostgreSQL `NOTIFY` channel on which role changes, disabled users and revoked
/// tokens are announced to every registry process.
pub const AUTH_CHANNEL: &str = "cairn_auth";

/// The PostgreSQL `NOTIFY` channel told of every index change (a published version, a
/// yank, a recategorisation), in the same transaction, with the organisation's id as
/// the payload: replicas and live-sync streams follow it instead of polling.
pub const INDEX_CHANNEL: &str = "cairn_index";

/// One event of a [`Notifications`] subscription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notification {
    /// A notification with its payload.
    Changed(String),
    /// The connection dropped and was re-established: notifications may have been missed.
    Reconnected,
}

/// A live subscription to one channel.
pub struct Notifications {
    listener: sqlx::postgres::PgListener,
}

impl std::fmt::Debug for Notifications {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifications")
    }
}

impl Notifications {
    /// Listens on `channel` over a dedicated connection with the pool's options.
    pub(crate) async fn subscribe(pool: &sqlx::PgPool, channel: &str) -> Result<Self, StoreError> {
        let mut listener = sqlx::postgres::PgListener::connect_with(pool).await?;
        listener.listen(channel).await?;
        Ok(Notifications { listener })
    }

    /// Waits for the next notification. An error means the subscription failed: callers
    /// must stop trusting what they cached and subscribe again.
    pub async fn next(&mut self) -> Result<Notification, StoreError> {
        Ok(match self.listener.try_recv().await? {
            Some(notification) => Notification::Changed(notification.payload().to_owned()),
            None => Notification::Reconnected,
        })
    }
}
