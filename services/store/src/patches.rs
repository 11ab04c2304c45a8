//! Patches: proposed changes to skills with what the pipeline found, their review
//! decisions, and the atomic approve-and-publish.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use tracing::instrument;
use uuid::Uuid;

use crate::audit::record_audit;
use crate::skills::{NewVersion, VersionProvenance, lock_org_index, publish_in, yank_all_in};
use crate::webhooks::enqueue;
use crate::{Actor, PublishOutcome, Store, StoreError};

/// A patch's state (docs/API.md, "Patches").
pub const PATCH_STATUSES: [&str; 8] = [
    "pending_review",
    "approved",
    "rejected",
    "blocked",
    "conflict",
    "withdrawn",
    "superseded",
    "duplicate",
];

/// The states in which a patch can still be decided.
pub const OPEN_PATCH_STATUSES: [&str; 3] = ["pending_review", "blocked", "conflict"];

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
    /// That latest revision's number (the digest alone misses a change of file modes).
    pub onto_revision: Option<i32>,
    /// The candidate's manifest.
    pub candidate: Option<serde_json::Value>,
    /// The candidate's digest.
    pub candidate_digest: Option<&'a str>,
    /// The open patch this one carries on (it becomes `superseded`, linked both ways).
    pub supersedes: Option<Uuid>,
    /// The round of `supersedes` this one was made from, when that matters (a reviewer's
    /// resolution): a newer round of it is not superseded unseen.
    pub superseded_round: Option<i32>,
    /// Who resolved a conflict by hand to make this patch.
    pub resolved_by: Option<i64>,
    /// The words the patch adds, for finding duplicates.
    pub lesson: &'a str,
    /// A likely duplicate, as found at submission.
    pub duplicate: Option<&'a DuplicateMark>,
}

/// What a patch likely duplicates: an open patch (grouped with it) or text already in
/// the latest revision.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DuplicateMark {
    /// The open patch it repeats (`None`: it repeats text already published).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Uuid>,
    /// The revision whose text it repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i32>,
    /// The file of the revision's repeated text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its first line (1-based).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The repeated text (the other patch's lesson, or the revision's), shortened.
    pub excerpt: String,
    /// How alike the two are, 0–1.
    pub similarity: f64,
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
    /// That latest revision's number (`None` for patches stored before it was recorded:
    /// their candidate is rebuilt once before it is published).
    pub onto_revision: Option<i32>,
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
    /// The patch this one carries on.
    pub supersedes: Option<Uuid>,
    /// The patch that carries this one on.
    pub superseded_by: Option<Uuid>,
    /// Who resolved a conflict by hand to make this patch (handle).
    pub resolved_by: Option<String>,
    /// A likely duplicate, as found at submission.
    pub duplicate: Option<DuplicateMark>,
    /// The group of patches reporting one lesson (the first one's id).
    pub duplicate_group: Option<Uuid>,
    /// Closed as a duplicate of this patch.
    pub duplicate_of: Option<Uuid>,
    /// Who last requested changes (handle), while the patch waits for its author.
    pub changes_requested_by: Option<String>,
    /// When.
    pub changes_requested_at: Option<DateTime<Utc>>,
    /// Its round: 1 as submitted, one more with each new version its author sends.
    pub round: i32,
    /// When the current round came (`None`: the first round, at `created_at`).
    pub round_at: Option<DateTime<Utc>>,
    /// Lines its diff adds or removes (for a patch in conflict, the diff its author made
    /// against their base): how large a review it is.
    pub changed_lines: i32,
}

