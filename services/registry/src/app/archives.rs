//! A version's tar.gz as every transport serves it (the REST bundle, the review web's
//! download, the agent-skills archives): built once, kept as a content-addressed blob and
//! recorded on the version, so its bytes and digest never change; built under the
//! process's archive permits, which bound how many whole bundles sit in memory at once.

use bytes::Bytes;
use cairn_skill::Sha256Hash;

use super::catalog::{self, CatalogError, ResolvedVersion};
use crate::Services;

/// A version's archive as first built: kept as a content-addressed blob and recorded on
/// the version, so its bytes (and the digest published for them) never change, whatever
/// compressor a later build of the registry links. Built, stored and recorded now when
/// there is none yet; rebuilt when its blob went missing.
pub async fn stored(services: &Services, resolved: &ResolvedVersion) -> Result<(String, Bytes), CatalogError> {
    let version_id = resolved.version.id;
    let recorded = services.store.archive_sha256(version_id).await?;
    if let Some(hex) = &recorded
        && let Some(bytes) = read_archive(services, hex).await?
    {
        return Ok((hex.clone(), bytes));
    }
    let built = {
        let _permit = services
            .archive_permits
            .acquire()
            .await
            .map_err(|_| CatalogError::ShuttingDown)?;
        Bytes::from(catalog::bundle_archive(&services.store, services.blobs.as_ref(), resolved).await?)
    };
    let id = Sha256Hash::of(&built);
    let hex = id.to_hex();
    // The blob first: a recorded digest always has its archive.
    services.blobs.put(&id, built.clone()).await?;
    if recorded.is_some() {
        // The recorded archive's blob is gone: this build replaces it (and the digest this
        // process publishes; other replicas follow at the next index change).
        services.store.set_archive_sha256(version_id, &hex, true).await?;
        services.discovery_indexes.forget_all();
        tracing::warn!(
            version_id,
            "a stored archive was missing from the blob store; rebuilt it"
        );
        return Ok((hex, built));
    }
    services.store.set_archive_sha256(version_id, &hex, false).await?;
    match services.store.archive_sha256(version_id).await? {
        // Another process recorded its build first: serve that one.
        Some(winner) if winner != hex => match read_archive(services, &winner).await? {
            Some(bytes) => Ok((winner, bytes)),
            None => Ok((hex, built)),
        },
        _ => Ok((hex, built)),
    }
}

async fn read_archive(services: &Services, hex: &str) -> Result<Option<Bytes>, CatalogError> {
    let Ok(id) = Sha256Hash::parse_hex(hex) else {
        return Ok(None);
    };
    Ok(services.blobs.get(&id).await?)
}
