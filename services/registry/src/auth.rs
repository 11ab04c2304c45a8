//! API tokens: JWTs (HS256) whose `jti` names a database row, so every token can be
//! revoked, expires, and carries the role the database holds *now* (the row wins over a
//! stale claim).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use cairn_store::{Actor, NewToken, Role, Store, StoreError, TokenPrincipal, User};
use chrono::Utc;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The claims Cairn puts in (and requires of) every token.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The user's handle.
    pub sub: String,
    /// The organisation's slug.
    pub org: String,
    /// The role at issue time (informational: the database role is authoritative).
    pub role: String,
    /// Extra scopes.
    pub scopes: Vec<String>,
    /// The token row's id.
    pub jti: String,
    /// Expiry (seconds since the epoch).
    pub exp: i64,
    /// Issued at.
    pub iat: i64,
    /// Not valid before.
    pub nbf: i64,
}

/// The HMAC key pair used to sign and verify tokens.
#[derive(Clone)]
pub struct TokenKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(<redacted>)")
    }
}

/// Name of the generated signing key inside the data directory.
const SECRET_FILE: &str = "jwt.secret";

impl TokenKeys {
    /// Builds keys from a secret (at least 32 bytes).
    pub fn from_secret(secret: &[u8]) -> Result<Self> {
        anyhow::ensure!(
            secret.len() >= 32,
            "CAIRN_JWT_SECRET is too short: use at least 32 random bytes (e.g. `openssl rand -hex 32`)"
        );
        Ok(TokenKeys {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        })
    }

    /// Uses `secret` when given, else the key in `<data_dir>/jwt.secret`, creating it
    /// (mode 0600) on first use. Replicas must share `CAIRN_JWT_SECRET`.
    pub fn load(secret: Option<&str>, data_dir: &Path) -> Result<Self> {
        if let Some(secret) = secret {
            return Self::from_secret(secret.as_bytes());
        }
        let path = data_dir.join(SECRET_FILE);
        if !path.exists() {
            let mut bytes = [0u8; 32];
            rand::fill(&mut bytes);
            create_private_file_once(&path, hex::encode(bytes).as_bytes())?;
        }
        let secret = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        Self::from_secret(secret.trim().as_bytes())
    }
}

/// Creates `path` (0600) with `contents` unless it exists: written to a temporary file and
/// hard-linked into place, so two processes starting at once agree on one complete file.
fn create_private_file_once(path: &Path, contents: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.new", Uuid::new_v4().simple()));
    write_private_file(&tmp, contents)?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => sync_parent(path),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // Filesystems without hard links: exclusive creation still lets one process win.
        Err(_) => {
            use std::io::Write;
            use std::os::unix::fs::OpenOptionsExt;
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
            {
                Ok(mut file) => {
                    file.write_all(contents)?;
                    file.sync_all()?;
                    sync_parent(path)
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(e) => Err(anyhow::Error::new(e).context(format!("writing {}", path.display()))),
            }
        }
    }
}

/// Writes `contents` to `path` readable by the owner only (0600), replacing any old file.
pub fn write_private_file(path: &Path, contents: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", Uuid::new_v4().simple()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(contents)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    sync_parent(path)
}

/// Makes a new or renamed file's directory entry durable.
fn sync_parent(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .with_context(|| format!("syncing {}", dir.display()))?;
    }
    Ok(())
}

/// What to issue a token for.
#[derive(Clone, Copy, Debug)]
pub struct TokenRequest<'a> {
    /// The owner.
    pub user: &'a User,
    /// The owner's organisation slug (goes into the `org` claim).
    pub org_slug: &'a str,
    /// A label for the token.
    pub name: &'a str,
    /// How long it stays valid.
    pub ttl: Duration,
    /// Extra scopes.
    pub scopes: &'a [String],
}

/// Issues a token: writes its row, then signs the JWT.
pub async fn issue_token(store: &Store, keys: &TokenKeys, request: TokenRequest<'_>, actor: &Actor) -> Result<String> {
    let TokenRequest {
        user,
        org_slug,
        name,
        ttl,
        scopes,
    } = request;
    let id = Uuid::new_v4();
    let now = Utc::now();
    let ttl = chrono::Duration::from_std(ttl).context("token lifetime is too long")?;
    let expires_at = now + ttl;
    let row = NewToken {
        id,
        user_id: user.id,
        org_id: user.org_id,
        name,
        scopes,
        expires_at,
    };
    store.create_token(row, actor).await?;
    sign(
        keys,
        &Claims::new(&user.handle, org_slug, user.role, id, scopes, now, expires_at),
    )
}

/// Signs `claims` into a JWT (HS256).
pub fn sign(keys: &TokenKeys, claims: &Claims) -> Result<String> {
    Ok(jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &keys.encoding,
    )?)
}

impl Claims {
    /// The claims of token `id` for `handle` (with `role`) in organisation `org_slug`.
    pub fn new(
        handle: &str,
        org_slug: &str,
        role: Role,
        id: Uuid,
        scopes: &[String],
        issued_at: chrono::DateTime<Utc>,
        expires_at: chrono::DateTime<Utc>,
    ) -> Self {
        Claims {
            sub: handle.to_owned(),
            org: org_slug.to_owned(),
            role: role.as_str().to_owned(),
            scopes: scopes.to_vec(),
            jti: id.to_string(),
            exp: expires_at.timestamp(),
            iat: issued_at.timestamp(),
            nbf: issued_at.timestamp(),
        }
    }
}

