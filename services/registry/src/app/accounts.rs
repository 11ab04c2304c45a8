//! Organisations, users and tokens as the REST API and the admin commands manage them:
//! the validation and rules live here once, both front ends only translate.

use std::time::Duration;

use cairn_store::{Actor, Organization, Role, Store, StoreError, TokenInfo, User, UserUpdate};

use crate::Services;
use crate::auth::scopes::{Scope, ScopeSet};
use crate::auth::{IssueError, IssuedToken, Principal, TokenKeys, TokenRequest, issue_token};
use crate::config::AccessSettings;

/// Why an account operation was refused; each message says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The input is malformed (a bad handle, slug, name, lifetime or scope).
    #[error("{0}")]
    Invalid(String),
    /// The caller may not grant what it asked for.
    #[error("{0}")]
    Forbidden(String),
    /// The organisation, user or token does not exist (for this caller).
    #[error("{0} does not exist")]
    NotFound(String),
    /// Taken name, or a change that would lock the organisation out.
    #[error("{0}")]
    Conflict(String),
    /// The database failed.
    #[error(transparent)]
    Store(StoreError),
    /// Signing failed.
    #[error("issuing the token failed: {0}")]
    Internal(IssueError),
}

impl From<StoreError> for AccountError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::NotFound(what) => AccountError::NotFound(what),
            StoreError::Conflict(message) => AccountError::Conflict(message),
            other => AccountError::Store(other),
        }
    }
}

/// Checks a user handle: `^[a-z0-9][a-z0-9._-]{0,63}$`.
pub fn check_handle(handle: &str) -> Result<(), AccountError> {
    if valid_identifier(handle, 64, "._-") {
        Ok(())
    } else {
        Err(AccountError::Invalid(format!(
            "'{handle}' is not a valid user handle: use 1 to 64 lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
        )))
    }
}

/// Checks an organisation slug: `^[a-z0-9][a-z0-9-]{0,62}$`.
pub fn check_org_slug(slug: &str) -> Result<(), AccountError> {
    if valid_identifier(slug, 63, "-") {
        Ok(())
    } else {
        Err(AccountError::Invalid(format!(
            "'{slug}' is not a valid organisation slug: use 1 to 63 lowercase letters, digits or '-', starting with a letter or digit"
        )))
    }
}

fn valid_identifier(text: &str, max: usize, punctuation: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    text.len() <= max
        && (first.is_ascii_lowercase() || first.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || punctuation.contains(c))
}

/// Longest token name.
const MAX_TOKEN_NAME: usize = 100;
/// Shortest token lifetime.
const MIN_TOKEN_TTL: Duration = Duration::from_secs(60);
/// Name of a token issued without one.
pub const DEFAULT_TOKEN_NAME: &str = "token";

/// Creates an organisation.
pub async fn add_org(
    store: &Store,
    slug: &str,
    name: Option<&str>,
    actor: &Actor,
) -> Result<Organization, AccountError> {
    check_org_slug(slug)?;
    let name = name.map(str::trim).filter(|n| !n.is_empty()).unwrap_or(slug);
    Ok(store.create_org(slug, name, actor).await?)
}

/// Adds a user to an organisation.
pub async fn add_user(
    store: &Store,
    org_id: i64,
    handle: &str,
    role: Role,
    actor: &Actor,
) -> Result<User, AccountError> {
    check_handle(handle)?;
    Ok(store.create_user(org_id, handle, role, actor).await?)
}

/// Changes a user's role and/or disabled state.
pub async fn update_user(
    store: &Store,
    org_id: i64,
    handle: &str,
    update: UserUpdate,
    actor: &Actor,
) -> Result<User, AccountError> {
    if update.role.is_none() && update.disabled.is_none() {
        return Err(AccountError::Invalid(
            "nothing to change: give a new 'role' and/or 'disabled'".to_owned(),
        ));
    }
    check_handle(handle)?;
    Ok(store.update_user(org_id, handle, update, actor).await?)
}

