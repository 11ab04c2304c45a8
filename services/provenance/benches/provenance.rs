//! Offline verification at CI's scale and proofs in a large log (issue 19):
//!
//! - `verify/2000 locked skills`: one iteration verifies 2,000 attestations as `cairn ci
//!   pull --verify` does after fetching them — the checkpoint's signature, the envelope's
//!   signature, the inclusion proof and the statement (target: ≤ 1 s for all 2,000);
//! - `proof/100k`: an inclusion proof in a log of 100,000 entries, made from the stored
//!   hashes and verified (target: ≤ 1 ms per proof); the proof's size is printed.
//!
//! Run: `cargo bench -p cairn-provenance --bench provenance`.

#![allow(missing_docs)]

use cairn_provenance::dsse::IN_TOTO_PAYLOAD_TYPE;
use cairn_provenance::merkle::{self, MemoryLog};
use cairn_provenance::statement::{Approval, AttestedFile, AttestedScan, Statement, VersionEvent, VersionPredicate};
use cairn_provenance::verify::{Attestation, KeyStatus, Keyring, verify_attestation};
use cairn_provenance::{Checkpoint, Envelope, SigningKey};
use criterion::{Criterion, criterion_group, criterion_main};

const ORIGIN: &str = "skills.example.com";

/// A statement shaped like a real skill's: SKILL.md, a reference and a script.
fn predicate(n: usize) -> VersionPredicate {
    let file = |path: &str, size: u64| AttestedFile {
        path: path.to_owned(),
        sha256: format!("{:064x}", n * 7 + path.len()),
        size,
        executable: path.ends_with(".sh"),
    };
    VersionPredicate {
        event: VersionEvent::Published,
        registry: ORIGIN.to_owned(),
        organization: "default".to_owned(),
        skill: format!("skill-{n}"),
        revision: 3,
        digest: format!("sha256:{:064x}", n),
        category: Some("devops".to_owned()),
        files: vec![
            file("SKILL.md", 4_200),
            file("references/api.md", 12_000),
            file("scripts/run.sh", 800),
        ],
        source: "patch".to_owned(),
        patch: None,
        publisher: None,
        approvals: vec![Approval {
            reviewer: "rex".to_owned(),
            at: "2026-12-04T23:10:00.000Z".to_owned(),
        }],
        scan: Some(AttestedScan {
            verdict: "safe".to_owned(),
            rules: "cairn-scanner/0.1.0+000000000000".to_owned(),
        }),
        published_at: "2026-12-04T23:10:00.000Z".to_owned(),
        recorded_at: "2026-12-04T23:10:00.000Z".to_owned(),
    }
}

fn attestations(count: usize) -> (Vec<Attestation>, Keyring) {
    let key = SigningKey::from_seed([42; 32]);
    let envelopes: Vec<Envelope> = (0..count)
        .map(|n| {
            let statement = Statement::for_version(&predicate(n));
            Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &statement.to_json(), &[&key])
        })
        .collect();
    let mut log = MemoryLog::default();
    for envelope in &envelopes {
        log.push(&envelope.to_json());
    }
    let size = log.size();
    let checkpoint = Checkpoint {
        origin: ORIGIN.to_owned(),
        size,
        root: log.root(size).unwrap(),
    }
    .sign(&[&key])
    .unwrap();
    let attestations = envelopes
        .into_iter()
        .enumerate()
        .map(|(index, envelope)| {
            let index = index as u64;
            Attestation {
                envelope,
                log_index: index,
                inclusion_proof: merkle::inclusion_proof(index, size, log.stored()).unwrap(),
                checkpoint: checkpoint.clone(),
            }
        })
        .collect();
    let keyring = Keyring::new(vec![(key.public().clone(), KeyStatus::Active)]);
    (attestations, keyring)
}

fn bench(c: &mut Criterion) {
    let (attestations, keyring) = attestations(2_000);
    let mut group = c.benchmark_group("verify");
    group.sample_size(10);
    group.bench_function("2000 locked skills", |b| {
        b.iter(|| {
            for attestation in &attestations {
                verify_attestation(attestation, ORIGIN, &keyring).unwrap();
            }
        })
    });
    group.finish();

    let mut log = MemoryLog::default();
    for n in 0..100_000u64 {
        log.push(&n.to_be_bytes());
    }
    let size = log.size();
    let root = log.root(size).unwrap();
    let sample = merkle::inclusion_proof(54_321, size, log.stored()).unwrap();
    println!(
        "an inclusion proof in a log of {size} entries: {} hashes, {} bytes (hex JSON: {} bytes)",
        sample.len(),
        sample.len() * 32,
        serde_json::to_vec(&sample).unwrap().len()
    );
    let consistency = merkle::consistency_proof(50_000, size, log.stored()).unwrap();
    println!(
        "a consistency proof from 50,000 to {size} entries: {} hashes",
        consistency.len()
    );
    let mut group = c.benchmark_group("proof/100k");
    let mut index = 0u64;
    group.bench_function("make and verify an inclusion proof", |b| {
        b.iter(|| {
            index = (index + 7_919) % size;
            let needs = merkle::inclusion_needs(index, size).unwrap();
            let known: std::collections::HashMap<_, _> = needs.iter().map(|i| (*i, log.stored()[i])).collect();
            let proof = merkle::inclusion_proof(index, size, &known).unwrap();
            let leaf = merkle::leaf_hash(&index.to_be_bytes());
            merkle::verify_inclusion(&proof, index, size, root, leaf).unwrap();
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
