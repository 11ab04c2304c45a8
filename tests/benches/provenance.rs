//! The cost of provenance on the server (issue 19), in-process on fresh databases:
//!
//! - approve with signing and logging vs without (A/B in one run: two registries, one
//!   signing, one not, approvals alternating between them): each approval publishes a
//!   version whose attestation is signed and appended in the same transaction. Target:
//!   approve p50 at most 10% slower with provenance.
//! - a log of 100,000 entries (filled in bulk after the approvals): inclusion and
//!   consistency proofs and a version's attestation served from PostgreSQL, 8 clients for
//!   5 s each, then one client alone for 5 s (no queueing behind other requests). Target:
//!   ≤ 1 ms per proof (client-measured, so an upper bound of the server's time).
//!
//! Run: `cargo bench -p cairn-e2e --bench provenance` (needs PostgreSQL, as the tests do).

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use cairn_e2e::app::TestApp;
use cairn_e2e::load::measure_requests;
use cairn_provenance::merkle::{self, MemoryLog};
use cairn_store::Role;
use serde_json::json;

const SKILLS: usize = 150;
const LOG_SIZE: u64 = 100_000;
const CLIENTS: usize = 8;
const RUN_FOR: Duration = Duration::from_secs(5);

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

fn skill_md(name: &str, extra: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name} skill.\n---\n# {name}\n\n## Steps\n\n1. Run it.\n2. Check it.\n\n## Pitfalls\n\n- Slow disks need `--stream`.\n{extra}"
    )
}

