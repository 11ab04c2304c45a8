//! Configuration: flags and environment variables, read in one place.
//!
//! Every setting has a flag or an environment variable (see the README's table). Secrets
//! are wrapped in [`Secret`] so they cannot end up in logs through `Debug`.

use std::net::SocketAddr;
use std::path::PathBuf;

use std::time::Duration;

use cairn_skill::Limits;
use cairn_store::blob::S3Settings;

use crate::ratelimit::{Limit, RateLimits};

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
    /// Retired signing secrets that still verify (`CAIRN_JWT_PREVIOUS_SECRETS`).
    pub jwt_previous_secrets: Vec<Secret<String>>,
    /// Database pool size.
    pub max_connections: u32,
    /// Token lifetimes, rate limits and client addresses.
    pub access: AccessSettings,
    /// Metrics and blob garbage collection.
    pub operations: OperationsSettings,
    /// Networks webhooks may reach although they are not public
    /// (`CAIRN_WEBHOOK_ALLOW_NETWORKS`, CIDR list; empty by default).
    pub webhook_networks: crate::app::outbound::OutboundPolicy,
    /// The `Host` names the MCP endpoint answers (`CAIRN_MCP_ALLOWED_HOSTS`, comma-separated,
    /// `*` for any; default: localhost, 127.0.0.1 and ::1).
    pub mcp_allowed_hosts: Vec<String>,
    /// Where the Ed25519 key that signs attestations and checkpoints comes from.
    pub signing_key: crate::signing::KeySource,
    /// The registry's name in attestations and its log's origin (`CAIRN_REGISTRY_NAME`;
    /// default: this machine's host name). Fixed when the log is first opened.
    pub registry_name: Option<String>,
}

/// Settings of the operational side (issue 10): where metrics are served and how blob
/// garbage collection runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperationsSettings {
    /// Where `/metrics` is served (`CAIRN_METRICS_LISTEN`); `None`: not served.
    pub metrics_listen: Option<SocketAddr>,
    /// How often this process collects unreferenced blobs (`CAIRN_GC_INTERVAL`, `off` to
    /// leave it to `cairn-registry gc`).
    pub gc_interval: Option<Duration>,
    /// How long a blob nobody references is kept after it was last written or reused
    /// (`CAIRN_GC_GRACE`): longer than any upload-to-publish or submit-to-commit gap.
    pub gc_grace: Duration,
}

/// The shortest grace period accepted: a publish or a patch must commit within it.
pub const MIN_GC_GRACE: Duration = Duration::from_secs(60);

impl Default for OperationsSettings {
    fn default() -> Self {
        OperationsSettings {
            metrics_listen: None,
            gc_interval: Some(Duration::from_secs(3600)),
            gc_grace: Duration::from_secs(24 * 3600),
        }
    }
}

/// The hosts the MCP endpoint answers by default (a registry reached by another name lists
/// it in `CAIRN_MCP_ALLOWED_HOSTS`): requests naming another `Host` could come from a web
/// page that re-bound a name to this address (DNS rebinding).
pub const DEFAULT_MCP_ALLOWED_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Settings of the access layer (issue 3): token lifetimes, rate limits, proxies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessSettings {
    /// Lifetime of a token issued without an explicit one (`CAIRN_TOKEN_DEFAULT_TTL`).
    pub default_token_ttl: Duration,
    /// Longest lifetime a token may be issued with (`CAIRN_TOKEN_MAX_TTL`).
    pub max_token_ttl: Duration,
    /// Request rate limits (`CAIRN_RATE_LIMIT_TOKEN`, `CAIRN_RATE_LIMIT_ADDRESS`).
    pub rate_limits: RateLimits,
    /// How many reverse proxies in front of the registry append to `X-Forwarded-For`
    /// (`CAIRN_TRUSTED_PROXY_HOPS`); 0 uses the connection's address.
    pub trusted_proxy_hops: usize,
    /// Live-change streams (`WatchIndex`, `GET /v1/events`) one token may hold open at
    /// once (`CAIRN_MAX_WATCHES_PER_TOKEN`).
    pub max_watches_per_token: usize,
    /// How long an admin-page login lasts (`CAIRN_ADMIN_SESSION_TTL`); never longer than
    /// the token it was made with.
    pub admin_session_ttl: Duration,
    /// Whether the review web's cookies are always `Secure` (`CAIRN_COOKIE_SECURE=always`,
    /// for a registry only reached over TLS); otherwise (`auto`) only when a trusted proxy
    /// says the request came over TLS.
    pub cookie_secure_always: bool,
}

