//! Following up the patches a target pushed: the registry is asked where each stands;
//! a patch that ended in `conflict` (its skill moved on under it in a way the registry
//! could not merge) makes the target pull the latest revision, which merges the agent's
//! local change onto it with the registry's own merge. The next push then sends that
//! change again as a new patch that supersedes the old one (each links the other), so
//! the lesson is never lost. `cairn push` and `cairn watch` do this before pushing;
//! `cairn status` shows what it found.
//!
//! Reviewers answer too: a request for changes, or comments on the patch or on lines of
//! it. Each comment by someone else is shown once (the state remembers the newest one
//! shown), and an outstanding request for changes every time, until the lesson is sent
//! again.

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
    /// The reviewer who requested changes, while the request is outstanding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes_requested_by: Option<String>,
    /// Comments by others not shown here before, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub comments: Vec<ReviewNote>,
}

/// A reviewer's comment on a pushed patch.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ReviewNote {
    /// Its id.
    pub id: i64,
    /// Who wrote it.
    pub author: String,
    /// Whether it requests changes.
    pub requests_changes: bool,
    /// Where: "the patch", or a file and line.
    pub place: String,
    /// The text.
    pub body: String,
}

impl std::fmt::Display for ReviewNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = if self.requests_changes {
            "requested changes"
        } else {
            "commented"
        };
        write!(f, "{} {what} on {}: {}", self.author, self.place, self.body.trim())
    }
}

/// The comments of a patch (as `GET /v1/patches/{id}` answers it) by anyone but `me`,
/// newer than `seen`.
fn new_comments(patch: &serde_json::Value, me: &str, seen: Option<i64>) -> Vec<ReviewNote> {
    let threads: Vec<cairn_wire::ReviewThread> = serde_json::from_value(patch["threads"].clone()).unwrap_or_default();
    let mut notes: Vec<ReviewNote> = threads
        .into_iter()
        .flat_map(|thread| {
            let place = match (&thread.file, thread.line, thread.end_line) {
                (Some(file), Some(line), Some(end)) if end != line => format!("{file} lines {line}-{end}"),
                (Some(file), Some(line), _) => format!("{file} line {line}"),
                _ => "the patch".to_owned(),
            };
            thread.comments.into_iter().map(move |c| ReviewNote {
                id: c.id,
                requests_changes: c.kind == "changes_requested",
                author: c.author,
                place: place.clone(),
                body: c.body,
            })
        })
        .filter(|n| n.author != me && seen.is_none_or(|seen| n.id > seen))
        .collect();
    notes.sort_by_key(|n| n.id);
    notes
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
        let (status, changes_requested_by, comments) = match registry.patch(&proposal.patch).await {
            Ok(patch) => (
                patch["status"].as_str().unwrap_or("unknown").to_owned(),
                patch["changes_requested"]["by"].as_str().map(str::to_owned),
                new_comments(
                    &patch,
                    patch["author"].as_str().unwrap_or_default(),
                    proposal.seen_comment,
                ),
            ),
            // Removed or from a reset registry: nothing to follow.
            Err(RemoteError::Refused { status: 404, .. }) => ("gone".to_owned(), None, Vec::new()),
            Err(e) => return Err(e.into()),
        };
        found.push(FollowUp {
            skill: skill.clone(),
            patch: proposal.patch.clone(),
            changed: proposal.status.as_deref() != Some(status.as_str()) || !comments.is_empty(),
            status,
            note: changes_requested_by.as_ref().map(|by| {
                format!(
                    "{by} requested changes: edit the skill and push again; the edits become the patch's next round"
                )
            }),
            changes_requested_by,
            comments,
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
        {
            if proposal.status.as_deref() != Some(f.status.as_str()) {
                proposal.status = Some(f.status.clone());
                dirty = true;
            }
            if let Some(newest) = f.comments.last().map(|c| c.id) {
                proposal.seen_comment = Some(newest);
                dirty = true;
            }
        }
    }
    if dirty {
        state::save(&state_path, &now)?;
    }
    Ok(found)
}