/// Changes a user's role and/or disabled state for a serving process: as
/// [`update_user`], then this process forgets its cached token checks at once (other
/// processes hear of the change through the database), so the change holds for the
/// user's next request everywhere.
pub async fn change_user(
    services: &Services,
    org_id: i64,
    handle: &str,
    update: UserUpdate,
    actor: &Actor,
) -> Result<User, AccountError> {
    let user = update_user(&services.store, org_id, handle, update, actor).await?;
    services.auth.forget_all();
    Ok(user)
}

/// Revokes a token the caller may see (their own; any of the organisation's for
/// admins); this process forgets its cached token checks at once, other processes hear
/// of it through the database.
pub async fn revoke_token(
    services: &Services,
    caller: &Principal,
    token_id: uuid::Uuid,
    actor: &Actor,
) -> Result<TokenInfo, AccountError> {
    let token = services
        .store
        .revoke_token(caller.org_id, token_owner_scope(caller), token_id, actor)
        .await?;
    services.auth.forget_all();
    Ok(token)
}

/// Who asks for a token, which bounds what it may carry.
#[derive(Clone, Copy, Debug)]
pub enum Issuer<'a> {
    /// An operator on the server's machine (`cairn-registry token issue`): up to the
    /// owner's role.
    Operator,
    /// An API caller: a token never carries more scopes than the calling token, and a
    /// token a caller issues for itself never outlives the calling token.
    Caller(&'a Principal),
}

/// What a new token should be: everything optional falls back to the settings.
#[derive(Clone, Copy, Debug)]
pub struct TokenSpec<'a> {
    /// Whose token it is.
    pub owner: &'a User,
    /// The owner's organisation slug.
    pub org_slug: &'a str,
    /// Who asks.
    pub issuer: Issuer<'a>,
    /// A label (default [`DEFAULT_TOKEN_NAME`]).
    pub name: Option<&'a str>,
    /// Lifetime (default from the settings, shortened to the issuing token's remaining
    /// life for self-service).
    pub ttl: Option<Duration>,
    /// Scope names (default: everything the issuer may grant). `read` is always included.
    pub scopes: Option<&'a [String]>,
}

/// Most active (unrevoked, unexpired) tokens one user may hold: a bound on what a leaked
/// token can mint, and on rate-limit budgets.
pub const MAX_ACTIVE_TOKENS_PER_USER: i64 = 100;

/// Issues a token as `spec` describes, after checking its name, lifetime and scopes.
pub async fn issue(
    store: &Store,
    keys: &TokenKeys,
    settings: &AccessSettings,
    spec: TokenSpec<'_>,
    actor: &Actor,
) -> Result<IssuedToken, AccountError> {
    let TokenSpec {
        owner,
        org_slug,
        issuer,
        ..
    } = spec;
    let name = spec.name.map(str::trim).unwrap_or(DEFAULT_TOKEN_NAME);
    if name.is_empty() || name.chars().count() > MAX_TOKEN_NAME || name.chars().any(char::is_control) {
        return Err(AccountError::Invalid(format!(
            "the token name must be 1 to {MAX_TOKEN_NAME} characters without control characters"
        )));
    }
    let ttl = lifetime(spec, settings)?;
    if owner.disabled {
        return Err(AccountError::Conflict(format!(
            "user '{}' is disabled: enable them before issuing tokens",
            owner.handle
        )));
    }
    let by_role = ScopeSet::of_role(owner.role);
    let grantable = match issuer {
        Issuer::Operator => by_role,
        Issuer::Caller(caller) => by_role.intersect(caller.scopes),
    };
    let scopes = match spec.scopes {
        None => grantable,
        Some(names) => ScopeSet::parse(names).map_err(AccountError::Invalid)?.with(Scope::Read),
    };
    if !scopes.is_subset(grantable) {
        let extra: Vec<&str> = scopes
            .iter()
            .filter(|s| !grantable.contains(*s))
            .map(Scope::as_str)
            .collect();
        let limit = if grantable == by_role {
            format!(
                "'{}' has the role '{}', which allows at most: {grantable}",
                owner.handle, owner.role
            )
        } else {
            format!("the token you are using can grant at most: {grantable}")
        };
        return Err(AccountError::Forbidden(format!(
            "cannot grant {}: {limit}",
            extra.join(", ")
        )));
    }
    if store.active_token_count(owner.id).await? >= MAX_ACTIVE_TOKENS_PER_USER {
        return Err(AccountError::Conflict(format!(
            "'{}' already has {MAX_ACTIVE_TOKENS_PER_USER} active tokens: revoke unused ones first",
            owner.handle
        )));
    }
    let request = TokenRequest {
        user: owner,
        org_slug,
        name,
        ttl,
        scopes,
    };
    issue_token(store, keys, request, actor).await.map_err(|e| match e {
        IssueError::Store(e) => AccountError::from(e),
        other => AccountError::Internal(other),
    })
}

