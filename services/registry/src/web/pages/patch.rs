//! The patch page: what changed and why, how each op matched, the rebase, the scanner's
//! findings at their lines, and the decision forms.

use std::collections::HashMap;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use cairn_pipeline::matcher::Strategy;
use cairn_pipeline::report::{PatchReport, Placement, RebaseReport};
use cairn_store::PatchRecord;
use serde::Deserialize;
use serde_json::Value;

use super::{given, when};
use crate::AppState;
use crate::app::patches::conversation;
use crate::app::patches::{self, OPEN_STATUSES, PatchError};
use crate::auth::scopes::Scope;
use crate::web::error::{WebError, encode};
use crate::web::render::conversation::{ThreadView, place_threads};
use crate::web::render::diff::{self, FileView, Finding, ScanView};
use crate::web::render::markdown::{render_markdown, split_frontmatter};
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Query of the patch page.
#[derive(Debug, Default, Deserialize)]
pub struct PatchQuery {
    /// `split` for side by side; anything else is unified.
    view: Option<String>,
    /// Start a thread on this file (with `line`): the comment form is filled in for it.
    comment: Option<String>,
    /// The line to comment on.
    line: Option<usize>,
    /// `old` for a line the patch removes.
    side: Option<String>,
    /// Show this file whole: the diff with every line it hides expanded.
    full: Option<String>,
    /// Set when a phone's narrow window asked for side by side and got the unified diff.
    narrow: Option<String>,
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// How one op applied.
#[derive(Debug)]
pub struct OpRow {
    index: usize,
    op: String,
    file: String,
    strategy: String,
    similarity: String,
    lines: String,
    /// Whether the match was anything but exact (worth a reviewer's look).
    fuzzy: bool,
}

/// One conflicting file.
#[derive(Debug)]
pub struct ConflictView {
    file: String,
    reason: String,
    hunks: Vec<(String, String, String)>,
    /// The whole file merged with conflict markers (what a resolution starts from).
    marked: Option<String>,
    /// The form field of its resolved text.
    field: String,
}

/// How one file or op was placed onto the latest revision.
#[derive(Debug)]
pub struct PlacementRow {
    what: String,
    file: String,
    placement: String,
    css: &'static str,
    detail: String,
}

/// What the patch likely duplicates.
#[derive(Debug)]
pub struct DuplicateView {
    /// In words.
    text: String,
    /// The other patch, or the revision.
    href: Option<String>,
    link: String,
    similarity: String,
    excerpt: String,
}

/// Another patch of the same duplicate group.
#[derive(Debug)]
pub struct GroupMember {
    href: String,
    author: String,
    agent: String,
    summary: String,
    this: bool,
    /// It repeats this patch's lesson (closed with it when approved with its duplicates).
    repeats: bool,
    /// How alike its lesson is to this one's ("0.31"), when measurable.
    similarity: String,
}

/// The patch page.
#[derive(Template)]
#[template(path = "patch.html")]
struct PatchPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    id: String,
    skill: String,
    status: String,
    status_label: String,
    summary: String,
    rationale: String,
    author: String,
    agent: Vec<(String, String)>,
    created: String,
    base: String,
    result_revision: Option<i32>,
    decided: Option<String>,
    comment: Option<String>,
    decision: String,
    ops: Vec<OpRow>,
    ops_json: String,
    rebased: bool,
    base_digest: String,
    onto_digest: String,
    merged_files: Vec<String>,
    conflicts: Vec<ConflictView>,
    placements: Vec<PlacementRow>,
    moved: Option<String>,
    duplicate: Option<DuplicateView>,
    group: Vec<GroupMember>,
    /// The ids of the group's other patches shown as repeating this lesson (the approve
    /// form closes only those).
    group_shown: String,
    /// How many of them there are.
    group_repeats: usize,
    supersedes: Option<String>,
    superseded_by: Option<String>,
    duplicate_of: Option<String>,
    resolved_by: Option<String>,
    can_resolve: bool,
    /// Whether the reviewer may approve their own resolution at once.
    resolve_can_approve: bool,
    authored_files: Vec<FileView>,
    scan: ScanView,
    /// The scan's findings with the anchor of their file's diff.
    scan_findings: Vec<(Finding, String)>,
    files: Vec<FileView>,
    /// Lines added and removed over every file of `files`.
    added_total: usize,
    removed_total: usize,
    split: bool,
    /// Whether a narrow window was sent from side by side to the unified diff.
    narrow: bool,
    /// SKILL.md rendered as it reads before and after, when the patch changes it.
    preview: Option<Preview>,
    can_decide: bool,
    can_approve: bool,
    can_withdraw: bool,
    self_review: bool,
    /// Whether the viewer may dismiss findings here (a reviewer; an open, scanned patch).
    can_dismiss: bool,
    /// Whether the viewer is an admin (high and critical findings need one).
    is_admin: bool,
    /// Threads no diff line holds (on the patch, or on lines no longer shown).
    threads: Vec<ThreadView>,
    /// How many threads the patch has in all.
    thread_count: usize,
    /// Whether the viewer may comment.
    can_comment: bool,
    /// The skill's owners: handle, and the list that makes them one ("skill", "category ops").
    owners: Vec<(String, String)>,
    /// Whether the patch asks the viewer for review (an owner, not its author, open, not
    /// waiting for its author).
    review_requested: bool,
    /// The line a new thread is for, when the viewer picked one in the diff.
    new_thread: Option<NewThread>,
    /// The outstanding request for changes, in words.
    changes_requested: Option<String>,
    /// The patch's round.
    round: i32,
    /// Its earlier rounds, in words, oldest first.
    rounds: Vec<String>,
    /// What changed since the previous round.
    round_files: Vec<FileView>,
}

