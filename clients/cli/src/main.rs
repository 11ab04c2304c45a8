//! `cairn`: the Cairn client.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use cairn::patch::{self, EXIT_APPLIED, EXIT_ERROR, EXIT_REFUSED, PatchRequest};
use clap::{Args, Parser, Subcommand};

/// The Cairn client.
#[derive(Debug, Parser)]
#[command(name = "cairn", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
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
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Read JSON lines {"content","old","new","replace_all"} from stdin and write one JSON
    /// line {"applied","content","strategy","similarity","error","micros"} per input.
    #[arg(long, conflicts_with_all = ["skill_dir", "old", "new", "replace_all", "dry_run", "json"])]
    batch: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Skill(SkillCommand::Patch(args)) => match skill_patch(args) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(EXIT_ERROR)
            }
        },
    }
}

fn skill_patch(args: PatchArgs) -> Result<u8> {
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
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        println!();
    } else {
        patch::print_text(&report, request.dry_run, &mut out)?;
    }
    Ok(if report.applied { EXIT_APPLIED } else { EXIT_REFUSED })
}
