//! Conflicts are re-checked when their skill moves on: a patch in `conflict` runs the
//! stages again onto each newer latest revision and becomes `pending_review` (or
//! `blocked`) when it now merges, so no lesson waits on a merge that would succeed.
//!
//! The process that publishes a revision asks for its skill to be re-checked at once
//! ([`Rechecks::skill_moved`]); every process also sweeps, every [`SWEEP_INTERVAL`], for
//! conflicts built on a revision that is no longer the latest (published by another
//! replica that stopped, imported, yanked). Re-checks are compare-and-swap on the
//! revision a report was built on, so replicas re-checking the same patch at once store
//! one result.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use cairn_skill::SkillName;
use cairn_store::{Actor, RevisionSelector};
use tokio::sync::Notify;

use super::{PatchError, load_revision, review};
use crate::{AppState, Services};

/// How often each process looks for conflicts left stale.
pub const SWEEP_INTERVAL: Duration = Duration::from_secs(60);

/// Skills whose conflicts should be re-checked soon, per process.
#[derive(Debug, Default)]
pub struct Rechecks {
    due: Mutex<BTreeSet<(i64, String)>>,
    wake: Notify,
}

impl Rechecks {
    /// A new revision of `name` was published (or the latest changed otherwise).
    pub fn skill_moved(&self, org_id: i64, name: &SkillName) {
        self.due
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((org_id, name.as_str().to_owned()));
        self.wake.notify_one();
    }

    fn take(&self) -> BTreeSet<(i64, String)> {
        std::mem::take(&mut *self.due.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Re-checks the conflicts of `name` built on anything but its latest revision; the
/// number of patches that merge now.
pub async fn recheck_skill(services: &Services, org_id: i64, name: &SkillName) -> Result<usize, PatchError> {
    let stale = services.store.stale_conflicts(org_id, name.as_str()).await?;
    if stale.is_empty() {
        return Ok(0);
    }
    let latest = load_revision(services, org_id, name, RevisionSelector::Latest).await?;
    let actor = Actor::system("recheck");
    let mut merged = 0;
    for id in stale {
        let record = services.store.patch(org_id, id).await?;
        if record.status != "conflict" {
            continue;
        }
        match review::restage(
            services,
            org_id,
            &record,
            name,
            latest.as_ref().map(|(revision, bundle)| (*revision, bundle)),
            &actor,
        )
        .await
        {
            Ok(restaged) if restaged.candidate.is_some() => merged += 1,
            Ok(_) => {}
            // Decided meanwhile: nothing to re-check.
            Err(PatchError::State(_)) => {}
            // One patch that cannot be re-checked (its stored ops no longer parse, a blob
            // is missing) must not hold up the others: said in the log, tried next sweep.
            Err(error) => tracing::warn!(%error, patch = %id, "re-checking a conflict failed"),
        }
    }
    if merged > 0 {
        services.metrics.conflicts_resolved(merged);
    }
    Ok(merged)
}

/// Re-checks every skill with a stale conflict (at most `limit` skills).
pub async fn sweep(services: &Services, limit: i64) -> Result<usize, PatchError> {
    let mut merged = 0;
    for (org_id, skill) in services.store.skills_with_stale_conflicts(limit).await? {
        let Ok(name) = SkillName::parse(&skill) else {
            continue;
        };
        match recheck_skill(services, org_id, &name).await {
            Ok(n) => merged += n,
            // One skill failing does not hold up the others.
            Err(error) => tracing::warn!(%error, skill, "re-checking the conflicts of a skill failed"),
        }
    }
    Ok(merged)
}

/// Skills swept per interval.
const SWEEP_SKILLS: i64 = 200;

/// Re-checks what [`Rechecks::skill_moved`] names as it comes, and sweeps every
/// [`SWEEP_INTERVAL`], for as long as the returned future runs.
pub async fn run_forever(state: AppState) {
    let mut tick = tokio::time::interval(SWEEP_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let swept = tokio::select! {
            _ = state.rechecks.wake.notified() => false,
            _ = tick.tick() => true,
        };
        for (org_id, skill) in state.rechecks.take() {
            let Ok(name) = SkillName::parse(&skill) else {
                continue;
            };
            if let Err(error) = recheck_skill(&state, org_id, &name).await {
                tracing::warn!(%error, skill, "re-checking conflicts failed; the next sweep retries");
            }
        }
        if swept && let Err(error) = sweep(&state, SWEEP_SKILLS).await {
            tracing::warn!(%error, "sweeping stale conflicts failed; retrying at the next interval");
        }
    }
}
