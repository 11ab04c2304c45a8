//! Handlers for skills, versions, files and bundles.

use axum::Extension;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::json_ok;
use super::wire::{self, ToWire};
use crate::AppState;
use crate::access::Caller;
use crate::app::archives;
use crate::app::catalog;
use crate::auth::Principal;
use crate::error::parse as extract;
use crate::error::parse::{ApiBytes, ApiPath, ApiQuery};
use crate::error::{ApiError, ErrorKind};
use crate::serving::{IMMUTABLE, file_content_type, if_none_match, not_modified, untrusted_file};
use cairn_wire::{Page, Yank};

/// Query of `GET /v1/skills`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct ListSkillsQuery {
    /// Words to find in names and descriptions.
    q: Option<String>,
    /// Only skills of this category.
    category: Option<String>,
    /// Paging.
    #[serde(flatten)]
    page: extract::PageQuery,
}

/// `GET /v1/skills`: search and page through skills by name.
pub async fn list_skills(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiQuery(query): ApiQuery<ListSkillsQuery>,
) -> Result<Response, ApiError> {
    let limit = query.page.limit()?;
    if let Some(category) = query.category.as_deref() {
        cairn_skill::Category::parse(category).map_err(|e| ApiError::bad_request(e.to_string()))?;
    }
    let skill_query = cairn_store::SkillQuery {
        text: query.q.filter(|q| !q.trim().is_empty()),
        category: query.category,
        after: query.page.cursor().map(str::to_owned),
        limit: limit + 1,
    };
    let mut rows = state.store.list_skills(principal.org_id, &skill_query).await?;
    let next_cursor = extract::cut_page(&mut rows, limit, |s| s.name.clone());
    Ok(json_ok(Page {
        items: rows.into_iter().map(ToWire::to_wire).collect(),
        next_cursor,
    }))
}

/// `GET /v1/skills/{name}`.
pub async fn get_skill(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(name): ApiPath<String>,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let skill = catalog::find_skill(&state.store, principal.org_id, name.as_str()).await?;
    Ok(json_ok(skill.to_wire()))
}

/// `GET /v1/skills/{name}/versions`: newest first.
pub async fn list_versions(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath(name): ApiPath<String>,
    ApiQuery(page): ApiQuery<extract::PageQuery>,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let limit = page.limit()?;
    let before = match page.cursor() {
        None => None,
        Some(c) => Some(c.parse::<i32>().map_err(|_| {
            ApiError::bad_request(format!(
                "cursor '{c}' is not valid: pass back the next_cursor of the previous page"
            ))
        })?),
    };
    let skill = catalog::find_skill(&state.store, principal.org_id, name.as_str()).await?;
    let mut rows = state.store.list_versions(skill.id, before, limit + 1).await?;
    let next_cursor = extract::cut_page(&mut rows, limit, |v| v.revision.to_string());
    let items = rows
        .into_iter()
        .map(|v| wire::version(name.as_str(), v, None))
        .collect();
    Ok(json_ok(Page { items, next_cursor }))
}

/// `GET /v1/skills/{name}/versions/{rev|latest}`: a version with its manifest.
pub async fn get_version(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath((name, rev)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let selector = extract::revision(&rev)?;
    let (resolved, files) =
        catalog::version_with_files(&state.store, principal.org_id, name.as_str(), selector).await?;
    Ok(json_ok(wire::version(name.as_str(), resolved.version, Some(&files))))
}

/// `GET /v1/skills/{name}/versions/{rev|latest}/files/{*path}`: one file's bytes.
pub async fn get_file(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath((name, rev, path)): ApiPath<(String, String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let selector = extract::revision(&rev)?;
    let resolved = catalog::resolve(&state.store, principal.org_id, name.as_str(), selector).await?;
    let entry = catalog::find_file(&state.store, &resolved, &path).await?;
    let etag = format!("\"{}\"", entry.sha256);
    let cache = cache_policy(selector);
    if if_none_match(&headers, &etag) {
        return Ok(not_modified(&etag, cache));
    }
    let bytes = catalog::read_blob(state.blobs.as_ref(), &entry.sha256).await?;
    let response = (
        [
            (header::CONTENT_TYPE, file_content_type(&entry.path).to_owned()),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache.to_owned()),
            (
                header::HeaderName::from_static("x-cairn-revision"),
                resolved.version.revision.to_string(),
            ),
        ],
        bytes,
    )
        .into_response();
    Ok(untrusted_file(response))
}

/// Pinned revisions never change; `latest` must be revalidated.
fn cache_policy(selector: cairn_store::RevisionSelector) -> &'static str {
    match selector {
        cairn_store::RevisionSelector::Latest => "private, no-cache",
        cairn_store::RevisionSelector::Exact(_) => IMMUTABLE,
    }
}

