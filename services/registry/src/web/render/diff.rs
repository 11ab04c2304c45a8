//! Diff views for reviewers: unified and side-by-side hunks with line numbers, and scanner findings
//! placed at the lines they point at.
//!
//! Inputs are the patch report's typed parts (the per-file diff and the scan report), as
//! [`cairn_pipeline::report::PatchReport`] reads them back; nothing here panics on any
//! unified-diff text.

use cairn_pipeline::diff::{Change, FileDiff};
use cairn_scanner::Report;

use super::conversation::ThreadView;
use serde::Serialize;

/// One scanner finding, as shown next to the line it points at.
///
/// Exists so templates get typed, defaulted fields instead of raw JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    /// Identifier of the rule that fired.
    pub rule: String,
    /// Rule category (e.g. "exfiltration"), for grouping.
    pub category: String,
    /// Severity as reported ("info", "low", "medium", "high", "critical"); kept as a string.
    pub severity: String,
    /// Path of the file inside the skill.
    pub file: String,
    /// 1-based line in the new version of the file (0 when unknown).
    pub line: usize,
    /// 1-based column (0 when unknown).
    pub column: usize,
    /// The offending text.
    pub excerpt: String,
    /// What the rule found.
    pub message: String,
    /// How to fix it, when the rule offers advice.
    pub hint: Option<String>,
    /// Whether this version introduced the finding (as opposed to it already being there).
    pub introduced: bool,
    /// Whether the scan compared two versions (a patch's), so `introduced` means something.
    pub delta: bool,
    /// Who dismissed it as a false positive, and why (`None`: it counts).
    pub dismissed: Option<DismissedView>,
    /// Whether it could be dismissed: it counts towards the verdict and can be told apart
    /// from other findings (see `cairn_scanner::Finding::identifiable`).
    pub dismissable: bool,
}

/// A dismissal as the pages show it beside its finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DismissedView {
    /// The reviewer's handle.
    pub by: String,
    /// Why.
    pub reason: String,
    /// When (RFC 3339).
    pub at: String,
}

/// Kind of a line in a diff, which decides its colour and which line numbers it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    /// Unchanged line, present on both sides.
    Context,
    /// Line only in the new version.
    Added,
    /// Line only in the old version.
    Removed,
}

impl LineKind {
    /// CSS class for the line, so templates need no matching logic: "ctx", "add" or "del".
    pub fn css(&self) -> &'static str {
        match self {
            LineKind::Context => "ctx",
            LineKind::Added => "add",
            LineKind::Removed => "del",
        }
    }
}

/// One line of the unified view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DiffLine {
    /// Whether the line is unchanged, added or removed.
    pub kind: LineKind,
    /// Line number in the old file (context and removed lines).
    pub old_no: Option<usize>,
    /// Line number in the new file (context and added lines).
    pub new_no: Option<usize>,
    /// The line's text without the diff prefix character.
    pub text: String,
    /// The text cut where words changed against its paired line (a removed line and the
    /// added line that replaces it); empty when the line has no such pair.
    pub words: Vec<Words>,
    /// Findings pointing at this line of the new file.
    pub findings: Vec<Finding>,
    /// Comment threads that end on this line.
    pub threads: Vec<ThreadView>,
}

/// A piece of a changed line: words the pair shares, or words only this side has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Words {
    /// The text.
    pub text: String,
    /// Whether only this side has it (highlighted).
    pub changed: bool,
}

/// One side of a side-by-side row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Whether the line is unchanged, added or removed.
    pub kind: LineKind,
    /// Line number on this side (old on the left, new on the right).
    pub no: usize,
    /// The line's text without the diff prefix character.
    pub text: String,
    /// The text cut where words changed (see [`DiffLine::words`]).
    pub words: Vec<Words>,
    /// Findings pointing at this line (only ever on the right, new side).
    pub findings: Vec<Finding>,
    /// Comment threads that end on this line of this side.
    pub threads: Vec<ThreadView>,
}

/// One row of the side-by-side view; a missing side is shown as an empty cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SideRow {
    /// Old-file side.
    pub left: Option<Cell>,
    /// New-file side.
    pub right: Option<Cell>,
}

/// One `@@` hunk, in both unified and side-by-side form.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Hunk {
    /// The `@@ -a,b +c,d @@` line as it appeared in the diff.
    pub header: String,
    /// Lines for the unified view.
    pub lines: Vec<DiffLine>,
    /// Rows for the side-by-side view.
    pub rows: Vec<SideRow>,
    /// Unchanged lines the diff leaves out before this hunk (after the previous one).
    pub hidden_before: usize,
}

/// Everything a template needs to show one changed file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileView {
    /// Path of the file inside the skill.
    pub file: String,
    /// "added", "removed" or "modified" (as stored).
    pub change: String,
    /// Binary files have no hunks.
    pub binary: bool,
    /// Whether the file mode changed.
    pub mode_changed: bool,
    /// The hunks of the unified diff.
    pub hunks: Vec<Hunk>,
    /// Number of added lines.
    pub added: usize,
    /// Number of removed lines.
    pub removed: usize,
    /// Findings of this file whose line is not shown in any hunk.
    pub other_findings: Vec<Finding>,
    /// Stable HTML id for anchors ("file-" + encoded path, see [`file_anchor`]).
    pub anchor: String,
    /// Where a line number links to start a thread on it (the line number follows); `None`:
    /// no comments here.
    pub comment_link: Option<String>,
    /// Where the file's whole text is shown with the diff (its hidden lines expanded);
    /// `None`: it cannot be, or already is.
    pub expand_link: Option<String>,
}

