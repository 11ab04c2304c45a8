use anyhow::{Context, Result};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// URL to fetch
    url: String,
    /// Print response headers
    #[arg(long)]
    headers: bool,
}

fn main() -> Result<()> {
    tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).init();
    let args = Args::parse();
    let resp = reqwest::blocking::get(&args.url).with_context(|| format!("GET {}", args.url))?;
    if args.headers {
        for (k, v) in resp.headers() {
            println!("{k}: {v:?}");
        }
    }
    println!("{}", resp.status());
    Ok(())
}
