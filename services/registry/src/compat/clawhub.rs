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
use crate::app::clawhub::{manifest_fingerprint, revision_of, version_of};
use crate::app::discovery;
use crate::auth::Principal;
use crate::error::ApiError;
use crate::error::parse::ApiPath;
use crate::serving::{file_content_type, untrusted_file};

/// Versions considered per skill (newest first) for listings and `resolve`.
const VERSIONS: i64 = 200;
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

/// The non-yanked versions of a skill, newest first.
async fn versions(state: &AppState, skill: &SkillSummary) -> Result<Vec<VersionInfo>, TextError> {
    let all = state.store.list_versions(skill.id, None, VERSIONS).await?;
    Ok(all.into_iter().filter(|v| !v.yanked).collect())
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
    let items: Vec<Value> = versions(&state, &skill).await?.iter().map(version_json).collect();
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
    let files = {
        let _permit = state
            .archive_permits
            .acquire()
            .await
            .map_err(|e| ApiError::internal("archive permits closed", &e))?;
        catalog::read_files(&state.store, state.blobs.as_ref(), &resolved).await?
    };
    let zip = crate::app::clawhub::zip(files.iter().map(|(e, b)| (e.path.as_str(), b.as_ref(), e.executable)))
        .map_err(|e| ApiError::internal("building a zip", &e))?;
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
    let hash = query.hash.clone().unwrap_or_default().to_lowercase();
    // A skill not published yet (what `clawhub publish` asks before a first version).
    if catalog::find_skill(&state.store, reader.org_id, &slug).await.is_err() {
        return Ok(axum::Json(json!({ "match": null, "latestVersion": null })).into_response());
    }
    let (skill, latest) = served(&state, reader.org_id, &slug).await?;
    let mut matched = None;
    for version in versions(&state, &skill).await? {
        let files = state.store.version_files(version.id).await?;
        if manifest_fingerprint(&files) == hash {
            matched = Some(json!({"version": version_of(version.revision)}));
            break;
        }
    }
    Ok(axum::Json(json!({
        "match": matched,
        "latestVersion": {"version": version_of(latest.revision)},
    }))
    .into_response())
}

/// How long an upload ticket can be used, from asking for the upload URL to publishing:
/// the CLI does all three in one run, and a ticket that leaked into a log stops working.
pub const UPLOAD_TICKET_LIFETIME: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// An upload ticket: which file (SHA-256, size) the caller announced and until when
/// (Unix seconds), signed for them.
pub fn upload_ticket(state: &AppState, user_id: i64, sha256: &str, size: u64, expires: i64) -> String {
    let signature = state
        .session_key
        .sign(&format!("clawhub-upload\0{user_id}\0{sha256}\0{size}\0{expires}"));
    format!("{sha256}.{size}.{expires}.{signature}")
}

/// Why an upload ticket cannot be used.
#[derive(Debug, PartialEq, Eq)]
enum TicketProblem {
    /// Not one the registry signed for this caller.
    Invalid,
    /// Genuine, but its lifetime is over.
    Expired,
}

/// The (SHA-256, size) a ticket the caller holds announces, if it is genuine and `now`
/// (Unix seconds) is within its lifetime.
fn check_ticket(state: &AppState, user_id: i64, raw: &str, now: i64) -> Result<(String, u64), TicketProblem> {
    let mut parts = raw.splitn(4, '.');
    let mut next = || parts.next().ok_or(TicketProblem::Invalid);
    let sha = next()?;
    let size = next()?.parse::<u64>().map_err(|_| TicketProblem::Invalid)?;
    let expires = next()?.parse::<i64>().map_err(|_| TicketProblem::Invalid)?;
    // Compared in constant time: a byte-by-byte comparison would tell a forger how much of
    // a signature is right.
    if cairn_skill::Sha256Hash::parse_hex(sha).is_err()
        || !crate::auth::same_secret(&upload_ticket(state, user_id, sha, size, expires), raw)
    {
        return Err(TicketProblem::Invalid);
    }
    if now > expires {
        return Err(TicketProblem::Expired);
    }
    Ok((sha.to_owned(), size))
}

fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
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
    let sha = body.sha256.to_lowercase();
    if cairn_skill::Sha256Hash::parse_hex(&sha).is_err() {
        return Err(TextError(ApiError::bad_request(format!(
            "'{}' is not a SHA-256 for {}: send the file's hex digest",
            body.sha256, body.path
        ))));
    }
    if body.size > state.limits.max_file_bytes {
        return Err(TextError(ApiError::bad_request(format!(
            "{} is {} bytes, more than the {}-byte limit per file",
            body.path, body.size, state.limits.max_file_bytes
        ))));
    }
    let expires = unix_now() + UPLOAD_TICKET_LIFETIME.as_secs() as i64;
    let ticket = upload_ticket(&state, principal.user_id, &sha, body.size, expires);
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
    let (sha, size) = check_ticket(&state, principal.user_id, &raw, unix_now()).map_err(|problem| {
        TextError(ApiError::bad_request(match problem {
            TicketProblem::Invalid => "this upload ticket is not valid: ask for a new upload URL".to_owned(),
            TicketProblem::Expired => format!(
                "this upload ticket expired (tickets last {} minutes): ask for a new upload URL",
                UPLOAD_TICKET_LIFETIME.as_secs() / 60
            ),
        }))
    })?;
    let id = cairn_skill::Sha256Hash::of(&body);
    if body.len() as u64 != size || id.to_hex() != sha {
        return Err(TextError(ApiError::bad_request(
            "the bytes sent are not the file announced (size or SHA-256 differ): upload the file again",
        )));
    }
    state.blobs.put(&id, body).await.map_err(ApiError::from)?;
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
    use base64::Engine;
    let principal = &caller.principal;
    let mut files = std::collections::BTreeMap::new();
    for file in &body.files {
        let (sha, _) = match check_ticket(&state, principal.user_id, &file.upload_ticket, unix_now()) {
            Ok((sha, size)) if sha == file.storage_id => (sha, size),
            Err(TicketProblem::Expired) => {
                return Err(TextError(ApiError::bad_request(format!(
                    "the upload ticket of {} expired (tickets last {} minutes): upload it again, then publish",
                    file.path,
                    UPLOAD_TICKET_LIFETIME.as_secs() / 60
                ))));
            }
            _ => {
                return Err(TextError(ApiError::bad_request(format!(
                    "{} was not uploaded with this token: upload it again",
                    file.path
                ))));
            }
        };
        let id = cairn_skill::Sha256Hash::parse_hex(&sha).map_err(|e| ApiError::internal("a checked ticket", &e))?;
        let bytes = state.blobs.get(&id).await.map_err(ApiError::from)?.ok_or_else(|| {
            TextError(ApiError::bad_request(format!(
                "{} was announced but never uploaded: upload it, then publish again",
                file.path
            )))
        })?;
        files.insert(file.path.clone(), bytes);
    }
    let skill_md = files
        .get("SKILL.md")
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or_else(|| TextError(ApiError::bad_request("a skill needs a SKILL.md (UTF-8) at its root")))?
        .to_owned();
    let write = |path: &str, bytes: &[u8]| match std::str::from_utf8(bytes) {
        Ok(text) => json!({"op": "write_file", "file": path, "content": text}),
        Err(_) => json!({"op": "write_file", "file": path,
            "content_base64": base64::engine::general_purpose::STANDARD.encode(bytes)}),
    };
    let latest = catalog::resolve(&state.store, principal.org_id, &body.slug, RevisionSelector::Latest).await;
    let (base_revision, ops) = match latest {
        Ok(latest) => {
            let current = state.store.version_files(latest.version.id).await?;
            let mut ops = Vec::new();
            for (path, bytes) in &files {
                let unchanged = current
                    .iter()
                    .any(|f| f.path == *path && f.sha256 == cairn_skill::Sha256Hash::of(bytes).to_hex());
                if unchanged {
                    continue;
                }
                ops.push(if path == "SKILL.md" {
                    json!({"op": "edit", "content": skill_md})
                } else {
                    write(path, bytes)
                });
            }
            for gone in current.iter().filter(|f| !files.contains_key(&f.path)) {
                ops.push(json!({"op": "remove_file", "file": gone.path}));
            }
            (Some(latest.version.revision), ops)
        }
        Err(CatalogError::NotFound(_)) => {
            let mut ops = vec![json!({"op": "create", "content": skill_md})];
            ops.extend(files.iter().filter(|(p, _)| *p != "SKILL.md").map(|(p, b)| write(p, b)));
            (None, ops)
        }
        Err(other) => return Err(other.into()),
    };
    let changelog = body.changelog.clone().unwrap_or_default();
    let submission = crate::app::patches::Submission {
        skill: body.slug.clone(),
        base_revision,
        ops: Value::Array(ops),
        summary: if changelog.trim().is_empty() {
            format!(
                "Published with clawhub{}",
                body.version.as_deref().map(|v| format!(" as {v}")).unwrap_or_default()
            )
        } else {
            changelog.lines().next().unwrap_or_default().chars().take(200).collect()
        },
        rationale: changelog,
        supersedes: None,
        agent: crate::app::patches::AgentInfo {
            name: Some("clawhub".to_owned()),
            model: None,
            session: None,
        },
        category: None,
    };
    let record = crate::app::patches::submit(&state, principal, &caller.actor(), submission).await?;
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
