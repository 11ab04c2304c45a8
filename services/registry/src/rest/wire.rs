//! Wire shapes of the v1 API (docs/API.md). Fields may be added, never renamed.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// A page of a list: `{"items": [...], "next_cursor": "..." | null}`.
#[derive(Debug, Serialize)]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Pass as `cursor` to get the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// A skill in `GET /v1/skills` and `GET /v1/skills/{name}`.
#[derive(Debug, Serialize)]
pub struct SkillItem {
    /// Name (the folder name).
    pub name: String,
    /// Category path, if any.
    pub category: Option<String>,
    /// Description of the latest version.
    pub description: Option<String>,
    /// Latest non-yanked revision (`null` when every version is yanked).
    pub latest_revision: Option<i32>,
    /// Digest of that revision.
    pub digest: Option<String>,
    /// Versions ever published.
    pub version_count: i64,
    /// Creation time.
    pub created_at: DateTime<Utc>,
    /// Last index change.
    pub updated_at: DateTime<Utc>,
}

impl From<cairn_store::SkillSummary> for SkillItem {
    fn from(s: cairn_store::SkillSummary) -> Self {
        SkillItem {
            name: s.name,
            category: s.category,
            description: s.description,
            latest_revision: s.latest_revision,
            digest: s.digest,
            version_count: s.version_count,
            created_at: s.created_at,
            updated_at: s.updated_at,
        }
    }
}

/// A version in `GET /v1/skills/{name}/versions` (and, with `files`, a single version).
#[derive(Debug, Serialize)]
pub struct VersionItem {
    /// Skill name.
    pub name: String,
    /// Revision number.
    pub revision: i32,
    /// Manifest digest.
    pub digest: String,
    /// Frontmatter description.
    pub description: String,
    /// Whole frontmatter, unknown keys included.
    pub frontmatter: serde_json::Value,
    /// Number of files.
    pub file_count: i32,
    /// Total bytes.
    pub total_size: i64,
    /// `import`, `publish` or `patch`.
    pub source: String,
    /// Publishing user's handle, if a user published it.
    pub published_by: Option<String>,
    /// The patch that produced it (source `patch`).
    pub patch: Option<String>,
    /// Everyone who reported the lesson it publishes (`[{"patch", "author", "agent"}]`):
    /// the approved patch, then the duplicates closed with it.
    pub contributors: serde_json::Value,
    /// Whether it is yanked.
    pub yanked: bool,
    /// Publication time.
    pub created_at: DateTime<Utc>,
    /// The manifest (single-version responses only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<cairn_store::FileEntry>>,
}

impl VersionItem {
    /// Maps a stored version of skill `name`.
    pub fn new(name: &str, v: cairn_store::VersionInfo, files: Option<Vec<cairn_store::FileEntry>>) -> Self {
        VersionItem {
            name: name.to_owned(),
            revision: v.revision,
            digest: v.digest,
            description: v.description,
            frontmatter: v.frontmatter.0,
            file_count: v.file_count,
            total_size: v.total_size,
            source: v.source,
            published_by: v.published_by,
            patch: v.patch_id.map(|p| p.to_string()),
            contributors: v.contributors.0,
            yanked: v.yanked,
            created_at: v.created_at,
            files,
        }
    }
}

/// `GET /v1/index`: `{"cursor", "skills": [entry…], "removed": [...]}`.
#[derive(Debug, Serialize)]
pub struct IndexBody {
    /// Pass as `since` to get only later changes.
    pub cursor: i64,
    /// Entries.
    pub skills: Vec<IndexEntryBody>,
    /// Delta only: skills that no longer have a non-yanked version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
}

/// One index entry.
#[derive(Debug, Serialize)]
pub struct IndexEntryBody {
    /// Name.
    pub name: String,
    /// Category.
    pub category: Option<String>,
    /// Description.
    pub description: String,
    /// Latest non-yanked revision.
    pub revision: i32,
    /// Its digest.
    pub digest: String,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// Files.
    pub files: Vec<cairn_store::FileEntry>,
}

impl From<&cairn_store::IndexEntry> for IndexEntryBody {
    fn from(e: &cairn_store::IndexEntry) -> Self {
        IndexEntryBody {
            name: e.name.clone(),
            category: e.category.clone(),
            description: e.description.clone(),
            revision: e.revision,
            digest: e.digest.clone(),
            updated_at: e.updated_at,
            files: e.files.clone(),
        }
    }
}

impl From<cairn_store::IndexSnapshot> for IndexBody {
    fn from(snapshot: cairn_store::IndexSnapshot) -> Self {
        IndexBody {
            cursor: snapshot.cursor,
            skills: snapshot.skills.iter().map(IndexEntryBody::from).collect(),
            removed: None,
        }
    }
}

