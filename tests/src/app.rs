//! The real registry, served in-process on a random loopback port.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use cairn_registry::app::import::{ImportReport, import_tree};
use cairn_registry::app::live::LiveSettings;
use cairn_registry::auth::scopes::ScopeSet;
use cairn_registry::auth::{TokenKeys, TokenRequest, issue_token};
use cairn_registry::config::AccessSettings;
use cairn_registry::ratelimit::RateLimits;
use cairn_registry::{AppState, bootstrap};
use cairn_skill::Limits;
use cairn_store::blob::{BlobStore, FsBlobStore};
use cairn_store::log::{LogOpening, LogSigner};
use cairn_store::{Actor, Role, Store, User};
use cairn_test_support::skills::write_skill;
use serde_json::Value;
use tokio::sync::oneshot;

/// HTTP statuses, as the harness's helpers return them.
pub use reqwest::StatusCode;

use crate::db::{TestDb, table_counts};

/// A skill folder as [`write_skill`] takes it: `(rel, name, body, extra files)`.
pub type SkillFolder<'a> = (&'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);

/// A running registry with its own database, blob store and admin token.
pub struct TestApp {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    /// The bootstrap admin's token.
    pub admin_token: String,
    /// The metadata store the server uses.
    pub store: Store,
    /// The blob store the server uses.
    pub blobs: Arc<dyn BlobStore>,
    /// The signing keys the server trusts.
    pub keys: TokenKeys,
    /// The key the registry signs attestations and checkpoints with.
    pub signing_key: cairn_provenance::SigningKey,
    /// The default organisation's id.
    pub org_id: i64,
    /// An HTTP client.
    pub client: reqwest::Client,
    /// The data directory (blobs live under `blobs/` when the fs backend is used).
    pub data_dir: tempfile::TempDir,
    /// The server's authenticator (to wait until it follows access changes).
    pub auth: Arc<cairn_registry::auth::Authenticator>,
    /// The server's live feed (to observe watchers).
    pub live: Arc<cairn_registry::app::live::LiveFeed>,
    /// The server's shared state (metrics, settings, the tracked blob store).
    pub state: AppState,
    server: Running,
    /// Declared last: dropped after the server stopped.
    pub db: TestDb,
}

/// A temporary data directory with a filesystem blob store in `blobs/`.
fn fs_data_dir() -> Result<(tempfile::TempDir, Arc<dyn BlobStore>)> {
    let data_dir = tempfile::tempdir()?;
    let blobs: Arc<dyn BlobStore> = Arc::new(FsBlobStore::new(data_dir.path().join("blobs"))?);
    Ok((data_dir, blobs))
}

/// How a test registry signs.
enum Signing {
    /// With a key of its own.
    Fresh,
    /// With this key.
    Key(Box<cairn_provenance::SigningKey>),
    /// Not at all (benchmarks' baseline).
    Off,
}

/// The name test registries give their transparency log.
pub const TEST_REGISTRY: &str = "registry.test";

/// A store on `db` that signs with `key`, its log opened as [`TEST_REGISTRY`].
async fn signing_store(db: &TestDb, key: &cairn_provenance::SigningKey) -> Result<Store> {
    let signer = LogSigner::new(key.clone());
    let store = db.store().await?.with_log_signer(signer.clone());
    match store.open_log(TEST_REGISTRY, &signer).await? {
        LogOpening::Ready(_) => Ok(store),
        other => anyhow::bail!("a fresh log must open with the test key: {other:?}"),
    }
}

impl TestApp {
    /// Starts a registry with a filesystem blob store in a temporary directory.
    pub async fn spawn() -> Result<Self> {
        let (data_dir, blobs) = fs_data_dir()?;
        Self::spawn_with(data_dir, blobs).await
    }

    /// Starts a registry on the given blob store, without rate limits (tests that are
    /// about rate limits use [`TestApp::spawn_with_settings`]).
    pub async fn spawn_with(data_dir: tempfile::TempDir, blobs: Arc<dyn BlobStore>) -> Result<Self> {
        Self::spawn_with_settings(data_dir, blobs, no_rate_limits()).await
    }

