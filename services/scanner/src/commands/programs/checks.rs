//! Judgments on a command by itself: agents started without approvals, security switches
//! turned off, destructive operations by their scope.

use super::*;

/// Agents started with their approvals or sandbox turned off.
pub(crate) fn check_agent_flags(m: &mut Machine, name: &str, whole: &str, line: usize) {
    if matches!(
        name,
        "claude" | "codex" | "gemini" | "hermes" | "aider" | "cursor-agent" | "openclaw" | "amp" | "qwen"
    ) && targets::APPROVALS_OFF.is_match(whole)
    {
        m.judge(Judgment {
            line,
            rule: "flow.approvals-off",
            category: "agent-config-tampering",
            severity: Severity::High,
            message: format!("starts the {name} agent with its approvals or sandbox turned off"),
            hint: "let the agent ask before it acts; never start it with approvals or the sandbox off",
            urls: Vec::new(),
            tool: Some(name.to_owned()),
        });
    }
}

pub(crate) fn safety_off(line: usize, severity: Severity, message: String) -> Judgment {
    Judgment {
        line,
        rule: "flow.safety-off",
        category: "security-weakening",
        severity,
        message,
        hint: "keep certificate checks, access controls and security services on; fix the underlying problem instead",
        urls: Vec::new(),
        tool: None,
    }
}

/// The directory `git config … core.hooksPath <dir>` or `git -c core.hooksPath=<dir> …`
/// sets.
fn hooks_path_of<'a>(args: &[&'a str]) -> Option<&'a str> {
    // One command's setting: `git -c core.hooksPath=/dev/null commit`.
    if let Some(dir) = args.iter().find_map(|a| {
        a.split_once('=')
            .filter(|(key, _)| key.eq_ignore_ascii_case("core.hooksPath"))
            .map(|(_, dir)| dir)
    }) {
        return Some(dir);
    }
    // `git config [--global] core.hooksPath <dir>`.
    if args.first() != Some(&"config") {
        return None;
    }
    let key = args.iter().position(|a| a.eq_ignore_ascii_case("core.hooksPath"))?;
    args.get(key + 1).copied().filter(|dir| !dir.starts_with('-'))
}

/// Whether a hooks directory holds no hooks: `/dev/null`, `/var/empty`, or a directory
/// whose name says it is empty or off (`…/empty-hooks`, `…/no-hooks`, `…/hooks-off`), word
/// by word (`…/githooks-nonempty` is not).
fn holds_no_hooks(dir: &str) -> bool {
    let dir = dir.trim_matches(|c| c == '"' || c == '\'').to_ascii_lowercase();
    let last = dir.trim_end_matches('/').rsplit('/').next().unwrap_or(&dir);
    let words: Vec<&str> = last
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    dir.contains("/dev/null")
        || dir.contains("/var/empty")
        || words.iter().any(|w| {
            matches!(
                *w,
                "empty" | "null" | "none" | "nohooks" | "nohook" | "disabled" | "noop" | "off"
            )
        })
        || words
            .windows(2)
            .any(|pair| pair[0] == "no" && pair[1].starts_with("hook"))
}

/// Whether kubectl arguments turn the cluster's certificate check off: the flag
/// (`--insecure-skip-tls-verify`, `=true`, `=1`), or the kubeconfig key set to true
/// (`kubectl config set clusters.prod.insecure-skip-tls-verify true`).
fn skips_tls_verify(args: &[&str]) -> bool {
    args.iter().enumerate().any(|(i, a)| {
        let a = a.to_ascii_lowercase();
        matches!(
            a.as_str(),
            "--insecure-skip-tls-verify" | "--insecure-skip-tls-verify=true" | "--insecure-skip-tls-verify=1"
        ) || a.ends_with(".insecure-skip-tls-verify")
            && args
                .get(i + 1)
                .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "1"))
    })
}

