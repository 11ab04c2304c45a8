//! What each program does with its input, in the model: fetchers make remote content,
//! interpreters run what they are given, senders move data off the machine, writers put
//! it somewhere it outlives the session; and the judgments those capabilities earn when
//! they meet (remote content → an interpreter, a secret → a network sink).

use base64::Engine as _;

use super::flow::{Judgment, Origin, Taint, Value, human};
use super::packages;
use super::script;
use super::shell::{Machine, decode_escapes};
use super::targets::{self, Persistent, Scope};
use crate::Severity;

mod checks;
mod network;
mod persist;
mod text;

pub(crate) use checks::*;
pub(crate) use network::*;
pub(crate) use persist::*;
pub(crate) use text::*;

/// A simple command, its words expanded.
#[derive(Debug)]
pub struct Call {
    /// Program and arguments.
    pub words: Vec<Value>,
    /// `NAME=value` prefixes (the command's own environment).
    pub assigns: Vec<(String, Value)>,
    /// What reaches its standard input.
    pub stdin: Option<Value>,
    /// File line (0-based).
    pub line: usize,
}

/// The program a call runs after wrappers (`sudo -E env X=1 bash` → `bash`): its index in
/// `words`, and the environment settings the wrappers added.
fn unwrap(words: &[Value]) -> (usize, Vec<(String, String)>) {
    let mut i = 0;
    let mut env = Vec::new();
    while i < words.len() {
        let name = program_name(&words[i].text);
        if !targets::WRAPPERS.contains(&name.as_str()) && name != "busybox" && name != "xargs" {
            break;
        }
        // `env` alone prints the environment; `time` alone is a keyword: only a wrapper
        // with a program after it wraps anything.
        let wraps = words[i + 1..]
            .iter()
            .any(|w| !w.text.starts_with('-') && !w.text.contains('='));
        if !wraps {
            break;
        }
        i += 1;
        // Skip the wrapper's own options (and the values some of them take).
        while i < words.len() {
            let w = &words[i].text;
            if name == "env" && !w.starts_with('-') && w.contains('=') {
                if let Some((n, v)) = w.split_once('=') {
                    env.push((n.to_owned(), v.to_owned()));
                }
                i += 1;
            } else if w.starts_with('-') {
                let takes_value = matches!(
                    (name.as_str(), w.as_str()),
                    ("sudo", "-u" | "-g" | "-C" | "-p" | "-r" | "-t" | "-U" | "-h")
                        | ("nice", "-n")
                        | ("env", "-u" | "-C" | "-S")
                        | ("timeout", "-s" | "-k" | "--signal" | "--kill-after")
                        | ("xargs", "-I" | "-n" | "-P" | "-d" | "-L" | "-s" | "-E")
                        | ("ionice", "-c" | "-n")
                );
                i += if takes_value { 2 } else { 1 };
            } else if name == "timeout" && w.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                i += 1;
            } else {
                break;
            }
        }
    }
    (i, env)
}

/// A program's name as the model matches it: the last path segment, lowercase.
pub fn program_name(word: &str) -> String {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    base.to_ascii_lowercase()
}

