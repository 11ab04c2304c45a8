//! Files only the registry's user may read (the signing key, the admin token), written
//! so a crash or a concurrent start never leaves a partial file behind.

use std::path::Path;

use anyhow::{Context, Result};
use uuid::Uuid;

/// Creates `path` (0600) with `contents` unless it exists: written to a temporary file and
/// hard-linked into place, so two processes starting at once agree on one complete file.
pub fn create_private_file_once(path: &Path, contents: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.new", Uuid::new_v4().simple()));
    write_private_file(&tmp, contents)?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => sync_parent(path),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // Filesystems without hard links: exclusive creation still lets one process win.
        Err(_) => {
            use std::io::Write;
            use std::os::unix::fs::OpenOptionsExt;
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
            {
                Ok(mut file) => {
                    file.write_all(contents)?;
                    file.sync_all()?;
                    sync_parent(path)
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(e) => Err(anyhow::Error::new(e).context(format!("writing {}", path.display()))),
            }
        }
    }
}

/// Writes `contents` to `path` readable by the owner only (0600), replacing any old file.
pub fn write_private_file(path: &Path, contents: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", Uuid::new_v4().simple()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("writing {}", tmp.display()))?;
    file.write_all(contents)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))?;
    sync_parent(path)
}

/// Makes a new or renamed file's directory entry durable.
fn sync_parent(path: &Path) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .with_context(|| format!("syncing {}", dir.display()))?;
    }
    Ok(())
}
