//! A private PostgreSQL server for a registry that was started with no database configured.
//!
//! [`EmbeddedPostgres::start`] creates (once) and starts a PostgreSQL cluster in a directory the
//! registry owns, using the server binaries installed on the machine (`initdb`, `pg_ctl`,
//! `postgres`). The cluster listens on no TCP port at all: its only entry point is a Unix socket
//! inside the cluster directory, which PostgreSQL creates mode-0700, so only the user running the
//! server (and root) can reach it. That is why `trust` authentication is acceptable here and why
//! no password ever exists.
//!
//! Layout of the cluster directory (it *is* the PostgreSQL data directory):
//! - the usual PostgreSQL files, created by `initdb`;
//! - `cairn.conf`: the socket-only settings, rewritten before every start so a moved directory
//!   still works, and included from the end of `postgresql.conf`;
//! - `server.log`: the server's output (`pg_ctl -l`), quoted in start errors;
//! - `.s.PGSQL.5432`: the socket while the server runs.
//!
//! PostgreSQL refuses to run as root. When the registry runs as root, every PostgreSQL program
//! runs as an unprivileged user instead: the owner of an existing, non-root-owned cluster
//! directory, otherwise the `postgres` system user. That user must be able to enter every
//! ancestor directory of the cluster; this is checked before anything is created.
//!
//! Several processes may share one cluster (for example `serve` and an admin subcommand): the
//! first one starts the server, the others attach to it and leave it running. Initialisation and
//! start-up are serialised with an advisory lock on the cluster directory, and a failed `pg_ctl
//! start` that lost a race against a server started some other way is re-checked and reused.

use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::str::FromStr;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};
use nix::unistd::{Gid, Uid, User, geteuid};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{AssertSqlSafe, Connection};
use tokio::process::Command;

/// The port number only names the socket file (`.s.PGSQL.5432`); no TCP port is opened.
const PORT: u16 = 5432;
/// Longest socket path the kernel accepts (`sizeof(sun_path)` is 108 including the NUL).
const SOCKET_PATH_MAX: usize = 107;
/// Name of the socket file inside the socket directory, for [`PORT`].
const SOCKET_FILE: &str = ".s.PGSQL.5432";
/// Superuser role created by `initdb -U`; every connection uses it.
const SUPERUSER: &str = "postgres";
/// Database that always exists and is used for probes and `CREATE DATABASE`.
const MAINTENANCE_DB: &str = "postgres";
/// System user PostgreSQL runs as when the registry runs as root.
const SERVICE_USER: &str = "postgres";
/// Our settings file inside the cluster, included from `postgresql.conf`.
const CONFIG_FILE: &str = "cairn.conf";
/// The line appended to `postgresql.conf` to pull in [`CONFIG_FILE`] (relative to the cluster).
const INCLUDE_LINE: &str = "include 'cairn.conf'";
/// Server output, written by `pg_ctl start -l`.
const LOG_FILE: &str = "server.log";
/// `pg_ctl start -t` and `pg_ctl stop -t`, in seconds.
const PG_CTL_TIMEOUT_SECS: u64 = 60;
/// How long to wait for a server that another process is starting to accept connections.
const FOREIGN_START_WAIT: Duration = Duration::from_secs(PG_CTL_TIMEOUT_SECS + 30);
/// How long to wait for another process that holds the cluster lock (initdb plus a start).
const LOCK_WAIT: Duration = Duration::from_secs(240);
/// Timeout of one connection attempt.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many lines of `server.log` a start error quotes.
const LOG_TAIL_LINES: usize = 20;