/// Follows one command: records its judgments and returns what it prints.
pub fn invoke(m: &mut Machine, call: Call) -> Value {
    let line = call.line;
    for (name, value) in &call.assigns {
        if targets::tls_off_setting(name, &value.text) {
            m.judge(safety_off(
                line,
                Severity::Medium,
                format!(
                    "{name}={} turns TLS certificate checks off for this command",
                    value.text
                ),
            ));
        }
    }
    let (at, env) = unwrap(&call.words);
    for (name, value) in &env {
        if targets::tls_off_setting(name, value) {
            m.judge(safety_off(
                line,
                Severity::Medium,
                format!("{name}={value} turns TLS certificate checks off for this command"),
            ));
        }
    }
    let Some(program) = call.words.get(at) else {
        return call.stdin.unwrap_or_default();
    };
    let name = program_name(&program.text);
    let args: Vec<Value> = call.words[at + 1..].to_vec();
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let stdin = call.stdin.unwrap_or_default();
    let whole = call.words[at..]
        .iter()
        .map(|w| w.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");

    if program.taint.remote.is_some()
        || program.text.contains("/dev/fd/") && m.read_file(&program.text, line).taint.remote.is_some()
    {
        remote_code(m, line, &program.taint, "is run as a program", true);
    }
    check_agent_flags(m, &name, &whole, line);
    if let Some((ecosystem, packages)) = packages::installed_by(&name, &texts) {
        for package in packages {
            if let Some(popular) = packages::lookalike(ecosystem, &package) {
                m.judge(typosquat(line, &package, popular));
            }
        }
    }
    if let Some(address) = runner_address(&name, &texts) {
        // A repository pinned to a tag or commit (`git+https://…/ruff@0.5.0`) runs what
        // a reviewer can read; an unpinned address runs whatever it serves that day.
        let path = address.split_once("://").map_or(address.as_str(), |(_, rest)| rest);
        let pinned = path
            .rsplit_once('@')
            .is_some_and(|(_, rev)| !rev.is_empty() && !rev.contains('/'))
            || path.contains('#');
        if pinned {
            m.judge(Judgment {
                line,
                rule: "flow.remote-code",
                category: "remote-code-execution",
                severity: Severity::Medium,
                message: format!("`{name}` runs the package at {address}, pinned to a revision"),
                hint: "prefer a published package with a version; check the pinned revision is the one reviewed",
                urls: vec![address.clone()],
                tool: None,
            });
        } else {
            let taint = Taint {
                remote: Some(Origin {
                    line,
                    what: format!("the package at {address}"),
                }),
                urls: vec![address],
                ..Taint::default()
            };
            remote_code(m, line, &taint, &format!("is run by `{name}`"), true);
        }
    }
    // `git add -f .env`: a secret file staged for the next commit (ignored files need the
    // force) is as good as copied into the repository.
    if name == "git" {
        // The subcommand, after git's own options (`git -C . add`).
        let mut rest = texts.as_slice();
        while let Some((first, tail)) = rest.split_first() {
            match *first {
                "-C" | "-c" | "--git-dir" | "--work-tree" => rest = tail.get(1..).unwrap_or(&[]),
                o if o.starts_with('-') => rest = tail,
                _ => break,
            }
        }
        match rest {
            ["add" | "stage", paths @ ..] => {
                for path in paths.iter().filter(|a| !a.starts_with('-')) {
                    if targets::secret_path(path) {
                        m.staged_secret.get_or_insert_with(|| Origin {
                            line,
                            what: (*path).to_owned(),
                        });
                    }
                }
            }
            ["rm", flags @ ..] if flags.contains(&"--cached") => m.staged_secret = None,
            ["restore", flags @ ..] if flags.contains(&"--staged") => m.staged_secret = None,
            ["reset", ..] => m.staged_secret = None,
            _ => {}
        }
    }
    if name == "git"
        && texts.contains(&"push")
        && let Some(secret) = m.copied_secret.clone().or_else(|| m.staged_secret.clone())
    {
        m.judge(Judgment {
            line,
            rule: "flow.secret-exfiltration",
            category: "exfiltration",
            severity: Severity::Critical,
            message: format!(
                "pushes the repository after {} was added to it (line {}): the secret leaves with the commit",
                secret.what.trim(),
                human(secret.line)
            ),
            hint: "a skill must never send keys, tokens, credential files or the environment anywhere; ask the user to provide what a service needs",
            urls: Vec::new(),
            tool: None,
        });
    }
    check_safety(m, &name, &texts, &whole, line);
    // A deletion fed a listing of everything (`kubectl get ns | grep -v kube- | xargs
    // kubectl delete ns`) deletes everything but the exceptions.
    let listed = stdin
        .taint
        .every
        .clone()
        .or_else(|| args.iter().find_map(|a| a.taint.every.clone()));
    check_destructive(m, &name, &texts, &whole, &stdin, listed.as_ref(), line);
    if let Some(what) = targets::lists_everything(&name, &texts) {
        let mut out = Value::literal(format!("$({name})\n"));
        out.taint.every = Some(Origin { line, what });
        return out;
    }

    if let Some(what) = targets::prints_secrets(&name, &texts) {
        let mut out = Value::literal("");
        out.taint.secret = Some(Origin {
            line,
            what: what.to_owned(),
        });
        // One API token printed for the command that needs it (`gh auth token`,
        // `gcloud auth print-access-token`) is used like a token variable; stores, keys and
        // environment dumps are not.
        out.taint.weak_secret = prints_one_token(&name);
        if name != "gh" || texts.first().is_none_or(|a| *a != "gist") {
            return out;
        }
    }
    // The environment later commands act on, chosen by name (`terraform workspace select
    // prod`, `kubectl config use-context prod-eu`): a destructive step after it is aimed
    // there.
    let after = |n: usize| texts.iter().skip(n).find(|t| !t.starts_with('-'));
    let chosen = match name.as_str() {
        "terraform" | "tofu"
            if texts.starts_with(&["workspace", "select"]) || texts.starts_with(&["workspace", "new"]) =>
        {
            after(2)
        }
        "kubectl" if texts.starts_with(&["config", "use-context"]) => after(2),
        "kubectx" | "kubens" => after(0),
        "gcloud" if texts.starts_with(&["config", "set", "project"]) => after(3),
        "az" if texts.starts_with(&["account", "set"]) => texts.last(),
        "pulumi" if texts.starts_with(&["stack", "select"]) => after(2),
        _ => None,
    };
    if let Some(chosen) = chosen {
        m.chosen_environment = chosen.chars().take(256).collect();
    }
    match name.as_str() {
        "cd" | "pushd" | "chdir" | "set-location" | "sl" => {
            // `cd` alone goes home; `cd -` goes back to a place the model does not track.
            match texts.iter().find(|t| !t.starts_with('-')) {
                Some(dir) => m.cwd = Some((*dir).to_owned()),
                None if texts.is_empty() => m.cwd = Some("~".to_owned()),
                None => m.cwd = None,
            }
            if texts.iter().any(|t| {
                let t = t.trim_matches(|c| c == '"' || c == '\'');
                t.starts_with(['~', '/', '$', '\\']) || t.contains(':') || t.contains("..")
            }) {
                m.left_project = true;
            }
            Value::default()
        }
        "echo" => echo(&args),
        "printf" if texts.first() == Some(&"-v") && args.len() > 2 => {
            // `printf -v NAME FORMAT …` sets a variable instead of printing.
            let value = printf(&args[2..]);
            assign(m, texts[1], value, false, false, line);
            Value::default()
        }
        "printf" => printf(&args),
        "read" => {
            if let Some(var) = texts.iter().rev().find(|a| !a.starts_with('-')) {
                m.vars.insert((*var).to_owned(), stdin);
            }
            Value::default()
        }
        "mapfile" | "readarray" => {
            // `mapfile -t keys < <(ls ~/.ssh/id_*)`: each line of the input becomes an
            // element of the array (the last operand; `-d`, `-n`, `-O`, `-s`, `-u`, `-C`
            // and `-c` take a value).
            let mut operands = Vec::new();
            let mut skip_value = false;
            for text in &texts {
                if skip_value {
                    skip_value = false;
                } else if let Some(option) = text.strip_prefix('-') {
                    skip_value = matches!(option, "d" | "n" | "O" | "s" | "u" | "C" | "c");
                } else {
                    operands.push(*text);
                }
            }
            let array = operands.last().copied().unwrap_or("MAPFILE");
            let elements = Value {
                text: stdin
                    .text
                    .lines()
                    .collect::<Vec<_>>()
                    .join(&super::shell::ARRAY_MARK.to_string()),
                taint: stdin.taint,
            };
            assign(m, array, elements, false, false, line);
            Value::default()
        }
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            for arg in &args {
                if let Some((n, v)) = arg.text.split_once('=') {
                    let value = Value {
                        text: v.to_owned(),
                        taint: arg.taint.clone(),
                    };
                    assign(m, n, value, false, name == "export", line);
                }
            }
            Value::default()
        }
        "base64" | "base32" | "b64" if texts.iter().any(|a| matches!(*a, "-d" | "--decode" | "-D" | "-di")) => {
            let input = input_of(m, &args, &stdin, line);
            let decoded = if name == "base32" {
                None
            } else {
                decode_base64(&input.text)
            };
            Value {
                text: decoded.unwrap_or_default(),
                taint: input.taint,
            }
        }
        "rev" => {
            let input = input_of(m, &args, &stdin, line);
            Value {
                text: input
                    .text
                    .lines()
                    .map(|l| l.chars().rev().collect::<String>())
                    .collect::<Vec<_>>()
                    .join("\n"),
                taint: input.taint,
            }
        }
        "xxd" if texts.contains(&"-r") => {
            let input = input_of(m, &args, &stdin, line);
            Value {
                text: decode_hex(&input.text).unwrap_or_default(),
                taint: input.taint,
            }
        }
        "tr" if texts.iter().any(|a| a.contains("N-ZA-M") || a.contains("n-za-m")) => Value {
            text: rot13(&stdin.text),
            taint: stdin.taint,
        },
        "tee" => {
            let append = texts.iter().any(|a| matches!(*a, "-a" | "--append"));
            for path in texts.iter().filter(|a| !a.starts_with('-')) {
                write(m, path, stdin.clone(), append, line);
            }
            stdin
        }
        "cp" | "mv" | "install" | "ln" | "ditto" => {
            let paths: Vec<&str> = texts.iter().copied().filter(|a| !a.starts_with('-')).collect();
            if let Some((dest, sources)) = paths.split_last() {
                let mut content = Value::default();
                for source in sources {
                    content.push(&m.read_file(source, line));
                }
                let in_project = !dest.starts_with(['/', '~', '$']) && !dest.contains("..");
                if in_project
                    && !content.taint.weak_secret
                    && let Some(secret) = &content.taint.secret
                {
                    m.copied_secret.get_or_insert_with(|| secret.clone());
                }
                write(m, dest, content, false, line);
            }
            Value::default()
        }
        "sed" if texts.iter().any(|a| a.starts_with("-i") || *a == "--in-place") => {
            let script = texts.iter().find(|a| !a.starts_with('-')).copied().unwrap_or("");
            for path in texts.iter().filter(|a| !a.starts_with('-')).skip(1) {
                write(m, path, Value::literal(script), true, line);
            }
            Value::default()
        }
        "tar" | "zip" | "7z" | "7za" | "gzip" | "bzip2" | "xz" | "zstd" | "gpg" | "openssl"
            if name != "openssl" || texts.first() == Some(&"enc") =>
        {
            archive(m, &name, &args, &stdin, line)
        }
        "source" | "." => {
            if let Some(file) = args.first() {
                let content = m.read_file(&file.text, line);
                let mut taint = content.taint.clone();
                taint.join(&file.taint);
                if taint.remote.is_some() {
                    remote_code(m, line, &taint, "is loaded into the shell with `source`", false);
                }
                if !content.text.is_empty() {
                    m.run_nested(&content.text, line);
                } else {
                    let path = targets::normalize_path(&file.text);
                    if let Some(library) = m.shipped.clone().library(&path) {
                        m.load_library(&path, library, line);
                    }
                }
            }
            Value::default()
        }
        "eval" => {
            let mut code = Value::default();
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    code.text.push(' ');
                }
                code.push(arg);
            }
            if code.taint.remote.is_some() {
                remote_code(m, line, &code.taint, "is run with `eval`", false);
            }
            m.run_nested(&code.text, line)
        }
        "crontab" => {
            if texts.iter().any(|a| *a == "-l" || *a == "-r" || *a == "-e") && !texts.contains(&"-") {
                return Value::default();
            }
            let content = match texts.iter().find(|a| !a.starts_with('-')) {
                Some(file) => m.read_file(file, line),
                None => stdin,
            };
            persist(m, "crontab", Persistent::Scheduled, &content, line);
            Value::default()
        }
        "at" | "batch" | "schtasks" if scheduling(&name, &texts, &stdin) => {
            // `schtasks /create … /tr COMMAND`: the task's command is an argument.
            let task = (name == "schtasks")
                .then(|| texts.iter().position(|a| a.eq_ignore_ascii_case("/tr")))
                .flatten()
                .and_then(|i| args.get(i + 1));
            persist(m, &name, Persistent::Scheduled, task.unwrap_or(&stdin), line);
            Value::default()
        }
        n if targets::FETCHERS.contains(&n) => fetch(m, n, &args, &stdin, line),
        n if targets::SHELLS.contains(&n) => {
            shell(m, n, &args, &stdin, line);
            Value::default()
        }
        n if targets::code_flags(n).is_some() => {
            interpreter(m, n, &args, &stdin, line);
            Value::default()
        }
        n if targets::SENDERS.contains(&n) || matches!(n, "aws" | "gsutil" | "az" | "gcloud") => {
            send(m, n, &args, &stdin, line);
            Value::default()
        }
        _ => {
            // An executed file that a download wrote.
            if program.text.contains('/') {
                let content = m.read_file(&program.text, line);
                if content.taint.remote.is_some() {
                    remote_code(m, line, &content.taint, "is run as a program", true);
                }
                // A script the commands wrote: follow what it says.
                if !content.text.trim().is_empty() && !content.text.starts_with("$(") {
                    m.run_nested(&content.text, line);
                }
            }
            // Any other program: a filter of its input and of the files it is given.
            let mut out = Value::default();
            out.taint.join(&stdin.taint);
            // A search keeps what matches (no longer everything); `grep -v` drops what
            // matches (everything but the exceptions).
            let inverted = texts
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('v'))
                || texts.contains(&"--invert-match");
            let searches = matches!(
                name.as_str(),
                "grep" | "egrep" | "fgrep" | "rg" | "select-string" | "findstr" | "head"
                    // Pickers: the user chooses what goes on.
                    | "fzf" | "sk" | "peco" | "percol" | "gum"
            ) && !inverted;
            // A filter program with a condition keeps what meets it (`awk '$5=="Released"'`,
            // `jq '.items[] | select(…)'`, `sed -n '/cert-manager/p'`).
            let selects = matches!(name.as_str(), "awk" | "gawk" | "mawk" | "jq" | "yq" | "sed" | "perl")
                && texts.iter().any(|t| {
                    t.contains("==")
                        || t.contains("!=")
                        || t.contains("select(")
                        || t.contains(" ~ ")
                        || (t.starts_with('/') || t.contains(" /") || t.contains("$0 ~"))
                        || (name == "sed" && t.ends_with("/p"))
                });
            if searches || selects {
                out.taint.every = None;
            }
            // `cat FILE…` prints the files: when the model knows their text (written
            // earlier, or shipped with the skill), that text is what it prints.
            let prints_files = matches!(name.as_str(), "cat" | "type" | "get-content" | "gc");
            let mut printed = String::new();
            for arg in &args {
                if !arg.text.starts_with('-') && arg.text.contains(['/', '.', '~']) {
                    let file = m.read_file(&arg.text, line);
                    out.taint.join(&file.taint);
                    if prints_files {
                        printed.push_str(&file.text);
                    }
                }
                out.taint.join(&arg.taint);
            }
            // What it prints is unknown: keep a stand-in, so a path built from it is not
            // mistaken for an empty (or a sweeping) one.
            out.text = if !printed.trim().is_empty() {
                printed
            } else if stdin.text.is_empty() {
                format!("$({name})\n")
            } else {
                stdin.text
            };
            out
        }
    }
}

