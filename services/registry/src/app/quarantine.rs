//! Imported skills held back because they scan `dangerous` (see [`super::import`]):
//! listed with their findings for an admin, who releases one (published as an import,
//! its findings dismissed with the admin's reason) or deletes it. Importing content that
//! is already the skill's latest version is never held back again.

use cairn_scanner::{Report, Severity};
use cairn_skill::SkillName;
use cairn_store::{
    Actor, CategoryUpdate, NewDismissal, NewVersion, PublishOutcome, QuarantinedRecord, ReleaseOutcome, StoreError,
    VersionSource,
};
use uuid::Uuid;

use super::patches::PatchError;
use super::patches::findings::{MAX_REASON, check_reason};
use super::publish::bundle_from_manifest;
use crate::Services;
use crate::auth::Principal;

/// The organisation's quarantined imports, oldest first.
pub async fn list(services: &Services, caller: &Principal) -> Result<Vec<QuarantinedRecord>, PatchError> {
    Ok(services.store.quarantined_skills(caller.org_id).await?)
}

/// One quarantined import.
pub async fn get(services: &Services, caller: &Principal, id: Uuid) -> Result<QuarantinedRecord, PatchError> {
    services
        .store
        .quarantined_skill(caller.org_id, id)
        .await
        .map_err(not_found)
}

/// The scan stored with a quarantined import.
pub fn scan_of(record: &QuarantinedRecord) -> Report {
    serde_json::from_value(record.scan.0.clone()).unwrap_or_else(|_| Report::new(Vec::new()))
}

/// What an admin's release reason is prefixed with when it becomes the findings'
/// dismissal reason.
const RELEASED: &str = "released from quarantine: ";

/// Releases a quarantined import: published as the skill's next revision (source
/// `import`, published by the admin; nothing when it already is the latest), its
/// findings dismissed with `reason`, the entry removed — in one transaction. Refused
/// when today's rules find more than the admin was shown (scanned again here), and when
/// the skill got a version after the import was held (releasing would replace it).
pub async fn release(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    reason: &str,
) -> Result<(QuarantinedRecord, PublishOutcome), PatchError> {
    let reason = check_reason(reason, MAX_REASON - RELEASED.chars().count())?;
    let record = get(services, caller, id).await?;
    let name = SkillName::parse(&record.name).map_err(|e| PatchError::Invalid(e.to_string()))?;
    let category = crate::app::publish::stored_category(record.category.as_deref());
    let bundle = bundle_from_manifest(services, &record.manifest.0).await?;
    let shown = scan_of(&record);
    let now = services.scans.report(&bundle);
    let unseen = now
        .active()
        .filter(|f| f.severity >= Severity::Medium)
        .find(|f| !shown.findings.iter().any(|s| f.is_reported_by(s)));
    if let Some(f) = unseen {
        return Err(PatchError::State(format!(
            "the scanner's rules changed since this skill was quarantined and now also find {} at {}:{} ({}): \
             delete this entry and import the skill again to read today's findings",
            f.rule, f.file, f.line, f.message
        )));
    }
    if let Some(f) = now.active().find(|f| f.severity >= Severity::High && !f.identifiable()) {
        return Err(PatchError::State(format!(
            "{} at {}:{} ({}) is about a whole file, a masked secret or a line too long to show whole: it cannot \
             be dismissed, so every later patch of the skill would be blocked by it; fix it in the source and import \
             the skill again",
            f.rule, f.file, f.line, f.message
        )));
    }
    let dismissal_reason = format!("{RELEASED}{reason}");
    let messages: Vec<String> = now
        .findings
        .iter()
        .map(|f| cairn_scanner::message_key(&f.message))
        .collect();
    let dismissals: Vec<NewDismissal<'_>> = now
        .findings
        .iter()
        .zip(&messages)
        .filter(|(f, _)| f.dismissed.is_none() && f.severity >= Severity::Medium && f.identifiable())
        .map(|(f, message)| NewDismissal {
            skill_name: &record.name,
            rule: &f.rule,
            file: &f.file,
            excerpt: &f.excerpt,
            message,
            severity: f.severity.as_str(),
            reason: &dismissal_reason,
            dismissed_by: caller.user_id,
            patch_id: None,
        })
        .collect();
    let version = NewVersion {
        name: &name,
        category: CategoryUpdate::IfNew(category.as_ref()),
        bundle: &bundle,
        source: VersionSource::Import,
        published_by: Some(caller.user_id),
        // What the scanner says, not what the release decided: a policy that wants
        // `safe` versions sees that this one was released over findings.
        scan: Some(cairn_store::VersionScan {
            verdict: now.verdict.as_str(),
            rules: cairn_scanner::rules_version(),
        }),
    };
    match services
        .store
        .release_quarantined(caller.org_id, id, &version, &dismissals, actor)
        .await?
    {
        ReleaseOutcome::Released(outcome) => {
            if matches!(outcome, PublishOutcome::Created { .. }) {
                services.index_cache.changed(caller.org_id);
                services.rechecks.skill_moved(caller.org_id, &name);
            }
            Ok((record, outcome))
        }
        ReleaseOutcome::Gone => Err(gone(id)),
        ReleaseOutcome::SkillMoved { revision } => Err(PatchError::State(format!(
            "skill '{name}' got revision {revision} after this import was quarantined: releasing would replace it with \
             the older imported content; import the skill again from its source, or delete this entry"
        ))),
    }
}

/// Deletes a quarantined import (its blobs are collected later).
pub async fn delete(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
) -> Result<QuarantinedRecord, PatchError> {
    let record = get(services, caller, id).await?;
    if services.store.delete_quarantined(caller.org_id, id, actor).await? {
        Ok(record)
    } else {
        Err(gone(id))
    }
}

fn gone(id: Uuid) -> PatchError {
    PatchError::NotFound(format!(
        "quarantined skill {id} was released or deleted meanwhile: list the quarantine again"
    ))
}

fn not_found(error: StoreError) -> PatchError {
    match error {
        StoreError::NotFound(what) => {
            PatchError::NotFound(format!("{what} does not exist: list the quarantine to find its id"))
        }
        other => other.into(),
    }
}
