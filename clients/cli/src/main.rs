//! `cairn`: the Cairn client.

#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use cairn::config::{self, Profile};
use cairn::patch::{self, EXIT_APPLIED, EXIT_ERROR, EXIT_REFUSED, PatchRequest};
use cairn::remote::{Registry, WhoAmI};
use clap::{Args, Parser, Subcommand};

/// mimalloc instead of the system allocator: compiling the scanner's patterns is mostly
/// small allocations, and with it the local scan `push` makes from a cold start takes
/// about 16 % fewer instructions (docs/BENCHMARKS.md, cold start).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Bring the team's approved skills into your agents' skills folders.
    ///
    /// Reads only what changed since the last pull and downloads only blobs not already
    /// cached (~/.cache/cairn/blobs). A folder you edited is merged with the upstream
    /// change; a conflicting file keeps your text, with the upstream one beside it as
    /// <file>.upstream. Folders of skills never synced are never touched; skills removed
    /// upstream are removed here only if unedited. Nothing else in the agent's home is
    /// read. Targets: hermes ($HERMES_HOME or ~/.hermes, skills/<category>/<name>/),
    /// claude (~/.claude/skills), codex (~/.codex/skills), openclaw
    /// (~/.openclaw/workspace/skills), or a folder; default: `targets` in config.toml, else the
    /// targets pulled into before.
    ///
    /// Example: cairn pull --target hermes --target ~/team-skills
    Pull {
        /// A target (repeat for several).
        #[arg(long = "target", value_name = "TARGET")]
        targets: Vec<String>,
    },
    /// Propose your agent's edits to the team: each edited skill becomes a patch against
    /// the revision it was synced from, each local-only skill a `create` proposal (a skill
    /// removed upstream while edited here only with --include-removed). The
    /// content is checked and scanned locally first; the registry then runs its pipeline
    /// and a reviewer decides. Only the files of those skill folders are sent. Exit 0 all
    /// sent (or skipped), 3 something refused, 2 error.
    ///
    /// Example: CAIRN_AGENT=hermes cairn push deploy -m "Check the disk before deploying"
    Push {
        /// Only these skills (default: every edited and local-only one).
        names: Vec<String>,
        /// One line saying what changed.
        #[arg(short = 'm', long = "message")]
        message: Option<String>,
        /// Why the agent changed it.
        #[arg(long, default_value = "")]
        rationale: String,
        /// The agent that made the edits.
        #[arg(long, env = "CAIRN_AGENT")]
        agent: Option<String>,
        /// Its model.
        #[arg(long, env = "CAIRN_MODEL")]
        model: Option<String>,
        /// Its session.
        #[arg(long, env = "CAIRN_SESSION")]
        session: Option<String>,
        /// A target (repeat for several; default: `targets` in config.toml, else those pulled into).
        #[arg(long = "target", value_name = "TARGET")]
        targets: Vec<String>,
        /// Show what would be sent, and the local scan; send nothing.
        #[arg(long)]
        dry_run: bool,
        /// Also propose this skill, deleted or yanked upstream while you edited it here,
        /// again as a new skill (repeat for several; `cairn status` shows them as
        /// `removed upstream`). Without it such skills are left alone.
        #[arg(long = "include-removed", value_name = "NAME")]
        include_removed: Vec<String>,
    },
    /// Stay running: pull as soon as the registry announces a change, and push the agent's
    /// edits once the target folders have been quiet for a while. Reconnects with backoff
    /// and logs what it did. Stop it with Ctrl-C.
    ///
    /// Example: CAIRN_AGENT=hermes cairn watch --target hermes --quiet 30s
    Watch {
        /// A target (repeat for several; default: `targets` in config.toml, else those pulled into).
        #[arg(long = "target", value_name = "TARGET")]
        targets: Vec<String>,
        /// Quiet time after the last local change before pushing (e.g. 10s, 2min).
        #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
        quiet: std::time::Duration,
        /// Only pull; never push.
        #[arg(long)]
        no_push: bool,
        /// The agent that makes the edits.
        #[arg(long, env = "CAIRN_AGENT")]
        agent: Option<String>,
        /// Its model.
        #[arg(long, env = "CAIRN_MODEL")]
        model: Option<String>,
        /// Its session.
        #[arg(long, env = "CAIRN_SESSION")]
        session: Option<String>,
    },
    /// How each synced skill stands: up to date, behind, modified locally, in conflict,
    /// deleted locally, local-only, or removed upstream (edited here, kept). Works offline
    /// (then `behind` is unknown).
    ///
    /// Example: cairn status --target hermes
    Status {
        /// A target (repeat for several; default: `targets` in config.toml, else those pulled into).
        #[arg(long = "target", value_name = "TARGET")]
        targets: Vec<String>,
        /// Do not ask the registry for newer revisions.
        #[arg(long)]
        offline: bool,
    },
    /// Show local edits of synced skills as unified diffs against the synced version
    /// (offline; colored on a terminal).
    ///
    /// Example: cairn diff deploy --target hermes
    Diff {
        /// Only this skill.
        name: Option<String>,
        /// A target (repeat for several; default: `targets` in config.toml, else those pulled into).
        #[arg(long = "target", value_name = "TARGET")]
        targets: Vec<String>,
    },
    /// Pinned, verified skills for CI.
    #[command(subcommand)]
    Ci(CiCommand),
    /// Serve the team's skills to an agent over MCP on stdin/stdout: search, load and read
    /// skills, propose lessons (docs/MCP.md). Online it forwards to the registry's /mcp
    /// with the saved login; with --offline it serves only what is on this machine —
    /// synced into targets, or pinned by a cairn.lock — each file checked against the
    /// registry's digest before the agent sees it.
    ///
    /// CAIRN_MCP_TOKEN, when set, is the token used online instead of the saved login's:
    /// give agents a token with only 'read' (and 'submit' to propose).
    ///
    /// Example: cairn mcp install --agent claude   (then Claude Code runs `cairn mcp`)
    Mcp(McpArgs),
    /// Watch the registry's transparency log.
    #[command(subcommand)]
    Log(LogCommand),
    /// Check, writing nothing, that every skill in DIR is exactly a version the registry
    /// signed and logged: a `cairn ci pull` folder against its lock's pinned keys and
    /// checkpoint (--lock), or a synced target against the keys and checkpoint this
    /// machine's witness trusts (pinned on first use, then extended by consistency
    /// proofs; see `cairn log watch`). Exit 0 verified, 4 a failure (a file changed, a
    /// signature, proof or policy failed, the log forked), 2 error.
    ///
    /// Example: cairn verify ~/.hermes/skills --require-approval
    Verify {
        /// The folder: a synced target or a `ci pull` destination.
        dir: PathBuf,
        /// The lock the folder was pulled with (a `ci pull` destination).
        #[arg(long)]
        lock: Option<PathBuf>,
        /// The witness state to trust for a synced target (default: `cairn log watch`'s).
        #[arg(long, conflicts_with = "lock")]
        state: Option<PathBuf>,
        /// Every version must have been approved by a reviewer.
        #[arg(long)]
        require_approval: bool,
        /// The worst scan verdict allowed (a version without one fails).
        #[arg(long, value_enum)]
        max_verdict: Option<cairn::provenance::Verdict>,
    },
    /// Work on a local skill folder.
    #[command(subcommand)]
    Skill(SkillCommand),
    /// Print a shell completion script.
    ///
    /// Example: cairn completions bash > ~/.local/share/bash-completion/completions/cairn
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
struct McpArgs {
    #[command(subcommand)]
    command: Option<McpCommand>,
    /// Serve only the skills on this machine (no proposals): those synced into the
    /// targets, or with --lock those a cairn.lock pins.
    #[arg(long)]
    offline: bool,
    /// With --offline: a target whose synced skills are served (repeat for several;
    /// default: `targets` in config.toml, else those pulled into).
    #[arg(long = "target", value_name = "TARGET", requires = "offline")]
    targets: Vec<String>,
    /// With --offline: serve the versions this lock pins, from the folder --dir.
    #[arg(long, requires_all = ["offline", "dir"], conflicts_with = "targets")]
    lock: Option<PathBuf>,
    /// With --lock: the folder `cairn ci pull --dest` filled.
    #[arg(long, requires = "lock")]
    dir: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Add Cairn to an agent's MCP configuration, in the agent's own file: by default the
    /// agent runs `cairn mcp` (which uses your saved login); with --http it connects to
    /// the registry's /mcp and reads the token from $CAIRN_TOKEN when it starts. No token
    /// is ever written. The rest of the file is kept.
    ///
    /// Example: cairn mcp install --agent codex --http
    Install(McpInstall),
}

