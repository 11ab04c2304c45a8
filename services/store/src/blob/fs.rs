//! Blobs as files in a local directory.
//!
//! Layout: `<root>/sha256/<first two hex digits>/<full hex>`. The two-digit shard keeps
//! directories small (256 shards) without needing a database of paths. A blob file only
//! ever appears under its final name complete and fsynced: it is written to a unique
//! temporary file in the same shard directory, synced, renamed into place, and then the
//! directory itself is synced so the rename survives a power loss.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;
use cairn_skill::digest::Sha256Hash;

use super::{BlobError, BlobStore};

/// Name of the directory under the root that holds SHA-256 addressed blobs; a second
/// algorithm would get a sibling directory instead of a migration.
const ALGORITHM_DIR: &str = "sha256";

/// Content-addressed blob store backed by a local directory (single-node deployments,
/// development, tests).
#[derive(Debug, Clone)]
pub struct FsBlobStore {
    root: PathBuf,
}

impl FsBlobStore {
    /// Opens (creating it if needed) a blob store rooted at `root`, so a fresh install
    /// works without a manual `mkdir`.
    pub fn new(root: impl Into<PathBuf>) -> Result<Self, BlobError> {
        let root = root.into();
        let blobs = root.join(ALGORITHM_DIR);
        private_dirs(&blobs).map_err(|source| io_error(&blobs, source))?;
        Ok(Self { root })
    }

    /// The directory this store lives in, for logs and administration tools.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the blob with this id lives (or would live) on disk, so operators and tests
    /// can find a blob without re-deriving the layout.
    pub fn blob_path(&self, id: &Sha256Hash) -> PathBuf {
        let hex = id.to_hex();
        self.root.join(ALGORITHM_DIR).join(&hex[..2]).join(hex)
    }
}

#[async_trait]
impl BlobStore for FsBlobStore {
    async fn put(&self, id: &Sha256Hash, bytes: Bytes) -> Result<(), BlobError> {
        let expected = *id;
        // Hashing a large blob is CPU work: do it on the blocking pool with the write.
        blocking(self.blob_path(id), move |final_path| {
            let actual = Sha256Hash::of(&bytes);
            if actual != expected {
                return Ok(Err(actual));
            }
            write_atomically(final_path, &expected.to_hex(), &bytes).map(Ok)
        })
        .await?
        .map_err(|actual| BlobError::DigestMismatch { expected, actual })?;
        tracing::debug!(blob = %id, "stored blob");
        Ok(())
    }

    async fn get(&self, id: &Sha256Hash) -> Result<Option<Bytes>, BlobError> {
        blocking(self.blob_path(id), |path| match fs::read(path) {
            Ok(data) => Ok(Some(Bytes::from(data))),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(err),
        })
        .await
    }

    async fn contains(&self, id: &Sha256Hash) -> Result<bool, BlobError> {
        blocking(self.blob_path(id), |path| match fs::metadata(path) {
            Ok(meta) => Ok(meta.is_file()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(err) => Err(err),
        })
        .await
    }

    async fn delete(&self, id: &Sha256Hash) -> Result<(), BlobError> {
        blocking(self.blob_path(id), |path| match fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(err) => Err(err),
        })
        .await
    }

    async fn check(&self) -> Result<(), BlobError> {
        blocking(self.root.join(ALGORITHM_DIR), |blobs| {
            let meta = fs::metadata(blobs)?;
            if !meta.is_dir() {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "blob store root is not a directory",
                ));
            }
            // Permission bits do not tell the whole story (read-only mounts, full disks,
            // ACLs), so prove writability by creating and removing a probe file.
            let probe = blobs.join(format!(".check-{}", uuid::Uuid::new_v4().simple()));
            let result = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&probe)
                .and_then(|mut file| file.write_all(b"cairn"));
            let removed = fs::remove_file(&probe);
            result?;
            removed
        })
        .await
    }

    fn describe(&self) -> String {
        format!("fs:{}", self.root.display())
    }
}

/// Writes `bytes` to `final_path` so that the final name only ever refers to a complete,
/// durable file. Returns early when the blob is already there (same id, same content).
fn write_atomically(final_path: &Path, hex: &str, bytes: &[u8]) -> io::Result<()> {
    if final_path.is_file() {
        return Ok(());
    }
    let shard = final_path
        .parent()
        .ok_or_else(|| io::Error::other("blob path has no parent directory"))?;
    if !shard.is_dir() {
        private_dirs(shard)?;
        // Make the new shard directory's own entry durable too.
        if let Some(algorithm_dir) = shard.parent() {
            sync_dir(algorithm_dir)?;
        }
    }

    // A unique name per writer lets concurrent puts of the same blob proceed without
    // stepping on each other; the last rename wins and both see identical content.
    let mut temp = TempFile {
        path: shard.join(format!(".{hex}.{}.tmp", uuid::Uuid::new_v4().simple())),
        armed: true,
    };
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp.path)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp.path, final_path)?;
    temp.disarm();
    sync_dir(shard)
}

/// Creates `dir` and missing parents readable by the owner only: skill contents of every
/// organisation live here, so other local users must not list or read them.
fn private_dirs(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// Flushes a directory's entries (creations, renames) to stable storage.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Directories cannot be opened for syncing on this platform; renames are as durable as
/// the filesystem makes them.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

/// Removes a temporary file on drop unless it was renamed into place, so a failed write
/// leaves nothing behind.
struct TempFile {
    path: PathBuf,
    armed: bool,
}

impl TempFile {
    /// The file was renamed to its final name: nothing to clean up.
    fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Runs blocking std::fs work on `path` on tokio's blocking pool, attributing failures
/// to that path.
async fn blocking<T, F>(path: PathBuf, work: F) -> Result<T, BlobError>
where
    T: Send + 'static,
    F: FnOnce(&Path) -> io::Result<T> + Send + 'static,
{
    let shown = path.display().to_string();
    match tokio::task::spawn_blocking(move || work(&path)).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(source)) => Err(BlobError::Io { path: shown, source }),
        Err(join) => Err(BlobError::Io {
            path: shown,
            source: io::Error::other(format!("blob store worker failed: {join}")),
        }),
    }
}

fn io_error(path: &Path, source: io::Error) -> BlobError {
    BlobError::Io {
        path: path.display().to_string(),
        source,
    }
}
