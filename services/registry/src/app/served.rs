//! What agents read directly (the MCP endpoint, issue 24): the organisation's approved,
//! non-yanked versions — searched by words, loaded with their manifest, read file by
//! file, and listed in pages. Unlike the REST reads, a yanked revision is never served
//! here, even by number: an agent must not pick up what a reviewer withdrew.

use std::sync::Arc;

use bytes::Bytes;
use cairn_store::{FileEntry, IndexEntry, RevisionSelector, StoreError, VersionInfo};

use super::catalog::{self, CatalogError, ResolvedVersion};
use super::index::{self, FullIndex, IndexError};
use crate::Services;

/// Most skills one search answers.
pub const MAX_SEARCH_RESULTS: usize = 50;

/// Why a served read failed.
#[derive(Debug, thiserror::Error)]
pub enum ServedError {
    /// The request is malformed; the message says how to fix it.
    #[error("{0}")]
    Invalid(String),
    /// Nothing is served under that name, revision or path; the message says where to look.
    #[error("{0}")]
    NotFound(String),
    /// Reading the catalog failed.
    #[error(transparent)]
    Catalog(CatalogError),
    /// Reading the index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
}

impl From<CatalogError> for ServedError {
    fn from(e: CatalogError) -> Self {
        match e {
            CatalogError::NotFound(message) => ServedError::NotFound(message),
            other => ServedError::Catalog(other),
        }
    }
}

impl From<StoreError> for ServedError {
    fn from(e: StoreError) -> Self {
        CatalogError::from(e).into()
    }
}

/// A served version: the skill's latest (or a pinned, non-yanked) revision and its files.
#[derive(Debug)]
pub struct Loaded {
    /// The skill and the version.
    pub resolved: ResolvedVersion,
    /// Its manifest, by path.
    pub files: Vec<FileEntry>,
}

/// The organisation's current index (the latest non-yanked version of each skill), as
/// the sync client sees it.
pub async fn current(services: &Services, org_id: i64) -> Result<Arc<FullIndex>, ServedError> {
    let cursor = index::current_cursor(services, org_id, None).await?;
    Ok(index::full(services, org_id, cursor).await?)
}

/// The skills that match `query` best, at most `limit` (ranked by
/// `cairn_wire::mcp::search`; ties go by name, an empty query lists skills by name).
/// `category` keeps that category and those below it.
pub async fn search(
    services: &Services,
    org_id: i64,
    query: &str,
    category: Option<&str>,
    limit: usize,
) -> Result<Vec<Arc<IndexEntry>>, ServedError> {
    if !(1..=MAX_SEARCH_RESULTS).contains(&limit) {
        return Err(ServedError::Invalid(format!(
            "limit {limit} is out of range: ask for 1 to {MAX_SEARCH_RESULTS} skills"
        )));
    }
    if let Some(category) = category {
        cairn_skill::Category::parse(category).map_err(|e| ServedError::Invalid(e.to_string()))?;
    }
    let index = current(services, org_id).await?;
    let skills = index
        .entries
        .values()
        .map(|e| (e.name.as_str(), e.category.as_deref(), e.description.as_str(), e));
    Ok(cairn_wire::mcp::search::rank(skills, query, category, limit)
        .into_iter()
        .map(Arc::clone)
        .collect())
}

/// A skill's latest version, or the pinned `revision` unless it was yanked, with its
/// manifest.
pub async fn load(services: &Services, org_id: i64, name: &str, revision: Option<i32>) -> Result<Loaded, ServedError> {
    cairn_skill::SkillName::parse(name).map_err(|e| ServedError::Invalid(e.to_string()))?;
    let selector = match revision {
        None => RevisionSelector::Latest,
        Some(rev) if rev < 1 => {
            return Err(ServedError::Invalid(format!(
                "revision {rev} does not exist: revisions count from 1; leave it out for the latest"
            )));
        }
        Some(rev) => RevisionSelector::Exact(rev),
    };
    let (resolved, files) = catalog::version_with_files(&services.store, org_id, name, selector).await?;
    if resolved.version.yanked {
        return Err(ServedError::NotFound(format!(
            "revision {} of '{name}' was withdrawn (yanked) by a reviewer: load the latest revision instead",
            resolved.version.revision
        )));
    }
    Ok(Loaded { resolved, files })
}

/// One file of a loaded version: its manifest entry and bytes.
pub async fn read(services: &Services, loaded: &Loaded, path: &str) -> Result<(FileEntry, Bytes), ServedError> {
    let entry = loaded.files.iter().find(|f| f.path == path).cloned().ok_or_else(|| {
        ServedError::NotFound(format!(
            "'{}' revision {} has no file '{path}': load the skill to see its files",
            loaded.resolved.skill.name, loaded.resolved.version.revision
        ))
    })?;
    let bytes = catalog::read_blob(services.blobs.as_ref(), &entry.sha256).await?;
    Ok((entry, bytes))
}

/// A page of the organisation's served skills by name, after `after`, with each one's
/// frontmatter, and the name to continue after when there are more.
pub async fn page(
    services: &Services,
    org_id: i64,
    after: Option<&str>,
    limit: usize,
) -> Result<(Vec<(Arc<IndexEntry>, serde_json::Value)>, Option<String>), ServedError> {
    let index = current(services, org_id).await?;
    let range = match after {
        Some(after) => index
            .entries
            .range::<str, _>((std::ops::Bound::Excluded(after), std::ops::Bound::Unbounded)),
        None => index.entries.range::<str, _>(..),
    };
    let mut entries: Vec<Arc<IndexEntry>> = range.take(limit + 1).map(|(_, e)| Arc::clone(e)).collect();
    let next = (entries.len() > limit).then(|| {
        entries.truncate(limit);
        entries.last().map(|e| e.name.clone())
    });
    let wanted: Vec<(String, i32)> = entries.iter().map(|e| (e.name.clone(), e.revision)).collect();
    let mut frontmatters = services.store.frontmatters(org_id, &wanted).await?;
    let page = entries
        .into_iter()
        .filter_map(|e| {
            let frontmatter = frontmatters.remove(&(e.name.clone(), e.revision))?;
            Some((e, frontmatter))
        })
        .collect();
    Ok((page, next.flatten()))
}

/// The frontmatter of a loaded version.
pub fn frontmatter(version: &VersionInfo) -> &serde_json::Value {
    &version.frontmatter.0
}
