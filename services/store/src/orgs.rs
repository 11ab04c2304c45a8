//! Organisations: creating them, listing them, and whether they serve anonymous readers.

use sqlx::{Postgres, Transaction};
use tracing::instrument;

use crate::audit::record_audit;
use crate::{Actor, Organization, Store, StoreError};

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
}

pub(crate) async fn insert_org(
    tx: &mut Transaction<'_, Postgres>,
    slug: &str,
    name: &str,
) -> Result<Organization, StoreError> {
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
