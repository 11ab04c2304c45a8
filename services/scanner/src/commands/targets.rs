//! What programs, paths and names mean to the command model: which programs fetch,
//! interpret, send or wrap others, which paths hold secrets or make a change outlive the
//! session, and which words say a target is production or a throwaway.

use std::sync::LazyLock;

use regex::Regex;

/// Words whose presence makes shell text worth following: every program the model has a
/// rule for (the lists below, and those handled by name in `programs/`), and the settings
/// it judges by name.
pub fn interesting() -> &'static [&'static str] {
    static WORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        const BY_NAME: &[&str] = &[
            "irm",
            "iwr",
            "invoke-restmethod",
            "printenv",
            "iex",
            "invoke-expression",
            "python",
            "pypy",
            "node",
            "nodejs",
            "deno",
            "bun",
            "perl",
            "ruby",
            "irb",
            "php",
            "lua",
            "luajit",
            "osascript",
            "tclsh",
            "rscript",
            "pwsh",
            "powershell",
            "eval",
            "source",
            "exec",
            "aws",
            "gsutil",
            "az",
            "gcloud",
            "set",
            "export",
            "declare",
            "typeset",
            "gpg",
            "gpg2",
            "security",
            "op",
            "vault",
            "pass",
            "kubectl",
            "history",
            "tar",
            "zip",
            "7z",
            "7za",
            "gzip",
            "bzip2",
            "xz",
            "zstd",
            "base64",
            "base32",
            "b64",
            "rev",
            "xxd",
            "tr",
            "tee",
            "cp",
            "mv",
            "install",
            "ln",
            "ditto",
            "sed",
            "crontab",
            "at",
            "batch",
            "schtasks",
            "launchctl",
            "systemctl",
            "rm",
            "dd",
            "mkfs",
            "wipefs",
            "git",
            "terraform",
            "tofu",
            "pulumi",
            "dropdb",
            "drop",
            "truncate",
            "flushall",
            "flushdb",
            "dropdatabase",
            "setenforce",
            "ufw",
            "iptables",
            "ip6tables",
            "spctl",
            "csrutil",
            "chmod",
            "apt",
            "apt-get",
            "yum",
            "dnf",
            "rpm",
            "npm",
            "yarn",
            "pnpm",
            "npx",
            "bunx",
            "uvx",
            "helm",
            "gcloud",
            "gsutil",
            "az",
            "doctl",
            "heroku",
            "flyctl",
            "fly",
            "linode-cli",
            "hcloud",
            "oci",
            "ibmcloud",
            "vercel",
            "supabase",
            "firebase",
            "mongosh",
            "psql",
            "mysql",
            "mariadb",
            "sqlite3",
            "pbpaste",
            "wl-paste",
            "get-clipboard",
            "xclip",
            "xsel",
            "cargo",
            "gem",
            "bundle",
            "pip",
            "pip3",
            "uv",
            "poetry",
            "pdm",
            "rye",
            "pipx",
            "conda",
            "claude",
            "codex",
            "gemini",
            "hermes",
            "aider",
            "cursor-agent",
            "openclaw",
            "amp",
            "qwen",
            "read",
            "echo",
            "printf",
            "set-mppreference",
            "node_tls_",
            "pythonhttpsverify",
            "git_ssl_no_verify",
            "sslverify",
            "xargs",
            "busybox",
        ];
        let mut words: Vec<&'static str> = BY_NAME.to_vec();
        words.extend(WRAPPERS);
        words.extend(SHELLS);
        words.extend(FETCHERS);
        words.extend(SENDERS);
        words.sort_unstable();
        words.dedup();
        words
    });
    &WORDS
}

/// Programs that only run the program named after them (`sudo curl …`).
pub const WRAPPERS: [&str; 17] = [
    "sudo",
    "doas",
    "env",
    "nohup",
    "time",
    "nice",
    "timeout",
    "command",
    "builtin",
    "exec",
    "stdbuf",
    "setsid",
    "ionice",
    "caffeinate",
    "unbuffer",
    "chronic",
    "torsocks",
];