/// The lines a new thread will be anchored to.
#[derive(Debug)]
struct NewThread {
    file: String,
    line: usize,
    side: &'static str,
    place: String,
}

fn op_rows(report: &PatchReport) -> Vec<OpRow> {
    report
        .ops
        .iter()
        .map(|op| {
            let strategy = op.strategy.map(Strategy::as_str).unwrap_or_default();
            OpRow {
                index: op.index + 1,
                op: op.op.replace('_', " "),
                file: op.file.clone().unwrap_or_default(),
                fuzzy: !strategy.is_empty() && strategy != "exact",
                strategy: if strategy.is_empty() {
                    "—".to_owned()
                } else {
                    strategy.replace('_', " ")
                },
                similarity: op
                    .similarity
                    .map_or_else(|| "—".to_owned(), |s| format!("{:.1} %", s * 100.0)),
                lines: op.lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
            }
        })
        .collect()
}

fn conflicts(rebase: &RebaseReport) -> Vec<ConflictView> {
    rebase
        .conflicts
        .iter()
        .map(|c| ConflictView {
            field: format!("file:{}", c.file),
            file: c.file.clone(),
            reason: c.reason.clone(),
            hunks: c
                .hunks
                .iter()
                .map(|h| (h.base.clone(), h.latest.clone(), h.patch.clone()))
                .collect(),
            marked: c.marked.clone(),
        })
        .collect()
}

fn placements(rebase: &RebaseReport) -> Vec<PlacementRow> {
    let css = |p: Placement| match p {
        Placement::Conflict => "dangerous",
        Placement::Replayed | Placement::StructuralInsertion => "caution",
        _ => "safe",
    };
    let mut rows: Vec<PlacementRow> = rebase
        .files
        .iter()
        .map(|f| PlacementRow {
            what: "file".to_owned(),
            file: f.file.clone(),
            placement: f.placement.as_str().replace('_', " "),
            css: css(f.placement),
            detail: f.detail.clone(),
        })
        .collect();
    rows.extend(rebase.ops.iter().map(|o| PlacementRow {
        what: format!("op {} ({})", o.index + 1, o.op.replace('_', " ")),
        file: o.file.clone().unwrap_or_default(),
        placement: o.placement.as_str().replace('_', " "),
        css: css(o.placement),
        detail: match (o.strategy, o.lines.is_empty()) {
            (Some(s), false) => format!(
                "found again ({}) at line {}",
                s.as_str(),
                o.lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
            ),
            (Some(s), true) => format!("found again ({})", s.as_str()),
            _ => String::new(),
        },
    }));
    rows
}

