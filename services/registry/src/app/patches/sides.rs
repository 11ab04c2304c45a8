//! The two sides of a file in a patch's diff, read whole: the revision the patch was
//! checked against and the patch's result. Reviewers expand a diff's hidden context and
//! preview SKILL.md as it reads before and after from these.

use cairn_store::{PatchRecord, RevisionSelector};

use super::PatchError;
use crate::Services;
use crate::app::catalog::{self, CatalogError};
use crate::auth::Principal;

/// A file's text before and after a patch (`None`: the side has no such file, or it is
/// not UTF-8 text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSides {
    /// As in the revision the patch was checked against (`onto`).
    pub before: Option<String>,
    /// As in the patch's result.
    pub after: Option<String>,
    /// That revision (`None`: a new skill).
    pub before_revision: Option<i32>,
}

/// File `path` on both sides of `patch`'s diff; `None` when the patch has no result to
/// show (a conflict, or a refused patch), so there is nothing to read whole.
pub async fn file_sides(
    services: &Services,
    caller: &Principal,
    patch: &PatchRecord,
    path: &str,
) -> Result<Option<FileSides>, PatchError> {
    if patch.candidate.is_none() {
        return Ok(None);
    }
    let after = result_text(services, patch, path).await?;
    let before = match patch.onto_revision {
        Some(revision) => {
            let resolved = catalog::resolve(
                &services.store,
                caller.org_id,
                &patch.skill_name,
                RevisionSelector::Exact(revision),
            )
            .await?;
            match catalog::find_file(&services.store, &resolved, path).await {
                Ok(entry) => read_text(services, &entry.sha256).await?,
                Err(CatalogError::NotFound(_)) => None,
                Err(e) => return Err(e.into()),
            }
        }
        None => None,
    };
    Ok(Some(FileSides {
        before,
        after,
        before_revision: patch.onto_revision,
    }))
}

/// File `path` as the patch's result has it (`None`: no result, no such file, or not
/// UTF-8 text): all that showing a file's unchanged lines needs.
pub async fn result_text(services: &Services, patch: &PatchRecord, path: &str) -> Result<Option<String>, PatchError> {
    let sha256 = patch
        .candidate
        .as_ref()
        .and_then(|manifest| manifest.as_array())
        .and_then(|entries| {
            entries
                .iter()
                .find(|e| e.get("path").and_then(|p| p.as_str()) == Some(path))
        })
        .and_then(|e| e.get("sha256").and_then(|s| s.as_str()));
    match sha256 {
        Some(sha256) => Ok(read_text(services, sha256).await?),
        None => Ok(None),
    }
}

/// A blob as text; `None` when it is not UTF-8, or gone (the candidates of decided
/// patches are collected: their pages show the stored diff, not the files).
async fn read_text(services: &Services, sha256: &str) -> Result<Option<String>, CatalogError> {
    match catalog::read_blob(services.blobs.as_ref(), sha256).await {
        Ok(bytes) => Ok(String::from_utf8(bytes.to_vec()).ok()),
        Err(CatalogError::MissingBlob(_)) => Ok(None),
        Err(e) => Err(e),
    }
}
