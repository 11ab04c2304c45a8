//! Subscriptions to PostgreSQL `NOTIFY` channels: how every registry process hears of
//! changes committed by any other (access changes, index changes).

use crate::StoreError;

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