/// The lifetime of a new token: asked or default, within the settings, and (for a
/// caller's own token) no longer than the calling token lives.
fn lifetime(spec: TokenSpec<'_>, settings: &AccessSettings) -> Result<Duration, AccountError> {
    let cap = match spec.issuer {
        Issuer::Caller(caller) if caller.user_id == spec.owner.id => {
            let left = (caller.expires_at - chrono::Utc::now()).to_std().unwrap_or_default();
            Some(left.min(settings.max_token_ttl))
        }
        _ => None,
    };
    let max = cap.unwrap_or(settings.max_token_ttl);
    let ttl = match spec.ttl {
        Some(ttl) => ttl,
        None => settings.default_token_ttl.min(max),
    };
    if ttl < MIN_TOKEN_TTL || ttl > settings.max_token_ttl {
        return Err(AccountError::Invalid(format!(
            "a token must live between 1 minute and {} (asked: {}); choose another ttl",
            describe_duration(settings.max_token_ttl),
            describe_duration(ttl)
        )));
    }
    if ttl > max {
        return Err(AccountError::Invalid(format!(
            "a token cannot outlive the token that issues it, which expires in {}: ask for a shorter ttl",
            describe_duration(Duration::from_secs(max.as_secs()))
        )));
    }
    Ok(ttl)
}

/// Whose tokens `caller` may read and revoke: admins any of their organisation (`None`),
/// everyone else only their own.
pub fn token_owner_scope(caller: &Principal) -> Option<i64> {
    (!caller.is_admin()).then_some(caller.user_id)
}

/// Resolves the owner a caller asks to list or issue tokens for (`None`: the caller).
/// Only admins may name someone else.
pub async fn token_owner(store: &Store, caller: &Principal, handle: Option<&str>) -> Result<User, AccountError> {
    match handle {
        Some(handle) if handle != caller.handle => {
            if !caller.is_admin() {
                return Err(AccountError::Forbidden(
                    "only admins can act on other users' tokens: leave out 'user' to use your own".to_owned(),
                ));
            }
            check_handle(handle)?;
            Ok(store.user_by_handle(caller.org_id, handle).await?)
        }
        _ => Ok(store.user_by_handle(caller.org_id, &caller.handle).await?),
    }
}

/// A lifetime as people say it: whole days as days (`366 days`), the rest as humantime
/// writes it (`90m`).
pub fn describe_duration(duration: Duration) -> String {
    const DAY: u64 = 24 * 3600;
    let seconds = duration.as_secs();
    if seconds >= DAY && seconds.is_multiple_of(DAY) && duration.subsec_nanos() == 0 {
        let days = seconds / DAY;
        format!("{days} day{}", if days == 1 { "" } else { "s" })
    } else {
        humantime::format_duration(duration).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_and_slugs_follow_their_rules() {
        for good in ["a", "alice", "ci-bot.2", "x_y", "0day"] {
            assert!(check_handle(good).is_ok(), "{good}");
        }
        for bad in ["", "Alice", "-a", ".a", "a b", "ä", &"a".repeat(65)] {
            let e = check_handle(bad).unwrap_err().to_string();
            assert!(e.contains("not a valid user handle"), "{bad}: {e}");
        }
        assert!(check_org_slug("acme-eu").is_ok());
        assert_eq!(describe_duration(Duration::from_secs(366 * 86_400)), "366 days");
        assert_eq!(describe_duration(Duration::from_secs(86_400)), "1 day");
        assert_eq!(describe_duration(Duration::from_secs(5400)), "1h 30m");
        for bad in ["", "acme.eu", "Acme", &"a".repeat(64)] {
            assert!(check_org_slug(bad).is_err(), "{bad}");
        }
    }
}
