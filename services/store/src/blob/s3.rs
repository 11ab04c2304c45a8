//! Blobs as objects in an S3 (or S3-compatible) bucket.
//!
//! Objects are keyed `<prefix><hex sha256>`. The client is configured explicitly (static
//! credentials, region, endpoint) rather than through the AWS environment chain, so the
//! server's behaviour depends only on `CAIRN_S3_*` settings.
//!
//! `put` issues a plain `PutObject` without a `HeadObject` probe first: content-addressed
//! writes are idempotent (same key, same bytes), a probe would cost an extra round trip
//! for every new blob, and probing is racy anyway. The request payload is SigV4-signed,
//! so the server checks the body against its SHA-256, which is exactly the blob id.

use std::fmt;

use async_trait::async_trait;
use aws_sdk_s3::Client;
use aws_sdk_s3::config::{Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation};
use aws_sdk_s3::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_s3::primitives::ByteStream;
use bytes::Bytes;
use cairn_skill::digest::Sha256Hash;

use super::{BlobError, BlobStore};

const ENV_ENDPOINT: &str = "CAIRN_S3_ENDPOINT";
const ENV_REGION: &str = "CAIRN_S3_REGION";
const ENV_BUCKET: &str = "CAIRN_S3_BUCKET";
const ENV_ACCESS_KEY_ID: &str = "CAIRN_S3_ACCESS_KEY_ID";
const ENV_SECRET_ACCESS_KEY: &str = "CAIRN_S3_SECRET_ACCESS_KEY";
const ENV_FORCE_PATH_STYLE: &str = "CAIRN_S3_FORCE_PATH_STYLE";
const ENV_PREFIX: &str = "CAIRN_S3_PREFIX";

const DEFAULT_REGION: &str = "us-east-1";
const DEFAULT_PREFIX: &str = "blobs/";

/// Shown instead of the secret key wherever settings or errors are printed.
const REDACTED: &str = "<redacted>";

/// Everything needed to reach the bucket; kept separate from the client so it can be
/// read from the environment, validated and logged (without the secret) at startup.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Settings {
    /// Endpoint URL such as `http://127.0.0.1:9000`; `None` means AWS's own endpoint for
    /// the region. Needed for MinIO, Ceph, R2 and the in-process test server.
    pub endpoint: Option<String>,
    /// Region used to sign requests (S3-compatible servers usually accept `us-east-1`).
    pub region: String,
    /// The bucket that holds the blobs; it must already exist.
    pub bucket: String,
    /// Access key id of the static credentials.
    pub access_key_id: String,
    /// Secret access key of the static credentials. Never printed: `Debug` redacts it.
    pub secret_access_key: String,
    /// Address buckets as `endpoint/bucket/key` instead of `bucket.endpoint/key`, which
    /// most S3-compatible servers require.
    pub force_path_style: bool,
    /// Prepended to every object key (e.g. `blobs/`) so the bucket can be shared.
    pub prefix: String,
}

impl fmt::Debug for S3Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Settings")
            .field("endpoint", &self.endpoint)
            .field("region", &self.region)
            .field("bucket", &self.bucket)
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &REDACTED)
            .field("force_path_style", &self.force_path_style)
            .field("prefix", &self.prefix)
            .finish()
    }
}

