//! The team index: `GET /v1/index` and the live change feed's entries.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::FileEntry;

/// `GET /v1/index`: `{"cursor", "skills": [entry…], "removed": [...]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Index {
    /// The newest change included: pass it as `since` to get only later changes.
    pub cursor: i64,
    /// Every skill's latest non-yanked version (a delta: the skills changed since).
    pub skills: Vec<IndexEntry>,
    /// A delta only: changed skills with no non-yanked version left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<Vec<String>>,
}

/// One skill of the index: its latest non-yanked version.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct IndexEntry {
    /// Name.
    pub name: String,
    /// Category path.
    pub category: Option<String>,
    /// Description.
    pub description: String,
    /// Latest non-yanked revision.
    pub revision: i32,
    /// Its digest.
    pub digest: String,
    /// Last change.
    pub updated_at: DateTime<Utc>,
    /// The manifest.
    pub files: Vec<FileEntry>,
}

/// The `data` of a `change` event on `GET /v1/events`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Change {
    /// The index cursor of this change (also the event's id).
    pub cursor: i64,
    /// What happened.
    pub kind: ChangeKind,
    /// The skill.
    pub name: String,
    /// The revision concerned.
    pub revision: Option<i32>,
    /// The skill's index entry now; `null` when it has no non-yanked version left.
    pub entry: Option<IndexEntry>,
}

/// The kinds of index change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A new revision.
    Published,
    /// A revision was yanked.
    Yanked,
    /// A yanked revision was restored.
    Unyanked,
    /// The category changed.
    Recategorized,
}