/// Shells: run their `-c` argument, a script file, or what reaches their standard input.
pub const SHELLS: [&str; 9] = ["sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "yash"];

/// The flags after which an interpreter takes program text (`python3 -c CODE`), for the
/// interpreters that are not shells.
pub fn code_flags(name: &str) -> Option<&'static [&'static str]> {
    static PYTHON: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(?:python[0-9.]*|pypy[0-9.]*)$").expect("valid python pattern"));
    Some(match name {
        n if PYTHON.is_match(n) => &["-c"],
        "node" | "nodejs" => &["-e", "--eval", "-p", "--print"],
        "bun" => &["-e", "--eval", "-p", "--print"],
        "deno" => &["eval"],
        "perl" => &["-e", "-E"],
        "ruby" | "irb" => &["-e"],
        "php" => &["-r"],
        "lua" | "luajit" => &["-e"],
        "osascript" => &["-e"],
        "tclsh" | "wish" => &["-c"],
        "rscript" => &["-e"],
        "pwsh" | "powershell" | "powershell.exe" | "pwsh.exe" => {
            &["-c", "-command", "-encodedcommand", "-enc", "-ec", "-e"]
        }
        _ => return None,
    })
}

/// Programs that download: their output (or the file they write) is remote content.
pub const FETCHERS: [&str; 12] = [
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "http",
    "https",
    "xh",
    "xhs",
    "lwp-download",
    "lwp-request",
    "get",
    "invoke-webrequest",
];

/// Programs that send what they are given to another machine.
pub const SENDERS: [&str; 23] = [
    "nc",
    "ncat",
    "netcat",
    "socat",
    "telnet",
    "openssl",
    "scp",
    "sftp",
    "rsync",
    "rclone",
    "ftp",
    "lftp",
    "tftp",
    "smbclient",
    "mail",
    "mailx",
    "sendmail",
    "mutt",
    "dig",
    "nslookup",
    "host",
    "ssh",
    "gh",
];

/// What a command lists when it lists every object of a kind (`kubectl get namespaces`,
/// `git branch -r`, `aws s3 ls`, `gh repo list`), unless a selector narrows it.
pub fn lists_everything(name: &str, args: &[&str]) -> Option<String> {
    let has = |w: &str| args.contains(&w);
    // Options whose value is the next word (`-o custom-columns=:metadata.name`).
    const VALUED: [&str; 12] = [
        "-o",
        "--output",
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "--sort-by",
        "--template",
        "--format",
        "--limit",
        "-L",
        "--label-columns",
    ];
    let positional: Vec<&str> = args
        .iter()
        .enumerate()
        .filter(|&(i, a)| !a.starts_with('-') && (i == 0 || !VALUED.contains(&args[i - 1])))
        .map(|(_, a)| *a)
        .collect();
    // Merged branches, branches holding a commit, a pattern, a selector, a filtered
    // JSONPath: a chosen set.
    let narrowed = args.iter().any(|a| a.contains("?(") || a.contains("[?"))
        || args.iter().any(|a| {
            [
                "-l",
                "--selector",
                "--field-selector",
                "--merged",
                "--no-merged",
                "--contains",
                "--no-contains",
                "--points-at",
                "--list",
                "--filter",
            ]
            .iter()
            .any(|o| a == o || a.starts_with(&format!("{o}=")))
        });
    // A filter that picks the backups or production (`Buckets[?contains(Name, `backup`)]`)
    // narrows nothing worth keeping.
    let precious = args.iter().any(|a| {
        let lower = a.to_ascii_lowercase();
        ["backup", "snapshot", "prod"].iter().any(|w| lower.contains(w))
    });
    if narrowed && !precious {
        return None;
    }
    match name {
        // `kubectl get ns` (a kind and no names): every object of the kind.
        "kubectl" | "oc" if positional.first() == Some(&"get") && positional.len() == 2 => Some(format!(
            "all {} that `{name} get {}` lists",
            positional[1], positional[1]
        )),
        "git" if positional == ["branch"] && (has("-r") || has("-a") || has("--remotes") || has("--all")) => {
            Some("every branch".to_owned())
        }
        "git"
            if positional.len() == 2
                && positional[0] == "for-each-ref"
                && matches!(
                    positional[1].trim_end_matches('/'),
                    "refs/remotes" | "refs/heads" | "refs/remotes/origin"
                ) =>
        {
            Some("every branch".to_owned())
        }
        "aws" if positional == ["s3", "ls"] || positional.starts_with(&["s3api", "list-buckets"]) => {
            Some("every bucket".to_owned())
        }
        "gsutil" if positional == ["ls"] => Some("every bucket".to_owned()),
        "gcloud" if positional.starts_with(&["storage", "buckets", "list"]) => Some("every bucket".to_owned()),
        "gcloud" if positional.starts_with(&["projects", "list"]) => Some("every project".to_owned()),
        "az" if positional.starts_with(&["group", "list"]) => Some("every resource group".to_owned()),
        "gh" if positional == ["repo", "list"] => Some("every repository".to_owned()),
        _ => None,
    }
}