impl PatchRecord {
    /// The request for changes still waiting for the author (who asked, and when): one
    /// was made and the patch is still open. Every surface shows it through this.
    pub fn outstanding_request(&self) -> Option<(&str, DateTime<Utc>)> {
        if !OPEN_PATCH_STATUSES.contains(&self.status.as_str()) {
            return None;
        }
        self.changes_requested_by.as_deref().zip(self.changes_requested_at)
    }
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
    onto_revision: Option<i32>,
    candidate: Option<Json<serde_json::Value>>,
    candidate_digest: Option<String>,
    result_revision: Option<i32>,
    decided_by: Option<String>,
    decided_at: Option<DateTime<Utc>>,
    comment: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    supersedes: Option<Uuid>,
    superseded_by: Option<Uuid>,
    resolved_by: Option<String>,
    duplicate: Option<Json<serde_json::Value>>,
    duplicate_group: Option<Uuid>,
    duplicate_of: Option<Uuid>,
    changes_requested_by: Option<String>,
    changes_requested_at: Option<DateTime<Utc>>,
    round: i32,
    round_at: Option<DateTime<Utc>>,
    changed_lines: i32,
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
            onto_revision: r.onto_revision,
            candidate: r.candidate.map(|c| c.0),
            candidate_digest: r.candidate_digest,
            result_revision: r.result_revision,
            decided_by: r.decided_by,
            decided_at: r.decided_at,
            comment: r.comment,
            created_at: r.created_at,
            updated_at: r.updated_at,
            supersedes: r.supersedes,
            superseded_by: r.superseded_by,
            resolved_by: r.resolved_by,
            // A mark written by another version that no longer reads is left out.
            duplicate: r.duplicate.and_then(|d| serde_json::from_value(d.0).ok()),
            duplicate_group: r.duplicate_group,
            duplicate_of: r.duplicate_of,
            changes_requested_by: r.changes_requested_by,
            changes_requested_at: r.changes_requested_at,
            round: r.round,
            round_at: r.round_at,
            changed_lines: r.changed_lines,
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
    /// Only patches whose skill name contains this (any case).
    pub skill_contains: Option<String>,
    /// Only patches whose author's handle contains this (any case).
    pub author_contains: Option<String>,
    /// Only patches whose scan gave this verdict (`safe`, `caution`, `dangerous`).
    pub verdict: Option<String>,
    /// Only patches that ask this user (an id) for review: they own the skill (see
    /// [`crate::OwnerRule`]), did not write the patch, and it does not wait for its
    /// author's answer.
    pub review_requested: Option<i64>,
    /// The order of the list.
    pub order: PatchOrder,
    /// Keyset paging: patches after this one in `order`.
    pub after: Option<PatchKey>,
    /// Page size.
    pub limit: i64,
}

/// The orders a patch list comes in: what a reviewer sorts their queue by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PatchOrder {
    /// Newest first.
    #[default]
    Newest,
    /// Oldest first: whoever has waited longest.
    Oldest,
    /// Most changed lines first (then newest).
    Largest,
    /// Worst scan verdict first (dangerous, caution, safe, not scanned; then newest).
    Riskiest,
}

impl PatchOrder {
    /// The sort key besides submission time (a constant for the time orders), and whether
    /// the list runs backwards (largest key, newest first).
    fn key_and_descending(self) -> (&'static str, bool) {
        match self {
            PatchOrder::Newest => ("0", true),
            PatchOrder::Oldest => ("0", false),
            PatchOrder::Largest => ("p.changed_lines", true),
            PatchOrder::Riskiest => ("p.verdict_rank", true),
        }
    }

    /// A listed patch's position in this order (its keyset cursor).
    pub fn key_of(self, patch: &PatchRecord) -> PatchKey {
        let key = match self {
            PatchOrder::Newest | PatchOrder::Oldest => 0,
            PatchOrder::Largest => patch.changed_lines,
            PatchOrder::Riskiest => match patch.report.pointer("/scan/verdict").and_then(|v| v.as_str()) {
                Some("dangerous") => 3,
                Some("caution") => 2,
                Some("safe") => 1,
                _ => 0,
            },
        };
        PatchKey {
            key,
            created_at: patch.created_at,
            id: patch.id,
        }
    }
}

/// Where a page of a patch list ends, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatchKey {
    /// The order's key (0 for the time orders).
    pub key: i32,
    /// Submission time.
    pub created_at: DateTime<Utc>,
    /// The patch id (ties).
    pub id: Uuid,
}

/// An open patch's lesson (see [`NewPatch::lesson`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenLesson {
    /// The patch.
    pub id: Uuid,
    /// The words it adds.
    pub lesson: String,
    /// Its duplicate group.
    pub group: Option<Uuid>,
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

