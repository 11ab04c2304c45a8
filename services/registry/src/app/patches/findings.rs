//! Reviewers handle the scanner's false positives: dismiss one finding of a patch with a
//! reason (kept with the skill, so later scans of it show the finding as dismissed),
//! revoke a dismissal, and rescan a skill or every skill after the rules changed.
//!
//! A dismissal never hides anything: the finding stays in every report, marked with
//! who dismissed it, why and when; it only stops counting towards the verdict, and only
//! while the same rule finds the same thing in the same text at no higher severity
//! ([`cairn_scanner::Finding::matches`]). Medium findings may be dismissed by any reviewer
//! who may approve the patch; high and critical ones only by an admin; findings that
//! cannot be told apart from others (a whole file, a masked secret, a line cut short)
//! not at all.

use cairn_pipeline::policy::may_approve;
use cairn_pipeline::report::PatchReport;
use cairn_scanner::{Dismissal, Dismissed, Report, Severity, Verdict};
use cairn_skill::SkillName;
use cairn_store::{Actor, DismissOutcome, DismissalRecord, NewDismissal, PatchRecord, RevisionSelector};
use serde::Serialize;
use uuid::Uuid;

use super::{PatchError, load_revision, not_found, policy, read_back, review};
use crate::Services;
use crate::auth::Principal;

/// How often one patch is re-staged when other processes keep re-staging it first.
const RESTAGE_ATTEMPTS: usize = 8;

/// Longest dismissal reason, in characters.
pub const MAX_REASON: usize = 2_000;

/// Which finding to dismiss, as the patch's report names it, and why.
#[derive(Clone, Copy, Debug)]
pub struct Dismiss<'a> {
    /// The finding's rule.
    pub rule: &'a str,
    /// Its file.
    pub file: &'a str,
    /// Its line.
    pub line: usize,
    /// Why it is a false positive.
    pub reason: &'a str,
}

/// The dismissals that apply to a skill's scans, as the scanner reads them.
pub(crate) async fn skill_dismissals(
    services: &Services,
    org_id: i64,
    skill: &str,
) -> Result<Vec<Dismissal>, PatchError> {
    Ok(services
        .store
        .dismissals(org_id, skill)
        .await?
        .iter()
        .map(as_dismissal)
        .collect())
}

/// A stored dismissal as the scanner applies it.
pub fn as_dismissal(record: &DismissalRecord) -> Dismissal {
    Dismissal {
        rule: record.rule.clone(),
        file: record.file.clone(),
        excerpt: record.excerpt.clone(),
        message: record.message.clone(),
        severity: severity_of(&record.severity),
        dismissed: Dismissed {
            id: record.id,
            by: record.dismissed_by.clone(),
            reason: record.reason.clone(),
            at: record.created_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        },
    }
}

/// A stored severity name (written from [`Severity::as_str`]); an unknown one reads as
/// the least severe, so the dismissal applies to nothing worse than medium.
fn severity_of(name: &str) -> Severity {
    match name {
        "critical" => Severity::Critical,
        "high" => Severity::High,
        _ => Severity::Medium,
    }
}

/// Whether the dismissals that apply to a patch's stored scan are not the ones in force
/// now (one was revoked or made since it was scanned).
pub(super) async fn dismissals_changed(
    services: &Services,
    org_id: i64,
    record: &PatchRecord,
) -> Result<bool, PatchError> {
    let Some(stored) = PatchReport::from_stored(&record.report).scan else {
        return Ok(false);
    };
    let mut fresh = stored.clone();
    for finding in &mut fresh.findings {
        finding.dismissed = None;
    }
    fresh.apply_dismissals(&skill_dismissals(services, org_id, &record.skill_name).await?);
    let ids = |report: &Report| {
        report
            .findings
            .iter()
            .map(|f| f.dismissed.as_ref().map(|d| d.id))
            .collect::<Vec<_>>()
    };
    Ok(ids(&fresh) != ids(&stored))
}

/// Checks a reason given for dismissing or releasing: required, at most `max`
/// characters, no control characters but line breaks and tabs.
pub fn check_reason(reason: &str, max: usize) -> Result<&str, PatchError> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(PatchError::Invalid(
            "a reason is required: say why the finding is a false positive (it is shown beside the finding)".to_owned(),
        ));
    }
    if reason.chars().count() > max {
        return Err(PatchError::Invalid(format!(
            "the reason is longer than {max} characters: shorten it"
        )));
    }
    if reason
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(PatchError::Invalid(
            "the reason holds a control character: write it as plain text".to_owned(),
        ));
    }
    Ok(reason)
}

