//! The patch workflow: submit (the pipeline's stages, duplicates marked, the candidate's
//! blobs stored, the patch recorded), review (`review`: approve — re-staged if the latest
//! revision moved, then published atomically, duplicates closed with it — reject,
//! withdraw, close as a duplicate, many at once), conflicts re-checked when their skill
//! moves on (`recheck`) or resolved by a reviewer (`resolve`), the conversation on a
//! patch (`conversation`: comments in threads, requests for changes; `rounds`: its author's
//! new versions), and direct publishing.

pub mod conversation;
mod direct;
mod duplicates;
pub mod findings;
pub mod recheck;
mod resolve;
mod review;
pub mod rounds;
mod scan_cache;
pub mod sides;
pub mod turns;

use cairn_pipeline::ops::{Op, WritableRoots};
use cairn_pipeline::policy::Policy;
use cairn_pipeline::stages::{PatchInput, Refusal, StageState, process};
use cairn_skill::{Bundle, Category, SkillName};
use cairn_store::{Actor, NewPatch, PatchKey, PatchOrder, PatchRecord, RevisionSelector, StoreError};
use serde::Deserialize;
use uuid::Uuid;

pub use cairn_store::CloseDuplicates;
pub use direct::{Published, publish_direct};
pub use duplicates::GroupRepeat;
pub use resolve::{Resolution, resolve};
pub use review::{Approve, BatchAction, BatchOutcome, approve, close_duplicate, reject, review_batch, withdraw};
pub use scan_cache::ScanCache;

use super::catalog::{self, CatalogError};
use super::paging;
use super::publish::{PublishError, bundle_from_manifest, manifest_json, upload_missing_blobs};
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

/// Who or what wrote a patch.
#[derive(Clone, Debug, Default, Deserialize, serde::Serialize, PartialEq, Eq, schemars::JsonSchema)]
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
    /// How the patch arrived, when not by the API directly: `mcp` for an agent's own
    /// proposal over MCP ([`VIA_MCP`]), which the policy never publishes without a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
}

/// [`AgentInfo::via`] of a proposal an agent made over MCP. Skill text can talk an agent
/// into proposing; so such a patch always waits for a reviewer, whoever's token sent it.
pub const VIA_MCP: &str = "mcp";