/// Whether the secret program `name` prints is one API token for the command that needs
/// it (`gh auth token`, `gcloud auth print-access-token`), used like a token variable;
/// stores, keys and environment dumps are not.
pub(crate) fn prints_one_token(name: &str) -> bool {
    matches!(name, "gh" | "gcloud" | "az" | "op" | "vault" | "pass")
}

/// Whether `at`, `batch` or `schtasks` is really scheduling something (not the English
/// word at the start of a line in a code block).
fn scheduling(name: &str, args: &[&str], stdin: &Value) -> bool {
    match name {
        "schtasks" => args.iter().any(|a| a.eq_ignore_ascii_case("/create")),
        "batch" => args.is_empty() && !stdin.text.trim().is_empty(),
        _ => {
            let time = args.first().is_some_and(|a| {
                a.starts_with(|c: char| c.is_ascii_digit() || c == '+')
                    || matches!(
                        a.to_ascii_lowercase().as_str(),
                        "now" | "noon" | "midnight" | "teatime" | "tomorrow" | "-f" | "-t"
                    )
            });
            time && (!stdin.text.trim().is_empty() || args.contains(&"-f"))
        }
    }
}

/// A package one typo away from a popular one.
pub fn typosquat(line: usize, package: &str, popular: &str) -> Judgment {
    supply_chain(
        line,
        format!(
            "installs `{package}`, one typo away from the popular package `{popular}`: a typosquat runs its own code at install time"
        ),
        "install the package by its exact, well-known name, pinned to a version",
    )
}

