//! Plain data the store reads and writes. These are the store's own types: the HTTP layer
//! maps them to wire shapes, so a column rename never leaks into the public contract.

use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;

/// What a user may do in their organisation (docs/ACCESS.md). Ordered from most to least
/// powerful so `role >= Role::Reviewer`-style checks read naturally via [`Role::rank`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Everything, including user and token administration.
    Admin,
    /// Approves and rejects patches, publishes directly.
    Reviewer,
    /// Reads and submits patches.
    Member,
    /// Reads only (what CI uses).
    Reader,
}

impl Role {
    /// The role's name as stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Reviewer => "reviewer",
            Role::Member => "member",
            Role::Reader => "reader",
        }
    }

    /// A number that grows with privilege, for "at least this role" checks.
    pub fn rank(self) -> u8 {
        match self {
            Role::Admin => 3,
            Role::Reviewer => 2,
            Role::Member => 1,
            Role::Reader => 0,
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "admin" => Ok(Role::Admin),
            "reviewer" => Ok(Role::Reviewer),
            "member" => Ok(Role::Member),
            "reader" => Ok(Role::Reader),
            other => Err(format!(
                "unknown role '{other}': use one of admin, reviewer, member, reader"
            )),
        }
    }
}

impl TryFrom<String> for Role {
    type Error = String;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        value.parse()
    }
}

/// A tenant. Every skill, user and token belongs to exactly one.
#[derive(Clone, Debug, sqlx::FromRow, Serialize)]
pub struct Organization {
    /// Database id.
    pub id: i64,
    /// URL-safe unique name, e.g. `default`.
    pub slug: String,
    /// Display name.
    pub name: String,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// Whether clients without a token may read its discovery and download endpoints.
    pub anonymous_read: bool,
}

/// A person or service account of an organisation.
#[derive(Clone, Debug, sqlx::FromRow, Serialize)]
pub struct User {
    /// Database id.
    pub id: i64,
    /// Owning organisation.
    pub org_id: i64,
    /// Unique handle within the organisation.
    pub handle: String,
    /// What the user may do.
    #[sqlx(try_from = "String")]
    pub role: Role,
    /// Disabled users cannot authenticate.
    pub disabled: bool,
    /// When it was created.
    pub created_at: DateTime<Utc>,
}

/// A token as its owner and admins see it: the row plus the owner's handle (never the
/// token itself, which is shown once at issue time and not stored).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TokenInfo {
    /// The token's `jti`.
    pub id: Uuid,
    /// The owner's handle.
    pub owner: String,
    /// The label chosen at issue time.
    pub name: String,
    /// What the token may do (further limited by the owner's current role).
    pub scopes: Vec<String>,
    /// When it was issued.
    pub created_at: DateTime<Utc>,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
    /// When it was last presented (updated at most about once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it was revoked, if it was.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// One row of the audit log.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct AuditEntry {
    /// Increasing id (the paging cursor).
    pub id: i64,
    /// When it happened.
    pub created_at: DateTime<Utc>,
    /// Who did it: a handle, or `cli:<command>` for operator commands.
    pub actor: String,
    /// What was done, e.g. `token.revoke`.
    pub action: String,
    /// What it was done to, e.g. `token:<id>` or `skill:name@3`.
    pub target: String,
    /// The HTTP request id, when over HTTP.
    pub request_id: Option<String>,
    /// The client address, when over HTTP.
    pub client_addr: Option<String>,
    /// Action-specific details.
    pub details: sqlx::types::Json<serde_json::Value>,
}

/// Everything authentication needs to know about a presented token, in one query.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct TokenPrincipal {
    /// The token's `jti`.
    pub token_id: Uuid,
    /// The token's owner.
    pub user_id: i64,
    /// The owner's handle.
    pub handle: String,
    /// The owner's current role (the database wins over a stale claim).
    #[sqlx(try_from = "String")]
    pub role: Role,
    /// Whether the owner is disabled.
    pub disabled: bool,
    /// The organisation.
    pub org_id: i64,
    /// The organisation's slug.
    pub org_slug: String,
    /// Scopes on the token row.
    pub scopes: Vec<String>,
    /// Expiry on the token row.
    pub expires_at: DateTime<Utc>,
    /// Revocation time, if revoked.
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A skill as listed: identity plus a summary of its latest non-yanked version.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SkillSummary {
    /// Database id.
    pub id: i64,
    /// The skill's name (its folder name).
    pub name: String,
    /// Optional category path, e.g. `devops` or `mlops/training`.
    pub category: Option<String>,
    /// Latest non-yanked revision, if any.
    pub latest_revision: Option<i32>,
    /// Description of that revision.
    pub description: Option<String>,
    /// Digest of that revision.
    pub digest: Option<String>,
    /// Number of versions ever published (yanked included).
    pub version_count: i64,
    /// When the skill was created.
    pub created_at: DateTime<Utc>,
    /// When its index entry last changed.
    pub updated_at: DateTime<Utc>,
}

