//! Identity and access end to end: the authorization table walked by every role of two
//! organisations, token and user administration, immediate revocation, the audit log,
//! rate limits and yanking.

use std::collections::BTreeMap;
use std::time::Duration;

use cairn_e2e::app::{TestApp, error_code, error_message, json_of, send};
use cairn_registry::access::{Access, Rule};
use cairn_registry::auth::scopes::{Scope, ScopeSet};
use cairn_registry::server::rules;
use cairn_skill::Sha256Hash;
use cairn_store::{Actor, Role, UserUpdate};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::fixtures::write_skill;

const ROLES: [Role; 4] = [Role::Admin, Role::Reviewer, Role::Member, Role::Reader];

/// Two organisations with a user of every role each; `default` has a skill with two
/// revisions. Everything of `default` is named so that it can be recognised in an answer
/// to the other organisation (`askill`, `ahandle-…`).
struct World {
    app: TestApp,
    own: BTreeMap<&'static str, String>,
    other: BTreeMap<&'static str, String>,
    file_sha: String,
    admin_token_id: String,
    /// A member's token who is none of the sampled roles: the author of patches that
    /// reviewers decide.
    target_token: String,
    /// A patch of `default`.
    patch_id: String,
    /// A webhook of `default`.
    webhook_id: String,
}

async fn world() -> World {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    write_skill(
        tree.path(),
        "ops/askill",
        "askill",
        "First.",
        &[("references/a.md", "askill notes")],
    );
    app.import(tree.path()).await.unwrap();
    write_skill(
        tree.path(),
        "ops/askill",
        "askill",
        "Second.",
        &[("references/a.md", "askill notes")],
    );
    app.import(tree.path()).await.unwrap();
    let actor = Actor::cli("test");
    let borg = app.store.create_org("borg", "B", &actor).await.unwrap();
    let mut own = BTreeMap::new();
    let mut other = BTreeMap::new();
    for role in ROLES {
        let (_, token) = app.user_with_token(&format!("ahandle-{role}"), role).await.unwrap();
        own.insert(role.as_str(), token);
        let user = app
            .store
            .create_user(borg.id, &format!("bhandle-{role}"), role, &actor)
            .await
            .unwrap();
        let token = app
            .token_for(&user, "borg", Duration::from_secs(3600), &app.keys)
            .await
            .unwrap();
        other.insert(role.as_str(), token);
    }
    let target = app
        .store
        .create_user(app.org_id, "ahandle-target", Role::Member, &actor)
        .await
        .unwrap();
    let target_token = app
        .token_for(&target, "default", Duration::from_secs(3600), &app.keys)
        .await
        .unwrap();
    let (_, me) = send(app.get("/v1/whoami")).await;
    let mut world = World {
        file_sha: Sha256Hash::of(b"askill notes").to_hex(),
        admin_token_id: me["token_id"].as_str().unwrap().to_owned(),
        app,
        own,
        other,
        target_token,
        patch_id: String::new(),
        webhook_id: String::new(),
    };
    world.webhook_id = cairn_registry::app::webhooks::create(
        &world.app.store,
        &world.app.state.outbound,
        world.app.org_id,
        "http://127.0.0.1:9/kept",
        &["version.published".to_owned()],
        None,
        &actor,
    )
    .await
    .unwrap()
    .info
    .id
    .to_string();
    world.patch_id = submit_patch(&world, &world.target_token, 0).await.unwrap();
    world
}

/// Whether a sample names one thing of `default` (the other organisation must get 404)
/// or lists the caller's own organisation (it must see none of `default`'s things).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Collection,
    Resource,
}

struct Sample {
    path: String,
    body: Option<Value>,
    /// A gzip body instead of JSON (direct publishing).
    bytes: Option<Vec<u8>>,
    kind: Kind,
    /// What the route must require: pinned here too, so loosening a rule in the table
    /// is a visible, reviewed change to this test.
    access: Access,
}

/// A request for every route of the table. A route added without a sample here fails
/// the matrix test, so every route is walked by every role.
/// Submits a patch to `askill` with `token` (one new reference file, so it always
/// applies); its id, or `None` when the token may not submit.
/// The sample skill's latest revision.
async fn latest_revision(world: &World) -> i32 {
    sqlx::query_scalar(
        "SELECT max(v.revision) FROM versions v JOIN skills s ON s.id = v.skill_id WHERE s.name = 'askill'",
    )
    .fetch_one(world.app.store.pool())
    .await
    .unwrap()
}

