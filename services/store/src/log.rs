//! The transparency log: every version event (publish, yank, unyank) and every signing-key
//! event becomes a signed DSSE envelope appended, in the same transaction, to an RFC 6962
//! Merkle tree kept in PostgreSQL (`log_entries`, `log_hashes`, `transparency_log`).
//!
//! Appends lock the log's head row, so entries take consecutive indexes in commit order
//! whatever the number of replicas; the lock is taken last in a transaction (after the
//! organisation's index lock), just before it commits. A publication whose facts the
//! publishing code states takes the lock by the statement that writes, if this process
//! wrote the head last (one round trip); otherwise by a locking read first (two).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cairn_provenance::merkle::{self, Hash};
use cairn_provenance::statement::{
    AttestedFile, AttestedPatch, AttestedScan, KeyEvent, KeyPredicate, Statement, VersionEvent, VersionPredicate,
};
use cairn_provenance::{Envelope, SigningKey, dsse::IN_TOTO_PAYLOAD_TYPE};
use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::{Postgres, Transaction};
use tracing::instrument;

use crate::{Actor, Store, StoreError};

/// The key this process signs log entries with. Every replica holds the same one; the
/// database records only its public half.
#[derive(Clone, Debug)]
pub struct LogSigner {
    key: SigningKey,
    /// The head this process last wrote or saw: the next append assumes it and lets the
    /// database check the assumption in the statement that writes (see [`append_if_head_is`]).
    last_head: Arc<Mutex<Option<KnownHead>>>,
    appends: Arc<AppendCounters>,
}

/// How this process's appends went, for the operator's metrics: how often the head it
/// assumed was still the stored one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AppendCounts {
    /// Appends written by one statement on an assumed head (no read of the head first).
    pub assumed_head: u64,
    /// Appends that read the head under its lock first (the head moved, a yank, a
    /// process's first append).
    pub locked_head: u64,
}

#[derive(Debug, Default)]
struct AppendCounters {
    assumed_head: AtomicU64,
    locked_head: AtomicU64,
}

impl LogSigner {
    /// A signer with `key`.
    pub fn new(key: SigningKey) -> Self {
        Self {
            key,
            last_head: Arc::default(),
            appends: Arc::default(),
        }
    }

    /// The key.
    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// How this process's appends went since it started.
    pub fn append_counts(&self) -> AppendCounts {
        AppendCounts {
            assumed_head: self.appends.assumed_head.load(Ordering::Relaxed),
            locked_head: self.appends.locked_head.load(Ordering::Relaxed),
        }
    }

    fn last_head(&self) -> Option<KnownHead> {
        self.last_head.lock().ok().and_then(|head| head.clone())
    }

    /// Keeps `head` for the next append (`None`: none is known, the next one locks).
    fn remember(&self, head: Option<KnownHead>) {
        if let Ok(mut last) = self.last_head.lock() {
            *last = head;
        }
    }
}

/// A head as this process last wrote or saw it — perhaps in a transaction that then rolled
/// back, perhaps moved since by another replica or a key rotation: an append that assumes
/// it writes only if the stored head still has its size and root and the signer's key is
/// the active one.
#[derive(Clone, Debug)]
struct KnownHead {
    head: LogHead,
    /// The stored hashes the next append reads (the tree's right edge).
    edge: HashMap<u64, Hash>,
}

impl KnownHead {
    /// Whether an append by `signer` can assume it: its key is the active one and its edge
    /// gives its root (so the hashes it writes extend that very tree).
    fn usable_by(&self, signer: &LogSigner) -> bool {
        self.head.active_key.as_deref() == Some(signer.key.id().as_str())
            && merkle::root(self.head.size, &self.edge).is_ok_and(|root| root == self.head.root)
    }
}

/// A version event waiting to be appended when its transaction commits, with the facts
/// its attestation states when the publishing code has them in hand (otherwise they are
/// read under the log's lock).
#[derive(Clone, Debug)]
pub(crate) struct PendingEvent {
    version_id: i64,
    event: VersionEvent,
    facts: Option<Box<VersionFacts>>,
}

impl PendingEvent {
    /// A version just published, with the facts the publishing statement wrote.
    pub(crate) fn published(facts: VersionFacts) -> Self {
        Self {
            version_id: facts.id,
            event: VersionEvent::Published,
            facts: Some(Box::new(facts)),
        }
    }

    /// An event whose facts are read under the log's lock (a yank, an unyank, a version
    /// published before the log).
    pub(crate) fn read_under_lock(version_id: i64, event: VersionEvent) -> Self {
        Self {
            version_id,
            event,
            facts: None,
        }
    }
}

/// The log's head.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LogHead {
    /// The log's name (the registry's name; set when the log is first opened).
    pub origin: String,
    /// How many entries it holds.
    pub size: u64,
    /// Their root hash.
    pub root: Hash,
    /// The id of the key that signs now (`None`: the log was never opened).
    pub active_key: Option<String>,
}

/// One stored entry.
#[derive(Clone, Debug)]
pub struct LogEntryRecord {
    /// Its index.
    pub index: u64,
    /// The envelope's compact JSON (the leaf's data).
    pub entry: Vec<u8>,
    /// The event (`published`, `yanked`, `unyanked`, `activated`, `retired`, `revoked`).
    pub event: String,
    /// The key that signed it.
    pub key_id: String,
    /// When it was appended.
    pub created_at: DateTime<Utc>,
    /// The organisation of the version it is about (`None`: a key event).
    pub org_id: Option<i64>,
}

