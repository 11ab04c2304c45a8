//! `cairn skill patch` as a user runs it: exit codes, what is written, and that a refusal
//! or a bad argument leaves the skill untouched.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use std::io::Write as _;

const SKILL: &str = "---\nname: demo\ndescription: A demo skill.\n---\n# Demo\n\n## Steps\n    1. Install it.\n    2. Run the “tests” — always.\n";

fn skill_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("SKILL.md"), SKILL).unwrap();
    dir
}

fn cairn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cairn")).args(args).output().unwrap()
}

fn skill_md(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("SKILL.md")).unwrap()
}

#[test]
fn applies_a_drifted_edit_and_reports_how() {
    let dir = skill_dir();
    let d = dir.path().to_str().unwrap();
    let out = cairn(&[
        "skill",
        "patch",
        d,
        "--old",
        "1. Install it.\n2. Run the \"tests\" - always.",
        "--new",
        "1. Install it.\n2. Run the tests twice.",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["applied"], true);
    assert_eq!(report["written"], true);
    assert_eq!(report["strategy"], "unicode-normalized");
    assert_eq!(report["lines"], serde_json::json!([8]));
    assert!(skill_md(dir.path()).ends_with("    1. Install it.\n    2. Run the tests twice.\n"));
    // The same edit again is already applied: success, nothing written.
    let out = cairn(&[
        "skill",
        "patch",
        d,
        "--old",
        "    1. Install it.\n    2. Run the \"tests\" - always.",
        "--new",
        "    1. Install it.\n    2. Run the tests twice.",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("already applied"));
}

#[test]
fn dry_run_shows_the_diff_and_writes_nothing() {
    let dir = skill_dir();
    let out = cairn(&[
        "skill",
        "patch",
        dir.path().to_str().unwrap(),
        "--old",
        "Install it.",
        "--new",
        "Install it with pip.",
        "--dry-run",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("-    1. Install it.") && text.contains("+    1. Install it with pip."),
        "{text}"
    );
    assert_eq!(skill_md(dir.path()), SKILL);
}

#[test]
fn refusals_and_bad_arguments_change_nothing() {
    let dir = skill_dir();
    let d = dir.path().to_str().unwrap();
    let out = cairn(&["skill", "patch", d, "--old", "1. Install it quickly.", "--new", "x"]);
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("not applied") && text.contains("line 8"), "{text}");
    let ambiguous = cairn(&["skill", "patch", d, "--old", "    ", "--new", "  "]);
    assert_eq!(ambiguous.status.code(), Some(3));
    for args in [
        vec![
            "skill",
            "patch",
            d,
            "--file",
            "../outside.md",
            "--old",
            "a",
            "--new",
            "b",
        ],
        vec![
            "skill",
            "patch",
            d,
            "--file",
            "references/missing.md",
            "--old",
            "a",
            "--new",
            "b",
        ],
        vec!["skill", "patch", d, "--old", "@/nonexistent/file", "--new", "b"],
        vec!["skill", "patch", "/nonexistent/skill", "--old", "a", "--new", "b"],
        vec!["skill", "patch", d, "--old", "", "--new", "b"],
    ] {
        let out = cairn(&args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stderr.is_empty() || !out.stdout.is_empty(), "{args:?} says why");
    }
    assert_eq!(skill_md(dir.path()), SKILL);
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(entries.len(), 1, "no stray temporary files");
}

#[test]
fn texts_can_come_from_files() {
    let dir = skill_dir();
    let old = dir.path().join("old.txt");
    std::fs::write(&old, "## Steps\n").unwrap();
    let out = cairn(&[
        "skill",
        "patch",
        dir.path().to_str().unwrap(),
        "--old",
        &format!("@{}", old.display()),
        "--new",
        "@@Steps\n",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(skill_md(dir.path()).contains("\n@Steps\n"));
}

/// Runs `cairn skill patch --batch` on `input`, which must succeed; its answer lines, parsed.
fn patch_batch(input: &[u8]) -> Vec<serde_json::Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cairn"))
        .args(["skill", "patch", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn batch_answers_one_line_per_line() {
    let lines = patch_batch(b"{\"content\":\"a  b\\nc\\n\",\"old\":\"a b\",\"new\":\"x\"}\nnot json\n{\"content\":\"abc\",\"old\":\"zzz\",\"new\":\"y\",\"replace_all\":true}\n");
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["applied"], true);
    assert_eq!(lines[0]["content"], "x\nc\n");
    assert_eq!(lines[0]["strategy"], "whitespace-normalized");
    assert!(lines[0]["micros"].as_f64().unwrap() >= 0.0);
    assert_eq!(lines[1]["applied"], false);
    assert!(lines[1]["error"].as_str().unwrap().contains("input line 2"));
    assert_eq!(lines[2]["applied"], false);
    assert!(lines[2]["error"].as_str().unwrap().contains("not found"));
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_refused_and_left_alone() {
    let dir = skill_dir();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "keep me\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("references")).unwrap();
    let out = cairn(&[
        "skill",
        "patch",
        dir.path().to_str().unwrap(),
        "--file",
        "references/secret.md",
        "--old",
        "keep me",
        "--new",
        "changed",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("symbolic link"));
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.md")).unwrap(),
        "keep me\n"
    );
}

#[test]
fn batch_skips_blank_lines_and_answers_bad_bytes_in_place() {
    let lines = patch_batch(b"\n{\"content\":\"a\",\"old\":\"a\",\"new\":\"b\"}\n\xff\xfe\n\n{\"content\":\"c\",\"old\":\"c\",\"new\":\"d\"}\n");
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["content"], "b");
    assert_eq!(lines[1]["applied"], false);
    assert_eq!(lines[2]["content"], "d");
}