/// Whether a listing named by [`lists_everything`] covers more than one namespace's
/// objects: a cluster's namespaces, nodes, volumes or resource definitions, every branch,
/// bucket or repository.
pub fn sweeps_everything(listing: &str) -> bool {
    let kind = listing
        .strip_prefix("all ")
        .and_then(|k| k.split_once(" that `"))
        .map(|(k, _)| k);
    match kind {
        Some(kind) => matches!(
            kind.to_ascii_lowercase().as_str(),
            "ns" | "namespace"
                | "namespaces"
                | "no"
                | "node"
                | "nodes"
                | "pv"
                | "persistentvolume"
                | "persistentvolumes"
                | "crd"
                | "crds"
                | "customresourcedefinition"
                | "customresourcedefinitions"
                | "all"
        ),
        None => true,
    }
}

/// What [`prints_secrets`] calls the tokens that belong to one service, and the
/// registrable labels of that service's hosts: a token printed for GitHub and sent to
/// GitHub's API is a call; sent anywhere else it is stolen.
pub const PRINTED_TOKENS: [(&str, &[&str]); 3] = [
    (
        "the GitHub token",
        &["github", "githubusercontent", "githubcopilot", "ghcr"],
    ),
    // Identity tokens call the user's own Cloud Run services and functions.
    (
        "a Google Cloud token",
        &["googleapis", "google", "run", "cloudfunctions", "appspot"],
    ),
    (
        "an Azure token",
        &["azure", "microsoft", "windows", "microsoftonline", "azure-api"],
    ),
];

/// Programs that print secrets by themselves (with the arguments that make them do it).
pub fn prints_secrets(name: &str, args: &[&str]) -> Option<&'static str> {
    let has = |word: &str| args.contains(&word);
    let joined = args.join(" ").to_ascii_lowercase();
    Some(match name {
        "env" | "printenv" if args.is_empty() => "the environment variables",
        "set" | "export" | "declare" | "typeset" if args.is_empty() || has("-p") || has("-x") => {
            "the environment variables"
        }
        "aws" if joined.contains("export-credentials") || joined.contains("get aws_secret_access_key") => {
            "AWS credentials"
        }
        "aws" if joined.contains("get-session-token") => "AWS session credentials",
        "gpg" | "gpg2" if joined.contains("--export-secret") => "GPG secret keys",
        "security"
            if joined.contains("find-generic-password")
                || joined.contains("find-internet-password")
                || joined.contains("dump-keychain") =>
        {
            "the macOS keychain"
        }
        "gh" if joined.starts_with("auth token")
            || joined.starts_with("auth status") && args.iter().any(|a| matches!(*a, "--show-token" | "-t")) =>
        {
            PRINTED_TOKENS[0].0
        }
        "gcloud" if joined.contains("print-access-token") || joined.contains("print-identity-token") => {
            PRINTED_TOKENS[1].0
        }
        "az" if joined.contains("get-access-token") => PRINTED_TOKENS[2].0,
        "op" if joined.starts_with("read") || joined.starts_with("item get") => "a 1Password secret",
        "vault" if joined.starts_with("read") || joined.starts_with("kv get") => "a Vault secret",
        "pass" if joined.starts_with("show") || args.len() == 1 => "a password-store entry",
        "kubectl" if joined.contains("config view") && joined.contains("--raw") => "the Kubernetes credentials",
        "history" => "the shell history",
        // Passwords and tokens pass through the clipboard.
        "pbpaste" | "wl-paste" | "get-clipboard" | "gcb" => "the clipboard",
        "xclip" if has("-o") || joined.contains("-out") => "the clipboard",
        "xsel"
            if has("--output")
                || has("--clipboard")
                || args
                    .iter()
                    .any(|a| a.starts_with('-') && !a.starts_with("--") && (a.contains('o') || a.contains('b'))) =>
        {
            "the clipboard"
        }
        _ => return None,
    })
}

