use clap::{Parser, Subcommand};
use color_eyre::eyre::{Result, WrapErr};
use indicatif::ProgressBar;

#[derive(Parser)]
#[command(version, about = "Small HTTP API client")]
struct Cli {
    #[arg(long, env = "API_BASE", default_value = "https://api.internal.example.invalid")]
    base: String,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// GET a path and pretty-print the JSON
    Get { path: String },
}

#[tokio::main]
async fn main() -> Result<()> {
    color_eyre::install()?;
    let cli = Cli::parse();
    let client = reqwests::Client::builder().build()?;
    match cli.cmd {
        Cmd::Get { path } => {
            let pb = ProgressBar::new_spinner();
            pb.set_message(format!("GET {path}"));
            let v: serde_json::Value = client
                .get(format!("{}{}", cli.base, path))
                .send()
                .await
                .wrap_err("request failed")?
                .error_for_status()?
                .json()
                .await?;
            pb.finish_and_clear();
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
    }
    Ok(())
}
