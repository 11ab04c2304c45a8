//! `cairn-registry key generate|list|activate|revoke`: the attestation key's life —
//! created offline, activated (the old key retired and cross-signing the new one),
//! revoked when it leaked. Every change is a signed log entry and an audit row.

use std::path::Path;

use anyhow::{Context, Result};
use cairn_store::Actor;
use cairn_store::log::LogSigner;

use cairn_registry::runtime::Runtime;
use cairn_registry::signing::{new_key, read_key_file};

/// Writes a new key to `out` (0600), refusing to replace a file.
pub fn generate(out: &Path) -> Result<()> {
    anyhow::ensure!(
        !out.exists(),
        "{} exists: choose another path (a key file is never overwritten)",
        out.display()
    );
    let key = new_key();
    cairn_registry::private_file::create_private_file_once(out, key.to_pem().as_bytes())
        .with_context(|| format!("writing {}", out.display()))?;
    println!("new attestation key {} written to {}", key.id(), out.display());
    println!("next: cairn-registry key activate {}", out.display());
    Ok(())
}

/// Prints the keys.
pub async fn list(rt: &Runtime, json: bool) -> Result<()> {
    let keys = rt.store.signing_keys().await.context("reading the signing keys")?;
    if json {
        let items: Vec<serde_json::Value> = keys
            .iter()
            .map(|k| {
                serde_json::json!({
                    "key_id": k.key_id, "public_key": hex::encode(&k.public_key), "status": k.status,
                    "created_at": k.created_at, "retired_at": k.retired_at, "revoked_at": k.revoked_at,
                    "revoked_after_index": k.revoked_after_index,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&items)?);
        return Ok(());
    }
    let configured = rt.store.log_signer().map(|s| s.key().id().to_string());
    for key in keys {
        let revoked = key
            .revoked_after_index
            .map(|i| format!(" (signatures count below log index {i})"))
            .unwrap_or_default();
        let mine = if configured.as_deref() == Some(key.key_id.as_str()) {
            "  ← configured here"
        } else {
            ""
        };
        println!("{}  {}{revoked}{mine}", key.key_id, key.status);
    }
    Ok(())
}

fn current(rt: &Runtime) -> Result<&LogSigner> {
    rt.ensure_signing()?;
    rt.store
        .log_signer()
        .context("this process has no attestation key configured")
}

/// Activates the key in `file`, retiring the configured one.
pub async fn activate(rt: &Runtime, file: &Path) -> Result<()> {
    let current = current(rt)?;
    let next = LogSigner::new(read_key_file(file)?);
    let change = rt
        .store
        .activate_key(current, &next, &Actor::cli("key activate"))
        .await
        .context("activating the key")?;
    println!(
        "key {} is active (log entry {}); key {} is retired: what it signed stays valid",
        change.key_id,
        change.log_index,
        current.key().id()
    );
    println!(
        "next: give every replica the new key (CAIRN_SIGNING_KEY_FILE) and restart it; until then they refuse \
         to publish"
    );
    Ok(())
}

/// Revokes a retired key.
pub async fn revoke(rt: &Runtime, key_id: &str, after_index: Option<u64>) -> Result<()> {
    let current = current(rt)?;
    let change = match rt
        .store
        .revoke_key(current, key_id, after_index, &Actor::cli("key revoke"))
        .await
    {
        Ok(change) => change,
        Err(cairn_store::StoreError::NotFound(what)) => {
            anyhow::bail!("{what} does not exist: `cairn-registry key list` shows the keys")
        }
        Err(e) => return Err(anyhow::Error::new(e).context("revoking the key")),
    };
    println!(
        "key {} is revoked: its signatures count only on log entries below {} (log entry {})",
        change.key_id,
        change.revoked_after_index.unwrap_or_default(),
        change.log_index
    );
    Ok(())
}
