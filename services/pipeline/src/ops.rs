//! Patch ops (docs/PATCHING.md), mirroring Hermes `skill_manage`: parsed from JSON and validated
//! before anything runs, so a malformed patch is answered with a precise error and
//! nothing is stored.

use base64::Engine as _;
use cairn_skill::path::RelPath;
use serde::{Deserialize, Serialize};

/// Most ops one patch may carry.
pub const MAX_OPS: usize = 64;

/// One op as an agent sends it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Op {
    /// Create a new skill from its SKILL.md.
    Create {
        /// The whole SKILL.md.
        content: String,
        /// The folder path above the skill in a Hermes tree (`devops`, `mlops/training`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        category: Option<String>,
    },
    /// Replace the whole SKILL.md.
    Edit {
        /// The new SKILL.md.
        content: String,
    },
    /// Replace `old` by `new` in a text file, with the fuzzy matcher.
    Patch {
        /// The file (default `SKILL.md`).
        #[serde(default = "skill_md")]
        file: String,
        /// The text to find.
        old: String,
        /// Its replacement.
        new: String,
        /// Replace every occurrence.
        #[serde(default)]
        replace_all: bool,
    },
    /// Write (create or replace) a file.
    WriteFile {
        /// The file.
        file: String,
        /// Its text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// Or its bytes, base64.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content_base64: Option<String>,
    },
    /// Remove a file.
    RemoveFile {
        /// The file.
        file: String,
    },
    /// Delete the skill.
    Delete,
}

fn skill_md() -> String {
    cairn_skill::path::SKILL_MD.to_owned()
}

impl Op {
    /// The op's name as sent (`patch`, `write_file`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            Op::Create { .. } => "create",
            Op::Edit { .. } => "edit",
            Op::Patch { .. } => "patch",
            Op::WriteFile { .. } => "write_file",
            Op::RemoveFile { .. } => "remove_file",
            Op::Delete => "delete",
        }
    }
}

/// Where agents may write: `SKILL.md` and files under these folders (docs/PATCHING.md;
/// configurable per registry).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritableRoots(pub Vec<String>);

impl Default for WritableRoots {
    fn default() -> Self {
        WritableRoots(
            ["references", "templates", "scripts", "assets"]
                .map(String::from)
                .to_vec(),
        )
    }
}

impl WritableRoots {
    fn allows(&self, path: &RelPath) -> bool {
        path.is_skill_md()
            || path
                .segments()
                .next()
                .is_some_and(|first| self.0.iter().any(|r| r == first))
    }

    fn describe(&self) -> String {
        self.0.iter().map(|r| format!("{r}/")).collect::<Vec<_>>().join(", ")
    }
}

/// An op after validation: paths parsed, texts decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValidOp {
    /// See [`Op::Create`].
    Create {
        /// The SKILL.md.
        content: String,
        /// The category.
        category: Option<String>,
    },
    /// See [`Op::Edit`].
    Edit {
        /// The new SKILL.md.
        content: String,
    },
    /// See [`Op::Patch`].
    Patch {
        /// The file.
        file: RelPath,
        /// The text to find.
        old: String,
        /// Its replacement.
        new: String,
        /// Replace every occurrence.
        replace_all: bool,
    },
    /// See [`Op::WriteFile`].
    WriteFile {
        /// The file.
        file: RelPath,
        /// Its bytes.
        bytes: Vec<u8>,
    },
    /// See [`Op::RemoveFile`].
    RemoveFile {
        /// The file.
        file: RelPath,
    },
    /// See [`Op::Delete`].
    Delete,
}

impl ValidOp {
    /// The op's name as sent (`patch`, `write_file`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            ValidOp::Create { .. } => "create",
            ValidOp::Edit { .. } => "edit",
            ValidOp::Patch { .. } => "patch",
            ValidOp::WriteFile { .. } => "write_file",
            ValidOp::RemoveFile { .. } => "remove_file",
            ValidOp::Delete => "delete",
        }
    }
}

/// Why ops are not valid; `index` is the op's position (0-based) in the patch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpError {
    /// No ops.
    #[error("the patch has no ops: send at least one (create, edit, patch, write_file, remove_file or delete)")]
    Empty,
    /// Too many ops.
    #[error("the patch has {count} ops, more than {MAX_OPS}: split it into smaller patches")]
    TooMany {
        /// How many were sent.
        count: usize,
    },
    /// `create` or `delete` mixed with ops they exclude.
    #[error("op {index} ({kind}): {reason}")]
    Combination {
        /// The op.
        index: usize,
        /// Its kind.
        kind: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A file path is not a valid bundle path.
    #[error("op {index} ({kind}): file {file:?}: {reason}")]
    Path {
        /// The op.
        index: usize,
        /// Its kind.
        kind: &'static str,
        /// The path as sent.
        file: String,
        /// Why it is refused.
        reason: String,
    },
    /// `write_file` with neither or both of `content` and `content_base64`, or bad base64.
    #[error("op {index} (write_file): {reason}")]
    Content {
        /// The op.
        index: usize,
        /// What is wrong.
        reason: String,
    },
}

