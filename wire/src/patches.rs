//! Patches: `POST /v1/patches`, `GET /v1/patches…` and the decisions on them.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use cairn_pipeline::apply::OpReport;
pub use cairn_pipeline::diff::FileDiff;
pub use cairn_pipeline::policy::Decision;
pub use cairn_pipeline::report::RebaseReport;
pub use cairn_scanner::Report as ScanReport;

/// A patch (`GET /v1/patches/{id}`, and the answers of submit, approve, reject and
/// withdraw): what was proposed, what each stage found, and the decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Patch {
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
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
    pub agent: serde_json::Value,
    /// One line.
    pub summary: String,
    /// Why.
    pub rationale: String,
    /// The ops as sent.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub ops: serde_json::Value,
    /// How each op applied (strategy, similarity, lines).
    pub match_report: Vec<OpReport>,
    /// How the patch was placed onto the latest revision: per file and op (applied,
    /// merged, structural insertion, replayed, conflict), conflicts with their hunks.
    pub rebase: RebaseReport,
    /// The scan of the candidate (findings `introduced` or pre-existing).
    pub scan: Option<ScanReport>,
    /// The change against the latest revision, per file.
    pub diff: Vec<FileDiff>,
    /// The change its author made against the revision they based it on (when that is
    /// not the latest).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authored_diff: Vec<FileDiff>,
    /// The policy's decision.
    pub decision: Option<Decision>,
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
    /// What it likely duplicates (advice; nothing closes by itself).
    pub duplicate: Option<DuplicateMark>,
    /// The group of open patches reporting the same lesson (the first one's id).
    pub duplicate_group: Option<String>,
    /// Closed as a duplicate of this patch.
    pub duplicate_of: Option<String>,
    /// The last request for changes, while the patch is open and waits for its author.
    #[serde(default)]
    pub changes_requested: Option<ChangesRequested>,
    /// The conversation: threads on the patch or on lines of its diff, oldest first
    /// (`GET /v1/patches/{id}`, request-changes and revisions fill it; other answers leave
    /// it empty).
    #[serde(default)]
    pub threads: Vec<ReviewThread>,
    /// Its round: 1 as submitted, one more with each new version its author sends.
    #[serde(default = "first_round")]
    pub round: i32,
    /// Lines its diff adds or removes (in conflict: its author's diff against the base).
    #[serde(default)]
    pub changed_lines: i32,
    /// Its earlier rounds, oldest first (filled where `threads` is).
    #[serde(default)]
    pub rounds: Vec<PatchRound>,
    /// What its files changed since the previous round (filled where `threads` is).
    #[serde(default)]
    pub round_diff: Vec<FileDiff>,
    /// The skill's owners, who are asked to review it (filled where `threads` is).
    #[serde(default)]
    pub owners: Vec<Owner>,
}

/// An owner of a patch's skill, and the owner list that makes them one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Owner {
    /// The owner's handle.
    pub handle: String,
    /// `skill` (named for the skill itself) or `category`.
    pub via: String,
    /// The skill or category the list names.
    pub name: String,
}

fn first_round() -> i32 {
    1
}

/// An earlier round of a patch, as it was when its author sent the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PatchRound {
    /// Its number.
    pub round: i32,
    /// The revision it was made against.
    pub base_revision: Option<i32>,
    /// Its state when the next round replaced it.
    pub status: String,
    /// Its one line.
    pub summary: String,
    /// Its candidate's digest.
    pub candidate_digest: Option<String>,
    /// When it was sent.
    pub submitted_at: DateTime<Utc>,
}

/// A reviewer's request for changes that the author has not answered yet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChangesRequested {
    /// The reviewer.
    pub by: String,
    /// When.
    pub at: DateTime<Utc>,
}

/// A thread of comments on a patch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReviewThread {
    /// The id of its first comment (answer with `reply_to` set to it).
    pub id: i64,
    /// The file it is about (absent: the patch as a whole).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Its first line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<i32>,
    /// Its last line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<i32>,
    /// `new`: lines numbered as in the patch's result; `old`: as in the latest revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<String>,
    /// The patch's round it was started on (its lines are that round's diff's).
    #[serde(default = "first_round")]
    pub round: i32,
    /// Its comments, oldest first.
    pub comments: Vec<Comment>,
}

/// One comment of a thread.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comment {
    /// Its id.
    pub id: i64,
    /// Who wrote it.
    pub author: String,
    /// `comment`, or `changes_requested` (a reviewer's decision).
    pub kind: String,
    /// The text (Markdown).
    pub body: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

/// A patch in `GET /v1/patches`: the summary, without ops and reports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    pub duplicate: Option<DuplicateMark>,
    /// The patch this one carries on.
    pub supersedes: Option<String>,
    /// The patch carrying this one on.
    pub superseded_by: Option<String>,
    /// Who last requested changes, while the patch waits for its author.
    #[serde(default)]
    pub changes_requested_by: Option<String>,
    /// Its round.
    #[serde(default = "first_round")]
    pub round: i32,
    /// Lines its diff adds or removes (in conflict: its author's diff against the base).
    #[serde(default)]
    pub changed_lines: i32,
}

/// What a patch likely repeats: an open patch's lesson or text already published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DuplicateMark {
    /// The open patch it repeats (absent: it repeats text already published).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
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

/// One result of `POST /v1/patches/review`: the patch decided, or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchResult {
    /// The patch named.
    pub id: String,
    /// The patch as decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<Patch>,
    /// Why it was not decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<crate::ErrorDetail>,
}

/// The answer to `POST /v1/patches/review`, in the order the ids were given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BatchResults {
    /// One result per id.
    pub results: Vec<BatchResult>,
}

/// The answer to a direct publish (`POST /v1/skills/{name}/versions`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Published {
    /// The skill.
    pub name: String,
    /// The revision published (or the latest, unchanged).
    pub revision: i32,
    /// `false`: the content already was the latest version.
    pub created: bool,
    /// The scan of what was published.
    pub scan: ScanReport,
}
