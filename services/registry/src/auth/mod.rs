//! API tokens: JWTs (HS256) whose `jti` names a database row, so every token can be
//! revoked, expires, and acts with the role the database holds *now* (the row wins over a
//! stale claim).
//!
//! Verification costs no I/O on the hot path: the signature and claims are checked in
//! memory and the token row is cached. The cache is only trusted while this process is
//! subscribed to access changes (PostgreSQL `LISTEN`, see [`Authenticator::follow_changes`]):
//! a revocation, a role change or a disabled user on any replica empties it at once.

mod keys;
pub mod scopes;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cairn_store::{Actor, AuthChange, NewToken, Role, Store, StoreError, TokenInfo, TokenPrincipal, User};
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

pub use keys::{PREVIOUS_FILE, SECRET_FILE, TokenKeys, rotate};

use scopes::{Scope, ScopeSet};

/// The key derived from the token-signing secret for what the registry hands out and
/// must recognise later: the review web's session and CSRF cookies (AES-256-GCM, through
/// `cookie`'s private jar), messages carried through redirects, ClawHub upload tickets.
#[derive(Clone)]
pub struct SessionKey(axum_extra::extract::cookie::Key);

impl SessionKey {
    /// The key for `material` (64 bytes derived from the token-signing secret).
    pub fn derive(material: &[u8; 64]) -> Self {
        SessionKey(axum_extra::extract::cookie::Key::from(material))
    }

    /// The key of the encrypted cookie jar.
    pub fn cookie_key(&self) -> &axum_extra::extract::cookie::Key {
        &self.0
    }

