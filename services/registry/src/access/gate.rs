//! The one gate every request passes, whatever its transport: request ids, rate limits,
//! authentication and the authorization table. Handlers never check permissions
//! themselves; they receive the [`Principal`](crate::auth::Principal) and the
//! [`RequestContext`] this middleware established.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::prefix::{CapabilityUrl, OrgPrefix};
use super::session::{RefusalPage, SessionCookie, SessionEnds, SessionRefusal};
use super::{Access, AccessTable, Reader, RequestContext, authorize};
use crate::AppState;
use crate::auth::scopes::{Scope, ScopeSet};
use crate::auth::{AuthError, Principal};
use crate::error::{ApiError, ErrorKind};
use crate::ratelimit::{Budget, Limited, tighter};

/// The header carrying each request's id (set when the client did not send one).
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// What the gate's two middlewares need, behind one `Arc`: cloning it per request is a
/// single reference-count increment (cloning the whole `AppState` twice per request
/// measurably cost throughput on the 304 path).
pub struct Gate {
    store: cairn_store::Store,
    auth: Arc<crate::auth::Authenticator>,
    limiters: Arc<crate::ratelimit::RateLimiters>,
    trusted_proxy_hops: usize,
    table: AccessTable,
    /// The paths never rate-limited: probes from orchestrators and load balancers.
    probes: Vec<&'static str>,
    /// Decrypts the review web's session cookie.
    session_key: crate::auth::SessionKey,
    /// How a refused session request is answered (the web's pages).
    refusal_page: RefusalPage,
}

impl Gate {
    /// The gate of `state` enforcing `table`; `probes` (public health routes) are never
    /// rate-limited; `refusal_page` answers refused [`Access::Session`] requests.
    pub fn new(
        state: &AppState,
        table: AccessTable,
        probes: Vec<&'static str>,
        refusal_page: RefusalPage,
    ) -> Arc<Self> {
        Arc::new(Gate {
            store: state.store.clone(),
            auth: state.auth.clone(),
            limiters: state.limiters.clone(),
            trusted_proxy_hops: state.access.trusted_proxy_hops,
            table,
            probes,
            session_key: state.session_key.clone(),
            refusal_page,
        })
    }
}

/// The access rule of a matched route; `HEAD` follows `GET`.
fn rule(table: &AccessTable, path: &str, method: &Method) -> Option<Access> {
    let method = if method == Method::HEAD { &Method::GET } else { method };
    table
        .get(path)?
        .iter()
        .find(|(m, _)| m == method)
        .map(|(_, access)| *access)
}

/// The budget the per-token limit left, handed from [`gate`] back to [`limit_address`].
#[derive(Clone, Copy, Debug)]
struct TokenBudget(Option<Budget>);

/// Outer middleware, for every request (unknown paths too) but the probes: establishes
/// the [`RequestContext`] and counts the request against its client address; on the way
/// out, adds the `RateLimit-*` headers of the tighter of the address and token budgets.
pub async fn limit_address(State(gate): State<Arc<Gate>>, mut request: Request, next: Next) -> Response {
    let context = RequestContext {
        request_id: request
            .headers()
            .get(&REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        client_addr: client_address(&request, gate.trusted_proxy_hops),
    };
    if gate.probes.contains(&request.uri().path()) {
        request.extensions_mut().insert(context);
        return next.run(request).await;
    }
    let address_budget = match gate.limiters.check_address(context.client_addr) {
        Ok(budget) => budget,
        Err(limited) => return too_many_requests(limited),
    };
    request.extensions_mut().insert(context);
    let response = next.run(request).await;
    let token_budget = response.extensions().get::<TokenBudget>().and_then(|b| b.0);
    with_budget(response, tighter(address_budget, token_budget))
}

/// The middleware of every route: for non-public routes the credential (a token, or the
/// review web's session), the authorization rule and the per-token limit. Runs inside
/// [`limit_address`].
pub async fn gate(State(gate): State<Arc<Gate>>, mut request: Request, next: Next) -> Response {
    let path = request.extensions().get::<MatchedPath>().cloned();
    let Some(access) = path
        .as_ref()
        .and_then(|p| rule(&gate.table, p.as_str(), request.method()))
    else {
        // Unreachable by construction (the router is built from the table): fail closed.
        return ApiError::internal("route without an access rule", &format!("{path:?}")).into_response();
    };
    if let Access::Session(_) = access {
        return session(&gate, access, request, next).await;
    }
    if access == Access::OpenPage {
        if super::prefix::writes_through_capability(&request) {
            return (gate.refusal_page)(&request, SessionRefusal::Failed(capability_writes()));
        }
        return next.run(request).await;
    }
    if super::prefix::writes_through_capability(&request) {
        return capability_writes().into_response();
    }
    if access == Access::Public {
        return next.run(request).await;
    }
    let org_prefix = request.extensions().get::<OrgPrefix>().map(|o| o.0.clone());
    let header = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok());
    // Only a request without any Authorization header is anonymous (a malformed one is
    // refused as such below).
    if access == Access::Discovery && !request.headers().contains_key(header::AUTHORIZATION) {
        return anonymous(&gate, org_prefix, request, next).await;
    }
    let principal = match gate.auth.authenticate(&gate.store, header).await {
        Ok(principal) => principal,
        Err(e) => return ApiError::from(e).into_response(),
    };
    if let Err(refused) = admit(access, &principal, org_prefix) {
        return refused.into_response();
    }
    // A capability URL is as secret as its token and travels in places headers do not:
    // only read-only tokens may be used that way.
    if request.extensions().get::<CapabilityUrl>().is_some() && principal.scopes != ScopeSet::EMPTY.with(Scope::Read) {
        return ApiError::new(
            ErrorKind::Forbidden,
            "forbidden",
            "capability URLs (/t/<token>/…) take read-only tokens: issue one with only the 'read' scope \
             (e.g. for a user with the reader role) and use that",
        )
        .into_response();
    }
    let token_budget = match gate.limiters.check_token(principal.token_id) {
        Ok(budget) => budget,
        Err(limited) => return too_many_requests(limited),
    };
    if access == Access::Discovery {
        request.extensions_mut().insert(Reader {
            org_id: principal.org_id,
            principal: Some(principal.clone()),
        });
    }
    request.extensions_mut().insert(principal);
    let mut response = next.run(request).await;
    response.extensions_mut().insert(TokenBudget(token_budget));
    response
}