type EntryRow = (i64, Vec<u8>, String, String, DateTime<Utc>, Option<i64>);

/// An entry row led by the skill name and revision it is about.
type VersionEntryRow = (String, i32, i64, Vec<u8>, String, String, DateTime<Utc>, Option<i64>);

fn entry_record((index, entry, event, key_id, created_at, org_id): EntryRow) -> LogEntryRecord {
    LogEntryRecord {
        index: to_u64(index),
        entry,
        event,
        key_id,
        created_at,
        org_id,
    }
}

/// A signing key as the registry publishes it.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct SigningKeyRecord {
    /// Lowercase hex SHA-256 of the public key.
    pub key_id: String,
    /// The raw 32-byte public key.
    pub public_key: Vec<u8>,
    /// `active`, `retired` or `revoked`.
    pub status: String,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it stopped signing.
    pub retired_at: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Entries at or above this index signed by it are not trusted.
    pub revoked_after_index: Option<i64>,
    /// The index of its activation entry (signed by it and by the key it replaced).
    pub activated_index: Option<i64>,
}

/// What opening the log found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogOpening {
    /// The configured key is the active one (registered now if the log had none).
    Ready(LogHead),
    /// Another key is active: this process must be given that one.
    OtherKeyActive {
        /// The active key's id.
        active: String,
    },
    /// The configured key was retired or revoked.
    KeyNotActive {
        /// Its status.
        status: String,
    },
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn to_u64(value: i64) -> u64 {
    u64::try_from(value).unwrap_or(0)
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// The facts of a version an attestation states: stated by the publishing code from what
/// it wrote, or read by the locking statement (as of its start: the versions are this
/// transaction's own rows; a handle renamed while it waited for the lock is attested as it
/// was). Both ways give the same facts; `Store::restated_publication` reads them back.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
pub(crate) struct VersionFacts {
    pub(crate) id: i64,
    pub(crate) organization: String,
    pub(crate) skill: String,
    pub(crate) category: Option<String>,
    pub(crate) revision: i32,
    pub(crate) digest: String,
    pub(crate) source: String,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) scan_verdict: Option<String>,
    pub(crate) scan_rules: Option<String>,
    pub(crate) publisher: Option<String>,
    pub(crate) patch_id: Option<String>,
    pub(crate) base_revision: Option<i32>,
    pub(crate) author: Option<String>,
    pub(crate) agent: Option<serde_json::Value>,
    pub(crate) contributors: serde_json::Value,
    pub(crate) reviewer: Option<String>,
    pub(crate) decided_at: Option<DateTime<Utc>>,
    /// Sorted by path bytes.
    pub(crate) files: Vec<AttestedFile>,
}

/// The locking read of the head: the head row (with the active key and the tree's edge),
/// the time — the statement's clock, never earlier than the last entry's — and the facts
/// of the versions `$1` as one JSON array (`log_version_facts`, migration 0015: no round
/// trip of their own, and planned once per connection rather than at every publish).
const LOCK_HEAD: &str = "SELECT origin, size, root, active_key, edge_idx, edge_hashes, \
        greatest(clock_timestamp(), recorded_at), log_version_facts($1) \
     FROM transparency_log FOR UPDATE";

fn version_predicate(
    facts: &VersionFacts,
    event: VersionEvent,
    registry: &str,
    now: DateTime<Utc>,
) -> VersionPredicate {
    let patch = facts.patch_id.as_ref().map(|id| AttestedPatch {
        id: id.clone(),
        base_revision: facts.base_revision,
        author: facts.author.clone().unwrap_or_default(),
        agent: facts.agent.clone().unwrap_or_default(),
        contributors: facts.contributors.clone(),
    });
    let approvals = match (&facts.reviewer, facts.decided_at) {
        (Some(reviewer), Some(at)) => vec![cairn_provenance::statement::Approval {
            reviewer: reviewer.clone(),
            at: rfc3339(at),
        }],
        _ => Vec::new(),
    };
    let published_at = rfc3339(facts.created_at);
    VersionPredicate {
        event,
        registry: registry.to_owned(),
        organization: facts.organization.clone(),
        skill: facts.skill.clone(),
        revision: facts.revision,
        digest: facts.digest.clone(),
        category: facts.category.clone(),
        files: facts.files.clone(),
        source: facts.source.clone(),
        publisher: if patch.is_some() { None } else { facts.publisher.clone() },
        patch,
        approvals,
        scan: match (&facts.scan_verdict, &facts.scan_rules) {
            (Some(verdict), Some(rules)) => Some(AttestedScan {
                verdict: verdict.clone(),
                rules: rules.clone(),
            }),
            _ => None,
        },
        recorded_at: if event == VersionEvent::Published {
            published_at.clone()
        } else {
            rfc3339(now)
        },
        published_at,
    }
}

/// The log as a transaction holds it locked: its head, the time of the lock, the stored
/// hashes the appends that follow read, and the facts of the versions they attest.
struct Locked {
    head: LogHead,
    now: DateTime<Utc>,
    known: HashMap<u64, Hash>,
    facts: HashMap<i64, VersionFacts>,
}

/// The stored hashes appending `count` entries to a tree of `size` reads (those already
/// stored: the ones the appends write themselves are computed on the way).
fn hashes_read_by_appending(size: u64, count: u64) -> Vec<i64> {
    let stored_before = merkle::first_stored_index(size);
    let mut needed: Vec<u64> = (size..size + count).flat_map(merkle::append_needs).collect();
    for end in size + 1..=size + count {
        needed.extend(merkle::root_needs(end));
    }
    needed.retain(|i| *i < stored_before);
    needed.sort_unstable();
    needed.dedup();
    needed.into_iter().map(to_i64).collect()
}

