//! Where commands are in a bundle: fenced code blocks and inline code in Markdown,
//! commands written straight into prose, script files of any language, `run:` steps and
//! `command` values in configuration, `RUN` lines of Dockerfiles.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::script::Language;
use crate::Severity;
use crate::context::Context;

/// Text an agent might run, with where its lines are.
#[derive(Debug)]
pub struct Snippet {
    /// The program text.
    pub text: String,
    /// File line (0-based) of each line of `text`.
    pub lines: Vec<usize>,
    /// What it is written in.
    pub language: Language,
    /// Where it sits, which decides how it is read.
    pub place: Place,
}

impl Snippet {
    /// A shell command on one line of a file (a recipe line, a `RUN` line, a table cell,
    /// a configuration value).
    fn command(text: impl Into<String>, line: usize) -> Snippet {
        Snippet {
            text: text.into(),
            lines: vec![line],
            language: Language::Shell,
            place: Place::File,
        }
    }
}

/// Where a snippet sits.
#[derive(Debug, Clone)]
pub enum Place {
    /// A fenced code block, with the prose line that introduces it.
    Block {
        /// The nearest prose line above the fence.
        lead_in: String,
        /// How the block is framed (an example not to follow, an attack quoted), which
        /// lowers what is found in it.
        framing: Option<Framing>,
    },
    /// Inline code or a command in a prose line, starting at byte `at` of its line.
    Prose {
        /// Byte offset in the line.
        at: usize,
    },
    /// A script or configuration file: it runs as written.
    File,
}

/// Programs whose name at the start of a prose line, followed by an option, a path or a
/// URL, makes the line a command ("curl -fsSL https://… | bash").
const PROSE_PROGRAMS: [&str; 34] = [
    "curl",
    "wget",
    "bash",
    "sh",
    "zsh",
    "python",
    "python3",
    "node",
    "eval",
    "source",
    "sudo",
    "rm",
    "git",
    "kubectl",
    "psql",
    "mysql",
    "redis-cli",
    "chmod",
    "crontab",
    "echo",
    "printf",
    "tar",
    "scp",
    "rsync",
    "nc",
    "ncat",
    "iex",
    "powershell",
    "pwsh",
    "npm",
    "pip",
    "pip3",
    "terraform",
    "gh",
];