/// Whether the caller may dismiss a finding of this severity.
fn may_dismiss(caller: &Principal, severity: Severity) -> Result<(), PatchError> {
    if severity < Severity::Medium {
        return Err(PatchError::Invalid(format!(
            "a {} finding does not count towards the verdict: there is nothing to dismiss",
            severity.as_str()
        )));
    }
    if severity >= Severity::High && !caller.is_admin() {
        return Err(PatchError::Forbidden(format!(
            "a {} finding can only be dismissed by an admin: ask one to look, or reject the patch",
            severity.as_str()
        )));
    }
    Ok(())
}

/// Dismisses one finding of an open patch's scan and runs the patch's stages again, so
/// its verdict (and a `blocked` state) follow. Dismissing a finding that already is
/// dismissed changes nothing.
pub async fn dismiss_finding(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    how: Dismiss<'_>,
) -> Result<(DismissalRecord, PatchRecord), PatchError> {
    let reason = check_reason(how.reason, MAX_REASON)?;
    let record = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    if !matches!(record.status.as_str(), "pending_review" | "blocked") {
        return Err(PatchError::State(format!(
            "this patch is {}: findings can be dismissed only on a patch pending review or blocked",
            record.status
        )));
    }
    let scan = PatchReport::from_stored(&record.report).scan.ok_or_else(|| {
        PatchError::State("this patch has no scan to dismiss a finding of (it was never scanned)".to_owned())
    })?;
    let finding = scan
        .findings
        .iter()
        .find(|f| f.rule == how.rule && f.file == how.file && f.line == how.line)
        .ok_or_else(|| {
            PatchError::NotFound(format!(
                "this patch's scan has no finding '{}' at {}:{}: read the patch's findings and name one by rule, file and line",
                how.rule, how.file, how.line
            ))
        })?;
    let policy = policy(services, caller.org_id).await?;
    may_approve(&caller.handle, &record.author, &policy)
        .map_err(|e| PatchError::Forbidden(format!("{e}; dismissing a finding of a patch is part of reviewing it")))?;
    may_dismiss(caller, finding.severity)?;
    if !finding.identifiable() {
        return Err(PatchError::Invalid(
            "this finding cannot be dismissed: it is about a whole file, a masked secret or a line too long to show \
             whole, so a dismissal could not tell it from another; ask the author to change it, or reject the patch"
                .to_owned(),
        ));
    }
    let message = cairn_scanner::message_key(&finding.message);
    let outcome = services
        .store
        .dismiss_finding(
            caller.org_id,
            &NewDismissal {
                skill_name: &record.skill_name,
                rule: &finding.rule,
                file: &finding.file,
                excerpt: &finding.excerpt,
                message: &message,
                severity: finding.severity.as_str(),
                reason,
                dismissed_by: caller.user_id,
                patch_id: Some(id),
            },
            actor,
        )
        .await?;
    let dismissal = match outcome {
        DismissOutcome::Dismissed(d) | DismissOutcome::AlreadyDismissed(d) => d,
    };
    // Every open patch of the skill is scanned again: the dismissal applies to them all.
    let name = SkillName::parse(&record.skill_name).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let open = open_patches(services, caller.org_id, &name).await?;
    restage_open(services, caller.org_id, &name, &open, actor).await?;
    Ok((dismissal, read_back(services, caller.org_id, id).await?))
}

/// Revokes a dismissal: the finding counts again, and the skill's open patches are
/// scanned again. Reviewers may revoke dismissals of medium findings; high and
/// critical ones need an admin (as dismissing them did).
pub async fn revoke_dismissal(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    skill: &SkillName,
    id: i64,
) -> Result<DismissalRecord, PatchError> {
    let active = services.store.dismissals(caller.org_id, skill.as_str()).await?;
    let found = active.iter().find(|d| d.id == id).ok_or_else(|| {
        PatchError::NotFound(format!(
            "skill '{skill}' has no active dismissal {id}: list its dismissals to find the id"
        ))
    })?;
    let severity: Severity =
        serde_json::from_value(serde_json::Value::String(found.severity.clone())).unwrap_or(Severity::Critical);
    may_dismiss(caller, severity)?;
    let revoked = services
        .store
        .revoke_dismissal(caller.org_id, skill.as_str(), id, caller.user_id, actor)
        .await?
        .ok_or_else(|| PatchError::NotFound(format!("dismissal {id} was revoked meanwhile")))?;
    let open = open_patches(services, caller.org_id, skill).await?;
    restage_open(services, caller.org_id, skill, &open, actor).await?;
    Ok(revoked)
}

