//! The compatibility APIs other skill clients speak (docs/CLIENTS.md): the discovery
//! endpoints (`/.well-known/skills/…`, `/.well-known/agent-skills/…`) and the ClawHub
//! CLI's API (`/api/v1/…`). Their shapes are the other clients'; their use cases are
//! `app`'s, and so are their errors and access rules.

pub mod clawhub;
mod wellknown;

use axum::extract::DefaultBodyLimit;
use axum::http::Method;
use axum::routing::{get, post};

use crate::access::{Access, MAX_BUNDLE_BODY_BYTES, Route, Rule};
use crate::auth::scopes::Scope;

const READ: Access = Access::Scope(Scope::Read);
const SUBMIT: Access = Access::Scope(Scope::Submit);
const DISCOVERY: Access = Access::Discovery;

/// Every route of the compatibility APIs with its rule and handler.
pub fn routes() -> Vec<Route> {
    use Method as M;
    let rule = Rule::new;
    vec![
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
            post(clawhub::upload).layer(DefaultBodyLimit::max(MAX_BUNDLE_BODY_BYTES)),
        ),
        (rule(M::POST, "/api/v1/skills", SUBMIT), post(clawhub::publish)),
    ]
}
