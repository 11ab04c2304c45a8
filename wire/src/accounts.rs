//! Who is calling, tokens, users and the audit log.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `GET /v1/whoami`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// A token in `GET /v1/tokens` (the secret itself is never shown again).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// The answer to `POST /v1/tokens`: the token (shown this once) and its row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct IssuedToken {
    /// The bearer token. It is not stored and cannot be shown again.
    pub token: String,
    /// Its metadata.
    #[serde(flatten)]
    pub item: TokenItem,
}

/// An owner list in `GET /v1/owners`: the reviewers named for a skill or a category.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OwnerList {
    /// `skill` or `category` (which also covers the categories under it).
    pub kind: String,
    /// The skill's name or the category's path.
    pub name: String,
    /// The owners' handles, sorted.
    pub owners: Vec<String>,
}

/// A user in `GET /v1/users`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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

/// An entry in `GET /v1/audit`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
