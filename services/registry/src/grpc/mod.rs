//! The gRPC API (`proto/cairn/v1/registry.proto`), served on the REST port.
//!
//! Each RPC is a route of the same axum router as REST, so every gRPC call passes the
//! same middleware: request ids, rate limits, and the gate that authenticates the
//! `authorization: Bearer` metadata and checks the one authorization table, which lists
//! the gRPC methods beside the REST routes. The gRPC health service (probes, no token)
//! and server reflection (with a token) are served beside the registry.

mod convert;
pub(crate) mod index_route;
pub mod service;

use axum::Router;
use axum::http::Method;
use axum::routing::post_service;
use cairn_proto::v1::registry_server::RegistryServer;

use crate::AppState;
use crate::access::Access;
use crate::access::Rule;
use crate::auth::scopes::Scope;

/// Largest request message: the same bound as a REST request body (a patch's ops are
/// the largest request).
pub const MAX_REQUEST_MESSAGE: usize = crate::access::MAX_BODY_BYTES;
/// Largest response message: a full index of tens of thousands of skills fits; blobs
/// stream in 1 MiB chunks.
pub const MAX_RESPONSE_MESSAGE: usize = 64 << 20;

/// The registry's methods and what each requires.
const REGISTRY_METHODS: [(&str, Access); 13] = [
    ("GetIndex", Access::Scope(Scope::Read)),
    ("WatchIndex", Access::Scope(Scope::Read)),
    ("GetBlobs", Access::Scope(Scope::Read)),
    ("GetSkill", Access::Scope(Scope::Read)),
    ("SubmitPatch", Access::Scope(Scope::Submit)),
    ("GetPatch", Access::Scope(Scope::Read)),
    ("ListPatches", Access::Scope(Scope::Read)),
    ("ReviewPatch", Access::Scope(Scope::Review)),
    ("ReviewPatches", Access::Scope(Scope::Review)),
    // The author withdraws their own patch (the service checks who).
    ("WithdrawPatch", Access::Scope(Scope::Submit)),
    ("CommentOnPatch", Access::Scope(Scope::Submit)),
    ("RequestChanges", Access::Scope(Scope::Review)),
    // Only the author sends a round (the service checks who).
    ("RevisePatch", Access::Scope(Scope::Submit)),
];

/// The health service's methods (unauthenticated and not rate-limited, like `/healthz`).
pub const HEALTH_PATHS: [&str; 2] = ["/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch"];
const REFLECTION_PATHS: [&str; 2] = [
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
];

/// The gRPC rows of the authorization table.
pub fn rules() -> Vec<Rule> {
    let rule = |path: String, access: Access| Rule {
        method: Method::POST,
        path: Box::leak(path.into_boxed_str()),
        access,
    };
    let mut rules: Vec<Rule> = REGISTRY_METHODS
        .iter()
        .map(|(method, access)| rule(format!("/{}/{method}", cairn_proto::REGISTRY_SERVICE), *access))
        .collect();
    rules.extend(HEALTH_PATHS.iter().map(|p| rule((*p).to_owned(), Access::Public)));
    rules.extend(
        REFLECTION_PATHS
            .iter()
            .map(|p| rule((*p).to_owned(), Access::Scope(Scope::Read))),
    );
    rules
}

/// The gRPC routes (one per method path, so the gate sees which method is called; POST
/// only, as gRPC is).
pub fn router(state: &AppState) -> Router<AppState> {
    let registry = RegistryServer::new(service::RegistryService::new(state.clone()))
        .max_decoding_message_size(MAX_REQUEST_MESSAGE)
        .max_encoding_message_size(MAX_RESPONSE_MESSAGE);
    let health = tonic_health::pb::health_server::HealthServer::new(
        tonic_health::server::HealthService::from_health_reporter(state.grpc_health.clone()),
    );
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(cairn_proto::FILE_DESCRIPTOR_SET)
    };
    let mut router = Router::new().route(
        &format!("/{}/GetIndex", cairn_proto::REGISTRY_SERVICE),
        post_service(index_route::GetIndexRoute::new(state.clone())),
    );
    for (method, _) in REGISTRY_METHODS.iter().filter(|(method, _)| *method != "GetIndex") {
        router = router.route(
            &format!("/{}/{method}", cairn_proto::REGISTRY_SERVICE),
            post_service(registry.clone()),
        );
    }
    for path in HEALTH_PATHS {
        router = router.route(path, post_service(health.clone()));
    }
    match (reflection().build_v1(), reflection().build_v1alpha()) {
        (Ok(v1), Ok(v1alpha)) => {
            router = router
                .route(REFLECTION_PATHS[0], post_service(v1))
                .route(REFLECTION_PATHS[1], post_service(v1alpha));
        }
        (Err(e), _) | (_, Err(e)) => {
            tracing::error!(error = %e, "gRPC reflection is off: the descriptor set did not load")
        }
    }
    router
}

/// INVALID_ARGUMENT with the `bad_request` code: the request itself is wrong.
fn invalid(message: impl Into<String>) -> tonic::Status {
    crate::error::ApiError::bad_request(message).into()
}
