//! Provable provenance (issue 19) end to end: every way a version is made (import,
//! approval, direct publish, yank, unyank) is a signed in-toto statement appended to the
//! RFC 6962 log in its own transaction; the attestation, its inclusion proof and the
//! checkpoint verify offline with our verifier and the envelope with securesystemslib;
//! any alteration is refused; the log refuses changes from any role; concurrent publishes
//! on two replicas leave one consistent tree; bad requests change nothing.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::process::Stdio;

use cairn_e2e::app::{TEST_REGISTRY, TestApp, send, text_of};
use cairn_provenance::merkle::{self, Hash, MemoryLog};
use cairn_provenance::statement::{Statement, VersionEvent, VersionPredicate};
use cairn_provenance::verify::{Attestation, KeyStatus, Keyring, VerifyError, verify_attestation};
use cairn_provenance::{Checkpoint, Envelope, PublicKey};
use cairn_store::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::fixtures::skill_md;

const BODY: &str = "## Steps\n\n1. Install the tool.\n2. Run it.\n\n## Pitfalls\n\n- Large inputs need `--stream`.\n";

/// The registry's keys as a verifier pins them, read from `/.well-known/cairn/keys`
/// (public: no token).
async fn keyring(app: &TestApp) -> (String, Keyring) {
    let response = app.client.get(app.url("/.well-known/cairn/keys")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let document: Value = response.json().await.unwrap();
    let keys = document["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let key = PublicKey::from_hex(k["public_key"].as_str().unwrap()).unwrap();
            assert_eq!(key.id().as_str(), k["key_id"].as_str().unwrap());
            let status = match k["status"].as_str().unwrap() {
                "active" => KeyStatus::Active,
                "retired" => KeyStatus::Retired,
                _ => KeyStatus::Revoked {
                    revoked_after_index: k["revoked_after_index"].as_u64().unwrap(),
                },
            };
            (key, status)
        })
        .collect();
    (document["origin"].as_str().unwrap().to_owned(), Keyring::new(keys))
}

