//! The MCP endpoint (issue 24) through clients we did not write: the official Python SDK
//! in both protocol eras (the 2026-07-28 stateless protocol, and the initialize
//! handshake), FastMCP's Skills client, and the official TypeScript SDK (which also checks
//! every structured answer against the tool's output schema). Proposals become pending
//! patches and, approved, published versions; read-only tokens cannot write; bad
//! arguments and refused proposals change nothing; yanked versions are invisible.

use cairn_e2e::app::{TestApp, error_code, send};
use cairn_e2e::mcp_clients::{python, run_json, ts_sdk};
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

const SKILL_MD: &str = "---\nname: deploy\ndescription: Deploy the web service to Kubernetes\nlicense: MIT\n---\n\
## Steps\n\n1. Build the image.\n2. Push it to the registry.\n3. Apply the manifests.\n\n## Pitfalls\n\n\
- Check the image tag before applying.\n";
const NOTES: &str = "Rollbacks use the previous image tag.\n";
const GIT_MD: &str =
    "---\nname: git-flow\ndescription: Branch, commit and open a pull request\n---\n## Steps\n\n1. Branch from main.\n";

/// Runs the Python client's `scenario` against `app` with `token` in protocol `mode`.
async fn python_client(app: &TestApp, token: &str, mode: &str, scenario: &str, params: Value) -> Value {
    let script = tempfile::Builder::new().suffix(".py").tempfile().unwrap();
    std::fs::write(script.path(), include_str!("mcp_client.py")).unwrap();
    let mut command = tokio::process::Command::new(python());
    command
        .arg(script.path())
        .arg(scenario)
        .arg(params.to_string())
        .env("CAIRN_MCP_URL", app.url("/mcp"))
        .env("CAIRN_TOKEN", token)
        .env("CAIRN_MCP_MODE", mode);
    run_json(command, &format!("python {scenario} ({mode})")).await
}

/// Runs the TypeScript client against `app` with `token`.
async fn typescript_client(app: &TestApp, token: &str, params: Value) -> Value {
    let prefix = ts_sdk();
    // Beside node_modules, so the SDK resolves; one file per run.
    let script = tempfile::Builder::new()
        .prefix("cairn-mcp-client-")
        .suffix(".mjs")
        .tempfile_in(&prefix)
        .unwrap();
    std::fs::write(script.path(), include_str!("mcp_client.mjs")).unwrap();
    let mut command = tokio::process::Command::new("node");
    command
        .arg(script.path())
        .env("CAIRN_MCP_URL", app.url("/mcp"))
        .env("CAIRN_TOKEN", token)
        .env("CAIRN_PARAMS", params.to_string());
    run_json(command, "node client").await
}

async fn team() -> (TestApp, String) {
    let app = TestApp::spawn().await.unwrap();
    app.import_files(&[
        ("devops/deploy/SKILL.md", SKILL_MD),
        ("devops/deploy/references/notes.md", NOTES),
        ("tools/git-flow/SKILL.md", GIT_MD),
    ])
    .await;
    let (_, mia) = app.user_with_token("mia", Role::Member).await.unwrap();
    (app, mia)
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("sha256:{}", hex::encode(sha2::Sha256::digest(bytes)))
}

fn lesson(n: usize) -> Value {
    json!({
        "skill": "deploy",
        "base_revision": 1,
        "summary": format!("Check the context before applying ({n})"),
        "rationale": "Applied to the wrong cluster once.",
        "ops": [{
            "op": "patch",
            "old": "- Check the image tag before applying.",
            "new": format!("- Check the image tag before applying.\n- Check `kubectl config current-context` first ({n})."),
        }],
    })
}

/// What a tool answered: its structured content, or the text of its error.
fn answered(result: &Value) -> Result<&Value, &str> {
    match result["isError"].as_bool() {
        Some(true) => Err(result["content"][0]["text"].as_str().unwrap_or_default()),
        _ => Ok(&result["structuredContent"]),
    }
}

