//! Writes that outlive the session: what was written where, and whether the text is an
//! attack (a download, a secret, a hook) or a setting.

use super::*;

/// Text that, written somewhere that runs later, makes it an attack rather than a setting.
pub(crate) fn suspicious_payload(m: &mut Machine, content: &Value, line: usize) -> Option<String> {
    if content.taint.remote.is_some() {
        return Some("downloaded content".to_owned());
    }
    if content.taint.secret.is_some() && !content.taint.weak_secret {
        return Some("a secret".to_owned());
    }
    let text = &content.text;
    let lower = text.to_ascii_lowercase();
    for (needle, what) in [
        ("prompt_command", "a PROMPT_COMMAND hook (runs before every prompt)"),
        ("ld_preload", "LD_PRELOAD"),
        ("/dev/tcp/", "a network connection"),
        ("nopasswd: all", "passwordless sudo for every command"),
        ("alias sudo=", "an alias that wraps sudo"),
        ("base64 -d", "a decoded payload"),
        ("base64 --decode", "a decoded payload"),
    ] {
        if lower.contains(needle) {
            return Some(what.to_owned());
        }
    }
    if targets::APPROVALS_OFF.is_match(text) {
        return Some("a setting that turns the agent's approvals off".to_owned());
    }
    if text.trim().is_empty() || m.judgments.len() > 10_000 {
        return None;
    }
    // Follow the written text as shell: does it fetch, run or send anything? Crontab
    // lines lose their schedule, units keep their `Exec…=` commands.
    let commands = runnable_part(text);
    if !m.may_probe() {
        return None;
    }
    let mut probe = m.probe();
    probe.run_nested(&commands, line);
    m.absorb(&probe);
    let fetches = lower.contains("curl ")
        || lower.contains("wget ")
        || lower.contains("invoke-webrequest")
        || lower.contains("iwr ");
    let found = probe
        .judgments
        .iter()
        .find(|j| j.severity >= Severity::Medium)
        .map(|j| j.message.clone());
    found.or_else(|| fetches.then(|| "a download".to_owned()))
}

/// The commands inside text written to a scheduler or service: crontab lines without
/// their five schedule fields (or `@reboot`), a unit's `ExecStart=`-style values; other
/// text as it is.
pub(crate) fn runnable_part(text: &str) -> String {
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some((key, value)) = t.split_once('=')
            && key.starts_with("Exec")
        {
            out.push(value.trim_start_matches(['-', '@', '+', '!']).to_owned());
        } else if t.starts_with('@') {
            out.push(t.split_once(' ').map_or("", |(_, rest)| rest).to_owned());
        } else if t
            .split_whitespace()
            .take(5)
            .all(|f| f.chars().all(|c| c.is_ascii_digit() || "*/,-".contains(c)))
            && t.split_whitespace().count() > 5
        {
            out.push(t.split_whitespace().skip(5).collect::<Vec<_>>().join(" "));
        } else {
            out.push(line.to_owned());
        }
    }
    out.join("\n")
}

/// Whether a write to an agent-instructions file is a project's own conventions rather
/// than planted orders: a file of the project (a relative path, not the user's home or an
/// agent's global memory), text the model can read in full (no variable, no download; a
/// file made where the model cannot see, copied or linked in, is unread text: planted
/// orders arrive that way), no payload, and no instruction of the intent lexicon (ignore
/// instructions, hide from the user, push around review, skip checks, …).
fn plain_project_instructions(target: &str, content: &Value, payload: Option<&str>) -> bool {
    let t = target.trim_matches(|c| c == '"' || c == '\'');
    let in_project = !(t.starts_with('~') || t.starts_with('/') || t.starts_with('$') || t.contains(".."));
    let readable = !content.text.trim().is_empty() && !content.text.contains('$') && content.taint.is_clean();
    in_project
        && readable
        && payload.is_none()
        && crate::intent::find_in_standing_instructions(&content.text)
            .iter()
            .all(|found| found.severity < Severity::Medium)
}

