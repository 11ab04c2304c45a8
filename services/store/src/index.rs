//! The team index: every skill's latest non-yanked version, in full or as a delta since
//! a cursor of the organisation's change log.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use tracing::instrument;

use crate::{FileEntry, IndexEntry, IndexSnapshot, Store, StoreError};

#[derive(sqlx::FromRow)]
struct EntryRow {
    name: String,
    category: Option<String>,
    version_id: Option<i64>,
    revision: Option<i32>,
    digest: Option<String>,
    description: Option<String>,
    updated_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct VersionFileRow {
    version_id: i64,
    path: String,
    sha256: String,
    size: i64,
    executable: bool,
}

/// Manifest rows grouped by version.
fn by_version(files: Vec<VersionFileRow>) -> HashMap<i64, Vec<FileEntry>> {
    let mut grouped: HashMap<i64, Vec<FileEntry>> = HashMap::new();
    for f in files {
        grouped.entry(f.version_id).or_default().push(FileEntry {
            path: f.path,
            sha256: f.sha256,
            size: f.size,
            executable: f.executable,
        });
    }
    grouped
}

impl Store {
    /// The organisation's newest change-log cursor (0 when nothing was ever published).
    #[instrument(skip_all)]
    pub async fn index_cursor(&self, org_id: i64) -> Result<i64, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT coalesce(max(cursor), 0) FROM index_changes WHERE org_id = $1")
                .bind(org_id)
                .fetch_one(&self.pool)
                .await?,
        )
    }

    /// Every organisation that ever published, with its newest change-log cursor: what a
    /// registry process keeps its index cache warm for. One index probe per organisation.
    #[instrument(skip_all)]
    pub async fn index_cursors(&self) -> Result<Vec<(i64, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT id, newest FROM (SELECT o.id, (SELECT max(cursor) FROM index_changes c WHERE c.org_id = o.id) \
             AS newest FROM organizations o) AS cursors WHERE newest IS NOT NULL ORDER BY id",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// The full index (`since = None`) or the changes after `since`. Runs in one
    /// repeatable-read transaction so the cursor and the entries agree.
    ///
    /// A delta lists the current entry of every skill changed after `since`, and in
    /// `removed` the changed skills that no longer have a non-yanked version. A cursor
    /// beyond the organisation's newest simply yields an empty delta.
    #[instrument(skip_all)]
    pub async fn index(&self, org_id: i64, since: Option<i64>) -> Result<IndexSnapshot, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
        let cursor: i64 = sqlx::query_scalar("SELECT coalesce(max(cursor), 0) FROM index_changes WHERE org_id = $1")
            .bind(org_id)
            .fetch_one(&mut *tx)
            .await?;
        let rows = sqlx::query_as::<_, EntryRow>(
            "SELECT s.name, s.category, v.id AS version_id, v.revision, v.digest, v.description, \
                    s.updated_at \
             FROM skills s \
             LEFT JOIN LATERAL (SELECT id, revision, digest, description FROM versions v \
                                WHERE v.skill_id = s.id AND NOT v.yanked ORDER BY revision DESC LIMIT 1) v ON TRUE \
             WHERE s.org_id = $1 \
               AND ($2::bigint IS NULL OR s.id IN (SELECT skill_id FROM index_changes WHERE org_id = $1 AND cursor > $2)) \
             ORDER BY s.name",
        )
        .bind(org_id)
        .bind(since)
        .fetch_all(&mut *tx)
        .await?;
        let version_ids: Vec<i64> = rows.iter().filter_map(|r| r.version_id).collect();
        let files = sqlx::query_as::<_, VersionFileRow>(
            "SELECT version_id, path, sha256, size, executable FROM version_files \
             WHERE version_id = ANY($1) ORDER BY version_id, path",
        )
        .bind(&version_ids)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;

        let mut files_by_version = by_version(files);
        let mut skills = Vec::with_capacity(rows.len());
        let mut removed = Vec::new();
        for row in rows {
            match (row.version_id, row.revision, row.digest, row.description) {
                (Some(version_id), Some(revision), Some(digest), Some(description)) => skills.push(IndexEntry {
                    name: row.name,
                    category: row.category,
                    description,
                    revision,
                    digest,
                    updated_at: row.updated_at,
                    files: files_by_version.remove(&version_id).unwrap_or_default(),
                }),
                _ if since.is_some() => removed.push(row.name),
                _ => {}
            }
        }
        Ok(IndexSnapshot {
            cursor,
            skills,
            removed,
        })
    }
}