impl S3Settings {
    /// Reads the settings from `CAIRN_S3_*` environment variables, so deployments
    /// configure the S3 backend without a config file. `CAIRN_S3_BUCKET`,
    /// `CAIRN_S3_ACCESS_KEY_ID` and `CAIRN_S3_SECRET_ACCESS_KEY` are required; the
    /// error names the missing or malformed variable.
    pub fn from_env() -> Result<Self, BlobError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Same as [`S3Settings::from_env`] with an explicit variable source (testable
    /// without touching the process environment).
    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, BlobError> {
        let get = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let required = |name: &'static str| get(name).ok_or_else(|| config_error(name, format!("{name} must be set")));
        let force_path_style = match get(ENV_FORCE_PATH_STYLE) {
            None => true,
            Some(value) => parse_bool(&value).ok_or_else(|| {
                config_error(
                    ENV_FORCE_PATH_STYLE,
                    format!("{ENV_FORCE_PATH_STYLE} must be true or false, not {value:?}"),
                )
            })?,
        };
        Ok(Self {
            endpoint: get(ENV_ENDPOINT),
            region: get(ENV_REGION).unwrap_or_else(|| DEFAULT_REGION.to_owned()),
            bucket: required(ENV_BUCKET)?,
            access_key_id: required(ENV_ACCESS_KEY_ID)?,
            secret_access_key: required(ENV_SECRET_ACCESS_KEY)?,
            force_path_style,
            prefix: lookup(ENV_PREFIX).unwrap_or_else(|| DEFAULT_PREFIX.to_owned()),
        })
    }
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn config_error(variable: &'static str, message: String) -> BlobError {
    BlobError::S3 {
        operation: "configuration",
        key: variable.to_owned(),
        message,
    }
}

/// Content-addressed blob store backed by an S3 bucket (multi-node deployments).
#[derive(Clone)]
pub struct S3BlobStore {
    client: Client,
    bucket: String,
    prefix: String,
    endpoint: String,
    /// Kept only to scrub it from error messages as a last line of defence.
    secret: String,
}

impl fmt::Debug for S3BlobStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3BlobStore")
            .field("bucket", &self.bucket)
            .field("prefix", &self.prefix)
            .field("endpoint", &self.endpoint)
            .finish_non_exhaustive()
    }
}

impl S3BlobStore {
    /// Builds a client from explicit settings. No request is made: call
    /// [`BlobStore::check`] to find out whether the bucket is reachable.
    pub fn new(settings: S3Settings) -> Result<Self, BlobError> {
        if settings.bucket.is_empty() {
            return Err(config_error(ENV_BUCKET, "the bucket name is empty".to_owned()));
        }
        if let Some(endpoint) = &settings.endpoint
            && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
        {
            return Err(config_error(
                ENV_ENDPOINT,
                format!("endpoint {endpoint:?} must start with http:// or https://"),
            ));
        }

        let credentials = Credentials::new(
            settings.access_key_id,
            settings.secret_access_key.clone(),
            None,
            None,
            "cairn-static",
        );
        let mut builder = aws_sdk_s3::Config::builder()
            .behavior_version_latest()
            .region(Region::new(settings.region.clone()))
            .credentials_provider(credentials)
            .force_path_style(settings.force_path_style)
            // S3-compatible servers often reject or mishandle the flexible checksums
            // that newer SDKs send by default; only send/verify them when an operation
            // requires it.
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired);
        if let Some(endpoint) = &settings.endpoint {
            builder = builder.endpoint_url(endpoint);
        }

        let endpoint = settings
            .endpoint
            .unwrap_or_else(|| format!("https://s3.{}.amazonaws.com", settings.region));
        Ok(Self {
            client: Client::from_conf(builder.build()),
            bucket: settings.bucket,
            prefix: settings.prefix,
            endpoint,
            secret: settings.secret_access_key,
        })
    }

    /// The object key of a blob, so operators can find it in the bucket.
    pub fn key(&self, id: &Sha256Hash) -> String {
        format!("{}{}", self.prefix, id.to_hex())
    }

    /// Turns an SDK failure into a [`BlobError::S3`] whose message is one readable line,
    /// optionally preceded by `context`; the full SDK detail goes to the debug log.
    fn error<E>(&self, operation: &'static str, key: &str, err: &SdkError<E>, context: Option<String>) -> BlobError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        tracing::debug!(operation, key, error = %DisplayErrorContext(err), "S3 request failed");
        let detail = match err {
            SdkError::ServiceError(service) => {
                let status = service.raw().status().as_u16();
                let code = service.err().code();
                let text = service.err().message();
                match (code, text) {
                    (Some(code), Some(text)) => format!("{code}: {text} (HTTP {status})"),
                    (Some(code), None) => format!("{code} (HTTP {status})"),
                    // HEAD responses have no body, hence no error code.
                    (None, _) => format!("HTTP {status} without an error code"),
                }
            }
            SdkError::DispatchFailure(_) | SdkError::TimeoutError(_) => {
                format!("cannot reach {}: {}", self.endpoint, error_chain(err))
            }
            other => error_chain(other),
        };
        let context = context.or_else(|| {
            matches!(status(err), Some(401 | 403))
                .then(|| "access denied (check the access key, secret key and bucket policy)".to_owned())
        });
        let mut message = match context {
            Some(context) => format!("{context}: {detail}"),
            None => detail,
        };
        if !self.secret.is_empty() {
            message = message.replace(&self.secret, REDACTED);
        }
        // Retryable: no connection or no timely answer, a response cut off, throttling and
        // server errors. Not: a request the client could not even build (a bad endpoint).
        let unreachable = match err {
            SdkError::DispatchFailure(failure) => !failure.is_user(),
            SdkError::TimeoutError(_) | SdkError::ResponseError(_) => true,
            _ => status(err).is_some_and(|status| status >= 500 || status == 429),
        };
        if unreachable {
            BlobError::Unavailable {
                operation,
                key: key.to_owned(),
                message,
            }
        } else {
            BlobError::S3 {
                operation,
                key: key.to_owned(),
                message,
            }
        }
    }
}

