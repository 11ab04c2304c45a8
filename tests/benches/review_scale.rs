//! The review web at scale (issue 20), in-process against a fresh database:
//!
//! 1. the review queue with 1,000 open patches (20 skills, 5 authors, sizes from 1 to 40
//!    changed lines), first page in each order and with a substring filter, and the list
//!    alone as the live refresh fetches it;
//! 2. the patch page of a 200-file patch (deleting a skill of 200 files, 25 lines each:
//!    5,000 removed lines), unified and side by side.
//!
//! For each page: the bytes the browser receives for it (the HTML gzip-compressed as the
//! server sends it to a browser, plus the stylesheet and script once), the latency seen
//! by one client fetching back to back (over loopback: the server's time plus well under a
//! millisecond) and by 8 clients at once, with compression as a browser asks for it. Run:
//! `cargo bench -p cairn-e2e --bench review_scale` (needs PostgreSQL, as the tests do).

#![allow(missing_docs)]

use std::time::Duration;

use cairn_e2e::app::TestApp;
use cairn_e2e::load::measure_with;
use cairn_e2e::web::WebSession;
use cairn_store::Role;
use serde_json::{Value, json};

const SKILLS: usize = 20;
const AUTHORS: usize = 5;
const OPEN_PATCHES: usize = 1_000;
const BIG_FILES: usize = 200;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

fn skill_md(name: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: Runs the {name} checks before a release.\n---\n\n# {name}\n\n## Steps\n\n\
         1. Install the tool.\n2. Run it on the data.\n3. Check the output.\n\n## Pitfalls\n\n- Logs go to stderr.\n"
    )
}

