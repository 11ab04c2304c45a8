//! The scale-out and fault runner (issue 10): registry *processes* on one PostgreSQL
//! (an embedded cluster this runner can restart) and one Garage, a mixed load from
//! in-process clients, and faults injected while it runs: a replica killed with SIGKILL
//! and started again, PostgreSQL restarted, the S3 server stopped for ten seconds.
//!
//! Clients reach the replicas through a small client-side balancer that behaves like an
//! ingress proxy: a connection refused by a dead replica is retried on the next one (a
//! *failover*, never shown to the client). Everything the registry answers is shown: a
//! 503 with `Retry-After` is waited out and retried (a *retryable* error, counted per
//! fault); any other failure is a *non-retryable* error. A request cut off by a SIGKILL
//! mid-flight is *interrupted*: reads are retried, and writes are resolved by reading
//! the patch back, as a careful client does.
//!
//! Afterwards [`Report`] holds what the load did and what the checks found: every
//! revision appears once and only with its approved patch, every version's blobs are
//! readable with their digests, every watcher saw every change, and every replica
//! answers again without having been restarted (except the one killed).
//!
//! Loopback only: replicas listen on 127.0.0.1, PostgreSQL on a Unix socket, Garage on
//! 127.0.0.1.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use cairn_store::blob::{BlobStore, S3BlobStore};
use cairn_store::embedded::EmbeddedPostgres;
use futures::StreamExt;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::process::{Child, Command};

use crate::garage::Garage;

/// What to run.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The `cairn-registry` binary.
    pub registry_bin: PathBuf,
    /// Registry processes.
    pub replicas: usize,
    /// How long the load runs.
    pub duration: Duration,
    /// Whether the faults are injected (at 15 %, 40 % and 65 % of the run).
    pub faults: bool,
    /// Skills imported before the load.
    pub skills: usize,
    /// Clients pulling the index and blob batches.
    pub pullers: usize,
    /// Clients submitting patches.
    pub submitters: usize,
    /// Reviewers approving them.
    pub approvers: usize,
    /// Live-change watchers.
    pub watchers: usize,
}

impl Settings {
    /// The test's bounded run: three replicas, faults, 45 seconds of load.
    pub fn test(registry_bin: PathBuf) -> Self {
        Settings {
            registry_bin,
            replicas: 3,
            duration: Duration::from_secs(45),
            faults: true,
            skills: 24,
            pullers: 4,
            submitters: 2,
            approvers: 1,
            watchers: 6,
        }
    }
}

/// One kind of operation's totals.
#[derive(Clone, Debug, Default)]
pub struct OpStats {
    /// Completed operations.
    pub completed: usize,
    /// End-to-end latencies (retries included), ms.
    latencies: Vec<f64>,
}

impl OpStats {
    /// The `p`-quantile latency, ms.
    pub fn percentile(&self, p: f64) -> f64 {
        if self.latencies.is_empty() {
            return 0.0;
        }
        let mut sorted = self.latencies.clone();
        sorted.sort_by(f64::total_cmp);
        sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
    }
}

/// What one fault did to the clients.
#[derive(Clone, Debug)]
pub struct FaultReport {
    /// The fault.
    pub name: &'static str,
    /// Seconds after the load started.
    pub at_s: f64,
    /// How long the fault lasted (until the component was back).
    pub lasted_s: f64,
    /// 503 answers with `Retry-After` during it (or shortly after).
    pub retryable: usize,
    /// Connections refused and sent to another replica.
    pub failovers: usize,
    /// Requests cut off mid-flight (resolved or retried).
    pub interrupted: usize,
    /// From the component's return to the last error it caused, seconds.
    pub recovery_s: f64,
}

/// Everything a run measured and checked.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Registry processes.
    pub replicas: usize,
    /// Seconds of load.
    pub seconds: f64,
    /// Per kind of operation (`index`, `blob_batch`, `submit`, `approve`).
    pub ops: BTreeMap<&'static str, OpStats>,
    /// Per fault, in order.
    pub faults: Vec<FaultReport>,
    /// Retryable errors outside any fault window.
    pub retryable_outside_faults: usize,
    /// Requests cut off outside any fault window (none expected).
    pub interrupted_outside_faults: usize,
    /// Abandoned blobs (written, never referenced, aged past the grace period) the
    /// replicas' collectors removed during the run.
    pub orphans_collected: usize,
    /// Failures that were not 503 + `Retry-After`, with what happened.
    pub non_retryable: Vec<String>,
    /// Approved patches at the end.
    pub approved: usize,
    /// Revisions published during the run.
    pub revisions: usize,
    /// Lessons approved on the hot skill (each checked to be in its text exactly once).
    pub hot_lessons: usize,
    /// Transparency-log entries at the end (each version's publication once, one tree).
    pub log_entries: usize,
    /// Problems the end checks found (lost, duplicated or unreadable data, missed
    /// changes, replicas not answering).
    pub problems: Vec<String>,
    /// Watcher reconnections.
    pub watcher_reconnects: usize,
    /// Every failover, retryable error and interruption, with when and what.
    pub timeline: Vec<String>,
}

impl Report {
    /// Operations per second, all kinds together.
    pub fn throughput(&self) -> f64 {
        self.ops.values().map(|s| s.completed).sum::<usize>() as f64 / self.seconds
    }

