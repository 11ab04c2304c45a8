//! `GET /v1/index`: the team index, full or as a delta, with `ETag`/`If-None-Match`.
//!
//! Clients poll this, so the unchanged case must be cheap: the cursor comes from
//! `app::index` (cached), and a matching `If-None-Match` is answered before anything is
//! read. The full index's JSON is kept per organisation with each entry's serialized
//! form (`app::index::EncodedIndex`): after a change only the changed entries are
//! serialized again.

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;

use super::wire::ToWire;
use crate::AppState;
use crate::app::index::{self, FullIndex};
use crate::auth::Principal;
use crate::error::ApiError;
use crate::error::parse::ApiQuery;
use crate::serving::{if_none_match, not_modified};

/// Caching policy of index responses: always revalidate, never share.
const INDEX_CACHE_CONTROL: &str = "private, no-cache";

/// The JSON body of the full index, from the shared per-entry cache.
fn render(state: &AppState, org_id: i64, index: &FullIndex) -> Result<Bytes, ApiError> {
    state.index_json.encode(
        org_id,
        index,
        |entry| {
            serde_json::to_vec(&entry.to_wire())
                .map(Bytes::from)
                .map_err(|e| ApiError::internal("serializing the index", &e))
        },
        assemble,
    )
}

/// Renders `index` ahead of any request (the index keeper, `app::index::keep_warm`), so
/// the first client after a start or a change is answered from the cache.
pub fn warm(state: &AppState, org_id: i64, index: &FullIndex) {
    if let Err(e) = render(state, org_id, index) {
        tracing::warn!(error = ?e, org_id, "rendering the index ahead of requests failed");
    }
}

/// `{"cursor":N,"skills":[entry,…]}` from serialized entries (the shape of [`cairn_wire::Index`]).
fn assemble(cursor: i64, entries: &[&Bytes]) -> Bytes {
    let size: usize = entries.iter().map(|e| e.len()).sum::<usize>() + entries.len() + 64;
    let mut body = Vec::with_capacity(size);
    body.extend_from_slice(format!("{{\"cursor\":{cursor},\"skills\":[").as_bytes());
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(entry);
    }
    body.extend_from_slice(b"]}");
    Bytes::from(body)
}

/// Query of `GET /v1/index`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct IndexQuery {
    /// A cursor from an earlier answer: only what changed since.
    since: Option<String>,
}

fn etag(since: Option<i64>, cursor: i64) -> String {
    match since {
        None => format!("\"index-{cursor}\""),
        Some(since) => format!("\"index-{since}-{cursor}\""),
    }
}

/// Parses the `since` cursor of the index and the event stream.
pub(super) fn parse_cursor(raw: Option<&str>, name: &str) -> Result<Option<i64>, ApiError> {
    match raw.filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(raw) => raw.parse::<i64>().ok().filter(|s| *s >= 0).map(Some).ok_or_else(|| {
            ApiError::bad_request(format!(
                "{name} '{raw}' is not valid: pass the cursor of a previous index response or event, or omit it"
            ))
        }),
    }
}

/// `GET /v1/index[?since=<cursor>]`.
pub async fn get_index(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiQuery(query): ApiQuery<IndexQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let since = parse_cursor(query.since.as_deref(), "since")?;
    let org_id = principal.org_id;
    let cursor = index::current_cursor(&state, org_id, since).await?;
    let tag = etag(since, cursor);
    if if_none_match(&headers, &tag) {
        return Ok(not_modified(&tag, INDEX_CACHE_CONTROL));
    }
    let Some(since) = since else {
        let full = index::full(&state, org_id, cursor).await?;
        let body = render(&state, org_id, &full)?;
        return Ok(index_response(&etag(None, full.cursor), body));
    };
    let snapshot = index::delta(&state, org_id, since).await?;
    let cursor = snapshot.cursor;
    let removed = snapshot.removed.clone();
    let mut body = snapshot.to_wire();
    body.removed = Some(removed);
    let bytes = Bytes::from(serde_json::to_vec(&body).map_err(|e| ApiError::internal("serializing the index", &e))?);
    Ok(index_response(&etag(Some(since), cursor), bytes))
}

fn index_response(etag: &str, body: Bytes) -> Response {
    (
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, INDEX_CACHE_CONTROL),
        ],
        body,
    )
        .into_response()
}
