//! The compatibility APIs other skill clients speak (docs/CLIENTS.md): the discovery
//! endpoints (`/.well-known/skills/…`, `/.well-known/agent-skills/…`) and the ClawHub
//! CLI's API (`/api/v1/…`). Their shapes are the other clients'; their use cases are
//! `app`'s, and so are their errors and access rules.

pub mod clawhub;
mod wellknown;

use axum::http::Method;

use crate::access::{Access, MAX_BUNDLE_BODY_BYTES, Route, route, with_body_limit};
use crate::auth::scopes::Scope;

const READ: Access = Access::Scope(Scope::Read);
const SUBMIT: Access = Access::Scope(Scope::Submit);
const DISCOVERY: Access = Access::Discovery;

/// Every route of the compatibility APIs with its rule and handler (one line a route).
#[rustfmt::skip]
pub fn routes() -> Vec<Route> {
    use Method as M;
    vec![
        // What other skill clients read (docs/CLIENTS.md): a token, or anonymous when
        // the organisation allows it.
        route(M::GET, "/.well-known/skills/index.json", DISCOVERY, wellknown::skills_index),
        route(M::GET, "/.well-known/skills/{name}/{*path}", DISCOVERY, wellknown::skills_file),
        route(M::GET, "/.well-known/agent-skills/index.json", DISCOVERY, wellknown::agent_skills_index),
        route(M::GET, "/.well-known/agent-skills/{name}/{file}", DISCOVERY, wellknown::agent_skills_pinned),
        route(M::GET, "/.well-known/agent-skills/{file}", DISCOVERY, wellknown::agent_skills_latest),
        // The ClawHub CLI's API (docs/CLIENTS.md).
        route(M::GET, "/.well-known/clawhub.json", Access::Public, clawhub::well_known),
        route(M::GET, "/api/v1/whoami", READ, clawhub::whoami),
        route(M::GET, "/api/v1/search", DISCOVERY, clawhub::search),
        route(M::GET, "/api/v1/skills", DISCOVERY, clawhub::list),
        route(M::GET, "/api/v1/skills/{slug}", DISCOVERY, clawhub::skill),
        route(M::GET, "/api/v1/skills/{slug}/versions", DISCOVERY, clawhub::version_list),
        route(M::GET, "/api/v1/skills/{slug}/versions/{version}", DISCOVERY, clawhub::version),
        route(M::GET, "/api/v1/skills/{slug}/file", DISCOVERY, clawhub::file),
        route(M::GET, "/api/v1/download", DISCOVERY, clawhub::download),
        route(M::GET, "/api/v1/resolve", DISCOVERY, clawhub::resolve),
        // `clawhub publish`: uploads, then a patch (never a direct publish).
        route(M::POST, "/api/v1/skills/-/upload-url", SUBMIT, clawhub::upload_url),
        with_body_limit(
            route(M::POST, "/api/v1/skills/-/upload/{ticket}", SUBMIT, clawhub::upload),
            MAX_BUNDLE_BODY_BYTES,
        ),
        route(M::POST, "/api/v1/skills", SUBMIT, clawhub::publish),
    ]
}