impl FileView {
    /// How many findings the file has (on its shown lines and elsewhere): the file list
    /// says which files need a look.
    pub fn findings_count(&self) -> usize {
        let on_lines: usize = self
            .hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .map(|l| l.findings.len())
            .sum();
        on_lines + self.other_findings.len()
    }

    /// How many comment threads sit on its lines.
    pub fn threads_count(&self) -> usize {
        self.hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .map(|l| l.threads.len())
            .sum()
    }
}

/// Summary of the scan for the page header.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScanView {
    /// The scanner's verdict ("safe", "caution", "dangerous"), when there is a report.
    pub verdict: Option<String>,
    /// All findings, sorted by file, line and column.
    pub findings: Vec<Finding>,
    /// Number of findings this version introduced.
    pub introduced: usize,
    /// Number of findings already present before.
    pub pre_existing: usize,
    /// Findings whose file is not in the diff at all.
    pub unplaced: Vec<Finding>,
}

/// The findings of a scan report (none without a report), sorted by file, then line,
/// then column.
pub fn findings(scan: Option<&Report>) -> Vec<Finding> {
    let mut found: Vec<Finding> = scan
        .map(|r| r.findings.iter().map(Finding::from).collect())
        .unwrap_or_default();
    found.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
    found
}

impl From<&cairn_scanner::Finding> for Finding {
    fn from(f: &cairn_scanner::Finding) -> Finding {
        Finding {
            rule: f.rule.clone(),
            category: f.category.clone(),
            severity: f.severity.as_str().to_owned(),
            file: f.file.clone(),
            line: f.line,
            column: f.column,
            excerpt: f.excerpt.clone(),
            message: f.message.clone(),
            hint: (!f.hint.is_empty()).then(|| f.hint.clone()),
            introduced: f.introduced == Some(true),
            delta: f.introduced.is_some(),
            dismissed: f.dismissed.as_ref().map(|d| DismissedView {
                by: d.by.clone(),
                reason: d.reason.clone(),
                at: d.at.clone(),
            }),
            dismissable: f.dismissed.is_none() && f.severity >= cairn_scanner::Severity::Medium && f.identifiable(),
        }
    }
}

/// Builds the per-file views with findings attached to the new-side line they point at.
///
/// Exists to give the review page one ready-made structure per file. A finding attaches to the added
/// or context line whose new line number equals its line (in both the unified lines and the right
/// cell of the side-by-side rows); findings of the file that match no shown line go to
/// `other_findings`.
pub fn file_views(diff: &[FileDiff], scan: Option<&Report>) -> Vec<FileView> {
    let all = findings(scan);
    diff_entries(diff)
        .into_iter()
        .map(|entry| {
            let mut hunks = if entry.binary {
                Vec::new()
            } else {
                parse_unified(&entry.unified)
            };
            count_hidden_lines(&mut hunks);
            let lines = hunks.iter().flat_map(|hunk| hunk.lines.iter());
            let added = lines.clone().filter(|line| line.kind == LineKind::Added).count();
            let removed = lines.filter(|line| line.kind == LineKind::Removed).count();
            let mut other_findings = Vec::new();
            for finding in all.iter().filter(|finding| same_file(&finding.file, &entry.file)) {
                if !attach(&mut hunks, finding) {
                    other_findings.push(finding.clone());
                }
            }
            FileView {
                anchor: file_anchor(&entry.file),
                file: entry.file,
                change: entry.change,
                binary: entry.binary,
                mode_changed: entry.mode_changed,
                hunks,
                added,
                removed,
                other_findings,
                comment_link: None,
                expand_link: None,
            }
        })
        .collect()
}

/// Summary of the scan for the page header (counts, findings for files absent from the diff).
///
/// Exists so the header can show the verdict and totals, and list findings that no file view can
/// show because their file did not change.
pub fn scan_view(diff: &[FileDiff], scan: Option<&Report>) -> ScanView {
    let all = findings(scan);
    let files: Vec<String> = diff_entries(diff).into_iter().map(|entry| entry.file).collect();
    let unplaced = all
        .iter()
        .filter(|finding| !files.iter().any(|file| same_file(&finding.file, file)))
        .cloned()
        .collect();
    let introduced = all.iter().filter(|finding| finding.introduced).count();
    ScanView {
        verdict: scan.map(|r| r.verdict.as_str().to_owned()),
        pre_existing: all.len() - introduced,
        introduced,
        findings: all,
        unplaced,
    }
}

/// Parses one unified diff text into hunks with old/new line numbers.
///
/// Exists because the stored diff is plain text (as produced by the `similar` crate). File header
/// lines (`--- `/`+++ `) and anything before the first `@@` are skipped, `\ No newline at end of
/// file` markers are dropped, and each hunk ends when its header's line counts are used up.
pub fn parse_unified(unified: &str) -> Vec<Hunk> {
    let mut hunks = Vec::new();
    let mut current: Option<HunkBuilder> = None;
    for raw in unified.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.starts_with("@@") {
            if let Some(done) = current.take() {
                hunks.push(done.finish());
            }
            current = Some(HunkBuilder::new(line));
            continue;
        }
        if let Some(builder) = current.as_mut() {
            builder.push(line);
        }
    }
    if let Some(done) = current {
        hunks.push(done.finish());
    }
    hunks
}