static INLINE_CODE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([^`\n]{4,})`").expect("valid inline code pattern"));

/// A fenced code block of a Markdown file.
#[derive(Debug)]
pub struct Block {
    /// The info string after the fence (`bash`, `json title="package.json"`).
    pub info: String,
    /// The nearest prose line above the fence.
    pub lead_in: String,
    /// File lines (0-based) of the block's content.
    pub body: Vec<usize>,
}

/// How a code block is presented, when that changes what its content means: shown as
/// something not to do (in any skill), or quoted as an attack by a security-training skill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    /// The most a finding inside the block may weigh.
    pub cap: Severity,
    /// Said in the finding's message, so the reviewer sees why it weighs less.
    pub note: &'static str,
    /// Whether only attack techniques are lowered, as in a
    /// security-training skill's prose (`vendor::quotable_in_blocks`); otherwise every command
    /// judgment is.
    pub techniques_only: bool,
}

impl Framing {
    /// Whether a finding of `category` at `severity` is lowered by this framing.
    pub fn lowers(&self, category: &str, severity: Severity) -> bool {
        severity > self.cap && (!self.techniques_only || crate::vendor::quotable_in_blocks(category))
    }
}

impl Block {
    /// How the block is framed (see [`Framing`]); `training`: the skill teaches or audits
    /// attacks (its frontmatter says so).
    pub fn framing(&self, lines: &[&str], training: bool) -> Option<Framing> {
        if quoting_lead_in(&self.lead_in) {
            return Some(Framing {
                cap: Severity::Low,
                note: " (in a block introduced as something not to do, or as an example of an attack)",
                techniques_only: false,
            });
        }
        if !training {
            return None;
        }
        // The block's first comment line speaks for it as a lead-in does.
        let opening = self
            .body
            .iter()
            .map(|&i| lines[i].trim())
            .find(|l| !l.is_empty())
            .filter(|l| l.starts_with('#') || l.starts_with("//") || l.starts_with("--"))
            .unwrap_or("");
        // Text, logs, data and detection rules (Sigma, YARA, queries) are not run.
        let not_a_command = Language::of_fence(&self.info).is_none()
            || matches!(
                self.info
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase()
                    .as_str(),
                "text"
                    | "txt"
                    | "plain"
                    | "plaintext"
                    | "log"
                    | "logs"
                    | "output"
                    | "nohighlight"
                    | "ioc"
                    | "iocs"
                    | "yara"
                    | "sigma"
                    | "kql"
                    | "spl"
                    | "eql"
            );
        // An unlabelled block none of whose lines starts like a command is a sample of
        // text (an injection as an attacker writes it), not something to run.
        let prose_sample = self.info.trim().is_empty()
            && self
                .body
                .iter()
                .map(|&i| lines[i].trim())
                .filter(|l| !l.is_empty())
                .all(|l| {
                    let first = l.split_whitespace().next().unwrap_or("");
                    let code_like = l.contains(['(', '|', '$', ';']) || l.contains("://");
                    let letters = first.chars().all(char::is_alphabetic) && !code_like;
                    let capitalised = first.chars().next().is_some_and(char::is_uppercase);
                    letters && capitalised && l.split_whitespace().count() >= 4
                });
        (not_a_command || prose_sample || names_an_attack(&self.lead_in) || names_an_attack(opening)).then_some(
            Framing {
                cap: Severity::Medium,
                note: " (quoted as an attack to recognise by a security-training skill: caution, not dangerous)",
                techniques_only: true,
            },
        )
    }
}

/// Whether the prose introducing a code block presents it as something not to do, or as
/// an attack to recognise ("Never run:", "A malicious skill would contain:").
fn quoting_lead_in(lead_in: &str) -> bool {
    let lower = lead_in.to_lowercase();
    if crate::context::negating_lead_in(lead_in) {
        return true;
    }
    const MARKS: [&str; 17] = [
        "never run",
        "never do",
        "do not run",
        "don't run",
        "do not do",
        "don't do",
        "don't:",
        "do not:",
        "bad:",
        "bad example",
        "anti-pattern",
        "antipattern",
        "❌",
        "a malicious skill would",
        "an attacker would",
        "malicious example",
        "example payload",
    ];
    MARKS.iter().any(|m| lower.contains(m))
}

/// Whether a lead-in or a block's first comment presents it as what attackers do, in
/// the words incident responders and trainers use ("Attackers commonly leave lines like
/// these", "# example of a malicious step found in the wild", "Indicators:"). Read only
/// in security-training skills: anywhere else an attacker could write it.
fn names_an_attack(text: &str) -> bool {
    let lower = text.to_lowercase();
    const MARKS: [&str; 18] = [
        "attacker",
        "adversar",
        "threat actor",
        "malicious",
        "in the wild",
        "indicator",
        "ioc",
        "red flag",
        "payload",
        "malware",
        "suspicious",
        "seen in",
        "exploit",
        "compromised",
        "backdoor",
        "typosquat",
        "phishing",
        "trojan",
    ];
    MARKS.iter().any(|m| lower.contains(m))
}

/// The fenced code blocks of a Markdown file whose lines have `contexts`.
pub fn blocks(lines: &[&str], contexts: &[Context]) -> Vec<Block> {
    let mut out = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let ctx = contexts.get(index).copied().unwrap_or(Context::Prose);
        if !(ctx == Context::Code && is_fence(lines[index])) {
            index += 1;
            continue;
        }
        let opening = lines[index].trim_start();
        let fence_char = opening.chars().next().unwrap_or('`');
        let fence_len = opening.chars().take_while(|&c| c == fence_char).count();
        let info = opening.trim_start_matches(fence_char).trim().to_owned();
        let mut body = Vec::new();
        let mut at = index + 1;
        while at < lines.len() && contexts.get(at) == Some(&Context::Code) {
            // Closed only by the same fence character, at least as many, and nothing else
            // (a ```` ``` ```` inside a `~~~~` block is content).
            let t = lines[at].trim();
            let run = t.chars().take_while(|&c| c == fence_char).count();
            if run >= fence_len && t.chars().all(|c| c == fence_char) {
                break;
            }
            body.push(at);
            at += 1;
        }
        // The prose line that introduces the block (never a line of code).
        let lead_in = (index.saturating_sub(3)..index)
            .rev()
            .filter(|&i| contexts.get(i) == Some(&Context::Prose))
            .map(|i| lines[i].trim())
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_owned();
        out.push(Block { info, lead_in, body });
        index = at + 1;
    }
    out
}

