//! API token rows: every issued JWT has one, so tokens can be revoked and audited.

use chrono::{DateTime, Utc};
use tracing::instrument;
use uuid::Uuid;

use crate::audit::record_audit;
use crate::users::notify_auth_change;
use crate::{Actor, Store, StoreError, TokenInfo, TokenPrincipal};

/// The columns of a [`TokenInfo`].
const TOKEN_INFO_SELECT: &str = "SELECT t.id, u.handle AS owner, t.name, t.scopes, t.created_at, t.expires_at, \
     t.last_used_at, t.revoked_at FROM api_tokens t JOIN users u ON u.id = t.user_id";

/// Filters and paging for [`Store::list_tokens`].
#[derive(Clone, Debug, Default)]
pub struct TokenQuery {
    /// Only this user's tokens.
    pub user_id: Option<i64>,
    /// Include revoked and expired tokens.
    pub include_inactive: bool,
    /// Keyset paging: tokens issued before this one (newest first).
    pub before: Option<(DateTime<Utc>, Uuid)>,
    /// Page size.
    pub limit: i64,
}

/// A token about to be issued.
#[derive(Clone, Copy, Debug)]
pub struct NewToken<'a> {
    /// Its `jti`.
    pub id: Uuid,
    /// The owner.
    pub user_id: i64,
    /// The organisation it works in.
    pub org_id: i64,
    /// A label, e.g. `laptop` or `ci`.
    pub name: &'a str,
    /// Scopes granted in addition to the role.
    pub scopes: &'a [String],
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
}

/// Inserts a token row inside the caller's transaction.
pub(crate) async fn insert_token(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    token: NewToken<'_>,
) -> Result<TokenInfo, StoreError> {
    Ok(sqlx::query_as::<_, TokenInfo>(
        "INSERT INTO api_tokens (id, user_id, org_id, name, scopes, expires_at) VALUES ($1, $2, $3, $4, $5, $6) \
         RETURNING id, (SELECT handle FROM users WHERE id = user_id) AS owner, name, scopes, created_at, \
             expires_at, last_used_at, revoked_at",
    )
    .bind(token.id)
    .bind(token.user_id)
    .bind(token.org_id)
    .bind(token.name)
    .bind(token.scopes)
    .bind(token.expires_at)
    .fetch_one(&mut **tx)
    .await?)
}