/// Paths that hold secrets: keys, tokens, credential stores, browser profiles, wallets,
/// the agents' own credentials.
static SECRET_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?ix)
        (?:^|[/\\"'=@\s])(?:
            \.ssh(?:/|$) | id_(?:rsa|dsa|ecdsa|ed25519)(?:$|[^.\w]) |
            \.aws/(?:credentials|config) | \.aws/?$ | ^~/\.kube/?$ | ^~/\.docker/?$ | \.netrc | \.git-credentials | \.pypirc |
            \.docker/config\.json | \.kube/config | \.gnupg | \.password-store | \.vault-token |
            \.config/gh/hosts\.yml | \.config/gcloud | \.azure/ |
            \.hermes/(?:\.env|auth|credentials) | \.claude/\.credentials | \.codex/auth\.json | \.openclaw/.*(?:auth|credentials|\.env) |
            \.env(?:\.[a-z]+)?$ |
            login\ data | web\ data | cookies\.sqlite | key[34]\.db | logins\.json |
            google/chrome/ | google-chrome/ | chromium/ | \.mozilla/firefox | brave-?browser/ | microsoft/edge/ |
            wallet\.dat | exodus/ | exodus\.wallet | \.?electrum/ | metamask | nkbihfbeogaeaoehlefnkodbefgpgknn | bfnaelmomeimhlpmgjnjophhpkkoljpa | \.bitcoin | \.ethereum | ethereum/keystore | solana/id\.json |
            library/keychains | /etc/shadow | \.bash_history | \.zsh_history |
            \.gem/credentials | \.cargo/credentials(?:\.toml)?$ | ^~/\.npmrc$ | \.pgpass$ | ^~/\.my\.cnf$ | \.s3cfg$ |
            \.terraform\.d/credentials\.tfrc\.json | \.config/rclone/rclone\.conf | \.composer/auth\.json | \.config/hub$
        )"#,
    )
    .expect("valid secret path pattern")
});

/// What secret `path` holds, if it holds one (`~/.ssh/id_rsa.pub` does not).
pub fn secret_path(path: &str) -> bool {
    let p = normalize_path(path);
    !p.ends_with(".pub") && !p.ends_with(".env.example") && !p.ends_with(".env.sample") && SECRET_PATH.is_match(&p)
}

/// Variable names that hold secrets (`$AWS_SECRET_ACCESS_KEY`, `$GITHUB_TOKEN`).
pub fn secret_variable(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "PRIVATE_KEY",
        "ACCESS_KEY",
        "CREDENTIAL",
    ]
    .iter()
    .any(|w| n.contains(w))
        && !n.ends_with("_FILE")
        && !n.ends_with("_PATH")
        && !n.ends_with("_URL")
}

/// `path` with the home directory spelled one way (`~`) and `/` between its parts,
/// lowercase: Windows spellings (`C:\Users\me\.codex`, `$env:USERPROFILE\.codex`,
/// `%USERPROFILE%`) name the same files as their Unix forms.
pub fn normalize_path(path: &str) -> String {
    let lower = path
        .trim_matches(|c| c == '"' || c == '\'')
        .to_ascii_lowercase()
        .replace('\\', "/");
    // Most paths name no variable: the spelled-out homes are looked for only when one can.
    let mut p = if !lower.contains(['$', '%']) {
        lower
    } else {
        lower
            .replace("${env:userprofile}", "~")
            .replace("$env:userprofile", "~")
            .replace("${env:home}", "~")
            .replace("$env:home", "~")
            .replace("%homedrive%%homepath%", "~")
            .replace("${home}", "~")
            .replace("$home", "~")
            .replace("%userprofile%", "~")
    };
    if let Some(rest) = p
        .strip_prefix(|c: char| c.is_ascii_alphabetic())
        .and_then(|r| r.strip_prefix(':'))
        && rest.starts_with('/')
    {
        p = rest.to_owned();
    }
    for prefix in ["/root/", "/users/", "/home/"] {
        if let Some(rest) = p.strip_prefix(prefix) {
            p = match prefix {
                "/root/" => format!("~/{rest}"),
                _ => match rest.split_once('/') {
                    Some((_, tail)) => format!("~/{tail}"),
                    None => "~".to_owned(),
                },
            };
        }
    }
    p
}

