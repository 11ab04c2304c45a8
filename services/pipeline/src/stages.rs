//! The pipeline's pure stages in order (DESIGN §4): validate the ops, apply them to the
//! base revision, rebase onto the latest, validate the result, scan it against the
//! latest (findings *introduced* or *pre-existing*), and decide by policy. The registry
//! stores what this returns on the patch, for reviewers and agents.

use std::collections::BTreeMap;

use cairn_scanner::{Report, ScanFile, Scanner};
use cairn_skill::limits::Limits;
use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleError};
use serde::Serialize;

use crate::apply::{ApplyError, OpReport, Outcome, apply_ops};
use crate::diff::{FileDiff, diff};
use crate::ops::{Op, OpError, WritableRoots, validate};
use crate::policy::{Decision, Policy, decide};
use crate::rebase::{FileConflict, Rebased, rebase};

/// What the stages need to know about a patch.
#[derive(Clone, Copy, Debug)]
pub struct PatchInput<'a> {
    /// The ops as sent.
    pub ops: &'a [Op],
    /// The revision the patch was made against (`None`: a new skill).
    pub base: Option<&'a Bundle>,
    /// The skill's latest revision now (`None`: it does not exist).
    pub latest: Option<&'a Bundle>,
    /// Who submits it (a user handle), for the policy.
    pub author: &'a str,
    /// The organisation's policy.
    pub policy: &'a Policy,
    /// Bundle limits.
    pub limits: &'a Limits,
    /// Where agents may write.
    pub roots: &'a WritableRoots,
    /// The latest revision's scan, when the caller has it (cached by digest): only the
    /// candidate is scanned then.
    pub latest_scan: Option<&'a Report>,
}

/// Where the stages leave a patch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StageState {
    /// Waiting for a reviewer.
    PendingReview,
    /// `dangerous`: never published.
    Blocked,
    /// Cannot be merged onto the latest revision.
    Conflict,
    /// Approved by policy (a `safe` patch from a trusted author): publish it.
    AutoApproved,
}

/// The rebase stage's report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RebaseReport {
    /// The revision the patch was made against.
    pub base_digest: Option<String>,
    /// The latest revision it was merged onto.
    pub onto_digest: Option<String>,
    /// Whether a three-way merge was needed (the latest moved since the base).
    pub rebased: bool,
    /// Files changed on both sides and merged cleanly.
    pub merged_files: Vec<String>,
    /// Conflicting files, with their hunks.
    pub conflicts: Vec<FileConflict>,
}

/// The result of the stages, stored on the patch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Processed {
    /// Where the patch stands.
    pub state: StageState,
    /// How each op applied (the match report).
    pub ops: Vec<OpReport>,
    /// The rebase report.
    pub rebase: RebaseReport,
    /// Whether the patch deletes the skill.
    pub deletes: bool,
    /// The candidate bundle (none on conflict or deletion).
    #[serde(skip)]
    pub candidate: Option<Bundle>,
    /// The candidate's digest.
    pub candidate_digest: Option<String>,
    /// The change against the latest revision.
    pub diff: Vec<FileDiff>,
    /// The scan of the candidate, findings marked introduced or pre-existing.
    pub scan: Option<Report>,
    /// The policy decision.
    pub decision: Option<Decision>,
    /// How long each stage that ran took, in order (for the registry's metrics; not
    /// stored with the patch).
    #[serde(skip)]
    pub timings: Vec<(Stage, std::time::Duration)>,
}

/// The stages whose time is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Checking the ops' shape and paths.
    Validate,
    /// Fuzzy-applying the ops to the base revision.
    Apply,
    /// Three-way merging onto the latest revision.
    Rebase,
    /// Scanning the candidate and marking findings introduced or pre-existing.
    Scan,
    /// Diffing against the latest revision and deciding by policy.
    Decide,
}

impl Stage {
    /// The stage's name, as metrics label it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Validate => "validate",
            Stage::Apply => "apply",
            Stage::Rebase => "rebase",
            Stage::Scan => "scan",
            Stage::Decide => "decide",
        }
    }
}

/// Records how long each stage took, one lap per stage.
struct StageClock {
    last: std::time::Instant,
    laps: Vec<(Stage, std::time::Duration)>,
}

impl StageClock {
    fn start() -> Self {
        StageClock {
            last: std::time::Instant::now(),
            laps: Vec::with_capacity(5),
        }
    }

    /// Ends `stage` now.
    fn lap(&mut self, stage: Stage) {
        let now = std::time::Instant::now();
        self.laps.push((stage, now - self.last));
        self.last = now;
    }

    /// The laps recorded (the clock is done with then).
    fn laps(&mut self) -> Vec<(Stage, std::time::Duration)> {
        std::mem::take(&mut self.laps)
    }
}