/// Whether `ssh` arguments open a reverse tunnel to this machine's SSH server: `-R
/// 0:localhost:22`, a flag cluster ending in `R` (`-NfR 2222:localhost:22`), or `-o
/// RemoteForward=…`.
fn reverse_tunnel_to_ssh(args: &[&str]) -> bool {
    let to_ssh = |spec: &str| {
        let spec = spec.trim_matches(|c| c == '"' || c == '\'');
        spec.ends_with(":22") || spec.ends_with(":ssh") || spec.ends_with(" localhost:22")
    };
    args.iter().enumerate().any(|(i, a)| {
        let cluster = a.starts_with('-') && !a.starts_with("--") && a.len() > 1;
        (cluster && a.ends_with('R') && args.get(i + 1).is_some_and(|v| to_ssh(v)))
            || (a.starts_with("-R") && a.len() > 2 && to_ssh(&a[2..]))
            || (a.to_ascii_lowercase().contains("remoteforward")
                && (to_ssh(a) || args.get(i + 1).is_some_and(|v| to_ssh(v))))
    })
}

/// Whether a git credential helper value captures what git hands it: a shell snippet
/// (`!…`) that appends or writes to a file other than `/dev/null`, tees, or sends it, or
/// the `store` helper pointed at a temporary or hidden file.
fn credential_capture(value: &str) -> bool {
    if let Some(snippet) = value.strip_prefix('!') {
        let writes = snippet.match_indices('>').any(|(i, _)| {
            let before = snippet[..i].chars().next_back();
            let after = snippet[i + 1..].trim_start_matches('>').trim_start();
            !matches!(before, Some('2' | '&' | '>')) && !after.starts_with("/dev/null") && !after.starts_with('&')
        });
        let sends = ["curl", "wget", "nc ", "tee "].iter().any(|w| snippet.contains(w));
        return writes || sends;
    }
    value.starts_with("store")
        && value.split_once("--file").is_some_and(|(_, file)| {
            let file = file.trim_start_matches('=').trim();
            file.starts_with("/tmp") || file.starts_with("/dev/shm") || hides(file)
        })
}