/// Where a write makes a change outlive the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Persistent {
    /// A file agents read as standing instructions or memory (`AGENTS.md`, `SOUL.md`).
    AgentInstructions,
    /// An agent's own configuration (approvals, sandbox, tools).
    AgentConfig,
    /// A shell start-up file: runs in every new shell.
    ShellStartup,
    /// A scheduled task, service, login item or hook: runs later, unattended.
    Scheduled,
    /// Who may log in or act as root (`authorized_keys`, sudoers).
    Access,
}

/// Whether writing to `path` persists, and how.
pub fn persistent(path: &str) -> Option<Persistent> {
    let p = normalize_path(path);
    let file = p.rsplit('/').next().unwrap_or(&p);
    let in_dir = |d: &str| p.contains(d);
    let agent_home = [
        "~/.claude/",
        "~/.codex/",
        "~/.hermes/",
        "~/.gemini/",
        "~/.openclaw/",
        "~/.cursor/",
    ]
    .iter()
    .any(|h| p.starts_with(h));
    if matches!(
        file,
        "settings.json"
            | "settings.local.json"
            | "config.toml"
            | "config.yaml"
            | "config.yml"
            | "config.json"
            | "mcp.json"
    ) && agent_home
        || p.ends_with(".claude.json")
        || in_dir(".vscode/settings.json")
        || in_dir(".claude/settings")
    {
        return Some(Persistent::AgentConfig);
    }
    // Project instruction files anywhere; the agent's own persona and memory files in
    // its home (a `user.md` in a project is just a file).
    let project_instructions = matches!(
        file,
        "agents.md" | "claude.md" | "gemini.md" | ".cursorrules" | ".windsurfrules" | "copilot-instructions.md"
    );
    let agent_memory = matches!(file, "soul.md" | "user.md" | "memory.md" | "instructions.md");
    if project_instructions
        || agent_memory && agent_home
        || in_dir(".cursor/rules/")
        || agent_home && in_dir("/memories/")
    {
        return Some(Persistent::AgentInstructions);
    }
    if matches!(
        file,
        ".bashrc"
            | ".bash_profile"
            | ".bash_login"
            | ".profile"
            | ".zshrc"
            | ".zprofile"
            | ".zshenv"
            | ".zlogin"
            | "config.fish"
            | "bash.bashrc"
    ) || p == "/etc/profile"
        || in_dir("/etc/profile.d/")
        || file == "microsoft.powershell_profile.ps1"
    {
        return Some(Persistent::ShellStartup);
    }
    if in_dir("launchagents/")
        || in_dir("launchdaemons/")
        || in_dir("/etc/cron")
        || in_dir("/var/spool/cron")
        || in_dir("systemd/system")
        || in_dir("systemd/user")
        || in_dir(".config/autostart")
        || in_dir("/etc/init.d")
        || p == "/etc/rc.local"
        || in_dir(".git/hooks/")
        || p == "/etc/ld.so.preload"
    {
        return Some(Persistent::Scheduled);
    }
    // Code an interpreter or an editor runs each time it starts: a `.pth` file or
    // `sitecustomize.py` in site-packages, R's and Ruby's profiles, Gradle's init scripts,
    // Vim's, Neovim's and Emacs's start-up files and plugin folders.
    let site_packages = in_dir("site-packages/") || in_dir("dist-packages/");
    if site_packages && (file.ends_with(".pth") || file == "sitecustomize.py" || file == "usercustomize.py")
        || matches!(
            file,
            ".rprofile" | "rprofile.site" | ".irbrc" | ".pythonrc" | ".pythonrc.py" | ".vimrc" | ".emacs"
        )
        || in_dir(".gradle/init.d/")
        || p.ends_with(".gradle/init.gradle")
        || p.ends_with(".gradle/init.gradle.kts")
        || in_dir(".config/nvim/")
        || in_dir(".vim/plugin/")
        || in_dir(".emacs.d/")
    {
        return Some(Persistent::Scheduled);
    }
    // `~/.ssh/rc` runs on every SSH login to this machine.
    if file == "rc" && in_dir(".ssh/") {
        return Some(Persistent::ShellStartup);
    }
    if file == "authorized_keys" || in_dir("/etc/sudoers") {
        return Some(Persistent::Access);
    }
    None
}

