//! `cairn log watch`: a witness of a registry's transparency log. It keeps the keys it
//! trusts and the last checkpoint it verified in a state file; each check proves the new
//! checkpoint extends that one (an RFC 6962 consistency proof) and fails loudly on a
//! fork — a log that shrank, changed its root at the same size, or is not an extension
//! of what this witness saw. Run by CI or another team, it makes a registry that shows
//! different histories to different people detectable.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::provenance::{NotExtended, PinnedKey, Pins, ProvenanceError, fetch_pins, open_checkpoint, prove_extends};
use crate::remote::{Registry, RemoteError};

/// Exit code of a fork or a checkpoint that does not verify.
pub const EXIT_FORK: u8 = 4;

/// What a witness keeps between checks.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WitnessState {
    /// The registry watched.
    pub server: String,
    /// Its keys as trusted, and the last checkpoint verified.
    pub pins: Pins,
}

/// Why a check failed.
#[derive(Debug, thiserror::Error)]
pub enum WitnessError {
    /// The registry could not be asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The state file cannot be read or written.
    #[error("{path}: {reason}")]
    State {
        /// The state file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// The log forked, or its checkpoint does not verify: the registry's history cannot
    /// be trusted until its operators explain it.
    #[error("{0}")]
    Fork(String),
}

impl WitnessError {
    /// The process exit code: [`EXIT_FORK`] for a fork, else 2.
    pub fn exit_code(&self) -> u8 {
        match self {
            WitnessError::Fork(_) => EXIT_FORK,
            _ => 2,
        }
    }
}

impl From<ProvenanceError> for WitnessError {
    fn from(error: ProvenanceError) -> Self {
        match error {
            ProvenanceError::Remote(e) => WitnessError::Remote(e),
            other => WitnessError::Fork(other.to_string()),
        }
    }
}

/// What one check found.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Observation {
    /// First check: the keys and checkpoint are now pinned (trust on first use).
    Started {
        /// The log's size.
        size: u64,
    },
    /// The log has not grown.
    Unchanged {
        /// Its size.
        size: u64,
    },
    /// The log grew and the new tree extends the old one.
    Grew {
        /// The size seen before.
        from: u64,
        /// The size now.
        to: u64,
    },
}

fn state_error(path: &Path, reason: String) -> WitnessError {
    WitnessError::State {
        path: path.to_owned(),
        reason,
    }
}

fn read_state(path: &Path) -> Result<Option<WitnessState>, WitnessError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
            state_error(
                path,
                format!("not a witness state file ({e}): move it away to start watching afresh"),
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(state_error(path, e.to_string())),
    }
}

fn write_state(path: &Path, state: &WitnessState) -> Result<(), WitnessError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| state_error(path, e.to_string()))?;
    }
    let mut text = serde_json::to_string_pretty(state).map_err(|e| state_error(path, e.to_string()))?;
    text.push('\n');
    crate::folder::write_atomically(path, text.as_bytes(), None, true).map_err(|e| state_error(path, e.to_string()))
}

