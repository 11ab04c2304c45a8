//! When no strategy finds `old`: the block-anchor strategy (applied only when it cannot
//! silently change a line the edit keeps), else the closest places for the agent to
//! retry against.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use similar::{Algorithm, DiffTag};

use super::lines::{FileLines, split_lines, text_similarity};
use super::normalize::{Level, normalize, skeleton_hash};
use super::{Applied, Candidate, Edit, LineDifference, MatchError, Strategy};

/// The least similarity (0–1) of a block-anchor match to `old` for it to be applied.
/// Below it, the block is offered as a candidate instead.
pub const BLOCK_ANCHOR_MIN_SIMILARITY: f64 = 0.8;
/// The least similarity (0–1) of a differing line for a context-aware match.
pub const CONTEXT_LINE_MIN_SIMILARITY: f64 = 0.8;
/// Most places the context-aware strategy weighs before it gives up.
const MAX_CONTEXT_STARTS: usize = 100_000;
/// How many candidates an error offers.
const MAX_CANDIDATES: usize = 3;
/// The least similarity (0–1) for a place to be offered as a candidate.
const MIN_CANDIDATE_SIMILARITY: f64 = 0.3;
/// Lines of a candidate shown in its preview.
const PREVIEW_LINES: usize = 4;
/// Characters of a previewed line.
const PREVIEW_WIDTH: usize = 120;

/// The last resort: a safe block-anchor match, else an error with candidates.
pub fn resolve(file: &FileLines<'_>, edit: Edit<'_>) -> Result<Applied, MatchError> {
    let (old_lines, old_newline) = split_lines(edit.old);
    if let Some(applied) = block_anchor(file, &old_lines, old_newline, edit)? {
        return Ok(applied);
    }
    if let Some(applied) = context_aware(file, &old_lines, old_newline, edit)? {
        return Ok(applied);
    }
    Err(MatchError::NotFound {
        candidates: closest(file, &old_lines),
    })
}

/// A unique block of `old`'s length whose first and last lines match `old`'s.
fn block_anchor(
    file: &FileLines<'_>,
    old_lines: &[&str],
    old_newline: bool,
    edit: Edit<'_>,
) -> Result<Option<Applied>, MatchError> {
    let n = old_lines.len();
    if n < 3 || n > file.len() {
        return Ok(None);
    }
    let wanted: Vec<Cow<'_, str>> = old_lines.iter().map(|l| normalize(l, Level::Unicode)).collect();
    // Blank lines are no anchors: the first and last lines with text are.
    let (Some(first), Some(last)) = (
        wanted.iter().position(|l| !l.is_empty()),
        wanted.iter().rposition(|l| !l.is_empty()),
    ) else {
        return Ok(None);
    };
    if last < first + 2 {
        return Ok(None);
    }
    let skeletons = file.skeletons();
    let mut buffer = String::new();
    let (first_skeleton, last_skeleton) = (
        skeleton_hash(old_lines[first], &mut buffer),
        skeleton_hash(old_lines[last], &mut buffer),
    );
    let unicode = |i: usize| normalize(file.line(i), Level::Unicode);
    let mut anchored = (0..=skeletons.len() - n).filter(|&i| {
        skeletons[i + first] == first_skeleton
            && skeletons[i + last] == last_skeleton
            && unicode(i + first) == wanted[first]
            && unicode(i + last) == wanted[last]
    });
    let (Some(start), None) = (anchored.next(), anchored.next()) else {
        return Ok(None);
    };
    let differing: Vec<usize> = (0..n).filter(|&k| unicode(start + k) != wanted[k]).collect();
    let window: Vec<&str> = (start..start + n).map(|i| file.line(i)).collect();
    let similarity = text_similarity(&old_lines.join("\n"), &window.join("\n"));
    let candidate = Candidate {
        start_line: start + 1,
        end_line: start + n,
        similarity,
        preview: preview(&window),
        differences: differing
            .iter()
            .map(|&k| LineDifference {
                line: start + k + 1,
                file: window[k].to_owned(),
                old: old_lines[k].to_owned(),
            })
            .collect(),
    };
    let (new_lines, _) = split_lines(edit.new);
    let kept = kept_old_lines(old_lines, &new_lines);
    // Every differing line must be one the edit rewrites, and a close variant of the
    // file's line: a line the agent never saw is not silently replaced.
    let unlike = |k: usize| {
        let (a, b) = (&wanted[k], normalize(window[k], Level::Unicode));
        a.is_empty() != b.is_empty() || text_similarity(a, &b) < CONTEXT_LINE_MIN_SIMILARITY
    };
    if differing.iter().any(|&k| kept.contains(&k) || unlike(k)) {
        return Err(MatchError::Unsure { candidate });
    }
    if similarity < BLOCK_ANCHOR_MIN_SIMILARITY {
        return Ok(None);
    }
    let mut applied = file.splice(&[start], old_lines, old_newline, edit, Level::Unicode)?;
    applied.strategy = Strategy::BlockAnchor;
    applied.similarity = similarity;
    Ok(Some(applied))
}

