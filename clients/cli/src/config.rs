//! Where the client keeps who it talks to: `$XDG_CONFIG_HOME/cairn/` (`~/.config/cairn/`),
//! with the server in `config.toml` and the token alone in `token` (mode 0600, in a 0700
//! folder). `CAIRN_SERVER` and `CAIRN_TOKEN` override both, so CI needs no files.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why the configuration cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Neither a saved login nor the environment names a server and token.
    #[error("not logged in: run `cairn login --server <url> --token <token>`, or set CAIRN_SERVER and CAIRN_TOKEN")]
    NotLoggedIn,
    /// Only one of server and token is known.
    #[error("{0} is not set: run `cairn login --server <url> --token <token>`, or set CAIRN_SERVER and CAIRN_TOKEN")]
    Missing(&'static str),
    /// A server URL that cannot be a registry.
    #[error("'{url}' is not a registry URL: {reason} (like https://cairn.example.com)")]
    BadServer {
        /// What was given.
        url: String,
        /// Why it does not work.
        reason: &'static str,
    },
    /// A token that cannot be one.
    #[error(
        "the token is empty or has spaces or control characters: copy it whole, as `cairn-registry token issue` printed it"
    )]
    BadToken,
    /// No home or config folder is known.
    #[error("cannot tell where to keep the configuration: set XDG_CONFIG_HOME or HOME")]
    NoConfigDir,
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// `config.toml` is not valid.
    #[error("{path} is not valid ({reason}): fix it, or run `cairn login` again to rewrite it")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

/// The server and token commands use, and where each came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Profile {
    /// The registry's base URL, without a trailing slash.
    pub server: String,
    /// The bearer token.
    pub token: String,
}

/// `config.toml`.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    server: Option<String>,
    /// The targets `cairn pull` syncs when none is named.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    targets: Vec<String>,
}

fn read_config(dir: &Path) -> Result<ConfigFile, ConfigError> {
    let path = dir.join("config.toml");
    match read_optional(&path)? {
        Some(text) => toml::from_str(&text).map_err(|e| ConfigError::Invalid {
            path,
            reason: e.message().to_owned(),
        }),
        None => Ok(ConfigFile::default()),
    }
}

/// The targets listed in `config.toml` (`targets = ["hermes", "/srv/skills"]`).
pub fn targets(dir: &Path) -> Result<Vec<String>, ConfigError> {
    Ok(read_config(dir)?.targets)
}

/// The client's configuration folder: `$XDG_CONFIG_HOME/cairn` (or `~/.config/cairn`).
pub fn config_dir() -> Result<PathBuf, ConfigError> {
    dirs::config_dir()
        .map(|d| d.join("cairn"))
        .ok_or(ConfigError::NoConfigDir)
}