    /// An HMAC-SHA256 of `text` (hex), for values the server hands out and must
    /// recognise later (messages carried through redirects).
    pub fn sign(&self, text: &str) -> String {
        use hmac::Mac;
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(self.0.signing()).expect("HMAC takes any key length");
        mac.update(text.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}

/// Compares two secrets (CSRF tokens, signed tickets) in time independent of where they differ.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The claims Cairn puts in (and requires of) every token.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The user's handle.
    pub sub: String,
    /// The organisation's slug.
    pub org: String,
    /// The role at issue time (informational: the database role is authoritative).
    pub role: String,
    /// The scopes at issue time (informational: the token row is authoritative).
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

impl Claims {
    /// The claims of token `id` for `handle` (with `role`) in organisation `org_slug`.
    pub fn new(
        handle: &str,
        org_slug: &str,
        role: Role,
        id: Uuid,
        scopes: ScopeSet,
        issued_at: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> Self {
        Claims {
            sub: handle.to_owned(),
            org: org_slug.to_owned(),
            role: role.as_str().to_owned(),
            scopes: scopes.names(),
            jti: id.to_string(),
            exp: expires_at.timestamp(),
            iat: issued_at.timestamp(),
            nbf: issued_at.timestamp(),
        }
    }
}

/// Signs `claims` into a JWT (HS256) with the current key; the header names the key.
pub fn sign(keys: &TokenKeys, claims: &Claims) -> Result<String, jsonwebtoken::errors::Error> {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = Some(keys.current.kid.clone());
    jsonwebtoken::encode(&header, claims, &keys.encoding)
}

/// Why a token could not be issued.
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    /// Writing the token row failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Signing failed.
    #[error("signing the token failed: {0}")]
    Sign(#[from] jsonwebtoken::errors::Error),
    /// The lifetime does not fit the calendar.
    #[error("the token lifetime is too long")]
    Lifetime,
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
    /// What it may do (the owner's role caps it further at every use).
    pub scopes: ScopeSet,
}

/// A freshly issued token: the secret (shown once, never stored) and its row.
#[derive(Debug)]
pub struct IssuedToken {
    /// The JWT to give to the user.
    pub token: String,
    /// Its row.
    pub info: TokenInfo,
}

/// Issues a token: writes its row (with an audit entry), then signs the JWT.
pub async fn issue_token(
    store: &Store,
    keys: &TokenKeys,
    request: TokenRequest<'_>,
    actor: &Actor,
) -> Result<IssuedToken, IssueError> {
    let TokenRequest {
        user,
        org_slug,
        name,
        ttl,
        scopes,
    } = request;
    let id = Uuid::new_v4();
    let now = Utc::now();
    let expires_at = chrono::Duration::from_std(ttl)
        .ok()
        .and_then(|ttl| now.checked_add_signed(ttl))
        .ok_or(IssueError::Lifetime)?;
    let scope_names = scopes.names();
    let row = NewToken {
        id,
        user_id: user.id,
        org_id: user.org_id,
        name,
        scopes: &scope_names,
        expires_at,
    };
    let info = store.create_token(row, actor).await?;
    let token = sign(
        keys,
        &Claims::new(&user.handle, org_slug, user.role, id, scopes, now, expires_at),
    )?;
    Ok(IssuedToken { token, info })
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
    /// What this request may do: the token's scopes capped by the current role.
    pub scopes: ScopeSet,
    /// When the token expires.
    pub expires_at: DateTime<Utc>,
}

impl Principal {
    /// Whether the caller acts with admin powers (sees and manages everyone's tokens).
    pub fn is_admin(&self) -> bool {
        self.scopes.contains(Scope::Admin)
    }
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
    #[error("the token has expired: ask an admin for a new one, or issue one with POST /v1/tokens")]
    Expired,
    /// Not valid yet (`nbf` in the future): a clock problem on the issuing side.
    #[error("the token is not valid yet: check the clocks of this server and the one that issued it")]
    NotYetValid,
    /// Bad signature, wrong algorithm, unknown row, or claims that do not match the row.
    #[error("the token is not valid: check that you copied it whole, or ask an admin for a new one")]
    Invalid,
    /// Revoked.
    #[error("the token was revoked: ask an admin for a new one")]
    Revoked,
    /// The user is disabled.
    #[error("the token's user is disabled: ask an admin of your organisation")]
    Disabled,
    /// The user's role or the token's scopes no longer allow what the stream does.
    #[error("the token no longer allows this ({0} is needed): ask an admin, then reconnect")]
    NoLongerAllowed(&'static str),
    /// The database could not be asked.
    #[error("could not check the token right now: retry in a moment")]
    Unavailable(#[source] StoreError),
}

/// Longest a cached token row is trusted even while change notifications flow (a
/// safety net; notifications normally evict entries at once).
const PRINCIPAL_TTL: Duration = Duration::from_secs(30);
/// How often the change subscription proves it is alive; a silently dead one is noticed
/// within two of these.
const HEARTBEAT: Duration = Duration::from_secs(5);
/// How often a token's `last_used_at` is written at most.
const TOUCH_INTERVAL: Duration = Duration::from_secs(60);
/// Cache size bound; the cache is cleared when it fills up.
const CACHE_CAPACITY: usize = 10_000;
/// Clock skew tolerated for `exp` and `nbf`, in seconds.
const LEEWAY_SECONDS: u64 = 5;

/// Verified tokens remembered per process before the memory starts over (a few hundred
/// bytes each).
const MAX_VERIFIED_TOKENS: usize = 10_000;

struct CachedPrincipal {
    principal: Arc<TokenPrincipal>,
    fetched: Instant,
    touched: Option<Instant>,
}

/// Verifies bearer tokens: signature and claims first (no I/O), then the token row,
/// from the cache while change notifications are flowing, else from the database.
pub struct Authenticator {
    keys: TokenKeys,
    validation: Validation,
    /// Tokens whose signature checked out, by their exact text. Decoding and verifying a
    /// JWT (base64, two JSON documents, an HMAC) was the largest part of an
    /// authenticated 304; clients send the same token request after request. Only
    /// tokens that verified are kept (a forged one cannot fill it), the keys never change
    /// in a process, and expiry is checked on every use.
    verified: Mutex<HashMap<Box<str>, Arc<Claims>>>,
    cache: Mutex<HashMap<Uuid, CachedPrincipal>>,
    /// Whether a change subscription is live: only then may cached rows be used.
    following: AtomicBool,
    /// Bumped on every invalidation, so a row read before a change is never cached after it.
    generation: AtomicU64,
}

impl Authenticator {
    /// Creates an authenticator for tokens signed with `keys`. Until
    /// [`Authenticator::follow_changes`] runs, every check reads the token row.
    pub fn new(keys: TokenKeys) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.leeway = LEEWAY_SECONDS;
        validation.set_required_spec_claims(&["exp", "nbf", "sub", "jti"]);
        Authenticator {
            keys,
            validation,
            verified: Mutex::new(HashMap::new()),
            cache: Mutex::new(HashMap::new()),
            following: AtomicBool::new(false),
            generation: AtomicU64::new(0),
        }
    }

    /// Whether access changes are being followed (cached token checks are in use).
    pub fn is_following(&self) -> bool {
        self.following.load(Ordering::SeqCst)
    }

    /// The keys tokens are signed with.
    pub fn keys(&self) -> &TokenKeys {
        &self.keys
    }

    /// Checks an `Authorization` header value and returns the caller.
    pub async fn authenticate(&self, store: &Store, header: Option<&str>) -> Result<Principal, AuthError> {
        let header = header.ok_or(AuthError::Missing)?;
        let (scheme, token) = header.trim().split_once(' ').ok_or(AuthError::Malformed)?;
        if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
            return Err(AuthError::Malformed);
        }
        let claims = self.verify(token.trim())?;
        let token_id = Uuid::parse_str(&claims.jti).map_err(|_| AuthError::Invalid)?;
        let (row, needs_touch) = self.principal_row(store, token_id).await?;
        usable(&row)?;
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
        let scopes = ScopeSet::from_stored(&row.scopes).intersect(ScopeSet::of_role(row.role));
        Ok(Principal {
            token_id,
            user_id: row.user_id,
            handle: row.handle.clone(),
            role: row.role,
            org_id: row.org_id,
            org_slug: row.org_slug.clone(),
            scopes,
            expires_at: row.expires_at,
        })
    }

    /// Checks again a caller authenticated earlier, for requests that outlive their start
    /// (live-change streams): the token still unrevoked and unexpired, its user enabled,
    /// and `scope` still granted. Reads the cached row while access changes are followed,
    /// so calling it every few seconds per stream is cheap.
    pub async fn recheck(&self, store: &Store, principal: &Principal, scope: Scope) -> Result<(), AuthError> {
        let (row, _) = self.principal_row(store, principal.token_id).await?;
        usable(&row)?;
        if !ScopeSet::from_stored(&row.scopes)
            .intersect(ScopeSet::of_role(row.role))
            .contains(scope)
        {
            return Err(AuthError::NoLongerAllowed(scope.as_str()));
        }
        Ok(())
    }

    /// Checks signature, algorithm and time claims with the current key, then with the
    /// retired ones; a token verified before is only checked for expiry.
    fn verify(&self, token: &str) -> Result<Arc<Claims>, AuthError> {
        let known = self
            .verified
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(token)
            .cloned();
        if let Some(claims) = known {
            // As the JWT check does: expired once `exp` is more than the leeway ago. (Not
            // before: it held when the token was verified, and only becomes truer.)
            let now = jsonwebtoken::get_current_timestamp();
            if u64::try_from(claims.exp).unwrap_or(0) < now.saturating_sub(LEEWAY_SECONDS) {
                self.verified.lock().unwrap_or_else(|e| e.into_inner()).remove(token);
                return Err(AuthError::Expired);
            }
            return Ok(claims);
        }
        let claims = Arc::new(self.verify_signature(token)?);
        let mut verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
        if verified.len() >= MAX_VERIFIED_TOKENS {
            verified.clear();
        }
        verified.insert(token.into(), Arc::clone(&claims));
        Ok(claims)
    }

    fn verify_signature(&self, token: &str) -> Result<Claims, AuthError> {
        use jsonwebtoken::errors::ErrorKind;
        for key in std::iter::once(&self.keys.current).chain(&self.keys.previous) {
            match jsonwebtoken::decode::<Claims>(token, &key.decoding, &self.validation) {
                Ok(data) => return Ok(data.claims),
                // Another key may have signed it.
                Err(e) if *e.kind() == ErrorKind::InvalidSignature => {}
                Err(e) if *e.kind() == ErrorKind::ExpiredSignature => return Err(AuthError::Expired),
                Err(e) if *e.kind() == ErrorKind::ImmatureSignature => return Err(AuthError::NotYetValid),
                // Malformed, wrong algorithm (`none` included), missing claims: no other
                // key will help.
                Err(_) => return Err(AuthError::Invalid),
            }
        }
        Err(AuthError::Invalid)
    }

    /// Forgets every cached token row (after revocations or role changes).
    pub fn forget_all(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Keeps the cache honest for as long as the returned future runs: subscribes to
    /// access changes and empties the cache on each one. While the subscription is down
    /// (database restart, network), the cache is bypassed and every request reads its
    /// token row, so a change is never missed.
    pub async fn follow_changes(&self, store: Store) {
        let mut backoff = Duration::from_millis(100);
        loop {
            match store.auth_changes().await {
                Ok(mut changes) => {
                    backoff = Duration::from_millis(100);
                    self.forget_all();
                    self.following.store(true, Ordering::SeqCst);
                    tracing::debug!("following access changes");
                    if let Err(reason) = self.follow(&store, &mut changes).await {
                        tracing::warn!(%reason, "lost the access-change subscription; checking every token against the database until it is back");
                    }
                    self.following.store(false, Ordering::SeqCst);
                    self.forget_all();
                }
                Err(e) => {
                    tracing::warn!(error = %e, "cannot subscribe to access changes; retrying");
                }
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(10));
        }
    }

    /// Empties the cache on every change until the subscription fails. Every
    /// [`HEARTBEAT`] it sends itself a ping and expects to hear it before the next one, so
    /// a connection that died silently (a NAT or proxy dropping it) is noticed too.
    async fn follow(&self, store: &Store, changes: &mut cairn_store::AuthChanges) -> Result<(), String> {
        let mut heartbeat = tokio::time::interval(HEARTBEAT);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut awaiting: Option<String> = None;
        loop {
            tokio::select! {
                change = changes.next() => match change {
                    Ok(AuthChange::Changed(what)) => {
                        if let Some(ping) = what.strip_prefix("ping:") {
                            if awaiting.as_deref() == Some(ping) {
                                awaiting = None;
                            }
                            continue;
                        }
                        tracing::debug!(%what, "access changed; token cache emptied");
                        self.forget_all();
                    }
                    Ok(AuthChange::Reconnected) => self.forget_all(),
                    Err(e) => return Err(e.to_string()),
                },
                _ = heartbeat.tick() => {
                    if awaiting.is_some() {
                        return Err(format!("no heartbeat came back within {HEARTBEAT:?}"));
                    }
                    let nonce = Uuid::new_v4().simple().to_string();
                    match tokio::time::timeout(HEARTBEAT, store.ping_auth_changes(&nonce)).await {
                        Ok(Ok(())) => awaiting = Some(nonce),
                        Ok(Err(e)) => return Err(format!("sending a heartbeat failed: {e}")),
                        Err(_) => return Err("sending a heartbeat timed out".to_owned()),
                    }
                }
            }
        }
    }

    /// Stops trusting the cache (the change subscription ended).
    pub fn stop_following(&self) {
        self.following.store(false, Ordering::SeqCst);
        self.forget_all();
    }

    async fn principal_row(&self, store: &Store, token_id: Uuid) -> Result<(Arc<TokenPrincipal>, bool), AuthError> {
        let now = Instant::now();
        let following = self.following.load(Ordering::SeqCst);
        if following {
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
        let generation = self.generation.load(Ordering::SeqCst);
        let row = match store.token_principal(token_id).await {
            Ok(row) => Arc::new(row),
            Err(StoreError::NotFound(_)) => return Err(AuthError::Invalid),
            Err(e) => return Err(AuthError::Unavailable(e)),
        };
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let touched = cache.get(&token_id).and_then(|e| e.touched);
        let touch = touched.is_none_or(|t| now.duration_since(t) >= TOUCH_INTERVAL);
        // Cache only when nothing changed while the row was read (entries are also kept
        // while not following, to throttle `last_used_at` writes, but not used).
        if self.generation.load(Ordering::SeqCst) == generation {
            if cache.len() >= CACHE_CAPACITY {
                cache.clear();
            }
            cache.insert(
                token_id,
                CachedPrincipal {
                    principal: row.clone(),
                    fetched: now,
                    touched: if touch { Some(now) } else { touched },
                },
            );
        }
        Ok((row, touch))
    }
}

/// Whether a token row still works: not revoked, not expired, its user enabled.
fn usable(row: &TokenPrincipal) -> Result<(), AuthError> {
    if row.revoked_at.is_some() {
        return Err(AuthError::Revoked);
    }
    if row.expires_at <= Utc::now() {
        return Err(AuthError::Expired);
    }
    if row.disabled {
        return Err(AuthError::Disabled);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
        assert!(!same_secret("", "a"));
    }

    fn token(keys: &TokenKeys, issued: DateTime<Utc>, expires: DateTime<Utc>) -> String {
        let claims = Claims::new(
            "alice",
            "default",
            Role::Member,
            Uuid::new_v4(),
            ScopeSet::of_role(Role::Member),
            issued,
            expires,
        );
        sign(keys, &claims).unwrap()
    }

    #[test]
    fn rotated_keys_verify_old_tokens_only_when_kept() {
        let old = TokenKeys::from_secret(&[1u8; 32]).unwrap();
        let now = Utc::now();
        let old_token = token(&old, now, now + chrono::Duration::hours(1));
        let kept = Authenticator::new(TokenKeys::with_previous(&[2u8; 32], &[&[1u8; 32]]).unwrap());
        assert_eq!(kept.verify(&old_token).unwrap().sub, "alice");
        let new_token = token(kept.keys(), now, now + chrono::Duration::hours(1));
        assert!(kept.verify(&new_token).is_ok());
        let dropped = Authenticator::new(TokenKeys::from_secret(&[2u8; 32]).unwrap());
        assert!(matches!(dropped.verify(&old_token), Err(AuthError::Invalid)));
        // Tokens name their key; the id reveals nothing of it.
        let header = jsonwebtoken::decode_header(&new_token).unwrap();
        assert_eq!(header.kid.as_deref(), Some(kept.keys().current_kid()));
        assert_ne!(kept.keys().current_kid(), old.current_kid());
    }

    #[test]
    fn a_remembered_token_is_still_refused_once_it_expires_and_only_its_exact_text_is_remembered() {
        let keys = TokenKeys::from_secret(&[4u8; 32]).unwrap();
        let auth = Authenticator::new(keys.clone());
        let now = Utc::now();
        let valid = token(&keys, now, now + chrono::Duration::hours(1));
        assert!(auth.verify(&valid).is_ok());
        assert!(auth.verify(&valid).is_ok(), "remembered");
        // The same token with its signature's last character changed is checked afresh.
        let mut forged = valid.clone();
        let last = forged.pop().unwrap();
        forged.push(if last == 'A' { 'B' } else { 'A' });
        assert!(matches!(auth.verify(&forged), Err(AuthError::Invalid)));
        // Time passes beyond the expiry plus the leeway: the remembered claims say expired.
        let expired_since = jsonwebtoken::get_current_timestamp() - LEEWAY_SECONDS - 1;
        {
            let mut verified = auth.verified.lock().unwrap();
            let claims = verified.get_mut(valid.as_str()).unwrap();
            *claims = Arc::new(Claims {
                exp: i64::try_from(expired_since).unwrap(),
                ..(**claims).clone()
            });
        }
        assert!(matches!(auth.verify(&valid), Err(AuthError::Expired)));
        assert!(auth.verified.lock().unwrap().is_empty(), "forgotten once expired");
    }

    #[test]
    fn time_claims_are_enforced_with_a_small_leeway() {
        let keys = TokenKeys::from_secret(&[3u8; 32]).unwrap();
        let auth = Authenticator::new(keys.clone());
        let now = Utc::now();
        let expired = token(
            &keys,
            now - chrono::Duration::hours(2),
            now - chrono::Duration::minutes(1),
        );
        assert!(matches!(auth.verify(&expired), Err(AuthError::Expired)));
        let early = token(
            &keys,
            now + chrono::Duration::minutes(10),
            now + chrono::Duration::hours(1),
        );
        assert!(matches!(auth.verify(&early), Err(AuthError::NotYetValid)));
        let skewed = token(
            &keys,
            now + chrono::Duration::seconds(2),
            now + chrono::Duration::hours(1),
        );
        assert!(auth.verify(&skewed).is_ok(), "a 2 s clock skew is tolerated");
    }

    #[test]
    fn unsigned_and_malformed_tokens_are_invalid() {
        let keys = TokenKeys::from_secret(&[4u8; 32]).unwrap();
        let auth = Authenticator::new(keys.clone());
        let now = Utc::now();
        let good = token(&keys, now, now + chrono::Duration::hours(1));
        let parts: Vec<&str> = good.split('.').collect();
        // {"alg":"none","typ":"JWT"}
        let none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{}.", parts[1]);
        // {"alg":"HS512","typ":"JWT"} with the HS256 signature.
        let hs512 = format!("eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9.{}.{}", parts[1], parts[2]);
        for bad in [none.as_str(), hs512.as_str(), "a.b.c", "", "not-a-jwt"] {
            assert!(matches!(auth.verify(bad), Err(AuthError::Invalid)), "{bad}");
        }
    }
}
