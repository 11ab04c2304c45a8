//! The conversation on a patch: members comment on the patch or on lines its diff shows,
//! in threads, and reviewers request changes, a decision that keeps the patch open and
//! tells its author what to change. Every transport reads and writes it through here.

use cairn_pipeline::diff::{FileDiff, hunk_ranges};
use cairn_pipeline::report::PatchReport;
use cairn_store::{
    Actor, CommentKind, CommentRecord, CommentRefusal, LineAnchor, NewComment, PatchRecord, RoundRecord,
};
use uuid::Uuid;

use super::{MAX_TEXT, PatchError, check_text, not_found};
use crate::Services;
use crate::auth::Principal;

/// Longest file name a comment may be anchored to, in bytes (as the store keeps it).
const MAX_FILE: usize = 1024;
/// The most lines one comment may span.
const MAX_SPAN: i32 = 500;

/// Where a new thread should sit, as a client asked.
#[derive(Clone, Debug, Default)]
pub struct AnchorRequest {
    /// The file, as the diff names it.
    pub file: String,
    /// The first line.
    pub line: i32,
    /// The last line (`None`: one line).
    pub end_line: Option<i32>,
    /// `new` (the default: numbered as in the patch's result) or `old` (as in the latest
    /// revision, for lines the patch removes).
    pub side: Option<String>,
}

/// A comment as a member writes it.
#[derive(Clone, Debug, Default)]
pub struct Remark<'a> {
    /// The text (Markdown).
    pub body: &'a str,
    /// The thread it answers (the id of its first comment).
    pub reply_to: Option<i64>,
    /// Where a new thread sits (`None`: on the patch as a whole).
    pub anchor: Option<AnchorRequest>,
    /// The round the writer read (`None`: the current one). Refused when the author sent
    /// a newer round meanwhile; a comment on lines always checks the round its lines
    /// were placed in.
    pub round: Option<i32>,
}

/// One thread: its first comment (which holds the anchor) and the answers, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Thread {
    /// The comment that started it.
    pub first: CommentRecord,
    /// The answers.
    pub replies: Vec<CommentRecord>,
}

/// A patch with its conversation, as a reviewer or the author's agent reads it.
#[derive(Clone, Debug)]
pub struct Review {
    /// The patch.
    pub patch: PatchRecord,
    /// Its threads, in the order they were started.
    pub threads: Vec<Thread>,
    /// Its earlier rounds, oldest first.
    pub rounds: Vec<RoundRecord>,
    /// What its files changed since the last earlier round.
    pub round_diff: Vec<FileDiff>,
    /// The skill's owners (asked to review it).
    pub owners: Vec<cairn_store::SkillOwner>,
}

/// A patch of the caller's organisation with its threads and earlier rounds.
pub async fn read(services: &Services, caller: &Principal, id: Uuid) -> Result<Review, PatchError> {
    let patch = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    let threads = threads_of(services.store.patch_comments(caller.org_id, id).await?);
    let (rounds, round_diff) = super::rounds::history(services, caller.org_id, &patch).await?;
    let owners = services
        .store
        .skill_owners(caller.org_id, &patch.skill_name, patch.category.as_deref())
        .await?;
    Ok(Review {
        patch,
        threads,
        rounds,
        round_diff,
        owners,
    })
}

/// Adds a comment: a new thread (on the patch, or on lines its diff shows) or an answer
/// in one. Any state: a decided patch can still be discussed.
pub async fn comment(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    remark: Remark<'_>,
) -> Result<CommentRecord, PatchError> {
    let body = check_body(remark.body, "a comment needs text: say what you noticed")?;
    let patch = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    if let Some(read) = remark.round.filter(|read| *read != patch.round) {
        return Err(refused(CommentRefusal::StaleRound {
            read,
            current: patch.round,
        }));
    }
    let anchor = match (remark.anchor, remark.reply_to) {
        (Some(_), Some(_)) => {
            return Err(PatchError::Invalid(
                "an answer follows its thread's place: send either reply_to or a file and line, not both".to_owned(),
            ));
        }
        (Some(anchor), None) => Some(place(&patch, anchor)?),
        (None, _) => None,
    };
    let new = NewComment {
        patch_id: id,
        author_id: caller.user_id,
        kind: CommentKind::Comment,
        body,
        reply_to: remark.reply_to,
        // Lines are placed in the round just read: a round landing meanwhile refuses them.
        round: if anchor.is_some() {
            Some(patch.round)
        } else {
            remark.round
        },
        anchor,
    };
    match services
        .store
        .add_comment(caller.org_id, &new, actor)
        .await
        .map_err(not_found)?
    {
        Ok(stored) => Ok(stored),
        Err(refusal) => Err(refused(refusal)),
    }
}

