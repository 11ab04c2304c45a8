//! What agents read directly (the MCP endpoint, issue 24): the organisation's approved,
//! non-yanked versions — searched by words, loaded with their manifest, read file by
//! file, and listed in pages. Unlike the REST reads, a yanked revision is never served
//! here, even by number: an agent must not pick up what a reviewer withdrew.

use std::sync::Arc;

use bytes::Bytes;
use cairn_store::{FileEntry, IndexEntry, RevisionSelector, StoreError};
use cairn_wire::mcp::search::SearchIndex;

use super::catalog::{self, CatalogError};
use super::index::{self, FullIndex, IndexError};
use crate::Services;

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

/// A served version: the skill's latest (or a pinned, non-yanked) revision with its
/// manifest, as the index describes it.
#[derive(Debug, Clone)]
pub struct Loaded(pub Arc<IndexEntry>);

/// The skills that match `query` best, at most `limit` (`cairn_wire::mcp::search_limit`
/// bounds it; ranked by
/// `cairn_wire::mcp::search`; ties go by name, an empty query lists skills by name).
/// `category` keeps that category and those below it.
pub async fn search(
    services: &Services,
    org_id: i64,
    query: &str,
    category: Option<&str>,
    limit: usize,
) -> Result<Vec<Arc<IndexEntry>>, ServedError> {
    if let Some(category) = category {
        cairn_skill::Category::parse(category).map_err(|e| ServedError::Invalid(e.to_string()))?;
    }
    let index = index::current(services, org_id).await?;
    let searchable = services.search_indexes.of(org_id, &index);
    Ok(searchable
        .index
        .rank(query, category, limit)
        .into_iter()
        .map(|position| Arc::clone(&searchable.entries[position]))
        .collect())
}

/// An organisation's index, searchable: built once per index version.
#[derive(Debug)]
pub struct Searchable {
    /// The index version it was built from.
    cursor: i64,
    /// The words of every skill.
    index: SearchIndex,
    /// The skills, by the positions the search answers.
    entries: Vec<Arc<IndexEntry>>,
}

/// The searchable index of each organisation, as last built.
#[derive(Debug, Default)]
pub struct SearchIndexes(std::sync::Mutex<std::collections::HashMap<i64, Arc<Searchable>>>);

impl SearchIndexes {
    /// The searchable form of `index` (built now when the kept one is of another version).
    pub fn of(&self, org_id: i64, index: &FullIndex) -> Arc<Searchable> {
        if let Some(kept) = self.lock().get(&org_id).filter(|s| s.cursor == index.cursor) {
            return Arc::clone(kept);
        }
        let entries: Vec<Arc<IndexEntry>> = index.entries.values().cloned().collect();
        let built = Arc::new(Searchable {
            cursor: index.cursor,
            index: SearchIndex::build(
                entries
                    .iter()
                    .map(|e| (e.name.as_str(), e.category.as_deref(), e.description.as_str())),
            ),
            entries,
        });
        let mut kept = self.lock();
        // Never replace a newer version another request built meanwhile.
        if kept.get(&org_id).is_none_or(|s| s.cursor <= built.cursor) {
            kept.insert(org_id, Arc::clone(&built));
        }
        built
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::HashMap<i64, Arc<Searchable>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A skill's latest version, or the pinned `revision` unless it was yanked, with its
/// manifest. The latest comes from the in-memory index (the same the sync client reads,
/// kept current across replicas), so loading it costs no database query.
pub async fn load(services: &Services, org_id: i64, name: &str, revision: Option<i32>) -> Result<Loaded, ServedError> {
    cairn_skill::SkillName::parse(name).map_err(|e| ServedError::Invalid(e.to_string()))?;
    if let Some(rev) = revision.filter(|rev| *rev < 1) {
        return Err(ServedError::Invalid(format!(
            "revision {rev} does not exist: revisions count from 1; leave it out for the latest"
        )));
    }
    let index = index::current(services, org_id).await?;
    if let Some(entry) = index
        .entries
        .get(name)
        .filter(|e| revision.is_none_or(|rev| rev == e.revision))
    {
        return Ok(Loaded(Arc::clone(entry)));
    }
    // Not in the index: an unknown skill (the message says so), one whose every version
    // is yanked, or an older revision.
    let selector = revision.map_or(RevisionSelector::Latest, RevisionSelector::Exact);
    let (resolved, files) = catalog::version_with_files(&services.store, org_id, name, selector).await?;
    if resolved.version.yanked {
        return Err(ServedError::NotFound(format!(
            "revision {} of '{name}' was withdrawn (yanked) by a reviewer: load the latest revision instead",
            resolved.version.revision
        )));
    }
    Ok(Loaded(Arc::new(IndexEntry {
        name: resolved.skill.name,
        category: resolved.skill.category,
        description: resolved.version.description,
        revision: resolved.version.revision,
        digest: resolved.version.digest,
        updated_at: resolved.version.created_at,
        files,
    })))
}

/// One file of a loaded version: its manifest entry and bytes.
pub async fn read(services: &Services, loaded: &Loaded, path: &str) -> Result<(FileEntry, Bytes), ServedError> {
    let entry = loaded.0.files.iter().find(|f| f.path == path).cloned().ok_or_else(|| {
        ServedError::NotFound(format!(
            "'{}' revision {} has no file '{path}': load the skill to see its files",
            loaded.0.name, loaded.0.revision
        ))
    })?;
    let bytes = catalog::read_blob(services.blobs.as_ref(), &entry.sha256).await?;
    Ok((entry, bytes))
}

/// The frontmatter of a loaded version (unknown keys included).
pub async fn frontmatter(services: &Services, org_id: i64, loaded: &Loaded) -> Result<serde_json::Value, ServedError> {
    let wanted = [(loaded.0.name.clone(), loaded.0.revision)];
    let mut found = services.store.frontmatters(org_id, &wanted).await?;
    found
        .remove(&wanted[0])
        .ok_or_else(|| ServedError::NotFound(format!("'{}' revision {} is not served", wanted[0].0, wanted[0].1)))
}

/// A page of the organisation's served skills by name, after `after`, with each one's
/// frontmatter, and the name to continue after when there are more.
pub async fn page(
    services: &Services,
    org_id: i64,
    after: Option<&str>,
    limit: usize,
) -> Result<(Vec<(Arc<IndexEntry>, serde_json::Value)>, Option<String>), ServedError> {
    let index = index::current(services, org_id).await?;
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