fn duplicate_view(record: &PatchRecord) -> Option<DuplicateView> {
    let mark = record.duplicate.as_ref()?;
    let similarity = format!("{:.0} %", mark.similarity * 100.0);
    Some(match (mark.patch, mark.revision) {
        (Some(patch), _) => DuplicateView {
            text: "Likely the same lesson as another patch".to_owned(),
            href: Some(format!("/admin/patches/{patch}")),
            link: format!("patch {}", &patch.to_string()[..8]),
            similarity,
            excerpt: mark.excerpt.clone(),
        },
        (None, revision) => DuplicateView {
            text: "Likely repeats what the skill already says".to_owned(),
            href: revision.map(|r| format!("/admin/skills/{}?rev={r}", encode(&record.skill_name))),
            link: format!(
                "r{} {}{}",
                revision.unwrap_or_default(),
                mark.file.as_deref().unwrap_or("SKILL.md"),
                mark.line.map(|l| format!(" line {l}")).unwrap_or_default()
            ),
            similarity,
            excerpt: mark.excerpt.clone(),
        },
    })
}

fn short(digest: &str) -> String {
    if digest.is_empty() {
        "—".to_owned()
    } else {
        digest.chars().take(19).collect()
    }
}

/// SKILL.md as a reader sees it, before and after the patch.
#[derive(Debug)]
pub struct Preview {
    /// "r4" (the revision the patch was checked against), or "none" for a new skill.
    before_label: String,
    /// The rendered text before (`None`: there was no SKILL.md).
    before: Option<PreviewSide>,
    /// The rendered text after.
    after: PreviewSide,
}

/// One side of the preview.
#[derive(Debug)]
pub struct PreviewSide {
    /// The YAML frontmatter, as written.
    frontmatter: Option<String>,
    /// The body as safe HTML.
    html: String,
}

/// The SKILL.md preview of a patch whose shown diff changes SKILL.md; `None` otherwise.
async fn preview(
    state: &AppState,
    viewer: &Viewer,
    record: &PatchRecord,
    diff: &[cairn_pipeline::diff::FileDiff],
) -> Result<Option<Preview>, WebError> {
    if !diff.iter().any(|d| d.file == "SKILL.md" && !d.binary) {
        return Ok(None);
    }
    let Some(sides) = patches::sides::file_sides(state, &viewer.principal, record, "SKILL.md").await? else {
        return Ok(None);
    };
    let base = sides
        .before_revision
        .map(|rev| format!("/admin/skills/{}/versions/{rev}/files/", record.skill_name));
    let render = |text: &str| {
        let (frontmatter, body) = split_frontmatter(text);
        PreviewSide {
            frontmatter: frontmatter.map(str::to_owned),
            html: render_markdown(body, base.as_deref()),
        }
    };
    let Some(after) = sides.after.as_deref() else {
        return Ok(None);
    };
    Ok(Some(Preview {
        before_label: sides
            .before_revision
            .map_or_else(|| "none".to_owned(), |rev| format!("r{rev}")),
        before: sides.before.as_deref().map(render),
        after: render(after),
    }))
}

/// The patch's diff with file `full` (when asked for, and its result can be read) shown
/// whole, and the file that was expanded.
async fn expand_file(
    state: &AppState,
    record: &PatchRecord,
    diff: &[cairn_pipeline::diff::FileDiff],
    full: Option<&str>,
) -> Result<(Vec<cairn_pipeline::diff::FileDiff>, Option<String>), WebError> {
    let mut shown = diff.to_vec();
    let Some(path) = full.map(str::trim).filter(|p| !p.is_empty()) else {
        return Ok((shown, None));
    };
    let Some(entry) = shown.iter_mut().find(|d| d.file == path && !d.binary) else {
        return Ok((shown, None));
    };
    let after = patches::sides::result_text(state, record, path).await?;
    match after.and_then(|after| diff::with_full_context(&entry.unified, &after)) {
        Some(whole) => {
            entry.unified = whole;
            Ok((shown, Some(path.to_owned())))
        }
        None => Ok((shown, None)),
    }
}