/// `cairn mcp install`'s options.
#[derive(Debug, Args)]
struct McpInstall {
    /// The agent.
    #[arg(long, value_enum)]
    agent: cairn::mcp::install::Agent,
    /// Print the configuration instead of writing it.
    #[arg(long)]
    print: bool,
    /// Connect the agent to the registry's /mcp over HTTP instead of running `cairn mcp`.
    #[arg(long)]
    http: bool,
    /// Have the agent run `cairn mcp --offline` (with --target: those targets).
    #[arg(long, conflicts_with = "http")]
    offline: bool,
    /// With --offline: a target to serve (repeat for several).
    #[arg(long = "target", value_name = "TARGET", requires = "offline")]
    targets: Vec<String>,
    /// With --offline: serve the versions this lock pins (for CI agents), from --dir.
    #[arg(long, requires_all = ["offline", "dir"], conflicts_with = "targets")]
    lock: Option<PathBuf>,
    /// With --lock: the folder `cairn ci pull --dest` filled.
    #[arg(long, requires = "lock")]
    dir: Option<PathBuf>,
    /// Claude Code: the project's .mcp.json (in this folder) instead of ~/.claude.json.
    #[arg(long)]
    project: bool,
    /// The configuration file to write (default: the agent's own).
    #[arg(long)]
    config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum LogCommand {
    /// Witness the registry's log: keep the last checkpoint seen (in --state), prove the
    /// new one extends it, and fail loudly on a fork. The first run pins the registry's
    /// keys and checkpoint. Exit 0 consistent, 4 a fork or a checkpoint that does not
    /// verify, 2 error. Needs no token (checkpoints and proofs are public).
    ///
    /// Example (in CI, with the state file cached between runs):
    ///   cairn log watch --state .cairn-witness.json
    Watch {
        /// Where the witness keeps what it trusts and saw (default: in the config
        /// directory, one file per registry).
        #[arg(long)]
        state: Option<PathBuf>,
        /// Keep checking at this interval (e.g. 5m) instead of checking once.
        #[arg(long, value_parser = humantime::parse_duration)]
        interval: Option<std::time::Duration>,
        /// Trust keys the registry lists that this witness has not pinned, even when their
        /// activation does not follow from the pinned keys (after its operators confirmed
        /// the rotation). Without it, a rotation is followed only through its activation
        /// entry, signed by the retired key and proved in the log.
        #[arg(long)]
        trust_new_keys: bool,
    },
}

#[derive(Debug, Subcommand)]
enum CiCommand {
    /// Write a lock file of the registry's index as it is now: per skill the revision,
    /// the version digest and every file's sha256.
    ///
    /// Example: cairn ci lock --out cairn.lock --skill deploy --skill triage
    Lock {
        /// Where to write it.
        #[arg(long, default_value = "cairn.lock")]
        out: PathBuf,
        /// Lock only these skills (default: all).
        #[arg(long = "skill", value_name = "NAME")]
        skills: Vec<String>,
        /// Replacing a lock: also pin keys the registry lists whose activation does not
        /// follow from the keys that lock pinned (only once its operators confirmed the
        /// rotation; a rotation signed by the pinned key is followed without it).
        #[arg(long)]
        trust_new_keys: bool,
    },
    /// Fetch exactly the locked versions into DEST/<name>/, verifying every file's sha256
    /// and each version's digest. Exit 0 verified, 4 a mismatch (yanked version, changed
    /// registry content, edited lock, or with --frozen a folder that differs), 2 error.
    ///
    /// A `reader` token is enough. The server is CAIRN_SERVER, the saved login's, or the
    /// lock's; the token CAIRN_TOKEN or the saved login's.
    ///
    /// Example: CAIRN_TOKEN=$CI_TOKEN cairn ci pull --lock cairn.lock --dest .skills --frozen
    Pull {
        /// The lock file.
        #[arg(long, default_value = "cairn.lock")]
        lock: PathBuf,
        /// The folder to fill.
        #[arg(long)]
        dest: PathBuf,
        /// Never replace a skill folder that differs from the lock: fail instead.
        #[arg(long)]
        frozen: bool,
        /// Before writing anything, prove each version's provenance against the lock's
        /// pinned keys and checkpoint: signed by the registry, included in its log, the
        /// statement naming exactly the locked files (docs/PROVENANCE.md).
        #[arg(long)]
        verify: bool,
        /// With --verify: every version must have been approved by a reviewer (a patch's
        /// approval or a reviewer's direct publish; operator imports fail).
        #[arg(long, requires = "verify")]
        require_approval: bool,
        /// With --verify: the worst scan verdict allowed (a version without one fails).
        #[arg(long, value_enum, requires = "verify")]
        max_verdict: Option<cairn::provenance::Verdict>,
    },
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

/// A reader that stops early (`cairn status | head`) closes the pipe, and the next
/// `println!` panics on the broken pipe. Stop quietly instead, as command-line tools do
/// when their reader leaves: the exit status a shell reports for SIGPIPE (128 + 13).
fn leave_quietly_when_stdout_closes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    leave_quietly_when_stdout_closes();
    let cli = Cli::parse();
    let json = cli.json;
    let result = match cli.command {
        Command::Skill(SkillCommand::Patch(args)) => skill_patch(args, json),
        Command::Completions { shell } => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "cairn", &mut std::io::stdout());
            Ok(0)
        }
        Command::Login { server, token } => online(login(&server, &token, json)),
        Command::Whoami => online(whoami(json)),
        Command::Pull { targets } => online(pull(&targets, json)),
        Command::Status { targets, offline } => online(status(&targets, offline, json)),
        Command::Watch {
            targets,
            quiet,
            no_push,
            agent,
            model,
            session,
        } => {
            let options = cairn::sync::watch::WatchOptions {
                quiet,
                push: !no_push,
                push_options: cairn::sync::push::PushOptions {
                    rationale: "pushed by cairn watch after the agent edited the skill".to_owned(),
                    agent: cairn::sync::push::Provenance {
                        name: agent,
                        model,
                        session,
                    },
                    ..Default::default()
                },
                json,
                lock_wait: cairn::sync::lock::DEFAULT_WAIT,
            };
            online(watch(&targets, options))
        }
        Command::Push {
            names,
            message,
            rationale,
            agent,
            model,
            session,
            targets,
            dry_run,
            include_removed,
        } => {
            let options = cairn::sync::push::PushOptions {
                names,
                include_removed,
                summary: message,
                rationale,
                agent: cairn::sync::push::Provenance {
                    name: agent,
                    model,
                    session,
                },
                dry_run,
            };
            online(push(&targets, &options, json))
        }
        Command::Diff { name, targets } => diff(name.as_deref(), &targets, json),
        Command::Ci(CiCommand::Lock {
            out,
            skills,
            trust_new_keys,
        }) => online(ci_lock(&out, &skills, trust_new_keys, json)),
        Command::Ci(CiCommand::Pull {
            lock,
            dest,
            frozen,
            verify,
            require_approval,
            max_verdict,
        }) => {
            let policy = verify.then_some(cairn::provenance::Policy {
                require_approval,
                max_verdict,
            });
            online(ci_pull(&lock, &dest, frozen, policy, json))
        }
        Command::Verify {
            dir,
            lock,
            state,
            require_approval,
            max_verdict,
        } => {
            let policy = cairn::provenance::Policy {
                require_approval,
                max_verdict,
            };
            online(verify(&dir, lock.as_deref(), state, policy, json))
        }
        Command::Log(LogCommand::Watch {
            state,
            interval,
            trust_new_keys,
        }) => online(log_watch(state, interval, trust_new_keys, json)),
        Command::Mcp(McpArgs {
            command: Some(McpCommand::Install(options)),
            ..
        }) => mcp_install(options, json),
        Command::Mcp(args) => online(mcp_serve(args)),
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
    let registry = configured_registry()?;
    let me = registry.whoami().await?;
    if json {
        print_json(&serde_json::json!({ "server": registry.server(), "whoami": me }))?;
    } else {
        println!("{} at {}", describe(&me), registry.server());
        println!("may: {}", me.scopes.join(", "));
    }
    Ok(0)
}