/// The manifest a code block shows, if it shows one: named by its info string or lead-in
/// (`requirements.txt`, `package.json`, `pyproject.toml`) or recognised by its content.
pub fn manifest_name(block: &Block, text: &str) -> Option<&'static str> {
    let named = format!("{} {}", block.info, block.lead_in).to_ascii_lowercase();
    let plain = matches!(
        block.info.split_whitespace().next().unwrap_or(""),
        "" | "text" | "txt" | "plain" | "requirements" | "ini" | "pip"
    );
    if plain && named.contains("requirements") {
        Some("requirements.txt")
    } else if named.contains("package.json")
        || text.contains("\"dependencies\"")
        || text.contains("\"devDependencies\"")
    {
        Some("package.json")
    } else if named.contains("pyproject") || text.contains("[project]") {
        Some("pyproject.toml")
    } else if named.contains("cargo.toml") || text.contains("[package]") && text.contains("dependencies]") {
        Some("Cargo.toml")
    } else if named.contains("gemfile") || text.contains("source \"https://rubygems.org\"") {
        Some("Gemfile")
    } else if named.contains("gemspec") || text.contains("Gem::Specification") {
        Some("x.gemspec")
    } else {
        None
    }
}

/// The snippets of a Markdown or text file: its `blocks` (from [`blocks`]) and the
/// commands in its prose lines; `framings` holds each block's [`Block::framing`].
pub fn markdown(lines: &[&str], blocks: &[Block], framings: &[Option<Framing>], contexts: &[Context]) -> Vec<Snippet> {
    let mut out = Vec::new();
    let mut in_block = vec![false; lines.len()];
    for (block, framing) in blocks.iter().zip(framings) {
        for &i in &block.body {
            in_block[i] = true;
        }
        let Some(language) = Language::of_fence(&block.info) else {
            continue;
        };
        let (text, kept) = console_or_plain(lines, &block.body, language);
        if !text.trim().is_empty() {
            out.push(Snippet {
                text,
                lines: kept,
                language,
                place: Place::Block {
                    lead_in: block.lead_in.clone(),
                    framing: *framing,
                },
            });
        }
    }
    let prose = |index: usize| {
        contexts.get(index).copied().unwrap_or(Context::Prose) == Context::Prose
            && !in_block.get(index).copied().unwrap_or(true)
    };
    for (index, line) in lines.iter().enumerate() {
        if prose(index) {
            out.extend(prose_line(line, index));
            // An inline code span the author's line wrap cut in two (`terraform
            // destroy -auto-approve`): one command, reported at the line it starts on.
            if line.matches('`').count() % 2 == 1
                && prose(index + 1)
                && let Some(open) = line.rfind('`')
                && let Some(next) = lines.get(index + 1)
                && let Some(close) = next.find('`')
            {
                let text = format!("{} {}", line[open + 1..].trim(), next[..close].trim());
                if text.contains(' ') && text.len() >= 4 {
                    out.push(Snippet {
                        text: text.strip_prefix("$ ").unwrap_or(&text).to_owned(),
                        lines: vec![index],
                        language: Language::Shell,
                        place: Place::Prose { at: open + 1 },
                    });
                }
            }
        }
    }
    out.sort_by_key(|s| s.lines.first().copied().unwrap_or(0));
    out
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A block's text: the commands after the prompts of a terminal transcript (`$ cmd`,
/// output dropped), or the whole block.
fn console_or_plain(lines: &[&str], body: &[usize], language: Language) -> (String, Vec<usize>) {
    fn strip(l: &str, language: Language) -> Option<&str> {
        let t = l.trim_start();
        t.strip_prefix("$ ")
            .or_else(|| t.strip_prefix("% "))
            .or_else(|| {
                if language == Language::PowerShell {
                    t.strip_prefix("PS> ")
                } else {
                    None
                }
            })
            .or_else(|| t.strip_prefix(">>> ").filter(|_| language == Language::Python))
    }
    let prompt = |l| strip(l, language);
    let transcript = body.iter().filter(|&&i| prompt(lines[i]).is_some()).count() > 0;
    let mut text = String::new();
    let mut kept = Vec::new();
    let mut continuing = false;
    for &i in body {
        let line = lines[i];
        let command = if transcript {
            match prompt(line) {
                Some(c) => Some(c),
                None if continuing => Some(line),
                None => None,
            }
        } else {
            Some(line)
        };
        if let Some(command) = command {
            text.push_str(command);
            text.push('\n');
            kept.push(i);
            continuing = command.trim_end().ends_with('\\');
        }
    }
    (text, kept)
}

/// Inline code spans that read as commands, and a command written straight into prose.
fn prose_line(line: &str, index: usize) -> Vec<Snippet> {
    let mut out = Vec::new();
    for caps in INLINE_CODE.captures_iter(line) {
        let Some(code) = caps.get(1) else { continue };
        let text = code.as_str().trim();
        if !text.contains(' ') {
            continue;
        }
        let text = text.strip_prefix("$ ").unwrap_or(text);
        out.push(Snippet {
            text: text.to_owned(),
            lines: vec![index],
            language: Language::Shell,
            place: Place::Prose { at: code.start() },
        });
    }
    if !out.is_empty() {
        return out;
    }
    let trimmed = line.trim_start();
    let marker = trimmed
        .strip_prefix("- ")
        .or_else(|| trimmed.strip_prefix("* "))
        .or_else(|| trimmed.strip_prefix("+ "))
        .or_else(|| {
            let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
            (digits > 0).then(|| trimmed[digits..].strip_prefix(". ")).flatten()
        })
        .unwrap_or(trimmed);
    let command = marker.strip_prefix("$ ").unwrap_or(marker);
    let mut words = command.split_whitespace();
    let (Some(first), Some(second)) = (words.next(), words.next()) else {
        return out;
    };
    if PROSE_PROGRAMS.contains(&first)
        && (second.starts_with('-')
            || second.contains('/')
            || second.contains("://")
            || second.starts_with('$')
            || second.starts_with('"')
            || second.starts_with('\''))
    {
        out.push(Snippet {
            text: command.trim_end().to_owned(),
            lines: vec![index],
            language: Language::Shell,
            place: Place::Prose {
                at: line.len() - command.len(),
            },
        });
    }
    out
}

/// Commands inside a configuration file: CI `run:` steps, `command:`/`entrypoint:`
/// values, package scripts (`postinstall`), agent hooks.
pub fn configuration(path: &str, text: &str, shipped: &super::Shipped) -> Vec<Snippet> {
    static KEY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"^\s*-?\s*"?(run|command|cmd|script|entrypoint|exec|preinstall|install|postinstall|prepare|prepublish|pretest|posttest|start|build|test|setup|before_script|after_script|shell)"?\s*[:=]\s*(.*)$"#,
        )
        .expect("valid configuration key pattern")
    });
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = Vec::new();
    if is_justfile(&lower) {
        return justfile_recipes(&lines);
    }
    if file.ends_with(".csv") || file.ends_with(".tsv") {
        return table_commands(text, if file.ends_with(".tsv") { b'\t' } else { b',' });
    }
    let makefile = is_makefile(&lower);
    if file == "dockerfile" || file.ends_with(".dockerfile") || makefile {
        let variables = if makefile {
            // `include config.mk`: the variables of the files it includes that the skill
            // ships come first (one level deep), then its own.
            let directory = lower.rsplit_once('/').map_or("", |(d, _)| d);
            let mut all: Vec<&str> = Vec::new();
            let mut included_once: Vec<String> = Vec::new();
            for line in &lines {
                if let Some(included) = line
                    .strip_prefix("include ")
                    .or_else(|| line.strip_prefix("-include "))
                    .or_else(|| line.strip_prefix("sinclude "))
                {
                    for name in included.split_whitespace() {
                        let key =
                            super::targets::resolve_dots(&super::targets::normalize_path(&if directory.is_empty() {
                                name.to_owned()
                            } else {
                                format!("{directory}/{name}")
                            }));
                        // Each file once, and no more lines than a Makefile could mean.
                        if included_once.contains(&key) || all.len() >= MAX_INCLUDED_LINES {
                            continue;
                        }
                        if let Some(text) = shipped.text(&key) {
                            all.extend(text.split('\n').take(MAX_INCLUDED_LINES - all.len()));
                            included_once.push(key);
                        }
                    }
                }
            }
            all.extend(lines.iter().copied());
            make_variables(&all)
        } else {
            Vec::new()
        };
        // The rule a recipe line belongs to: its target (`$@`) and first prerequisite (`$<`).
        let mut rule: Vec<(String, String)> = Vec::new();
        let mut pending: Option<(usize, String)> = None;
        for (i, line) in lines.iter().enumerate() {
            // A `RUN … \` goes on over the next lines.
            if let Some((start, mut joined)) = pending.take() {
                joined.push(' ');
                joined.push_str(line.trim().trim_end_matches('\\'));
                if line.trim_end().ends_with('\\') {
                    pending = Some((start, joined));
                } else {
                    out.push(Snippet::command(joined, start));
                }
                continue;
            }
            let t = line.trim_start();
            if makefile
                && !line.starts_with('\t')
                && let Some((target, prerequisites)) = make_rule(line, &variables)
            {
                rule = vec![("@".to_owned(), target), ("<".to_owned(), prerequisites)];
            }
            let command = if makefile {
                line.strip_prefix('\t')
                    .map(|c| c.trim_start_matches(['@', '-', '+']))
                    .map(|c| expand_make(&expand_automatic(c, &rule), &variables))
            } else {
                t.strip_prefix("RUN ")
                    .or_else(|| t.strip_prefix("run "))
                    .map(str::to_owned)
            };
            if let Some(command) = command {
                if !makefile && command.trim_end().ends_with('\\') {
                    pending = Some((i, command.trim_end().trim_end_matches('\\').to_owned()));
                    continue;
                }
                out.push(Snippet::command(command.trim_end_matches('\\').to_owned(), i));
            }
        }
        if let Some((start, joined)) = pending {
            out.push(Snippet::command(joined, start));
        }
        return out;
    }
    // Values a CI workflow puts in its steps' environment (`env:` maps): a `run:` step
    // that says `"$RULES_SRC"` runs with them.
    let environment = yaml_env(&lines);
    let named_commands = command_maps(&lines);
    let mut index = 0;
    while index < lines.len() {
        let Some(caps) = KEY.captures(lines[index]).or_else(|| {
            named_commands[index]
                .then(|| COMMAND_MAP_ENTRY.captures(lines[index]))
                .flatten()
        }) else {
            index += 1;
            continue;
        };
        let value = caps.get(2).map_or("", |v| v.as_str()).trim();
        if value == "|" || value == ">" || value == "|-" || value == ">-" || value.is_empty() {
            // A YAML block scalar: the indented lines below.
            let indent = lines[index].len() - lines[index].trim_start().len();
            let mut body = Vec::new();
            let mut at = index + 1;
            while at < lines.len() {
                let l = lines[at];
                if !l.trim().is_empty() && l.len() - l.trim_start().len() <= indent {
                    break;
                }
                body.push(at);
                at += 1;
            }
            if !body.is_empty() {
                let mut text = body
                    .iter()
                    .map(|&i| lines[i].trim_start())
                    .collect::<Vec<_>>()
                    .join("\n");
                let mut at = body.clone();
                let used = used_environment(&environment, &text);
                if !used.is_empty() {
                    text = format!("{used}\n{text}");
                    at.insert(0, body[0]);
                }
                out.push(Snippet {
                    text,
                    lines: at,
                    language: Language::Shell,
                    place: Place::File,
                });
            }
            index = at;
            continue;
        }
        let unquoted = value.trim_end_matches(',').trim();
        let unquoted = unquoted
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| unquoted.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(unquoted);
        let unescaped = unquoted.replace("\\\"", "\"").replace("\\n", "\n");
        if unescaped.contains(' ') {
            let used = used_environment(&environment, &unescaped);
            let (text, at) = if used.is_empty() {
                (unescaped, vec![index])
            } else {
                (format!("{used}\n{unescaped}"), vec![index, index])
            };
            out.push(Snippet {
                text,
                lines: at,
                language: Language::Shell,
                place: Place::File,
            });
        }
        index += 1;
    }
    out
}

