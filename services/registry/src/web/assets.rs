//! The pages' stylesheet and script, embedded in the binary (no CDN, nothing fetched at
//! run time). Both are our own files; no third-party library is bundled.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::error::WebError;

/// One embedded file.
struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const ASSETS: [Asset; 2] = [
    Asset {
        name: "cairn.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../assets/cairn.css"),
    },
    Asset {
        name: "cairn.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../assets/cairn.js"),
    },
];

/// Each asset's entity tag (a digest of its bytes), computed once.
static ETAGS: LazyLock<Vec<String>> = LazyLock::new(|| {
    ASSETS
        .iter()
        .map(|a| format!("\"{}\"", hex::encode(&Sha256::digest(a.body)[..8])))
        .collect()
});

/// `GET /admin/assets/{file}`: an embedded asset, revalidated by its entity tag.
pub async fn serve(Path(file): Path<String>, headers: HeaderMap) -> Result<Response, WebError> {
    let Some(index) = ASSETS.iter().position(|a| a.name == file) else {
        return Err(WebError::not_found("There is no such asset."));
    };
    let (asset, etag) = (&ASSETS[index], &ETAGS[index]);
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, asset.content_type)], asset.body).into_response()
    };
    let out = response.headers_mut();
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if let Ok(value) = HeaderValue::from_str(etag) {
        out.insert(header::ETAG, value);
    }
    Ok(response)
}
