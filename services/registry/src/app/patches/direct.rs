//! Direct publishing by reviewers: the same validation and scan as a patch.

use cairn_skill::{Bundle, Category, SkillName};
use cairn_store::{Actor, RevisionSelector, VersionSource};

use super::{PatchError, load};
use crate::Services;
use crate::auth::Principal;

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
    scan.apply_dismissals(&super::findings::skill_dismissals(services, caller.org_id, name.as_str()).await?);
    if scan.verdict == cairn_scanner::Verdict::Dangerous {
        let worst = scan.active().max_by_key(|f| f.severity);
        return Err(PatchError::Refused(format!(
            "the security scanner judges this bundle dangerous{}: dangerous content is never published",
            worst.map_or(String::new(), |f| format!(
                " ({} at {}:{}: {})",
                f.rule, f.file, f.line, f.message
            ))
        )));
    }
    let candidate = crate::app::publish::Candidate {
        name: name.clone(),
        category,
        bundle,
        verdict: Some(scan.verdict),
    };
    let outcome = crate::app::publish::publish(
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
        services.rechecks.skill_moved(caller.org_id, name);
    }
    Ok(Published {
        revision,
        created,
        scan,
    })
}
