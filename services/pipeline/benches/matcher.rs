//! Matcher speed: exact and tolerant matches on a real skill, and the worst case the issue
//! names (a 40-line `old` that matches nothing in a 10,000-line file).

#![allow(missing_docs)]

use cairn_pipeline::{Edit, apply};
use criterion::{Criterion, criterion_group, criterion_main};

fn skill() -> String {
    let path = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()))
        .join("../../../shared/corpus/edits/hermes/0001_before.md");
    std::fs::read_to_string(path).unwrap_or_else(|_| "# Skill\n\nSome text.\n".repeat(200))
}

fn bench(c: &mut Criterion) {
    let file = skill();
    let lines: Vec<&str> = file.lines().collect();
    let middle = lines.len() / 2;
    let block = lines[middle..(middle + 6).min(lines.len())].join("\n");
    let indented: String = block.lines().map(|l| format!("  {l}  ")).collect::<Vec<_>>().join("\n");
    let mut g = c.benchmark_group("matcher");
    g.bench_function("exact_block", |b| {
        b.iter(|| {
            apply(
                &file,
                Edit {
                    old: &block,
                    new: "replaced",
                    replace_all: true,
                },
            )
        })
    });
    g.bench_function("indented_block", |b| {
        b.iter(|| {
            apply(
                &file,
                Edit {
                    old: &indented,
                    new: "replaced",
                    replace_all: true,
                },
            )
        })
    });
    let big: String = (0..10_000)
        .map(|i| format!("line {i} of a long file with some words\n"))
        .collect();
    let absent: String = (0..40).map(|i| format!("an absent line number {i} here\n")).collect();
    g.bench_function("miss_40_lines_in_10k", |b| {
        b.iter(|| {
            apply(
                &big,
                Edit {
                    old: &absent,
                    new: "x",
                    replace_all: false,
                },
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
