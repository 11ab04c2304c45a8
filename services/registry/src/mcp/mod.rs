//! The MCP endpoint (`POST /mcp`, issue 24; docs/MCP.md): agents search, load and read the
//! team's skills and propose lessons through the Model Context Protocol, with the
//! official Rust SDK (`rmcp`) speaking the protocol. Streamable HTTP, stateless, JSON
//! answers: any replica answers any request. The route sits behind the shared gate like
//! every other (token, `read` scope, per-token rate limit, audit of what it changes); the
//! write tools additionally need `submit`, decided by the same rule function. Each tool
//! adapts one use case of `app` — this module holds no registry logic of its own.

mod client;
mod server;
mod tools;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;

use crate::AppState;
use crate::access::{Access, MAX_BODY_BYTES, Route, route};
use crate::auth::scopes::Scope;
use crate::error::{ApiError, ErrorKind};

pub use server::CairnMcp;

/// The endpoint's path.
pub const PATH: &str = "/mcp";

/// The endpoint's routes (one: the protocol is JSON-RPC over `POST`; `GET` and `DELETE`,
/// which a stateless server does not offer, are answered 405 like any unknown method).
pub fn routes() -> Vec<Route> {
    // The body limit of `POST /v1/patches`: a proposal is no larger over MCP.
    vec![route(Method::POST, PATH, Access::Scope(Scope::Read), serve)]
}

/// The first fields of a JSON-RPC message, enough to see an `initialize`.
#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<PeekParams>,
}

/// `initialize`'s parameters, as far as they describe the client.
#[derive(Deserialize)]
struct PeekParams {
    #[serde(rename = "clientInfo", default)]
    client_info: Option<client::ClientInfo>,
}

/// `POST /mcp`: checks the `Host`, hands the request to the SDK's stateless service, and
/// gives the answer to an `initialize` a session id that describes the client (see
/// `client`).
async fn serve(State(state): State<AppState>, request: Request) -> Response {
    let (mut parts, body) = request.into_parts();
    if let Err(refused) = check_host(&state, &parts.headers, &parts.uri) {
        return refused.into_response();
    }
    // A client that accepts anything (curl, plain HTTP libraries) accepts both answers the
    // transport may give.
    let accepts_any = parts
        .headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|accept| accept.split(',').any(|t| t.trim().starts_with("*/*")));
    if accepts_any {
        parts.headers.insert(
            header::ACCEPT,
            axum::http::HeaderValue::from_static("application/json, text/event-stream"),
        );
    }
    let bytes = match axum::body::to_bytes(body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(_) => {
            return ApiError::new(
                ErrorKind::TooLarge,
                "payload_too_large",
                format!(
                    "the message is larger than {} KiB: propose large changes in several patches",
                    MAX_BODY_BYTES >> 10
                ),
            )
            .into_response();
        }
    };
    // Only an `initialize` is parsed here (the SDK parses every message anyway).
    const INITIALIZE: &[u8] = b"\"initialize\"";
    let initialize = Some(&bytes)
        .filter(|b| b.windows(INITIALIZE.len()).any(|w| w == INITIALIZE))
        .and_then(|b| serde_json::from_slice::<Peek>(b).ok())
        .filter(|p| p.method.as_deref() == Some("initialize"))
        .map(|p| p.params.and_then(|p| p.client_info).unwrap_or_default());
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        // Checked above, with an answer that says which setting to change.
        .disable_allowed_hosts()
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    let handler = CairnMcp::new(state.clone());
    let service: StreamableHttpService<CairnMcp, NeverSessionManager> =
        StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), config);
    let request = Request::from_parts(parts, Body::from(bytes));
    let Ok(answer) = tower::ServiceExt::oneshot(service, request).await;
    let mut response = answer.map(Body::new);
    if let Some(info) = initialize
        && response.status() == StatusCode::OK
    {
        response
            .headers_mut()
            .insert(client::SESSION_HEADER, client::session_id(info));
    }
    response
}

/// Refuses a request whose `Host` is not one the endpoint answers.
fn check_host(state: &AppState, headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> Result<(), ApiError> {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| uri.authority().map(|a| a.as_str()))
        .unwrap_or("");
    if host_allowed(&state.mcp_hosts, host) {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorKind::Forbidden,
        "host_not_allowed",
        format!(
            "the MCP endpoint does not answer requests for the host '{host}': an admin adds it to \
             CAIRN_MCP_ALLOWED_HOSTS (comma-separated; '*' allows any)"
        ),
    ))
}

/// Whether `host` (a `Host` header: name, `[v6]` or either with a port) is allowed: an
/// entry without a port allows the name on any port; `*` allows any host.
fn host_allowed(allowed: &[String], host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                name
            } else {
                host
            }
        }),
    };
    allowed.iter().any(|entry| {
        let entry = entry.trim();
        entry == "*" || entry.eq_ignore_ascii_case(host) || entry.eq_ignore_ascii_case(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_match_by_name_on_any_port_or_exactly_with_a_port() {
        let allowed: Vec<String> = ["localhost", "127.0.0.1", "::1", "reg.example:8443"]
            .map(String::from)
            .to_vec();
        for host in [
            "localhost",
            "localhost:7979",
            "127.0.0.1:80",
            "[::1]:7979",
            "reg.example:8443",
        ] {
            assert!(host_allowed(&allowed, host), "{host}");
        }
        for host in [
            "evil.example",
            "reg.example",
            "reg.example:443",
            "127.0.0.1.evil:80",
            "",
        ] {
            assert!(!host_allowed(&allowed, host), "{host}");
        }
        assert!(host_allowed(&["*".to_owned()], "anything:1"));
    }
}