/// Machine-wide security switches turned off.
pub(crate) fn check_safety(m: &mut Machine, name: &str, args: &[&str], whole: &str, line: usize) {
    let lower = whole.to_ascii_lowercase();
    let has = |w: &str| args.iter().any(|a| a.eq_ignore_ascii_case(w));
    let global = has("--global") || has("--system") || has("-g");
    // The directory a file server shares: `--directory DIR`, else where `cd` went.
    let served = args
        .iter()
        .position(|a| matches!(*a, "--directory" | "-d"))
        .and_then(|i| args.get(i + 1).map(|d| (*d).to_owned()))
        .or_else(|| {
            args.iter()
                .find_map(|a| a.strip_prefix("--directory=").map(str::to_owned))
        })
        .or_else(|| m.cwd.clone());
    let serves_home = served.as_deref().is_some_and(targets::sweeping_path);
    let finding = match name {
        n if (n.starts_with("python") || n == "py")
            && serves_home
            && (args
                .windows(2)
                .any(|w| w[0] == "-m" && matches!(w[1], "http.server" | "SimpleHTTPServer"))
                || args
                    .iter()
                    .any(|a| matches!(*a, "-mhttp.server" | "-mSimpleHTTPServer"))) =>
        {
            Some((
                Severity::High,
                "serves the home or a system directory over HTTP: keys and credentials in it can be downloaded by anyone who reaches the port",
            ))
        }
        // A credential helper that is a shell snippet writing or sending what git hands it.
        "git"
            if args.first() == Some(&"config")
                && lower.contains("credential.helper")
                && args
                    .iter()
                    .any(|a| credential_capture(a.trim_matches(|c| c == '"' || c == '\''))) =>
        {
            Some((
                Severity::High,
                "installs a git credential helper that copies or sends every password and token git hands it",
            ))
        }
        "git"
            if lower.contains("sslverify")
                && (lower.contains("false") || lower.contains(" 0"))
                && args.first() == Some(&"config") =>
        {
            Some((
                if global { Severity::High } else { Severity::Medium },
                "turns TLS certificate checks off for git",
            ))
        }
        // Hooks pointed at nothing: every pre-commit check (secret scanners, linters) is off.
        "git" if lower.contains("core.hookspath") && hooks_path_of(args).is_some_and(holds_no_hooks) => Some((
            if global { Severity::High } else { Severity::Medium },
            "points git's hooks at nothing: every pre-commit check, secret scanners included, stops running",
        )),
        // Git refuses to run a repository's own config for a directory another user owns;
        // `*` turns that check off for every directory on the machine.
        "git"
            if lower.contains("safe.directory")
                && (args.first() == Some(&"config")
                    && args.iter().any(|a| a.trim_matches(|c| c == '"' || c == '\'') == "*")
                    || args.iter().any(|a| {
                        a.trim_matches(|c| c == '"' || c == '\'').replace(['"', '\''], "") == "safe.directory=*"
                    }))
                && !args
                    .iter()
                    .any(|a| a.starts_with("--unset") || a.starts_with("--get") || *a == "--remove-section") =>
        {
            Some((
                if global { Severity::High } else { Severity::Medium },
                "trusts every directory's git configuration, whoever owns it (`safe.directory *`): \
                 a planted repository's hooks and settings then run",
            ))
        }
        "npm" | "yarn" | "pnpm" if lower.contains("strict-ssl") && lower.contains("false") => Some((
            Severity::High,
            "turns TLS certificate checks off for the package manager",
        )),
        "pip" | "pip3" | "uv" if lower.contains("config") && lower.contains("trusted-host") => Some((
            Severity::High,
            "tells pip to trust a host without TLS checks, for every later install",
        )),
        "conda" if lower.contains("ssl_verify") && lower.contains("false") => {
            Some((Severity::High, "turns TLS certificate checks off for conda"))
        }
        // The cluster's certificate no longer checked, written into the kubeconfig: every
        // later kubectl talks to whoever answers at that address.
        "kubectl" if skips_tls_verify(args) => Some(if args.contains(&"config") {
            (
                Severity::High,
                "turns TLS certificate checks off for the cluster in the kubeconfig: every later kubectl trusts whoever answers",
            )
        } else {
            (
                Severity::Medium,
                "talks to the cluster without checking its TLS certificate",
            )
        }),
        // Pod Security admission set to `privileged`, or its enforcement label removed: any
        // pod in the namespace may run with host access.
        "kubectl"
            if args.contains(&"label")
                && args.iter().any(|a| {
                    let a = a.to_ascii_lowercase();
                    a == "pod-security.kubernetes.io/enforce=privileged" || a == "pod-security.kubernetes.io/enforce-"
                }) =>
        {
            Some((
                Severity::Medium,
                "lifts Pod Security admission from the namespace: any pod in it may run privileged, with host access",
            ))
        }
        "kubectl" if lower.contains("clusterrolebinding") && lower.contains("cluster-admin") => {
            let broad = lower.contains(":default")
                || lower.contains("system:anonymous")
                || lower.contains("system:unauthenticated")
                || lower.contains("system:serviceaccounts")
                || lower.contains("system:authenticated");
            Some((
                if broad { Severity::High } else { Severity::Medium },
                "grants cluster-admin, full control of the cluster",
            ))
        }
        // A reverse tunnel to this machine's SSH server: anyone on the remote host can log
        // in here. (A tunnel to a development server is everyday work.)
        "ssh" | "autossh" if reverse_tunnel_to_ssh(args) => Some((
            Severity::High,
            "opens a reverse tunnel to this machine's SSH server: the remote host can log in here",
        )),
        "setenforce" if has("0") || has("permissive") => Some((Severity::High, "turns SELinux enforcement off")),
        "ufw" if has("disable") => Some((Severity::High, "turns the firewall off")),
        "systemctl"
            if (has("stop") || has("disable") || has("mask"))
                && [
                    "firewalld",
                    "ufw",
                    "apparmor",
                    "auditd",
                    "selinux",
                    "fail2ban",
                    "clamav",
                    "falcon-sensor",
                ]
                .iter()
                .any(|s| lower.contains(s)) =>
        {
            Some((Severity::High, "stops a security service"))
        }
        "iptables" | "ip6tables" if has("-F") || (has("-P") && has("ACCEPT")) => {
            Some((Severity::High, "opens the firewall"))
        }
        "spctl" if lower.contains("--master-disable") || lower.contains("--global-disable") => {
            Some((Severity::High, "turns Gatekeeper off"))
        }
        "csrutil" if has("disable") => Some((Severity::High, "turns System Integrity Protection off")),
        "chmod"
            if args.iter().any(|a| *a == "777" || *a == "a+rwx" || *a == "0777")
                && args.iter().any(|a| targets::sweeping_path(a)) =>
        {
            Some((Severity::High, "makes system or home directories writable by everyone"))
        }
        "apt" | "apt-get"
            if lower.contains("--allow-unauthenticated")
                || lower.contains("allowunauthenticated")
                || lower.contains("--allow-insecure") =>
        {
            Some((Severity::Medium, "installs packages without checking their signatures"))
        }
        "yum" | "dnf" | "rpm" if lower.contains("--nogpgcheck") || lower.contains("--nosignature") => {
            Some((Severity::Medium, "installs packages without checking their signatures"))
        }
        "set-mppreference" if lower.contains("disablerealtimemonitoring") => {
            Some((Severity::High, "turns Windows Defender off"))
        }
        _ => None,
    };
    if let Some((severity, what)) = finding {
        m.judge(safety_off(line, severity, format!("`{}` {what}", shorten(whole))));
    }
}

