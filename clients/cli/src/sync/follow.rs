//! Following up the patches a target pushed: the registry is asked where each stands;
//! a patch that ended in `conflict` (its skill moved on under it in a way the registry
//! could not merge) makes the target pull the latest revision, which merges the agent's
//! local change onto it with the registry's own merge. The next push then sends that
//! change again as a new patch that supersedes the old one (each links the other), so
//! the lesson is never lost. `cairn push` and `cairn watch` do this before pushing;
//! `cairn status` shows what it found.

use std::path::Path;

use serde::Serialize;

use super::pull::{self, PullError};
use super::state::{self, StateError};
use super::target::Target;
use crate::remote::{Registry, RemoteError};

/// Where one proposal stands.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct FollowUp {
    /// The skill.
    pub skill: String,
    /// The patch.
    pub patch: String,
    /// Its state now.
    pub status: String,
    /// Whether the state changed since the target last asked.
    pub changed: bool,
    /// What the client did about it, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Why following up failed.
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// The registry could not be asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The state cannot be used.
    #[error(transparent)]
    State(#[from] StateError),
    /// Pulling the latest revision failed.
    #[error(transparent)]
    Pull(#[from] PullError),
}

/// Asks the registry where each of `target`'s proposals stands and records it; when one
/// ended in conflict and `repair` is set, pulls the latest revision so the next push
/// resubmits the local change onto it.
pub async fn follow_up(
    registry: &Registry,
    target: &Target,
    cache: &Path,
    repair: bool,
) -> Result<Vec<FollowUp>, FollowError> {
    let state_path = state::path_for(&target.root)?;
    let known = state::load(&state_path)?;
    if known.server.is_empty() || known.server != registry.server() || known.proposals.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    for (skill, proposal) in &known.proposals {
        let status = match registry.patch(&proposal.patch).await {
            Ok(patch) => patch["status"].as_str().unwrap_or("unknown").to_owned(),
            // Removed or from a reset registry: nothing to follow.
            Err(RemoteError::Refused { status: 404, .. }) => "gone".to_owned(),
            Err(e) => return Err(e.into()),
        };
        found.push(FollowUp {
            skill: skill.clone(),
            patch: proposal.patch.clone(),
            changed: proposal.status.as_deref() != Some(status.as_str()),
            status,
            note: None,
        });
    }
    let conflicts = found.iter().any(|f| f.status == "conflict");
    if repair && conflicts {
        pull::pull(registry, target, cache).await?;
        for f in found.iter_mut().filter(|f| f.status == "conflict") {
            f.note = Some(
                "ended in conflict: pulled the latest revision and merged the local change onto it; push sends it again, superseding this patch"
                    .to_owned(),
            );
        }
    }
    // Record what was found (the pull above saved its own state: read it again).
    let mut now = state::load(&state_path)?;
    let mut dirty = false;
    for f in &found {
        if let Some(proposal) = now.proposals.get_mut(&f.skill)
            && proposal.patch == f.patch
            && proposal.status.as_deref() != Some(f.status.as_str())
        {
            proposal.status = Some(f.status.clone());
            dirty = true;
        }
    }
    if dirty {
        state::save(&state_path, &now)?;
    }
    Ok(found)
}
