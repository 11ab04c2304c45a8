//! Blob store behaviour, run identically against the filesystem backend, the S3 backend
//! talking to an in-process s3s server, and the S3 backend talking to a real Garage
//! server (`deploy/dev/garage.sh`), plus backend-specific checks.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;
use cairn_e2e::garage::Garage;
use cairn_e2e::s3::TestS3;
use cairn_skill::digest::Sha256Hash;
use cairn_store::blob::{BlobError, BlobStore, FsBlobStore, S3BlobStore, S3Settings};

// ---------------------------------------------------------------------------------------
// Backends

fn fs_backend() -> anyhow::Result<(tempfile::TempDir, Arc<dyn BlobStore>)> {
    let dir = tempfile::tempdir()?;
    let store = FsBlobStore::new(dir.path().join("blobs"))?;
    Ok((dir, Arc::new(store)))
}

async fn s3_backend() -> anyhow::Result<(TestS3, Arc<dyn BlobStore>)> {
    let server = TestS3::start().await?;
    let store = S3BlobStore::new(server.settings())?;
    Ok((server, Arc::new(store)))
}

/// Deterministic, incompressible-looking test content of `len` bytes.
fn pattern(len: usize, seed: u8) -> Bytes {
    let mut state = u32::from(seed).wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state.to_le_bytes()[0]
        })
        .collect()
}

fn blob(bytes: impl Into<Bytes>) -> (Sha256Hash, Bytes) {
    let bytes = bytes.into();
    (Sha256Hash::of(&bytes), bytes)
}

// ---------------------------------------------------------------------------------------
// The shared behaviour suite

async fn round_trip(store: Arc<dyn BlobStore>) -> anyhow::Result<()> {
    store.check().await?;
    for (id, bytes) in [
        blob(&b"hello, cairn"[..]),
        blob(Bytes::new()),
        blob(pattern(1 << 20, 1)),
    ] {
        assert!(!store.contains(&id).await?, "{id} present before put");
        store.put(&id, bytes.clone()).await?;
        assert!(store.contains(&id).await?, "{id} missing after put");
        let read = store.get(&id).await?.expect("blob stored");
        assert_eq!(read.len(), bytes.len(), "length of {id}");
        assert!(read == bytes, "content of {id} differs");
    }
    Ok(())
}

async fn missing_blob(store: Arc<dyn BlobStore>) -> anyhow::Result<()> {
    let (id, _) = blob(&b"never stored"[..]);
    assert!(store.get(&id).await?.is_none());
    assert!(!store.contains(&id).await?);
    Ok(())
}

async fn put_twice(store: Arc<dyn BlobStore>) -> anyhow::Result<()> {
    let (id, bytes) = blob(pattern(4096, 2));
    store.put(&id, bytes.clone()).await?;
    store.put(&id, bytes.clone()).await?;
    assert_eq!(store.get(&id).await?.as_ref(), Some(&bytes));
    Ok(())
}

async fn concurrent_puts(store: Arc<dyn BlobStore>) -> anyhow::Result<()> {
    let (id, bytes) = blob(pattern(256 * 1024, 3));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let (store, id, bytes) = (store.clone(), id, bytes.clone());
        tasks.spawn(async move { store.put(&id, bytes).await });
    }
    while let Some(result) = tasks.join_next().await {
        result??;
    }
    assert_eq!(store.get(&id).await?.as_ref(), Some(&bytes));
    Ok(())
}

async fn digest_mismatch(store: Arc<dyn BlobStore>) -> anyhow::Result<()> {
    let (claimed, _) = blob(&b"what the caller says"[..]);
    let (real, bytes) = blob(&b"what the caller sends"[..]);
    match store.put(&claimed, bytes).await {
        Err(BlobError::DigestMismatch { expected, actual }) => {
            assert_eq!(expected, claimed);
            assert_eq!(actual, real);
        }
        other => panic!("expected DigestMismatch, got {other:?}"),
    }
    assert!(!store.contains(&claimed).await?, "mismatched blob was stored");
    assert!(!store.contains(&real).await?, "mismatched bytes were stored");
    assert!(store.get(&claimed).await?.is_none());
    Ok(())
}

