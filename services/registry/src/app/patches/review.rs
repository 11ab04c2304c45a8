//! Deciding patches: approve (re-staged if the latest revision moved, then published
//! atomically), reject, withdraw.

use cairn_pipeline::ops::{Op, WritableRoots};
use cairn_pipeline::policy::may_approve;
use cairn_pipeline::report::PatchReport;
use cairn_pipeline::stages::{PatchInput, Processed, Refusal, StageState, process};
use cairn_skill::{Bundle, SkillName};
use cairn_store::{
    Actor, Approval, ApproveOutcome, CategoryUpdate, CloseDuplicates, Decision, NewVersion, Onto, PatchRecord,
    RevisionSelector, VersionSource,
};
use uuid::Uuid;

use super::{
    MAX_APPROVE_ATTEMPTS, MAX_TEXT, PatchError, candidate_bundle, check_text, load, load_revision, manifest_json,
    not_found, not_pending, policy, read_back, status_of,
};
use crate::Services;
use crate::app::publish::upload_missing_blobs;
use crate::auth::Principal;

/// How to approve.
#[derive(Clone, Copy, Debug, Default)]
pub struct Approve<'a> {
    /// The reviewer's comment.
    pub comment: Option<&'a str>,
    /// Which other open patches of its duplicate group to close as `duplicate` with it
    /// (all, or those the reviewer was shown), of those that repeat its lesson (marked as
    /// its duplicate, or alike enough to it: a patch that joined the group through another
    /// member stays open); the version then names every one of their authors and agents
    /// among its contributors.
    pub close_duplicates: CloseDuplicates<'a>,
    /// The round the reviewer read (`None`: whichever is current): approving a round the
    /// reviewer has not seen is refused.
    pub round: Option<i32>,
}

/// Approves a pending patch and publishes it as the skill's next revision.
pub async fn approve(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    how: Approve<'_>,
) -> Result<PatchRecord, PatchError> {
    if let Some(comment) = how.comment {
        check_text("comment", comment, MAX_TEXT)?;
    }
    let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    let policy = policy(services, caller.org_id).await?;
    may_approve(&caller.handle, &record.author, &policy).map_err(|e| PatchError::Forbidden(e.to_string()))?;
    if let Some(read) = how.round
        && read != record.round
    {
        return Err(PatchError::State(format!(
            "its author sent round {} since you read round {read}: review the new round, then approve",
            record.round
        )));
    }
    // Of the group, only the patches that repeat this lesson close with it.
    let repeating: Vec<Uuid> = match (how.close_duplicates, record.duplicate_group) {
        (CloseDuplicates::None, _) | (_, None) => Vec::new(),
        (wanted, Some(group)) => {
            let members = super::duplicate_group(services, caller, group).await?;
            super::group_repeats(services, caller, &record, &members)
                .await?
                .into_iter()
                .filter(|member| member.repeats)
                .map(|member| member.id)
                .filter(|id| match wanted {
                    CloseDuplicates::These(shown) => shown.contains(id),
                    _ => true,
                })
                .collect()
        }
    };
    publish(
        services,
        caller.org_id,
        id,
        Some(caller.user_id),
        how.comment,
        CloseDuplicates::These(&repeating),
        actor,
    )
    .await
}

