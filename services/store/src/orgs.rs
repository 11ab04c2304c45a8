//! Organisations, users, first-start bootstrap and the audit log.

use sqlx::{Postgres, Transaction};
use tracing::instrument;

use crate::tokens::{NewToken, insert_token};
use crate::{Actor, Organization, Role, Store, StoreError, User};

/// The first admin token's row, written together with the bootstrap.
#[derive(Clone, Copy, Debug)]
pub struct AdminToken<'a> {
    /// Its `jti`.
    pub id: uuid::Uuid,
    /// Its label.
    pub name: &'a str,
    /// Its scopes (everything an admin may do).
    pub scopes: &'a [String],
    /// Its expiry.
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// Advisory-lock key that serialises first-start bootstrap across processes.
const BOOTSTRAP_LOCK: i64 = 0x6361_6972_6e00_0001;

impl Store {
    /// Creates an organisation. A taken slug is a [`StoreError::Conflict`].
    #[instrument(skip_all)]
    pub async fn create_org(&self, slug: &str, name: &str, actor: &Actor) -> Result<Organization, StoreError> {
        let mut tx = self.pool.begin().await?;
        let org = insert_org(&mut tx, slug, name).await?;
        record_audit(
            &mut tx,
            Some(org.id),
            actor,
            "org.create",
            &format!("org:{slug}"),
            serde_json::json!({}),
        )
        .await?;
        tx.commit().await?;
        Ok(org)
    }

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
        let orgs: Vec<i64> = sqlx::query_scalar("SELECT id FROM organizations ORDER BY id")
            .fetch_all(&mut *tx)
            .await?;
        for org in &orgs {
            record_audit(&mut tx, Some(*org), actor, action, target, details.clone()).await?;
        }
        tx.commit().await?;
        Ok(orgs.len())
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

    /// Every organisation, by slug (operators' `org list`).
    #[instrument(skip_all)]
    pub async fn list_orgs(&self) -> Result<Vec<Organization>, StoreError> {
        Ok(sqlx::query_as::<_, Organization>(
            "SELECT id, slug, name, created_at, anonymous_read FROM organizations ORDER BY slug",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Looks an organisation up by slug.
    #[instrument(skip_all)]
    pub async fn org_by_slug(&self, slug: &str) -> Result<Organization, StoreError> {
        sqlx::query_as::<_, Organization>(
            "SELECT id, slug, name, created_at, anonymous_read FROM organizations WHERE slug = $1",
        )
        .bind(slug)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("organisation '{slug}'")))
    }

    /// Opens (or closes) the organisation's discovery and download endpoints to clients
    /// without a token, with an audit row. Returns the organisation as it is now.
    #[instrument(skip_all)]
    pub async fn set_anonymous_read(&self, org_id: i64, on: bool, actor: &Actor) -> Result<Organization, StoreError> {
        let mut tx = self.pool.begin().await?;
        let org = sqlx::query_as::<_, Organization>(
            "UPDATE organizations SET anonymous_read = $2 WHERE id = $1 \
             RETURNING id, slug, name, created_at, anonymous_read",
        )
        .bind(org_id)
        .bind(on)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("organisation {org_id}")))?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "org.anonymous_read",
            &format!("org:{}", org.slug),
            serde_json::json!({ "anonymous_read": on }),
        )
        .await?;
        tx.commit().await?;
        Ok(org)
    }

    /// Whether the organisation lets clients without a token read its discovery
    /// endpoints (`None`: no such organisation).
    #[instrument(skip_all)]
    pub async fn anonymous_read(&self, slug: &str) -> Result<Option<(i64, bool)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT id, anonymous_read FROM organizations WHERE slug = $1")
                .bind(slug)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

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

    /// On a brand-new database, creates the organisation `org_slug`, an admin user
    /// `admin_handle` and the row of the admin's first token (all in one transaction, so a
    /// crash cannot leave an admin without a token) and returns them; returns `None` when any organisation already
    /// exists. Concurrent first starts are serialised, so exactly one bootstraps.
    #[instrument(skip_all)]
    pub async fn bootstrap(
        &self,
        org_slug: &str,
        admin_handle: &str,
        admin_token: AdminToken<'_>,
    ) -> Result<Option<(Organization, User)>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(BOOTSTRAP_LOCK)
            .execute(&mut *tx)
            .await?;
        let any: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM organizations)")
            .fetch_one(&mut *tx)
            .await?;
        if any {
            return Ok(None);
        }
        let org = insert_org(&mut tx, org_slug, "Default organisation").await?;
        let user = insert_user(&mut tx, org.id, admin_handle, Role::Admin).await?;
        let token = NewToken {
            id: admin_token.id,
            user_id: user.id,
            org_id: org.id,
            name: admin_token.name,
            scopes: admin_token.scopes,
            expires_at: admin_token.expires_at,
        };
        insert_token(&mut tx, token).await?;
        let actor = Actor::cli("bootstrap");
        record_audit(
            &mut tx,
            Some(org.id),
            &actor,
            "org.create",
            &format!("org:{org_slug}"),
            serde_json::json!({}),
        )
        .await?;
        record_audit(
            &mut tx,
            Some(org.id),
            &actor,
            "user.create",
            &format!("user:{admin_handle}"),
            serde_json::json!({ "role": "admin" }),
        )
        .await?;
        record_audit(
            &mut tx,
            Some(org.id),
            &actor,
            "token.issue",
            &format!("token:{}", admin_token.id),
            serde_json::json!({ "name": admin_token.name, "owner": admin_handle, "scopes": admin_token.scopes, "expires_at": admin_token.expires_at }),
        )
        .await?;
        tx.commit().await?;
        Ok(Some((org, user)))
    }

    /// Whether any organisation exists (a set-up database; bootstrap has nothing to do).
    #[instrument(skip_all)]
    pub async fn has_organizations(&self) -> Result<bool, StoreError> {
        Ok(sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM organizations)")
            .fetch_one(&self.pool)
            .await?)
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

async fn insert_org(tx: &mut Transaction<'_, Postgres>, slug: &str, name: &str) -> Result<Organization, StoreError> {
    sqlx::query_as::<_, Organization>(
        "INSERT INTO organizations (slug, name) VALUES ($1, $2) RETURNING id, slug, name, created_at, anonymous_read",
    )
    .bind(slug)
    .bind(name)
    .fetch_one(&mut **tx)
    .await
    .map_err(|e| match StoreError::from(e) {
        StoreError::Conflict(_) => StoreError::Conflict(format!("organisation '{slug}' already exists")),
        other => other,
    })
}

async fn insert_user(
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

/// The PostgreSQL `NOTIFY` channel told of every audited change of an organisation, at
/// commit: the payload is `{"org": id, "action": "patch.submit", "target": "patch:…"}`.
pub const ACTIVITY_CHANNEL: &str = "cairn_activity";

impl Store {
    /// Subscribes to the audited changes of every organisation ([`ACTIVITY_CHANNEL`]),
    /// committed by any process on this database.
    #[instrument(skip_all)]
    pub async fn activity_notifications(&self) -> Result<crate::notify::Notifications, StoreError> {
        crate::notify::Notifications::subscribe(&self.pool, ACTIVITY_CHANNEL).await
    }
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
