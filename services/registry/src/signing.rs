//! The registry's Ed25519 signing key and its name: where the key comes from (the
//! environment, a file every replica mounts, or one created in the data directory for a
//! single-node registry) and the name its attestations and log carry.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cairn_provenance::SigningKey;

use crate::config::Secret;
use crate::private_file::create_private_file_once;

/// The key file created in the data directory when no key is configured.
pub const KEY_FILE: &str = "signing.key";

/// Where the signing key comes from.
#[derive(Clone, Debug)]
pub enum KeySource {
    /// `CAIRN_SIGNING_KEY`: the PKCS#8 PEM text itself.
    Inline(Secret<String>),
    /// `CAIRN_SIGNING_KEY_FILE`: a PEM file (a mounted secret shared by every replica).
    File(PathBuf),
    /// Neither: `<data-dir>/signing.key`, created (0600) on first start.
    DataDir,
}

/// A new key from the operating system's random source.
pub fn new_key() -> SigningKey {
    let mut seed = [0u8; 32];
    rand::fill(&mut seed);
    SigningKey::from_seed(seed)
}

/// Loads the key from `source`, creating the data directory's key file when needed.
pub fn load(source: &KeySource, data_dir: &Path) -> Result<SigningKey> {
    match source {
        KeySource::Inline(pem) => SigningKey::from_pem(pem.expose()).context("reading CAIRN_SIGNING_KEY"),
        KeySource::File(path) => read_key_file(path).context("reading CAIRN_SIGNING_KEY_FILE"),
        KeySource::DataDir => {
            let path = data_dir.join(KEY_FILE);
            if !path.exists() {
                create_private_file_once(&path, new_key().to_pem().as_bytes())?;
            }
            read_key_file(&path)
        }
    }
}

/// Reads a PEM key file.
pub fn read_key_file(path: &Path) -> Result<SigningKey> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    SigningKey::from_pem(&text).with_context(|| format!("{} holds no usable signing key", path.display()))
}

/// The name used when `CAIRN_REGISTRY_NAME` is not set: this machine's host name.
pub fn default_registry_name() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .and_then(|h| check_registry_name(h.trim()).ok())
        .unwrap_or_else(|| "localhost".to_owned())
}

/// A name that cannot name a registry.
#[derive(Debug, thiserror::Error)]
#[error("'{0}' cannot name a registry: use a host name, optionally with a port and a path")]
pub struct BadRegistryName(String);

/// A registry name as attestations and checkpoints carry it: a host name, optionally
/// with a port and path (`skills.example.com`, `cairn.internal:7878/team`).
pub fn check_registry_name(name: &str) -> Result<String, BadRegistryName> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '/');
    if name.is_empty() || name.len() > 200 || name.starts_with(['/', ':', '.']) || !name.chars().all(allowed) {
        return Err(BadRegistryName(name.to_owned()));
    }
    Ok(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_host_like() {
        assert!(check_registry_name("skills.example.com").is_ok());
        assert!(check_registry_name("cairn.internal:7878/team").is_ok());
        for bad in ["", "/x", "a b", "a+b", "ünï", ".x"] {
            assert!(check_registry_name(bad).is_err(), "{bad}");
        }
        assert!(check_registry_name(&default_registry_name()).is_ok());
    }

    #[test]
    fn the_data_directory_key_is_created_once_and_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let first = load(&KeySource::DataDir, dir.path()).unwrap();
        let again = load(&KeySource::DataDir, dir.path()).unwrap();
        assert_eq!(first.id(), again.id());
        let mode = std::fs::metadata(dir.path().join(KEY_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let error = load(&KeySource::Inline(Secret::new("nope".into())), dir.path()).unwrap_err();
        assert!(format!("{error:#}").contains("CAIRN_SIGNING_KEY"), "{error:#}");
    }
}