/// The head row as the locking statement reads it.
type HeadRow = (
    Option<String>,
    i64,
    Vec<u8>,
    Option<String>,
    Vec<i64>,
    Vec<Vec<u8>>,
    DateTime<Utc>,
    sqlx::types::Json<Vec<VersionFacts>>,
);

/// Locks the head for appending and checks `signer` holds the active key: one round
/// trip. The head row carries the active key and the tree's right edge, and a row locked
/// `FOR UPDATE` is read as committed once the lock is granted, so a rotation or append
/// that committed while this one waited is seen. The time is the statement's clock, never
/// earlier than the last entry's; the facts of `versions` come along (this transaction's
/// own writes).
async fn lock_head(
    tx: &mut Transaction<'_, Postgres>,
    signer: &LogSigner,
    versions: &[i64],
) -> Result<Locked, StoreError> {
    let (origin, size, root, active, edge_idx, edge_hashes, now, facts): HeadRow =
        sqlx::query_as(LOCK_HEAD).bind(versions).fetch_one(&mut **tx).await?;
    let Some(origin) = origin else {
        return Err(StoreError::Signing(
            "the transparency log was never opened: start the registry once (it names and opens the log)".to_owned(),
        ));
    };
    if active.as_deref() != Some(signer.key.id().as_str()) {
        return Err(StoreError::Signing(format!(
            "this registry signs with key {} but the active key is {}: give every replica the active key \
             (CAIRN_SIGNING_KEY_FILE) and restart it",
            signer.key.id(),
            active.as_deref().unwrap_or("none")
        )));
    }
    let known = edge_idx
        .into_iter()
        .zip(edge_hashes)
        .filter_map(|(idx, hash)| Some((to_u64(idx), Hash::from_slice(&hash)?)))
        .collect();
    Ok(Locked {
        head: LogHead {
            origin,
            size: to_u64(size),
            root: Hash::from_slice(&root).unwrap_or_default(),
            active_key: active,
        },
        now,
        known,
        facts: facts.0.into_iter().map(|facts| (facts.id, facts)).collect(),
    })
}

/// Reads stored hashes by number.
async fn read_hashes<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    indexes: &[u64],
) -> Result<HashMap<u64, Hash>, StoreError> {
    let wanted: Vec<i64> = indexes.iter().map(|i| to_i64(*i)).collect();
    let rows: Vec<(i64, Vec<u8>)> = sqlx::query_as("SELECT idx, hash FROM log_hashes WHERE idx = ANY($1)")
        .bind(&wanted)
        .fetch_all(executor)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(idx, hash)| Some((to_u64(idx), Hash::from_slice(&hash)?)))
        .collect())
}

/// An entry to append: its envelope JSON, what it is about and its event.
struct NewEntry {
    entry: Vec<u8>,
    version_id: Option<i64>,
    event: &'static str,
}

/// The tree after an append, computed in memory from the hashes in hand.
struct Growth {
    first: u64,
    end: u64,
    root: Hash,
    /// The stored hashes the append writes.
    new_hashes: Vec<(i64, Vec<u8>)>,
    /// The stored hashes the next append reads (`None` if one is not in hand — never, as
    /// the append reads them itself; then no head is remembered and none is written).
    edge: Option<HashMap<u64, Hash>>,
}

/// Appends `entries` to the tree of `size` leaves whose stored hashes `known` holds (every
/// one `hashes_read_by_appending` names); fails if one is missing.
fn grow(size: u64, known: &mut HashMap<u64, Hash>, entries: &[NewEntry]) -> Result<Growth, StoreError> {
    let end = size + entries.len() as u64;
    let mut new_hashes = Vec::new();
    for (index, entry) in (size..).zip(entries) {
        let hashes = merkle::append(index, merkle::leaf_hash(&entry.entry), known)
            .map_err(|e| StoreError::Signing(format!("the log's stored hashes are incomplete: {e}")))?;
        let at = merkle::first_stored_index(index);
        for (offset, hash) in (0..).zip(hashes) {
            known.insert(at + offset, hash);
            new_hashes.push((to_i64(at + offset), hash.0.to_vec()));
        }
    }
    let root = merkle::root(end, known)
        .map_err(|e| StoreError::Signing(format!("the log's stored hashes are incomplete: {e}")))?;
    let edge = hashes_read_by_appending(end, 1)
        .into_iter()
        .map(|idx| known.get(&to_u64(idx)).map(|hash| (to_u64(idx), *hash)))
        .collect();
    Ok(Growth {
        first: size,
        end,
        root,
        new_hashes,
        edge,
    })
}

/// The columns of an append, bound in the order both append statements take them.
struct AppendColumns {
    indexes: Vec<i64>,
    entries: Vec<Vec<u8>>,
    versions: Vec<Option<i64>>,
    events: Vec<&'static str>,
    hash_ids: Vec<i64>,
    hash_values: Vec<Vec<u8>>,
    edge_idx: Vec<i64>,
    edge_hashes: Vec<Vec<u8>>,
}

