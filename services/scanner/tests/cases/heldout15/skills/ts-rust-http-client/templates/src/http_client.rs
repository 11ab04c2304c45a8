use std::time::Duration;

use rand::Rng;
use reqwest::{Client, StatusCode};
use serde::de::DeserializeOwned;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ApiError {
    #[error("transport: {0}")]
    Transport(#[from] reqwest::Error),
    #[error("status {code}: {body}")]
    Status { code: StatusCode, body: String },
    #[error("decode: {0}")]
    Decode(#[from] serde_json::Error),
}

pub struct ApiClient {
    base: String,
    http: Client,
}

impl ApiClient {
    pub fn new(base: &str, timeout: Duration) -> Result<Self, ApiError> {
        let http = Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(3))
            .user_agent(concat!(env!("CARGO_PKG_NAME"), "/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self { base: base.trim_end_matches('/').to_string(), http })
    }

    pub async fn get_json<T: DeserializeOwned>(&self, path: &str) -> Result<T, ApiError> {
        let url = format!("{}{}", self.base, path);
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let res = self.http.get(&url).send().await;
            let retryable = match &res {
                Err(e) => e.is_connect() || e.is_timeout(),
                Ok(r) => matches!(r.status().as_u16(), 429 | 502 | 503 | 504),
            };
            if retryable && attempt < 4 {
                let cap = 200u64 * 2u64.pow(attempt);
                let sleep = rand::thread_rng().gen_range(0..cap);
                tracing::warn!(%url, attempt, sleep, "retrying");
                tokio::time::sleep(Duration::from_millis(sleep)).await;
                continue;
            }
            let r = res?;
            let status = r.status();
            let body = r.text().await?;
            if !status.is_success() {
                return Err(ApiError::Status { code: status, body });
            }
            return Ok(serde_json::from_str(&body)?);
        }
    }
}
