//! Benchmarks of the hot paths used on every publish and download: strict SKILL.md parsing,
//! the version digest, and packing/unpacking a real corpus bundle.

use std::hint::black_box;

use cairn_skill::archive::{pack, unpack};
use cairn_skill::digest::version_digest;
use cairn_skill::frontmatter::parse_strict;
use cairn_skill::{Bundle, Limits, RelPath, Sha256Hash};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

#[path = "../tests/common/mod.rs"]
mod common;

/// A mid-sized real skill with scripts, references and templates.
const BUNDLE_DIR: &str = "hermes/skills/creative/comfyui";

fn bench_parse_strict(c: &mut Criterion) {
    let path = common::corpus_root().join(BUNDLE_DIR).join("SKILL.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let limits = Limits::default();
    let mut group = c.benchmark_group("frontmatter");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse_strict_comfyui_skill_md", |b| {
        b.iter(|| parse_strict(black_box(&text), &limits).unwrap())
    });
    group.finish();
}

fn bench_version_digest(c: &mut Criterion) {
    let files: Vec<(RelPath, Sha256Hash)> = (0..200)
        .map(|i| {
            let path = RelPath::parse(&format!("references/section-{i:03}/notes.md")).unwrap();
            (path, Sha256Hash::of(format!("file {i}").as_bytes()))
        })
        .collect();
    c.bench_function("version_digest_200_files", |b| {
        b.iter(|| version_digest(black_box(files.iter().rev().map(|(p, h)| (p, h)))))
    });
}

fn bench_archive(c: &mut Criterion) {
    let dir = common::corpus_root().join(BUNDLE_DIR);
    let limits = Limits::default();
    let bundle = Bundle::from_files(common::read_skill_dir(&dir), &limits).unwrap();
    let packed = pack(&bundle, Vec::new()).unwrap();
    println!(
        "{BUNDLE_DIR}: {} files, {} bytes, {} bytes packed",
        bundle.len(),
        bundle.total_bytes(),
        packed.len()
    );
    let mut group = c.benchmark_group("archive");
    group.throughput(Throughput::Bytes(bundle.total_bytes()));
    group.bench_function("pack_comfyui", |b| {
        b.iter(|| pack(black_box(&bundle), Vec::with_capacity(packed.len())).unwrap())
    });
    group.bench_function("unpack_comfyui", |b| {
        b.iter(|| unpack(black_box(packed.as_slice()), &limits).unwrap())
    });
    group.finish();
}

/// Criterion's macro generates an undocumented public function; keep it in its own module.
#[allow(missing_docs)]
mod groups {
    use super::*;

    criterion_group!(benches, bench_parse_strict, bench_version_digest, bench_archive);
}

criterion_main!(groups::benches);
