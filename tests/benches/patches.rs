//! Submitting patches under load: 20 concurrent submitters, each sending patches to one
//! skill over HTTP to a server on a random port (target: submit → pending_review
//! p50 ≤ 10 ms, p99 ≤ 50 ms server-side). Latencies are measured by the clients, so they
//! include the loopback round trip: an upper bound of the server-side time.
//!
//! Needs PostgreSQL (`DATABASE_URL`, default the local server).
//! Run: `cargo bench -p cairn-e2e --bench patches` (release build).

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use cairn_e2e::app::TestApp;
use cairn_store::Role;

const SUBMITTERS: usize = 20;
const PER_SUBMITTER: usize = 25;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

async fn run() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    let skill = std::fs::read_to_string(cairn_e2e::corpus().join("edits/hermes/0001_before.md")).unwrap();
    let dir = tree.path().join("demo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), &skill).unwrap();
    app.import(tree.path()).await.unwrap();
    let anchor = skill.lines().find(|l| l.starts_with("## ")).unwrap().to_owned();
    let mut tokens = Vec::new();
    for n in 0..SUBMITTERS {
        tokens.push(
            app.user_with_token(&format!("agent-{n}"), Role::Member)
                .await
                .unwrap()
                .1,
        );
    }
    let started = Instant::now();
    let tasks = tokens.into_iter().enumerate().map(|(n, token)| {
        let client = app.client.clone();
        let url = app.url("/v1/patches");
        let anchor = anchor.clone();
        tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(PER_SUBMITTER);
            for k in 0..PER_SUBMITTER {
                let body = serde_json::json!({
                    "skill": "demo",
                    "base_revision": 1,
                    "summary": format!("lesson {n}-{k}"),
                    "ops": [{"op": "patch", "old": format!("  {anchor}  "), "new": format!("{anchor}\n\nPitfall {n}-{k}: check first.")}],
                });
                let at = Instant::now();
                let response = client.post(&url).bearer_auth(&token).json(&body).send().await.unwrap();
                assert_eq!(response.status(), reqwest::StatusCode::CREATED);
                latencies.push(at.elapsed());
            }
            latencies
        })
    });
    let mut all: Vec<Duration> = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let elapsed = started.elapsed();
    all.sort_unstable();
    let at = |q: f64| all[((all.len() as f64 * q) as usize).min(all.len() - 1)];
    println!(
        "patches/submit: {} patches by {SUBMITTERS} concurrent submitters in {:.2} s ({:.0}/s); p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        all.len(),
        elapsed.as_secs_f64(),
        all.len() as f64 / elapsed.as_secs_f64(),
        at(0.50).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        all.last().unwrap().as_secs_f64() * 1e3,
    );
    app.stop().await.unwrap();
}
