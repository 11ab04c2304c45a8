//! Talking to a registry over its REST API, with errors that name the URL and the fix.

use std::time::Duration;

use crate::config::Profile;

/// The MCP protocol revision `cairn mcp` speaks to the registry.
pub const MCP_PROTOCOL: &str = "2026-07-28";

/// Why a registry call failed.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// No answer (DNS, refused connection, TLS, timeout).
    #[error(
        "cannot reach the registry at {url}: {reason}; check the server URL (`cairn login --server`, CAIRN_SERVER) \
         and that the registry is running"
    )]
    Unreachable {
        /// The URL called.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The registry refused the token (401).
    #[error("{url} refused the token: {message}; run `cairn login` with a valid token (or fix CAIRN_TOKEN)")]
    Unauthorized {
        /// The URL called.
        url: String,
        /// The registry's message.
        message: String,
    },
    /// Any other error answer, with the registry's code and message.
    #[error("{url} answered {status} {code}: {message}")]
    Refused {
        /// The URL called.
        url: String,
        /// The HTTP status.
        status: u16,
        /// The API's error code.
        code: String,
        /// The API's message.
        message: String,
    },
    /// Content that does not hash to what was asked for.
    #[error(
        "{url} sent {what} whose sha256 is {actual}: the transfer or the registry's storage is corrupt; retry, and report it if it persists"
    )]
    Corrupt {
        /// The URL called.
        url: String,
        /// What was corrupt.
        what: String,
        /// Its actual hash.
        actual: String,
    },
    /// An answer that is not the registry's (a proxy, another service at that URL).
    #[error("{url} did not answer like a Cairn registry ({reason}): check the server URL")]
    NotARegistry {
        /// The URL called.
        url: String,
        /// What was wrong with the answer.
        reason: String,
    },
}

pub use cairn_wire::{FileEntry, Index, IndexEntry, WhoAmI};

/// One version and its manifest (`GET /v1/skills/{name}/versions/{rev}`, whose answer
/// always carries the files).
#[derive(Clone, Debug)]
pub struct Version {
    /// The revision.
    pub revision: i32,
    /// The version digest.
    pub digest: String,
    /// Whether it is yanked.
    pub yanked: bool,
    /// The manifest.
    pub files: Vec<FileEntry>,
}

/// A registry, as one profile reaches it.
pub struct Registry {
    http: reqwest::Client,
    profile: Profile,
}

impl Registry {
    /// A client of `profile`'s server with its token.
    pub fn new(profile: Profile) -> Self {
        let http = reqwest::Client::builder()
            .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap_or_default();
        Registry { http, profile }
    }

    /// The server's base URL.
    pub fn server(&self) -> &str {
        &self.profile.server
    }

    /// `GET /v1/whoami`.
    pub async fn whoami(&self) -> Result<WhoAmI, RemoteError> {
        self.get_json("/v1/whoami").await
    }

    /// `GET /v1/index`: the full index.
    pub async fn index(&self) -> Result<Index, RemoteError> {
        self.get_json("/v1/index").await
    }

    /// `GET /v1/index?since=`: the changes after `since` (with `removed`), or the full
    /// index when `since` is `None` or the registry no longer knows the cursor (410).
    pub async fn index_since(&self, since: Option<i64>) -> Result<(Index, bool), RemoteError> {
        let Some(since) = since else {
            return Ok((self.index().await?, true));
        };
        match self.get_json(&format!("/v1/index?since={since}")).await {
            Ok(delta) => Ok((delta, false)),
            Err(RemoteError::Refused { status: 410, .. }) => Ok((self.index().await?, true)),
            Err(e) => Err(e),
        }
    }

    /// `GET /v1/patches/{id}`: one patch as the registry has it now.
    pub async fn patch(&self, id: &str) -> Result<serde_json::Value, RemoteError> {
        self.get_json(&format!("/v1/patches/{id}")).await
    }

    /// `GET /v1/skills/{name}/versions/{revision}`: one version with its manifest.
    pub async fn version(&self, name: &str, revision: i32) -> Result<Version, RemoteError> {
        let path = format!("/v1/skills/{name}/versions/{revision}");
        let version: cairn_wire::VersionItem = self.get_json(&path).await?;
        let Some(files) = version.files else {
            return Err(RemoteError::NotARegistry {
                url: format!("{}{path}", self.profile.server),
                reason: "a version without its files".to_owned(),
            });
        };
        Ok(Version {
            revision: version.revision,
            digest: version.digest,
            yanked: version.yanked,
            files,
        })
    }

