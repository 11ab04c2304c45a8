//! The conversation on a patch: comments on the patch or on lines of its diff, in threads,
//! and the reviewers' "request changes" decisions, each written with its audit row and
//! webhook event in one transaction.

use chrono::{DateTime, Utc};
use tracing::instrument;
use uuid::Uuid;

use crate::audit::record_audit;
use crate::webhooks::enqueue;
use crate::{Actor, Store, StoreError};

/// What a comment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommentKind {
    /// A remark or a question.
    Comment,
    /// A reviewer's decision that the author must change something before approval.
    ChangesRequested,
}

impl CommentKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            CommentKind::Comment => "comment",
            CommentKind::ChangesRequested => "changes_requested",
        }
    }
}

/// Where a thread sits in a patch's diff.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineAnchor {
    /// The file.
    pub file: String,
    /// The first line (1-based).
    pub line: i32,
    /// The last line (the same as `line` for one line).
    pub end_line: i32,
    /// `new` (numbered as in the candidate) or `old` (as in the latest revision).
    pub side: String,
}

/// A comment to store.
#[derive(Clone, Debug)]
pub struct NewComment<'a> {
    /// The patch.
    pub patch_id: Uuid,
    /// Its writer.
    pub author_id: i64,
    /// A comment or a request for changes.
    pub kind: CommentKind,
    /// The text (Markdown).
    pub body: &'a str,
    /// The thread it answers (its first comment); `None` starts a thread.
    pub reply_to: Option<i64>,
    /// Where a new thread sits; `None`: on the patch as a whole.
    pub anchor: Option<LineAnchor>,
    /// The round its writer read (`None`: whichever is current). A comment written
    /// against an earlier round is refused: its lines may have moved.
    pub round: Option<i32>,
}

/// A stored comment.
#[derive(Clone, Debug, PartialEq)]
pub struct CommentRecord {
    /// Its id (ascending in the order comments were written).
    pub id: i64,
    /// The patch.
    pub patch_id: Uuid,
    /// The thread's first comment (`None`: this one).
    pub reply_to: Option<i64>,
    /// Its writer's handle.
    pub author: String,
    /// `comment` or `changes_requested`.
    pub kind: String,
    /// The text.
    pub body: String,
    /// Where the thread sits (first comments only).
    pub anchor: Option<LineAnchor>,
    /// The patch's round when it was written.
    pub round: i32,
    /// When.
    pub created_at: DateTime<Utc>,
}

#[derive(sqlx::FromRow)]
struct CommentRow {
    id: i64,
    patch_id: Uuid,
    reply_to: Option<i64>,
    author: String,
    kind: String,
    body: String,
    file: Option<String>,
    line: Option<i32>,
    end_line: Option<i32>,
    side: Option<String>,
    round: i32,
    created_at: DateTime<Utc>,
}

impl From<CommentRow> for CommentRecord {
    fn from(r: CommentRow) -> CommentRecord {
        let anchor = match (r.file, r.line, r.end_line, r.side) {
            (Some(file), Some(line), Some(end_line), Some(side)) => Some(LineAnchor {
                file,
                line,
                end_line,
                side,
            }),
            _ => None,
        };
        CommentRecord {
            id: r.id,
            patch_id: r.patch_id,
            reply_to: r.reply_to,
            author: r.author,
            kind: r.kind,
            body: r.body,
            anchor,
            round: r.round,
            created_at: r.created_at,
        }
    }
}

/// Why a comment was not stored (besides the database failing).
#[derive(Debug, PartialEq, Eq)]
pub enum CommentRefusal {
    /// The thread it answers is not a thread of this patch.
    NoSuchThread,
    /// A request for changes on a patch that is no longer open (its state now).
    NotOpen(String),
    /// Written against another round than the patch's current one.
    StaleRound {
        /// The round the writer read.
        read: i32,
        /// The patch's round now.
        current: i32,
    },
}

const COMMENT_SELECT: &str = "SELECT c.id, c.patch_id, c.reply_to, u.handle AS author, c.kind, c.body, \
     c.file, c.line, c.end_line, c.side, c.round, c.created_at \
     FROM patch_comments c JOIN users u ON u.id = c.author_id";