impl Store {
    /// Records a newly issued token.
    #[instrument(skip_all)]
    pub async fn create_token(&self, token: NewToken<'_>, actor: &Actor) -> Result<TokenInfo, StoreError> {
        let NewToken {
            id,
            org_id,
            name,
            scopes,
            expires_at,
            ..
        } = token;
        let mut tx = self.pool.begin().await?;
        let token = insert_token(&mut tx, token).await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "token.issue",
            &format!("token:{id}"),
            serde_json::json!({ "name": name, "owner": token.owner, "scopes": scopes, "expires_at": expires_at }),
        )
        .await?;
        tx.commit().await?;
        Ok(token)
    }

    /// How many unrevoked, unexpired tokens a user holds.
    #[instrument(skip_all)]
    pub async fn active_token_count(&self, user_id: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT count(*) FROM api_tokens WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()",
        )
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Resolves a presented token's `jti` to its owner, organisation and status.
    #[instrument(skip_all)]
    pub async fn token_principal(&self, token_id: Uuid) -> Result<TokenPrincipal, StoreError> {
        sqlx::query_as::<_, TokenPrincipal>(
            "SELECT t.id AS token_id, u.id AS user_id, u.handle, u.role, u.disabled, o.id AS org_id, \
                    o.slug AS org_slug, t.scopes, t.expires_at, t.revoked_at \
             FROM api_tokens t JOIN users u ON u.id = t.user_id JOIN organizations o ON o.id = t.org_id \
             WHERE t.id = $1",
        )
        .bind(token_id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("token {token_id}")))
    }

    /// Notes that a token was used. Callers throttle this (it is not per request).
    #[instrument(skip_all)]
    pub async fn touch_token(&self, token_id: Uuid) -> Result<(), StoreError> {
        sqlx::query("UPDATE api_tokens SET last_used_at = now() WHERE id = $1")
            .bind(token_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Revokes a token of organisation `org_id` (and, when `owner` is given, of that
    /// user only); it stops working at once on every registry process. Revoking twice
    /// changes nothing and writes nothing.
    #[instrument(skip_all)]
    pub async fn revoke_token(
        &self,
        org_id: i64,
        owner: Option<i64>,
        token_id: Uuid,
        actor: &Actor,
    ) -> Result<TokenInfo, StoreError> {
        let mut tx = self.pool.begin().await?;
        let revoked: Option<(bool, String)> = sqlx::query_as(
            "SELECT t.revoked_at IS NOT NULL, u.handle FROM api_tokens t JOIN users u ON u.id = t.user_id \
             WHERE t.id = $1 AND t.org_id = $2 AND ($3::bigint IS NULL OR t.user_id = $3) FOR UPDATE OF t",
        )
        .bind(token_id)
        .bind(org_id)
        .bind(owner)
        .fetch_optional(&mut *tx)
        .await?;
        match revoked {
            None => return Err(StoreError::NotFound(format!("token {token_id}"))),
            Some((true, _)) => {}
            Some((false, owner)) => {
                sqlx::query("UPDATE api_tokens SET revoked_at = now() WHERE id = $1")
                    .bind(token_id)
                    .execute(&mut *tx)
                    .await?;
                record_audit(
                    &mut tx,
                    Some(org_id),
                    actor,
                    "token.revoke",
                    &format!("token:{token_id}"),
                    serde_json::json!({ "owner": owner }),
                )
                .await?;
                notify_auth_change(&mut tx, &format!("token:{token_id}")).await?;
            }
        }
        let info = sqlx::query_as::<_, TokenInfo>(sqlx::AssertSqlSafe(format!("{TOKEN_INFO_SELECT} WHERE t.id = $1")))
            .bind(token_id)
            .fetch_one(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(info)
    }

    /// One token of organisation `org_id` (of user `owner`, when given).
    #[instrument(skip_all)]
    pub async fn token(&self, org_id: i64, owner: Option<i64>, token_id: Uuid) -> Result<TokenInfo, StoreError> {
        sqlx::query_as::<_, TokenInfo>(sqlx::AssertSqlSafe(format!(
            "{TOKEN_INFO_SELECT} WHERE t.id = $1 AND t.org_id = $2 AND ($3::bigint IS NULL OR t.user_id = $3)"
        )))
        .bind(token_id)
        .bind(org_id)
        .bind(owner)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("token {token_id}")))
    }

    /// An organisation's tokens, newest first, filtered and paged.
    #[instrument(skip_all)]
    pub async fn list_tokens(&self, org_id: i64, query: &TokenQuery) -> Result<Vec<TokenInfo>, StoreError> {
        let (before_at, before_id) = query.before.unzip();
        Ok(sqlx::query_as::<_, TokenInfo>(sqlx::AssertSqlSafe(format!(
            "{TOKEN_INFO_SELECT} WHERE t.org_id = $1 AND ($2::bigint IS NULL OR t.user_id = $2) \
               AND ($3 OR (t.revoked_at IS NULL AND t.expires_at > now())) \
               AND ($4::timestamptz IS NULL OR (t.created_at, t.id) < ($4, $5)) \
             ORDER BY t.created_at DESC, t.id DESC LIMIT $6"
        )))
        .bind(org_id)
        .bind(query.user_id)
        .bind(query.include_inactive)
        .bind(before_at)
        .bind(before_id)
        .bind(query.limit)
        .fetch_all(&self.pool)
        .await?)
    }
}