    /// Starts a registry with these live-feed settings (heartbeats, limits).
    pub async fn spawn_with_live(settings: LiveSettings) -> Result<Self> {
        let (data_dir, blobs) = fs_data_dir()?;
        Self::start(
            data_dir,
            blobs,
            no_rate_limits(),
            Some(settings),
            loopback_receivers(),
            Signing::Fresh,
        )
        .await
    }

    /// Starts a registry whose webhooks may reach only these networks besides public
    /// addresses (the production default is none: [`OutboundPolicy::strict`]).
    ///
    /// [`OutboundPolicy::strict`]: cairn_registry::app::outbound::OutboundPolicy::strict
    pub async fn spawn_with_outbound(outbound: cairn_registry::app::outbound::OutboundPolicy) -> Result<Self> {
        let (data_dir, blobs) = fs_data_dir()?;
        Self::start(data_dir, blobs, no_rate_limits(), None, outbound, Signing::Fresh).await
    }

    /// Starts a registry with explicit access settings (rate limits, token lifetimes).
    pub async fn spawn_with_settings(
        data_dir: tempfile::TempDir,
        blobs: Arc<dyn BlobStore>,
        settings: AccessSettings,
    ) -> Result<Self> {
        Self::start(data_dir, blobs, settings, None, loopback_receivers(), Signing::Fresh).await
    }

    /// Starts a registry signing with `key` (two registries with one key and name but
    /// different histories: a forked log, as a witness must see it).
    pub async fn spawn_with_signing_key(key: cairn_provenance::SigningKey) -> Result<Self> {
        let (data_dir, blobs) = fs_data_dir()?;
        Self::start(
            data_dir,
            blobs,
            no_rate_limits(),
            None,
            loopback_receivers(),
            Signing::Key(Box::new(key)),
        )
        .await
    }

    /// Starts a registry that signs nothing and keeps no log: the "without provenance"
    /// side of the publishing benchmark's A/B comparison, never a configuration users get.
    pub async fn spawn_unsigned() -> Result<Self> {
        let (data_dir, blobs) = fs_data_dir()?;
        Self::start(
            data_dir,
            blobs,
            no_rate_limits(),
            None,
            loopback_receivers(),
            Signing::Off,
        )
        .await
    }

    async fn start(
        data_dir: tempfile::TempDir,
        blobs: Arc<dyn BlobStore>,
        settings: AccessSettings,
        live: Option<LiveSettings>,
        outbound: cairn_registry::app::outbound::OutboundPolicy,
        signing: Signing,
    ) -> Result<Self> {
        let db = TestDb::new().await?;
        let mut secret = [0u8; 32];
        secret.copy_from_slice(uuid::Uuid::new_v4().as_bytes().repeat(2).as_slice());
        let keys = TokenKeys::from_secret(&secret)?;
        let (signing_key, store) = match signing {
            Signing::Fresh => {
                let key = cairn_registry::signing::new_key();
                let store = signing_store(&db, &key).await?;
                (key, store)
            }
            Signing::Key(key) => {
                let store = signing_store(&db, &key).await?;
                (*key, store)
            }
            Signing::Off => (cairn_registry::signing::new_key(), db.store().await?),
        };
        let admin_token = bootstrap::bootstrap(&store, &keys, data_dir.path())
            .await?
            .ok_or_else(|| anyhow::anyhow!("a fresh database must bootstrap"))?;
        let org_id = store.org_by_slug(bootstrap::DEFAULT_ORG).await?.id;
        let mut state = AppState::new(store.clone(), blobs.clone(), keys.clone(), settings).with_outbound(outbound);
        if let Some(live) = live {
            state = state.with_live_settings(live);
        }
        let auth = state.auth.clone();
        let live = state.live.clone();
        let (base_url, server) = Running::start(state.clone()).await?;
        Ok(TestApp {
            base_url,
            admin_token,
            store,
            blobs,
            keys,
            signing_key,
            org_id,
            client: reqwest::Client::builder().timeout(Duration::from_secs(60)).build()?,
            data_dir,
            server,
            auth,
            live,
            state,
            db,
        })
    }

