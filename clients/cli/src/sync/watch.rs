//! `cairn watch`: stays running, pulls as soon as the registry announces a change (its
//! Server-Sent Events, `GET /v1/events`), and pushes the agent's edits once the target
//! folders have been quiet for a while. Reconnects with backoff; logs what it did. Each
//! pull or push round takes the target's lock ([`super::lock`]) for that round only, so a
//! manual `cairn pull` waits at most one round.

use std::path::Path;
use std::time::Duration;

use futures::StreamExt as _;
use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{DebounceEventResult, new_debouncer};
use tokio::sync::mpsc;

use super::lock;
use super::pull::{self, Action};
use super::push::{self, PushOptions};
use super::target::Target;
use crate::folder::STAGING_PREFIX;
use crate::remote::Registry;

/// How `watch` behaves.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// Quiet time after the last local change before pushing.
    pub quiet: Duration,
    /// Whether local edits are pushed (else only pulls happen).
    pub push: bool,
    /// What pushes carry (names are ignored: every edited skill is pushed).
    pub push_options: PushOptions,
    /// Log as JSON lines (`{"at", "message"}`) instead of text.
    pub json: bool,
    /// How long a round waits for a target another `cairn` is syncing.
    pub lock_wait: Duration,
}

/// Why watching stopped.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The target folders cannot be watched.
    #[error("cannot watch {path}: {reason}")]
    Watch {
        /// The folder.
        path: String,
        /// Why.
        reason: String,
    },
    /// The first pull failed (later failures are logged and retried).
    #[error(transparent)]
    Pull(#[from] pull::PullError),
}

/// Writes the log: a line per action, with the time.
#[derive(Clone, Copy)]
struct Log {
    json: bool,
}

impl Log {
    fn line(self, message: &str) {
        let now = chrono::Utc::now();
        if self.json {
            println!("{}", serde_json::json!({ "at": now.to_rfc3339(), "message": message }));
        } else {
            println!("{} {message}", now.format("%H:%M:%S"));
        }
    }
}

/// Collects Server-Sent Events text and tells whether a complete `change` event arrived.
#[derive(Default)]
struct EventText(String);

impl EventText {
    fn feed(&mut self, chunk: &str) -> bool {
        self.0.push_str(&chunk.replace("\r\n", "\n"));
        let mut changed = false;
        while let Some(end) = self.0.find("\n\n") {
            let block: String = self.0.drain(..end + 2).collect();
            changed |= block.lines().any(|line| line.trim_end() == "event: change");
        }
        changed
    }
}

/// Pulls into every target; one target's failure (logged with its name) does not keep
/// the others from their changes. Returns the first failure.
async fn pull_all(
    log: Log,
    registry: &Registry,
    targets: &[Target],
    cache: &Path,
    lock_wait: Duration,
) -> Result<(), pull::PullError> {
    let mut first_failure = None;
    for target in targets {
        // Each round holds the target only while it pulls: a manual pull gets in between.
        let locked = match lock::acquire(target, lock_wait).await {
            Ok(locked) => locked,
            Err(e) => {
                log.line(&format!("pull into {} failed: {e}", target.label));
                first_failure.get_or_insert(e.into());
                continue;
            }
        };
        let pulled = pull::pull(registry, target, cache).await;
        drop(locked);
        let report = match pulled {
            Ok(report) => report,
            Err(e) => {
                log.line(&format!("pull into {} failed: {e}", target.label));
                first_failure.get_or_insert(e);
                continue;
            }
        };
        let changed: Vec<String> = report
            .skills
            .iter()
            .filter(|o| o.action != Action::KeptLocalOnly)
            .map(|o| {
                format!(
                    "{} {}",
                    o.name,
                    serde_json::to_value(o.action)
                        .unwrap_or_default()
                        .as_str()
                        .unwrap_or("")
                )
            })
            .collect();
        if !changed.is_empty() {
            log.line(&format!("pulled into {}: {}", target.label, changed.join(", ")));
        }
    }
    first_failure.map_or(Ok(()), Err)
}

async fn push_all(log: Log, registry: &Registry, targets: &[Target], cache: &Path, options: &WatchOptions) {
    for target in targets {
        let _locked = match lock::acquire(target, options.lock_wait).await {
            Ok(locked) => locked,
            Err(e) => {
                log.line(&format!(
                    "push from {} failed: {e}; retrying after the next change",
                    target.label
                ));
                continue;
            }
        };
        match super::follow::follow_up(registry, target, cache, true).await {
            Ok(found) => {
                for f in found.iter().filter(|f| f.changed || f.note.is_some()) {
                    log.line(&format!(
                        "patch {} for {} in {} is {}{}",
                        f.patch,
                        f.skill,
                        target.label,
                        f.status,
                        f.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default()
                    ));
                    for comment in &f.comments {
                        log.line(&format!("  {comment}"));
                    }
                }
            }
            Err(e) => log.line(&format!(
                "following up the patches of {} failed: {e}; retrying after the next change",
                target.label
            )),
        }
        match push::push(registry, target, &options.push_options).await {
            Ok(pushed) => {
                for p in pushed.iter().filter(|p| p.action != "skipped") {
                    log.line(&format!(
                        "pushed {} from {}: {}{}",
                        p.name,
                        target.label,
                        p.status.as_deref().unwrap_or(p.action),
                        p.message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default()
                    ));
                }
            }
            Err(e) => log.line(&format!(
                "push from {} failed: {e}; retrying after the next change",
                target.label
            )),
        }
    }
}

