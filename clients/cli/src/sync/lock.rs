//! One `cairn` at a time per target: a pull, a push (with the pull its follow-up may
//! run) or one round of `watch` holds the target's lock for as long as it reads and
//! writes the target's folders and state, so a manual pull while `watch` runs never
//! interleaves with it — it waits its turn (`watch` takes the lock per round, never for
//! its whole life).
//!
//! The lock is an advisory lock (`flock` and the like, through std's `File::lock`) on
//! `<state file>.lock` beside the target's state in `$XDG_STATE_HOME/cairn/targets/`; the
//! system releases it when the holder exits, however it exits. The holder writes its pid
//! and command into the file, so a process that waited too long can say who holds it.

use std::fs::File;
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::state::{self, StateError};
use super::target::Target;
use crate::folder::{self, FolderError};

/// The variable that sets how long to wait for a busy target (`30s`, `2min`, `0`).
pub const WAIT_ENV: &str = "CAIRN_LOCK_WAIT";

/// How long a command waits for a busy target when [`WAIT_ENV`] is not set.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(60);

/// How often a waiting process tries again.
const POLL: Duration = Duration::from_millis(50);

/// Why a target's lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// No state folder is known.
    #[error(transparent)]
    State(#[from] StateError),
    /// The lock file could not be opened or written.
    #[error(transparent)]
    Io(#[from] FolderError),
    /// Another process held the target for the whole wait.
    #[error(
        "{root} is busy: {holder} is syncing it and did not finish within {waited}; let it finish and run this \
         again{stop}, or wait longer with {WAIT_ENV}=5min"
    )]
    Busy {
        /// The target's skills folder.
        root: String,
        /// Who holds it, in words (`cairn (pid 4242: cairn watch --target hermes, since …)`).
        holder: String,
        /// How long this process waited.
        waited: String,
        /// `, or stop it (kill 4242)` when the holder's pid is known.
        stop: String,
    },
    /// [`WAIT_ENV`] is not a duration.
    #[error("{WAIT_ENV}='{0}' is not a duration: use one like 30s, 2min or 0 (do not wait)")]
    BadWait(String),
}

/// What the holder writes into the lock file.
#[derive(Debug, Deserialize, Serialize)]
struct Holder {
    pid: u32,
    command: String,
    since: String,
}

/// A held target lock; dropping it releases the target.
#[derive(Debug)]
pub struct TargetLock {
    file: File,
}

impl Drop for TargetLock {
    fn drop(&mut self) {
        // Still held here: nobody reads a stale holder. Closing the file unlocks it.
        let _ = self.file.set_len(0);
    }
}

/// How long to wait for a busy target: [`WAIT_ENV`] from `env`, else [`DEFAULT_WAIT`].
pub fn wait_from(env: impl Fn(&str) -> Option<String>) -> Result<Duration, LockError> {
    match env(WAIT_ENV).filter(|v| !v.trim().is_empty()) {
        None => Ok(DEFAULT_WAIT),
        Some(value) if value.trim() == "0" => Ok(Duration::ZERO),
        Some(value) => humantime::parse_duration(value.trim()).map_err(|_| LockError::BadWait(value)),
    }
}

/// The lock file of the target at `root`.
pub fn path_for(root: &Path) -> Result<PathBuf, StateError> {
    Ok(state::path_for(root)?.with_extension("lock"))
}

/// Takes `target`'s lock, waiting up to `wait` while another process holds it.
pub async fn acquire(target: &Target, wait: Duration) -> Result<TargetLock, LockError> {
    let path = path_for(&target.root)?;
    let mut file = open(&path)?;
    let started = tokio::time::Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return hold(file, &path),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < wait => {
                tokio::time::sleep(POLL).await;
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                return Err(LockError::Busy {
                    root: target.root.display().to_string(),
                    stop: holder
                        .as_ref()
                        .map(|h| format!(", or stop it (kill {})", h.pid))
                        .unwrap_or_default(),
                    holder: holder.map_or_else(
                        || "another cairn".to_owned(),
                        |h| format!("another cairn (pid {}: {}, since {})", h.pid, h.command, h.since),
                    ),
                    waited: humantime::format_duration(wait).to_string(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(folder::io(&path)(e).into()),
        }
    }
}

/// Takes `target`'s lock if it is free at once (`None`: another process holds it).
pub fn try_acquire(target: &Target) -> Result<Option<TargetLock>, LockError> {
    let path = path_for(&target.root)?;
    let file = open(&path)?;
    match file.try_lock() {
        Ok(()) => hold(file, &path).map(Some),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(folder::io(&path)(e).into()),
    }
}

fn open(path: &Path) -> Result<File, FolderError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(folder::io(dir))?;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(folder::io(path))
}

/// Writes who holds the lock (this process) into the locked file.
fn hold(mut file: File, path: &Path) -> Result<TargetLock, LockError> {
    let mut args = std::env::args();
    let program = args
        .next()
        .map(|p| {
            Path::new(&p)
                .file_name()
                .map_or(p.clone(), |n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "cairn".to_owned());
    let command = std::iter::once(program).chain(args).collect::<Vec<_>>().join(" ");
    let holder = Holder {
        pid: std::process::id(),
        command,
        since: chrono::Local::now().format("%H:%M:%S").to_string(),
    };
    let text = serde_json::to_string(&holder).unwrap_or_default();
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(text.as_bytes()))
        .map_err(folder::io(path))?;
    Ok(TargetLock { file })
}

fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_read_from_the_environment_and_a_bad_one_is_refused() {
        assert_eq!(wait_from(|_| None).unwrap(), DEFAULT_WAIT);
        let env = |value: &'static str| move |_: &str| Some(value.to_owned());
        assert_eq!(wait_from(env("0")).unwrap(), Duration::ZERO);
        assert_eq!(wait_from(env("250ms")).unwrap(), Duration::from_millis(250));
        let e = wait_from(env("soon")).unwrap_err().to_string();
        assert!(e.contains("CAIRN_LOCK_WAIT='soon' is not a duration"), "{e}");
    }
}
