//! The review web under `/admin`: server-rendered pages (askama templates compiled into
//! the binary) where reviewers read patches and decide, and admins run the organisation.
//!
//! Every page works without JavaScript (forms post, links navigate); `assets/cairn.js`
//! adds live queue updates, keyboard shortcuts and the diff-view switch where it runs.
//! Pages authenticate with an encrypted session cookie ([`session`]), check the viewer's
//! scopes like the API's gate does, and call the same application services as the API.

pub mod assets;
pub mod error;
mod pages;
pub mod render;
pub mod session;

use axum::Router;
use axum::extract::Request;
use axum::http::{HeaderValue, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use crate::AppState;
use crate::auth::scopes::Scope;
use error::WebError;
use session::Viewer;

/// The pages' routes (mounted beside the API, outside its bearer-token gate: pages
/// authenticate with the session cookie).
pub fn router() -> Router<AppState> {
    use pages::{audit, login, members, patch, policy, queue, security, skills, tokens, webhooks};
    Router::new()
        .route("/admin", get(home))
        .route("/admin/", get(home))
        .route("/admin/login", get(login::form).post(login::submit))
        .route("/admin/logout", post(login::logout))
        .route("/admin/queue", get(queue::page))
        .route("/admin/queue/events", get(queue::events))
        .route("/admin/patches/{id}", get(patch::page))
        .route("/admin/patches/{id}/approve", post(patch::approve))
        .route("/admin/patches/{id}/reject", post(patch::reject))
        .route("/admin/patches/{id}/withdraw", post(patch::withdraw))
        .route("/admin/patches/{id}/resolve", post(patch::resolve))
        .route("/admin/patches/{id}/duplicate", post(patch::duplicate))
        .route("/admin/patches/{id}/findings/dismiss", post(patch::dismiss))
        .route("/admin/queue/batch", post(queue::batch))
        .route("/admin/skills", get(skills::list))
        .route("/admin/skills/{name}", get(skills::page))
        .route("/admin/skills/{name}/diff", get(skills::diff))
        .route("/admin/skills/{name}/versions/{rev}/bundle", get(skills::download))
        .route("/admin/skills/{name}/versions/{rev}/files/{*path}", get(skills::file))
        .route("/admin/skills/{name}/versions/{rev}/yank", post(skills::yank))
        .route("/admin/skills/{name}/versions/{rev}/unyank", post(skills::unyank))
        .route("/admin/members", get(members::page).post(members::add))
        .route("/admin/members/{handle}", post(members::update))
        .route("/admin/tokens", get(tokens::page).post(tokens::issue))
        .route("/admin/tokens/{id}/revoke", post(tokens::revoke))
        .route("/admin/webhooks", get(webhooks::page).post(webhooks::create))
        .route("/admin/webhooks/{id}", get(webhooks::deliveries))
        .route("/admin/webhooks/{id}/delete", post(webhooks::delete))
        .route("/admin/policy", get(policy::page).post(policy::save))
        .route("/admin/policy/access", post(policy::save_access))
        .route("/admin/audit", get(audit::page))
        .route("/admin/security", get(security::page))
        .route("/admin/security/rescan", post(security::rescan))
        .route("/admin/security/quarantine/{id}/release", post(security::release))
        .route("/admin/security/quarantine/{id}/delete", post(security::delete))
        .route("/admin/assets/{file}", get(assets::serve))
        .route("/admin/{*rest}", get(missing).post(missing))
        .layer(middleware::from_fn(arrive_same_site))
        .layer(middleware::from_fn(security_headers))
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
    (request.method() == axum::http::Method::GET
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
