//! Live index changes: gRPC `WatchIndex` and `GET /v1/events` (Server-Sent Events) across
//! replicas on one database, reconnection with a cursor (no gap, no duplicate),
//! heartbeats, refused cursors, slow watchers and shutdown.

use std::time::Duration;

use cairn_e2e::app::{GrpcClient, TestApp};
use cairn_proto::v1 as pb;
use cairn_proto::v1::index_change::Kind;
use cairn_registry::app::live::LiveSettings;
use cairn_skill::SkillName;
use cairn_store::{Actor, Role};
use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tonic::Code;

const WAIT: Duration = Duration::from_secs(15);

async fn app_with(settings: Option<LiveSettings>) -> TestApp {
    let app = match settings {
        Some(settings) => TestApp::spawn_with_live(settings).await.unwrap(),
        None => TestApp::spawn().await.unwrap(),
    };
    app.import_skills(&[
        ("ops/demo", "demo", "## Steps\n\n1. One.\n2. Two.\n", &[]),
        ("other", "other", "## Steps\n\n1. Other.\n", &[]),
    ])
    .await;
    app
}

/// Yanks or unyanks `other` revision 1 directly in the store (one index change).
async fn toggle(app: &TestApp, yanked: bool) {
    let name = SkillName::parse("other").unwrap();
    app.store
        .set_yanked(app.org_id, &name, 1, yanked, &Actor::cli("test"))
        .await
        .unwrap();
}

/// The next change of a gRPC watch, skipping heartbeats.
async fn next_change(stream: &mut tonic::Streaming<pb::IndexChange>) -> pb::IndexChange {
    loop {
        let change = tokio::time::timeout(WAIT, stream.next())
            .await
            .expect("a change within the wait")
            .expect("the stream is open")
            .expect("no error");
        if change.kind != Kind::Heartbeat as i32 {
            return change;
        }
    }
}

/// A minimal Server-Sent Events reader.
struct Events {
    body: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buffer: String,
}

/// One event: (event, id, data).
type Event = (String, Option<String>, Value);

impl Events {
    async fn open(
        app_url: &str,
        token: &str,
        since: Option<i64>,
        last_event_id: Option<&str>,
    ) -> Result<Events, (StatusCode, Value)> {
        let client = reqwest::Client::new();
        let url = match since {
            Some(since) => format!("{app_url}/v1/events?since={since}"),
            None => format!("{app_url}/v1/events"),
        };
        let mut request = client.get(url).bearer_auth(token);
        if let Some(id) = last_event_id {
            request = request.header("last-event-id", id);
        }
        let response = request.send().await.unwrap();
        if response.status() != StatusCode::OK {
            let status = response.status();
            return Err((status, response.json().await.unwrap_or(Value::Null)));
        }
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        Ok(Events {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        })
    }

    async fn next(&mut self) -> Event {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut event, mut id, mut data) = (String::from("message"), None, String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        event = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        id = Some(v.trim().to_owned());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.trim());
                    }
                }
                if data.is_empty() {
                    continue;
                }
                return (event, id, serde_json::from_str(&data).unwrap());
            }
            let chunk = tokio::time::timeout(WAIT, self.body.next())
                .await
                .expect("an event within the wait")
                .expect("the stream is open")
                .unwrap();
            self.buffer.push_str(std::str::from_utf8(&chunk).unwrap());
        }
    }

    async fn next_change(&mut self) -> Event {
        loop {
            let event = self.next().await;
            if event.0 != "heartbeat" {
                return event;
            }
        }
    }
}

/// The cursor of `client`'s newest index change: where a watch that misses nothing starts.
async fn newest_cursor(client: &mut GrpcClient) -> i64 {
    client
        .get_index(pb::GetIndexRequest { since: None })
        .await
        .unwrap()
        .into_inner()
        .cursor
}

