//! The fuzzy matcher behind the `patch` op: find `old` in a file and replace it by `new`.
//!
//! Strategies, tried in order; the first that finds `old` decides (a later, more tolerant
//! one never overrides an ambiguity found by an earlier one):
//!
//! 1. `exact` — `old` occurs as is. An edit whose `new` text is already in place (the
//!    agent retried) is `already-applied`: a successful no-op.
//! 2. Line strategies — `old`'s lines equal a run of the file's lines once both are
//!    normalised: `line-trimmed` (trailing whitespace), `indentation-flexible` (leading
//!    whitespace too; `new` is re-indented to the file's indentation),
//!    `whitespace-normalized` (runs of whitespace), `unicode-normalized` (smart quotes,
//!    dashes, ellipses, non-breaking spaces). Lines the edit does not change are written
//!    back exactly as the file had them, so the file keeps its own characters.
//! 3. `trimmed-boundary` — `old` with blank lines or spaces around it that the file lacks.
//! 4. `escape-normalized` — `old` written with literal `\n`, `\t`, `\"` (tool-call
//!    serialisation); `new` is unescaped the same way when it was escaped too.
//! 5. `block-anchor` — `old`'s first and last lines match a unique block of the same
//!    length but some lines between differ. Applied only when every differing line is one
//!    the edit replaces or removes anyway; if the edit would keep a line the file does not
//!    have (`beta(2)` where the file says `beta(9)`), it refuses: writing the agent's
//!    misremembered line would silently change the file.
//!
//! 6. `context-aware` — a unique block of `old`'s length where at least half of its lines
//!    match and every other line is a close variant (similarity ≥ 0.8) that the edit
//!    replaces anyway.
//!
//! When nothing matches, the error carries the closest candidates (line numbers,
//! similarity, the differing lines) so the agent can correct `old` and retry.

mod candidates;
mod escape;
mod lines;
mod normalize;

use serde::{Deserialize, Serialize};

/// One text edit: the `old`/`new`/`replace_all` of a `patch` op.
#[derive(Clone, Copy, Debug)]
pub struct Edit<'a> {
    /// The text to find.
    pub old: &'a str,
    /// What replaces it.
    pub new: &'a str,
    /// Replace every occurrence instead of requiring exactly one.
    pub replace_all: bool,
}

/// How `old` was found: shown to reviewers and returned to agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// `old` occurs exactly.
    Exact,
    /// `new` is already in place and `old` is not: nothing to do.
    AlreadyApplied,
    /// Equal lines once trailing whitespace is ignored.
    LineTrimmed,
    /// Equal lines once leading and trailing whitespace is ignored.
    IndentationFlexible,
    /// Equal lines once runs of whitespace count as one space.
    WhitespaceNormalized,
    /// Equal lines once typographic quotes, dashes and spaces count as ASCII.
    UnicodeNormalized,
    /// `old` had blank lines or spaces around it that the file lacks.
    TrimmedBoundary,
    /// `old` was written with literal escape sequences.
    EscapeNormalized,
    /// A unique block whose first and last lines match, differing only in lines the
    /// edit replaces.
    BlockAnchor,
    /// A unique block where most lines match and the others are close variants the edit
    /// replaces.
    ContextAware,
}

impl Strategy {
    /// The strategy's name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Exact => "exact",
            Strategy::AlreadyApplied => "already-applied",
            Strategy::LineTrimmed => "line-trimmed",
            Strategy::IndentationFlexible => "indentation-flexible",
            Strategy::WhitespaceNormalized => "whitespace-normalized",
            Strategy::UnicodeNormalized => "unicode-normalized",
            Strategy::TrimmedBoundary => "trimmed-boundary",
            Strategy::EscapeNormalized => "escape-normalized",
            Strategy::BlockAnchor => "block-anchor",
            Strategy::ContextAware => "context-aware",
        }
    }
}

/// A successful edit.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Applied {
    /// The whole file after the edit.
    pub content: String,
    /// How `old` was found.
    pub strategy: Strategy,
    /// How close the replaced text was to `old`, 0–1 (1 for an exact match).
    pub similarity: f64,
    /// How many places were replaced (0 when already applied).
    pub replacements: usize,
    /// The first line (1-based, in the original file) of each replaced place.
    pub lines: Vec<usize>,
}

