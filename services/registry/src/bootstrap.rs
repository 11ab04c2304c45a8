//! First start: the default organisation, its first admin and the admin token.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use cairn_store::{AdminToken, Role, Store};
use chrono::Utc;
use uuid::Uuid;

use crate::auth::scopes::ScopeSet;
use crate::auth::{Claims, TokenKeys, sign};
use crate::private_file::write_private_file;

/// Slug of the organisation created on first start.
pub const DEFAULT_ORG: &str = "default";
/// Handle of the admin created on first start.
pub const DEFAULT_ADMIN: &str = "admin";
/// Lifetime of the bootstrap admin token.
pub const ADMIN_TOKEN_TTL: Duration = Duration::from_secs(365 * 24 * 3600);
/// File (in the data directory) the bootstrap admin token is written to.
pub const ADMIN_TOKEN_FILE: &str = "admin.token";
/// The admin token before its bootstrap commits (renamed to [`ADMIN_TOKEN_FILE`] after).
const PENDING_TOKEN_FILE: &str = "admin.token.pending";

/// On an empty database, creates the default organisation and admin and returns the
/// admin token (also written to `<data-dir>/admin.token`, mode 0600). Returns `None`
/// when the database was already set up.
pub async fn bootstrap(store: &Store, keys: &TokenKeys, data_dir: &Path) -> Result<Option<String>> {
    let token_file = data_dir.join(ADMIN_TOKEN_FILE);
    let pending = data_dir.join(PENDING_TOKEN_FILE);
    // A start that crashed between committing the bootstrap and renaming its token file.
    if pending.exists() && !token_file.exists() {
        std::fs::rename(&pending, &token_file)?;
    }
    if store.has_organizations().await? {
        return Ok(None);
    }
    // Everything in the token is known before the database is touched, so it is on disk
    // before the bootstrap commits: a crash can never leave an admin without a token.
    let id = Uuid::new_v4();
    let now = Utc::now();
    let expires_at = now + chrono::Duration::from_std(ADMIN_TOKEN_TTL)?;
    let scopes = ScopeSet::of_role(Role::Admin);
    let claims = Claims::new(DEFAULT_ADMIN, DEFAULT_ORG, Role::Admin, id, scopes, now, expires_at);
    let token = sign(keys, &claims)?;
    write_private_file(&pending, format!("{token}\n").as_bytes())?;
    let admin_token = AdminToken {
        id,
        name: "bootstrap admin token",
        scopes: &scopes.names(),
        expires_at,
    };
    match store.bootstrap(DEFAULT_ORG, DEFAULT_ADMIN, admin_token).await {
        Ok(Some(_)) => {
            std::fs::rename(&pending, &token_file)?;
            Ok(Some(token))
        }
        Ok(None) => {
            let _ = std::fs::remove_file(&pending);
            Ok(None)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&pending);
            Err(e.into())
        }
    }
}
