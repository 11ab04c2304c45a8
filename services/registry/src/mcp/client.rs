//! Who the agent says it is: the self-reported provenance a proposal records. Clients of
//! the 2026-07-28 protocol send their `clientInfo` in every request's `_meta`; older
//! clients send it once, in `initialize`. The endpoint is stateless (any replica answers
//! any request), so for those it keeps nothing: the answer to `initialize` carries an
//! `Mcp-Session-Id` that *is* the client's description — a random session id and the
//! name and version it gave — which the client sends back with every later request.

use axum::http::HeaderValue;
use axum::http::request::Parts;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde::{Deserialize, Serialize};

use crate::app::patches::AgentInfo;

/// The header of a session (MCP streamable HTTP).
pub const SESSION_HEADER: &str = "mcp-session-id";

/// The prefix of the session ids this registry issues.
const SESSION_PREFIX: &str = "cairn1.";

/// Longest name or version kept from a client's description.
const MAX_FIELD: usize = 64;

/// What a client said about itself in `initialize`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientInfo {
    /// Its name (`claude-code`, `codex`, `hermes`…).
    #[serde(default)]
    pub name: String,
    /// Its version.
    #[serde(default)]
    pub version: String,
}

impl ClientInfo {
    /// The description with each field cut to a bounded length.
    fn bounded(self) -> Self {
        let cut = |s: String| s.chars().filter(|c| !c.is_control()).take(MAX_FIELD).collect();
        ClientInfo {
            name: cut(self.name),
            version: cut(self.version),
        }
    }
}

/// The session id answered to an `initialize` that described the client as `info`.
pub fn session_id(info: ClientInfo) -> HeaderValue {
    let described = serde_json::to_vec(&info.bounded()).unwrap_or_default();
    let random: u128 = rand::random();
    let id = format!("{SESSION_PREFIX}{random:032x}.{}", URL_SAFE_NO_PAD.encode(described));
    // Base64url, hex and dots only: always a valid header value.
    HeaderValue::from_str(&id).unwrap_or_else(|_| HeaderValue::from_static("cairn1"))
}

/// The session id and client description a request carries, if it is one of ours.
fn from_session(parts: &Parts) -> Option<(String, ClientInfo)> {
    let id = parts.headers.get(SESSION_HEADER)?.to_str().ok()?;
    let rest = id.strip_prefix(SESSION_PREFIX)?;
    let (random, described) = rest.split_once('.')?;
    if random.len() != 32 || !random.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let info: ClientInfo = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(described).ok()?).ok()?;
    Some((format!("{SESSION_PREFIX}{random}"), info.bounded()))
}

/// The agent provenance of a request: the client's name and version (from the request's
/// `_meta`, or from the session it was given), and the session when there is one — ours
/// (handshake era) or the one a stateless client names in `_meta` (`cairn mcp` does).
pub fn agent(context: &RequestContext<RoleServer>, parts: &Parts) -> AgentInfo {
    let session = from_session(parts);
    let named = context
        .meta
        .get(cairn_wire::mcp::SESSION_META)
        .and_then(|value| value.as_str())
        .and_then(cairn_wire::mcp::session_name);
    let info = context
        .meta
        .client_info()
        .map(|i| {
            ClientInfo {
                name: i.name,
                version: i.version,
            }
            .bounded()
        })
        .or_else(|| session.as_ref().map(|(_, info)| info.clone()));
    let name = info.map(|i| match i.version.is_empty() {
        true => i.name,
        false => format!("{} {}", i.name, i.version),
    });
    AgentInfo {
        name: name
            .filter(|n| !n.trim().is_empty())
            .or_else(|| Some("mcp client".to_owned())),
        model: None,
        session: session.map(|(id, _)| id).or(named),
        via: Some(crate::app::patches::VIA_MCP.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts_with(session: Option<&HeaderValue>) -> Parts {
        let mut builder = axum::http::Request::builder();
        if let Some(value) = session {
            builder = builder.header(SESSION_HEADER, value);
        }
        builder.body(()).unwrap().into_parts().0
    }

    #[test]
    fn a_session_id_carries_the_client_description_back() {
        let id = session_id(ClientInfo {
            name: "claude-code".into(),
            version: "2.1.0".into(),
        });
        let (session, info) = from_session(&parts_with(Some(&id))).unwrap();
        assert_eq!((info.name.as_str(), info.version.as_str()), ("claude-code", "2.1.0"));
        assert!(id.to_str().unwrap().starts_with(&session));
    }

    #[test]
    fn long_or_control_text_is_bounded_and_foreign_sessions_are_ignored() {
        let id = session_id(ClientInfo {
            name: format!("evil\n{}", "x".repeat(500)),
            version: String::new(),
        });
        let (_, info) = from_session(&parts_with(Some(&id))).unwrap();
        assert_eq!(info.name.chars().count(), MAX_FIELD);
        assert!(!info.name.contains('\n'));
        for foreign in [
            "abc",
            "cairn1.",
            "cairn1.x.!!!",
            "cairn1.x.e30",
            "cairn1.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz.e30",
        ] {
            let value = HeaderValue::from_static(foreign);
            let parsed = from_session(&parts_with(Some(&value)));
            assert!(
                parsed.is_none() || parsed.unwrap().1 == ClientInfo::default(),
                "{foreign}"
            );
        }
        assert!(from_session(&parts_with(None)).is_none());
    }
}