/// One row of an organisation's change log with the skill's index entry as read.
#[derive(Clone, Debug)]
pub struct IndexChangeRecord {
    /// The change's cursor.
    pub cursor: i64,
    /// `published`, `yanked`, `unyanked` or `recategorized`.
    pub kind: String,
    /// The skill.
    pub name: String,
    /// The revision the change concerned, if any.
    pub revision: Option<i32>,
    /// The skill's entry when read; `None` when it has no non-yanked version.
    pub entry: Option<IndexEntry>,
}

#[derive(sqlx::FromRow)]
struct ChangeRow {
    cursor: i64,
    kind: String,
    revision: Option<i32>,
    name: String,
    category: Option<String>,
    version_id: Option<i64>,
    latest_revision: Option<i32>,
    digest: Option<String>,
    description: Option<String>,
    updated_at: DateTime<Utc>,
}

impl Store {
    /// The organisation's changes after cursor `after`, oldest first, at most `limit`,
    /// each with its skill's current entry. Runs in one repeatable-read transaction so
    /// entries and manifests agree.
    #[instrument(skip_all)]
    pub async fn index_changes(
        &self,
        org_id: i64,
        after: i64,
        limit: i64,
    ) -> Result<Vec<IndexChangeRecord>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .execute(&mut *tx)
            .await?;
        let rows = sqlx::query_as::<_, ChangeRow>(
            "SELECT c.cursor, c.kind, c.revision, s.name, s.category, v.id AS version_id, \
                    v.revision AS latest_revision, v.digest, v.description, s.updated_at \
             FROM index_changes c \
             JOIN skills s ON s.id = c.skill_id \
             LEFT JOIN LATERAL (SELECT id, revision, digest, description FROM versions v \
                                WHERE v.skill_id = s.id AND NOT v.yanked ORDER BY revision DESC LIMIT 1) v ON TRUE \
             WHERE c.org_id = $1 AND c.cursor > $2 \
             ORDER BY c.cursor LIMIT $3",
        )
        .bind(org_id)
        .bind(after)
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
        let mut version_ids: Vec<i64> = rows.iter().filter_map(|r| r.version_id).collect();
        version_ids.sort_unstable();
        version_ids.dedup();
        let files = sqlx::query_as::<_, VersionFileRow>(
            "SELECT version_id, path, sha256, size, executable FROM version_files \
             WHERE version_id = ANY($1) ORDER BY version_id, path",
        )
        .bind(&version_ids)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;

        let files_by_version = by_version(files);
        Ok(rows
            .into_iter()
            .map(|row| {
                let entry = match (row.version_id, row.latest_revision, row.digest, row.description) {
                    (Some(version_id), Some(revision), Some(digest), Some(description)) => Some(IndexEntry {
                        name: row.name.clone(),
                        category: row.category,
                        description,
                        revision,
                        digest,
                        updated_at: row.updated_at,
                        files: files_by_version.get(&version_id).cloned().unwrap_or_default(),
                    }),
                    _ => None,
                };
                IndexChangeRecord {
                    cursor: row.cursor,
                    kind: row.kind,
                    name: row.name,
                    revision: row.revision,
                    entry,
                }
            })
            .collect())
    }

    /// How many of the organisation's changes come after cursor `after`, counting at most
    /// to `cap` (so a far-behind cursor costs no more than `cap` index rows).
    #[instrument(skip_all)]
    pub async fn index_changes_after(&self, org_id: i64, after: i64, cap: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT count(*) FROM (SELECT 1 FROM index_changes WHERE org_id = $1 AND cursor > $2 LIMIT $3) AS later",
        )
        .bind(org_id)
        .bind(after)
        .bind(cap)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Subscribes to index changes committed by any process on this database: each
    /// notification's payload is the organisation's id.
    #[instrument(skip_all)]
    pub async fn index_notifications(&self) -> Result<crate::notify::Notifications, StoreError> {
        crate::notify::Notifications::subscribe(&self.pool, crate::INDEX_CHANNEL).await
    }
}
