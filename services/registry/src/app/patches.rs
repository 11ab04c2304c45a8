//! The patch workflow: submit (the pipeline's stages, the candidate's blobs stored, the
//! patch recorded), approve (re-staged if the latest revision moved, then published
//! atomically), reject, withdraw.

use std::collections::BTreeMap;

use cairn_pipeline::ops::{Op, WritableRoots};
use cairn_pipeline::policy::{Policy, may_approve};
use cairn_pipeline::report::PatchReport;
use cairn_pipeline::stages::{PatchInput, Processed, Refusal, StageState, process};
use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleFile, Category, SkillName};
use cairn_store::{
    Actor, Approval, ApproveOutcome, CategoryUpdate, Decision, NewPatch, NewVersion, PatchRecord, RevisionSelector,
    StoreError, VersionSource,
};
use serde::Deserialize;
use uuid::Uuid;

use super::catalog::{self, CatalogError};
use super::paging;
use super::publish::{PublishError, upload_missing_blobs};
use crate::Services;
use crate::auth::Principal;

/// Longest summary, in characters.
pub const MAX_SUMMARY: usize = 500;
/// Longest rationale or comment, in characters.
pub const MAX_TEXT: usize = 10_000;
/// How often an approval rebuilds its candidate when other approvals keep landing first.
/// Each retry means another approval was published, so concurrent approvals always make
/// progress; the bound only stops a skill that changes faster than it can be rebuilt.
const MAX_APPROVE_ATTEMPTS: usize = 64;

/// Scan reports of published versions by digest (versions are immutable, so a report
/// never goes stale); bounded, emptied when full.
#[derive(Debug, Default)]
pub struct ScanCache(std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<cairn_scanner::Report>>>);

/// Versions whose scan reports are kept.
const SCAN_CACHE_ENTRIES: usize = 512;

impl ScanCache {
    /// The report of `bundle`, scanned once per digest.
    pub fn report(&self, bundle: &Bundle) -> std::sync::Arc<cairn_scanner::Report> {
        let digest = bundle.digest();
        if let Some(report) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&digest) {
            return report.clone();
        }
        let report = std::sync::Arc::new(cairn_pipeline::stages::scan_bundle(bundle));
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= SCAN_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(digest, report.clone());
        report
    }
}

/// Who or what wrote a patch.
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AgentInfo {
    /// The agent, e.g. `hermes`.
    #[serde(default)]
    pub name: Option<String>,
    /// The model.
    #[serde(default)]
    pub model: Option<String>,
    /// The session.
    #[serde(default)]
    pub session: Option<String>,
}

/// A patch as submitted.
#[derive(Clone, Debug)]
pub struct Submission {
    /// The skill.
    pub skill: String,
    /// The revision the ops were made against (`None`: a new skill).
    pub base_revision: Option<i32>,
    /// The ops, as JSON (parsed here, so their errors are the pipeline's).
    pub ops: serde_json::Value,
    /// One line.
    pub summary: String,
    /// Why.
    pub rationale: String,
    /// Who wrote it.
    pub agent: AgentInfo,
    /// For a new skill: its category.
    pub category: Option<String>,
}