/// Publishes a pending patch: if the skill's latest revision moved since its candidate
/// was built, the stages run again onto it first (a conflict or a `dangerous` result
/// stops there); the database then commits the version and the patch's new state
/// together, or reports that the latest moved again, and this repeats.
pub(super) async fn publish(
    services: &Services,
    org_id: i64,
    id: Uuid,
    reviewer: Option<i64>,
    comment: Option<&str>,
    close_duplicates: CloseDuplicates<'_>,
    actor: &Actor,
) -> Result<PatchRecord, PatchError> {
    let skill = services.store.patch(org_id, id).await.map_err(not_found)?.skill_name;
    let _turn = services.approval_turns.take(org_id, &skill).await;
    for _ in 0..MAX_APPROVE_ATTEMPTS {
        let record = services.store.patch(org_id, id).await.map_err(not_found)?;
        if record.status != "pending_review" {
            return Err(not_pending(&record.status, "approved"));
        }
        let name = SkillName::parse(&record.skill_name).map_err(|e| PatchError::Invalid(e.to_string()))?;
        let latest = load_revision(services, org_id, &name, RevisionSelector::Latest).await?;
        let latest_digest = latest.as_ref().map(|(_, b)| b.digest());
        // What the candidate must have been built on to be published as it is: the latest
        // revision by number and digest (a revision that changed only file modes keeps
        // the digest).
        let latest_onto = latest
            .as_ref()
            .zip(latest_digest.as_deref())
            .map(|((revision, _), digest)| Onto {
                revision: Some(*revision),
                digest,
            });
        let deletes = PatchReport::from_stored(&record.report).deletes;
        let candidate;
        let verdict;
        let category;
        let version;
        let approval = if deletes {
            // Deleting needs no rebase: whatever the latest revision is, it goes.
            if latest.is_none() {
                return Err(PatchError::State(
                    "the skill is already deleted (no version is left): withdraw or reject this patch".to_owned(),
                ));
            }
            Approval::Delete(&name)
        } else {
            // Built on another revision than the latest, or scanned under dismissals no
            // longer in force (one revoked or made since): the stages run again first, and
            // the patch is never published on the old verdict.
            let moved = latest_onto != record_onto(&record);
            (candidate, verdict) = if moved || super::findings::dismissals_changed(services, org_id, &record).await? {
                let reviewed = PatchReport::from_stored(&record.report).verdict();
                let latest = latest.as_ref().map(|(revision, bundle)| (*revision, bundle));
                let restaged = restage(services, org_id, &record, &name, latest, actor).await?;
                if restaged.raced {
                    continue;
                }
                if reviewer.is_none() && restaged.state != Some(StageState::AutoApproved) {
                    // Auto-approval holds only for what the policy approves as it stands
                    // now: this patch needs a reviewer.
                    return Ok(services.store.patch(org_id, id).await?);
                }
                if reviewer.is_some() && restaged.verdict.is_some() && restaged.verdict > reviewed {
                    let checked = if moved {
                        "merged onto the latest revision"
                    } else {
                        "checked against the dismissals in force (one was revoked since it was reviewed)"
                    };
                    return Err(PatchError::State(format!(
                        "{checked}, the patch now scans '{}' (it was reviewed as '{}'): review it again",
                        restaged.verdict.map_or("unknown", |v| v.as_str()),
                        reviewed.map_or("unknown", |v| v.as_str())
                    )));
                }
                match restaged.candidate {
                    Some(bundle) => (bundle, restaged.verdict),
                    None => {
                        let now = services.store.patch(org_id, id).await?;
                        return Err(PatchError::State(format!(
                            "the skill changed since this patch was checked, and merged onto the latest revision the patch is now '{}': see its rebase report and scan",
                            now.status
                        )));
                    }
                }
            } else {
                (
                    candidate_bundle(services, &record).await?,
                    PatchReport::from_stored(&record.report).verdict(),
                )
            };
            category = crate::app::publish::stored_category(record.category.as_deref());
            version = NewVersion {
                name: &name,
                category: CategoryUpdate::IfNew(category.as_ref()),
                bundle: &candidate,
                source: VersionSource::Patch,
                published_by: reviewer,
                scan: verdict.map(|verdict| cairn_store::VersionScan {
                    verdict: verdict.as_str(),
                    rules: cairn_scanner::rules_version(),
                }),
            };
            Approval::Publish(&version)
        };
        let outcome = services
            .store
            .approve_patch(
                org_id,
                id,
                record.round,
                latest_onto,
                approval,
                Decision { by: reviewer, comment },
                close_duplicates,
                actor,
            )
            .await?;
        if let Some(record) = settle(services, org_id, id, outcome).await? {
            // Conflicts of this skill may merge now.
            services.rechecks.skill_moved(org_id, &name);
            return Ok(record);
        }
    }
    Err(PatchError::State(
        "the skill keeps changing while this patch is approved: try again in a moment".to_owned(),
    ))
}

