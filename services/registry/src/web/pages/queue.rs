//! The review queue: open patches (pending review, blocked, conflict), sorted as the
//! reviewer asks, with substring filters (suggested from the patches there are), counts per
//! state, duplicates and patches to the same skill from the same base shown together; the
//! list and its counts refresh themselves when patches arrive or change.

use std::convert::Infallible;
use std::time::Duration;

use askama::Template;
use axum::extract::{Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{Html, IntoResponse, Response};
use cairn_pipeline::report::PatchReport;
use cairn_store::PatchRecord;
use serde::Deserialize;
use tokio::sync::broadcast::error::RecvError;

use super::{given, when};
use crate::AppState;
use crate::app::activity::ActivityEvent;
use crate::app::live::WatchSlot;
use crate::app::patches::{self, Listing};
use crate::auth::scopes::Scope;
use crate::web::Chrome;
use crate::web::error::{WebError, encode};
use crate::web::render::diff::findings;
use crate::web::session::Viewer;

/// Query of the queue.
#[derive(Debug, Default, Deserialize)]
pub struct QueueQuery {
    status: Option<String>,
    skill: Option<String>,
    author: Option<String>,
    verdict: Option<String>,
    sort: Option<String>,
    cursor: Option<String>,
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One patch in the list.
#[derive(Debug)]
pub struct Row {
    href: String,
    skill: String,
    summary: String,
    author: String,
    agent: String,
    status: String,
    status_label: String,
    verdict: String,
    findings: usize,
    introduced: usize,
    created: String,
    base: String,
    /// The patch id (the batch form's checkbox).
    id: String,
    /// Whether it can still be decided (only those get a checkbox).
    open: bool,
    /// The first row of a duplicate group: how many open patches report its lesson.
    reporters: usize,
    /// A further report of the lesson of the row above it.
    member: bool,
    /// The first row of patches to one skill from one base: how many there are here.
    same_base: usize,
    /// A further patch to the skill and base of a row above it.
    sibling: bool,
    /// Lines the patch adds or removes.
    changed_lines: i32,
    /// Its round (shown from the second on).
    round: i32,
    /// Who asked its author for changes, while they have not answered.
    changes_requested_by: Option<String>,
}

impl Row {
    fn of(patch: &PatchRecord) -> Row {
        let report = PatchReport::from_stored(&patch.report);
        let found = findings(report.scan.as_ref());
        let agent = ["name", "model"]
            .iter()
            .filter_map(|k| patch.agent.get(*k).and_then(|v| v.as_str()))
            .collect::<Vec<_>>()
            .join(" · ");
        Row {
            href: format!("/admin/patches/{}", patch.id),
            skill: patch.skill_name.clone(),
            summary: if patch.summary.trim().is_empty() {
                "(no summary)".to_owned()
            } else {
                patch.summary.clone()
            },
            author: patch.author.clone(),
            agent,
            status: patch.status.clone(),
            status_label: patch.status.replace('_', " "),
            verdict: report
                .verdict()
                .map_or("not scanned", cairn_scanner::Verdict::as_str)
                .to_owned(),
            introduced: found.iter().filter(|f| f.introduced).count(),
            findings: found.len(),
            created: when(&patch.created_at),
            base: patch
                .base_revision
                .map_or_else(|| "new skill".to_owned(), |r| format!("r{r}")),
            id: patch.id.to_string(),
            open: patches::OPEN_STATUSES.contains(&patch.status.as_str()),
            reporters: 0,
            member: false,
            same_base: 0,
            sibling: false,
            changed_lines: patch.changed_lines,
            round: patch.round,
            changes_requested_by: patch.outstanding_request().map(|(by, _)| by.to_owned()),
        }
    }
}

/// The rows in list order, with what belongs together moved right under the first row of
/// it: the other reports of a duplicate group's lesson (the first row says how many open
/// patches report it), and the other patches to the same skill from the same base (the
/// first row says how many there are on this page).
fn grouped(patches: &[PatchRecord], sizes: &std::collections::HashMap<uuid::Uuid, usize>) -> Vec<Row> {
    // Units: a row and the further reports of its lesson.
    let mut units: Vec<(&PatchRecord, Vec<Row>)> = Vec::with_capacity(patches.len());
    let mut placed = std::collections::HashSet::new();
    for (i, patch) in patches.iter().enumerate() {
        if !placed.insert(patch.id) {
            continue;
        }
        let mut row = Row::of(patch);
        let group = patch.duplicate_group.filter(|g| sizes.get(g).copied().unwrap_or(0) > 1);
        row.reporters = group.and_then(|g| sizes.get(&g).copied()).unwrap_or(0);
        let mut unit = vec![row];
        if let Some(group) = group {
            for other in &patches[i + 1..] {
                if other.duplicate_group == Some(group) && placed.insert(other.id) {
                    let mut member = Row::of(other);
                    member.member = true;
                    unit.push(member);
                }
            }
        }
        units.push((patch, unit));
    }
    // Then each unit followed by the later ones to the same skill from the same base.
    let mut out = Vec::with_capacity(patches.len());
    let mut taken = vec![false; units.len()];
    for i in 0..units.len() {
        if std::mem::replace(&mut taken[i], true) {
            continue;
        }
        let head = out.len();
        let (first, _) = units[i];
        let mut together = 1;
        out.append(&mut units[i].1);
        for j in i + 1..units.len() {
            let (other, _) = units[j];
            if !taken[j] && other.skill_name == first.skill_name && other.base_revision == first.base_revision {
                taken[j] = true;
                together += 1;
                units[j].1[0].sibling = true;
                out.append(&mut units[j].1);
            }
        }
        if together > 1 {
            // Reports of a lesson shown with it may come from another base: count only these.
            let (skill, base) = (out[head].skill.clone(), out[head].base.clone());
            out[head].same_base = out[head..]
                .iter()
                .filter(|r| r.skill == skill && r.base == base)
                .count();
        }
    }
    out
}

/// The list part of the queue (also served alone, for the live refresh).
#[derive(Template)]
#[template(path = "queue_region.html")]
pub struct QueueRegion {
    /// The states with their counts (refreshed with the list, so they never disagree).
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    next_page: Option<String>,
    /// Whether the viewer may decide (rows get batch checkboxes).
    can_review: bool,
}

/// A status tab with its count.
#[derive(Debug)]
pub struct Tab {
    value: String,
    label: String,
    href: String,
    count: i64,
    current: bool,
}

/// The queue page.
#[derive(Template)]
#[template(path = "queue.html")]
struct QueuePage {
    chrome: Chrome,
    notice: Option<String>,
    /// The state filter's choices (the same as the region's tabs).
    states: Vec<(String, String, bool)>,
    skill: String,
    author: String,
    verdict: String,
    sort: String,
    /// The sort choices: value, label.
    sorts: [(&'static str, &'static str); 4],
    /// Suggestions for the skill and author filters.
    skills: Vec<String>,
    authors: Vec<String>,
    region: QueueRegion,
    error: Option<String>,
}

/// The queue's sort choices, as the page names them.
const SORT_LABELS: [(&str, &str); 4] = [
    ("newest", "Newest first"),
    ("oldest", "Waiting longest"),
    ("size", "Largest first"),
    ("verdict", "Riskiest first"),
];

/// The filters as a query string (without the cursor), for links that keep them.
fn filter_query(status: &str, skill: &str, author: &str, verdict: &str, sort: &str) -> String {
    let mut out = format!("status={}", encode(status));
    for (key, value) in [
        ("skill", skill),
        ("author", author),
        ("verdict", verdict),
        ("sort", sort),
    ] {
        if !value.is_empty() {
            out.push_str(&format!("&{key}={}", encode(value)));
        }
    }
    out
}

/// `GET /admin/queue`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    headers: HeaderMap,
    Query(query): Query<QueueQuery>,
) -> Result<Response, WebError> {
    let status = given(query.status).unwrap_or_else(|| "open".to_owned());
    let (skill, author, verdict, sort) = (
        given(query.skill),
        given(query.author),
        given(query.verdict),
        given(query.sort),
    );
    // `requested`: the open patches that ask the viewer for review (skills they own).
    let statuses = match status.as_str() {
        "all" => Vec::new(),
        "requested" => patches::status_filter(Some("open")),
        other => patches::status_filter(Some(other)),
    };
    let listing = Listing {
        statuses: statuses.clone(),
        review_requested: (status == "requested").then(|| "me".to_owned()),
        skill_contains: skill.clone(),
        author_contains: author.clone(),
        verdict: verdict.clone(),
        sort: sort.clone(),
        cursor: given(query.cursor),
        limit: Some(50),
        ..Listing::default()
    };
    let (rows, next_cursor) = patches::list(&state, &viewer.principal, listing).await?;
    let (skill, author, verdict, sort) = (
        skill.unwrap_or_default(),
        author.unwrap_or_default(),
        verdict.unwrap_or_default(),
        sort.unwrap_or_default(),
    );
    let base = filter_query(&status, &skill, &author, &verdict, &sort);
    let groups: Vec<uuid::Uuid> = rows.iter().filter_map(|p| p.duplicate_group).collect();
    let sizes = patches::duplicate_group_sizes(&state, &viewer.principal, &groups).await?;
    let tabs = tabs(&state, &viewer, &status, |value| {
        format!("/admin/queue?{}", filter_query(value, &skill, &author, &verdict, &sort))
    })
    .await?;
    let region = QueueRegion {
        rows: grouped(&rows, &sizes),
        can_review: viewer.can(Scope::Review),
        next_page: next_cursor.map(|c| format!("/admin/queue?{base}&cursor={}", encode(&c))),
        tabs,
    };
    if headers.get("x-cairn-fragment").is_some_and(|v| v == "queue") {
        return Ok(Html(region.render()?).into_response());
    }
    let (skills, authors) = patches::filter_suggestions(&state, &viewer.principal, &statuses).await?;
    let page = QueuePage {
        chrome: Chrome::new(&viewer, "queue"),
        notice: query.flash.notice(&state),
        states: region
            .tabs
            .iter()
            .map(|t| (t.value.clone(), t.label.clone(), t.current))
            .collect(),
        skill,
        author,
        verdict,
        sort,
        sorts: SORT_LABELS,
        skills,
        authors,
        error: query.flash.error(&state),
        region,
    };
    crate::web::page(&page)
}

/// The state tabs with their counts (every state, open, and all), linking with `href`.
async fn tabs(
    state: &AppState,
    viewer: &Viewer,
    current: &str,
    href: impl Fn(&str) -> String,
) -> Result<Vec<Tab>, WebError> {
    let counts = patches::counts(state, &viewer.principal).await?;
    let count = |s: &str| counts.iter().find(|(k, _)| k == s).map_or(0, |(_, n)| *n);
    let open: i64 = patches::OPEN_STATUSES.iter().map(|s| count(s)).sum();
    let all: i64 = counts.iter().map(|(_, n)| n).sum();
    let mut tabs = vec![("open".to_owned(), "Open".to_owned(), open)];
    tabs.extend(
        cairn_store::PATCH_STATUSES
            .iter()
            .map(|s| ((*s).to_owned(), s.replace('_', " "), count(s))),
    );
    tabs.push(("all".to_owned(), "All".to_owned(), all));
    if viewer.can(Scope::Review) {
        let requested = crate::app::owners::requested_count(&state.store, &viewer.principal).await?;
        tabs.insert(0, ("requested".to_owned(), "Requested from you".to_owned(), requested));
    }
    Ok(tabs
        .into_iter()
        .map(|(value, label, count)| Tab {
            href: href(&value),
            current: value == current,
            value,
            label,
            count,
        })
        .collect())
}

/// How often an open stream re-checks that its session's token is still valid.
const RECHECK: Duration = Duration::from_secs(15);

/// How often an idle stream sends a comment so proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// `GET /admin/queue/events`: Server-Sent Events telling the open queue page to refresh
/// (`patch` when a patch of the viewer's organisation changed, `resync` when changes may
/// have been missed). Ends with the session, when the token stops being valid, and at
/// shutdown.
pub async fn events(State(state): State<AppState>, viewer: Viewer) -> Result<Response, WebError> {
    // Counts against the token's live streams, like the API's.
    let slot = WatchSlot::take(&state.live, viewer.principal.token_id)?;
    let receiver = state.activity.subscribe();
    let mut recheck = tokio::time::interval(RECHECK);
    recheck.reset();
    let closing = state.activity.closing();
    let org_id = viewer.principal.org_id;
    let expires = tokio::time::Instant::now() + (viewer.expires_at - chrono::Utc::now()).to_std().unwrap_or_default();
    let stream = futures::stream::unfold(
        (receiver, closing, state, viewer, recheck, slot),
        move |(mut receiver, mut closing, state, viewer, mut recheck, slot)| async move {
            loop {
                let next = tokio::select! {
                    next = receiver.recv() => next,
                    () = tokio::time::sleep_until(expires) => return None,
                    () = async { let _ = closing.wait_for(|closed| *closed).await; } => return None,
                    _ = recheck.tick() => {
                        // A quiet stream still ends soon after its token is revoked.
                        if state.auth.recheck(&state.store, &viewer.principal, Scope::Read).await.is_err() {
                            return None;
                        }
                        continue;
                    }
                };
                let event = match next {
                    Ok(ActivityEvent::Changed(activity))
                        if activity.org_id == org_id && activity.action.starts_with("patch.") =>
                    {
                        Event::default().event("patch").data(activity.action)
                    }
                    Ok(ActivityEvent::Changed(_)) => continue,
                    Ok(ActivityEvent::Resync) | Err(RecvError::Lagged(_)) => {
                        Event::default().event("resync").data("resync")
                    }
                    Err(RecvError::Closed) => return None,
                };
                // The session's token must still allow reading, as on every page load.
                if state
                    .auth
                    .recheck(&state.store, &viewer.principal, Scope::Read)
                    .await
                    .is_err()
                {
                    return None;
                }
                return Some((
                    Ok::<_, Infallible>(event),
                    (receiver, closing, state, viewer, recheck, slot),
                ));
            }
        },
    );
    Ok(Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response())
}

/// `POST /admin/queue/batch`: approves or rejects the checked patches, one after another
/// in the order listed, and says what happened to each.
pub async fn batch(
    State(state): State<AppState>,
    viewer: Viewer,
    crate::web::session::Verified(fields): crate::web::session::Verified<Vec<(String, String)>>,
) -> Result<Response, WebError> {
    let (mut ids, mut action, mut comment, mut close_duplicates) = (Vec::new(), String::new(), None, false);
    let mut shown = Vec::new();
    for (key, value) in fields {
        match key.as_str() {
            "ids" => ids.push(value),
            "shown" => shown.push(value),
            "action" => action = value,
            "comment" => comment = given(Some(value)),
            "close_duplicates" => close_duplicates = true,
            _ => {}
        }
    }
    let back = "/admin/queue";
    let ids = match ids
        .iter()
        .map(|id| patches::parse_id(id))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(ids) => ids,
        Err(e) => return super::back_with(&state, back, e),
    };
    let shown = match shown
        .iter()
        .map(|id| patches::parse_id(id))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(shown) => shown,
        Err(e) => return super::back_with(&state, back, e),
    };
    let action = match action.as_str() {
        // Only duplicates the queue showed are closed (an empty list closes none).
        "approve" => patches::BatchAction::Approve {
            comment,
            close_duplicates: close_duplicates && !shown.is_empty(),
            shown,
        },
        "reject" => patches::BatchAction::Reject {
            comment: comment.unwrap_or_default(),
        },
        _ => {
            return Ok(crate::web::redirect_with(
                &state,
                back,
                "error",
                "Choose Approve selected or Reject selected.",
            ));
        }
    };
    let outcomes = match patches::review_batch(&state, &viewer.principal, &viewer.actor(), &ids, &action).await {
        Ok(outcomes) => outcomes,
        Err(e) => return super::back_with(&state, back, e),
    };
    let total = outcomes.len();
    let mut done = 0;
    let mut closed = 0;
    let mut failed = Vec::new();
    for outcome in outcomes {
        match outcome.result {
            // Closed by an approval earlier in the batch, as the reviewer asked.
            Ok(record) if record.status == "duplicate" => closed += 1,
            Ok(_) => done += 1,
            Err(e) => failed.push(format!(
                "{}: {}",
                &outcome.id.to_string()[..8],
                crate::error::ApiError::from(e).message()
            )),
        }
    }
    let verb = if matches!(action, patches::BatchAction::Approve { .. }) {
        "approved"
    } else {
        "rejected"
    };
    let summary = match closed {
        0 => format!("{done} of {total} patches {verb}."),
        1 => format!("{done} of {total} patches {verb}, 1 closed as a duplicate of one approved with it."),
        n => format!("{done} of {total} patches {verb}, {n} closed as duplicates of ones approved with them."),
    };
    if failed.is_empty() {
        Ok(crate::web::done(&state, back, &summary))
    } else {
        Ok(crate::web::redirect_with(
            &state,
            back,
            "error",
            &format!("{summary} Not decided: {}", failed.join("; ")),
        ))
    }
}