/// The organisation's policy as it applies to a patch that arrived `via`: an agent's MCP
/// proposal is never approved by the policy alone.
fn policy_for(policy: Policy, via: Option<&str>) -> Policy {
    match via {
        Some(VIA_MCP) => Policy {
            auto_approve_safe_from: Vec::new(),
            ..policy
        },
        _ => policy,
    }
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
    /// The open patch this one carries on (its author's resubmission after a conflict, or
    /// a reviewer's resolution): that one becomes `superseded`, linked both ways.
    pub supersedes: Option<Uuid>,
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
    /// The caller's token has spent its proposal budget for now.
    #[error("{0}")]
    TooMany(String),
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

/// Submits a patch: runs the stages, marks a likely duplicate, stores the candidate's
/// blobs and the patch. A `safe` patch from an author the policy trusts is approved at
/// once. A patch that `supersedes` another must be by that patch's author (or an admin)
/// and for the same skill, and that patch must still be open.
pub async fn submit(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    submission: Submission,
) -> Result<PatchRecord, PatchError> {
    let mut submission = submission;
    if let Some(old) = submission.supersedes {
        let previous = services.store.patch(caller.org_id, old).await.map_err(not_found)?;
        if previous.author_id != caller.user_id && !caller.is_admin() {
            return Err(PatchError::Forbidden(format!(
                "patch {old} is by {}: only its author (or an admin) can send a patch that supersedes it",
                previous.author
            )));
        }
        check_supersedable(&previous, &submission.skill)?;
        // An agent's MCP proposal waits for a person in whatever carries it on.
        if previous.agent.get("via").and_then(|v| v.as_str()) == Some(VIA_MCP) {
            submission.agent.via = Some(VIA_MCP.to_owned());
        }
    }
    spend_proposal(services, caller)?;
    let author = Author {
        user_id: caller.user_id,
        handle: &caller.handle,
    };
    submit_as(
        services,
        caller.org_id,
        author,
        None,
        actor,
        submission,
        Destination::NewPatch { superseded_round: None },
    )
    .await
}

/// Counts a proposal (a new patch or round) against the caller's token's budget
/// (`CAIRN_RATE_LIMIT_PROPOSALS`) and the user's ceiling over all their tokens
/// (`CAIRN_RATE_LIMIT_USER_PROPOSALS`), before the pipeline runs: a flood of proposals —
/// an agent talked into it by skill text — stops here, whichever transport it came by.
pub(crate) fn spend_proposal(services: &Services, caller: &Principal) -> Result<(), PatchError> {
    services
        .limiters
        .check_proposal(caller.token_id, caller.user_id)
        .map(drop)
        .map_err(|limited| {
            let (whose, variable) = if limited.key == "user proposals" {
                ("your tokens together have", "CAIRN_RATE_LIMIT_USER_PROPOSALS")
            } else {
                ("this token has", "CAIRN_RATE_LIMIT_PROPOSALS")
            };
            PatchError::TooMany(format!(
                "{whose} used the budget of {} proposals ({variable}): the next one is accepted in {} s; until \
                 then, answer reviews of the open ones or ask an admin for a larger budget",
                limited.limit,
                limited.retry_after.as_secs().max(1)
            ))
        })
}

/// The submission that proposes a new skill from its SKILL.md and other files (path →
/// text): the skill is named by the frontmatter's `name`. The summary defaults to one
/// that names the skill.
pub fn new_skill(
    content: String,
    files: std::collections::BTreeMap<String, String>,
    category: Option<String>,
    summary: Option<String>,
    rationale: String,
    agent: AgentInfo,
) -> Result<Submission, PatchError> {
    let document = cairn_skill::frontmatter::parse_tolerant(&content).map_err(|e| {
        PatchError::Invalid(format!(
            "the SKILL.md cannot be read: {e}; start it with a '---' YAML block holding name and description"
        ))
    })?;
    let name = document.frontmatter.name().map(str::to_owned).ok_or_else(|| {
        PatchError::Invalid("the SKILL.md's frontmatter has no 'name': add one, which names the new skill".to_owned())
    })?;
    let mut ops = vec![serde_json::json!({"op": "create", "content": content})];
    ops.extend(
        files
            .into_iter()
            .map(|(file, content)| serde_json::json!({"op": "write_file", "file": file, "content": content})),
    );
    Ok(Submission {
        summary: summary.unwrap_or_else(|| format!("New skill: {name}")),
        skill: name,
        base_revision: None,
        ops: serde_json::Value::Array(ops),
        rationale,
        agent,
        category,
        supersedes: None,
    })
}

/// Where a submission is recorded.
#[derive(Clone, Copy, Debug)]
enum Destination {
    /// A new patch; what it supersedes must still be in `superseded_round`, when given.
    NewPatch { superseded_round: Option<i32> },
    /// The next round of an open patch, now in `round`.
    Round { id: Uuid, round: i32 },
}

/// Whether `previous` can be superseded by a patch of `skill`.
fn check_supersedable(previous: &PatchRecord, skill: &str) -> Result<(), PatchError> {
    if previous.skill_name != skill {
        return Err(PatchError::Invalid(format!(
            "patch {} changes skill '{}', not '{skill}': a patch supersedes one of the same skill",
            previous.id, previous.skill_name
        )));
    }
    if !OPEN_STATUSES.contains(&previous.status.as_str()) {
        return Err(PatchError::State(format!(
            "patch {} is {}: only an open patch (pending review, blocked or in conflict) can be superseded; send this one on its own",
            previous.id, previous.status
        )));
    }
    Ok(())
}

/// Who a patch is by.
#[derive(Clone, Copy, Debug)]
struct Author<'a> {
    user_id: i64,
    handle: &'a str,
}