    /// The report as Markdown tables (docs/OPERATIONS.md).
    pub fn markdown(&self) -> String {
        let mut out = format!(
            "{} replica(s), {:.0} s: {:.0} operations/s; {} patches approved ({} of them lessons on one hot skill, each in its text once), {} revisions published, {} watcher reconnections; the transparency log holds {} entries, one tree, each version's publication once\n\n",
            self.replicas,
            self.seconds,
            self.throughput(),
            self.approved,
            self.hot_lessons,
            self.revisions,
            self.watcher_reconnects,
            self.log_entries
        );
        out.push_str("| operation | completed | per second | p50 ms | p99 ms |\n|---|---:|---:|---:|---:|\n");
        for (kind, stats) in &self.ops {
            out.push_str(&format!(
                "| {kind} | {} | {:.1} | {:.1} | {:.1} |\n",
                stats.completed,
                stats.completed as f64 / self.seconds,
                stats.percentile(0.5),
                stats.percentile(0.99)
            ));
        }
        if !self.faults.is_empty() {
            out.push_str(
                "\n| fault | at s | lasted s | 503 + Retry-After | failovers | interrupted | recovered s after |\n\
                 |---|---:|---:|---:|---:|---:|---:|\n",
            );
            for f in &self.faults {
                out.push_str(&format!(
                    "| {} | {:.1} | {:.1} | {} | {} | {} | {:.1} |\n",
                    f.name, f.at_s, f.lasted_s, f.retryable, f.failovers, f.interrupted, f.recovery_s
                ));
            }
        }
        out.push_str(&format!(
            "\nabandoned blobs collected during the run: {}; retryable errors outside faults: {}; \
             interrupted outside faults: {}; non-retryable errors: {}; problems found: {}\n",
            self.orphans_collected,
            self.retryable_outside_faults,
            self.interrupted_outside_faults,
            self.non_retryable.len(),
            self.problems.len()
        ));
        for problem in self.problems.iter().chain(&self.non_retryable).take(10) {
            out.push_str(&format!("- {problem}\n"));
        }
        out
    }
}

/// An event the clients record, with when it happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Retryable,
    Failover,
    Interrupted,
}

/// What all clients share: where to send requests and what happened.
struct Shared {
    urls: Vec<String>,
    next: AtomicUsize,
    client: reqwest::Client,
    started: Instant,
    events: Mutex<Vec<(f64, Event, String)>>,
    non_retryable: Mutex<Vec<String>>,
    ops: Mutex<BTreeMap<&'static str, OpStats>>,
    stop: AtomicBool,
}

/// How a request ended.
enum Outcome {
    /// The registry answered (2xx, 304 or an error the caller handles).
    Answered(StatusCode, bytes::Bytes),
    /// The connection broke after the request may have reached a replica.
    Interrupted,
}

impl Shared {
    fn record(&self, event: Event, what: &str) {
        let at = self.started.elapsed().as_secs_f64();
        self.events.lock().unwrap().push((at, event, what.to_owned()));
    }

    fn fail(&self, what: String) {
        self.non_retryable.lock().unwrap().push(what);
    }

    fn done(&self, kind: &'static str, since: Instant) {
        let mut ops = self.ops.lock().unwrap();
        let stats = ops.entry(kind).or_default();
        stats.completed += 1;
        stats.latencies.push(since.elapsed().as_secs_f64() * 1000.0);
    }

    /// Sends a request built for a replica's base URL: failovers on refused connections,
    /// 503 + `Retry-After` waited out and retried, anything else returned.
    async fn send(&self, what: &str, build: impl Fn(&str) -> reqwest::RequestBuilder) -> Outcome {
        loop {
            let start = self.next.fetch_add(1, Ordering::Relaxed);
            let url = &self.urls[start % self.urls.len()];
            let response = match build(url).send().await {
                Ok(response) => response,
                Err(e) if e.is_connect() => {
                    self.record(Event::Failover, what);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
                Err(e) => {
                    self.record(Event::Interrupted, &format!("{what}: {e}"));
                    return Outcome::Interrupted;
                }
            };
            let status = response.status();
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<u64>().ok());
            let body = match response.bytes().await {
                Ok(body) => body,
                Err(e) => {
                    self.record(Event::Interrupted, &format!("{what}: body: {e}"));
                    return Outcome::Interrupted;
                }
            };
            if status == StatusCode::SERVICE_UNAVAILABLE {
                match retry_after {
                    Some(seconds) => {
                        self.record(Event::Retryable, &format!("{what}: {}", String::from_utf8_lossy(&body)));
                        tokio::time::sleep(Duration::from_secs(seconds.min(5))).await;
                        continue;
                    }
                    None => self.fail(format!(
                        "{what}: 503 without Retry-After: {}",
                        String::from_utf8_lossy(&body)
                    )),
                }
            } else if status.is_server_error() {
                self.fail(format!("{what}: {status}: {}", String::from_utf8_lossy(&body)));
            }
            return Outcome::Answered(status, body);
        }
    }
}

/// A registry process and where it listens.
struct Replica {
    port: u16,
    data_dir: PathBuf,
    child: Option<Child>,
    /// How many times it was started.
    starts: usize,
}

/// The processes under test.
struct Cluster {
    settings: Settings,
    root: tempfile::TempDir,
    pg: Option<EmbeddedPostgres>,
    database_url: String,
    garage: Garage,
    replicas: Vec<Replica>,
    jwt_secret: String,
    /// The one signing key every replica is given (PKCS#8 PEM).
    signing_key: String,
}

impl Cluster {
    fn pg_dir(&self) -> PathBuf {
        self.root.path().join("postgres")
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = self.garage.env();
        env.extend([
            ("CAIRN_DATABASE_URL", self.database_url.clone()),
            ("CAIRN_JWT_SECRET", self.jwt_secret.clone()),
            ("CAIRN_SIGNING_KEY", self.signing_key.clone()),
            ("CAIRN_REGISTRY_NAME", "scale.test".to_owned()),
            ("CAIRN_RATE_LIMIT_TOKEN", "off".to_owned()),
            ("CAIRN_RATE_LIMIT_ADDRESS", "off".to_owned()),
            ("CAIRN_RATE_LIMIT_PROPOSALS", "off".to_owned()),
            ("CAIRN_RATE_LIMIT_USER_PROPOSALS", "off".to_owned()),
            ("CAIRN_LOG", "warn".to_owned()),
            // Collections run concurrently on every replica during the load (they find
            // nothing old enough: the grace period outlasts the run).
            ("CAIRN_GC_INTERVAL", "5s".to_owned()),
        ]);
        env
    }

