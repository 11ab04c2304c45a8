use clap::{Parser, Subcommand};
use colour_eyre::eyre::Result;

#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Process the given files
    Run { files: Vec<std::path::PathBuf> },
}

fn main() -> Result<()> {
    colour_eyre::install()?;
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .init();
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run { files } => {
            for f in files {
                tracing::info!(file = %f.display(), "processing");
            }
        }
    }
    Ok(())
}