/// Requests changes: the patch stays open, marked as waiting for its author, and `body`
/// (required) tells them what to change. Its author cannot request changes of themself.
pub async fn request_changes(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    id: Uuid,
    body: &str,
    round: Option<i32>,
) -> Result<Review, PatchError> {
    let body = check_body(
        body,
        "requesting changes needs a comment: say what the author should change",
    )?;
    let patch = services.store.patch(caller.org_id, id).await.map_err(not_found)?;
    if patch.author_id == caller.user_id {
        return Err(PatchError::Forbidden(
            "you wrote this patch: answer in a comment, or send a new version of it".to_owned(),
        ));
    }
    let new = NewComment {
        patch_id: id,
        author_id: caller.user_id,
        kind: CommentKind::ChangesRequested,
        body,
        reply_to: None,
        anchor: None,
        round,
    };
    match services
        .store
        .add_comment(caller.org_id, &new, actor)
        .await
        .map_err(not_found)?
    {
        Ok(_) => read(services, caller, id).await,
        Err(refusal) => Err(refused(refusal)),
    }
}

/// Groups comments (oldest first) into threads.
pub fn threads_of(comments: Vec<CommentRecord>) -> Vec<Thread> {
    let mut threads: Vec<Thread> = Vec::new();
    for comment in comments {
        match comment.reply_to {
            Some(first) => {
                if let Some(thread) = threads.iter_mut().find(|t| t.first.id == first) {
                    thread.replies.push(comment);
                }
            }
            None => threads.push(Thread {
                first: comment,
                replies: Vec::new(),
            }),
        }
    }
    threads
}

fn check_body<'a>(body: &'a str, empty: &str) -> Result<&'a str, PatchError> {
    if body.trim().is_empty() {
        return Err(PatchError::Invalid(empty.to_owned()));
    }
    check_text("the comment", body, MAX_TEXT)?;
    Ok(body)
}

/// Checks that the lines asked for are lines the patch's diff shows (the change against
/// the latest revision, or, in conflict, the change as its author made it).
fn place(patch: &PatchRecord, anchor: AnchorRequest) -> Result<LineAnchor, PatchError> {
    let side = anchor.side.unwrap_or_else(|| "new".to_owned());
    if side != "new" && side != "old" {
        return Err(PatchError::Invalid(format!(
            "side {side:?} is not known: use \"new\" (lines of the patch's result) or \"old\" (lines it removes)"
        )));
    }
    let end_line = anchor.end_line.unwrap_or(anchor.line);
    if anchor.line < 1 || end_line < anchor.line {
        return Err(PatchError::Invalid(format!(
            "lines {}–{end_line} are not a range: line counts from 1 and end_line is at least line",
            anchor.line
        )));
    }
    if end_line - anchor.line >= MAX_SPAN {
        return Err(PatchError::Invalid(format!(
            "a comment spans at most {MAX_SPAN} lines: anchor it to the lines it is about"
        )));
    }
    if anchor.file.len() > MAX_FILE {
        return Err(PatchError::Invalid(format!(
            "the file name is longer than {MAX_FILE} bytes: use a file of this patch's diff"
        )));
    }
    let report = PatchReport::from_stored(&patch.report);
    let shown: Vec<&FileDiff> = report
        .diff
        .iter()
        .chain(&report.authored_diff)
        .filter(|f| f.file == anchor.file)
        .collect();
    if shown.is_empty() {
        return Err(PatchError::Invalid(format!(
            "{:?} is not a file this patch changes: comment on a file of its diff, or on the patch as a whole",
            anchor.file
        )));
    }
    let (first, last) = (anchor.line as usize, end_line as usize);
    let covered = shown
        .iter()
        .flat_map(|f| hunk_ranges(&f.unified))
        .any(|hunk| hunk.covers(side == "new", first, last));
    if !covered {
        return Err(PatchError::Invalid(format!(
            "the diff of {} does not show {side} lines {first}–{last} together: anchor a comment to lines of one hunk",
            anchor.file
        )));
    }
    Ok(LineAnchor {
        file: anchor.file,
        line: anchor.line,
        end_line,
        side,
    })
}

fn refused(refusal: CommentRefusal) -> PatchError {
    match refusal {
        CommentRefusal::NoSuchThread => PatchError::NotFound(
            "reply_to names no thread of this patch: answer the first comment of a thread on it".to_owned(),
        ),
        CommentRefusal::NotOpen(status) => PatchError::State(format!(
            "this patch is {status}: changes can be requested only while it is open"
        )),
        CommentRefusal::StaleRound { read, current } => PatchError::State(format!(
            "you read round {read} of this patch and it is in round {current} now: read the new round, then comment on it"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comment(id: i64, reply_to: Option<i64>) -> CommentRecord {
        CommentRecord {
            id,
            patch_id: Uuid::nil(),
            reply_to,
            author: "alice".to_owned(),
            kind: "comment".to_owned(),
            body: format!("comment {id}"),
            anchor: None,
            round: 1,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn answers_join_their_thread_in_order() {
        let threads = threads_of(vec![
            comment(1, None),
            comment(2, None),
            comment(3, Some(1)),
            comment(4, Some(2)),
            comment(5, Some(1)),
        ]);
        let shape: Vec<(i64, Vec<i64>)> = threads
            .iter()
            .map(|t| (t.first.id, t.replies.iter().map(|r| r.id).collect()))
            .collect();
        assert_eq!(shape, vec![(1, vec![3, 5]), (2, vec![4])]);
    }
}
