//! The REST API (`/v1/…`, docs/API.md): its routes with the access each requires, and
//! their handlers. Handlers parse the request, call one use case of `app` and shape its
//! answer; authorization, rate limits and errors are the shared edge's (`access`,
//! `error`).

mod audit;
mod blobs;
mod events;
mod findings;
pub(crate) mod index;
mod log;
pub mod openapi;
mod owners;
mod patches;
mod skills;
mod tokens;
mod users;
mod webhooks;
pub mod wire;

use axum::Json;
use axum::handler::Handler;
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::routing::MethodRouter;
use cairn_pipeline::policy::Policy;
use cairn_wire::{
    AttestationBatch, AttestationBatchRequest, AuditItem, BatchResults, Comment, ConsistencyProof, Delivery, Dismissal,
    Dismissed, InclusionProof, Index, IssuedToken, Items, LogEntry, Page, Patch, PatchItem, Published, Quarantined,
    Released, Rescan, SigningKeys, SkillItem, TokenItem, UserItem, VersionAttestation, VersionItem, Webhook, WhoAmI,
    Yank,
};

use self::openapi::Operation;
use crate::AppState;

use crate::access::{Access, MAX_BUNDLE_BODY_BYTES, Route, Rule, route, with_body_limit};
use crate::auth::scopes::Scope;
use crate::error::parse::PageQuery;

const READ: Access = Access::Scope(Scope::Read);
const SUBMIT: Access = Access::Scope(Scope::Submit);
const REVIEW: Access = Access::Scope(Scope::Review);
const ADMIN: Access = Access::Scope(Scope::Admin);

/// A REST endpoint: its rule, its handler and what the OpenAPI document says about it,
/// declared together so that no route is served without its rule or its documentation.
pub struct Endpoint {
    /// Method, path and the access it requires.
    pub rule: Rule,
    /// The handler.
    pub handler: MethodRouter<AppState>,
    /// Its entry in `GET /openapi.json`.
    pub doc: Operation,
}

/// The endpoint for `method` on `path`, documented by `doc`.
fn at<H, T>(method: Method, path: &'static str, access: Access, handler: H, doc: Operation) -> Endpoint
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let (rule, handler) = route(method, path, access, handler);
    Endpoint { rule, handler, doc }
}

impl Endpoint {
    /// The endpoint with a request body limit of its own (routes that take whole bundles).
    fn with_body_limit(self, max_bytes: usize) -> Self {
        let (rule, handler) = with_body_limit((self.rule, self.handler), max_bytes);
        Endpoint { rule, handler, ..self }
    }
}

/// Every REST route with its rule and handler.
pub fn routes() -> Vec<Route> {
    endpoints().into_iter().map(|e| (e.rule, e.handler)).collect()
}