/// `GET /admin/patches/{id}`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(query): Query<PatchQuery>,
) -> Result<Response, WebError> {
    let review = conversation::read(&state, &viewer.principal, patches::parse_id(&id)?)
        .await
        .map_err(|e| match e {
            PatchError::NotFound(_) => WebError::not_found(format!(
                "Patch {id} does not exist in this organisation: find it in the review queue."
            )),
            other => other.into(),
        })?;
    let record: PatchRecord = review.patch;
    let report = PatchReport::from_stored(&record.report);
    let rebase = &report.rebase;
    let open = OPEN_STATUSES.contains(&record.status.as_str());
    // Whether the skill moved since the patch was checked: approving re-checks it.
    let moved = match open {
        true => match cairn_skill::SkillName::parse(&record.skill_name) {
            Ok(name) => crate::app::catalog::resolve(
                &state.store,
                viewer.principal.org_id,
                name.as_str(),
                cairn_store::RevisionSelector::Latest,
            )
            .await
            .ok()
            .filter(|latest| {
                Some(&latest.version.digest) != record.onto_digest.as_ref()
                    || Some(latest.version.revision) != record.onto_revision
            })
            .map(|latest| {
                format!(
                    "The skill moved to r{} since this patch was checked: approving checks it again against r{} first.",
                    latest.version.revision, latest.version.revision
                )
            }),
            Err(_) => None,
        },
        false => None,
    };
    let members = match record.duplicate_group {
        Some(group) => patches::duplicate_group(&state, &viewer.principal, group).await?,
        None => Vec::new(),
    };
    let repeats: HashMap<uuid::Uuid, patches::GroupRepeat> =
        patches::group_repeats(&state, &viewer.principal, &record, &members)
            .await?
            .into_iter()
            .map(|r| (r.id, r))
            .collect();
    let group = match record.duplicate_group {
        Some(_) => members
            .into_iter()
            .map(|p| GroupMember {
                repeats: repeats.get(&p.id).is_some_and(|r| r.repeats),
                similarity: repeats
                    .get(&p.id)
                    .and_then(|r| r.similarity)
                    .map(|s| format!("{s:.2}"))
                    .unwrap_or_default(),
                href: format!("/admin/patches/{}", p.id),
                author: p.author.clone(),
                agent: p
                    .agent
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                summary: if p.summary.is_empty() {
                    "(no summary)".to_owned()
                } else {
                    p.summary.clone()
                },
                this: p.id == record.id,
            })
            .collect(),
        None => Vec::new(),
    };
    let can_decide = open && viewer.can(Scope::Review);
    let agent = ["name", "model", "session"]
        .iter()
        .filter_map(|k| {
            record
                .agent
                .get(*k)
                .and_then(Value::as_str)
                .map(|v| ((*k).to_owned(), v.to_owned()))
        })
        .collect();
    let chrome = Chrome::new(&viewer, "queue");
    let can_comment = viewer.can(Scope::Submit);
    let thread_count = review.threads.len();
    let mut outdated = Vec::new();
    let threads: Vec<ThreadView> = review
        .threads
        .into_iter()
        .map(|thread| {
            let anchor = thread.first.anchor.as_ref();
            let mut view = ThreadView::new(
                thread.first.id,
                anchor.map(|a| a.file.clone()),
                anchor.map_or((0, 0), |a| (a.line as usize, a.end_line as usize)),
                anchor.is_none_or(|a| a.side == "new"),
            );
            for c in std::iter::once(&thread.first).chain(&thread.replies) {
                view.push(&c.author, c.kind == "changes_requested", when(&c.created_at), &c.body);
            }
            view.reply_action = can_comment.then(|| format!("/admin/patches/{}/comments", record.id));
            view.csrf = chrome.csrf.clone();
            if thread.first.round != record.round && view.file.is_some() {
                view.place = format!(
                    "{} (round {}: those lines may have changed since)",
                    view.place, thread.first.round
                );
            }
            (thread.first.round, view)
        })
        .collect::<Vec<_>>()
        .into_iter()
        .filter_map(|(round, view)| {
            // Threads of earlier rounds stay in the conversation: their lines were that
            // round's.
            if round == record.round {
                Some(view)
            } else {
                outdated.push(view);
                None
            }
        })
        .collect();
    let split = query.view.as_deref() == Some("split");
    let (shown_diff, expanded) = expand_file(&state, &record, &report.diff, query.full.as_deref()).await?;
    // Only open and approved patches keep their result's files (a decided patch's are
    // collected): the others show their stored diff, without a preview or hidden lines.
    let readable = record.candidate.is_some() && (open || record.status == "approved");
    let preview = match readable {
        true => preview(&state, &viewer, &record, &report.diff).await?,
        false => None,
    };
    let mut files = diff::file_views(&shown_diff, report.scan.as_ref());
    if readable {
        for file in files
            .iter_mut()
            .filter(|f| f.change == "modified" && !f.binary && expanded.as_deref() != Some(f.file.as_str()))
        {
            file.expand_link = Some(format!(
                "?{}full={}#{}",
                if split { "view=split&" } else { "" },
                encode(&file.file),
                file.anchor
            ));
        }
    }
    let mut authored_files = diff::file_views(&report.authored_diff, None);
    let threads = place_threads(&mut files, threads);
    let mut threads = place_threads(&mut authored_files, threads);
    threads.extend(outdated);
    threads.sort_by_key(|t| t.id);
    if can_comment {
        for file in files.iter_mut().chain(authored_files.iter_mut()) {
            file.comment_link = Some(format!("?comment={}&line=", encode(&file.file)));
        }
    }
    let new_thread = match (query.comment, query.line) {
        (Some(file), Some(line)) if can_comment => {
            let side = if query.side.as_deref() == Some("old") {
                "old"
            } else {
                "new"
            };
            let place = ThreadView::new(0, Some(file.clone()), (line, line), side == "new").place;
            Some(NewThread {
                file,
                line,
                side,
                place,
            })
        }
        _ => None,
    };
    let changes_requested = record.outstanding_request().map(|(by, at)| {
        format!(
            "{by} requested changes on {}: the patch waits for {} to answer.",
            when(&at),
            record.author
        )
    });
    let review_requested = open
        && record.author_id != viewer.principal.user_id
        && record.outstanding_request().is_none()
        && viewer.can(Scope::Review)
        && review.owners.iter().any(|o| o.handle == viewer.principal.handle);
    let owners = review
        .owners
        .iter()
        .map(|o| {
            let via = match o.kind.as_str() {
                "skill" => "skill".to_owned(),
                _ => format!("category {}", o.name),
            };
            (o.handle.clone(), via)
        })
        .collect();
    let page = PatchPage {
        owners,
        review_requested,
        round: record.round,
        rounds: review
            .rounds
            .iter()
            .map(|r| {
                format!(
                    "Round {}: {} against {}, {} ({})",
                    r.round,
                    when(&r.submitted_at),
                    r.base_revision
                        .map_or_else(|| "no revision".to_owned(), |b| format!("r{b}")),
                    r.status.replace('_', " "),
                    if r.summary.is_empty() { "no summary" } else { &r.summary }
                )
            })
            .collect(),
        round_files: diff::file_views(&review.round_diff, None)
            .into_iter()
            .map(|f| FileView {
                anchor: format!("round-{}", f.anchor),
                ..f
            })
            .collect(),
        threads,
        thread_count,
        can_comment,
        new_thread,
        changes_requested,
        chrome,
        notice: query.flash.notice(&state),
        error: query.flash.error(&state),
        id: record.id.to_string(),
        skill: record.skill_name.clone(),
        status: record.status.clone(),
        status_label: record.status.replace('_', " "),
        summary: record.summary.clone(),
        rationale: record.rationale.clone(),
        author: record.author.clone(),
        agent,
        created: when(&record.created_at),
        base: record
            .base_revision
            .map_or_else(|| "none (a new skill)".to_owned(), |r| format!("r{r}")),
        result_revision: record.result_revision,
        decided: record.decided_at.as_ref().map(|at| {
            format!(
                "{} by {}",
                when(at),
                record.decided_by.as_deref().unwrap_or("the organisation's policy")
            )
        }),
        comment: record.comment.clone(),
        decision: report.decision.map_or("—", |d| d.as_str()).replace('_', " "),
        ops: op_rows(&report),
        ops_json: serde_json::to_string_pretty(&record.ops).unwrap_or_default(),
        rebased: rebase.rebased,
        base_digest: short(rebase.base_digest.as_deref().unwrap_or_default()),
        onto_digest: short(rebase.onto_digest.as_deref().unwrap_or_default()),
        merged_files: rebase.merged_files.clone(),
        conflicts: conflicts(rebase),
        placements: placements(rebase),
        moved,
        duplicate: duplicate_view(&record),
        group_shown: group
            .iter()
            .filter(|m| !m.this && m.repeats)
            .map(|m| m.href.trim_start_matches("/admin/patches/").to_owned())
            .collect::<Vec<_>>()
            .join(","),
        group_repeats: group.iter().filter(|m| m.repeats).count(),
        group,
        supersedes: record.supersedes.map(|id| id.to_string()),
        superseded_by: record.superseded_by.map(|id| id.to_string()),
        duplicate_of: record.duplicate_of.map(|id| id.to_string()),
        resolved_by: record.resolved_by.clone(),
        resolve_can_approve: crate::app::policy::read(&state.store, viewer.principal.org_id)
            .await?
            .authors_may_approve_own,
        can_resolve: record.status == "conflict"
            && viewer.can(Scope::Review)
            && rebase.conflicts.iter().any(|c| c.marked.is_some()),
        authored_files,
        added_total: files.iter().map(|f| f.added).sum(),
        removed_total: files.iter().map(|f| f.removed).sum(),
        scan_findings: diff::findings(report.scan.as_ref())
            .into_iter()
            .map(|f| {
                let anchor = diff::file_anchor(&f.file);
                (f, anchor)
            })
            .collect(),
        scan: diff::scan_view(&report.diff, report.scan.as_ref()),
        files,
        split,
        preview,
        narrow: !split && query.narrow.as_deref() == Some("1"),
        can_decide,
        can_approve: can_decide && record.status == "pending_review",
        can_withdraw: open
            && viewer.can(Scope::Submit)
            && (record.author_id == viewer.principal.user_id || viewer.principal.is_admin()),
        self_review: record.author_id == viewer.principal.user_id,
        can_dismiss: viewer.can(Scope::Review) && matches!(record.status.as_str(), "pending_review" | "blocked"),
        is_admin: viewer.can(Scope::Admin),
    };
    crate::web::page(&page)
}

