//! Live sync and the gRPC index under load, against the release `cairn-registry` binary
//! in its own process (so its memory is measured alone) on a fresh database with the
//! wild corpus imported:
//!
//! 1. `GetIndex` vs `GET /v1/index` throughput (full index, no conditional requests),
//!    8 concurrent clients for 10 s each: both as bytes received (the server's side), and
//!    `GetIndex` also decoded by the generated client (what a Rust client pays);
//! 2. 1,000 concurrent `WatchIndex` subscribers: server memory per subscriber (RSS growth
//!    / 1,000), then 20 changes (yank/unyank through REST): delivery latency of each
//!    change to every subscriber, from just before the REST call that commits it.
//!
//! Run: `deploy/dev/bench-live.sh` (builds the release binary, then runs this with
//! `cargo bench -p cairn-e2e --bench live`). Env: `CAIRN_REGISTRY_BIN` (the server binary),
//! `CORPUS_DIR` (default `../shared/corpus/wild/openclaw`), `WATCHERS` (default 1000).

#![allow(missing_docs)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cairn_e2e::app::{bytes_of, grpc_client};
use cairn_e2e::db::TestDb;
use cairn_proto::v1 as pb;
use futures::StreamExt;

const CLIENTS: usize = 8;
const THROUGHPUT_FOR: Duration = Duration::from_secs(10);
const CONNECTIONS: usize = 20;
const ROUNDS: usize = 20;

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run());
}

