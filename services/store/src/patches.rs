//! Patches: proposed changes to skills with what the pipeline found, their review
//! decisions, and the atomic approve-and-publish.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;

use crate::orgs::record_audit;
use crate::skills::{NewVersion, lock_org_index, publish_in, yank_all_in};
use crate::webhooks::enqueue;
use crate::{Actor, PublishOutcome, Store, StoreError};

/// A patch's state (DESIGN §4).
pub const PATCH_STATUSES: [&str; 7] = [
    "pending_review",
    "approved",
    "rejected",
    "blocked",
    "conflict",
    "withdrawn",
    "superseded",
];

/// A patch about to be stored, after the pipeline's stages ran.
#[derive(Clone, Debug)]
pub struct NewPatch<'a> {
    /// Its id.
    pub id: Uuid,
    /// The organisation.
    pub org_id: i64,
    /// The skill it changes (or creates).
    pub skill_name: &'a str,
    /// The revision it was made against (`None`: a new skill).
    pub base_revision: Option<i32>,
    /// Its state after the stages.
    pub status: &'a str,
    /// Who submitted it.
    pub author_id: i64,
    /// The agent that wrote it (`{name, model, session}`).
    pub agent: serde_json::Value,
    /// One line.
    pub summary: &'a str,
    /// Why.
    pub rationale: &'a str,
    /// For a new skill: its category.
    pub category: Option<&'a str>,
    /// The ops as sent.
    pub ops: serde_json::Value,
    /// The stages' reports.
    pub report: serde_json::Value,
    /// The latest revision's digest the candidate was built on.
    pub onto_digest: Option<&'a str>,
    /// The candidate's manifest.
    pub candidate: Option<serde_json::Value>,
    /// The candidate's digest.
    pub candidate_digest: Option<&'a str>,
}

/// A stored patch.
#[derive(Clone, Debug, PartialEq)]
pub struct PatchRecord {
    /// Its id.
    pub id: Uuid,
    /// The skill.
    pub skill_name: String,
    /// The revision it was made against.
    pub base_revision: Option<i32>,
    /// Its state.
    pub status: String,
    /// Who submitted it (user id).
    pub author_id: i64,
    /// Their handle.
    pub author: String,
    /// The agent.
    pub agent: serde_json::Value,
    /// One line.
    pub summary: String,
    /// Why.
    pub rationale: String,
    /// For a new skill: its category.
    pub category: Option<String>,
    /// The ops as sent.
    pub ops: serde_json::Value,
    /// The stages' reports.
    pub report: serde_json::Value,
    /// The latest revision's digest the candidate was built on.
    pub onto_digest: Option<String>,
    /// The candidate's manifest.
    pub candidate: Option<serde_json::Value>,
    /// The candidate's digest.
    pub candidate_digest: Option<String>,
    /// The revision approval published.
    pub result_revision: Option<i32>,
    /// Who decided (handle).
    pub decided_by: Option<String>,
    /// When.
    pub decided_at: Option<DateTime<Utc>>,
    /// The reviewer's comment.
    pub comment: Option<String>,
    /// Submitted at.
    pub created_at: DateTime<Utc>,
    /// Last changed at.
    pub updated_at: DateTime<Utc>,
}