fn append_columns(growth: &Growth, entries: &[NewEntry]) -> AppendColumns {
    let mut edge: Vec<(i64, Vec<u8>)> = growth
        .edge
        .iter()
        .flatten()
        .map(|(idx, hash)| (to_i64(*idx), hash.0.to_vec()))
        .collect();
    edge.sort_unstable();
    let (edge_idx, edge_hashes) = edge.into_iter().unzip();
    let (hash_ids, hash_values) = growth.new_hashes.iter().cloned().unzip();
    AppendColumns {
        indexes: (growth.first..growth.end).map(to_i64).collect(),
        entries: entries.iter().map(|e| e.entry.clone()).collect(),
        versions: entries.iter().map(|e| e.version_id).collect(),
        events: entries.iter().map(|e| e.event).collect(),
        hash_ids,
        hash_values,
        edge_idx,
        edge_hashes,
    }
}

/// Appends `entries` after the locked head and moves it; returns the first index.
async fn append_entries(
    tx: &mut Transaction<'_, Postgres>,
    locked: &mut Locked,
    signer: &LogSigner,
    entries: &[NewEntry],
) -> Result<u64, StoreError> {
    // Normally every hash is in hand since the lock; any other is read now.
    let missing: Vec<u64> = hashes_read_by_appending(locked.head.size, entries.len() as u64)
        .into_iter()
        .map(to_u64)
        .filter(|i| !locked.known.contains_key(i))
        .collect();
    if !missing.is_empty() {
        locked.known.extend(read_hashes(&mut **tx, &missing).await?);
    }
    let growth = grow(locked.head.size, &mut locked.known, entries)?;
    let columns = append_columns(&growth, entries);
    sqlx::query(
        "WITH entries AS ( \
             INSERT INTO log_entries (idx, entry, version_id, event, key_id, created_at) \
             SELECT e.idx, e.entry, e.version_id, e.event, $5, $12 \
             FROM UNNEST($1::bigint[], $2::bytea[], $3::bigint[], $4::text[]) AS e(idx, entry, version_id, event)), \
         hashes AS ( \
             INSERT INTO log_hashes (idx, hash) SELECT * FROM UNNEST($6::bigint[], $7::bytea[])) \
         UPDATE transparency_log SET size = $8, root = $9, edge_idx = $10, edge_hashes = $11, \
             recorded_at = $12",
    )
    .bind(&columns.indexes)
    .bind(&columns.entries)
    .bind(&columns.versions)
    .bind(&columns.events)
    .bind(signer.key.id().as_str())
    .bind(&columns.hash_ids)
    .bind(&columns.hash_values)
    .bind(to_i64(growth.end))
    .bind(growth.root.0.to_vec())
    .bind(&columns.edge_idx)
    .bind(&columns.edge_hashes)
    .bind(locked.now)
    .execute(&mut **tx)
    .await?;
    locked.head.size = growth.end;
    locked.head.root = growth.root;
    signer.remember(growth.edge.map(|edge| KnownHead {
        head: locked.head.clone(),
        edge,
    }));
    Ok(growth.first)
}

/// What an append on an assumed head found.
enum Attempt {
    /// It appended.
    Appended,
    /// The stored head was another: nothing was written. The head as the statement began
    /// (the one that moved it committed before; `None` if it is the one assumed — the head
    /// moved while the statement waited for its lock).
    Moved(Option<KnownHead>),
}

/// The head row as the one-statement append returns it.
type AssumedHeadRow = (
    bool,
    Option<String>,
    i64,
    Vec<u8>,
    Option<String>,
    Vec<i64>,
    Vec<Vec<u8>>,
);

/// Appends `entries` in one statement if the stored head is still `assumed` and `signer`
/// holds the active key — the usual case: this process wrote the head last. The head row
/// is updated only if it matches, which takes its lock as a locking read would; after
/// waiting for that lock the row is checked again as committed. A head moved since (by
/// another replica, by a transaction that then rolled back, by a rotation) matches
/// nothing, and nothing is written.
async fn append_if_head_is(
    tx: &mut Transaction<'_, Postgres>,
    assumed: &LogHead,
    signer: &LogSigner,
    growth: &Growth,
    entries: &[NewEntry],
) -> Result<Attempt, StoreError> {
    let columns = append_columns(growth, entries);
    let (appended, origin, size, root, active, edge_idx, edge_hashes): AssumedHeadRow = sqlx::query_as(
        "WITH head AS ( \
             UPDATE transparency_log SET size = $8, root = $9, edge_idx = $10, edge_hashes = $11, \
                 recorded_at = greatest(clock_timestamp(), recorded_at) \
             WHERE size = $12 AND root = $13 AND active_key = $5 RETURNING recorded_at), \
         entries AS ( \
             INSERT INTO log_entries (idx, entry, version_id, event, key_id, created_at) \
             SELECT e.idx, e.entry, e.version_id, e.event, $5, head.recorded_at \
             FROM head, UNNEST($1::bigint[], $2::bytea[], $3::bigint[], $4::text[]) AS e(idx, entry, version_id, event)), \
         hashes AS ( \
             INSERT INTO log_hashes (idx, hash) \
             SELECT h.idx, h.hash FROM head, UNNEST($6::bigint[], $7::bytea[]) AS h(idx, hash)) \
         SELECT EXISTS (SELECT 1 FROM head), t.origin, t.size, t.root, t.active_key, t.edge_idx, t.edge_hashes \
         FROM transparency_log t",
    )
    .bind(&columns.indexes)
    .bind(&columns.entries)
    .bind(&columns.versions)
    .bind(&columns.events)
    .bind(signer.key.id().as_str())
    .bind(&columns.hash_ids)
    .bind(&columns.hash_values)
    .bind(to_i64(growth.end))
    .bind(growth.root.0.to_vec())
    .bind(&columns.edge_idx)
    .bind(&columns.edge_hashes)
    .bind(to_i64(assumed.size))
    .bind(assumed.root.0.to_vec())
    .fetch_one(&mut **tx)
    .await?;
    if appended {
        return Ok(Attempt::Appended);
    }
    let size = to_u64(size);
    let root = Hash::from_slice(&root).unwrap_or_default();
    if (size, root) == (assumed.size, assumed.root) {
        return Ok(Attempt::Moved(None));
    }
    Ok(Attempt::Moved(origin.map(|origin| {
        KnownHead {
            head: LogHead {
                origin,
                size,
                root,
                active_key: active,
            },
            edge: edge_idx
                .into_iter()
                .zip(edge_hashes)
                .filter_map(|(idx, hash)| Some((to_u64(idx), Hash::from_slice(&hash)?)))
                .collect(),
        }
    })))
}