/// A map of named commands: npm's and composer's `"scripts"`, deno's and VS Code's
/// `"tasks"`, a YAML `commands:`; each of its values is a command, whatever its name
/// (`"fmt:plus": "deno run -A https://…"`).
static COMMAND_MAP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^(\s*)"?(?:scripts|tasks|commands)"?\s*:\s*(\{)?\s*$"#).expect("valid command map pattern")
});

/// One entry of a map of named commands: its name and its value.
static COMMAND_MAP_ENTRY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"^\s*"?([\w:.\-/@]+)"?\s*:\s*(.*)$"#).expect("valid command map entry pattern"));

/// For each line, whether it is an entry of a map of named commands (JSON: up to the
/// brace that closes the map; YAML: the lines indented under its key).
fn command_maps(lines: &[&str]) -> Vec<bool> {
    let mut inside = vec![false; lines.len()];
    let mut at = 0;
    while at < lines.len() {
        let Some(caps) = COMMAND_MAP.captures(lines[at]) else {
            at += 1;
            continue;
        };
        let indent = caps.get(1).map_or(0, |m| m.len());
        let json = caps.get(2).is_some();
        let mut depth = 1usize;
        let mut child_indent: Option<usize> = None;
        at += 1;
        while at < lines.len() {
            let line = lines[at];
            if json {
                let (opens, closes) = braces_outside_strings(line);
                depth += opens;
                depth = depth.saturating_sub(closes);
                if depth == 0 {
                    break;
                }
                inside[at] = depth == 1;
            } else {
                let own_indent = line.len() - line.trim_start().len();
                if !line.trim().is_empty() && own_indent <= indent {
                    break;
                }
                // Its direct entries, not what is nested under one (`desc:`, `vars:`).
                let entry_indent = *child_indent.get_or_insert(own_indent);
                inside[at] = !line.trim().is_empty() && own_indent == entry_indent;
            }
            at += 1;
        }
    }
    inside
}

