//! The review web under load, in-process against a fresh database: a logged-in session
//! (cookie) fetching, from 8 concurrent clients for 10 s each,
//!
//! 1. the review queue with 50 open patches (`/admin/queue`),
//! 2. the patch page of a large real edit from the corpus (`edits/hermes/0274`, 658
//!    changed lines of `comfyui/SKILL.md`; the largest, 0442, exceeds the SKILL.md size
//!    limit after the edit) with its scan (`/admin/patches/{id}`),
//! 3. that skill's page, its SKILL.md rendered as safe Markdown (`/admin/skills/{name}`),
//! 4. the same patch page side by side (`?view=split`).
//!
//! Prints requests per second and p50 / p99 latency per page. Run:
//! `cargo bench -p cairn-e2e --bench web` (needs PostgreSQL, as the tests do).

#![allow(missing_docs)]

use std::time::{Duration, Instant};

use cairn_e2e::app::TestApp;
use cairn_e2e::web::WebSession;
use cairn_store::Role;
use serde_json::{Value, json};

const CLIENTS: usize = 8;
const RUN_FOR: Duration = Duration::from_secs(10);
const OPEN_PATCHES: usize = 50;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn run() {
    let app = TestApp::spawn().await.unwrap();
    let edits = cairn_e2e::corpus().join("edits/hermes");
    let before = std::fs::read_to_string(edits.join("0274_before.md")).unwrap();
    let after = std::fs::read_to_string(edits.join("0274_after.md")).unwrap();
    let tree = tempfile::tempdir().unwrap();
    let dir = tree.path().join("creative/comfyui");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), &before).unwrap();
    let report = app.import(tree.path()).await.unwrap();
    assert_eq!(report.created.len(), 1, "{report:?}");
    let name = report.created[0].name.clone();
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();

    let submit = |ops: Value| {
        let request = app.client.post(app.url("/v1/patches")).bearer_auth(&member).json(
            &json!({"skill": name, "base_revision": 1, "summary": "a lesson", "rationale": "why",
                "agent": {"name": "hermes", "model": "m"}, "ops": ops}),
        );
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            let body = response.json::<Value>().await.unwrap();
            assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
            body["id"].as_str().unwrap().to_owned()
        }
    };
    let big = submit(json!([{"op": "edit", "content": after}])).await;
    for n in 1..OPEN_PATCHES {
        submit(
            json!([{"op": "write_file", "file": format!("references/note-{n}.md"), "content": format!("note {n}\n")}]),
        )
        .await;
    }

    let session = WebSession::login(&app.base_url, &reviewer).await.unwrap();
    let cookie = session
        .cookies()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    let pages = [
        ("queue (50 open patches)", "/admin/queue".to_owned()),
        ("patch page, 658-line edit", format!("/admin/patches/{big}")),
        ("skill page, rendered SKILL.md", format!("/admin/skills/{name}")),
        ("patch page, side by side", format!("/admin/patches/{big}?view=split")),
    ];
    println!("| page | bytes | req/s | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|");
    for (label, path) in pages {
        let url = app.url(&path);
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let first = client.get(&url).header("cookie", &cookie).send().await.unwrap();
        assert_eq!(first.status(), reqwest::StatusCode::OK, "{path}");
        let bytes = first.bytes().await.unwrap().len();
        let started = Instant::now();
        let mut tasks = Vec::new();
        for _ in 0..CLIENTS {
            let (client, url, cookie) = (client.clone(), url.clone(), cookie.clone());
            tasks.push(tokio::spawn(async move {
                let mut latencies = Vec::new();
                while started.elapsed() < RUN_FOR {
                    let t = Instant::now();
                    let response = client.get(&url).header("cookie", &cookie).send().await.unwrap();
                    assert!(response.status().is_success());
                    response.bytes().await.unwrap();
                    latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                }
                latencies
            }));
        }
        let mut all = Vec::new();
        for task in tasks {
            all.extend(task.await.unwrap());
        }
        let seconds = started.elapsed().as_secs_f64();
        all.sort_by(f64::total_cmp);
        println!(
            "| {label} | {bytes} | {:.0} | {:.1} | {:.1} |",
            all.len() as f64 / seconds,
            percentile(&all, 0.5),
            percentile(&all, 0.99)
        );
    }
}
