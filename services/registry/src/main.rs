//! `cairn-registry`: the registry server and its admin commands.

mod cli;

use std::net::SocketAddr;
use std::path::PathBuf;

use anyhow::{Context, Result};
use cairn_registry::app::import::{ImportReport, import_tree};
use cairn_registry::bootstrap::{self, ADMIN_TOKEN_FILE};
use cairn_registry::config::Config;
use cairn_registry::runtime::Runtime;
use cairn_registry::{AppState, serve, telemetry};
use cairn_store::Actor;
use clap::{Parser, Subcommand};

/// mimalloc instead of the system allocator: compiling the scanner's patterns is mostly
/// small allocations, and with it a one-skill `scan` from a cold start runs about 16 % fewer
/// instructions (docs/BENCHMARKS.md, cold start).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Cairn team skill registry.
#[derive(Debug, Parser)]
#[command(name = "cairn-registry", version, about)]
struct Cli {
    /// Directory for the embedded database, blobs, signing key and admin token.
    #[arg(long, global = true, env = "CAIRN_DATA_DIR", default_value = "./cairn-data")]
    data_dir: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Scan a skill folder for security problems (exit 0 safe, 3 caution, 4 dangerous, 2 error).
    Scan {
        /// The folder to scan (every file, dot-files included).
        dir: PathBuf,
        /// Print `{"verdict": …, "findings": [...]}` on stdout.
        #[arg(long)]
        json: bool,
        /// Also say, for each finding, why its rule fires: where it is defined and what
        /// it looks for.
        #[arg(long, conflicts_with = "json")]
        explain: bool,
    },
    /// Ask a running registry whether it is ready (GET /readyz); exit 0 when it is, 1
    /// when not. The container image's health check.
    Probe {
        /// The address the registry listens on (0.0.0.0 is probed on 127.0.0.1).
        #[arg(long, env = "CAIRN_LISTEN", default_value = "127.0.0.1:7878")]
        listen: SocketAddr,
    },
    #[command(flatten)]
    Registry(RegistryCommand),
}

