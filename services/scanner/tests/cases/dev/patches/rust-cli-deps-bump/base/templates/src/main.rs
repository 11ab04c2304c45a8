use anyhow::Result;
use clap::Parser;

#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// URL to fetch
    url: String,
    /// Print response headers
    #[arg(short, long)]
    headers: bool,
}

fn main() -> Result<()> {
    tracing_subscriber::fmt().with_env_filter("info").init();
    let args = Args::parse();
    let resp = reqwest::blocking::get(&args.url)?;
    if args.headers {
        for (k, v) in resp.headers() {
            println!("{k}: {}", v.to_str().unwrap_or("?"));
        }
    }
    let body: serde_json::Value = resp.json()?;
    println!("{}", serde_json::to_string_pretty(&body)?);
    Ok(())
}
