//! The team index, for every transport: the organisation's newest cursor (cached for
//! [`CURSOR_TTL`]), the full index (kept per organisation and patched with the changes
//! since its cursor, so a change costs one small read), and deltas since a cursor.
//!
//! REST (`GET /v1/index`), gRPC (`GetIndex`) and the live feed read the index only
//! through this module.
//!
//! No client pays for building an index: [`keep_warm`] builds every organisation's at
//! start-up (readiness waits for it) and patches it in the background whenever the
//! database announces a change, so requests find it built. Should a request still find
//! no index (an organisation's first skill, a missed notification), builds of one
//! organisation never run twice at once: a second request waits for the first's.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use cairn_store::{IndexEntry, IndexSnapshot, StoreError};

use crate::Services;

/// How long a cached organisation cursor is trusted: a change committed by another
/// process or replica shows in index reads within this time (this process's own changes
/// show at once, see [`IndexCache::changed`]).
pub const CURSOR_TTL: Duration = Duration::from_secs(1);

/// Why an index read failed.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The client's cursor is newer than the newest change: the registry was restored or
    /// reset, and continuing from that cursor would silently miss changes.
    #[error(
        "cursor {since} is newer than this registry's newest change ({newest}); the registry was restored or \
         reset: fetch the full index (without a cursor) and continue from its cursor"
    )]
    CursorExpired {
        /// The client's cursor.
        since: i64,
        /// The newest cursor.
        newest: i64,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Per-organisation newest cursor and full index.
pub struct IndexCache {
    cursors: Mutex<HashMap<i64, (i64, Instant)>>,
    full: Mutex<HashMap<i64, Arc<FullIndex>>>,
    /// One build or patch of an organisation's index at a time (the others wait for it
    /// and then find it built).
    builders: Mutex<HashMap<i64, Arc<tokio::sync::Mutex<()>>>>,
    /// Whether the start-up pass of [`keep_warm`] finished (readiness waits for it).
    warm: tokio::sync::watch::Sender<bool>,
}

impl Default for IndexCache {
    fn default() -> Self {
        IndexCache {
            cursors: Mutex::default(),
            full: Mutex::default(),
            builders: Mutex::default(),
            warm: tokio::sync::watch::Sender::new(false),
        }
    }
}

/// What made the registry read an organisation's whole index from the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildTrigger {
    /// A client's request found no index built (what [`keep_warm`] exists to prevent).
    Request,
    /// [`keep_warm`], at start-up or after a change.
    Background,
}

/// An organisation's full index as of `cursor`: each skill's entry, by name in byte
/// order (like the database's). Entries unchanged between two versions of the index are
/// the same `Arc`, so renderers can keep per-entry encodings.
#[derive(Debug)]
pub struct FullIndex {
    /// The newest change included.
    pub cursor: i64,
    /// The entries, by name.
    pub entries: BTreeMap<String, Arc<IndexEntry>>,
}

impl IndexCache {
    /// Forgets the organisation's cached cursor after a change made by this process, so
    /// its next index read sees the new cursor (read-your-writes on this replica).
    pub fn changed(&self, org_id: i64) {
        self.cursors.lock().unwrap_or_else(|e| e.into_inner()).remove(&org_id);
    }

    fn cursor(&self, org_id: i64) -> Option<i64> {
        let cursors = self.cursors.lock().unwrap_or_else(|e| e.into_inner());
        cursors
            .get(&org_id)
            .filter(|(_, at)| at.elapsed() < CURSOR_TTL)
            .map(|(c, _)| *c)
    }

    fn remember_cursor(&self, org_id: i64, cursor: i64) {
        self.cursors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(org_id, (cursor, Instant::now()));
    }

    fn full(&self, org_id: i64) -> Option<Arc<FullIndex>> {
        self.full
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&org_id)
            .cloned()
    }

    /// The organisation's index as cached now, if any (without reading anything).
    pub fn cached(&self, org_id: i64) -> Option<Arc<FullIndex>> {
        self.full(org_id)
    }

    /// Whether every organisation's index was built since the process started.
    pub fn is_warm(&self) -> bool {
        *self.warm.borrow()
    }

    /// Waits until [`IndexCache::is_warm`].
    pub async fn wait_warm(&self) {
        let mut warm = self.warm.subscribe();
        // The sender lives as long as `self`, so this cannot fail while we are borrowed.
        let _ = warm.wait_for(|warm| *warm).await;
    }

    fn builder(&self, org_id: i64) -> Arc<tokio::sync::Mutex<()>> {
        let mut builders = self.builders.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(builders.entry(org_id).or_default())
    }

    fn remember_full(&self, org_id: i64, index: Arc<FullIndex>) {
        let mut full = self.full.lock().unwrap_or_else(|e| e.into_inner());
        // Never replace a newer index with an older one built concurrently.
        if full.get(&org_id).is_none_or(|current| current.cursor <= index.cursor) {
            full.insert(org_id, index);
        }
    }
}