/// Settings that make an agent act without asking (approvals off, sandbox off).
pub static APPROVALS_OFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?ix)
        dangerously[-_]skip[-_]permissions | dangerously[-_]bypass[-_]approvals | bypasspermissions |
        "?approval_policy"?\s*[:=]\s*["']?never | "?sandbox_mode"?\s*[:=]\s*["']?danger-full-access |
        (?:--ask-for-approval|\s-a)[\s=]+["']?never\b | (?:--sandbox|\s-s)[\s=]+["']?danger-full-access |
        --approval-mode[\s=]+["']?yolo\b | --yes-always\b |
        --yolo\b | "?auto_?approve"?\s*[:=]\s*(?:true|\[\s*"\*") | chat\.tools\.autoapprove"?\s*:\s*true |
        approvals?\s*[:=]\s*["']?(?:off|never|false|none) | "allow"\s*:\s*\[\s*"(?:bash\(\*\)|\*)"
        "#,
    )
    .expect("valid approvals-off pattern")
});

/// Words in a command or its surroundings that name production or everything.
static PRODUCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|[^a-z])(?:prod|production|prd|live|primary|customer|customers)(?:$|[^a-z])")
        .expect("valid production pattern")
});

/// Words that name a throwaway target.
static THROWAWAY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|[^a-z])(?:test|tests|testing|tmp|temp|scratch|restore|drill|dev|local|localhost|127\.0\.0\.1|ci|sandbox|ephemeral|preview|throwaway|example|demo|fixture|fixtures|staging-?copy|pr[-_](?:[0-9]+|number|num|id)|review-?app|feature|my-?branch)(?:$|[^a-z])",
    )
    .expect("valid throwaway pattern")
});

/// The scope a destructive command is aimed at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Production, a shared system or everything.
    Production,
    /// A scratch, test or local target.
    Throwaway,
    /// Nothing says which.
    Unknown,
}

/// The scope `text` (a command and the sentence that introduces it) names.
pub fn scope_of(text: &str) -> Scope {
    if PRODUCTION.is_match(text) {
        Scope::Production
    } else if THROWAWAY.is_match(text) {
        Scope::Throwaway
    } else {
        Scope::Unknown
    }
}

/// `path` with its `..` steps taken (`~/.cache/..` is `~`); a step above the start is
/// kept as written.
pub fn resolve_dots(path: &str) -> String {
    if !path.contains("..") {
        return path.to_owned();
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            ".." if parts.last().is_some_and(|p| !p.is_empty() && *p != "..") => {
                parts.pop();
            }
            "." => {}
            _ => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if joined.is_empty() && path.starts_with('/') {
        "/".to_owned()
    } else {
        joined
    }
}

/// Paths whose recursive removal destroys a machine or a home directory.
pub fn sweeping_path(path: &str) -> bool {
    let p = normalize_path(path);
    let p = p.trim_end_matches("/*").trim_end_matches('/');
    !path.trim().is_empty()
        && matches!(
            p,
            "" | "~"
                | "/*"
                | "/etc"
                | "/usr"
                | "/var"
                | "/home"
                | "/boot"
                | "/bin"
                | "/lib"
                | "/opt"
                | "/root"
                | "~/.ssh"
                | "~/documents"
                | "/users"
                | "c:"
                | "c:\\"
        )
        || path.trim() == "/"
}

/// Environment settings that turn TLS verification off for every later program.
pub fn tls_off_setting(name: &str, value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'').to_ascii_lowercase();
    match name {
        "NODE_TLS_REJECT_UNAUTHORIZED" => v == "0",
        "PYTHONHTTPSVERIFY" => v == "0",
        "GIT_SSL_NO_VERIFY" => matches!(v.as_str(), "1" | "true" | "yes"),
        "CURL_CA_BUNDLE" | "REQUESTS_CA_BUNDLE" => v.is_empty(),
        "NPM_CONFIG_STRICT_SSL" => v == "false",
        "PIP_TRUSTED_HOST" | "UV_INSECURE_HOST" => names_public_index(&v),
        _ => false,
    }
}

