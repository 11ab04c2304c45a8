//! Rounds of a patch: its author answers the review with a new version of the same patch.
//! The current round lives in the patch's row; each earlier one is kept as it was when
//! the next replaced it, so the review keeps its history.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;

use crate::audit::record_audit;
use crate::patches::{NewPatch, OPEN_PATCH_STATUSES};
use crate::webhooks::enqueue;
use crate::{Actor, Store, StoreError};

/// An earlier round of a patch.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundRecord {
    /// Its number.
    pub round: i32,
    /// The revision it was made against.
    pub base_revision: Option<i32>,
    /// The state it was in when the next round replaced it.
    pub status: String,
    /// Its one line.
    pub summary: String,
    /// Its stages' reports.
    pub report: serde_json::Value,
    /// Its candidate's manifest.
    pub candidate: Option<serde_json::Value>,
    /// Its candidate's digest.
    pub candidate_digest: Option<String>,
    /// When it was sent.
    pub submitted_at: DateTime<Utc>,
}

/// A round as read (sqlx types stay in this module).
#[derive(sqlx::FromRow)]
struct RoundRow {
    round: i32,
    base_revision: Option<i32>,
    status: String,
    summary: String,
    report: Json<serde_json::Value>,
    candidate: Option<Json<serde_json::Value>>,
    candidate_digest: Option<String>,
    submitted_at: DateTime<Utc>,
}

impl From<RoundRow> for RoundRecord {
    fn from(r: RoundRow) -> RoundRecord {
        RoundRecord {
            round: r.round,
            base_revision: r.base_revision,
            status: r.status,
            summary: r.summary,
            report: r.report.0,
            candidate: r.candidate.map(|c| c.0),
            candidate_digest: r.candidate_digest,
            submitted_at: r.submitted_at,
        }
    }
}

impl Store {
    /// Makes `next` (same id, org and skill as the stored patch) the patch's next round,
    /// if the patch is still open and still in round `round` (else a conflict: it was
    /// decided, or another round landed first). The round it replaces is kept; an
    /// outstanding request for changes is answered.
    #[instrument(skip_all, fields(patch = %next.id))]
    pub async fn revise_patch(&self, next: &NewPatch<'_>, round: i32, actor: &Actor) -> Result<i32, StoreError> {
        let mut tx = self.pool.begin().await?;
        let found: Option<(String, i32)> =
            sqlx::query_as("SELECT status, round FROM patches WHERE org_id = $1 AND id = $2 FOR UPDATE")
                .bind(next.org_id)
                .bind(next.id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((status, current)) = found else {
            return Err(StoreError::NotFound(format!("patch {}", next.id)));
        };
        if !OPEN_PATCH_STATUSES.contains(&status.as_str()) {
            return Err(StoreError::Conflict(format!("patch {} is {status}", next.id)));
        }
        if current != round {
            return Err(StoreError::Conflict(format!(
                "patch {} got round {current} meanwhile",
                next.id
            )));
        }
        sqlx::query(
            "INSERT INTO patch_rounds (patch_id, round, base_revision, status, agent, summary, rationale, ops, \
             report, candidate, candidate_digest, submitted_at) \
             SELECT id, round, base_revision, status, agent, summary, rationale, ops, report, candidate, \
             candidate_digest, coalesce(round_at, created_at) FROM patches WHERE id = $1",
        )
        .bind(next.id)
        .execute(&mut *tx)
        .await?;
        // The new round's lesson decides its group: it joins the open patch it now repeats
        // (that patch starts the group when it is the first) or leaves the group it was in.
        let group: Option<Uuid> = match next.duplicate.and_then(|d| d.patch).filter(|of| *of != next.id) {
            Some(of) => crate::patches::join_duplicate_group(&mut tx, next.org_id, of).await?,
            None => None,
        };
        sqlx::query(
            "UPDATE patches SET base_revision = $3, status = $4, agent = $5, summary = $6, rationale = $7, ops = $8, \
             report = $9, onto_digest = $10, onto_revision = $11, candidate = $12, candidate_digest = $13, \
             lesson = $14, duplicate = $15, duplicate_group = $16, round = round + 1, round_at = now(), changes_requested_by = NULL, \
             changes_requested_at = NULL, decided_by = NULL, decided_at = NULL, comment = NULL, resolved_by = NULL, \
             updated_at = now() \
             WHERE org_id = $1 AND id = $2",
        )
        .bind(next.org_id)
        .bind(next.id)
        .bind(next.base_revision)
        .bind(next.status)
        .bind(Json(&next.agent))
        .bind(next.summary)
        .bind(next.rationale)
        .bind(Json(&next.ops))
        .bind(Json(&next.report))
        .bind(next.onto_digest)
        .bind(next.onto_revision)
        .bind(next.candidate.as_ref().map(Json))
        .bind(next.candidate_digest)
        .bind(next.lesson)
        .bind(next.duplicate.map(Json))
        .bind(group)
        .execute(&mut *tx)
        .await?;
        let new_round = round + 1;
        let event = if next.status == "blocked" {
            "patch.blocked"
        } else {
            "patch.revised"
        };
        let data = serde_json::json!({
            "patch": next.id, "skill": next.skill_name, "status": next.status, "round": new_round,
        });
        enqueue(&mut tx, next.org_id, event, data).await?;
        record_audit(
            &mut tx,
            Some(next.org_id),
            actor,
            "patch.revise",
            &format!("patch:{}", next.id),
            serde_json::json!({ "round": new_round, "status": next.status, "base_revision": next.base_revision }),
        )
        .await?;
        tx.commit().await?;
        Ok(new_round)
    }

    /// The earlier rounds of a patch of `org_id`, oldest first.
    #[instrument(skip_all)]
    pub async fn patch_rounds(&self, org_id: i64, patch_id: Uuid) -> Result<Vec<RoundRecord>, StoreError> {
        Ok(sqlx::query_as::<_, RoundRow>(
            "SELECT r.round, r.base_revision, r.status, r.summary, r.report, r.candidate, r.candidate_digest, \
             r.submitted_at FROM patch_rounds r JOIN patches p ON p.id = r.patch_id \
             WHERE p.org_id = $1 AND r.patch_id = $2 ORDER BY r.round",
        )
        .bind(org_id)
        .bind(patch_id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(RoundRecord::from)
        .collect())
    }
}
