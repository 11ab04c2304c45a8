//! An in-process S3 server for tests: s3s-fs over a temporary directory, with SigV4
//! authentication really enforced, listening on a random loopback port.

use std::net::SocketAddr;

use anyhow::{Context, anyhow};
use cairn_store::blob::S3Settings;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use s3s::auth::SimpleAuth;
use s3s::service::S3ServiceBuilder;
use tokio::net::TcpListener;
use tokio::task::{JoinHandle, JoinSet};

/// Region the test server is addressed with (s3s accepts any region in the signature).
const REGION: &str = "us-east-1";

/// A running S3-compatible server backed by a temporary directory, so S3 code paths are
/// tested against real HTTP and real request signing without Docker or network access.
///
/// The server stops, and its files are deleted, when this value is dropped.
#[derive(Debug)]
pub struct TestS3 {
    /// Base URL, e.g. `http://127.0.0.1:41234`.
    pub endpoint: String,
    /// A bucket that already exists on the server.
    pub bucket: String,
    /// The only access key id the server accepts.
    pub access_key: String,
    /// The secret key that goes with `access_key`.
    pub secret_key: String,
    addr: SocketAddr,
    server: JoinHandle<()>,
    // Declared last so it is removed after the server task has been stopped.
    root: tempfile::TempDir,
}

impl TestS3 {
    /// Starts a server on `127.0.0.1:0` with a freshly created bucket and random
    /// credentials. Must be called inside a tokio runtime.
    pub async fn start() -> anyhow::Result<Self> {
        let root = tempfile::Builder::new()
            .prefix("cairn-test-s3-")
            .tempdir()
            .context("creating the S3 server's temporary directory")?;
        let id = uuid::Uuid::new_v4().simple().to_string();
        let bucket = format!("cairn-test-{}", &id[..12]);
        let access_key = format!("AKTEST{}", id[12..26].to_ascii_uppercase());
        let secret_key = format!(
            "{}{}",
            uuid::Uuid::new_v4().simple(),
            &uuid::Uuid::new_v4().simple().to_string()[..8]
        );

        // s3s-fs maps a bucket to a directory directly under its root.
        std::fs::create_dir(root.path().join(&bucket)).context("creating the bucket directory")?;

        let fs = s3s_fs::FileSystem::new(root.path()).map_err(|err| anyhow!("starting s3s-fs: {err:?}"))?;
        let mut builder = S3ServiceBuilder::new(fs);
        builder.set_auth(SimpleAuth::from_single(access_key.clone(), secret_key.clone()));
        let service = builder.build();

        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .context("binding the S3 server's port")?;
        let addr = listener.local_addr()?;

        let server = tokio::spawn(async move {
            // Connection tasks live in this set, so aborting the server task (on drop)
            // drops the set and aborts every open connection with it.
            let mut connections = JoinSet::new();
            loop {
                tokio::select! {
                    accepted = listener.accept() => {
                        let Ok((stream, _)) = accepted else { continue };
                        let service = service.clone();
                        connections.spawn(async move {
                            let builder = auto::Builder::new(TokioExecutor::new());
                            // Errors here are client disconnects; nothing to report.
                            let _ = builder
                                .serve_connection(TokioIo::new(stream), service)
                                .await;
                        });
                    }
                    Some(_) = connections.join_next(), if !connections.is_empty() => {}
                }
            }
        });

        Ok(Self {
            endpoint: format!("http://{addr}"),
            bucket,
            access_key,
            secret_key,
            addr,
            server,
            root,
        })
    }

    /// Settings for a `cairn_store::blob::S3BlobStore` pointed at this server and bucket
    /// (path-style addressing, `blobs/` prefix).
    pub fn settings(&self) -> S3Settings {
        S3Settings {
            endpoint: Some(self.endpoint.clone()),
            region: REGION.to_owned(),
            bucket: self.bucket.clone(),
            access_key_id: self.access_key.clone(),
            secret_access_key: self.secret_key.clone(),
            force_path_style: true,
            prefix: "blobs/".to_owned(),
        }
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The directory backing the server: `<root>/<bucket>/<key>` holds each object's
    /// bytes (s3s-fs also keeps `.bucket-*` metadata files at the root).
    pub fn root(&self) -> &std::path::Path {
        self.root.path()
    }
}

impl Drop for TestS3 {
    fn drop(&mut self) {
        self.server.abort();
    }
}