/// A registry with SKILLS skills and one pending patch per skill; the reviewer's token.
async fn prepared(app: &TestApp) -> (String, Vec<String>) {
    let tree = tempfile::tempdir().unwrap();
    for n in 0..SKILLS {
        let name = format!("skill-{n}");
        std::fs::create_dir_all(tree.path().join(&name)).unwrap();
        std::fs::write(tree.path().join(&name).join("SKILL.md"), skill_md(&name, "")).unwrap();
    }
    app.import(tree.path()).await.unwrap();
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let mut ids = Vec::new();
    for n in 0..SKILLS {
        let name = format!("skill-{n}");
        let body = json!({
            "skill": name, "base_revision": 1, "summary": "a pitfall", "rationale": "hit it",
            "agent": {"name": "hermes", "model": "m", "session": "s"},
            "ops": [{"op": "edit", "content": skill_md(&name, &format!("- Retry step {n} when the proxy drops.\n"))}],
        });
        let response = app.post_as(&member, "/v1/patches").json(&body).send().await.unwrap();
        assert!(response.status().is_success());
        let patch: serde_json::Value = response.json().await.unwrap();
        ids.push(patch["id"].as_str().unwrap().to_owned());
    }
    (reviewer, ids)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn run() {
    let signed = TestApp::spawn().await.unwrap();
    let unsigned = TestApp::spawn_unsigned().await.unwrap();
    let (signed_reviewer, signed_ids) = prepared(&signed).await;
    let (unsigned_reviewer, unsigned_ids) = prepared(&unsigned).await;
    let mut with = Vec::new();
    let mut without = Vec::new();
    for n in 0..SKILLS {
        for (app, reviewer, ids, times) in [
            (&signed, &signed_reviewer, &signed_ids, &mut with),
            (&unsigned, &unsigned_reviewer, &unsigned_ids, &mut without),
        ] {
            let started = Instant::now();
            let response = app
                .post_as(reviewer, &format!("/v1/patches/{}/approve", ids[n]))
                .json(&json!({}))
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success(), "{}", response.text().await.unwrap());
            times.push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    with.sort_by(f64::total_cmp);
    without.sort_by(f64::total_cmp);
    let (p50_with, p50_without) = (percentile(&with, 0.5), percentile(&without, 0.5));
    println!("| approve ({SKILLS} each, alternating) | p50 ms | p99 ms |\n|---|---:|---:|");
    println!(
        "| with signing and the log | {p50_with:.2} | {:.2} |",
        percentile(&with, 0.99)
    );
    println!("| without | {p50_without:.2} | {:.2} |", percentile(&without, 0.99));
    println!(
        "approve p50 with provenance: {:+.1}% (target ≤ +10%)\n",
        (p50_with / p50_without - 1.0) * 100.0
    );

    // Fill the signed registry's log to LOG_SIZE entries in bulk (synthetic entries after
    // the real ones: what proofs cost depends on the size, not the content).
    let pool = signed.store.pool();
    let existing: Vec<Vec<u8>> = sqlx::query_scalar("SELECT entry FROM log_entries ORDER BY idx")
        .fetch_all(pool)
        .await
        .unwrap();
    let mut log = MemoryLog::default();
    for entry in &existing {
        log.push(entry);
    }
    let real = log.size();
    let key_id = signed.signing_key.id().to_string();
    let filled = Instant::now();
    while log.size() < LOG_SIZE {
        let first = log.size();
        let end = (first + 10_000).min(LOG_SIZE);
        let stored_before = merkle::first_stored_index(first);
        let mut indexes = Vec::new();
        let mut entries = Vec::new();
        for index in first..end {
            let entry = format!("{{\"synthetic\":{index}}}").into_bytes();
            log.push(&entry);
            indexes.push(i64::try_from(index).unwrap());
            entries.push(entry);
        }
        let stored_after = merkle::first_stored_index(end);
        let (ids, hashes): (Vec<i64>, Vec<Vec<u8>>) = (stored_before..stored_after)
            .map(|i| (i64::try_from(i).unwrap(), log.stored()[&i].0.to_vec()))
            .unzip();
        sqlx::query(
            "INSERT INTO log_entries (idx, entry, event, key_id) \
             SELECT i, e, 'published', $3 FROM UNNEST($1::bigint[], $2::bytea[]) AS x(i, e)",
        )
        .bind(&indexes)
        .bind(&entries)
        .bind(&key_id)
        .execute(pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO log_hashes (idx, hash) SELECT * FROM UNNEST($1::bigint[], $2::bytea[])")
            .bind(&ids)
            .bind(&hashes)
            .execute(pool)
            .await
            .unwrap();
    }
    let root = log.root(LOG_SIZE).unwrap();
    sqlx::query("UPDATE transparency_log SET size = $1, root = $2")
        .bind(i64::try_from(LOG_SIZE).unwrap())
        .bind(root.0.to_vec())
        .execute(pool)
        .await
        .unwrap();
    println!(
        "log filled to {LOG_SIZE} entries ({real} real) in {:.1} s",
        filled.elapsed().as_secs_f64()
    );

    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CLIENTS)
        .build()
        .unwrap();
    let get = |path: String| client.get(signed.url(&path)).bearer_auth(&signed.admin_token);
    let proof: serde_json::Value = get(format!("/v1/log/proof/inclusion?index=54321&size={LOG_SIZE}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    println!(
        "an inclusion proof at {LOG_SIZE} entries: {} hashes, {} bytes as JSON",
        proof["hashes"].as_array().unwrap().len(),
        proof.to_string().len()
    );
    println!(
        "\n| request ({} s each) | {CLIENTS} clients: per second | p50 ms | p99 ms | one client: p50 ms | p99 ms |\n|---|---:|---:|---:|---:|---:|",
        RUN_FOR.as_secs()
    );
    let cases = [
        (
            "inclusion proof (index 54,321)",
            get(format!("/v1/log/proof/inclusion?index=54321&size={LOG_SIZE}")),
        ),
        (
            "inclusion proof (index 7)",
            get(format!("/v1/log/proof/inclusion?index=7&size={LOG_SIZE}")),
        ),
        (
            "consistency proof (50,000 → 100,000)",
            get(format!("/v1/log/proof/consistency?from=50000&to={LOG_SIZE}")),
        ),
        (
            "a version's attestation (proof + signed checkpoint)",
            get("/v1/skills/skill-7/versions/2/attestation".to_owned()),
        ),
        ("checkpoint (signed per request)", get("/v1/log/checkpoint".to_owned())),
    ];
    for (name, request) in cases {
        let measured = measure_requests(&[request.try_clone().unwrap()], CLIENTS, RUN_FOR).await;
        // One client alone: the time a request takes when it does not queue behind others.
        let alone = measure_requests(&[request], 1, RUN_FOR).await;
        println!(
            "| {name} | {:.0} | {:.2} | {:.2} | {:.2} | {:.2} |",
            measured.per_second, measured.p50_ms, measured.p99_ms, alone.p50_ms, alone.p99_ms
        );
    }
}
