//! `cairn-registry`: the registry server and its admin commands.

mod admin;
mod scan_cmd;

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
    /// Manage organisations.
    #[command(subcommand)]
    Org(admin::OrgCommand),
    /// Manage users and roles.
    #[command(subcommand)]
    User(admin::UserCommand),
    /// Issue, list and revoke API tokens.
    #[command(subcommand)]
    Token(admin::TokenCommand),
    /// Manage the token signing key.
    #[command(subcommand)]
    Key(admin::KeyCommand),
}

fn main() -> std::process::ExitCode {
    telemetry::init();
    let cli = Cli::parse();
    let command = match cli.command {
        // Scanning needs no configuration, database or async runtime.
        Command::Scan { dir, json } => return scan_cmd::run(&dir, json),
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
        RegistryCommand::Org(command) => admin::run_org(&config, command).await,
        RegistryCommand::User(command) => admin::run_user(&config, command).await,
        RegistryCommand::Token(command) => admin::run_token(&config, command).await,
        RegistryCommand::Key(command) => admin::run_key(&config, command),
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
    let listener = tokio::net::TcpListener::bind(listen).await.with_context(|| {
        format!("cannot listen on {listen}: is another process using it? choose another with --listen")
    })?;
    let address = listener.local_addr()?;
    tracing::info!(%address, blobs = %rt.blobs.describe(), "cairn-registry serving");
    println!("Cairn registry listening on http://{address}");
    let state = AppState::new(rt.store.clone(), rt.blobs.clone(), rt.keys.clone(), config.access)
        .with_limits(config.limits.clone());
    let result = serve(listener, state, shutdown_signal()).await;
    tracing::info!("shutting down");
    rt.close().await;
    result.context("serving HTTP")
}

async fn run_import(config: &Config, dir: &std::path::Path, org: &str, json: bool) -> Result<()> {
    let (report, elapsed) = admin::with_runtime(config, async |rt| {
        let org = admin::org(rt, org).await?;
        let started = std::time::Instant::now();
        let report = import_tree(
            &rt.store,
            rt.blobs.as_ref(),
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
    for warning in &report.warnings {
        println!("warning {}: {}", warning.path.display(), warning.reason);
    }
    let total = report.created.len() + report.updated.len() + report.unchanged.len();
    println!(
        "imported {total} skills in {:.2}s: {} new, {} updated, {} unchanged; {} skipped, {} warnings",
        elapsed.as_secs_f64(),
        report.created.len(),
        report.updated.len(),
        report.unchanged.len(),
        report.skipped.len(),
        report.warnings.len()
    );
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
