//! Wire shapes of the v1 API (DESIGN §5). Fields may be added, never renamed.

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

impl From<cairn_store::IndexSnapshot> for IndexBody {
    fn from(snapshot: cairn_store::IndexSnapshot) -> Self {
        IndexBody {
            cursor: snapshot.cursor,
            skills: snapshot
                .skills
                .into_iter()
                .map(|e| IndexEntryBody {
                    name: e.name,
                    category: e.category,
                    description: e.description,
                    revision: e.revision,
                    digest: e.digest,
                    updated_at: e.updated_at,
                    files: e.files,
                })
                .collect(),
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
    /// The token's scopes.
    pub scopes: Vec<String>,
    /// The token's id.
    pub token_id: String,
}