/// The organisation's newest cursor (cached for [`CURSOR_TTL`]). With the client's
/// `since`, a cursor beyond the newest is re-checked against the database (the cached one
/// may be stale) and then refused as [`IndexError::CursorExpired`].
pub async fn current_cursor(services: &Services, org_id: i64, since: Option<i64>) -> Result<i64, IndexError> {
    let cursor = match services.index_cache.cursor(org_id) {
        Some(cursor) => cursor,
        None => {
            let cursor = services.store.index_cursor(org_id).await?;
            services.index_cache.remember_cursor(org_id, cursor);
            cursor
        }
    };
    match since {
        Some(since) if since > cursor => {
            let newest = services.store.index_cursor(org_id).await?;
            services.index_cache.remember_cursor(org_id, newest);
            if since > newest {
                return Err(IndexError::CursorExpired { since, newest });
            }
            Ok(newest)
        }
        _ => Ok(cursor),
    }
}

/// The organisation's index as it is now (the latest non-yanked version of each skill),
/// as the sync client, the discovery endpoints and agents read it.
pub async fn current(services: &Services, org_id: i64) -> Result<Arc<FullIndex>, IndexError> {
    let cursor = current_cursor(services, org_id, None).await?;
    full(services, org_id, cursor).await
}

/// The full index as of at least `cursor`: from the cache, by patching the cached index
/// with the changes since its cursor, or (first time) by reading everything.
pub async fn full(services: &Services, org_id: i64, cursor: i64) -> Result<Arc<FullIndex>, IndexError> {
    full_for(services, org_id, cursor, BuildTrigger::Request).await
}

async fn full_for(
    services: &Services,
    org_id: i64,
    cursor: i64,
    trigger: BuildTrigger,
) -> Result<Arc<FullIndex>, IndexError> {
    let fresh = |cached: &Option<Arc<FullIndex>>| cached.as_ref().filter(|index| index.cursor >= cursor).cloned();
    if let Some(index) = fresh(&services.index_cache.full(org_id)) {
        return Ok(index);
    }
    let builder = services.index_cache.builder(org_id);
    let _turn = builder.lock().await;
    // Whoever held the turn may have built what we need.
    let cached = services.index_cache.full(org_id);
    if let Some(index) = fresh(&cached) {
        return Ok(index);
    }
    if cached.is_none() {
        services.metrics.index_built(trigger);
    }
    let (mut entries, since) = match cached {
        Some(index) => (index.entries.clone(), Some(index.cursor)),
        None => (BTreeMap::new(), None),
    };
    let snapshot = services.store.index(org_id, since).await?;
    for name in &snapshot.removed {
        entries.remove(name);
    }
    for entry in snapshot.skills {
        entries.insert(entry.name.clone(), Arc::new(entry));
    }
    let index = Arc::new(FullIndex {
        cursor: snapshot.cursor,
        entries,
    });
    services.index_cache.remember_full(org_id, Arc::clone(&index));
    // Only for requests: the keeper may have read its cursor before a change this process
    // just made (and forgot the cached cursor for, `IndexCache::changed`); writing it back
    // would hide the change from its author for a moment.
    if trigger == BuildTrigger::Request {
        services.index_cache.remember_cursor(org_id, index.cursor);
    }
    Ok(index)
}

/// Keeps every organisation's full index built: first for all that ever published (then
/// [`IndexCache::is_warm`] turns true), afterwards for each change `heard` tells of;
/// `encode` renders each built index for the transports (their bodies are then ready
/// too). Runs for as long as the returned future is polled; failures are logged and
/// retried.
pub async fn keep_warm(
    services: &Services,
    mut heard: tokio::sync::broadcast::Receiver<super::live::Heard>,
    encode: impl Fn(i64, &FullIndex),
) {
    use super::live::Heard;
    use tokio::sync::broadcast::error::{RecvError, TryRecvError};
    let mut backoff = Duration::from_millis(100);
    let started = Instant::now();
    while let Err(e) = warm_everything(services, &encode).await {
        tracing::warn!(error = %e, "building the index at start-up failed; retrying");
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(10));
    }
    services.index_cache.warm.send_replace(true);
    tracing::info!(took = ?started.elapsed(), "index built; ready");
    loop {
        // Everything heard so far, at once: an import of thousands of skills is a few
        // patches, not one per notification.
        let mut changed = std::collections::BTreeSet::new();
        let mut everything = false;
        let mut next = heard.recv().await;
        loop {
            match next {
                Ok(Heard::Changed(org_id)) => {
                    changed.insert(org_id);
                }
                Ok(Heard::Anything) | Err(RecvError::Lagged(_)) => everything = true,
                Err(RecvError::Closed) => return,
            }
            next = match heard.try_recv() {
                Ok(heard) => Ok(heard),
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Closed) => Err(RecvError::Closed),
                Err(TryRecvError::Empty) => break,
            };
        }
        let result = if everything {
            warm_everything(services, &encode).await
        } else {
            warm_orgs(services, &changed, &encode).await
        };
        if let Err(e) = result {
            tracing::warn!(error = %e, "keeping the index built failed; the next request or change builds it");
        }
    }
}

