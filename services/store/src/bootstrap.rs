//! First start: on a brand-new database, the default organisation, its first admin and
//! the row of the admin's first token, in one transaction; concurrent first starts are
//! serialised so exactly one bootstraps.

use tracing::instrument;

use crate::audit::record_audit;
use crate::orgs::insert_org;
use crate::tokens::{NewToken, insert_token};
use crate::users::insert_user;
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
}