/// [`submit`] for `author` in `org_id`; `resolved_by` names a reviewer who resolved a
/// conflict by hand to make it; `destination` says whether it is a new patch or the next
/// round of one.
async fn submit_as(
    services: &Services,
    org_id: i64,
    author: Author<'_>,
    resolved_by: Option<i64>,
    actor: &Actor,
    submission: Submission,
    destination: Destination,
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
    let latest = load_revision(services, org_id, &name, RevisionSelector::Latest).await?;
    let base = match submission.base_revision {
        // The usual case: the agent read the latest revision; it is read once.
        Some(revision) if latest.as_ref().is_some_and(|(r, _)| *r == revision) => {
            latest.as_ref().map(|(_, b)| b.clone())
        }
        Some(revision) => Some(
            load(services, org_id, &name, RevisionSelector::Exact(revision))
                .await?
                .ok_or_else(|| {
                    PatchError::NotFound(format!(
                        "skill '{name}' has no revision {revision}: send the revision your agent read"
                    ))
                })?,
        ),
        None => None,
    };
    if let (None, Some((_, latest))) = (submission.base_revision, &latest) {
        return Err(PatchError::Refused(format!(
            "skill '{name}' already exists (digest {}): change it with edit or patch ops and the base_revision your agent read",
            latest.digest()
        )));
    }
    let policy = policy_for(policy(services, org_id).await?, submission.agent.via.as_deref());
    let latest_scan = latest.as_ref().map(|(_, l)| services.scans.report(l));
    let dismissals = findings::skill_dismissals(services, org_id, name.as_str()).await?;
    let processed = process(PatchInput {
        ops: &ops,
        base: base.as_ref(),
        latest: latest.as_ref().map(|(_, b)| b),
        author: author.handle,
        policy: &policy,
        limits: &services.limits,
        roots: &WritableRoots::default(),
        latest_scan: latest_scan.as_deref(),
        dismissals: &dismissals,
    })
    .map_err(refusal)?;
    for (stage, took) in &processed.timings {
        services.metrics.stage(stage.as_str(), *took);
    }
    let started = std::time::Instant::now();
    let (id, carried_on) = match destination {
        Destination::NewPatch { .. } => (Uuid::new_v4(), submission.supersedes),
        // A patch never duplicates itself.
        Destination::Round { id, .. } => (id, Some(id)),
    };
    let excluded: Vec<Uuid> = carried_on.into_iter().collect();
    // The patch's lesson compared with the skill's open patches (but `excluded`) and text.
    let find_duplicate = async |excluded: &[Uuid]| {
        duplicates::find(
            services,
            org_id,
            name.as_str(),
            excluded,
            &processed.lesson,
            latest.as_ref().map(|(r, b)| (*r, b)),
            base.as_ref(),
            processed.candidate.as_ref(),
        )
        .await
    };
    let duplicate = find_duplicate(&excluded).await?;
    services.metrics.stage("duplicates", started.elapsed());
    let started = std::time::Instant::now();
    if let Some(candidate) = &processed.candidate {
        upload_missing_blobs(&services.store, services.blobs.as_ref(), std::iter::once(candidate)).await?;
    }
    services.metrics.stage("store_blobs", started.elapsed());
    let started = std::time::Instant::now();
    let report = serde_json::to_value(&processed.report).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let onto = latest.as_ref().map(|(_, b)| b.digest());
    let candidate = processed.candidate.as_ref().map(manifest_json);
    let candidate_digest = processed.candidate.as_ref().map(Bundle::digest);
    let patch = NewPatch {
        id,
        org_id,
        skill_name: name.as_str(),
        base_revision: submission.base_revision,
        status: status_of(processed.state),
        author_id: author.user_id,
        agent: serde_json::to_value(&submission.agent).unwrap_or_default(),
        summary: &submission.summary,
        rationale: &submission.rationale,
        category: category.as_ref().map(Category::as_str),
        ops: submission.ops,
        report,
        onto_digest: onto.as_deref(),
        onto_revision: latest.as_ref().map(|(revision, _)| *revision),
        candidate,
        candidate_digest: candidate_digest.as_deref(),
        supersedes: submission.supersedes,
        superseded_round: match destination {
            Destination::NewPatch { superseded_round } => superseded_round,
            Destination::Round { .. } => None,
        },
        resolved_by,
        lesson: &processed.lesson,
        duplicate: duplicate.as_ref(),
    };
    match destination {
        Destination::NewPatch { .. } => services.store.insert_patch(&patch, actor).await.map_err(|e| match e {
            StoreError::Conflict(message) if submission.supersedes.is_some() => PatchError::State(format!(
                "{message}: it changed meanwhile; read it again (or send this patch without supersedes)"
            )),
            other => other.into(),
        })?,
        Destination::Round { round, .. } => {
            services
                .store
                .revise_patch(&patch, round, actor)
                .await
                .map_err(|e| match e {
                    StoreError::Conflict(message) => PatchError::State(format!(
                        "{message}: read the patch again, then send your version if it is still open"
                    )),
                    other => not_found(other),
                })?;
        }
    }
    // Submitted at the same moment as the patch it repeats, neither saw the other: once
    // stored, a new patch without a mark looks again, and the later of the two finds the
    // earlier. Best effort: the patch is stored either way.
    if duplicate.is_none() && matches!(destination, Destination::NewPatch { .. }) {
        let excluded: Vec<Uuid> = excluded.iter().copied().chain([id]).collect();
        match find_duplicate(&excluded).await {
            Ok(Some(mark)) => {
                if let Err(error) = services.store.mark_duplicate(org_id, id, &mark).await {
                    tracing::warn!(%error, patch = %id, "could not mark a duplicate found after storing");
                }
            }
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, patch = %id, "could not look for duplicates after storing"),
        }
    }
    services.metrics.stage("record", started.elapsed());
    // A reviewer's resolution is their text, not the author's: never approved by the
    // policy on the author's behalf.
    if processed.state == StageState::AutoApproved && resolved_by.is_none() {
        let system = Actor {
            name: "policy:auto-approve".to_owned(),
            ..actor.clone()
        };
        // Best effort: the patch is stored either way, and the answer says where it
        // stands (approved, or left for a reviewer when publishing could not finish).
        let comment = Some("approved by the organisation's policy");
        if let Err(error) = review::publish(services, org_id, id, None, comment, CloseDuplicates::None, &system).await {
            tracing::warn!(%error, patch = %id, "auto-approval did not publish; the patch waits for a reviewer");
        }
    }
    read_back(services, org_id, id).await
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
    let bundle = Bundle::from_files(files, &cairn_skill::limits::Limits::unlimited())
        .map_err(|e| CatalogError::Corrupt(e.to_string()))?;
    Ok(Some((resolved.version.revision, bundle)))
}