/// An error and its sources as `outer: inner: innermost`, without Debug noise.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// The HTTP status of a failed request, when a response came back at all.
fn status<E>(err: &SdkError<E>) -> Option<u16> {
    err.raw_response().map(|response| response.status().as_u16())
}

#[async_trait]
impl BlobStore for S3BlobStore {
    async fn put(&self, id: &Sha256Hash, bytes: Bytes) -> Result<(), BlobError> {
        let actual = Sha256Hash::of(&bytes);
        if actual != *id {
            return Err(BlobError::DigestMismatch { expected: *id, actual });
        }
        let key = self.key(id);
        self.client
            .put_object()
            .bucket(&self.bucket)
            .key(&key)
            .content_type("application/octet-stream")
            .body(ByteStream::from(bytes))
            .send()
            .await
            .map_err(|err| self.error("PutObject", &key, &err, None))?;
        tracing::debug!(blob = %id, key, "stored blob");
        Ok(())
    }

    async fn get(&self, id: &Sha256Hash) -> Result<Option<Bytes>, BlobError> {
        let key = self.key(id);
        let output = match self.client.get_object().bucket(&self.bucket).key(&key).send().await {
            Ok(output) => output,
            Err(err) if err.as_service_error().is_some_and(|e| e.is_no_such_key()) => {
                return Ok(None);
            }
            Err(err) => return Err(self.error("GetObject", &key, &err, None)),
        };
        // A body cut off half way is a transport failure: retrying may succeed.
        let body = output.body.collect().await.map_err(|err| BlobError::Unavailable {
            operation: "GetObject",
            key: key.clone(),
            message: format!("reading the object body failed: {}", error_chain(&err)),
        })?;
        Ok(Some(body.into_bytes()))
    }

    async fn contains(&self, id: &Sha256Hash) -> Result<bool, BlobError> {
        let key = self.key(id);
        match self.client.head_object().bucket(&self.bucket).key(&key).send().await {
            Ok(_) => Ok(true),
            Err(err) if err.as_service_error().is_some_and(|e| e.is_not_found()) || status(&err) == Some(404) => {
                Ok(false)
            }
            Err(err) => Err(self.error("HeadObject", &key, &err, None)),
        }
    }

    async fn delete(&self, id: &Sha256Hash) -> Result<(), BlobError> {
        // DeleteObject succeeds for a key that does not exist.
        let key = self.key(id);
        self.client
            .delete_object()
            .bucket(&self.bucket)
            .key(&key)
            .send()
            .await
            .map_err(|err| self.error("DeleteObject", &key, &err, None))?;
        tracing::debug!(blob = %id, key, "deleted blob");
        Ok(())
    }

    async fn check(&self) -> Result<(), BlobError> {
        match self.client.head_bucket().bucket(&self.bucket).send().await {
            Ok(_) => Ok(()),
            Err(err) => {
                // HEAD responses carry no error body, so the status is all there is.
                let hint = match status(&err) {
                    Some(404) => Some(format!("bucket {:?} does not exist at {}", self.bucket, self.endpoint)),
                    Some(401 | 403) => Some(format!(
                        "access to bucket {:?} denied (check the access key, secret key and bucket policy)",
                        self.bucket
                    )),
                    _ => None,
                };
                Err(self.error("HeadBucket", &self.bucket, &err, hint))
            }
        }
    }