/// Whether an authenticated caller may use a route requiring `access`: the authorization
/// rule, then the organisation of a `/o/<slug>/` prefix.
fn admit(access: Access, principal: &Principal, org_prefix: Option<String>) -> Result<(), ApiError> {
    authorize(access, principal.role, principal.scopes)
        .map_err(|denied| ApiError::new(ErrorKind::Forbidden, "forbidden", denied.to_string()))?;
    match org_prefix {
        Some(slug) if slug != principal.org_slug => Err(ApiError::new(
            ErrorKind::Forbidden,
            "forbidden",
            format!(
                "this token belongs to the organisation '{}', not '{slug}': leave out the /o/{slug} prefix",
                principal.org_slug
            ),
        )),
        _ => Ok(()),
    }
}

/// The refusal of a write through a capability URL.
fn capability_writes() -> ApiError {
    ApiError::new(
        ErrorKind::Forbidden,
        "forbidden",
        "capability URLs (/t/<token>/…) only read: send the token in an 'Authorization: Bearer' header to change anything",
    )
}

/// A review-web request: the session cookie stands for the token it holds (the
/// `Authorization` header is not read), then the same rule and per-token limit as the
/// API. Refusals are the web's pages.
async fn session(gate: &Gate, access: Access, mut request: Request, next: Next) -> Response {
    let refuse = |request: &Request, refusal| (gate.refusal_page)(request, refusal);
    if super::prefix::writes_through_capability(&request) {
        return refuse(&request, SessionRefusal::Failed(capability_writes()));
    }
    let Some(cookie) = SessionCookie::read(request.headers(), &gate.session_key) else {
        return refuse(&request, SessionRefusal::LoginRequired(None));
    };
    if cookie.expires_at <= chrono::Utc::now() {
        return refuse(&request, SessionRefusal::LoginRequired(Some("expired")));
    }
    let bearer = format!("Bearer {}", cookie.token);
    let principal = match gate.auth.authenticate(&gate.store, Some(&bearer)).await {
        Ok(principal) => principal,
        Err(e @ AuthError::Unavailable(_)) => return refuse(&request, SessionRefusal::Failed(e.into())),
        Err(e) => {
            let reason = match e {
                AuthError::Revoked => "revoked",
                AuthError::Disabled => "disabled",
                AuthError::Expired => "token-expired",
                _ => "invalid",
            };
            return refuse(&request, SessionRefusal::LoginRequired(Some(reason)));
        }
    };
    let org_prefix = request.extensions().get::<OrgPrefix>().map(|o| o.0.clone());
    if let Err(refused) = admit(access, &principal, org_prefix) {
        return refuse(&request, SessionRefusal::Failed(refused));
    }
    let token_budget = match gate.limiters.check_token(principal.token_id) {
        Ok(budget) => budget,
        Err(limited) => {
            let mut response = refuse(&request, SessionRefusal::Failed(rate_limited(&limited)));
            limit_headers(&mut response, &limited);
            return response;
        }
    };
    request.extensions_mut().insert(SessionEnds(cookie.expires_at));
    request.extensions_mut().insert(principal);
    let mut response = next.run(request).await;
    response.extensions_mut().insert(TokenBudget(token_budget));
    response
}