/// The `{` and `}` of a JSON line outside its string literals: a brace in a command
/// (`"x": "printf '{'"`) must not hide the entries after it.
fn braces_outside_strings(line: &str) -> (usize, usize) {
    let (mut opens, mut closes) = (0, 0);
    let (mut in_string, mut escaped) = (false, false);
    for c in line.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' if !in_string => opens += 1,
            '}' if !in_string => closes += 1,
            _ => {}
        }
    }
    (opens, closes)
}

/// Whether a file is a git configuration by its name (`.gitconfig`, `gitconfig.team`,
/// `.git/config`). Its content is not enough: a Markdown file may start with a link
/// `[Credentials](…)`, a TOML file with `[alias]`, and their own commands must still be read.
pub fn is_gitconfig(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    !file.ends_with(".md") && (file.contains("gitconfig") || path.ends_with(".git/config"))
}

/// Git settings whose value git runs as a command: `core.fsmonitor`, `core.sshCommand`,
/// `core.pager`, an `alias.*` starting with `!`, a `credential.helper` or a filter's
/// `clean`/`smudge`/`process` — each a shell snippet on its own line.
pub fn gitconfig_commands(text: &str) -> Vec<Snippet> {
    const COMMANDS: [(&str, &str); 11] = [
        ("core", "fsmonitor"),
        ("core", "sshcommand"),
        ("core", "pager"),
        ("core", "editor"),
        ("core", "askpass"),
        ("core", "hookspath"),
        ("sequence", "editor"),
        ("gpg", "program"),
        ("credential", "helper"),
        ("filter", "clean"),
        ("filter", "smudge"),
    ];
    let mut out = Vec::new();
    let mut section = String::new();
    for (i, line) in text.split('\n').enumerate() {
        let t = line.trim();
        if let Some(header) = t.strip_prefix('[').and_then(|h| h.split(']').next()) {
            section = header.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            continue;
        }
        let Some((key, value)) = t.split_once('=') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let mut value = value.trim();
        if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            value = inner;
        }
        let shell_alias = value.starts_with('!');
        let runs = COMMANDS.iter().any(|&(s, k)| s == section && k == key)
            || section == "filter" && key == "process"
            || section == "alias" && shell_alias
            || section == "diff" && key == "textconv";
        // `credential.helper = store` names a built-in helper; `!…` or a path runs a program.
        let builtin_helper = section == "credential" && !shell_alias && !value.contains(['/', ' ']);
        if runs && !builtin_helper && !value.is_empty() {
            out.push(Snippet::command(value.trim_start_matches('!').replace("\\\"", "\""), i));
        }
    }
    out
}

