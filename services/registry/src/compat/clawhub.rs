//! A ClawHub-compatible API, so the `clawhub` CLI searches, installs and updates skills
//! from Cairn unchanged (docs/CLIENTS.md). Only approved, non-yanked versions are served;
//! a ClawHub version is a revision written `1.0.<revision>` (`app::clawhub`). Errors are
//! plain text, as that CLI prints them.

use axum::Extension;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use cairn_store::{RevisionSelector, SkillSummary, VersionInfo};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::AppState;
use crate::access::Reader;
use crate::app::catalog::{self, CatalogError};
use crate::app::clawhub::{self, publish, revision_of, version_of};
use crate::app::discovery;
use crate::auth::Principal;
use crate::error::ApiError;
use crate::error::parse::ApiPath;
use crate::serving::{file_content_type, untrusted_file};

/// Most search results or skills per page.
const MAX_LIMIT: usize = 100;

/// An error answered as plain text with its status.
pub struct TextError(ApiError);

impl<E: Into<ApiError>> From<E> for TextError {
    fn from(error: E) -> Self {
        TextError(error.into())
    }
}

impl IntoResponse for TextError {
    fn into_response(self) -> Response {
        let mut response = (self.0.status(), format!("{}\n", self.0.message())).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        response
    }
}

type Answer = Result<Response, TextError>;

fn millis(at: chrono::DateTime<chrono::Utc>) -> i64 {
    at.timestamp_millis()
}

fn not_found(message: String) -> TextError {
    TextError(ApiError::not_found(message))
}

/// `GET /.well-known/clawhub.json`: where the API is (this server).
pub async fn well_known(State(state): State<AppState>, headers: HeaderMap) -> Response {
    axum::Json(json!({ "apiBase": well_known_base(&state, &headers) })).into_response()
}

/// `GET /api/v1/whoami`.
pub async fn whoami(Extension(principal): Extension<Principal>) -> Response {
    axum::Json(json!({
        "user": {"handle": principal.handle, "displayName": principal.handle, "image": null, "role": "user"}
    }))
    .into_response()
}

/// Query of `GET /api/v1/search`.
#[derive(Debug, Deserialize)]
pub struct SearchQuery {
    q: Option<String>,
    limit: Option<usize>,
}

/// `GET /api/v1/search?q=`: served skills whose name or description contains the words.
pub async fn search(State(state): State<AppState>, reader: Reader, Query(query): Query<SearchQuery>) -> Answer {
    let index = discovery::current(&state, reader.org_id).await?;
    let needle = query.q.unwrap_or_default().trim().to_lowercase();
    let mut results: Vec<(f64, Value)> = index
        .entries
        .values()
        .filter_map(|e| {
            let name = e.name.to_lowercase();
            let score = if needle.is_empty() || name == needle {
                1.0
            } else if name.contains(&needle) {
                0.8
            } else if e.description.to_lowercase().contains(&needle) {
                0.5
            } else {
                return None;
            };
            Some((
                score,
                json!({
                    "slug": e.name, "displayName": e.name, "summary": e.description,
                    "version": version_of(e.revision), "score": score, "updatedAt": millis(e.updated_at),
                }),
            ))
        })
        .collect();
    results.sort_by(|a, b| b.0.total_cmp(&a.0));
    results.truncate(query.limit.unwrap_or(20).clamp(1, MAX_LIMIT));
    Ok(axum::Json(json!({ "results": results.into_iter().map(|(_, v)| v).collect::<Vec<_>>() })).into_response())
}

/// A skill as ClawHub describes it, with its served version.
fn skill_json(skill: &SkillSummary, description: &str, revision: i32, updated: chrono::DateTime<chrono::Utc>) -> Value {
    json!({
        "slug": skill.name, "displayName": skill.name, "summary": description, "description": description,
        "tags": {"latest": version_of(revision)}, "stats": {},
        "createdAt": millis(skill.created_at), "updatedAt": millis(updated),
    })
}

fn version_json(version: &VersionInfo) -> Value {
    json!({
        "version": version_of(version.revision), "createdAt": millis(version.created_at),
        "changelog": "", "changelogSource": null,
    })
}

/// The served skill `slug`: its summary and latest non-yanked version.
async fn served(state: &AppState, org_id: i64, slug: &str) -> Result<(SkillSummary, VersionInfo), TextError> {
    let skill = catalog::find_skill(&state.store, org_id, slug)
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(_) => not_found(format!("skill '{slug}' not found: search with `clawhub search`")),
            other => other.into(),
        })?;
    let latest = catalog::resolve(&state.store, org_id, slug, RevisionSelector::Latest)
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(_) => not_found(format!("skill '{slug}' has no published version")),
            other => other.into(),
        })?;
    Ok((skill, latest.version))
}

