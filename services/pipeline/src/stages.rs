//! The pipeline's pure stages in order (docs/PATCHING.md): validate the ops, apply them to the
//! base revision, rebase onto the latest, validate the result, scan it against the
//! latest (findings *introduced* or *pre-existing*), and decide by policy. The registry
//! stores what this returns on the patch, for reviewers and agents.

use std::collections::BTreeMap;

use crate::apply::{ApplyError, Outcome, apply_ops};
use crate::diff::diff;
use crate::ops::{Op, OpError, WritableRoots, validate};
use crate::policy::{Decision, Policy, decide};
use crate::rebase::rebase;
pub use crate::report::{FileConflict, PatchReport, RebaseReport, StageState};
use cairn_scanner::{Dismissal, Report, ScanFile, Scanner};
use cairn_skill::limits::Limits;
use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleError, BundleFile};

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
    /// Findings reviewers dismissed as false positives for this skill: marked as such in
    /// the candidate's scan and left out of its verdict.
    pub dismissals: &'a [Dismissal],
}

/// The result of the stages: the report stored on the patch, and the candidate.
#[derive(Clone, Debug, PartialEq)]
pub struct Processed {
    /// Where the patch stands.
    pub state: StageState,
    /// What every stage found (stored on the patch).
    pub report: PatchReport,
    /// The candidate bundle (none on conflict or deletion).
    pub candidate: Option<Bundle>,
    /// What the patch teaches: the text it adds against its base
    /// ([`crate::lesson::lesson`]), for finding duplicates.
    pub lesson: String,
    /// How long each stage that ran took, in order (for the registry's metrics; not
    /// stored with the patch).
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

/// The limits a patch is held to: `limits`, except that a description already longer than
/// the limit in the revisions it builds on (imported as it was) may be kept, never
/// lengthened. Without this, one over-long description taken in by a tolerant import would
/// refuse every lesson about that skill.
fn inherited_limits(limits: &Limits, revisions: [Option<&Bundle>; 2]) -> Limits {
    let longest = revisions
        .into_iter()
        .flatten()
        .map(|b| b.description().chars().count())
        .max()
        .unwrap_or(0);
    limits.with_description_chars(limits.max_description_chars.max(longest))
}

/// Runs the stages. `Err` is an outright refusal; `Ok` carries the state and every
/// stage's report.
pub fn process(input: PatchInput<'_>) -> Result<Processed, Refusal> {
    let mut clock = StageClock::start();
    let ops = validate(input.ops, input.roots)?;
    clock.lap(Stage::Validate);
    let limits = inherited_limits(input.limits, [input.base, input.latest]);
    let applied = apply_ops(input.base, &ops, &limits)?;
    clock.lap(Stage::Apply);
    let latest_files = input.latest.map(|b| b.files().clone()).unwrap_or_default();
    let mut report = PatchReport {
        ops: applied.ops,
        rebase: RebaseReport {
            base_digest: input.base.map(Bundle::digest),
            onto_digest: input.latest.map(Bundle::digest),
            ..RebaseReport::default()
        },
        ..PatchReport::default()
    };
    let patched = match applied.outcome {
        Outcome::Delete => {
            report.deletes = true;
            report.diff = diff(&latest_files, &BTreeMap::new());
            report.decision = Some(Decision::PendingReview);
            clock.lap(Stage::Decide);
            return Ok(finish(StageState::PendingReview, report, None, String::new(), clock));
        }
        Outcome::Bundle(bundle) => bundle,
    };
    let lesson = crate::lesson::lesson(input.base, &patched);
    let candidate = match (input.base, input.latest) {
        (Some(base), Some(latest)) if base != latest => {
            report.rebase.rebased = true;
            report.authored_diff = diff(base.files(), patched.files());
            let rebased = rebase(base, &ops, &patched, latest);
            report.rebase.merged_files = rebased.merged_files();
            report.rebase.files = rebased.placements;
            report.rebase.ops = rebased.ops;
            if !rebased.conflicts.is_empty() {
                report.rebase.conflicts = rebased.conflicts;
                clock.lap(Stage::Rebase);
                return Ok(finish(StageState::Conflict, report, None, lesson, clock));
            }
            match Bundle::from_files(rebased.files, &limits) {
                Ok(bundle) => bundle,
                Err(e) => {
                    report.rebase.conflicts = vec![invalid_after_merge(&e)];
                    clock.lap(Stage::Rebase);
                    return Ok(finish(StageState::Conflict, report, None, lesson, clock));
                }
            }
        }
        (None, Some(_)) => {
            report.rebase.conflicts = vec![whole_skill_conflict(
                "the skill was created by someone else since this patch was made: rebase the patch onto it",
            )];
            clock.lap(Stage::Rebase);
            return Ok(finish(StageState::Conflict, report, None, lesson, clock));
        }
        (Some(_), None) => {
            report.rebase.conflicts = vec![whole_skill_conflict("the skill was deleted since this patch was made")];
            clock.lap(Stage::Rebase);
            return Ok(finish(StageState::Conflict, report, None, lesson, clock));
        }
        _ => patched,
    };
    clock.lap(Stage::Rebase);
    if input.latest.is_some_and(|l| l == &candidate) {
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
    scan.apply_dismissals(input.dismissals);
    clock.lap(Stage::Scan);
    let mut decision = decide(scan.verdict, input.author, input.policy);
    if decision == Decision::AutoApprove && dismissed_in_changed_file(&scan, &latest_files, &candidate) {
        // A dismissal answers one reviewer's question about text they read in its
        // context; a patch that changes a file holding a dismissed finding changes that
        // context, so a reviewer sees it: never published unseen.
        decision = Decision::PendingReview;
    }
    report.diff = diff(&latest_files, candidate.files());
    report.candidate_digest = Some(candidate.digest());
    report.scan = Some(scan);
    report.decision = Some(decision);
    clock.lap(Stage::Decide);
    let state = match decision {
        Decision::Blocked => StageState::Blocked,
        Decision::PendingReview => StageState::PendingReview,
        Decision::AutoApprove => StageState::AutoApproved,
    };
    Ok(finish(state, report, Some(candidate), lesson, clock))
}

/// Whether a dismissed finding sits in a file that differs between the latest revision
/// and the candidate.
fn dismissed_in_changed_file(scan: &Report, latest: &BTreeMap<RelPath, BundleFile>, candidate: &Bundle) -> bool {
    scan.findings.iter().filter(|f| f.dismissed.is_some()).any(|f| {
        let Ok(path) = RelPath::parse(&f.file) else {
            return true;
        };
        latest.get(&path) != candidate.files().get(&path)
    })
}

fn finish(
    state: StageState,
    mut report: PatchReport,
    candidate: Option<Bundle>,
    lesson: String,
    mut clock: StageClock,
) -> Processed {
    report.state = Some(state);
    Processed {
        state,
        report,
        candidate,
        lesson,
        timings: clock.laps(),
    }
}

fn whole_skill_conflict(reason: &str) -> FileConflict {
    FileConflict {
        file: RelPath::skill_md().into_string(),
        reason: reason.to_owned(),
        hunks: Vec::new(),
        marked: None,
    }
}

fn invalid_after_merge(error: &BundleError) -> FileConflict {
    whole_skill_conflict(&format!(
        "merged onto the latest revision, the skill is not valid ({error}): rebase the patch by hand"
    ))
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
