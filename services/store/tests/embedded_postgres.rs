//! Integration tests of the embedded PostgreSQL launcher against the real server binaries.
//!
//! Needs the PostgreSQL server binaries (Debian: `apt-get install postgresql`) and, when run as
//! root, a `postgres` system user. Every test works in its own directory under `/tmp`, created
//! mode 0711 so that the unprivileged `postgres` user can traverse it when the tests run as root
//! (the launcher checks exactly that, see `non_traversable_parent_is_reported`). The directory's
//! guard stops every server found in it, by the PID in `postmaster.pid`, even when the test
//! panics, so no stray `postgres` processes survive a failed run.

use std::fs::{self, DirBuilder};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cairn_store::embedded::{EmbeddedError, EmbeddedPostgres};
use sqlx::{Connection, PgConnection};

/// A scratch directory under `/tmp` that stops the servers inside it and removes itself on drop.
struct Scratch {
    root: PathBuf,
}

impl Scratch {
    fn new(tag: &str) -> Scratch {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos();
        let root = PathBuf::from(format!(
            "/tmp/cairn-pg-{tag}-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        DirBuilder::new().mode(0o711).create(&root).unwrap();
        // Independent of the umask: traversable, not listable, by the server's user.
        fs::set_permissions(&root, fs::Permissions::from_mode(0o711)).unwrap();
        Scratch { root }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let mut clusters = Vec::new();
        find_pid_files(&self.root, 4, &mut clusters);
        for cluster in clusters {
            kill_postmaster(&cluster, "-INT");
        }
        let _ = fs::remove_dir_all(&self.root);
    }
}

/// Collects directories below `dir` (to `depth` levels) that hold a `postmaster.pid`.
fn find_pid_files(dir: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if dir.join("postmaster.pid").exists() {
        found.push(dir.to_owned());
    }
    if depth == 0 {
        return;
    }
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            find_pid_files(&entry.path(), depth - 1, found);
        }
    }
}

/// PID of the postmaster running on `cluster`, if `postmaster.pid` names a live process whose
/// working directory is that cluster (so a recycled PID is never signalled).
fn postmaster_pid(cluster: &Path) -> Option<u32> {
    let text = fs::read_to_string(cluster.join("postmaster.pid")).ok()?;
    let pid: u32 = text.lines().next()?.trim().parse().ok()?;
    let cwd = fs::read_link(format!("/proc/{pid}/cwd")).ok()?;
    (cwd == cluster.canonicalize().ok()?).then_some(pid)
}

/// Sends `signal` to the cluster's postmaster and waits (up to 30 s) until it has exited.
fn kill_postmaster(cluster: &Path, signal: &str) {
    let Some(pid) = postmaster_pid(cluster) else {
        return;
    };
    let _ = Command::new("kill").arg(signal).arg(pid.to_string()).status();
    wait_for_exit(&[pid]);
}

