//! Skills: the searchable list by category, a skill's page (versions, the rendered
//! SKILL.md, files), the diff between any two revisions, yank / unyank and downloads.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use cairn_skill::SkillName;
use cairn_store::{FileEntry, RevisionSelector, SkillQuery, VersionInfo};
use serde::Deserialize;

use super::{attachment, given, path_href, when};
use crate::AppState;
use crate::app::catalog::{self, CatalogError};
use crate::web::error::{WebError, encode};
use crate::web::render::diff::{self, FileView};
use crate::web::render::markdown::{render_markdown, split_frontmatter};
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Skills per page of the list.
const PAGE: i64 = 100;
/// Versions listed on a skill's page.
const VERSIONS_SHOWN: i64 = 200;

fn skill_name(raw: &str) -> Result<SkillName, WebError> {
    SkillName::parse(raw).map_err(|e| WebError::bad_request(format!("{e}. Pick the skill from the skills list.")))
}

fn revision_number(raw: &str) -> Result<i32, WebError> {
    raw.parse::<i32>()
        .ok()
        .filter(|r| *r >= 1)
        .ok_or_else(|| WebError::bad_request(format!("'{raw}' is not a revision: revisions are numbers from 1.")))
}

/// The revision a page's path names (`{name}/versions/{rev}`), checked and resolved.
async fn exact_revision(
    state: &AppState,
    viewer: &Viewer,
    name: &str,
    rev: &str,
) -> Result<(SkillName, i32, catalog::ResolvedVersion), WebError> {
    let name = skill_name(name)?;
    let revision = revision_number(rev)?;
    let at = RevisionSelector::Exact(revision);
    let resolved = catalog::resolve(&state.store, viewer.principal.org_id, name.as_str(), at).await?;
    Ok((name, revision, resolved))
}

/// Query of the skills list.
#[derive(Debug, Default, Deserialize)]
pub struct ListQuery {
    q: Option<String>,
    category: Option<String>,
    cursor: Option<String>,
}

/// One skill in the list.
#[derive(Debug)]
pub struct SkillRow {
    name: String,
    category: String,
    description: String,
    latest: String,
    versions: i64,
    updated: String,
}

/// One category link.
#[derive(Debug)]
pub struct CategoryLink {
    label: String,
    href: String,
    count: i64,
    current: bool,
}

/// The skills list.
#[derive(Template)]
#[template(path = "skills.html")]
struct SkillsPage {
    chrome: Chrome,
    notice: Option<String>,
    q: String,
    category: String,
    categories: Vec<CategoryLink>,
    rows: Vec<SkillRow>,
    next_page: Option<String>,
}

/// `GET /admin/skills`.
pub async fn list(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<ListQuery>,
) -> Result<Response, WebError> {
    let (q, category) = (given(query.q), given(query.category));
    if let Some(category) = category.as_deref() {
        cairn_skill::Category::parse(category)
            .map_err(|e| WebError::bad_request(format!("{e}. Pick a category from the list.")))?;
    }
    let mut rows = state
        .store
        .list_skills(
            viewer.principal.org_id,
            &SkillQuery {
                text: q.clone(),
                category: category.clone(),
                after: given(query.cursor),
                limit: PAGE + 1,
            },
        )
        .await?;
    let next = crate::app::paging::cut_page(&mut rows, PAGE, |s| s.name.clone());
    let (q, category) = (q.unwrap_or_default(), category.unwrap_or_default());
    let keep_q = if q.is_empty() {
        String::new()
    } else {
        format!("&q={}", encode(&q))
    };
    let mut categories = vec![CategoryLink {
        label: "All categories".to_owned(),
        href: format!("/admin/skills?category={keep_q}"),
        count: 0,
        current: category.is_empty(),
    }];
    for (name, count) in state.store.skill_categories(viewer.principal.org_id).await? {
        categories[0].count += count;
        if let Some(name) = name {
            categories.push(CategoryLink {
                href: format!("/admin/skills?category={}{keep_q}", encode(&name)),
                current: name == category,
                label: name,
                count,
            });
        }
    }
    let page = SkillsPage {
        chrome: Chrome::new(&viewer, "skills"),
        notice: None,
        rows: rows
            .into_iter()
            .map(|s| SkillRow {
                name: s.name,
                category: s.category.unwrap_or_default(),
                description: s.description.unwrap_or_default(),
                latest: s
                    .latest_revision
                    .map_or_else(|| "all yanked".to_owned(), |r| format!("r{r}")),
                versions: s.version_count,
                updated: when(&s.updated_at),
            })
            .collect(),
        next_page: next.map(|c| {
            format!(
                "/admin/skills?category={}{keep_q}&cursor={}",
                encode(&category),
                encode(&c)
            )
        }),
        q,
        category,
        categories,
    };
    crate::web::page(&page)
}