/// Sets each hunk's [`Hunk::hidden_before`] from the hunk headers: the unchanged lines
/// between it and the previous hunk (or the file's start).
fn count_hidden_lines(hunks: &mut [Hunk]) {
    let mut shown_through = 0;
    for hunk in hunks {
        let Some(range) = cairn_pipeline::diff::hunk_header(&hunk.header) else {
            continue;
        };
        let before = last_line_before(range.new_start, range.new_count);
        hunk.hidden_before = before.saturating_sub(shown_through);
        shown_through = last_line_of(range.new_start, range.new_count);
    }
}

/// The last line before a hunk starting at `start` with `count` lines (a hunk of no
/// lines sits after line `start`).
fn last_line_before(start: usize, count: usize) -> usize {
    if count == 0 { start } else { start.saturating_sub(1) }
}

/// The last line a hunk covers (the line it sits after, when it has none).
fn last_line_of(start: usize, count: usize) -> usize {
    if count == 0 { start } else { start + count - 1 }
}

/// The unified diff of one file (`unified`, as stored) rewritten as one hunk over the whole
/// file whose new text is `after`: every unchanged line the diff left out is shown as
/// context, the diff's own lines stay as they are. `None` when the diff does not fit
/// `after` (then the stored diff is shown as it is).
pub fn with_full_context(unified: &str, after: &str) -> Option<String> {
    let mut new_lines: Vec<&str> = after.split('\n').collect();
    if after.ends_with('\n') || after.is_empty() {
        new_lines.pop();
    }
    let mut head = Vec::new();
    let mut hunks: Vec<(cairn_pipeline::diff::HunkRange, Vec<&str>)> = Vec::new();
    let mut pieces: Vec<&str> = unified.split('\n').collect();
    if unified.ends_with('\n') {
        pieces.pop();
    }
    for piece in pieces {
        if piece.starts_with("@@") {
            hunks.push((cairn_pipeline::diff::hunk_header(piece)?, Vec::new()));
        } else if let Some((_, body)) = hunks.last_mut() {
            body.push(piece);
        } else {
            head.push(piece);
        }
    }
    if hunks.is_empty() {
        return None;
    }
    let (mut old_shown, mut new_shown) = (0, 0);
    let mut body: Vec<String> = Vec::new();
    for (range, lines) in &hunks {
        let new_before = last_line_before(range.new_start, range.new_count);
        let old_before = last_line_before(range.old_start, range.old_count);
        if new_before < new_shown
            || new_before > new_lines.len()
            || old_before.checked_sub(old_shown) != Some(new_before - new_shown)
        {
            return None;
        }
        body.extend(new_lines[new_shown..new_before].iter().map(|l| format!(" {l}")));
        body.extend(lines.iter().map(|l| (*l).to_owned()));
        old_shown = last_line_of(range.old_start, range.old_count);
        new_shown = last_line_of(range.new_start, range.new_count);
    }
    if new_shown > new_lines.len() {
        return None;
    }
    let rest = new_lines.len() - new_shown;
    body.extend(new_lines[new_shown..].iter().map(|l| format!(" {l}")));
    let (old_total, new_total) = (old_shown + rest, new_lines.len());
    let mut out: Vec<String> = head.iter().map(|l| (*l).to_owned()).collect();
    out.push(format!("@@ -1,{old_total} +1,{new_total} @@"));
    out.extend(body);
    Some(out.join("\n") + "\n")
}

/// Stable HTML id for a file's section: `"file-"` followed by the path with ASCII letters, digits,
/// `-` and `.` kept and every other byte written as `_xx` (lowercase hex).
///
/// Exists so templates can link a finding in the header to its file; the encoding is injective, so
/// two paths never share an anchor.
pub fn file_anchor(path: &str) -> String {
    let mut anchor = String::with_capacity(path.len() + 5);
    anchor.push_str("file-");
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'.' {
            anchor.push(char::from(byte));
        } else {
            anchor.push_str(&format!("_{byte:02x}"));
        }
    }
    anchor
}

/// One file entry of the stored diff, with defaults filled in.
struct DiffEntry {
    file: String,
    change: String,
    unified: String,
    binary: bool,
    mode_changed: bool,
}

/// The diff's entries in the shape the views use.
fn diff_entries(diff: &[FileDiff]) -> Vec<DiffEntry> {
    diff.iter()
        .map(|d| DiffEntry {
            file: d.file.clone(),
            change: match d.change {
                Change::Added => "added",
                Change::Removed => "removed",
                Change::Modified => "modified",
            }
            .to_owned(),
            unified: d.unified.clone(),
            binary: d.binary,
            mode_changed: d.mode_changed,
        })
        .collect()
}

/// Whether a finding's path names the diff entry's path (a leading `./` is ignored).
fn same_file(finding_file: &str, entry_file: &str) -> bool {
    let normalize = |path: &str| -> String {
        let mut rest = path;
        while let Some(stripped) = rest.strip_prefix("./") {
            rest = stripped;
        }
        rest.to_string()
    };
    normalize(finding_file) == normalize(entry_file)
}

