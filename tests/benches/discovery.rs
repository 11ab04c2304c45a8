//! The discovery endpoints other skill clients read, on the ClawHub snapshot of the
//! corpus (`wild/openclaw`, 2,055 importable skills), in-process on a fresh database:
//!
//! 1. the first `/.well-known/agent-skills/index.json`, which builds, stores and records
//!    every skill's archive;
//! 2. then, from 8 concurrent anonymous clients for 10 s each: the skills index, the
//!    agent-skills index (digests recorded), one stored archive, one file, and the
//!    ClawHub API's search, skill and zip download.
//!
//! Run: `cargo bench -p cairn-e2e --bench discovery` (needs PostgreSQL, as the tests do).

#![allow(missing_docs)]

use std::time::Instant;

use cairn_e2e::app::TestApp;
use cairn_store::Actor;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

async fn run() {
    let app = TestApp::spawn().await.unwrap();
    let report = app.import(&cairn_e2e::corpus().join("wild/openclaw")).await.unwrap();
    println!("imported {} skills", report.created.len());
    app.store
        .set_anonymous_read(app.org_id, true, &Actor::cli("bench"))
        .await
        .unwrap();
    let client = reqwest::Client::new();

    let started = Instant::now();
    let cold = client
        .get(app.url("/.well-known/agent-skills/index.json"))
        .send()
        .await
        .unwrap();
    assert!(cold.status().is_success());
    let index: serde_json::Value = cold.json().await.unwrap();
    let cold_time = started.elapsed();
    let entries = index["skills"].as_array().unwrap();
    println!(
        "first agent-skills index: {} entries in {:.2} s (every archive built, stored and recorded)",
        entries.len(),
        cold_time.as_secs_f64()
    );
    let first = entries[0]["name"].as_str().unwrap().to_owned();
    let pinned = entries[0]["url"].as_str().unwrap().to_owned();

    let pages = [
        ("skills index", "/.well-known/skills/index.json".to_owned()),
        ("agent-skills index", "/.well-known/agent-skills/index.json".to_owned()),
        ("one archive (stored)", format!("/.well-known/agent-skills/{pinned}")),
        ("one file (SKILL.md)", format!("/.well-known/skills/{first}/SKILL.md")),
        ("ClawHub search (`pdf`)", "/api/v1/search?q=pdf".to_owned()),
        ("ClawHub skill", format!("/api/v1/skills/{first}")),
        ("ClawHub zip download", format!("/api/v1/download?slug={first}")),
    ];
    println!("| endpoint | bytes | req/s | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|");
    for (label, path) in pages {
        let measured = cairn_e2e::load::measure(&client, &app.url(&path), None).await;
        println!("{}", measured.row(label));
    }
}