/// A patch row as read (sqlx types stay in this module).
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
struct PatchRow {
    id: Uuid,
    skill_name: String,
    base_revision: Option<i32>,
    status: String,
    author_id: i64,
    author: String,
    agent: Json<serde_json::Value>,
    summary: String,
    rationale: String,
    category: Option<String>,
    ops: Json<serde_json::Value>,
    report: Json<serde_json::Value>,
    onto_digest: Option<String>,
    candidate: Option<Json<serde_json::Value>>,
    candidate_digest: Option<String>,
    result_revision: Option<i32>,
    decided_by: Option<String>,
    decided_at: Option<DateTime<Utc>>,
    comment: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<PatchRow> for PatchRecord {
    fn from(r: PatchRow) -> PatchRecord {
        PatchRecord {
            id: r.id,
            skill_name: r.skill_name,
            base_revision: r.base_revision,
            status: r.status,
            author_id: r.author_id,
            author: r.author,
            agent: r.agent.0,
            summary: r.summary,
            rationale: r.rationale,
            category: r.category,
            ops: r.ops.0,
            report: r.report.0,
            onto_digest: r.onto_digest,
            candidate: r.candidate.map(|c| c.0),
            candidate_digest: r.candidate_digest,
            result_revision: r.result_revision,
            decided_by: r.decided_by,
            decided_at: r.decided_at,
            comment: r.comment,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// Filters and paging for [`Store::list_patches`].
#[derive(Clone, Debug, Default)]
pub struct PatchQuery {
    /// Only patches in one of these states (empty: any state).
    pub statuses: Vec<String>,
    /// Only patches of this skill.
    pub skill: Option<String>,
    /// Only patches by this author (a user handle).
    pub author: Option<String>,
    /// Only patches whose scan gave this verdict (`safe`, `caution`, `dangerous`).
    pub verdict: Option<String>,
    /// Keyset paging: patches submitted before this one (newest first).
    pub before: Option<(DateTime<Utc>, Uuid)>,
    /// Page size.
    pub limit: i64,
}

/// Who decides a patch, and what they say.
#[derive(Clone, Copy, Debug, Default)]
pub struct Decision<'a> {
    /// The deciding user (`None`: the organisation's policy).
    pub by: Option<i64>,
    /// Their comment.
    pub comment: Option<&'a str>,
}

/// What approving a patch writes.
#[derive(Clone, Copy, Debug)]
pub enum Approval<'a> {
    /// Publish its candidate as the next revision.
    Publish(&'a NewVersion<'a>),
    /// Delete the skill: every version is yanked (readable by number, gone from `latest`
    /// and the index; an unyank brings one back).
    Delete(&'a cairn_skill::SkillName),
}

/// What an approval did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApproveOutcome {
    /// Published as this revision (`None`: the skill was deleted).
    Published {
        /// The new revision.
        revision: Option<i32>,
    },
    /// The latest revision moved since the candidate was built: rebuild it and retry.
    Moved,
    /// The patch is no longer pending (someone decided first).
    NotPending {
        /// Its state now.
        status: String,
    },
}

const SELECT: &str = "SELECT p.id, p.skill_name, p.base_revision, p.status, p.author_id, a.handle AS author, \
     p.agent, p.summary, p.rationale, p.category, p.ops, p.report, p.onto_digest, p.candidate, \
     p.candidate_digest, p.result_revision, d.handle AS decided_by, p.decided_at, p.comment, \
     p.created_at, p.updated_at \
     FROM patches p JOIN users a ON a.id = p.author_id LEFT JOIN users d ON d.id = p.decided_by";

/// The columns of a patch listing: the report's `scan` only, no ops and no candidate
/// manifest, so a page of patches does not carry every patch's diff (a large edit's report
/// is hundreds of kilobytes).
const LIST_SELECT: &str = "SELECT p.id, p.skill_name, p.base_revision, p.status, p.author_id, a.handle AS author, \
     p.agent, p.summary, p.rationale, p.category, 'null'::jsonb AS ops, \
     jsonb_build_object('scan', p.report -> 'scan') AS report, p.onto_digest, NULL::jsonb AS candidate, \
     p.candidate_digest, p.result_revision, d.handle AS decided_by, p.decided_at, p.comment, \
     p.created_at, p.updated_at \
     FROM patches p JOIN users a ON a.id = p.author_id LEFT JOIN users d ON d.id = p.decided_by";

impl Store {
    /// Stores a patch and its audit row.
    #[instrument(skip_all, fields(patch = %patch.id))]
    pub async fn insert_patch(&self, patch: &NewPatch<'_>, actor: &Actor) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO patches (id, org_id, skill_name, base_revision, status, author_id, agent, summary, \
             rationale, category, ops, report, onto_digest, candidate, candidate_digest) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(patch.id)
        .bind(patch.org_id)
        .bind(patch.skill_name)
        .bind(patch.base_revision)
        .bind(patch.status)
        .bind(patch.author_id)
        .bind(Json(&patch.agent))
        .bind(patch.summary)
        .bind(patch.rationale)
        .bind(patch.category)
        .bind(Json(&patch.ops))
        .bind(Json(&patch.report))
        .bind(patch.onto_digest)
        .bind(patch.candidate.as_ref().map(Json))
        .bind(patch.candidate_digest)
        .execute(&mut *tx)
        .await?;
        let event = if patch.status == "blocked" {
            "patch.blocked"
        } else {
            "patch.submitted"
        };
        let data = serde_json::json!({ "patch": patch.id, "skill": patch.skill_name, "status": patch.status });
        enqueue(&mut tx, patch.org_id, event, data).await?;
        record_audit(
            &mut tx,
            Some(patch.org_id),
            actor,
            "patch.submit",
            &format!("patch:{}", patch.id),
            serde_json::json!({ "skill": patch.skill_name, "status": patch.status }),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// One patch of the organisation.
    pub async fn patch(&self, org_id: i64, id: Uuid) -> Result<PatchRecord, StoreError> {
        sqlx::query_as::<_, PatchRow>(sqlx::AssertSqlSafe(format!(
            "{SELECT} WHERE p.org_id = $1 AND p.id = $2"
        )))
        .bind(org_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .map(PatchRecord::from)
        .ok_or_else(|| StoreError::NotFound(format!("patch {id}")))
    }

    /// The organisation's patches, newest first, filtered and paged. Listed records carry
    /// only the scan of their report (`report.scan`); their `ops` are `null` and they have
    /// no candidate manifest: read one patch for those.
    pub async fn list_patches(&self, org_id: i64, query: &PatchQuery) -> Result<Vec<PatchRecord>, StoreError> {
        let (before_at, before_id) = query.before.unzip();
        let rows: Vec<PatchRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{LIST_SELECT} WHERE p.org_id = $1 AND (cardinality($2::text[]) = 0 OR p.status = ANY($2)) \
             AND ($3::text IS NULL OR p.skill_name = $3) \
             AND ($4::timestamptz IS NULL OR (p.created_at, p.id) < ($4, $5)) \
             AND ($7::text IS NULL OR a.handle = $7) \
             AND ($8::text IS NULL OR p.report -> 'scan' ->> 'verdict' = $8) \
             ORDER BY p.created_at DESC, p.id DESC LIMIT $6"
        )))
        .bind(org_id)
        .bind(&query.statuses)
        .bind(&query.skill)
        .bind(before_at)
        .bind(before_id)
        .bind(query.limit)
        .bind(&query.author)
        .bind(&query.verdict)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(PatchRecord::from).collect())
    }

    /// How many of the organisation's patches are in each state (states without patches
    /// are left out).
    #[instrument(skip_all)]
    pub async fn patch_counts(&self, org_id: i64) -> Result<Vec<(String, i64)>, StoreError> {
        Ok(
            sqlx::query_as("SELECT status, count(*) FROM patches WHERE org_id = $1 GROUP BY status ORDER BY status")
                .bind(org_id)
                .fetch_all(&self.pool)
                .await?,
        )
    }

    /// Moves a patch from one of `from` to `to` (reject, withdraw, conflict, blocked),
    /// with the decider and comment; `None` when it was not in one of `from`.
    pub async fn close_patch(
        &self,
        org_id: i64,
        id: Uuid,
        from: &[&str],
        to: &str,
        decision: Decision<'_>,
        actor: &Actor,
    ) -> Result<Option<PatchRecord>, StoreError> {
        let Decision {
            by: decided_by,
            comment,
        } = decision;
        let mut tx = self.pool.begin().await?;
        let from: Vec<String> = from.iter().map(|s| (*s).to_owned()).collect();
        let changed = sqlx::query(
            "UPDATE patches SET status = $4, decided_by = $5, decided_at = now(), comment = $6, updated_at = now() \
             WHERE org_id = $1 AND id = $2 AND status = ANY($3)",
        )
        .bind(org_id)
        .bind(id)
        .bind(&from)
        .bind(to)
        .bind(decided_by)
        .bind(comment)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed == 0 {
            return Ok(None);
        }
        if to == "rejected" || to == "blocked" {
            let data = serde_json::json!({ "patch": id, "status": to, "comment": comment });
            enqueue(&mut tx, org_id, &format!("patch.{to}"), data).await?;
        }
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            &format!("patch.{}", verb(to)),
            &format!("patch:{id}"),
            serde_json::json!({ "comment": comment }),
        )
        .await?;
        tx.commit().await?;
        Ok(Some(self.patch(org_id, id).await?))
    }