/// The stored candidate of a patch, read back from its manifest and blobs.
async fn candidate_bundle(services: &Services, record: &PatchRecord) -> Result<Bundle, PatchError> {
    let manifest = record
        .candidate
        .as_ref()
        .ok_or_else(|| PatchError::State("this patch has no candidate to publish".to_owned()))?;
    Ok(bundle_from_manifest(services, manifest).await?)
}

async fn policy(services: &Services, org_id: i64) -> Result<Policy, PatchError> {
    Ok(crate::app::policy::read(&services.store, org_id).await?)
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
    /// Only patches whose skill name contains this (any case).
    pub skill_contains: Option<String>,
    /// Only patches whose author's handle contains this (any case).
    pub author_contains: Option<String>,
    /// Only patches whose scan gave this verdict.
    pub verdict: Option<String>,
    /// Only patches that ask this member for review (a handle, or `me` for the caller):
    /// open, to a skill they own, by someone else, not waiting for its author's answer.
    pub review_requested: Option<String>,
    /// The order, as a caller names it (see [`SORTS`]; `None`: newest first).
    pub sort: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size (`None`: the default).
    pub limit: Option<i64>,
}

/// The orders a patch list can be sorted in, by the names callers use: `newest` (the
/// default), `oldest` (longest waiting first), `size` (most changed lines first) and
/// `verdict` (worst scan verdict first).
pub const SORTS: [(&str, PatchOrder); 4] = [
    ("newest", PatchOrder::Newest),
    ("oldest", PatchOrder::Oldest),
    ("size", PatchOrder::Largest),
    ("verdict", PatchOrder::Riskiest),
];

/// The order a `sort` names.
pub fn sort_order(sort: Option<&str>) -> Result<PatchOrder, PatchError> {
    match sort.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(PatchOrder::Newest),
        Some(name) => SORTS.iter().find(|(n, _)| *n == name).map(|(_, o)| *o).ok_or_else(|| {
            PatchError::Invalid(format!(
                "sort '{name}' is not an order of patches: use one of {}",
                SORTS.map(|(n, _)| n).join(", ")
            ))
        }),
    }
}

