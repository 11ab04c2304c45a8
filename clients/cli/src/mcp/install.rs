//! `cairn mcp install --agent …`: adds Cairn to an agent's MCP configuration, in that
//! agent's own file and format (docs/agents/). Two ways in: `cairn mcp` over stdio (the
//! default: it uses the saved login, so no credential is in the agent's file), or the
//! registry's `/mcp` over HTTP with the token taken from `CAIRN_TOKEN` at the agent's start
//! (each format's own environment reference). A token is never written. The rest of the
//! file is kept: JSON and YAML keep their keys and order, TOML its comments and layout; a
//! YAML file with comments is backed up first (its writer cannot keep them).

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// The name Cairn's server gets in every agent's configuration.
pub const SERVER_NAME: &str = "cairn";

/// The environment variable the HTTP configurations read the token from.
pub const TOKEN_VARIABLE: &str = "CAIRN_TOKEN";

/// An agent whose MCP configuration `cairn mcp install` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// Claude Code: `~/.claude.json` (user scope) or `.mcp.json` (project scope), JSON.
    Claude,
    /// OpenAI Codex: `$CODEX_HOME/config.toml` (`~/.codex/config.toml`), TOML.
    Codex,
    /// Hermes Agent: `$HERMES_HOME/config.yaml` (`~/.hermes/config.yaml`), YAML.
    Hermes,
    /// OpenClaw: `$OPENCLAW_CONFIG_PATH` (`~/.openclaw/openclaw.json`), JSON5.
    Openclaw,
}

/// How the agent reaches Cairn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Connection {
    /// `cairn mcp` over stdio: the program and its arguments.
    Stdio {
        /// The `cairn` program.
        command: String,
        /// Its arguments (`mcp`, and `--offline …` when asked).
        args: Vec<String>,
    },
    /// The registry's endpoint over streamable HTTP.
    Http {
        /// `<server>/mcp`.
        url: String,
    },
}

/// Why the configuration could not be written.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The agent's file exists but cannot be read in its format; nothing was written.
    #[error("{path} is not valid {format} ({reason}): fix it, or add this by hand:\n{snippet}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// JSON, TOML or YAML.
        format: &'static str,
        /// The parser's complaint.
        reason: String,
        /// What to add.
        snippet: String,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The home folder is unknown.
    #[error("HOME is not set: name the agent's configuration file with --config")]
    NoHome,
}

/// What `install` did.
#[derive(Debug)]
pub struct Installed {
    /// The file written.
    pub path: PathBuf,
    /// Whether an entry named [`SERVER_NAME`] was there before (and was replaced).
    pub replaced: bool,
    /// Where the file was copied first, when its comments could not be kept.
    pub backup: Option<PathBuf>,
}

/// The agent's configuration file: `project` asks for Claude Code's project file
/// (`.mcp.json` in `cwd`); every other agent has one file per user.
pub fn default_path(
    agent: Agent,
    project: bool,
    cwd: &Path,
    env: impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, InstallError> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    let home = || var("HOME").ok_or(InstallError::NoHome);
    Ok(match agent {
        Agent::Claude if project => cwd.join(".mcp.json"),
        Agent::Claude => home()?.join(".claude.json"),
        Agent::Codex => var("CODEX_HOME")
            .map_or_else(|| home().map(|h| h.join(".codex")), Ok)?
            .join("config.toml"),
        Agent::Hermes => var("HERMES_HOME")
            .map_or_else(|| home().map(|h| h.join(".hermes")), Ok)?
            .join("config.yaml"),
        Agent::Openclaw => match var("OPENCLAW_CONFIG_PATH") {
            Some(path) => path,
            None => home()?.join(".openclaw").join("openclaw.json"),
        },
    })
}