/// Why the embedded PostgreSQL could not be started, used or stopped.
///
/// Every message names the path or program involved and says what the operator can do about
/// it, because these errors end up on the terminal of someone who configured nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EmbeddedError {
    /// No directory holds all of `initdb`, `pg_ctl` and `postgres`.
    #[error(
        "no PostgreSQL server binaries found (looked for initdb, pg_ctl and postgres side by side \
         in $PATH, /usr/lib/postgresql/*/bin and /usr/local/pgsql/bin): install the PostgreSQL \
         server package (Debian: apt-get install postgresql) or set CAIRN_DATABASE_URL to use an \
         existing PostgreSQL"
    )]
    BinariesNotFound,

    /// The existing cluster was created by a PostgreSQL major version that is not installed.
    #[error(
        "the PostgreSQL cluster in {cluster} was created by PostgreSQL {cluster_version}, but the \
         installed server binaries are {found}: install the PostgreSQL {cluster_version} server \
         package, upgrade the cluster with pg_upgrade, or set CAIRN_DATABASE_URL"
    )]
    VersionMismatch {
        /// The cluster directory.
        cluster: PathBuf,
        /// Contents of the cluster's `PG_VERSION`.
        cluster_version: String,
        /// The installations found, as `version (directory)`.
        found: String,
    },

    /// The cluster path cannot be handed to PostgreSQL safely.
    #[error(
        "cannot put the embedded PostgreSQL in {path:?}: {reason}; choose a --data-dir with a plain path (for example /var/lib/cairn)"
    )]
    UnsupportedPath {
        /// The offending path.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// The socket path would exceed the kernel's limit for Unix socket addresses.
    #[error(
        "the PostgreSQL socket path {socket} would be {len} bytes long, but Unix sockets allow at \
         most {max}: choose a shorter --data-dir (for example /var/lib/cairn)"
    )]
    SocketPathTooLong {
        /// The socket path that would be used.
        socket: PathBuf,
        /// Its length in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },

    /// Running as root, and there is no unprivileged user to run PostgreSQL as.
    #[error(
        "PostgreSQL refuses to run as root and there is no `postgres` system user to run it as: \
         create one (Debian: adduser --system --group --home /var/lib/postgresql postgres, or \
         install the postgresql package), run cairn as an unprivileged user, or set \
         CAIRN_DATABASE_URL"
    )]
    NoServiceUser,

    /// The user PostgreSQL runs as cannot enter an ancestor of the cluster directory.
    #[error(
        "the embedded PostgreSQL runs as user {user}, who cannot enter {blocking} (it lies on the \
         way to the cluster directory {cluster}): run `{fix}`, or choose a --data-dir that \
         {user} can reach, such as /var/lib/cairn"
    )]
    NotTraversable {
        /// The user PostgreSQL runs as.
        user: String,
        /// The first directory (from `/` down) that user cannot enter.
        blocking: PathBuf,
        /// The cluster directory.
        cluster: PathBuf,
        /// A command that would fix it.
        fix: String,
    },

    /// A filesystem operation failed.
    #[error(
        "could not {action} {path}: {cause}; check the ownership and permissions of that path and that the disk is not full"
    )]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        cause: io::Error,
    },

    /// A PostgreSQL program could not be executed at all.
    #[error("could not run {program}: {cause}; check that the PostgreSQL server package is installed completely")]
    Spawn {
        /// The program.
        program: PathBuf,
        /// The underlying error.
        cause: io::Error,
    },

    /// `initdb` failed.
    #[error(
        "initdb could not create the PostgreSQL cluster in {cluster} ({status}):\n{output}\nfix the \
         cause above; if {cluster} holds something other than a PostgreSQL cluster, empty it or \
         choose another --data-dir"
    )]
    InitDb {
        /// The cluster directory.
        cluster: PathBuf,
        /// initdb's exit status.
        status: String,
        /// initdb's output (last lines).
        output: String,
    },

    /// The server did not start (and no other process started it meanwhile).
    #[error(
        "PostgreSQL did not start in {cluster}: {detail}\n--- last lines of {log} ---\n{log_tail}\n\
         ---\nfix the cause above (full log: {log}), or set CAIRN_DATABASE_URL to use another \
         PostgreSQL"
    )]
    StartFailed {
        /// The cluster directory.
        cluster: PathBuf,
        /// What pg_ctl or the connection attempt reported.
        detail: String,
        /// The server log.
        log: PathBuf,
        /// Its last lines.
        log_tail: String,
    },

    /// Another process held the cluster lock for too long.
    #[error(
        "another process has been initialising or starting the PostgreSQL cluster in {cluster} for \
         over {waited_secs}s: look for a stuck cairn process using that directory, stop it, and \
         retry"
    )]
    LockTimeout {
        /// The cluster directory.
        cluster: PathBuf,
        /// How long this process waited.
        waited_secs: u64,
    },

    /// `pg_ctl stop` failed and the server is still running.
    #[error(
        "could not stop PostgreSQL in {cluster}: {detail}; stop it by hand with \
         `pg_ctl stop -D {cluster} -m fast` run as user {user}"
    )]
    StopFailed {
        /// The cluster directory.
        cluster: PathBuf,
        /// The user the server runs as.
        user: String,
        /// What pg_ctl reported.
        detail: String,
    },

    /// The database name cannot be a PostgreSQL database name.
    #[error("invalid database name {name:?}: {reason}; use 1 to 63 bytes and no NUL character")]
    InvalidDatabaseName {
        /// The rejected name.
        name: String,
        /// Why.
        reason: &'static str,
    },

    /// Talking to the running server failed.
    #[error(
        "could not {action} on the embedded PostgreSQL (socket in {socket_dir}): {cause}; check \
         that the server is still running and look at {log}"
    )]
    Database {
        /// What was being done.
        action: String,
        /// The socket directory (the cluster directory).
        socket_dir: PathBuf,
        /// The server log.
        log: PathBuf,
        /// The underlying error.
        cause: sqlx::Error,
    },
}

/// A PostgreSQL cluster in a directory owned by the registry, started by this handle or found
/// already running.
///
/// Dropping the handle does not stop the server: a server left running is reused by the next
/// [`EmbeddedPostgres::start`] on the same directory. Call [`EmbeddedPostgres::stop`] on
/// shutdown to stop a server this handle started.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    /// Canonical path of the cluster (data) directory, which is also the socket directory.
    cluster_dir: PathBuf,
    /// The installation used for initdb/pg_ctl.
    bins: Installation,
    /// Who the PostgreSQL programs run as.
    run_as: RunAs,
    /// Whether this handle started the server (and therefore stops it).
    started_here: bool,
}

