//! A patch's conversation laid out for the review page: each thread with its comments
//! rendered as safe Markdown, placed under the diff line it is about. No I/O.

use serde::Serialize;

use super::diff::{FileView, LineKind};
use super::markdown::render_markdown;

/// One comment as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommentView {
    /// Its writer.
    pub author: String,
    /// Whether it is a reviewer's request for changes.
    pub requests_changes: bool,
    /// When (readable).
    pub when: String,
    /// The body as safe HTML.
    pub html: String,
}

/// One thread, with what its reply form needs (the page's context is not at hand where
/// a thread is drawn inside a diff).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ThreadView {
    /// The id of its first comment (its answers' `reply_to`).
    pub id: i64,
    /// The file it is about (`None`: the patch as a whole).
    pub file: Option<String>,
    /// Its lines on their side.
    pub line: usize,
    /// Its last line.
    pub end_line: usize,
    /// Whether the lines are numbered as in the patch's result (else as in the latest).
    pub new_side: bool,
    /// Where it is, in words ("SKILL.md, lines 4–6").
    pub place: String,
    /// Its comments, oldest first.
    pub comments: Vec<CommentView>,
    /// Where its reply form posts (`None`: the viewer cannot comment).
    pub reply_action: Option<String>,
    /// The form's CSRF token.
    pub csrf: String,
}

impl ThreadView {
    /// A thread anchored at `file`'s lines `line..=end_line` (`new_side`: numbered as in
    /// the patch's result), or on the patch as a whole when `file` is `None`.
    pub fn new(id: i64, file: Option<String>, (line, end_line): (usize, usize), new_side: bool) -> Self {
        let place = match &file {
            Some(file) if line == end_line => format!("{file}, line {line}{}", side_note(new_side)),
            Some(file) => format!("{file}, lines {line}–{end_line}{}", side_note(new_side)),
            None => "the patch".to_owned(),
        };
        ThreadView {
            id,
            file,
            line,
            end_line,
            new_side,
            place,
            comments: Vec::new(),
            reply_action: None,
            csrf: String::new(),
        }
    }

    /// Adds a comment, its Markdown made safe.
    pub fn push(&mut self, author: &str, requests_changes: bool, when: String, body: &str) {
        self.comments.push(CommentView {
            author: author.to_owned(),
            requests_changes,
            when,
            html: render_markdown(body, None),
        });
    }
}

fn side_note(new_side: bool) -> &'static str {
    if new_side { "" } else { " (removed)" }
}

/// Puts each anchored thread under the line it ends on, in the unified lines and in the
/// side-by-side row of its side; answers the threads that no shown line holds (the
/// patch's own, and those whose lines the diff no longer shows).
pub fn place_threads(files: &mut [FileView], threads: Vec<ThreadView>) -> Vec<ThreadView> {
    let mut left = Vec::new();
    for thread in threads {
        let Some(file) = files.iter_mut().find(|f| Some(&f.file) == thread.file.as_ref()) else {
            left.push(thread);
            continue;
        };
        let holds = |kind: LineKind, old: Option<usize>, new: Option<usize>| match thread.new_side {
            true => kind != LineKind::Removed && new == Some(thread.end_line),
            false => kind != LineKind::Added && old == Some(thread.end_line),
        };
        let line = file
            .hunks
            .iter_mut()
            .flat_map(|h| h.lines.iter_mut())
            .find(|l| holds(l.kind, l.old_no, l.new_no));
        let Some(line) = line else {
            left.push(thread);
            continue;
        };
        line.threads.push(thread.clone());
        let cell = file
            .hunks
            .iter_mut()
            .flat_map(|h| h.rows.iter_mut())
            .filter_map(|row| {
                if thread.new_side {
                    row.right.as_mut()
                } else {
                    row.left.as_mut()
                }
            })
            .find(|c| c.no == thread.end_line);
        if let Some(cell) = cell {
            cell.threads.push(thread);
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::render::diff::file_views;
    use cairn_pipeline::diff::{Change, FileDiff};

    fn files() -> Vec<FileView> {
        file_views(
            &[FileDiff {
                file: "SKILL.md".to_owned(),
                change: Change::Modified,
                unified: "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,3 +1,3 @@\n one\n-two\n+deux\n three\n".to_owned(),
                binary: false,
                mode_changed: false,
            }],
            None,
        )
    }

    #[test]
    fn threads_sit_under_their_last_line_on_their_side() {
        let mut files = files();
        let mut new = ThreadView::new(1, Some("SKILL.md".to_owned()), (1, 2), true);
        new.push("bob", false, "now".to_owned(), "Say *why*. <script>x</script>");
        let old = ThreadView::new(2, Some("SKILL.md".to_owned()), (2, 2), false);
        let whole = ThreadView::new(3, None, (0, 0), true);
        let gone = ThreadView::new(4, Some("SKILL.md".to_owned()), (9, 9), true);
        let left = place_threads(&mut files, vec![new, old, whole, gone]);
        assert_eq!(left.iter().map(|t| t.id).collect::<Vec<_>>(), vec![3, 4]);
        let lines = &files[0].hunks[0].lines;
        let at = |text: &str| lines.iter().find(|l| l.text == text).unwrap();
        assert_eq!(at("deux").threads.iter().map(|t| t.id).collect::<Vec<_>>(), vec![1]);
        assert_eq!(at("two").threads.iter().map(|t| t.id).collect::<Vec<_>>(), vec![2]);
        let html = &at("deux").threads[0].comments[0].html;
        assert!(html.contains("<em>why</em>") && !html.contains("<script>"), "{html}");
        let rows = &files[0].hunks[0].rows;
        assert!(rows.iter().any(|r| {
            r.right
                .as_ref()
                .is_some_and(|c| c.threads.len() == 1 && c.text == "deux")
        }));
        assert!(
            rows.iter()
                .any(|r| r.left.as_ref().is_some_and(|c| c.threads.len() == 1 && c.text == "two"))
        );
        assert_eq!(left[0].place, "the patch");
        assert_eq!(left[1].place, "SKILL.md, line 9");
    }
}