    /// `GET /.well-known/cairn/keys`: the registry's signing keys and its log's name.
    pub async fn signing_keys(&self) -> Result<cairn_wire::SigningKeys, RemoteError> {
        self.get_json("/.well-known/cairn/keys").await
    }

    /// `GET /v1/log/checkpoint`: the log's signed checkpoint (a C2SP note), unverified.
    pub async fn checkpoint(&self) -> Result<String, RemoteError> {
        let url = format!("{}/v1/log/checkpoint", self.profile.server);
        let request = self.http.get(&url).bearer_auth(&self.profile.token);
        let body = self.send(&url, request).await?;
        String::from_utf8(body.to_vec()).map_err(|_| RemoteError::NotARegistry {
            url,
            reason: "a checkpoint that is not text".to_owned(),
        })
    }

    /// `POST /v1/attestations/batch`: the attestations of `versions` (at most 1,000),
    /// proved against the tree of `size` entries.
    pub async fn attestations(
        &self,
        versions: Vec<cairn_wire::VersionRef>,
        size: u64,
    ) -> Result<cairn_wire::AttestationBatch, RemoteError> {
        let body = cairn_wire::AttestationBatchRequest {
            versions,
            size: Some(size),
        };
        self.post_json("/v1/attestations/batch", &body).await
    }

    /// `GET /v1/log/proof/inclusion?index=&size=`.
    pub async fn inclusion(&self, index: u64, size: u64) -> Result<cairn_wire::InclusionProof, RemoteError> {
        self.get_json(&format!("/v1/log/proof/inclusion?index={index}&size={size}"))
            .await
    }

    /// `GET /v1/log/proof/consistency?from=&to=`.
    pub async fn consistency(&self, from: u64, to: u64) -> Result<cairn_wire::ConsistencyProof, RemoteError> {
        self.get_json(&format!("/v1/log/proof/consistency?from={from}&to={to}"))
            .await
    }

    /// `POST /v1/blobs/batch`: the blobs' bytes (at most 1,000 ids per call), each checked
    /// against its id.
    pub async fn blobs(&self, ids: &[String]) -> Result<Vec<(String, Vec<u8>)>, RemoteError> {
        let url = format!("{}/v1/blobs/batch", self.profile.server);
        let request = self
            .http
            .post(&url)
            .bearer_auth(&self.profile.token)
            .json(&serde_json::json!({ "sha256": ids }));
        let body = self.send(&url, request).await?;
        let mut blobs = Vec::with_capacity(ids.len());
        let mut archive = tar::Archive::new(body.as_ref());
        let entries = archive.entries().map_err(|e| RemoteError::NotARegistry {
            url: url.clone(),
            reason: format!("the blob batch is not a tar stream: {e}"),
        })?;
        for entry in entries {
            let mut entry = entry.map_err(|e| RemoteError::NotARegistry {
                url: url.clone(),
                reason: format!("the blob batch is cut short: {e}"),
            })?;
            let id = entry
                .path()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut bytes = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
            std::io::Read::read_to_end(&mut entry, &mut bytes).map_err(|e| RemoteError::NotARegistry {
                url: url.clone(),
                reason: format!("reading blob {id}: {e}"),
            })?;
            let actual = cairn_skill::Sha256Hash::of(&bytes).to_hex();
            if actual != id {
                return Err(RemoteError::Corrupt {
                    url,
                    what: format!("blob {id}"),
                    actual,
                });
            }
            blobs.push((id, bytes));
        }
        Ok(blobs)
    }

