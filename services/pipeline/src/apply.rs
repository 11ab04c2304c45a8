//! Applying validated ops to a skill's files: the *apply* stage. `patch` ops go through
//! the fuzzy matcher and report how they matched; the result must be a valid bundle.

use std::collections::BTreeMap;

use cairn_skill::limits::Limits;
use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleError, BundleFile};
use serde::{Deserialize, Serialize};

use crate::matcher::{self, Edit, MatchError, Strategy};
use crate::ops::ValidOp;

/// How one op applied (stored on the patch: the match report).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct OpReport {
    /// The op's position in the patch (0-based).
    pub index: usize,
    /// Its kind (`patch`, `write_file`, …).
    pub op: String,
    /// The file it touched, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// For `patch`: how `old` was found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<Strategy>,
    /// For `patch`: similarity of the replaced text to `old`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub similarity: Option<f64>,
    /// For `patch`: first line of each replaced place (1-based).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<usize>,
}

/// What the ops produce.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The skill's next files, validated.
    Bundle(Bundle),
    /// The skill is deleted.
    Delete,
}

/// The apply stage's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    /// The new bundle, or a deletion.
    pub outcome: Outcome,
    /// One report per op.
    pub ops: Vec<OpReport>,
}

/// Why ops cannot be applied. Nothing is stored: the agent corrects and resubmits.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ApplyError {
    /// An op needs an existing skill.
    #[error("op {index} ({op}): the skill does not exist: start the patch with a create op")]
    NoSkill {
        /// The op.
        index: usize,
        /// Its kind.
        op: &'static str,
    },
    /// `create` on an existing skill.
    #[error("op 0 (create): the skill already exists: change it with edit or patch ops")]
    AlreadyExists,
    /// The op names a file the skill does not have.
    #[error("op {index} ({op}): {file} is not in the skill: check the path (write_file creates files)")]
    MissingFile {
        /// The op.
        index: usize,
        /// Its kind.
        op: &'static str,
        /// The file.
        file: String,
    },
    /// `patch` on a file that is not UTF-8 text.
    #[error("op {index} (patch): {file} is not UTF-8 text: replace it with write_file instead")]
    NotText {
        /// The op.
        index: usize,
        /// The file.
        file: String,
    },
    /// The matcher refused a `patch` op.
    #[error("op {index} (patch) on {file}: {error}")]
    Match {
        /// The op.
        index: usize,
        /// The file.
        file: String,
        /// Why, with the closest candidates.
        error: MatchError,
    },
    /// The resulting files are not a valid skill.
    #[error("the patched skill is not valid: {0}")]
    Bundle(#[from] BundleError),
}

/// Applies `ops` to `base` (`None`: the skill does not exist yet).
pub fn apply_ops(base: Option<&Bundle>, ops: &[ValidOp], limits: &Limits) -> Result<Applied, ApplyError> {
    let mut files: Option<BTreeMap<RelPath, BundleFile>> = base.map(|b| b.files().clone());
    let mut reports = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let mut report = OpReport {
            index,
            op: op.kind().to_owned(),
            file: None,
            strategy: None,
            similarity: None,
            lines: Vec::new(),
        };
        match op {
            ValidOp::Create { content, .. } => {
                if files.is_some() {
                    return Err(ApplyError::AlreadyExists);
                }
                let mut new = BTreeMap::new();
                new.insert(
                    RelPath::skill_md(),
                    BundleFile::new(content.clone().into_bytes(), false),
                );
                files = Some(new);
                report.file = Some(RelPath::skill_md().into_string());
            }
            ValidOp::Delete => {
                if files.is_none() {
                    return Err(ApplyError::NoSkill { index, op: "delete" });
                }
                reports.push(report);
                return Ok(Applied {
                    outcome: Outcome::Delete,
                    ops: reports,
                });
            }
            _ => {
                let files = files.as_mut().ok_or(ApplyError::NoSkill { index, op: op.kind() })?;
                apply_one(files, index, op, &mut report)?;
            }
        }
        reports.push(report);
    }
    let files = files.ok_or(ApplyError::NoSkill { index: 0, op: "patch" })?;
    Ok(Applied {
        outcome: Outcome::Bundle(Bundle::from_files(files, limits)?),
        ops: reports,
    })
}

fn apply_one(
    files: &mut BTreeMap<RelPath, BundleFile>,
    index: usize,
    op: &ValidOp,
    report: &mut OpReport,
) -> Result<(), ApplyError> {
    match op {
        ValidOp::Edit { content } => {
            let executable = files.get(&RelPath::skill_md()).is_some_and(|f| f.executable);
            files.insert(
                RelPath::skill_md(),
                BundleFile::new(content.clone().into_bytes(), executable),
            );
            report.file = Some(RelPath::skill_md().into_string());
        }
        ValidOp::Patch {
            file,
            old,
            new,
            replace_all,
        } => {
            let missing = || ApplyError::MissingFile {
                index,
                op: "patch",
                file: file.as_str().to_owned(),
            };
            let current = files.get(file).ok_or_else(missing)?;
            let text = std::str::from_utf8(&current.bytes).map_err(|_| ApplyError::NotText {
                index,
                file: file.as_str().to_owned(),
            })?;
            let applied = matcher::apply(
                text,
                Edit {
                    old,
                    new,
                    replace_all: *replace_all,
                },
            )
            .map_err(|error| ApplyError::Match {
                index,
                file: file.as_str().to_owned(),
                error,
            })?;
            report.strategy = Some(applied.strategy);
            report.similarity = Some(applied.similarity);
            report.lines = applied.lines;
            let executable = current.executable;
            files.insert(file.clone(), BundleFile::new(applied.content.into_bytes(), executable));
            report.file = Some(file.as_str().to_owned());
        }
        ValidOp::WriteFile { file, bytes } => {
            let executable = files.get(file).is_some_and(|f| f.executable);
            files.insert(file.clone(), BundleFile::new(bytes.clone(), executable));
            report.file = Some(file.as_str().to_owned());
        }
        ValidOp::RemoveFile { file } => {
            if files.remove(file).is_none() {
                return Err(ApplyError::MissingFile {
                    index,
                    op: "remove_file",
                    file: file.as_str().to_owned(),
                });
            }
            report.file = Some(file.as_str().to_owned());
        }
        ValidOp::Create { .. } | ValidOp::Delete => unreachable!("handled by apply_ops"),
    }
    Ok(())
}