impl Default for AccessSettings {
    fn default() -> Self {
        AccessSettings {
            default_token_ttl: Duration::from_secs(30 * 24 * 3600),
            max_token_ttl: Duration::from_secs(366 * 24 * 3600),
            rate_limits: RateLimits::default(),
            trusted_proxy_hops: 0,
            max_watches_per_token: 256,
            admin_session_ttl: Duration::from_secs(12 * 3600),
            cookie_secure_always: false,
        }
    }
}

/// Parses a duration such as `30d`, `12h` or `90min`.
pub fn parse_ttl(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim())
        .map_err(|_| format!("'{text}' is not a duration: write it like 30d, 12h or 90min"))
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
    /// An environment variable has a value that cannot be used (with a computed hint).
    #[error("{variable}={value:?} is not valid: {hint}")]
    Unusable {
        /// The variable.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What is wrong and what would be valid.
        hint: String,
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
        let access = access_settings(&non_empty)?;
        let operations = operations_settings(&non_empty)?;
        let webhook_networks = match non_empty("CAIRN_WEBHOOK_ALLOW_NETWORKS") {
            None => crate::app::outbound::OutboundPolicy::strict(),
            Some(value) => {
                crate::app::outbound::OutboundPolicy::parse(&value).map_err(|hint| ConfigError::Unusable {
                    variable: "CAIRN_WEBHOOK_ALLOW_NETWORKS",
                    value,
                    hint,
                })?
            }
        };
        let mcp_allowed_hosts = match non_empty("CAIRN_MCP_ALLOWED_HOSTS") {
            None => DEFAULT_MCP_ALLOWED_HOSTS.map(String::from).to_vec(),
            Some(value) => {
                let hosts: Vec<String> = value
                    .split(',')
                    .map(str::trim)
                    .filter(|h| !h.is_empty())
                    .map(String::from)
                    .collect();
                if hosts.is_empty() || hosts.iter().any(|h| h.contains(['/', ' '])) {
                    return Err(ConfigError::Invalid {
                        variable: "CAIRN_MCP_ALLOWED_HOSTS",
                        value,
                        hint: "use host names, each optionally with a port, separated by commas (e.g. registry.example.com,localhost), or '*' for any",
                    });
                }
                hosts
            }
        };
        let signing_key = match (non_empty("CAIRN_SIGNING_KEY"), non_empty("CAIRN_SIGNING_KEY_FILE")) {
            (Some(_), Some(file)) => {
                return Err(ConfigError::Invalid {
                    variable: "CAIRN_SIGNING_KEY_FILE",
                    value: file,
                    hint: "set either CAIRN_SIGNING_KEY (the key's PEM text) or CAIRN_SIGNING_KEY_FILE (its path), not both",
                });
            }
            (Some(pem), None) => crate::signing::KeySource::Inline(Secret::new(pem)),
            (None, Some(file)) => crate::signing::KeySource::File(PathBuf::from(file.trim())),
            (None, None) => crate::signing::KeySource::DataDir,
        };
        let registry_name = match non_empty("CAIRN_REGISTRY_NAME") {
            None => None,
            Some(value) => Some(crate::signing::check_registry_name(value.trim()).map_err(|_| ConfigError::Invalid {
                variable: "CAIRN_REGISTRY_NAME",
                value,
                hint: "use a host name, optionally with a port and a path (letters, digits, '.', '-', '_', ':' and '/'), such as skills.example.com",
            })?),
        };
        let jwt_previous_secrets = non_empty("CAIRN_JWT_PREVIOUS_SECRETS")
            .map(|v| {
                v.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(|s| Secret::new(s.to_owned()))
                    .collect()
            })
            .unwrap_or_default();
        Ok(Config {
            data_dir,
            database_url,
            blobs,
            jwt_secret: non_empty("CAIRN_JWT_SECRET").map(Secret::new),
            jwt_previous_secrets,
            limits: Limits::default(),
            max_connections,
            access,
            operations,
            webhook_networks,
            mcp_allowed_hosts,
            signing_key,
            registry_name,
        })
    }
}

