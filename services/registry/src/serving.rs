//! How skill files and cacheable resources are served over HTTP, shared by the REST and
//! compatibility routes: content types that never let a browser run a skill file, the
//! headers every untrusted file carries, and conditional requests.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// Caching headers for content that can never change (blobs, pinned files).
pub const IMMUTABLE: &str = "private, max-age=31536000, immutable";

/// The content type a skill file is served with: Markdown and other text as inert text,
/// everything else as opaque bytes (never HTML, SVG or script types a browser would run).
pub fn file_content_type(path: &str) -> &'static str {
    let mime = mime_guess::from_path(path).first_or_octet_stream();
    if path.ends_with(".md") {
        "text/markdown; charset=utf-8"
    } else if mime.essence_str() == "application/json" {
        "application/json"
    } else if mime.type_() == "text" || path.ends_with(".yaml") || path.ends_with(".yml") || path.ends_with(".toml") {
        "text/plain; charset=utf-8"
    } else {
        "application/octet-stream"
    }
}

/// Marks a response as an untrusted file: skill files come from agents, so a browser
/// must neither guess another type for them nor run them as a page of this origin.
pub fn untrusted_file(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("sandbox"));
    response
}

/// Whether the request's `If-None-Match` lists `etag` (or `*`).
pub fn if_none_match(headers: &HeaderMap, etag: &str) -> bool {
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == etag || t == "*")
}

/// A 304 carrying the validator and caching policy.
pub fn not_modified(etag: &str, cache_control: &'static str) -> Response {
    let mut response = StatusCode::NOT_MODIFIED.into_response();
    if let Ok(value) = HeaderValue::from_str(etag) {
        response.headers_mut().insert(header::ETAG, value);
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static(cache_control));
    response
}
