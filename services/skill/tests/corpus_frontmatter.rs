//! Parses every SKILL.md of the shared corpus: all must pass the tolerant parser, and almost
//! all the strict one.

mod common;

use std::collections::BTreeMap;

use cairn_skill::Limits;
use cairn_skill::frontmatter::{FrontmatterError, parse_strict, parse_tolerant};

#[test]
fn corpus_skill_mds_parse() {
    let root = common::corpus_root();
    let files = common::find_skill_mds(&root);
    assert!(
        files.len() > 500,
        "expected the corpus at {}, found {} SKILL.md",
        root.display(),
        files.len()
    );

    let limits = Limits::default();
    let mut strict_ok = 0;
    let mut failures: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let tolerant = parse_tolerant(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        match parse_strict(&text, &limits) {
            Ok(doc) => {
                assert_eq!(doc, tolerant, "{rel}: strict and tolerant disagree");
                strict_ok += 1;
            }
            Err(e) => {
                let kind = match &e {
                    FrontmatterError::DescriptionTooLong { .. } => "description too long",
                    FrontmatterError::SkillMdTooLong { .. } => "SKILL.md too long",
                    FrontmatterError::MissingName => "missing name",
                    FrontmatterError::MissingDescription => "missing description",
                    FrontmatterError::EmptyBody => "empty body",
                    _ => "other",
                };
                failures.entry(kind.to_owned()).or_default().push(format!("{rel}: {e}"));
            }
        }
    }
    println!("parse_strict: {strict_ok} of {} corpus SKILL.md pass", files.len());
    for (kind, list) in &failures {
        println!("  {kind}: {}", list.len());
        for f in list {
            println!("    {f}");
        }
    }
    // Nearly every published skill must be accepted as-is.
    assert!(
        strict_ok * 100 >= files.len() * 97,
        "only {strict_ok} of {} pass",
        files.len()
    );
}