/// Reads the operations settings; each bad value is reported with its variable.
fn operations_settings(env: &impl Fn(&str) -> Option<String>) -> Result<OperationsSettings, ConfigError> {
    let mut settings = OperationsSettings::default();
    if let Some(value) = env("CAIRN_METRICS_LISTEN") {
        settings.metrics_listen = Some(value.trim().parse().map_err(|_| ConfigError::Invalid {
            variable: "CAIRN_METRICS_LISTEN",
            value,
            hint: "use an address and port such as 0.0.0.0:9464",
        })?);
    }
    if let Some(value) = env("CAIRN_GC_INTERVAL") {
        settings.gc_interval = if value.trim().eq_ignore_ascii_case("off") {
            None
        } else {
            Some(
                parse_ttl(&value)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or(ConfigError::Invalid {
                        variable: "CAIRN_GC_INTERVAL",
                        value,
                        hint: "use a duration such as 1h, or 'off' to collect only with `cairn-registry gc`",
                    })?,
            )
        };
    }
    if let Some(value) = env("CAIRN_GC_GRACE") {
        settings.gc_grace = parse_ttl(&value)
            .ok()
            .filter(|d| *d >= MIN_GC_GRACE)
            .ok_or(ConfigError::Invalid {
                variable: "CAIRN_GC_GRACE",
                value,
                hint: "use a duration of at least 1m, such as 24h",
            })?;
    }
    Ok(settings)
}

