//! A real Garage server (the S3-compatible store of `deploy/dev/`) per test, started
//! through `deploy/dev/garage.sh` on free loopback ports with its own directory.
//!
//! Needs the `garage` binary: on `PATH`, in `GARAGE_BIN`, or where `.ci/run` caches it
//! (`/var/tmp/cairn-garage-2.5.0/bin/garage`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, bail};
use cairn_store::blob::S3Settings;

/// A running single-node Garage with Cairn's bucket and key. Stopped (SIGKILL) and its
/// directory deleted when dropped.
#[derive(Debug)]
pub struct Garage {
    /// `http://127.0.0.1:<port>`.
    pub endpoint: String,
    /// The bucket created for Cairn.
    pub bucket: String,
    /// The access key id.
    pub access_key: String,
    /// Its secret.
    pub secret_key: String,
    ports: [u16; 3],
    dir: tempfile::TempDir,
}

/// The script that starts Garage and prepares the bucket.
fn script() -> PathBuf {
    crate::repo_root().join("deploy/dev/garage.sh")
}

/// Ports that were free a moment ago.
fn free_ports() -> anyhow::Result<[u16; 3]> {
    let listeners = [
        std::net::TcpListener::bind("127.0.0.1:0")?,
        std::net::TcpListener::bind("127.0.0.1:0")?,
        std::net::TcpListener::bind("127.0.0.1:0")?,
    ];
    Ok([
        listeners[0].local_addr()?.port(),
        listeners[1].local_addr()?.port(),
        listeners[2].local_addr()?.port(),
    ])
}

impl Garage {
    /// Starts a fresh Garage and prepares the bucket and key (`garage.sh start`).
    pub async fn start() -> anyhow::Result<Self> {
        let dir = tempfile::Builder::new().prefix("cairn-garage-").tempdir()?;
        let ports = free_ports()?;
        let mut garage = Garage {
            endpoint: String::new(),
            bucket: String::new(),
            access_key: String::new(),
            secret_key: String::new(),
            ports,
            dir,
        };
        let output = garage.run("start").await?;
        let settings: HashMap<String, String> = output
            .lines()
            .filter_map(|line| line.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let get = |key: &str| {
            settings
                .get(key)
                .cloned()
                .with_context(|| format!("garage.sh start printed no {key}: {output}"))
        };
        garage.endpoint = get("CAIRN_S3_ENDPOINT")?;
        garage.bucket = get("CAIRN_S3_BUCKET")?;
        garage.access_key = get("CAIRN_S3_ACCESS_KEY_ID")?;
        garage.secret_key = get("CAIRN_S3_SECRET_ACCESS_KEY")?;
        Ok(garage)
    }

    /// Runs `garage.sh <command>` for this server; returns its standard output.
    async fn run(&self, command: &str) -> anyhow::Result<String> {
        let mut cmd = tokio::process::Command::new("bash");
        cmd.arg(script())
            .arg(command)
            .env("GARAGE_DIR", self.dir.path())
            .env("GARAGE_S3_PORT", self.ports[0].to_string())
            .env("GARAGE_RPC_PORT", self.ports[1].to_string())
            .env("GARAGE_ADMIN_PORT", self.ports[2].to_string())
            .env_remove("CAIRN_S3_BUCKET")
            .env_remove("CAIRN_S3_ACCESS_KEY_ID")
            .env_remove("CAIRN_S3_SECRET_ACCESS_KEY")
            .kill_on_drop(true);
        let output = cmd.output().await.context("running deploy/dev/garage.sh")?;
        if !output.status.success() {
            bail!(
                "deploy/dev/garage.sh {command} failed ({}): {}{}",
                output.status,
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// Settings for an `S3BlobStore` on this server (path-style, `blobs/` prefix).
    pub fn settings(&self) -> S3Settings {
        S3Settings {
            endpoint: Some(self.endpoint.clone()),
            region: "garage".to_owned(),
            bucket: self.bucket.clone(),
            access_key_id: self.access_key.clone(),
            secret_access_key: self.secret_key.clone(),
            force_path_style: true,
            prefix: "blobs/".to_owned(),
        }
    }

    /// The same settings as environment variables, for a registry process.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("CAIRN_BLOB_STORE", "s3".to_owned()),
            ("CAIRN_S3_ENDPOINT", self.endpoint.clone()),
            ("CAIRN_S3_REGION", "garage".to_owned()),
            ("CAIRN_S3_BUCKET", self.bucket.clone()),
            ("CAIRN_S3_ACCESS_KEY_ID", self.access_key.clone()),
            ("CAIRN_S3_SECRET_ACCESS_KEY", self.secret_key.clone()),
            ("CAIRN_S3_FORCE_PATH_STYLE", "true".to_owned()),
        ]
    }

    /// Kills the server at once (SIGKILL): clients see refused connections.
    pub fn kill(&self) -> anyhow::Result<()> {
        let pid_file = self.dir.path().join("garage.pid");
        let pid = std::fs::read_to_string(&pid_file)
            .with_context(|| format!("reading {}", pid_file.display()))?
            .trim()
            .to_owned();
        let status = Command::new("kill")
            .args(["-KILL", &pid])
            .stderr(std::process::Stdio::null())
            .status()?;
        if !status.success() {
            bail!("kill -KILL {pid} failed");
        }
        // Wait until the process is gone, so a restart can bind the ports again.
        for _ in 0..100 {
            let alive = Command::new("kill")
                .args(["-0", &pid])
                .stderr(std::process::Stdio::null())
                .status()?;
            if !alive.success() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = std::fs::remove_file(pid_file);
        Ok(())
    }

    /// Starts the server again on the same state and ports (`garage.sh server`).
    pub async fn restart(&self) -> anyhow::Result<()> {
        self.run("server").await.map(drop)
    }

    /// The directory holding the server's state.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }
}

impl Drop for Garage {
    fn drop(&mut self) {
        let _ = self.kill();
    }
}