/// A skill's dismissals, revoked ones included, newest first.
pub async fn dismissals(
    services: &Services,
    caller: &Principal,
    skill: &SkillName,
) -> Result<Vec<DismissalRecord>, PatchError> {
    let history = services.store.dismissal_history(caller.org_id, skill.as_str()).await?;
    // A skill never published can still have dismissals (made on the patch creating it).
    if history.is_empty() {
        services
            .store
            .skill(caller.org_id, skill.as_str())
            .await
            .map_err(|e| unknown_skill(e, skill))?;
    }
    Ok(history)
}

fn unknown_skill(error: cairn_store::StoreError, skill: &SkillName) -> PatchError {
    match error {
        cairn_store::StoreError::NotFound(_) => {
            PatchError::NotFound(format!("skill '{skill}' does not exist: check the name"))
        }
        other => other.into(),
    }
}

/// What a rescan found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RescanReport {
    /// Skills rescanned.
    pub skills: usize,
    /// The latest version of each skill that is not `safe` with today's rules.
    pub versions: Vec<VersionScan>,
    /// Versions scanned in all.
    pub versions_scanned: usize,
    /// Open patches scanned again.
    pub patches_rescanned: usize,
    /// Open patches whose state changed.
    pub patches_changed: Vec<PatchChange>,
    /// Skills that could not be rescanned (the server's log says why); run it again.
    pub failed: Vec<String>,
    /// Quarantined imports scanned again (every one, when every skill is rescanned).
    pub quarantine_rescanned: usize,
    /// Those whose findings changed with today's rules (the admin reads them again).
    pub quarantine_changed: Vec<String>,
}

/// A latest version's scan with today's rules (and the skill's dismissals).
#[derive(Clone, Debug, Serialize)]
pub struct VersionScan {
    /// The skill.
    pub skill: String,
    /// Its latest revision.
    pub revision: i32,
    /// Its verdict.
    pub verdict: Verdict,
    /// Its findings (dismissed ones marked).
    pub findings: Vec<cairn_scanner::Finding>,
}

/// An open patch whose state a rescan changed.
#[derive(Clone, Debug, Serialize)]
pub struct PatchChange {
    /// The patch.
    pub id: Uuid,
    /// Its skill.
    pub skill: String,
    /// Its state before.
    pub from: String,
    /// Its state now.
    pub to: String,
}

/// Rescans one skill (`Some`) or every skill of the organisation with the rules this
/// registry runs now: each latest version, and each open patch (its stages run again,
/// so a patch that now scans `dangerous` is blocked and one that no longer does is
/// pending review). Recorded in the audit log.
pub async fn rescan(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    skill: Option<&SkillName>,
) -> Result<RescanReport, PatchError> {
    let org_id = caller.org_id;
    let quarantined: Vec<_> = services
        .store
        .quarantined_skills(org_id)
        .await?
        .into_iter()
        .filter(|q| skill.is_none_or(|s| s.as_str() == q.name))
        .collect();
    let names: Vec<SkillName> = match skill {
        Some(name) => {
            let has_open = !open_patches(services, org_id, name).await?.is_empty();
            if !has_open && quarantined.is_empty() {
                services
                    .store
                    .skill(org_id, name.as_str())
                    .await
                    .map_err(|e| unknown_skill(e, name))?;
            }
            vec![name.clone()]
        }
        None => services
            .store
            .skill_names(org_id)
            .await?
            .iter()
            .filter_map(|n| SkillName::parse(n).ok())
            .collect(),
    };
    let mut report = RescanReport {
        skills: names.len(),
        ..RescanReport::default()
    };
    for name in &names {
        // One skill that cannot be rescanned (a blob missing, ops that no longer parse)
        // does not stop the others: it is listed, and the log says why.
        if let Err(error) = rescan_skill(services, org_id, name, actor, &mut report).await {
            tracing::warn!(%error, skill = %name, "rescanning a skill failed");
            report.failed.push(name.to_string());
        }
    }
    // The quarantine is read with today's rules too, so an admin decides on what the
    // scanner says now.
    for held in &quarantined {
        match rescan_quarantined(services, org_id, held).await {
            Ok(changed) => {
                report.quarantine_rescanned += 1;
                if changed {
                    report.quarantine_changed.push(held.name.clone());
                }
            }
            Err(error) => {
                tracing::warn!(%error, skill = %held.name, "rescanning a quarantined import failed");
                report.failed.push(held.name.clone());
            }
        }
    }
    services
        .store
        .record_event(
            org_id,
            actor,
            "skill.rescan",
            &skill.map_or_else(|| "skills:*".to_owned(), |s| format!("skill:{s}")),
            serde_json::json!({
                "skills": report.skills,
                "versions_not_safe": report.versions.len(),
                "patches_rescanned": report.patches_rescanned,
                "patches_changed": report.patches_changed.len(),
                "quarantine_rescanned": report.quarantine_rescanned,
                "quarantine_changed": report.quarantine_changed,
                "failed": report.failed,
            }),
        )
        .await?;
    Ok(report)
}