/// `cairn mcp`: the MCP server on stdio (stdout carries the protocol: notes go to stderr).
async fn mcp_serve(args: McpArgs) -> Result<u8> {
    use cairn::mcp::{self, forward::Forwarder, offline::Offline};
    if !args.offline {
        // A token of its own for agents (`CAIRN_MCP_TOKEN`), else the saved login.
        let registry = Registry::new(config::load(&config::config_dir()?, |key| match key {
            "CAIRN_TOKEN" => std::env::var("CAIRN_MCP_TOKEN")
                .ok()
                .filter(|t| !t.is_empty())
                .or_else(|| std::env::var(key).ok()),
            _ => std::env::var(key).ok(),
        })?);
        if let Ok(me) = registry.whoami().await
            && me.scopes.iter().any(|s| s == "review" || s == "admin")
        {
            eprintln!(
                "cairn mcp: this token can also {}: agents need only 'read' (and 'submit' to propose); \
                 give them a narrower one in CAIRN_MCP_TOKEN",
                me.scopes
                    .iter()
                    .filter(|s| *s == "review" || *s == "admin")
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" and ")
            );
        }
        mcp::serve_stdio(Forwarder::new(registry)).await?;
        return Ok(0);
    }
    let catalog = match (&args.lock, &args.dir) {
        (Some(lock), Some(dir)) => mcp::catalog_of_lock(&cairn::ci::read_lock(lock)?, dir),
        _ => mcp::catalog_of_targets(&resolve_targets(&args.targets)?)?,
    };
    for (name, reason) in &catalog.refused {
        eprintln!("cairn mcp: not serving {name}: {reason}");
    }
    eprintln!("cairn mcp: serving {} skills offline", catalog.len());
    mcp::serve_stdio(Offline::new(catalog)).await?;
    Ok(0)
}