async fn delete(store: Arc<dyn BlobStore>) -> anyhow::Result<()> {
    let (id, bytes) = blob(pattern(10_000, 4));
    let (kept, kept_bytes) = blob(pattern(10_000, 5));
    store.put(&id, bytes).await?;
    store.put(&kept, kept_bytes.clone()).await?;
    store.delete(&id).await?;
    assert!(!store.contains(&id).await?, "deleted blob still there");
    assert!(store.get(&id).await?.is_none());
    // Deleting what is not there succeeds (a collector retrying after a failure).
    store.delete(&id).await?;
    assert_eq!(
        store.get(&kept).await?.as_ref(),
        Some(&kept_bytes),
        "another blob was touched"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Shared suite, filesystem backend

#[tokio::test]
async fn fs_delete() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    delete(store).await
}

#[tokio::test]
async fn fs_round_trip() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    round_trip(store).await
}

#[tokio::test]
async fn fs_missing_blob() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    missing_blob(store).await
}

#[tokio::test]
async fn fs_put_twice() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    put_twice(store).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fs_concurrent_puts() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    concurrent_puts(store).await
}

#[tokio::test]
async fn fs_digest_mismatch() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    digest_mismatch(store).await
}

// ---------------------------------------------------------------------------------------
// Shared suite, S3 backend

#[tokio::test]
async fn s3_round_trip() -> anyhow::Result<()> {
    let (_server, store) = s3_backend().await?;
    round_trip(store).await
}

#[tokio::test]
async fn s3_missing_blob() -> anyhow::Result<()> {
    let (_server, store) = s3_backend().await?;
    missing_blob(store).await
}

