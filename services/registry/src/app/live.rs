//! Live index changes for every transport (gRPC `WatchIndex`, `GET /v1/events`).
//!
//! One [`LiveFeed`] per process listens on the database's index channel (PostgreSQL
//! `LISTEN/NOTIFY`, so a change committed through any replica is heard by all). On each
//! notification it reads the organisation's new change-log rows once and broadcasts them
//! to that organisation's watchers: a thousand watchers cost one query per change.
//!
//! A watcher first reads the changes after its cursor from the database, then follows
//! the broadcast; it forwards each change once, in cursor order (the change log's cursor
//! order is its commit order). The broadcast is bounded: a watcher too slow to keep up
//! loses its place in it and reads what it missed from the database instead, so a slow
//! client neither stalls the others nor makes the server buffer for it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cairn_store::{IndexChangeRecord, IndexEntry, Store, StoreError};
use futures::Stream;
use tokio::sync::{Semaphore, broadcast};
use tokio::time::Instant;
use uuid::Uuid;

use crate::auth::scopes::Scope;
use crate::auth::{AuthError, Authenticator, Principal};

/// How long a watch stays quiet before a heartbeat is sent.
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(15);
/// Change batches an organisation's broadcast holds for slow watchers.
const BROADCAST_CAPACITY: usize = 256;
/// Changes the feed reads at once after a notification (one broadcast batch at most):
/// with the capacity above, the broadcast holds at most 16,384 changes per organisation.
const FEED_PAGE: i64 = 64;
/// Changes a watcher reads at once while catching up.
const PAGE: i64 = 256;
/// Most changes a watcher may ask to replay by default; further behind, it reads the
/// index instead.
pub const DEFAULT_MAX_REPLAY: i64 = 10_000;
/// Watchers reading the database at once per process (catching up); the others wait.
const CATCH_UP_CONCURRENCY: usize = 8;
/// The settings of a [`LiveFeed`].
#[derive(Clone, Copy, Debug)]
pub struct LiveSettings {
    /// Quiet time before a heartbeat; also how often a stream re-checks its token
    /// (revocation, expiry, role changes end the stream within this time).
    pub heartbeat: Duration,
    /// Streams one token may hold open.
    pub max_watches_per_token: usize,
    /// Most changes a watcher may ask to replay.
    pub max_replay: i64,
}

impl LiveSettings {
    /// The defaults, with the per-token limit of the access settings.
    pub fn new(max_watches_per_token: usize) -> Self {
        LiveSettings {
            heartbeat: DEFAULT_HEARTBEAT,
            max_watches_per_token,
            max_replay: DEFAULT_MAX_REPLAY,
        }
    }
}
/// How often the feed re-reads every followed organisation even without notifications,
/// so a subscription that died silently delays changes by at most this long.
const SAFETY_POLL: Duration = Duration::from_secs(5);

/// The kinds of index change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A new revision.
    Published,
    /// A revision was yanked.
    Yanked,
    /// A yanked revision was restored.
    Unyanked,
    /// The category changed.
    Recategorized,
}

impl ChangeKind {
    fn parse(kind: &str) -> Option<Self> {
        Some(match kind {
            "published" => ChangeKind::Published,
            "yanked" => ChangeKind::Yanked,
            "unyanked" => ChangeKind::Unyanked,
            "recategorized" => ChangeKind::Recategorized,
            _ => return None,
        })
    }
}

/// One change of one skill in the index.
#[derive(Clone, Debug)]
pub struct Change {
    /// Its cursor in the organisation's change log.
    pub cursor: i64,
    /// What happened.
    pub kind: ChangeKind,
    /// The skill.
    pub name: String,
    /// The revision concerned, if any.
    pub revision: Option<i32>,
    /// The skill's entry when the change was read (`None`: no non-yanked version left).
    pub entry: Option<Arc<IndexEntry>>,
}

impl Change {
    fn from_record(record: IndexChangeRecord) -> Option<Self> {
        Some(Change {
            cursor: record.cursor,
            kind: ChangeKind::parse(&record.kind)?,
            name: record.name,
            revision: record.revision,
            entry: record.entry.map(Arc::new),
        })
    }
}