/// Signs the envelope of one version event.
fn sign_version_event(
    signer: &LogSigner,
    origin: &str,
    facts: &VersionFacts,
    event: VersionEvent,
    now: DateTime<Utc>,
) -> NewEntry {
    let statement = Statement::for_version(&version_predicate(facts, event, origin, now));
    let envelope = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &statement.to_json(), &[&signer.key]);
    NewEntry {
        entry: envelope.to_json(),
        version_id: Some(facts.id),
        event: event.as_str(),
    }
}

/// How many heads an append assumes before it locks the head: the one it remembers, then
/// the one a miss returns (current unless another append was committing at that moment).
const ASSUMED_HEADS: usize = 2;

/// What appending on an assumed head did.
enum OnAssumedHead {
    /// The entries are appended.
    Appended,
    /// This process knows no head yet: nothing was signed.
    NoHeadKnown,
    /// No assumed head held: the envelopes, signed for the log `origin`, wait for the
    /// locked head.
    Signed { origin: String, entries: Vec<NewEntry> },
}

/// Appends publications whose facts were stated on the head this process remembers
/// ([`append_if_head_is`]); if that head moved, on the head the miss returned.
async fn append_on_assumed_head(
    tx: &mut Transaction<'_, Postgres>,
    signer: &LogSigner,
    publications: &[&VersionFacts],
) -> Result<OnAssumedHead, StoreError> {
    let mut assumed = signer.last_head();
    let Some(origin) = assumed.as_ref().map(|known| known.head.origin.clone()) else {
        return Ok(OnAssumedHead::NoHeadKnown);
    };
    // A publication states its version's time, not the log's clock: signed once, before
    // the log is touched, whichever way it is appended.
    let entries: Vec<NewEntry> = publications
        .iter()
        .map(|facts| sign_version_event(signer, &origin, facts, VersionEvent::Published, facts.created_at))
        .collect();
    for _ in 0..ASSUMED_HEADS {
        let Some(KnownHead { head, mut edge }) = assumed.take().filter(|known| known.usable_by(signer)) else {
            break;
        };
        if head.origin != origin {
            break;
        }
        let Ok(growth) = grow(head.size, &mut edge, &entries) else {
            break;
        };
        match append_if_head_is(tx, &head, signer, &growth, &entries).await? {
            Attempt::Appended => {
                signer.remember(growth.edge.map(|edge| KnownHead {
                    head: LogHead {
                        size: growth.end,
                        root: growth.root,
                        ..head
                    },
                    edge,
                }));
                signer.appends.assumed_head.fetch_add(1, Ordering::Relaxed);
                return Ok(OnAssumedHead::Appended);
            }
            Attempt::Moved(current) => assumed = current,
        }
    }
    Ok(OnAssumedHead::Signed { origin, entries })
}

/// Signs and appends the version events of a transaction (no-op without a signer: a
/// store opened for maintenance or a test of something else).
///
/// When every event is a publication whose facts the publishing code stated, the
/// envelopes are signed before the log is touched and appended in one statement on the
/// head this process assumes ([`append_on_assumed_head`]); otherwise — or if no assumed
/// head held — the head is locked and read first.
pub(crate) async fn append_version_events(
    tx: &mut Transaction<'_, Postgres>,
    signer: Option<&LogSigner>,
    events: &[PendingEvent],
) -> Result<(), StoreError> {
    let Some(signer) = signer else {
        return Ok(());
    };
    if events.is_empty() {
        return Ok(());
    }
    let publications: Option<Vec<&VersionFacts>> = events
        .iter()
        .map(|pending| {
            pending
                .facts
                .as_deref()
                .filter(|_| pending.event == VersionEvent::Published)
        })
        .collect();
    let mut signed = None;
    if let Some(publications) = publications {
        match append_on_assumed_head(tx, signer, &publications).await? {
            OnAssumedHead::Appended => return Ok(()),
            OnAssumedHead::NoHeadKnown => {}
            OnAssumedHead::Signed { origin, entries } => signed = Some((origin, entries)),
        }
    }
    let unstated: Vec<i64> = events
        .iter()
        .filter(|pending| pending.facts.is_none())
        .map(|pending| pending.version_id)
        .collect();
    let mut locked = lock_head(tx, signer, &unstated).await?;
    let entries = match signed {
        Some((origin, entries)) if origin == locked.head.origin => entries,
        _ => {
            let read = std::mem::take(&mut locked.facts);
            let mut entries = Vec::with_capacity(events.len());
            for pending in events {
                let facts = pending
                    .facts
                    .as_deref()
                    .or_else(|| read.get(&pending.version_id))
                    .ok_or_else(|| StoreError::NotFound(format!("version {} to attest", pending.version_id)))?;
                entries.push(sign_version_event(
                    signer,
                    &locked.head.origin,
                    facts,
                    pending.event,
                    locked.now,
                ));
            }
            entries
        }
    };
    append_entries(tx, &mut locked, signer, &entries).await?;
    signer.appends.locked_head.fetch_add(1, Ordering::Relaxed);
    Ok(())
}