/// Every REST endpoint, documented.
pub fn endpoints() -> Vec<Endpoint> {
    use Method as M;
    use Operation as Op;
    const GZIP: &str = "application/gzip";
    vec![
        at(
            M::GET,
            "/openapi.json",
            Access::Public,
            serve_openapi,
            Op::json::<serde_json::Value>("This document: the REST API in OpenAPI 3.1"),
        ),
        at(
            M::GET,
            "/v1/whoami",
            READ,
            tokens::whoami,
            Op::json::<WhoAmI>("Who the token belongs to and what it may do"),
        ),
        at(
            M::GET,
            "/v1/skills",
            READ,
            skills::list_skills,
            Op::json::<Page<SkillItem>>("The organisation's skills, by name; `q` searches names and descriptions")
                .query::<skills::ListSkillsQuery>()
                .links("name", "$response.body#/items/0/name", SKILL_ROUTES),
        ),
        at(
            M::GET,
            "/v1/skills/{name}",
            READ,
            skills::get_skill,
            Op::json::<SkillItem>("One skill and its latest revision"),
        ),
        at(
            M::GET,
            "/v1/skills/{name}/versions",
            READ,
            skills::list_versions,
            Op::json::<Page<VersionItem>>("A skill's versions, newest first").query::<PageQuery>(),
        ),
        // Direct publishing: reviewers, with a bundle as large as the limits allow.
        at(
            M::POST,
            "/v1/skills/{name}/versions",
            REVIEW,
            skills::publish,
            Op::created::<Published>(
                "Publishes a bundle (tar.gz) as the next revision, validated and scanned like a patch",
            )
            .or_unchanged()
            .query::<skills::PublishQuery>()
            .bytes_body(&[GZIP, "application/octet-stream"]),
        )
        .with_body_limit(MAX_BUNDLE_BODY_BYTES),
        at(
            M::GET,
            "/v1/skills/{name}/versions/{rev}",
            READ,
            skills::get_version,
            Op::json::<VersionItem>("One version with its files"),
        ),
        at(
            M::GET,
            "/v1/skills/{name}/versions/{rev}/files/{*path}",
            READ,
            skills::get_file,
            Op::bytes("One file of a version, as stored (served as untrusted content)", "*/*").conditional(),
        ),
        at(
            M::GET,
            "/v1/skills/{name}/versions/{rev}/bundle",
            READ,
            skills::get_bundle,
            Op::bytes("The whole version as a tar.gz (digest-stable)", GZIP).conditional(),
        ),
        at(
            M::GET,
            "/v1/skills/{name}/versions/{rev}/attestation",
            READ,
            log::attestation,
            Op::json::<VersionAttestation>(
                "A version's signed attestation (DSSE, in-toto), its log index, an inclusion proof and the signed \
                 checkpoint it leads to: everything needed to verify it offline",
            )
            .query::<log::AttestationQuery>(),
        ),
        at(
            M::POST,
            "/v1/attestations/batch",
            READ,
            log::attestations,
            Op::json::<AttestationBatch>(
                "Many versions' attestations (at most 1,000) with inclusion proofs against one signed checkpoint: \
                 verifying a large lock in a few requests",
            )
            .body::<AttestationBatchRequest>(),
        ),
        at(
            M::GET,
            "/v1/log/checkpoint",
            Access::Public,
            log::checkpoint,
            Op::bytes(
                "The transparency log's signed checkpoint (C2SP signed note)",
                "text/plain",
            ),
        ),
        at(
            M::GET,
            "/v1/log/entries/{index}",
            READ,
            log::entry,
            Op::json::<LogEntry>("One log entry: a version event of your organisation or a key event"),
        ),
        at(
            M::GET,
            "/v1/log/proof/inclusion",
            Access::Public,
            log::inclusion,
            Op::json::<InclusionProof>("The proof that an entry is in the tree of a given size (RFC 6962)")
                .query::<log::InclusionQuery>(),
        ),
        at(
            M::GET,
            "/v1/log/proof/consistency",
            Access::Public,
            log::consistency,
            Op::json::<ConsistencyProof>("The proof that an older tree is a prefix of a newer one (RFC 6962)")
                .query::<log::ConsistencyQuery>(),
        ),
        at(
            M::GET,
            "/.well-known/cairn/keys",
            Access::Public,
            log::keys,
            Op::json::<SigningKeys>("The registry's public signing keys, each with its status"),
        ),
        at(
            M::POST,
            "/v1/skills/{name}/versions/{rev}/yank",
            REVIEW,
            skills::yank,
            Op::json::<Yank>("Yanks a version: kept for pinned installs, gone from the index"),
        ),
        at(
            M::POST,
            "/v1/skills/{name}/versions/{rev}/unyank",
            REVIEW,
            skills::unyank,
            Op::json::<Yank>("Takes a yank back"),
        ),
        at(
            M::POST,
            "/v1/patches",
            SUBMIT,
            patches::submit,
            Op::created::<Patch>("Submits a patch: validated, applied, rebased, scanned and judged by the policy")
                .body::<patches::SubmitBody>()
                .links("id", "$response.body#/id", PATCH_ROUTES),
        ),
        at(
            M::GET,
            "/v1/patches",
            READ,
            patches::list,
            Op::json::<Page<PatchItem>>("Patches, newest first, filtered by state, skill, author or verdict")
                .query::<patches::ListQuery>()
                .links("id", "$response.body#/items/0/id", PATCH_ROUTES),
        ),
        at(
            M::GET,
            "/v1/patches/{id}",
            READ,
            patches::get,
            Op::json::<Patch>("One patch with its reports"),
        ),
        at(
            M::POST,
            "/v1/patches/{id}/approve",
            REVIEW,
            patches::approve,
            Op::json::<Patch>("Approves a patch: its candidate becomes the next revision")
                .optional_body::<patches::DecisionBody>(),
        ),
        at(
            M::POST,
            "/v1/patches/{id}/reject",
            REVIEW,
            patches::reject,
            Op::json::<Patch>("Rejects a patch, with a comment that tells the author why")
                .body::<patches::DecisionBody>(),
        ),
        at(
            M::POST,
            "/v1/patches/{id}/duplicate",
            REVIEW,
            patches::close_duplicate,
            Op::json::<Patch>("Closes a patch as a duplicate of another").optional_body::<patches::DecisionBody>(),
        ),
        at(
            M::POST,
            "/v1/patches/{id}/resolve",
            REVIEW,
            patches::resolve,
            Op::created::<Patch>("Resolves a conflict by hand: a new patch with the files as given")
                .body::<patches::ResolveBody>(),
        ),
        at(
            M::POST,
            "/v1/patches/review",
            REVIEW,
            patches::review_batch,
            Op::json::<BatchResults>("Approves or rejects several patches, each on its own")
                .body::<patches::BatchBody>(),
        ),
        // False positives: reviewers dismiss medium findings, admins high and critical
        // ones (the service checks the severity).
        at(
            M::POST,
            "/v1/patches/{id}/findings/dismiss",
            REVIEW,
            findings::dismiss,
            Op::json::<Dismissed>("Dismisses a finding as a false positive for this skill")
                .body::<findings::DismissBody>(),
        ),
        at(
            M::GET,
            "/v1/skills/{name}/dismissals",
            READ,
            findings::list,
            Op::json::<Items<Dismissal>>("A skill's dismissed findings"),
        ),
        at(
            M::DELETE,
            "/v1/skills/{name}/dismissals/{id}",
            REVIEW,
            findings::revoke,
            Op::json::<Dismissal>("Revokes a dismissal: the finding counts again"),
        ),
        at(
            M::POST,
            "/v1/admin/rescan",
            ADMIN,
            findings::rescan,
            Op::json::<Rescan>("Scans one skill or all again with the current rules")
                .optional_body::<findings::RescanBody>(),
        ),
        at(
            M::GET,
            "/v1/admin/quarantine",
            ADMIN,
            findings::quarantine_list,
            Op::json::<Items<Quarantined>>("Skills an import held back as dangerous").links(
                "id",
                "$response.body#/items/0/id",
                &[
                    (M::GET, "/v1/admin/quarantine/{id}"),
                    (M::POST, "/v1/admin/quarantine/{id}/release"),
                    (M::DELETE, "/v1/admin/quarantine/{id}"),
                ],
            ),
        ),
        at(
            M::GET,
            "/v1/admin/quarantine/{id}",
            ADMIN,
            findings::quarantine_get,
            Op::json::<Quarantined>("One quarantined skill with its findings"),
        ),
        at(
            M::POST,
            "/v1/admin/quarantine/{id}/release",
            ADMIN,
            findings::quarantine_release,
            Op::json::<Released>("Publishes a quarantined skill after all, with a reason")
                .body::<findings::ReleaseBody>(),
        ),
        at(
            M::DELETE,
            "/v1/admin/quarantine/{id}",
            ADMIN,
            findings::quarantine_delete,
            Op::json::<Quarantined>("Deletes a quarantined skill"),
        ),
        // The conversation: members who submit (authors and their agents, reviewers)
        // comment; reviewers request changes.
        at(
            M::POST,
            "/v1/patches/{id}/comments",
            SUBMIT,
            patches::comment,
            Op::created::<Comment>("Comments on a patch, on lines of its diff, or answers a thread")
                .body::<patches::CommentBody>(),
        ),
        at(
            M::POST,
            "/v1/patches/{id}/revisions",
            SUBMIT,
            patches::revise,
            Op::json::<Patch>(
                "Sends the next round of your open patch: every stage runs again, the last round is kept",
            )
            .body::<patches::RevisionBody>(),
        ),
        at(
            M::POST,
            "/v1/patches/{id}/request-changes",
            REVIEW,
            patches::request_changes,
            Op::json::<Patch>("Requests changes: the patch stays open and its author is told what to change")
                .body::<patches::RequestChangesBody>(),
        ),
        // The author withdraws their own patch (the service checks who): `submit`.
        at(
            M::POST,
            "/v1/patches/{id}/withdraw",
            SUBMIT,
            patches::withdraw,
            Op::json::<Patch>("Withdraws your own open patch"),
        ),
        at(
            M::GET,
            "/v1/patch-policy",
            READ,
            patches::get_policy,
            Op::json::<Policy>("The organisation's patch policy"),
        ),
        at(
            M::PUT,
            "/v1/patch-policy",
            ADMIN,
            patches::put_policy,
            Op::json::<Policy>("Replaces the patch policy").body::<Policy>(),
        ),
        at(
            M::GET,
            "/v1/index",
            READ,
            index::get_index,
            Op::json::<Index>("The team index: every skill's latest approved revision, or the changes since a cursor")
                .query::<index::IndexQuery>()
                .conditional(),
        ),
        at(
            M::GET,
            "/v1/events",
            READ,
            events::events,
            Op::events("Index changes as they happen (server-sent events; resumes from Last-Event-ID)")
                .query::<events::EventsQuery>(),
        ),
        at(
            M::GET,
            "/v1/blobs/{sha256}",
            READ,
            blobs::get_blob,
            Op::bytes("One file content by its SHA-256", "application/octet-stream").conditional(),
        ),
        at(
            M::POST,
            "/v1/blobs/batch",
            READ,
            blobs::batch,
            Op::bytes(
                "Several file contents as one tar stream, in request order",
                "application/x-tar",
            )
            .body::<blobs::BatchRequest>(),
        ),
        // Token routes need only `read`: everyone manages their own tokens; admins see
        // and revoke everyone's (the service scopes the query by the caller).
        at(
            M::GET,
            "/v1/tokens",
            READ,
            tokens::list,
            Op::json::<Page<TokenItem>>("Your tokens (admins: anyone's)").query::<tokens::ListQuery>(),
        ),
        at(
            M::POST,
            "/v1/tokens",
            READ,
            tokens::issue,
            Op::created::<IssuedToken>("Issues a token (shown once)")
                .body::<tokens::IssueBody>()
                .links(
                    "id",
                    "$response.body#/id",
                    &[(M::GET, "/v1/tokens/{id}"), (M::DELETE, "/v1/tokens/{id}")],
                ),
        ),
        at(
            M::GET,
            "/v1/tokens/{id}",
            READ,
            tokens::get,
            Op::json::<TokenItem>("One token"),
        ),
        at(
            M::DELETE,
            "/v1/tokens/{id}",
            READ,
            tokens::revoke,
            Op::json::<TokenItem>("Revokes a token at once"),
        ),
        at(
            M::GET,
            "/v1/users",
            ADMIN,
            users::list,
            Op::json::<Page<UserItem>>("The organisation's members").query::<PageQuery>(),
        ),
        at(
            M::POST,
            "/v1/users",
            ADMIN,
            users::create,
            Op::created::<UserItem>("Adds a member")
                .body::<users::CreateBody>()
                .links(
                    "handle",
                    "$response.body#/handle",
                    &[(M::GET, "/v1/users/{handle}"), (M::PATCH, "/v1/users/{handle}")],
                ),
        ),
        at(
            M::GET,
            "/v1/users/{handle}",
            ADMIN,
            users::get,
            Op::json::<UserItem>("One member"),
        ),
        at(
            M::PATCH,
            "/v1/users/{handle}",
            ADMIN,
            users::update,
            Op::json::<UserItem>("Changes a member's role or disables them").body::<users::UpdateBody>(),
        ),
        at(
            M::GET,
            "/v1/owners",
            READ,
            owners::list,
            Op::json::<Items<cairn_wire::OwnerList>>(
                "Who owns which skills and categories: their patches ask these reviewers for review",
            ),
        ),
        at(
            M::PUT,
            "/v1/owners/skills/{name}",
            ADMIN,
            owners::set_skill,
            Op::json::<cairn_wire::OwnerList>("Names a skill's owners (an empty list removes them)")
                .body::<owners::OwnersBody>(),
        ),
        at(
            M::PUT,
            "/v1/owners/categories/{*category}",
            ADMIN,
            owners::set_category,
            Op::json::<cairn_wire::OwnerList>(
                "Names the owners of a category and the categories under it (an empty list removes them)",
            )
            .body::<owners::OwnersBody>(),
        ),
        at(
            M::GET,
            "/v1/audit",
            ADMIN,
            audit::list,
            Op::json::<Page<AuditItem>>("The audit log, newest first").query::<audit::AuditParams>(),
        ),
        at(
            M::GET,
            "/v1/webhooks",
            ADMIN,
            webhooks::list,
            Op::json::<Page<Webhook>>("The organisation's webhooks"),
        ),
        at(
            M::POST,
            "/v1/webhooks",
            ADMIN,
            webhooks::create,
            Op::created::<Webhook>("Adds a webhook (its secret is shown once)")
                .body::<webhooks::CreateBody>()
                .links(
                    "id",
                    "$response.body#/id",
                    &[
                        (M::DELETE, "/v1/webhooks/{id}"),
                        (M::GET, "/v1/webhooks/{id}/deliveries"),
                    ],
                ),
        ),
        at(
            M::DELETE,
            "/v1/webhooks/{id}",
            ADMIN,
            webhooks::delete,
            Op::no_content("Deletes a webhook"),
        ),
        at(
            M::GET,
            "/v1/webhooks/{id}/deliveries",
            ADMIN,
            webhooks::deliveries,
            Op::json::<Page<Delivery>>("A webhook's newest deliveries").query::<webhooks::DeliveriesQuery>(),
        ),
    ]
}