/// Attaches `finding` to the new-side line it points at; returns false when no hunk shows that line.
fn attach(hunks: &mut [Hunk], finding: &Finding) -> bool {
    let mut placed = false;
    for hunk in hunks.iter_mut() {
        for line in hunk.lines.iter_mut() {
            if line.kind != LineKind::Removed && line.new_no == Some(finding.line) {
                line.findings.push(finding.clone());
                placed = true;
            }
        }
        for cell in hunk.rows.iter_mut().filter_map(|row| row.right.as_mut()) {
            if cell.kind != LineKind::Removed && cell.no == finding.line {
                cell.findings.push(finding.clone());
            }
        }
    }
    placed
}

/// Accumulates the lines of one hunk while its text is read.
struct HunkBuilder {
    header: String,
    lines: Vec<DiffLine>,
    old_no: usize,
    new_no: usize,
    /// Old and new lines still expected, when the header could be parsed.
    remaining: Option<(usize, usize)>,
}

impl HunkBuilder {
    /// Starts a hunk from its `@@` header line.
    fn new(header: &str) -> Self {
        let ranges = cairn_pipeline::diff::hunk_header(header);
        let (old_start, new_start) = ranges.map_or((1, 1), |r| (r.old_start, r.new_start));
        HunkBuilder {
            header: header.to_string(),
            lines: Vec::new(),
            old_no: old_start.max(1),
            new_no: new_start.max(1),
            remaining: ranges.map(|r| (r.old_count, r.new_count)),
        }
    }

    /// Takes one line of diff text that follows the header.
    fn push(&mut self, line: &str) {
        if self.remaining == Some((0, 0)) {
            // The hunk is complete: whatever follows until the next `@@` is not part of it.
            return;
        }
        let (kind, text) = match line.as_bytes().first() {
            Some(b' ') => (LineKind::Context, &line[1..]),
            Some(b'+') => (LineKind::Added, &line[1..]),
            Some(b'-') => (LineKind::Removed, &line[1..]),
            // Some tools strip the space of empty context lines; only trust that with known counts.
            None if self.remaining.is_some_and(|(old, new)| old > 0 && new > 0) => (LineKind::Context, ""),
            // `\ No newline at end of file` and anything unexpected.
            _ => return,
        };
        let (old_no, new_no) = match kind {
            LineKind::Context => (Some(self.old_no), Some(self.new_no)),
            LineKind::Removed => (Some(self.old_no), None),
            LineKind::Added => (None, Some(self.new_no)),
        };
        if old_no.is_some() {
            self.old_no = self.old_no.saturating_add(1);
        }
        if new_no.is_some() {
            self.new_no = self.new_no.saturating_add(1);
        }
        if let Some((old, new)) = self.remaining.as_mut() {
            if old_no.is_some() {
                *old = old.saturating_sub(1);
            }
            if new_no.is_some() {
                *new = new.saturating_sub(1);
            }
        }
        self.lines.push(DiffLine {
            kind,
            old_no,
            new_no,
            text: text.to_string(),
            words: Vec::new(),
            findings: Vec::new(),
            threads: Vec::new(),
        });
    }

    /// Finishes the hunk: marks the changed words of paired lines, then pairs its lines
    /// into side-by-side rows.
    fn finish(mut self) -> Hunk {
        mark_changed_words(&mut self.lines);
        let rows = side_rows(&self.lines);
        Hunk {
            header: self.header,
            lines: self.lines,
            rows,
            hidden_before: 0,
        }
    }
}

/// Lines whose words are compared at most this long (longer ones are shown whole).
const MAX_WORD_DIFF_LINE: usize = 2_000;
/// Pairs of lines compared word by word per hunk at most (the rest are shown whole), so
/// a huge patch cannot make every view of its page slow. With the line limit this bounds
/// the work without a clock: a pair of 2,000-byte lines built to be slow (`x x x …`
/// against `x y x y …`) takes about 1.7 ms in a release build (`similar` 3.2), no more than
/// the 2 ms deadline each pair used to have — and a deadline made the marks depend on how
/// busy the machine was (a loaded CI run lost a pair's marks).
const MAX_WORD_DIFF_PAIRS: usize = 200;

/// Pairs each run of removed lines with the added lines that follow it (first with first,
/// as the side-by-side view does) and cuts both lines of a pair where their words differ,
/// when they share enough to make that useful (at least half, by `similar`'s ratio).
fn mark_changed_words(lines: &mut [DiffLine]) {
    let mut budget = MAX_WORD_DIFF_PAIRS;
    let mut i = 0;
    while i < lines.len() {
        let removed_start = i;
        while i < lines.len() && lines[i].kind == LineKind::Removed {
            i += 1;
        }
        let added_start = i;
        while i < lines.len() && lines[i].kind == LineKind::Added {
            i += 1;
        }
        let pairs = (added_start - removed_start).min(i - added_start).min(budget);
        budget -= pairs;
        for k in 0..pairs {
            let (old, new) = (removed_start + k, added_start + k);
            if let Some((old_words, new_words)) = changed_words(&lines[old].text, &lines[new].text) {
                lines[old].words = old_words;
                lines[new].words = new_words;
            }
        }
        if i == removed_start {
            i += 1;
        }
    }
}

