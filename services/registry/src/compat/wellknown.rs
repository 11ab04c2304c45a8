//! The discovery endpoints other skill clients read, unchanged (docs/CLIENTS.md):
//!
//! - `GET /.well-known/skills/index.json` — `{"skills": [{"name", "description",
//!   "files": [...]}]}`, what Hermes Agent's `well-known` source and the `skills` CLI read;
//!   `GET /.well-known/skills/{name}/{*path}` — each file's exact bytes.
//! - `GET /.well-known/agent-skills/index.json` — agentskills discovery 0.2.0: per skill
//!   `{"name", "description", "type": "archive", "url", "digest"}`, the URL relative to
//!   the index (so capability-URL prefixes carry over) and pinned to the revision, so the
//!   bytes always match the digest; `GET /.well-known/agent-skills/{name}/{rev}.tar.gz`
//!   and `GET /.well-known/agent-skills/{name}.tar.gz` (the served revision).
//!
//! Only the latest approved, non-yanked version of each skill is served. Access: a token
//! with `read` (header, or a `/t/<token>/` capability URL), or none when the organisation
//! allows anonymous reads (`access::Reader`).

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde::Serialize;

use crate::AppState;
use crate::access::Reader;
use crate::app::discovery::{self};
use crate::error::ApiError;
use crate::error::parse::ApiPath;
use crate::serving::{file_content_type, if_none_match, untrusted_file};

/// The agentskills discovery schema this index follows.
pub const AGENT_SKILLS_SCHEMA: &str = "https://schemas.agentskills.io/discovery/0.2.0/schema.json";

/// Indexes change with every approval: clients revalidate (cheaply, by ETag).
const REVALIDATE: &str = "no-cache";

#[derive(Serialize)]
struct SkillsIndex<'a> {
    skills: Vec<SkillsEntry<'a>>,
}

#[derive(Serialize)]
struct SkillsEntry<'a> {
    name: &'a str,
    description: &'a str,
    files: Vec<&'a str>,
}

/// The index's validator: the organisation's index cursor (any change moves it).
fn index_etag(kind: &str, org_id: i64, cursor: i64) -> String {
    format!("\"{kind}-{org_id}-{cursor}\"")
}

/// What every discovery answer says about caching: revalidate (or, for pinned archives,
/// keep); `private` unless it was read anonymously, since what a token (or a capability
/// URL) reads is not for shared caches; the answer depends on the `Authorization` header;
/// and no `Referer` carries a capability URL onwards.
fn caching(mut response: Response, reader: &Reader, etag: &str, immutable: bool) -> Response {
    let cache = match (reader.principal.is_some(), immutable) {
        (true, true) => "private, max-age=31536000, immutable",
        (true, false) => "private, no-cache",
        (false, true) => "public, max-age=31536000, immutable",
        (false, false) => REVALIDATE,
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    headers.insert(header::VARY, HeaderValue::from_static("authorization"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    if let Ok(value) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, value);
    }
    response
}

/// A 304 for `etag`, with the same caching headers as the full answer.
fn unchanged(reader: &Reader, etag: &str, immutable: bool) -> Response {
    caching(StatusCode::NOT_MODIFIED.into_response(), reader, etag, immutable)
}

fn json(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `GET /.well-known/skills/index.json`.
pub async fn skills_index(
    State(state): State<AppState>,
    reader: Reader,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let index = discovery::current(&state, reader.org_id).await?;
    let etag = index_etag("skills", reader.org_id, index.cursor);
    if if_none_match(&headers, &etag) {
        return Ok(unchanged(&reader, &etag, false));
    }
    if let Some(bytes) = state.discovery_indexes.get(reader.org_id, "skills", index.cursor) {
        return Ok(caching(json(bytes), &reader, &etag, false));
    }
    let body = SkillsIndex {
        skills: index
            .entries
            .values()
            .map(|e| SkillsEntry {
                name: &e.name,
                description: &e.description,
                files: e.files.iter().map(|f| f.path.as_str()).collect(),
            })
            .collect(),
    };
    let bytes =
        Bytes::from(serde_json::to_vec(&body).map_err(|e| ApiError::internal("encoding the skills index", &e))?);
    state
        .discovery_indexes
        .put(reader.org_id, "skills", index.cursor, bytes.clone());
    Ok(caching(json(bytes), &reader, &etag, false))
}

/// `GET /.well-known/skills/{name}/{*path}`: one file of the served version, as stored.
pub async fn skills_file(
    State(state): State<AppState>,
    reader: Reader,
    ApiPath((name, path)): ApiPath<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let file = discovery::file_entry(&state, reader.org_id, &name, &path).await?;
    let etag = format!("\"{}\"", file.sha256);
    if if_none_match(&headers, &etag) {
        return Ok(unchanged(&reader, &etag, false));
    }
    let bytes = crate::app::catalog::read_blob(state.blobs.as_ref(), &file.sha256).await?;
    let content_type = file_content_type(&file.path).to_owned();
    let response = caching(
        ([(header::CONTENT_TYPE, content_type)], bytes).into_response(),
        &reader,
        &etag,
        false,
    );
    Ok(untrusted_file(response))
}

#[derive(Serialize)]
struct AgentSkillsIndex<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    skills: Vec<AgentSkillsEntry<'a>>,
}

#[derive(Serialize)]
struct AgentSkillsEntry<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    url: String,
    digest: String,
}