/// An address imitating a package index or image registry.
pub fn index_lookalike(line: usize, host: &str, official: &str) -> Judgment {
    supply_chain(
        line,
        format!(
            "points at `{host}`, a look-alike of the package index `{official}`: whatever is installed from it is the imitator's"
        ),
        "install from the index's real address (or the team's own mirror, named as such)",
    )
}

/// A `flow.typosquat` judgment: what is installed is not what its name suggests.
fn supply_chain(line: usize, message: String, hint: &'static str) -> Judgment {
    Judgment {
        line,
        rule: "flow.typosquat",
        category: "supply-chain",
        severity: Severity::High,
        message,
        hint,
        urls: Vec::new(),
        tool: None,
    }
}

/// Sets a variable; `export`ed TLS switches are judged.
pub fn assign(m: &mut Machine, name: &str, value: Value, append: bool, exported: bool, line: usize) {
    if exported && targets::tls_off_setting(name, &value.text) {
        m.judge(safety_off(
            line,
            Severity::Medium,
            format!(
                "export {name}={} turns TLS certificate checks off for everything this shell runs",
                value.text
            ),
        ));
    }
    // A variable named for a service's token holds one token, wherever it was read from
    // (`GITHUB_TOKEN=$(grep ^GITHUB_TOKEN= ~/.hermes/.env …)`): it is judged like one, by
    // the service it is named for. A generic name (`SECRET=$(cat ~/.ssh/id_rsa)`) keeps
    // what it holds.
    let mut value = value;
    if targets::secret_variable(name)
        && service_of(&format!("${name}")).is_some()
        && let Some(origin) = value.taint.secret.as_mut()
    {
        origin.what = format!("${name}");
        value.taint.weak_secret = true;
    }
    let value = match (append, m.vars.get(name)) {
        (true, Some(old)) => {
            let mut joined = old.clone();
            joined.push(&value);
            joined
        }
        _ => value,
    };
    m.vars.insert(name.to_owned(), value);
}