struct Server {
    child: Child,
    base_url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

async fn run() {
    let bin = std::env::var_os("CAIRN_REGISTRY_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into()))
                .join("release/cairn-registry")
        });
    assert!(bin.exists(), "{} missing: run deploy/dev/bench-live.sh", bin.display());
    let corpus = std::env::var_os("CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| cairn_e2e::corpus().join("wild/openclaw"));
    let watchers: usize = std::env::var("WATCHERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);

    let db = TestDb::new().await.unwrap();
    let data = tempfile::tempdir().unwrap();
    let env = |c: &mut Command| {
        c.env("CAIRN_DATABASE_URL", &db.url)
            .env("CAIRN_RATE_LIMIT_TOKEN", "off")
            .env("CAIRN_RATE_LIMIT_ADDRESS", "off")
            .env("CAIRN_RATE_LIMIT_PROPOSALS", "off")
            .env("CAIRN_RATE_LIMIT_USER_PROPOSALS", "off")
            // One token opens every watcher here (real clients each have their own).
            .env("CAIRN_MAX_WATCHES_PER_TOKEN", (watchers + 1).to_string())
            .env("RUST_LOG", "warn")
            .arg("--data-dir")
            .arg(data.path());
    };
    let mut import = Command::new(&bin);
    import.arg("import").arg(&corpus).stdout(Stdio::null());
    env(&mut import);
    assert!(import.status().unwrap().success(), "import failed");

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut serve = Command::new(&bin);
    serve
        .arg("serve")
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .stdout(Stdio::null());
    env(&mut serve);
    let server = Server {
        child: serve.spawn().unwrap(),
        base_url: format!("http://127.0.0.1:{port}"),
    };
    let http = reqwest::Client::new();
    for _ in 0..200 {
        if http.get(format!("{}/healthz", server.base_url)).send().await.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let token = std::fs::read_to_string(data.path().join("admin.token"))
        .unwrap()
        .trim()
        .to_owned();

    // 1. Index throughput.
    let rest_body = bytes_of(http.get(format!("{}/v1/index", server.base_url)).bearer_auth(&token)).await;
    let index: serde_json::Value = serde_json::from_slice(&rest_body).unwrap();
    let skills = index["skills"].as_array().unwrap().len();
    let probe = grpc_client(&server.base_url, Some(&token)).await.unwrap();
    let grpc_size = {
        use prost::Message as _;
        probe
            .clone()
            .get_index(pb::GetIndexRequest { since: None })
            .await
            .unwrap()
            .into_inner()
            .encoded_len()
    };
    let rest_rate = {
        let tasks: Vec<_> = (0..CLIENTS)
            .map(|_| {
                let http = reqwest::Client::new();
                let url = format!("{}/v1/index", server.base_url);
                let token = token.clone();
                tokio::spawn(async move {
                    let until = Instant::now() + THROUGHPUT_FOR;
                    let mut n = 0u64;
                    while Instant::now() < until {
                        let body = bytes_of(http.get(&url).bearer_auth(&token)).await;
                        assert!(body.len() > 1000);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        total as f64 / THROUGHPUT_FOR.as_secs_f64()
    };
    let grpc_raw_rate = {
        let mut tasks = Vec::new();
        for _ in 0..CLIENTS {
            let channel = tonic::transport::Endpoint::from_shared(server.base_url.clone())
                .unwrap()
                .connect()
                .await
                .unwrap();
            let auth: tonic::metadata::MetadataValue<_> = format!("Bearer {token}").parse().unwrap();
            tasks.push(tokio::spawn(async move {
                let mut grpc = tonic::client::Grpc::new(channel).max_decoding_message_size(64 << 20);
                let until = Instant::now() + THROUGHPUT_FOR;
                let mut n = 0u64;
                while Instant::now() < until {
                    grpc.ready().await.unwrap();
                    let mut request = tonic::Request::new(pb::GetIndexRequest { since: None });
                    request.metadata_mut().insert("authorization", auth.clone());
                    let path = tonic::codegen::http::uri::PathAndQuery::from_static("/cairn.v1.Registry/GetIndex");
                    let body = grpc.unary(request, path, RawCodec).await.unwrap().into_inner();
                    assert!(body.len() > 1000);
                    n += 1;
                }
                n
            }));
        }
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        total as f64 / THROUGHPUT_FOR.as_secs_f64()
    };
    let grpc_rate = {
        let mut tasks = Vec::new();
        for _ in 0..CLIENTS {
            let mut client = grpc_client(&server.base_url, Some(&token)).await.unwrap();
            tasks.push(tokio::spawn(async move {
                let until = Instant::now() + THROUGHPUT_FOR;
                let mut n = 0u64;
                while Instant::now() < until {
                    let index = client
                        .get_index(pb::GetIndexRequest { since: None })
                        .await
                        .unwrap()
                        .into_inner();
                    assert!(!index.skills.is_empty());
                    n += 1;
                }
                n
            }));
        }
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        total as f64 / THROUGHPUT_FOR.as_secs_f64()
    };

    // 2. Watchers.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let pid = server.child.id();
    let rss_before = rss_kib(pid);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(i64, Instant)>();
    let mut clients = Vec::new();
    for _ in 0..CONNECTIONS {
        clients.push(grpc_client(&server.base_url, Some(&token)).await.unwrap());
    }
    let mut streams = Vec::with_capacity(watchers);
    for i in 0..watchers {
        let mut client = clients[i % CONNECTIONS].clone();
        streams.push(
            client
                .watch_index(pb::WatchIndexRequest { since: None })
                .await
                .unwrap()
                .into_inner(),
        );
    }
    for mut stream in streams {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some(Ok(change)) = stream.next().await {
                if change.kind != pb::index_change::Kind::Heartbeat as i32 {
                    let _ = tx.send((change.cursor, Instant::now()));
                }
            }
        });
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let rss_watching = rss_kib(pid);
    let per_watcher = (rss_watching.saturating_sub(rss_before)) as f64 * 1024.0 / watchers as f64;

    let name = index["skills"][0]["name"].as_str().unwrap().to_owned();
    let revision = index["skills"][0]["revision"].as_i64().unwrap();
    let mut latencies = Vec::with_capacity(ROUNDS * watchers);
    let mut commits = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        let verb = if round % 2 == 0 { "yank" } else { "unyank" };
        let url = format!("{}/v1/skills/{name}/versions/{revision}/{verb}", server.base_url);
        let started = Instant::now();
        let response = http.post(&url).bearer_auth(&token).send().await.unwrap();
        assert!(response.status().is_success(), "{verb}: {}", response.status());
        commits.push(started.elapsed().as_secs_f64() * 1000.0);
        let mut got = 0;
        let mut cursor = None;
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while got < watchers {
            let (c, at) = tokio::time::timeout_at(deadline, rx.recv())
                .await
                .expect("every watcher gets the change within 10 s")
                .unwrap();
            assert!(cursor.is_none_or(|k| k == c), "one change per round");
            cursor = Some(c);
            latencies.push(at.duration_since(started).as_secs_f64() * 1000.0);
            got += 1;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let rss_after = rss_kib(pid);
    latencies.sort_by(f64::total_cmp);
    commits.sort_by(f64::total_cmp);

    println!("| measure | result |");
    println!("|---|---|");
    println!(
        "| index | {skills} skills, REST body {} bytes, gRPC message {grpc_size} bytes |",
        rest_body.len()
    );
    let secs = THROUGHPUT_FOR.as_secs();
    println!("| `GET /v1/index` (full, {CLIENTS} clients, {secs} s, bytes received) | {rest_rate:.0} req/s |");
    println!("| `GetIndex` (full, {CLIENTS} clients, {secs} s, bytes received) | {grpc_raw_rate:.0} req/s |");
    println!(
        "| `GetIndex` (full, {CLIENTS} clients, {secs} s, decoded by the generated client) | {grpc_rate:.0} req/s |"
    );
    println!(
        "| server RSS: before watchers / {watchers} watching / after {ROUNDS} changes | {} / {} / {} MiB |",
        rss_before / 1024,
        rss_watching / 1024,
        rss_after / 1024
    );
    println!("| server memory per watcher | {:.1} KiB |", per_watcher / 1024.0);
    println!(
        "| delivery latency of one change to {watchers} watchers, {ROUNDS} changes: p50 / p99 / max | {:.1} / {:.1} / {:.1} ms |",
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.last().unwrap()
    );
    println!(
        "| the yank/unyank call itself (included above): p50 / max | {:.1} / {:.1} ms |",
        percentile(&commits, 0.5),
        commits.last().unwrap()
    );
}

/// A client codec that encodes the request with prost and keeps the answer's bytes.
#[derive(Clone, Copy, Default)]
struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = pb::GetIndexRequest;
    type Decode = bytes::Bytes;
    type Encoder = tonic_prost::ProstEncoder<pb::GetIndexRequest>;
    type Decoder = RawDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        tonic_prost::ProstEncoder::new(tonic::codec::BufferSettings::default())
    }

    fn decoder(&mut self) -> RawDecoder {
        RawDecoder
    }
}

struct RawDecoder;

impl tonic::codec::Decoder for RawDecoder {
    type Item = bytes::Bytes;
    type Error = tonic::Status;

    fn decode(&mut self, src: &mut tonic::codec::DecodeBuf<'_>) -> Result<Option<bytes::Bytes>, tonic::Status> {
        use bytes::Buf as _;
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}
