//! The REST API (`/v1/…`, docs/API.md): its routes with the access each requires, and
//! their handlers. Handlers parse the request, call one use case of `app` and shape its
//! answer; authorization, rate limits and errors are the shared edge's (`access`,
//! `error`).

mod audit;
mod blobs;
mod events;
mod findings;
pub(crate) mod index;
mod patches;
mod skills;
mod tokens;
mod users;
mod webhooks;
pub mod wire;

use axum::Json;
use axum::extract::DefaultBodyLimit;
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post, put};

use crate::access::{Access, MAX_BUNDLE_BODY_BYTES, Route, Rule};
use crate::auth::scopes::Scope;

const READ: Access = Access::Scope(Scope::Read);
const SUBMIT: Access = Access::Scope(Scope::Submit);
const REVIEW: Access = Access::Scope(Scope::Review);
const ADMIN: Access = Access::Scope(Scope::Admin);

/// Every REST route with its rule and handler.
pub fn routes() -> Vec<Route> {
    use Method as M;
    let rule = Rule::new;
    vec![
        (rule(M::GET, "/v1/whoami", READ), get(tokens::whoami)),
        (rule(M::GET, "/v1/skills", READ), get(skills::list_skills)),
        (rule(M::GET, "/v1/skills/{name}", READ), get(skills::get_skill)),
        (
            rule(M::GET, "/v1/skills/{name}/versions", READ),
            get(skills::list_versions),
        ),
        // Direct publishing: reviewers, with a bundle as large as the limits allow.
        (
            rule(M::POST, "/v1/skills/{name}/versions", REVIEW),
            post(skills::publish).layer(DefaultBodyLimit::max(MAX_BUNDLE_BODY_BYTES)),
        ),
        (
            rule(M::GET, "/v1/skills/{name}/versions/{rev}", READ),
            get(skills::get_version),
        ),
        (
            rule(M::GET, "/v1/skills/{name}/versions/{rev}/files/{*path}", READ),
            get(skills::get_file),
        ),
        (
            rule(M::GET, "/v1/skills/{name}/versions/{rev}/bundle", READ),
            get(skills::get_bundle),
        ),
        (
            rule(M::POST, "/v1/skills/{name}/versions/{rev}/yank", REVIEW),
            post(skills::yank),
        ),
        (
            rule(M::POST, "/v1/skills/{name}/versions/{rev}/unyank", REVIEW),
            post(skills::unyank),
        ),
        (rule(M::POST, "/v1/patches", SUBMIT), post(patches::submit)),
        (rule(M::GET, "/v1/patches", READ), get(patches::list)),
        (rule(M::GET, "/v1/patches/{id}", READ), get(patches::get)),
        (
            rule(M::POST, "/v1/patches/{id}/approve", REVIEW),
            post(patches::approve),
        ),
        (rule(M::POST, "/v1/patches/{id}/reject", REVIEW), post(patches::reject)),
        (
            rule(M::POST, "/v1/patches/{id}/duplicate", REVIEW),
            post(patches::close_duplicate),
        ),
        (
            rule(M::POST, "/v1/patches/{id}/resolve", REVIEW),
            post(patches::resolve),
        ),
        (rule(M::POST, "/v1/patches/review", REVIEW), post(patches::review_batch)),
        // False positives: reviewers dismiss medium findings, admins high and critical
        // ones (the service checks the severity).
        (
            rule(M::POST, "/v1/patches/{id}/findings/dismiss", REVIEW),
            post(findings::dismiss),
        ),
        (rule(M::GET, "/v1/skills/{name}/dismissals", READ), get(findings::list)),
        (
            rule(M::DELETE, "/v1/skills/{name}/dismissals/{id}", REVIEW),
            delete(findings::revoke),
        ),
        (rule(M::POST, "/v1/admin/rescan", ADMIN), post(findings::rescan)),
        (
            rule(M::GET, "/v1/admin/quarantine", ADMIN),
            get(findings::quarantine_list),
        ),
        (
            rule(M::GET, "/v1/admin/quarantine/{id}", ADMIN),
            get(findings::quarantine_get),
        ),
        (
            rule(M::POST, "/v1/admin/quarantine/{id}/release", ADMIN),
            post(findings::quarantine_release),
        ),
        (
            rule(M::DELETE, "/v1/admin/quarantine/{id}", ADMIN),
            delete(findings::quarantine_delete),
        ),
        // The author withdraws their own patch (the service checks who): `submit`.
        (
            rule(M::POST, "/v1/patches/{id}/withdraw", SUBMIT),
            post(patches::withdraw),
        ),
        (rule(M::GET, "/v1/patch-policy", READ), get(patches::get_policy)),
        (rule(M::PUT, "/v1/patch-policy", ADMIN), put(patches::put_policy)),
        (rule(M::GET, "/v1/index", READ), get(index::get_index)),
        (rule(M::GET, "/v1/events", READ), get(events::events)),
        (rule(M::GET, "/v1/blobs/{sha256}", READ), get(blobs::get_blob)),
        (rule(M::POST, "/v1/blobs/batch", READ), post(blobs::batch)),
        // Token routes need only `read`: everyone manages their own tokens; admins see
        // and revoke everyone's (the service scopes the query by the caller).
        (rule(M::GET, "/v1/tokens", READ), get(tokens::list)),
        (rule(M::POST, "/v1/tokens", READ), post(tokens::issue)),
        (rule(M::GET, "/v1/tokens/{id}", READ), get(tokens::get)),
        (rule(M::DELETE, "/v1/tokens/{id}", READ), delete(tokens::revoke)),
        (rule(M::GET, "/v1/users", ADMIN), get(users::list)),
        (rule(M::POST, "/v1/users", ADMIN), post(users::create)),
        (rule(M::GET, "/v1/users/{handle}", ADMIN), get(users::get)),
        (rule(M::PATCH, "/v1/users/{handle}", ADMIN), patch(users::update)),
        (rule(M::GET, "/v1/audit", ADMIN), get(audit::list)),
        (rule(M::GET, "/v1/webhooks", ADMIN), get(webhooks::list)),
        (rule(M::POST, "/v1/webhooks", ADMIN), post(webhooks::create)),
        (rule(M::DELETE, "/v1/webhooks/{id}", ADMIN), delete(webhooks::delete)),
        (
            rule(M::GET, "/v1/webhooks/{id}/deliveries", ADMIN),
            get(webhooks::deliveries),
        ),
    ]
}

/// `Json` as a response, for handlers that return either.
fn json_ok<T: serde::Serialize>(value: T) -> Response {
    Json(value).into_response()
}
