//! The environment variables the registry reads, taken from its code, so the deployment
//! files can be checked against them: a misspelt name in a manifest is silently ignored
//! by the server, which is the failure these lists exist to catch.
//!
//! The tests check the other direction too: every name here must still appear as a string
//! literal in `services/registry/src` or `services/store/src`.

/// Every variable the `cairn-registry` binary reads, with where:
/// `main.rs` (clap `env`), `config.rs`, `telemetry.rs` and the store's `blob/s3.rs`.
pub const REGISTRY_ENV: &[&str] = &[
    // main.rs
    "CAIRN_DATA_DIR",
    "CAIRN_LISTEN",
    // telemetry.rs
    "CAIRN_LOG",
    "CAIRN_LOG_FORMAT",
    // config.rs
    "CAIRN_DATABASE_URL",
    "DATABASE_URL",
    "CAIRN_DATABASE_MAX_CONNECTIONS",
    "CAIRN_BLOB_STORE",
    "CAIRN_BLOB_DIR",
    "CAIRN_JWT_SECRET",
    "CAIRN_JWT_PREVIOUS_SECRETS",
    "CAIRN_TOKEN_DEFAULT_TTL",
    "CAIRN_TOKEN_MAX_TTL",
    "CAIRN_ADMIN_SESSION_TTL",
    "CAIRN_RATE_LIMIT_TOKEN",
    "CAIRN_RATE_LIMIT_ADDRESS",
    "CAIRN_RATE_LIMIT_PROPOSALS",
    "CAIRN_RATE_LIMIT_USER_PROPOSALS",
    "CAIRN_TRUSTED_PROXY_HOPS",
    "CAIRN_COOKIE_SECURE",
    "CAIRN_MAX_WATCHES_PER_TOKEN",
    "CAIRN_METRICS_LISTEN",
    "CAIRN_GC_INTERVAL",
    "CAIRN_GC_GRACE",
    "CAIRN_WEBHOOK_ALLOW_NETWORKS",
    "CAIRN_MCP_ALLOWED_HOSTS",
    "CAIRN_SIGNING_KEY",
    "CAIRN_SIGNING_KEY_FILE",
    "CAIRN_REGISTRY_NAME",
    // store: blob/s3.rs
    "CAIRN_S3_ENDPOINT",
    "CAIRN_S3_REGION",
    "CAIRN_S3_BUCKET",
    "CAIRN_S3_ACCESS_KEY_ID",
    "CAIRN_S3_SECRET_ACCESS_KEY",
    "CAIRN_S3_FORCE_PATH_STYLE",
    "CAIRN_S3_PREFIX",
];

/// The variables that hold secrets: a deployment may only *reference* them (a Kubernetes
/// `secretKeyRef`), never carry their values, except in files for laptops and development
/// clusters whose values say so.
pub const SECRET_ENV: &[&str] = &[
    "CAIRN_DATABASE_URL",
    "DATABASE_URL",
    "CAIRN_JWT_SECRET",
    "CAIRN_JWT_PREVIOUS_SECRETS",
    "CAIRN_SIGNING_KEY",
    "CAIRN_S3_ACCESS_KEY_ID",
    "CAIRN_S3_SECRET_ACCESS_KEY",
];

/// Whether the registry reads `name`.
pub fn is_registry_setting(name: &str) -> bool {
    REGISTRY_ENV.contains(&name)
}

/// Whether `name` holds a secret.
pub fn is_secret(name: &str) -> bool {
    SECRET_ENV.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_settings_and_names_are_unique() {
        for name in SECRET_ENV {
            assert!(is_registry_setting(name), "{name}");
        }
        let mut sorted = REGISTRY_ENV.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), REGISTRY_ENV.len());
        assert!(!is_registry_setting("CAIRN_S3_PATH_STYLE"));
    }
}