/// `cairn mcp install`: writes (or prints) an agent's MCP configuration.
fn mcp_install(options: McpInstall, json: bool) -> Result<u8> {
    use cairn::mcp::install::{self, Connection};
    let McpInstall {
        agent,
        print,
        http,
        offline,
        targets,
        lock,
        dir,
        project,
        config: config_file,
    } = options;
    let connection = if http {
        let profile = config::load(&config::config_dir()?, |key| std::env::var(key).ok())
            .context("--http needs the registry's address: run `cairn login` first")?;
        if std::env::var_os(install::TOKEN_VARIABLE).is_none() {
            eprintln!(
                "note: the agent reads the token from ${} when it starts: export it where the agent runs \
                 (a token with only the 'read' scope keeps it from proposing)",
                install::TOKEN_VARIABLE
            );
        }
        Connection::Http {
            url: format!("{}/mcp", profile.server),
        }
    } else {
        // A project's file is shared: it names the program, found on each member's PATH.
        let command = if project {
            "cairn".to_owned()
        } else {
            std::env::current_exe()
                .context("finding this program's path for the agent to run")?
                .to_string_lossy()
                .into_owned()
        };
        let mut args = vec!["mcp".to_owned()];
        if offline {
            args.push("--offline".to_owned());
            for target in &targets {
                args.extend(["--target".to_owned(), target.clone()]);
            }
            // The agent starts the program in a folder of its own: the paths are absolute.
            for (flag, path) in [("--lock", &lock), ("--dir", &dir)] {
                if let Some(path) = path {
                    let path =
                        std::path::absolute(path).with_context(|| format!("resolving {flag} {}", path.display()))?;
                    args.extend([flag.to_owned(), path.to_string_lossy().into_owned()]);
                }
            }
        }
        Connection::Stdio { command, args }
    };
    if print {
        print!("{}", install::snippet(agent, &connection));
        return Ok(0);
    }
    let path = match config_file {
        Some(path) => path,
        None => install::default_path(agent, project, &std::env::current_dir()?, |key| std::env::var(key).ok())?,
    };
    let installed = install::install(agent, &connection, &path)?;
    if json {
        print_json(&serde_json::json!({
            "agent": format!("{agent:?}").to_lowercase(),
            "config": installed.path,
            "replaced": installed.replaced,
            "backup": installed.backup,
        }))?;
    } else {
        let verb = if installed.replaced { "Updated" } else { "Added" };
        println!(
            "{verb} the '{}' MCP server in {}",
            install::SERVER_NAME,
            installed.path.display()
        );
        if let Some(backup) = &installed.backup {
            println!(
                "The file's comments could not be kept: the previous version is in {}",
                backup.display()
            );
        }
        println!("Restart the agent to load it.");
    }
    Ok(0)
}

