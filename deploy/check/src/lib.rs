//! Checks for Cairn's deployment files, runnable where no container engine or cluster is.
//!
//! `deploy/` holds a Dockerfile, a compose file for laptops and kustomize manifests for
//! Kubernetes. None of them is exercised by the Rust tests of the server, so this crate
//! reads them the way their tools would — `kubectl kustomize` renders the overlays, YAML is
//! parsed as YAML, the Dockerfile is split into stages and instructions — and its tests
//! (`tests/manifests.rs`) assert what a deployment relies on: the pods are probed on the
//! right paths, secrets are only referenced, every setting is one the registry reads.
//!
//! The library holds the readers and the facts taken from the server's code; the
//! assertions, and the strict Kubernetes schema check (k8s-openapi, a dev-dependency to
//! keep this crate cheap to build), live in the tests.

#![forbid(unsafe_code)]

pub mod dockerfile;
pub mod json;
pub mod settings;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Why a deployment file could not be read or rendered; each message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// `kubectl` is not on `PATH`.
    #[error(
        "kubectl is not installed (or not on PATH): the manifest checks render deploy/k8s with \
         `kubectl kustomize`. Install it (`.ci/run` does: apt-get install kubectl) and run again"
    )]
    KubectlMissing,
    /// `kubectl kustomize` ran and refused the directory.
    #[error("`kubectl kustomize {dir}` failed ({status}):\n{stderr}")]
    Kustomize {
        /// The kustomization directory.
        dir: PathBuf,
        /// How the process ended.
        status: String,
        /// What kubectl printed on stderr.
        stderr: String,
    },
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A YAML document does not parse.
    #[error("{what} is not valid YAML: {source}")]
    Yaml {
        /// What was being parsed (a file, or the output of a command).
        what: String,
        /// The parser's error, with its position.
        source: serde_yaml_ng::Error,
    },
}

/// The repository root: this crate lives at `deploy/check`.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("deploy/check has two parents")
        .to_path_buf()
}

/// Reads a file below the repository root (e.g. `deploy/Dockerfile`).
pub fn read_repo_file(relative: &str) -> Result<String, CheckError> {
    let path = repo_root().join(relative);
    std::fs::read_to_string(&path).map_err(|source| CheckError::Io { path, source })
}

/// The kustomization directories to check: `deploy/k8s/base`, then every directory under
/// `deploy/k8s/overlays` (sorted), as `(name, path)` with the name `base` or the overlay's.
/// A directory there without a kustomization fails later, when it is rendered.
pub fn kustomizations() -> Result<Vec<(String, PathBuf)>, CheckError> {
    let k8s = repo_root().join("deploy/k8s");
    let mut found = vec![("base".to_owned(), k8s.join("base"))];
    let overlays = k8s.join("overlays");
    let entries = std::fs::read_dir(&overlays).map_err(|source| CheckError::Io {
        path: overlays.clone(),
        source,
    })?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| CheckError::Io {
            path: overlays.clone(),
            source,
        })?;
        if entry.path().is_dir() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    found.extend(names.into_iter().map(|name| {
        let path = overlays.join(&name);
        (name, path)
    }));
    Ok(found)
}

/// Renders a kustomization with `kubectl kustomize` and returns its YAML.
pub fn kustomize(dir: &Path) -> Result<String, CheckError> {
    let output = match Command::new("kubectl").arg("kustomize").arg(dir).output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CheckError::KubectlMissing),
        Err(source) => {
            return Err(CheckError::Io {
                path: PathBuf::from("kubectl"),
                source,
            });
        }
    };
    if !output.status.success() {
        return Err(CheckError::Kustomize {
            dir: dir.to_path_buf(),
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Parses a stream of YAML documents (separated by `---`) into JSON values, skipping
/// empty documents. `what` names the source in errors.
pub fn yaml_documents(text: &str, what: &str) -> Result<Vec<Value>, CheckError> {
    let mut documents = Vec::new();
    for document in serde_yaml_ng::Deserializer::from_str(text) {
        let value: Value = serde::Deserialize::deserialize(document).map_err(|source| CheckError::Yaml {
            what: what.to_owned(),
            source,
        })?;
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(documents)
}

/// Parses one YAML document (a compose file) into a JSON value.
pub fn yaml_document(text: &str, what: &str) -> Result<Value, CheckError> {
    serde_yaml_ng::from_str(text).map_err(|source| CheckError::Yaml {
        what: what.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_streams_split_into_documents_and_skip_empty_ones() {
        let docs = yaml_documents("a: 1\n---\n---\nb: [x]\n", "test").unwrap();
        assert_eq!(docs, vec![serde_json::json!({"a": 1}), serde_json::json!({"b": ["x"]})]);
        let e = yaml_documents("a: [1\n", "the sample").unwrap_err().to_string();
        assert!(e.contains("the sample"), "{e}");
    }

    #[test]
    fn the_repository_root_holds_the_workspace_manifest() {
        assert!(repo_root().join("Cargo.toml").is_file());
        assert!(repo_root().join("deploy/check/Cargo.toml").is_file());
    }
}