/// Scans a quarantined import again and stores the new findings; whether they changed.
async fn rescan_quarantined(
    services: &Services,
    org_id: i64,
    held: &cairn_store::QuarantinedRecord,
) -> Result<bool, PatchError> {
    let bundle = crate::app::publish::bundle_from_manifest(services, &held.manifest.0).await?;
    let now = services.scans.report(&bundle);
    let stored: Option<Report> = serde_json::from_value(held.scan.0.clone()).ok();
    if stored.as_ref() == Some(&*now) {
        return Ok(false);
    }
    let json = serde_json::to_value(&*now).map_err(|e| PatchError::Invalid(e.to_string()))?;
    services.store.set_quarantine_scan(org_id, held.id, &json).await?;
    Ok(true)
}

/// Rescans one skill's latest version and open patches into `report`.
async fn rescan_skill(
    services: &Services,
    org_id: i64,
    name: &SkillName,
    actor: &Actor,
    report: &mut RescanReport,
) -> Result<(), PatchError> {
    let dismissals = skill_dismissals(services, org_id, name.as_str()).await?;
    if let Some((revision, bundle)) = load_revision(services, org_id, name, RevisionSelector::Latest).await? {
        let mut scan: Report = (*services.scans.report(&bundle)).clone();
        scan.apply_dismissals(&dismissals);
        report.versions_scanned += 1;
        if scan.verdict != Verdict::Safe {
            report.versions.push(VersionScan {
                skill: name.to_string(),
                revision,
                verdict: scan.verdict,
                findings: scan.findings,
            });
        }
    }
    let open = open_patches(services, org_id, name).await?;
    let restaged = restage_open(services, org_id, name, &open, actor).await?;
    report.patches_rescanned += restaged.rescanned;
    report.patches_changed.extend(restaged.changed);
    Ok(())
}

/// The ids of a skill's patches that are pending review or blocked.
async fn open_patches(services: &Services, org_id: i64, skill: &SkillName) -> Result<Vec<Uuid>, PatchError> {
    Ok(services
        .store
        .open_lessons(org_id, skill.as_str())
        .await?
        .into_iter()
        .map(|l| l.id)
        .collect())
}

/// What running the stages again for a skill's open patches did.
#[derive(Debug, Default)]
struct RestageSummary {
    /// Patches whose stages ran again.
    rescanned: usize,
    /// Those whose state changed.
    changed: Vec<PatchChange>,
}

/// Runs the stages again for the given open patches of one skill (pending review or
/// blocked; conflicts are re-checked on their own), onto its latest revision.
async fn restage_open(
    services: &Services,
    org_id: i64,
    name: &SkillName,
    ids: &[Uuid],
    actor: &Actor,
) -> Result<RestageSummary, PatchError> {
    let mut done = RestageSummary::default();
    if ids.is_empty() {
        return Ok(done);
    }
    // Approvals of this skill wait, so the latest revision read here stays the latest.
    let _turn = services.approval_turns.take(org_id, name.as_str()).await;
    let latest = load_revision(services, org_id, name, RevisionSelector::Latest).await?;
    for id in ids {
        let record = services.store.patch(org_id, *id).await?;
        if !matches!(record.status.as_str(), "pending_review" | "blocked") {
            continue;
        }
        let latest = latest.as_ref().map(|(revision, bundle)| (*revision, bundle));
        done.rescanned += 1;
        let mut current = record.clone();
        for _ in 0..RESTAGE_ATTEMPTS {
            match review::restage(services, org_id, &current, name, latest, actor).await {
                // Another process re-staged it first, perhaps without what changed here:
                // again from what it stored.
                Ok(restaged) if restaged.raced => current = services.store.patch(org_id, *id).await?,
                Ok(_) => break,
                // Decided meanwhile: nothing to rescan.
                Err(PatchError::State(_)) => break,
                Err(error) => return Err(error),
            }
        }
        let now = services.store.patch(org_id, *id).await?;
        if now.status != record.status {
            done.changed.push(PatchChange {
                id: *id,
                skill: name.to_string(),
                from: record.status,
                to: now.status,
            });
        }
    }
    Ok(done)
}