/// A discovery request without a token: allowed when the organisation (the `/o/<slug>/`
/// prefix, or the default organisation) opened its discovery endpoints.
async fn anonymous(gate: &Gate, org_prefix: Option<String>, mut request: Request, next: Next) -> Response {
    let slug = org_prefix.unwrap_or_else(|| crate::bootstrap::DEFAULT_ORG.to_owned());
    match gate.store.anonymous_read(&slug).await {
        Ok(Some((org_id, true))) => {
            request.extensions_mut().insert(Reader { org_id, principal: None });
            next.run(request).await
        }
        Ok(_) => ApiError::new(
            ErrorKind::Unauthenticated,
            "unauthorized",
            format!(
                "the organisation '{slug}' does not serve anonymous clients: send a token ('Authorization: Bearer <token>'), \
                 use a capability URL (/t/<token>/…), or ask an admin to allow anonymous reads \
                 (cairn-registry org set {slug} --anonymous-read on)"
            ),
        )
        .into_response(),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// Longest client-chosen request id kept.
const MAX_REQUEST_ID: usize = 64;

/// Outermost step, synchronous: a client's `x-request-id` is kept only when it is a
/// plausible id (at most 64 of `A-Z a-z 0-9 . _ : -`); otherwise (or when there is none)
/// the server makes one, so logs and the audit log never carry arbitrary client text.
pub fn assign_request_id<B>(mut request: axum::http::Request<B>) -> axum::http::Request<B> {
    let usable = request.headers().get(&REQUEST_ID).is_some_and(|v| {
        let bytes = v.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= MAX_REQUEST_ID
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-'))
    });
    if !usable {
        let id = uuid::Uuid::new_v4().to_string();
        if let Ok(value) = HeaderValue::from_str(&id) {
            request.headers_mut().insert(&REQUEST_ID, value);
        }
    }
    request
}

/// The client's address: the connection's, or with `hops` trusted proxies in front, the
/// `hops`-th address from the right of `X-Forwarded-For` (the one the outermost trusted
/// proxy saw). Anything left of it is client-supplied and ignored.
fn client_address(request: &Request, hops: usize) -> IpAddr {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    if hops == 0 {
        return peer;
    }
    forwarded_for(request.headers(), hops).unwrap_or(peer)
}

/// Whether the request reached the outermost of `hops` trusted proxies over TLS
/// (`X-Forwarded-Proto: https` as the last proxy set it); never without trusted proxies,
/// since the registry itself serves plain HTTP.
pub fn forwarded_https(headers: &HeaderMap, hops: usize) -> bool {
    hops > 0
        && headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
}

fn forwarded_for(headers: &HeaderMap, hops: usize) -> Option<IpAddr> {
    let chain: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .collect();
    let index = chain.len().checked_sub(hops)?;
    chain.get(index)?.parse().ok()
}

/// A 429 with `Retry-After` and the exhausted budget.
fn too_many_requests(limited: Limited) -> Response {
    let mut response = rate_limited(&limited).into_response();
    limit_headers(&mut response, &limited);
    response
}

/// The error of an exhausted budget.
fn rate_limited(limited: &Limited) -> ApiError {
    let message = format!(
        "too many requests from this {} (limit {}): retry after {} s",
        limited.key,
        limited.limit,
        retry_seconds(limited.retry_after)
    );
    ApiError::new(ErrorKind::RateLimited, "rate_limited", message)
}

/// Whole seconds to wait, at least one.
fn retry_seconds(wait: std::time::Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

/// `Retry-After` and the exhausted budget's `RateLimit-*` headers.
fn limit_headers(response: &mut Response, limited: &Limited) {
    let headers = response.headers_mut();
    headers.insert(
        header::RETRY_AFTER,
        HeaderValue::from(retry_seconds(limited.retry_after)),
    );
    headers.insert("ratelimit-limit", HeaderValue::from(limited.limit.count.get()));
    headers.insert("ratelimit-remaining", HeaderValue::from(0));
    headers.insert("ratelimit-reset", HeaderValue::from(retry_seconds(limited.full_after)));
}

/// Adds `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds), unless
/// a refusal already set them.
fn with_budget(mut response: Response, budget: Option<Budget>) -> Response {
    if response.headers().contains_key("ratelimit-limit") {
        return response;
    }
    if let Some(budget) = budget {
        let reset = budget.reset.as_secs_f64().ceil() as u64;
        let headers = response.headers_mut();
        headers.insert("ratelimit-limit", HeaderValue::from(budget.limit));
        headers.insert("ratelimit-remaining", HeaderValue::from(budget.remaining));
        headers.insert("ratelimit-reset", HeaderValue::from(reset));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_takes_the_address_the_trusted_proxy_saw() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.7, 10.0.0.2"),
        );
        assert_eq!(forwarded_for(&headers, 1), Some("10.0.0.2".parse().unwrap()));
        assert_eq!(forwarded_for(&headers, 2), Some("203.0.113.7".parse().unwrap()));
        assert_eq!(forwarded_for(&headers, 4), None);
        headers.insert("x-forwarded-for", HeaderValue::from_static("not-an-ip"));
        assert_eq!(forwarded_for(&headers, 1), None);
    }
}