/// Judges a write that outlives the session.
pub(crate) fn persist(m: &mut Machine, target: &str, kind: Persistent, content: &Value, line: usize) {
    let payload = suspicious_payload(m, content, line);
    let (rule, category, severity, what, hint) = match kind {
        Persistent::AgentInstructions => {
            let plain = !m.left_project && plain_project_instructions(target, content, payload.as_deref());
            (
                "flow.agent-instructions",
                "agent-config-tampering",
                if plain { Severity::Medium } else { Severity::High },
                if plain {
                    format!(
                        "writes to {target}, which agents read as standing instructions in every later session (the project's own file, with text that asks the agent for nothing the scan flags: check it is what the team wants)"
                    )
                } else {
                    format!(
                        "writes to {target}, which agents read as standing instructions or memory in every later session"
                    )
                },
                "a skill must not edit the agent's instruction or memory files; tell the user what to add and let them decide",
            )
        }
        Persistent::AgentConfig => (
            "flow.agent-config",
            "agent-config-tampering",
            if payload.is_some() {
                Severity::High
            } else {
                Severity::Medium
            },
            format!("writes to the agent configuration {target}"),
            "let the user change their agent's configuration themselves; never turn approvals or the sandbox off",
        ),
        Persistent::ShellStartup => (
            "flow.shell-startup",
            "persistence",
            match (&payload, content.text.trim().is_empty() && content.taint.is_clean()) {
                (Some(_), _) => Severity::High,
                (None, true) => Severity::Medium,
                // A process started in the background at every shell or login (`nohup …
                // &`), or from a hidden place: what an implant does, not a setting.
                (None, false) if starts_in_background(&content.text) || hides(&content.text) => Severity::Medium,
                (None, false) => Severity::Low,
            },
            format!("adds to the shell start-up file {target}: it runs in every new shell or login"),
            "show the user the line to add to their shell profile instead of writing it",
        ),
        Persistent::Scheduled => (
            "flow.scheduled",
            "persistence",
            if payload.is_some() {
                Severity::High
            } else if hides(&runnable_part(&content.text)) {
                Severity::Medium
            } else {
                Severity::Low
            },
            format!("installs something that runs later, unattended ({target})"),
            "a skill should not schedule tasks, services or hooks; document them for the user to install",
        ),
        Persistent::Access => {
            // A key spelled out in the skill (not a placeholder like `ssh-rsa AAAA...`).
            let literal_key = content.taint.is_clean()
                && content
                    .text
                    .split_whitespace()
                    .any(|w| w.starts_with("AAAA") && w.len() >= 60 && !w.contains("..."));
            (
                "flow.access",
                "persistence",
                if payload.is_some() || literal_key || content.text.to_ascii_lowercase().contains("nopasswd: all") {
                    Severity::High
                } else if content.text.to_ascii_lowercase().contains("nopasswd") {
                    Severity::Medium
                } else {
                    Severity::Low
                },
                format!("changes who may log in or act as root ({target})"),
                "never add keys or sudo rights from a skill",
            )
        }
    };
    let message = match payload {
        Some(p) => format!("{what}; it writes {p}"),
        None => what,
    };
    m.judge(Judgment {
        line,
        rule,
        category,
        severity,
        message,
        hint,
        urls: content.taint.urls.clone(),
        tool: None,
    });
}

/// Whether text written to a start-up file starts a process that outlives the line:
/// `nohup`, `setsid`, `disown`, or a command sent to the background with `&`.
fn starts_in_background(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.split(" #").next().unwrap_or(line).trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        words
            .iter()
            .any(|w| matches!(*w, "nohup" | "setsid" | "disown" | "(nohup"))
            || (line.ends_with('&') && !line.ends_with("&&"))
            || line.contains("& disown")
    })
}

/// Whether a scheduled command runs something from a hidden or temporary place
/// (`/tmp/x`, `~/.local/share/.sysd/run`); the usual dot-directories of a home
/// (`.local`, `.config`, `.cache`, a virtualenv) hide nothing.
pub(crate) fn hides(text: &str) -> bool {
    const USUAL: [&str; 9] = [
        ".local", ".config", ".cache", ".venv", ".cargo", ".npm", ".nvm", ".pyenv", ".bun",
    ];
    // A window hidden from the user (`powershell -w hidden`, `-WindowStyle Hidden`,
    // `Start-Process … -WindowStyle Hidden`) or a Windows folder every user can write.
    let lower = text.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    if words
        .windows(2)
        .any(|w| matches!(w[0], "-w" | "-windowstyle" | "-win") && w[1].trim_matches(['"', '\'']) == "hidden")
        || lower.contains("\\users\\public\\")
        || lower.contains("\\programdata\\")
    {
        return true;
    }
    text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '=' | ';'))
        .filter(|w| w.contains('/'))
        .any(|w| {
            w.starts_with("/tmp/")
                || w.starts_with("/dev/shm/")
                || w.starts_with("/var/tmp/")
                || w.split('/').any(|segment| {
                    segment.starts_with('.') && segment.len() > 1 && segment != ".." && !USUAL.contains(&segment)
                })
        })
}
