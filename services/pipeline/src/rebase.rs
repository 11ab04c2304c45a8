//! The *rebase* stage: a patch made against an older revision is merged onto the latest,
//! file by file, with a three-way merge (diffy). Changes on both sides to the same lines
//! are a conflict, shown hunk by hunk; nothing is guessed.

use std::collections::{BTreeMap, BTreeSet};

use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleFile};
use serde::Serialize;

/// One conflicting region of a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConflictHunk {
    /// The lines as the patch has them.
    pub patch: String,
    /// The lines as the base revision had them.
    pub base: String,
    /// The lines as the latest revision has them.
    pub latest: String,
}

/// A file the patch and the latest revision both changed incompatibly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileConflict {
    /// The file.
    pub file: String,
    /// Why it conflicts, in words.
    pub reason: String,
    /// The conflicting regions (text files).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<ConflictHunk>,
}

/// The rebase stage's result.
#[derive(Clone, Debug, PartialEq)]
pub enum Rebased {
    /// The merged files (to be validated as a bundle), and the files that needed a real
    /// three-way merge.
    Clean {
        /// All files of the merged skill.
        files: BTreeMap<RelPath, BundleFile>,
        /// Files changed on both sides and merged.
        merged: Vec<String>,
    },
    /// At least one file conflicts.
    Conflict(Vec<FileConflict>),
}

/// Merges the change `base → patched` onto `latest`.
pub fn rebase(base: &Bundle, patched: &Bundle, latest: &Bundle) -> Rebased {
    let paths: BTreeSet<&RelPath> = base
        .files()
        .keys()
        .chain(patched.files().keys())
        .chain(latest.files().keys())
        .collect();
    let mut files = BTreeMap::new();
    let mut merged = Vec::new();
    let mut conflicts = Vec::new();
    for path in paths {
        let (b, p, l) = (base.get(path), patched.get(path), latest.get(path));
        let chosen = if p == b {
            l
        } else if l == b || p == l {
            p
        } else {
            match (b, p, l) {
                (Some(b), Some(p), Some(l)) => match merge_text(b, p, l) {
                    Ok(text) => {
                        merged.push(path.as_str().to_owned());
                        files.insert(path.clone(), BundleFile::new(text.into_bytes(), p.executable));
                        continue;
                    }
                    Err(conflict) => {
                        conflicts.push(FileConflict {
                            file: path.as_str().to_owned(),
                            ..conflict
                        });
                        continue;
                    }
                },
                (_, None, _) => {
                    conflicts.push(FileConflict {
                        file: path.as_str().to_owned(),
                        reason: "the patch removes this file, which the latest revision changed".to_owned(),
                        hunks: Vec::new(),
                    });
                    continue;
                }
                (_, _, None) => {
                    conflicts.push(FileConflict {
                        file: path.as_str().to_owned(),
                        reason: "the patch changes this file, which the latest revision removed".to_owned(),
                        hunks: Vec::new(),
                    });
                    continue;
                }
                (None, Some(_), Some(_)) => {
                    conflicts.push(FileConflict {
                        file: path.as_str().to_owned(),
                        reason: "the patch and the latest revision both add this file, with different contents"
                            .to_owned(),
                        hunks: Vec::new(),
                    });
                    continue;
                }
            }
        };
        if let Some(file) = chosen {
            files.insert(path.clone(), file.clone());
        }
    }
    if conflicts.is_empty() {
        Rebased::Clean { files, merged }
    } else {
        Rebased::Conflict(conflicts)
    }
}

/// Three-way merge of one text file; a conflict carries its hunks (`file` left empty).
fn merge_text(base: &BundleFile, patched: &BundleFile, latest: &BundleFile) -> Result<String, FileConflict> {
    let texts = (
        std::str::from_utf8(&base.bytes),
        std::str::from_utf8(&patched.bytes),
        std::str::from_utf8(&latest.bytes),
    );
    let (Ok(b), Ok(p), Ok(l)) = texts else {
        return Err(FileConflict {
            file: String::new(),
            reason: "a binary file changed both in the patch and in the latest revision".to_owned(),
            hunks: Vec::new(),
        });
    };
    diffy::merge(b, p, l).map_err(|marked| FileConflict {
        file: String::new(),
        reason: "the patch and the latest revision change the same lines".to_owned(),
        hunks: hunks(&marked),
    })
}

