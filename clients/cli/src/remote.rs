//! Talking to a registry over its REST API, with errors that name the URL and the fix.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::config::Profile;

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
    /// An answer that is not the registry's (a proxy, another service at that URL).
    #[error("{url} did not answer like a Cairn registry ({reason}): check the server URL")]
    NotARegistry {
        /// The URL called.
        url: String,
        /// What was wrong with the answer.
        reason: String,
    },
}

/// Who the token belongs to (`GET /v1/whoami`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub struct WhoAmI {
    /// The user's handle.
    pub user: String,
    /// The organisation's slug.
    pub org: String,
    /// The user's role.
    pub role: String,
    /// What the token may do now.
    pub scopes: Vec<String>,
    /// The token's id.
    pub token_id: String,
    /// When it expires (RFC 3339).
    pub expires_at: String,
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

    async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, RemoteError> {
        let url = format!("{}{path}", self.profile.server);
        let response = self
            .http
            .get(&url)
            .bearer_auth(&self.profile.token)
            .send()
            .await
            .map_err(|e| RemoteError::Unreachable {
                url: url.clone(),
                reason: describe(&e),
            })?;
        let status = response.status();
        let body = response.bytes().await.map_err(|e| RemoteError::Unreachable {
            url: url.clone(),
            reason: describe(&e),
        })?;
        if status.is_success() {
            return serde_json::from_slice(&body).map_err(|e| RemoteError::NotARegistry {
                url,
                reason: format!("unexpected body: {e}"),
            });
        }
        let error: Option<ApiErrorBody> = serde_json::from_slice(&body).ok();
        let Some(ApiErrorBody { error }) = error else {
            return Err(RemoteError::NotARegistry {
                url,
                reason: format!("status {status} without the registry's error body"),
            });
        };
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(RemoteError::Unauthorized {
                url,
                message: error.message,
            });
        }
        Err(RemoteError::Refused {
            url,
            status: status.as_u16(),
            code: error.code,
            message: error.message,
        })
    }
}

#[derive(Deserialize)]
struct ApiErrorBody {
    error: ApiErrorDetail,
}

#[derive(Deserialize)]
struct ApiErrorDetail {
    code: String,
    message: String,
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