/// A non-yanked version named by a ClawHub version (`None`: the latest).
async fn version_named(
    state: &AppState,
    org_id: i64,
    slug: &str,
    version: Option<&str>,
) -> Result<catalog::ResolvedVersion, TextError> {
    let selector = match version.filter(|v| !v.is_empty() && *v != "latest") {
        None => RevisionSelector::Latest,
        Some(v) => RevisionSelector::Exact(revision_of(v).ok_or_else(|| {
            not_found(format!(
                "version '{v}' of '{slug}' not found: versions are 1.0.<revision>"
            ))
        })?),
    };
    let resolved = catalog::resolve(&state.store, org_id, slug, selector)
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(message) => not_found(message),
            other => other.into(),
        })?;
    if resolved.version.yanked {
        return Err(not_found(format!(
            "version {} of '{slug}' was withdrawn",
            version_of(resolved.version.revision)
        )));
    }
    Ok(resolved)
}

/// Query of `GET /api/v1/skills`.
#[derive(Debug, Deserialize)]
pub struct ListQuery {
    limit: Option<usize>,
    cursor: Option<String>,
}

/// `GET /api/v1/skills`: served skills by name, paged.
pub async fn list(State(state): State<AppState>, reader: Reader, Query(query): Query<ListQuery>) -> Answer {
    let index = discovery::current(&state, reader.org_id).await?;
    let limit = query.limit.unwrap_or(50).clamp(1, MAX_LIMIT);
    let after = query.cursor.unwrap_or_default();
    let names: Vec<&String> = index
        .entries
        .keys()
        .filter(|n| n.as_str() > after.as_str())
        .take(limit + 1)
        .collect();
    let next = (names.len() > limit).then(|| names[limit - 1].clone());
    let mut items = Vec::new();
    for name in names.into_iter().take(limit) {
        let entry = &index.entries[name];
        let skill = catalog::find_skill(&state.store, reader.org_id, name).await?;
        let mut item = skill_json(&skill, &entry.description, entry.revision, entry.updated_at);
        item["latestVersion"] =
            json!({"version": version_of(entry.revision), "createdAt": millis(entry.updated_at), "changelog": ""});
        items.push(item);
    }
    Ok(axum::Json(json!({ "items": items, "nextCursor": next })).into_response())
}

/// `GET /api/v1/skills/{slug}`.
pub async fn skill(State(state): State<AppState>, reader: Reader, ApiPath(slug): ApiPath<String>) -> Answer {
    let (skill, latest) = served(&state, reader.org_id, &slug).await?;
    Ok(axum::Json(json!({
        "skill": skill_json(&skill, &latest.description, latest.revision, latest.created_at),
        "latestVersion": version_json(&latest),
        "metadata": null,
        "owner": null,
        "moderation": {"isSuspicious": false, "isMalwareBlocked": false, "verdict": "clean"},
    }))
    .into_response())
}

/// `GET /api/v1/skills/{slug}/versions`.
pub async fn version_list(State(state): State<AppState>, reader: Reader, ApiPath(slug): ApiPath<String>) -> Answer {
    let (skill, _) = served(&state, reader.org_id, &slug).await?;
    let items: Vec<Value> = clawhub::versions(&state.store, &skill)
        .await?
        .iter()
        .map(version_json)
        .collect();
    Ok(axum::Json(json!({ "items": items, "nextCursor": null })).into_response())
}

/// `GET /api/v1/skills/{slug}/versions/{version}`.
pub async fn version(
    State(state): State<AppState>,
    reader: Reader,
    ApiPath((slug, version)): ApiPath<(String, String)>,
) -> Answer {
    let resolved = version_named(&state, reader.org_id, &slug, Some(&version)).await?;
    let files = state.store.version_files(resolved.version.id).await?;
    let mut body = version_json(&resolved.version);
    body["files"] = files
        .iter()
        .map(|f| json!({"path": f.path, "size": f.size, "sha256": f.sha256}))
        .collect();
    body["license"] = Value::Null;
    Ok(axum::Json(json!({ "version": body, "skill": {"slug": slug, "displayName": slug} })).into_response())
}

/// Query of `GET /api/v1/skills/{slug}/file`.
#[derive(Debug, Deserialize)]
pub struct FileQuery {
    path: Option<String>,
    version: Option<String>,
}

/// `GET /api/v1/skills/{slug}/file?path=&version=`: one file's bytes.
pub async fn file(
    State(state): State<AppState>,
    reader: Reader,
    ApiPath(slug): ApiPath<String>,
    Query(query): Query<FileQuery>,
) -> Answer {
    let path = query
        .path
        .filter(|p| !p.is_empty())
        .ok_or_else(|| TextError(ApiError::bad_request("say which file: ?path=SKILL.md")))?;
    let resolved = version_named(&state, reader.org_id, &slug, query.version.as_deref()).await?;
    let entry = catalog::find_file(&state.store, &resolved, &path)
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(message) => not_found(message),
            other => other.into(),
        })?;
    let bytes = catalog::read_blob(state.blobs.as_ref(), &entry.sha256).await?;
    let response = (
        [(header::CONTENT_TYPE, file_content_type(&entry.path).to_owned())],
        bytes,
    )
        .into_response();
    Ok(untrusted_file(response))
}