/// After one approval attempt: the patch when it is done, `None` to try again (the
/// latest revision moved).
async fn settle(
    services: &Services,
    org_id: i64,
    id: Uuid,
    outcome: ApproveOutcome,
) -> Result<Option<PatchRecord>, PatchError> {
    match outcome {
        ApproveOutcome::Published { .. } => {
            services.index_cache.changed(org_id);
            Ok(Some(read_back(services, org_id, id).await?))
        }
        ApproveOutcome::NotPending { status } => Err(not_pending(&status, "approved")),
        ApproveOutcome::Moved => Ok(None),
    }
}

/// What running the stages again produced.
pub(super) struct Restaged {
    /// The new candidate, when the patch is (now) pending.
    pub candidate: Option<Bundle>,
    /// The stages' state (`None`: refused, now `conflict` or `superseded`).
    pub state: Option<StageState>,
    /// The new candidate's scan verdict.
    pub verdict: Option<cairn_scanner::Verdict>,
    /// Another approval re-staged the patch first: nothing was stored, start over.
    pub raced: bool,
}

/// What a patch's candidate was built on, as stored.
fn record_onto(record: &PatchRecord) -> Option<Onto<'_>> {
    record.onto_digest.as_deref().map(|digest| Onto {
        revision: record.onto_revision,
        digest,
    })
}

/// Runs the stages again onto `latest` (its revision and bundle); stores the new reports and state (a pending
/// patch, or one in conflict, that is still built on what it was built on).
pub(super) async fn restage(
    services: &Services,
    org_id: i64,
    record: &PatchRecord,
    name: &SkillName,
    latest: Option<(i32, &Bundle)>,
    actor: &Actor,
) -> Result<Restaged, PatchError> {
    let latest_revision = latest.map(|(revision, _)| revision);
    let latest = latest.map(|(_, bundle)| bundle);
    let ops: Vec<Op> = serde_json::from_value(record.ops.clone()).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let base = match record.base_revision {
        Some(revision) => load(services, org_id, name, RevisionSelector::Exact(revision)).await?,
        None => None,
    };
    let via = record.agent.get("via").and_then(serde_json::Value::as_str);
    let policy = super::policy_for(policy(services, org_id).await?, via);
    let latest_scan = latest.map(|l| services.scans.report(l));
    let dismissals = super::findings::skill_dismissals(services, org_id, name.as_str()).await?;
    let processed = process(PatchInput {
        ops: &ops,
        base: base.as_ref(),
        latest,
        author: &record.author,
        policy: &policy,
        limits: &services.limits,
        roots: &WritableRoots::default(),
        latest_scan: latest_scan.as_deref(),
        dismissals: &dismissals,
    });
    let state = processed.as_ref().ok().map(|p| p.state);
    let verdict = processed.as_ref().ok().and_then(|p| p.report.verdict());
    let (status, processed): (&str, Option<Processed>) = match processed {
        Ok(p) if p.state == StageState::PendingReview || p.state == StageState::AutoApproved => {
            ("pending_review", Some(p))
        }
        Ok(p) => (status_of(p.state), Some(p)),
        // The latest revision already has exactly this content.
        Err(Refusal::NoChange) => ("superseded", None),
        Err(_) => ("conflict", None),
    };
    let report = processed
        .as_ref()
        .map(|p| serde_json::to_value(&p.report).unwrap_or_default())
        .unwrap_or_else(|| record.report.clone());
    let candidate = processed.as_ref().and_then(|p| p.candidate.clone());
    if let Some(bundle) = &candidate {
        upload_missing_blobs(&services.store, services.blobs.as_ref(), std::iter::once(bundle)).await?;
    }
    let onto_digest = latest.map(Bundle::digest);
    let onto = onto_digest.as_deref().map(|digest| Onto {
        revision: latest_revision,
        digest,
    });
    let still_pending = services
        .store
        .restage_patch(
            org_id,
            record.id,
            &record.status,
            status,
            &report,
            onto,
            candidate.as_ref().map(manifest_json).as_ref(),
            candidate.as_ref().map(Bundle::digest).as_deref(),
            record_onto(record),
            record.round,
            actor,
        )
        .await?;
    if !still_pending {
        let now = services.store.patch(org_id, record.id).await?;
        if now.status != record.status {
            return Err(not_pending(&now.status, "approved"));
        }
        // Another approval re-staged it first: start over from what it stored.
        return Ok(Restaged {
            candidate: None,
            state: None,
            verdict: None,
            raced: true,
        });
    }
    Ok(Restaged {
        raced: false,
        candidate: if status == "pending_review" { candidate } else { None },
        state,
        verdict,
    })
}

