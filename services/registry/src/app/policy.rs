//! The organisation's patch policy: who may approve their own patches, and whose `safe`
//! patches publish without review. One read and one validated write, for every
//! transport and for the pipeline.

use cairn_pipeline::policy::Policy;
use cairn_store::{Actor, Store, StoreError};

/// Why a policy was not saved.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// A trusted author is not a member of the organisation.
    #[error("user '{0}' does not exist: list the handles of this organisation's members as trusted authors")]
    NotMember(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The policy could not be encoded for storing.
    #[error("encoding the policy: {0}")]
    Encode(#[from] serde_json::Error),
}

/// The policy in force. A stored policy that no longer parses (written by a newer
/// version) falls back to the strictest reading: no self-approval, no auto-approval.
pub async fn read(store: &Store, org_id: i64) -> Result<Policy, StoreError> {
    let stored = store.patch_policy(org_id).await?;
    Ok(serde_json::from_value(stored).unwrap_or_default())
}

/// Replaces the policy (admins; the transports' access rules say who): every trusted
/// author must be a member (a handle that cannot be one is not a member either); a
/// handle listed twice is kept once. Audited. Answers the
/// policy as stored.
pub async fn replace(store: &Store, org_id: i64, mut policy: Policy, actor: &Actor) -> Result<Policy, PolicyError> {
    let mut seen = std::collections::HashSet::new();
    policy
        .auto_approve_safe_from
        .retain(|handle| seen.insert(handle.clone()));
    for handle in &policy.auto_approve_safe_from {
        match store.user_by_handle(org_id, handle).await {
            Ok(_) => {}
            Err(StoreError::NotFound(_)) => return Err(PolicyError::NotMember(handle.clone())),
            Err(e) => return Err(e.into()),
        }
    }
    let value = serde_json::to_value(&policy)?;
    store.set_patch_policy(org_id, &value, actor).await?;
    Ok(policy)
}