/// One check of `registry`'s log against the state in `path` (created on the first
/// check). With `trust_new_keys`, keys the registry lists that the state does not are
/// trusted from now on (after its operators confirmed a rotation).
pub async fn check(registry: &Registry, path: &Path, trust_new_keys: bool) -> Result<Observation, WitnessError> {
    let Some(mut state) = read_state(path)? else {
        let pins = fetch_pins(registry).await?;
        let size = pins.checkpoint()?.size;
        write_state(
            path,
            &WitnessState {
                server: registry.server().to_owned(),
                pins,
            },
        )?;
        return Ok(Observation::Started { size });
    };
    if state.server != registry.server() {
        return Err(state_error(
            path,
            format!(
                "this state watches {}, not {}: give each registry its own --state file",
                state.server,
                registry.server()
            ),
        ));
    }
    let old = state.pins.checkpoint()?;
    // The registry's word on its keys only ever tightens what is pinned (a key retired or
    // revoked since, a revocation reaching further back). A new key is trusted when its
    // activation follows from the pinned keys (signed by the key it replaced, and proved
    // in the log below), or when asked to.
    let document = registry.signing_keys().await?;
    let (keys_changed, followed) = crate::rotation::take_keys(&mut state.pins, &document.keys, trust_new_keys)?;
    let keyring = state.pins.keyring()?;
    let note = registry.checkpoint().await?;
    let new = open_checkpoint(&note, &state.pins.origin, &keyring).map_err(|e| {
        WitnessError::Fork(format!(
            "the registry's checkpoint does not verify with the keys this witness trusts ({e}); if its operators \
             rotated the key, confirm it with them and run once with --trust-new-keys"
        ))
    })?;
    let fork = |why: String| {
        WitnessError::Fork(format!(
            "FORK: {why}. The registry shows a history other than the one this witness saw at size {} (root {}): \
             stop trusting it and tell its operators; the state file keeps the last good checkpoint",
            old.size, old.root
        ))
    };
    match prove_extends(registry, &old, &new).await {
        Ok(()) => {}
        Err(NotExtended::Remote(e)) => return Err(e.into()),
        Err(NotExtended::Fork(why)) => return Err(fork(why)),
    }
    crate::rotation::prove_activations(registry, &followed, &new)
        .await
        .map_err(|e| match e {
            ProvenanceError::Failed(why) => fork(why),
            other => other.into(),
        })?;
    if new.size == old.size {
        if keys_changed {
            write_state(path, &state)?;
        }
        return Ok(Observation::Unchanged { size: new.size });
    }
    state.pins.checkpoint = note;
    write_state(path, &state)?;
    Ok(Observation::Grew {
        from: old.size,
        to: new.size,
    })
}

/// The pins this machine trusts for `registry`: the witness state at `path` brought up to
/// the registry's current checkpoint by a consistency proof (created, trusting on first
/// use, when there is none yet). Fails on a fork like [`check`].
pub async fn trusted_pins(registry: &Registry, path: &Path) -> Result<(Pins, Observation), WitnessError> {
    let observation = check(registry, path, false).await?;
    let state = read_state(path)?.ok_or_else(|| state_error(path, "the witness state vanished".to_owned()))?;
    Ok((state.pins, observation))
}

/// Moves a pinned key's status forward to what the registry says now, never back:
/// active → retired → revoked, and a revocation index only ever lower.
pub(crate) fn tighten(pinned: &mut PinnedKey, status: &str, revoked_after_index: Option<u64>) {
    let rank = |status: &str| match status {
        "active" => 0,
        "retired" => 1,
        _ => 2,
    };
    if rank(status) > rank(&pinned.status) {
        pinned.status = status.to_owned();
        pinned.revoked_after_index = revoked_after_index;
    } else if pinned.status == "revoked"
        && let (Some(now), Some(then)) = (revoked_after_index, pinned.revoked_after_index)
        && now < then
    {
        pinned.revoked_after_index = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pinned(status: &str, index: Option<u64>) -> PinnedKey {
        PinnedKey {
            key_id: "k".into(),
            public_key: "p".into(),
            status: status.into(),
            revoked_after_index: index,
        }
    }

    #[test]
    fn a_pinned_key_only_moves_forward() {
        let mut key = pinned("active", None);
        tighten(&mut key, "retired", None);
        assert_eq!(key, pinned("retired", None));
        tighten(&mut key, "active", None);
        assert_eq!(key, pinned("retired", None), "never back to active");
        tighten(&mut key, "revoked", Some(9));
        assert_eq!(key, pinned("revoked", Some(9)));
        tighten(&mut key, "revoked", Some(12));
        assert_eq!(
            key,
            pinned("revoked", Some(9)),
            "a revocation never reaches less far back"
        );
        tighten(&mut key, "revoked", Some(4));
        assert_eq!(key, pinned("revoked", Some(4)));
        tighten(&mut key, "active", None);
        assert_eq!(key, pinned("revoked", Some(4)));
    }
}