async fn submit_patch(world: &World, token: &str, n: usize) -> Option<String> {
    let latest = latest_revision(world).await;
    let body = json!({
        "skill": "askill",
        "base_revision": latest,
        "ops": [{"op": "write_file", "file": format!("references/n{n}.md"), "content": format!("note {n}\n")}],
        "summary": format!("note {n}"),
    });
    let response = world
        .app
        .client
        .post(world.app.url("/v1/patches"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let (status, body) = json_of(response).await;
    (status == StatusCode::CREATED).then(|| body["id"].as_str().unwrap().to_owned())
}

fn hex_sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// An upload ticket for `bytes` (or a made-up one when the token may not ask for one).
async fn upload_ticket(world: &World, token: &str, bytes: &[u8]) -> String {
    let response = world
        .app
        .client
        .post(world.app.url("/api/v1/skills/-/upload-url"))
        .bearer_auth(token)
        .json(&json!({"path": "SKILL.md", "size": bytes.len(), "sha256": hex_sha(bytes)}))
        .send()
        .await
        .unwrap();
    if !response.status().is_success() {
        return format!("{}.{}.0", hex_sha(bytes), bytes.len());
    }
    let body: Value = response.json().await.unwrap();
    let ticket = body["uploadTicket"].as_str().unwrap().to_owned();
    let upload = world
        .app
        .client
        .post(world.app.url(&format!("/api/v1/skills/-/upload/{ticket}")))
        .bearer_auth(token)
        .body(bytes.to_vec())
        .send()
        .await
        .unwrap();
    assert!(upload.status().is_success());
    ticket
}

async fn sample(world: &World, rule: &Rule, n: usize, token: &str) -> Sample {
    let s = |path: &str, kind, access| Sample {
        path: path.to_owned(),
        body: None,
        bytes: None,
        kind,
        access,
    };
    let with = |path: &str, body: Value, kind, access| Sample {
        path: path.to_owned(),
        body: Some(body),
        bytes: None,
        kind,
        access,
    };
    const PUBLIC: Access = Access::Public;
    const READ: Access = Access::Scope(Scope::Read);
    const SUBMIT: Access = Access::Scope(Scope::Submit);
    const REVIEW: Access = Access::Scope(Scope::Review);
    const ADMIN: Access = Access::Scope(Scope::Admin);
    const DISCOVERY: Access = Access::Discovery;
    use Kind::*;
    let sha = &world.file_sha;
    match (rule.method.as_str(), rule.path) {
        ("GET", "/healthz") => s("/healthz", Collection, PUBLIC),
        ("GET", "/readyz") => s("/readyz", Collection, PUBLIC),
        ("GET", "/openapi.json") => s("/openapi.json", Collection, PUBLIC),
        ("GET", "/v1/whoami") => s("/v1/whoami", Collection, READ),
        ("GET", "/v1/skills") => s("/v1/skills", Collection, READ),
        ("GET", "/v1/skills/{name}") => s("/v1/skills/askill", Resource, READ),
        ("GET", "/v1/skills/{name}/versions") => s("/v1/skills/askill/versions", Resource, READ),
        ("GET", "/v1/skills/{name}/versions/{rev}") => s("/v1/skills/askill/versions/latest", Resource, READ),
        ("GET", "/v1/skills/{name}/versions/{rev}/files/{*path}") => {
            s("/v1/skills/askill/versions/2/files/references/a.md", Resource, READ)
        }
        ("GET", "/v1/skills/{name}/versions/{rev}/bundle") => s("/v1/skills/askill/versions/1/bundle", Resource, READ),
        ("POST", "/v1/skills/{name}/versions") => {
            // A new skill each time, in the caller's own organisation.
            let name = format!("made-{n}");
            let bundle = crate::fixtures::bundle(&name, "Body.", &[]);
            let bytes = cairn_skill::archive::pack(&bundle, Vec::new()).unwrap();
            Sample {
                path: format!("/v1/skills/{name}/versions"),
                body: None,
                bytes: Some(bytes),
                kind: Collection,
                access: REVIEW,
            }
        }
        ("POST", "/v1/skills/{name}/versions/{rev}/yank") => s("/v1/skills/askill/versions/1/yank", Resource, REVIEW),
        ("GET", "/v1/skills/{name}/versions/{rev}/attestation") => {
            s("/v1/skills/askill/versions/1/attestation", Resource, READ)
        }
        ("POST", "/v1/attestations/batch") => with(
            "/v1/attestations/batch",
            json!({"versions": [{"name": "askill", "revision": 1}]}),
            Resource,
            READ,
        ),
        // The log is one for the whole registry: its checkpoint, proofs and keys are
        // public, its first entry (a key event) is every organisation's.
        ("GET", "/v1/log/checkpoint") => s("/v1/log/checkpoint", Collection, PUBLIC),
        ("GET", "/v1/log/entries/{index}") => s("/v1/log/entries/0", Collection, READ),
        ("GET", "/v1/log/proof/inclusion") => s("/v1/log/proof/inclusion?index=0", Collection, PUBLIC),
        ("GET", "/v1/log/proof/consistency") => s("/v1/log/proof/consistency?from=1", Collection, PUBLIC),
        ("GET", "/.well-known/cairn/keys") => s("/.well-known/cairn/keys", Collection, PUBLIC),
        ("POST", "/v1/skills/{name}/versions/{rev}/unyank") => {
            s("/v1/skills/askill/versions/1/unyank", Resource, REVIEW)
        }
        ("GET", "/v1/index") => s("/v1/index", Collection, READ),
        ("GET", "/.well-known/skills/index.json") => s("/.well-known/skills/index.json", Collection, DISCOVERY),
        ("GET", "/.well-known/skills/{name}/{*path}") => s("/.well-known/skills/askill/SKILL.md", Resource, DISCOVERY),
        ("GET", "/.well-known/agent-skills/index.json") => {
            s("/.well-known/agent-skills/index.json", Collection, DISCOVERY)
        }
        ("GET", "/.well-known/agent-skills/{name}/{file}") => {
            s("/.well-known/agent-skills/askill/2.tar.gz", Resource, DISCOVERY)
        }
        ("GET", "/.well-known/agent-skills/{file}") => {
            s("/.well-known/agent-skills/askill.tar.gz", Resource, DISCOVERY)
        }
        ("GET", "/.well-known/clawhub.json") => s("/.well-known/clawhub.json", Collection, PUBLIC),
        ("GET", "/api/v1/whoami") => s("/api/v1/whoami", Collection, READ),
        ("GET", "/api/v1/search") => s("/api/v1/search?q=askill", Collection, DISCOVERY),
        ("GET", "/api/v1/skills") => s("/api/v1/skills", Collection, DISCOVERY),
        ("GET", "/api/v1/skills/{slug}") => s("/api/v1/skills/askill", Resource, DISCOVERY),
        ("GET", "/api/v1/skills/{slug}/versions") => s("/api/v1/skills/askill/versions", Resource, DISCOVERY),
        ("GET", "/api/v1/skills/{slug}/versions/{version}") => {
            s("/api/v1/skills/askill/versions/1.0.2", Resource, DISCOVERY)
        }
        ("GET", "/api/v1/skills/{slug}/file") => s("/api/v1/skills/askill/file?path=SKILL.md", Resource, DISCOVERY),
        ("GET", "/api/v1/download") => s("/api/v1/download?slug=askill", Resource, DISCOVERY),
        ("GET", "/api/v1/resolve") => s("/api/v1/resolve?slug=askill&hash=00", Collection, DISCOVERY),
        ("POST", "/api/v1/skills/-/upload-url") => with(
            "/api/v1/skills/-/upload-url",
            json!({"path": "SKILL.md", "size": 1, "sha256": hex_sha(b"x")}),
            Collection,
            SUBMIT,
        ),
        ("POST", "/api/v1/skills/-/upload/{ticket}") => {
            let ticket = upload_ticket(world, token, b"x").await;
            Sample {
                path: format!("/api/v1/skills/-/upload/{ticket}"),
                body: None,
                bytes: Some(b"x".to_vec()),
                kind: Collection,
                access: SUBMIT,
            }
        }
        ("POST", "/api/v1/skills") => {
            // A new skill each time, proposed as a patch in the caller's organisation.
            let name = format!("made-{n}");
            let md = crate::fixtures::skill_md(&name, "Made by clawhub publish.", "Body.");
            let ticket = upload_ticket(world, token, md.as_bytes()).await;
            let sha = hex_sha(md.as_bytes());
            with(
                "/api/v1/skills",
                json!({"slug": name, "files": [{"path": "SKILL.md", "size": md.len(), "sha256": sha,
                    "storageId": sha, "uploadTicket": ticket, "contentType": "text/markdown"}]}),
                Collection,
                SUBMIT,
            )
        }
        ("GET", "/v1/blobs/{sha256}") => s(&format!("/v1/blobs/{sha}"), Resource, READ),
        ("POST", "/v1/blobs/batch") => with("/v1/blobs/batch", json!({ "sha256": [sha] }), Resource, READ),
        ("GET", "/v1/tokens") => s("/v1/tokens", Collection, READ),
        ("POST", "/v1/tokens") => with("/v1/tokens", json!({ "name": format!("made-{n}") }), Collection, READ),
        ("GET", "/v1/tokens/{id}") => s(&format!("/v1/tokens/{}", world.admin_token_id), Resource, READ),
        ("DELETE", "/v1/tokens/{id}") => {
            // A fresh token of someone in `default` each time: revoking it harms nobody.
            let target = world
                .app
                .store
                .user_by_handle(world.app.org_id, "ahandle-target")
                .await
                .unwrap();
            world
                .app
                .token_for(&target, "default", Duration::from_secs(600), &world.app.keys)
                .await
                .unwrap();
            let id: uuid::Uuid =
                sqlx::query_scalar("SELECT id FROM api_tokens WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1")
                    .bind(target.id)
                    .fetch_one(world.app.store.pool())
                    .await
                    .unwrap();
            s(&format!("/v1/tokens/{id}"), Resource, READ)
        }
        ("GET", "/v1/users") => s("/v1/users", Collection, ADMIN),
        ("POST", "/v1/users") => with(
            "/v1/users",
            json!({ "handle": format!("made-{n}"), "role": "reader" }),
            Collection,
            ADMIN,
        ),
        ("GET", "/v1/users/{handle}") => s("/v1/users/ahandle-target", Resource, ADMIN),
        ("PATCH", "/v1/users/{handle}") => {
            with("/v1/users/ahandle-target", json!({ "role": "reader" }), Resource, ADMIN)
        }
        ("GET", "/v1/owners") => s("/v1/owners", Collection, READ),
        // One JSON-RPC request: the skills of the caller's organisation (MCP, issue 24).
        ("POST", "/mcp") => with(
            "/mcp",
            json!({"jsonrpc": "2.0", "id": n, "method": "skills/list"}),
            Collection,
            READ,
        ),
        ("PUT", "/v1/owners/skills/{name}") => {
            with("/v1/owners/skills/askill", json!({ "owners": [] }), Resource, ADMIN)
        }
        ("PUT", "/v1/owners/categories/{*category}") => {
            with("/v1/owners/categories/ops", json!({ "owners": [] }), Resource, ADMIN)
        }
        ("GET", "/v1/audit") => s("/v1/audit", Collection, ADMIN),
        ("GET", "/v1/webhooks") => s("/v1/webhooks", Collection, ADMIN),
        ("POST", "/v1/webhooks") => with(
            "/v1/webhooks",
            json!({ "url": format!("http://127.0.0.1:9/made-{n}"), "events": ["patch.approved"] }),
            Collection,
            ADMIN,
        ),
        ("DELETE", "/v1/webhooks/{id}") => {
            // A fresh webhook of `default` each time.
            let hook = cairn_registry::app::webhooks::create(
                &world.app.store,
                &world.app.state.outbound,
                world.app.org_id,
                "http://127.0.0.1:9/hook",
                &["patch.approved".to_owned()],
                None,
                &Actor::cli("test"),
            )
            .await
            .unwrap();
            s(&format!("/v1/webhooks/{}", hook.info.id), Resource, ADMIN)
        }
        ("GET", "/v1/webhooks/{id}/deliveries") => s(
            &format!("/v1/webhooks/{}/deliveries", world.webhook_id),
            Resource,
            ADMIN,
        ),
        ("POST", "/v1/patches") => with(
            "/v1/patches",
            json!({
                "skill": "askill", "base_revision": 1, "summary": format!("sample {n}"),
                "ops": [{"op": "write_file", "file": format!("references/s{n}.md"), "content": "x\n"}],
            }),
            Resource,
            SUBMIT,
        ),
        ("GET", "/v1/patches") => s("/v1/patches", Collection, READ),
        ("GET", "/v1/patches/{id}") => s(&format!("/v1/patches/{}", world.patch_id), Resource, READ),
        ("POST", "/v1/patches/{id}/approve") | ("POST", "/v1/patches/{id}/reject") => {
            // A fresh patch by someone else each time, so every reviewer may decide it.
            let id = submit_patch(world, &world.target_token, n).await.unwrap();
            let verb = rule.path.rsplit('/').next().unwrap();
            with(
                &format!("/v1/patches/{id}/{verb}"),
                json!({ "comment": "sampled" }),
                Resource,
                REVIEW,
            )
        }
        ("POST", "/v1/patches/{id}/duplicate") => {
            // A fresh patch closed as a duplicate of the sample patch.
            let id = submit_patch(world, &world.target_token, n).await.unwrap();
            with(
                &format!("/v1/patches/{id}/duplicate"),
                json!({ "of": world.patch_id.to_string() }),
                Resource,
                REVIEW,
            )
        }
        ("POST", "/v1/patches/{id}/resolve") => {
            // Only a patch in conflict resolves: the sample patch is not (422 past the gate).
            with(
                &format!("/v1/patches/{}/resolve", world.patch_id),
                json!({ "files": {"SKILL.md": "x"} }),
                Resource,
                REVIEW,
            )
        }
        ("POST", "/v1/patches/review") => {
            let id = submit_patch(world, &world.target_token, n).await.unwrap();
            with(
                "/v1/patches/review",
                json!({ "action": "reject", "ids": [id], "comment": "sampled" }),
                Collection,
                REVIEW,
            )
        }
        ("POST", "/v1/patches/{id}/withdraw") => {
            // The caller's own patch (or, for those who may not submit, the admin's).
            let id = match submit_patch(world, token, n).await {
                Some(id) => id,
                None => submit_patch(world, &world.own["admin"], n).await.unwrap(),
            };
            s(&format!("/v1/patches/{id}/withdraw"), Resource, SUBMIT)
        }
        ("POST", "/v1/patches/{id}/findings/dismiss") => with(
            &format!("/v1/patches/{}/findings/dismiss", world.patch_id),
            json!({ "rule": "no.such-rule", "file": "SKILL.md", "line": 1, "reason": "sampled" }),
            Resource,
            REVIEW,
        ),
        ("POST", "/v1/patches/{id}/comments") => with(
            &format!("/v1/patches/{}/comments", world.patch_id),
            json!({ "body": format!("sampled {n}") }),
            Resource,
            SUBMIT,
        ),
        ("POST", "/v1/patches/{id}/revisions") => {
            // The caller's own patch (or, for those who may not submit, the admin's).
            let id = match submit_patch(world, token, n).await {
                Some(id) => id,
                None => submit_patch(world, &world.own["admin"], n).await.unwrap(),
            };
            let latest = latest_revision(world).await;
            with(
                &format!("/v1/patches/{id}/revisions"),
                json!({
                    "base_revision": latest,
                    "ops": [{"op": "write_file", "file": format!("references/r{n}.md"), "content": "round 2\n"}],
                }),
                Resource,
                SUBMIT,
            )
        }
        ("POST", "/v1/patches/{id}/request-changes") => {
            // A fresh patch by someone else, so every reviewer may ask its author.
            let id = submit_patch(world, &world.target_token, n).await.unwrap();
            with(
                &format!("/v1/patches/{id}/request-changes"),
                json!({ "comment": "sampled" }),
                Resource,
                REVIEW,
            )
        }
        ("GET", "/v1/skills/{name}/dismissals") => s("/v1/skills/askill/dismissals", Resource, READ),
        ("DELETE", "/v1/skills/{name}/dismissals/{id}") => s("/v1/skills/askill/dismissals/1", Resource, REVIEW),
        ("POST", "/v1/admin/rescan") => with("/v1/admin/rescan", json!({}), Collection, ADMIN),
        ("GET", "/v1/admin/quarantine") => s("/v1/admin/quarantine", Collection, ADMIN),
        ("GET", "/v1/admin/quarantine/{id}") => s(
            &format!("/v1/admin/quarantine/{}", uuid::Uuid::new_v4()),
            Resource,
            ADMIN,
        ),
        ("POST", "/v1/admin/quarantine/{id}/release") => with(
            &format!("/v1/admin/quarantine/{}/release", uuid::Uuid::new_v4()),
            json!({ "reason": "sampled" }),
            Resource,
            ADMIN,
        ),
        ("DELETE", "/v1/admin/quarantine/{id}") => s(
            &format!("/v1/admin/quarantine/{}", uuid::Uuid::new_v4()),
            Resource,
            ADMIN,
        ),
        ("GET", "/v1/patch-policy") => s("/v1/patch-policy", Collection, READ),
        // A stream: only the status and headers are read (see below).
        ("GET", "/v1/events") => s("/v1/events", Collection, READ),
        ("PUT", "/v1/patch-policy") => with("/v1/patch-policy", json!({}), Collection, ADMIN),
        (method, path) => {
            panic!("no sample request for {method} {path}: add one to tests/tests/e2e/access.rs so every role walks it")
        }
    }
}

#[tokio::test]
async fn every_route_answers_every_role_of_both_organisations_as_the_table_says() {
    let world = world().await;
    let app = &world.app;
    // The gRPC methods are walked by the gRPC access test (tests/tests/e2e/grpc.rs).
    let grpc = cairn_registry::grpc::rules();
    // The pages are walked with sessions below.
    let table: Vec<_> = rules()
        .into_iter()
        .filter(|rule| !grpc.contains(rule) && !rule.path.starts_with("/admin"))
        .collect();
    assert!(table.len() >= 20, "the table lost routes: {}", table.len());
    let mut n = 0;
    for rule in &table {
        for role in ROLES {
            for (org, tokens) in [("own", &world.own), ("other", &world.other)] {
                n += 1;
                let sample = sample(&world, rule, n, &tokens[role.as_str()]).await;
                assert_eq!(
                    rule.access, sample.access,
                    "{} {} requires {:?} in the table but {:?} here: change both, deliberately",
                    rule.method, rule.path, rule.access, sample.access
                );
                let method = Method::from_bytes(rule.method.as_str().as_bytes()).unwrap();
                let mut request = app
                    .client
                    .request(method, app.url(&sample.path))
                    .bearer_auth(&tokens[role.as_str()]);
                if let Some(body) = &sample.body {
                    request = request.json(body);
                }
                if let Some(bytes) = &sample.bytes {
                    request = request.header("content-type", "application/gzip").body(bytes.clone());
                }
                let label = format!("{} {} as {org} {role}", rule.method, sample.path);
                let allowed = match rule.access {
                    Access::Public => true,
                    Access::Scope(scope) => ScopeSet::of_role(role).contains(scope),
                    Access::Discovery => ScopeSet::of_role(role).contains(Scope::Read),
                    Access::Session(_) | Access::OpenPage => panic!("{label}: a page rule outside the pages"),
                };
                let before = app.state_snapshot().await.unwrap();
                let response = request.send().await.unwrap();
                let status = response.status();
                // The event stream never ends: its status and type are the answer.
                let streaming = status.is_success() && rule.path == "/v1/events";
                if streaming {
                    assert_eq!(response.headers()["content-type"], "text/event-stream");
                }
                let text = if streaming {
                    String::new()
                } else {
                    response.text().await.unwrap()
                };
                if !allowed {
                    assert_eq!(status, StatusCode::FORBIDDEN, "{label}: {text}");
                    let body: Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(error_code(&body), "forbidden", "{label}");
                    assert!(error_message(&body).contains(role.as_str()), "{label}: {text}");
                    assert_eq!(app.state_snapshot().await.unwrap(), before, "{label} changed something");
                    continue;
                }
                assert!(
                    ![StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&status) && !status.is_server_error(),
                    "{label}: {status} {text}"
                );
                if org == "other" {
                    match sample.kind {
                        Kind::Resource => {
                            assert_eq!(status, StatusCode::NOT_FOUND, "{label}: {text}");
                            assert_eq!(app.state_snapshot().await.unwrap(), before, "{label} changed something");
                        }
                        // A 404 echoes the name asked for; a listing must show nothing of
                        // the other organisation.
                        Kind::Collection => {
                            assert!(status.is_success(), "{label}: {status} {text}");
                            assert!(
                                !text.contains("askill") && !text.contains("ahandle"),
                                "{label} revealed the other organisation: {text}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// A request for every page of the table (path, form fields, rule, and whether it names
/// one thing of `default` or works on the caller's own organisation); `Public` pages are
/// sent without a session. A page added without a sample here fails the walk below.
async fn page_sample(
    world: &World,
    rule: &Rule,
    n: usize,
    token: &str,
) -> (String, Vec<(&'static str, String)>, Access, Kind) {
    let (path, fields, access) = page_request(world, rule, n, token).await;
    let names_one_thing = [
        "/admin/patches/",
        "/admin/skills/{name}",
        "/admin/webhooks/{id}",
        "/admin/queue/batch",
    ]
    .iter()
    .any(|prefix| rule.path.starts_with(prefix))
        && !rule.path.ends_with("/delete");
    let kind = if names_one_thing {
        Kind::Resource
    } else {
        Kind::Collection
    };
    (path, fields, access, kind)
}

/// The request of [`page_sample`].
async fn page_request(
    world: &World,
    rule: &Rule,
    n: usize,
    token: &str,
) -> (String, Vec<(&'static str, String)>, Access) {
    const OPEN: Access = Access::OpenPage;
    const READ: Access = Access::Session(Scope::Read);
    const SUBMIT: Access = Access::Session(Scope::Submit);
    const REVIEW: Access = Access::Session(Scope::Review);
    const ADMIN: Access = Access::Session(Scope::Admin);
    let at = |path: &str, access| (path.to_owned(), Vec::new(), access);
    let fresh = || async { submit_patch(world, &world.target_token, 1000 + n).await.unwrap() };
    let nowhere = uuid::Uuid::new_v4();
    let patch = &world.patch_id;
    let comment = ("comment", "sampled".to_owned());
    match (rule.method.as_str(), rule.path) {
        ("GET", "/admin" | "/admin/" | "/admin/login") => at(rule.path, OPEN),
        ("POST", "/admin/login") => (
            "/admin/login".to_owned(),
            vec![("token", "not-a-token".to_owned())],
            OPEN,
        ),
        ("POST", "/admin/logout") => at("/admin/logout", OPEN),
        ("GET", "/admin/assets/{file}") => at("/admin/assets/cairn.css", OPEN),
        ("GET" | "POST", "/admin/{*rest}") => at("/admin/no-such-page", OPEN),
        ("GET", "/admin/queue") => at("/admin/queue", READ),
        ("GET", "/admin/queue/events") => at("/admin/queue/events", READ),
        ("POST", "/admin/queue/batch") => {
            let ids = fresh().await;
            (
                "/admin/queue/batch".to_owned(),
                vec![("action", "reject".to_owned()), ("ids", ids), comment],
                REVIEW,
            )
        }
        ("GET", "/admin/patches/{id}") => at(&format!("/admin/patches/{patch}"), READ),
        ("POST", "/admin/patches/{id}/approve" | "/admin/patches/{id}/reject") => {
            let verb = rule.path.rsplit('/').next().unwrap();
            (
                format!("/admin/patches/{}/{verb}", fresh().await),
                vec![comment],
                REVIEW,
            )
        }
        ("POST", "/admin/patches/{id}/duplicate") => (
            format!("/admin/patches/{}/duplicate", fresh().await),
            vec![("of", patch.clone())],
            REVIEW,
        ),
        ("POST", "/admin/patches/{id}/withdraw") => {
            let id = match submit_patch(world, token, 1000 + n).await {
                Some(id) => id,
                None => submit_patch(world, &world.own["admin"], 1000 + n).await.unwrap(),
            };
            at(&format!("/admin/patches/{id}/withdraw"), SUBMIT)
        }
        ("POST", "/admin/patches/{id}/resolve") => (
            format!("/admin/patches/{patch}/resolve"),
            vec![("SKILL.md", "x".to_owned())],
            REVIEW,
        ),
        ("POST", "/admin/patches/{id}/findings/dismiss") => (
            format!("/admin/patches/{patch}/findings/dismiss"),
            vec![
                ("rule", "no.such-rule".to_owned()),
                ("file", "SKILL.md".to_owned()),
                ("line", "1".to_owned()),
                ("reason", "sampled".to_owned()),
            ],
            REVIEW,
        ),
        ("POST", "/admin/patches/{id}/comments") => (
            format!("/admin/patches/{patch}/comments"),
            vec![("body", format!("sampled {n}"))],
            SUBMIT,
        ),
        ("POST", "/admin/patches/{id}/request-changes") => (
            format!("/admin/patches/{patch}/request-changes"),
            vec![("comment", "sampled".to_owned())],
            REVIEW,
        ),
        ("GET", "/admin/skills") => at("/admin/skills", READ),
        ("GET", "/admin/skills/{name}") => at("/admin/skills/askill", READ),
        ("GET", "/admin/skills/{name}/diff") => at("/admin/skills/askill/diff?from=1&to=2", READ),
        ("GET", "/admin/skills/{name}/versions/{rev}/bundle") => at("/admin/skills/askill/versions/1/bundle", READ),
        ("GET", "/admin/skills/{name}/versions/{rev}/files/{*path}") => {
            at("/admin/skills/askill/versions/1/files/references/a.md", READ)
        }
        ("POST", "/admin/skills/{name}/versions/{rev}/yank") => at("/admin/skills/askill/versions/1/yank", REVIEW),
        ("POST", "/admin/skills/{name}/versions/{rev}/unyank") => at("/admin/skills/askill/versions/1/unyank", REVIEW),
        ("GET", "/admin/owners") => at("/admin/owners", READ),
        ("POST", "/admin/owners") => (
            "/admin/owners".to_owned(),
            vec![
                ("kind", "skill".to_owned()),
                ("name", "askill".to_owned()),
                ("owners", String::new()),
            ],
            ADMIN,
        ),
        ("GET", "/admin/members") => at("/admin/members", ADMIN),
        ("POST", "/admin/members") => (
            "/admin/members".to_owned(),
            vec![("handle", format!("walked-{n}")), ("role", "reader".to_owned())],
            ADMIN,
        ),
        ("POST", "/admin/members/{handle}") => (
            "/admin/members/nobody".to_owned(),
            vec![("role", "member".to_owned())],
            ADMIN,
        ),
        ("GET", "/admin/tokens") => at("/admin/tokens", READ),
        ("POST", "/admin/tokens") => ("/admin/tokens".to_owned(), vec![("name", format!("walked-{n}"))], READ),
        ("POST", "/admin/tokens/{id}/revoke") => at(&format!("/admin/tokens/{nowhere}/revoke"), READ),
        ("GET", "/admin/webhooks") => at("/admin/webhooks", ADMIN),
        ("POST", "/admin/webhooks") => (
            "/admin/webhooks".to_owned(),
            vec![
                ("url", format!("http://127.0.0.1:9/walked-{n}")),
                ("events", "version.published".to_owned()),
            ],
            ADMIN,
        ),
        ("GET", "/admin/webhooks/{id}") => at(&format!("/admin/webhooks/{}", world.webhook_id), ADMIN),
        ("POST", "/admin/webhooks/{id}/delete") => at(&format!("/admin/webhooks/{nowhere}/delete"), ADMIN),
        ("GET", "/admin/policy") => at("/admin/policy", ADMIN),
        ("POST", "/admin/policy") => ("/admin/policy".to_owned(), vec![("trusted", String::new())], ADMIN),
        ("POST", "/admin/policy/access") => at("/admin/policy/access", ADMIN),
        ("GET", "/admin/audit") => at("/admin/audit", ADMIN),
        ("GET", "/admin/security") => at("/admin/security", ADMIN),
        ("POST", "/admin/security/rescan") => (
            "/admin/security/rescan".to_owned(),
            vec![("skill", "askill".to_owned())],
            ADMIN,
        ),
        ("POST", "/admin/security/quarantine/{id}/release") => (
            format!("/admin/security/quarantine/{nowhere}/release"),
            vec![("reason", "sampled".to_owned())],
            ADMIN,
        ),
        ("POST", "/admin/security/quarantine/{id}/delete") => {
            at(&format!("/admin/security/quarantine/{nowhere}/delete"), ADMIN)
        }
        (method, path) => {
            panic!("no sample request for the page {method} {path}: add one to tests/tests/e2e/access.rs")
        }
    }
}

/// Sends a page request with `client` (which must not follow redirects), the session's
/// cookies (none for open pages) and the CSRF token of the session's last page; the
/// status, where it redirects, and the body (not read from the live queue's stream).
async fn send_page(
    world: &World,
    client: &reqwest::Client,
    web: &cairn_e2e::web::WebSession,
    method: &Method,
    path: &str,
    fields: &[(&'static str, String)],
) -> (StatusCode, Option<String>, String) {
    let app = &world.app;
    let cookies = web
        .cookies()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ");
    let mut request = client.request(method.clone(), app.url(path)).header("cookie", cookies);
    if method == Method::POST {
        let mut form = vec![("csrf", web.csrf().unwrap_or_default().to_owned())];
        form.extend(fields.iter().cloned());
        request = request.form(&form);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let streaming = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes() == b"text/event-stream");
    let body = if streaming {
        String::new()
    } else {
        response.text().await.unwrap()
    };
    (status, location, body)
}

#[tokio::test]
async fn every_page_answers_every_role_of_both_organisations_as_the_table_says() {
    use cairn_e2e::web::WebSession;
    let world = world().await;
    let app = &world.app;
    let pages: Vec<Rule> = rules()
        .into_iter()
        .filter(|rule| rule.path.starts_with("/admin"))
        .collect();
    assert!(pages.len() >= 40, "the table lost pages: {}", pages.len());
    // Every role of both organisations logged in, with a page's CSRF token in hand.
    let mut sessions = Vec::new();
    for role in ROLES {
        for (org, tokens) in [("own", &world.own), ("other", &world.other)] {
            let token = &tokens[role.as_str()];
            let mut web = WebSession::login(&app.base_url, token).await.unwrap();
            web.get("/admin/tokens").await.unwrap();
            assert!(web.csrf().is_some(), "{org} {role}: the tokens page has no form");
            sessions.push((role, org, token.clone(), web));
        }
    }
    let mut anonymous = WebSession::new(&app.base_url).unwrap();
    anonymous.get("/admin/login").await.unwrap();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut n = 0;
    for rule in &pages {
        for (role, org, token, web) in &sessions {
            n += 1;
            let (path, fields, access, kind) = page_sample(&world, rule, n, token).await;
            assert_eq!(
                rule.access, access,
                "{} {} requires {:?} in the table but {:?} here: change both, deliberately",
                rule.method, rule.path, rule.access, access
            );
            let method = Method::from_bytes(rule.method.as_str().as_bytes()).unwrap();
            let label = format!("{method} {path} as {org} {role}");
            let Access::Session(scope) = access else {
                // Open pages need no session: sent without one.
                let (status, _, body) = send_page(&world, &client, &anonymous, &method, &path, &fields).await;
                assert!(!status.is_server_error(), "{label}: {status} {body}");
                continue;
            };
            // Without a session: the login page, and nothing changes.
            let before = app.state_snapshot().await.unwrap();
            let (status, location, _) = send_page(&world, &client, &anonymous, &method, &path, &fields).await;
            assert_eq!(status, StatusCode::SEE_OTHER, "{label} without a session");
            assert!(
                location
                    .as_deref()
                    .unwrap_or_default()
                    .starts_with("/admin/login?next="),
                "{label} without a session went to {location:?}"
            );
            assert_eq!(
                app.state_snapshot().await.unwrap(),
                before,
                "{label} without a session changed something"
            );
            let (status, location, body) = send_page(&world, &client, web, &method, &path, &fields).await;
            if !ScopeSet::of_role(*role).contains(scope) {
                assert_eq!(status, StatusCode::FORBIDDEN, "{label}: {body}");
                assert!(
                    body.contains("<html") && body.contains(role.as_str()),
                    "{label}: {body}"
                );
                assert_eq!(app.state_snapshot().await.unwrap(), before, "{label} changed something");
                continue;
            }
            assert!(
                ![StatusCode::UNAUTHORIZED, StatusCode::FORBIDDEN].contains(&status) && !status.is_server_error(),
                "{label}: {status} {body}"
            );
            assert!(
                !location.as_deref().unwrap_or_default().starts_with("/admin/login"),
                "{label} was sent to log in: {location:?}"
            );
            if *org == "other" {
                match (kind, method == Method::GET) {
                    // One thing of `default`: as if it did not exist, and untouched.
                    (Kind::Resource, true) => assert_eq!(status, StatusCode::NOT_FOUND, "{label}: {body}"),
                    (Kind::Resource, false) => {
                        assert_eq!(app.state_snapshot().await.unwrap(), before, "{label} changed something")
                    }
                    // A page of the caller's own organisation shows nothing of `default`.
                    (Kind::Collection, _) => assert!(
                        !body.contains("askill") && !body.contains("ahandle"),
                        "{label} revealed the other organisation: {body}"
                    ),
                }
            }
        }
    }
}

#[tokio::test]
async fn pages_take_only_the_session_and_honour_prefixes_and_token_scopes() {
    use cairn_e2e::web::WebSession;
    let app = TestApp::spawn().await.unwrap();
    // A bearer token is not a session: the page asks to log in.
    let bearer = format!("Bearer {}", app.admin_token);
    let page = WebSession::new(&app.base_url)
        .unwrap()
        .get_with("/admin/queue", &[("authorization", &bearer)])
        .await
        .unwrap();
    assert_eq!(page.status, StatusCode::SEE_OTHER);
    assert!(page.location.unwrap().starts_with("/admin/login"));
    // Capability URLs only read: a form posted through one gets a page saying so.
    let mut visitor = WebSession::new(&app.base_url).unwrap();
    let page = visitor
        .post_exactly(&format!("/t/{}/admin/login", app.admin_token), &[("token", "x")], &[])
        .await
        .unwrap();
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert!(
        page.body.contains("<html") && page.body.contains("capability URLs"),
        "{}",
        page.body
    );
    // A session used under another organisation's prefix is refused with a page.
    let actor = Actor::cli("test");
    app.store.create_org("borg", "B", &actor).await.unwrap();
    let mut admin = WebSession::login(&app.base_url, &app.admin_token).await.unwrap();
    assert_eq!(
        admin.get("/o/default/admin/queue").await.unwrap().status,
        StatusCode::OK
    );
    let page = admin.get("/o/borg/admin/queue").await.unwrap();
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert!(
        page.body.contains("belongs to the organisation &#39;default&#39;"),
        "{}",
        page.body
    );
    // A read-only token of an admin logs in, but its session only reads.
    let issued = app
        .post_json(
            &app.admin_token,
            "/v1/tokens",
            &json!({"name": "read-only", "scopes": ["read"]}),
        )
        .await
        .1;
    let mut reader = WebSession::login(&app.base_url, issued["token"].as_str().unwrap())
        .await
        .unwrap();
    assert_eq!(reader.get("/admin/queue").await.unwrap().status, StatusCode::OK);
    let page = reader.get("/admin/members").await.unwrap();
    assert_eq!(page.status, StatusCode::FORBIDDEN);
    assert!(page.body.contains("this token only has: read"), "{}", page.body);
}

#[tokio::test]
async fn pages_and_api_calls_share_the_tokens_rate_limit() {
    use cairn_e2e::web::WebSession;
    let mut settings = cairn_e2e::app::no_rate_limits();
    settings.rate_limits.per_token = cairn_registry::ratelimit::Limit::parse("4/hour").unwrap();
    let data_dir = tempfile::tempdir().unwrap();
    let blobs = std::sync::Arc::new(cairn_store::blob::FsBlobStore::new(data_dir.path().join("blobs")).unwrap());
    let app = TestApp::spawn_with_settings(data_dir, blobs, settings).await.unwrap();
    // Logging in verifies the token without spending its budget.
    let mut web = WebSession::login(&app.base_url, &app.admin_token).await.unwrap();
    for _ in 0..2 {
        let page = web.get("/admin/queue").await.unwrap();
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        assert_eq!(page.headers["ratelimit-limit"], "4");
    }
    assert_eq!(app.get("/v1/whoami").send().await.unwrap().status(), StatusCode::OK);
    assert_eq!(web.get("/admin/skills").await.unwrap().status, StatusCode::OK);
    // The budget is spent: the page says so (and when to retry), and so does the API.
    let page = web.get("/admin/queue").await.unwrap();
    assert_eq!(page.status, StatusCode::TOO_MANY_REQUESTS, "{}", page.body);
    assert!(page.body.contains("too many requests from this token"), "{}", page.body);
    assert!(page.headers.contains_key("retry-after"));
    assert_eq!(page.headers["ratelimit-remaining"], "0");
    let api = app.get("/v1/whoami").send().await.unwrap();
    assert_eq!(api.status(), StatusCode::TOO_MANY_REQUESTS);
    // Open pages are not counted against a token.
    assert_eq!(web.get("/admin/assets/cairn.css").await.unwrap().status, StatusCode::OK);
}

#[tokio::test]
async fn bad_tokens_and_missing_permissions_are_refused_and_change_nothing() {
    let world = world().await;
    let app = &world.app;
    let member = app.store.user_by_handle(app.org_id, "ahandle-member").await.unwrap();
    // Not yet valid: `nbf` an hour ahead (signed with the right key, with a real row).
    let future = {
        let id = uuid::Uuid::new_v4();
        let now = chrono::Utc::now();
        let scopes = ScopeSet::of_role(Role::Member);
        let names = scopes.names();
        app.store
            .create_token(
                cairn_store::NewToken {
                    id,
                    user_id: member.id,
                    org_id: app.org_id,
                    name: "future",
                    scopes: &names,
                    expires_at: now + chrono::Duration::hours(3),
                },
                &Actor::cli("test"),
            )
            .await
            .unwrap();
        let claims = cairn_registry::auth::Claims::new(
            "ahandle-member",
            "default",
            Role::Member,
            id,
            scopes,
            now + chrono::Duration::hours(1),
            now + chrono::Duration::hours(3),
        );
        cairn_registry::auth::sign(&app.keys, &claims).unwrap()
    };
    // A deleted token row (as if the user and their tokens were purged).
    let (_, deleted) = app.user_with_token("ahandle-deleted", Role::Member).await.unwrap();
    sqlx::query("DELETE FROM api_tokens WHERE user_id = (SELECT id FROM users WHERE handle = 'ahandle-deleted')")
        .execute(app.store.pool())
        .await
        .unwrap();
    // A real token of `borg` whose `org` claim was rewritten to `default`: the signature
    // breaks; re-signing with the right key makes the claims disagree with the row.
    let forged_org = {
        let row_id: uuid::Uuid = sqlx::query_scalar(
            "SELECT t.id FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE u.handle = 'bhandle-admin'",
        )
        .fetch_one(app.store.pool())
        .await
        .unwrap();
        let now = chrono::Utc::now();
        let claims = cairn_registry::auth::Claims::new(
            "bhandle-admin",
            "default",
            Role::Admin,
            row_id,
            ScopeSet::of_role(Role::Admin),
            now,
            now + chrono::Duration::hours(1),
        );
        cairn_registry::auth::sign(&app.keys, &claims).unwrap()
    };
    let before = app.state_snapshot().await.unwrap();
    for (label, token, status, text) in [
        (
            "not yet valid",
            future.as_str(),
            StatusCode::UNAUTHORIZED,
            "not valid yet",
        ),
        ("deleted", deleted.as_str(), StatusCode::UNAUTHORIZED, "not valid"),
        (
            "other organisation's claims",
            forged_org.as_str(),
            StatusCode::UNAUTHORIZED,
            "not valid",
        ),
    ] {
        let response = app
            .post_as(token, "/v1/skills/askill/versions/1/yank")
            .send()
            .await
            .unwrap();
        let (got, body) = json_of(response).await;
        assert_eq!(got, status, "{label}: {body}");
        assert!(error_message(&body).contains(text), "{label}: {body}");
    }
    // A member calling a reviewer endpoint; a reader writing; a member administering.
    for (role, method, path, body, needed) in [
        (
            "member",
            Method::POST,
            "/v1/skills/askill/versions/1/yank",
            None,
            "review",
        ),
        (
            "reader",
            Method::POST,
            "/v1/skills/askill/versions/1/unyank",
            None,
            "review",
        ),
        (
            "reader",
            Method::POST,
            "/v1/users",
            Some(json!({"handle": "x", "role": "admin"})),
            "admin",
        ),
        (
            "member",
            Method::PATCH,
            "/v1/users/ahandle-member",
            Some(json!({"role": "admin"})),
            "admin",
        ),
        ("reviewer", Method::GET, "/v1/audit", None, "admin"),
    ] {
        let mut request = app
            .client
            .request(method.clone(), app.url(path))
            .bearer_auth(&world.own[role]);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let (status, body) = send(request).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{role} {method} {path}");
        assert!(error_message(&body).contains(&format!("'{needed}'")), "{body}");
        assert!(error_message(&body).contains("ask an admin"), "{body}");
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before);
}

#[tokio::test]
async fn role_changes_disabling_and_revocation_take_effect_at_once_even_from_another_process() {
    let world = world().await;
    let app = &world.app;
    app.wait_following().await.unwrap();
    let whoami = |token: &str| app.get_as(token, "/v1/whoami").send();
    let yank = |token: &str| app.post_as(token, "/v1/skills/askill/versions/1/yank").send();
    let reviewer = world.own["reviewer"].clone();
    // Warm the cache.
    assert_eq!(yank(&reviewer).await.unwrap().status(), StatusCode::OK);
    // Another process (e.g. `cairn-registry user set-role`) demotes the reviewer: this
    // server hears of it through the database.
    app.store
        .update_user(
            app.org_id,
            "ahandle-reviewer",
            UserUpdate {
                role: Some(Role::Reader),
                disabled: None,
            },
            &Actor::cli("user set-role"),
        )
        .await
        .unwrap();
    let status = eventually(
        || async { yank(&reviewer).await.unwrap().status() },
        StatusCode::FORBIDDEN,
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "the stale reviewer claim must lose to the database role"
    );
    let (_, me) = json_of(whoami(&reviewer).await.unwrap()).await;
    assert_eq!(me["role"], "reader");
    assert_eq!(me["scopes"], json!(["read"]));

    // Disabled in another process.
    let member = world.own["member"].clone();
    assert_eq!(whoami(&member).await.unwrap().status(), StatusCode::OK);
    app.store
        .update_user(
            app.org_id,
            "ahandle-member",
            UserUpdate {
                role: None,
                disabled: Some(true),
            },
            &Actor::cli("user disable"),
        )
        .await
        .unwrap();
    let status = eventually(
        || async { whoami(&member).await.unwrap().status() },
        StatusCode::UNAUTHORIZED,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    // Disabled over REST: refused on the very next request.
    let reader = world.own["reader"].clone();
    assert_eq!(whoami(&reader).await.unwrap().status(), StatusCode::OK);
    let response = app
        .client
        .patch(app.url("/v1/users/ahandle-reader"))
        .bearer_auth(&app.admin_token)
        .json(&json!({ "disabled": true }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let (status, body) = json_of(whoami(&reader).await.unwrap()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(error_message(&body).contains("disabled"), "{body}");

    // Revoked in another process.
    let admin = world.own["admin"].clone();
    let (_, me) = json_of(whoami(&admin).await.unwrap()).await;
    let id: uuid::Uuid = me["token_id"].as_str().unwrap().parse().unwrap();
    app.store
        .revoke_token(app.org_id, None, id, &Actor::cli("token revoke"))
        .await
        .unwrap();
    let status = eventually(
        || async { whoami(&admin).await.unwrap().status() },
        StatusCode::UNAUTHORIZED,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

/// Polls `probe` until it returns `want` (notifications arrive within milliseconds; the
/// bound only keeps a broken build from hanging).
async fn eventually<F, Fut>(probe: F, want: StatusCode) -> StatusCode
where
    F: Fn() -> Fut,
    Fut: Future<Output = StatusCode>,
{
    let mut last = probe().await;
    for _ in 0..200 {
        if last == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        last = probe().await;
    }
    last
}
