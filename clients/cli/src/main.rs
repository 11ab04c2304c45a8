//! `cairn`: the Cairn client.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use cairn::config::{self, Profile};
use cairn::patch::{self, EXIT_APPLIED, EXIT_ERROR, EXIT_REFUSED, PatchRequest};
use cairn::remote::{Registry, WhoAmI};
use clap::{Args, Parser, Subcommand};

/// The Cairn client: your agent's skills, shared with your team through a Cairn registry.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about)]
struct Cli {
    /// Print results as JSON.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Save the registry and token every command uses (checked with the registry first).
    ///
    /// Stored in $XDG_CONFIG_HOME/cairn/ (~/.config/cairn/): the server in config.toml,
    /// the token alone in `token` (mode 0600). CAIRN_SERVER and CAIRN_TOKEN override both.
    ///
    /// Example: cairn login --server https://cairn.example.com --token "$(cat ci.token)"
    Login {
        /// The registry's URL.
        #[arg(long)]
        server: String,
        /// A token from `cairn-registry token issue` or `POST /v1/tokens`.
        #[arg(long)]
        token: String,
    },
    /// Show who the configured token belongs to, and what it may do.
    Whoami,
    /// Work on a local skill folder.
    #[command(subcommand)]
    Skill(SkillCommand),
}

#[derive(Debug, Subcommand)]
enum SkillCommand {
    /// Replace text in a skill file with the registry's tolerant matcher (exit 0 applied,
    /// 3 refused with the closest candidates, 2 error).
    Patch(PatchArgs),
}

#[derive(Debug, Args)]
struct PatchArgs {
    /// The skill's folder.
    #[arg(required_unless_present = "batch")]
    skill_dir: Option<PathBuf>,
    /// The file to edit, relative to the skill folder.
    #[arg(long, default_value = "SKILL.md")]
    file: String,
    /// The text to replace (`@path` reads it from a file; `@@…` is a literal `@…`).
    #[arg(long, required_unless_present = "batch", allow_hyphen_values = true)]
    old: Option<String>,
    /// The replacement (`@path` reads it from a file; `@@…` is a literal `@…`).
    #[arg(long, required_unless_present = "batch", allow_hyphen_values = true)]
    new: Option<String>,
    /// Replace every occurrence instead of requiring exactly one.
    #[arg(long)]
    replace_all: bool,
    /// Show the change as a diff without writing it.
    #[arg(long)]
    dry_run: bool,
    /// Read JSON lines {"content","old","new","replace_all"} from stdin and write one JSON
    /// line {"applied","content","strategy","similarity","error","micros"} per input.
    #[arg(long, conflicts_with_all = ["skill_dir", "old", "new", "replace_all", "dry_run"])]
    batch: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let result = match cli.command {
        Command::Skill(SkillCommand::Patch(args)) => skill_patch(args, json),
        Command::Login { server, token } => online(login(&server, &token, json)),
        Command::Whoami => online(whoami(json)),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Runs a command that talks to the registry.
fn online(command: impl Future<Output = Result<u8>>) -> Result<u8> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?
        .block_on(command)
}

/// `cairn login`: checks the token with the registry, then saves both.
async fn login(server: &str, token: &str, json: bool) -> Result<u8> {
    let profile = Profile {
        server: config::parse_server(server)?,
        token: config::parse_token(token)?,
    };
    let me = Registry::new(profile.clone()).whoami().await?;
    let dir = config::config_dir()?;
    config::save(&dir, &profile)?;
    if json {
        print_json(&serde_json::json!({ "server": profile.server, "saved_to": dir, "whoami": me }))?;
    } else {
        println!("Logged in to {} as {}", profile.server, describe(&me));
        println!(
            "Saved to {} (the token alone in {}, mode 0600).",
            dir.display(),
            dir.join("token").display()
        );
    }
    Ok(0)
}

/// `cairn whoami`.
async fn whoami(json: bool) -> Result<u8> {
    let profile = config::load(&config::config_dir()?, |key| std::env::var(key).ok())?;
    let registry = Registry::new(profile);
    let me = registry.whoami().await?;
    if json {
        print_json(&serde_json::json!({ "server": registry.server(), "whoami": me }))?;
    } else {
        println!("{} at {}", describe(&me), registry.server());
        println!("may: {}", me.scopes.join(", "));
    }
    Ok(0)
}

fn describe(me: &WhoAmI) -> String {
    format!(
        "{} ({}) in organisation {}; the token expires {}",
        me.user, me.role, me.org, me.expires_at
    )
}

fn print_json(value: &serde_json::Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    std::io::Write::write_all(&mut out, b"\n")?;
    Ok(())
}

fn skill_patch(args: PatchArgs, json: bool) -> Result<u8> {
    if args.batch {
        let stdin = std::io::stdin();
        patch::run_batch(stdin.lock(), std::io::stdout().lock())?;
        return Ok(EXIT_APPLIED);
    }
    let (Some(skill_dir), Some(old), Some(new)) = (args.skill_dir, args.old, args.new) else {
        anyhow::bail!("give the skill folder, --old and --new (or --batch)");
    };
    let request = PatchRequest {
        skill_dir,
        file: args.file,
        old: patch::text_argument(&old)?,
        new: patch::text_argument(&new)?,
        replace_all: args.replace_all,
        dry_run: args.dry_run,
    };
    let report = patch::run(&request)?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        println!();
    } else {
        patch::print_text(&report, request.dry_run, &mut out)?;
    }
    Ok(if report.applied { EXIT_APPLIED } else { EXIT_REFUSED })
}