/// The server entry as the agent's format writes it (as JSON; TOML and YAML are made from
/// it).
fn server_entry(agent: Agent, connection: &Connection) -> Value {
    let bearer = format!("Bearer ${{{TOKEN_VARIABLE}}}");
    match (agent, connection) {
        (Agent::Claude, Connection::Stdio { command, args }) => {
            json!({"type": "stdio", "command": command, "args": args})
        }
        (Agent::Claude, Connection::Http { url }) => {
            json!({"type": "http", "url": url, "headers": {"Authorization": bearer}})
        }
        (Agent::Codex | Agent::Hermes | Agent::Openclaw, Connection::Stdio { command, args }) => {
            json!({"command": command, "args": args})
        }
        // Codex never expands variables in its file: it reads the token from the variable named.
        (Agent::Codex, Connection::Http { url }) => json!({"url": url, "bearer_token_env_var": TOKEN_VARIABLE}),
        (Agent::Hermes, Connection::Http { url }) => json!({"url": url, "headers": {"Authorization": bearer}}),
        // Without `transport`, OpenClaw speaks the older SSE transport.
        (Agent::Openclaw, Connection::Http { url }) => {
            json!({"url": url, "transport": "streamable-http", "headers": {"Authorization": bearer}})
        }
    }
}

/// The path of keys under which the agent's file lists its MCP servers.
fn servers_key(agent: Agent) -> &'static [&'static str] {
    match agent {
        Agent::Claude => &["mcpServers"],
        Agent::Codex | Agent::Hermes => &["mcp_servers"],
        Agent::Openclaw => &["mcp", "servers"],
    }
}

/// A configuration holding only Cairn's entry, in the agent's format (what `--print`
/// shows, and what a missing file becomes).
pub fn snippet(agent: Agent, connection: &Connection) -> String {
    let mut document = Value::Object(serde_json::Map::new());
    // A new document always takes the entry.
    let _ = insert_json(&mut document, servers_key(agent), server_entry(agent, connection));
    match agent {
        Agent::Claude | Agent::Openclaw => pretty_json(&document),
        Agent::Codex => {
            let mut toml = toml_edit::DocumentMut::new();
            // A new document always takes the entry.
            let _ = insert_toml(&mut toml, &server_entry(agent, connection));
            toml.to_string()
        }
        Agent::Hermes => serde_yaml_ng::to_string(&document).unwrap_or_default(),
    }
}

/// Adds (or replaces) Cairn's entry in the agent's file at `path`, keeping the rest.
pub fn install(agent: Agent, connection: &Connection, path: &Path) -> Result<Installed, InstallError> {
    let existing = match std::fs::read_to_string(path) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(InstallError::Io {
                path: path.to_owned(),
                source,
            });
        }
    };
    let text = existing.clone().unwrap_or_default();
    let unreadable = |format, reason: String| InstallError::Unreadable {
        path: path.to_owned(),
        format,
        reason,
        snippet: snippet(agent, connection),
    };
    let entry = server_entry(agent, connection);
    let (written, replaced, backup) = match agent {
        Agent::Claude | Agent::Openclaw => {
            let mut document: Value = if text.trim().is_empty() {
                json!({})
            } else {
                serde_json::from_str(&text).map_err(|e| unreadable("JSON", e.to_string()))?
            };
            if !document.is_object() {
                return Err(unreadable("JSON", "it is not an object".to_owned()));
            }
            let replaced = insert_json(&mut document, servers_key(agent), entry).map_err(|e| unreadable("JSON", e))?;
            (pretty_json(&document), replaced, None)
        }
        Agent::Codex => {
            let mut document: toml_edit::DocumentMut = text
                .parse()
                .map_err(|e: toml_edit::TomlError| unreadable("TOML", e.to_string()))?;
            let replaced = insert_toml(&mut document, &entry).map_err(|e| unreadable("TOML", e))?;
            (document.to_string(), replaced, None)
        }
        Agent::Hermes => {
            let mut document: Value = if text.trim().is_empty() {
                json!({})
            } else {
                serde_yaml_ng::from_str(&text).map_err(|e| unreadable("YAML", e.to_string()))?
            };
            if !document.is_object() {
                return Err(unreadable("YAML", "it is not a mapping".to_owned()));
            }
            let replaced = insert_json(&mut document, servers_key(agent), entry).map_err(|e| unreadable("YAML", e))?;
            let backup = match existing.as_deref() {
                Some(old) if old.lines().any(|l| l.trim_start().starts_with('#')) => {
                    let backup = path.with_extension("yaml.before-cairn");
                    write(&backup, old)?;
                    Some(backup)
                }
                _ => None,
            };
            let yaml = serde_yaml_ng::to_string(&document).map_err(|e| unreadable("YAML", e.to_string()))?;
            (yaml, replaced, backup)
        }
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| InstallError::Io {
            path: parent.to_owned(),
            source,
        })?;
    }
    write(path, &written)?;
    Ok(Installed {
        path: path.to_owned(),
        replaced,
        backup,
    })
}