/// How often `watch` asks where the patches it pushed stand.
pub const FOLLOW_UP_INTERVAL: Duration = Duration::from_secs(60);

/// Runs until the process is stopped.
pub async fn watch(
    registry: &Registry,
    targets: &[Target],
    cache: &Path,
    options: &WatchOptions,
) -> Result<(), WatchError> {
    let log = Log { json: options.json };
    pull_all(log, registry, targets, cache, options.lock_wait).await?;
    log.line(&format!("watching {} for changes", registry.server()));

    // Local edits: debounced file events of the target folders.
    // Ok: local edits settled; Err: the file watcher failed (said in the log).
    let (local_tx, mut local_rx) = mpsc::unbounded_channel::<Result<(), String>>();
    let mut debouncer = new_debouncer(options.quiet, move |result: DebounceEventResult| {
        let ours = |path: &Path| {
            path.components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with(STAGING_PREFIX))
        };
        match result {
            Ok(events) if events.iter().any(|e| !ours(&e.path)) => {
                let _ = local_tx.send(Ok(()));
            }
            Ok(_) => {}
            Err(e) => {
                let _ = local_tx.send(Err(e.to_string()));
            }
        }
    })
    .map_err(|e| WatchError::Watch {
        path: "the target folders".to_owned(),
        reason: e.to_string(),
    })?;
    if options.push {
        for target in targets {
            debouncer
                .watcher()
                .watch(&target.root, RecursiveMode::Recursive)
                .map_err(|e| WatchError::Watch {
                    path: target.root.display().to_string(),
                    reason: e.to_string(),
                })?;
        }
    }

    let mut backoff = Duration::from_secs(1);
    loop {
        let mut events = match registry.events().await {
            Ok(events) => {
                backoff = Duration::from_secs(1);
                events
            }
            Err(e) => {
                log.line(&format!(
                    "cannot follow changes: {e}; retrying in {}s",
                    backoff.as_secs()
                ));
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(30));
                continue;
            }
        };
        log.line("following the registry's changes");
        // Changes may have been missed while disconnected.
        if pull_all(log, registry, targets, cache, options.lock_wait)
            .await
            .is_err()
        {
            log.line("retrying the failed pulls at the next change");
        }
        let mut text = EventText::default();
        let mut follow = tokio::time::interval(FOLLOW_UP_INTERVAL);
        follow.reset();
        loop {
            tokio::select! {
                // A patch may end in conflict without any index change (when a reviewer's
                // approval finds it cannot merge): ask now and then.
                _ = follow.tick(), if options.push => {
                    push_all(log, registry, targets, cache, options).await;
                }
                chunk = events.next() => match chunk {
                    Some(Ok(chunk)) if text.feed(&chunk) => {
                        // Let a burst of changes settle, then pull once.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        if pull_all(log, registry, targets, cache, options.lock_wait).await.is_err() {
                            log.line("retrying the failed pulls at the next change");
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        log.line(&format!("lost the change stream: {e}; reconnecting"));
                        break;
                    }
                    None => {
                        log.line("the registry closed the change stream; reconnecting");
                        break;
                    }
                },
                Some(settled) = local_rx.recv(), if options.push => match settled {
                    Ok(()) => {
                        log.line("local edits settled; pushing");
                        push_all(log, registry, targets, cache, options).await;
                    }
                    Err(e) => {
                        log.line(&format!(
                            "watching the target folders failed ({e}); pushing anyway, in case edits were missed"
                        ));
                        push_all(log, registry, targets, cache, options).await;
                    }
                },
            }
        }
        tokio::time::sleep(backoff).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_events_are_found_across_chunks_and_heartbeats_ignored() {
        let mut text = EventText::default();
        assert!(!text.feed("event: heartbeat\ndata: {\"cursor\":3}\n\n"));
        assert!(!text.feed("id: 4\nevent: cha"));
        assert!(text.feed("nge\ndata: {}\n\n"));
        assert!(text.feed("id: 5\r\nevent: change\r\ndata: {}\r\n\r\n"));
        assert!(!text.feed(": comment\n\n"));
    }
}