/// The registry the saved login and the environment (`CAIRN_SERVER`, `CAIRN_TOKEN`) name.
fn configured_registry() -> Result<Registry> {
    Ok(Registry::new(config::load(&config::config_dir()?, |key| {
        std::env::var(key).ok()
    })?))
}

/// The targets named, else those of `config.toml`, else those this machine pulled into
/// (a remembered target whose folder or state vanished is dropped, with a note).
fn resolve_targets(targets: &[String]) -> Result<Vec<cairn::sync::target::Target>> {
    let dir = config::config_dir()?;
    let names = if targets.is_empty() {
        config::targets(&dir)?
    } else {
        targets.to_vec()
    };
    if names.is_empty() {
        let recalled = cairn::sync::remembered::recall()?;
        for gone in &recalled.forgotten {
            eprintln!(
                "note: forgot target {} ({}): {}; `cairn pull --target {}` syncs it again",
                gone.target.label,
                gone.target.root.display(),
                gone.reason,
                gone.target.label
            );
        }
        if recalled.targets.is_empty() {
            anyhow::bail!(
                "name a target: --target hermes|claude|codex|openclaw|<folder>, or list them in {} as targets = [\"hermes\"] \
                 (after a pull, the targets pulled into are used)",
                dir.join("config.toml").display()
            );
        }
        return Ok(recalled.targets);
    }
    names
        .iter()
        .map(|name| {
            Ok(cairn::sync::target::Target::resolve(name, |key| {
                std::env::var(key).ok()
            })?)
        })
        .collect()
}

/// How long to wait for a target another `cairn` is syncing (`CAIRN_LOCK_WAIT`).
fn lock_wait() -> Result<std::time::Duration> {
    Ok(cairn::sync::lock::wait_from(|key| std::env::var(key).ok())?)
}

/// The local blob cache.
fn blob_cache() -> Result<PathBuf> {
    Ok(dirs::cache_dir()
        .context("cannot tell where to cache blobs: set XDG_CACHE_HOME or HOME")?
        .join("cairn/blobs"))
}

/// `cairn push`.
async fn push(targets: &[String], options: &cairn::sync::push::PushOptions, json: bool) -> Result<u8> {
    let wait = lock_wait()?;
    let registry = configured_registry()?;
    let cache = blob_cache()?;
    let mut all = Vec::new();
    for target in resolve_targets(targets)? {
        // Held for the follow-up (which may pull) and the push alike.
        let _locked = cairn::sync::lock::acquire(&target, wait)
            .await
            .with_context(|| format!("pushing from {} ({})", target.label, target.root.display()))?;
        // Patches that ended in conflict: pull the latest first, so their lessons go again.
        if !options.dry_run {
            let followed = cairn::sync::follow::follow_up(&registry, &target, &cache, true)
                .await
                .with_context(|| format!("following up the patches of {}", target.label))?;
            if !json {
                for f in followed.iter().filter(|f| f.changed || f.note.is_some()) {
                    println!(
                        "{}: patch {} is {}{}",
                        f.skill,
                        f.patch,
                        f.status.replace('_', " "),
                        f.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default()
                    );
                    for comment in &f.comments {
                        println!("  {comment}");
                    }
                }
            }
        }
        let pushed = cairn::sync::push::push(&registry, &target, options)
            .await
            .with_context(|| format!("pushing from {} ({})", target.label, target.root.display()))?;
        if !json {
            if pushed.is_empty() {
                println!(
                    "{}: nothing to push (no local edits, no local-only skills)",
                    target.label
                );
            }
            for p in &pushed {
                let verdict = p.preflight["verdict"].as_str().unwrap_or("not scanned");
                println!("{} ({}): {}", p.name, p.ops.join(", "), p.action);
                println!("  local scan: {verdict}");
                for finding in p.preflight["findings"].as_array().into_iter().flatten() {
                    println!(
                        "    {} {} {}:{} {}",
                        finding["severity"].as_str().unwrap_or_default(),
                        finding["rule"].as_str().unwrap_or_default(),
                        finding["file"].as_str().unwrap_or_default(),
                        finding["line"],
                        finding["message"].as_str().unwrap_or_default()
                    );
                }
                if let Some(status) = &p.status {
                    println!(
                        "  patch {}: {status} (registry scan: {})",
                        p.patch.as_deref().unwrap_or_default(),
                        p.verdict.as_deref().unwrap_or("none")
                    );
                }
                if let Some(message) = &p.message {
                    println!("  {message}");
                }
                if let Some(url) = &p.url {
                    println!("  review: {url}");
                }
            }
        }
        all.extend(pushed);
    }
    if json {
        print_json(&serde_json::to_value(&all)?)?;
    }
    Ok(if all.iter().any(|p| p.action == "refused") {
        EXIT_REFUSED
    } else {
        0
    })
}

/// `cairn watch`.
async fn watch(targets: &[String], mut options: cairn::sync::watch::WatchOptions) -> Result<u8> {
    options.lock_wait = lock_wait()?;
    let registry = configured_registry()?;
    let targets = resolve_targets(targets)?;
    cairn::sync::watch::watch(&registry, &targets, &blob_cache()?, &options).await?;
    Ok(0)
}

/// A progress bar on stderr when it is a terminal (and the output is not JSON).
struct ProgressBar(Option<indicatif::ProgressBar>);

