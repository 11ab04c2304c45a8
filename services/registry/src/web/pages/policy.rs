//! The organisation's patch policy (admins): self-approval and trusted authors whose
//! `safe` patches publish without review.

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use cairn_pipeline::policy::Policy;
use serde::Deserialize;

use super::back_with;
use crate::AppState;
use crate::web::error::WebError;
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Query of the policy page.
#[derive(Debug, Default, Deserialize)]
pub struct PolicyQuery {
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// The policy page.
#[derive(Template)]
#[template(path = "policy.html")]
struct PolicyPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    authors_may_approve_own: bool,
    trusted: String,
    anonymous_read: bool,
    org: String,
}

/// `GET /admin/policy`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<PolicyQuery>,
) -> Result<Response, WebError> {
    let policy = crate::app::policy::read(&state.store, viewer.principal.org_id).await?;
    let org = state.store.org_by_slug(&viewer.principal.org_slug).await?;
    let page = PolicyPage {
        anonymous_read: org.anonymous_read,
        org: org.slug,
        chrome: Chrome::new(&viewer, "policy"),
        notice: query.flash.notice(&state),
        error: query.flash.error(&state),
        authors_may_approve_own: policy.authors_may_approve_own,
        trusted: policy.auto_approve_safe_from.join("\n"),
    };
    crate::web::page(&page)
}

/// The policy form.
#[derive(Debug, Deserialize)]
pub struct PolicyForm {
    authors_may_approve_own: Option<String>,
    #[serde(default)]
    trusted: String,
}

/// `POST /admin/policy`: replaces the policy (every trusted author must be a member).
pub async fn save(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<PolicyForm>,
) -> Result<Response, WebError> {
    let trusted: Vec<String> = form
        .trusted
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|h| !h.is_empty())
        .map(str::to_owned)
        .collect();
    let policy = Policy {
        authors_may_approve_own: form.authors_may_approve_own.is_some(),
        auto_approve_safe_from: trusted,
    };
    if let Err(e) = crate::app::policy::replace(&state.store, viewer.principal.org_id, policy, &viewer.actor()).await {
        return back_with(&state, "/admin/policy", e);
    }
    Ok(done(
        &state,
        "/admin/policy",
        "Policy saved: it applies to patches submitted from now on.",
    ))
}

/// The organisation-access form.
#[derive(Debug, Deserialize)]
pub struct AccessForm {
    anonymous_read: Option<String>,
}

/// `POST /admin/policy/access`: opens or closes the discovery endpoints to clients
/// without a token.
pub async fn save_access(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<AccessForm>,
) -> Result<Response, WebError> {
    let on = form.anonymous_read.is_some();
    state
        .store
        .set_anonymous_read(viewer.principal.org_id, on, &viewer.actor())
        .await?;
    let message = if on {
        "Anonymous read is on: clients without a token can read the discovery endpoints."
    } else {
        "Anonymous read is off: the discovery endpoints need a token or a capability URL."
    };
    Ok(done(&state, "/admin/policy", message))
}
