//! Managing an organisation's users: listing, roles, disabling. Changes that affect who
//! may do what notify every registry process (see [`AUTH_CHANNEL`]) in the same
//! transaction, so cached token checks everywhere drop them the moment they commit.

use sqlx::{Postgres, Transaction};
use tracing::instrument;

use crate::audit::record_audit;
use crate::notify::AUTH_CHANNEL;
use crate::{Actor, Role, Store, StoreError, User};

impl Store {
    /// Adds a user to an organisation. A taken handle is a [`StoreError::Conflict`].
    #[instrument(skip_all)]
    pub async fn create_user(&self, org_id: i64, handle: &str, role: Role, actor: &Actor) -> Result<User, StoreError> {
        let mut tx = self.pool.begin().await?;
        let user = insert_user(&mut tx, org_id, handle, role).await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "user.create",
            &format!("user:{handle}"),
            serde_json::json!({ "role": role.as_str() }),
        )
        .await?;
        tx.commit().await?;
        Ok(user)
    }

    /// Looks a user up by handle within an organisation.
    #[instrument(skip_all)]
    pub async fn user_by_handle(&self, org_id: i64, handle: &str) -> Result<User, StoreError> {
        sqlx::query_as::<_, User>(
            "SELECT id, org_id, handle, role, disabled, created_at FROM users WHERE org_id = $1 AND handle = $2",
        )
        .bind(org_id)
        .bind(handle)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("user '{handle}'")))
    }
}

pub(crate) async fn insert_user(
    tx: &mut Transaction<'_, Postgres>,
    org_id: i64,
    handle: &str,
    role: Role,
) -> Result<User, StoreError> {
    sqlx::query_as::<_, User>(
        "INSERT INTO users (org_id, handle, role) VALUES ($1, $2, $3) \
         RETURNING id, org_id, handle, role, disabled, created_at",
    )
    .bind(org_id)
    .bind(handle)
    .bind(role.as_str())
    .fetch_one(&mut **tx)
    .await
    .map_err(|e| match StoreError::from(e) {
        StoreError::Conflict(_) => StoreError::Conflict(format!("user '{handle}' already exists")),
        other => other,
    })
}

/// What [`Store::update_user`] changes; `None` leaves a field as it is.
#[derive(Clone, Copy, Debug, Default)]
pub struct UserUpdate {
    /// A new role.
    pub role: Option<Role>,
    /// Disable (`true`) or enable (`false`).
    pub disabled: Option<bool>,
}

impl Store {
    /// Lists an organisation's users by handle, after `after` (keyset paging).
    #[instrument(skip_all)]
    pub async fn list_users(&self, org_id: i64, after: Option<&str>, limit: i64) -> Result<Vec<User>, StoreError> {
        Ok(sqlx::query_as::<_, User>(
            "SELECT id, org_id, handle, role, disabled, created_at FROM users \
             WHERE org_id = $1 AND ($2::text IS NULL OR handle > $2) ORDER BY handle LIMIT $3",
        )
        .bind(org_id)
        .bind(after)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Changes a user's role and/or disabled state. Refuses (as a conflict) to leave the
    /// organisation without an active admin. An update that changes nothing writes
    /// nothing. Every cached token check is invalidated when something changed.
    #[instrument(skip_all)]
    pub async fn update_user(
        &self,
        org_id: i64,
        handle: &str,
        update: UserUpdate,
        actor: &Actor,
    ) -> Result<User, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Lock the active admins first (always in the same order), so two concurrent
        // demotions cannot both see "another admin remains".
        let admins: Vec<i64> = sqlx::query_scalar(
            "SELECT id FROM users WHERE org_id = $1 AND role = 'admin' AND NOT disabled ORDER BY id FOR UPDATE",
        )
        .bind(org_id)
        .fetch_all(&mut *tx)
        .await?;
        let user = sqlx::query_as::<_, User>(
            "SELECT id, org_id, handle, role, disabled, created_at FROM users \
             WHERE org_id = $1 AND handle = $2 FOR UPDATE",
        )
        .bind(org_id)
        .bind(handle)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("user '{handle}'")))?;
        let role = update.role.unwrap_or(user.role);
        let disabled = update.disabled.unwrap_or(user.disabled);
        if role == user.role && disabled == user.disabled {
            return Ok(user);
        }
        let stays_active_admin = role == Role::Admin && !disabled;
        if admins == [user.id] && !stays_active_admin {
            return Err(StoreError::Conflict(format!(
                "'{handle}' is the organisation's last active admin: make another user admin first"
            )));
        }
        let updated = sqlx::query_as::<_, User>(
            "UPDATE users SET role = $2, disabled = $3, updated_at = now() WHERE id = $1 \
             RETURNING id, org_id, handle, role, disabled, created_at",
        )
        .bind(user.id)
        .bind(role.as_str())
        .bind(disabled)
        .fetch_one(&mut *tx)
        .await?;
        if role != user.role {
            let details = serde_json::json!({ "from": user.role.as_str(), "to": role.as_str() });
            record_audit(
                &mut tx,
                Some(org_id),
                actor,
                "user.set_role",
                &format!("user:{handle}"),
                details,
            )
            .await?;
        }
        if disabled != user.disabled {
            let action = if disabled { "user.disable" } else { "user.enable" };
            record_audit(
                &mut tx,
                Some(org_id),
                actor,
                action,
                &format!("user:{handle}"),
                serde_json::json!({}),
            )
            .await?;
        }
        notify_auth_change(&mut tx, &format!("user:{}", user.id)).await?;
        tx.commit().await?;
        Ok(updated)
    }
}

/// Announces an access change on [`AUTH_CHANNEL`]; delivered when the transaction commits.
pub(crate) async fn notify_auth_change(tx: &mut Transaction<'_, Postgres>, what: &str) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(AUTH_CHANNEL)
        .bind(what)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// One event of an access-change subscription (see [`Store::auth_changes`]).
pub type AuthChange = crate::notify::Notification;

/// A live subscription to access changes (see [`Store::auth_changes`]).
pub type AuthChanges = crate::notify::Notifications;

impl Store {
    /// Sends `ping:<nonce>` on [`AUTH_CHANNEL`]: a subscriber that hears its own ping
    /// knows its subscription still works (a silently dropped connection would not tell).
    #[instrument(skip_all)]
    pub async fn ping_auth_changes(&self, nonce: &str) -> Result<(), StoreError> {
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(AUTH_CHANNEL)
            .bind(format!("ping:{nonce}"))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Subscribes to access changes made by any process on this database.
    #[instrument(skip_all)]
    pub async fn auth_changes(&self) -> Result<AuthChanges, StoreError> {
        crate::notify::Notifications::subscribe(&self.pool, AUTH_CHANNEL).await
    }
}