#[tokio::test]
async fn the_python_sdk_searches_loads_reads_and_proposes_in_both_protocol_eras() {
    let (app, mia) = team().await;
    let mut proposals = Vec::new();
    for (n, (mode, protocol)) in [("auto", "2026-07-28"), ("legacy", "2025-11-25")]
        .into_iter()
        .enumerate()
    {
        let params = json!({"query": "kubernetes deploy", "skill": "deploy", "file": "references/notes.md", "propose": lesson(n)});
        let out = python_client(&app, &mia, mode, "tour", params).await;
        assert_eq!(out["protocol"], protocol, "{mode}");
        if mode == "auto" {
            assert!(
                out["capabilities"]["extensions"]["io.modelcontextprotocol/skills"].is_object(),
                "{}",
                out["capabilities"]
            );
        }
        // Every tool, the read-only ones annotated as such.
        let tools: Vec<(&str, bool)> = out["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["name"].as_str().unwrap(), t["annotations"]["readOnlyHint"] == true))
            .collect();
        assert_eq!(
            tools,
            [
                ("get_patch", true),
                ("list_my_patches", true),
                ("load_skill", true),
                ("propose_patch", false),
                ("propose_skill", false),
                ("read_skill_file", true),
                ("search_skills", true),
            ],
            "{mode}"
        );
        let found = answered(&out["search"]).unwrap();
        assert_eq!(found["skills"][0]["name"], "deploy", "{mode}: {found}");
        assert_eq!(found["skills"][0]["uri"], "skill://default/deploy/SKILL.md");
        assert_eq!(
            found["skills"].as_array().unwrap().len(),
            1,
            "git-flow matches no word: {found}"
        );
        let loaded = answered(&out["load"]).unwrap();
        assert_eq!(
            (loaded["revision"].as_i64(), loaded["skill_md"].as_str()),
            (Some(1), Some(SKILL_MD))
        );
        let files: Vec<&str> = loaded["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap())
            .collect();
        assert_eq!(files, ["SKILL.md", "references/notes.md"]);
        assert_eq!(answered(&out["read"]).unwrap()["text"], NOTES);
        let schema = answered(&out["schema_error"]).unwrap_err();
        assert!(schema.contains("input schema") && schema.contains("qurey"), "{schema}");
        let unknown = answered(&out["unknown_skill"]).unwrap_err();
        assert!(unknown.contains("does not exist"), "{unknown}");
        assert_eq!(out["resource"]["contents"][0]["text"], SKILL_MD);
        assert_eq!(out["resource"]["contents"][0]["mimeType"], "text/markdown");
        assert_eq!(out["templates"].as_array().unwrap().len(), 2);
        // The Skills extension: every file with the digest of its exact bytes, named by
        // the revision's URIs (what a host reads is what the manifest describes).
        let listed = &out["skills_list"]["skills"];
        let deploy = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["frontmatter"]["name"] == "deploy")
            .unwrap();
        assert_eq!(deploy["frontmatter"]["license"], "MIT");
        assert_eq!(
            deploy["resources"],
            json!([
                {"uri": "skill://default/@1/deploy/SKILL.md", "digest": sha256(SKILL_MD.as_bytes()), "size": SKILL_MD.len()},
                {"uri": "skill://default/@1/deploy/references/notes.md", "digest": sha256(NOTES.as_bytes()), "size": NOTES.len()},
            ])
        );
        // skills/get answers in the form it was asked (here the latest): the same files.
        let got = &out["skills_get"]["skill"];
        assert_eq!(got["uri"], "skill://default/deploy/SKILL.md");
        assert_eq!(got["frontmatter"], deploy["frontmatter"]);
        let digests = |entry: &Value| -> Vec<Value> {
            entry["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["digest"].clone())
                .collect()
        };
        assert_eq!(digests(got), digests(deploy));
        assert!(
            out["skills_get_unknown"]["error"]
                .as_str()
                .unwrap()
                .contains("does not exist"),
            "{}",
            out["skills_get_unknown"]
        );
        // The proposal: pending, linked, recorded with the client's own description.
        let proposal = answered(&out["proposal"]).unwrap();
        assert_eq!(proposal["status"], "pending_review", "{proposal}");
        let id = proposal["id"].as_str().unwrap().to_owned();
        assert_eq!(proposal["review_url"], app.url(&format!("/admin/patches/{id}")));
        let mine = answered(&out["mine"]).unwrap();
        let line = mine["patches"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id.as_str())
            .unwrap_or_else(|| panic!("{mine}"));
        // Enough to follow many proposals without a get_patch each.
        assert_eq!(line["verdict"], "safe", "{line}");
        assert_eq!(line["findings"], 0, "{line}");
        assert!(line["next_step"].as_str().unwrap().contains("review"), "{line}");
        assert!(line["decided_by"].is_null() && line["decided_at"].is_null(), "{line}");
        assert_eq!(answered(&out["patch"]).unwrap()["status"], "pending_review");
        let patch = app.get_json_as(&mia, &format!("/v1/patches/{id}")).await;
        assert_eq!(patch["author"], "mia");
        assert_eq!(
            patch["agent"]["name"], "cairn-e2e-python 9.9",
            "{mode}: {}",
            patch["agent"]
        );
        match mode {
            // The handshake era has a session; the stateless protocol has none.
            "legacy" => assert!(
                patch["agent"]["session"].as_str().unwrap().starts_with("cairn1."),
                "{}",
                patch["agent"]
            ),
            _ => assert!(patch["agent"]["session"].is_null(), "{}", patch["agent"]),
        }
        proposals.push(id);
    }

    // Approved by a reviewer, the lesson is what agents load next.
    let (status, approved) = app
        .post_json(
            &app.admin_token,
            &format!("/v1/patches/{}/approve", proposals[0]),
            &json!({}),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let after = python_client(
        &app,
        &mia,
        "auto",
        "load",
        json!({"skill": "deploy", "load": {"name": "deploy"}, "resources": ["skill://default/@2/deploy/SKILL.md"]}),
    )
    .await;
    let loaded = answered(&after["load"]).unwrap();
    assert_eq!(loaded["revision"], 2);
    assert!(
        loaded["skill_md"]
            .as_str()
            .unwrap()
            .contains("current-context` first (0)"),
        "{loaded}"
    );

    // Yanked, revision 2 is invisible: not latest, not loadable by number, not a resource.
    let (status, yank) = app
        .post_json(&app.admin_token, "/v1/skills/deploy/versions/2/yank", &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{yank}");
    let yanked = python_client(
        &app,
        &mia,
        "auto",
        "load",
        json!({"skill": "deploy", "load": {"name": "deploy", "revision": 2}, "resources": ["skill://default/@2/deploy/SKILL.md"]}),
    )
    .await;
    let refused = answered(&yanked["load"]).unwrap_err();
    assert!(refused.contains("yanked") && refused.contains("latest"), "{refused}");
    assert_eq!(answered(&yanked["search"]).unwrap()["skills"][0]["revision"], 1);
    let listed = yanked["skills_list"]["skills"].to_string();
    assert!(listed.contains(&sha256(SKILL_MD.as_bytes())), "{listed}");
    let resource = &yanked["resources"]["skill://default/@2/deploy/SKILL.md"];
    assert!(
        resource["error"].as_str().unwrap_or_default().contains("yanked"),
        "{resource}"
    );
}

#[tokio::test]
async fn read_only_tokens_cannot_write_and_refused_proposals_change_nothing() {
    let (app, mia) = team().await;
    let read_only = app.read_only_token(&mia).await;
    let before = app.state_snapshot().await.unwrap();

    let out = python_client(
        &app,
        &read_only,
        "auto",
        "propose",
        json!({"calls": [["propose_patch", lesson(1)]]}),
    )
    .await;
    let tools: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        !tools.contains(&"propose_patch") && tools.contains(&"search_skills"),
        "{tools:?}"
    );
    let refused = answered(&out["answers"][0]).unwrap_err();
    assert!(refused.contains("'submit'") && refused.contains("read"), "{refused}");

    // Each class of bad proposal from a member who may write: a clear error, nothing stored.
    let mut wrong_base = lesson(2);
    wrong_base["base_revision"] = json!(9);
    let mut unknown_skill = lesson(3);
    unknown_skill["skill"] = json!("no-such-skill");
    let mut unplaceable = lesson(4);
    unplaceable["ops"][0]["old"] = json!("a line that is nowhere in the skill");
    let mut bad_op = lesson(5);
    bad_op["ops"] = json!([{"op": "rename", "file": "SKILL.md"}]);
    let mut missing_field = lesson(6);
    missing_field.as_object_mut().unwrap().remove("rationale");
    let calls = json!([
        ["propose_patch", wrong_base],
        ["propose_patch", unknown_skill],
        ["propose_patch", unplaceable],
        ["propose_patch", bad_op],
        ["propose_patch", missing_field],
        ["propose_skill", {"content": "no frontmatter here"}],
        ["propose_skill", {"content": "---\ndescription: x\n---\nbody\n"}],
        ["get_patch", {"id": "not-a-uuid"}],
        ["search_skills", {"query": "x", "limit": 500}],
    ]);
    let out = python_client(&app, &mia, "auto", "propose", json!({ "calls": calls })).await;
    let errors: Vec<&str> = out["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| answered(a).expect_err("refused"))
        .collect();
    for (error, expected) in errors.iter().zip([
        "revision 9",
        "no-such-skill",
        "closest",
        "rename",
        "rationale",
        "frontmatter",
        "'name'",
        "not a patch id",
        "1 to 50",
    ]) {
        assert!(error.contains(expected), "expected '{expected}' in: {error}");
    }
    assert_eq!(
        app.state_snapshot().await.unwrap(),
        before,
        "a refused call changed something"
    );
}

#[tokio::test]
async fn many_agents_propose_at_once_and_every_lesson_is_recorded_once() {
    let (app, mia) = team().await;
    let calls: Vec<Value> = (0..12).map(|n| json!(["propose_patch", lesson(n)])).collect();
    let mut runs = Vec::new();
    for _ in 0..3 {
        runs.push(python_client(
            &app,
            &mia,
            "auto",
            "propose",
            json!({ "calls": calls.clone() }),
        ));
    }
    let mut ids = std::collections::BTreeSet::new();
    for out in futures::future::join_all(runs).await {
        for answer in out["answers"].as_array().unwrap() {
            let patch = answered(answer).unwrap();
            assert_eq!(patch["status"], "pending_review", "{patch}");
            assert!(
                ids.insert(patch["id"].as_str().unwrap().to_owned()),
                "an id answered twice"
            );
        }
    }
    assert_eq!(ids.len(), 36);
    let listed = app.get_json_as(&mia, "/v1/patches?author=mia&limit=100").await;
    assert_eq!(listed["items"].as_array().unwrap().len(), 36, "{listed}");
}

#[tokio::test]
async fn fastmcp_verifies_every_file_of_a_skill_against_the_manifest() {
    let (app, mia) = team().await;
    let out = python_client(&app, &mia, "auto", "fastmcp", json!({"skill": "deploy"})).await;
    assert_eq!(out["names"], json!(["deploy", "git-flow"]));
    assert_eq!(out["uri"], "skill://default/@1/deploy/SKILL.md");
    let verified = out["verified"].as_array().unwrap();
    assert_eq!(verified.len(), 2);
    assert!(verified.iter().all(|v| v["ok"] == true), "{verified:?}");
}

#[tokio::test]
async fn the_typescript_sdk_reads_and_proposes_with_its_session_recorded() {
    let (app, mia) = team().await;
    let out = typescript_client(
        &app,
        &mia,
        json!({"query": "pull request", "skill": "git-flow", "propose": lesson(7)}),
    )
    .await;
    assert_eq!(out["server"]["name"], "cairn-registry");
    // The three things every agent is told: search first, skill text is advice it still
    // checks, and lessons are proposed rather than kept.
    let instructions = out["instructions"].as_str().unwrap();
    for told in [
        "Before you start a task, call search_skills",
        "that you still check",
        "propose it with propose_patch",
    ] {
        assert!(instructions.contains(told), "{told}: {instructions}");
    }
    let session = out["session"].as_str().unwrap().to_owned();
    assert!(session.starts_with("cairn1."), "{session}");
    assert_eq!(out["tools"].as_array().unwrap().len(), 7);
    assert_eq!(out["search"]["structuredContent"]["skills"][0]["name"], "git-flow");
    assert_eq!(out["load"]["structuredContent"]["skill_md"], GIT_MD);
    assert_eq!(out["resource"]["contents"][0]["text"], GIT_MD);
    assert_eq!(
        out["resources"],
        json!(["skill://default/deploy/SKILL.md", "skill://default/git-flow/SKILL.md"])
    );
    let proposal = answered(&out["proposal"]).unwrap();
    assert_eq!(proposal["status"], "pending_review");
    assert_eq!(answered(&out["patch"]).unwrap()["id"], proposal["id"]);
    let patch = app
        .get_json_as(&mia, &format!("/v1/patches/{}", proposal["id"].as_str().unwrap()))
        .await;
    assert_eq!(patch["agent"]["name"], "cairn-e2e-typescript 1.0.0");
    assert_eq!(
        patch["agent"]["session"].as_str(),
        session.rsplit_once('.').map(|(s, _)| s)
    );
}

#[tokio::test]
async fn the_endpoint_refuses_other_hosts_anonymous_callers_and_other_methods() {
    let (app, mia) = team().await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, body) = send(app.post_as(&mia, "/mcp").header("host", "evil.example").json(&list)).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(error_code(&body), "host_not_allowed");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("CAIRN_MCP_ALLOWED_HOSTS")
    );
    let (status, _) = send(app.client.post(app.url("/mcp")).json(&list)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = send(app.get_as(&mia, "/mcp")).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    // Plain HTTP clients (Accept: */*) get the JSON answer.
    let (status, body) = send(app.post_as(&mia, "/mcp").json(&list)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["tools"].as_array().unwrap().len(), 7);
}

#[tokio::test]
async fn an_agents_proposal_always_waits_for_a_person_even_from_a_trusted_author() {
    let (app, mia) = team().await;
    let (status, body) = send(
        app.client
            .put(app.url("/v1/patch-policy"))
            .bearer_auth(&app.admin_token)
            .json(&json!({"auto_approve_safe_from": ["mia"]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Over REST, mia's safe patch is published by the policy…
    let (status, rest) = app.post_json(&mia, "/v1/patches", &lesson(1)).await;
    assert_eq!(status, StatusCode::CREATED, "{rest}");
    assert_eq!(rest["status"], "approved", "{rest}");
    // …over MCP, the same kind of lesson waits for a reviewer (skill text can talk an agent
    // into proposing), and says so in its record.
    let mut proposal = lesson(2);
    proposal["base_revision"] = json!(2);
    proposal["ops"][0]["old"] = json!("- Check `kubectl config current-context` first (1).");
    proposal["ops"][0]["new"] = json!("- Check `kubectl config current-context` first (1).\n- And the namespace.");
    let out = python_client(
        &app,
        &mia,
        "auto",
        "propose",
        json!({"calls": [["propose_patch", proposal]]}),
    )
    .await;
    let patch = answered(&out["answers"][0]).unwrap();
    assert_eq!(patch["status"], "pending_review", "{patch}");
    let stored = app
        .get_json_as(&mia, &format!("/v1/patches/{}", patch["id"].as_str().unwrap()))
        .await;
    assert_eq!(stored["agent"]["via"], "mcp");
    assert_eq!(stored["decision"], "pending_review", "{}", stored["decision"]);
    // Its next round, sent over REST under another agent's name, still waits: the patch
    // began as an agent's proposal, and stays one.
    let id = patch["id"].as_str().unwrap();
    let mut round = proposal.clone();
    round["ops"][0]["new"] = json!("- Check `kubectl config current-context` first (1).\n- And the namespace, always.");
    let body = json!({"base_revision": 2, "ops": round["ops"], "agent": {"name": "hermes", "via": "rest"}});
    let (status, revised) = app.post_json(&mia, &format!("/v1/patches/{id}/revisions"), &body).await;
    assert_eq!(status, StatusCode::OK, "{revised}");
    assert_eq!(revised["status"], "pending_review", "{revised}");
    assert_eq!(revised["agent"]["via"], "mcp", "{}", revised["agent"]);
    assert_eq!(revised["agent"]["name"], "hermes");
    // A REST patch that supersedes it is still the agent's proposal: it waits too.
    let mut carried = lesson(3);
    carried["base_revision"] = json!(2);
    carried["ops"] = round["ops"].clone();
    carried["supersedes"] = json!(id);
    carried["agent"] = json!({"name": "hermes"});
    let (status, superseding) = app.post_json(&mia, "/v1/patches", &carried).await;
    assert_eq!(status, StatusCode::CREATED, "{superseding}");
    assert_eq!(superseding["status"], "pending_review", "{superseding}");
    assert_eq!(superseding["agent"]["via"], "mcp", "{}", superseding["agent"]);
}

#[tokio::test]
async fn uris_of_another_organisation_are_refused() {
    let (app, mia) = team().await;
    let read = |uri: &str| json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri}});
    let (status, body) = send(
        app.post_as(&mia, "/mcp")
            .json(&read("skill://other-org/deploy/SKILL.md")),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("'other-org'") && message.contains("skill://default/"),
        "{message}"
    );
    let (_, body) = send(app.post_as(&mia, "/mcp").json(&read("skill://default/deploy/SKILL.md"))).await;
    assert_eq!(body["result"]["contents"][0]["text"], SKILL_MD);
}

#[tokio::test]
async fn a_new_skill_proposed_by_an_agent_is_reviewed_then_found_by_every_agent() {
    let (app, mia) = team().await;
    let content = "---\nname: triage\ndescription: Triage incoming incidents by severity\n---\n## Steps\n\n\
                   1. Read the alert.\n2. Check the runbook in references/runbook.md.\n";
    let calls = json!([["propose_skill", {
        "content": content,
        "files": {"references/runbook.md": "Page the on-call engineer for sev1.\n"},
        "category": "ops",
        "rationale": "We triaged by hand three times this week.",
    }]]);
    let out = python_client(&app, &mia, "auto", "propose", json!({ "calls": calls })).await;
    let proposal = answered(&out["answers"][0]).unwrap();
    assert_eq!(proposal["status"], "pending_review", "{proposal}");
    assert_eq!(proposal["summary"], "New skill: triage");
    let id = proposal["id"].as_str().unwrap();
    // Not served before a person approves it.
    let before = python_client(
        &app,
        &mia,
        "auto",
        "propose",
        json!({"calls": [["load_skill", {"name": "triage"}]]}),
    )
    .await;
    assert!(answered(&before["answers"][0]).unwrap_err().contains("does not exist"));
    let (status, approved) = app
        .post_json(&app.admin_token, &format!("/v1/patches/{id}/approve"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let calls = json!([
        ["search_skills", {"query": "incident", "category": "ops"}],
        ["read_skill_file", {"name": "triage", "path": "references/runbook.md"}],
    ]);
    let after = python_client(&app, &mia, "auto", "propose", json!({ "calls": calls })).await;
    let found = answered(&after["answers"][0]).unwrap();
    assert_eq!(found["skills"][0]["name"], "triage", "{found}");
    assert_eq!(found["skills"][0]["category"], "ops");
    assert_eq!(
        answered(&after["answers"][1]).unwrap()["text"],
        "Page the on-call engineer for sev1.\n"
    );
}

#[tokio::test]
async fn a_skill_whose_every_version_is_yanked_disappears_for_agents() {
    let (app, mia) = team().await;
    let (status, yank) = app
        .post_json(&app.admin_token, "/v1/skills/git-flow/versions/1/yank", &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{yank}");
    let out = python_client(
        &app,
        &mia,
        "auto",
        "load",
        json!({"skill": "git-flow", "load": {"name": "git-flow"}, "resources": ["skill://default/git-flow/SKILL.md", "skill://default/@1/git-flow/SKILL.md"]}),
    )
    .await;
    let refused = answered(&out["load"]).unwrap_err();
    assert!(refused.contains("no version that is not yanked"), "{refused}");
    assert_eq!(
        answered(&out["search"]).unwrap()["skills"],
        json!([]),
        "{}",
        out["search"]
    );
    let listed: Vec<&str> = out["skills_list"]["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["frontmatter"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["deploy"]);
    for uri in [
        "skill://default/git-flow/SKILL.md",
        "skill://default/@1/git-flow/SKILL.md",
    ] {
        let error = out["resources"][uri]["error"].as_str().unwrap_or_default();
        assert!(error.contains("yanked"), "{uri}: {error}");
    }
}

#[tokio::test]
async fn a_stateless_client_names_its_session_in_meta_and_only_a_plain_name_is_kept() {
    let (app, mia) = team().await;
    let too_long = "s".repeat(cairn_wire::mcp::MAX_SESSION + 1);
    for (n, (named, kept)) in [
        ("agent-run:42.a_b", Some("agent-run:42.a_b")),
        ("two words", None),
        ("<script>", None),
        (too_long.as_str(), None),
    ]
    .into_iter()
    .enumerate()
    {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "propose_patch",
            "arguments": lesson(n),
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "raw-agent", "version": "1"},
                (cairn_wire::mcp::SESSION_META): named,
            },
        }});
        let (status, body) = send(
            app.post_as(&mia, "/mcp")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "propose_patch")
                .json(&call),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let proposal = answered(&body["result"]).unwrap();
        let patch = app
            .get_json_as(&mia, &format!("/v1/patches/{}", proposal["id"].as_str().unwrap()))
            .await;
        assert_eq!(patch["agent"]["name"], "raw-agent 1");
        assert_eq!(
            patch["agent"]["session"].as_str(),
            kept,
            "{named:?}: {}",
            patch["agent"]
        );
    }
    // The audit row of each proposal says an agent sent it over MCP, and which.
    let (status, log) = send(app.get("/v1/audit?actor=mia")).await;
    assert_eq!(status, StatusCode::OK, "{log}");
    let submitted: Vec<&Value> = log["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "patch.submit")
        .collect();
    assert_eq!(submitted.len(), 4, "{log}");
    for row in submitted {
        assert_eq!(row["details"]["agent"]["via"], "mcp", "{row}");
        assert_eq!(row["details"]["agent"]["name"], "raw-agent 1", "{row}");
    }
}

#[tokio::test]
async fn a_token_has_a_proposal_budget_across_transports_and_refusals_store_nothing() {
    use cairn_registry::config::AccessSettings;
    use cairn_registry::ratelimit::{Limit, RateLimits};
    let data_dir = tempfile::tempdir().unwrap();
    let blobs: std::sync::Arc<dyn cairn_store::blob::BlobStore> =
        std::sync::Arc::new(cairn_store::blob::FsBlobStore::new(data_dir.path().join("blobs")).unwrap());
    let settings = AccessSettings {
        rate_limits: RateLimits {
            per_token: None,
            per_address: None,
            proposals_per_token: Limit::parse("3/h").unwrap(),
            proposals_per_user: Limit::parse("5/h").unwrap(),
        },
        ..AccessSettings::default()
    };
    let app = TestApp::spawn_with_settings(data_dir, blobs, settings).await.unwrap();
    app.import_files(&[("devops/deploy/SKILL.md", SKILL_MD)]).await;
    let (_, mia) = app.user_with_token("mia", Role::Member).await.unwrap();
    // An agent talked into proposing again and again: three go to review, the fourth
    // is refused with what to do, and nothing of it is stored.
    let calls: Vec<Value> = (1..=4).map(|n| json!(["propose_patch", lesson(n)])).collect();
    let before = app.state_snapshot().await.unwrap();
    let out = python_client(&app, &mia, "auto", "propose", json!({"calls": calls})).await;
    // The client sends them at once: any three are accepted.
    let answers: Vec<Result<&Value, &str>> = out["answers"].as_array().unwrap().iter().map(answered).collect();
    let accepted = answers
        .iter()
        .filter(|a| a.is_ok_and(|p| p["status"] == "pending_review"))
        .count();
    assert_eq!(accepted, 3, "{out}");
    let refused = answers.iter().find_map(|a| a.err()).unwrap();
    assert!(
        refused.contains("budget of 3/h proposals") && refused.contains("CAIRN_RATE_LIMIT_PROPOSALS"),
        "{refused}"
    );
    let (status, patches) = send(app.get_as(&mia, "/v1/patches?status=pending_review")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(patches["items"].as_array().unwrap().len(), 3, "{patches}");
    // The budget is the token's, whatever the transport: REST is refused too (429)…
    let after_three = app.state_snapshot().await.unwrap();
    assert_ne!(after_three, before);
    let mut rest = lesson(5);
    rest["agent"] = json!({"name": "hermes"});
    let (status, body) = app.post_json(&mia, "/v1/patches", &rest).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    assert_eq!(error_code(&body), "rate_limited");
    assert_eq!(app.state_snapshot().await.unwrap(), after_three);
    // …while another token has its own.
    let other = app.read_only_token(&mia).await;
    let (status, body) = app.post_json(&other, "/v1/patches", &rest).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a read-only token is refused for its scope first: {body}"
    );
    let (status, issued) = send(
        app.post_as(&mia, "/v1/tokens")
            .json(&json!({"name": "second agent", "scopes": ["read", "submit"]})),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{issued}");
    let second = issued["token"].as_str().unwrap();
    let (status, body) = app.post_json(second, "/v1/patches", &rest).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    // Minting tokens does not multiply the budget: the user's ceiling (5/h) covers all of
    // them, the refused ones above not counted.
    let mut sixth = lesson(6);
    sixth["agent"] = json!({"name": "hermes"});
    let (status, body) = app.post_json(second, "/v1/patches", &sixth).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let before_ceiling = app.state_snapshot().await.unwrap();
    let mut seventh = lesson(7);
    seventh["agent"] = json!({"name": "hermes"});
    let (status, body) = app.post_json(second, "/v1/patches", &seventh).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default().to_owned();
    assert!(
        message.contains("your tokens together") && message.contains("CAIRN_RATE_LIMIT_USER_PROPOSALS"),
        "{body}"
    );
    assert_eq!(app.state_snapshot().await.unwrap(), before_ceiling);
    // Another member's agent is not touched by it.
    let (_, noor) = app.user_with_token("noor", Role::Member).await.unwrap();
    let (status, body) = app.post_json(&noor, "/v1/patches", &seventh).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// One JSON-RPC call to `/mcp` in the stateless protocol, as `cairn mcp` sends it.
async fn rpc(app: &TestApp, token: &str, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-agent", "version": "1"},
    });
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut request = app
        .post_as(token, "/mcp")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(uri) = call["params"]["uri"].as_str() {
        request = request.header("mcp-name", uri);
    }
    let (status, body) = send(request.json(&call)).await;
    assert_eq!(status, StatusCode::OK, "{method}: {body}");
    assert!(body["error"].is_null(), "{method}: {body}");
    body["result"].clone()
}

#[tokio::test]
async fn a_skill_listed_before_a_publication_is_read_as_listed() {
    // A host lists, a reviewer publishes, the host reads: the manifest's URIs name the
    // revision it describes, so every digest still matches what is read.
    let (app, mia) = team().await;
    let listed = rpc(&app, &mia, "skills/list", json!({})).await;
    let deploy = listed["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["frontmatter"]["name"] == "deploy")
        .unwrap()
        .clone();
    let got = rpc(&app, &mia, "skills/get", json!({"uri": deploy["uri"]})).await;
    assert_eq!(
        got["skill"], deploy,
        "skills/get of a listed URI answers the same entry"
    );
    let (status, proposal) = app
        .post_json(&mia, "/v1/patches", &{
            let mut p = lesson(1);
            p["agent"] = json!({"name": "hermes"});
            p
        })
        .await;
    assert_eq!(status, StatusCode::CREATED, "{proposal}");
    let id = proposal["id"].as_str().unwrap();
    let (status, approved) = app
        .post_json(&app.admin_token, &format!("/v1/patches/{id}/approve"), &json!({}))
        .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    for resource in deploy["resources"].as_array().unwrap() {
        let read = rpc(&app, &mia, "resources/read", json!({"uri": resource["uri"]})).await;
        let text = read["contents"][0]["text"].as_str().unwrap();
        assert_eq!(sha256(text.as_bytes()), resource["digest"], "{resource}");
    }
    // The listing now names revision 2.
    let relisted = rpc(&app, &mia, "skills/list", json!({})).await;
    let uris: Vec<&str> = relisted["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["uri"].as_str().unwrap())
        .collect();
    assert!(uris.contains(&"skill://default/@2/deploy/SKILL.md"), "{uris:?}");
}