/// The conflict regions of diffy's marked-up merge (`<<<<<<<`, `|||||||`, `=======`,
/// `>>>>>>>`): ours is the patch, theirs the latest revision.
fn hunks(marked: &str) -> Vec<ConflictHunk> {
    #[derive(PartialEq)]
    enum Part {
        Outside,
        Patch,
        Base,
        Latest,
    }
    let mut out = Vec::new();
    let mut part = Part::Outside;
    let mut current = ConflictHunk {
        patch: String::new(),
        base: String::new(),
        latest: String::new(),
    };
    for line in marked.split_inclusive('\n') {
        let marker = |m: &str| line.starts_with(m);
        match part {
            Part::Outside if marker("<<<<<<<") => part = Part::Patch,
            Part::Patch | Part::Base if marker("|||||||") => part = Part::Base,
            Part::Patch | Part::Base if marker("=======") => part = Part::Latest,
            Part::Latest if marker(">>>>>>>") => {
                out.push(std::mem::replace(
                    &mut current,
                    ConflictHunk {
                        patch: String::new(),
                        base: String::new(),
                        latest: String::new(),
                    },
                ));
                part = Part::Outside;
            }
            Part::Patch => current.patch.push_str(line),
            Part::Base => current.base.push_str(line),
            Part::Latest => current.latest.push_str(line),
            Part::Outside => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cairn_skill::limits::Limits;

    fn bundle(skill: &str, extra: &[(&str, &str)]) -> Bundle {
        let mut files = vec![(RelPath::skill_md(), BundleFile::new(skill.as_bytes().to_vec(), false))];
        for (p, t) in extra {
            files.push((
                RelPath::parse(p).unwrap(),
                BundleFile::new(t.as_bytes().to_vec(), false),
            ));
        }
        Bundle::from_files(files, &Limits::default()).unwrap()
    }

    const HEAD: &str = "---\nname: demo\ndescription: A demo.\n---\n";
    const SKILL: &str = "---\nname: demo\ndescription: A demo.\n---\nBody.\n";

    #[test]
    fn changes_to_different_lines_merge() {
        let base = bundle(&format!("{HEAD}one\ntwo\nthree\nfour\nfive\n"), &[]);
        let patched = bundle(
            &format!("{HEAD}ONE\ntwo\nthree\nfour\nfive\n"),
            &[("references/a.md", "new")],
        );
        let latest = bundle(&format!("{HEAD}one\ntwo\nthree\nfour\nFIVE\n"), &[]);
        let Rebased::Clean { files, merged } = rebase(&base, &patched, &latest) else {
            panic!("expected a clean merge");
        };
        assert_eq!(merged, vec!["SKILL.md".to_owned()]);
        let skill = String::from_utf8(files[&RelPath::skill_md()].bytes.clone()).unwrap();
        assert_eq!(skill, format!("{HEAD}ONE\ntwo\nthree\nfour\nFIVE\n"));
        assert!(files.contains_key(&RelPath::parse("references/a.md").unwrap()));
    }

    #[test]
    fn changes_to_the_same_lines_conflict_with_hunks() {
        let base = bundle(&format!("{HEAD}step: a\n"), &[]);
        let patched = bundle(&format!("{HEAD}step: b\n"), &[]);
        let latest = bundle(&format!("{HEAD}step: c\n"), &[]);
        let Rebased::Conflict(conflicts) = rebase(&base, &patched, &latest) else {
            panic!("expected a conflict");
        };
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].file, "SKILL.md");
        assert_eq!(
            conflicts[0].hunks,
            vec![ConflictHunk {
                patch: "step: b\n".into(),
                base: "step: a\n".into(),
                latest: "step: c\n".into()
            }]
        );
    }

    #[test]
    fn removals_against_changes_conflict_and_identical_changes_agree() {
        let base = bundle(SKILL, &[("references/a.md", "x")]);
        let patched = bundle(SKILL, &[]);
        let latest = bundle(SKILL, &[("references/a.md", "y")]);
        assert!(matches!(rebase(&base, &patched, &latest), Rebased::Conflict(c) if c[0].reason.contains("removes")));
        let same = bundle(SKILL, &[("references/a.md", "z")]);
        assert!(matches!(rebase(&base, &same, &same), Rebased::Clean { .. }));
    }
}