/// Writes `text` to `path` whole (a reader never sees half of it), keeping its mode.
fn write(path: &Path, text: &str) -> Result<(), InstallError> {
    #[cfg(unix)]
    let mode = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).ok().map(|m| m.permissions().mode() & 0o7777)
    };
    #[cfg(not(unix))]
    let mode = None;
    crate::folder::write_atomically(path, text.as_bytes(), mode, true).map_err(|e| InstallError::Io {
        path: path.to_owned(),
        source: std::io::Error::other(e.to_string()),
    })
}

/// Sets `document[keys…][SERVER_NAME] = entry`; whether an entry was replaced. A key that
/// holds something other than a map is not overwritten: the error says which.
fn insert_json(document: &mut Value, keys: &[&str], entry: Value) -> Result<bool, String> {
    let mut node = document;
    for key in keys {
        let Some(object) = node.as_object_mut() else {
            return Err(format!("'{key}' sits under something that is not a map"));
        };
        node = object.entry((*key).to_owned()).or_insert_with(|| json!({}));
    }
    match node.as_object_mut() {
        Some(servers) => Ok(servers.insert(SERVER_NAME.to_owned(), entry).is_some()),
        None => Err(format!("'{}' is not a map of servers", keys.join("."))),
    }
}

/// Sets `[mcp_servers.cairn]` to `entry`; whether a table was replaced. An inline
/// `mcp_servers = {…}` becomes a table with the same servers; anything else there is not
/// overwritten.
fn insert_toml(document: &mut toml_edit::DocumentMut, entry: &Value) -> Result<bool, String> {
    let item = document.entry("mcp_servers").or_insert_with(|| {
        let mut table = toml_edit::Table::new();
        table.set_implicit(true);
        toml_edit::Item::Table(table)
    });
    if let Some(inline) = item.as_inline_table().cloned() {
        *item = toml_edit::Item::Table(inline.into_table());
    }
    let Some(servers) = item.as_table_mut() else {
        return Err("'mcp_servers' is not a table of servers".to_owned());
    };
    let mut table = toml_edit::Table::new();
    for (key, value) in entry.as_object().into_iter().flatten() {
        let value = match value {
            Value::String(s) => toml_edit::value(s.as_str()),
            Value::Array(items) => {
                let mut array = toml_edit::Array::new();
                for item in items {
                    array.push(item.as_str().unwrap_or_default());
                }
                toml_edit::value(array)
            }
            other => toml_edit::value(other.to_string()),
        };
        table.insert(key, value);
    }
    Ok(servers.insert(SERVER_NAME, toml_edit::Item::Table(table)).is_some())
}