impl Store {
    /// Opens the transparency log for `signer`: names it `origin` if it has no name yet
    /// (the name never changes after), registers the signer's key as the active one when
    /// no key is active, and reports a key mismatch instead of signing with a stale key.
    #[instrument(skip_all)]
    pub async fn open_log(&self, origin: &str, signer: &LogSigner) -> Result<LogOpening, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT 1 FROM transparency_log FOR UPDATE")
            .execute(&mut *tx)
            .await?;
        sqlx::query("UPDATE transparency_log SET origin = $1 WHERE origin IS NULL")
            .bind(origin)
            .execute(&mut *tx)
            .await?;
        let key = signer.key.public();
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM signing_keys WHERE key_id = $1")
            .bind(key.id().as_str())
            .fetch_optional(&mut *tx)
            .await?;
        let active: Option<String> = sqlx::query_scalar("SELECT key_id FROM signing_keys WHERE status = 'active'")
            .fetch_optional(&mut *tx)
            .await?;
        match (status.as_deref(), active) {
            (Some("active"), _) => {}
            (Some(other), _) => {
                return Ok(LogOpening::KeyNotActive {
                    status: other.to_owned(),
                });
            }
            (None, Some(active)) => return Ok(LogOpening::OtherKeyActive { active }),
            (None, None) => {
                sqlx::query("INSERT INTO signing_keys (key_id, public_key, status) VALUES ($1, $2, 'active')")
                    .bind(key.id().as_str())
                    .bind(key.to_bytes().to_vec())
                    .execute(&mut *tx)
                    .await?;
                let mut locked = lock_head(&mut tx, signer, &[]).await?;
                let index = append_key_event(
                    &mut tx,
                    &mut locked,
                    signer,
                    &[signer],
                    key,
                    KeyEvent::Activated,
                    None,
                    "system:first-start",
                )
                .await?;
                record_activation(&mut tx, key, index).await?;
                crate::audit::record_audit_every_org(
                    &mut tx,
                    &Actor::system("first-start"),
                    "key.activate",
                    &format!("key:{}", key.id()),
                    serde_json::json!({ "key_id": key.id().as_str() }),
                )
                .await?;
            }
        }
        tx.commit().await?;
        Ok(LogOpening::Ready(self.log_head().await?))
    }

    /// Attests the versions published before this registry signed (an upgrade): each
    /// gets its `published` entry (and a `yanked` one if it is yanked now), oldest first,
    /// in batches. Safe with several replicas starting at once: the versions left to
    /// attest are read under the log's lock. Returns how many versions were attested.
    #[instrument(skip_all)]
    pub async fn attest_unlogged_versions(&self) -> Result<u64, StoreError> {
        const BATCH: i64 = 500;
        let Some(signer) = self.log_signer() else {
            return Ok(0);
        };
        let mut attested = 0;
        loop {
            let mut tx = self.pool.begin().await?;
            lock_head(&mut tx, signer, &[]).await?;
            let rows: Vec<(i64, bool)> = sqlx::query_as(
                "SELECT v.id, v.yanked FROM versions v WHERE NOT EXISTS \
                 (SELECT 1 FROM log_entries e WHERE e.version_id = v.id AND e.event = 'published') \
                 ORDER BY v.id LIMIT $1",
            )
            .bind(BATCH)
            .fetch_all(&mut *tx)
            .await?;
            if rows.is_empty() {
                return Ok(attested);
            }
            let mut events = Vec::new();
            for (id, yanked) in &rows {
                events.push(PendingEvent::read_under_lock(*id, VersionEvent::Published));
                if *yanked {
                    events.push(PendingEvent::read_under_lock(*id, VersionEvent::Yanked));
                }
            }
            append_version_events(&mut tx, Some(signer), &events).await?;
            tx.commit().await?;
            attested += rows.len() as u64;
        }
    }

    /// The log's head (name, size, root).
    #[instrument(skip_all)]
    pub async fn log_head(&self) -> Result<LogHead, StoreError> {
        let (origin, size, root, active_key): (Option<String>, i64, Vec<u8>, Option<String>) =
            sqlx::query_as("SELECT origin, size, root, active_key FROM transparency_log")
                .fetch_one(&self.pool)
                .await?;
        Ok(LogHead {
            origin: origin.unwrap_or_default(),
            size: to_u64(size),
            root: Hash::from_slice(&root).unwrap_or_default(),
            active_key,
        })
    }

    /// The entry at `index`.
    #[instrument(skip_all)]
    pub async fn log_entry(&self, index: u64) -> Result<Option<LogEntryRecord>, StoreError> {
        let row: Option<EntryRow> = sqlx::query_as(
            "SELECT e.idx, e.entry, e.event, e.key_id, e.created_at, s.org_id FROM log_entries e \
             LEFT JOIN versions v ON v.id = e.version_id LEFT JOIN skills s ON s.id = v.skill_id WHERE e.idx = $1",
        )
        .bind(to_i64(index))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(entry_record))
    }

    /// The statement a `published` entry would carry if it were made now from the stored
    /// records of its version (`None`: no such entry). The publishing code states the
    /// facts it wrote instead of reading them back; an audit compares the two.
    #[instrument(skip_all)]
    pub async fn restated_publication(&self, index: u64) -> Result<Option<Vec<u8>>, StoreError> {
        let row: Option<(String, sqlx::types::Json<Vec<VersionFacts>>)> = sqlx::query_as(
            "SELECT t.origin, log_version_facts(ARRAY[e.version_id]) FROM log_entries e, transparency_log t \
             WHERE e.idx = $1 AND e.event = 'published' AND t.origin IS NOT NULL",
        )
        .bind(to_i64(index))
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.and_then(|(origin, facts)| {
            let facts = facts.0.into_iter().next()?;
            let predicate = version_predicate(&facts, VersionEvent::Published, &origin, facts.created_at);
            Some(Statement::for_version(&predicate).to_json())
        }))
    }

    /// The stored hashes numbered `indexes` (those missing are left out).
    pub async fn log_hashes(&self, indexes: &[u64]) -> Result<HashMap<u64, Hash>, StoreError> {
        read_hashes(&self.pool, indexes).await
    }

    /// The publication entry of revision `revision` of skill `name`: its index and bytes.
    #[instrument(skip_all)]
    pub async fn version_log_entry(
        &self,
        org_id: i64,
        name: &str,
        revision: i32,
    ) -> Result<Option<LogEntryRecord>, StoreError> {
        let row: Option<EntryRow> = sqlx::query_as(
            "SELECT e.idx, e.entry, e.event, e.key_id, e.created_at, s.org_id FROM log_entries e \
             JOIN versions v ON v.id = e.version_id JOIN skills s ON s.id = v.skill_id \
             WHERE s.org_id = $1 AND s.name = $2 AND v.revision = $3 AND e.event = 'published' \
             ORDER BY e.idx LIMIT 1",
        )
        .bind(org_id)
        .bind(name)
        .bind(revision)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(entry_record))
    }

    /// The publication entries of many versions of organisation `org_id` in one query
    /// (`versions` as name and revision); versions without one are left out of the answer.
    #[instrument(skip_all, fields(versions = versions.len()))]
    pub async fn version_log_entries(
        &self,
        org_id: i64,
        versions: &[(String, i32)],
    ) -> Result<HashMap<(String, i32), LogEntryRecord>, StoreError> {
        let names: Vec<&str> = versions.iter().map(|(name, _)| name.as_str()).collect();
        let revisions: Vec<i32> = versions.iter().map(|(_, revision)| *revision).collect();
        let rows: Vec<VersionEntryRow> = sqlx::query_as(
            "SELECT DISTINCT ON (s.name, v.revision) s.name, v.revision, \
                    e.idx, e.entry, e.event, e.key_id, e.created_at, s.org_id \
             FROM unnest($2::text[], $3::int[]) AS wanted(name, revision) \
             JOIN skills s ON s.org_id = $1 AND s.name = wanted.name \
             JOIN versions v ON v.skill_id = s.id AND v.revision = wanted.revision \
             JOIN log_entries e ON e.version_id = v.id AND e.event = 'published' \
             ORDER BY s.name, v.revision, e.idx",
        )
        .bind(org_id)
        .bind(&names)
        .bind(&revisions)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(name, revision, index, entry, event, key_id, created_at, org)| {
                (
                    (name, revision),
                    entry_record((index, entry, event, key_id, created_at, org)),
                )
            })
            .collect())
    }

    /// Every signing key the log has known, oldest first.
    #[instrument(skip_all)]
    pub async fn signing_keys(&self) -> Result<Vec<SigningKeyRecord>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT key_id, public_key, status, created_at, retired_at, revoked_at, revoked_after_index, \
                    activated_index FROM signing_keys ORDER BY created_at, key_id",
        )
        .fetch_all(&self.pool)
        .await?)
    }
}

