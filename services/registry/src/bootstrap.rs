//! First start: the default organisation, its first admin and the admin token.

use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use cairn_store::{AdminToken, Store};
use chrono::Utc;
use uuid::Uuid;

use crate::auth::{TokenKeys, sign, write_private_file};

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
    let id = Uuid::new_v4();
    let now = Utc::now();
    let expires_at = now + chrono::Duration::from_std(ADMIN_TOKEN_TTL)?;
    let admin_token = AdminToken {
        id,
        name: "bootstrap admin token",
        expires_at,
    };
    let Some((org, admin)) = store.bootstrap(DEFAULT_ORG, DEFAULT_ADMIN, admin_token).await? else {
        return Ok(None);
    };
    let token = sign(keys, &admin, &org.slug, id, &[], now, expires_at)?;
    write_private_file(&data_dir.join(ADMIN_TOKEN_FILE), format!("{token}\n").as_bytes())?;
    Ok(Some(token))
}
