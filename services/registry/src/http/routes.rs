//! The authorization table: every route with the access it requires, in one list. The
//! router is built from this list and the gate consults it, so a route cannot exist
//! without a rule, and the rule is never re-checked (or forgotten) in a handler.

use std::collections::HashMap;

use axum::Router;
use axum::http::Method;
use axum::routing::{MethodRouter, delete, get, patch, post, put};

use super::guard::AccessTable;
use super::{
    audit, blobs, clawhub, events, findings, health, index, patches, skills, tokens, users, webhooks, wellknown,
};
use crate::AppState;
use crate::access::{Access, Scope};

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

const READ: Access = Access::Scope(Scope::Read);
const SUBMIT: Access = Access::Scope(Scope::Submit);
const REVIEW: Access = Access::Scope(Scope::Review);
const ADMIN: Access = Access::Scope(Scope::Admin);
const DISCOVERY: Access = Access::Discovery;

/// Largest body of a direct publish: a compressed bundle, which the 10 MiB limit on its
/// contents bounds (archives are rarely larger than their contents; the unpacker checks
/// the limits themselves).
const PUBLISH_BODY_BYTES: usize = 16 << 20;

/// Every route with its rule and handler.
fn table() -> Vec<(Rule, MethodRouter<AppState>)> {
    use Method as M;
    let rule = |method: Method, path: &'static str, access: Access| Rule { method, path, access };
    vec![
        (rule(M::GET, "/healthz", Access::Public), get(health::healthz)),
        (rule(M::GET, "/readyz", Access::Public), get(health::readyz)),
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
            post(skills::publish).layer(axum::extract::DefaultBodyLimit::max(PUBLISH_BODY_BYTES)),
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
        // What other skill clients read (docs/CLIENTS.md): a token, or anonymous when
        // the organisation allows it.
        (
            rule(M::GET, "/.well-known/skills/index.json", DISCOVERY),
            get(wellknown::skills_index),
        ),
        (
            rule(M::GET, "/.well-known/skills/{name}/{*path}", DISCOVERY),
            get(wellknown::skills_file),
        ),
        (
            rule(M::GET, "/.well-known/agent-skills/index.json", DISCOVERY),
            get(wellknown::agent_skills_index),
        ),
        (
            rule(M::GET, "/.well-known/agent-skills/{name}/{file}", DISCOVERY),
            get(wellknown::agent_skills_pinned),
        ),
        (
            rule(M::GET, "/.well-known/agent-skills/{file}", DISCOVERY),
            get(wellknown::agent_skills_latest),
        ),
        // The ClawHub CLI's API (docs/CLIENTS.md).
        (
            rule(M::GET, "/.well-known/clawhub.json", Access::Public),
            get(clawhub::well_known),
        ),
        (rule(M::GET, "/api/v1/whoami", READ), get(clawhub::whoami)),
        (rule(M::GET, "/api/v1/search", DISCOVERY), get(clawhub::search)),
        (rule(M::GET, "/api/v1/skills", DISCOVERY), get(clawhub::list)),
        (rule(M::GET, "/api/v1/skills/{slug}", DISCOVERY), get(clawhub::skill)),
        (
            rule(M::GET, "/api/v1/skills/{slug}/versions", DISCOVERY),
            get(clawhub::version_list),
        ),
        (
            rule(M::GET, "/api/v1/skills/{slug}/versions/{version}", DISCOVERY),
            get(clawhub::version),
        ),
        (
            rule(M::GET, "/api/v1/skills/{slug}/file", DISCOVERY),
            get(clawhub::file),
        ),
        (rule(M::GET, "/api/v1/download", DISCOVERY), get(clawhub::download)),
        (rule(M::GET, "/api/v1/resolve", DISCOVERY), get(clawhub::resolve)),
        // `clawhub publish`: uploads, then a patch (never a direct publish).
        (
            rule(M::POST, "/api/v1/skills/-/upload-url", SUBMIT),
            post(clawhub::upload_url),
        ),
        (
            rule(M::POST, "/api/v1/skills/-/upload/{ticket}", SUBMIT),
            post(clawhub::upload).layer(axum::extract::DefaultBodyLimit::max(PUBLISH_BODY_BYTES)),
        ),
        (rule(M::POST, "/api/v1/skills", SUBMIT), post(clawhub::publish)),
        (rule(M::GET, "/v1/webhooks", ADMIN), get(webhooks::list)),
        (rule(M::POST, "/v1/webhooks", ADMIN), post(webhooks::create)),
        (rule(M::DELETE, "/v1/webhooks/{id}", ADMIN), delete(webhooks::delete)),
        (
            rule(M::GET, "/v1/webhooks/{id}/deliveries", ADMIN),
            get(webhooks::deliveries),
        ),
    ]
}

/// Every rule, REST and gRPC (for the tests that walk every route, and for the
/// documentation).
pub fn rules() -> Vec<Rule> {
    let mut rules: Vec<Rule> = table().into_iter().map(|(rule, _)| rule).collect();
    rules.extend(crate::grpc::rules());
    rules
}

/// The routes (REST and gRPC), and the table the gate consults.
pub(super) fn build(state: &AppState) -> (Router<AppState>, AccessTable) {
    let mut router = Router::new();
    let mut access: AccessTable = HashMap::new();
    for (rule, handler) in table() {
        router = router.route(rule.path, handler);
        access.entry(rule.path).or_default().push((rule.method, rule.access));
    }
    for rule in crate::grpc::rules() {
        access.entry(rule.path).or_default().push((rule.method, rule.access));
    }
    (router.merge(crate::grpc::router(state)), access)
}