    fn command(&self, data_dir: &Path) -> Command {
        let mut command = Command::new(&self.settings.registry_bin);
        command
            .env_remove("DATABASE_URL")
            .env_remove("CAIRN_BLOB_DIR")
            .envs(self.env())
            .arg("--data-dir")
            .arg(data_dir)
            .kill_on_drop(true);
        command
    }

    async fn start(settings: Settings) -> Result<Self> {
        let root = tempfile::Builder::new().prefix("cairn-scale-").tempdir()?;
        // The embedded server's unprivileged user must traverse it.
        std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o711))?;
        let pg = EmbeddedPostgres::start(&root.path().join("postgres")).await?;
        pg.ensure_database("cairn").await?;
        let database_url = pg.database_url("cairn");
        let garage = Garage::start().await?;
        let mut cluster = Cluster {
            replicas: Vec::new(),
            settings,
            root,
            pg: Some(pg),
            database_url,
            garage,
            jwt_secret: format!("scale-test-secret-{}", uuid::Uuid::new_v4().simple()),
            signing_key: cairn_registry::signing::new_key().to_pem(),
        };
        for n in 0..cluster.settings.replicas {
            let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
            let data_dir = cluster.root.path().join(format!("replica-{n}"));
            std::fs::create_dir_all(&data_dir)?;
            cluster.replicas.push(Replica {
                port,
                data_dir,
                child: None,
                starts: 0,
            });
        }
        Ok(cluster)
    }

    /// Runs an admin command to completion.
    async fn admin(&self, args: &[&str]) -> Result<String> {
        let setup = self.root.path().join("setup");
        std::fs::create_dir_all(&setup)?;
        let output = self
            .command(&setup)
            .args(args)
            .output()
            .await
            .with_context(|| format!("running cairn-registry {args:?}"))?;
        if !output.status.success() {
            bail!(
                "cairn-registry {args:?} failed: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    fn url(&self, n: usize) -> String {
        format!("http://127.0.0.1:{}", self.replicas[n].port)
    }

    /// Starts replica `n` and waits until it is ready.
    async fn start_replica(&mut self, n: usize) -> Result<Duration> {
        let started = Instant::now();
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.replicas[n].data_dir.join("registry.log"))?;
        let child = self
            .command(&self.replicas[n].data_dir)
            .args(["serve", "--listen", &format!("127.0.0.1:{}", self.replicas[n].port)])
            .stdout(std::process::Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting a replica")?;
        self.replicas[n].child = Some(child);
        self.replicas[n].starts += 1;
        let url = format!("{}/readyz", self.url(n));
        let client = reqwest::Client::new();
        while started.elapsed() < Duration::from_secs(60) {
            if let Ok(response) = client.get(&url).send().await
                && response.status() == StatusCode::OK
            {
                return Ok(started.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        bail!(
            "replica {n} was not ready within 60 s; see {}",
            self.replicas[n].data_dir.join("registry.log").display()
        )
    }

    /// SIGKILL, as the kernel's OOM killer or a lost node does.
    async fn kill_replica(&mut self, n: usize) -> Result<()> {
        if let Some(mut child) = self.replicas[n].child.take() {
            child.start_kill()?;
            child.wait().await?;
        }
        Ok(())
    }

    async fn restart_postgres(&mut self, down_for: Duration) -> Result<()> {
        if let Some(pg) = self.pg.take() {
            pg.stop().await?;
        }
        tokio::time::sleep(down_for).await;
        self.pg = Some(EmbeddedPostgres::start(&self.pg_dir()).await?);
        Ok(())
    }

    async fn stop(mut self) {
        for n in 0..self.replicas.len() {
            let _ = self.kill_replica(n).await;
        }
        if let Some(pg) = self.pg.take() {
            let _ = pg.stop().await;
        }
    }
}

/// A token issued over the API for a new user with `role`.
async fn user_token(client: &reqwest::Client, base: &str, admin: &str, handle: &str, role: &str) -> Result<String> {
    let response = client
        .post(format!("{base}/v1/users"))
        .bearer_auth(admin)
        .json(&json!({"handle": handle, "role": role}))
        .send()
        .await?;
    if !response.status().is_success() {
        bail!("creating {handle}: {} {}", response.status(), response.text().await?);
    }
    let response = client
        .post(format!("{base}/v1/tokens"))
        .bearer_auth(admin)
        .json(&json!({"user": handle, "name": "scale-out load"}))
        .send()
        .await?;
    let body: Value = response.json().await?;
    body["token"]
        .as_str()
        .map(str::to_owned)
        .with_context(|| format!("no token in {body}"))
}

/// Writes `count` small skills under `root` for the import.
/// The skill many submitters add pitfalls to at once.
const HOT_SKILL: &str = "skill-000";

/// The pitfall bullet a hot-skill lesson adds.
fn hot_lesson(worker: usize, n: usize) -> String {
    format!("- Lesson {worker}-{n} learned on the hot skill.")
}

/// The seeded SKILL.md of skill `n`.
fn seed_skill_md(n: usize) -> String {
    format!(
        "---\nname: skill-{n:03}\ndescription: Load test skill number {n}.\n---\n## Steps\n1. Step one of skill {n}.\n2. Step two.\n\n## Pitfalls\n- None yet.\n"
    )
}

fn write_seed(root: &Path, count: usize) -> Result<()> {
    for n in 0..count {
        let dir = root.join(format!("load/skill-{n:03}"));
        std::fs::create_dir_all(dir.join("references"))?;
        std::fs::write(dir.join("SKILL.md"), seed_skill_md(n))?;
        for r in 0..3 {
            std::fs::write(
                dir.join(format!("references/ref-{r}.md")),
                format!("Reference {r} of skill {n}.\n{}\n", "detail ".repeat(40 + r * 20)),
            )?;
        }
    }
    Ok(())
}

/// Runs the load and the faults, then checks everything.
pub async fn run(settings: Settings) -> Result<Report> {
    let mut cluster = Cluster::start(settings.clone()).await?;
    let result = run_on(&mut cluster).await;
    cluster.stop().await;
    result
}

async fn run_on(cluster: &mut Cluster) -> Result<Report> {
    let settings = cluster.settings.clone();
    cluster.admin(&["migrate"]).await?;
    let seed = cluster.root.path().join("seed");
    write_seed(&seed, settings.skills)?;
    cluster
        .admin(&["import", seed.to_str().context("a UTF-8 path")?])
        .await?;
    let admin = std::fs::read_to_string(
        cluster
            .root
            .path()
            .join("setup")
            .join(cairn_registry::bootstrap::ADMIN_TOKEN_FILE),
    )
    .context("reading the bootstrap admin token")?
    .trim()
    .to_owned();
    for n in 0..settings.replicas {
        cluster.start_replica(n).await?;
    }
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .pool_max_idle_per_host(64)
        .build()?;
    let base = cluster.url(0);
    let member = user_token(&client, &base, &admin, "mia", "member").await?;
    let reviewer = user_token(&client, &base, &admin, "rex", "reviewer").await?;
    let index: Value = client
        .get(format!("{base}/v1/index"))
        .bearer_auth(&member)
        .send()
        .await?
        .json()
        .await?;
    let start_cursor = index["cursor"].as_i64().context("index cursor")?;

    // Abandoned uploads: blobs written and recorded but referenced by nothing, with the
    // very content submitter 0 sends later, so its submissions race the collectors.
    let db = sqlx::postgres::PgPoolOptions::new()
        .max_connections(2)
        .connect(&cluster.database_url)
        .await?;
    let orphans = abandon_blobs(cluster, &db, ORPHANS).await?;

    let shared = Arc::new(Shared {
        urls: (0..settings.replicas).map(|n| cluster.url(n)).collect(),
        next: AtomicUsize::new(0),
        client: client.clone(),
        started: Instant::now(),
        events: Mutex::default(),
        non_retryable: Mutex::default(),
        ops: Mutex::default(),
        stop: AtomicBool::new(false),
    });
    let approved: Arc<Mutex<Vec<(String, String, i64)>>> = Arc::default();
    let watchers: Vec<Arc<Watcher>> = (0..settings.watchers).map(|_| Arc::new(Watcher::default())).collect();
    let mut watching = tokio::task::JoinSet::new();
    for (n, w) in watchers.iter().enumerate() {
        watching.spawn(watch(shared.clone(), member.clone(), start_cursor, w.clone(), n));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..settings.pullers {
        tasks.spawn(pull(shared.clone(), member.clone()));
    }
    let (ids_tx, ids_rx) = async_channel();
    for s in 0..settings.submitters {
        tasks.spawn(submit(
            shared.clone(),
            member.clone(),
            settings.skills,
            s,
            ids_tx.clone(),
        ));
    }
    drop(ids_tx);
    tasks.spawn(age_blobs(shared.clone(), db.clone()));
    for _ in 0..settings.approvers {
        tasks.spawn(approve(
            shared.clone(),
            reviewer.clone(),
            ids_rx.clone(),
            approved.clone(),
        ));
    }

    // The faults, while the load runs.
    let mut windows: Vec<(&'static str, f64, f64)> = Vec::new();
    let duration = settings.duration;
    let at = |fraction: f64| shared.started + duration.mul_f64(fraction);
    if settings.faults {
        let victim = 1 % settings.replicas;
        tokio::time::sleep_until(at(0.15).into()).await;
        let t0 = shared.started.elapsed().as_secs_f64();
        cluster.kill_replica(victim).await?;
        tokio::time::sleep(Duration::from_secs(3)).await;
        cluster.start_replica(victim).await?;
        windows.push((
            "replica SIGKILL, restarted after 3 s",
            t0,
            shared.started.elapsed().as_secs_f64(),
        ));

        tokio::time::sleep_until(at(0.4).into()).await;
        let t0 = shared.started.elapsed().as_secs_f64();
        cluster.restart_postgres(Duration::from_secs(2)).await?;
        windows.push((
            "PostgreSQL restart (down 2 s)",
            t0,
            shared.started.elapsed().as_secs_f64(),
        ));

        tokio::time::sleep_until(at(0.65).into()).await;
        let t0 = shared.started.elapsed().as_secs_f64();
        cluster.garage.kill()?;
        tokio::time::sleep(Duration::from_secs(10)).await;
        cluster.garage.restart().await?;
        windows.push(("S3 (Garage) stopped 10 s", t0, shared.started.elapsed().as_secs_f64()));
    }
    tokio::time::sleep_until(at(1.0).into()).await;
    let seconds = shared.started.elapsed().as_secs_f64();
    shared.stop.store(true, Ordering::SeqCst);

    // Let the load finish its current operations, then the watchers catch up.
    let mut report = Report {
        replicas: settings.replicas,
        seconds,
        ..Report::default()
    };
    let drain = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(Duration::from_secs(60), drain).await.is_err() {
        report
            .problems
            .push("load tasks did not finish within 60 s of the end".to_owned());
    }
    let final_cursor: i64 = sqlx::query_scalar("SELECT coalesce(max(cursor), 0) FROM index_changes")
        .fetch_one(&db)
        .await?;
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline && watchers.iter().any(|w| w.cursor() < final_cursor) {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for w in &watchers {
        w.done.store(true, Ordering::SeqCst);
    }
    while watching.join_next().await.is_some() {}

    // What the clients saw.
    report.ops = shared.ops.lock().unwrap().clone();
    report.non_retryable = shared.non_retryable.lock().unwrap().clone();
    let events = shared.events.lock().unwrap().clone();
    // A fault's window runs until 15 s after it ended or until the next fault began.
    let window_ends: Vec<f64> = (0..windows.len())
        .map(|i| {
            let settle = windows[i].2 + 15.0;
            windows.get(i + 1).map_or(settle, |next| settle.min(next.1))
        })
        .collect();
    for (i, &(name, start, end)) in windows.iter().enumerate() {
        let window_end = window_ends[i];
        let in_window: Vec<&(f64, Event, String)> = events
            .iter()
            .filter(|(t, _, _)| *t >= start && *t <= window_end)
            .collect();
        let count = |kind: Event| in_window.iter().filter(|(_, e, _)| *e == kind).count();
        let last = in_window.iter().map(|(t, _, _)| *t).fold(end, f64::max);
        report.faults.push(FaultReport {
            name,
            at_s: start,
            lasted_s: end - start,
            retryable: count(Event::Retryable),
            failovers: count(Event::Failover),
            interrupted: count(Event::Interrupted),
            recovery_s: last - end,
        });
    }
    let in_a_window = |t: f64| {
        windows
            .iter()
            .zip(&window_ends)
            .any(|(&(_, s, _), end)| t >= s && t <= *end)
    };
    let outside_faults = |kind: Event| events.iter().filter(|(t, e, _)| *e == kind && !in_a_window(*t)).count();
    report.retryable_outside_faults = outside_faults(Event::Retryable);
    report.interrupted_outside_faults = outside_faults(Event::Interrupted);
    report.timeline = events
        .iter()
        .map(|(t, e, what)| format!("{t:7.2}s {e:?} {what}"))
        .collect();
    report.watcher_reconnects = watchers.iter().map(|w| w.reconnects.load(Ordering::Relaxed)).sum();

    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM blobs WHERE sha256 = ANY($1)")
        .bind(&orphans)
        .fetch_one(&db)
        .await?;
    let reused: i64 = sqlx::query_scalar("SELECT count(DISTINCT sha256) FROM version_files WHERE sha256 = ANY($1)")
        .bind(&orphans)
        .fetch_one(&db)
        .await?;
    report.orphans_collected = orphans.len().saturating_sub(usize::try_from(left.max(reused))?);
    let seen_approved = approved.lock().unwrap().clone();
    verify(cluster, &db, &seen_approved, &watchers, start_cursor, &mut report).await?;
    db.close().await;
    Ok(report)
}

/// The end checks (see the module documentation).
async fn verify(
    cluster: &Cluster,
    db: &sqlx::PgPool,
    seen_approved: &[(String, String, i64)],
    watchers: &[Arc<Watcher>],
    start_cursor: i64,
    report: &mut Report,
) -> Result<()> {
    // Revisions: 1..=n per skill, n - 1 approved patches, each with its own revision.
    let versions: Vec<(String, i32)> = sqlx::query_as(
        "SELECT s.name, v.revision FROM versions v JOIN skills s ON s.id = v.skill_id ORDER BY s.name, v.revision",
    )
    .fetch_all(db)
    .await?;
    let mut by_skill: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for (name, revision) in versions {
        by_skill.entry(name).or_default().push(revision);
    }
    for (name, revisions) in &by_skill {
        let expected: Vec<i32> = (1..=i32::try_from(revisions.len())?).collect();
        if *revisions != expected {
            report.problems.push(format!(
                "{name}: revisions {revisions:?}, expected 1..={}",
                revisions.len()
            ));
        }
    }
    let patches: Vec<(uuid::Uuid, String, Option<i32>)> =
        sqlx::query_as("SELECT id, skill_name, result_revision FROM patches WHERE status = 'approved'")
            .fetch_all(db)
            .await?;
    report.approved = patches.len();
    report.revisions = by_skill.values().map(|r| r.len() - 1).sum();
    let mut published: BTreeSet<(String, i32)> = BTreeSet::new();
    for (id, skill, revision) in &patches {
        match revision {
            Some(revision) if by_skill.get(skill).is_some_and(|r| r.contains(revision)) => {
                if !published.insert((skill.clone(), *revision)) {
                    report
                        .problems
                        .push(format!("{skill} revision {revision} claimed by two patches"));
                }
            }
            _ => report
                .problems
                .push(format!("approved patch {id} has no version ({skill} {revision:?})")),
        }
    }
    if report.revisions != patches.len() {
        report.problems.push(format!(
            "{} revisions after the seed but {} approved patches",
            report.revisions,
            patches.len()
        ));
    }
    let by_id: HashMap<String, (String, i32)> = patches
        .iter()
        .filter_map(|(id, skill, rev)| rev.map(|r| (id.to_string(), (skill.clone(), r))))
        .collect();
    for (id, skill, revision) in seen_approved {
        match by_id.get(id) {
            Some((s, r)) if s == skill && i64::from(*r) == *revision => {}
            other => report.problems.push(format!(
                "the client saw patch {id} approved as {skill} {revision}, the database has {other:?}"
            )),
        }
    }

    // The transparency log: one tree, every entry in place, each version's publication
    // appended exactly once, whichever replica committed it.
    check_log(db, report).await?;

    // Every version file's blob is readable and has its digest.
    let store = cairn_store::Store::connect(&cluster.database_url, 2).await?;
    let files = cairn_store::gc::referenced_blobs(&store).await?;
    store.pool().close().await;
    let blobs = S3BlobStore::new(cluster.garage.settings())?;

    // The hot skill: every approved lesson exactly once in its latest SKILL.md, and no
    // lesson of a patch that was not approved.
    let latest: Option<String> = sqlx::query_scalar(
        "SELECT f.sha256 FROM versions v JOIN skills s ON s.id = v.skill_id \
         JOIN version_files f ON f.version_id = v.id \
         WHERE s.name = $1 AND f.path = 'SKILL.md' AND NOT v.yanked ORDER BY v.revision DESC LIMIT 1",
    )
    .bind(HOT_SKILL)
    .fetch_optional(db)
    .await?;
    let hot: Vec<(String, String)> = sqlx::query_as("SELECT summary, status FROM patches WHERE skill_name = $1")
        .bind(HOT_SKILL)
        .fetch_all(db)
        .await?;
    if let Some(sha) = latest {
        let id = cairn_skill::Sha256Hash::parse_hex(&sha)?;
        let text = blobs
            .get(&id)
            .await?
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        report.hot_lessons = hot.iter().filter(|(_, status)| status == "approved").count();
        for (summary, status) in &hot {
            let Some((worker, n)) = summary
                .strip_prefix("hot lesson ")
                .and_then(|rest| rest.split_once('-'))
                .and_then(|(w, n)| Some((w.parse::<usize>().ok()?, n.parse::<usize>().ok()?)))
            else {
                continue;
            };
            let times = text.matches(&format!("{}\n", hot_lesson(worker, n))).count();
            let wanted = usize::from(status == "approved");
            if times != wanted {
                report.problems.push(format!(
                    "{HOT_SKILL}: lesson {worker}-{n} ({status}) is in the latest SKILL.md {times} times, not {wanted}"
                ));
            }
        }
    }
    let unreadable = futures::stream::iter(files)
        .map(|hex| {
            let blobs = &blobs;
            async move {
                let id = cairn_skill::Sha256Hash::parse_hex(&hex).ok()?;
                match blobs.get(&id).await {
                    Ok(Some(bytes)) if cairn_skill::Sha256Hash::of(&bytes) == id => None,
                    other => Some(format!("blob {hex}: {:?}", other.map(|b| b.map(|b| b.len())))),
                }
            }
        })
        .buffer_unordered(16)
        .filter_map(|problem| async move { problem })
        .collect::<Vec<_>>()
        .await;
    report.problems.extend(unreadable);

    // Every watcher saw every published revision after its start, once.
    let changes: Vec<(String, i32)> = sqlx::query_as(
        "SELECT s.name, c.revision FROM index_changes c JOIN skills s ON s.id = c.skill_id \
         WHERE c.cursor > $1 AND c.kind = 'published' ORDER BY c.cursor",
    )
    .bind(start_cursor)
    .fetch_all(db)
    .await?;
    let expected: BTreeSet<(String, i32)> = changes.into_iter().collect();
    for (n, watcher) in watchers.iter().enumerate() {
        let seen = watcher.seen.lock().unwrap();
        let distinct: BTreeSet<(String, i32)> = seen.iter().cloned().collect();
        let missed = expected.difference(&distinct).count();
        if missed > 0 {
            report
                .problems
                .push(format!("watcher {n} missed {missed} of {} changes", expected.len()));
        }
        if distinct.len() != seen.len() {
            report.problems.push(format!(
                "watcher {n} received {} changes twice",
                seen.len() - distinct.len()
            ));
        }
    }

    // Every replica answers, and only the killed one was started twice.
    let client = reqwest::Client::new();
    let victim = 1 % cluster.replicas.len();
    for (n, replica) in cluster.replicas.iter().enumerate() {
        let ready = client.get(format!("{}/readyz", cluster.url(n))).send().await;
        if !ready.is_ok_and(|r| r.status() == StatusCode::OK) {
            report.problems.push(format!("replica {n} is not ready after the run"));
        }
        let expected_starts = if cluster.settings.faults && n == victim { 2 } else { 1 };
        if replica.starts != expected_starts {
            report
                .problems
                .push(format!("replica {n} was started {} times", replica.starts));
        }
    }
    Ok(())
}

/// Abandoned blobs written before the load (see [`abandon_blobs`]).
const ORPHANS: usize = 400;

/// How old a blob row must be before [`age_blobs`] makes it look past the grace period:
/// far longer than any write-to-commit gap in the run, faults included.
const AGE_AFTER: &str = "20 seconds";

/// Writes `count` blobs to the bucket and records them as stored, as an upload that was
/// never published leaves them; half of them hold what submitter 0 sends later.
async fn abandon_blobs(cluster: &Cluster, db: &sqlx::PgPool, count: usize) -> Result<Vec<String>> {
    let blobs = S3BlobStore::new(cluster.garage.settings())?;
    let mut ids = Vec::with_capacity(count);
    for n in 1..=count {
        // Odd ones are never sent again; even ones are what submitter 0 sends later.
        let bytes = bytes::Bytes::from(if n % 2 == 0 {
            format!("Lesson {} from submitter 0.\n", n / 2)
        } else {
            format!("An upload nobody published, number {n}.\n")
        });
        let id = cairn_skill::Sha256Hash::of(&bytes);
        blobs.put(&id, bytes.clone()).await?;
        sqlx::query("INSERT INTO blobs (sha256, size, stored) VALUES ($1, $2, true) ON CONFLICT DO NOTHING")
            .bind(id.to_hex())
            .bind(i64::try_from(bytes.len())?)
            .execute(db)
            .await?;
        ids.push(id.to_hex());
    }
    Ok(ids)
}

/// Makes blob rows older than [`AGE_AFTER`] look two days old, so the replicas'
/// collectors (every 5 s, 24 h grace) collect unreferenced blobs during the run.
async fn age_blobs(shared: Arc<Shared>, db: sqlx::PgPool) {
    while !shared.stop.load(Ordering::Relaxed) {
        tokio::time::sleep(Duration::from_secs(2)).await;
        // Fails while PostgreSQL restarts; the next round catches up.
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE blobs SET seen_at = now() - interval '2 days' WHERE seen_at > now() - interval '1 day' \
             AND seen_at < now() - interval '{AGE_AFTER}'"
        )))
        .execute(&db)
        .await;
    }
}

/// A multi-consumer channel of patch ids (submitters → approvers).
fn async_channel() -> (
    tokio::sync::mpsc::Sender<String>,
    Arc<tokio::sync::Mutex<tokio::sync::mpsc::Receiver<String>>>,
) {
    let (tx, rx) = tokio::sync::mpsc::channel(1024);
    (tx, Arc::new(tokio::sync::Mutex::new(rx)))
}

/// Index pulls (conditional, as `cairn pull` does) and blob batches of one skill.
async fn pull(shared: Arc<Shared>, token: String) {
    let mut etag: Option<String> = None;
    let mut index: Option<Value> = None;
    let mut round = 0usize;
    while !shared.stop.load(Ordering::Relaxed) {
        round += 1;
        let started = Instant::now();
        let outcome = shared
            .send("index", |base| {
                let request = shared.client.get(format!("{base}/v1/index")).bearer_auth(&token);
                match &etag {
                    Some(tag) => request.header("if-none-match", tag),
                    None => request,
                }
            })
            .await;
        match outcome {
            Outcome::Answered(StatusCode::NOT_MODIFIED, _) => shared.done("index", started),
            Outcome::Answered(StatusCode::OK, body) => {
                if let Ok(value) = serde_json::from_slice::<Value>(&body) {
                    etag = value["cursor"].as_i64().map(|c| format!("\"index-{c}\""));
                    index = Some(value);
                }
                shared.done("index", started);
            }
            Outcome::Answered(status, body) => {
                shared.fail(format!("index: {status}: {}", String::from_utf8_lossy(&body)));
            }
            Outcome::Interrupted => continue,
        }
        let Some(index) = &index else { continue };
        let skills = index["skills"].as_array().map_or(0, Vec::len);
        if skills == 0 {
            continue;
        }
        let skill = &index["skills"][round % skills];
        let ids: Vec<&str> = skill["files"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|f| f["sha256"].as_str())
            .collect();
        let started = Instant::now();
        loop {
            let outcome = shared
                .send("blob batch", |base| {
                    shared
                        .client
                        .post(format!("{base}/v1/blobs/batch"))
                        .bearer_auth(&token)
                        .json(&json!({ "sha256": ids }))
                })
                .await;
            match outcome {
                Outcome::Answered(StatusCode::OK, body) => {
                    // One 512-byte header per blob at least, and the closing block.
                    if body.len() < 512 * ids.len() + 1024 {
                        shared.fail(format!("blob batch: {} bytes for {} blobs", body.len(), ids.len()));
                    }
                    shared.done("blob_batch", started);
                    break;
                }
                Outcome::Answered(status, body) => {
                    shared.fail(format!("blob batch: {status}: {}", String::from_utf8_lossy(&body)));
                    break;
                }
                // A stream cut off (a replica killed, the blob store gone mid-stream):
                // reads are safe to repeat.
                Outcome::Interrupted if shared.stop.load(Ordering::Relaxed) => break,
                Outcome::Interrupted => {}
            }
        }
    }
}

/// Patch submissions: each adds a new reference file to a skill.
async fn submit(
    shared: Arc<Shared>,
    token: String,
    skills: usize,
    worker: usize,
    ids: tokio::sync::mpsc::Sender<String>,
) {
    let mut n = 0usize;
    while !shared.stop.load(Ordering::Relaxed) {
        n += 1;
        let skill = format!("skill-{:03}", (worker * 7 + n) % skills);
        // Every third lesson of the other submitters goes to one hot skill as agents send
        // them (an edit of SKILL.md from revision 1, one more pitfall bullet): approved on
        // any replica, each must land once in a linear history.
        let body = if worker > 0 && n.is_multiple_of(3) {
            json!({
                "skill": HOT_SKILL,
                "base_revision": 1,
                "summary": format!("hot lesson {worker}-{n}"),
                "ops": [{"op": "edit", "content": seed_skill_md(0).replace("- None yet.\n", &format!("- None yet.\n{}\n", hot_lesson(worker, n)))}],
            })
        } else {
            json!({
                "skill": skill,
                "base_revision": 1,
                "summary": format!("load lesson {worker}-{n}"),
                "ops": [{"op": "write_file", "file": format!("references/lesson-{worker}-{n}.md"),
                         "content": format!("Lesson {n} from submitter {worker}.\n")}],
            })
        };
        let started = Instant::now();
        let outcome = shared
            .send("submit", |base| {
                shared
                    .client
                    .post(format!("{base}/v1/patches"))
                    .bearer_auth(&token)
                    .json(&body)
            })
            .await;
        match outcome {
            Outcome::Answered(StatusCode::CREATED, body) => {
                shared.done("submit", started);
                let id = serde_json::from_slice::<Value>(&body)
                    .ok()
                    .and_then(|v| v["id"].as_str().map(str::to_owned));
                // Never blocks: when reviewers fall behind, the patch just waits in the
                // queue (as it would for a team).
                if let Some(id) = id {
                    let _ = ids.try_send(id);
                }
            }
            Outcome::Answered(status, body) => {
                shared.fail(format!("submit: {status}: {}", String::from_utf8_lossy(&body)));
            }
            // The patch may or may not exist; it is not approved either way (a reviewer
            // would find it in the queue).
            Outcome::Interrupted => {}
        }
    }
}

/// Approvals, resolved by reading the patch back when an answer was lost.
async fn approve(
    shared: Arc<Shared>,
    token: String,
    ids: Arc<tokio::sync::Mutex<tokio::sync::mpsc::Receiver<String>>>,
    approved: Arc<Mutex<Vec<(String, String, i64)>>>,
) {
    while !shared.stop.load(Ordering::Relaxed) {
        let next = tokio::time::timeout(Duration::from_millis(200), async { ids.lock().await.recv().await }).await;
        let id = match next {
            Ok(Some(id)) => id,
            Ok(None) => return,
            Err(_) => continue,
        };
        let started = Instant::now();
        loop {
            let outcome = shared
                .send("approve", |base| {
                    shared
                        .client
                        .post(format!("{base}/v1/patches/{id}/approve"))
                        .bearer_auth(&token)
                        .json(&json!({}))
                })
                .await;
            let record = match outcome {
                Outcome::Answered(StatusCode::OK, body) => serde_json::from_slice::<Value>(&body).ok(),
                Outcome::Answered(StatusCode::CONFLICT, _) | Outcome::Interrupted => {
                    // Did an earlier attempt land? Read the patch back.
                    match shared
                        .send("read patch", |base| {
                            shared.client.get(format!("{base}/v1/patches/{id}")).bearer_auth(&token)
                        })
                        .await
                    {
                        Outcome::Answered(StatusCode::OK, body) => {
                            let patch: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                            match patch["status"].as_str() {
                                Some("approved") => Some(patch),
                                Some("pending_review") if !shared.stop.load(Ordering::Relaxed) => continue,
                                Some("pending_review") => break,
                                // Superseded or in conflict: not approvable, nothing lost.
                                _ => break,
                            }
                        }
                        _ if shared.stop.load(Ordering::Relaxed) => break,
                        _ => continue,
                    }
                }
                Outcome::Answered(status, body) => {
                    shared.fail(format!("approve: {status}: {}", String::from_utf8_lossy(&body)));
                    break;
                }
            };
            if let Some(patch) = record
                && let (Some(skill), Some(revision)) = (patch["skill"].as_str(), patch["result_revision"].as_i64())
            {
                approved.lock().unwrap().push((id.clone(), skill.to_owned(), revision));
                shared.done("approve", started);
            }
            break;
        }
    }
}

/// A live-change watcher's state.
#[derive(Default)]
struct Watcher {
    cursor: std::sync::atomic::AtomicI64,
    seen: Mutex<Vec<(String, i32)>>,
    reconnects: AtomicUsize,
    done: AtomicBool,
}

impl Watcher {
    fn cursor(&self) -> i64 {
        self.cursor.load(Ordering::SeqCst)
    }
}

/// Follows `GET /v1/events` from `since`, reconnecting to the next replica with
/// `Last-Event-ID` whenever the stream ends (a replica killed, the database restarted).
async fn watch(shared: Arc<Shared>, token: String, since: i64, watcher: Arc<Watcher>, first_replica: usize) {
    watcher.cursor.store(since, Ordering::SeqCst);
    let client = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .build()
        .unwrap_or_else(|_| shared.client.clone());
    let mut first = true;
    while !watcher.done.load(Ordering::Relaxed) {
        if !first {
            watcher.reconnects.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        first = false;
        // Each watcher starts on its own replica (every replica's live feed is watched),
        // then moves on round robin.
        let n = first_replica + watcher.reconnects.load(Ordering::Relaxed);
        let base = &shared.urls[n % shared.urls.len()];
        let response = client
            .get(format!("{base}/v1/events?since={since}"))
            .bearer_auth(&token)
            .header("last-event-id", watcher.cursor().to_string())
            .send()
            .await;
        let Ok(response) = response else { continue };
        match response.status() {
            StatusCode::OK => {}
            StatusCode::SERVICE_UNAVAILABLE if response.headers().contains_key("retry-after") => {
                shared.record(Event::Retryable, "watch");
                continue;
            }
            status => {
                shared.fail(format!("watch: {status}"));
                continue;
            }
        }
        let mut stream = response.bytes_stream();
        let mut buffer = String::new();
        loop {
            let next = tokio::time::timeout(Duration::from_millis(500), stream.next()).await;
            if watcher.done.load(Ordering::Relaxed) {
                return;
            }
            let chunk = match next {
                Err(_) => continue,
                Ok(Some(Ok(chunk))) => chunk,
                Ok(_) => break,
            };
            buffer.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = buffer.find("\n\n") {
                let event: String = buffer.drain(..end + 2).collect();
                apply_event(&watcher, &event);
            }
        }
    }
}

/// Records one Server-Sent Event's change.
fn apply_event(watcher: &Watcher, event: &str) {
    let mut id = None;
    let mut data = None;
    let mut kind = None;
    for line in event.lines() {
        if let Some(v) = line.strip_prefix("id: ") {
            id = v.trim().parse::<i64>().ok();
        } else if let Some(v) = line.strip_prefix("data: ") {
            data = serde_json::from_str::<Value>(v).ok();
        } else if let Some(v) = line.strip_prefix("event: ") {
            kind = Some(v.trim().to_owned());
        }
    }
    if kind.as_deref() != Some("change") {
        return;
    }
    let (Some(id), Some(data)) = (id, data) else { return };
    if data["kind"] == "published"
        && let (Some(name), Some(revision)) = (data["name"].as_str(), data["revision"].as_i64())
    {
        watcher
            .seen
            .lock()
            .unwrap()
            .push((name.to_owned(), i32::try_from(revision).unwrap_or(-1)));
    }
    watcher.cursor.fetch_max(id, Ordering::SeqCst);
}

/// The log's end checks: contiguous indexes, the head's root equal to the tree rebuilt
/// from every entry, and one `published` entry per version.
async fn check_log(db: &sqlx::PgPool, report: &mut Report) -> Result<()> {
    let entries: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT idx, entry FROM log_entries ORDER BY idx")
        .fetch_all(db)
        .await?;
    let (size, root): (i64, Vec<u8>) = sqlx::query_as("SELECT size, root FROM transparency_log")
        .fetch_one(db)
        .await?;
    let mut rebuilt = cairn_provenance::merkle::MemoryLog::default();
    for (idx, entry) in &entries {
        let at = rebuilt.push(entry);
        if i64::try_from(at).ok() != Some(*idx) {
            report.problems.push(format!("log entry {idx} sits at position {at}"));
            break;
        }
    }
    if i64::try_from(entries.len()).ok() != Some(size) {
        report.problems.push(format!(
            "the log's head says {size} entries, {} are stored",
            entries.len()
        ));
    }
    let rebuilt_root = rebuilt.root(rebuilt.size()).map(|h| h.0.to_vec()).unwrap_or_default();
    if rebuilt_root != root {
        report
            .problems
            .push("the log's root is not the root of its entries".to_owned());
    }
    let unattested: Vec<(String, i32, i64)> = sqlx::query_as(
        "SELECT s.name, v.revision, (SELECT count(*) FROM log_entries e \
             WHERE e.version_id = v.id AND e.event = 'published') AS n \
         FROM versions v JOIN skills s ON s.id = v.skill_id",
    )
    .fetch_all(db)
    .await?;
    for (name, revision, n) in unattested.into_iter().filter(|(_, _, n)| *n != 1) {
        report.problems.push(format!(
            "{name} revision {revision} has {n} publication entries in the log, not 1"
        ));
    }
    report.log_entries = entries.len();
    Ok(())
}