/// Where a version came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionSource {
    /// `cairn-registry import`.
    Import,
    /// A direct publish by a reviewer or admin.
    Publish,
    /// An approved patch.
    Patch,
}

impl VersionSource {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            VersionSource::Import => "import",
            VersionSource::Publish => "publish",
            VersionSource::Patch => "patch",
        }
    }
}

/// An immutable published version's metadata (files come separately).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct VersionInfo {
    /// Database id.
    pub id: i64,
    /// 1, 2, 3 … per skill.
    pub revision: i32,
    /// `sha256:<hex>` over the manifest (docs/API.md, "Digest").
    pub digest: String,
    /// The frontmatter description.
    pub description: String,
    /// The whole frontmatter as JSON, unknown keys included.
    pub frontmatter: sqlx::types::Json<serde_json::Value>,
    /// Number of files.
    pub file_count: i32,
    /// Sum of file sizes in bytes.
    pub total_size: i64,
    /// `import`, `publish` or `patch`.
    pub source: String,
    /// Handle of the user who published it, if a user did.
    pub published_by: Option<String>,
    /// The patch that produced it (`source` `patch`).
    pub patch_id: Option<Uuid>,
    /// Everyone who reported the lesson it publishes: `[{"patch", "author", "agent"}]`
    /// (the approved patch and the duplicates closed with it).
    pub contributors: sqlx::types::Json<serde_json::Value>,
    /// Yanked versions stay readable but are skipped by `latest` and the index.
    pub yanked: bool,
    /// When it was published.
    pub created_at: DateTime<Utc>,
}

/// One file of a version's manifest.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow, Serialize)]
pub struct FileEntry {
    /// Relative path inside the bundle.
    pub path: String,
    /// Hex SHA-256 of the content (the blob id).
    pub sha256: String,
    /// Size in bytes.
    pub size: i64,
    /// Whether the executable bit is set.
    pub executable: bool,
}

/// One skill's entry in the team index: its latest non-yanked version.
#[derive(Clone, Debug)]
pub struct IndexEntry {
    /// Skill name.
    pub name: String,
    /// Category path.
    pub category: Option<String>,
    /// Description of the latest version.
    pub description: String,
    /// Latest non-yanked revision.
    pub revision: i32,
    /// Its digest.
    pub digest: String,
    /// When the entry last changed.
    pub updated_at: DateTime<Utc>,
    /// Its files.
    pub files: Vec<FileEntry>,
}

/// The index (or a delta of it) as of `cursor`.
#[derive(Clone, Debug)]
pub struct IndexSnapshot {
    /// The organisation's newest change cursor included in this answer.
    pub cursor: i64,
    /// Entries for every skill (full) or every changed skill (delta), by name.
    pub skills: Vec<IndexEntry>,
    /// Delta only: skills that no longer have a non-yanked version.
    pub removed: Vec<String>,
}

/// Who performed a mutation, for the audit log.
#[derive(Clone, Debug, Default)]
pub struct Actor {
    /// The user, when a user did it.
    pub user_id: Option<i64>,
    /// A readable name: a handle, or e.g. `cli:import`.
    pub name: String,
    /// The request id, when over HTTP.
    pub request_id: Option<String>,
    /// The client address, when over HTTP.
    pub client_addr: Option<String>,
}

impl Actor {
    /// An actor for an operator command run on the server's machine.
    pub fn cli(command: &str) -> Self {
        Actor {
            name: format!("cli:{command}"),
            ..Actor::default()
        }
    }

    /// The registry itself, doing `work` on its own (e.g. re-checking conflicts when a
    /// skill moves on).
    pub fn system(work: &str) -> Self {
        Actor {
            name: format!("system:{work}"),
            ..Actor::default()
        }
    }
}

/// What publishing a bundle did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PublishOutcome {
    /// A new version was created.
    Created {
        /// Its revision.
        revision: i32,
        /// Whether the skill itself is new.
        new_skill: bool,
    },
    /// The content equals the latest version: nothing was written (the category may
    /// have been updated, see `recategorized`).
    Unchanged {
        /// The existing latest revision.
        revision: i32,
        /// Whether the category changed and was updated.
        recategorized: bool,
    },
}
