//! Owners: the reviewers named for a skill or a category of skills, set by admins. A
//! patch to a skill asks its owners for review (the queue's "review requested from you"),
//! and its page names them.

use cairn_skill::{Category, SkillName};
use cairn_store::{Actor, OwnedKind, OwnerRule, OwnersRefusal, SkillOwner, Store, StoreError};

use super::accounts::{AccountError, check_handle};
use crate::auth::Principal;

/// The most owners one skill or category can have.
pub const MAX_OWNERS: usize = 20;

/// Every owner list of the caller's organisation.
pub async fn rules(store: &Store, caller: &Principal) -> Result<Vec<OwnerRule>, AccountError> {
    Ok(store.owner_rules(caller.org_id).await?)
}

/// What an owner list is for, checked: a published skill, or a category some skill is in
/// (a name that matches nothing is a typo, and would quietly ask no one).
pub async fn target(
    store: &Store,
    caller: &Principal,
    kind: OwnedKind,
    name: &str,
    removing: bool,
) -> Result<String, AccountError> {
    match kind {
        OwnedKind::Skill => {
            let skill = SkillName::parse(name).map_err(|e| AccountError::Invalid(e.to_string()))?;
            store.skill(caller.org_id, skill.as_str()).await.map_err(|e| match e {
                StoreError::NotFound(_) => AccountError::NotFound(format!(
                    "skill '{name}' (owners are named for a published skill, or for its category)"
                )),
                other => AccountError::Store(other),
            })?;
            Ok(skill.as_str().to_owned())
        }
        OwnedKind::Category => {
            let category = Category::parse(name).map_err(|e| AccountError::Invalid(e.to_string()))?;
            // A list stays removable after its category emptied.
            let listed = || async {
                Ok::<bool, AccountError>(
                    store
                        .owner_rules(caller.org_id)
                        .await?
                        .iter()
                        .any(|r| r.kind == "category" && r.name == category.as_str()),
                )
            };
            let in_use = store.category_in_use(caller.org_id, category.as_str()).await?;
            if !(in_use || removing && listed().await?) {
                return Err(AccountError::NotFound(format!(
                    "a skill in category '{name}' (check the spelling against the skills' categories)"
                )));
            }
            Ok(category.as_str().to_owned())
        }
    }
}

/// Replaces the owners of a skill or a category (an empty list removes them). Every
/// handle must be a member who can review; on any refusal nothing changes.
pub async fn set(
    store: &Store,
    caller: &Principal,
    kind: OwnedKind,
    name: &str,
    handles: &[String],
    actor: &Actor,
) -> Result<OwnerRule, AccountError> {
    let mut wanted: Vec<String> = Vec::with_capacity(handles.len());
    for handle in handles {
        let handle = handle.trim();
        check_handle(handle)?;
        if !wanted.iter().any(|h| h == handle) {
            wanted.push(handle.to_owned());
        }
    }
    if wanted.len() > MAX_OWNERS {
        return Err(AccountError::Invalid(format!(
            "{} owners were named: name at most {MAX_OWNERS}, and let a category's owners cover the rest",
            wanted.len()
        )));
    }
    let name = target(store, caller, kind, name, wanted.is_empty()).await?;
    match store.set_owners(caller.org_id, kind, &name, &wanted, actor).await? {
        Ok(rule) => Ok(rule),
        Err(OwnersRefusal::UnknownUser(handle)) => Err(AccountError::NotFound(format!(
            "user '{handle}' (owners are members of the organisation: add them first)"
        ))),
        Err(OwnersRefusal::CannotReview(handle)) => Err(AccountError::Invalid(format!(
            "'{handle}' cannot review (a member, a reader or disabled): make them a reviewer first, or name someone who is"
        ))),
    }
}

/// Who owns a skill (`category` is the patch's, for a skill not published yet).
pub async fn of_skill(
    store: &Store,
    caller: &Principal,
    skill: &str,
    category: Option<&str>,
) -> Result<Vec<SkillOwner>, AccountError> {
    Ok(store.skill_owners(caller.org_id, skill, category).await?)
}

/// How many open patches ask the caller for review.
pub async fn requested_count(store: &Store, caller: &Principal) -> Result<i64, AccountError> {
    Ok(store.review_requested_count(caller.org_id, caller.user_id).await?)
}