/// Destructive operations, judged by what they are aimed at.
pub(crate) fn check_destructive(
    m: &mut Machine,
    name: &str,
    args: &[&str],
    whole: &str,
    stdin: &Value,
    listed: Option<&Origin>,
    line: usize,
) {
    let has = |w: &str| args.contains(&w);
    // The scope is read only for commands that destroy something.
    // The environment chosen by name raises the scope to production; one that sounds
    // like a throwaway never lowers it (`use-context dev` and then another cluster).
    let chosen = if targets::scope_of(&m.chosen_environment) == Scope::Production {
        m.chosen_environment.as_str()
    } else {
        ""
    };
    let surroundings = format!("{} {} {chosen}", m.lead_in, m.scope_text);
    let scope = || targets::scope_of(&format!("{surroundings} {whole} {}", stdin.text));
    let judged = match name {
        "rm" => {
            let recursive = args.iter().any(|a| {
                a.starts_with('-') && !a.starts_with("--") && (a.contains('r') || a.contains('R'))
                    || *a == "--recursive"
            });
            let sweeping = args.iter().any(|a| !a.starts_with('-') && targets::sweeping_path(a));
            (recursive && sweeping).then(|| {
                let severity = if has("--no-preserve-root") {
                    Severity::Critical
                } else {
                    Severity::High
                };
                (severity, "deletes a system or home directory recursively".to_owned())
            })
        }
        // `find ~ -delete`, `find / -exec rm -rf {} +`: everything under the start is gone.
        "find"
            if args.first().is_some_and(|start| targets::sweeping_path(start))
                && (has("-delete")
                    || args
                        .windows(2)
                        .any(|w| matches!(w[0], "-exec" | "-execdir") && w[1] == "rm")) =>
        {
            Some((
                Severity::High,
                "deletes everything under a system or home directory".to_owned(),
            ))
        }
        "dd" if args
            .iter()
            .any(|a| a.starts_with("of=/dev/") && !a.starts_with("of=/dev/null")) =>
        {
            Some((Severity::High, "overwrites a disk device".to_owned()))
        }
        n if n.starts_with("mkfs") || n == "wipefs" => Some((Severity::High, "formats or wipes a disk".to_owned())),
        "git" if has("push") => {
            let force = force_flag(args) || args.iter().any(|a| a.starts_with('+') && a.len() > 1);
            // Every branch at once: `--all`, `--mirror`, a wildcard refspec of the local
            // branches (`+refs/heads/*:refs/heads/*`), or a forced `--prune`, which deletes
            // each remote branch the local repository lacks; the last two only to the shared
            // remote (`origin`, or none named): a mirror or backup remote of one's own, or a
            // fork synced from upstream's refs, is not everyone's history.
            let shared_remote = args
                .iter()
                .find(|a| !a.starts_with('-') && **a != "push")
                .is_none_or(|remote| *remote == "origin");
            let own_branches = |a: &&str| a.trim_start_matches('+').starts_with("refs/heads/*");
            let everything = has("--all")
                || has("--mirror")
                || shared_remote && (has("--prune") && force_flag(args) || args.iter().any(own_branches))
                || has("--delete") && args.iter().any(|a| matches!(*a, "main" | "master"));
            let main = args.iter().any(|a| {
                matches!(
                    a.trim_start_matches('+'),
                    "main" | "master" | "trunk" | "HEAD:main" | "HEAD:master"
                ) || a.ends_with(":main")
                    || a.ends_with(":master")
            });
            (force && (main || everything)).then(|| {
                let what = if main {
                    "force-pushes over a shared branch, rewriting everyone's history"
                } else {
                    "force-pushes over every branch of the remote (deleting those it lacks with --prune), rewriting everyone's history"
                };
                (Severity::High, what.to_owned())
            })
        }
        // Uncommitted (and, with `-x`, ignored) work thrown away in every repository a
        // glob reaches (`for d in ~/src/*/; do git -C "$d" reset --hard; done`).
        "git"
            if (has("reset") && has("--hard"))
                || (has("clean")
                    && !has("-n")
                    && !has("--dry-run")
                    && args.iter().any(|a| {
                        *a == "--force" || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
                    })) =>
        {
            let repositories = args
                .iter()
                .position(|a| *a == "-C")
                .and_then(|i| args.get(i + 1))
                .filter(|dir| {
                    dir.contains('*') && (dir.starts_with('~') || dir.starts_with('/') || dir.starts_with("$HOME"))
                });
            repositories.map(|dir| {
                (
                    Severity::High,
                    format!("throws away uncommitted work in every repository under {dir}"),
                )
            })
        }
        "gh" if (whole.contains("DELETE") || whole.contains("delete")) && whole.contains("protection") => {
            Some((Severity::High, "deletes branch protection".to_owned()))
        }
        "gh" if args.first() == Some(&"repo") && has("delete") => {
            Some((Severity::High, "deletes a repository".to_owned()))
        }
        // `terraform plan -destroy` only shows what a destroy would do.
        "terraform" | "tofu" | "pulumi"
            if (has("destroy") || whole.contains("-destroy")) && !has("plan") && !has("preview") =>
        {
            scoped(scope(), "destroys the infrastructure".to_owned())
        }
        "kubectl" if has("delete") => {
            // `--all` in one namespace (`-n rag`) is that namespace's; across namespaces,
            // or of namespaces, persistent volumes and nodes (which belong to the cluster
            // whatever `-n` says), it is the cluster's.
            let in_namespace = args.iter().any(|a| *a == "-n" || a.starts_with("--namespace"));
            let cluster_kind = args
                .iter()
                .any(|a| matches!(*a, "ns" | "namespace" | "namespaces" | "pv" | "node" | "nodes"));
            let all = (has("--all") && (has("-A") || has("--all-namespaces")))
                || has("--all") && (cluster_kind || !in_namespace && args.contains(&"pvc"));
            if all {
                Some((Severity::High, "deletes everything in the cluster".to_owned()))
            } else if args.iter().any(|a| matches!(*a, "ns" | "namespace" | "namespaces")) {
                scoped(scope(), "deletes a namespace and everything in it".to_owned())
            } else if has("--all") {
                scoped(scope(), "deletes every resource of a kind in a namespace".to_owned())
            } else {
                None
            }
        }
        "aws" if (has("rb") && has("--force")) || (has("rm") && has("--recursive")) => {
            let backups = whole.to_ascii_lowercase().contains("backup");
            match scope() {
                Scope::Unknown if backups => Some((Severity::High, "deletes a bucket of backups".to_owned())),
                scope => scoped(scope, "deletes a bucket's contents".to_owned()),
            }
        }
        "dropdb" => scoped(scope(), "drops a database".to_owned()),
        _ if let Some(deletion) = cloud_deletion(name, args, whole) => {
            let scope = scope();
            match (deletion.sweeping, scope) {
                (_, Scope::Throwaway) | (false, _) => scoped(scope, deletion.what),
                (true, Scope::Production) => Some((Severity::High, format!("{}, on production", deletion.what))),
                (true, Scope::Unknown) => Some((Severity::High, deletion.what)),
            }
        }
        _ => destructive_sql(whole)
            .or_else(|| destructive_sql(&stdin.text))
            .and_then(|what| scoped(scope(), what.to_owned())),
    };
    // Deleting what a listing of everything produced: no scope word makes that narrow.
    let deletes_listed = match name {
        "kubectl" | "oc" => has("delete"),
        "git" => {
            has("push") && (has("--delete") || has("-d") || args.iter().any(|a| a.starts_with(':') && a.len() > 1))
                || has("branch") && (has("-D") || has("-d"))
        }
        "gh" => has("delete"),
        "aws" => has("rb") || has("rm") || has("delete-bucket"),
        "gsutil" => has("rm") || has("rb"),
        "gcloud" | "az" => has("delete"),
        "rm" => true,
        _ => false,
    };
    let dry_run = args
        .iter()
        .any(|a| a.starts_with("--dry-run") || *a == "-n" && name != "kubectl");
    let judged = match listed {
        Some(listing) if deletes_listed && !dry_run => {
            let what = format!("deletes {}, not a target it names", listing.what);
            // Every namespace, node or volume of a cluster, every branch, bucket or
            // repository: no word around it makes that a throwaway. Every pod of one
            // namespace weighs like `kubectl delete pods --all`.
            if targets::sweeps_everything(&listing.what) {
                Some((Severity::High, what))
            } else {
                scoped(scope(), what)
            }
        }
        _ => judged,
    };
    report_destructive(m, judged, whole, line);
}