/// A unique run of `old`'s length where at least half of `old`'s lines with text match
/// and every other one is a close variant of the file's line (similarity at least
/// [`CONTEXT_LINE_MIN_SIMILARITY`]) that the edit replaces anyway.
fn context_aware(
    file: &FileLines<'_>,
    old_lines: &[&str],
    old_newline: bool,
    edit: Edit<'_>,
) -> Result<Option<Applied>, MatchError> {
    let n = old_lines.len();
    let wanted: Vec<Cow<'_, str>> = old_lines.iter().map(|l| normalize(l, Level::Unicode)).collect();
    let with_text: Vec<usize> = (0..n).filter(|&k| !wanted[k].is_empty()).collect();
    if with_text.len() < 2 || n > file.len() {
        return Ok(None);
    }
    let skeletons = file.skeletons();
    let mut buffer = String::new();
    let mut at: HashMap<u64, Vec<usize>, foldhash::fast::FixedState> = HashMap::default();
    for &k in &with_text {
        at.entry(skeleton_hash(old_lines[k], &mut buffer)).or_default().push(k);
    }
    let mut starts: Vec<usize> = Vec::new();
    for (i, ks) in skeletons
        .iter()
        .enumerate()
        .filter_map(|(i, l)| at.get(l).map(|ks| (i, ks)))
    {
        starts.extend(
            ks.iter()
                .filter_map(|&k| i.checked_sub(k))
                .filter(|&s| s + n <= skeletons.len()),
        );
        if starts.len() > MAX_CONTEXT_STARTS {
            // A file of near-identical lines: every place looks alike, so none is sure.
            return Ok(None);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let (new_lines, _) = split_lines(edit.new);
    let kept = kept_old_lines(old_lines, &new_lines);
    let mut fitting = starts.into_iter().filter(|&start| {
        let lines: Vec<Cow<'_, str>> = (start..start + n)
            .map(|i| normalize(file.line(i), Level::Unicode))
            .collect();
        let equal = with_text.iter().filter(|&&k| lines[k] == wanted[k]).count();
        equal * 2 >= with_text.len()
            && (0..n).all(|k| {
                lines[k] == wanted[k]
                    || (!kept.contains(&k)
                        && !wanted[k].is_empty()
                        && !lines[k].is_empty()
                        && text_similarity(&wanted[k], &lines[k]) >= CONTEXT_LINE_MIN_SIMILARITY)
            })
    });
    let (Some(start), None) = (fitting.next(), fitting.next()) else {
        return Ok(None);
    };
    let window: Vec<&str> = (start..start + n).map(|i| file.line(i)).collect();
    let mut applied = file.splice(&[start], old_lines, old_newline, edit, Level::Unicode)?;
    applied.strategy = Strategy::ContextAware;
    applied.similarity = text_similarity(&old_lines.join("\n"), &window.join("\n"));
    Ok(Some(applied))
}

/// Indices of `old`'s lines that `new` keeps unchanged.
fn kept_old_lines(old_lines: &[&str], new_lines: &[&str]) -> HashSet<usize> {
    super::lines::line_ops(old_lines, new_lines)
        .into_iter()
        .filter(|op| op.tag() == DiffTag::Equal)
        .flat_map(|op| op.old_range())
        .collect()
}

/// The places most like `old`: runs of lines sharing the most of its lines, or, for a
/// one-line `old`, the lines sharing the most of its words.
fn closest(file: &FileLines<'_>, old_lines: &[&str]) -> Vec<Candidate> {
    let wanted: Vec<Cow<'_, str>> = old_lines.iter().map(|l| normalize(l, Level::Unicode)).collect();
    let meaningful = wanted.iter().filter(|l| !l.is_empty()).count();
    let mut found = if meaningful >= 2 {
        closest_blocks(file, &wanted)
    } else {
        let line = wanted.iter().find(|l| !l.is_empty()).map_or("", |l| l.as_ref());
        closest_lines(file, line)
    };
    found.retain(|c| c.similarity >= MIN_CANDIDATE_SIMILARITY);
    found.sort_by(|a, b| {
        b.similarity
            .total_cmp(&a.similarity)
            .then(a.start_line.cmp(&b.start_line))
    });
    found.truncate(MAX_CANDIDATES);
    found
}

fn closest_blocks(file: &FileLines<'_>, wanted: &[Cow<'_, str>]) -> Vec<Candidate> {
    let n = wanted.len().min(file.len());
    if n == 0 {
        return Vec::new();
    }
    let lines = file.skeletons();
    let mut buffer = String::new();
    let wanted_hashes: Vec<u64> = wanted.iter().map(|l| skeleton_hash(l, &mut buffer)).collect();
    let set: HashSet<u64, foldhash::fast::FixedState> = wanted
        .iter()
        .zip(&wanted_hashes)
        .filter(|(l, _)| !l.is_empty())
        .map(|(_, &h)| h)
        .collect();
    let hit: Vec<usize> = lines.iter().map(|l| usize::from(set.contains(l))).collect();
    let mut scores: Vec<(usize, usize)> = Vec::with_capacity(lines.len());
    let mut sum: usize = hit[..n].iter().sum();
    scores.push((sum, 0));
    for i in 1..=lines.len() - n {
        sum = sum + hit[i + n - 1] - hit[i - 1];
        scores.push((sum, i));
    }
    // The best windows that do not overlap, best first (one pass per candidate).
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < MAX_CANDIDATES {
        let best = scores
            .iter()
            .filter(|&&(score, start)| score > 0 && chosen.iter().all(|&c| start + n <= c || c + n <= start))
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        match best {
            Some(&(_, start)) => chosen.push(start),
            None => break,
        }
    }
    chosen
        .into_iter()
        .map(|start| {
            let window = &lines[start..start + n];
            let originals: Vec<&str> = (start..start + n).map(|i| file.line(i)).collect();
            Candidate {
                start_line: start + 1,
                end_line: start + n,
                similarity: line_ratio(&wanted_hashes, window),
                preview: preview(&originals),
                differences: Vec::new(),
            }
        })
        .collect()
}

pub fn closest_lines(file: &FileLines<'_>, wanted: &str) -> Vec<Candidate> {
    let wanted_words: HashSet<String> = words(wanted).map(Cow::into_owned).collect();
    if wanted_words.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, usize)> = (0..file.len())
        .filter_map(|i| {
            let shared = words(file.line(i))
                .filter(|w| wanted_words.contains(w.as_ref()))
                .count();
            (shared > 0).then_some((shared, i))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(MAX_CANDIDATES * 3)
        .map(|(_, i)| Candidate {
            start_line: i + 1,
            end_line: i + 1,
            similarity: text_similarity(wanted, &normalize(file.line(i), Level::Unicode)),
            preview: preview(&[file.line(i)]),
            differences: Vec::new(),
        })
        .collect()
}

fn words(text: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(|w| {
            if w.chars().any(char::is_uppercase) {
                Cow::Owned(w.to_lowercase())
            } else {
                Cow::Borrowed(w)
            }
        })
}

/// Share of lines two runs have in common (2·matches / total), 0–1.
fn line_ratio(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let common = similar::capture_diff_slices(Algorithm::Myers, a, b)
        .into_iter()
        .filter(|op| op.tag() == DiffTag::Equal)
        .map(|op| op.old_range().len())
        .sum::<usize>();
    2.0 * common as f64 / (a.len() + b.len()) as f64
}

fn preview(lines: &[&str]) -> String {
    let mut shown: Vec<String> = lines
        .iter()
        .take(PREVIEW_LINES)
        .map(|l| {
            if l.chars().count() > PREVIEW_WIDTH {
                l.chars().take(PREVIEW_WIDTH).collect::<String>() + "…"
            } else {
                (*l).to_owned()
            }
        })
        .collect();
    if lines.len() > PREVIEW_LINES {
        shown.push("…".to_owned());
    }
    shown.join("\n")
}