/// The authenticated caller of a request.
#[derive(Clone, Debug)]
pub struct Principal {
    /// The token's id.
    pub token_id: Uuid,
    /// The user's id.
    pub user_id: i64,
    /// The user's handle.
    pub handle: String,
    /// The user's current role.
    pub role: Role,
    /// The organisation's id.
    pub org_id: i64,
    /// The organisation's slug.
    pub org_slug: String,
    /// The token's scopes.
    pub scopes: Vec<String>,
}

/// Why a token was refused. The messages go to the client, so they say what to do
/// without revealing which internal check failed beyond what helps.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization` header.
    #[error("this endpoint needs a token: send 'Authorization: Bearer <token>'")]
    Missing,
    /// Not `Bearer <token>`.
    #[error("the Authorization header must be 'Bearer <token>'")]
    Malformed,
    /// Expired (by claim or by row).
    #[error("the token has expired: ask an admin for a new one")]
    Expired,
    /// Bad signature, wrong algorithm, not yet valid, unknown row, or claims that do not
    /// match the row.
    #[error("the token is not valid: check that you copied it whole, or ask an admin for a new one")]
    Invalid,
    /// Revoked.
    #[error("the token was revoked: ask an admin for a new one")]
    Revoked,
    /// The user is disabled.
    #[error("the token's user is disabled: ask an admin")]
    Disabled,
    /// The database could not be asked.
    #[error("could not check the token right now")]
    Unavailable(#[source] StoreError),
}

/// How long a verified token's database row is trusted before it is read again.
const PRINCIPAL_TTL: Duration = Duration::from_secs(5);
/// How often a token's `last_used_at` is written at most.
const TOUCH_INTERVAL: Duration = Duration::from_secs(60);
/// Cache size bound; the cache is cleared when it fills up.
const CACHE_CAPACITY: usize = 10_000;

struct CachedPrincipal {
    principal: TokenPrincipal,
    fetched: Instant,
    touched: Option<Instant>,
}

/// Verifies bearer tokens: signature and claims first (no I/O), then the token row,
/// cached for a few seconds so hot paths (index polling) cost no database round trip.
pub struct Authenticator {
    keys: TokenKeys,
    validation: Validation,
    cache: Mutex<HashMap<Uuid, CachedPrincipal>>,
}

impl Authenticator {
    /// Creates an authenticator for tokens signed with `keys`.
    pub fn new(keys: TokenKeys) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.leeway = 5;
        validation.set_required_spec_claims(&["exp", "nbf", "sub", "jti"]);
        Authenticator {
            keys,
            validation,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Checks an `Authorization` header value and returns the caller.
    pub async fn authenticate(&self, store: &Store, header: Option<&str>) -> Result<Principal, AuthError> {
        let header = header.ok_or(AuthError::Missing)?;
        let (scheme, token) = header.trim().split_once(' ').ok_or(AuthError::Malformed)?;
        if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
            return Err(AuthError::Malformed);
        }
        let claims = jsonwebtoken::decode::<Claims>(token.trim(), &self.keys.decoding, &self.validation)
            .map_err(|e| match e.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => AuthError::Expired,
                _ => AuthError::Invalid,
            })?
            .claims;
        let token_id = Uuid::parse_str(&claims.jti).map_err(|_| AuthError::Invalid)?;
        let (row, needs_touch) = self.principal_row(store, token_id).await?;
        if row.revoked_at.is_some() {
            return Err(AuthError::Revoked);
        }
        if row.expires_at <= Utc::now() {
            return Err(AuthError::Expired);
        }
        if row.disabled {
            return Err(AuthError::Disabled);
        }
        if row.handle != claims.sub || row.org_slug != claims.org {
            return Err(AuthError::Invalid);
        }
        if needs_touch {
            let store = store.clone();
            tokio::spawn(async move {
                if let Err(e) = store.touch_token(token_id).await {
                    tracing::warn!(error = %e, "recording token use failed");
                }
            });
        }
        Ok(Principal {
            token_id,
            user_id: row.user_id,
            handle: row.handle,
            role: row.role,
            org_id: row.org_id,
            org_slug: row.org_slug,
            scopes: row.scopes,
        })
    }

    /// Forgets every cached token row (after revocations or role changes).
    pub fn forget_all(&self) {
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    async fn principal_row(&self, store: &Store, token_id: Uuid) -> Result<(TokenPrincipal, bool), AuthError> {
        let now = Instant::now();
        {
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(entry) = cache.get_mut(&token_id)
                && now.duration_since(entry.fetched) < PRINCIPAL_TTL
            {
                let touch = entry.touched.is_none_or(|t| now.duration_since(t) >= TOUCH_INTERVAL);
                if touch {
                    entry.touched = Some(now);
                }
                return Ok((entry.principal.clone(), touch));
            }
        }
        let row = match store.token_principal(token_id).await {
            Ok(row) => row,
            Err(StoreError::NotFound(_)) => return Err(AuthError::Invalid),
            Err(e) => return Err(AuthError::Unavailable(e)),
        };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHE_CAPACITY {
            cache.clear();
        }
        let touched = cache.get(&token_id).and_then(|e| e.touched);
        let touch = touched.is_none_or(|t| now.duration_since(t) >= TOUCH_INTERVAL);
        cache.insert(
            token_id,
            CachedPrincipal {
                principal: row.clone(),
                fetched: now,
                touched: if touch { Some(now) } else { touched },
            },
        );
        Ok((row, touch))
    }
}