/// The commands that work on a registry's database and data directory.
#[derive(Debug, Subcommand)]
enum RegistryCommand {
    /// Serve the REST API (and bootstrap an empty database).
    Serve {
        /// Address to listen on.
        #[arg(long, env = "CAIRN_LISTEN", default_value = "127.0.0.1:7878")]
        listen: SocketAddr,
    },
    /// Apply pending database migrations and exit.
    Migrate,
    /// Delete blobs nothing references that were not written or reused within the grace
    /// period (serving replicas also do this every CAIRN_GC_INTERVAL).
    Gc {
        /// Keep blobs written or reused more recently than this (default: CAIRN_GC_GRACE,
        /// 24h; at least 1m).
        #[arg(long, value_parser = parse_grace)]
        grace: Option<std::time::Duration>,
        /// Only report what would be deleted.
        #[arg(long)]
        dry_run: bool,
        /// Print the report as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Import every skill found under a directory (e.g. ~/.hermes/skills).
    Import {
        /// The skills tree to import.
        dir: PathBuf,
        /// Organisation to import into.
        #[arg(long, default_value = bootstrap::DEFAULT_ORG)]
        org: String,
        /// Print the report as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Copy blobs out of and into the blob store (backup and restore), and check that
    /// every blob the database references is there.
    #[command(subcommand)]
    Blobs(cli::admin::BlobsCommand),
    /// Manage organisations.
    #[command(subcommand)]
    Org(cli::admin::OrgCommand),
    /// Manage users and roles.
    #[command(subcommand)]
    User(cli::admin::UserCommand),
    /// Issue, list and revoke API tokens.
    #[command(subcommand)]
    Token(cli::admin::TokenCommand),
    /// Manage the token signing key.
    #[command(subcommand)]
    Key(cli::admin::KeyCommand),
}

fn main() -> std::process::ExitCode {
    telemetry::init();
    let cli = Cli::parse();
    let command = match cli.command {
        // Scanning needs no configuration, database or async runtime.
        Command::Scan { dir, json, explain } => return cli::scan::run(&dir, json, explain),
        Command::Probe { listen } => return probe(listen),
        Command::Registry(command) => command,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli.data_dir, command)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(data_dir: PathBuf, command: RegistryCommand) -> Result<()> {
    let config = Config::from_env(data_dir)?;
    match command {
        RegistryCommand::Serve { listen } => run_serve(&config, listen).await,
        RegistryCommand::Migrate => {
            let rt = open(&config, false).await?;
            rt.close().await;
            println!("database is up to date");
            Ok(())
        }
        RegistryCommand::Import { dir, org, json } => run_import(&config, &dir, &org, json).await,
        RegistryCommand::Gc { grace, dry_run, json } => cli::admin::run_gc(&config, grace, dry_run, json).await,
        RegistryCommand::Blobs(command) => cli::admin::run_blobs(&config, command).await,
        RegistryCommand::Org(command) => cli::admin::run_org(&config, command).await,
        RegistryCommand::User(command) => cli::admin::run_user(&config, command).await,
        RegistryCommand::Token(command) => cli::admin::run_token(&config, command).await,
        RegistryCommand::Key(command) => cli::admin::run_key(&config, command).await,
    }
}

/// Opens the runtime; on a first start, shows the bootstrap admin token once: on stdout
/// for `serve`, where operators look for it, on stderr for commands whose stdout is a
/// report. It is also saved in the data directory.
async fn open(config: &Config, token_on_stdout: bool) -> Result<Runtime> {
    let rt = Runtime::open(config).await?;
    if let Some(token) = &rt.bootstrap_token {
        let file = config.data_dir.join(ADMIN_TOKEN_FILE);
        let message = format!(
            "Created organisation '{}' and user '{}'.\nAdmin token (shown once; also saved to {}):\n{token}",
            bootstrap::DEFAULT_ORG,
            bootstrap::DEFAULT_ADMIN,
            file.display()
        );
        if token_on_stdout {
            println!("{message}");
        } else {
            eprintln!("{message}");
        }
    }
    Ok(rt)
}

async fn run_serve(config: &Config, listen: SocketAddr) -> Result<()> {
    let rt = open(config, true).await?;
    if let Err(e) = rt.ensure_signing() {
        rt.close().await;
        return Err(e);
    }
    let listener = tokio::net::TcpListener::bind(listen).await.with_context(|| {
        format!("cannot listen on {listen}: is another process using it? choose another with --listen")
    })?;
    let address = listener.local_addr()?;
    tracing::info!(%address, blobs = %rt.blobs.describe(), "cairn-registry serving");
    println!("Cairn registry listening on http://{address}");
    let state = AppState::new(rt.store.clone(), rt.blobs.clone(), rt.keys.clone(), config.access)
        .with_limits(config.limits.clone())
        .with_operations(config.operations)
        .with_outbound(config.webhook_networks.clone())
        .with_mcp_hosts(config.mcp_allowed_hosts.clone());
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let metrics = match config.operations.metrics_listen {
        Some(address) => {
            let listener = tokio::net::TcpListener::bind(address).await.with_context(|| {
                format!("cannot serve metrics on {address}: is another process using it? change CAIRN_METRICS_LISTEN")
            })?;
            tracing::info!(%address, "serving metrics at /metrics");
            let mut stop = stop_rx.clone();
            Some(tokio::spawn(cairn_registry::metrics::serve(
                listener,
                state.clone(),
                async move {
                    let _ = stop.wait_for(|stopped| *stopped).await;
                },
            )))
        }
        None => None,
    };
    let result = serve(listener, state, async move {
        shutdown_signal().await;
        let _ = stop_tx.send(true);
    })
    .await;
    if let Some(metrics) = metrics {
        let _ = metrics.await;
    }
    drop(stop_rx);
    tracing::info!("shutting down");
    rt.close().await;
    result.context("serving HTTP")
}

async fn run_import(config: &Config, dir: &std::path::Path, org: &str, json: bool) -> Result<()> {
    let (report, elapsed) = cli::admin::with_runtime(config, async |rt| {
        let org = cli::admin::org(rt, org).await?;
        let started = std::time::Instant::now();
        // Recorded like the server's writes, so blobs of a failed import are collected.
        let blobs = cairn_registry::tracked(&rt.store, rt.blobs.clone(), &Default::default());
        let report = import_tree(
            &rt.store,
            blobs.as_ref(),
            org.id,
            dir,
            &config.limits,
            &Actor::cli("import"),
        )
        .await?;
        Ok((report, started.elapsed()))
    })
    .await?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report, elapsed);
    }
    Ok(())
}

fn print_report(report: &ImportReport, elapsed: std::time::Duration) {
    for skipped in &report.skipped {
        println!("skipped {}: {}", skipped.path.display(), skipped.reason);
    }
    for held in &report.quarantined {
        println!(
            "quarantined {} ({}): {}{}",
            held.path.display(),
            held.id,
            held.reason,
            if held.new { "" } else { " [already quarantined]" }
        );
    }
    for warning in &report.warnings {
        println!("warning {}: {}", warning.path.display(), warning.reason);
    }
    let total = report.created.len() + report.updated.len() + report.unchanged.len();
    println!(
        "imported {total} skills in {:.2}s: {} new, {} updated, {} unchanged; {} quarantined, {} skipped, {} warnings",
        elapsed.as_secs_f64(),
        report.created.len(),
        report.updated.len(),
        report.unchanged.len(),
        report.quarantined.len(),
        report.skipped.len(),
        report.warnings.len()
    );
}

/// `cairn-registry probe`: GET /readyz on the local listener.
fn probe(listen: SocketAddr) -> std::process::ExitCode {
    let mut address = listen;
    if address.ip().is_unspecified() {
        address.set_ip(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST));
    }
    let url = format!("http://{address}/readyz");
    let outcome = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| {
            rt.block_on(async {
                let client = reqwest::Client::builder()
                    .timeout(std::time::Duration::from_secs(5))
                    .build()?;
                Ok(client.get(&url).send().await?.status())
            })
        });
    match outcome {
        Ok(status) if status.is_success() => std::process::ExitCode::SUCCESS,
        Ok(status) => {
            eprintln!("not ready: {url} answered {status} (its body names the failing dependency)");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("not ready: cannot reach {url}: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Parses `--grace`, refusing periods shorter than a publish may take.
fn parse_grace(text: &str) -> Result<std::time::Duration, String> {
    let grace = cairn_registry::config::parse_ttl(text)?;
    if grace < cairn_registry::config::MIN_GC_GRACE {
        return Err(format!(
            "'{text}' is shorter than 1m: a publish in progress could lose its blobs"
        ));
    }
    Ok(grace)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
}