/// What a watcher receives.
#[derive(Clone, Debug)]
pub enum WatchEvent {
    /// A change.
    Change(Arc<Change>),
    /// Nothing happened for a while; `cursor` is the last change sent.
    Heartbeat {
        /// The cursor to resume from.
        cursor: i64,
    },
}

/// Why a watch could not start or continue.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// The cursor is newer than the newest change (the registry was restored or reset).
    #[error(
        "cursor {since} is newer than this registry's newest change ({newest}); the registry was restored or \
         reset: fetch the full index and watch from its cursor"
    )]
    CursorExpired {
        /// The client's cursor.
        since: i64,
        /// The newest cursor.
        newest: i64,
    },
    /// The cursor is so far behind that replaying is costlier than reading the index.
    #[error(
        "cursor {since} is more than {limit} changes behind: fetch the whole index and watch from \
         its cursor"
    )]
    TooFarBehind {
        /// The client's cursor.
        since: i64,
        /// The most changes replayed.
        limit: i64,
    },
    /// The token holds as many streams open as it may.
    #[error("this token already holds {limit} live-change streams open: close one, or use another token")]
    TooManyWatches {
        /// The limit per token.
        limit: usize,
    },
    /// The token was revoked or expired, or no longer allows reading, while streaming.
    #[error(transparent)]
    Unauthorized(AuthError),
    /// The database failed; the client should reconnect with its last cursor.
    #[error("reading index changes failed: {0}")]
    Store(#[from] StoreError),
}

type Batch = Arc<[Arc<Change>]>;

/// One organisation's broadcast and the newest change it carried.
struct OrgFeed {
    sender: broadcast::Sender<Batch>,
    cursor: i64,
}

/// The process's live index feed (see the module documentation).
pub struct LiveFeed {
    orgs: Mutex<HashMap<i64, OrgFeed>>,
    settings: LiveSettings,
    /// Open watches per token.
    watches: Mutex<HashMap<Uuid, usize>>,
    /// Bounds the watchers reading the database at once.
    catch_ups: Arc<Semaphore>,
    /// Set when the server shuts down: every watch ends, so draining can finish.
    closing: tokio::sync::watch::Sender<bool>,
    /// Times a watcher fell behind the broadcast and read from the database instead.
    lagged: Arc<std::sync::atomic::AtomicU64>,
    /// What the subscription heard, for this process's other followers (the index
    /// keeper): one database subscription serves them all.
    heard: broadcast::Sender<Heard>,
}

/// What the feed's subscription heard, as told to in-process followers ([`LiveFeed::heard`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heard {
    /// The organisation's index changed.
    Changed(i64),
    /// Changes may have been missed (a new or re-established subscription, or the periodic
    /// safety poll): a follower re-reads whatever it keeps.
    Anything,
}

/// Notifications held for in-process followers; one that falls further behind is told
/// [`Heard::Anything`] in effect (it sees `Lagged` and re-reads everything).
const HEARD_CAPACITY: usize = 1024;

impl LiveFeed {
    /// A feed with these settings.
    pub fn new(settings: LiveSettings) -> Self {
        LiveFeed {
            orgs: Mutex::default(),
            settings,
            watches: Mutex::default(),
            catch_ups: Arc::new(Semaphore::new(CATCH_UP_CONCURRENCY)),
            closing: tokio::sync::watch::Sender::new(false),
            lagged: Arc::default(),
            heard: broadcast::Sender::new(HEARD_CAPACITY),
        }
    }

    /// Follows what the feed's database subscription hears (only while [`LiveFeed::follow`]
    /// runs). A receiver that lags has missed changes and should re-read everything.
    pub fn heard(&self) -> broadcast::Receiver<Heard> {
        self.heard.subscribe()
    }

    /// Tells in-process followers (nobody listening is fine).
    fn tell(&self, heard: Heard) {
        let _ = self.heard.send(heard);
    }

