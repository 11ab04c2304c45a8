use anyhow::Result;
use clap::{Parser, Subcommand};
use tracing::info;

#[derive(Parser)]
#[command(version, about)]
struct Cli {
    /// Increase verbosity (-v, -vv)
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Example subcommand
    Run { path: std::path::PathBuf },
    /// Print shell completions
    Completions { shell: clap_complete::Shell },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let level = match cli.verbose { 0 => "info", 1 => "debug", _ => "trace" };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| level.into()))
        .init();
    match cli.cmd {
        Cmd::Run { path } => info!(?path, "running"),
        Cmd::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), env!("CARGO_PKG_NAME"), &mut std::io::stdout());
        }
    }
    Ok(())
}