    fn describe(&self) -> String {
        format!("s3:{}/{} at {}", self.bucket, self.prefix, self.endpoint)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| vars.get(name).cloned()
    }

    #[test]
    fn from_env_applies_defaults() {
        let settings = S3Settings::from_lookup(lookup(&[
            (ENV_BUCKET, "cairn"),
            (ENV_ACCESS_KEY_ID, "AKID"),
            (ENV_SECRET_ACCESS_KEY, "s3cr3t"),
        ]))
        .unwrap();
        assert_eq!(settings.endpoint, None);
        assert_eq!(settings.region, "us-east-1");
        assert_eq!(settings.bucket, "cairn");
        assert!(settings.force_path_style);
        assert_eq!(settings.prefix, "blobs/");
    }

    #[test]
    fn from_env_reads_everything() {
        let settings = S3Settings::from_lookup(lookup(&[
            (ENV_ENDPOINT, "http://127.0.0.1:9000"),
            (ENV_REGION, "eu-west-3"),
            (ENV_BUCKET, "cairn"),
            (ENV_ACCESS_KEY_ID, "AKID"),
            (ENV_SECRET_ACCESS_KEY, "s3cr3t"),
            (ENV_FORCE_PATH_STYLE, "false"),
            (ENV_PREFIX, ""),
        ]))
        .unwrap();
        assert_eq!(settings.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(settings.region, "eu-west-3");
        assert!(!settings.force_path_style);
        assert_eq!(settings.prefix, "");
    }

    #[test]
    fn from_env_names_missing_variables() {
        let err = S3Settings::from_lookup(lookup(&[(ENV_BUCKET, "cairn"), (ENV_ACCESS_KEY_ID, "AKID")])).unwrap_err();
        assert!(err.to_string().contains(ENV_SECRET_ACCESS_KEY), "{err}");

        let err = S3Settings::from_lookup(lookup(&[])).unwrap_err();
        assert!(err.to_string().contains(ENV_BUCKET), "{err}");

        let err = S3Settings::from_lookup(lookup(&[
            (ENV_BUCKET, "cairn"),
            (ENV_ACCESS_KEY_ID, "AKID"),
            (ENV_SECRET_ACCESS_KEY, "s3cr3t"),
            (ENV_FORCE_PATH_STYLE, "maybe"),
        ]))
        .unwrap_err();
        assert!(err.to_string().contains(ENV_FORCE_PATH_STYLE), "{err}");
    }

    #[test]
    fn debug_redacts_the_secret() {
        let settings = S3Settings {
            endpoint: Some("http://127.0.0.1:9000".to_owned()),
            region: "us-east-1".to_owned(),
            bucket: "cairn".to_owned(),
            access_key_id: "AKID".to_owned(),
            secret_access_key: "very-secret-value".to_owned(),
            force_path_style: true,
            prefix: "blobs/".to_owned(),
        };
        let printed = format!("{settings:?}");
        assert!(!printed.contains("very-secret-value"), "{printed}");
        let store = S3BlobStore::new(settings).unwrap();
        let printed = format!("{store:?}");
        assert!(!printed.contains("very-secret-value"), "{printed}");
        assert_eq!(store.describe(), "s3:cairn/blobs/ at http://127.0.0.1:9000");
    }

    #[test]
    fn rejects_endpoint_without_scheme() {
        let settings = S3Settings {
            endpoint: Some("127.0.0.1:9000".to_owned()),
            region: "us-east-1".to_owned(),
            bucket: "cairn".to_owned(),
            access_key_id: "AKID".to_owned(),
            secret_access_key: "s".to_owned(),
            force_path_style: true,
            prefix: "blobs/".to_owned(),
        };
        let err = S3BlobStore::new(settings).unwrap_err();
        assert!(err.to_string().contains(ENV_ENDPOINT), "{err}");
    }
}