    /// Replaces a pending patch's reports and candidate after the stages ran again onto a
    /// newer latest revision, if they are still the ones built on `from_onto`; `false`
    /// when it is no longer pending or another restage got there first.
    #[allow(clippy::too_many_arguments)]
    pub async fn restage_patch(
        &self,
        org_id: i64,
        id: Uuid,
        status: &str,
        report: &serde_json::Value,
        onto_digest: Option<&str>,
        candidate: Option<&serde_json::Value>,
        candidate_digest: Option<&str>,
        from_onto: Option<&str>,
    ) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        // Compare-and-swap on the revision the reports were built on: a slower restage
        // never overwrites a newer one.
        let changed = sqlx::query(
            "UPDATE patches SET status = $3, report = $4, onto_digest = $5, candidate = $6, candidate_digest = $7, \
             updated_at = now() WHERE org_id = $1 AND id = $2 AND status = 'pending_review' \
             AND onto_digest IS NOT DISTINCT FROM $8",
        )
        .bind(org_id)
        .bind(id)
        .bind(status)
        .bind(Json(report))
        .bind(onto_digest)
        .bind(candidate.map(Json))
        .bind(candidate_digest)
        .bind(from_onto)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed == 1 && status == "blocked" {
            enqueue(
                &mut tx,
                org_id,
                "patch.blocked",
                serde_json::json!({ "patch": id, "status": status }),
            )
            .await?;
        }
        tx.commit().await?;
        Ok(changed == 1)
    }

    /// Approves a pending patch and publishes its candidate in one transaction: the
    /// version, its index change and audit rows, and the patch's new state commit
    /// together. If the skill's latest revision is no longer `onto_digest`, nothing is
    /// written ([`ApproveOutcome::Moved`]): the caller rebuilds the candidate and retries.
    #[instrument(skip_all, fields(patch = %id))]
    pub async fn approve_patch(
        &self,
        org_id: i64,
        id: Uuid,
        onto_digest: Option<&str>,
        approval: Approval<'_>,
        decision: Decision<'_>,
        actor: &Actor,
    ) -> Result<ApproveOutcome, StoreError> {
        let Decision {
            by: reviewer_id,
            comment,
        } = decision;
        let mut tx = self.pool.begin().await?;
        lock_org_index(&mut tx, org_id).await?;
        let status: Option<String> =
            sqlx::query_scalar("SELECT status FROM patches WHERE org_id = $1 AND id = $2 FOR UPDATE")
                .bind(org_id)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some(status) = status else {
            return Err(StoreError::NotFound(format!("patch {id}")));
        };
        if status != "pending_review" {
            return Ok(ApproveOutcome::NotPending { status });
        }
        let latest: Option<String> = sqlx::query_scalar(
            "SELECT v.digest FROM skills s JOIN versions v ON v.skill_id = s.id \
             WHERE s.org_id = $1 AND s.name = $2 AND NOT v.yanked ORDER BY v.revision DESC LIMIT 1",
        )
        .bind(org_id)
        .bind(match approval {
            Approval::Publish(version) => version.name.as_str(),
            Approval::Delete(name) => name.as_str(),
        })
        .fetch_optional(&mut *tx)
        .await?;
        if latest.as_deref() != onto_digest {
            return Ok(ApproveOutcome::Moved);
        }
        let (skill, revision) = match approval {
            Approval::Publish(version) => match publish_in(&mut tx, org_id, version, actor).await? {
                PublishOutcome::Created { revision, .. } | PublishOutcome::Unchanged { revision, .. } => {
                    (version.name.as_str(), Some(revision))
                }
            },
            Approval::Delete(name) => {
                yank_all_in(&mut tx, org_id, name, actor).await?;
                (name.as_str(), None)
            }
        };
        sqlx::query(
            "UPDATE patches SET status = 'approved', result_revision = $3, decided_by = $4, decided_at = now(), \
             comment = $5, updated_at = now() WHERE org_id = $1 AND id = $2",
        )
        .bind(org_id)
        .bind(id)
        .bind(revision)
        .bind(reviewer_id)
        .bind(comment)
        .execute(&mut *tx)
        .await?;
        let data =
            serde_json::json!({ "patch": id, "skill": skill, "revision": revision, "deleted": revision.is_none() });
        enqueue(&mut tx, org_id, "patch.approved", data).await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "patch.approve",
            &format!("patch:{id}"),
            serde_json::json!({ "skill": skill, "revision": revision }),
        )
        .await?;
        tx.commit().await?;
        Ok(ApproveOutcome::Published { revision })
    }
}

fn verb(status: &str) -> &str {
    match status {
        "rejected" => "reject",
        "withdrawn" => "withdraw",
        "blocked" => "block",
        "conflict" => "conflict",
        other => other,
    }
}

impl Store {
    /// The organisation's patch policy as stored (`{}`: the defaults).
    pub async fn patch_policy(&self, org_id: i64) -> Result<serde_json::Value, StoreError> {
        let policy: Json<serde_json::Value> =
            sqlx::query_scalar("SELECT patch_policy FROM organizations WHERE id = $1")
                .bind(org_id)
                .fetch_optional(&self.pool)
                .await?
                .ok_or_else(|| StoreError::NotFound(format!("organisation {org_id}")))?;
        Ok(policy.0)
    }

    /// Replaces the organisation's patch policy, with an audit row.
    pub async fn set_patch_policy(
        &self,
        org_id: i64,
        policy: &serde_json::Value,
        actor: &Actor,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("UPDATE organizations SET patch_policy = $2 WHERE id = $1")
            .bind(org_id)
            .bind(Json(policy))
            .execute(&mut *tx)
            .await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "policy.update",
            "patch-policy",
            policy.clone(),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }
}