/// `GET /v1/skills/{name}/versions/{rev|latest}/bundle`: the deterministic tar.gz.
pub async fn get_bundle(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    ApiPath((name, rev)): ApiPath<(String, String)>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let selector = extract::revision(&rev)?;
    let resolved = catalog::resolve(&state.store, principal.org_id, name.as_str(), selector).await?;
    // The digest covers paths and contents, not modes: the revision tells apart two
    // versions that differ only in an executable bit.
    let etag = format!("\"{}-r{}\"", resolved.version.digest, resolved.version.revision);
    let cache = cache_policy(selector);
    if if_none_match(&headers, &etag) {
        return Ok(not_modified(&etag, cache));
    }
    let (_, archive) = archives::stored(&state, &resolved).await?;
    let filename = format!("attachment; filename=\"{name}-{}.tar.gz\"", resolved.version.revision);
    Ok((
        [
            (header::CONTENT_TYPE, "application/gzip".to_owned()),
            (header::CONTENT_DISPOSITION, filename),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache.to_owned()),
            (
                header::HeaderName::from_static("x-cairn-digest"),
                resolved.version.digest.clone(),
            ),
        ],
        archive,
    )
        .into_response())
}

/// `POST /v1/skills/{name}/versions/{rev}/yank`: hide a version from `latest` and the
/// index (it stays readable by its number, so pinned users keep working).
pub async fn yank(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath((name, rev)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    set_yanked(state, caller, &name, &rev, true).await
}

/// `POST /v1/skills/{name}/versions/{rev}/unyank`: undo a yank.
pub async fn unyank(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath((name, rev)): ApiPath<(String, String)>,
) -> Result<Response, ApiError> {
    set_yanked(state, caller, &name, &rev, false).await
}

async fn set_yanked(
    state: AppState,
    caller: Caller,
    name: &str,
    rev: &str,
    yanked: bool,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(name)?;
    let cairn_store::RevisionSelector::Exact(revision) = extract::revision(rev)? else {
        return Err(ApiError::bad_request(
            "name the revision to yank or unyank by number ('latest' moves as you yank)",
        ));
    };
    let outcome = catalog::set_yanked(
        &state,
        caller.principal.org_id,
        &name,
        revision,
        yanked,
        &caller.actor(),
    )
    .await?;
    Ok(json_ok(Yank {
        name: name.as_str().to_owned(),
        revision,
        yanked,
        changed: outcome.changed,
        latest_revision: outcome.latest_revision,
    }))
}

/// Query of `POST /v1/skills/{name}/versions`.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct PublishQuery {
    /// For a new skill: its category.
    category: Option<String>,
}

/// `POST /v1/skills/{name}/versions` (reviewers): publishes a bundle (`application/gzip`,
/// the tar.gz `GET …/bundle` returns) as the next revision, through the same validation
/// and scan as a patch. 201 with the new revision; 200 when the content equals the
/// latest revision (nothing written); 422 when it is not a valid bundle or is dangerous.
pub async fn publish(
    State(state): State<AppState>,
    caller: Caller,
    ApiPath(name): ApiPath<String>,
    ApiQuery(query): ApiQuery<PublishQuery>,
    ApiBytes(body): ApiBytes,
) -> Result<Response, ApiError> {
    let name = extract::skill_name(&name)?;
    let category = query
        .category
        .as_deref()
        .map(cairn_skill::Category::parse)
        .transpose()
        .map_err(|e| ApiError::bad_request(e.to_string()))?;
    let limits = state.limits.clone();
    let bundle = tokio::task::spawn_blocking(move || cairn_skill::archive::unpack(body.as_ref(), &limits))
        .await
        .map_err(|e| ApiError::internal("unpacking a bundle", &e))?
        .map_err(|e| {
            ApiError::new(
                ErrorKind::Unprocessable,
                "invalid_bundle",
                format!("{e}: send the skill as a tar.gz (as GET /v1/skills/{{name}}/versions/{{rev}}/bundle returns)"),
            )
        })?;
    let published =
        crate::app::patches::publish_direct(&state, &caller.principal, &caller.actor(), &name, category, bundle)
            .await?;
    let status = if published.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let body = cairn_wire::Published {
        name: name.as_str().to_owned(),
        revision: published.revision,
        created: published.created,
        scan: published.scan,
    };
    Ok((status, axum::Json(body)).into_response())
}