/// Whether `path` (lowercase) is a Makefile (`Makefile`, `GNUmakefile`, `release.mk`,
/// `build.make`), or one kept under a suffix for another use (`Makefile.release`,
/// `Makefile.tmpl`, `Makefile.in`): what `make -f` runs is read the same.
pub fn is_makefile(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    // A document about a Makefile (`Makefile.md`) is a document.
    let kept_as_makefile = |suffix: &str| {
        !matches!(
            suffix,
            "md" | "markdown" | "txt" | "rst" | "adoc" | "html" | "htm" | "pdf" | "json" | "yaml" | "yml"
        )
    };
    let named = match file.split_once('.') {
        Some((stem, suffix)) => matches!(stem, "makefile" | "gnumakefile") && kept_as_makefile(suffix),
        None => matches!(file, "makefile" | "gnumakefile"),
    };
    named || file.ends_with(".mk") || file.ends_with(".make")
}

/// Column headings of a table whose cells are commands (a schedule's `command`, a task
/// list's `run`).
const COMMAND_COLUMNS: [&str; 9] = [
    "command",
    "cmd",
    "run",
    "script",
    "exec",
    "shell",
    "entrypoint",
    "action",
    "job",
];

/// The commands in a CSV or TSV table: every cell of a column headed as commands (a cron
/// schedule kept as `schedule,command,description` that a script installs).
fn table_commands(text: &str, delimiter: u8) -> Vec<Snippet> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(text.as_bytes());
    let Ok(headers) = reader.headers() else {
        return Vec::new();
    };
    let columns: Vec<usize> = headers
        .iter()
        .enumerate()
        .filter(|(_, h)| COMMAND_COLUMNS.contains(&h.trim().to_ascii_lowercase().as_str()))
        .map(|(i, _)| i)
        .collect();
    if columns.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for record in reader.records().take(10_000) {
        let Ok(record) = record else {
            break;
        };
        let line = record
            .position()
            .map_or(0, |p| usize::try_from(p.line()).unwrap_or(1).saturating_sub(1));
        for &column in &columns {
            if let Some(cell) = record.get(column).filter(|c| !c.trim().is_empty()) {
                out.push(Snippet::command(cell.to_owned(), line));
            }
        }
    }
    out
}

