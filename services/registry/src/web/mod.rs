//! The review web under `/admin`: server-rendered pages (askama templates compiled into
//! the binary) where reviewers read patches and decide, and admins run the organisation.
//!
//! Every page works without JavaScript (forms post, links navigate); `assets/cairn.js`
//! adds live queue updates, keyboard shortcuts and the diff-view switch where it runs.
//! Pages authenticate with an encrypted session cookie ([`session`]); the same gate as the
//! API's authorizes and rate-limits them from the route table ([`routes`]), and they call
//! the same application services as the API.

pub mod assets;
pub mod error;
mod pages;
pub mod render;
pub mod session;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, Method, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Redirect, Response};

use crate::AppState;
use crate::access::session::SessionRefusal;
use crate::access::{Access, Route, route};
use crate::auth::scopes::Scope;
use error::WebError;
use session::Viewer;

/// The pages' routes, each with its rule: pages need a logged-in session with a scope
/// ([`Access::Session`]); the gate authenticates the session cookie, authorizes and
/// rate-limits them like API requests. Login, logout, the assets, the `/admin` redirect
/// and the not-found page are open to everyone.
#[rustfmt::skip]
pub fn routes() -> Vec<Route> {
    use Method as M;
    use pages::{audit, login, members, owners, patch, policy, queue, security, skills, tokens, webhooks};
    const OPEN: Access = Access::OpenPage;
    const READ: Access = Access::Session(Scope::Read);
    const SUBMIT: Access = Access::Session(Scope::Submit);
    const REVIEW: Access = Access::Session(Scope::Review);
    const ADMIN: Access = Access::Session(Scope::Admin);
    vec![
        route(M::GET, "/admin", OPEN, home),
        route(M::GET, "/admin/", OPEN, home),
        route(M::GET, "/admin/login", OPEN, login::form),
        route(M::POST, "/admin/login", OPEN, login::submit),
        route(M::POST, "/admin/logout", OPEN, login::logout),
        route(M::GET, "/admin/assets/{file}", OPEN, assets::serve),
        route(M::GET, "/admin/queue", READ, queue::page),
        route(M::GET, "/admin/queue/events", READ, queue::events),
        route(M::POST, "/admin/queue/batch", REVIEW, queue::batch),
        route(M::GET, "/admin/patches/{id}", READ, patch::page),
        route(M::POST, "/admin/patches/{id}/approve", REVIEW, patch::approve),
        route(M::POST, "/admin/patches/{id}/reject", REVIEW, patch::reject),
        route(M::POST, "/admin/patches/{id}/withdraw", SUBMIT, patch::withdraw),
        route(M::POST, "/admin/patches/{id}/resolve", REVIEW, patch::resolve),
        route(M::POST, "/admin/patches/{id}/duplicate", REVIEW, patch::duplicate),
        route(M::POST, "/admin/patches/{id}/findings/dismiss", REVIEW, patch::dismiss),
        route(M::POST, "/admin/patches/{id}/comments", SUBMIT, patch::comment),
        route(M::POST, "/admin/patches/{id}/request-changes", REVIEW, patch::request_changes),
        route(M::GET, "/admin/skills", READ, skills::list),
        route(M::GET, "/admin/skills/{name}", READ, skills::page),
        route(M::GET, "/admin/skills/{name}/diff", READ, skills::diff),
        route(M::GET, "/admin/skills/{name}/versions/{rev}/bundle", READ, skills::download),
        route(M::GET, "/admin/skills/{name}/versions/{rev}/files/{*path}", READ, skills::file),
        route(M::POST, "/admin/skills/{name}/versions/{rev}/yank", REVIEW, skills::yank),
        route(M::POST, "/admin/skills/{name}/versions/{rev}/unyank", REVIEW, skills::unyank),
        route(M::GET, "/admin/owners", READ, owners::page),
        route(M::POST, "/admin/owners", ADMIN, owners::set),
        route(M::GET, "/admin/members", ADMIN, members::page),
        route(M::POST, "/admin/members", ADMIN, members::add),
        route(M::POST, "/admin/members/{handle}", ADMIN, members::update),
        // Every user manages their own tokens; admins everyone's (checked by the use case).
        route(M::GET, "/admin/tokens", READ, tokens::page),
        route(M::POST, "/admin/tokens", READ, tokens::issue),
        route(M::POST, "/admin/tokens/{id}/revoke", READ, tokens::revoke),
        route(M::GET, "/admin/webhooks", ADMIN, webhooks::page),
        route(M::POST, "/admin/webhooks", ADMIN, webhooks::create),
        route(M::GET, "/admin/webhooks/{id}", ADMIN, webhooks::deliveries),
        route(M::POST, "/admin/webhooks/{id}/delete", ADMIN, webhooks::delete),
        route(M::GET, "/admin/policy", ADMIN, policy::page),
        route(M::POST, "/admin/policy", ADMIN, policy::save),
        route(M::POST, "/admin/policy/access", ADMIN, policy::save_access),
        route(M::GET, "/admin/audit", ADMIN, audit::page),
        route(M::GET, "/admin/security", ADMIN, security::page),
        route(M::POST, "/admin/security/rescan", ADMIN, security::rescan),
        route(M::POST, "/admin/security/quarantine/{id}/release", ADMIN, security::release),
        route(M::POST, "/admin/security/quarantine/{id}/delete", ADMIN, security::delete),
        route(M::GET, "/admin/{*rest}", OPEN, missing),
        route(M::POST, "/admin/{*rest}", OPEN, missing),
    ]
}