/// Opens `client`'s index watch from `since`: every live test starts one.
async fn watch(client: &mut GrpcClient, since: Option<i64>) -> tonic::Streaming<pb::IndexChange> {
    client
        .watch_index(pb::WatchIndexRequest { since })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn an_approval_through_one_replica_reaches_watchers_on_another() {
    let app = app_with(None).await;
    let replica = app.replica().await.unwrap();
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, reviewer) = app.user_with_token("rex", Role::Reviewer).await.unwrap();

    let mut watcher = replica.grpc(Some(&member)).await.unwrap();
    let mut changes = watch(&mut watcher, None).await;
    let mut events = Events::open(&replica.base_url, &member, None, None).await.unwrap();

    let submitted = app
        .post_json(
            &member,
            "/v1/patches",
            &json!({"skill": "demo", "base_revision": 1,
                      "ops": [{"op": "patch", "old": "2. Two.", "new": "2. Two, carefully."}]}),
        )
        .await
        .1;
    let id = submitted["id"].as_str().unwrap();
    let approved = app
        .post_as(&reviewer, &format!("/v1/patches/{id}/approve"))
        .send()
        .await
        .unwrap();
    assert_eq!(approved.status(), StatusCode::OK);

    let change = next_change(&mut changes).await;
    assert_eq!(change.kind, Kind::Published as i32);
    assert_eq!(change.name, "demo");
    assert_eq!(change.revision, Some(2));
    let entry = change.entry.unwrap();
    assert_eq!(entry.revision, 2);
    let (_, index) = {
        let response = app.get("/v1/index").send().await.unwrap();
        (response.status(), response.json::<Value>().await.unwrap())
    };
    assert_eq!(json!(change.cursor), index["cursor"]);
    assert_eq!(json!(entry.digest), index["skills"][0]["digest"]);

    let (event, event_id, data) = events.next_change().await;
    assert_eq!(event, "change");
    assert_eq!(event_id, Some(change.cursor.to_string()));
    assert_eq!(data["kind"], "published");
    assert_eq!(data["name"], "demo");
    assert_eq!(data["revision"], 2);
    assert_eq!(data["entry"]["digest"], index["skills"][0]["digest"]);
    assert_eq!(data["entry"]["files"], index["skills"][0]["files"]);
}

#[tokio::test]
async fn reconnecting_with_the_last_cursor_gives_every_later_change_exactly_once() {
    let app = app_with(None).await;
    let token = app.admin_token.clone();
    let mut grpc = app.grpc(Some(&token)).await.unwrap();
    let start = newest_cursor(&mut grpc).await;

    let mut first = watch(&mut grpc, Some(start)).await;
    toggle(&app, true).await;
    let a = next_change(&mut first).await;
    assert_eq!((a.name.as_str(), a.kind), ("other", Kind::Yanked as i32));
    assert!(a.entry.is_none(), "a skill whose only version is yanked has no entry");
    drop(first);

    // Changes while disconnected.
    toggle(&app, false).await;
    toggle(&app, true).await;
    let mut second = watch(&mut grpc, Some(a.cursor)).await;
    let b = next_change(&mut second).await;
    let c = next_change(&mut second).await;
    assert_eq!((b.kind, c.kind), (Kind::Unyanked as i32, Kind::Yanked as i32));
    assert!(a.cursor < b.cursor && b.cursor < c.cursor);
    // Entries are read with the changes: both were read after `c` yanked the version.
    assert!(b.entry.is_none() && c.entry.is_none());
    // Then a live one, and nothing else in between.
    toggle(&app, false).await;
    let d = next_change(&mut second).await;
    assert_eq!(d.kind, Kind::Unyanked as i32);
    assert!(d.cursor > c.cursor);
    assert_eq!(d.entry.as_ref().map(|e| e.revision), Some(1));
    assert!(
        tokio::time::timeout(Duration::from_millis(500), second.next())
            .await
            .is_err(),
        "a duplicate or stray change arrived"
    );

    // The same over SSE: Last-Event-ID wins over ?since (browsers resend the URL).
    let mut events = Events::open(&app.base_url, &token, Some(start), Some(&a.cursor.to_string()))
        .await
        .unwrap();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (_, id, data) = events.next_change().await;
        assert_eq!(json!(id.clone().unwrap().parse::<i64>().unwrap()), data["cursor"]);
        ids.push(id.unwrap().parse::<i64>().unwrap());
    }
    assert_eq!(ids, vec![b.cursor, c.cursor, d.cursor]);
    // From the start with ?since: a first, too.
    let mut events = Events::open(&app.base_url, &token, Some(start), None).await.unwrap();
    assert_eq!(events.next_change().await.1, Some(a.cursor.to_string()));
}