impl EmbeddedPostgres {
    /// Starts (or reuses) the cluster in `cluster_dir` (the registry passes
    /// `<data-dir>/postgres`).
    ///
    /// Creates the directory and the cluster on first use. If a server is already running on
    /// the cluster, attaches to it without taking ownership ([`Self::started_here`] is false).
    pub async fn start(cluster_dir: &Path) -> Result<EmbeddedPostgres, EmbeddedError> {
        let (predicted, _) = plan_cluster_path(cluster_dir)?;
        let installations = find_installations();
        if installations.is_empty() {
            return Err(EmbeddedError::BinariesNotFound);
        }
        let existing = fs::metadata(&predicted).ok();
        let run_as = RunAs::determine(existing.as_ref())?;
        // Before creating anything: every directory that already exists above the cluster must
        // be enterable by the server's user, or creating the cluster would only leave debris.
        run_as.check_traversable(&predicted)?;

        fs::create_dir_all(&predicted).map_err(|cause| EmbeddedError::Io {
            action: "create the cluster directory",
            path: predicted.clone(),
            cause,
        })?;
        let cluster_dir = predicted.canonicalize().map_err(|cause| EmbeddedError::Io {
            action: "resolve",
            path: predicted.clone(),
            cause,
        })?;
        if cluster_dir != predicted {
            validate_cluster_path(&cluster_dir)?;
        }
        // Directories created just now (with the process umask) must be enterable too.
        run_as.check_traversable(&cluster_dir)?;

        let lock = lock_cluster(&cluster_dir).await?;
        let mut pg = EmbeddedPostgres {
            cluster_dir,
            bins: installations[0].clone(),
            run_as,
            started_here: false,
        };

        if pg.socket_path().exists() && pg.probe().await.is_ok() {
            tracing::info!(
                cluster_dir = %pg.cluster_dir.display(),
                "reusing the embedded PostgreSQL that is already running"
            );
            drop(lock);
            return Ok(pg);
        }

        let cluster_version = pg.cluster_version()?;
        pg.bins = choose_installation(&pg.cluster_dir, &installations, cluster_version.as_deref()).await?;
        if cluster_version.is_none() {
            pg.init_cluster().await?;
        }
        pg.write_config()?;
        pg.start_server().await?;
        drop(lock);
        Ok(pg)
    }

    /// A sqlx-compatible URL for `database` on this cluster, over the Unix socket.
    ///
    /// Shaped `postgres://postgres@localhost:5432/<db>?host=<socket dir>&sslmode=disable`, with
    /// the database name and socket directory percent-encoded, so paths with spaces work. The
    /// explicit port and `sslmode` keep `PGPORT`/`PGSSLMODE` in the environment from changing
    /// where sqlx connects.
    pub fn database_url(&self, database: &str) -> String {
        let dir = self.cluster_dir.to_string_lossy();
        format!(
            "postgres://{SUPERUSER}@localhost:{PORT}/{}?host={}&sslmode=disable",
            percent_encode(database, false),
            percent_encode(&dir, true),
        )
    }

    /// Creates `database` if it does not exist yet (idempotent, safe when two processes race).
    pub async fn ensure_database(&self, database: &str) -> Result<(), EmbeddedError> {
        validate_database_name(database)?;
        let mut conn = self
            .connect(MAINTENANCE_DB)
            .await
            .map_err(|cause| self.database_error("connect", cause))?;
        let result = self.create_database_if_missing(&mut conn, database).await;
        let _ = conn.close().await;
        result
    }

    /// Whether this handle started the server (false when it reused one already running).
    pub fn started_here(&self) -> bool {
        self.started_here
    }

    /// The cluster (data) directory, canonicalised; it also holds the socket and `server.log`.
    ///
    /// Exposed for diagnostics (`cairn doctor`-style output, logs).
    pub fn cluster_dir(&self) -> &Path {
        &self.cluster_dir
    }

    /// Stops the server whoever started it: the last process to leave a shared embedded
    /// cluster stops it (the caller checks that nobody else is connected).
    pub async fn stop_even_if_reused(mut self) -> Result<(), EmbeddedError> {
        self.started_here = true;
        self.stop().await
    }

    /// Stops the server cleanly (`pg_ctl stop -m fast`) if this handle started it; otherwise
    /// does nothing.
    ///
    /// Fast shutdown disconnects every client, including other processes that attached to this
    /// server; close your own pool first to avoid error noise.
    pub async fn stop(self) -> Result<(), EmbeddedError> {
        if !self.started_here {
            tracing::info!(
                cluster_dir = %self.cluster_dir.display(),
                "leaving the embedded PostgreSQL running: another process started it"
            );
            return Ok(());
        }
        // Serialise with a concurrent `start` so it does not attach to a server going away.
        let lock = lock_cluster(&self.cluster_dir).await?;
        let timeout = PG_CTL_TIMEOUT_SECS.to_string();
        let output = self
            .run(
                &self.bins.pg_ctl,
                &[
                    OsStr::new("stop"),
                    OsStr::new("-D"),
                    self.cluster_dir.as_os_str(),
                    OsStr::new("-m"),
                    OsStr::new("fast"),
                    OsStr::new("-w"),
                    OsStr::new("-t"),
                    OsStr::new(&timeout),
                ],
            )
            .await?;
        if output.status.success() {
            tracing::info!(
                cluster_dir = %self.cluster_dir.display(),
                "stopped the embedded PostgreSQL"
            );
        } else if self.server_running().await? {
            return Err(EmbeddedError::StopFailed {
                cluster: self.cluster_dir.clone(),
                user: self.run_as.name.clone(),
                detail: format!("pg_ctl stop failed ({}): {}", output.status, combined_output(&output)),
            });
        } else {
            tracing::warn!(
                cluster_dir = %self.cluster_dir.display(),
                "the embedded PostgreSQL had already stopped"
            );
        }
        drop(lock);
        Ok(())
    }

    /// Path of the server's socket file.
    fn socket_path(&self) -> PathBuf {
        self.cluster_dir.join(SOCKET_FILE)
    }

    /// Path of the server log.
    fn log_path(&self) -> PathBuf {
        self.cluster_dir.join(LOG_FILE)
    }

    /// The major version recorded in the cluster, or `None` if there is no cluster yet.
    fn cluster_version(&self) -> Result<Option<String>, EmbeddedError> {
        let path = self.cluster_dir.join("PG_VERSION");
        match fs::read_to_string(&path) {
            Ok(text) => Ok(Some(text.trim().to_owned())),
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
            Err(cause) => Err(EmbeddedError::Io {
                action: "read",
                path,
                cause,
            }),
        }
    }

