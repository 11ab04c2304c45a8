//! Blob garbage collection, and the bookkeeping that makes it safe.
//!
//! Blobs are written before the database commit that references them, so a failed
//! publish, a refused patch or an upload never published leaves blobs behind. The
//! `blobs` table records every blob *before* its bytes are written
//! ([`TrackedBlobStore`]), and every write or reuse refreshes the row's `seen_at`
//! under a row lock ([`Store::touch_blobs`]). [`collect`] deletes the blobs that nothing
//! references (no version file, no version archive, no patch that can still be
//! published, no quarantined import) and that nobody wrote or reused for a grace period. It claims rows with
//! `FOR UPDATE SKIP LOCKED`, so:
//!
//! - a writer reusing a blob the collector holds waits for it, finds the row gone and
//!   writes the bytes again: a version never references a collected blob;
//! - collectors on several replicas split the work instead of contending.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use cairn_skill::digest::Sha256Hash;
use futures::StreamExt;

use crate::blob::{BlobError, BlobStore, UPLOAD_CONCURRENCY};
use crate::{Store, StoreError};

/// The patch statuses whose candidate blobs are no longer needed: such a patch can never
/// be published, and its page shows the stored diff, not the files.
const FINISHED_PATCHES: [&str; 4] = ["rejected", "withdrawn", "superseded", "duplicate"];

/// Team-wide numbers an operator watches (read when metrics are scraped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperationalCounts {
    /// Patches waiting for a reviewer.
    pub patches_pending: i64,
    /// Webhook deliveries still to be made (or retried).
    pub webhook_deliveries_pending: i64,
    /// Blobs the database tracks.
    pub blobs: i64,
    /// Their total size in bytes.
    pub blob_bytes: i64,
}

/// What one collection did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct CollectReport {
    /// Blobs deleted (or, on a dry run, that would be).
    pub deleted: u64,
    /// Their total size in bytes.
    pub bytes: u64,
}