#[tokio::test]
async fn quiet_streams_carry_heartbeats_with_the_last_cursor() {
    let app = app_with(Some(LiveSettings {
        heartbeat: Duration::from_millis(200),
        ..LiveSettings::new(256)
    }))
    .await;
    let mut grpc = app.grpc(Some(&app.admin_token)).await.unwrap();
    let cursor = newest_cursor(&mut grpc).await;
    let mut changes = watch(&mut grpc, None).await;
    for _ in 0..2 {
        let beat = tokio::time::timeout(WAIT, changes.next())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(beat.kind, Kind::Heartbeat as i32);
        assert_eq!(beat.cursor, cursor);
        assert!(beat.name.is_empty() && beat.entry.is_none());
    }
    toggle(&app, true).await;
    let change = next_change(&mut changes).await;
    let beat = tokio::time::timeout(WAIT, changes.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!((beat.kind, beat.cursor), (Kind::Heartbeat as i32, change.cursor));

    let mut events = Events::open(&app.base_url, &app.admin_token, None, None).await.unwrap();
    let (event, id, data) = events.next().await;
    assert_eq!(event, "heartbeat");
    assert_eq!(id, None, "a heartbeat must not move the browser's Last-Event-ID");
    assert_eq!(data["cursor"], change.cursor);
}

#[tokio::test]
async fn bad_cursors_are_refused_before_streaming() {
    let app = app_with(None).await;
    let mut grpc = app.grpc(Some(&app.admin_token)).await.unwrap();
    let future = grpc
        .watch_index(pb::WatchIndexRequest { since: Some(1_000_000) })
        .await
        .unwrap_err();
    assert_eq!(future.code(), Code::FailedPrecondition);
    assert!(
        future.message().contains("newer than this registry's newest change"),
        "{}",
        future.message()
    );
    let negative = grpc
        .watch_index(pb::WatchIndexRequest { since: Some(-1) })
        .await
        .unwrap_err();
    assert_eq!(negative.code(), Code::InvalidArgument);

    let token = app.admin_token.clone();
    let (status, body) = Events::open(&app.base_url, &token, Some(1_000_000), None)
        .await
        .err()
        .unwrap();
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::GONE, Some("cursor_expired"))
    );
    for bad in ["-1", "abc", "1.5"] {
        let (status, body) = Events::open(&app.base_url, &token, None, Some(bad))
            .await
            .err()
            .unwrap();
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        assert!(
            body["error"]["message"].as_str().unwrap().contains("Last-Event-ID"),
            "{body}"
        );
    }
    let unauthenticated = reqwest::get(app.url("/v1/events")).await.unwrap();
    assert_eq!(unauthenticated.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(app.live.watchers(app.org_id), 0, "refused watches hold nothing");
}