/// Validates a patch's ops: their number, their combination, every path (a valid bundle
/// path inside the writable roots; `SKILL.md` cannot be removed), and `write_file`'s
/// content.
pub fn validate(ops: &[Op], roots: &WritableRoots) -> Result<Vec<ValidOp>, OpError> {
    if ops.is_empty() {
        return Err(OpError::Empty);
    }
    if ops.len() > MAX_OPS {
        return Err(OpError::TooMany { count: ops.len() });
    }
    let mut valid = Vec::with_capacity(ops.len());
    for (index, op) in ops.iter().enumerate() {
        let kind = op.kind();
        let combination = |reason| OpError::Combination { index, kind, reason };
        match op {
            Op::Create { .. } if index != 0 => {
                return Err(combination(
                    "create must be the first op: it makes the skill the others change",
                ));
            }
            Op::Delete if ops.len() != 1 => return Err(combination("delete must be the only op of its patch")),
            Op::Edit { .. } | Op::Patch { .. } | Op::WriteFile { .. } | Op::RemoveFile { .. } => {}
            Op::Create { .. } | Op::Delete => {}
        }
        let path = |file: &str| -> Result<RelPath, OpError> {
            let reject = |reason: String| OpError::Path {
                index,
                kind,
                file: file.to_owned(),
                reason,
            };
            let path = RelPath::parse(file).map_err(|e| reject(e.to_string()))?;
            if !roots.allows(&path) {
                return Err(reject(format!(
                    "agents may write SKILL.md and files under {} only",
                    roots.describe()
                )));
            }
            Ok(path)
        };
        valid.push(match op {
            Op::Create { content, category } => ValidOp::Create {
                content: content.clone(),
                category: category.clone(),
            },
            Op::Edit { content } => ValidOp::Edit {
                content: content.clone(),
            },
            Op::Patch {
                file,
                old,
                new,
                replace_all,
            } => ValidOp::Patch {
                file: path(file)?,
                old: old.clone(),
                new: new.clone(),
                replace_all: *replace_all,
            },
            Op::WriteFile {
                file,
                content,
                content_base64,
            } => {
                let file = path(file)?;
                let bytes = match (content, content_base64) {
                    (Some(text), None) => text.clone().into_bytes(),
                    (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
                        .decode(encoded.trim())
                        .map_err(|e| OpError::Content {
                            index,
                            reason: format!(
                                "content_base64 is not valid base64 ({e}): encode the bytes with standard base64"
                            ),
                        })?,
                    _ => {
                        return Err(OpError::Content {
                            index,
                            reason: "give exactly one of content (text) and content_base64 (bytes)".to_owned(),
                        });
                    }
                };
                ValidOp::WriteFile { file, bytes }
            }
            Op::RemoveFile { file } => {
                let file = path(file)?;
                if file.is_skill_md() {
                    return Err(OpError::Path {
                        index,
                        kind,
                        file: file.as_str().to_owned(),
                        reason: "SKILL.md cannot be removed: use delete to delete the skill".to_owned(),
                    });
                }
                ValidOp::RemoveFile { file }
            }
            Op::Delete => ValidOp::Delete,
        });
    }
    Ok(valid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Vec<Op>, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn ops_parse_as_hermes_sends_them() {
        let ops = parse(
            r#"[{"op":"patch","old":"a","new":"b"},
                {"op":"write_file","file":"references/api.md","content":"x"},
                {"op":"write_file","file":"assets/logo.png","content_base64":"iVBORw=="},
                {"op":"remove_file","file":"scripts/old.sh"},
                {"op":"edit","content":"---\nname: x\n---\n"}]"#,
        )
        .unwrap();
        assert_eq!(ops[0].kind(), "patch");
        assert!(matches!(&ops[0], Op::Patch { file, replace_all: false, .. } if file == "SKILL.md"));
        let valid = validate(&ops, &WritableRoots::default()).unwrap();
        assert!(matches!(&valid[2], ValidOp::WriteFile { bytes, .. } if bytes.starts_with(b"\x89PNG")));
        assert!(parse(r#"[{"op":"patch","old":"a","new":"b","extra":1}]"#).is_err());
        assert!(parse(r#"[{"op":"rename","file":"x"}]"#).is_err());
    }

    #[test]
    fn every_class_of_bad_op_is_refused_with_its_index() {
        let roots = WritableRoots::default();
        let bad = |json: &str| validate(&parse(json).unwrap(), &roots).unwrap_err().to_string();
        assert!(validate(&[], &roots).is_err());
        assert!(bad(r#"[{"op":"patch","file":"../x.md","old":"a","new":"b"}]"#).contains("op 0 (patch)"));
        assert!(bad(r#"[{"op":"write_file","file":"LICENSE.txt","content":"x"}]"#).contains("references/"));
        assert!(bad(r#"[{"op":"write_file","file":"references/a.md"}]"#).contains("exactly one"));
        assert!(bad(r#"[{"op":"write_file","file":"references/a.md","content_base64":"%%%"}]"#).contains("base64"));
        assert!(bad(r#"[{"op":"remove_file","file":"SKILL.md"}]"#).contains("use delete"));
        assert!(bad(r#"[{"op":"edit","content":"x"},{"op":"create","content":"y"}]"#).contains("first op"));
        assert!(bad(r#"[{"op":"delete"},{"op":"edit","content":"y"}]"#).contains("only op"));
        let many = format!(
            "[{}]",
            vec![r#"{"op":"remove_file","file":"references/a.md"}"#; MAX_OPS + 1].join(",")
        );
        assert!(bad(&many).contains("split it"));
    }
}