/// Rejects a patch (a comment saying why is required).
pub async fn reject(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    comment: &str,
) -> Result<PatchRecord, PatchError> {
    if comment.trim().is_empty() {
        return Err(PatchError::Invalid(
            "a rejection needs a comment: say what the author should change".to_owned(),
        ));
    }
    check_text("comment", comment, MAX_TEXT)?;
    close(services, caller, actor, id, "rejected", Some(comment)).await
}

/// Withdraws a patch: its author (or an admin) takes it back.
pub async fn withdraw(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
) -> Result<PatchRecord, PatchError> {
    let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    if record.author_id != caller.user_id && !caller.is_admin() {
        return Err(PatchError::Forbidden(format!(
            "only its author ({}) or an admin can withdraw this patch; reviewers reject instead",
            record.author
        )));
    }
    close(services, caller, actor, id, "withdrawn", None).await
}

async fn close(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    to: &str,
    comment: Option<&str>,
) -> Result<PatchRecord, PatchError> {
    match services
        .store
        .close_patch(
            caller.org_id,
            id,
            &cairn_store::OPEN_PATCH_STATUSES,
            to,
            Decision {
                by: Some(caller.user_id),
                comment,
            },
            actor,
        )
        .await?
    {
        Some(record) => Ok(record),
        None => {
            let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
            Err(not_pending(&record.status, to))
        }
    }
}

/// Closes an open patch as a duplicate of `of` (another patch of the same skill, open or
/// decided; by default the patch its duplicate mark names).
pub async fn close_duplicate(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    of: Option<Uuid>,
    comment: Option<&str>,
) -> Result<PatchRecord, PatchError> {
    if let Some(comment) = comment {
        check_text("comment", comment, MAX_TEXT)?;
    }
    let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    // By default: the patch its mark names, or the one that published the text it repeats.
    let marked = match record.duplicate.as_ref() {
        Some(mark) if mark.patch.is_some() => mark.patch,
        Some(mark) => match mark.revision {
            Some(revision) => crate::app::catalog::resolve(
                &services.store,
                caller.org_id,
                &record.skill_name,
                RevisionSelector::Exact(revision),
            )
            .await
            .ok()
            .and_then(|r| r.version.patch_id),
            None => None,
        },
        None => None,
    };
    let Some(of) = of.or(marked) else {
        return Err(PatchError::Invalid(
            "say which patch this one duplicates (\"of\": the other patch's id): its duplicate mark names none"
                .to_owned(),
        ));
    };
    let other = services.store.patch(caller.org_id, of).await.map_err(not_found)?;
    if other.id == record.id || other.skill_name != record.skill_name {
        return Err(PatchError::Invalid(format!(
            "patch {of} is not another patch of skill '{}': a patch duplicates one of the same skill",
            record.skill_name
        )));
    }
    let live = |status: &str| status == "approved" || super::OPEN_STATUSES.contains(&status);
    if !live(&other.status) {
        return Err(PatchError::State(format!(
            "patch {of} is {}: it no longer carries the lesson; close this one as a duplicate of a patch that is open or approved",
            other.status.replace('_', " ")
        )));
    }
    let decision = Decision {
        by: Some(caller.user_id),
        comment,
    };
    match services
        .store
        .close_as_duplicate(caller.org_id, id, of, decision, actor)
        .await?
    {
        Some(record) => Ok(record),
        None => {
            let now = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
            if super::OPEN_STATUSES.contains(&now.status.as_str()) {
                // The other one was closed meanwhile.
                return Err(PatchError::State(format!(
                    "patch {of} was decided meanwhile and no longer carries the lesson: look at it again"
                )));
            }
            Err(not_pending(&now.status, "closed as a duplicate"))
        }
    }
}