#[tokio::test]
async fn a_slow_watcher_neither_stalls_the_others_nor_misses_a_change() {
    let app = app_with(None).await;
    let mut grpc = app.grpc(Some(&app.admin_token)).await.unwrap();
    let start = newest_cursor(&mut grpc).await;
    // Its own connection with a small flow-control window: once full, the server cannot
    // send it more, as with a client on a slow link.
    let channel = tonic::transport::Endpoint::from_shared(app.base_url.clone())
        .unwrap()
        .initial_stream_window_size(Some(16 * 1024))
        .initial_connection_window_size(Some(16 * 1024))
        .connect()
        .await
        .unwrap();
    let token: tonic::metadata::MetadataValue<_> = format!("Bearer {}", app.admin_token).parse().unwrap();
    let mut slow_client =
        cairn_proto::v1::registry_client::RegistryClient::with_interceptor(channel, move |mut r: tonic::Request<()>| {
            r.metadata_mut().insert("authorization", token.clone());
            Ok(r)
        });
    let mut slow = slow_client
        .watch_index(pb::WatchIndexRequest { since: Some(start) })
        .await
        .unwrap()
        .into_inner();
    let mut fast = watch(&mut grpc, Some(start)).await;
    const CHANGES: usize = 1200;
    let reader = tokio::spawn(async move {
        let mut cursors = Vec::with_capacity(CHANGES);
        while cursors.len() < CHANGES {
            cursors.push(next_change(&mut fast).await.cursor);
        }
        cursors
    });
    for i in 0..CHANGES {
        toggle(&app, i % 2 == 0).await;
    }
    // The fast watcher got everything while the slow one read nothing.
    let fast_cursors = tokio::time::timeout(Duration::from_secs(60), reader)
        .await
        .unwrap()
        .unwrap();
    let mut expected = fast_cursors.clone();
    expected.sort_unstable();
    expected.dedup();
    assert_eq!(fast_cursors, expected, "in order, once each");
    assert_eq!(fast_cursors.len(), CHANGES);
    // The slow one fell out of the broadcast and caught up from the database.
    let mut slow_cursors = Vec::with_capacity(CHANGES);
    while slow_cursors.len() < CHANGES {
        slow_cursors.push(next_change(&mut slow).await.cursor);
    }
    assert_eq!(slow_cursors, fast_cursors);
    assert!(
        app.live.lagged() >= 1,
        "the slow watcher never lagged: the test did not test it"
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(300), slow.next())
            .await
            .is_err(),
        "nothing after the last change"
    );
}

#[tokio::test]
async fn stopping_a_replica_ends_its_streams_and_drains() {
    let app = app_with(None).await;
    let replica = app.replica().await.unwrap();
    let mut grpc = replica.grpc(Some(&app.admin_token)).await.unwrap();
    let mut changes = watch(&mut grpc, None).await;
    let mut events = Events::open(&replica.base_url, &app.admin_token, None, None)
        .await
        .unwrap();
    tokio::time::timeout(WAIT, replica.stop())
        .await
        .expect("drained")
        .unwrap();
    let end = tokio::time::timeout(WAIT, changes.next()).await.unwrap();
    assert!(end.is_none() || end.unwrap().is_err());
    // Whatever was sent before (the opening `retry:` block), then the end.
    let ended = tokio::time::timeout(WAIT, async { while let Some(Ok(_)) = events.body.next().await {} }).await;
    assert!(ended.is_ok(), "the event stream did not end");
}