/// What every page passes through besides the gate (which `pages`, the router of
/// [`routes`] behind the gate, already has): links from other sites re-arrive with the
/// session, and every response carries the pages' security headers.
pub fn layers(pages: Router<AppState>) -> Router<AppState> {
    pages
        .layer(middleware::from_fn(arrive_same_site))
        .layer(middleware::from_fn(security_headers))
}

/// How the gate answers a refused page request: the login page (the queue's live
/// refresh gets a bare 401), or an error page saying what is needed.
pub fn refusal_page(request: &Request, refusal: SessionRefusal) -> Response {
    match refusal {
        SessionRefusal::LoginRequired(reason) => WebError::LoginRequired {
            next: session::return_path(request.method(), request.uri()),
            reason,
            fragment: session::wants_fragment(request.headers()),
        },
        SessionRefusal::Failed(error) => WebError::Failed(error),
    }
    .into_response()
}

/// `/admin`: the review queue.
async fn home() -> Redirect {
    Redirect::to("/admin/queue")
}

/// Any other path under `/admin`.
async fn missing() -> WebError {
    WebError::not_found("There is no such page. Start from the review queue.")
}

/// A link followed from another site (chat, email, a webhook notification) arrives
/// without the `SameSite=Strict` cookies, so it would land on the login page (and a new
/// CSRF token would break forms open in other tabs). Such a navigation gets a tiny page
/// that reloads the same address from our own origin, where the cookies are sent.
async fn arrive_same_site(request: Request, next: Next) -> Response {
    match cross_site_navigation(&request) {
        None => next.run(request).await,
        Some(target) => reload_from_here(&target),
    }
}

/// The address of a `GET` navigation from another site, if this is one.
fn cross_site_navigation(request: &Request) -> Option<String> {
    let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
    (request.method() == Method::GET
        && header("sec-fetch-site") == Some("cross-site")
        && header("sec-fetch-mode") == Some("navigate"))
    .then(|| {
        request
            .uri()
            .path_and_query()
            .map_or("/admin/queue", |p| p.as_str())
            .to_owned()
    })
}

/// A page that reloads `target` from our own origin.
fn reload_from_here(target: &str) -> Response {
    let escaped = target
        .replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0\">\
         <title>Cairn</title></head><body><p><a href=\"{escaped}\">Continue to Cairn</a></p></body></html>"
    ))
    .into_response()
}

/// What every page's response carries: no framing, no sniffing, scripts and styles only
/// from our own embedded assets, images only from us, forms only to us; no caching of
/// pages (they show private data), no referrer to other sites.
async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    // A handler's own policy (a downloaded file's `sandbox`) is stricter: keep it.
    if !headers.contains_key(header::CONTENT_SECURITY_POLICY) {
        headers.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; \
                 form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            ),
        );
    }
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// What the layout around every page needs: who is logged in, their CSRF token (the
/// logout form), and which sections to offer.
#[derive(Clone, Debug)]
pub struct Chrome {
    /// The viewer's handle.
    pub handle: String,
    /// Their organisation.
    pub org: String,
    /// Their role.
    pub role: &'static str,
    /// The CSRF token for forms.
    pub csrf: String,
    /// The section the page belongs to (marks the navigation).
    pub section: &'static str,
    /// Whether review actions are offered.
    pub reviewer: bool,
    /// Whether the administration sections are offered.
    pub admin: bool,
}

impl Chrome {
    /// The layout for `viewer` on a page of `section`.
    pub fn new(viewer: &Viewer, section: &'static str) -> Self {
        Chrome {
            handle: viewer.principal.handle.clone(),
            org: viewer.principal.org_slug.clone(),
            role: viewer.principal.role.as_str(),
            csrf: viewer.csrf.clone(),
            section,
            reviewer: viewer.can(Scope::Review),
            admin: viewer.can(Scope::Admin),
        }
    }
}

/// Renders a page.
pub fn page<T: askama::Template>(template: &T) -> Result<Response, WebError> {
    Ok(Html(template.render()?).into_response())
}

/// A message carried through a redirect to the next page (`?notice=…&sig=…` or
/// `?error=…&sig=…`). Only messages this server signed are shown, so a crafted link cannot
/// put its own words in a page's notice or alert.
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct Flash {
    notice: Option<String>,
    error: Option<String>,
    sig: Option<String>,
}

impl Flash {
    fn verified(state: &AppState, kind: &str, text: &Option<String>, sig: &Option<String>) -> Option<String> {
        let (text, sig) = (text.as_deref()?, sig.as_deref()?);
        let expected = state.session_key.sign(&format!("{kind}\0{text}"));
        crate::auth::same_secret(&expected, sig).then(|| text.chars().filter(|c| !c.is_control()).take(500).collect())
    }

    /// The success notice, if this server signed it.
    pub fn notice(&self, state: &AppState) -> Option<String> {
        Self::verified(state, "notice", &self.notice, &self.sig)
    }

    /// The error message, if this server signed it.
    pub fn error(&self, state: &AppState) -> Option<String> {
        Self::verified(state, "error", &self.error, &self.sig)
    }
}

/// A redirect to `to` carrying a signed message of `kind` (`notice` or `error`).
pub fn redirect_with(state: &AppState, to: &str, kind: &str, message: &str) -> Response {
    let separator = if to.contains('?') { '&' } else { '?' };
    let sig = state.session_key.sign(&format!("{kind}\0{message}"));
    Redirect::to(&format!("{to}{separator}{kind}={}&sig={sig}", error::encode(message))).into_response()
}

/// A redirect after a successful form (303, so reloading does not post again), with a
/// notice for the next page.
pub fn done(state: &AppState, to: &str, notice: &str) -> Response {
    redirect_with(state, to, "notice", notice)
}