/// Records `content` written to `path` and judges where it went.
pub fn write(m: &mut Machine, path: &str, content: Value, append: bool, line: usize) {
    if let Some(kind) = targets::persistent(path) {
        persist(m, path, kind, &content, line);
    } else {
        dropped_script(m, path, &content, line);
    }
    let key = targets::normalize_path(path);
    let stored = match (append, m.files.get(&key)) {
        (true, Some(old)) => {
            let mut joined = old.clone();
            joined.push(&content);
            joined
        }
        _ => content,
    };
    m.files.insert(key, stored);
}

/// A script a command writes (`cat > helper.py <<'PY' … PY`) is there to be run: what it
/// would do counts where it is written, as if the skill held the file.
fn dropped_script(m: &mut Machine, path: &str, content: &Value, line: usize) {
    let text = content.text.trim_start();
    let Some(language) = script::Language::of_path(path, text.lines().next().unwrap_or("")) else {
        return;
    };
    if text.is_empty() || !m.may_probe() {
        return;
    }
    let mut probe = m.probe();
    script::follow(&mut probe, language, &content.text, &[line], true);
    m.absorb(&probe);
    for mut judgment in probe.judgments.into_iter().filter(|j| j.severity >= Severity::Medium) {
        judgment.message = format!("the script it writes to {path}: {}", judgment.message);
        m.judge(judgment);
    }
}