impl ProgressBar {
    fn new(label: &str, json: bool) -> Self {
        use std::io::IsTerminal as _;
        if json || !std::io::stderr().is_terminal() {
            return ProgressBar(None);
        }
        let bar = indicatif::ProgressBar::hidden();
        bar.set_style(
            indicatif::ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} skills ({eta})")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(label.to_owned());
        ProgressBar(Some(bar))
    }
}

impl cairn::sync::pull::Progress for ProgressBar {
    fn start(&self, total: u64) {
        if let Some(bar) = &self.0
            && total > 0
        {
            bar.set_length(total);
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    fn advance(&self, done: u64) {
        if let Some(bar) = &self.0 {
            bar.inc(done);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// `cairn status`.
async fn status(targets: &[String], offline: bool, json: bool) -> Result<u8> {
    use cairn::sync::status::{self, Standing};
    let targets = resolve_targets(targets)?;
    let registry = if offline {
        None
    } else {
        config::load(&config::config_dir()?, |key| std::env::var(key).ok())
            .ok()
            .map(Registry::new)
    };
    let mut reports = Vec::new();
    for target in &targets {
        let state = status::target_state(target)?;
        let mut note = None;
        let upstream = match (&registry, state.cursor) {
            (Some(registry), Some(cursor)) if registry.server() == state.server => {
                match tokio::time::timeout(std::time::Duration::from_secs(5), registry.index_since(Some(cursor))).await
                {
                    Ok(Ok((index, _))) => Some(index),
                    Ok(Err(e)) => {
                        note = Some(format!("upstream not checked: {e}"));
                        None
                    }
                    Err(_) => {
                        note = Some(format!(
                            "upstream not checked: {} did not answer within 5 s",
                            registry.server()
                        ));
                        None
                    }
                }
            }
            (Some(registry), Some(_)) => {
                note = Some(format!(
                    "upstream not checked: this target syncs with {}, not {}",
                    state.server,
                    registry.server()
                ));
                None
            }
            _ => None,
        };
        let mut report = status::status(target, &state, upstream.as_ref())?;
        // Where each pushed patch stands now (the last known state when offline).
        // Recording what the follow-up finds writes the state: only when no pull or push
        // holds the target (else the states last seen are shown).
        let free = match (&registry, &upstream) {
            (Some(_), Some(_)) => cairn::sync::lock::try_acquire(target)?,
            _ => None,
        };
        if upstream.is_some() && free.is_none() {
            note.get_or_insert_with(|| "another cairn is syncing this target: patches as last seen".to_owned());
        }
        let live = match &registry {
            Some(registry) if free.is_some() => {
                match tokio::time::timeout(
                    std::time::Duration::from_secs(5),
                    cairn::sync::follow::follow_up(registry, target, &blob_cache()?, false),
                )
                .await
                {
                    Ok(Ok(found)) => found.into_iter().map(|f| (f.skill.clone(), f)).collect(),
                    _ => std::collections::BTreeMap::new(),
                }
            }
            _ => std::collections::BTreeMap::new(),
        };
        for skill in &mut report.skills {
            if let Some(proposal) = state.proposals.get(&skill.name) {
                let followed = live.get(&skill.name);
                skill.proposal = Some(status::ProposalStatus {
                    patch: proposal.patch.clone(),
                    status: followed.map(|f| f.status.clone()).or_else(|| proposal.status.clone()),
                    supersedes: proposal.supersedes.clone(),
                    changes_requested_by: followed.and_then(|f| f.changes_requested_by.clone()),
                    comments: followed.map(|f| f.comments.clone()).unwrap_or_default(),
                });
            }
        }
        if !json {
            println!("{} ({}):", report.target, report.root.display());
            if let Some(note) = &note {
                println!("  ({note})");
            }
            if report.skills.is_empty() {
                println!("  no skills yet: run `cairn pull --target {}`", report.target);
            }
            for skill in &report.skills {
                let what = match skill.standing {
                    Standing::UpToDate => "up to date".to_owned(),
                    Standing::Behind => format!(
                        "behind: revision {} upstream, {} here",
                        skill.upstream_revision.unwrap_or_default(),
                        skill.revision.unwrap_or_default()
                    ),
                    Standing::ModifiedLocally => format!("modified locally: {}", skill.changed.join(", ")),
                    Standing::Conflict => "conflict: resolve the <file>.upstream files, then delete them".to_owned(),
                    Standing::DeletedLocally => "deleted locally".to_owned(),
                    Standing::LocalOnly => "local-only (never synced)".to_owned(),
                    Standing::RemovedUpstream => format!(
                        "removed upstream, kept because you edited it ({}): `cairn push --include-removed {}` proposes it again",
                        skill.changed.join(", "),
                        skill.name
                    ),
                };
                println!("  {:<32} {what}", skill.name);
                if let Some(p) = &skill.proposal {
                    let state = p.status.as_deref().unwrap_or("sent");
                    let advice = match state {
                        _ if p.changes_requested_by.is_some() => {
                            ": changes requested; edit the skill and `cairn push` sends it again"
                        }
                        "conflict" => ": `cairn push` pulls the latest and sends the lesson again",
                        "pending_review" => ": waiting for a reviewer",
                        "blocked" => ": the registry's scan blocked it; see its review page",
                        "approved" => ": published; `cairn pull` brings the reviewed revision here",
                        "duplicate" => {
                            ": closed as another agent's report of the same lesson; `cairn pull` brings the skill as published"
                        }
                        "rejected" => ": a reviewer turned it down (see its review page); your edits stay here",
                        _ => "",
                    };
                    println!(
                        "  {:<32} patch {} {}{advice}{}",
                        "",
                        p.patch,
                        state.replace('_', " "),
                        p.supersedes
                            .as_deref()
                            .map(|s| format!(" (carries on {s})"))
                            .unwrap_or_default()
                    );
                    if let Some(by) = &p.changes_requested_by {
                        println!("  {:<32} {by} requested changes", "");
                    }
                    for comment in &p.comments {
                        println!("  {:<32} {comment}", "");
                    }
                }
            }
        }
        reports.push(report);
    }
    if json {
        print_json(&serde_json::to_value(&reports)?)?;
    }
    Ok(0)
}

/// `cairn diff`.
fn diff(name: Option<&str>, targets: &[String], json: bool) -> Result<u8> {
    use std::io::IsTerminal as _;
    let cache = blob_cache()?;
    let color = !json && std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let resolved = resolve_targets(targets)?;
    let several = resolved.len() > 1;
    let mut all = Vec::new();
    for target in resolved {
        let state = cairn::sync::status::target_state(&target)?;
        let changes = match cairn::sync::diff::diff(&target, &state, name, &cache) {
            Err(cairn::sync::diff::DiffError::NotSynced(_)) if several => continue,
            other => other?,
        };
        if !json {
            for change in &changes {
                if change.binary {
                    println!("binary file {}/{} {}", change.skill, change.file, change.change);
                    continue;
                }
                for line in change.unified.lines() {
                    let paint = match line.as_bytes().first() {
                        _ if !color => "",
                        Some(b'+') if !line.starts_with("+++") => "\x1b[32m",
                        Some(b'-') if !line.starts_with("---") => "\x1b[31m",
                        Some(b'@') => "\x1b[36m",
                        _ => "",
                    };
                    if paint.is_empty() {
                        println!("{line}");
                    } else {
                        println!("{paint}{line}\x1b[0m");
                    }
                }
            }
        }
        all.extend(changes);
    }
    if json {
        print_json(&serde_json::to_value(&all)?)?;
    }
    Ok(0)
}
/// `cairn pull`.
async fn pull(targets: &[String], json: bool) -> Result<u8> {
    use cairn::sync::pull::Action;
    let wait = lock_wait()?;
    let registry = configured_registry()?;
    let cache = blob_cache()?;
    let mut reports = Vec::new();
    for target in resolve_targets(targets)? {
        let context = || format!("pulling into {} ({})", target.label, target.root.display());
        let _locked = cairn::sync::lock::acquire(&target, wait).await.with_context(context)?;
        let bar = ProgressBar::new(&target.label, json);
        let report = cairn::sync::pull::pull_with(&registry, &target, &cache, &bar)
            .await
            .with_context(context)?;
        if !json {
            let count = |action: Action| report.skills.iter().filter(|o| o.action == action).count();
            println!(
                "{} ({}): {} added, {} updated, {} merged, {} in conflict, {} removed; {} blobs downloaded; at cursor {}",
                report.target,
                report.root.display(),
                count(Action::Added),
                count(Action::Updated),
                count(Action::Merged),
                count(Action::Conflict),
                count(Action::Removed),
                report.blobs_fetched,
                report.cursor
            );
            for outcome in &report.skills {
                let note = match outcome.action {
                    Action::Conflict => format!(
                        "conflict in {}: your text is kept; the upstream side is beside it as <file>.upstream",
                        outcome.conflicts.join(", ")
                    ),
                    Action::KeptModified => format!(
                        "removed upstream; kept because you edited it (push leaves it alone unless you run `cairn push --include-removed {}`)",
                        outcome.name
                    ),
                    Action::KeptLocalOnly => {
                        "a folder of that name was never synced from the registry: not touched".to_owned()
                    }
                    Action::KeptDeleted => "you deleted it after syncing: not restored".to_owned(),
                    _ => continue,
                };
                println!("  {}: {note} ({})", outcome.name, outcome.folder.display());
            }
        }
        reports.push(report);
    }
    if json {
        print_json(&serde_json::to_value(&reports)?)?;
    }
    Ok(0)
}

/// `cairn ci lock`.
async fn ci_lock(out: &std::path::Path, skills: &[String], trust_new_keys: bool, json: bool) -> Result<u8> {
    let registry = configured_registry()?;
    // A lock being replaced must be extended, not started over (an unreadable one is
    // replaced: it pins nothing usable).
    let previous = out.exists().then(|| cairn::ci::read_lock(out).ok()).flatten();
    let lock = match cairn::ci::lock(&registry, skills, previous.as_ref(), trust_new_keys).await {
        Ok(lock) => lock,
        Err(e) => return fail(e),
    };
    if let Err(e) = cairn::ci::write_lock(out, &lock) {
        return fail(e);
    }
    if json {
        print_json(
            &serde_json::json!({ "lock": out, "server": lock.server, "cursor": lock.cursor,
            "skills": lock.skills.iter().map(|(name, s)| serde_json::json!({"name": name, "revision": s.revision, "digest": s.digest})).collect::<Vec<_>>() }),
        )?;
    } else {
        println!(
            "Locked {} skills of {} (cursor {}) in {}",
            lock.skills.len(),
            lock.server,
            lock.cursor,
            out.display()
        );
    }
    Ok(0)
}

/// `cairn ci pull`.
async fn ci_pull(
    lock_path: &std::path::Path,
    dest: &std::path::Path,
    frozen: bool,
    verify: Option<cairn::provenance::Policy>,
    json: bool,
) -> Result<u8> {
    let lock = match cairn::ci::read_lock(lock_path) {
        Ok(lock) => lock,
        Err(e) => return fail(e),
    };
    let profile = config::load_or(
        &config::config_dir()?,
        |key| std::env::var(key).ok(),
        Some(&lock.server),
    )?;
    let registry = Registry::new(profile);
    let pulled = match cairn::ci::pull(&registry, &lock, dest, frozen, verify).await {
        Ok(pulled) => pulled,
        Err(e) => return fail(e),
    };
    if json {
        print_json(&serde_json::json!({ "dest": dest, "skills": pulled }))?;
    } else {
        let count = |action: &str| pulled.iter().filter(|p| p.action == action).count();
        println!(
            "{} skills verified in {}: {} fetched, {} replaced, {} unchanged{}",
            pulled.len(),
            dest.display(),
            count("fetched"),
            count("replaced"),
            count("unchanged"),
            if verify.is_some() {
                "; each signed by the registry and proved in its log against the lock's checkpoint"
            } else {
                ""
            }
        );
    }
    Ok(0)
}

/// `cairn log watch`.
async fn log_watch(
    state: Option<PathBuf>,
    interval: Option<std::time::Duration>,
    trust_new_keys: bool,
    json: bool,
) -> Result<u8> {
    let registry = configured_registry()?;
    let state = match state {
        Some(path) => path,
        None => default_witness_state(&registry)?,
    };
    loop {
        match cairn::witness::check(&registry, &state, trust_new_keys).await {
            Ok(observation) => {
                if json {
                    print_json(&serde_json::to_value(&observation)?)?;
                } else {
                    match observation {
                        cairn::witness::Observation::Started { size } => println!(
                            "Watching {}: pinned its keys and its checkpoint at {size} entries in {}",
                            registry.server(),
                            state.display()
                        ),
                        cairn::witness::Observation::Unchanged { size } => {
                            println!("The log still holds {size} entries")
                        }
                        cairn::witness::Observation::Grew { from, to } => {
                            println!("The log grew from {from} to {to} entries, consistently")
                        }
                    }
                }
            }
            // Watching on: a registry briefly out of reach is said and retried; a fork or a
            // damaged state ends the watch.
            Err(cairn::witness::WitnessError::Remote(e)) if interval.is_some() => {
                eprintln!("warning: {e}; checking again at the next interval");
            }
            Err(e) => {
                eprintln!("error: {e}");
                return Ok(e.exit_code());
            }
        }
        match interval {
            Some(every) => tokio::time::sleep(every).await,
            None => return Ok(0),
        }
    }
}

/// Where `cairn log watch` keeps its state for `registry` when no --state is given.
fn default_witness_state(registry: &Registry) -> Result<PathBuf> {
    let host: String = registry
        .server()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '_' })
        .collect();
    Ok(config::config_dir()?.join("witness").join(format!("{host}.json")))
}

/// `cairn verify`.
async fn verify(
    dir: &std::path::Path,
    lock_path: Option<&std::path::Path>,
    state: Option<PathBuf>,
    policy: cairn::provenance::Policy,
    json: bool,
) -> Result<u8> {
    let registry_for = |server: &str| -> Result<Registry> {
        Ok(Registry::new(config::load_or(
            &config::config_dir()?,
            |key| std::env::var(key).ok(),
            Some(server),
        )?))
    };
    let verified = if let Some(lock_path) = lock_path {
        let lock = match cairn::ci::read_lock(lock_path) {
            Ok(lock) => lock,
            Err(e) => return fail(e),
        };
        let registry = registry_for(&lock.server)?;
        cairn::verify::locked(&registry, dir, &lock, policy).await
    } else {
        let state_path = cairn::sync::state::path_for(dir)?;
        if !state_path.exists() {
            return fail(cairn::ci::CiError::Usage(format!(
                "{} is not a synced target (cairn has no sync state for it): pass --lock FILE for a `cairn ci pull` \
                 folder, or `cairn pull --target {}` first",
                dir.display(),
                dir.display()
            )));
        }
        let synced = cairn::sync::state::load(&state_path)?;
        let registry = registry_for(&synced.server)?;
        let witness = match state {
            Some(path) => path,
            None => default_witness_state(&registry)?,
        };
        match cairn::witness::trusted_pins(&registry, &witness).await {
            Ok((pins, _)) => cairn::verify::synced(&registry, dir, &synced, &pins, policy).await,
            Err(e) => Err(e.into()),
        }
    };
    let verified = match verified {
        Ok(verified) => verified,
        Err(e) => return fail(e),
    };
    if json {
        print_json(&serde_json::json!({ "dir": dir, "skills": verified }))?;
    } else {
        println!(
            "{} skills in {} verified: each exactly a version the registry signed and logged",
            verified.len(),
            dir.display()
        );
    }
    Ok(0)
}

/// Prints a `ci` failure and answers its exit code.
fn fail(error: cairn::ci::CiError) -> Result<u8> {
    eprintln!("error: {error}");
    Ok(error.exit_code())
}

fn describe(me: &WhoAmI) -> String {
    format!(
        "{} ({}) in organisation {}; the token expires {}",
        me.user,
        me.role,
        me.org,
        me.expires_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
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