impl Store {
    /// Queue depths and stored blob totals, in one round trip.
    pub async fn operational_counts(&self) -> Result<OperationalCounts, StoreError> {
        let (patches_pending, webhook_deliveries_pending, blobs, blob_bytes): (i64, i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM patches WHERE status = 'pending_review'), \
                    (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'), \
                    count(*), coalesce(sum(size), 0)::bigint FROM blobs",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(OperationalCounts {
            patches_pending,
            webhook_deliveries_pending,
            blobs,
            blob_bytes,
        })
    }

    /// Marks these blobs as in use now and returns the ones whose bytes are stored (the
    /// caller need not write those). Waits for a collector holding one of them; a blob
    /// it collected is not returned, so the caller writes it again.
    pub async fn touch_blobs(&self, sha256s: &[String]) -> Result<Vec<String>, StoreError> {
        // Rows are locked in one order (sha256), so concurrent writers never deadlock.
        Ok(sqlx::query_as(
            "WITH claimed AS ( \
                 SELECT sha256 FROM blobs WHERE sha256 = ANY($1) ORDER BY sha256 FOR NO KEY UPDATE) \
             UPDATE blobs b SET seen_at = now() FROM claimed \
             WHERE b.sha256 = claimed.sha256 RETURNING b.sha256, b.stored",
        )
        .bind(sha256s)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .filter_map(|(sha256, stored): (String, bool)| stored.then_some(sha256))
        .collect())
    }

    /// Records blobs about to be written (refreshing those already recorded), before
    /// their bytes go to the blob store.
    async fn record_blob_writes(&self, blobs: &[(String, i64)]) -> Result<(), StoreError> {
        let (sha256s, sizes): (Vec<&str>, Vec<i64>) = blobs.iter().map(|(s, n)| (s.as_str(), *n)).unzip();
        sqlx::query(
            "INSERT INTO blobs (sha256, size, stored) \
             SELECT sha256, size, false FROM UNNEST($1::text[], $2::bigint[]) AS w(sha256, size) ORDER BY sha256 \
             ON CONFLICT (sha256) DO UPDATE SET seen_at = now()",
        )
        .bind(&sha256s)
        .bind(&sizes)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Marks recorded blobs as written.
    async fn mark_blobs_stored(&self, sha256s: &[String]) -> Result<(), StoreError> {
        sqlx::query("UPDATE blobs SET stored = true WHERE sha256 = ANY($1) AND NOT stored")
            .bind(sha256s)
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// A blob store that records every write in the database first (see the module
/// documentation), so garbage collection can find blobs no commit ever referenced.
pub struct TrackedBlobStore {
    store: Store,
    inner: Arc<dyn BlobStore>,
    on_written: Option<Arc<dyn Fn(u64) + Send + Sync>>,
}

impl std::fmt::Debug for TrackedBlobStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrackedBlobStore")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl TrackedBlobStore {
    /// Wraps `inner`; `on_written` is told the size of every batch written (metrics).
    pub fn new(store: Store, inner: Arc<dyn BlobStore>, on_written: Option<Arc<dyn Fn(u64) + Send + Sync>>) -> Self {
        TrackedBlobStore {
            store,
            inner,
            on_written,
        }
    }
}

fn database_failure(operation: &'static str, error: &StoreError) -> BlobError {
    let message = format!("recording a blob write in the database failed (nothing was written): {error}");
    if error.is_unavailable() {
        BlobError::Unavailable {
            operation,
            key: String::new(),
            message,
        }
    } else {
        BlobError::S3 {
            operation,
            key: String::new(),
            message,
        }
    }
}

#[async_trait]
impl BlobStore for TrackedBlobStore {
    async fn put(&self, id: &Sha256Hash, bytes: Bytes) -> Result<(), BlobError> {
        self.put_many(vec![(*id, bytes)]).await
    }

    async fn put_many(&self, mut blobs: Vec<(Sha256Hash, Bytes)>) -> Result<(), BlobError> {
        // One row per blob: the same id twice in one upsert would be refused.
        blobs.sort_by_key(|(id, _)| *id);
        blobs.dedup_by_key(|(id, _)| *id);
        if blobs.is_empty() {
            return Ok(());
        }
        let records: Vec<(String, i64)> = blobs
            .iter()
            .map(|(id, bytes)| (id.to_hex(), i64::try_from(bytes.len()).unwrap_or(i64::MAX)))
            .collect();
        self.store
            .record_blob_writes(&records)
            .await
            .map_err(|e| database_failure("record", &e))?;
        let written: u64 = blobs.iter().map(|(_, bytes)| bytes.len() as u64).sum();
        self.inner.put_many(blobs).await?;
        let ids: Vec<String> = records.into_iter().map(|(id, _)| id).collect();
        self.store
            .mark_blobs_stored(&ids)
            .await
            .map_err(|e| database_failure("record", &e))?;
        if let Some(on_written) = &self.on_written {
            on_written(written);
        }
        Ok(())
    }

    async fn get(&self, id: &Sha256Hash) -> Result<Option<Bytes>, BlobError> {
        self.inner.get(id).await
    }

    async fn contains(&self, id: &Sha256Hash) -> Result<bool, BlobError> {
        self.inner.contains(id).await
    }

    async fn delete(&self, id: &Sha256Hash) -> Result<(), BlobError> {
        self.inner.delete(id).await
    }

    async fn check(&self) -> Result<(), BlobError> {
        self.inner.check().await
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }
}

/// Why a collection stopped.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Deleting from the blob store failed (what was deleted before is recorded).
    #[error(transparent)]
    Blob(#[from] BlobError),
}

/// How a collection runs.
#[derive(Clone, Copy, Debug)]
pub struct CollectSettings {
    /// Blobs written or reused more recently than this are kept, referenced or not.
    pub grace: Duration,
    /// Rows claimed per transaction.
    pub batch: i64,
    /// Only count what would be deleted.
    pub dry_run: bool,
}

/// The condition a collectable row meets: old enough and referenced by nothing
/// (`$1` the grace period in seconds, `$2` the finished patch statuses).
const COLLECTABLE: &str = "b.seen_at < now() - make_interval(secs => $1) \
    AND NOT EXISTS (SELECT 1 FROM version_files f WHERE f.sha256 = b.sha256) \
    AND NOT EXISTS (SELECT 1 FROM versions v WHERE v.archive_sha256 = b.sha256) \
    AND NOT EXISTS (SELECT 1 FROM patches p \
        WHERE p.candidate @> jsonb_build_array(jsonb_build_object('sha256', b.sha256)) \
          AND p.status <> ALL($2)) \
    AND NOT EXISTS (SELECT 1 FROM patch_rounds r JOIN patches p ON p.id = r.patch_id \
        WHERE r.candidate @> jsonb_build_array(jsonb_build_object('sha256', b.sha256)) \
          AND p.status <> ALL($2)) \
    AND NOT EXISTS (SELECT 1 FROM quarantined_skills q \
        WHERE q.manifest @> jsonb_build_array(jsonb_build_object('sha256', b.sha256)))";

/// Deletes unreferenced blobs older than the grace period, batch by batch, until none
/// is left (see the module documentation). Each batch takes two transactions:
///
/// 1. claim collectable rows (`FOR UPDATE SKIP LOCKED`) and mark them `stored = false`,
///    so from then on a writer reusing one writes its bytes again;
/// 2. claim them again — only those still collectable and unchanged — delete their
///    bytes, then delete the rows of the blobs actually deleted.
///
/// A failure anywhere (the blob store, the database) leaves rows marked not stored, never
/// a row that claims bytes which are gone.
pub async fn collect(
    store: &Store,
    blobs: &dyn BlobStore,
    settings: CollectSettings,
) -> Result<CollectReport, CollectError> {
    let mut report = CollectReport::default();
    let mut after = String::new();
    let grace = settings.grace.as_secs_f64();
    loop {
        let mut tx = store.pool.begin().await.map_err(StoreError::from)?;
        let lock = if settings.dry_run {
            ""
        } else {
            "FOR UPDATE OF b SKIP LOCKED"
        };
        let batch: Vec<(String, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT b.sha256, b.size FROM blobs b WHERE {COLLECTABLE} AND b.sha256 > $3 \
             ORDER BY b.sha256 LIMIT $4 {lock}"
        )))
        .bind(grace)
        .bind(&FINISHED_PATCHES[..])
        .bind(&after)
        .bind(settings.batch)
        .fetch_all(&mut *tx)
        .await
        .map_err(StoreError::from)?;
        let Some((last, _)) = batch.last() else {
            return Ok(report);
        };
        after = last.clone();
        if settings.dry_run {
            report.deleted += batch.len() as u64;
            report.bytes += batch
                .iter()
                .map(|(_, size)| u64::try_from(*size).unwrap_or(0))
                .sum::<u64>();
            continue;
        }
        let ids: Vec<String> = batch.into_iter().map(|(sha256, _)| sha256).collect();
        sqlx::query("UPDATE blobs SET stored = false WHERE sha256 = ANY($1)")
            .bind(&ids)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::from)?;
        tx.commit().await.map_err(StoreError::from)?;

        // Phase 2: a writer that reused a blob meanwhile refreshed `seen_at` (and wrote
        // its bytes): such rows no longer qualify and are left alone.
        let mut tx = store.pool.begin().await.map_err(StoreError::from)?;
        let claimed: Vec<(String, i64)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT b.sha256, b.size FROM blobs b WHERE {COLLECTABLE} AND b.sha256 = ANY($3) AND NOT b.stored \
             FOR UPDATE OF b SKIP LOCKED"
        )))
        .bind(grace)
        .bind(&FINISHED_PATCHES[..])
        .bind(&ids)
        .fetch_all(&mut *tx)
        .await
        .map_err(StoreError::from)?;
        let outcomes: Vec<(String, i64, Result<(), BlobError>)> = futures::stream::iter(claimed)
            .map(|(sha256, size)| async move {
                let result = match Sha256Hash::parse_hex(&sha256) {
                    Ok(id) => blobs.delete(&id).await,
                    Err(_) => Ok(()),
                };
                (sha256, size, result)
            })
            .buffer_unordered(UPLOAD_CONCURRENCY)
            .collect()
            .await;
        let mut deleted = Vec::new();
        let mut failure = None;
        for (sha256, size, result) in outcomes {
            match result {
                Ok(()) => {
                    report.deleted += 1;
                    report.bytes += u64::try_from(size).unwrap_or(0);
                    deleted.push(sha256);
                }
                Err(e) => failure = Some(e),
            }
        }
        sqlx::query("DELETE FROM blobs WHERE sha256 = ANY($1)")
            .bind(&deleted)
            .execute(&mut *tx)
            .await
            .map_err(StoreError::from)?;
        tx.commit().await.map_err(StoreError::from)?;
        if let Some(error) = failure {
            return Err(error.into());
        }
    }
}