/// The address a package runner fetches the code it runs from (`npx https://…/pkg.tgz`,
/// `uvx --from git+https://…`, `pipx run --spec https://…`, `pnpm dlx https://…`): a
/// download run as code, whatever the runner's name. Only the package it runs counts:
/// arguments after it are the package's own (`npx tool capture https://site`).
fn runner_address(name: &str, texts: &[&str]) -> Option<String> {
    let skip = match name {
        "npx" | "bunx" | "uvx" => 0,
        "pipx" if texts.first() == Some(&"run") => 1,
        "pnpm" | "yarn" if texts.first() == Some(&"dlx") => 1,
        "npm" if matches!(texts.first(), Some(&"exec") | Some(&"x")) => 1,
        "uv" if texts.first() == Some(&"tool") && texts.get(1) == Some(&"run") => 2,
        _ => return None,
    };
    const SPEC_FLAGS: [&str; 5] = ["--from", "--spec", "-p", "--package", "--with"];
    let address = |t: &str| t.contains("://").then(|| t.trim_start_matches("git+").to_owned());
    let mut rest = texts.iter().skip(skip);
    while let Some(t) = rest.next() {
        if SPEC_FLAGS.contains(t) {
            if let Some(found) = rest.next().and_then(|v| address(v)) {
                return Some(found);
            }
        } else if let Some((flag, value)) = t.split_once('=')
            && SPEC_FLAGS.contains(&flag)
        {
            if let Some(found) = address(value) {
                return Some(found);
            }
        } else if *t == "--" {
            continue;
        } else if !t.starts_with('-') {
            return address(t);
        }
    }
    None
}