impl Store {
    /// Stores a comment on a patch of `org_id` (which must exist: the caller read it)
    /// with its audit row and webhook event; a request for changes also marks the patch,
    /// in the same transaction, if it is still open.
    #[instrument(skip_all, fields(patch = %comment.patch_id))]
    pub async fn add_comment(
        &self,
        org_id: i64,
        comment: &NewComment<'_>,
        actor: &Actor,
    ) -> Result<Result<CommentRecord, CommentRefusal>, StoreError> {
        let mut tx = self.pool.begin().await?;
        // The patch row is locked so a request for changes and a decision take turns.
        let found: Option<(String, i32)> =
            sqlx::query_as("SELECT status, round FROM patches WHERE org_id = $1 AND id = $2 FOR UPDATE")
                .bind(org_id)
                .bind(comment.patch_id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((status, round)) = found else {
            return Err(StoreError::NotFound(format!("patch {}", comment.patch_id)));
        };
        if let Some(read) = comment.round.filter(|read| *read != round) {
            return Ok(Err(CommentRefusal::StaleRound { read, current: round }));
        }
        if let Some(thread) = comment.reply_to {
            let is_thread: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM patch_comments WHERE id = $1 AND patch_id = $2 AND reply_to IS NULL)",
            )
            .bind(thread)
            .bind(comment.patch_id)
            .fetch_one(&mut *tx)
            .await?;
            if !is_thread {
                return Ok(Err(CommentRefusal::NoSuchThread));
            }
        }
        if comment.kind == CommentKind::ChangesRequested {
            if !crate::OPEN_PATCH_STATUSES.contains(&status.as_str()) {
                return Ok(Err(CommentRefusal::NotOpen(status)));
            }
            sqlx::query(
                "UPDATE patches SET changes_requested_by = $3, changes_requested_at = now(), updated_at = now() \
                 WHERE org_id = $1 AND id = $2",
            )
            .bind(org_id)
            .bind(comment.patch_id)
            .bind(comment.author_id)
            .execute(&mut *tx)
            .await?;
        }
        let anchor = comment.anchor.as_ref();
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO patch_comments (org_id, patch_id, reply_to, author_id, kind, body, file, line, end_line, side, \
             round) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
        )
        .bind(org_id)
        .bind(comment.patch_id)
        .bind(comment.reply_to)
        .bind(comment.author_id)
        .bind(comment.kind.as_str())
        .bind(comment.body)
        .bind(anchor.map(|a| a.file.as_str()))
        .bind(anchor.map(|a| a.line))
        .bind(anchor.map(|a| a.end_line))
        .bind(anchor.map(|a| a.side.as_str()))
        .bind(round)
        .fetch_one(&mut *tx)
        .await?;
        let (event, action) = match comment.kind {
            CommentKind::Comment => ("patch.commented", "patch.comment"),
            CommentKind::ChangesRequested => ("patch.changes_requested", "patch.request_changes"),
        };
        let mut details = serde_json::json!({ "comment": id, "body": comment.body, "round": round });
        if let Some(thread) = comment.reply_to {
            details["reply_to"] = thread.into();
        }
        if let Some(a) = anchor {
            details["file"] = a.file.clone().into();
            details["line"] = a.line.into();
            details["end_line"] = a.end_line.into();
            details["side"] = a.side.clone().into();
        }
        let mut data = details.clone();
        data["patch"] = comment.patch_id.to_string().into();
        data["author"] = actor.name.clone().into();
        enqueue(&mut tx, org_id, event, data).await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            action,
            &format!("patch:{}", comment.patch_id),
            details,
        )
        .await?;
        tx.commit().await?;
        let stored = sqlx::query_as::<_, CommentRow>(sqlx::AssertSqlSafe(format!("{COMMENT_SELECT} WHERE c.id = $1")))
            .bind(id)
            .fetch_one(&self.pool)
            .await?;
        Ok(Ok(stored.into()))
    }

    /// Every comment on a patch of `org_id`, in the order they were written.
    #[instrument(skip_all)]
    pub async fn patch_comments(&self, org_id: i64, patch_id: Uuid) -> Result<Vec<CommentRecord>, StoreError> {
        Ok(sqlx::query_as::<_, CommentRow>(sqlx::AssertSqlSafe(format!(
            "{COMMENT_SELECT} WHERE c.org_id = $1 AND c.patch_id = $2 ORDER BY c.id"
        )))
        .bind(org_id)
        .bind(patch_id)
        .fetch_all(&self.pool)
        .await?
        .into_iter()
        .map(CommentRecord::from)
        .collect())
    }
}