    /// Runs `initdb` on the (empty) cluster directory.
    async fn init_cluster(&self) -> Result<(), EmbeddedError> {
        if let Some((uid, gid)) = self.run_as.ids {
            let meta = fs::metadata(&self.cluster_dir).map_err(|cause| EmbeddedError::Io {
                action: "inspect",
                path: self.cluster_dir.clone(),
                cause,
            })?;
            if meta.uid() != uid.as_raw() || meta.gid() != gid.as_raw() {
                std::os::unix::fs::chown(&self.cluster_dir, Some(uid.as_raw()), Some(gid.as_raw())).map_err(
                    |cause| EmbeddedError::Io {
                        action: "hand over (chown) the cluster directory",
                        path: self.cluster_dir.clone(),
                        cause,
                    },
                )?;
            }
        }
        let help = self.run(&self.bins.initdb, &[OsStr::new("--help")]).await?;
        let no_instructions = String::from_utf8_lossy(&help.stdout).contains("--no-instructions");

        let mut args: Vec<&OsStr> = vec![
            OsStr::new("-D"),
            self.cluster_dir.as_os_str(),
            OsStr::new("-U"),
            OsStr::new(SUPERUSER),
            OsStr::new("-E"),
            OsStr::new("UTF8"),
            OsStr::new("--locale=C"),
            OsStr::new("--auth-local=trust"),
            OsStr::new("--auth-host=reject"),
        ];
        if no_instructions {
            args.push(OsStr::new("--no-instructions"));
        }
        tracing::info!(
            cluster_dir = %self.cluster_dir.display(),
            bin_dir = %self.bins.dir.display(),
            user = %self.run_as.name,
            "creating the embedded PostgreSQL cluster"
        );
        let output = self.run(&self.bins.initdb, &args).await?;
        if !output.status.success() {
            return Err(EmbeddedError::InitDb {
                cluster: self.cluster_dir.clone(),
                status: output.status.to_string(),
                output: last_lines(&combined_output(&output), 40),
            });
        }
        Ok(())
    }

    /// Writes `cairn.conf` (socket-only settings for the current path) and makes sure
    /// `postgresql.conf` includes it. Called with the cluster lock held, before every start.
    fn write_config(&self) -> Result<(), EmbeddedError> {
        let dir = self.cluster_dir.to_string_lossy();
        // unix_socket_directories is a comma-separated list whose elements may be double-quoted;
        // quoting keeps commas and spaces in the path intact. The whole value is then a
        // single-quoted configuration-file string.
        let socket_dirs = format!("\"{}\"", dir.replace('"', "\"\""));
        let content = format!(
            "# Written by Cairn before every start of its embedded PostgreSQL; edits are lost.\n\
             # Put your own settings in postgresql.conf or use ALTER SYSTEM.\n\
             listen_addresses = ''\n\
             port = {PORT}\n\
             unix_socket_directories = '{}'\n",
            conf_string(&socket_dirs)
        );
        let conf = self.cluster_dir.join(CONFIG_FILE);
        if fs::read_to_string(&conf).ok().as_deref() != Some(content.as_str()) {
            let io_err = |cause| EmbeddedError::Io {
                action: "write",
                path: conf.clone(),
                cause,
            };
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&conf)
                .map_err(io_err)?;
            file.write_all(content.as_bytes()).map_err(io_err)?;
            self.hand_over(&conf)?;
        }