/// The approve and reject forms.
#[derive(Debug, Deserialize)]
pub struct DecisionForm {
    #[serde(default)]
    comment: String,
    /// Approve: close the other open patches of its duplicate group with it (a checkbox).
    #[serde(default)]
    close_duplicates: Option<String>,
    /// The group's other patches as the page showed them (comma-separated ids): only those
    /// are closed, never one that joined the group after the page was shown.
    #[serde(default)]
    shown: String,
    /// Approve: the round the page showed (a newer one is not approved unseen).
    #[serde(default)]
    round: Option<String>,
    /// Approve: "approve and next" — go on to the patch waiting longest for review.
    #[serde(default)]
    next: Option<String>,
}

/// A decision's errors the reviewer can act on are shown on the patch page.
fn on_page(state: &AppState, id: &str, error: PatchError) -> Result<Response, WebError> {
    super::back_with(state, &format!("/admin/patches/{}", encode(id)), error)
}

/// Back to the patch page after an action on it: with `message` of what it did, or with
/// the error the reviewer can act on (`id` as the request named it).
fn back_to_patch<T>(
    state: &AppState,
    id: &str,
    outcome: Result<T, PatchError>,
    message: impl FnOnce(T) -> String,
) -> Result<Response, WebError> {
    match outcome {
        Ok(value) => {
            let patch_id = patches::parse_id(id)?;
            Ok(done(state, &format!("/admin/patches/{patch_id}"), &message(value)))
        }
        Err(e) => on_page(state, id, e),
    }
}