/// What a cloud, cluster or service command deletes, and whether the deletion sweeps:
/// everything of a kind (`--all`, `_all`), backups, or without the final snapshot or
/// recovery window that would let anyone undo it.
struct Deletion {
    what: String,
    sweeping: bool,
}

/// Deletions by cloud and cluster tools (`aws rds delete-db-instance`, `gcloud sql
/// instances delete`, `az group delete`, `gsutil rm -r`, `helm uninstall`), an HTTP
/// `DELETE` of everything.
fn cloud_deletion(name: &str, args: &[&str], whole: &str) -> Option<Deletion> {
    let has = |w: &str| args.contains(&w);
    let lower = whole.to_ascii_lowercase();
    let no_undo = [
        "--skip-final-snapshot",
        "--force-delete-without-recovery",
        "--delete-automated-backups",
    ]
    .iter()
    .any(|f| lower.contains(f));
    let deleting_verb = |a: &&str| {
        matches!(*a, "delete" | "destroy" | "remove" | "purge" | "uninstall" | "rb")
            || a.starts_with("delete-")
            || a.starts_with("terminate-")
            || a.starts_with("remove-")
            || a.starts_with("drop-")
    };
    // The verb is a subcommand (`aws rds delete-db-instance`, `gcloud sql instances
    // delete`), not any argument (`--function-name delete-expired-sessions`): the words
    // before the first flag.
    let subcommands: Vec<&str> = args
        .iter()
        .copied()
        .take_while(|a| !a.starts_with('-'))
        .take(4)
        .collect();
    let what = match name {
        "aws" | "gcloud" | "az" | "doctl" | "heroku" | "fly" | "flyctl" | "vercel" | "supabase" | "firebase"
        | "linode-cli" | "hcloud" | "oci" | "ibmcloud"
            if subcommands.iter().any(deleting_verb) && !subcommands.iter().any(|a| a.contains("message")) =>
        {
            let service = subcommands.first().copied().unwrap_or(name);
            format!("deletes {name} {service} resources")
        }
        "gsutil"
            if has("rm")
                && args
                    .iter()
                    .any(|a| a.starts_with("-r") || *a == "-R" || a.starts_with("-m")) =>
        {
            "deletes a bucket's contents".to_owned()
        }
        "helm" if has("uninstall") || has("delete") => "uninstalls a release".to_owned(),
        "curl" | "http" | "xh"
            if (lower.contains("-x delete") || lower.contains("--request delete") || has("DELETE"))
                && (lower.contains("/_all") || lower.contains("/*")) =>
        {
            "deletes every index or record the service holds".to_owned()
        }
        _ => return None,
    };
    let everything = has("--all") || lower.contains("/_all") || lower.contains("/*");
    // A bucket or storage of backups emptied, not one named snapshot deleted.
    let backups = lower.contains("backup") && (what.contains("bucket") || what.contains("storage"));
    Some(Deletion {
        sweeping: everything || no_undo || backups,
        what: if no_undo {
            format!("{what} with no way back (final snapshot or recovery skipped)")
        } else if backups {
            format!("{what}: backups")
        } else {
            what
        },
    })
}