/// Builds (or patches) the index of every organisation that ever published. Fails only
/// when the organisations cannot be listed: one organisation whose index cannot be built
/// is logged and left to its requests (as before the keeper), so it never holds a
/// replica's readiness hostage.
async fn warm_everything(services: &Services, encode: &impl Fn(i64, &FullIndex)) -> Result<(), IndexError> {
    for (org_id, newest) in services.store.index_cursors().await? {
        if let Err(e) = warm(services, org_id, newest, encode).await {
            tracing::warn!(error = %e, org_id, "building an organisation's index failed; its requests will build it");
        }
    }
    Ok(())
}

async fn warm_orgs(
    services: &Services,
    orgs: &std::collections::BTreeSet<i64>,
    encode: &impl Fn(i64, &FullIndex),
) -> Result<(), IndexError> {
    for &org_id in orgs {
        let newest = services.store.index_cursor(org_id).await?;
        warm(services, org_id, newest, encode).await?;
    }
    Ok(())
}

async fn warm(
    services: &Services,
    org_id: i64,
    newest: i64,
    encode: &impl Fn(i64, &FullIndex),
) -> Result<(), IndexError> {
    let index = full_for(services, org_id, newest, BuildTrigger::Background).await?;
    encode(org_id, &index);
    Ok(())
}

/// The skills changed after `since` (current entries, and the removed names).
pub async fn delta(services: &Services, org_id: i64, since: i64) -> Result<IndexSnapshot, IndexError> {
    let snapshot = services.store.index(org_id, Some(since)).await?;
    services.index_cache.remember_cursor(org_id, snapshot.cursor);
    Ok(snapshot)
}

/// The full index encoded for one transport (JSON for REST, protobuf for gRPC), per
/// organisation, keeping each entry's encoding: after a change only the changed entries
/// (a new `Arc` in [`FullIndex::entries`]) are encoded again, and the body is reassembled.
#[derive(Default)]
pub struct EncodedIndex(Mutex<HashMap<i64, Arc<Encoded>>>);

/// One organisation's encoded index.
struct Encoded {
    cursor: i64,
    entries: BTreeMap<String, (Arc<IndexEntry>, Bytes)>,
    body: Bytes,
}

impl EncodedIndex {
    /// The body of `index`: `entry` encodes one entry, `assemble` the whole body from the
    /// cursor and the encoded entries in name order.
    pub fn encode<E>(
        &self,
        org_id: i64,
        index: &FullIndex,
        entry: impl Fn(&IndexEntry) -> Result<Bytes, E>,
        assemble: impl Fn(i64, &[&Bytes]) -> Bytes,
    ) -> Result<Bytes, E> {
        let previous = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&org_id).cloned();
        if let Some(previous) = &previous
            && previous.cursor == index.cursor
        {
            return Ok(previous.body.clone());
        }
        let mut entries = BTreeMap::new();
        for (name, current) in &index.entries {
            let reused = previous
                .as_ref()
                .and_then(|p| p.entries.get(name))
                .filter(|(old, _)| Arc::ptr_eq(old, current))
                .map(|(_, encoded)| encoded.clone());
            let encoded = match reused {
                Some(encoded) => encoded,
                None => entry(current)?,
            };
            entries.insert(name.clone(), (Arc::clone(current), encoded));
        }
        let parts: Vec<&Bytes> = entries.values().map(|(_, encoded)| encoded).collect();
        let body = assemble(index.cursor, &parts);
        let encoded = Arc::new(Encoded {
            cursor: index.cursor,
            entries,
            body: body.clone(),
        });
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if cache
            .get(&org_id)
            .is_none_or(|current| current.cursor <= encoded.cursor)
        {
            cache.insert(org_id, encoded);
        }
        Ok(body)
    }
}