    /// Waits until the server follows access changes (its token cache is in use), so a
    /// test of "takes effect at once" exercises the cache rather than bypassing it.
    pub async fn wait_following(&self) -> Result<()> {
        for _ in 0..500 {
            if self.auth.is_following() {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        anyhow::bail!("the server did not subscribe to access changes within 5 s")
    }

    /// Starts a second registry process-alike on the same database, blob store and keys
    /// (a replica behind the same load balancer): its own pool, caches and live feed.
    pub async fn replica(&self) -> Result<Replica> {
        self.replica_with_key(self.signing_key.clone()).await
    }

    /// A replica given another signing key (one rolled out after a rotation).
    pub async fn replica_with_key(&self, key: cairn_provenance::SigningKey) -> Result<Replica> {
        let store = self.db.store().await?.with_log_signer(LogSigner::new(key));
        let state = AppState::new(store, self.blobs.clone(), self.keys.clone(), no_rate_limits())
            .with_outbound(loopback_receivers());
        let (base_url, server) = Running::start(state.clone()).await?;
        Ok(Replica {
            base_url,
            state,
            server,
        })
    }

    /// A gRPC client of this registry sending `token` (none: no `authorization`).
    pub async fn grpc(&self, token: Option<&str>) -> Result<GrpcClient> {
        grpc_client(&self.base_url, token).await
    }

    /// `DELETE /v1/tokens/{id}` with `token`; the status.
    pub async fn delete_token(&self, token: &str, id: &str) -> StatusCode {
        self.client
            .delete(self.url(&format!("/v1/tokens/{id}")))
            .bearer_auth(token)
            .send()
            .await
            .map(|r| r.status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// A GET with the admin token.
    pub fn get(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.get(self.url(path)).bearer_auth(&self.admin_token)
    }

    /// A POST with the admin token.
    pub fn post(&self, path: &str) -> reqwest::RequestBuilder {
        self.client.post(self.url(path)).bearer_auth(&self.admin_token)
    }

    /// A GET with `token`: tests act as many users, not only the admin.
    pub fn get_as(&self, token: &str, path: &str) -> reqwest::RequestBuilder {
        self.client.get(self.url(path)).bearer_auth(token)
    }

    /// A POST with `token`: tests act as many users, not only the admin.
    pub fn post_as(&self, token: &str, path: &str) -> reqwest::RequestBuilder {
        self.client.post(self.url(path)).bearer_auth(token)
    }

    /// GETs `path` as the admin and parses the JSON answer: the read-back most assertions start from.
    pub async fn get_json(&self, path: &str) -> Value {
        self.get_json_as(&self.admin_token, path).await
    }

    /// GETs `path` with `token` and parses the JSON answer: the read-back as another user.
    pub async fn get_json_as(&self, token: &str, path: &str) -> Value {
        self.get_as(token, path).send().await.unwrap().json().await.unwrap()
    }

    /// POSTs `body` to `path` with `token`; the status and the JSON answer (must be JSON).
    pub async fn post_json(&self, token: &str, path: &str, body: &Value) -> (StatusCode, Value) {
        let response = self.post_as(token, path).json(body).send().await.unwrap();
        (response.status(), response.json().await.unwrap())
    }

    /// Imports a tree into the default organisation through the same service the
    /// `cairn-registry import` command uses.
    pub async fn import(&self, dir: &Path) -> Result<ImportReport> {
        Ok(import_tree(
            &self.store,
            self.blobs.as_ref(),
            self.org_id,
            dir,
            &Limits::default(),
            &Actor::cli("import"),
        )
        .await?)
    }

    /// Imports one [`write_skill`] folder from a fresh temporary tree: how most tests start.
    pub async fn import_skill(&self, rel: &str, name: &str, body: &str, extra: &[(&str, &str)]) -> ImportReport {
        self.import_skills(&[(rel, name, body, extra)]).await
    }

    /// Imports several [`write_skill`] folders from one fresh temporary tree, in one import.
    pub async fn import_skills(&self, skills: &[SkillFolder<'_>]) -> ImportReport {
        let tree = tempfile::tempdir().unwrap();
        for (rel, name, body, extra) in skills {
            write_skill(tree.path(), rel, name, body, extra);
        }
        self.import(tree.path()).await.unwrap()
    }

    /// Imports `(path, content)` files from a fresh temporary tree: for tests with their own SKILL.md.
    pub async fn import_files(&self, files: &[(&str, &str)]) -> ImportReport {
        let tree = tempfile::tempdir().unwrap();
        for (rel, content) in files {
            let path = tree.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        self.import(tree.path()).await.unwrap()
    }

    /// Serves the metrics listener on a random loopback port; its `/metrics` URL to scrape.
    pub async fn serve_metrics(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let metrics_url = format!("http://{}/metrics", listener.local_addr().unwrap());
        tokio::spawn(cairn_registry::metrics::serve(
            listener,
            self.state.clone(),
            std::future::pending(),
        ));
        metrics_url
    }

    /// Adds a user to the default organisation and issues a token for them.
    pub async fn user_with_token(&self, handle: &str, role: Role) -> Result<(User, String)> {
        let user = self
            .store
            .create_user(self.org_id, handle, role, &Actor::cli("test"))
            .await?;
        let token = self
            .token_for(
                &user,
                bootstrap::DEFAULT_ORG,
                Duration::from_secs(30 * 24 * 3600),
                &self.keys,
            )
            .await?;
        Ok((user, token))
    }

    /// A read-only token issued by `token`'s owner through the API (what a member hands
    /// an agent or CI that should only read).
    pub async fn read_only_token(&self, token: &str) -> String {
        let (status, issued) = send(
            self.post_as(token, "/v1/tokens")
                .json(&serde_json::json!({"name": "read-only", "scopes": ["read"]})),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{issued}");
        issued["token"].as_str().unwrap().to_owned()
    }

    /// Issues a token for `user` signed with `keys` (pass other keys to forge one).
    pub async fn token_for(&self, user: &User, org_slug: &str, ttl: Duration, keys: &TokenKeys) -> Result<String> {
        let request = TokenRequest {
            user,
            org_slug,
            name: "test",
            ttl,
            scopes: ScopeSet::of_role(user.role),
        };
        Ok(issue_token(&self.store, keys, request, &Actor::cli("test"))
            .await?
            .token)
    }

    /// Every table's row count plus the blob files on disk: equal before and after a
    /// rejected request means it changed nothing.
    pub async fn state_snapshot(&self) -> Result<(BTreeMap<String, i64>, Vec<PathBuf>)> {
        let counts = table_counts(&self.store).await?;
        let mut files = Vec::new();
        list_files(&self.data_dir.path().join("blobs"), &mut files);
        files.sort();
        Ok((counts, files))
    }

    /// Checks that every `published` entry in the log states exactly what the stored
    /// records of its version say: the publishing code states the facts it wrote rather
    /// than reading them back, and must never state anything else. Returns how many
    /// publications it compared.
    pub async fn assert_publications_restate(&self) -> Result<usize> {
        let head = self.store.log_head().await?;
        let mut compared = 0;
        for index in 0..head.size {
            let Some(restated) = self.store.restated_publication(index).await? else {
                continue;
            };
            let entry = self.store.log_entry(index).await?.expect("an entry below the head");
            let envelope: cairn_provenance::Envelope = serde_json::from_slice(&entry.entry)?;
            let logged = envelope.payload_bytes()?;
            assert_eq!(
                String::from_utf8_lossy(&logged),
                String::from_utf8_lossy(&restated),
                "entry {index} states other facts than its version's records"
            );
            compared += 1;
        }
        Ok(compared)
    }

    /// Stops the server and waits for it to drain.
    pub async fn stop(mut self) -> Result<()> {
        self.server.stop().await
    }
}

/// A server running in this process until stopped or dropped.
struct Running {
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    /// Serves `state` on a random loopback port; returns its base URL.
    async fn start(state: AppState) -> Result<(String, Running)> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let base_url = format!("http://{}", listener.local_addr()?);
        let (tx, rx) = oneshot::channel::<()>();
        let index = state.index_cache.clone();
        let server = tokio::spawn(cairn_registry::serve(listener, state, async {
            let _ = rx.await;
        }));
        // Like a load balancer, tests start once the server is ready (its index built).
        tokio::time::timeout(Duration::from_secs(30), index.wait_warm())
            .await
            .map_err(|_| anyhow::anyhow!("the test registry did not build its index within 30 s"))?;
        Ok((
            base_url,
            Running {
                shutdown: Some(tx),
                server: Some(server),
            },
        ))
    }

    async fn stop(&mut self) -> Result<()> {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(server) = self.server.take() {
            server.await??;
        }
        Ok(())
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(server) = self.server.take() {
            server.abort();
        }
    }
}

/// What webhooks of test servers may reach: their receivers on this machine's loopback
/// (`CAIRN_WEBHOOK_ALLOW_NETWORKS=127.0.0.0/8,::1`); nothing else that is not public.
pub fn loopback_receivers() -> cairn_registry::app::outbound::OutboundPolicy {
    cairn_registry::app::outbound::OutboundPolicy::parse("127.0.0.0/8,::1/128").expect("valid networks")
}

/// The default access settings without rate limits (most tests send bursts).
pub fn no_rate_limits() -> AccessSettings {
    AccessSettings {
        rate_limits: RateLimits {
            per_token: None,
            per_address: None,
            proposals_per_token: None,
            proposals_per_user: None,
        },
        ..AccessSettings::default()
    }
}

/// A second server on a [`TestApp`]'s database (see [`TestApp::replica`]).
pub struct Replica {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    /// Its shared state (caches, metrics).
    pub state: AppState,
    server: Running,
}

impl Replica {
    /// A gRPC client of this replica.
    pub async fn grpc(&self, token: Option<&str>) -> Result<GrpcClient> {
        grpc_client(&self.base_url, token).await
    }

    /// Stops the server and waits for it to drain (live streams included).
    pub async fn stop(mut self) -> Result<()> {
        self.server.stop().await
    }
}

/// Adds `authorization: Bearer <token>` to every call.
#[derive(Clone)]
pub struct Bearer(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Bearer {
    fn call(&mut self, mut request: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(value) = &self.0 {
            request.metadata_mut().insert("authorization", value.clone());
        }
        Ok(request)
    }
}

/// The registry's gRPC client as the tests use it.
pub type GrpcClient = cairn_proto::v1::registry_client::RegistryClient<
    tonic::service::interceptor::InterceptedService<tonic::transport::Channel, Bearer>,
>;

/// A gRPC connection to `base_url` (HTTP/2 without TLS) sending `token`.
pub async fn grpc_client(base_url: &str, token: Option<&str>) -> Result<GrpcClient> {
    let channel = tonic::transport::Endpoint::from_shared(base_url.to_owned())?
        .connect()
        .await?;
    let bearer = Bearer(token.map(|t| format!("Bearer {t}").parse()).transpose()?);
    Ok(
        cairn_proto::v1::registry_client::RegistryClient::with_interceptor(channel, bearer)
            .max_decoding_message_size(64 << 20),
    )
}

/// Sends `request`; the status and the JSON answer (`Null` when not JSON): every REST test's step.
pub async fn send(request: reqwest::RequestBuilder) -> (StatusCode, Value) {
    json_of(request.send().await.unwrap()).await
}

/// Sends `request` and reads the whole answer: for archives and files compared byte for byte.
pub async fn bytes_of(request: reqwest::RequestBuilder) -> bytes::Bytes {
    request.send().await.unwrap().bytes().await.unwrap()
}

/// Sends `request` and reads the whole answer as text: for files read back.
pub async fn text_of(request: reqwest::RequestBuilder) -> String {
    request.send().await.unwrap().text().await.unwrap()
}

/// A response's status and JSON answer (`Null` when not JSON), once its headers were checked.
pub async fn json_of(response: reqwest::Response) -> (StatusCode, Value) {
    let status = response.status();
    let body = response.json::<Value>().await.unwrap_or(Value::Null);
    (status, body)
}

/// An error answer's `error.code` (`<none>` when absent), which refusals are asserted by.
pub fn error_code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("<none>")
}

/// An error answer's `error.message` (`<none>` when absent), which refusals are asserted by.
pub fn error_message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or("<none>")
}

/// The string `field` of every item of a listing (`{"items": [...]}`): what paging tests compare.
pub fn item_strs<'a>(listing: &'a Value, field: &str) -> Vec<&'a str> {
    listing["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item[field].as_str().unwrap())
        .collect()
}

fn list_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            list_files(&path, out);
        } else if !entry.file_name().to_string_lossy().starts_with(".check-") {
            // The readiness probe's file (written and removed by the blob store's check,
            // which runs every few seconds) is not stored state.
            out.push(path);
        }
    }
}
