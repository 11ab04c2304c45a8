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

use cairn_e2e::app::TestApp;
use cairn_e2e::web::WebSession;
use cairn_store::Role;
use serde_json::{Value, json};

const OPEN_PATCHES: usize = 50;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
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
    // Redirects are not followed: a page that sends to the login would fail the run.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for (label, path) in pages {
        let measured = cairn_e2e::load::measure(&client, &app.url(&path), Some(&cookie)).await;
        println!("{}", measured.row(label));
    }
}
