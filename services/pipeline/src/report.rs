//! The patch report: what every stage found about a patch, as one typed schema.
//!
//! The pipeline produces it, the registry stores it as JSON on the patch, and every
//! surface (REST, gRPC, the review web, clients) reads it back through
//! [`PatchReport::from_stored`] — one type, serialised and deserialised in one place, so a
//! renamed or added field reaches every view at once. Every field has a default and
//! unknown fields are ignored, so reports stored by older versions still read.

use cairn_scanner::{Report, Verdict};
use serde::{Deserialize, Serialize};

use crate::apply::OpReport;
use crate::diff::FileDiff;
use crate::matcher::Strategy;
pub use crate::merge::ConflictHunk;
use crate::policy::Decision;

/// Where the stages leave a patch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Everything the stages found, as stored on the patch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PatchReport {
    /// Where the stages left the patch.
    pub state: Option<StageState>,
    /// How each op applied to the base revision (the match report).
    pub ops: Vec<OpReport>,
    /// How the patch was placed onto the latest revision.
    pub rebase: RebaseReport,
    /// Whether the patch deletes the skill.
    pub deletes: bool,
    /// The candidate's digest.
    pub candidate_digest: Option<String>,
    /// The change against the latest revision, per file.
    pub diff: Vec<FileDiff>,
    /// The change the patch's author made, against the revision they based it on: what
    /// they meant, kept even when the patch is in conflict (empty when the base is the
    /// latest revision: then it is `diff`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authored_diff: Vec<FileDiff>,
    /// The scan of the candidate, findings marked introduced or pre-existing.
    pub scan: Option<Report>,
    /// The policy's decision.
    pub decision: Option<Decision>,
}

impl PatchReport {
    /// Reads a stored report. Never fails: a report written by another version is read
    /// field by field, and a field that no longer parses is left at its default.
    pub fn from_stored(value: &serde_json::Value) -> PatchReport {
        if let Ok(report) = serde_json::from_value::<PatchReport>(value.clone()) {
            return report;
        }
        let field = |name: &str| value.get(name).cloned().unwrap_or(serde_json::Value::Null);
        fn parse<T: serde::de::DeserializeOwned + Default>(v: serde_json::Value) -> T {
            serde_json::from_value(v).unwrap_or_default()
        }
        PatchReport {
            state: parse(field("state")),
            ops: parse(field("ops")),
            rebase: parse(field("rebase")),
            deletes: parse(field("deletes")),
            candidate_digest: parse(field("candidate_digest")),
            diff: parse(field("diff")),
            authored_diff: parse(field("authored_diff")),
            scan: parse(field("scan")),
            decision: parse(field("decision")),
        }
    }

    /// The scan verdict, when the candidate was scanned.
    pub fn verdict(&self) -> Option<Verdict> {
        self.scan.as_ref().map(|s| s.verdict)
    }
}

/// How a patch was placed onto the latest revision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct RebaseReport {
    /// The revision the patch was made against.
    pub base_digest: Option<String>,
    /// The latest revision it was placed onto.
    pub onto_digest: Option<String>,
    /// Whether the latest had moved since the base (so the patch was rebased).
    pub rebased: bool,
    /// Files changed on both sides and combined (merged, structural insertion or
    /// replayed).
    pub merged_files: Vec<String>,
    /// Conflicting files, with their hunks.
    pub conflicts: Vec<FileConflict>,
    /// How each file the patch changes was placed.
    pub files: Vec<FilePlacement>,
    /// How each op was placed.
    pub ops: Vec<OpPlacement>,
}

/// How a change was placed onto the latest revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// The latest revision left the file as the base had it: the patch's version is
    /// taken as it is.
    Applied,
    /// The latest revision already has exactly this change.
    AlreadyThere,
    /// Both sides changed the file at different lines (also right beside each other);
    /// both changes kept.
    Merged,
    /// Both sides inserted lines at the same point (new bullets after one item, items
    /// appended to one list, sections appended to the file); both kept, the latest
    /// revision's first.
    StructuralInsertion,
    /// The lines the patch's ops change moved or changed around them: the ops were found
    /// again in the latest file with the matcher and applied there.
    Replayed,
    /// Different changes to the same lines: a person has to decide.
    Conflict,
}

impl Placement {
    /// The name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Placement::Applied => "applied",
            Placement::AlreadyThere => "already_there",
            Placement::Merged => "merged",
            Placement::StructuralInsertion => "structural_insertion",
            Placement::Replayed => "replayed",
            Placement::Conflict => "conflict",
        }
    }
}

/// How one file of the patch was placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FilePlacement {
    /// The file.
    pub file: String,
    /// How.
    pub placement: Placement,
    /// The same in words, for reviewers.
    pub detail: String,
}

/// How one op of the patch was placed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpPlacement {
    /// The op's position in the patch (0-based).
    pub index: usize,
    /// Its kind.
    pub op: String,
    /// The file it changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// How it was placed.
    pub placement: Placement,
    /// For a replayed `patch` op: how `old` was found in the latest file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// For a replayed `patch` op: first line of each replaced place in the latest file
    /// (1-based).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<usize>,
}

/// A file the patch and the latest revision both changed incompatibly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FileConflict {
    /// The file.
    pub file: String,
    /// Why it conflicts, in words.
    pub reason: String,
    /// The conflicting regions (text files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<ConflictHunk>,
    /// The whole file merged, each conflicting region between markers: what a reviewer
    /// resolving the conflict starts from (text files changed on both sides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marked: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_stored_by_older_versions_still_read() {
        // The first wave stored no placements and no `state` on some patches.
        let old = serde_json::json!({
            "ops": [{"index": 0, "op": "patch", "file": "SKILL.md", "strategy": "exact", "similarity": 1.0, "lines": [3]}],
            "rebase": {"base_digest": "sha256:a", "onto_digest": "sha256:b", "rebased": true, "merged_files": ["SKILL.md"], "conflicts": []},
            "deletes": false,
            "diff": [],
            "scan": {"verdict": "safe", "findings": []},
            "decision": "pending_review",
        });
        let report = PatchReport::from_stored(&old);
        assert_eq!(report.ops[0].strategy, Some(Strategy::Exact));
        assert_eq!(report.rebase.merged_files, vec!["SKILL.md".to_owned()]);
        assert_eq!(report.verdict(), Some(Verdict::Safe));
        assert!(report.rebase.files.is_empty());
        // A field that no longer parses is dropped, not the report.
        let odd = serde_json::json!({"scan": {"verdict": "safe", "findings": []}, "ops": "not a list"});
        let report = PatchReport::from_stored(&odd);
        assert_eq!(report.verdict(), Some(Verdict::Safe));
        assert!(report.ops.is_empty());
        assert_eq!(
            PatchReport::from_stored(&serde_json::Value::Null),
            PatchReport::default()
        );
    }

    #[test]
    fn a_report_round_trips() {
        let report = PatchReport {
            state: Some(StageState::Conflict),
            rebase: RebaseReport {
                rebased: true,
                files: vec![FilePlacement {
                    file: "SKILL.md".into(),
                    placement: Placement::Conflict,
                    detail: "x".into(),
                }],
                conflicts: vec![FileConflict {
                    file: "SKILL.md".into(),
                    reason: "r".into(),
                    hunks: vec![],
                    marked: Some("m".into()),
                }],
                ..RebaseReport::default()
            },
            ..PatchReport::default()
        };
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(PatchReport::from_stored(&json), report);
        assert_eq!(json["rebase"]["files"][0]["placement"], "conflict");
    }
}