/// Marks every recorded blob not in `present` as not stored: after a restore, rows whose
/// bytes were not brought back make writers upload them again instead of trusting them.
pub async fn mark_missing(store: &Store, present: &[String]) -> Result<u64, StoreError> {
    Ok(
        sqlx::query("UPDATE blobs SET stored = false WHERE stored AND sha256 <> ALL($1)")
            .bind(present)
            .execute(&store.pool)
            .await?
            .rows_affected(),
    )
}

/// The ids of every blob the database references (`$1`: the finished patch statuses):
/// version files, version archives, the candidates of patches that can still be
/// published and of their earlier rounds (the review shows what changed between them),
/// and quarantined imports.
const REFERENCED: &str = "SELECT sha256 FROM version_files \
    UNION SELECT archive_sha256 FROM versions WHERE archive_sha256 IS NOT NULL \
    UNION SELECT e->>'sha256' FROM patches p, jsonb_array_elements(p.candidate) e \
          WHERE jsonb_typeof(p.candidate) = 'array' AND p.status <> ALL($1) \
    UNION SELECT e->>'sha256' FROM patch_rounds r JOIN patches p ON p.id = r.patch_id, \
          jsonb_array_elements(r.candidate) e WHERE jsonb_typeof(r.candidate) = 'array' AND p.status <> ALL($1) \
    UNION SELECT e->>'sha256' FROM quarantined_skills q, jsonb_array_elements(q.manifest) e";

/// Every blob the database references (what a backup must hold and a restore must bring
/// back).
pub async fn referenced_blobs(store: &Store) -> Result<Vec<String>, StoreError> {
    blob_ids(store, &format!("{REFERENCED} ORDER BY 1")).await
}

/// Every blob the database records as stored but nothing references (an upload not yet
/// published, a rejected patch's candidate, a blob waiting for collection): a backup
/// copies them too, so the restored rows tell the truth.
pub async fn unreferenced_stored_blobs(store: &Store) -> Result<Vec<String>, StoreError> {
    blob_ids(
        store,
        &format!("SELECT sha256 FROM blobs WHERE stored EXCEPT ({REFERENCED}) ORDER BY 1"),
    )
    .await
}

async fn blob_ids(store: &Store, query: &str) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(query.to_owned()))
        .bind(&FINISHED_PATCHES[..])
        .fetch_all(&store.pool)
        .await?)
}

/// Every stored blob id the database tracks, for tests and consistency checks.
pub async fn tracked_blobs(store: &Store) -> Result<Vec<String>, StoreError> {
    Ok(sqlx::query_scalar("SELECT sha256 FROM blobs ORDER BY sha256")
        .fetch_all(&store.pool)
        .await?)
}
