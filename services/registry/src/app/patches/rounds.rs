//! Rounds: a patch's author answers the review with a new version of the same patch. It
//! runs every stage again (against the revision the agent now has), the earlier round is
//! kept, an outstanding request for changes is answered, and reviewers read what changed
//! between the rounds.

use cairn_pipeline::diff::{FileDiff, diff};
use cairn_store::{Actor, PatchRecord, RoundRecord};
use uuid::Uuid;

use super::{AgentInfo, Author, Destination, OPEN_STATUSES, PatchError, Submission, not_found, submit_as};
use crate::Services;
use crate::app::publish::bundle_from_manifest;
use crate::auth::Principal;

/// A new version of a patch, as its author sends it.
#[derive(Clone, Debug, Default)]
pub struct Revision {
    /// The revision the ops were made against (`None` only for a patch creating a skill).
    pub base_revision: Option<i32>,
    /// The ops, as JSON: the whole change again, not a change to the last round.
    pub ops: serde_json::Value,
    /// A new summary (`None` or empty: the last round's).
    pub summary: Option<String>,
    /// A new rationale (`None` or empty: the last round's).
    pub rationale: Option<String>,
    /// The agent (`None`: the last round's).
    pub agent: Option<AgentInfo>,
}

/// Sends the next round of an open patch. Only its author may; a patch that was decided
/// or superseded takes no new round.
pub async fn revise(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    revision: Revision,
) -> Result<PatchRecord, PatchError> {
    let patch = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    if patch.author_id != caller.user_id {
        return Err(PatchError::Forbidden(format!(
            "patch {id} is by {}: only its author sends new versions of it; comment on it or request changes instead",
            patch.author
        )));
    }
    if !OPEN_STATUSES.contains(&patch.status.as_str()) {
        return Err(PatchError::State(format!(
            "patch {id} is {}: only an open patch takes a new version; send a new patch instead",
            patch.status
        )));
    }
    if revision.base_revision.is_none() && patch.base_revision.is_some() {
        return Err(PatchError::Invalid(format!(
            "patch {id} changes the existing skill '{}': send the base_revision your agent read with the new ops",
            patch.skill_name
        )));
    }
    super::spend_proposal(services, caller)?;
    let keep = |given: Option<String>, last: &str| {
        given
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| last.to_owned())
    };
    let first: AgentInfo = serde_json::from_value(patch.agent.clone()).unwrap_or_default();
    let agent = match revision.agent {
        // A patch an agent proposed over MCP waits for a person in every round, whoever
        // sends the next one and however.
        Some(agent) if first.via.as_deref() == Some(super::VIA_MCP) => AgentInfo {
            via: first.via,
            ..agent
        },
        Some(agent) => agent,
        None => first,
    };
    let submission = Submission {
        skill: patch.skill_name.clone(),
        base_revision: revision.base_revision,
        ops: revision.ops,
        summary: keep(revision.summary, &patch.summary),
        rationale: keep(revision.rationale, &patch.rationale),
        agent,
        category: patch.category.clone(),
        supersedes: None,
    };
    let author = Author {
        user_id: caller.user_id,
        handle: &caller.handle,
    };
    let destination = Destination::Round { id, round: patch.round };
    submit_as(services, caller.org_id, author, None, actor, submission, destination).await
}

/// The earlier rounds of a patch (oldest first) and, while it is open, what changed in
/// its files since the last of them (empty in round 1, or when either round has no
/// result, as in conflict).
pub async fn history(
    services: &Services,
    org_id: i64,
    patch: &PatchRecord,
) -> Result<(Vec<RoundRecord>, Vec<FileDiff>), PatchError> {
    if patch.round <= 1 {
        return Ok((Vec::new(), Vec::new()));
    }
    let rounds = services.store.patch_rounds(org_id, patch.id).await?;
    // Blobs of a decided patch's candidates may be collected: its rounds' diff is for
    // reviewing it, while it is open.
    if !OPEN_STATUSES.contains(&patch.status.as_str()) {
        return Ok((rounds, Vec::new()));
    }
    let changed = match (rounds.last().and_then(|r| r.candidate.as_ref()), &patch.candidate) {
        (Some(before), Some(after)) => {
            let before = bundle_from_manifest(services, before).await?;
            let after = bundle_from_manifest(services, after).await?;
            diff(before.files(), after.files())
        }
        _ => Vec::new(),
    };
    Ok((rounds, changed))
}