/// Query of a skill's page.
#[derive(Debug, Default, Deserialize)]
pub struct SkillQueryParams {
    rev: Option<String>,
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One version in the skill's list.
#[derive(Debug)]
pub struct VersionRow {
    revision: i32,
    digest: String,
    source: String,
    by: String,
    /// The patch that produced it, and who reported its lesson (author · agent).
    patch: Option<String>,
    reporters: Vec<String>,
    created: String,
    yanked: bool,
    files: i32,
    size: String,
}

impl VersionRow {
    fn of(v: &VersionInfo) -> Self {
        VersionRow {
            revision: v.revision,
            digest: v.digest.clone(),
            source: v.source.clone(),
            by: v.published_by.clone().unwrap_or_else(|| "—".to_owned()),
            patch: v.patch_id.map(|p| p.to_string()),
            reporters: v
                .contributors
                .0
                .as_array()
                .map(|list| {
                    list.iter()
                        .map(|c| {
                            let author = c.get("author").and_then(|a| a.as_str()).unwrap_or_default();
                            match c.get("agent").and_then(|a| a.get("name")).and_then(|n| n.as_str()) {
                                Some(agent) => format!("{author} · {agent}"),
                                None => author.to_owned(),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default(),
            created: when(&v.created_at),
            yanked: v.yanked,
            files: v.file_count,
            size: human_size(v.total_size),
        }
    }
}

fn human_size(bytes: i64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KiB", b as f64 / 1024.0),
        b => format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// One file of the shown revision.
#[derive(Debug)]
pub struct FileRow {
    path: String,
    href: String,
    size: String,
    executable: bool,
}

/// A skill's page.
#[derive(Template)]
#[template(path = "skill.html")]
struct SkillPage {
    chrome: Chrome,
    notice: Option<String>,
    /// Who reviews its patches (handles), from the owner lists.
    owners: String,
    name: String,
    category: String,
    latest: Option<i32>,
    shown: i32,
    shown_yanked: bool,
    versions: Vec<VersionRow>,
    more_versions: bool,
    frontmatter: Option<String>,
    body_html: String,
    files: Vec<FileRow>,
}

/// `GET /admin/skills/{name}[?rev=N]`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(name): Path<String>,
    Query(query): Query<SkillQueryParams>,
) -> Result<Response, WebError> {
    let name = skill_name(&name)?;
    let org_id = viewer.principal.org_id;
    let skill = catalog::find_skill(&state.store, org_id, name.as_str())
        .await
        .map_err(|e| not_listed(e, &name))?;
    let mut versions = state.store.list_versions(skill.id, None, VERSIONS_SHOWN + 1).await?;
    let more_versions = versions.len() as i64 > VERSIONS_SHOWN;
    versions.truncate(VERSIONS_SHOWN as usize);
    let shown = match given(query.rev) {
        Some(raw) => revision_number(&raw)?,
        None => skill
            .latest_revision
            .or_else(|| versions.first().map(|v| v.revision))
            .ok_or_else(|| WebError::not_found(format!("Skill '{name}' has no versions yet.")))?,
    };
    let (resolved, entries) =
        catalog::version_with_files(&state.store, org_id, name.as_str(), RevisionSelector::Exact(shown)).await?;
    let skill_md = entries.iter().find(|f| f.path == "SKILL.md");
    let (frontmatter, body_html) = match skill_md {
        Some(entry) => {
            let bytes = catalog::read_blob(state.blobs.as_ref(), &entry.sha256).await?;
            let text = String::from_utf8_lossy(&bytes);
            let (frontmatter, body) = split_frontmatter(&text);
            let base = format!("/admin/skills/{}/versions/{shown}/files/", name.as_str());
            (frontmatter.map(str::to_owned), render_markdown(body, Some(&base)))
        }
        None => (None, String::new()),
    };
    let owners = crate::app::owners::of_skill(&state.store, &viewer.principal, name.as_str(), None)
        .await?
        .into_iter()
        .map(|o| o.handle)
        .collect::<Vec<_>>()
        .join(", ");
    let page = SkillPage {
        owners,
        chrome: Chrome::new(&viewer, "skills"),
        notice: query.flash.notice(&state),
        category: skill.category.clone().unwrap_or_default(),
        latest: skill.latest_revision,
        shown,
        shown_yanked: resolved.version.yanked,
        versions: versions.iter().map(VersionRow::of).collect(),
        more_versions,
        frontmatter,
        body_html,
        files: entries
            .iter()
            .map(|f| FileRow {
                href: format!(
                    "/admin/skills/{}/versions/{shown}/files/{}",
                    name.as_str(),
                    path_href(&f.path)
                ),
                path: f.path.clone(),
                size: human_size(f.size),
                executable: f.executable,
            })
            .collect(),
        name: name.as_str().to_owned(),
    };
    crate::web::page(&page)
}

fn not_listed(error: CatalogError, name: &SkillName) -> WebError {
    match error {
        CatalogError::NotFound(_) => WebError::not_found(format!(
            "Skill '{name}' does not exist in this organisation: search the skills list."
        )),
        other => other.into(),
    }
}

/// Query of the revision diff.
#[derive(Debug, Default, Deserialize)]
pub struct DiffQuery {
    from: Option<String>,
    to: Option<String>,
    view: Option<String>,
}

/// The diff between two revisions.
#[derive(Template)]
#[template(path = "skill_diff.html")]
struct DiffPage {
    chrome: Chrome,
    notice: Option<String>,
    name: String,
    from: i32,
    to: i32,
    files: Vec<FileView>,
    split: bool,
    view_query: String,
}

/// `GET /admin/skills/{name}/diff?from=A&to=B`.
pub async fn diff(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(name): Path<String>,
    Query(query): Query<DiffQuery>,
) -> Result<Response, WebError> {
    let name = skill_name(&name)?;
    let (Some(from), Some(to)) = (given(query.from), given(query.to)) else {
        return Err(WebError::bad_request(
            "Choose the two revisions to compare (from and to).",
        ));
    };
    let (from, to) = (revision_number(&from)?, revision_number(&to)?);
    let org_id = viewer.principal.org_id;
    let old = catalog::resolve(&state.store, org_id, name.as_str(), RevisionSelector::Exact(from)).await?;
    let new = catalog::resolve(&state.store, org_id, name.as_str(), RevisionSelector::Exact(to)).await?;
    // Two whole bundles in memory and a diff of every file: bounded like bundle archives,
    // and computed off the request threads.
    let _permit = state
        .archive_permits
        .acquire()
        .await
        .map_err(|e| crate::error::ApiError::internal("archive permits closed", &e))?;
    let blobs = state.blobs.as_ref();
    let (before, after) = (
        catalog::file_map(&state.store, blobs, &old).await?,
        catalog::file_map(&state.store, blobs, &new).await?,
    );
    let files = tokio::task::spawn_blocking(move || {
        let changes = cairn_pipeline::diff::diff(&before, &after);
        diff::file_views(&changes, None)
    })
    .await
    .map_err(|e| crate::error::ApiError::internal("diffing two revisions", &e))?;
    let split = query.view.as_deref() == Some("split");
    let page = DiffPage {
        chrome: Chrome::new(&viewer, "skills"),
        notice: None,
        name: name.as_str().to_owned(),
        from,
        to,
        files,
        split,
        view_query: format!("from={from}&to={to}"),
    };
    crate::web::page(&page)
}

/// `GET /admin/skills/{name}/versions/{rev}/bundle`: the revision's tar.gz.
pub async fn download(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((name, rev)): Path<(String, String)>,
) -> Result<Response, WebError> {
    let (name, revision, resolved) = exact_revision(&state, &viewer, &name, &rev).await?;
    let (_, archive) = crate::app::archives::stored(&state, &resolved).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/gzip".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}-{revision}.tar.gz\"", name.as_str()),
            ),
        ],
        archive,
    )
        .into_response())
}

/// Query of the file view.
#[derive(Debug, Default, Deserialize)]
pub struct FileQuery {
    raw: Option<String>,
}

/// One file of a revision.
#[derive(Template)]
#[template(path = "file.html")]
struct FilePage {
    chrome: Chrome,
    notice: Option<String>,
    name: String,
    revision: i32,
    path: String,
    size: String,
    executable: bool,
    text: Option<String>,
    markdown_html: Option<String>,
    raw_href: String,
}

/// `GET /admin/skills/{name}/versions/{rev}/files/{*path}`: a file shown as text (Markdown
/// also rendered), or with `?raw=1` downloaded as bytes (never served as a page).
pub async fn file(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((name, rev, path)): Path<(String, String, String)>,
    Query(query): Query<FileQuery>,
) -> Result<Response, WebError> {
    let (name, revision, resolved) = exact_revision(&state, &viewer, &name, &rev).await?;
    let entry: FileEntry = catalog::find_file(&state.store, &resolved, &path).await?;
    let bytes = catalog::read_blob(state.blobs.as_ref(), &entry.sha256).await?;
    if query.raw.is_some() {
        let file_name = entry.path.rsplit('/').next().unwrap_or("file");
        let response = (
            [
                (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
                (header::CONTENT_DISPOSITION, attachment(file_name)),
            ],
            bytes,
        )
            .into_response();
        return Ok(crate::serving::untrusted_file(response));
    }
    let text = String::from_utf8(bytes.to_vec()).ok();
    let markdown_html = text.as_deref().filter(|_| entry.path.ends_with(".md")).map(|t| {
        let directory = entry.path.rsplit_once('/').map_or("", |(d, _)| d);
        let base = format!(
            "/admin/skills/{}/versions/{revision}/files/{}{}",
            name.as_str(),
            path_href(directory),
            if directory.is_empty() { "" } else { "/" }
        );
        render_markdown(split_frontmatter(t).1, Some(&base))
    });
    let page = FilePage {
        chrome: Chrome::new(&viewer, "skills"),
        notice: None,
        raw_href: format!(
            "/admin/skills/{}/versions/{revision}/files/{}?raw=1",
            name.as_str(),
            entry.path
        ),
        name: name.as_str().to_owned(),
        revision,
        size: human_size(entry.size),
        executable: entry.executable,
        path: entry.path,
        text,
        markdown_html,
    };
    crate::web::page(&page)
}

/// The yank and unyank forms (only the CSRF token).
#[derive(Debug, Deserialize)]
pub struct YankForm {}

async fn set_yanked(
    state: AppState,
    viewer: Viewer,
    name: &str,
    rev: &str,
    yanked: bool,
) -> Result<Response, WebError> {
    let name = skill_name(name)?;
    let revision = revision_number(rev)?;
    let outcome = catalog::set_yanked(
        &state,
        viewer.principal.org_id,
        &name,
        revision,
        yanked,
        &viewer.actor(),
    )
    .await?;
    let what = if yanked { "yanked" } else { "unyanked" };
    let message = if outcome.changed {
        format!("r{revision} is {what}.")
    } else {
        format!("r{revision} was already {what}: nothing changed.")
    };
    Ok(done(&state, &format!("/admin/skills/{}", name.as_str()), &message))
}

/// `POST /admin/skills/{name}/versions/{rev}/yank`.
pub async fn yank(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((name, rev)): Path<(String, String)>,
    Verified(_): Verified<YankForm>,
) -> Result<Response, WebError> {
    set_yanked(state, viewer, &name, &rev, true).await
}

/// `POST /admin/skills/{name}/versions/{rev}/unyank`.
pub async fn unyank(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((name, rev)): Path<(String, String)>,
    Verified(_): Verified<YankForm>,
) -> Result<Response, WebError> {
    set_yanked(state, viewer, &name, &rev, false).await
}
