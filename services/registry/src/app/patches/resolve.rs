//! A reviewer resolves a patch's conflict by hand: the patch's change placed onto the
//! latest revision with the reviewer's text for each conflicting file becomes a new patch
//! (the original author's lesson, `resolved_by` the reviewer) that supersedes the old one
//! and runs through every stage again; it can be approved in the same action.

use std::collections::BTreeMap;

use cairn_pipeline::ops::{Op, WritableRoots};
use cairn_pipeline::policy::may_approve;
use cairn_pipeline::resolve::resolve as place;
use cairn_skill::SkillName;
use cairn_store::{Actor, PatchRecord, RevisionSelector};
use uuid::Uuid;

use super::review::{Approve, approve};
use super::{
    AgentInfo, Author, MAX_TEXT, PatchError, Submission, check_text, load, load_revision, not_found, policy, submit_as,
};
use crate::Services;
use crate::auth::Principal;
use cairn_store::CloseDuplicates;

/// A reviewer's resolution of a conflict.
#[derive(Clone, Debug, Default)]
pub struct Resolution {
    /// The resolved text of each file in conflict (path → content).
    pub files: BTreeMap<String, String>,
    /// Why, for the record (the new patch's rationale names the resolution).
    pub comment: Option<String>,
    /// Approve the resolved patch at once (when the stages leave it pending review).
    pub approve: bool,
}

/// Resolves the conflict of patch `id`; answers the new patch.
pub async fn resolve(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    resolution: Resolution,
) -> Result<PatchRecord, PatchError> {
    if let Some(comment) = &resolution.comment {
        check_text("comment", comment, MAX_TEXT)?;
    }
    let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    // The resolution is the reviewer's own text: approving it at once is approving their
    // own work, which only an organisation that allows self-approval permits.
    if resolution.approve {
        let policy = policy(services, caller.org_id).await?;
        may_approve(&caller.handle, &caller.handle, &policy).map_err(|_| {
            PatchError::Forbidden(
                "you wrote this resolution: another reviewer approves it (resolve without approving; an admin can allow self-approval in the organisation's policy)".to_owned(),
            )
        })?;
    }
    if record.status != "conflict" {
        return Err(PatchError::State(format!(
            "this patch is {}: only a patch in conflict is resolved by hand",
            record.status.replace('_', " ")
        )));
    }
    let name = SkillName::parse(&record.skill_name).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let Some(base_revision) = record.base_revision else {
        return Err(PatchError::State(
            "this patch creates a skill someone else created meanwhile: there are no lines to resolve; reject it"
                .to_owned(),
        ));
    };
    let base = load(services, caller.org_id, &name, RevisionSelector::Exact(base_revision))
        .await?
        .ok_or_else(|| PatchError::State(format!("revision {base_revision} of '{name}' is gone")))?;
    let Some((latest_revision, latest)) =
        load_revision(services, caller.org_id, &name, RevisionSelector::Latest).await?
    else {
        return Err(PatchError::State(
            "the skill was deleted since this patch was made: there is nothing to resolve onto; reject it".to_owned(),
        ));
    };
    let ops: Vec<Op> = serde_json::from_value(record.ops.clone()).map_err(|e| PatchError::Invalid(e.to_string()))?;
    // Text that came through a browser form has CRLF line ends; a file that uses LF keeps
    // LF (and a CRLF file keeps CRLF).
    let files: BTreeMap<String, String> = resolution
        .files
        .iter()
        .map(|(path, text)| {
            let crlf = cairn_skill::path::RelPath::parse(path)
                .ok()
                .and_then(|p| latest.get(&p))
                .is_some_and(|f| f.bytes.windows(2).any(|w| w == b"\r\n"));
            let text = if crlf { text.clone() } else { text.replace("\r\n", "\n") };
            (path.clone(), text)
        })
        .collect();
    let resolved = place(
        &base,
        &ops,
        &latest,
        &files,
        &services.limits,
        &WritableRoots::default(),
    )
    .map_err(|e| PatchError::Invalid(e.to_string()))?;
    let agent: AgentInfo = serde_json::from_value(record.agent.clone()).unwrap_or_default();
    let rationale = match resolution.comment.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(comment) => format!(
            "{}\n\nConflict resolved by {}: {comment}",
            record.rationale, caller.handle
        ),
        None => format!("{}\n\nConflict resolved by {}.", record.rationale, caller.handle),
    };
    let submission = Submission {
        skill: record.skill_name.clone(),
        base_revision: Some(latest_revision),
        ops: serde_json::to_value(&resolved).map_err(|e| PatchError::Invalid(e.to_string()))?,
        summary: record.summary.clone(),
        rationale: rationale.chars().take(MAX_TEXT).collect(),
        agent,
        category: None,
        supersedes: Some(record.id),
    };
    let author = Author {
        user_id: record.author_id,
        handle: &record.author,
    };
    let resolved = submit_as(
        services,
        caller.org_id,
        author,
        Some(caller.user_id),
        actor,
        submission,
        super::Destination::NewPatch {
            superseded_round: Some(record.round),
        },
    )
    .await?;
    if resolution.approve && resolved.status == "pending_review" {
        let how = Approve {
            comment: resolution.comment.as_deref(),
            close_duplicates: CloseDuplicates::None,
            round: None,
        };
        return approve(services, caller, actor, resolved.id, how).await;
    }
    Ok(resolved)
}