/// Why a patch request failed.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// The pipeline refused the patch: nothing was stored.
    #[error("{0}")]
    Refused(String),
    /// Something does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The caller may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// The patch is not in a state that allows this.
    #[error("{0}")]
    State(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading stored versions failed.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// Storing blobs failed.
    #[error(transparent)]
    Publish(#[from] PublishError),
}

/// Submits a patch: runs the stages, stores the candidate's blobs and the patch.
/// A `safe` patch from an author the policy trusts is approved at once.
pub async fn submit(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    submission: Submission,
) -> Result<PatchRecord, PatchError> {
    let name = SkillName::parse(&submission.skill).map_err(|e| PatchError::Invalid(e.to_string()))?;
    check_text("summary", &submission.summary, MAX_SUMMARY)?;
    check_text("rationale", &submission.rationale, MAX_TEXT)?;
    let category = submission
        .category
        .as_deref()
        .map(Category::parse)
        .transpose()
        .map_err(|e| PatchError::Invalid(e.to_string()))?;
    let ops: Vec<Op> = serde_json::from_value(submission.ops.clone()).map_err(|e| {
        PatchError::Invalid(format!(
            "ops: {e}: send a list of ops such as [{{\"op\": \"patch\", \"old\": \"…\", \"new\": \"…\"}}]"
        ))
    })?;
    let latest = load_revision(services, caller.org_id, &name, RevisionSelector::Latest).await?;
    let base = match submission.base_revision {
        // The usual case: the agent read the latest revision; it is read once.
        Some(revision) if latest.as_ref().is_some_and(|(r, _)| *r == revision) => latest.as_ref().map(|(_, b)| b.clone()),
        Some(revision) => Some(load(services, caller.org_id, &name, RevisionSelector::Exact(revision)).await?.ok_or_else(
            || PatchError::NotFound(format!("skill '{name}' has no revision {revision}: send the revision your agent read (GET /v1/skills/{name}/versions)")),
        )?),
        None => None,
    };
    let latest = latest.map(|(_, bundle)| bundle);
    if let (None, Some(latest)) = (submission.base_revision, &latest) {
        return Err(PatchError::Refused(format!(
            "skill '{name}' already exists (digest {}): change it with edit or patch ops and the base_revision your agent read",
            latest.digest()
        )));
    }
    let policy = policy(services, caller.org_id).await?;
    let latest_scan = latest.as_ref().map(|l| services.scans.report(l));
    let processed = process(PatchInput {
        ops: &ops,
        base: base.as_ref(),
        latest: latest.as_ref(),
        author: &caller.handle,
        policy: &policy,
        limits: &services.limits,
        roots: &WritableRoots::default(),
        latest_scan: latest_scan.as_deref(),
    })
    .map_err(refusal)?;
    for (stage, took) in &processed.timings {
        services.metrics.stage(stage.as_str(), *took);
    }
    let started = std::time::Instant::now();
    if let Some(candidate) = &processed.candidate {
        upload_missing_blobs(&services.store, services.blobs.as_ref(), std::iter::once(candidate)).await?;
    }
    services.metrics.stage("store_blobs", started.elapsed());
    let started = std::time::Instant::now();
    let id = Uuid::new_v4();
    let report = serde_json::to_value(&processed.report).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let onto = latest.as_ref().map(Bundle::digest);
    let candidate = processed.candidate.as_ref().map(manifest_json);
    let candidate_digest = processed.candidate.as_ref().map(Bundle::digest);
    services
        .store
        .insert_patch(
            &NewPatch {
                id,
                org_id: caller.org_id,
                skill_name: name.as_str(),
                base_revision: submission.base_revision,
                status: status_of(processed.state),
                author_id: caller.user_id,
                agent: serde_json::to_value(&submission.agent).unwrap_or_default(),
                summary: &submission.summary,
                rationale: &submission.rationale,
                category: category.as_ref().map(Category::as_str),
                ops: submission.ops,
                report,
                onto_digest: onto.as_deref(),
                candidate,
                candidate_digest: candidate_digest.as_deref(),
            },
            actor,
        )
        .await?;
    services.metrics.stage("record", started.elapsed());
    if processed.state == StageState::AutoApproved {
        let system = Actor {
            name: "policy:auto-approve".to_owned(),
            ..actor.clone()
        };
        // Best effort: the patch is stored either way, and the answer says where it
        // stands (approved, or left for a reviewer when publishing could not finish).
        let comment = Some("approved by the organisation's policy");
        if let Err(error) = publish(services, caller.org_id, id, None, comment, &system).await {
            tracing::warn!(%error, patch = %id, "auto-approval did not publish; the patch waits for a reviewer");
        }
    }
    read_back(services, caller.org_id, id).await
}

/// Reads a patch just committed, for the answer. A database blip here must not turn a
/// committed change into a 503 the client would retry (creating a duplicate): transient
/// failures are retried for a while first.
async fn read_back(services: &Services, org_id: i64, id: Uuid) -> Result<PatchRecord, PatchError> {
    let mut delay = std::time::Duration::from_millis(50);
    let started = std::time::Instant::now();
    loop {
        match services.store.patch(org_id, id).await {
            Err(e) if e.is_unavailable() && started.elapsed() < READ_BACK_PATIENCE => {
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(std::time::Duration::from_secs(1));
            }
            result => return Ok(result?),
        }
    }
}

/// How long [`read_back`] keeps trying (a database restart takes a few seconds).
const READ_BACK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// Approves a pending patch and publishes it as the skill's next revision.
pub async fn approve(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    comment: Option<&str>,
) -> Result<PatchRecord, PatchError> {
    if let Some(comment) = comment {
        check_text("comment", comment, MAX_TEXT)?;
    }
    let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    let policy = policy(services, caller.org_id).await?;
    may_approve(&caller.handle, &record.author, &policy).map_err(|e| PatchError::Forbidden(e.to_string()))?;
    publish(services, caller.org_id, id, Some(caller.user_id), comment, actor).await
}

/// Publishes a pending patch: if the skill's latest revision moved since its candidate
/// was built, the stages run again onto it first (a conflict or a `dangerous` result
/// stops there); the database then commits the version and the patch's new state
/// together, or reports that the latest moved again, and this repeats.
async fn publish(
    services: &Services,
    org_id: i64,
    id: Uuid,
    reviewer: Option<i64>,
    comment: Option<&str>,
    actor: &Actor,
) -> Result<PatchRecord, PatchError> {
    for _ in 0..MAX_APPROVE_ATTEMPTS {
        let record = services.store.patch(org_id, id).await.map_err(not_found)?;
        if record.status != "pending_review" {
            return Err(not_pending(&record.status, "approved"));
        }
        let name = SkillName::parse(&record.skill_name).map_err(|e| PatchError::Invalid(e.to_string()))?;
        let latest = load(services, org_id, &name, RevisionSelector::Latest).await?;
        let latest_digest = latest.as_ref().map(Bundle::digest);
        let deletes = PatchReport::from_stored(&record.report).deletes;
        let candidate;
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
            candidate = if latest_digest != record.onto_digest {
                let reviewed = PatchReport::from_stored(&record.report).verdict();
                let restaged = restage(services, org_id, &record, &name, latest.as_ref()).await?;
                if restaged.raced {
                    continue;
                }
                if reviewer.is_none() && restaged.state != Some(StageState::AutoApproved) {
                    // Auto-approval holds only for what the policy approves: after the
                    // merge this patch needs a reviewer.
                    return Ok(services.store.patch(org_id, id).await?);
                }
                if reviewer.is_some() && restaged.verdict.is_some() && restaged.verdict > reviewed {
                    return Err(PatchError::State(format!(
                        "merged onto the latest revision, the patch now scans '{}' (it was reviewed as '{}'): review it again",
                        restaged.verdict.map_or("unknown", |v| v.as_str()),
                        reviewed.map_or("unknown", |v| v.as_str())
                    )));
                }
                match restaged.candidate {
                    Some(bundle) => bundle,
                    None => {
                        let now = services.store.patch(org_id, id).await?;
                        return Err(PatchError::State(format!(
                            "the skill changed since this patch was checked, and merged onto the latest revision the patch is now '{}': see its rebase report and scan",
                            now.status
                        )));
                    }
                }
            } else {
                candidate_bundle(services, &record).await?
            };
            category = record
                .category
                .as_deref()
                .map(Category::parse)
                .transpose()
                .ok()
                .flatten();
            version = NewVersion {
                name: &name,
                category: CategoryUpdate::IfNew(category.as_ref()),
                bundle: &candidate,
                source: VersionSource::Patch,
                published_by: reviewer,
            };
            Approval::Publish(&version)
        };
        let outcome = services
            .store
            .approve_patch(
                org_id,
                id,
                latest_digest.as_deref(),
                approval,
                Decision { by: reviewer, comment },
                actor,
            )
            .await?;
        if let Some(record) = settle(services, org_id, id, outcome).await? {
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
struct Restaged {
    /// The new candidate, when the patch is still pending.
    candidate: Option<Bundle>,
    /// The stages' state (`None`: refused, now `conflict` or `superseded`).
    state: Option<StageState>,
    /// The new candidate's scan verdict.
    verdict: Option<cairn_scanner::Verdict>,
    /// Another approval re-staged the patch first: nothing was stored, start over.
    raced: bool,
}

/// Runs the stages again onto `latest`; stores the new reports and state.
async fn restage(
    services: &Services,
    org_id: i64,
    record: &PatchRecord,
    name: &SkillName,
    latest: Option<&Bundle>,
) -> Result<Restaged, PatchError> {
    let ops: Vec<Op> = serde_json::from_value(record.ops.clone()).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let base = match record.base_revision {
        Some(revision) => load(services, org_id, name, RevisionSelector::Exact(revision)).await?,
        None => None,
    };
    let policy = policy(services, org_id).await?;
    let latest_scan = latest.map(|l| services.scans.report(l));
    let processed = process(PatchInput {
        ops: &ops,
        base: base.as_ref(),
        latest,
        author: &record.author,
        policy: &policy,
        limits: &services.limits,
        roots: &WritableRoots::default(),
        latest_scan: latest_scan.as_deref(),
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
    let onto = latest.map(Bundle::digest);
    let still_pending = services
        .store
        .restage_patch(
            org_id,
            record.id,
            status,
            &report,
            onto.as_deref(),
            candidate.as_ref().map(manifest_json).as_ref(),
            candidate.as_ref().map(Bundle::digest).as_deref(),
            record.onto_digest.as_deref(),
        )
        .await?;
    if !still_pending {
        let now = services.store.patch(org_id, record.id).await?;
        if now.status != "pending_review" {
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
    let open = ["pending_review", "conflict", "blocked"];
    match services
        .store
        .close_patch(
            caller.org_id,
            id,
            &open,
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

/// Loads a version of a skill as a bundle (`None` when the skill or version does not
/// exist). Stored versions are read without re-validating limits.
async fn load(
    services: &Services,
    org_id: i64,
    name: &SkillName,
    selector: RevisionSelector,
) -> Result<Option<Bundle>, PatchError> {
    Ok(load_revision(services, org_id, name, selector)
        .await?
        .map(|(_, bundle)| bundle))
}

/// [`load`], with the revision it found.
async fn load_revision(
    services: &Services,
    org_id: i64,
    name: &SkillName,
    selector: RevisionSelector,
) -> Result<Option<(i32, Bundle)>, PatchError> {
    let resolved = match catalog::resolve(&services.store, org_id, name.as_str(), selector).await {
        Ok(resolved) => resolved,
        Err(CatalogError::NotFound(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let files = catalog::file_map(&services.store, services.blobs.as_ref(), &resolved).await?;
    let unlimited = cairn_skill::limits::Limits {
        max_skill_md_chars: usize::MAX,
        max_description_chars: usize::MAX,
        max_file_bytes: u64::MAX,
        max_files: usize::MAX,
        max_total_bytes: u64::MAX,
    };
    let bundle = Bundle::from_files(files, &unlimited).map_err(|e| CatalogError::Corrupt(e.to_string()))?;
    Ok(Some((resolved.version.revision, bundle)))
}

/// The stored candidate of a patch, read back from its manifest and blobs.
async fn candidate_bundle(services: &Services, record: &PatchRecord) -> Result<Bundle, PatchError> {
    let manifest = record
        .candidate
        .as_ref()
        .and_then(|m| m.as_array())
        .ok_or_else(|| PatchError::State("this patch has no candidate to publish".to_owned()))?;
    let mut files = BTreeMap::new();
    for entry in manifest {
        let field = |k: &str| entry.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
        let bytes = catalog::read_blob(services.blobs.as_ref(), &field("sha256")).await?;
        let path = RelPath::parse(&field("path")).map_err(|e| CatalogError::Corrupt(e.to_string()))?;
        let executable = entry
            .get("executable")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        files.insert(path, BundleFile::new(bytes.to_vec(), executable));
    }
    Bundle::from_files(files, &services.limits).map_err(|e| CatalogError::Corrupt(e.to_string()).into())
}

fn manifest_json(bundle: &Bundle) -> serde_json::Value {
    serde_json::Value::Array(
        bundle
            .manifest()
            .into_iter()
            .map(|e| {
                serde_json::json!({
                    "path": e.path.as_str(), "sha256": e.sha256.to_hex(), "size": e.size, "executable": e.executable,
                })
            })
            .collect(),
    )
}

async fn policy(services: &Services, org_id: i64) -> Result<Policy, PatchError> {
    let stored = services.store.patch_policy(org_id).await?;
    // A policy that no longer parses (written by a newer version) falls back to the
    // strictest reading: no self-approval, no auto-approval.
    Ok(serde_json::from_value(stored).unwrap_or_default())
}

fn status_of(state: StageState) -> &'static str {
    match state {
        StageState::PendingReview | StageState::AutoApproved => "pending_review",
        StageState::Blocked => "blocked",
        StageState::Conflict => "conflict",
    }
}

fn refusal(refusal: Refusal) -> PatchError {
    PatchError::Refused(refusal.to_string())
}

/// Parses a patch id.
pub fn parse_id(raw: &str) -> Result<Uuid, PatchError> {
    Uuid::parse_str(raw).map_err(|_| {
        PatchError::Invalid(format!(
            "'{raw}' is not a patch id: ids are UUIDs, as the patch list shows them"
        ))
    })
}

/// What a patch list asks for.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// Only patches in one of these states (empty: any).
    pub statuses: Vec<String>,
    /// Only patches of this skill.
    pub skill: Option<String>,
    /// Only patches by this author (a user handle).
    pub author: Option<String>,
    /// Only patches whose scan gave this verdict.
    pub verdict: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size (`None`: the default).
    pub limit: Option<i64>,
}

/// The states a reviewer still has to act on (the review queue's default view).
pub const OPEN_STATUSES: [&str; 3] = ["pending_review", "blocked", "conflict"];

/// The states a `status` filter names: one, a comma-separated list, or `open`
/// ([`OPEN_STATUSES`]); empty or absent means any state.
pub fn status_filter(raw: Option<&str>) -> Vec<String> {
    match raw.map(str::trim) {
        None | Some("") => Vec::new(),
        Some("open") => OPEN_STATUSES.iter().map(|s| (*s).to_owned()).collect(),
        Some(list) => list.split(',').map(|s| s.trim().to_owned()).collect(),
    }
}

/// The scan verdicts a patch list can filter by.
pub const VERDICTS: [&str; 3] = ["safe", "caution", "dangerous"];

/// The organisation's patches, newest first, and the cursor of the next page.
pub async fn list(
    services: &Services,
    caller: &Principal,
    listing: Listing,
) -> Result<(Vec<PatchRecord>, Option<String>), PatchError> {
    let limit = paging::limit(listing.limit).map_err(PatchError::Invalid)?;
    for status in &listing.statuses {
        if !cairn_store::PATCH_STATUSES.contains(&status.as_str()) {
            return Err(PatchError::Invalid(format!(
                "status '{status}' is not a patch state: use one of {}",
                cairn_store::PATCH_STATUSES.join(", ")
            )));
        }
    }
    if let Some(skill) = listing.skill.as_deref() {
        SkillName::parse(skill).map_err(|e| PatchError::Invalid(e.to_string()))?;
    }
    if let Some(author) = listing.author.as_deref() {
        super::accounts::check_handle(author).map_err(|e| PatchError::Invalid(e.to_string()))?;
    }
    if let Some(verdict) = listing.verdict.as_deref()
        && !VERDICTS.contains(&verdict)
    {
        return Err(PatchError::Invalid(format!(
            "verdict '{verdict}' is not a scan verdict: use one of {}",
            VERDICTS.join(", ")
        )));
    }
    let before = listing
        .cursor
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(paging::time_id_cursor)
        .transpose()
        .map_err(PatchError::Invalid)?;
    let query = cairn_store::PatchQuery {
        statuses: listing.statuses,
        skill: listing.skill,
        author: listing.author,
        verdict: listing.verdict,
        before,
        limit: limit + 1,
    };
    let mut rows = services.store.list_patches(caller.org_id, &query).await?;
    let next = paging::cut_page(&mut rows, limit, |p| paging::time_id_key(p.created_at, p.id));
    Ok((rows, next))
}

/// One patch of the caller's organisation.
pub async fn get(services: &Services, caller: &Principal, id: Uuid) -> Result<PatchRecord, PatchError> {
    services.store.patch(caller.org_id, id).await.map_err(not_found)
}

fn check_text(field: &str, text: &str, max: usize) -> Result<(), PatchError> {
    if text.chars().count() > max {
        return Err(PatchError::Invalid(format!(
            "{field} is longer than {max} characters: shorten it"
        )));
    }
    Ok(())
}

fn not_found(error: StoreError) -> PatchError {
    match error {
        StoreError::NotFound(what) => {
            PatchError::NotFound(format!("{what} does not exist: list patches with GET /v1/patches"))
        }
        other => other.into(),
    }
}

fn not_pending(status: &str, wanted: &str) -> PatchError {
    PatchError::State(format!("this patch is {status}: only an open patch can be {wanted}"))
}

/// What a direct publish did.
#[derive(Debug)]
pub struct Published {
    /// The revision (new, or the latest when the content was unchanged).
    pub revision: i32,
    /// Whether a new revision was created.
    pub created: bool,
    /// The scan of the bundle, findings marked introduced against the latest revision.
    pub scan: cairn_scanner::Report,
}

/// Publishes a bundle directly (reviewers): the same validation and scan as a patch,
/// never around them — a `dangerous` bundle is refused.
pub async fn publish_direct(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    name: &SkillName,
    category: Option<Category>,
    bundle: Bundle,
) -> Result<Published, PatchError> {
    let latest = load(services, caller.org_id, name, RevisionSelector::Latest).await?;
    let mut scan = cairn_pipeline::stages::scan_bundle(&bundle);
    if let Some(latest) = &latest {
        cairn_scanner::mark_introduced(&services.scans.report(latest), &mut scan);
    }
    if scan.verdict == cairn_scanner::Verdict::Dangerous {
        let worst = scan.findings.iter().max_by_key(|f| f.severity);
        return Err(PatchError::Refused(format!(
            "the security scanner judges this bundle dangerous{}: dangerous content is never published",
            worst.map_or(String::new(), |f| format!(
                " ({} at {}:{}: {})",
                f.rule, f.file, f.line, f.message
            ))
        )));
    }
    let candidate = super::publish::Candidate {
        name: name.clone(),
        category,
        bundle,
    };
    let outcome = super::publish::publish(
        &services.store,
        services.blobs.as_ref(),
        caller.org_id,
        std::slice::from_ref(&candidate),
        VersionSource::Publish,
        Some(caller.user_id),
        actor,
    )
    .await?
    .remove(0);
    let (revision, created) = match outcome {
        cairn_store::PublishOutcome::Created { revision, .. } => (revision, true),
        cairn_store::PublishOutcome::Unchanged { revision, .. } => (revision, false),
    };
    if created {
        services.index_cache.changed(caller.org_id);
    }
    Ok(Published {
        revision,
        created,
        scan,
    })
}
