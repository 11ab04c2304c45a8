//! Content-addressed blob storage.
//!
//! Every file of every version is stored once, under the hex SHA-256 of its bytes. Blobs
//! are written *before* the database commit that references them, so a crash can leave
//! an unreferenced blob behind (collected later) but never a version whose bytes are
//! missing. Writing the same blob twice is harmless: the key is the content.

mod fs;
mod s3;

use async_trait::async_trait;
use bytes::Bytes;
use cairn_skill::digest::Sha256Hash;

pub use fs::FsBlobStore;
pub use s3::{S3BlobStore, S3Settings};

/// How many blob writes a batch runs at once: enough to overlap S3 round trips and let
/// the filesystem commit concurrent fsyncs together.
pub const UPLOAD_CONCURRENCY: usize = 16;

/// Why a blob operation failed. Messages name the backend and the blob, never credentials.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The filesystem backend failed (permissions, disk full, …).
    #[error("blob store I/O error at {path}: {source}")]
    Io {
        /// The file or directory involved.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The S3 backend failed or could not be reached.
    #[error("S3 blob store error ({operation} {key}): {message}")]
    S3 {
        /// The S3 operation, e.g. `PutObject`.
        operation: &'static str,
        /// The object key involved.
        key: String,
        /// A readable description of the failure.
        message: String,
    },
    /// The S3 server could not be reached, timed out or answered 5xx: the same request
    /// may succeed when retried.
    #[error("S3 blob store unavailable ({operation} {key}): {message}")]
    Unavailable {
        /// The S3 operation, e.g. `GetObject`.
        operation: &'static str,
        /// The object key involved.
        key: String,
        /// A readable description of the failure.
        message: String,
    },
    /// Bytes handed to `put` do not hash to the id they were stored under.
    #[error("blob {expected} rejected: its content hashes to {actual}")]
    DigestMismatch {
        /// The id the caller claimed.
        expected: Sha256Hash,
        /// The hash of the bytes actually given.
        actual: Sha256Hash,
    },
}

impl BlobError {
    /// Whether retrying the same request later may succeed (the backend was unreachable).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, BlobError::Unavailable { .. })
    }
}

/// A place where blobs live: a local directory or an S3 bucket.
///
/// Implementations are cheap to share (`Arc<dyn BlobStore>`) and safe to call from many
/// tasks at once; `put` is idempotent and atomic (a reader never sees half a blob).
#[async_trait]
pub trait BlobStore: Send + Sync + std::fmt::Debug {
    /// Stores `bytes` under `id` (which must be their SHA-256). Idempotent.
    async fn put(&self, id: &Sha256Hash, bytes: Bytes) -> Result<(), BlobError>;
    /// Stores many blobs; when it returns `Ok`, all of them are stored. The default runs
    /// [`UPLOAD_CONCURRENCY`] puts at a time (each put is durable on its own).
    async fn put_many(&self, blobs: Vec<(Sha256Hash, Bytes)>) -> Result<(), BlobError> {
        use futures::{StreamExt, TryStreamExt};
        futures::stream::iter(blobs)
            .map(|(id, bytes)| async move { self.put(&id, bytes).await })
            .buffer_unordered(UPLOAD_CONCURRENCY)
            .try_collect::<()>()
            .await
    }
    /// Returns the blob's bytes, or `None` when no blob has that id.
    async fn get(&self, id: &Sha256Hash) -> Result<Option<Bytes>, BlobError>;
    /// Tells whether a blob with that id exists, without reading it.
    async fn contains(&self, id: &Sha256Hash) -> Result<bool, BlobError>;
    /// Removes the blob (garbage collection only: the database must no longer reference
    /// it). Removing a blob that is not there succeeds.
    async fn delete(&self, id: &Sha256Hash) -> Result<(), BlobError>;
    /// Checks that the backend is reachable and writable enough to serve (readiness).
    async fn check(&self) -> Result<(), BlobError>;
    /// A short description for logs and `/readyz`, e.g. `fs:/var/lib/cairn/blobs`.
    fn describe(&self) -> String;
}