/// Whether `path` (lowercase) is a `just` command runner's recipe file.
pub fn is_justfile(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    matches!(file, "justfile" | ".justfile") || file.ends_with(".just")
}

/// The commands of a justfile's recipes: each indented line under a recipe header, with
/// `{{name}}` replaced by the recipe parameter's default or the variable's value when it
/// is an address, a path or a command (`mirror := "https://…"`). A recipe that starts with a shebang runs another language and is not
/// read as shell.
fn justfile_recipes(lines: &[&str]) -> Vec<Snippet> {
    static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(.*)$").expect("valid just assignment pattern")
    });
    static PARAMETER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))"#).expect("valid just parameter pattern")
    });
    static INTERPOLATION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{\{\s*([A-Za-z_][\w-]*)\s*\}\}").expect("valid just interpolation pattern"));
    let unquote = |v: &str| v.trim().trim_matches(|c| c == '"' || c == '\'').to_owned();
    let mut variables: HashMap<String, String> = HashMap::new();
    for line in lines.iter().filter(|l| !l.starts_with([' ', '\t'])) {
        if let Some(caps) = ASSIGNMENT.captures(line.trim_end())
            && variables.len() < 200
        {
            let mut value = unquote(&caps[2]);
            value.truncate(value.floor_char_boundary(MAX_MAKE_VALUE));
            variables.insert(caps[1].to_owned(), value);
        }
    }
    let mut out = Vec::new();
    let mut recipe: Option<HashMap<String, String>> = None;
    let mut first_line = false;
    // A recipe that starts with a shebang is one script in that language.
    let mut script: Option<Snippet> = None;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if !line.starts_with([' ', '\t']) {
            out.extend(script.take());
            // A recipe header: `name param="x": deps` (not an assignment, not a comment).
            recipe = line
                .split_once(':')
                .filter(|(head, rest)| {
                    !rest.starts_with('=') && !head.trim_start().starts_with('#') && !head.contains(":=")
                })
                .map(|(head, _)| {
                    PARAMETER
                        .captures_iter(head)
                        .map(|c| {
                            let value = c.get(2).or(c.get(3)).or(c.get(4)).map_or("", |m| m.as_str());
                            let value = &value[..value.floor_char_boundary(MAX_MAKE_VALUE)];
                            (c[1].to_owned(), value.to_owned())
                        })
                        .collect()
                });
            first_line = true;
            continue;
        }
        let Some(parameters) = &recipe else {
            continue;
        };
        let command = line.trim_start().trim_start_matches(['@', '-']);
        // An address or a path is expanded; a plain word (`env := "dev"`) stays the
        // parameter it is: whoever runs the recipe picks it (`just env=prod refresh`).
        let mut expanded = INTERPOLATION
            .replace_all(command, |caps: &regex::Captures<'_>| {
                parameters
                    .get(&caps[1])
                    .or_else(|| variables.get(&caps[1]))
                    .filter(|value| value.contains(['/', '.', ' ', '~', '$']))
                    .cloned()
                    .unwrap_or_else(|| caps[0].to_owned())
            })
            .into_owned();
        expanded.truncate(expanded.floor_char_boundary(MAX_MAKE_VALUE));
        if std::mem::take(&mut first_line)
            && command.starts_with("#!")
            && let Some(language) = Language::of_path("recipe", command)
        {
            script = Some(Snippet {
                text: String::new(),
                lines: Vec::new(),
                language,
                place: Place::File,
            });
        }
        if let Some(body) = &mut script {
            if body.text.len() < super::shell::MAX_SCRIPT_TEXT {
                body.text.push_str(&expanded);
                body.text.push('\n');
                body.lines.push(i);
            }
            continue;
        }
        out.push(Snippet::command(expanded, i));
    }
    out.extend(script);
    out
}

/// The most lines a Makefile's included files add to its variables.
const MAX_INCLUDED_LINES: usize = 10_000;

/// The longest value a Makefile variable keeps once expanded.
const MAX_MAKE_VALUE: usize = 4096;