/// Checks and normalises a server URL: http or https, a host, no query or fragment; the
/// trailing slash dropped.
pub fn parse_server(raw: &str) -> Result<String, ConfigError> {
    let bad = |reason| ConfigError::BadServer {
        url: raw.to_owned(),
        reason,
    };
    let url = reqwest::Url::parse(raw.trim()).map_err(|_| bad("it is not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(bad("use http:// or https://"));
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(bad("drop the ?query and #fragment"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad("put no credentials in the URL; pass the token with --token"));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// Checks a token's shape (the registry checks the rest).
pub fn parse_token(raw: &str) -> Result<String, ConfigError> {
    let token = raw.trim();
    if token.is_empty() || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ConfigError::BadToken);
    }
    Ok(token.to_owned())
}

/// The profile from the environment (`CAIRN_SERVER`, `CAIRN_TOKEN`) over the saved login
/// in `dir`.
pub fn load(dir: &Path, env: impl Fn(&str) -> Option<String>) -> Result<Profile, ConfigError> {
    load_or(dir, env, None)
}

/// Like [`load`], with a server to use when neither the environment nor a saved login
/// names one (a lock file's).
pub fn load_or(
    dir: &Path,
    env: impl Fn(&str) -> Option<String>,
    default_server: Option<&str>,
) -> Result<Profile, ConfigError> {
    let env = |key: &str| env(key).filter(|v| !v.trim().is_empty());
    let saved_server = read_config(dir)?.server;
    let saved_token = read_optional(&dir.join("token"))?;
    let server = env("CAIRN_SERVER")
        .or(saved_server)
        .or(default_server.map(str::to_owned));
    let token = env("CAIRN_TOKEN").or(saved_token);
    match (server, token) {
        (None, None) => Err(ConfigError::NotLoggedIn),
        (None, Some(_)) => Err(ConfigError::Missing("the server")),
        (Some(_), None) => Err(ConfigError::Missing("the token")),
        (Some(server), Some(token)) => Ok(Profile {
            server: parse_server(&server)?,
            token: parse_token(&token)?,
        }),
    }
}

/// Saves a login: the folder 0700, `token` 0600, each file replaced atomically (a crash
/// leaves the old login or the new one, never half of one).
pub fn save(dir: &Path, profile: &Profile) -> Result<(), ConfigError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| ConfigError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    set_mode(dir, 0o700).map_err(io(dir))?;
    // Other settings (targets) are kept; a broken file is replaced.
    let targets = read_config(dir).map(|c| c.targets).unwrap_or_default();
    let config = toml::to_string(&ConfigFile {
        server: Some(profile.server.clone()),
        targets,
    })
    .map_err(|e| ConfigError::Invalid {
        path: dir.join("config.toml"),
        reason: e.to_string(),
    })?;
    write_atomically(dir, "token", format!("{}\n", profile.token).as_bytes(), 0o600)?;
    write_atomically(dir, "config.toml", config.as_bytes(), 0o644)?;
    Ok(())
}

fn write_atomically(dir: &Path, name: &str, bytes: &[u8], mode: u32) -> Result<(), ConfigError> {
    crate::folder::write_atomically(&dir.join(name), bytes, Some(mode), true).map_err(|e| ConfigError::Io {
        path: e.path,
        source: e.source,
    })
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

fn read_optional(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Io {
            path: path.to_owned(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_normalised_and_bad_ones_refused_with_the_reason() {
        assert_eq!(
            parse_server("https://cairn.example.com/").unwrap(),
            "https://cairn.example.com"
        );
        assert_eq!(
            parse_server(" http://127.0.0.1:7878 ").unwrap(),
            "http://127.0.0.1:7878"
        );
        assert_eq!(
            parse_server("https://example.com/cairn/").unwrap(),
            "https://example.com/cairn"
        );
        for (bad, reason) in [
            ("cairn.example.com", "not a URL"),
            ("ftp://example.com", "http://"),
            ("https://example.com/?x=1", "query"),
            ("https://user:pw@example.com", "credentials"),
        ] {
            let e = parse_server(bad).unwrap_err().to_string();
            assert!(e.contains(reason), "{bad}: {e}");
        }
    }

    #[test]
    fn the_environment_overrides_the_saved_login_and_partial_logins_say_what_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        assert!(matches!(load(dir.path(), none), Err(ConfigError::NotLoggedIn)));
        let saved = Profile {
            server: "http://saved:1".to_owned(),
            token: "saved-token".to_owned(),
        };
        save(dir.path(), &saved).unwrap();
        assert_eq!(load(dir.path(), none).unwrap(), saved);
        let env = |k: &str| (k == "CAIRN_SERVER").then(|| "https://env.example".to_owned());
        let mixed = load(dir.path(), env).unwrap();
        assert_eq!(
            (mixed.server.as_str(), mixed.token.as_str()),
            ("https://env.example", "saved-token")
        );

        let only_env_token = tempfile::tempdir().unwrap();
        let token_only = |k: &str| (k == "CAIRN_TOKEN").then(|| "t".to_owned());
        let e = load(only_env_token.path(), token_only).unwrap_err().to_string();
        assert!(e.starts_with("the server is not set"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn the_token_file_is_private_and_saving_replaces_whole_files() {
        use std::os::unix::fs::PermissionsExt as _;
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("cairn");
        let profile = Profile {
            server: "http://a:1".to_owned(),
            token: "one".to_owned(),
        };
        save(&dir, &profile).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir.join("token")), 0o600);
        assert_eq!(mode(&dir), 0o700);
        save(
            &dir,
            &Profile {
                token: "two".to_owned(),
                ..profile
            },
        )
        .unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("token")).unwrap(), "two\n");
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 2, "no temporary files are left behind");
    }

    #[test]
    fn a_broken_config_file_is_named_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("config.toml"), "server = [").unwrap();
        let e = load(dir.path(), |_| None).unwrap_err().to_string();
        assert!(e.contains("config.toml") && e.contains("cairn login"), "{e}");
    }
}