/// Which of an approved patch's duplicates to close with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CloseDuplicates<'a> {
    /// None.
    #[default]
    None,
    /// Every open patch of its duplicate group.
    All,
    /// Those of these (the ones the reviewer saw) that are open patches of its group; an
    /// empty list closes none.
    These(&'a [Uuid]),
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

/// The latest revision a patch's candidate was built on: approval publishes the candidate
/// only while the skill's latest revision is still this one, by number and digest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Onto<'a> {
    /// Its number (`None` for patches stored before numbers were recorded: never equal to
    /// a latest revision, so their candidate is rebuilt once).
    pub revision: Option<i32>,
    /// Its digest.
    pub digest: &'a str,
}

/// The duplicate group of open patch `of`, which a patch repeating its lesson joins (`of`
/// starts the group when it has none); `None` when `of` is no longer open.
pub(crate) async fn join_duplicate_group(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    org_id: i64,
    of: Uuid,
) -> Result<Option<Uuid>, StoreError> {
    Ok(sqlx::query_scalar(
        "UPDATE patches SET duplicate_group = coalesce(duplicate_group, id) \
         WHERE org_id = $1 AND id = $2 AND status = ANY($3) RETURNING duplicate_group",
    )
    .bind(org_id)
    .bind(of)
    .bind(&OPEN_PATCH_STATUSES[..])
    .fetch_optional(&mut **tx)
    .await?
    .flatten())
}

const SELECT: &str = "SELECT p.id, p.skill_name, p.base_revision, p.status, p.author_id, a.handle AS author, \
     p.agent, p.summary, p.rationale, p.category, p.ops, p.report, p.onto_digest, p.onto_revision, p.candidate, \
     p.candidate_digest, p.result_revision, d.handle AS decided_by, p.decided_at, p.comment, \
     p.created_at, p.updated_at, p.supersedes, p.superseded_by, r.handle AS resolved_by, p.duplicate, \
     p.duplicate_group, p.duplicate_of, q.handle AS changes_requested_by, p.changes_requested_at, p.round, p.round_at, \
     p.changed_lines FROM patches p JOIN users a ON a.id = p.author_id LEFT JOIN users d ON d.id = p.decided_by \
     LEFT JOIN users r ON r.id = p.resolved_by LEFT JOIN users q ON q.id = p.changes_requested_by";

/// The columns of a patch listing: the report's `scan` only, no ops and no candidate
/// manifest, so a page of patches does not carry every patch's diff (a large edit's report
/// is hundreds of kilobytes).
const LIST_SELECT: &str = "SELECT p.id, p.skill_name, p.base_revision, p.status, p.author_id, a.handle AS author, \
     p.agent, p.summary, p.rationale, p.category, 'null'::jsonb AS ops, \
     jsonb_build_object('scan', p.report -> 'scan') AS report, p.onto_digest, p.onto_revision, NULL::jsonb AS candidate, \
     p.candidate_digest, p.result_revision, d.handle AS decided_by, p.decided_at, p.comment, \
     p.created_at, p.updated_at, p.supersedes, p.superseded_by, r.handle AS resolved_by, p.duplicate, \
     p.duplicate_group, p.duplicate_of, q.handle AS changes_requested_by, p.changes_requested_at, p.round, p.round_at, \
     p.changed_lines FROM patches p JOIN users a ON a.id = p.author_id LEFT JOIN users d ON d.id = p.decided_by \
     LEFT JOIN users r ON r.id = p.resolved_by LEFT JOIN users q ON q.id = p.changes_requested_by";

