//! First start: the default organisation, its first admin and the admin token.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use cairn_store::{Actor, Store};

use crate::auth::{TokenKeys, TokenRequest, issue_token, write_private_file};

/// Slug of the organisation created on first start.
pub const DEFAULT_ORG: &str = "default";
/// Handle of the admin created on first start.
pub const DEFAULT_ADMIN: &str = "admin";
/// Lifetime of the bootstrap admin token.
pub const ADMIN_TOKEN_TTL: Duration = Duration::from_secs(365 * 24 * 3600);
/// File (in the data directory) the bootstrap admin token is written to.
pub const ADMIN_TOKEN_FILE: &str = "admin.token";

/// On an empty database, creates the default organisation and admin and returns the
/// admin token (also written to `<data-dir>/admin.token`, mode 0600). Returns `None`
/// when the database was already set up.
pub async fn bootstrap(store: &Store, keys: &TokenKeys, data_dir: &Path) -> Result<Option<String>> {
    let Some((org, admin)) = store.bootstrap(DEFAULT_ORG, DEFAULT_ADMIN).await? else {
        return Ok(None);
    };
    let actor = Actor::cli("bootstrap");
    let request = TokenRequest {
        user: &admin,
        org_slug: &org.slug,
        name: "bootstrap admin token",
        ttl: ADMIN_TOKEN_TTL,
        scopes: &[],
    };
    let token = issue_token(store, keys, request, &actor).await?;
    write_private_file(&data_dir.join(ADMIN_TOKEN_FILE), format!("{token}\n").as_bytes())?;
    Ok(Some(token))
}