/// `GET /.well-known/agent-skills/index.json`.
pub async fn agent_skills_index(
    State(state): State<AppState>,
    reader: Reader,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let index = discovery::current(&state, reader.org_id).await?;
    let etag = index_etag("agent-skills", reader.org_id, index.cursor);
    if if_none_match(&headers, &etag) {
        return Ok(unchanged(&reader, &etag, false));
    }
    if let Some(bytes) = state.discovery_indexes.get(reader.org_id, "agent-skills", index.cursor) {
        return Ok(caching(json(bytes), &reader, &etag, false));
    }
    let digests = discovery::archive_digests(&state, reader.org_id, &index).await?;
    let body = AgentSkillsIndex {
        schema: AGENT_SKILLS_SCHEMA,
        skills: index
            .entries
            .values()
            .filter_map(|e| {
                Some(AgentSkillsEntry {
                    name: &e.name,
                    description: &e.description,
                    kind: "archive",
                    url: format!("{}/{}.tar.gz", e.name, e.revision),
                    digest: digests.get(&e.name)?.clone(),
                })
            })
            .collect(),
    };
    let complete = body.skills.len() == index.entries.len();
    let bytes =
        Bytes::from(serde_json::to_vec(&body).map_err(|e| ApiError::internal("encoding the agent-skills index", &e))?);
    // An entry left out (its archive could not be built) must not be kept as complete.
    let etag = if complete {
        state
            .discovery_indexes
            .put(reader.org_id, "agent-skills", index.cursor, bytes.clone());
        etag
    } else {
        format!("\"agent-skills-{}-{}-partial\"", reader.org_id, index.cursor)
    };
    Ok(caching(json(bytes), &reader, &etag, false))
}

/// An archive answer (or 304 when the client holds these bytes already).
async fn archive_answer(
    state: &AppState,
    reader: &Reader,
    name: &str,
    revision: Option<i32>,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let immutable = revision.is_some();
    let (revision, recorded) = discovery::archive_sha256(state, reader.org_id, name, revision).await?;
    if let Some(hex) = recorded {
        let etag = format!("\"sha256:{hex}\"");
        if if_none_match(headers, &etag) {
            return Ok(unchanged(reader, &etag, immutable));
        }
    }
    let archive = discovery::archive(state, reader.org_id, name, Some(revision)).await?;
    let etag = format!("\"sha256:{}\"", archive.sha256);
    let response = (
        [
            (header::CONTENT_TYPE, "application/gzip".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}-{}.tar.gz\"", archive.revision),
            ),
        ],
        archive.bytes,
    )
        .into_response();
    Ok(caching(response, reader, &etag, immutable))
}

/// `GET /.well-known/agent-skills/{name}/{file}`: `{rev}.tar.gz`, a pinned revision's
/// archive (immutable).
pub async fn agent_skills_pinned(
    State(state): State<AppState>,
    reader: Reader,
    ApiPath((name, file)): ApiPath<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let revision = file
        .strip_suffix(".tar.gz")
        .and_then(|r| r.parse::<i32>().ok())
        .filter(|r| *r >= 1)
        .ok_or_else(|| {
            ApiError::not_found(format!(
                "'{file}' is not an archive of '{name}': archives are named <revision>.tar.gz, as index.json lists them"
            ))
        })?;
    archive_answer(&state, &reader, &name, Some(revision), &headers).await
}

/// `GET /.well-known/agent-skills/{file}`: `{name}.tar.gz`, the served revision's archive.
pub async fn agent_skills_latest(
    State(state): State<AppState>,
    reader: Reader,
    ApiPath(file): ApiPath<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let Some(name) = file.strip_suffix(".tar.gz") else {
        return Err(ApiError::not_found(format!(
            "'{file}' is not served here: see index.json"
        )));
    };
    archive_answer(&state, &reader, name, None, &headers).await
}