/// Reads the access settings; each bad value is reported with its variable.
fn access_settings(env: &impl Fn(&str) -> Option<String>) -> Result<AccessSettings, ConfigError> {
    let mut settings = AccessSettings::default();
    let unusable =
        |variable: &'static str, value: String, hint: String| ConfigError::Unusable { variable, value, hint };
    for (variable, slot) in [
        ("CAIRN_TOKEN_DEFAULT_TTL", &mut settings.default_token_ttl),
        ("CAIRN_TOKEN_MAX_TTL", &mut settings.max_token_ttl),
        ("CAIRN_ADMIN_SESSION_TTL", &mut settings.admin_session_ttl),
    ] {
        if let Some(value) = env(variable) {
            *slot = parse_ttl(&value).map_err(|hint| unusable(variable, value, hint))?;
        }
    }
    if settings.default_token_ttl > settings.max_token_ttl {
        return Err(unusable(
            "CAIRN_TOKEN_DEFAULT_TTL",
            humantime::format_duration(settings.default_token_ttl).to_string(),
            "it is longer than CAIRN_TOKEN_MAX_TTL: shorten it or raise the maximum".to_owned(),
        ));
    }
    for (variable, slot) in [
        ("CAIRN_RATE_LIMIT_TOKEN", &mut settings.rate_limits.per_token),
        ("CAIRN_RATE_LIMIT_ADDRESS", &mut settings.rate_limits.per_address),
        (
            "CAIRN_RATE_LIMIT_PROPOSALS",
            &mut settings.rate_limits.proposals_per_token,
        ),
        (
            "CAIRN_RATE_LIMIT_USER_PROPOSALS",
            &mut settings.rate_limits.proposals_per_user,
        ),
    ] {
        if let Some(value) = env(variable) {
            *slot = Limit::parse(&value).map_err(|hint| unusable(variable, value, hint))?;
        }
    }
    if let Some(value) = env("CAIRN_TRUSTED_PROXY_HOPS") {
        settings.trusted_proxy_hops = value.trim().parse().map_err(|_| ConfigError::Invalid {
            variable: "CAIRN_TRUSTED_PROXY_HOPS",
            value,
            hint: "use the number of reverse proxies in front of the registry (0 when clients connect directly)",
        })?;
    }
    if let Some(value) = env("CAIRN_COOKIE_SECURE") {
        settings.cookie_secure_always = match value.trim() {
            "always" => true,
            "auto" => false,
            _ => {
                return Err(ConfigError::Invalid {
                    variable: "CAIRN_COOKIE_SECURE",
                    value,
                    hint: "use 'auto' (Secure when a trusted proxy says TLS) or 'always' (only reached over TLS)",
                });
            }
        };
    }
    if let Some(value) = env("CAIRN_MAX_WATCHES_PER_TOKEN") {
        match value.trim().parse::<usize>() {
            Ok(n) if n > 0 => settings.max_watches_per_token = n,
            _ => {
                return Err(ConfigError::Invalid {
                    variable: "CAIRN_MAX_WATCHES_PER_TOKEN",
                    value,
                    hint: "use a positive number of streams, e.g. 256",
                });
            }
        }
    }
    Ok(settings)
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
    fn mcp_allowed_hosts_parse_and_bad_lists_say_how_to_write_them() {
        assert_eq!(
            config(&[]).unwrap().mcp_allowed_hosts,
            DEFAULT_MCP_ALLOWED_HOSTS.to_vec()
        );
        let c = config(&[("CAIRN_MCP_ALLOWED_HOSTS", " skills.example.com , localhost:7878,")]).unwrap();
        assert_eq!(c.mcp_allowed_hosts, ["skills.example.com", "localhost:7878"]);
        assert_eq!(
            config(&[("CAIRN_MCP_ALLOWED_HOSTS", "*")]).unwrap().mcp_allowed_hosts,
            ["*"]
        );
        for bad in [",", "https://skills.example.com", "two words"] {
            let e = config(&[("CAIRN_MCP_ALLOWED_HOSTS", bad)]).unwrap_err().to_string();
            assert!(
                e.contains("CAIRN_MCP_ALLOWED_HOSTS") && e.contains("separated by commas"),
                "{bad}: {e}"
            );
        }
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
    fn access_settings_parse_and_bad_values_name_their_variable() {
        let c = config(&[
            ("CAIRN_TOKEN_DEFAULT_TTL", "12h"),
            ("CAIRN_RATE_LIMIT_TOKEN", "off"),
            ("CAIRN_RATE_LIMIT_ADDRESS", "50/s"),
            ("CAIRN_RATE_LIMIT_PROPOSALS", "30/h"),
            ("CAIRN_RATE_LIMIT_USER_PROPOSALS", "off"),
            ("CAIRN_TRUSTED_PROXY_HOPS", "1"),
        ])
        .unwrap();
        assert_eq!(c.access.rate_limits.proposals_per_token.unwrap().to_string(), "30/h");
        assert_eq!(c.access.rate_limits.proposals_per_user, None);
        assert_eq!(c.access.default_token_ttl, Duration::from_secs(12 * 3600));
        assert_eq!(c.access.rate_limits.per_token, None);
        assert_eq!(c.access.rate_limits.per_address.unwrap().to_string(), "50/s");
        assert_eq!(c.access.trusted_proxy_hops, 1);
        assert_eq!(c.access.max_watches_per_token, 256);
        let c = config(&[("CAIRN_COOKIE_SECURE", "always"), ("CAIRN_ADMIN_SESSION_TTL", "2h")]).unwrap();
        assert!(c.access.cookie_secure_always);
        assert_eq!(c.access.admin_session_ttl, Duration::from_secs(7200));
        assert_eq!(c.operations, OperationsSettings::default());
        let c = config(&[
            ("CAIRN_METRICS_LISTEN", "0.0.0.0:9464"),
            ("CAIRN_GC_INTERVAL", "off"),
            ("CAIRN_GC_GRACE", "2h"),
        ])
        .unwrap();
        assert_eq!(c.operations.metrics_listen, Some("0.0.0.0:9464".parse().unwrap()));
        assert_eq!(c.operations.gc_interval, None);
        assert_eq!(c.operations.gc_grace, Duration::from_secs(7200));
        for (variable, value) in [
            ("CAIRN_MAX_WATCHES_PER_TOKEN", "0"),
            ("CAIRN_MAX_WATCHES_PER_TOKEN", "many"),
            ("CAIRN_TOKEN_MAX_TTL", "forever"),
            ("CAIRN_RATE_LIMIT_TOKEN", "lots"),
            ("CAIRN_TRUSTED_PROXY_HOPS", "-1"),
            ("CAIRN_COOKIE_SECURE", "yes"),
            ("CAIRN_ADMIN_SESSION_TTL", "soon"),
            ("CAIRN_METRICS_LISTEN", "everywhere"),
            ("CAIRN_GC_INTERVAL", "0s"),
            ("CAIRN_GC_GRACE", "10s"),
        ] {
            let e = config(&[(variable, value)]).unwrap_err().to_string();
            assert!(e.contains(variable), "{e}");
        }
        let e = config(&[("CAIRN_TOKEN_DEFAULT_TTL", "400d")]).unwrap_err().to_string();
        assert!(e.contains("CAIRN_TOKEN_MAX_TTL"), "{e}");
    }

    #[test]
    fn secrets_are_redacted_in_debug_output() {
        let c = config(&[
            ("CAIRN_DATABASE_URL", "postgres://u:hunter2@h/db"),
            ("CAIRN_JWT_SECRET", "s3cr3t-s3cr3t"),
            ("CAIRN_JWT_PREVIOUS_SECRETS", "0ld-s3cr3t,older"),
        ])
        .unwrap();
        let shown = format!("{c:?}");
        assert!(!shown.contains("hunter2") && !shown.contains("s3cr3t"), "{shown}");
        assert_eq!(c.jwt_previous_secrets.len(), 2);
    }
}
