//! What the review pages spend rendering, on real material from the shared corpus:
//!
//! - `markdown/hermes-all`: every Hermes `SKILL.md` (173 files) through the safe Markdown
//!   renderer (pulldown-cmark, raw HTML made inert, links filtered, ammonia);
//! - `markdown/largest`: the largest one alone (a skill page's body);
//! - `diff/largest-edit`: the largest real edit (`edits/hermes/0442`, 824 changed lines)
//!   laid out as unified and side-by-side rows with 50 findings to place (a patch page).
//!
//! Run: `cargo bench -p cairn-registry --bench render`.

#![allow(missing_docs)]

use std::path::{Path, PathBuf};

use cairn_registry::web::render::{diff, markdown};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn skill_files(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("the corpus is beside the repository") {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            skill_files(&path, out);
        } else if path.file_name().is_some_and(|n| n == "SKILL.md") {
            out.push(std::fs::read_to_string(&path).unwrap());
        }
    }
}

fn bench(c: &mut Criterion) {
    let mut skills = Vec::new();
    skill_files(&corpus().join("skills/hermes"), &mut skills);
    let total: usize = skills.iter().map(String::len).sum();
    let largest = skills.iter().max_by_key(|s| s.len()).unwrap().clone();

    let mut group = c.benchmark_group("markdown");
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("hermes-all", |b| {
        b.iter(|| {
            skills
                .iter()
                .map(|s| {
                    markdown::render_markdown(
                        markdown::split_frontmatter(s).1,
                        Some("/admin/skills/x/versions/1/files/"),
                    )
                    .len()
                })
                .sum::<usize>()
        })
    });
    group.throughput(Throughput::Bytes(largest.len() as u64));
    group.bench_function("largest", |b| {
        b.iter(|| markdown::render_markdown(markdown::split_frontmatter(&largest).1, None))
    });
    group.finish();

    let edits = corpus().join("edits/hermes");
    let before = std::fs::read_to_string(edits.join("0442_before.md")).unwrap();
    let after = std::fs::read_to_string(edits.join("0442_after.md")).unwrap();
    let unified = similar::TextDiff::from_lines(&before, &after)
        .unified_diff()
        .context_radius(3)
        .header("a/SKILL.md", "b/SKILL.md")
        .to_string();
    let diff_json = serde_json::json!([{"file": "SKILL.md", "change": "modified", "unified": unified, "binary": false, "mode_changed": false}]);
    let lines = after.lines().count();
    let findings: Vec<serde_json::Value> = (0..50)
        .map(|i| {
            serde_json::json!({"rule": "demo.rule", "category": "demo", "severity": "medium", "file": "SKILL.md",
                "line": 1 + i * lines / 50, "column": 1, "excerpt": "x", "message": "m", "hint": "", "introduced": i % 2 == 0})
        })
        .collect();
    let scan = serde_json::json!({"verdict": "caution", "findings": findings});
    let diff_typed: Vec<cairn_pipeline::diff::FileDiff> = serde_json::from_value(diff_json).unwrap();
    let scan_typed: cairn_scanner::Report = serde_json::from_value(scan).unwrap();
    let mut group = c.benchmark_group("diff");
    group.throughput(Throughput::Bytes(unified.len() as u64));
    group.bench_function("largest-edit", |b| {
        b.iter(|| diff::file_views(&diff_typed, Some(&scan_typed)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
