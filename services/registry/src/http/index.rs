//! `GET /v1/index`: the team index, full or as a delta, with `ETag`/`If-None-Match`.
//!
//! Clients poll this, so the unchanged case must be cheap: the organisation's newest
//! cursor is cached for [`CURSOR_TTL`] (a change committed by any process or replica
//! shows within that time). The full index is kept per organisation as one serialized
//! entry per skill: when the cursor moves, only the skills changed since are read and
//! re-serialized, and the body is reassembled from the entries.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Deserialize;

use super::error::ApiError;
use super::extract::ApiQuery;
use super::skills::{if_none_match, not_modified};
use super::wire::IndexBody;
use crate::AppState;
use crate::auth::Principal;

/// How long a cached organisation cursor is trusted.
pub const CURSOR_TTL: Duration = Duration::from_secs(1);

/// Caching policy of index responses: always revalidate, never share.
const INDEX_CACHE_CONTROL: &str = "private, no-cache";

/// Per-organisation index cursor and full index.
#[derive(Default)]
pub struct IndexCache {
    cursors: Mutex<HashMap<i64, (i64, Instant)>>,
    full: Mutex<HashMap<i64, Arc<FullIndex>>>,
}

/// An organisation's full index as of `cursor`: each skill's serialized entry (by name,
/// in byte order like the database's) and the assembled body.
struct FullIndex {
    cursor: i64,
    entries: BTreeMap<String, Bytes>,
    body: Bytes,
}

impl IndexCache {
    /// Forgets the organisation's cached cursor after a change made by this process, so
    /// its next index request reads the new cursor (read-your-writes on this replica).
    pub fn changed(&self, org_id: i64) {
        self.cursors.lock().unwrap_or_else(|e| e.into_inner()).remove(&org_id);
    }

    fn cursor(&self, org_id: i64) -> Option<i64> {
        let cursors = self.cursors.lock().unwrap_or_else(|e| e.into_inner());
        cursors
            .get(&org_id)
            .filter(|(_, at)| at.elapsed() < CURSOR_TTL)
            .map(|(c, _)| *c)
    }

    fn remember_cursor(&self, org_id: i64, cursor: i64) {
        self.cursors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(org_id, (cursor, Instant::now()));
    }

    fn full(&self, org_id: i64) -> Option<Arc<FullIndex>> {
        self.full
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&org_id)
            .cloned()
    }

    fn remember_full(&self, org_id: i64, index: Arc<FullIndex>) {
        let mut full = self.full.lock().unwrap_or_else(|e| e.into_inner());
        // Never replace a newer index with an older one built concurrently.
        if full.get(&org_id).is_none_or(|current| current.cursor <= index.cursor) {
            full.insert(org_id, index);
        }
    }
}

/// The full index as of at least `cursor`: from the cache, by patching the cached index
/// with the changes since its cursor, or (first time) by reading everything.
async fn full_index(state: &AppState, org_id: i64, cursor: i64) -> Result<Arc<FullIndex>, ApiError> {
    let cached = state.index_cache.full(org_id);
    if let Some(index) = &cached
        && index.cursor >= cursor
    {
        return Ok(Arc::clone(index));
    }
    let (mut entries, since) = match cached {
        Some(index) => (index.entries.clone(), Some(index.cursor)),
        None => (BTreeMap::new(), None),
    };
    let snapshot = state.store.index(org_id, since).await?;
    for name in &snapshot.removed {
        entries.remove(name);
    }
    let cursor = snapshot.cursor;
    for entry in IndexBody::from(snapshot).skills {
        let json = serde_json::to_vec(&entry).map_err(|e| ApiError::internal("serializing the index", &e))?;
        entries.insert(entry.name, Bytes::from(json));
    }
    let index = Arc::new(FullIndex {
        cursor,
        body: assemble(cursor, &entries),
        entries,
    });
    state.index_cache.remember_full(org_id, Arc::clone(&index));
    Ok(index)
}

/// `{"cursor":N,"skills":[entry,…]}` from serialized entries (the shape of [`IndexBody`]).
fn assemble(cursor: i64, entries: &BTreeMap<String, Bytes>) -> Bytes {
    let size: usize = entries.values().map(Bytes::len).sum::<usize>() + entries.len() + 64;
    let mut body = Vec::with_capacity(size);
    body.extend_from_slice(format!("{{\"cursor\":{cursor},\"skills\":[").as_bytes());
    for (i, entry) in entries.values().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(entry);
    }
    body.extend_from_slice(b"]}");
    Bytes::from(body)
}

/// Query of `GET /v1/index`.
#[derive(Debug, Deserialize)]
pub struct IndexQuery {
    since: Option<String>,
}

fn etag(since: Option<i64>, cursor: i64) -> String {
    match since {
        None => format!("\"index-{cursor}\""),
        Some(since) => format!("\"index-{since}-{cursor}\""),
    }
}

/// `GET /v1/index[?since=<cursor>]`.
pub async fn get_index(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiQuery(query): ApiQuery<IndexQuery>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let since = match query.since.as_deref().filter(|s| !s.is_empty()) {
        None => None,
        Some(raw) => Some(raw.parse::<i64>().ok().filter(|s| *s >= 0).ok_or_else(|| {
            ApiError::bad_request(format!(
                "since '{raw}' is not valid: pass the cursor of a previous index response, or omit it for the full index"
            ))
        })?),
    };
    let org_id = principal.org_id;
    let cursor = match state.index_cache.cursor(org_id) {
        Some(cursor) => cursor,
        None => {
            let cursor = state.store.index_cursor(org_id).await?;
            state.index_cache.remember_cursor(org_id, cursor);
            cursor
        }
    };
    let cursor = match since {
        // A cursor beyond the newest change: maybe our cached cursor is stale, else the
        // registry was restored or reset and the client would silently miss changes.
        Some(since) if since > cursor => {
            let fresh = state.store.index_cursor(org_id).await?;
            state.index_cache.remember_cursor(org_id, fresh);
            if since > fresh {
                return Err(ApiError::new(
                    StatusCode::GONE,
                    "cursor_expired",
                    format!(
                        "cursor {since} is newer than this registry's newest change ({fresh}); the registry was \
                         restored or reset: fetch the full index (omit since) and continue from its cursor"
                    ),
                ));
            }
            fresh
        }
        _ => cursor,
    };
    let tag = etag(since, cursor);
    if if_none_match(&headers, &tag) {
        return Ok(not_modified(&tag, INDEX_CACHE_CONTROL));
    }
    if since.is_none() {
        let index = full_index(&state, org_id, cursor).await?;
        state.index_cache.remember_cursor(org_id, index.cursor);
        return Ok(index_response(&etag(None, index.cursor), index.body.clone()));
    }
    let snapshot = state.store.index(org_id, since).await?;
    let cursor = snapshot.cursor;
    let removed = snapshot.removed.clone();
    let mut body = IndexBody::from(snapshot);
    body.removed = Some(removed);
    let bytes = Bytes::from(serde_json::to_vec(&body).map_err(|e| ApiError::internal("serializing the index", &e))?);
    state.index_cache.remember_cursor(org_id, cursor);
    Ok(index_response(&etag(since, cursor), bytes))
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