async fn run() {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    for n in 0..SKILLS {
        let dir = tree.path().join(format!("ops/check-{n:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("SKILL.md"), skill_md(&format!("check-{n:02}"))).unwrap();
    }
    let big = tree.path().join("ops/handbook");
    std::fs::create_dir_all(big.join("references")).unwrap();
    std::fs::write(big.join("SKILL.md"), skill_md("handbook")).unwrap();
    for f in 1..BIG_FILES {
        let text: String = (0..25)
            .map(|l| format!("Line {l} of chapter {f}: what to check and why it matters.\n"))
            .collect();
        std::fs::write(big.join(format!("references/chapter-{f:03}.md")), text).unwrap();
    }
    let report = app.import(tree.path()).await.unwrap();
    assert_eq!(report.created.len(), SKILLS + 1, "{report:?}");

    let mut authors = Vec::new();
    for a in 0..AUTHORS {
        authors.push(
            app.user_with_token(&format!("member-{a}"), Role::Member)
                .await
                .unwrap()
                .1,
        );
    }
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();

    let started = std::time::Instant::now();
    let submit = |token: String, body: Value| {
        let request = app.client.post(app.url("/v1/patches")).bearer_auth(token).json(&body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            let body = response.json::<Value>().await.unwrap();
            assert_eq!(status, reqwest::StatusCode::CREATED, "{body}");
            body["id"].as_str().unwrap().to_owned()
        }
    };
    let bodies: Vec<(String, Value)> = (0..OPEN_PATCHES)
        .map(|n| {
            let skill = format!("check-{:02}", n % SKILLS);
            let lines: String = (0..=(n % 40))
                .map(|l| format!("\n- Pitfall {n}.{l}: the {} step {} needs its own cache key.", n * 7 + l, l))
                .collect();
            let body = json!({"skill": skill, "base_revision": 1, "summary": format!("lesson {n}"),
                "rationale": "hit it in CI", "agent": {"name": "hermes", "model": "m"},
                "ops": [{"op": "patch", "old": "- Logs go to stderr.", "new": format!("- Logs go to stderr.{lines}")}]});
            (authors[n % AUTHORS].clone(), body)
        })
        .collect();
    let mut ids = Vec::new();
    for chunk in bodies.chunks(8) {
        ids.extend(
            futures::future::join_all(chunk.iter().map(|(token, body)| submit(token.clone(), body.clone()))).await,
        );
    }
    let delete = submit(
        authors[0].clone(),
        json!({"skill": "handbook", "base_revision": 1, "summary": "retire the handbook",
            "rationale": "moved to the wiki", "agent": {"name": "hermes"}, "ops": [{"op": "delete"}]}),
    )
    .await;
    eprintln!(
        "{} open patches submitted in {:.1} s",
        OPEN_PATCHES + 1,
        started.elapsed().as_secs_f64()
    );

    // The reviewer owns every skill: the "requested from you" queue holds all 1,001.
    let owned = app
        .client
        .put(app.url("/v1/owners/categories/ops"))
        .bearer_auth(&app.admin_token)
        .json(&json!({"owners": ["rex"]}))
        .send()
        .await
        .unwrap();
    assert!(owned.status().is_success());

    let session = WebSession::login(&app.base_url, &reviewer).await.unwrap();
    let cookie = session
        .cookies()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    // Redirects are not followed: a page that sends to the login would fail the run. The
    // client does not decompress, so `bytes` is what went over the wire.
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut assets = 0;
    for asset in ["/admin/assets/cairn.css", "/admin/assets/cairn.js"] {
        let response = client
            .get(app.url(asset))
            .header("accept-encoding", "gzip")
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{asset}");
        assets += response.bytes().await.unwrap().len();
    }
    let pages = [
        ("queue, 1,000 open patches, newest first", "/admin/queue".to_owned()),
        ("queue, largest first", "/admin/queue?sort=size".to_owned()),
        ("queue, riskiest first", "/admin/queue?sort=verdict".to_owned()),
        (
            "queue, waiting longest, skill contains \"07\"",
            "/admin/queue?sort=oldest&skill=07".to_owned(),
        ),
        ("queue, requested from you", "/admin/queue?status=requested".to_owned()),
        ("patch page, 200 files", format!("/admin/patches/{delete}")),
        (
            "patch page, 200 files, side by side",
            format!("/admin/patches/{delete}?view=split"),
        ),
        (
            "patch page, 40 lines, SKILL.md preview",
            format!("/admin/patches/{}", ids[39]),
        ),
        (
            "patch page, 40 lines, SKILL.md whole",
            format!("/admin/patches/{}?full=SKILL.md", ids[39]),
        ),
    ];
    println!("stylesheet and script, gzip: {assets} bytes\n");
    println!(
        "| page | HTML bytes | HTML gzip | page weight, gzip | 1 client p50 ms | p99 ms | 8 clients req/s | p50 ms | p99 ms |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let fragment = [("x-cairn-fragment", "queue")];
    for (label, path) in pages {
        let url = app.url(&path);
        let plain = measure_with(&client, &url, &[("cookie", &cookie)], 1, Duration::from_millis(1)).await;
        let browser = [("cookie", cookie.as_str()), ("accept-encoding", "gzip")];
        let one = measure_with(&client, &url, &browser, 1, Duration::from_secs(8)).await;
        let eight = measure_with(&client, &url, &browser, 8, Duration::from_secs(8)).await;
        println!(
            "| {label} | {} | {} | {} | {:.1} | {:.1} | {:.0} | {:.1} | {:.1} |",
            plain.bytes,
            one.bytes,
            one.bytes + assets,
            one.p50_ms,
            one.p99_ms,
            eight.per_second,
            eight.p50_ms,
            eight.p99_ms
        );
        if path == "/admin/queue" {
            let url = app.url(&path);
            let headers = [("cookie", cookie.as_str()), ("accept-encoding", "gzip"), fragment[0]];
            let one = measure_with(&client, &url, &headers, 1, Duration::from_secs(8)).await;
            println!(
                "| the list alone (live refresh) | – | {} | – | {:.1} | {:.1} | – | – | – |",
                one.bytes, one.p50_ms, one.p99_ms
            );
        }
    }
}