/// A substring filter: trimmed, empty means none, at most 100 characters.
fn contains_filter(what: &str, raw: Option<String>) -> Result<Option<String>, PatchError> {
    match raw.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()) {
        Some(s) if s.chars().count() > 100 => Err(PatchError::Invalid(format!(
            "the {what} filter is {} characters long: use at most 100",
            s.chars().count()
        ))),
        Some(s) if s.chars().any(char::is_control) => Err(PatchError::Invalid(format!(
            "the {what} filter holds a control character: type the text to look for"
        ))),
        other => Ok(other),
    }
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
    let review_requested = match listing.review_requested.as_deref().map(str::trim) {
        None | Some("") => None,
        Some("me") => Some(caller.user_id),
        Some(handle) => {
            super::accounts::check_handle(handle).map_err(|e| PatchError::Invalid(e.to_string()))?;
            let user = services
                .store
                .user_by_handle(caller.org_id, handle)
                .await
                .map_err(|e| match e {
                    StoreError::NotFound(_) => PatchError::Invalid(format!(
                        "review_requested names '{handle}', who is not a member: use a member's handle, or 'me'"
                    )),
                    other => other.into(),
                })?;
            Some(user.id)
        }
    };
    let order = sort_order(listing.sort.as_deref())?;
    let after = listing
        .cursor
        .as_deref()
        .filter(|c| !c.is_empty())
        .map(|raw| patch_cursor(order, raw))
        .transpose()
        .map_err(PatchError::Invalid)?;
    let query = cairn_store::PatchQuery {
        statuses: listing.statuses,
        skill: listing.skill,
        author: listing.author,
        skill_contains: contains_filter("skill", listing.skill_contains)?,
        author_contains: contains_filter("author", listing.author_contains)?,
        verdict: listing.verdict,
        review_requested,
        order,
        after,
        limit: limit + 1,
    };
    let mut rows = services.store.list_patches(caller.org_id, &query).await?;
    let next = paging::cut_page(&mut rows, limit, |p| patch_cursor_key(order, p));
    Ok((rows, next))
}

/// A patch list's cursor: `<micros>_<uuid>` newest first (as it always was), and tagged
/// with its order otherwise (`o:<micros>_<uuid>`, `s:<key>_<micros>_<uuid>`,
/// `v:<key>_…`), so a cursor is never read in another order than the one it came from.
fn patch_cursor(order: PatchOrder, raw: &str) -> Result<PatchKey, String> {
    let invalid = || {
        format!(
            "cursor '{raw}' is not valid for this order: pass back the next_cursor of the previous page, with the same sort"
        )
    };
    let rest = match cursor_tag(order) {
        "" if raw.contains(':') => return Err(invalid()),
        "" => raw,
        tag => raw.strip_prefix(tag).ok_or_else(invalid)?,
    };
    let (key, rest) = match order {
        PatchOrder::Newest | PatchOrder::Oldest => (0, rest),
        PatchOrder::Largest | PatchOrder::Riskiest => {
            let (key, rest) = rest.split_once('_').ok_or_else(invalid)?;
            (key.parse::<i32>().map_err(|_| invalid())?, rest)
        }
    };
    let (created_at, id) = paging::time_id_cursor(rest).map_err(|_| invalid())?;
    Ok(PatchKey { key, created_at, id })
}

/// The prefix naming a cursor's order (none for newest first, the default).
fn cursor_tag(order: PatchOrder) -> &'static str {
    match order {
        PatchOrder::Newest => "",
        PatchOrder::Oldest => "o:",
        PatchOrder::Largest => "s:",
        PatchOrder::Riskiest => "v:",
    }
}

/// The cursor that continues a list after `patch`.
fn patch_cursor_key(order: PatchOrder, patch: &PatchRecord) -> String {
    let PatchKey { key, created_at, id } = order.key_of(patch);
    let time_id = paging::time_id_key(created_at, id);
    let tag = cursor_tag(order);
    match order {
        PatchOrder::Newest | PatchOrder::Oldest => format!("{tag}{time_id}"),
        PatchOrder::Largest | PatchOrder::Riskiest => format!("{tag}{key}_{time_id}"),
    }
}