/// The routes that take a skill's name alone (OpenAPI links from the skill list).
const SKILL_ROUTES: &[(Method, &str)] = &[
    (Method::GET, "/v1/skills/{name}"),
    (Method::GET, "/v1/skills/{name}/versions"),
    (Method::GET, "/v1/skills/{name}/dismissals"),
];

/// The routes that take a patch id (OpenAPI links from a submitted or listed patch).
const PATCH_ROUTES: &[(Method, &str)] = &[
    (Method::GET, "/v1/patches/{id}"),
    (Method::POST, "/v1/patches/{id}/approve"),
    (Method::POST, "/v1/patches/{id}/reject"),
    (Method::POST, "/v1/patches/{id}/duplicate"),
    (Method::POST, "/v1/patches/{id}/resolve"),
    (Method::POST, "/v1/patches/{id}/withdraw"),
    (Method::POST, "/v1/patches/{id}/findings/dismiss"),
    (Method::POST, "/v1/patches/{id}/comments"),
    (Method::POST, "/v1/patches/{id}/request-changes"),
    (Method::POST, "/v1/patches/{id}/revisions"),
];

/// `GET /openapi.json`: the document, built once.
async fn serve_openapi() -> Response {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        openapi::DOCUMENT.as_str(),
    )
        .into_response()
}

/// `Json` as a response, for handlers that return either.
fn json_ok<T: serde::Serialize>(value: T) -> Response {
    Json(value).into_response()
}
