//! The gate's side of authorization, shared by every transport: who is calling and from
//! where ([`Caller`], [`RequestContext`], [`Reader`]), what each route requires
//! ([`Access`], [`Rule`]: one table, which every transport contributes its rows to), the
//! decision ([`authorize`]) and the middleware that enforces it ([`gate`]). Transports
//! declare their routes; none of them checks permissions in a handler. Two credentials
//! reach the gate: an API token in the `Authorization` header, and the review web's
//! session cookie ([`session`]), which holds one.
//!
//! A request is allowed when the route's scope is in the caller's *effective* scopes:
//! the token's scopes intersected with what the user's role grants **now** (so a demoted
//! user's old tokens lose their power at once, whatever their claims say).

pub mod gate;
pub mod prefix;
pub mod session;

use std::collections::HashMap;
use std::net::IpAddr;

use axum::extract::{DefaultBodyLimit, FromRequestParts};
use axum::handler::Handler;
use axum::http::Method;
use axum::http::request::Parts;
use axum::routing::{self, MethodFilter, MethodRouter};
use cairn_store::{Actor, Role};

use crate::AppState;
use crate::auth::Principal;
use crate::auth::scopes::{Scope, ScopeSet};
use crate::error::ApiError;

pub use gate::forwarded_https;

/// Largest request body accepted by default (the batch blob request is the biggest: a
/// list of ids); routes that take bundles raise it for themselves. gRPC messages share
/// the bound.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// Largest body of a route that takes a compressed bundle (a direct publish, a ClawHub
/// upload): the 10 MiB limit on its contents bounds it (archives are rarely larger than
/// their contents; the unpacker checks the limits themselves).
pub const MAX_BUNDLE_BODY_BYTES: usize = 16 << 20;

/// What a route requires of its caller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Anyone, without a token (health probes).
    Public,
    /// A valid token carrying this scope (after the role has capped it).
    Scope(Scope),
    /// The discovery and download endpoints other skill clients read
    /// (`/.well-known/…`): a token with `read`, or no token at all when the organisation
    /// opened them to anonymous clients.
    Discovery,
    /// A review-web page anyone may open (login, logout, assets, the not-found page):
    /// like `Public`, but its refusals are pages.
    OpenPage,
    /// A review-web page: a logged-in session ([`session`]) whose token carries this
    /// scope (after the role has capped it). Refusals are pages, not JSON.
    Session(Scope),
}

/// Why an authenticated caller may not use a route.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Denied {
    /// The user's role does not grant the scope.
    #[error(
        "this needs the '{needed}' permission, which the role '{role}' does not have: ask an admin of your organisation"
    )]
    Role {
        /// The scope the route needs.
        needed: Scope,
        /// The caller's current role.
        role: Role,
    },
    /// The role would allow it, but the token was issued with fewer scopes.
    #[error(
        "this needs the '{needed}' scope and this token only has: {granted}; issue a token with the '{needed}' scope"
    )]
    TokenScope {
        /// The scope the route needs.
        needed: Scope,
        /// The token's effective scopes.
        granted: ScopeSet,
    },
}

/// Decides whether a caller with `role` and token scopes `token_scopes` may use a route
/// requiring `access`. Pure and allocation-free: it runs on every request.
pub fn authorize(access: Access, role: Role, token_scopes: ScopeSet) -> Result<(), Denied> {
    let needed = match access {
        Access::Public | Access::OpenPage => return Ok(()),
        Access::Scope(needed) | Access::Session(needed) => needed,
        Access::Discovery => Scope::Read,
    };
    let by_role = ScopeSet::of_role(role);
    if !by_role.contains(needed) {
        return Err(Denied::Role { needed, role });
    }
    if !token_scopes.contains(needed) {
        return Err(Denied::TokenScope {
            needed,
            granted: token_scopes.intersect(by_role),
        });
    }
    Ok(())
}

