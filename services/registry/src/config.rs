//! Configuration: flags and environment variables, read in one place.
//!
//! Every setting has a flag or an environment variable (see the README's table). Secrets
//! are wrapped in [`Secret`] so they cannot end up in logs through `Debug`.

use std::net::SocketAddr;
use std::path::PathBuf;

use cairn_skill::Limits;
use cairn_store::blob::S3Settings;

/// A value that must never be printed (database URLs with passwords, signing keys).
#[derive(Clone)]
pub struct Secret<T>(T);

impl<T> Secret<T> {
    /// Wraps a secret value.
    pub fn new(value: T) -> Self {
        Secret(value)
    }

    /// The secret itself, for the one place that needs it.
    pub fn expose(&self) -> &T {
        &self.0
    }
}

impl<T> std::fmt::Debug for Secret<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// Where blobs are kept.
#[derive(Clone, Debug)]
pub enum BlobConfig {
    /// A local directory (default: `<data-dir>/blobs`).
    Fs(PathBuf),
    /// An S3 bucket (`CAIRN_BLOB_STORE=s3` and `CAIRN_S3_*`).
    S3(S3Settings),
}

/// Everything the registry needs to start, resolved from flags and environment.
#[derive(Clone, Debug)]
pub struct Config {
    /// Directory for the embedded database, blobs, the signing key and the admin token.
    pub data_dir: PathBuf,
    /// External PostgreSQL; `None` starts the embedded one under `data_dir`.
    pub database_url: Option<Secret<String>>,
    /// Blob backend.
    pub blobs: BlobConfig,
    /// JWT signing secret from `CAIRN_JWT_SECRET`; `None` uses `<data-dir>/jwt.secret`.
    pub jwt_secret: Option<Secret<String>>,
    /// Bundle limits applied to everything written.
    pub limits: Limits,
    /// Database pool size.
    pub max_connections: u32,
}

/// Settings that only `serve` needs.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// Address to listen on.
    pub listen: SocketAddr,
}

/// Why the configuration cannot be used; each message names the setting to fix.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// An environment variable has a value that cannot be used.
    #[error("{variable}={value:?} is not valid: {hint}")]
    Invalid {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What would be valid.
        hint: &'static str,
    },
    /// The S3 settings are incomplete.
    #[error("{0}")]
    S3(String),
}

impl Config {
    /// Resolves the configuration for `data_dir` from the process environment.
    pub fn from_env(data_dir: PathBuf) -> Result<Self, ConfigError> {
        Self::from_lookup(data_dir, |key| std::env::var(key).ok())
    }

    /// Resolves the configuration with an explicit variable lookup (used by tests).
    pub fn from_lookup(data_dir: PathBuf, env: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let non_empty = |key: &str| env(key).filter(|v| !v.trim().is_empty());
        let database_url = non_empty("CAIRN_DATABASE_URL")
            .or_else(|| non_empty("DATABASE_URL"))
            .map(Secret::new);
        let blobs = match non_empty("CAIRN_BLOB_STORE").as_deref() {
            None | Some("fs") => BlobConfig::Fs(
                non_empty("CAIRN_BLOB_DIR")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| data_dir.join("blobs")),
            ),
            Some("s3") => BlobConfig::S3(S3Settings::from_env().map_err(|e| ConfigError::S3(e.to_string()))?),
            Some(other) => {
                return Err(ConfigError::Invalid {
                    variable: "CAIRN_BLOB_STORE",
                    value: other.to_owned(),
                    hint: "use 'fs' (default) or 's3'",
                });
            }
        };
        let max_connections = match non_empty("CAIRN_DATABASE_MAX_CONNECTIONS") {
            None => 16,
            Some(v) => v.parse().ok().filter(|n| *n > 0).ok_or(ConfigError::Invalid {
                variable: "CAIRN_DATABASE_MAX_CONNECTIONS",
                value: v,
                hint: "use a positive whole number",
            })?,
        };
        Ok(Config {
            data_dir,
            database_url,
            blobs,
            jwt_secret: non_empty("CAIRN_JWT_SECRET").map(Secret::new),
            limits: Limits::default(),
            max_connections,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_lookup(PathBuf::from("/data"), |key| {
            vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn defaults_use_the_embedded_database_and_local_blobs() {
        let c = config(&[]).unwrap();
        assert!(c.database_url.is_none());
        assert!(matches!(c.blobs, BlobConfig::Fs(ref p) if p == &PathBuf::from("/data/blobs")));
        assert_eq!(c.max_connections, 16);
        assert!(c.jwt_secret.is_none());
    }

    #[test]
    fn cairn_database_url_wins_and_empty_values_count_as_unset() {
        let c = config(&[
            ("DATABASE_URL", "postgres://a/b"),
            ("CAIRN_DATABASE_URL", "postgres://c/d"),
        ])
        .unwrap();
        assert_eq!(c.database_url.unwrap().expose(), "postgres://c/d");
        let c = config(&[("DATABASE_URL", "postgres://a/b"), ("CAIRN_DATABASE_URL", " ")]).unwrap();
        assert_eq!(c.database_url.unwrap().expose(), "postgres://a/b");
        let c = config(&[("CAIRN_BLOB_DIR", "/elsewhere")]).unwrap();
        assert!(matches!(c.blobs, BlobConfig::Fs(ref p) if p == &PathBuf::from("/elsewhere")));
    }

    #[test]
    fn invalid_values_name_the_variable() {
        let e = config(&[("CAIRN_BLOB_STORE", "ftp")]).unwrap_err().to_string();
        assert!(e.contains("CAIRN_BLOB_STORE") && e.contains("'s3'"), "{e}");
        let e = config(&[("CAIRN_DATABASE_MAX_CONNECTIONS", "0")])
            .unwrap_err()
            .to_string();
        assert!(e.contains("CAIRN_DATABASE_MAX_CONNECTIONS"), "{e}");
    }

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let c = config(&[
            ("CAIRN_DATABASE_URL", "postgres://u:hunter2@h/db"),
            ("CAIRN_JWT_SECRET", "s3cr3t-s3cr3t"),
        ])
        .unwrap();
        let shown = format!("{c:?}");
        assert!(!shown.contains("hunter2") && !shown.contains("s3cr3t"), "{shown}");
    }
}