/// `GET /v1/whoami`.
#[derive(Debug, Serialize)]
pub struct WhoAmI {
    /// The user's handle.
    pub user: String,
    /// The organisation's slug.
    pub org: String,
    /// The user's current role.
    pub role: String,
    /// What this token may do now: its scopes capped by the current role.
    pub scopes: Vec<String>,
    /// The token's id.
    pub token_id: String,
    /// When the token expires.
    pub expires_at: DateTime<Utc>,
}

/// The answer to a yank or unyank.
#[derive(Debug, Serialize)]
pub struct YankBody {
    /// Skill name.
    pub name: String,
    /// The version acted on.
    pub revision: i32,
    /// Its state now.
    pub yanked: bool,
    /// Whether this request changed it (false: it already was).
    pub changed: bool,
    /// The skill's latest non-yanked revision now (`null`: none left).
    pub latest_revision: Option<i32>,
}

/// A token in `GET /v1/tokens` (the secret itself is never shown again).
#[derive(Debug, Serialize)]
pub struct TokenItem {
    /// The token's id (its `jti`).
    pub id: String,
    /// Whose token it is.
    pub user: String,
    /// Its label.
    pub name: String,
    /// What it may do (the owner's role caps it further).
    pub scopes: Vec<String>,
    /// When it was issued.
    pub created_at: DateTime<Utc>,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
    /// When it was last used (updated at most about once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
}

impl From<cairn_store::TokenInfo> for TokenItem {
    fn from(t: cairn_store::TokenInfo) -> Self {
        TokenItem {
            id: t.id.to_string(),
            user: t.owner,
            name: t.name,
            scopes: t.scopes,
            created_at: t.created_at,
            expires_at: t.expires_at,
            last_used_at: t.last_used_at,
            revoked_at: t.revoked_at,
        }
    }
}

/// The answer to `POST /v1/tokens`: the token (shown this once) and its row.
#[derive(Debug, Serialize)]
pub struct IssuedTokenBody {
    /// The bearer token. It is not stored and cannot be shown again.
    pub token: String,
    /// Its metadata.
    #[serde(flatten)]
    pub item: TokenItem,
}

/// A user in `GET /v1/users`.
#[derive(Debug, Serialize)]
pub struct UserItem {
    /// Handle.
    pub handle: String,
    /// Role.
    pub role: String,
    /// Whether the user is disabled (their tokens do not work).
    pub disabled: bool,
    /// When the user was added.
    pub created_at: DateTime<Utc>,
}

impl From<cairn_store::User> for UserItem {
    fn from(u: cairn_store::User) -> Self {
        UserItem {
            handle: u.handle,
            role: u.role.as_str().to_owned(),
            disabled: u.disabled,
            created_at: u.created_at,
        }
    }
}

/// An entry in `GET /v1/audit`.
#[derive(Debug, Serialize)]
pub struct AuditItem {
    /// Increasing id.
    pub id: i64,
    /// When.
    pub at: DateTime<Utc>,
    /// Who: a handle, or `cli:<command>` for operator commands.
    pub actor: String,
    /// What, e.g. `token.revoke`.
    pub action: String,
    /// On what, e.g. `token:<id>`.
    pub target: String,
    /// The request id, when over HTTP.
    pub request_id: Option<String>,
    /// The client address, when over HTTP.
    pub client_addr: Option<String>,
    /// Action-specific details.
    pub details: serde_json::Value,
}

impl From<cairn_store::AuditEntry> for AuditItem {
    fn from(e: cairn_store::AuditEntry) -> Self {
        AuditItem {
            id: e.id,
            at: e.created_at,
            actor: e.actor,
            action: e.action,
            target: e.target,
            request_id: e.request_id,
            client_addr: e.client_addr,
            details: e.details.0,
        }
    }
}