/// What a key change did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyChange {
    /// The key acted on.
    pub key_id: String,
    /// The log index of the key event.
    pub log_index: u64,
    /// For a revocation: the first entry index its signatures no longer count on.
    pub revoked_after_index: Option<u64>,
}

impl Store {
    /// Makes `next` the active signing key: the current one (`current`, which must be
    /// active) is retired — its signatures stay valid — and both events are appended,
    /// the activation signed by both keys so a verifier trusting the old key can follow
    /// to the new one. Audited.
    #[instrument(skip_all)]
    pub async fn activate_key(
        &self,
        current: &LogSigner,
        next: &LogSigner,
        actor: &Actor,
    ) -> Result<KeyChange, StoreError> {
        let mut tx = self.pool.begin().await?;
        let mut locked = lock_head(&mut tx, current, &[]).await?;
        let key = next.key.public();
        let known: Option<String> = sqlx::query_scalar("SELECT status FROM signing_keys WHERE key_id = $1")
            .bind(key.id().as_str())
            .fetch_optional(&mut *tx)
            .await?;
        if let Some(status) = known {
            return Err(StoreError::Conflict(format!(
                "key {} is already known to the log ({status}): a key is activated once; generate a new one",
                key.id()
            )));
        }
        sqlx::query("UPDATE signing_keys SET status = 'retired', retired_at = now() WHERE status = 'active'")
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO signing_keys (key_id, public_key, status) VALUES ($1, $2, 'active')")
            .bind(key.id().as_str())
            .bind(key.to_bytes().to_vec())
            .execute(&mut *tx)
            .await?;
        append_key_event(
            &mut tx,
            &mut locked,
            current,
            &[current],
            current.key.public(),
            KeyEvent::Retired,
            None,
            &actor.name,
        )
        .await?;
        let index = append_key_event(
            &mut tx,
            &mut locked,
            current,
            &[current, next],
            key,
            KeyEvent::Activated,
            None,
            &actor.name,
        )
        .await?;
        record_activation(&mut tx, key, index).await?;
        let details = serde_json::json!({ "key_id": key.id().as_str(), "retired": current.key.id().as_str() });
        crate::audit::record_audit_every_org(&mut tx, actor, "key.activate", &format!("key:{}", key.id()), details)
            .await?;
        tx.commit().await?;
        Ok(KeyChange {
            key_id: key.id().to_string(),
            log_index: index,
            revoked_after_index: None,
        })
    }