/// Waits until none of `pids` exists any more (up to 30 s).
fn wait_for_exit(pids: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while pids.iter().any(|pid| Path::new(&format!("/proc/{pid}")).exists()) {
        assert!(Instant::now() < deadline, "processes {pids:?} did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The direct children of `parent`, from `/proc/*/stat`.
fn children_of(parent: u32) -> Vec<u32> {
    let mut children = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may contain anything, so split after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        if rest.split_whitespace().nth(1).and_then(|ppid| ppid.parse::<u32>().ok()) == Some(parent) {
            children.push(pid);
        }
    }
    children
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

async fn start(dir: &Path) -> EmbeddedPostgres {
    EmbeddedPostgres::start(dir)
        .await
        .unwrap_or_else(|err| panic!("start failed: {err}"))
}

async fn connect(pg: &EmbeddedPostgres, database: &str) -> PgConnection {
    let url = pg.database_url(database);
    PgConnection::connect(&url)
        .await
        .unwrap_or_else(|err| panic!("connect to {url}: {err}"))
}

async fn select_one(pg: &EmbeddedPostgres) {
    let mut conn = connect(pg, "postgres").await;
    let one: i32 = sqlx::query_scalar("SELECT 1").fetch_one(&mut conn).await.unwrap();
    assert_eq!(one, 1);
    conn.close().await.unwrap();
}

#[tokio::test]
async fn fresh_cluster_serves_queries_over_the_socket_only() {
    let scratch = Scratch::new("fresh");
    let dir = scratch.path("data/postgres");
    let pg = start(&dir).await;
    assert!(pg.started_here(), "a fresh cluster must be started by this handle");
    assert!(dir.join("PG_VERSION").exists(), "initdb did not run");
    assert!(
        dir.join(".s.PGSQL.5432").exists(),
        "the socket is not in the cluster directory"
    );

    let url = pg.database_url("postgres");
    assert!(url.starts_with("postgres://"), "{url}");
    let mut conn = connect(&pg, "postgres").await;
    let one: i32 = sqlx::query_scalar("SELECT 1").fetch_one(&mut conn).await.unwrap();
    assert_eq!(one, 1);
    let listen: String = sqlx::query_scalar("SHOW listen_addresses")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(listen, "", "the embedded server must not listen on TCP");
    let encoding: String = sqlx::query_scalar("SHOW server_encoding")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(encoding, "UTF8");
    conn.close().await.unwrap();

    if is_root() {
        let owner = fs::metadata(&dir).unwrap().uid();
        assert_ne!(owner, 0, "the cluster must be handed to an unprivileged user");
        let pid = postmaster_pid(&dir).expect("postmaster running");
        let status = fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let uid_line = status.lines().find(|line| line.starts_with("Uid:")).unwrap();
        assert!(!uid_line.split_whitespace().skip(1).any(|uid| uid == "0"), "{uid_line}");
    }

    pg.stop().await.unwrap_or_else(|err| panic!("stop failed: {err}"));
    assert!(
        !dir.join("postmaster.pid").exists(),
        "the server is still running after stop"
    );
    assert!(!dir.join(".s.PGSQL.5432").exists(), "the socket survived stop");
}

#[tokio::test]
async fn ensure_database_is_idempotent_and_survives_races() {
    let scratch = Scratch::new("ensure");
    let pg = start(&scratch.path("postgres")).await;

    pg.ensure_database("cairn")
        .await
        .unwrap_or_else(|err| panic!("first ensure: {err}"));
    pg.ensure_database("cairn")
        .await
        .unwrap_or_else(|err| panic!("second ensure: {err}"));
    let mut conn = connect(&pg, "cairn").await;
    let name: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(name, "cairn");
    conn.close().await.unwrap();

    // Names needing quoting and percent-encoding, created by racing callers.
    let odd = "team skills/ü \"x\"";
    let (a, b, c) = tokio::join!(
        pg.ensure_database(odd),
        pg.ensure_database(odd),
        pg.ensure_database(odd)
    );
    for result in [a, b, c] {
        result.unwrap_or_else(|err| panic!("racing ensure: {err}"));
    }
    let mut conn = connect(&pg, odd).await;
    let name: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(name, odd);
    conn.close().await.unwrap();

    let err = pg.ensure_database(&"x".repeat(64)).await.unwrap_err();
    assert!(matches!(err, EmbeddedError::InvalidDatabaseName { .. }), "{err}");

    pg.stop().await.unwrap();
}

#[tokio::test]
async fn second_start_reuses_the_running_server() {
    let scratch = Scratch::new("reuse");
    let dir = scratch.path("postgres");
    let first = start(&dir).await;
    assert!(first.started_here());
    let pid = postmaster_pid(&dir).expect("postmaster running");

    let second = start(&dir).await;
    assert!(!second.started_here(), "the second handle must attach, not start");
    assert_eq!(postmaster_pid(&dir), Some(pid), "a second server was started");
    select_one(&second).await;

    second.stop().await.unwrap();
    assert_eq!(
        postmaster_pid(&dir),
        Some(pid),
        "stop on an attached handle stopped the server"
    );
    select_one(&first).await;

    first.stop().await.unwrap();
    assert_eq!(postmaster_pid(&dir), None, "the owning handle did not stop the server");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_starts_end_with_one_server() {
    let scratch = Scratch::new("race");
    let dir = scratch.path("postgres");
    let (a, b) = tokio::join!(EmbeddedPostgres::start(&dir), EmbeddedPostgres::start(&dir));
    let a = a.unwrap_or_else(|err| panic!("first racer: {err}"));
    let b = b.unwrap_or_else(|err| panic!("second racer: {err}"));
    assert!(
        a.started_here() != b.started_here(),
        "exactly one racer must own the server (a: {}, b: {})",
        a.started_here(),
        b.started_here()
    );
    select_one(&a).await;
    select_one(&b).await;
    let (owner, guest) = if a.started_here() { (a, b) } else { (b, a) };
    guest.stop().await.unwrap();
    owner.stop().await.unwrap();
    assert_eq!(postmaster_pid(&dir), None);
}

#[tokio::test]
async fn server_started_by_another_program_is_reused() {
    let scratch = Scratch::new("foreign");
    let dir = scratch.path("postgres");
    let pg = start(&dir).await;
    pg.stop().await.unwrap();

    // Start the server the way an operator would, without waiting, and attach right away: the
    // launcher either finds it ready or loses the race in `pg_ctl start` and waits for it.
    let mut pg_ctl = Command::new(pg_ctl_binary());
    pg_ctl
        .args(["start", "-W", "-D"])
        .arg(&dir)
        .arg("-l")
        .arg(dir.join("server.log"))
        .current_dir(&dir)
        .stdout(std::process::Stdio::null());
    if is_root() {
        let meta = fs::metadata(&dir).unwrap();
        pg_ctl.uid(meta.uid()).gid(meta.gid());
    }
    let status = pg_ctl.status().unwrap();
    assert!(status.success(), "pg_ctl start: {status}");
    // Attach once the foreign postmaster holds the cluster's lock file (it may not accept
    // connections yet). Before that, the launcher's own `pg_ctl start` can win the lock
    // and the foreign one exits: then the launcher did start the server, and owning it
    // is right — not the case this test is about.
    for _ in 0..200 {
        if postmaster_pid(&dir).is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        postmaster_pid(&dir).is_some(),
        "the foreign server never wrote its lock file"
    );

    let attached = start(&dir).await;
    assert!(
        !attached.started_here(),
        "the launcher must not own a server it did not start"
    );
    select_one(&attached).await;
    attached.stop().await.unwrap();
    assert!(
        postmaster_pid(&dir).is_some(),
        "the launcher stopped a server it did not start"
    );
    // The scratch guard stops the server.
}

#[tokio::test]
async fn restart_keeps_data() {
    let scratch = Scratch::new("restart");
    let dir = scratch.path("postgres");
    let pg = start(&dir).await;
    pg.ensure_database("cairn").await.unwrap();
    let mut conn = connect(&pg, "cairn").await;
    sqlx::query("CREATE TABLE kept (value text)")
        .execute(&mut conn)
        .await
        .unwrap();
    sqlx::query("INSERT INTO kept VALUES ('survives restarts')")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    pg.stop().await.unwrap();
    assert_eq!(postmaster_pid(&dir), None);

    let pg = start(&dir).await;
    assert!(
        pg.started_here(),
        "a stopped cluster must be started again by this handle"
    );
    pg.ensure_database("cairn").await.unwrap();
    let mut conn = connect(&pg, "cairn").await;
    let value: String = sqlx::query_scalar("SELECT value FROM kept")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(value, "survives restarts");
    conn.close().await.unwrap();
    pg.stop().await.unwrap();
}

#[tokio::test]
async fn crashed_server_with_stale_pid_file_is_restarted() {
    let scratch = Scratch::new("crash");
    let dir = scratch.path("postgres");
    let pg = start(&dir).await;
    let pid = postmaster_pid(&dir).expect("postmaster running");
    let children = children_of(pid);

    // Simulate a crash: the postmaster dies without cleaning up, its children follow.
    kill_postmaster(&dir, "-KILL");
    wait_for_exit(&children);
    assert!(
        dir.join("postmaster.pid").exists(),
        "a crash leaves postmaster.pid behind"
    );
    drop(pg); // never stopped, as after a crash

    let pg = start(&dir).await;
    assert!(pg.started_here());
    select_one(&pg).await;
    pg.stop().await.unwrap();
}

#[tokio::test]
async fn paths_with_spaces_and_quotes_work() {
    let scratch = Scratch::new("spaces");
    let dir = scratch.path("my data, 'quoted' + more/post gres");
    let pg = start(&dir).await;
    assert!(pg.started_here());
    select_one(&pg).await;
    pg.ensure_database("cairn").await.unwrap();
    let mut conn = connect(&pg, "cairn").await;
    let socket_dirs: String = sqlx::query_scalar("SHOW unix_socket_directories")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert!(
        socket_dirs.contains("my data, 'quoted' + more/post gres"),
        "{socket_dirs}"
    );
    conn.close().await.unwrap();
    pg.stop().await.unwrap();
}

#[tokio::test]
async fn non_traversable_parent_is_reported() {
    if !is_root() {
        eprintln!("skipped: only root switches to another user, so only root can be blocked");
        return;
    }
    let scratch = Scratch::new("blocked");
    let locked = scratch.path("locked");
    DirBuilder::new().mode(0o700).create(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o700)).unwrap();
    let dir = locked.join("data/postgres");

    let err = EmbeddedPostgres::start(&dir).await.expect_err("start must fail");
    let message = err.to_string();
    match &err {
        EmbeddedError::NotTraversable { blocking, .. } => {
            assert_eq!(blocking, &locked, "{message}")
        }
        other => panic!("expected NotTraversable, got: {other}"),
    }
    assert!(
        message.contains(&format!("chmod o+x {}", locked.display())),
        "{message}"
    );
    assert!(message.contains("--data-dir"), "{message}");
    assert!(!locked.join("data").exists(), "nothing may be created before the check");
}

#[tokio::test]
async fn too_long_path_is_reported() {
    let scratch = Scratch::new("long");
    let dir = scratch.path(&format!("{}/postgres", "a".repeat(100)));

    let err = EmbeddedPostgres::start(&dir).await.expect_err("start must fail");
    let message = err.to_string();
    assert!(matches!(err, EmbeddedError::SocketPathTooLong { .. }), "{message}");
    assert!(message.contains("shorter --data-dir"), "{message}");
    assert!(
        !scratch.path(&"a".repeat(100)).exists(),
        "nothing may be created before the check"
    );
}

/// `pg_ctl` as the launcher would pick it: `$PATH` first, then the newest Debian installation.
fn pg_ctl_binary() -> PathBuf {
    let from_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .map(|dir| dir.join("pg_ctl"))
        .find(|candidate| candidate.is_file());
    from_path.unwrap_or_else(|| {
        let mut dirs: Vec<PathBuf> = fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL server binaries are not installed")
            .flatten()
            .map(|entry| entry.path().join("bin/pg_ctl"))
            .filter(|candidate| candidate.is_file())
            .collect();
        dirs.sort_by_key(|path| {
            path.components()
                .nth(4)
                .and_then(|version| version.as_os_str().to_str()?.parse::<u32>().ok())
        });
        dirs.pop().expect("no pg_ctl under /usr/lib/postgresql")
    })
}

#[tokio::test]
async fn the_last_claim_to_leave_is_told_so_and_blocks_newcomers_while_it_stops() {
    use cairn_store::embedded::ClusterClaim;
    let scratch = Scratch::new("claims");
    let cluster = scratch.path("postgres");
    let first = ClusterClaim::acquire(&cluster).await.unwrap();
    let second = ClusterClaim::acquire(&cluster).await.unwrap();
    assert!(
        first.release().unwrap().is_none(),
        "another process still holds a claim"
    );
    let last = second.release().unwrap().expect("the last one out is told so");
    // While the last one stops the server, a newcomer waits for it.
    let waiting = {
        let cluster = cluster.clone();
        tokio::spawn(async move { ClusterClaim::acquire(&cluster).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        !waiting.is_finished(),
        "a newcomer must wait while the last claim is held"
    );
    drop(last);
    let newcomer = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(newcomer.release().unwrap().is_some());
}