/// Whether `hosts` (a list of host names, in any separators) names a public package
/// index or code host: trusting one without TLS checks lets anyone on the network path
/// serve the packages.
pub fn names_public_index(hosts: &str) -> bool {
    const PUBLIC: [&str; 6] = [
        "pypi.org",
        "pythonhosted.org",
        "github.com",
        "githubusercontent.com",
        "registry.npmjs.org",
        "proxy.golang.org",
    ];
    hosts
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '"' | '\'' | '[' | ']'))
        .map(|host| {
            // `pypi.org:443`, `https://pypi.org/simple`: the host alone.
            let host = host.split_once("://").map_or(host, |(_, rest)| rest);
            let host = host.split(['/', ':']).next().unwrap_or(host);
            host.to_ascii_lowercase()
        })
        .filter(|host| !host.is_empty())
        .any(|host| {
            PUBLIC
                .iter()
                .any(|public| host == *public || host.strip_suffix(public).is_some_and(|sub| sub.ends_with('.')))
        })
}

/// Builds this module's patterns now (a second core does it while the prefilter builds).
pub(crate) fn warm_up() {
    for pattern in [&SECRET_PATH, &APPROVALS_OFF, &PRODUCTION, &THROWAWAY] {
        LazyLock::force(pattern);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_paths_and_their_public_halves() {
        for p in [
            "~/.ssh/id_rsa",
            "$HOME/.aws/credentials",
            "/home/bob/.hermes/.env",
            "~/.config/google-chrome/Default/Login Data",
            ".env",
            "/Users/me/Library/Application Support/Exodus/exodus.wallet",
            "~/.gem/credentials",
            "~/.cargo/credentials.toml",
            "~/.npmrc",
            "~/.pgpass",
        ] {
            assert!(secret_path(p), "{p}");
        }
        for p in [
            "~/.ssh/id_ed25519.pub",
            "README.md",
            ".env.example",
            "src/environment.ts",
            "./build/out",
            // A project's own registry settings hold no token of the user's.
            ".npmrc",
            "templates/.npmrc",
        ] {
            assert!(!secret_path(p), "{p}");
        }
    }

    #[test]
    fn persistence_targets() {
        assert_eq!(persistent("~/.codex/AGENTS.md"), Some(Persistent::AgentInstructions));
        assert_eq!(persistent("AGENTS.md"), Some(Persistent::AgentInstructions));
        assert_eq!(
            persistent(r"$env:USERPROFILE\.codex\AGENTS.md"),
            Some(Persistent::AgentInstructions)
        );
        assert_eq!(
            persistent(r"C:\Users\Public\.claude\settings.json"),
            Some(Persistent::AgentConfig)
        );
        assert_eq!(
            persistent(r"%USERPROFILE%\.hermes\SOUL.md"),
            Some(Persistent::AgentInstructions)
        );
        assert_eq!(persistent(r"C:\work\notes\user.md"), None);
        assert_eq!(persistent("$HOME/.bashrc"), Some(Persistent::ShellStartup));
        assert_eq!(
            persistent("~/Library/LaunchAgents/com.x.plist"),
            Some(Persistent::Scheduled)
        );
        assert_eq!(persistent("~/.claude/settings.json"), Some(Persistent::AgentConfig));
        assert_eq!(persistent("notes.md"), None);
    }

    #[test]
    fn scopes() {
        assert_eq!(scope_of("psql $PROD_DATABASE_URL"), Scope::Production);
        assert_eq!(scope_of("dropdb restore_drill"), Scope::Throwaway);
        assert_eq!(scope_of("DROP SCHEMA public CASCADE"), Scope::Unknown);
        assert!(sweeping_path("/") && sweeping_path("~/") && sweeping_path("$HOME") && !sweeping_path("./build"));
    }
}