    /// Revokes a retired key: its signatures count only on entries below
    /// `after_index` (default: the log's size now, so what it signed so far stays
    /// valid). The active key cannot be revoked: activate a new one first. The event is
    /// signed by `current` (the active key). Audited.
    #[instrument(skip_all)]
    pub async fn revoke_key(
        &self,
        current: &LogSigner,
        key_id: &str,
        after_index: Option<u64>,
        actor: &Actor,
    ) -> Result<KeyChange, StoreError> {
        let mut tx = self.pool.begin().await?;
        let mut locked = lock_head(&mut tx, current, &[]).await?;
        let size = locked.head.size;
        let row: Option<(Vec<u8>, String)> =
            sqlx::query_as("SELECT public_key, status FROM signing_keys WHERE key_id = $1 FOR UPDATE")
                .bind(key_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((public, status)) = row else {
            return Err(StoreError::NotFound(format!("signing key {key_id}")));
        };
        match status.as_str() {
            "active" => {
                return Err(StoreError::Conflict(format!(
                    "key {key_id} is the active key: activate a new key first (`cairn-registry key activate`), \
                     then revoke this one"
                )));
            }
            "revoked" => {
                return Err(StoreError::Conflict(format!("key {key_id} is already revoked")));
            }
            _ => {}
        }
        let after = after_index.unwrap_or(size);
        if after > size {
            return Err(StoreError::Invalid(format!(
                "the log holds {size} entries: revoke after an index up to {size}"
            )));
        }
        let key = cairn_provenance::PublicKey::from_bytes(&public)
            .map_err(|e| StoreError::Signing(format!("stored key {key_id} is unreadable: {e}")))?;
        sqlx::query(
            "UPDATE signing_keys SET status = 'revoked', revoked_at = now(), revoked_after_index = $2 WHERE key_id = $1",
        )
        .bind(key_id)
        .bind(to_i64(after))
        .execute(&mut *tx)
        .await?;
        let index = append_key_event(
            &mut tx,
            &mut locked,
            current,
            &[current],
            &key,
            KeyEvent::Revoked,
            Some(after),
            &actor.name,
        )
        .await?;
        let details = serde_json::json!({ "key_id": key_id, "revoked_after_index": after });
        crate::audit::record_audit_every_org(&mut tx, actor, "key.revoke", &format!("key:{key_id}"), details).await?;
        tx.commit().await?;
        Ok(KeyChange {
            key_id: key_id.to_owned(),
            log_index: index,
            revoked_after_index: Some(after),
        })
    }
}

/// Records where `key`'s activation entry is.
async fn record_activation(
    tx: &mut Transaction<'_, Postgres>,
    key: &cairn_provenance::PublicKey,
    index: u64,
) -> Result<(), StoreError> {
    sqlx::query("UPDATE signing_keys SET activated_index = $2 WHERE key_id = $1")
        .bind(key.id().as_str())
        .bind(to_i64(index))
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Signs a key event with `signers` and appends it.
#[allow(clippy::too_many_arguments)]
async fn append_key_event(
    tx: &mut Transaction<'_, Postgres>,
    locked: &mut Locked,
    appender: &LogSigner,
    signers: &[&LogSigner],
    key: &cairn_provenance::PublicKey,
    event: KeyEvent,
    revoked_after_index: Option<u64>,
    by: &str,
) -> Result<u64, StoreError> {
    let statement = Statement::for_key(&KeyPredicate {
        event,
        registry: locked.head.origin.clone(),
        key_id: key.id().to_string(),
        public_key: key.to_hex(),
        revoked_after_index,
        by: by.to_owned(),
        at: rfc3339(locked.now),
    });
    let keys: Vec<&SigningKey> = signers.iter().map(|s| &s.key).collect();
    let envelope = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, &statement.to_json(), &keys);
    let event = match event {
        KeyEvent::Activated => "activated",
        KeyEvent::Retired => "retired",
        KeyEvent::Revoked => "revoked",
    };
    append_entries(
        tx,
        locked,
        appender,
        &[NewEntry {
            entry: envelope.to_json(),
            version_id: None,
            event,
        }],
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::hashes_read_by_appending;

    /// The head keeps what one append reads; a batch (an upgrade's backfill, a rotation's
    /// two events) must need nothing more, or it would pay a round trip the head saves.
    #[test]
    fn a_batch_reads_only_the_edge_one_append_reads() {
        for size in 0..600 {
            let edge = hashes_read_by_appending(size, 1);
            for count in 1..40 {
                let batch = hashes_read_by_appending(size, count);
                assert!(
                    batch.iter().all(|idx| edge.contains(idx)),
                    "appending {count} to {size} reads {batch:?}, the edge holds {edge:?}"
                );
            }
        }
    }
}