/// Query of `GET /api/v1/download` and `GET /api/v1/resolve`.
#[derive(Debug, Deserialize)]
pub struct SlugQuery {
    slug: Option<String>,
    version: Option<String>,
    hash: Option<String>,
}

fn slug_of(query: &SlugQuery) -> Result<String, TextError> {
    query
        .slug
        .clone()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| TextError(ApiError::bad_request("say which skill: ?slug=<name>")))
}

/// `GET /api/v1/download?slug=&version=`: the version as a zip, files at the root.
pub async fn download(State(state): State<AppState>, reader: Reader, Query(query): Query<SlugQuery>) -> Answer {
    let slug = slug_of(&query)?;
    let resolved = version_named(&state, reader.org_id, &slug, query.version.as_deref()).await?;
    let zip = clawhub::zip_of(&state, &resolved).await?;
    let name = format!("{slug}-{}.zip", version_of(resolved.version.revision));
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
        ],
        zip,
    )
        .into_response())
}

/// `GET /api/v1/resolve?slug=&hash=`: which version has exactly these files (the
/// fingerprint of the local copy), and the latest.
pub async fn resolve(State(state): State<AppState>, reader: Reader, Query(query): Query<SlugQuery>) -> Answer {
    let slug = slug_of(&query)?;
    let hash = query.hash.clone().unwrap_or_default();
    let resolved = clawhub::resolve(&state.store, reader.org_id, &slug, &hash)
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(message) => not_found(message),
            other => other.into(),
        })?;
    let version = |revision: Option<i32>| revision.map(|r| json!({"version": version_of(r)}));
    Ok(axum::Json(json!({
        "match": version(resolved.matched),
        "latestVersion": version(resolved.latest),
    }))
    .into_response())
}

/// Body of `POST /api/v1/skills/-/upload-url`.
#[derive(Debug, Deserialize)]
pub struct UploadUrlBody {
    path: String,
    size: u64,
    sha256: String,
}

/// `POST /api/v1/skills/-/upload-url`: where to send one file of a publish.
pub async fn upload_url(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    headers: HeaderMap,
    crate::error::parse::ApiJson(body): crate::error::parse::ApiJson<UploadUrlBody>,
) -> Answer {
    let ticket = publish::announce(&state, principal.user_id, &body.path, &body.sha256, body.size)?;
    let base = well_known_base(&state, &headers);
    Ok(
        axum::Json(json!({ "uploadUrl": format!("{base}/api/v1/skills/-/upload/{ticket}"), "uploadTicket": ticket }))
            .into_response(),
    )
}

/// This server's address as the client reached it.
fn well_known_base(state: &AppState, headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("localhost");
    let https = crate::access::forwarded_https(headers, state.access.trusted_proxy_hops);
    format!("{}://{host}", if https { "https" } else { "http" })
}

/// `POST /api/v1/skills/-/upload/{ticket}`: one file's bytes, checked against the ticket
/// and kept as a content-addressed blob until the publish names it.
pub async fn upload(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(raw): ApiPath<String>,
    body: bytes::Bytes,
) -> Answer {
    let sha = publish::upload(&state, principal.user_id, &raw, body).await?;
    Ok(axum::Json(json!({ "storageId": sha })).into_response())
}

/// One file of `POST /api/v1/skills`.
#[derive(Debug, Deserialize)]
pub struct PublishFile {
    path: String,
    #[serde(rename = "storageId")]
    storage_id: String,
    #[serde(rename = "uploadTicket")]
    upload_ticket: String,
}

/// Body of `POST /api/v1/skills` (other ClawHub fields are accepted and ignored).
#[derive(Debug, Deserialize)]
pub struct PublishBody {
    slug: String,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    changelog: Option<String>,
    files: Vec<PublishFile>,
}

/// `POST /api/v1/skills` (`clawhub publish`): the files become a **patch** against the
/// latest revision (or a new skill), through the whole pipeline and review — never a
/// direct publish. Answers `publicationStatus: "pending"` (or `"published"` when the
/// organisation's policy approved it at once).
pub async fn publish(
    State(state): State<AppState>,
    caller: crate::access::Caller,
    crate::error::parse::ApiJson(body): crate::error::parse::ApiJson<PublishBody>,
) -> Answer {
    let request = publish::PublishRequest {
        slug: body.slug,
        version: body.version.clone(),
        changelog: body.changelog,
        files: body
            .files
            .into_iter()
            .map(|f| publish::UploadedFile {
                path: f.path,
                storage_id: f.storage_id,
                ticket: f.upload_ticket,
            })
            .collect(),
    };
    let record = publish::publish(&state, &caller.principal, &caller.actor(), request).await?;
    let published = record.status == "approved";
    Ok(axum::Json(json!({
        "ok": true,
        "skillId": record.skill_name,
        "versionId": record.id.to_string(),
        "slug": record.skill_name,
        "version": record.result_revision.map(version_of).or(body.version),
        "status": if published { "published" } else { "pending" },
        "publicationStatus": if published { "published" } else { "pending" },
    }))
    .into_response())
}