    /// How often a watcher fell behind the broadcast and caught up from the database.
    pub fn lagged(&self) -> u64 {
        self.lagged.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The settings.
    pub fn settings(&self) -> LiveSettings {
        self.settings
    }

    /// Ends every watch (server shutdown); watches started later end at once.
    pub fn close(&self) {
        self.closing.send_replace(true);
    }

    /// Live-change streams open on this process (all tokens).
    pub fn open_watches(&self) -> usize {
        self.watches.lock().unwrap_or_else(|e| e.into_inner()).values().sum()
    }

    /// Watchers currently following the organisation on this process.
    pub fn watchers(&self, org_id: i64) -> usize {
        self.orgs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&org_id)
            .map_or(0, |feed| feed.sender.receiver_count())
    }

    /// Follows the database's index notifications for as long as the returned future
    /// runs, re-subscribing with backoff when the connection fails.
    pub async fn follow(&self, store: Store) {
        let mut backoff = Duration::from_millis(100);
        loop {
            match store.index_notifications().await {
                Ok(mut notifications) => {
                    backoff = Duration::from_millis(100);
                    // Changes may have been committed while nobody listened.
                    self.tell(Heard::Anything);
                    self.refresh_all(&store).await;
                    let mut poll = tokio::time::interval(SAFETY_POLL);
                    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    loop {
                        tokio::select! {
                            next = notifications.next() => match next {
                                Ok(cairn_store::notify::Notification::Changed(payload)) => {
                                    match payload.parse::<i64>() {
                                        Ok(org_id) => {
                                            self.tell(Heard::Changed(org_id));
                                            self.refresh(&store, org_id).await;
                                        }
                                        Err(_) => tracing::warn!(%payload, "ignoring a malformed index notification"),
                                    }
                                }
                                Ok(cairn_store::notify::Notification::Reconnected) => {
                                    self.tell(Heard::Anything);
                                    self.refresh_all(&store).await;
                                }
                                Err(e) => {
                                    tracing::warn!(error = %e, "lost the index-change subscription; resubscribing");
                                    break;
                                }
                            },
                            _ = poll.tick() => {
                                self.tell(Heard::Anything);
                                self.refresh_all(&store).await;
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot subscribe to index changes; retrying"),
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(Duration::from_secs(10));
        }
    }

    /// Re-reads every followed organisation; forgets those nobody watches any more.
    async fn refresh_all(&self, store: &Store) {
        let orgs: Vec<i64> = {
            let mut orgs = self.orgs.lock().unwrap_or_else(|e| e.into_inner());
            orgs.retain(|_, feed| feed.sender.receiver_count() > 0);
            orgs.keys().copied().collect()
        };
        for org_id in orgs {
            self.refresh(store, org_id).await;
        }
    }

    /// Reads the organisation's changes after the last one broadcast and broadcasts them.
    /// Only the feed's own task calls this, so reads of one organisation never overlap.
    async fn refresh(&self, store: &Store, org_id: i64) {
        loop {
            let after = {
                let orgs = self.orgs.lock().unwrap_or_else(|e| e.into_inner());
                match orgs.get(&org_id) {
                    Some(feed) if feed.sender.receiver_count() > 0 => feed.cursor,
                    _ => return,
                }
            };
            let records = match store.index_changes(org_id, after, FEED_PAGE).await {
                Ok(records) => records,
                Err(e) => {
                    // Watchers are not told: the next notification or poll reads again.
                    tracing::warn!(error = %e, org_id, "reading index changes for watchers failed");
                    return;
                }
            };
            let full_page = records.len() as i64 >= FEED_PAGE;
            let Some(last) = records.last().map(|r| r.cursor) else {
                return;
            };
            let batch: Batch = records
                .into_iter()
                .filter_map(Change::from_record)
                .map(Arc::new)
                .collect();
            {
                let mut orgs = self.orgs.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(feed) = orgs.get_mut(&org_id) {
                    feed.cursor = feed.cursor.max(last);
                    // No receivers left is not an error: the next refresh forgets the feed.
                    let _ = feed.sender.send(batch);
                }
            }
            if !full_page {
                return;
            }
        }
    }

    /// A receiver of the organisation's broadcast, creating the feed (from the newest
    /// cursor) for its first watcher.
    async fn subscribe(&self, store: &Store, org_id: i64) -> Result<broadcast::Receiver<Batch>, StoreError> {
        if let Some(feed) = self.orgs.lock().unwrap_or_else(|e| e.into_inner()).get(&org_id) {
            return Ok(feed.sender.subscribe());
        }
        let cursor = store.index_cursor(org_id).await?;
        let mut orgs = self.orgs.lock().unwrap_or_else(|e| e.into_inner());
        let feed = orgs.entry(org_id).or_insert_with(|| OrgFeed {
            sender: broadcast::channel(BROADCAST_CAPACITY).0,
            cursor,
        });
        Ok(feed.sender.subscribe())
    }
}

/// Counts one open watch of a token; dropping it (the stream ends) gives the slot back.
/// Every long-lived stream a token opens (`WatchIndex`, `GET /v1/events`, the review
/// queue's live view) takes one, so the per-token limit covers them all.
pub struct WatchSlot {
    feed: Arc<LiveFeed>,
    token_id: Uuid,
}

impl WatchSlot {
    /// Takes one of the token's slots, or says the limit is reached.
    pub fn take(feed: &Arc<LiveFeed>, token_id: Uuid) -> Result<Self, WatchError> {
        let mut watches = feed.watches.lock().unwrap_or_else(|e| e.into_inner());
        let open = watches.entry(token_id).or_default();
        let limit = feed.settings.max_watches_per_token;
        if *open >= limit {
            return Err(WatchError::TooManyWatches { limit });
        }
        *open += 1;
        Ok(WatchSlot {
            feed: Arc::clone(feed),
            token_id,
        })
    }
}

impl Drop for WatchSlot {
    fn drop(&mut self) {
        let mut watches = self.feed.watches.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(open) = watches.get_mut(&self.token_id) {
            *open -= 1;
            if *open == 0 {
                watches.remove(&self.token_id);
            }
        }
    }
}

/// Who is watching: the caller, re-checked while the stream lasts.
pub struct Watcher {
    /// Checks the caller's token again.
    pub auth: Arc<Authenticator>,
    /// The caller.
    pub principal: Principal,
}

/// Starts watching the caller's organisation: every change after `since` (none before
/// now when `None`), then new changes as they commit, with heartbeats in quiet periods.
/// The stream ends after an error (the client resumes from its last cursor), when the
/// caller's token stops allowing it, and at shutdown.
pub async fn watch(
    store: &Store,
    feed: &Arc<LiveFeed>,
    watcher: Watcher,
    since: Option<i64>,
) -> Result<impl Stream<Item = Result<WatchEvent, WatchError>> + Send + 'static, WatchError> {
    let org_id = watcher.principal.org_id;
    let slot = WatchSlot::take(feed, watcher.principal.token_id)?;
    // Subscribe before reading the database: whatever commits after the read is then
    // in the broadcast, and the overlap is dropped by cursor.
    let receiver = feed.subscribe(store, org_id).await?;
    let newest = store.index_cursor(org_id).await?;
    if let Some(since) = since {
        if since > newest {
            return Err(WatchError::CursorExpired { since, newest });
        }
        let limit = feed.settings.max_replay;
        if store.index_changes_after(org_id, since, limit + 1).await? > limit {
            return Err(WatchError::TooFarBehind { since, limit });
        }
    }
    let watcher = WatchStream {
        store: store.clone(),
        org_id,
        receiver,
        pending: VecDeque::new(),
        queued_upto: since.unwrap_or(newest),
        sent_upto: since.unwrap_or(newest),
        catching_up: since.is_some_and(|s| s < newest),
        heartbeat: feed.settings.heartbeat,
        quiet_since: Instant::now(),
        failed: false,
        closing: feed.closing.subscribe(),
        lagged: Arc::clone(&feed.lagged),
        catch_ups: Arc::clone(&feed.catch_ups),
        caller: watcher,
        next_recheck: Instant::now() + feed.settings.heartbeat,
        _slot: slot,
    };
    Ok(futures::stream::unfold(watcher, |mut watcher| async move {
        let event = watcher.next().await?;
        Some((event, watcher))
    }))
}

/// One watcher's state: the changes queued to send and where it stands.
struct WatchStream {
    store: Store,
    org_id: i64,
    receiver: broadcast::Receiver<Batch>,
    pending: VecDeque<Arc<Change>>,
    /// The newest cursor queued (or sent): anything at or below it is a duplicate.
    queued_upto: i64,
    /// The newest cursor sent.
    sent_upto: i64,
    /// Whether changes after `queued_upto` must be read from the database.
    catching_up: bool,
    heartbeat: Duration,
    quiet_since: Instant,
    failed: bool,
    closing: tokio::sync::watch::Receiver<bool>,
    lagged: Arc<std::sync::atomic::AtomicU64>,
    catch_ups: Arc<Semaphore>,
    caller: Watcher,
    next_recheck: Instant,
    _slot: WatchSlot,
}

impl WatchStream {
    fn queue(&mut self, change: Arc<Change>) {
        if change.cursor > self.queued_upto {
            self.queued_upto = change.cursor;
            self.pending.push_back(change);
        }
    }

    async fn next(&mut self) -> Option<Result<WatchEvent, WatchError>> {
        if self.failed || *self.closing.borrow() {
            return None;
        }
        loop {
            if Instant::now() >= self.next_recheck {
                self.next_recheck = Instant::now() + self.heartbeat;
                let caller = &self.caller;
                match caller.auth.recheck(&self.store, &caller.principal, Scope::Read).await {
                    Ok(()) => {}
                    // The database is down: keep streaming what is known, check again later.
                    Err(AuthError::Unavailable(e)) => {
                        tracing::warn!(error = %e, "re-checking a watcher's token failed")
                    }
                    Err(denied) => {
                        self.failed = true;
                        return Some(Err(WatchError::Unauthorized(denied)));
                    }
                }
            }
            if let Some(change) = self.pending.pop_front() {
                self.sent_upto = change.cursor;
                self.quiet_since = Instant::now();
                return Some(Ok(WatchEvent::Change(change)));
            }
            if self.catching_up {
                let permit = Arc::clone(&self.catch_ups).acquire_owned().await;
                let read = self.store.index_changes(self.org_id, self.queued_upto, PAGE).await;
                drop(permit);
                let records = match read {
                    Ok(records) => records,
                    Err(e) => {
                        self.failed = true;
                        return Some(Err(e.into()));
                    }
                };
                self.catching_up = records.len() as i64 >= PAGE;
                let last = records.last().map(|r| r.cursor);
                for change in records.into_iter().filter_map(Change::from_record) {
                    self.queue(Arc::new(change));
                }
                // Rows of unknown kinds still move the position.
                if let Some(last) = last {
                    self.queued_upto = self.queued_upto.max(last);
                }
                continue;
            }
            let quiet_until = self.quiet_since + self.heartbeat;
            let woke = tokio::select! {
                received = self.receiver.recv() => Wake::Received(received),
                _ = self.closing.wait_for(|closing| *closing) => Wake::Closing,
                () = tokio::time::sleep_until(quiet_until) => Wake::Quiet,
            };
            match woke {
                Wake::Received(Ok(batch)) => {
                    for change in batch.iter() {
                        self.queue(Arc::clone(change));
                    }
                }
                // Too slow for the broadcast: read what was missed from the database.
                Wake::Received(Err(broadcast::error::RecvError::Lagged(_))) => {
                    self.lagged.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    self.catching_up = true;
                }
                Wake::Received(Err(broadcast::error::RecvError::Closed)) | Wake::Closing => {
                    self.failed = true;
                    return None;
                }
                Wake::Quiet => {
                    self.quiet_since = Instant::now();
                    return Some(Ok(WatchEvent::Heartbeat { cursor: self.sent_upto }));
                }
            }
        }
    }
}

/// What woke a waiting watcher.
enum Wake {
    Received(Result<Batch, broadcast::error::RecvError>),
    Closing,
    Quiet,
}