/// JSON as agents' own tools write it: two-space indentation, a final newline.
fn pretty_json(document: &Value) -> String {
    let mut text = serde_json::to_string_pretty(document).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio() -> Connection {
        Connection::Stdio {
            command: "/usr/local/bin/cairn".to_owned(),
            args: vec!["mcp".to_owned()],
        }
    }

    fn http() -> Connection {
        Connection::Http {
            url: "https://cairn.example/mcp".to_owned(),
        }
    }

    #[test]
    fn every_agent_file_lands_where_its_agent_reads_it() {
        let env = |key: &str| match key {
            "HOME" => Some("/home/mia".to_owned()),
            "CODEX_HOME" => Some("/srv/codex".to_owned()),
            _ => None,
        };
        let cwd = Path::new("/work/repo");
        let path = |agent, project| default_path(agent, project, cwd, env).unwrap();
        assert_eq!(path(Agent::Claude, false), Path::new("/home/mia/.claude.json"));
        assert_eq!(path(Agent::Claude, true), Path::new("/work/repo/.mcp.json"));
        assert_eq!(path(Agent::Codex, false), Path::new("/srv/codex/config.toml"));
        assert_eq!(path(Agent::Hermes, false), Path::new("/home/mia/.hermes/config.yaml"));
        assert_eq!(
            path(Agent::Openclaw, false),
            Path::new("/home/mia/.openclaw/openclaw.json")
        );
        assert!(matches!(
            default_path(Agent::Hermes, false, cwd, |_| None),
            Err(InstallError::NoHome)
        ));
    }

    #[test]
    fn no_configuration_holds_a_token_only_a_reference_to_the_variable() {
        for agent in [Agent::Claude, Agent::Codex, Agent::Hermes, Agent::Openclaw] {
            let text = snippet(agent, &http());
            assert!(text.contains("CAIRN_TOKEN"), "{agent:?}: {text}");
            assert!(text.contains("https://cairn.example/mcp"), "{agent:?}: {text}");
        }
        assert!(snippet(Agent::Codex, &http()).contains("bearer_token_env_var = \"CAIRN_TOKEN\""));
        assert!(snippet(Agent::Openclaw, &http()).contains("streamable-http"));
    }

    #[test]
    fn installing_keeps_the_rest_of_the_file_and_replaces_only_cairns_entry() {
        let dir = tempfile::tempdir().unwrap();
        let codex = dir.path().join("config.toml");
        std::fs::write(
            &codex,
            "# my settings\nmodel = \"o4\"\n\n[mcp_servers.other]\ncommand = \"x\"\n",
        )
        .unwrap();
        assert!(!install(Agent::Codex, &stdio(), &codex).unwrap().replaced);
        assert!(install(Agent::Codex, &http(), &codex).unwrap().replaced);
        let text = std::fs::read_to_string(&codex).unwrap();
        assert!(text.starts_with("# my settings\nmodel = \"o4\""), "{text}");
        assert!(
            text.contains("[mcp_servers.other]") && text.contains("[mcp_servers.cairn]"),
            "{text}"
        );
        assert!(
            !text.contains("/usr/local/bin/cairn"),
            "the stdio entry was replaced: {text}"
        );

        let claude = dir.path().join(".claude.json");
        std::fs::write(
            &claude,
            r#"{"numStartups": 3, "mcpServers": {"other": {"command": "x"}}}"#,
        )
        .unwrap();
        install(Agent::Claude, &stdio(), &claude).unwrap();
        let written: Value = serde_json::from_str(&std::fs::read_to_string(&claude).unwrap()).unwrap();
        assert_eq!(written["numStartups"], 3);
        assert_eq!(written["mcpServers"]["other"]["command"], "x");
        assert_eq!(written["mcpServers"]["cairn"]["args"], json!(["mcp"]));

        let hermes = dir.path().join("config.yaml");
        std::fs::write(&hermes, "# Hermes\nmodel: x\n").unwrap();
        let installed = install(Agent::Hermes, &stdio(), &hermes).unwrap();
        let backup = installed.backup.unwrap();
        assert_eq!(std::fs::read_to_string(backup).unwrap(), "# Hermes\nmodel: x\n");
    }

    #[test]
    fn other_servers_in_an_inline_table_are_kept_and_odd_shapes_refused() {
        let dir = tempfile::tempdir().unwrap();
        let codex = dir.path().join("config.toml");
        std::fs::write(&codex, "mcp_servers = { other = { command = \"x\" } }\n").unwrap();
        install(Agent::Codex, &stdio(), &codex).unwrap();
        let text = std::fs::read_to_string(&codex).unwrap();
        assert!(text.contains("other") && text.contains("[mcp_servers.cairn]"), "{text}");
        std::fs::write(&codex, "mcp_servers = 3\n").unwrap();
        assert!(install(Agent::Codex, &stdio(), &codex).is_err());
        assert_eq!(std::fs::read_to_string(&codex).unwrap(), "mcp_servers = 3\n");
        let claude = dir.path().join(".claude.json");
        std::fs::write(&claude, r#"{"mcpServers": []}"#).unwrap();
        let error = install(Agent::Claude, &stdio(), &claude).unwrap_err().to_string();
        assert!(error.contains("not a map"), "{error}");
        assert_eq!(std::fs::read_to_string(&claude).unwrap(), r#"{"mcpServers": []}"#);
    }

    #[test]
    fn an_unreadable_file_is_left_alone_with_the_block_to_add_by_hand() {
        let dir = tempfile::tempdir().unwrap();
        let openclaw = dir.path().join("openclaw.json");
        let commented = "{\n  // JSON5 comments\n  gateway: {port: 1},\n}\n";
        std::fs::write(&openclaw, commented).unwrap();
        let error = install(Agent::Openclaw, &http(), &openclaw).unwrap_err().to_string();
        assert!(
            error.contains("add this by hand") && error.contains("streamable-http"),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&openclaw).unwrap(), commented);
    }
}