#[tokio::test]
async fn streams_end_when_their_token_is_revoked_or_its_user_disabled() {
    let app = app_with(Some(LiveSettings {
        heartbeat: Duration::from_millis(200),
        ..LiveSettings::new(256)
    }))
    .await;
    app.wait_following().await.unwrap();
    let (_, member) = app.user_with_token("mia", Role::Member).await.unwrap();
    let (_, reader) = app.user_with_token("rita", Role::Reader).await.unwrap();
    let mut grpc = app.grpc(Some(&member)).await.unwrap();
    let mut changes = watch(&mut grpc, None).await;
    let mut events = Events::open(&app.base_url, &reader, None, None).await.unwrap();
    assert_eq!(events.next().await.0, "heartbeat", "the stream works before");

    let whoami = app.get_json_as(&member, "/v1/whoami").await;
    let revoked = app.delete_token(&member, whoami["token_id"].as_str().unwrap()).await;
    assert_eq!(revoked, StatusCode::OK);
    let ended = loop {
        match tokio::time::timeout(WAIT, changes.next()).await.unwrap() {
            Some(Ok(change)) if change.kind == Kind::Heartbeat as i32 => continue,
            other => break other,
        }
    };
    let status = ended.expect("an error, not a silent end").unwrap_err();
    assert_eq!(status.code(), Code::Unauthenticated, "{status:?}");
    assert!(status.message().contains("revoked"), "{}", status.message());

    let disabled = app
        .client
        .patch(app.url("/v1/users/rita"))
        .bearer_auth(&app.admin_token)
        .json(&json!({"disabled": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(disabled.status(), StatusCode::OK);
    let (event, _, data) = loop {
        let event = events.next().await;
        if event.0 != "heartbeat" {
            break event;
        }
    };
    assert_eq!(event, "error");
    assert_eq!(data["error"]["code"], "unauthorized");
    assert!(
        data["error"]["message"].as_str().unwrap().contains("disabled"),
        "{data}"
    );
}

#[tokio::test]
async fn watches_per_token_and_replays_are_bounded() {
    let app = app_with(Some(LiveSettings {
        heartbeat: Duration::from_millis(200),
        max_watches_per_token: 2,
        max_replay: 3,
    }))
    .await;
    let token = app.admin_token.clone();
    let mut grpc = app.grpc(Some(&token)).await.unwrap();
    let start = newest_cursor(&mut grpc).await;
    let first = watch(&mut grpc, None).await;
    let _second = Events::open(&app.base_url, &token, None, None).await.unwrap();
    let third = grpc
        .watch_index(pb::WatchIndexRequest { since: None })
        .await
        .unwrap_err();
    assert_eq!(third.code(), Code::ResourceExhausted);
    assert!(third.message().contains("already holds 2"), "{}", third.message());
    let (status, body) = Events::open(&app.base_url, &token, None, None).await.err().unwrap();
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("rate_limited"))
    );
    // Another token is not affected; closing a stream frees its slot.
    let (_, other) = app.user_with_token("olga", Role::Reader).await.unwrap();
    let mut other_client = app.grpc(Some(&other)).await.unwrap();
    let _theirs = other_client
        .watch_index(pb::WatchIndexRequest { since: None })
        .await
        .unwrap();
    drop(first);
    let mut reopened = None;
    for _ in 0..100 {
        match grpc.watch_index(pb::WatchIndexRequest { since: None }).await {
            Ok(stream) => {
                reopened = Some(stream);
                break;
            }
            Err(status) if status.code() == Code::ResourceExhausted => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(status) => panic!("{status:?}"),
        }
    }
    assert!(reopened.is_some(), "the closed stream's slot never came back");
    drop(reopened);

    // Four changes: replaying all of them is over the limit of 3, the last three are not.
    for yanked in [true, false, true, false] {
        toggle(&app, yanked).await;
    }
    let (_, other_token) = app.user_with_token("otto", Role::Reader).await.unwrap();
    let mut fresh = app.grpc(Some(&other_token)).await.unwrap();
    let behind = fresh
        .watch_index(pb::WatchIndexRequest { since: Some(start) })
        .await
        .unwrap_err();
    assert_eq!(behind.code(), Code::FailedPrecondition);
    assert!(
        behind.message().contains("more than 3 changes behind"),
        "{}",
        behind.message()
    );
    let (status, _) = Events::open(&app.base_url, &other_token, Some(start), None)
        .await
        .err()
        .unwrap();
    assert_eq!(status, StatusCode::GONE);
    // (Straight from the store: the changes above bypassed this process's cursor cache.)
    let newest = app.store.index_cursor(app.org_id).await.unwrap();
    let mut recent = fresh
        .watch_index(pb::WatchIndexRequest {
            since: Some(newest - 3),
        })
        .await
        .unwrap()
        .into_inner();
    for _ in 0..3 {
        next_change(&mut recent).await;
    }
}
