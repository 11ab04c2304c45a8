//! Skills and their versions: `GET /v1/skills…`.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A skill in `GET /v1/skills` and `GET /v1/skills/{name}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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

/// One file of a version's manifest.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema)]
pub struct FileEntry {
    /// Path in the skill folder.
    pub path: String,
    /// Hex SHA-256 of the contents (the blob id).
    pub sha256: String,
    /// Size in bytes.
    pub size: i64,
    /// Whether the executable bit is set.
    pub executable: bool,
}

/// A version in `GET /v1/skills/{name}/versions` (and, with `files`, a single version).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    #[schemars(with = "serde_json::Map<String, serde_json::Value>")]
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
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub contributors: serde_json::Value,
    /// Whether it is yanked.
    pub yanked: bool,
    /// Publication time.
    pub created_at: DateTime<Utc>,
    /// The manifest (single-version responses only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileEntry>>,
}

/// The answer to a yank or unyank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Yank {
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