/// Judges SQL statements (a `sql` code block, a here-document fed to `psql`) that destroy
/// data, by the scope the statement and its lead-in name.
pub(crate) fn destructive_statements(m: &mut Machine, text: &str, line: usize) {
    let context = format!("{} {text}", m.lead_in);
    let judged = destructive_sql(text).and_then(|what| scoped(targets::scope_of(&context), what.to_owned()));
    report_destructive(m, judged, text, line);
}

pub(crate) fn report_destructive(m: &mut Machine, judged: Option<(Severity, String)>, whole: &str, line: usize) {
    if let Some((severity, what)) = judged {
        m.judge(Judgment {
            line,
            rule: "flow.destructive",
            category: "destructive",
            severity,
            message: format!("`{}` {what}", shorten(whole)),
            hint: "aim destructive steps at a named scratch target, ask for confirmation, and never at production or everything",
            urls: Vec::new(),
            tool: None,
        });
    }
}

/// A destructive operation's severity by the scope it names: production is `high`, an
/// unnamed target `medium` (a reviewer's question), a throwaway target `info` (the model
/// looked and found it fine: a pattern rule's alarm on the same line is withdrawn).
pub(crate) fn scoped(scope: Scope, what: String) -> Option<(Severity, String)> {
    match scope {
        Scope::Production => Some((Severity::High, format!("{what}, on production"))),
        Scope::Unknown => Some((Severity::Medium, what)),
        Scope::Throwaway => Some((Severity::Info, format!("{what}, on a throwaway target"))),
    }
}