/// A place in the file that resembles `old`, offered when the matcher refuses.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Candidate {
    /// First line of the place (1-based).
    pub start_line: usize,
    /// Last line of the place (1-based).
    pub end_line: usize,
    /// Similarity to `old`, 0–1.
    pub similarity: f64,
    /// The place's first lines as the file has them.
    pub preview: String,
    /// Lines where the place and `old` differ (for blocks whose ends match).
    pub differences: Vec<LineDifference>,
}

/// One line where the file and `old` disagree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineDifference {
    /// The line in the file (1-based).
    pub line: usize,
    /// What the file has.
    pub file: String,
    /// What `old` says.
    pub old: String,
}

/// Why an edit was not applied. Nothing is changed in any of these cases.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MatchError {
    /// `old` is empty.
    #[error("`old` is empty: give the exact text to replace (write_file replaces a whole file)")]
    EmptyOld,
    /// `old` and `new` are the same.
    #[error("`old` and `new` are identical: there is nothing to change")]
    Unchanged,
    /// `old` is in several places and `replace_all` is off.
    #[error(
        "`old` matches {} places ({} at lines {}): include more surrounding lines to make it unique, or set replace_all (`--replace-all`)",
        .lines.len(),
        .strategy.as_str(),
        join_lines(.lines)
    )]
    Ambiguous {
        /// The strategy that found them.
        strategy: Strategy,
        /// Their first lines (1-based).
        lines: Vec<usize>,
    },
    /// A block's ends match but the edit would keep lines the file does not have.
    #[error(
        "`old` matches lines {}–{} only approximately: {}; the edit keeps {}, so applying it would silently change the file — re-read those lines and retry",
        .candidate.start_line,
        .candidate.end_line,
        describe_differences(&.candidate.differences),
        if .candidate.differences.len() == 1 { "that line" } else { "those lines" }
    )]
    Unsure {
        /// The block and how it differs.
        candidate: Candidate,
    },
    /// `old` matches once indentation is ignored, but its indentation does not map onto
    /// the file's and a rewritten line's indentation would be a guess.
    #[error(
        "`old` matches lines {start_line}–{end_line} once indentation is ignored, but its indentation does not map onto the file's: copy `old` and `new` with the file's indentation"
    )]
    Indentation {
        /// First line of the place.
        start_line: usize,
        /// Last line of the place.
        end_line: usize,
    },
    /// `old` is nowhere in the file.
    #[error("`old` was not found in the file{}", describe_candidates(.candidates))]
    NotFound {
        /// The closest places, best first (may be empty).
        candidates: Vec<Candidate>,
    },
}

fn join_lines(lines: &[usize]) -> String {
    lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")
}

fn describe_differences(differences: &[LineDifference]) -> String {
    differences
        .iter()
        .take(3)
        .map(|d| format!("line {} is {:?}, old says {:?}", d.line, d.file.trim(), d.old.trim()))
        .collect::<Vec<_>>()
        .join("; ")
}

fn describe_candidates(candidates: &[Candidate]) -> String {
    if candidates.is_empty() {
        return ": nothing similar either; re-read the file and copy `old` from it".to_owned();
    }
    let places: Vec<String> = candidates
        .iter()
        .map(|c| {
            let span = if c.start_line == c.end_line {
                format!("line {}", c.start_line)
            } else {
                format!("lines {}–{}", c.start_line, c.end_line)
            };
            format!("{span} ({:.0}% similar)", c.similarity * 100.0)
        })
        .collect();
    format!(
        "; closest: {} — copy `old` from the file exactly and retry",
        places.join(", ")
    )
}

/// Applies one edit to `content`. Never guesses: an ambiguous or uncertain match is an
/// error, and `content` is untouched unless the result is `Ok`.
pub fn apply(content: &str, edit: Edit<'_>) -> Result<Applied, MatchError> {
    if edit.old.is_empty() {
        return Err(MatchError::EmptyOld);
    }
    if edit.old == edit.new {
        return Err(MatchError::Unchanged);
    }
    let file = lines::FileLines::new(content);
    if let Some(applied) = attempt(&file, edit)? {
        return Ok(applied);
    }
    if let Some(applied) = escaped_newlines(&file, edit)? {
        return Ok(applied);
    }
    if let Some((old, new)) = escape::unescape_edit(edit.old, edit.new) {
        let unescaped = Edit {
            old: &old,
            new: &new,
            replace_all: edit.replace_all,
        };
        if let Some(mut applied) = attempt(&file, unescaped)? {
            applied.strategy = Strategy::EscapeNormalized;
            return Ok(applied);
        }
    }
    if let Some((first, last)) = already_in_place(&file, edit.old, edit.new) {
        // …unless `old`, misremembered, is still somewhere else in the file.
        let elsewhere = |c: &Candidate| c.start_line - 1 > last || c.end_line - 1 < first;
        for removed in removed_lines(edit.old, edit.new) {
            let mut near = candidates::closest_lines(&file, &removed);
            near.retain(|c| c.similarity >= STILL_THERE_SIMILARITY && elsewhere(c));
            if !near.is_empty() {
                return Err(MatchError::NotFound { candidates: near });
            }
        }
        return Ok(Applied {
            content: content.to_owned(),
            strategy: Strategy::AlreadyApplied,
            similarity: 1.0,
            replacements: 0,
            lines: Vec::new(),
        });
    }
    candidates::resolve(&file, edit)
}