/// The two lines cut into shared and changed words; `None` when they are too long or
/// too different for word marks to help.
fn changed_words(old: &str, new: &str) -> Option<(Vec<Words>, Vec<Words>)> {
    if old.len() > MAX_WORD_DIFF_LINE || new.len() > MAX_WORD_DIFF_LINE {
        return None;
    }
    let diff = similar::TextDiff::configure().diff_words(old, new);
    if diff.ratio() < 0.5 {
        return None;
    }
    let (mut before, mut after) = (Vec::new(), Vec::new());
    let push = |side: &mut Vec<Words>, text: &str, changed: bool| match side.last_mut() {
        Some(last) if last.changed == changed => last.text.push_str(text),
        _ => side.push(Words {
            text: text.to_owned(),
            changed,
        }),
    };
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Equal => {
                push(&mut before, change.value(), false);
                push(&mut after, change.value(), false);
            }
            similar::ChangeTag::Delete => push(&mut before, change.value(), true),
            similar::ChangeTag::Insert => push(&mut after, change.value(), true),
        }
    }
    Some((before, after))
}

/// Builds side-by-side rows: context lines on both sides; a run of removed lines followed by added
/// lines is paired row by row, and the longer run's leftovers get an empty opposite side.
fn side_rows(lines: &[DiffLine]) -> Vec<SideRow> {
    let mut rows = Vec::with_capacity(lines.len());
    let mut removed: Vec<Cell> = Vec::new();
    let mut added: Vec<Cell> = Vec::new();
    for line in lines {
        match line.kind {
            LineKind::Context => {
                flush_pairs(&mut rows, &mut removed, &mut added);
                rows.push(SideRow {
                    left: Some(cell(line, line.old_no)),
                    right: Some(cell(line, line.new_no)),
                });
            }
            LineKind::Removed => {
                if !added.is_empty() {
                    flush_pairs(&mut rows, &mut removed, &mut added);
                }
                removed.push(cell(line, line.old_no));
            }
            LineKind::Added => added.push(cell(line, line.new_no)),
        }
    }
    flush_pairs(&mut rows, &mut removed, &mut added);
    rows
}

/// Emits the pending removed/added run as paired rows and empties both buffers.
fn flush_pairs(rows: &mut Vec<SideRow>, removed: &mut Vec<Cell>, added: &mut Vec<Cell>) {
    let mut left = removed.drain(..);
    let mut right = added.drain(..);
    loop {
        let row = SideRow {
            left: left.next(),
            right: right.next(),
        };
        if row.left.is_none() && row.right.is_none() {
            break;
        }
        rows.push(row);
    }
}