/// One route and what it requires.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The HTTP method.
    pub method: Method,
    /// The route pattern, as axum matches it (`/v1/skills/{name}`).
    pub path: &'static str,
    /// What the caller needs.
    pub access: Access,
}

impl Rule {
    /// The rule for `method` on `path`.
    pub fn new(method: Method, path: &'static str, access: Access) -> Self {
        Rule { method, path, access }
    }
}

/// A route of a transport: its rule and its handler. Each transport lists its routes;
/// the server builds the router and the gate's table from the same list, so a route
/// cannot exist without a rule.
pub type Route = (Rule, MethodRouter<AppState>);

/// The route for `method` on `path`: its rule and a router that serves `handler` for that
/// method alone, so each route names its method once.
pub fn route<H, T>(method: Method, path: &'static str, access: Access, handler: H) -> Route
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).unwrap_or_else(|_| panic!("axum routes no {method} requests"));
    (Rule::new(method, path, access), routing::on(filter, handler))
}

/// `route` with a request body limit of its own (routes that take whole bundles).
pub fn with_body_limit((rule, handler): Route, max_bytes: usize) -> Route {
    (rule, handler.layer(DefaultBodyLimit::max(max_bytes)))
}

/// The authorization table as the gate consults it: route pattern → method → access.
pub type AccessTable = HashMap<&'static str, Vec<(Method, Access)>>;

/// Where a request came from, for the audit log.
#[derive(Clone, Debug)]
pub struct RequestContext {
    /// The request id (also in the `x-request-id` response header).
    pub request_id: Option<String>,
    /// The client's address (behind trusted proxies: the forwarded one).
    pub client_addr: IpAddr,
}

/// The authenticated caller and where the request came from: what mutating handlers need
/// to act and to be audited.
#[derive(Clone, Debug)]
pub struct Caller {
    /// Who.
    pub principal: Principal,
    /// From where.
    pub context: RequestContext,
}

impl Caller {
    /// The audit-log actor of this request.
    pub fn actor(&self) -> Actor {
        Actor {
            user_id: Some(self.principal.user_id),
            name: self.principal.handle.clone(),
            request_id: self.context.request_id.clone(),
            client_addr: Some(self.context.client_addr.to_string()),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let principal = parts.extensions.get::<Principal>().cloned();
        let context = parts.extensions.get::<RequestContext>().cloned();
        match (principal, context) {
            (Some(principal), Some(context)) => Ok(Caller { principal, context }),
            _ => Err(ApiError::internal(
                "a handler needing a caller is routed as public",
                &"missing principal",
            )),
        }
    }
}

/// Who reads a discovery endpoint: a token's organisation, or (without a token) the
/// organisation that opened its discovery endpoints to anonymous clients.
#[derive(Clone, Debug)]
pub struct Reader {
    /// The organisation whose skills are served.
    pub org_id: i64,
    /// The caller, when they sent a token.
    pub principal: Option<Principal>,
}

impl<S: Send + Sync> FromRequestParts<S> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts.extensions.get::<Reader>().cloned().ok_or_else(|| {
            ApiError::internal(
                "a discovery handler is routed without the discovery rule",
                &"missing reader",
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_role_caps_the_token_and_the_token_caps_the_role() {
        let all = ScopeSet::of_role(Role::Admin);
        // An admin token of a user since demoted to member.
        assert_eq!(
            authorize(Access::Scope(Scope::Admin), Role::Member, all),
            Err(Denied::Role {
                needed: Scope::Admin,
                role: Role::Member
            })
        );
        // A read-only CI token of an admin.
        let read = ScopeSet::EMPTY.with(Scope::Read);
        let denied = authorize(Access::Scope(Scope::Review), Role::Admin, read).unwrap_err();
        assert!(denied.to_string().contains("only has: read"), "{denied}");
        assert_eq!(authorize(Access::Scope(Scope::Read), Role::Admin, read), Ok(()));
        assert_eq!(authorize(Access::Public, Role::Reader, ScopeSet::EMPTY), Ok(()));
    }
}