async fn attestation(app: &TestApp, name: &str, rev: &str) -> (Value, Attestation) {
    let (status, body) = send(app.get(&format!("/v1/skills/{name}/versions/{rev}/attestation"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (body.clone(), serde_json::from_value(body).unwrap())
}

/// Checks an attestation offline and that it is about `name`@`revision` with the files
/// the registry serves for it.
async fn verified(app: &TestApp, name: &str, revision: i64) -> VersionPredicate {
    let (origin, keys) = keyring(app).await;
    assert_eq!(origin, TEST_REGISTRY);
    let (raw, attestation) = attestation(app, name, &revision.to_string()).await;
    let verified = verify_attestation(&attestation, &origin, &keys).unwrap();
    assert_eq!(raw["envelope_sha256"].as_str(), Some(verified.envelope_sha256.as_str()));
    let predicate = verified.predicate;
    assert_eq!(
        (predicate.skill.as_str(), i64::from(predicate.revision)),
        (name, revision)
    );
    assert_eq!(
        predicate.subject_name(),
        format!("cairn://{TEST_REGISTRY}/default/{name}@{revision}")
    );
    // The files → version digest → subject chain, against what the registry serves.
    let version = app.get_json(&format!("/v1/skills/{name}/versions/{revision}")).await;
    assert_eq!(version["digest"].as_str(), Some(predicate.digest.as_str()));
    let served: Vec<(String, String, u64)> = version["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["sha256"].as_str().unwrap().to_owned(),
                f["size"].as_u64().unwrap(),
            )
        })
        .collect();
    let attested: Vec<(String, String, u64)> = predicate
        .files
        .iter()
        .map(|f| (f.path.clone(), f.sha256.clone(), f.size))
        .collect();
    assert_eq!(attested, served);
    let lines: String = predicate
        .files
        .iter()
        .map(|f| format!("{}\0{}\n", f.path, f.sha256))
        .collect();
    use sha2::Digest as _;
    assert_eq!(
        predicate.digest,
        format!("sha256:{}", hex::encode(sha2::Sha256::digest(lines.as_bytes())))
    );
    predicate
}

fn edit(body: &str, agent: &str) -> Value {
    json!({
        "skill": "demo", "base_revision": 1, "summary": "a pitfall", "rationale": "hit it",
        "agent": {"name": agent, "model": "m", "session": "s-1"},
        "ops": [{"op": "edit", "content": skill_md("demo", "demo does things", body)}],
    })
}

async fn checkpoint(app: &TestApp) -> String {
    let response = app.client.get(app.url("/v1/log/checkpoint")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain"),
        "a C2SP checkpoint is text"
    );
    response.text().await.unwrap()
}

fn open(note: &str, keys: &Keyring) -> Checkpoint {
    let keys: Vec<&PublicKey> = keys.keys().iter().map(|(k, _)| k).collect();
    Checkpoint::open(note, TEST_REGISTRY, &keys).unwrap().0
}

#[tokio::test]
async fn every_way_a_version_is_made_is_attested_and_verifies_offline() {
    let app = TestApp::spawn().await.unwrap();
    let (_, keys) = keyring(&app).await;
    let first = open(&checkpoint(&app).await, &keys);
    assert_eq!(first.size, 1, "the first key's activation opens the log");

    // An import (scanned, by the admin).
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let imported = verified(&app, "demo", 1).await;
    assert_eq!(imported.event, VersionEvent::Published);
    assert_eq!(imported.source, "import");
    assert_eq!(
        imported.publisher, None,
        "an operator's import on the server names no user"
    );
    let scan = imported.scan.clone().expect("an import is scanned");
    assert_eq!(scan.verdict, "safe");
    assert_eq!(scan.rules, cairn_scanner::rules_version());
    assert!(imported.patch.is_none() && imported.approvals.is_empty());

    // An agent's patch, approved by a reviewer.
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let lesson = BODY.replace("`--stream`.\n", "`--stream`.\n- Retry when the proxy drops.\n");
    let (status, patch) = send(app.post_as(&member, "/v1/patches").json(&edit(&lesson, "hermes"))).await;
    assert_eq!(status, StatusCode::CREATED, "{patch}");
    let id = patch["id"].as_str().unwrap().to_owned();
    let (status, approved) = send(
        app.post_as(&reviewer, &format!("/v1/patches/{id}/approve"))
            .json(&json!({})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{approved}");
    let merged = verified(&app, "demo", 2).await;
    assert_eq!(merged.source, "patch");
    let from = merged.patch.clone().expect("the patch is named");
    assert_eq!(
        (from.id.as_str(), from.base_revision, from.author.as_str()),
        (id.as_str(), Some(1), "mia")
    );
    assert_eq!(from.agent["name"], "hermes");
    assert_eq!(from.agent["session"], "s-1");
    assert_eq!(merged.approvals.len(), 1);
    assert_eq!(merged.approvals[0].reviewer, "rex");
    assert_eq!(merged.scan.as_ref().map(|s| s.verdict.as_str()), Some("safe"));

    // A direct publish by the reviewer.
    // Paths whose byte order is not a linguistic collation's ("_" and capitals).
    let bundle = crate::fixtures::bundle(
        "demo",
        "Run it twice.",
        &[
            ("references/notes.md", "notes\n"),
            ("references/Notes-2.md", "more\n"),
            ("references/_index.md", "index\n"),
        ],
    );
    let (status, body) = send(
        app.post_as(&reviewer, "/v1/skills/demo/versions")
            .header("content-type", "application/gzip")
            .body(cairn_skill::archive::pack(&bundle, Vec::new()).unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let direct = verified(&app, "demo", 3).await;
    assert_eq!(
        (direct.source.as_str(), direct.publisher.as_deref()),
        ("publish", Some("rex"))
    );
    let paths: Vec<&str> = direct.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "SKILL.md",
            "references/Notes-2.md",
            "references/_index.md",
            "references/notes.md"
        ],
        "files are attested in path byte order"
    );

    // A yank and an unyank are logged too; the version's attestation stays its publication.
    for action in ["yank", "unyank"] {
        let (status, body) = send(app.post_as(&reviewer, &format!("/v1/skills/demo/versions/3/{action}"))).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    assert_eq!(verified(&app, "demo", 3).await.event, VersionEvent::Published);

    // The log holds exactly these events, in order, each proved in the latest tree.
    let last = open(&checkpoint(&app).await, &keys);
    assert_eq!(last.size, 6);
    let mut events = Vec::new();
    for index in 0..last.size {
        let entry = app.get_json(&format!("/v1/log/entries/{index}")).await;
        let envelope: Envelope = serde_json::from_value(entry["envelope"].clone()).unwrap();
        let leaf = merkle::leaf_hash(&envelope.to_json());
        assert_eq!(entry["leaf_hash"].as_str(), Some(leaf.to_hex().as_str()));
        let (status, proof) = send(app.get(&format!("/v1/log/proof/inclusion?index={index}&size={}", last.size))).await;
        assert_eq!(status, StatusCode::OK, "{proof}");
        let hashes: Vec<Hash> = serde_json::from_value(proof["hashes"].clone()).unwrap();
        merkle::verify_inclusion(&hashes, index, last.size, last.root, leaf).unwrap();
        events.push(entry["event"].as_str().unwrap().to_owned());
        let statement = Statement::from_json(&envelope.payload_bytes().unwrap()).unwrap();
        if let Ok(predicate) = statement.version_predicate() {
            assert_eq!(predicate.event.as_str(), entry["event"].as_str().unwrap());
        }
    }
    assert_eq!(
        events,
        ["activated", "published", "published", "published", "yanked", "unyanked"]
    );
    assert_eq!(app.assert_publications_restate().await.unwrap(), 3);
    // The three publications were written on the head this process had just written (the
    // log's opening first), in one statement each; a yank's or unyank's envelope reads the
    // log's clock, so those lock the head first. Operators see the same in the metrics.
    let counts = app.store.log_signer().unwrap().append_counts();
    assert_eq!((counts.assumed_head, counts.locked_head), (3, 2));
    let metrics = app
        .client
        .get(app.serve_metrics().await)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for line in [
        "cairn_log_appends_total{head=\"assumed\"} 3",
        "cairn_log_appends_total{head=\"locked\"} 2",
    ] {
        assert!(metrics.lines().any(|l| l == line), "{line} in\n{metrics}");
    }

    // The first tree is a prefix of the last one.
    let (status, proof) = send(app.get(&format!(
        "/v1/log/proof/consistency?from={}&to={}",
        first.size, last.size
    )))
    .await;
    assert_eq!(status, StatusCode::OK, "{proof}");
    let hashes: Vec<Hash> = serde_json::from_value(proof["hashes"].clone()).unwrap();
    merkle::verify_consistency(&hashes, first.size, first.root, last.size, last.root).unwrap();
}

#[tokio::test]
async fn securesystemslib_verifies_the_registry_envelopes_and_refuses_altered_ones() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let (raw, _) = attestation(&app, "demo", "1").await;
    let key = app.signing_key.public();
    let run = |envelope: &Value| {
        let mut child = std::process::Command::new(cairn_e2e::verifiers::securesystemslib_python())
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/dsse_verify.py"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let request = json!({"envelope": envelope, "keys": [{"keyid": key.id().as_str(), "public": key.to_hex()}]});
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(request.to_string().as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let output = run(&raw["envelope"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(answer["verified_by"], json!([key.id().as_str()]));
    assert_eq!(answer["payload_type"], "application/vnd.in-toto+json");
    assert_eq!(answer["statement"]["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(
        answer["statement"]["predicateType"],
        "https://cairn.dev/attestation/version/v1"
    );
    assert_eq!(
        answer["statement"]["subject"][0]["name"],
        format!("cairn://{TEST_REGISTRY}/default/demo@1")
    );
    // One changed byte of the payload: the independent verifier refuses it too.
    let mut altered = raw["envelope"].clone();
    let payload = altered["payload"].as_str().unwrap().to_owned();
    use base64::Engine as _;
    let mut bytes = base64::engine::general_purpose::STANDARD.decode(&payload).unwrap();
    let at = bytes.iter().position(|b| *b == b'@').unwrap();
    bytes[at + 1] = b'9';
    altered["payload"] = json!(base64::engine::general_purpose::STANDARD.encode(&bytes));
    let output = run(&altered);
    assert!(!output.status.success(), "an altered payload must be refused");
}

#[tokio::test]
async fn tampering_with_any_field_is_refused() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    app.import_skill("ops/other", "other", BODY, &[]).await;
    let (origin, keys) = keyring(&app).await;
    let (_, good) = attestation(&app, "demo", "1").await;
    verify_attestation(&good, &origin, &keys).unwrap();
    let (_, other) = attestation(&app, "other", "1").await;
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD;
    let refused = |attestation: &Attestation, what: &str| {
        let result = verify_attestation(attestation, &origin, &keys);
        assert!(result.is_err(), "{what} must be refused");
        result.unwrap_err()
    };

    let mut payload = good.clone();
    let mut statement: Value = serde_json::from_slice(&good.envelope.payload_bytes().unwrap()).unwrap();
    statement["predicate"]["files"][0]["sha256"] = json!("0".repeat(64));
    payload.envelope.payload = b64.encode(serde_json::to_vec(&statement).unwrap());
    assert!(matches!(
        refused(&payload, "a changed file digest"),
        VerifyError::Envelope(_)
    ));

    let mut signature = good.clone();
    let mut sig = b64.decode(&signature.envelope.signatures[0].sig).unwrap();
    sig[0] ^= 1;
    signature.envelope.signatures[0].sig = b64.encode(sig);
    assert!(matches!(
        refused(&signature, "a changed signature"),
        VerifyError::Envelope(_)
    ));

    let mut swapped = good.clone();
    swapped.envelope = other.envelope.clone();
    assert!(matches!(
        refused(&swapped, "another version's envelope"),
        VerifyError::Proof { .. }
    ));

    let mut index = good.clone();
    index.log_index += 1;
    refused(&index, "another log index");

    let mut proof = good.clone();
    proof.inclusion_proof[0].0[31] ^= 1;
    assert!(matches!(refused(&proof, "a changed proof"), VerifyError::Proof { .. }));

    let mut grown = good.clone();
    grown.checkpoint = grown.checkpoint.replacen("\n3\n", "\n4\n", 1);
    assert!(matches!(
        refused(&grown, "a changed checkpoint"),
        VerifyError::Checkpoint(_)
    ));

    let foreign = cairn_registry::signing::new_key();
    let mut resigned = good.clone();
    let body = Checkpoint::parse_body(good.checkpoint.split_once("\n\n").unwrap().0).unwrap();
    resigned.checkpoint = body.sign(&[&foreign]).unwrap();
    assert!(matches!(
        refused(&resigned, "a checkpoint by another key"),
        VerifyError::Checkpoint(_)
    ));

    let strangers = Keyring::new(vec![(foreign.public().clone(), KeyStatus::Active)]);
    assert!(
        verify_attestation(&good, &origin, &strangers).is_err(),
        "unpinned keys are not trusted"
    );
    assert!(
        verify_attestation(&good, "elsewhere.example", &keys).is_err(),
        "another registry's name"
    );
}

#[tokio::test]
async fn the_log_refuses_changes_from_any_role() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let before = app.state_snapshot().await.unwrap();
    let head_before = app.store.log_head().await.unwrap();
    for sql in [
        "UPDATE log_entries SET entry = '\\x00' WHERE idx = 1",
        "DELETE FROM log_entries WHERE idx = 1",
        "TRUNCATE log_entries CASCADE",
        "UPDATE log_hashes SET hash = decode(repeat('00', 32), 'hex')",
        "DELETE FROM log_hashes",
        "TRUNCATE log_hashes",
        "UPDATE transparency_log SET size = 1",
        "UPDATE transparency_log SET origin = 'elsewhere'",
        "DELETE FROM transparency_log",
        // The head's edge repeats stored hashes; a forged one is refused when it commits.
        "UPDATE transparency_log SET edge_idx = '{0}', edge_hashes = ARRAY[decode(repeat('00', 32), 'hex')]",
    ] {
        // The connection is the database owner and superuser: the trigger holds anyway.
        let error = sqlx::query(sql).execute(app.store.pool()).await.unwrap_err();
        let code = error.as_database_error().and_then(|e| e.code()).map(|c| c.into_owned());
        assert_eq!(code.as_deref(), Some("42501"), "{sql}: {error}");
    }
    assert_eq!(app.state_snapshot().await.unwrap(), before);
    assert_eq!(app.store.log_head().await.unwrap(), head_before);
}

#[tokio::test]
async fn concurrent_publishes_on_two_replicas_leave_one_consistent_tree() {
    let app = TestApp::spawn().await.unwrap();
    let replica = app.replica().await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let bases = [app.base_url.clone(), replica.base_url.clone()];
    let mut tasks = Vec::new();
    // 16 skills published at once, half through each replica, each then yanked.
    for n in 0..16 {
        let client = app.client.clone();
        let url = bases[n % 2].clone();
        let token = reviewer.clone();
        tasks.push(tokio::spawn(async move {
            let name = format!("skill-{n}");
            let bundle = crate::fixtures::bundle(&name, &format!("Step {n}."), &[]);
            let response = client
                .post(format!("{url}/v1/skills/{name}/versions?category=ops"))
                .bearer_auth(&token)
                .header("content-type", "application/gzip")
                .body(cairn_skill::archive::pack(&bundle, Vec::new()).unwrap())
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::CREATED);
            let response = client
                .post(format!("{url}/v1/skills/{name}/versions/1/yank"))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK);
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let (_, keys) = keyring(&app).await;
    let last = open(
        &text_of(replica_get(&app, &replica.base_url, "/v1/log/checkpoint")).await,
        &keys,
    );
    assert_eq!(
        last.size,
        1 + 16 * 2,
        "one activation, then a publication and a yank per skill"
    );
    // Rebuilding the tree from every entry gives the checkpoint's root: one tree,
    // no entry lost, doubled or out of place.
    let mut rebuilt = MemoryLog::default();
    let mut published = HashSet::new();
    for index in 0..last.size {
        let entry = app.get_json(&format!("/v1/log/entries/{index}")).await;
        let envelope: Envelope = serde_json::from_value(entry["envelope"].clone()).unwrap();
        assert_eq!(rebuilt.push(&envelope.to_json()), index);
        if entry["event"] == "published" {
            let statement = Statement::from_json(&envelope.payload_bytes().unwrap()).unwrap();
            assert!(
                published.insert(statement.version_predicate().unwrap().skill),
                "published twice"
            );
        }
    }
    assert_eq!(published.len(), 16);
    assert_eq!(rebuilt.root(last.size).unwrap(), last.root);
    assert_eq!(app.assert_publications_restate().await.unwrap(), 16);
    replica.stop().await.unwrap();
}

/// Publishes `name` through the registry at `base` as `token`.
async fn publish_at(app: &TestApp, base: &str, token: &str, name: &str) {
    let bundle = crate::fixtures::bundle(name, BODY, &[]);
    let (status, body) = send(
        app.client
            .post(format!("{base}/v1/skills/{name}/versions?category=ops"))
            .bearer_auth(token)
            .header("content-type", "application/gzip")
            .body(cairn_skill::archive::pack(&bundle, Vec::new()).unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn a_replica_whose_head_moved_appends_on_the_head_it_finds() {
    let app = TestApp::spawn().await.unwrap();
    let replica = app.replica().await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let counts = |store: &cairn_store::Store| {
        let counts = store.log_signer().unwrap().append_counts();
        (counts.assumed_head, counts.locked_head)
    };
    // Turns: each replica's head is stale at every turn but its first.
    for (n, base) in [
        &app.base_url,
        &replica.base_url,
        &app.base_url,
        &replica.base_url,
        &app.base_url,
    ]
    .into_iter()
    .enumerate()
    {
        publish_at(&app, base, &reviewer, &format!("turn-{n}")).await;
    }
    assert_eq!(
        counts(&app.store),
        (3, 0),
        "the first on the head it opened, then each on the head its miss returned"
    );
    assert_eq!(
        counts(&replica.state.store),
        (1, 1),
        "a process that never wrote locks the head once"
    );
    let (_, keys) = keyring(&app).await;
    let last = open(&checkpoint(&app).await, &keys);
    assert_eq!(last.size, 6, "the activation and five publications");
    let mut rebuilt = MemoryLog::default();
    for index in 0..last.size {
        let entry = app.get_json(&format!("/v1/log/entries/{index}")).await;
        let envelope: Envelope = serde_json::from_value(entry["envelope"].clone()).unwrap();
        rebuilt.push(&envelope.to_json());
    }
    assert_eq!(rebuilt.root(last.size).unwrap(), last.root);
    assert_eq!(app.assert_publications_restate().await.unwrap(), 5);
    for n in 0..5 {
        verified(&app, &format!("turn-{n}"), 1).await;
    }
    replica.stop().await.unwrap();
}

#[tokio::test]
async fn a_head_without_its_edge_reads_the_stored_hashes_and_keeps_one_tree() {
    // A log written before the head kept its edge (an upgrade) starts with none.
    let app = TestApp::spawn().await.unwrap();
    for n in 0..3 {
        app.import_skill(&format!("ops/demo-{n}"), &format!("demo-{n}"), BODY, &[])
            .await;
    }
    sqlx::query("UPDATE transparency_log SET edge_idx = '{}', edge_hashes = '{}'")
        .execute(app.store.pool())
        .await
        .unwrap();
    // Published through another replica: a process that has not appended yet knows no
    // head of its own, so it reads the head, finds no edge and reads the stored hashes.
    let replica = app.replica().await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    for n in 3..7 {
        publish_at(&app, &replica.base_url, &reviewer, &format!("demo-{n}")).await;
    }
    replica.stop().await.unwrap();
    let (_, keys) = keyring(&app).await;
    let last = open(&checkpoint(&app).await, &keys);
    assert_eq!(last.size, 8, "one activation and seven publications");
    let mut rebuilt = MemoryLog::default();
    for index in 0..last.size {
        let entry = app.get_json(&format!("/v1/log/entries/{index}")).await;
        let envelope: Envelope = serde_json::from_value(entry["envelope"].clone()).unwrap();
        rebuilt.push(&envelope.to_json());
    }
    assert_eq!(rebuilt.root(last.size).unwrap(), last.root);
    let edge: i32 = sqlx::query_scalar("SELECT cardinality(edge_idx) FROM transparency_log")
        .fetch_one(app.store.pool())
        .await
        .unwrap();
    assert_eq!(
        edge, 1,
        "the edge is kept again: the one complete subtree of eight leaves"
    );
    verified(&app, "demo-6", 1).await;
}

#[tokio::test]
async fn a_batch_of_attestations_verifies_against_one_checkpoint_like_each_alone() {
    let app = TestApp::spawn().await.unwrap();
    for name in ["alpha", "beta", "gamma"] {
        app.import_skill(&format!("ops/{name}"), name, BODY, &[]).await;
    }
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();
    let bundle = crate::fixtures::bundle("beta", "Run it twice.", &[]);
    let (status, body) = send(
        app.post_as(&reviewer, "/v1/skills/beta/versions")
            .header("content-type", "application/gzip")
            .body(cairn_skill::archive::pack(&bundle, Vec::new()).unwrap()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (origin, keys) = keyring(&app).await;
    let size = open(&checkpoint(&app).await, &keys).size;

    // Request order is kept; a version asked twice is answered once; the proofs lead to
    // the pinned size, and each answer is what the single-version endpoint says.
    let asked = json!({"size": size, "versions": [
        {"name": "gamma", "revision": 1}, {"name": "beta", "revision": 2},
        {"name": "alpha", "revision": 1}, {"name": "beta", "revision": 1}, {"name": "gamma", "revision": 1},
    ]});
    let (status, batch) = send(app.post("/v1/attestations/batch").json(&asked)).await;
    assert_eq!(status, StatusCode::OK, "{batch}");
    let items = batch["attestations"].as_array().unwrap();
    let named: Vec<(&str, i64)> = items
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["revision"].as_i64().unwrap()))
        .collect();
    assert_eq!(named, [("gamma", 1), ("beta", 2), ("alpha", 1), ("beta", 1)]);
    let note = batch["checkpoint"].as_str().unwrap();
    assert_eq!(open(note, &keys).size, size);
    for item in items {
        let mut whole = item.clone();
        whole["checkpoint"] = json!(note);
        let attestation: Attestation = serde_json::from_value(whole).unwrap();
        let verified = verify_attestation(&attestation, &origin, &keys).unwrap();
        let (name, revision) = (item["name"].as_str().unwrap(), item["revision"].as_i64().unwrap());
        assert_eq!(
            (
                verified.predicate.skill.as_str(),
                i64::from(verified.predicate.revision)
            ),
            (name, revision)
        );
        let alone = app
            .get_json(&format!(
                "/v1/skills/{name}/versions/{revision}/attestation?size={size}"
            ))
            .await;
        for field in ["envelope", "envelope_sha256", "log_index", "inclusion_proof"] {
            assert_eq!(item[field], alone[field], "{name}@{revision}: {field}");
        }
    }
    // Without a size: the current tree.
    let (status, current) = send(
        app.post("/v1/attestations/batch")
            .json(&json!({"versions": [{"name": "alpha", "revision": 1}]})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{current}");
    assert_eq!(
        open(current["checkpoint"].as_str().unwrap(), &keys).size,
        open(&checkpoint(&app).await, &keys).size
    );
}

#[tokio::test]
async fn bad_attestation_batches_are_refused_whole_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let before = app.state_snapshot().await.unwrap();
    let one = |name: &str, revision: i64| json!({"name": name, "revision": revision});
    let too_many: Vec<Value> = (0..1001).map(|_| one("demo", 1)).collect();
    for (body, status, needle) in [
        (
            json!({"versions": []}),
            StatusCode::BAD_REQUEST,
            "1 to 1000 versions, not 0",
        ),
        (json!({"versions": too_many}), StatusCode::BAD_REQUEST, "not 1001"),
        (
            json!({"versions": [one("Not A Name", 1)]}),
            StatusCode::BAD_REQUEST,
            "not a skill name",
        ),
        (
            json!({"versions": [one("demo", 0)]}),
            StatusCode::BAD_REQUEST,
            "count from 1",
        ),
        (
            json!({"versions": [one("demo", 1), one("demo", 7), one("nope", 1)]}),
            StatusCode::NOT_FOUND,
            "no attestation for demo@7, nope@1",
        ),
        (
            json!({"versions": [one("demo", 1)], "size": 99}),
            StatusCode::BAD_REQUEST,
            "holds 2 entries",
        ),
        (
            json!({"versions": [one("demo", 1)], "size": 1}),
            StatusCode::BAD_REQUEST,
            "after the tree of 1 entries",
        ),
        (
            json!({"versions": [one("demo", 1)], "extra": 1}),
            StatusCode::BAD_REQUEST,
            "unknown field",
        ),
        (
            json!({"versions": [{"name": "demo"}]}),
            StatusCode::BAD_REQUEST,
            "revision",
        ),
        (json!([1, 2]), StatusCode::BAD_REQUEST, "not valid"),
    ] {
        let (got, answer) = send(app.post("/v1/attestations/batch").json(&body)).await;
        assert_eq!(got, status, "{body}: {answer}");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{body}: {message}");
    }
    let (got, _) = send(
        app.post("/v1/attestations/batch")
            .header("content-type", "text/plain")
            .body("demo@1"),
    )
    .await;
    assert_eq!(got, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let response = app
        .client
        .post(app.url("/v1/attestations/batch"))
        .json(&json!({"versions": [one("demo", 1)]}))
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::UNAUTHORIZED,
        "attestations are not public"
    );
    // Another organisation's member cannot read this organisation's versions in a batch.
    let token = stranger_token(&app).await;
    let (got, answer) = send(
        app.post_as(&token, "/v1/attestations/batch")
            .json(&json!({"versions": [one("demo", 1)]})),
    )
    .await;
    assert_eq!(got, StatusCode::NOT_FOUND, "{answer}");
    assert_unchanged_but_the_stranger(&app, before).await;
}

/// A token of a member of another organisation, `elsewhere`.
async fn stranger_token(app: &TestApp) -> String {
    let actor = cairn_store::Actor::cli("test");
    let org = app.store.create_org("elsewhere", "Elsewhere", &actor).await.unwrap();
    let stranger = app
        .store
        .create_user(org.id, "sam", Role::Member, &actor)
        .await
        .unwrap();
    app.token_for(&stranger, "elsewhere", std::time::Duration::from_secs(3600), &app.keys)
        .await
        .unwrap()
}

/// Asserts the database and blob store are as `before`, but for the stranger's
/// organisation, user, token and their audit rows.
async fn assert_unchanged_but_the_stranger(app: &TestApp, before: (BTreeMap<String, i64>, Vec<PathBuf>)) {
    let after = app.state_snapshot().await.unwrap();
    let (mut counts, files) = before;
    for table in ["organizations", "users", "api_tokens", "audit_log"] {
        counts.insert(table.to_owned(), after.0[table]);
    }
    assert_eq!((counts, files), after);
}

fn replica_get(app: &TestApp, base: &str, path: &str) -> reqwest::RequestBuilder {
    app.client.get(format!("{base}{path}"))
}

#[tokio::test]
async fn bad_log_requests_are_refused_clearly_and_change_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let before = app.state_snapshot().await.unwrap();
    for (path, status, needle) in [
        ("/v1/log/entries/abc", StatusCode::BAD_REQUEST, "not a log index"),
        ("/v1/log/entries/-1", StatusCode::BAD_REQUEST, "not a log index"),
        ("/v1/log/entries/99", StatusCode::NOT_FOUND, "log entry 99"),
        (
            "/v1/log/proof/inclusion?index=2&size=2",
            StatusCode::BAD_REQUEST,
            "not in a tree of 2",
        ),
        (
            "/v1/log/proof/inclusion?index=0&size=50",
            StatusCode::BAD_REQUEST,
            "holds 2 entries",
        ),
        ("/v1/log/proof/inclusion?size=1", StatusCode::BAD_REQUEST, "index"),
        ("/v1/log/proof/inclusion?index=x", StatusCode::BAD_REQUEST, "index"),
        (
            "/v1/log/proof/consistency?from=0&to=2",
            StatusCode::BAD_REQUEST,
            "at least 1",
        ),
        (
            "/v1/log/proof/consistency?from=2&to=1",
            StatusCode::BAD_REQUEST,
            "at most",
        ),
        (
            "/v1/log/proof/consistency?from=1&to=9",
            StatusCode::BAD_REQUEST,
            "holds 2 entries",
        ),
        ("/v1/skills/nope/versions/1/attestation", StatusCode::NOT_FOUND, "nope"),
        ("/v1/skills/demo/versions/7/attestation", StatusCode::NOT_FOUND, "7"),
        (
            "/v1/skills/demo/versions/x/attestation",
            StatusCode::BAD_REQUEST,
            "revision",
        ),
    ] {
        let (got, body) = send(app.get(path)).await;
        assert_eq!(got, status, "{path}: {body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(needle), "{path}: {message}");
    }
    // Without a token: the checkpoint, proofs and keys are public; entries and
    // attestations are not.
    for (path, status) in [
        ("/v1/log/checkpoint", StatusCode::OK),
        ("/v1/log/proof/inclusion?index=0", StatusCode::OK),
        ("/v1/log/proof/consistency?from=1", StatusCode::OK),
        ("/.well-known/cairn/keys", StatusCode::OK),
        ("/v1/log/entries/0", StatusCode::UNAUTHORIZED),
        ("/v1/skills/demo/versions/1/attestation", StatusCode::UNAUTHORIZED),
    ] {
        let response = app.client.get(app.url(path)).send().await.unwrap();
        assert_eq!(response.status(), status, "{path}");
    }
    // Another organisation's member sees key events but not this organisation's versions.
    let token = stranger_token(&app).await;
    let (status, _) = send(app.get_as(&token, "/v1/log/entries/0")).await;
    assert_eq!(status, StatusCode::OK, "a key event is everyone's");
    let (status, body) = send(app.get_as(&token, "/v1/log/entries/1")).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_unchanged_but_the_stranger(&app, before).await;
}

/// Publishes a new revision of `demo` with `body` through `store` (a process of its own).
async fn publish_demo(
    app: &TestApp,
    store: &cairn_store::Store,
    body: &str,
) -> Result<Vec<cairn_store::PublishOutcome>, cairn_registry::app::publish::PublishError> {
    let candidate = cairn_registry::app::publish::Candidate {
        name: cairn_skill::SkillName::parse("demo").unwrap(),
        category: None,
        bundle: crate::fixtures::bundle("demo", body, &[]),
        verdict: None,
    };
    cairn_registry::app::publish::publish(
        store,
        app.blobs.as_ref(),
        app.org_id,
        std::slice::from_ref(&candidate),
        cairn_store::VersionSource::Publish,
        None,
        &cairn_store::Actor::cli("test"),
    )
    .await
}

#[tokio::test]
async fn a_process_holding_another_key_publishes_nothing() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let before = app.state_snapshot().await.unwrap();
    let stranger = cairn_store::log::LogSigner::new(cairn_registry::signing::new_key());
    let store = app.db.store().await.unwrap().with_log_signer(stranger.clone());
    assert!(matches!(
        store.open_log(TEST_REGISTRY, &stranger).await.unwrap(),
        cairn_store::log::LogOpening::OtherKeyActive { .. }
    ));
    let error = publish_demo(&app, &store, "Changed.").await.unwrap_err();
    assert!(
        matches!(
            error,
            cairn_registry::app::publish::PublishError::Store(cairn_store::StoreError::Signing(_))
        ),
        "{error}"
    );
    assert!(error.to_string().contains("active key"), "{error}");
    let (mut counts, _) = app.state_snapshot().await.unwrap();
    // Only the blob rows written before the refused commit (collected later) differ.
    counts.insert("blobs".to_owned(), before.0["blobs"]);
    assert_eq!(counts, before.0);
}

#[tokio::test]
async fn a_retired_key_stays_valid_and_a_revoked_one_only_below_its_index() {
    let app = TestApp::spawn().await.unwrap();
    app.import_skill("ops/demo", "demo", BODY, &[]).await;
    let old = cairn_store::log::LogSigner::new(app.signing_key.clone());
    let new_key = cairn_registry::signing::new_key();
    let new = cairn_store::log::LogSigner::new(new_key.clone());
    let actor = cairn_store::Actor::cli("test");
    app.store.activate_key(&old, &new, &actor).await.unwrap();
    // A replica given the new key publishes revision 2.
    let replica = app.db.store().await.unwrap().with_log_signer(new.clone());
    publish_demo(&app, &replica, "Revised.").await.unwrap();

    // The server still holding the retired key signs no checkpoint any more; a replica
    // given the new key does.
    let (_, keys) = keyring(&app).await;
    let statuses: Vec<KeyStatus> = keys.keys().iter().map(|(_, s)| *s).collect();
    assert_eq!(statuses, [KeyStatus::Retired, KeyStatus::Active]);
    let (status, body) = send(app.get("/v1/log/checkpoint")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, Some("signing_unavailable"))
    );
    let rolled = app.replica_with_key(new_key.clone()).await.unwrap();
    let from_rolled = async |rev: &str| {
        let response = app
            .client
            .get(format!("{}/v1/skills/demo/versions/{rev}/attestation", rolled.base_url))
            .bearer_auth(&app.admin_token)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        serde_json::from_value::<Attestation>(response.json().await.unwrap()).unwrap()
    };
    let (r1, r2) = (from_rolled("1").await, from_rolled("2").await);
    assert_eq!(r1.envelope.signatures[0].keyid, old.key().id().as_str());
    assert_eq!(r2.envelope.signatures[0].keyid, new_key.id().as_str());
    verify_attestation(&r1, TEST_REGISTRY, &keys).expect("a retired key's signatures stay valid");
    verify_attestation(&r2, TEST_REGISTRY, &keys).unwrap();

    // The old key leaked: revoked after entry 1, so revision 1 (entry 1) is no longer
    // trusted, while the log's first entry (0) and everything the new key signed are.
    assert_eq!(r1.log_index, 1);
    app.store
        .revoke_key(&new, old.key().id().as_str(), Some(1), &actor)
        .await
        .unwrap();
    let (_, keys) = keyring(&app).await;
    assert_eq!(keys.keys()[0].1, KeyStatus::Revoked { revoked_after_index: 1 });
    assert!(matches!(
        verify_attestation(&r1, TEST_REGISTRY, &keys),
        Err(VerifyError::Envelope(_))
    ));
    verify_attestation(&r2, TEST_REGISTRY, &keys).unwrap();
    assert!(keys.for_entry(old.key().id().as_str(), 0).is_some());
    // The revocation itself is a logged key event.
    let head = app.store.log_head().await.unwrap();
    let last = app.get_json(&format!("/v1/log/entries/{}", head.size - 1)).await;
    assert_eq!(last["event"], "revoked");
    // And no status goes back, whatever role asks.
    let error =
        sqlx::query("UPDATE signing_keys SET status = 'active', revoked_after_index = NULL WHERE status = 'revoked'")
            .execute(app.store.pool())
            .await
            .unwrap_err();
    assert!(error.to_string().contains("only moves forward"), "{error}");
    rolled.stop().await.unwrap();
}