/// A Makefile's variables (`HOST = …`, `URL := http://$(HOST)/x`, `export X ?= …`), in
/// order, each already expanded with the ones before it.
fn make_variables(lines: &[&str]) -> Vec<(String, String)> {
    static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?::{1,3}|\?|\+)?=\s*(.*)$")
            .expect("valid make assignment pattern")
    });
    // Make's own defaults, which a Makefile may override.
    let mut out: Vec<(String, String)> = vec![
        ("SHELL".to_owned(), "/bin/sh".to_owned()),
        ("RM".to_owned(), "rm -f".to_owned()),
        ("MAKE".to_owned(), "make".to_owned()),
    ];
    for line in lines.iter().filter(|l| !l.starts_with('\t')) {
        let Some(caps) = ASSIGNMENT.captures(line.trim_end()) else {
            continue;
        };
        let mut value = expand_make(caps[2].trim(), &out);
        // `V2 := $(V1)$(V1)` doubles with every line: a value stops growing at 4 KiB.
        value.truncate(value.floor_char_boundary(MAX_MAKE_VALUE));
        let name = caps[1].to_owned();
        if let Some(existing) = out.iter_mut().find(|(n, _)| *n == name) {
            existing.1 = value;
        } else if out.len() < 200 {
            out.push((name, value));
        }
    }
    out
}

/// A Makefile rule line's target and first prerequisite, expanded (`$(DIR)/stamp:
/// $(DIR)/setup`); `None` for assignments and other lines.
fn make_rule(line: &str, variables: &[(String, String)]) -> Option<(String, String)> {
    if line.trim_start().starts_with('#') || line.contains(":=") || line.contains("::=") {
        return None;
    }
    let (target, rest) = line.split_once(':')?;
    if rest.starts_with('=') || target.contains('=') || target.trim().is_empty() {
        return None;
    }
    let first = rest
        .split(['|', ';'])
        .next()
        .unwrap_or("")
        .split_whitespace()
        .next()
        .unwrap_or("");
    let target = target.split_whitespace().next().unwrap_or("");
    Some((expand_make(target, variables), expand_make(first, variables)))
}

/// A recipe line with Make's automatic variables (`$@`, `$<`) replaced by the rule's
/// target and first prerequisite.
fn expand_automatic(line: &str, rule: &[(String, String)]) -> String {
    let mut out = line.replace("$$", "\u{0}");
    for (name, value) in rule {
        out = out
            .replace(&format!("${name}"), value)
            .replace(&format!("$({name})"), value);
    }
    out.replace('\u{0}', "$$")
}

/// A recipe line with Make's `$(NAME)` and `${NAME}` replaced by the variables' values
/// and `$$` by the shell's `$`.
fn expand_make(line: &str, variables: &[(String, String)]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('$') {
            out.push('$');
            rest = tail;
            continue;
        }
        let close = match after.chars().next() {
            Some('(') => ')',
            Some('{') => '}',
            _ => {
                out.push('$');
                rest = after;
                continue;
            }
        };
        match after[1..].find(close) {
            Some(end) => {
                let name = &after[1..end + 1];
                match variables.iter().find(|(n, _)| n == name) {
                    Some((_, value)) => out.push_str(value),
                    None => {
                        out.push('$');
                        out.push_str(&after[..end + 2]);
                    }
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The assignments of `environment` whose variable `step` uses (`$NAME`, `${NAME}`), on
/// one line.
fn used_environment(environment: &[(String, String)], step: &str) -> String {
    environment
        .iter()
        .filter(|(name, _)| step.contains(&format!("${name}")) || step.contains(&format!("${{{name}}}")))
        .map(|(name, value)| format!("{name}='{value}'"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The `env:` entries of a YAML file (a CI workflow's): at most 50, values at most 1 KiB.
fn yaml_env(lines: &[&str]) -> Vec<(String, String)> {
    static ENTRY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*["']?([^"'#]*?)["']?\s*(?:#.*)?$"#)
            .expect("valid env entry pattern")
    });
    let mut out = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index];
        index += 1;
        if line.trim() != "env:" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        while index < lines.len() {
            let l = lines[index];
            if !l.trim().is_empty() && l.len() - l.trim_start().len() <= indent {
                break;
            }
            if let Some(caps) = ENTRY.captures(l)
                && !caps[2].is_empty()
                && caps[2].len() <= 1024
                && !caps[2].contains("${{")
                && out.len() < 50
            {
                out.push((caps[1].to_owned(), caps[2].replace('\'', "")));
            }
            index += 1;
        }
    }
    out
}

/// Builds this module's pattern now (a second core does it while the prefilter builds).
pub(crate) fn warm_up() {
    LazyLock::force(&INLINE_CODE);
}