    /// `GET /v1/events`: the live change stream, as raw text chunks (no request timeout:
    /// it lasts until the registry or the network ends it).
    pub async fn events(
        &self,
    ) -> Result<impl futures::Stream<Item = Result<String, RemoteError>> + use<>, RemoteError> {
        let url = format!("{}/v1/events", self.profile.server);
        let stream_client = reqwest::Client::builder()
            .user_agent(concat!("cairn/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        let response = stream_client
            .get(&url)
            .bearer_auth(&self.profile.token)
            .send()
            .await
            .map_err(|e| RemoteError::Unreachable {
                url: url.clone(),
                reason: describe(&e),
            })?;
        if !response.status().is_success() {
            let status = response.status().as_u16();
            return Err(RemoteError::Refused {
                url,
                status,
                code: "events".to_owned(),
                message: response.text().await.unwrap_or_default(),
            });
        }
        Ok(futures::StreamExt::map(response.bytes_stream(), move |chunk| {
            chunk
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
                .map_err(|e| RemoteError::Unreachable {
                    url: url.clone(),
                    reason: describe(&e),
                })
        }))
    }

    /// `POST /v1/patches`: the patch as the registry recorded it (`Ok`), or the
    /// pipeline's refusal (`Err` with status 422).
    pub async fn submit_patch(&self, body: &serde_json::Value) -> Result<serde_json::Value, RemoteError> {
        self.post_json("/v1/patches", body).await
    }

    /// `POST /v1/patches/{id}/revisions`: the next round of the caller's open patch.
    pub async fn revise_patch(&self, id: &str, body: &serde_json::Value) -> Result<serde_json::Value, RemoteError> {
        self.post_json(&format!("/v1/patches/{id}/revisions"), body).await
    }

    /// One MCP request to the registry's `/mcp` endpoint (the 2026-07-28 protocol:
    /// stateless, the caller's description in `_meta`, the method and name repeated in
    /// headers): the JSON-RPC answer, `result` or `error`. `name` is the tool called or the
    /// resource read, for the requests that name one.
    pub async fn mcp(
        &self,
        method: &str,
        name: Option<&str>,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, RemoteError> {
        let url = format!("{}/mcp", self.profile.server);
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut request = self
            .http
            .post(&url)
            .bearer_auth(&self.profile.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", MCP_PROTOCOL)
            .header("mcp-method", method)
            .json(&body);
        // Header values are visible ASCII; the URIs this registry gives always are.
        if let Some(name) = name.filter(|n| n.bytes().all(|b| b.is_ascii_graphic())) {
            request = request.header("mcp-name", name);
        }
        let (status, body) = self.fetch(&url, request).await?;
        // The protocol's own refusals (an unknown method, a bad header) come with an HTTP
        // error status but a JSON-RPC body: the agent gets that error as it is.
        match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(answer) if status.is_success() || answer.get("jsonrpc").is_some() => Ok(answer),
            _ => Err(refusal(url, status, &body)),
        }
    }

    /// Posts `body` as JSON to `path`; the answer's JSON.
    async fn post_json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<T, RemoteError> {
        let url = format!("{}{path}", self.profile.server);
        let request = self.http.post(&url).bearer_auth(&self.profile.token).json(body);
        let answer = self.send(&url, request).await?;
        serde_json::from_slice(&answer).map_err(|e| RemoteError::NotARegistry {
            url,
            reason: format!("unexpected body: {e}"),
        })
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, RemoteError> {
        let url = format!("{}{path}", self.profile.server);
        let request = self.http.get(&url).bearer_auth(&self.profile.token);
        let body = self.send(&url, request).await?;
        serde_json::from_slice(&body).map_err(|e| RemoteError::NotARegistry {
            url,
            reason: format!("unexpected body: {e}"),
        })
    }

    /// Sends a request; a success's body, or the registry's error.
    async fn send(&self, url: &str, request: reqwest::RequestBuilder) -> Result<bytes::Bytes, RemoteError> {
        let (status, body) = self.fetch(url, request).await?;
        if status.is_success() {
            return Ok(body);
        }
        Err(refusal(url.to_owned(), status, &body))
    }

    /// Sends a request; the status and body, whatever the status.
    async fn fetch(
        &self,
        url: &str,
        request: reqwest::RequestBuilder,
    ) -> Result<(reqwest::StatusCode, bytes::Bytes), RemoteError> {
        let unreachable = |e: reqwest::Error| RemoteError::Unreachable {
            url: url.to_owned(),
            reason: describe(&e),
        };
        let response = request.send().await.map_err(unreachable)?;
        let status = response.status();
        let body = response.bytes().await.map_err(unreachable)?;
        Ok((status, body))
    }
}

/// The registry's error answer (`status`, `body`) as an error naming `url`.
fn refusal(url: String, status: reqwest::StatusCode, body: &[u8]) -> RemoteError {
    let error: Option<cairn_wire::ErrorBody> = serde_json::from_slice(body).ok();
    let Some(cairn_wire::ErrorBody { error }) = error else {
        return RemoteError::NotARegistry {
            url,
            reason: format!("status {status} without the registry's error body"),
        };
    };
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return RemoteError::Unauthorized {
            url,
            message: error.message,
        };
    }
    RemoteError::Refused {
        url,
        status: status.as_u16(),
        code: error.code,
        message: error.message,
    }
}

/// A transport error in words, with its causes (reqwest's own message is terse).
fn describe(error: &reqwest::Error) -> String {
    let mut text = if error.is_timeout() {
        "timed out".to_owned()
    } else if error.is_connect() {
        "could not connect".to_owned()
    } else {
        error.to_string()
    };
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