/// A side-by-side cell for `line`, numbered with `no` (0 if the side has no number).
fn cell(line: &DiffLine, no: Option<usize>) -> Cell {
    Cell {
        kind: line.kind,
        no: no.unwrap_or(0),
        text: line.text.clone(),
        words: line.words.clone(),
        findings: line.findings.clone(),
        threads: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// Output of `similar::TextDiff::from_lines(old, new).unified_diff().context_radius(3)
    /// .header("a/SKILL.md", "b/SKILL.md")` for the texts of `realistic_diff_from_two_texts`, kept
    /// literally so the tests need no extra dev-dependency.
    const SIMILAR_OUTPUT: &str = "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -2,7 +2,8 @@\n line 2\n line 3\n line 4\n-line 5\n+line five\n+line 5b\n line 6\n line 7\n line 8\n@@ -17,7 +18,6 @@\n line 17\n line 18\n line 19\n-line 20\n line 21\n line 22\n line 23\n@@ -28,3 +28,4 @@\n line 28\n line 29\n line 30\n+line 31\n\\ No newline at end of file\n";

    /// The same `similar` call for a file created from nothing (`""` → `"x\ny\n"`).
    const SIMILAR_NEW_FILE: &str = "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -0,0 +1,2 @@\n+x\n+y\n";

    fn unified(old: &str, new: &str, radius: usize) -> String {
        similar::TextDiff::from_lines(old, new)
            .unified_diff()
            .context_radius(radius)
            .header("a/SKILL.md", "b/SKILL.md")
            .to_string()
    }

    fn lines_of(hunks: &[Hunk]) -> Vec<(LineKind, Option<usize>, Option<usize>, String)> {
        hunks
            .iter()
            .flat_map(|h| h.lines.iter())
            .map(|l| (l.kind, l.old_no, l.new_no, l.text.clone()))
            .collect()
    }

    #[test]
    fn full_context_shows_every_line_as_a_diff_without_hidden_lines_would() {
        let numbered = |n: usize| (1..=n).map(|i| format!("line {i}\n")).collect::<String>();
        let old = numbered(40);
        let cases = [
            // Changes in the middle, at both ends, a deletion, an insertion, no final newline.
            old.replace("line 5\n", "line five\nline 5b\n").replace("line 20\n", ""),
            old.replace("line 1\n", "line one\n")
                .replace("line 40\n", "line 40\nline 41"),
            old.replace("line 12\nline 13\n", ""),
            old.replace("line 30\n", "line 30\n\n  indented\n"),
            format!("{old}tail\n"),
        ];
        for new in cases {
            let short = unified(&old, &new, 3);
            let full = with_full_context(&short, &new).expect("the diff fits its file");
            let expected = parse_unified(&unified(&old, &new, 1_000_000));
            let got = parse_unified(&full);
            assert_eq!(got.len(), 1, "{full}");
            assert_eq!(lines_of(&got), lines_of(&expected), "{short}");
        }
    }

    #[test]
    fn hidden_lines_are_counted_between_hunks_and_a_diff_that_does_not_fit_is_refused() {
        let numbered = |n: usize| (1..=n).map(|i| format!("line {i}\n")).collect::<String>();
        let old = numbered(40);
        let new = old.replace("line 10\n", "line ten\n").replace("line 30\n", "");
        let diff = FileDiff {
            file: "SKILL.md".to_owned(),
            change: Change::Modified,
            unified: unified(&old, &new, 3),
            binary: false,
            mode_changed: false,
        };
        let view = &file_views(std::slice::from_ref(&diff), None)[0];
        let hidden: Vec<usize> = view.hunks.iter().map(|h| h.hidden_before).collect();
        // Lines 1-6 hidden, hunk 7-13; lines 14-26 hidden, then hunk 27-32 (new numbering 27-32).
        assert_eq!(hidden, [6, 13], "{}", diff.unified);
        // Another file's text: the diff does not fit it.
        assert_eq!(with_full_context(&diff.unified, "short\n"), None);
        assert_eq!(with_full_context("not a diff", &new), None);
    }

    fn numbers(hunk: &Hunk) -> Vec<(char, Option<usize>, Option<usize>)> {
        hunk.lines
            .iter()
            .map(|line| {
                let kind = match line.kind {
                    LineKind::Context => ' ',
                    LineKind::Added => '+',
                    LineKind::Removed => '-',
                };
                (kind, line.old_no, line.new_no)
            })
            .collect()
    }

    fn finding(file: &str, line: usize, column: usize, introduced: bool) -> Value {
        json!({"rule": "r", "category": "c", "severity": "high", "file": file, "line": line,
               "column": column, "excerpt": "e", "message": "m", "hint": "", "introduced": introduced})
    }

    fn typed(diff: Value, scan: Value) -> (Vec<FileDiff>, Option<Report>) {
        let diff = diff
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let mut d = d.clone();
                for (key, default) in [("binary", json!(false)), ("mode_changed", json!(false))] {
                    d.as_object_mut().unwrap().entry(key).or_insert(default);
                }
                serde_json::from_value(d).unwrap()
            })
            .collect();
        let scan = (!scan.is_null()).then(|| {
            let mut scan = scan;
            scan.as_object_mut().unwrap().entry("verdict").or_insert(json!("safe"));
            serde_json::from_value(scan).unwrap()
        });
        (diff, scan)
    }

    const TWO_HUNKS: &str =
        "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n+B2\n c\n d\n@@ -10,3 +11,2 @@\n j\n-k\n l\n";

    #[test]
    fn numbers_lines_across_two_hunks() {
        let hunks = parse_unified(TWO_HUNKS);
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].header, "@@ -1,4 +1,5 @@");
        assert_eq!(
            numbers(&hunks[0]),
            vec![
                (' ', Some(1), Some(1)),
                ('-', Some(2), None),
                ('+', None, Some(2)),
                ('+', None, Some(3)),
                (' ', Some(3), Some(4)),
                (' ', Some(4), Some(5)),
            ]
        );
        assert_eq!(
            numbers(&hunks[1]),
            vec![
                (' ', Some(10), Some(11)),
                ('-', Some(11), None),
                (' ', Some(12), Some(12))
            ]
        );
        assert_eq!(hunks[0].lines[2].text, "B");
        assert_eq!(LineKind::Added.css(), "add");
        assert_eq!(LineKind::Removed.css(), "del");
        assert_eq!(LineKind::Context.css(), "ctx");
    }

    /// (line number, text) of a side-by-side cell.
    type Side<'a> = Option<(usize, &'a str)>;

    #[test]
    fn pairs_uneven_runs_side_by_side() {
        let text = "@@ -1,5 +1,5 @@\n x\n-r1\n-r2\n-r3\n+a1\n y\n+a2\n+a3\n";
        let hunk = &parse_unified(text)[0];
        let shape: Vec<_> = hunk
            .rows
            .iter()
            .map(|row| -> (Side<'_>, Side<'_>) {
                (
                    row.left.as_ref().map(|c| (c.no, c.text.as_str())),
                    row.right.as_ref().map(|c| (c.no, c.text.as_str())),
                )
            })
            .collect();
        assert_eq!(
            shape,
            vec![
                (Some((1, "x")), Some((1, "x"))),
                (Some((2, "r1")), Some((2, "a1"))),
                (Some((3, "r2")), None),
                (Some((4, "r3")), None),
                (Some((5, "y")), Some((3, "y"))),
                (None, Some((4, "a2"))),
                (None, Some((5, "a3"))),
            ]
        );
        assert_eq!(hunk.rows[1].left.as_ref().map(|c| c.kind), Some(LineKind::Removed));
        assert_eq!(hunk.rows[1].right.as_ref().map(|c| c.kind), Some(LineKind::Added));
        // An added run followed by a removed run is not paired backwards.
        let reversed = &parse_unified("@@ -1,1 +1,1 @@\n+a\n-r\n")[0];
        assert_eq!(reversed.rows.len(), 2);
        assert!(reversed.rows[0].left.is_none() && reversed.rows[1].right.is_none());
    }

    #[test]
    fn drops_no_newline_marker() {
        let text = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n";
        let hunks = parse_unified(text);
        assert_eq!(hunks.len(), 1);
        let texts: Vec<&str> = hunks[0].lines.iter().map(|line| line.text.as_str()).collect();
        assert_eq!(texts, vec!["a", "b", "c"]);
        assert_eq!(
            numbers(&hunks[0]),
            vec![(' ', Some(1), Some(1)), ('-', Some(2), None), ('+', None, Some(2))]
        );
    }

    #[test]
    fn header_like_content_lines_stay_in_the_hunk() {
        // A removed line "-- x" and an added line "++ y" look like file headers but are content.
        let hunk = &parse_unified("--- a/f\n+++ b/f\n@@ -1 +1 @@\n--- x\n+++ y\n")[0];
        assert_eq!(numbers(hunk), vec![('-', Some(1), None), ('+', None, Some(1))]);
        assert_eq!(hunk.lines[0].text, "-- x");
        assert_eq!(hunk.lines[1].text, "++ y");
        // Lines beyond the header's counts are not part of the hunk.
        let extra = &parse_unified("@@ -1 +1 @@\n-a\n+b\n-stray\n+stray\n garbage\n")[0];
        assert_eq!(extra.lines.len(), 2);
    }

    #[test]
    fn realistic_diff_from_two_texts() {
        let old: String = (1..=30).map(|n| format!("line {n}\n")).collect();
        let new = old
            .replace("line 5\n", "line five\nline 5b\n")
            .replace("line 20\n", "")
            .replace("line 30\n", "line 30\nline 31");
        let hunks = parse_unified(SIMILAR_OUTPUT);
        assert_eq!(hunks.len(), 3);
        let all: Vec<&DiffLine> = hunks.iter().flat_map(|h| h.lines.iter()).collect();
        assert_eq!(all.iter().filter(|l| l.kind == LineKind::Added).count(), 3);
        assert_eq!(all.iter().filter(|l| l.kind == LineKind::Removed).count(), 2);
        // Every numbered line matches the texts it came from.
        let old_lines: Vec<&str> = old.lines().collect();
        let new_lines: Vec<&str> = new.lines().collect();
        for line in &all {
            if let Some(no) = line.old_no {
                assert_eq!(old_lines.get(no - 1), Some(&line.text.as_str()), "{line:?}");
            }
            if let Some(no) = line.new_no {
                assert_eq!(new_lines.get(no - 1), Some(&line.text.as_str()), "{line:?}");
            }
        }
        assert!(all.iter().any(|l| l.kind == LineKind::Added && l.text == "line 31"));
        // A brand-new file.
        let created = parse_unified(SIMILAR_NEW_FILE);
        assert_eq!(numbers(&created[0]), vec![('+', None, Some(1)), ('+', None, Some(2))]);
    }

    #[test]
    fn attaches_findings_to_lines() {
        let diff = json!([{"file": "SKILL.md", "change": "modified", "unified": TWO_HUNKS,
                           "binary": false, "mode_changed": false}]);
        let scan = json!({"verdict": "dangerous", "findings": [
            finding("SKILL.md", 3, 1, true),   // added line B2
            finding("SKILL.md", 4, 2, false),  // context line c
            finding("SKILL.md", 7, 1, false),  // between hunks
            finding("SKILL.md", 2, 9, true),   // added line B, later column
            finding("SKILL.md", 2, 1, true),   // added line B, earlier column
        ]});
        let (diff, scan) = typed(diff, scan);
        let views = file_views(&diff, scan.as_ref());
        assert_eq!(views.len(), 1);
        let view = &views[0];
        assert_eq!((view.added, view.removed), (2, 2));
        assert_eq!(view.anchor, "file-SKILL.md");
        let hunk = &view.hunks[0];
        let line_b = &hunk.lines[2];
        assert_eq!(line_b.findings.iter().map(|f| f.column).collect::<Vec<_>>(), vec![1, 9]);
        assert_eq!(hunk.lines[3].findings.len(), 1);
        assert_eq!(hunk.lines[4].text, "c");
        assert_eq!(hunk.lines[4].findings.len(), 1);
        // The removed line "b" (old line 2) gets nothing.
        assert!(hunk.lines[1].findings.is_empty());
        // Side-by-side: on the right cell only.
        let row = hunk
            .rows
            .iter()
            .find(|row| row.right.as_ref().is_some_and(|c| c.text == "B"));
        let row = row.map(|row| {
            (
                row.left.as_ref().map(|c| c.findings.len()),
                row.right.as_ref().map(|c| c.findings.len()),
            )
        });
        assert_eq!(row, Some((Some(0), Some(2))));
        let ctx = hunk
            .rows
            .iter()
            .find(|row| row.right.as_ref().is_some_and(|c| c.text == "c"));
        assert_eq!(
            ctx.and_then(|row| row.right.as_ref()).map(|c| c.findings.len()),
            Some(1)
        );
        assert_eq!(ctx.and_then(|row| row.left.as_ref()).map(|c| c.findings.len()), Some(0));
        assert_eq!(view.other_findings.iter().map(|f| f.line).collect::<Vec<_>>(), vec![7]);

        let summary = scan_view(&diff, scan.as_ref());
        assert_eq!(summary.verdict.as_deref(), Some("dangerous"));
        assert_eq!((summary.introduced, summary.pre_existing), (3, 2));
        assert!(summary.unplaced.is_empty());
        let order: Vec<(usize, usize)> = summary.findings.iter().map(|f| (f.line, f.column)).collect();
        assert_eq!(order, vec![(2, 1), (2, 9), (3, 1), (4, 2), (7, 1)]);
    }

    #[test]
    fn findings_for_absent_files_are_unplaced() {
        let diff = json!([{"file": "SKILL.md", "change": "modified", "unified": TWO_HUNKS}]);
        let scan = json!({"verdict": "caution", "findings": [
            finding("scripts/run.sh", 4, 1, false),
            finding("./SKILL.md", 2, 1, true),
        ]});
        let (diff, scan) = typed(diff, scan);
        let summary = scan_view(&diff, scan.as_ref());
        assert_eq!(summary.unplaced.len(), 1);
        assert_eq!(summary.unplaced[0].file, "scripts/run.sh");
        let views = file_views(&diff, scan.as_ref());
        assert_eq!(views[0].hunks[0].lines[2].findings.len(), 1);
        assert!(views[0].other_findings.is_empty());
    }

    #[test]
    fn empty_binary_and_mode_only_entries() {
        let diff = json!([
            {"file": "logo.png", "change": "added", "unified": "", "binary": true, "mode_changed": false},
            {"file": "scripts/run.sh", "change": "modified", "unified": "", "binary": false, "mode_changed": true},
            {"file": "gone.md", "change": "removed", "unified": "--- a/gone.md\n+++ b/gone.md\n@@ -1,2 +0,0 @@\n-x\n-y\n"},
        ]);
        let scan = json!({"findings": [finding("logo.png", 1, 1, true), finding("gone.md", 1, 1, false)]});
        let (diff, scan) = typed(diff, scan);
        let views = file_views(&diff, scan.as_ref());
        assert_eq!(views.len(), 3);
        assert!(views[0].binary && views[0].hunks.is_empty());
        assert_eq!(views[0].other_findings.len(), 1);
        assert!(views[1].mode_changed && views[1].hunks.is_empty());
        assert_eq!(views[1].anchor, "file-scripts_2frun.sh");
        assert_eq!(
            (views[2].added, views[2].removed, views[2].change.as_str()),
            (0, 2, "removed")
        );
        // Removed lines have no new-side number, so the finding is listed separately.
        assert_eq!(views[2].other_findings.len(), 1);
        assert!(scan_view(&diff, scan.as_ref()).unplaced.is_empty());
        assert_eq!(scan_view(&diff, None).verdict, None);
    }

    #[test]
    fn no_report_yields_empty_results() {
        assert!(file_views(&[], None).is_empty());
        assert!(findings(None).is_empty());
        let summary = scan_view(&[], None);
        assert!(summary.findings.is_empty() && summary.unplaced.is_empty() && summary.verdict.is_none());
    }

    #[test]
    fn random_unified_text_does_not_panic() {
        let pieces = [
            "@@ ", "-", "+", " ", "\\", "\n", "\r", ",", "1", "0", "99", "@@", "x", "é", "--- ", "+++ ",
        ];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..500 {
            let mut text = String::new();
            for _ in 0..60 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            for hunk in parse_unified(&text) {
                assert_eq!(
                    hunk.rows.iter().filter(|row| row.left.is_some()).count(),
                    hunk.lines.iter().filter(|line| line.kind != LineKind::Added).count()
                );
                assert_eq!(
                    hunk.rows.iter().filter(|row| row.right.is_some()).count(),
                    hunk.lines.iter().filter(|line| line.kind != LineKind::Removed).count()
                );
            }
        }
    }

    #[test]
    fn malformed_unified_text_does_not_panic() {
        let cases = [
            "",
            "\n\n",
            "@@",
            "@@ garbage @@\n+a\n-b\n c\n",
            "@@ -18446744073709551615,2 +18446744073709551615,2 @@\n a\n b\n",
            "@@ -1,99999999999999999999999 +1 @@\n a\n",
            "+++ only\n--- headers\n",
            "@@ -1,1 +1,1 @@\n\u{0}\n\\\n+\u{feff}é\n-é\n",
        ];
        for text in cases {
            let _ = parse_unified(text);
        }
        let lenient = parse_unified("@@ garbage @@\n+a\n c\n");
        assert_eq!(
            numbers(&lenient[0]),
            vec![('+', None, Some(1)), (' ', Some(1), Some(2))]
        );
        let crlf = parse_unified("@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n");
        assert_eq!(
            crlf[0].lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
            vec!["a", "b", "c"]
        );
    }

    #[test]
    fn changed_words_are_marked_on_both_lines_of_a_pair_and_nowhere_else() {
        let unified = "--- a/SKILL.md\n+++ b/SKILL.md\n@@ -1,3 +1,3 @@\n keep\n-Run the tests before you push.\n+Run the slow tests before you push to main.\n+A new line.\n";
        let hunks = parse_unified(unified);
        let lines = &hunks[0].lines;
        let marked = |line: &DiffLine| -> Vec<String> {
            line.words
                .iter()
                .filter(|w| w.changed)
                .map(|w| w.text.trim().to_owned())
                .collect()
        };
        assert!(lines[0].words.is_empty(), "context has no pair");
        assert_eq!(marked(&lines[1]), ["push."], "{:?}", lines[1].words);
        assert_eq!(marked(&lines[2]), ["slow", "push to main."], "{:?}", lines[2].words);
        let whole: String = lines[2].words.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(whole, lines[2].text, "the pieces make the line");
        assert!(lines[3].words.is_empty(), "an added line without a pair");
        // The side-by-side cells carry the same marks.
        let right = hunks[0].rows[1].right.as_ref().unwrap();
        assert_eq!(right.words, lines[2].words);
        // Lines with little in common are shown whole.
        let unrelated = parse_unified("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-alpha beta gamma\n+one two three\n");
        assert!(unrelated[0].lines.iter().all(|l| l.words.is_empty()));
    }
}