#[tokio::test]
async fn s3_put_twice() -> anyhow::Result<()> {
    let (_server, store) = s3_backend().await?;
    put_twice(store).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn s3_concurrent_puts() -> anyhow::Result<()> {
    let (_server, store) = s3_backend().await?;
    concurrent_puts(store).await
}

#[tokio::test]
async fn s3_digest_mismatch() -> anyhow::Result<()> {
    let (_server, store) = s3_backend().await?;
    digest_mismatch(store).await
}

#[tokio::test]
async fn s3_delete() -> anyhow::Result<()> {
    let (_server, store) = s3_backend().await?;
    delete(store).await
}

// ---------------------------------------------------------------------------------------
// Shared suite, S3 backend on a real Garage server (deploy/dev/garage.sh)

async fn garage_backend() -> anyhow::Result<(Garage, Arc<dyn BlobStore>)> {
    let server = Garage::start().await?;
    let store = S3BlobStore::new(server.settings())?;
    Ok((server, Arc::new(store)))
}

#[tokio::test]
async fn garage_round_trip() -> anyhow::Result<()> {
    let (_server, store) = garage_backend().await?;
    round_trip(store).await
}

#[tokio::test]
async fn garage_missing_blob() -> anyhow::Result<()> {
    let (_server, store) = garage_backend().await?;
    missing_blob(store).await
}

#[tokio::test]
async fn garage_put_twice() -> anyhow::Result<()> {
    let (_server, store) = garage_backend().await?;
    put_twice(store).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn garage_concurrent_puts() -> anyhow::Result<()> {
    let (_server, store) = garage_backend().await?;
    concurrent_puts(store).await
}

#[tokio::test]
async fn garage_digest_mismatch() -> anyhow::Result<()> {
    let (_server, store) = garage_backend().await?;
    digest_mismatch(store).await
}

#[tokio::test]
async fn garage_delete() -> anyhow::Result<()> {
    let (_server, store) = garage_backend().await?;
    delete(store).await
}

#[tokio::test]
async fn garage_refusals_name_the_problem_and_leak_no_secret() -> anyhow::Result<()> {
    let server = Garage::start().await?;
    let wrong = S3BlobStore::new(S3Settings {
        secret_access_key: "0".repeat(64),
        ..server.settings()
    })?;
    let (id, bytes) = blob(&b"signed with the wrong key"[..]);
    let err = wrong.put(&id, bytes).await.expect_err("put with a wrong secret");
    assert!(
        matches!(
            err,
            BlobError::S3 {
                operation: "PutObject",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.to_string().contains(&server.secret_key), "{err}");
    let err = wrong.check().await.expect_err("check with a wrong secret");
    assert!(err.to_string().contains("denied"), "{err}");

    let missing = S3BlobStore::new(S3Settings {
        bucket: "no-such-bucket".to_owned(),
        ..server.settings()
    })?;
    let err = missing.check().await.expect_err("check of a missing bucket");
    assert!(err.to_string().contains("no-such-bucket"), "{err}");

    let good = S3BlobStore::new(server.settings())?;
    good.check().await?;
    assert!(!good.contains(&id).await?, "nothing may be written with a wrong secret");
    Ok(())
}

#[tokio::test]
async fn garage_stopped_is_unavailable_then_recovers() -> anyhow::Result<()> {
    let server = Garage::start().await?;
    let store = S3BlobStore::new(server.settings())?;
    let (id, bytes) = blob(pattern(50_000, 9));
    store.put(&id, bytes.clone()).await?;
    server.kill()?;
    let err = store.get(&id).await.expect_err("read while the server is down");
    assert!(err.is_unavailable(), "a stopped server must read as retryable: {err:?}");
    let err = store.check().await.expect_err("check while the server is down");
    assert!(err.is_unavailable(), "{err:?}");
    server.restart().await?;
    // The same client recovers without being rebuilt.
    let mut read = None;
    for _ in 0..50 {
        match store.get(&id).await {
            Ok(found) => {
                read = found;
                break;
            }
            Err(e) if e.is_unavailable() => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            Err(e) => return Err(e.into()),
        }
    }
    assert_eq!(
        read.as_ref(),
        Some(&bytes),
        "the blob written before the stop survives it"
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Filesystem backend only

/// Every regular file under `dir`, recursively.
fn files_under(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                pending.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    files.sort();
    Ok(files)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fs_layout_and_no_temp_files() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("nested").join("blobs");
    let store = Arc::new(FsBlobStore::new(&root)?);
    assert!(root.is_dir(), "new() creates the root");
    assert_eq!(store.describe(), format!("fs:{}", root.display()));

    let blobs: Vec<_> = (0..5u8).map(|i| blob(pattern(10_000, 10 + i))).collect();
    let mut tasks = tokio::task::JoinSet::new();
    for (id, bytes) in &blobs {
        // Each blob is written by three writers at once, to provoke temp-file races.
        for _ in 0..3 {
            let (store, id, bytes) = (store.clone(), *id, bytes.clone());
            tasks.spawn(async move { store.put(&id, bytes).await });
        }
    }
    while let Some(result) = tasks.join_next().await {
        result??;
    }
    // A rejected put must not leave its temp file behind either.
    let (other, _) = blob(&b"other"[..]);
    assert!(store.put(&other, Bytes::from_static(b"not other")).await.is_err());
    store.check().await?;

    let mut expected = Vec::new();
    for (id, _) in &blobs {
        let hex = id.to_hex();
        let path = root.join("sha256").join(&hex[..2]).join(&hex);
        assert_eq!(store.blob_path(id), path);
        expected.push(path);
    }
    expected.sort();
    assert_eq!(files_under(&root)?, expected, "only final blob files remain");
    for (id, bytes) in &blobs {
        assert_eq!(std::fs::read(store.blob_path(id))?, bytes.as_ref());
    }
    Ok(())
}

#[tokio::test]
async fn fs_check_fails_without_root() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("blobs");
    let store = FsBlobStore::new(&root)?;
    store.check().await?;
    std::fs::remove_dir_all(&root)?;
    let err = store.check().await.expect_err("check without a root directory");
    assert!(matches!(err, BlobError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("blobs"), "{err}");
    Ok(())
}

// ---------------------------------------------------------------------------------------
// S3 backend only

#[tokio::test]
async fn s3_objects_live_under_the_prefix() -> anyhow::Result<()> {
    let server = TestS3::start().await?;
    let store = S3BlobStore::new(server.settings())?;
    assert_eq!(
        store.describe(),
        format!("s3:{}/blobs/ at {}", server.bucket, server.endpoint)
    );
    let (id, bytes) = blob(&b"prefixed"[..]);
    store.put(&id, bytes.clone()).await?;
    assert_eq!(store.key(&id), format!("blobs/{}", id.to_hex()));
    let on_disk = server.root().join(&server.bucket).join("blobs").join(id.to_hex());
    assert_eq!(std::fs::read(on_disk)?, bytes.as_ref());
    Ok(())
}

#[tokio::test]
async fn s3_wrong_secret_key_is_rejected() -> anyhow::Result<()> {
    let server = TestS3::start().await?;
    let good = S3BlobStore::new(server.settings())?;
    let wrong_secret = "wrong-secret-0123456789abcdefghijklmnopqr".to_owned();
    let bad = S3BlobStore::new(S3Settings {
        secret_access_key: wrong_secret.clone(),
        ..server.settings()
    })?;
    assert!(!format!("{bad:?}").contains(&wrong_secret));

    let (id, bytes) = blob(&b"signed with the wrong key"[..]);
    let err = bad.put(&id, bytes).await.expect_err("put with a wrong secret");
    let (display, debug) = (err.to_string(), format!("{err:?}"));
    match &err {
        BlobError::S3 {
            operation,
            key,
            message,
        } => {
            assert_eq!(*operation, "PutObject");
            assert_eq!(*key, format!("blobs/{}", id.to_hex()));
            assert!(message.contains("SignatureDoesNotMatch"), "{message}");
        }
        other => panic!("expected BlobError::S3, got {other:?}"),
    }
    for text in [&display, &debug] {
        assert!(!text.contains(&wrong_secret), "secret leaked: {text}");
        assert!(!text.contains(&server.secret_key), "secret leaked: {text}");
    }

    let err = bad.check().await.expect_err("check with a wrong secret");
    assert!(err.to_string().contains("denied"), "{err}");
    assert!(bad.get(&id).await.is_err(), "a wrong secret must not read as a miss");

    assert!(!good.contains(&id).await?, "nothing may be written with a wrong secret");
    Ok(())
}

#[tokio::test]
async fn s3_missing_bucket_fails_check() -> anyhow::Result<()> {
    let server = TestS3::start().await?;
    let bucket = "cairn-no-such-bucket".to_owned();
    let store = S3BlobStore::new(S3Settings {
        bucket: bucket.clone(),
        ..server.settings()
    })?;
    let err = store.check().await.expect_err("check of a missing bucket");
    let text = err.to_string();
    assert!(
        matches!(
            err,
            BlobError::S3 {
                operation: "HeadBucket",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(text.contains(&bucket) && text.contains("does not exist"), "{text}");
    assert!(!text.contains(&server.secret_key), "secret leaked: {text}");
    Ok(())
}

#[tokio::test]
async fn s3_unreachable_endpoint_fails_check() -> anyhow::Result<()> {
    // A port that was just free: nothing listens there any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let server = TestS3::start().await?;
    let store = S3BlobStore::new(S3Settings {
        endpoint: Some(format!("http://127.0.0.1:{port}")),
        ..server.settings()
    })?;
    let err = store.check().await.expect_err("check of an unreachable endpoint");
    assert!(matches!(err, BlobError::Unavailable { .. }), "{err:?}");
    assert!(err.is_unavailable());
    assert!(!err.to_string().contains(&server.secret_key));
    Ok(())
}

#[tokio::test]
async fn fs_blobs_are_private_to_the_owner() -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("blobs");
    let store = FsBlobStore::new(&root)?;
    let (id, bytes) = blob(&b"secret skill"[..]);
    store.put(&id, bytes).await?;
    let mode = |p: &Path| std::fs::metadata(p).map(|m| m.permissions().mode() & 0o777);
    assert_eq!(mode(&store.blob_path(&id))?, 0o600);
    assert_eq!(mode(store.blob_path(&id).parent().unwrap())?, 0o700);
    assert_eq!(mode(&root.join("sha256"))?, 0o700);
    Ok(())
}

#[tokio::test]
async fn put_many_stores_every_blob_and_rejects_a_mismatch() -> anyhow::Result<()> {
    let (_dir, store) = fs_backend()?;
    let blobs: Vec<(Sha256Hash, Bytes)> = (0..40u8).map(|i| blob(pattern(1000 + usize::from(i), i))).collect();
    store.put_many(blobs.clone()).await?;
    for (id, bytes) in &blobs {
        assert_eq!(store.get(id).await?.as_ref(), Some(bytes));
    }
    let (id, _) = blob(&b"one"[..]);
    let error = store
        .put_many(vec![(id, Bytes::from_static(b"two"))])
        .await
        .unwrap_err();
    assert!(matches!(error, BlobError::DigestMismatch { .. }));
    assert!(!store.contains(&id).await?);
    Ok(())
}
