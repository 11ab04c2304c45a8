//! The MCP endpoint beside its REST equivalents (issue 24), on the ClawHub snapshot of the
//! corpus (`wild/openclaw`, about 2,000 skills), in-process on a fresh database: each
//! operation from 50 concurrent sessions for 10 s, in one run —
//!
//! - `search_skills("pdf", limit 10)` beside `GET /v1/skills?q=pdf&limit=10`;
//! - `load_skill(name)` beside its REST equivalent, the version with its manifest and
//!   the SKILL.md (`GET …/versions/latest`, then `GET …/versions/latest/files/SKILL.md`).
//!
//! Target: MCP at least half the REST throughput, p99 ≤ 20 ms.
//! Run: `cargo bench -p cairn-e2e --bench mcp` (needs PostgreSQL, as the tests do).

#![allow(missing_docs)]

use std::time::Duration;

use cairn_e2e::app::TestApp;
use cairn_e2e::load::{Measured, measure_requests};
use cairn_store::Role;
use serde_json::json;

const SESSIONS: usize = 50;
const RUN_FOR: Duration = Duration::from_secs(10);

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
    let (_, token) = app.user_with_token("agent", Role::Member).await.unwrap();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(SESSIONS)
        .build()
        .unwrap();
    let found: serde_json::Value = client
        .get(app.url("/v1/skills?q=pdf&limit=10"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let name = found["items"][0]["name"]
        .as_str()
        .expect("a skill about pdf")
        .to_owned();
    println!(
        "{} skills match 'pdf' over REST; loading '{name}'",
        found["items"].as_array().unwrap().len()
    );

    let tool = |id: usize, name: &str, arguments: serde_json::Value| {
        client.post(app.url("/mcp")).bearer_auth(&token).json(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }))
    };
    let rest = |path: &str| client.get(app.url(path)).bearer_auth(&token);
    let pairs: [(&str, Vec<reqwest::RequestBuilder>, Vec<reqwest::RequestBuilder>); 2] = [
        (
            "search",
            vec![rest("/v1/skills?q=pdf&limit=10")],
            vec![tool(1, "search_skills", json!({"query": "pdf", "limit": 10}))],
        ),
        (
            "load",
            vec![
                rest(&format!("/v1/skills/{name}/versions/latest")),
                rest(&format!("/v1/skills/{name}/versions/latest/files/SKILL.md")),
            ],
            vec![tool(2, "load_skill", json!({"name": name}))],
        ),
    ];
    println!("| operation | bytes | ops/s | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|");
    for (what, rest_op, mcp_op) in pairs {
        let rest_measured = measure_requests(&rest_op, SESSIONS, RUN_FOR).await;
        let mcp_measured = measure_requests(&mcp_op, SESSIONS, RUN_FOR).await;
        println!("{}", rest_measured.row(&format!("REST {what}")));
        println!("{}", mcp_measured.row(&format!("MCP {what}")));
        verdict(what, &rest_measured, &mcp_measured);
    }
}

fn verdict(what: &str, rest: &Measured, mcp: &Measured) {
    let ratio = mcp.per_second / rest.per_second;
    println!(
        "{what}: MCP at {ratio:.2}x REST throughput (target >= 0.5: {}), MCP p99 {:.1} ms (target <= 20: {})",
        if ratio >= 0.5 { "met" } else { "NOT met" },
        mcp.p99_ms,
        if mcp.p99_ms <= 20.0 { "met" } else { "NOT met" },
    );
}
