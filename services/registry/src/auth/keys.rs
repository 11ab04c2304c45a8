//! The HMAC keys tokens are signed with: one current key that signs and verifies, and
//! optionally previous keys that only verify, so a key rotation can keep already issued
//! tokens working until they expire.

use std::path::Path;

use anyhow::{Context, Result};
use jsonwebtoken::{DecodingKey, EncodingKey};
use sha2::{Digest, Sha256};

use crate::private_file::{create_private_file_once, write_private_file};

/// Name of the generated signing key inside the data directory.
pub const SECRET_FILE: &str = "jwt.secret";
/// Keys retired by `cairn-registry key rotate --keep-old` (one per line), still accepted
/// for verification.
pub const PREVIOUS_FILE: &str = "jwt.previous";

/// One signing secret with the id (`kid`) tokens signed by it carry.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) kid: String,
    pub(crate) decoding: DecodingKey,
}

/// The keys used to sign and verify tokens.
#[derive(Clone)]
pub struct TokenKeys {
    pub(crate) encoding: EncodingKey,
    pub(crate) current: Key,
    /// Retired keys, tried when the current one does not verify a token.
    pub(crate) previous: Vec<Key>,
    /// Key material for the admin pages' encrypted session cookies, derived from the
    /// current secret (so replicas sharing the secret share sessions, and rotating it
    /// ends them).
    session: [u8; 64],
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKeys(<redacted>)")
    }
}

/// The shortest secret accepted.
const MIN_SECRET_BYTES: usize = 32;

fn key(secret: &[u8], what: &str) -> Result<Key> {
    anyhow::ensure!(
        secret.len() >= MIN_SECRET_BYTES,
        "{what} is too short: use at least {MIN_SECRET_BYTES} random bytes (e.g. `openssl rand -hex 32`)"
    );
    // A short, non-reversible fingerprint: tells which key signed a token without
    // revealing anything about the key.
    let kid = hex::encode(&Sha256::digest(secret)[..6]);
    Ok(Key {
        kid,
        decoding: DecodingKey::from_secret(secret),
    })
}

impl TokenKeys {
    /// Builds keys from a secret (at least 32 bytes), with no previous keys.
    pub fn from_secret(secret: &[u8]) -> Result<Self> {
        Self::with_previous(secret, &[])
    }

    /// Builds keys from the current secret and retired ones that still verify.
    pub fn with_previous(secret: &[u8], previous: &[&[u8]]) -> Result<Self> {
        let current = key(secret, "CAIRN_JWT_SECRET")?;
        let previous = previous
            .iter()
            .map(|p| key(p, "a previous signing key (CAIRN_JWT_PREVIOUS_SECRETS)"))
            .collect::<Result<Vec<_>>>()?;
        let mut session = sha2::Sha512::new();
        session.update(b"cairn admin session cookies v1\0");
        session.update(secret);
        Ok(TokenKeys {
            encoding: EncodingKey::from_secret(secret),
            current,
            previous,
            session: session.finalize().into(),
        })
    }

    /// Uses `secret` (and `previous`) when given, else the keys in the data directory:
    /// `jwt.secret`, created (mode 0600) on first use, and `jwt.previous`. Replicas must
    /// share `CAIRN_JWT_SECRET`.
    pub fn load(secret: Option<&str>, previous: &[String], data_dir: &Path) -> Result<Self> {
        if let Some(secret) = secret {
            let previous: Vec<&[u8]> = previous.iter().map(|p| p.as_bytes()).collect();
            return Self::with_previous(secret.as_bytes(), &previous);
        }
        let path = data_dir.join(SECRET_FILE);
        if !path.exists() {
            create_private_file_once(&path, new_secret().as_bytes())?;
        }
        let secret = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let retired = read_previous(data_dir)?;
        let retired: Vec<&[u8]> = retired.iter().map(|p| p.as_bytes()).collect();
        Self::with_previous(secret.trim().as_bytes(), &retired)
    }

    /// The key material the admin pages encrypt their cookies with (64 bytes, derived
    /// from the current secret; never the secret itself).
    pub fn session_key_material(&self) -> &[u8; 64] {
        &self.session
    }

    /// The id (`kid`) of the current key.
    pub fn current_kid(&self) -> &str {
        &self.current.kid
    }
}

/// 32 random bytes, hex-encoded.
fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    hex::encode(bytes)
}

fn read_previous(data_dir: &Path) -> Result<Vec<String>> {
    let path = data_dir.join(PREVIOUS_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(anyhow::Error::new(e).context(format!("reading {}", path.display()))),
    }
}

/// Replaces the data directory's signing key with a new one. With `keep_old`, the old key
/// is added to `jwt.previous` so tokens it signed keep working until they expire;
/// without it, every token issued so far stops working. Running servers pick the new
/// key up when restarted. Returns the new key's id.
pub fn rotate(data_dir: &Path, keep_old: bool) -> Result<String> {
    let path = data_dir.join(SECRET_FILE);
    let old = std::fs::read_to_string(&path).with_context(|| {
        format!(
            "reading {}: is --data-dir right? (CAIRN_JWT_SECRET keys are rotated by changing the variable)",
            path.display()
        )
    })?;
    let mut previous = read_previous(data_dir)?;
    if keep_old {
        previous.push(old.trim().to_owned());
    } else {
        previous.clear();
    }
    let secret = new_secret();
    let mut contents = previous.join("\n");
    contents.push('\n');
    // The retired keys first: a crash in between leaves the old key both current and
    // previous, which is harmless.
    write_private_file(&data_dir.join(PREVIOUS_FILE), contents.as_bytes())?;
    write_private_file(&path, secret.as_bytes())?;
    Ok(key(secret.as_bytes(), "the new key")?.kid)
}