/// SQL and store commands that destroy data wholesale.
pub(crate) fn destructive_sql(text: &str) -> Option<&'static str> {
    static SQL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)(?-u:\b)(drop\s+(?:schema|database)(?-u:\b)|drop\s+table(?-u:\b)[^;]*(?-u:\b)cascade|truncate\s+(?:table\s+)?[\w.]+[^;]*cascade|flushall|flushdb|dropdatabase\s*\(|delete\s+from\s+[\w.\x22]+\s*(?:;|$|'|\x22))")
            .expect("valid destructive SQL pattern")
    });
    let found = SQL.find(text)?.as_str().to_ascii_lowercase();
    Some(if found.starts_with("drop schema") {
        "drops a schema and everything in it"
    } else if found.starts_with("drop database") || found.starts_with("dropdatabase") {
        "drops a database"
    } else if found.starts_with("flush") {
        "erases every key in the store"
    } else if found.starts_with("delete") {
        "deletes every row of a table (no WHERE)"
    } else {
        "erases tables and what depends on them"
    })
}

pub(crate) fn shorten(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 100 {
        one.chars().take(100).collect::<String>() + "…"
    } else {
        one
    }
}

/// Whether git's arguments force the push: `--force`, `-f`, or `-f` among combined short
/// flags (`-fu`).
fn force_flag(args: &[&str]) -> bool {
    args.iter().any(|a| {
        *a == "--force"
            || a.starts_with('-')
                && !a.starts_with("--")
                && a.len() > 1
                && a[1..].chars().all(|c| c.is_ascii_alphabetic())
                && a.contains('f')
    })
}
