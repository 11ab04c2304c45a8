//! `cairn-registry import` rules on messy trees, and bad input that must change nothing.

use cairn_e2e::app::TestApp;
use cairn_e2e::corpus;

use crate::fixtures::write_skill;

#[tokio::test]
async fn messy_tree_is_imported_by_the_documented_rules() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    write_skill(
        root,
        "devops/deploy",
        "deploy",
        "Deploy steps.",
        &[("scripts/run.sh", "echo run")],
    );
    // Same name in another category: the first in walk order wins.
    write_skill(root, "ops/deploy", "deploy", "Other deploy.", &[]);
    // A SKILL.md nested in a skill stays a file of the outer skill.
    write_skill(
        root,
        "mlops/train",
        "train",
        "Train.",
        &[("sub/inner/SKILL.md", "---\nname: inner\ndescription: d\n---\nbody\n")],
    );
    // Frontmatter name differs from the folder: imported under the folder name, warned.
    write_skill(root, "misc/folder-name", "declared-name", "Body.", &[]);
    // Broken ones.
    write_skill(root, "bad/Upper_Case", "upper", "Body.", &[]);
    write_skill(root, "Bad Category/ok-name", "ok-name", "Body.", &[]);
    std::fs::create_dir_all(root.join("broken/no-frontmatter")).unwrap();
    std::fs::write(root.join("broken/no-frontmatter/SKILL.md"), "# Just markdown\n").unwrap();
    std::fs::create_dir_all(root.join("broken/no-description")).unwrap();
    std::fs::write(
        root.join("broken/no-description/SKILL.md"),
        "---\nname: no-description\n---\nbody\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("broken/bad-utf8")).unwrap();
    std::fs::write(
        root.join("broken/bad-utf8/SKILL.md"),
        b"---\nname: x\ndescription: \xff\xfe\n---\nbody\n",
    )
    .unwrap();
    write_skill(root, "broken/linked", "linked", "Body.", &[]);
    std::os::unix::fs::symlink("/etc/passwd", root.join("broken/linked/passwd")).unwrap();
    write_skill(root, "broken/huge", "huge", "Body.", &[]);
    std::fs::write(root.join("broken/huge/assets.bin"), vec![0u8; 1_048_577]).unwrap();
    // Dot-folders are not part of the tree or of bundles.
    write_skill(root, ".hidden/secret", "secret", "Body.", &[]);
    std::fs::write(root.join("devops/deploy/.env"), "TOKEN=abc").unwrap();

    let report = app.import(root).await.unwrap();
    let created: Vec<&str> = report.created.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(created, ["deploy", "folder-name", "train"]);
    let reason = |suffix: &str| {
        report
            .skipped
            .iter()
            .find(|s| s.path.ends_with(suffix))
            .map(|s| s.reason.clone())
            .unwrap_or_else(|| panic!("{suffix} not reported as skipped: {:?}", report.skipped))
    };
    assert!(reason("ops/deploy").contains("duplicate skill name 'deploy'"));
    assert!(reason("bad/Upper_Case").contains("rename the folder"));
    assert!(reason("Bad Category/ok-name").contains("rename the folder"));
    assert!(reason("broken/no-frontmatter").contains("frontmatter"));
    assert!(reason("broken/no-description").contains("description"));
    assert!(reason("broken/bad-utf8").to_lowercase().contains("utf-8"));
    assert!(reason("broken/linked").contains("symbolic link"));
    assert!(reason("broken/huge").contains("1048576"), "{}", reason("broken/huge"));
    assert_eq!(report.skipped.len(), 8, "{:?}", report.skipped);
    assert!(report.warnings.iter().any(|w| w.reason.contains("nested SKILL.md")));
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.reason.contains("frontmatter name 'declared-name'"))
    );

    let index: serde_json::Value = app.get("/v1/index").send().await.unwrap().json().await.unwrap();
    let deploy = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "deploy")
        .unwrap();
    assert_eq!(deploy["category"], "devops");
    let paths: Vec<&str> = deploy["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["SKILL.md", "scripts/run.sh"],
        "dot-files are not part of a bundle"
    );
    let train = index["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "train")
        .unwrap();
    assert!(
        train["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "sub/inner/SKILL.md")
    );
}

#[tokio::test]
async fn executable_bits_survive_import() {
    use std::os::unix::fs::PermissionsExt;
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_skill(
        tree.path(),
        "tool",
        "tool",
        "Run it.",
        &[("scripts/go.sh", "#!/bin/sh\necho go\n")],
    );
    std::fs::set_permissions(
        tree.path().join("tool/scripts/go.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    app.import(tree.path()).await.unwrap();
    let version: serde_json::Value = app
        .get("/v1/skills/tool/versions/1")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let script = version["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "scripts/go.sh")
        .unwrap();
    assert_eq!(script["executable"], true);
    let readme = version["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "SKILL.md")
        .unwrap();
    assert_eq!(readme["executable"], false);
}

#[tokio::test]
async fn a_tree_of_only_bad_skills_changes_nothing() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tree.path().join("a/no-frontmatter")).unwrap();
    std::fs::write(tree.path().join("a/no-frontmatter/SKILL.md"), "plain text\n").unwrap();
    write_skill(tree.path(), "b/blank-body", "blank-body", "", &[]);
    let before = app.state_snapshot().await.unwrap();
    let report = app.import(tree.path()).await.unwrap();
    assert_eq!(report.skipped.len(), 2, "{:?}", report.skipped);
    assert!(report.created.is_empty());
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn a_missing_root_is_an_error_and_changes_nothing() {
    let app = TestApp::spawn().await.unwrap();
    let before = app.state_snapshot().await.unwrap();
    let error = app
        .import(std::path::Path::new("/nonexistent/skills"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("/nonexistent/skills"), "{error}");
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn a_single_skill_folder_can_be_imported_as_the_root() {
    let app = TestApp::spawn().await.unwrap();
    let report = app
        .import(&corpus().join("skills/anthropic/skills/mcp-builder"))
        .await
        .unwrap();
    assert_eq!(report.created.len(), 1, "{:?}", report.skipped);
    assert_eq!(report.created[0].name, "mcp-builder");
}