/// Why a patch is refused outright (answered 422; nothing is stored).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Refusal {
    /// The ops are malformed.
    #[error(transparent)]
    Ops(#[from] OpError),
    /// The ops do not apply to the base revision.
    #[error(transparent)]
    Apply(#[from] ApplyError),
    /// The patch changes nothing.
    #[error("the patch changes nothing: the skill already has exactly this content")]
    NoChange,
}

/// Runs the stages. `Err` is an outright refusal; `Ok` carries the state and every
/// stage's report.
pub fn process(input: PatchInput<'_>) -> Result<Processed, Refusal> {
    let mut clock = StageClock::start();
    let ops = validate(input.ops, input.roots)?;
    clock.lap(Stage::Validate);
    let applied = apply_ops(input.base, &ops, input.limits)?;
    clock.lap(Stage::Apply);
    let latest_files = input.latest.map(|b| b.files().clone()).unwrap_or_default();
    let mut report = RebaseReport {
        base_digest: input.base.map(Bundle::digest),
        onto_digest: input.latest.map(Bundle::digest),
        ..RebaseReport::default()
    };
    let patched = match applied.outcome {
        Outcome::Delete => {
            let diff = diff(&latest_files, &BTreeMap::new());
            clock.lap(Stage::Decide);
            return Ok(Processed {
                state: StageState::PendingReview,
                ops: applied.ops,
                rebase: report,
                deletes: true,
                candidate: None,
                candidate_digest: None,
                diff,
                scan: None,
                decision: Some(Decision::PendingReview),
                timings: clock.laps(),
            });
        }
        Outcome::Bundle(bundle) => bundle,
    };
    let conflict = |report: RebaseReport, ops: Vec<OpReport>, clock: &mut StageClock| {
        clock.lap(Stage::Rebase);
        Processed {
            state: StageState::Conflict,
            ops,
            rebase: report,
            deletes: false,
            candidate: None,
            candidate_digest: None,
            diff: Vec::new(),
            scan: None,
            decision: None,
            timings: clock.laps(),
        }
    };
    let candidate = match (input.base, input.latest) {
        (Some(base), Some(latest)) if base.digest() != latest.digest() => {
            report.rebased = true;
            match rebase(base, &patched, latest) {
                Rebased::Conflict(conflicts) => {
                    report.conflicts = conflicts;
                    return Ok(conflict(report, applied.ops, &mut clock));
                }
                Rebased::Clean { files, merged } => {
                    report.merged_files = merged;
                    match Bundle::from_files(files, input.limits) {
                        Ok(bundle) => bundle,
                        Err(e) => {
                            report.conflicts = vec![invalid_after_merge(&e)];
                            return Ok(conflict(report, applied.ops, &mut clock));
                        }
                    }
                }
            }
        }
        (None, Some(_)) => {
            report.conflicts = vec![FileConflict {
                file: RelPath::skill_md().into_string(),
                reason: "the skill was created by someone else since this patch was made: rebase the patch onto it"
                    .to_owned(),
                hunks: Vec::new(),
            }];
            return Ok(conflict(report, applied.ops, &mut clock));
        }
        (Some(_), None) => {
            report.conflicts = vec![FileConflict {
                file: RelPath::skill_md().into_string(),
                reason: "the skill was deleted since this patch was made".to_owned(),
                hunks: Vec::new(),
            }];
            return Ok(conflict(report, applied.ops, &mut clock));
        }
        _ => patched,
    };
    clock.lap(Stage::Rebase);
    if input.latest.is_some_and(|l| l.digest() == candidate.digest()) {
        return Err(Refusal::NoChange);
    }
    // Findings are introduced unless the latest revision had them (scanned here unless
    // the caller has its report).
    let mut scan = scan_bundle(&candidate);
    let before = match (input.latest_scan, input.latest) {
        (Some(report), _) => std::borrow::Cow::Borrowed(report),
        (None, Some(latest)) => std::borrow::Cow::Owned(scan_bundle(latest)),
        (None, None) => std::borrow::Cow::Owned(Report::new(Vec::new())),
    };
    cairn_scanner::mark_introduced(&before, &mut scan);
    clock.lap(Stage::Scan);
    let decision = decide(scan.verdict, input.author, input.policy);
    let diff = diff(&latest_files, candidate.files());
    clock.lap(Stage::Decide);
    Ok(Processed {
        state: match decision {
            Decision::Blocked => StageState::Blocked,
            Decision::PendingReview => StageState::PendingReview,
            Decision::AutoApprove => StageState::AutoApproved,
        },
        ops: applied.ops,
        rebase: report,
        deletes: false,
        candidate_digest: Some(candidate.digest()),
        diff,
        candidate: Some(candidate),
        scan: Some(scan),
        decision: Some(decision),
        timings: clock.laps(),
    })
}

fn invalid_after_merge(error: &BundleError) -> FileConflict {
    FileConflict {
        file: RelPath::skill_md().into_string(),
        reason: format!("merged onto the latest revision, the skill is not valid ({error}): rebase the patch by hand"),
        hunks: Vec::new(),
    }
}

/// Scans one bundle (the report a cache keeps for [`PatchInput::latest_scan`]).
pub fn scan_bundle(bundle: &Bundle) -> Report {
    let scanner = Scanner::builtin().expect("the built-in rules compile (the scanner's tests check every rule)");
    scanner.scan(&scan_files(bundle))
}

fn scan_files(bundle: &Bundle) -> Vec<ScanFile<'_>> {
    bundle
        .files()
        .iter()
        .map(|(path, file)| ScanFile {
            path: path.as_str(),
            bytes: &file.bytes,
            executable: file.executable,
        })
        .collect()
}