        let main_conf = self.cluster_dir.join("postgresql.conf");
        let existing = fs::read_to_string(&main_conf).map_err(|cause| EmbeddedError::Io {
            action: "read",
            path: main_conf.clone(),
            cause,
        })?;
        if !existing.lines().any(|line| line.trim() == INCLUDE_LINE) {
            let io_err = |cause| EmbeddedError::Io {
                action: "append to",
                path: main_conf.clone(),
                cause,
            };
            let mut file = OpenOptions::new().append(true).open(&main_conf).map_err(io_err)?;
            let separator = if existing.ends_with('\n') || existing.is_empty() {
                ""
            } else {
                "\n"
            };
            write!(
                file,
                "{separator}\n# Added by Cairn: socket-only settings for the embedded server.\n{INCLUDE_LINE}\n"
            )
            .map_err(io_err)?;
        }
        Ok(())
    }

    /// Gives a file we created as root to the user the server runs as.
    fn hand_over(&self, path: &Path) -> Result<(), EmbeddedError> {
        if let Some((uid, gid)) = self.run_as.ids {
            std::os::unix::fs::chown(path, Some(uid.as_raw()), Some(gid.as_raw())).map_err(|cause| {
                EmbeddedError::Io {
                    action: "hand over (chown)",
                    path: path.to_owned(),
                    cause,
                }
            })?;
        }
        Ok(())
    }

    /// `pg_ctl start`, falling back to attaching when another process won the race.
    async fn start_server(&mut self) -> Result<(), EmbeddedError> {
        let log = self.log_path();
        let timeout = PG_CTL_TIMEOUT_SECS.to_string();
        let output = self
            .run(
                &self.bins.pg_ctl,
                &[
                    OsStr::new("start"),
                    OsStr::new("-D"),
                    self.cluster_dir.as_os_str(),
                    OsStr::new("-w"),
                    OsStr::new("-t"),
                    OsStr::new(&timeout),
                    OsStr::new("-l"),
                    log.as_os_str(),
                ],
            )
            .await?;

        if output.status.success() {
            self.started_here = true;
            if let Err(err) = self.wait_until_ready(CONNECT_TIMEOUT).await {
                return Err(self.start_failed(format!(
                    "pg_ctl reported the server started, but connecting to it failed: {err}"
                )));
            }
            tracing::info!(
                cluster_dir = %self.cluster_dir.display(),
                bin_dir = %self.bins.dir.display(),
                user = %self.run_as.name,
                log = %log.display(),
                "started the embedded PostgreSQL"
            );
            return Ok(());
        }

        let reported = combined_output(&output);
        // pg_ctl gives up after -t seconds but leaves a slow (e.g. recovering) server running:
        // that server is ours.
        let timed_out = reported.contains("did not start in time");
        let mut detail = format!("pg_ctl start failed ({}): {}", output.status, reported.trim());
        if timed_out || self.server_running().await? {
            match self.wait_until_ready(FOREIGN_START_WAIT).await {
                Ok(()) => {
                    self.started_here = timed_out;
                    tracing::info!(
                        cluster_dir = %self.cluster_dir.display(),
                        started_here = timed_out,
                        "the embedded PostgreSQL is running after a slow or concurrent start; using it"
                    );
                    return Ok(());
                }
                Err(err) => detail.push_str(&format!("; the server never accepted connections: {err}")),
            }
        }
        Err(self.start_failed(detail))
    }

    /// A [`EmbeddedError::StartFailed`] quoting the end of the server log.
    fn start_failed(&self, detail: String) -> EmbeddedError {
        let log = self.log_path();
        EmbeddedError::StartFailed {
            cluster: self.cluster_dir.clone(),
            detail,
            log_tail: read_log_tail(&log, LOG_TAIL_LINES),
            log,
        }
    }

    /// `pg_ctl status`: whether a live postmaster owns the cluster's `postmaster.pid`.
    async fn server_running(&self) -> Result<bool, EmbeddedError> {
        let output = self
            .run(
                &self.bins.pg_ctl,
                &[OsStr::new("status"), OsStr::new("-D"), self.cluster_dir.as_os_str()],
            )
            .await?;
        Ok(output.status.success())
    }

    /// Polls until a connection succeeds or `within` elapses; the error is the last failure.
    async fn wait_until_ready(&self, within: Duration) -> Result<(), String> {
        let deadline = Instant::now() + within;
        loop {
            let err = match self.probe().await {
                Ok(()) => return Ok(()),
                Err(err) => err,
            };
            if Instant::now() >= deadline {
                return Err(err.to_string());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Connects to the maintenance database and runs `SELECT 1`.
    async fn probe(&self) -> Result<(), sqlx::Error> {
        let mut conn = self.connect(MAINTENANCE_DB).await?;
        let result = sqlx::query_scalar::<_, i32>("SELECT 1").fetch_one(&mut conn).await;
        let _ = conn.close().await;
        result.map(|_| ())
    }

    /// One connection to `database`, through the same URL callers get.
    async fn connect(&self, database: &str) -> Result<PgConnection, sqlx::Error> {
        let options = PgConnectOptions::from_str(&self.database_url(database))?;
        match tokio::time::timeout(CONNECT_TIMEOUT, PgConnection::connect_with(&options)).await {
            Ok(result) => result,
            Err(_) => Err(sqlx::Error::Io(io::Error::new(
                ErrorKind::TimedOut,
                format!("no answer within {}s", CONNECT_TIMEOUT.as_secs()),
            ))),
        }
    }

    /// The body of [`Self::ensure_database`], on an open maintenance connection.
    async fn create_database_if_missing(&self, conn: &mut PgConnection, database: &str) -> Result<(), EmbeddedError> {
        let exists: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
            .bind(database)
            .fetch_one(&mut *conn)
            .await
            .map_err(|cause| self.database_error("look up the database", cause))?;
        if exists {
            return Ok(());
        }
        let statement = format!("CREATE DATABASE {}", quote_ident(database));
        let mut attempt = 0;
        loop {
            attempt += 1;
            match sqlx::query(AssertSqlSafe(statement.clone())).execute(&mut *conn).await {
                Ok(_) => {
                    tracing::info!(
                        database,
                        cluster_dir = %self.cluster_dir.display(),
                        "created database in the embedded PostgreSQL"
                    );
                    return Ok(());
                }
                // 42P04 duplicate_database, or 23505 when the other CREATE DATABASE commits
                // while ours is inserting: either way the database exists now.
                Err(err) if has_sqlstate(&err, &["42P04", "23505"]) => return Ok(()),
                // 55006 object_in_use: someone is connected to template1 right now; retry.
                Err(err) if has_sqlstate(&err, &["55006"]) && attempt < 10 => {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                }
                Err(cause) => {
                    return Err(self.database_error(&format!("create database {database:?}"), cause));
                }
            }
        }
    }

    /// A [`EmbeddedError::Database`] for this cluster.
    fn database_error(&self, action: &str, cause: sqlx::Error) -> EmbeddedError {
        EmbeddedError::Database {
            action: action.to_owned(),
            socket_dir: self.cluster_dir.clone(),
            log: self.log_path(),
            cause,
        }
    }

    /// Runs a PostgreSQL program as the server's user, in the cluster directory, with a clean
    /// environment (no `PG*` variables, C messages), and collects its output.
    async fn run(&self, program: &Path, args: &[&OsStr]) -> Result<Output, EmbeddedError> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(&self.cluster_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env("LC_ALL", "C")
            .env_remove("LANGUAGE");
        for (key, _) in std::env::vars_os() {
            if key.as_encoded_bytes().starts_with(b"PG") {
                cmd.env_remove(key);
            }
        }
        if let Some((uid, gid)) = self.run_as.ids {
            cmd.uid(uid.as_raw()).gid(gid.as_raw());
        }
        cmd.output().await.map_err(|cause| EmbeddedError::Spawn {
            program: program.to_owned(),
            cause,
        })
    }
}

/// One PostgreSQL installation: a directory holding `initdb`, `pg_ctl` and `postgres`.
#[derive(Debug, Clone)]
struct Installation {
    /// The directory, with symlinks resolved (for logs and version matching).
    dir: PathBuf,
    /// `initdb`.
    initdb: PathBuf,
    /// `pg_ctl`.
    pg_ctl: PathBuf,
    /// `postgres`, only used to ask for the version.
    postgres: PathBuf,
}

/// Installations in order of preference: `$PATH` first, then `/usr/lib/postgresql/<v>/bin`
/// from the highest version down, then `/usr/local/pgsql/bin`.
fn find_installations() -> Vec<Installation> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path).filter(|dir| dir.is_absolute()));
    }
    let mut versioned: Vec<(Vec<u64>, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let version = name
                .to_str()?
                .split('.')
                .map(|part| part.parse::<u64>().ok())
                .collect::<Option<Vec<u64>>>()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versioned.sort_by(|a, b| b.0.cmp(&a.0));
    dirs.extend(versioned.into_iter().map(|(_, dir)| dir));
    dirs.push(PathBuf::from("/usr/local/pgsql/bin"));

    let mut found: Vec<Installation> = Vec::new();
    for dir in dirs {
        let [initdb, pg_ctl, postgres] = ["initdb", "pg_ctl", "postgres"].map(|name| dir.join(name));
        if !(is_executable(&initdb) && is_executable(&pg_ctl) && is_executable(&postgres)) {
            continue;
        }
        // pg_ctl finds postgres next to its own resolved path, so that is the real installation.
        let real_dir = pg_ctl
            .canonicalize()
            .ok()
            .and_then(|path| path.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| dir.clone());
        if found.iter().any(|known| known.dir == real_dir) {
            continue;
        }
        found.push(Installation {
            dir: real_dir,
            initdb,
            pg_ctl,
            postgres,
        });
    }
    found
}