/// The patch a reviewer reads next after `after`: the one waiting longest for review
/// (`pending_review`, oldest first) that someone else wrote and that does not wait for
/// its author's answer to a request for changes — first among the patches that ask the
/// reviewer for review (skills they own), then among all; `None` when none waits.
pub async fn next_to_review(services: &Services, caller: &Principal, after: Uuid) -> Result<Option<Uuid>, PatchError> {
    for review_requested in [Some(caller.user_id), None] {
        let query = cairn_store::PatchQuery {
            statuses: vec!["pending_review".to_owned()],
            order: PatchOrder::Oldest,
            review_requested,
            limit: 50,
            ..cairn_store::PatchQuery::default()
        };
        if let Some(next) = first_waiting(services, caller, after, query).await? {
            return Ok(Some(next));
        }
    }
    Ok(None)
}

/// The first patch of `query` (walked page by page) other than `after` that someone else
/// wrote and that does not wait for its author.
async fn first_waiting(
    services: &Services,
    caller: &Principal,
    after: Uuid,
    query: cairn_store::PatchQuery,
) -> Result<Option<Uuid>, PatchError> {
    let mut after_key = None;
    loop {
        let page = services
            .store
            .list_patches(
                caller.org_id,
                &cairn_store::PatchQuery {
                    after: after_key,
                    ..query.clone()
                },
            )
            .await?;
        if let Some(next) = page
            .iter()
            .find(|p| p.id != after && p.author_id != caller.user_id && p.outstanding_request().is_none())
        {
            return Ok(Some(next.id));
        }
        match page.last() {
            Some(last) if i64::try_from(page.len()).ok() == Some(query.limit) => {
                after_key = Some(PatchOrder::Oldest.key_of(last))
            }
            _ => return Ok(None),
        }
    }
}

/// How many of the organisation's patches are in each state (states without any left out).
pub async fn counts(services: &Services, caller: &Principal) -> Result<Vec<(String, i64)>, PatchError> {
    Ok(services.store.patch_counts(caller.org_id).await?)
}

/// Suggestions for a patch list's filters: the skills and authors of the patches in
/// `statuses` (empty: any), at most 500 of each.
pub async fn filter_suggestions(
    services: &Services,
    caller: &Principal,
    statuses: &[String],
) -> Result<(Vec<String>, Vec<String>), PatchError> {
    Ok(services
        .store
        .patch_filter_suggestions(caller.org_id, statuses, 500)
        .await?)
}

/// The open patches reporting the same lesson as group `group` (oldest first).
pub async fn duplicate_group(
    services: &Services,
    caller: &Principal,
    group: Uuid,
) -> Result<Vec<PatchRecord>, PatchError> {
    Ok(services.store.duplicate_group(caller.org_id, group).await?)
}

/// The other open patches of `patch`'s duplicate group (`members`, as [`duplicate_group`]
/// lists it), each with how alike its lesson is to `patch`'s and whether it repeats it:
/// what approving `patch` with its duplicates closes (only those that repeat it).
pub async fn group_repeats(
    services: &Services,
    caller: &Principal,
    patch: &PatchRecord,
    members: &[PatchRecord],
) -> Result<Vec<GroupRepeat>, PatchError> {
    if patch.duplicate_group.is_none() {
        return Ok(Vec::new());
    }
    let name = SkillName::parse(&patch.skill_name).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let latest = load_revision(services, caller.org_id, &name, RevisionSelector::Latest).await?;
    duplicates::group_repeats(services, caller.org_id, patch, members, latest.as_ref().map(|(_, b)| b)).await
}

/// How many open patches each duplicate group holds.
pub async fn duplicate_group_sizes(
    services: &Services,
    caller: &Principal,
    groups: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, usize>, PatchError> {
    if groups.is_empty() {
        return Ok(std::collections::HashMap::new());
    }
    Ok(services
        .store
        .duplicate_group_sizes(caller.org_id, groups)
        .await?
        .into_iter()
        .map(|(g, n)| (g, usize::try_from(n).unwrap_or(0)))
        .collect())
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
        StoreError::NotFound(what) => PatchError::NotFound(format!(
            "{what} does not exist: check the id against the list of patches"
        )),
        other => other.into(),
    }
}

fn not_pending(status: &str, wanted: &str) -> PatchError {
    PatchError::State(format!("this patch is {status}: only an open patch can be {wanted}"))
}