/// One decision of a batch.
#[derive(Clone, Debug)]
pub enum BatchAction {
    /// Approve each (duplicates closed with it when asked).
    Approve {
        /// The comment on every approval.
        comment: Option<String>,
        /// Close each one's duplicates with it.
        close_duplicates: bool,
        /// When not empty: close only duplicates among these (what the reviewer was
        /// shown); patches that joined a group later stay open.
        shown: Vec<Uuid>,
    },
    /// Reject each, with one comment.
    Reject {
        /// Why.
        comment: String,
    },
}

/// What a batch did to one patch.
#[derive(Debug)]
pub struct BatchOutcome {
    /// The patch.
    pub id: Uuid,
    /// Where it stands now, or why it could not be decided.
    pub result: Result<PatchRecord, PatchError>,
}

/// Most patches one batch decides.
pub const MAX_BATCH: usize = 100;

/// Decides several patches in one action, one after another in the order given (each
/// approval re-checked against the latest revision and published before the next), and
/// reports each one's result; one patch failing stops none of the others.
pub async fn review_batch(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    ids: &[Uuid],
    action: &BatchAction,
) -> Result<Vec<BatchOutcome>, PatchError> {
    if ids.is_empty() {
        return Err(PatchError::Invalid(
            "the batch names no patches: send their ids in \"ids\"".to_owned(),
        ));
    }
    if ids.len() > MAX_BATCH {
        return Err(PatchError::Invalid(format!(
            "the batch names {} patches, more than {MAX_BATCH}: split it",
            ids.len()
        )));
    }
    let mut seen = std::collections::HashSet::new();
    if let Some(twice) = ids.iter().find(|id| !seen.insert(**id)) {
        return Err(PatchError::Invalid(format!(
            "patch {twice} is named twice in the batch: name each patch once"
        )));
    }
    // Refuse a malformed batch before deciding anything.
    match action {
        BatchAction::Reject { comment } if comment.trim().is_empty() => {
            return Err(PatchError::Invalid(
                "a rejection needs a comment: say what the authors should change".to_owned(),
            ));
        }
        BatchAction::Reject { comment }
        | BatchAction::Approve {
            comment: Some(comment), ..
        } => {
            check_text("comment", comment, MAX_TEXT)?;
        }
        BatchAction::Approve { comment: None, .. } => {}
    }
    let mut out = Vec::with_capacity(ids.len());
    // Approvals of this batch so far: a later item they closed as their duplicate is
    // reported as closed, which is what the reviewer asked for, not as an error.
    let mut approved = std::collections::HashSet::new();
    for id in ids {
        let result = match action {
            BatchAction::Approve {
                comment,
                close_duplicates,
                shown,
            } => {
                let how = Approve {
                    comment: comment.as_deref(),
                    close_duplicates: match (*close_duplicates, shown.is_empty()) {
                        (false, _) => CloseDuplicates::None,
                        (true, true) => CloseDuplicates::All,
                        (true, false) => CloseDuplicates::These(shown),
                    },
                    round: None,
                };
                match approve(services, caller, actor, *id, how).await {
                    Ok(record) => {
                        approved.insert(*id);
                        Ok(record)
                    }
                    Err(PatchError::State(why)) => closed_by_this_batch(services, caller, *id, &approved, why).await,
                    Err(e) => Err(e),
                }
            }
            BatchAction::Reject { comment } => reject(services, caller, actor, *id, comment).await,
        };
        match result {
            // A database that is down fails the rest the same way: stop and say so (what
            // was decided so far stays decided; the batch can be sent again).
            Err(PatchError::Store(e)) if e.is_unavailable() => return Err(PatchError::Store(e)),
            result => out.push(BatchOutcome { id: *id, result }),
        }
    }
    Ok(out)
}

/// A batch item that could not be approved because an earlier approval of the same batch
/// closed it as its duplicate: its closed record; any other refusal stays the error.
async fn closed_by_this_batch(
    services: &Services,
    caller: &Principal,
    id: Uuid,
    approved: &std::collections::HashSet<Uuid>,
    why: String,
) -> Result<PatchRecord, PatchError> {
    let refused = PatchError::State(why);
    match services.store.patch(caller.org_id, id).await {
        Ok(record) if record.status == "duplicate" && record.duplicate_of.is_some_and(|of| approved.contains(&of)) => {
            Ok(record)
        }
        _ => Err(refused),
    }
}