/// `old` written on one line with literal `\n` for its line breaks.
fn escaped_newlines(file: &lines::FileLines<'_>, edit: Edit<'_>) -> Result<Option<Applied>, MatchError> {
    let found = escape::find_with_escaped_newlines(file.text, edit.old);
    if found.is_empty() {
        return Ok(None);
    }
    let at_lines = file.line_numbers(&found.iter().map(|&(at, _)| at).collect::<Vec<_>>());
    if found.len() > 1 && !edit.replace_all {
        return Err(MatchError::Ambiguous {
            strategy: Strategy::EscapeNormalized,
            lines: at_lines,
        });
    }
    let new = escape::decode_newlines(edit.new);
    let new = file.with_line_endings(&new).into_owned();
    let mut out = String::with_capacity(file.text.len() + new.len());
    let mut from = 0;
    let mut similarity = 1.0f64;
    for &(start, end) in &found {
        out.push_str(&file.text[from..start]);
        out.push_str(&new);
        similarity = similarity.min(lines::text_similarity(edit.old, &file.text[start..end]));
        from = end;
    }
    out.push_str(&file.text[from..]);
    Ok(Some(Applied {
        content: out,
        strategy: Strategy::EscapeNormalized,
        similarity,
        replacements: found.len(),
        lines: at_lines,
    }))
}

/// The exact, line and trimmed-boundary strategies for one spelling of the edit.
fn attempt(file: &lines::FileLines<'_>, edit: Edit<'_>) -> Result<Option<Applied>, MatchError> {
    if let Some(applied) = exact(file, edit)? {
        return Ok(Some(applied));
    }
    if let Some(applied) = file.replace_lines(edit)? {
        return Ok(Some(applied));
    }
    if let Some((old, new)) = trim_boundary(edit.old, edit.new) {
        let trimmed = Edit {
            old,
            new: &new,
            replace_all: edit.replace_all,
        };
        // Whole lines only: without its padding, `old` must still be what the file's
        // lines are, not a piece of one (`b` is not the line `bc`).
        if let Some(mut applied) = file.replace_lines(trimmed)? {
            applied.strategy = Strategy::TrimmedBoundary;
            return Ok(Some(applied));
        }
    }
    Ok(None)
}

/// The exact strategy. Occurrences of `old` that sit inside an occurrence of `new`
/// (an insertion made before) do not count: if that leaves none, the edit is already
/// applied.
fn exact(file: &lines::FileLines<'_>, edit: Edit<'_>) -> Result<Option<Applied>, MatchError> {
    let content = file.text;
    let mut hits: Vec<usize> = find_all(content, edit.old);
    if hits.is_empty() {
        return Ok(None);
    }
    let all_hits = hits.clone();
    let offsets_in_new: Vec<usize> = find_all(edit.new, edit.old);
    if !offsets_in_new.is_empty() {
        hits.retain(|&at| {
            !offsets_in_new
                .iter()
                .any(|&k| at >= k && content.get(at - k..).is_some_and(|rest| rest.starts_with(edit.new)))
        });
        if hits.is_empty() {
            return Ok(Some(Applied {
                content: content.to_owned(),
                strategy: Strategy::AlreadyApplied,
                similarity: 1.0,
                replacements: 0,
                lines: Vec::new(),
            }));
        }
    }
    // Several places, or one left beside places the edit already covers: which one is
    // meant is a guess.
    if (hits.len() > 1 || all_hits.len() > hits.len()) && !edit.replace_all {
        return Err(MatchError::Ambiguous {
            strategy: Strategy::Exact,
            lines: file.line_numbers(&all_hits),
        });
    }
    let new = file.with_line_endings(edit.new);
    let mut out = String::with_capacity(content.len() + hits.len() * new.len());
    let mut from = 0;
    for &at in &hits {
        out.push_str(&content[from..at]);
        out.push_str(&new);
        from = at + edit.old.len();
    }
    out.push_str(&content[from..]);
    Ok(Some(Applied {
        content: out,
        strategy: Strategy::Exact,
        similarity: 1.0,
        replacements: hits.len(),
        lines: file.line_numbers(&hits),
    }))
}

