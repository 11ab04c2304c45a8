//! Bringing the registry's resources up and down: the database (external or embedded),
//! migrations, the blob store and the token signing key. Shared by `serve` and every
//! admin subcommand, so they all reach the same data for the same `--data-dir`.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use cairn_store::Store;
use cairn_store::blob::{BlobStore, FsBlobStore, S3BlobStore};
use cairn_store::embedded::{ClusterClaim, EmbeddedPostgres};

use cairn_store::log::{LogOpening, LogSigner};

use crate::auth::TokenKeys;
use crate::bootstrap;
use crate::config::{BlobConfig, Config};
use crate::signing;

/// Name of the database the embedded cluster serves Cairn from.
const EMBEDDED_DATABASE: &str = "cairn";

/// The opened resources. Call [`Runtime::close`] when done so an embedded database this
/// process started is stopped cleanly.
pub struct Runtime {
    /// Metadata store, migrated.
    pub store: Store,
    /// Blob backend.
    pub blobs: Arc<dyn BlobStore>,
    /// JWT keys.
    pub keys: TokenKeys,
    /// The admin token, when this start bootstrapped an empty database (shown once).
    pub bootstrap_token: Option<String>,
    /// What opening the transparency log with the configured signing key found.
    pub log: LogOpening,
    embedded: Option<Embedded>,
}

impl Runtime {
    /// Opens the database (starting the embedded one when no URL is configured), applies
    /// migrations, opens the blob store, loads (or creates) the signing key and, on an
    /// empty database, bootstraps the default organisation and its admin.
    pub async fn open(config: &Config) -> Result<Self> {
        ensure_data_dir(&config.data_dir)?;
        // Everything that needs no database first, so a bad setting starts nothing.
        let blobs: Arc<dyn BlobStore> = match &config.blobs {
            BlobConfig::Fs(root) => Arc::new(FsBlobStore::new(root.clone()).context("opening the blob directory")?),
            BlobConfig::S3(settings) => {
                Arc::new(S3BlobStore::new(settings.clone()).context("configuring the S3 blob store")?)
            }
        };
        let previous: Vec<String> = config.jwt_previous_secrets.iter().map(|s| s.expose().clone()).collect();
        let keys = TokenKeys::load(
            config.jwt_secret.as_ref().map(|s| s.expose().as_str()),
            &previous,
            &config.data_dir,
        )?;
        let signer = LogSigner::new(signing::load(&config.signing_key, &config.data_dir)?);
        let embedded = match &config.database_url {
            Some(_) => None,
            None => {
                let cluster = config.data_dir.join("postgres");
                let claim = ClusterClaim::acquire(&cluster)
                    .await
                    .context("claiming the embedded PostgreSQL")?;
                match EmbeddedPostgres::start(&cluster).await {
                    Ok(pg) => Some(Embedded { pg, claim }),
                    Err(e) => {
                        let _ = claim.release();
                        return Err(anyhow::Error::new(e).context("starting the embedded PostgreSQL"));
                    }
                }
            }
        };
        match open_database(config, embedded.as_ref().map(|e| &e.pg), &keys, signer).await {
            Ok((store, bootstrap_token, log)) => Ok(Runtime {
                store,
                blobs,
                keys,
                bootstrap_token,
                log,
                embedded,
            }),
            Err(e) => {
                if let Some(embedded) = embedded {
                    embedded.leave().await;
                }
                Err(e)
            }
        }
    }

    /// Fails with what to do when the configured signing key is not the log's active key
    /// (serving would refuse every publish).
    pub fn ensure_signing(&self) -> Result<()> {
        let key = self
            .store
            .log_signer()
            .map(|s| s.key().id().to_string())
            .unwrap_or_default();
        match &self.log {
            LogOpening::Ready(_) => Ok(()),
            LogOpening::OtherKeyActive { active } => anyhow::bail!(
                "the configured signing key {key} is not the transparency log's active key {active}: give this \
                 registry the active key (CAIRN_SIGNING_KEY_FILE, as every replica), or make this one active with \
                 `cairn-registry key activate`"
            ),
            LogOpening::KeyNotActive { status } => anyhow::bail!(
                "the configured signing key {key} is {status}: give this registry the active key \
                 (CAIRN_SIGNING_KEY_FILE, as every replica; `cairn-registry key list` names it)"
            ),
        }
    }

    /// Closes the pool and gives up this process's claim on the embedded database; the
    /// last process to leave stops it (see [`ClusterClaim`]).
    pub async fn close(self) {
        self.store.pool().close().await;
        if let Some(embedded) = self.embedded {
            embedded.leave().await;
        }
    }
}

/// The embedded server this process uses, and its claim on it.
struct Embedded {
    pg: EmbeddedPostgres,
    claim: ClusterClaim,
}

impl Embedded {
    /// Releases the claim; stops the server when this was the last one.
    async fn leave(self) {
        match self.claim.release() {
            Ok(Some(last)) => {
                if let Err(e) = self.pg.stop_even_if_reused().await {
                    tracing::warn!(error = %e, "stopping the embedded PostgreSQL failed");
                }
                drop(last);
            }
            Ok(None) => tracing::info!("leaving the embedded PostgreSQL running: another process still uses it"),
            Err(e) => tracing::warn!(error = %e, "releasing the embedded PostgreSQL failed; leaving it running"),
        }
    }
}

/// Connects, migrates and bootstraps; the caller stops an embedded server on failure.
async fn open_database(
    config: &Config,
    embedded: Option<&EmbeddedPostgres>,
    keys: &TokenKeys,
    signer: LogSigner,
) -> Result<(Store, Option<String>, LogOpening)> {
    let url = match (embedded, &config.database_url) {
        (Some(pg), _) => {
            pg.ensure_database(EMBEDDED_DATABASE)
                .await
                .context("creating the embedded database")?;
            pg.database_url(EMBEDDED_DATABASE)
        }
        (None, Some(url)) => url.expose().clone(),
        (None, None) => anyhow::bail!("no database configured"),
    };
    let store = Store::connect(&url, config.max_connections).await.context(
        "connecting to PostgreSQL failed: check CAIRN_DATABASE_URL (or unset it to use the embedded database)",
    )?;
    store.migrate().await.context("applying database migrations")?;
    let token = bootstrap::bootstrap(&store, keys, &config.data_dir)
        .await
        .context("creating the default organisation and admin")?;
    let name = config
        .registry_name
        .clone()
        .unwrap_or_else(signing::default_registry_name);
    let log = store
        .open_log(&name, &signer)
        .await
        .context("opening the transparency log")?;
    if let LogOpening::Ready(head) = &log
        && config.registry_name.as_ref().is_some_and(|n| *n != head.origin)
    {
        tracing::warn!(
            configured = %name, log = %head.origin,
            "CAIRN_REGISTRY_NAME differs from the name the log was opened with; the log keeps its name"
        );
    }
    let store = store.with_log_signer(signer);
    if let LogOpening::Ready(_) = &log {
        let attested = store
            .attest_unlogged_versions()
            .await
            .context("attesting versions published before this registry signed them")?;
        if attested > 0 {
            tracing::info!(attested, "attested versions published before signing was enabled");
        }
    }
    Ok((store, token, log))
}

/// Creates the data directory (mode 0711: other users, such as the unprivileged account
/// the embedded PostgreSQL runs as, may traverse it but not list it).
fn ensure_data_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o711)
            .create(dir)
            .with_context(|| format!("creating the data directory {}", dir.display()))?;
    }
    Ok(())
}