/// `POST /admin/patches/{id}/approve`: publishes the patch as the skill's next revision.
pub async fn approve(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<DecisionForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let comment = given(Some(form.comment));
    let shown = form
        .shown
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| patches::parse_id(s.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    let how = patches::Approve {
        comment: comment.as_deref(),
        close_duplicates: if form.close_duplicates.is_some() {
            patches::CloseDuplicates::These(&shown)
        } else {
            patches::CloseDuplicates::None
        },
        round: form.round.as_deref().and_then(|r| r.trim().parse().ok()),
    };
    let outcome = patches::approve(&state, &viewer.principal, &viewer.actor(), patch_id, how).await;
    let said = |record: &PatchRecord| match record.result_revision {
        Some(revision) => format!("Approved: {} r{revision} is published.", record.skill_name),
        None => format!("This patch is now {}.", record.status.replace('_', " ")),
    };
    match outcome {
        Ok(record) if form.next.is_some() => {
            // The approval stands whatever happens next: a failed lookup goes to the queue.
            let next = patches::next_to_review(&state, &viewer.principal, patch_id)
                .await
                .ok()
                .flatten();
            Ok(match next {
                Some(next) => done(
                    &state,
                    &format!("/admin/patches/{next}"),
                    &format!("{} This is the next patch waiting for review.", said(&record)),
                ),
                None => done(
                    &state,
                    "/admin/queue",
                    &format!("{} No other patch waits for your review.", said(&record)),
                ),
            })
        }
        outcome => back_to_patch(&state, &id, outcome, |record| said(&record)),
    }
}

/// `POST /admin/patches/{id}/reject`: closes the patch; the comment is required.
pub async fn reject(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<DecisionForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let outcome = patches::reject(&state, &viewer.principal, &viewer.actor(), patch_id, &form.comment).await;
    back_to_patch(&state, &id, outcome, |_| {
        "Rejected: the author sees your comment.".to_owned()
    })
}

/// The comment form: a new thread (on the patch, or on the lines the page was asked for)
/// or an answer in one.
#[derive(Debug, Deserialize)]
pub struct CommentForm {
    body: String,
    #[serde(default)]
    reply_to: Option<String>,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    line: Option<String>,
    #[serde(default)]
    end_line: Option<String>,
    #[serde(default)]
    side: Option<String>,
    /// The round the page showed.
    #[serde(default)]
    round: Option<String>,
}

/// `POST /admin/patches/{id}/comments`: adds a comment.
pub async fn comment(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<CommentForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    // A refused new thread on a line goes back to that line's form (where the page puts
    // the text back), not to the patch's.
    let line_form = match (
        given(form.file.clone()),
        given(form.line.clone()),
        given(form.reply_to.clone()),
    ) {
        (Some(file), Some(line), None) if line.parse::<usize>().is_ok() => Some(format!(
            "/admin/patches/{}?comment={}&line={line}&side={}",
            encode(&id),
            encode(&file),
            if form.side.as_deref() == Some("old") {
                "old"
            } else {
                "new"
            }
        )),
        _ => None,
    };
    let number = |field: &str, value: Option<String>| -> Result<Option<i32>, PatchError> {
        given(value)
            .map(|v| {
                v.parse::<i32>()
                    .map_err(|_| PatchError::Invalid(format!("{field} must be a line number, not {v:?}")))
            })
            .transpose()
    };
    let anchor = (|| {
        Ok(match (given(form.file), number("the line", form.line)?) {
            (Some(file), Some(line)) => Some(conversation::AnchorRequest {
                file,
                line,
                end_line: number("the last line", form.end_line)?,
                side: given(form.side),
            }),
            _ => None,
        })
    })();
    let thread = given(form.reply_to)
        .map(|v| {
            v.parse::<i64>()
                .map_err(|_| PatchError::Invalid(format!("the thread must be a comment id, not {v:?}")))
        })
        .transpose();
    let round = number("the round", form.round);
    let outcome = match (anchor, thread, round) {
        (Ok(anchor), Ok(reply_to), Ok(round)) => {
            let remark = conversation::Remark {
                body: &form.body,
                reply_to,
                anchor,
                round,
            };
            conversation::comment(&state, &viewer.principal, &viewer.actor(), patch_id, remark).await
        }
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Err(e),
    };
    match (outcome, line_form) {
        (Err(e), Some(to)) => super::back_with(&state, &to, e),
        (outcome, _) => back_to_patch(&state, &id, outcome, |_| "Comment added.".to_owned()),
    }
}

/// The request-changes form.
#[derive(Debug, Deserialize)]
pub struct RequestChangesForm {
    #[serde(default)]
    comment: String,
    /// The round the page showed.
    #[serde(default)]
    round: Option<String>,
}

/// `POST /admin/patches/{id}/request-changes`: keeps the patch open, waiting for its author.
pub async fn request_changes(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<RequestChangesForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let outcome = match given(form.round).map(|r| {
        r.parse::<i32>()
            .map_err(|_| PatchError::Invalid(format!("the round must be a number, not {r:?}")))
    }) {
        Some(Err(e)) => Err(e),
        round => {
            let round = round.and_then(Result::ok);
            conversation::request_changes(
                &state,
                &viewer.principal,
                &viewer.actor(),
                patch_id,
                &form.comment,
                round,
            )
            .await
        }
    };
    back_to_patch(&state, &id, outcome, |review| {
        format!("Changes requested: {} sees your comment.", review.patch.author)
    })
}

/// The dismiss form: which finding, and why.
#[derive(Debug, Deserialize)]
pub struct DismissForm {
    rule: String,
    file: String,
    line: usize,
    reason: String,
}

/// `POST /admin/patches/{id}/findings/dismiss`: dismisses one finding as a false positive.
pub async fn dismiss(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<DismissForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let how = patches::findings::Dismiss {
        rule: &form.rule,
        file: &form.file,
        line: form.line,
        reason: &form.reason,
    };
    let outcome = patches::findings::dismiss_finding(&state, &viewer.principal, &viewer.actor(), patch_id, how).await;
    back_to_patch(&state, &id, outcome, |(_, record)| {
        format!(
            "Dismissed: the finding stays listed with your reason; the patch is now {}.",
            record.status.replace('_', " ")
        )
    })
}

/// The withdraw form (only the CSRF token).
#[derive(Debug, Deserialize)]
pub struct WithdrawForm {}

/// `POST /admin/patches/{id}/withdraw`: the author (or an admin) takes the patch back.
pub async fn withdraw(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(_): Verified<WithdrawForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let outcome = patches::withdraw(&state, &viewer.principal, &viewer.actor(), patch_id).await;
    back_to_patch(&state, &id, outcome, |_| "Withdrawn.".to_owned())
}

/// The resolution form: `file:<path>` fields with the resolved text, a comment, and
/// whether to approve at once.
pub async fn resolve(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(fields): Verified<Vec<(String, String)>>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let mut resolution = patches::Resolution::default();
    for (key, value) in fields {
        match key.as_str() {
            "comment" => resolution.comment = given(Some(value)),
            "approve" => resolution.approve = true,
            "csrf" => {}
            _ => {
                if let Some(file) = key.strip_prefix("file:") {
                    // Browsers send CRLF line ends; the service keeps the file's own.
                    resolution.files.insert(file.to_owned(), value);
                }
            }
        }
    }
    match patches::resolve(&state, &viewer.principal, &viewer.actor(), patch_id, resolution).await {
        Ok(record) => Ok(done(
            &state,
            &format!("/admin/patches/{}", record.id),
            &match record.result_revision {
                Some(revision) => format!("Resolved and approved: {} r{revision} is published.", record.skill_name),
                None => format!(
                    "Resolved: this patch carries the lesson on and is {}.",
                    record.status.replace('_', " ")
                ),
            },
        )),
        Err(e) => on_page(&state, &id, e),
    }
}

/// The close-as-duplicate form.
#[derive(Debug, Deserialize)]
pub struct DuplicateForm {
    /// The patch it duplicates (empty: the one its mark names).
    #[serde(default)]
    of: String,
}

/// `POST /admin/patches/{id}/duplicate`.
pub async fn duplicate(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Verified(form): Verified<DuplicateForm>,
) -> Result<Response, WebError> {
    let patch_id = patches::parse_id(&id)?;
    let of = match given(Some(form.of)) {
        Some(of) => Some(patches::parse_id(&of)?),
        None => None,
    };
    let outcome = patches::close_duplicate(&state, &viewer.principal, &viewer.actor(), patch_id, of, None).await;
    back_to_patch(&state, &id, outcome, |_| "Closed as a duplicate.".to_owned())
}