/// Starts of the non-overlapping occurrences of `needle` (SIMD substring search).
fn find_all(haystack: &str, needle: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    let mut from = 0;
    while let Some(at) = finder.find(&haystack.as_bytes()[from..]) {
        found.push(from + at);
        from += at + needle.len().max(1);
        if from > haystack.len() {
            break;
        }
    }
    found
}

/// `old` and `new` without the blank lines around them (and, for a one-line `old`, the
/// spaces around it): the first line keeps its indentation.
fn trim_boundary<'a>(old: &'a str, new: &'a str) -> Option<(&'a str, String)> {
    if !old.contains('\n') {
        let trimmed = old.trim();
        if trimmed.len() == old.len() || trimmed.is_empty() {
            return None;
        }
        let lead = &old[..old.len() - old.trim_start().len()];
        let trail = &old[old.trim_end().len()..];
        let new = new.strip_prefix(lead).unwrap_or(new);
        let new = new.strip_suffix(trail).unwrap_or(new);
        return Some((trimmed, new.to_owned()));
    }
    let (start, end) = blank_boundary(old);
    let trimmed = &old[start..end];
    if trimmed.len() == old.len() || trimmed.trim().is_empty() {
        return None;
    }
    // `new` loses only the padding `old` lost, where it has the same: its own line
    // breaks are content.
    let (lead, trail) = (&old[..start], &old[end..]);
    let new = new.strip_prefix(lead).filter(|_| !lead.is_empty()).unwrap_or(new);
    let new = new.strip_suffix(trail).filter(|_| !trail.is_empty()).unwrap_or(new);
    Some((trimmed, new.to_owned()))
}

/// The byte range of `text` without whitespace-only lines at its start and whitespace
/// at its end.
fn blank_boundary(text: &str) -> (usize, usize) {
    let blank_prefix = text.len() - text.trim_start().len();
    let start = text[..blank_prefix].rfind('\n').map_or(0, |i| i + 1);
    (start, start + text[start..].trim_end().len())
}

/// The lines with text that the edit removes or rewrites, normalised.
fn removed_lines(old: &str, new: &str) -> Vec<String> {
    let (old_lines, _) = lines::split_lines(old);
    let (new_lines, _) = lines::split_lines(new);
    lines::line_ops(&old_lines, &new_lines)
        .into_iter()
        .filter(|op| matches!(op.tag(), similar::DiffTag::Delete | similar::DiffTag::Replace))
        .flat_map(|op| op.old_range())
        .map(|k| normalize::normalize(old_lines[k], normalize::Level::Unicode).into_owned())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Least similarity between a line `old` removes and a line near `new` in the file for
/// the edit not to count as already applied.
const STILL_THERE_SIMILARITY: f64 = 0.7;

/// Whether the edit is already in the file (for edits retried after they landed): `new`
/// is there verbatim and once, substantial, and no line the edit removes or rewrites is still next
/// to it, even misremembered. Short texts do not count: they are everywhere.
fn already_in_place(file: &lines::FileLines<'_>, old: &str, new: &str) -> Option<(usize, usize)> {
    let substantial = new.trim().chars().count() >= 40 || new.lines().filter(|l| !l.trim().is_empty()).count() >= 2;
    if !substantial {
        return None;
    }
    // Exactly once: with several copies, which one the edit meant is a guess.
    let [at] = find_all(file.text, new)[..] else {
        return None;
    };
    let first = file.line_of(at);
    let last = file.line_of(at + new.len().saturating_sub(1));
    let reach = lines::split_lines(old).0.len();
    // The lines next to `new` (not inside it: a rewritten line resembles its rewrite).
    let around: Vec<std::borrow::Cow<'_, str>> = (first.saturating_sub(reach)..first)
        .chain(last + 1..(last + reach + 1).min(file.len()))
        .map(|i| normalize::normalize(file.line(i), normalize::Level::Unicode))
        .collect();
    removed_lines(old, new)
        .into_iter()
        .all(|removed| {
            around
                .iter()
                .all(|line| lines::text_similarity(&removed, line) < STILL_THERE_SIMILARITY)
        })
        .then_some((first, last))
}

#[cfg(test)]
mod tests;