/// Whether `path` is a regular file (after symlinks) with an execute bit.
fn is_executable(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// The first installation, or, for an existing cluster, the first one of the cluster's major
/// version.
async fn choose_installation(
    cluster: &Path,
    installations: &[Installation],
    cluster_version: Option<&str>,
) -> Result<Installation, EmbeddedError> {
    let Some(wanted) = cluster_version else {
        return Ok(installations[0].clone());
    };
    let mut seen = Vec::new();
    for installation in installations {
        let version = major_version(&installation.postgres).await;
        if version.as_deref() == Some(wanted) {
            return Ok(installation.clone());
        }
        seen.push(format!(
            "{} ({})",
            version.as_deref().unwrap_or("of unknown version"),
            installation.dir.display()
        ));
    }
    Err(EmbeddedError::VersionMismatch {
        cluster: cluster.to_owned(),
        cluster_version: wanted.to_owned(),
        found: seen.join(", "),
    })
}

/// The major version (`15`, or `9.6` for old releases) reported by `postgres --version`.
async fn major_version(postgres: &Path) -> Option<String> {
    let output = Command::new(postgres)
        .arg("--version")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .output()
        .await
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    // "postgres (PostgreSQL) 15.20 (Debian 15.20-0+deb12u1)"
    let version = text.split(')').nth(1)?.split_whitespace().next()?;
    let mut parts = version.split(|c: char| !c.is_ascii_digit());
    let first: u64 = parts.next()?.parse().ok()?;
    if first >= 10 {
        Some(first.to_string())
    } else {
        Some(format!("{first}.{}", parts.next()?))
    }
}

/// Who runs the PostgreSQL programs.
#[derive(Debug, Clone)]
struct RunAs {
    /// User name, for messages and logs.
    name: String,
    /// `Some` when running as root: the unprivileged user and primary group to switch to.
    /// (std drops supplementary groups when switching from root, so only this group counts.)
    ids: Option<(Uid, Gid)>,
}

impl RunAs {
    /// Ourselves when not root; as root, the non-root owner of an existing cluster directory,
    /// or else the `postgres` system user.
    fn determine(existing_cluster: Option<&fs::Metadata>) -> Result<RunAs, EmbeddedError> {
        let euid = geteuid();
        if !euid.is_root() {
            let name = User::from_uid(euid)
                .ok()
                .flatten()
                .map_or_else(|| format!("uid {euid}"), |user| user.name);
            return Ok(RunAs { name, ids: None });
        }
        if let Some(meta) = existing_cluster.filter(|meta| meta.uid() != 0)
            && let Ok(Some(owner)) = User::from_uid(Uid::from_raw(meta.uid()))
        {
            return Ok(RunAs {
                name: owner.name,
                ids: Some((owner.uid, owner.gid)),
            });
        }
        match User::from_name(SERVICE_USER) {
            Ok(Some(user)) if !user.uid.is_root() => Ok(RunAs {
                name: user.name,
                ids: Some((user.uid, user.gid)),
            }),
            _ => Err(EmbeddedError::NoServiceUser),
        }
    }

    /// Checks, from `/` down, that this user may enter every existing ancestor of `cluster`
    /// (the cluster directory itself is handed to the user). Only needed when switching users:
    /// otherwise this process reached the path with the same credentials the server gets.
    fn check_traversable(&self, cluster: &Path) -> Result<(), EmbeddedError> {
        let Some((uid, gid)) = self.ids else {
            return Ok(());
        };
        let mut ancestors: Vec<&Path> = cluster.ancestors().skip(1).collect();
        ancestors.reverse();
        for dir in ancestors {
            let meta = match fs::metadata(dir) {
                Ok(meta) => meta,
                Err(err) if err.kind() == ErrorKind::NotFound => break,
                Err(cause) => {
                    return Err(EmbeddedError::Io {
                        action: "inspect",
                        path: dir.to_owned(),
                        cause,
                    });
                }
            };
            let mode = meta.mode();
            // POSIX picks exactly one class: owner, else group, else other.
            let (bit, class) = if meta.uid() == uid.as_raw() {
                (0o100, "u")
            } else if meta.gid() == gid.as_raw() {
                (0o010, "g")
            } else {
                (0o001, "o")
            };
            if mode & bit == 0 {
                return Err(EmbeddedError::NotTraversable {
                    user: self.name.clone(),
                    blocking: dir.to_owned(),
                    cluster: cluster.to_owned(),
                    fix: format!("chmod {class}+x {}", shell_quote(dir)),
                });
            }
        }
        Ok(())
    }
}

/// Makes `cluster_dir` absolute with its existing part canonicalised, validates it, and returns
/// it together with its deepest existing ancestor. Touches nothing on disk.
fn plan_cluster_path(cluster_dir: &Path) -> Result<(PathBuf, PathBuf), EmbeddedError> {
    let absolute = std::path::absolute(cluster_dir).map_err(|cause| EmbeddedError::Io {
        action: "resolve",
        path: cluster_dir.to_owned(),
        cause,
    })?;
    let mut existing = absolute.as_path();
    for ancestor in absolute.ancestors() {
        existing = ancestor;
        if ancestor.try_exists().unwrap_or(false) {
            break;
        }
    }
    let canonical = existing.canonicalize().map_err(|cause| EmbeddedError::Io {
        action: "resolve",
        path: existing.to_owned(),
        cause,
    })?;
    let tail = absolute.strip_prefix(existing).unwrap_or(Path::new(""));
    let predicted = if tail.as_os_str().is_empty() {
        canonical.clone()
    } else {
        canonical.join(tail)
    };
    validate_cluster_path(&predicted)?;
    Ok((predicted, canonical))
}

/// Rejects paths PostgreSQL cannot be given: non-UTF-8 (the URL), control characters (the
/// configuration file), shell metacharacters that `pg_ctl` does not escape when it runs the
/// server through `/bin/sh` (`"`, `` ` ``, `$`, `\`), and socket paths over the kernel limit.
fn validate_cluster_path(path: &Path) -> Result<(), EmbeddedError> {
    let unsupported = |reason: &str| EmbeddedError::UnsupportedPath {
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let Some(text) = path.to_str() else {
        return Err(unsupported("the path is not valid UTF-8"));
    };
    if text.chars().any(char::is_control) {
        return Err(unsupported("the path contains control characters"));
    }
    if let Some(c) = text.chars().find(|c| matches!(c, '"' | '`' | '$' | '\\')) {
        return Err(unsupported(&format!(
            "the path contains {c:?}, which pg_ctl passes unescaped to the shell"
        )));
    }
    let socket = path.join(SOCKET_FILE);
    let len = socket.as_os_str().len();
    if len > SOCKET_PATH_MAX {
        return Err(EmbeddedError::SocketPathTooLong {
            socket,
            len,
            max: SOCKET_PATH_MAX,
        });
    }
    Ok(())
}

/// Takes the advisory lock that serialises initialisation, start and stop between processes
/// using this module. Locks the directory itself, so the cluster needs no extra file; the
/// descriptor is close-on-exec, so servers started meanwhile do not inherit the lock.
async fn lock_cluster(dir: &Path) -> Result<Flock<File>, EmbeddedError> {
    let io_err = |cause| EmbeddedError::Io {
        action: "lock",
        path: dir.to_owned(),
        cause,
    };
    let mut file = File::open(dir).map_err(io_err)?;
    let started = Instant::now();
    let mut announced = false;
    loop {
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => return Ok(lock),
            Err((returned, Errno::EWOULDBLOCK | Errno::EINTR)) => {
                file = returned;
                if started.elapsed() >= LOCK_WAIT {
                    return Err(EmbeddedError::LockTimeout {
                        cluster: dir.to_owned(),
                        waited_secs: started.elapsed().as_secs(),
                    });
                }
                if !announced {
                    announced = true;
                    tracing::info!(
                        cluster_dir = %dir.display(),
                        "waiting for another process that is initialising or starting the embedded PostgreSQL"
                    );
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err((_, errno)) => return Err(io_err(io::Error::from(errno))),
        }
    }
}

/// Rejects names PostgreSQL would truncate (over 63 bytes) or cannot store.
fn validate_database_name(name: &str) -> Result<(), EmbeddedError> {
    let reason = if name.is_empty() {
        "it is empty"
    } else if name.len() > 63 {
        "it is longer than 63 bytes, and PostgreSQL would silently truncate it"
    } else if name.contains('\0') {
        "it contains a NUL character"
    } else {
        return Ok(());
    };
    Err(EmbeddedError::InvalidDatabaseName {
        name: name.to_owned(),
        reason,
    })
}

/// Whether `err` is a database error with one of `codes` as SQLSTATE.
fn has_sqlstate(err: &sqlx::Error, codes: &[&str]) -> bool {
    err.as_database_error()
        .and_then(|db| db.code())
        .is_some_and(|code| codes.contains(&code.as_ref()))
}

/// A double-quoted SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Escapes the inside of a single-quoted `postgresql.conf` string.
fn conf_string(value: &str) -> String {
    value.replace('\\', "\\\\").replace('\'', "''")
}

/// Percent-encodes everything but unreserved characters (and `/` when `keep_slash`), which is
/// safe both in a URL path segment and in a query value (where `+` would otherwise mean space).
fn percent_encode(value: &str, keep_slash: bool) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') || (keep_slash && byte == b'/') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push_str(&hex::encode_upper([byte]));
        }
    }
    out
}