/// A patch (`GET /v1/patches/{id}`, and the answers of submit, approve, reject and
/// withdraw): what was proposed, what each stage found, and the decision.
#[derive(Debug, Serialize)]
pub struct PatchBody {
    /// Its id.
    pub id: String,
    /// The skill.
    pub skill: String,
    /// The revision it was made against (`null`: a new skill).
    pub base_revision: Option<i32>,
    /// `pending_review`, `approved`, `rejected`, `blocked`, `conflict`, `withdrawn` or
    /// `superseded`.
    pub status: String,
    /// Who submitted it.
    pub author: String,
    /// The agent that wrote it (`{name, model, session}`).
    pub agent: serde_json::Value,
    /// One line.
    pub summary: String,
    /// Why.
    pub rationale: String,
    /// The ops as sent.
    pub ops: serde_json::Value,
    /// How each op applied (strategy, similarity, lines).
    pub match_report: Vec<cairn_pipeline::apply::OpReport>,
    /// How the patch was placed onto the latest revision: per file and op (applied,
    /// merged, structural insertion, replayed, conflict), conflicts with their hunks.
    pub rebase: cairn_pipeline::report::RebaseReport,
    /// The scan of the candidate (findings `introduced` or pre-existing).
    pub scan: Option<cairn_scanner::Report>,
    /// The change against the latest revision, per file.
    pub diff: Vec<cairn_pipeline::diff::FileDiff>,
    /// The change its author made against the revision they based it on (when that is
    /// not the latest).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authored_diff: Vec<cairn_pipeline::diff::FileDiff>,
    /// The policy's decision.
    pub decision: Option<cairn_pipeline::policy::Decision>,
    /// The candidate's digest.
    pub candidate_digest: Option<String>,
    /// The revision approval published.
    pub result_revision: Option<i32>,
    /// Submitted at.
    pub created_at: DateTime<Utc>,
    /// Who decided.
    pub decided_by: Option<String>,
    /// When.
    pub decided_at: Option<DateTime<Utc>>,
    /// The reviewer's comment.
    pub comment: Option<String>,
    /// The patch this one carries on (a resubmission after a conflict, or a reviewer's
    /// resolution).
    pub supersedes: Option<String>,
    /// The patch that carries this one on.
    pub superseded_by: Option<String>,
    /// Who resolved a conflict by hand to make this patch.
    pub resolved_by: Option<String>,
    /// What it likely duplicates: `{"patch" | "revision", "file", "line", "excerpt",
    /// "similarity"}` (advice; nothing closes by itself).
    pub duplicate: Option<cairn_store::DuplicateMark>,
    /// The group of open patches reporting the same lesson (the first one's id).
    pub duplicate_group: Option<String>,
    /// Closed as a duplicate of this patch.
    pub duplicate_of: Option<String>,
}

impl From<cairn_store::PatchRecord> for PatchBody {
    fn from(p: cairn_store::PatchRecord) -> Self {
        let report = cairn_pipeline::report::PatchReport::from_stored(&p.report);
        PatchBody {
            id: p.id.to_string(),
            match_report: report.ops,
            rebase: report.rebase,
            scan: report.scan,
            diff: report.diff,
            authored_diff: report.authored_diff,
            decision: report.decision,
            skill: p.skill_name,
            base_revision: p.base_revision,
            status: p.status,
            author: p.author,
            agent: p.agent,
            summary: p.summary,
            rationale: p.rationale,
            ops: p.ops,
            candidate_digest: p.candidate_digest,
            result_revision: p.result_revision,
            created_at: p.created_at,
            decided_by: p.decided_by,
            decided_at: p.decided_at,
            comment: p.comment,
            supersedes: p.supersedes.map(|id| id.to_string()),
            superseded_by: p.superseded_by.map(|id| id.to_string()),
            resolved_by: p.resolved_by,
            duplicate: p.duplicate,
            duplicate_group: p.duplicate_group.map(|id| id.to_string()),
            duplicate_of: p.duplicate_of.map(|id| id.to_string()),
        }
    }
}

/// A patch in `GET /v1/patches`: the summary, without ops and reports.
#[derive(Debug, Serialize)]
pub struct PatchItem {
    /// Its id.
    pub id: String,
    /// The skill.
    pub skill: String,
    /// The revision it was made against.
    pub base_revision: Option<i32>,
    /// Its state.
    pub status: String,
    /// Who submitted it.
    pub author: String,
    /// One line.
    pub summary: String,
    /// The scan verdict of its candidate (`null` on conflict).
    pub verdict: Option<String>,
    /// The revision approval published.
    pub result_revision: Option<i32>,
    /// Submitted at.
    pub created_at: DateTime<Utc>,
    /// The group of open patches reporting the same lesson.
    pub duplicate_group: Option<String>,
    /// What it likely duplicates.
    pub duplicate: Option<cairn_store::DuplicateMark>,
    /// The patch this one carries on, and the one carrying it on.
    pub supersedes: Option<String>,
    /// See `supersedes`.
    pub superseded_by: Option<String>,
}

impl From<cairn_store::PatchRecord> for PatchItem {
    fn from(p: cairn_store::PatchRecord) -> Self {
        PatchItem {
            id: p.id.to_string(),
            verdict: cairn_pipeline::report::PatchReport::from_stored(&p.report)
                .verdict()
                .map(|v| v.as_str().to_owned()),
            skill: p.skill_name,
            base_revision: p.base_revision,
            status: p.status,
            author: p.author,
            summary: p.summary,
            result_revision: p.result_revision,
            created_at: p.created_at,
            duplicate_group: p.duplicate_group.map(|id| id.to_string()),
            duplicate: p.duplicate,
            supersedes: p.supersedes.map(|id| id.to_string()),
            superseded_by: p.superseded_by.map(|id| id.to_string()),
        }
    }
}
