//! Address prefixes that carry who is asking, for clients that cannot send headers:
//!
//! - `/t/<token>/<path>`: a **capability URL**. The token (typically a revocable `reader`
//!   token) travels in the path and is used as if sent as `Authorization: Bearer`; such
//!   URLs only read (`GET`/`HEAD`). Revoking the token stops every URL made with it at once.
//! - `/o/<slug>/<path>`: names the organisation whose anonymous discovery endpoints are
//!   meant (without it, anonymous requests read the default organisation).
//!
//! The prefix is taken off before routing, so every route is reachable both ways and
//! logs and traces never see the token.

use axum::extract::Request;
use axum::http::{HeaderValue, Method, Uri, header};

/// Marks a request that arrived through a capability URL.
#[derive(Clone, Copy, Debug)]
pub struct CapabilityUrl;

/// The organisation a `/o/<slug>/` prefix named.
#[derive(Clone, Debug)]
pub struct OrgPrefix(pub String);

/// Takes a `/t/<token>` or `/o/<slug>` prefix off the path (once, outermost).
pub fn strip<B>(mut request: axum::http::Request<B>) -> axum::http::Request<B> {
    let path = request.uri().path();
    let (kind, rest) = match path.strip_prefix("/t/") {
        Some(rest) => ('t', rest),
        None => match path.strip_prefix("/o/") {
            Some(rest) => ('o', rest),
            None => return request,
        },
    };
    let Some((value, tail)) = rest.split_once('/') else {
        return request;
    };
    if value.is_empty() || tail.is_empty() {
        return request;
    }
    let (value, tail) = (value.to_owned(), format!("/{tail}"));
    let path_and_query = match request.uri().query() {
        Some(query) => format!("{tail}?{query}"),
        None => tail,
    };
    let mut parts = request.uri().clone().into_parts();
    let Ok(path_and_query) = path_and_query.parse() else {
        return request;
    };
    parts.path_and_query = Some(path_and_query);
    let Ok(uri) = Uri::from_parts(parts) else {
        return request;
    };
    *request.uri_mut() = uri;
    match kind {
        't' => {
            if let Ok(value) = HeaderValue::from_str(&format!("Bearer {value}")) {
                request.headers_mut().insert(header::AUTHORIZATION, value);
                request.extensions_mut().insert(CapabilityUrl);
            }
        }
        _ => {
            request.extensions_mut().insert(OrgPrefix(value));
        }
    }
    request
}

/// Whether a capability URL is used for something other than reading.
pub fn writes_through_capability(request: &Request) -> bool {
    request.extensions().get::<CapabilityUrl>().is_some() && !matches!(*request.method(), Method::GET | Method::HEAD)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripped(uri: &str) -> axum::http::Request<()> {
        strip(axum::http::Request::builder().uri(uri).body(()).unwrap())
    }

    #[test]
    fn capability_and_organisation_prefixes_come_off_before_routing() {
        let r = stripped("/t/abc.def.ghi/.well-known/skills/index.json?x=1");
        assert_eq!(r.uri(), "/.well-known/skills/index.json?x=1");
        assert_eq!(r.headers()[header::AUTHORIZATION], "Bearer abc.def.ghi");
        assert!(r.extensions().get::<CapabilityUrl>().is_some());

        let r = stripped("/o/acme/.well-known/skills/demo/SKILL.md");
        assert_eq!(r.uri(), "/.well-known/skills/demo/SKILL.md");
        assert_eq!(r.extensions().get::<OrgPrefix>().unwrap().0, "acme");
        assert!(r.headers().get(header::AUTHORIZATION).is_none());

        for untouched in ["/t/", "/t/only", "/t//x", "/v1/skills", "/team/x/y"] {
            assert_eq!(stripped(untouched).uri(), untouched);
        }
    }
}