/// A path quoted for a copy-pasteable shell command in an error message.
fn shell_quote(path: &Path) -> String {
    let text = path.to_string_lossy();
    if text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/-_.+,:@%".contains(c))
    {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// stdout and stderr of a finished program, as text.
fn combined_output(output: &Output) -> String {
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !text.is_empty() && !text.ends_with('\n') && !stderr.is_empty() {
        text.push('\n');
    }
    text.push_str(&stderr);
    text
}

/// The last `count` lines of `text`.
fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// The last `count` lines of the server log (reading at most its last 64 KiB).
fn read_log_tail(path: &Path, count: usize) -> String {
    let read = || -> io::Result<String> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    match read() {
        Ok(text) if text.trim().is_empty() => "(the log is empty)".to_owned(),
        Ok(text) => last_lines(&text, count),
        Err(err) => format!("(could not read the log: {err})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_encoding_keeps_only_unreserved_characters() {
        assert_eq!(percent_encode("/tmp/a b+c", true), "/tmp/a%20b%2Bc");
        assert_eq!(percent_encode("my/db ü", false), "my%2Fdb%20%C3%BC");
    }

    #[test]
    fn conf_strings_escape_quotes_and_backslashes() {
        assert_eq!(conf_string(r"it's a\b"), r"it''s a\\b");
    }

    #[test]
    fn database_names_are_validated() {
        assert!(validate_database_name("cairn").is_ok());
        assert!(validate_database_name("").is_err());
        assert!(validate_database_name(&"x".repeat(64)).is_err());
        assert!(validate_database_name("a\0b").is_err());
    }

    #[test]
    fn socket_path_limit_is_enforced() {
        let ok = PathBuf::from(format!("/{}", "a".repeat(SOCKET_PATH_MAX - SOCKET_FILE.len() - 2)));
        assert!(validate_cluster_path(&ok).is_ok());
        let long = PathBuf::from(format!("/{}", "a".repeat(SOCKET_PATH_MAX - SOCKET_FILE.len() - 1)));
        assert!(matches!(
            validate_cluster_path(&long),
            Err(EmbeddedError::SocketPathTooLong { .. })
        ));
    }

    #[test]
    fn shell_metacharacters_are_rejected() {
        assert!(matches!(
            validate_cluster_path(Path::new("/tmp/a$b")),
            Err(EmbeddedError::UnsupportedPath { .. })
        ));
    }
}

/// A process's claim to use a shared embedded cluster: a shared `flock` on
/// `<cluster_dir>.users`, held from before the server is started or reused until the
/// process is done with it. Whoever gives up the last claim stops the server, so processes
/// that overlap (`serve` and an `import` run beside it) never stop it under each other
/// and never leave it running once all of them have exited.
#[derive(Debug)]
pub struct ClusterClaim {
    path: PathBuf,
    lock: Flock<File>,
}

/// Held by the last process to leave a cluster while it stops the server; a process
/// starting meanwhile waits for it, then starts the server afresh.
#[derive(Debug)]
pub struct LastClaim {
    _lock: Flock<File>,
}

impl ClusterClaim {
    /// Takes a shared claim, waiting (up to the launcher's lock timeout) while a last
    /// process is stopping the server.
    pub async fn acquire(cluster_dir: &Path) -> Result<ClusterClaim, EmbeddedError> {
        let path = claims_file(cluster_dir);
        let io_err = |cause| EmbeddedError::Io {
            action: "claim",
            path: path.clone(),
            cause,
        };
        let started = Instant::now();
        loop {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&path)
                .map_err(io_err)?;
            match Flock::lock(file, FlockArg::LockSharedNonblock) {
                Ok(lock) => return Ok(ClusterClaim { path, lock }),
                Err((_, Errno::EWOULDBLOCK | Errno::EINTR)) if started.elapsed() < LOCK_WAIT => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err((_, Errno::EWOULDBLOCK | Errno::EINTR)) => {
                    return Err(EmbeddedError::LockTimeout {
                        cluster: cluster_dir.to_owned(),
                        waited_secs: started.elapsed().as_secs(),
                    });
                }
                Err((_, errno)) => return Err(io_err(io::Error::from(errno))),
            }
        }
    }

    /// Gives the claim up. Returns [`LastClaim`] when no other process holds one: the
    /// caller should then stop the server while holding it.
    pub fn release(self) -> Result<Option<LastClaim>, EmbeddedError> {
        let ClusterClaim { path, lock } = self;
        drop(lock);
        let io_err = |cause| EmbeddedError::Io {
            action: "claim",
            path: path.clone(),
            cause,
        };
        let file = File::open(&path).map_err(io_err)?;
        match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(lock) => Ok(Some(LastClaim { _lock: lock })),
            Err((_, Errno::EWOULDBLOCK | Errno::EINTR)) => Ok(None),
            Err((_, errno)) => Err(io_err(io::Error::from(errno))),
        }
    }
}

/// `<data-dir>/postgres` → `<data-dir>/postgres.users` (beside the cluster, so it exists
/// before the cluster does and never lands inside PostgreSQL's own directory).
fn claims_file(cluster_dir: &Path) -> PathBuf {
    let mut name = cluster_dir.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".users");
    cluster_dir.with_file_name(name)
}