impl Store {
    /// Marks open patch `id`, stored without a mark, as a likely duplicate: a patch
    /// submitted at the same moment as the one it repeats could not see it before both
    /// were stored, and is marked when it finds it afterwards (joining its group). False
    /// when `id` was marked or decided meanwhile.
    #[instrument(skip_all, fields(patch = %id))]
    pub async fn mark_duplicate(&self, org_id: i64, id: Uuid, mark: &DuplicateMark) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let group = match mark.patch {
            Some(of) => join_duplicate_group(&mut tx, org_id, of).await?,
            None => None,
        };
        let marked = sqlx::query(
            "UPDATE patches SET duplicate = $3, duplicate_group = coalesce(duplicate_group, $4) \
             WHERE org_id = $1 AND id = $2 AND duplicate IS NULL AND status = ANY($5)",
        )
        .bind(org_id)
        .bind(id)
        .bind(Json(mark))
        .bind(group)
        .bind(&OPEN_PATCH_STATUSES[..])
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        tx.commit().await?;
        Ok(marked)
    }

    /// Stores a patch and its audit row.
    #[instrument(skip_all, fields(patch = %patch.id))]
    pub async fn insert_patch(&self, patch: &NewPatch<'_>, actor: &Actor) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        // A duplicate joins the group of the open patch it repeats (that patch starts the
        // group when it is the first); a patch decided meanwhile starts no group.
        let inherited: Option<Uuid> = match patch.supersedes {
            Some(old) => sqlx::query_scalar("SELECT duplicate_group FROM patches WHERE org_id = $1 AND id = $2")
                .bind(patch.org_id)
                .bind(old)
                .fetch_optional(&mut *tx)
                .await?
                .flatten(),
            None => None,
        };
        let group: Option<Uuid> = match patch.duplicate.and_then(|d| d.patch) {
            _ if inherited.is_some() => inherited,
            Some(of) => join_duplicate_group(&mut tx, patch.org_id, of).await?,
            None => None,
        };
        sqlx::query(
            "INSERT INTO patches (id, org_id, skill_name, base_revision, status, author_id, agent, summary, \
             rationale, category, ops, report, onto_digest, candidate, candidate_digest, supersedes, resolved_by, \
             lesson, duplicate, duplicate_group, onto_revision) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
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
        .bind(patch.supersedes)
        .bind(patch.resolved_by)
        .bind(patch.lesson)
        .bind(patch.duplicate.map(Json))
        .bind(group)
        .bind(patch.onto_revision)
        .execute(&mut *tx)
        .await?;
        if let Some(old) = patch.supersedes {
            let superseded = sqlx::query(
                "UPDATE patches SET status = 'superseded', superseded_by = $3, decided_at = now(), updated_at = now() \
                 WHERE org_id = $1 AND id = $2 AND status = ANY($4) AND skill_name = $5 \
                 AND ($6::int IS NULL OR round = $6)",
            )
            .bind(patch.org_id)
            .bind(old)
            .bind(patch.id)
            .bind(&OPEN_PATCH_STATUSES[..])
            .bind(patch.skill_name)
            .bind(patch.superseded_round)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if superseded != 1 {
                return Err(StoreError::Conflict(format!(
                    "patch {old} is no longer open, got a new round, or is not a patch of skill '{}'",
                    patch.skill_name
                )));
            }
            record_audit(
                &mut tx,
                Some(patch.org_id),
                actor,
                "patch.supersede",
                &format!("patch:{old}"),
                serde_json::json!({ "by": patch.id }),
            )
            .await?;
        }
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
            serde_json::json!({
                "skill": patch.skill_name, "status": patch.status, "supersedes": patch.supersedes,
                "duplicate_of": patch.duplicate.and_then(|d| d.patch), "agent": patch.agent,
            }),
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The open patches of a skill with their lessons, oldest first (what a new patch may
    /// duplicate).
    #[instrument(skip_all)]
    pub async fn open_lessons(&self, org_id: i64, skill: &str) -> Result<Vec<OpenLesson>, StoreError> {
        let rows: Vec<(Uuid, String, Option<Uuid>)> = sqlx::query_as(
            "SELECT id, lesson, duplicate_group FROM patches WHERE org_id = $1 AND skill_name = $2 \
             AND status = ANY($3) ORDER BY created_at, id",
        )
        .bind(org_id)
        .bind(skill)
        .bind(&OPEN_PATCH_STATUSES[..])
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, lesson, group)| OpenLesson { id, lesson, group })
            .collect())
    }

    /// The patches of a skill in conflict whose reports were built on another revision
    /// than its latest (to be checked again); one cheap query, also when there are none.
    #[instrument(skip_all)]
    pub async fn stale_conflicts(&self, org_id: i64, skill: &str) -> Result<Vec<Uuid>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT p.id FROM patches p \
             LEFT JOIN skills s ON s.org_id = p.org_id AND s.name = p.skill_name \
             LEFT JOIN LATERAL (SELECT revision, digest FROM versions v WHERE v.skill_id = s.id AND NOT v.yanked \
                                ORDER BY revision DESC LIMIT 1) l ON TRUE \
             WHERE p.org_id = $1 AND p.skill_name = $2 AND p.status = 'conflict' \
             AND (p.onto_digest IS DISTINCT FROM l.digest OR p.onto_revision IS DISTINCT FROM l.revision) \
             ORDER BY p.created_at, p.id",
        )
        .bind(org_id)
        .bind(skill)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every organisation's skills with a conflict built on a revision that is no longer
    /// the latest: `(org, skill)`, for the periodic re-check.
    #[instrument(skip_all)]
    pub async fn skills_with_stale_conflicts(&self, limit: i64) -> Result<Vec<(i64, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT DISTINCT p.org_id, p.skill_name FROM patches p \
             LEFT JOIN skills s ON s.org_id = p.org_id AND s.name = p.skill_name \
             LEFT JOIN LATERAL (SELECT revision, digest FROM versions v WHERE v.skill_id = s.id AND NOT v.yanked \
                                ORDER BY revision DESC LIMIT 1) l ON TRUE \
             WHERE p.status = 'conflict' \
             AND (p.onto_digest IS DISTINCT FROM l.digest OR p.onto_revision IS DISTINCT FROM l.revision) \
             ORDER BY p.org_id, p.skill_name LIMIT $1",
        )
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The open patches in a duplicate group, oldest first.
    #[instrument(skip_all)]
    pub async fn duplicate_group(&self, org_id: i64, group: Uuid) -> Result<Vec<PatchRecord>, StoreError> {
        let rows: Vec<PatchRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{LIST_SELECT} WHERE p.org_id = $1 AND p.duplicate_group = $2 AND p.status = ANY($3) \
             ORDER BY p.created_at, p.id"
        )))
        .bind(org_id)
        .bind(group)
        .bind(&OPEN_PATCH_STATUSES[..])
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(PatchRecord::from).collect())
    }

    /// How many open patches each of `groups` holds.
    #[instrument(skip_all)]
    pub async fn duplicate_group_sizes(&self, org_id: i64, groups: &[Uuid]) -> Result<Vec<(Uuid, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT duplicate_group, count(*) FROM patches WHERE org_id = $1 AND duplicate_group = ANY($2) \
             AND status = ANY($3) GROUP BY duplicate_group",
        )
        .bind(org_id)
        .bind(groups)
        .bind(&OPEN_PATCH_STATUSES[..])
        .fetch_all(&self.pool)
        .await?)
    }

    /// Closes an open patch as a duplicate of `of` (a patch of the same skill that is open
    /// or approved: one that still carries the lesson), with the decider; `None` when it is
    /// not open or `of` is not such a patch. Both rows are locked (in id order), so two
    /// reviewers closing two patches as each other's duplicate close one, never both.
    pub async fn close_as_duplicate(
        &self,
        org_id: i64,
        id: Uuid,
        of: Uuid,
        decision: Decision<'_>,
        actor: &Actor,
    ) -> Result<Option<PatchRecord>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT id FROM patches WHERE org_id = $1 AND id = ANY($2) ORDER BY id FOR UPDATE")
            .bind(org_id)
            .bind([id, of].as_slice())
            .execute(&mut *tx)
            .await?;
        let changed = sqlx::query(
            "UPDATE patches p SET status = 'duplicate', duplicate_of = $3, decided_by = $4, decided_at = now(), \
             comment = $5, updated_at = now() \
             FROM patches o WHERE p.org_id = $1 AND p.id = $2 AND p.status = ANY($6) \
             AND o.org_id = $1 AND o.id = $3 AND o.id <> p.id AND o.skill_name = p.skill_name \
             AND (o.status = ANY($6) OR o.status = 'approved')",
        )
        .bind(org_id)
        .bind(id)
        .bind(of)
        .bind(decision.by)
        .bind(decision.comment)
        .bind(&OPEN_PATCH_STATUSES[..])
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed == 0 {
            return Ok(None);
        }
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "patch.duplicate",
            &format!("patch:{id}"),
            serde_json::json!({ "of": of, "comment": decision.comment }),
        )
        .await?;
        tx.commit().await?;
        Ok(Some(self.patch(org_id, id).await?))
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
        let (key, descending) = query.order.key_and_descending();
        let (direction, beyond) = if descending { ("DESC", "<") } else { ("ASC", ">") };
        // A constant key is left out of ORDER BY, where a number would name a column.
        let (key_order, page_order) = if key == "0" {
            (String::new(), String::new())
        } else {
            (format!("{key} {direction}, "), format!("page.k {direction}, "))
        };
        // The page is chosen from narrow columns first; only its rows are then read whole
        // (a report is kilobytes: reading every open patch's to sort them cost the queue
        // most of its time).
        let rows: Vec<PatchRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "WITH page AS (SELECT p.id, p.created_at, {key} AS k FROM patches p JOIN users a ON a.id = p.author_id \
             WHERE p.org_id = $1 AND (cardinality($2::text[]) = 0 OR p.status = ANY($2)) \
             AND ($3::text IS NULL OR p.skill_name = $3) \
             AND ($4::timestamptz IS NULL OR ({key}, p.created_at, p.id) {beyond} ($9, $4, $5)) \
             AND ($7::text IS NULL OR a.handle = $7) \
             AND ($8::text IS NULL OR p.verdict_rank = \
                  CASE $8 WHEN 'dangerous' THEN 3 WHEN 'caution' THEN 2 WHEN 'safe' THEN 1 ELSE -1 END) \
             AND ($10::text IS NULL OR strpos(lower(p.skill_name), lower($10)) > 0) \
             AND ($11::text IS NULL OR strpos(lower(a.handle), lower($11)) > 0) \
             AND ($12::bigint IS NULL OR {requested}) \
             ORDER BY {key_order}p.created_at {direction}, p.id {direction} LIMIT $6) \
             {LIST_SELECT} JOIN page ON page.id = p.id \
             ORDER BY {page_order}page.created_at {direction}, page.id {direction}",
            requested = crate::owners::review_requested_condition("$12"),
        )))
        .bind(org_id)
        .bind(&query.statuses)
        .bind(&query.skill)
        .bind(query.after.map(|k| k.created_at))
        .bind(query.after.map(|k| k.id))
        .bind(query.limit)
        .bind(&query.author)
        .bind(&query.verdict)
        .bind(query.after.map_or(0, |k| k.key))
        .bind(&query.skill_contains)
        .bind(&query.author_contains)
        .bind(query.review_requested)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(PatchRecord::from).collect())
    }

    /// The skills and authors of the organisation's patches in `statuses` (empty: any),
    /// each sorted and at most `limit` of them: suggestions for the queue's filters.
    #[instrument(skip_all)]
    pub async fn patch_filter_suggestions(
        &self,
        org_id: i64,
        statuses: &[String],
        limit: i64,
    ) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let skills = sqlx::query_scalar(
            "SELECT DISTINCT skill_name FROM patches WHERE org_id = $1 \
             AND (cardinality($2::text[]) = 0 OR status = ANY($2)) ORDER BY skill_name LIMIT $3",
        )
        .bind(org_id)
        .bind(statuses)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        let authors = sqlx::query_scalar(
            "SELECT DISTINCT a.handle FROM patches p JOIN users a ON a.id = p.author_id WHERE p.org_id = $1 \
             AND (cardinality($2::text[]) = 0 OR p.status = ANY($2)) ORDER BY a.handle LIMIT $3",
        )
        .bind(org_id)
        .bind(statuses)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        Ok((skills, authors))
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

    /// Replaces the reports and candidate of a patch in state `from_status` (pending
    /// review, or conflict) after the stages ran again onto a newer latest revision, if
    /// they are still the ones built on `from_onto` for the same `round`; `false` when its state changed or
    /// another restage got there first.
    #[allow(clippy::too_many_arguments)]
    pub async fn restage_patch(
        &self,
        org_id: i64,
        id: Uuid,
        from_status: &str,
        status: &str,
        report: &serde_json::Value,
        onto: Option<Onto<'_>>,
        candidate: Option<&serde_json::Value>,
        candidate_digest: Option<&str>,
        from_onto: Option<Onto<'_>>,
        round: i32,
        actor: &Actor,
    ) -> Result<bool, StoreError> {
        let onto_digest = onto.map(|o| o.digest);
        let mut tx = self.pool.begin().await?;
        // Compare-and-swap on the revision the reports were built on: a slower restage
        // never overwrites a newer one.
        let changed = sqlx::query(
            "UPDATE patches SET status = $3, report = $4, onto_digest = $5, candidate = $6, candidate_digest = $7, \
             onto_revision = $10, updated_at = now() WHERE org_id = $1 AND id = $2 AND status = $9 \
             AND onto_digest IS NOT DISTINCT FROM $8 AND onto_revision IS NOT DISTINCT FROM $11 AND round = $12",
        )
        .bind(org_id)
        .bind(id)
        .bind(status)
        .bind(Json(report))
        .bind(onto_digest)
        .bind(candidate.map(Json))
        .bind(candidate_digest)
        .bind(from_onto.map(|o| o.digest))
        .bind(from_status)
        .bind(onto.map(|o| o.revision))
        .bind(from_onto.and_then(|o| o.revision))
        .bind(round)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed == 1 && from_status != status {
            // A conflict that merges now (or a pending patch that no longer does) is a
            // change every surface shows: audit it like any other state change.
            record_audit(
                &mut tx,
                Some(org_id),
                actor,
                &format!("patch.{}", verb(status)),
                &format!("patch:{id}"),
                serde_json::json!({ "from": from_status, "to": status, "onto": onto_digest }),
            )
            .await?;
        }
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
    /// together. If the skill's latest revision is no longer `onto` (number and digest), nothing is
    /// written ([`ApproveOutcome::Moved`]): the caller rebuilds the candidate and retries.
    ///
    /// With `close_duplicates`, the other open patches of its duplicate group are closed as
    /// `duplicate` in the same transaction, and the version names every one of their
    /// authors and agents among its contributors.
    #[instrument(skip_all, fields(patch = %id))]
    #[allow(clippy::too_many_arguments)]
    pub async fn approve_patch(
        &self,
        org_id: i64,
        id: Uuid,
        round: i32,
        onto: Option<Onto<'_>>,
        approval: Approval<'_>,
        decision: Decision<'_>,
        close_duplicates: CloseDuplicates<'_>,
        actor: &Actor,
    ) -> Result<ApproveOutcome, StoreError> {
        let Decision {
            by: reviewer_id,
            comment,
        } = decision;
        let mut tx = self.pool.begin().await?;
        lock_org_index(&mut tx, org_id).await?;
        // With what the published version's attestation states about the patch and this
        // decision (`now()`: the time `decided_at` records below).
        let row: Option<ApprovedPatchRow> = sqlx::query_as(
            "SELECT p.status, p.duplicate_group, p.round, p.base_revision, au.handle AS author, p.agent, \
                 (SELECT handle FROM users WHERE id = $3) AS reviewer, now() AS decided_at \
             FROM patches p JOIN users au ON au.id = p.author_id \
             WHERE p.org_id = $1 AND p.id = $2 FOR UPDATE OF p",
        )
        .bind(org_id)
        .bind(id)
        .bind(reviewer_id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(ApprovedPatchRow {
            status,
            duplicate_group: group,
            round: current,
            base_revision,
            author,
            agent,
            reviewer,
            decided_at,
        }) = row
        else {
            return Err(StoreError::NotFound(format!("patch {id}")));
        };
        if current != round {
            return Err(StoreError::Conflict(format!(
                "its author sent round {current} since round {round} was read: review the new round"
            )));
        }
        if status != "pending_review" {
            return Ok(ApproveOutcome::NotPending { status });
        }
        let latest: Option<(i32, String)> = sqlx::query_as(
            "SELECT v.revision, v.digest FROM skills s JOIN versions v ON v.skill_id = s.id \
             WHERE s.org_id = $1 AND s.name = $2 AND NOT v.yanked ORDER BY v.revision DESC LIMIT 1",
        )
        .bind(org_id)
        .bind(match approval {
            Approval::Publish(version) => version.name.as_str(),
            Approval::Delete(name) => name.as_str(),
        })
        .fetch_optional(&mut *tx)
        .await?;
        let latest = latest.as_ref().map(|(revision, digest)| Onto {
            revision: Some(*revision),
            digest,
        });
        if latest != onto {
            return Ok(ApproveOutcome::Moved);
        }
        // The patch itself, then the duplicates closed with it, oldest first.
        let only: Option<&[Uuid]> = match close_duplicates {
            CloseDuplicates::None => None,
            CloseDuplicates::All => Some(&[]),
            CloseDuplicates::These([]) => None,
            CloseDuplicates::These(ids) => Some(ids),
        };
        let duplicates: Vec<Uuid> = match (group, only) {
            (Some(group), Some(only)) => {
                sqlx::query_scalar(
                    "SELECT id FROM patches WHERE org_id = $1 AND duplicate_group = $2 AND id <> $3 \
                     AND status = ANY($4) AND (cardinality($5::uuid[]) = 0 OR id = ANY($5)) \
                     ORDER BY created_at, id FOR UPDATE",
                )
                .bind(org_id)
                .bind(group)
                .bind(id)
                .bind(&OPEN_PATCH_STATUSES[..])
                .bind(only)
                .fetch_all(&mut *tx)
                .await?
            }
            _ => Vec::new(),
        };
        let mut reporters = vec![id];
        reporters.extend(&duplicates);
        let contributors: Json<serde_json::Value> = sqlx::query_scalar(
            "SELECT coalesce(jsonb_agg(jsonb_build_object('patch', p.id, 'author', u.handle, 'agent', p.agent) \
                    ORDER BY array_position($2, p.id)), '[]') \
             FROM patches p JOIN users u ON u.id = p.author_id WHERE p.org_id = $1 AND p.id = ANY($2)",
        )
        .bind(org_id)
        .bind(&reporters)
        .fetch_one(&mut *tx)
        .await?;
        let provenance = VersionProvenance {
            patch: id,
            base_revision,
            author,
            agent: agent.map(|agent| agent.0),
            contributors: contributors.0,
            reviewer,
            decided_at,
        };
        let mut events = Vec::new();
        let (skill, revision) = match approval {
            Approval::Publish(version) => {
                match publish_in(&mut tx, org_id, version, Some(&provenance), actor, &mut events).await? {
                    PublishOutcome::Created { revision, .. } | PublishOutcome::Unchanged { revision, .. } => {
                        (version.name.as_str(), Some(revision))
                    }
                }
            }
            Approval::Delete(name) => {
                yank_all_in(&mut tx, org_id, name, actor, &mut events).await?;
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
        if !duplicates.is_empty() {
            sqlx::query(
                "UPDATE patches SET status = 'duplicate', duplicate_of = $3, decided_by = $4, decided_at = now(), \
                 comment = $5, updated_at = now() WHERE org_id = $1 AND id = ANY($2)",
            )
            .bind(org_id)
            .bind(&duplicates)
            .bind(id)
            .bind(reviewer_id)
            .bind(format!("closed as a duplicate of patch {id}, approved with it"))
            .execute(&mut *tx)
            .await?;
            for duplicate in &duplicates {
                record_audit(
                    &mut tx,
                    Some(org_id),
                    actor,
                    "patch.duplicate",
                    &format!("patch:{duplicate}"),
                    serde_json::json!({ "of": id }),
                )
                .await?;
            }
        }
        let data = serde_json::json!({
            "patch": id, "skill": skill, "revision": revision, "deleted": revision.is_none(),
            "duplicates_closed": duplicates,
        });
        enqueue(&mut tx, org_id, "patch.approved", data).await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "patch.approve",
            &format!("patch:{id}"),
            serde_json::json!({ "skill": skill, "revision": revision, "duplicates_closed": duplicates }),
        )
        .await?;
        // Last: the patch's decision is in place, so the attestation names its reviewer.
        crate::log::append_version_events(&mut tx, self.log_signer(), &events).await?;
        tx.commit().await?;
        Ok(ApproveOutcome::Published { revision })
    }
}

/// The approved patch's row as approving reads it: what the published version's
/// attestation states about the patch and the decision.
#[derive(sqlx::FromRow)]
struct ApprovedPatchRow {
    status: String,
    duplicate_group: Option<Uuid>,
    /// The patch's current round (a stale round read by the reviewer is refused).
    round: i32,
    base_revision: Option<i32>,
    /// The author's handle.
    author: String,
    agent: Option<Json<serde_json::Value>>,
    /// The reviewer's handle.
    reviewer: Option<String>,
    /// The transaction's time: what `decided_at` records.
    decided_at: DateTime<Utc>,
}

fn verb(status: &str) -> &str {
    match status {
        "rejected" => "reject",
        "withdrawn" => "withdraw",
        "blocked" => "block",
        "conflict" => "conflict",
        "pending_review" => "recheck",
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
