//! Weaving two sides' hunks into one text.
//!
//! Hunks of the patch and of the latest revision are taken in base order. Hunks that do
//! not touch the same base lines both apply; touching ends ("beside") is not touching.
//! Two insertions at the same point both land, the latest revision's first (it was
//! approved first). Only different changes to the same base lines — or an insertion
//! strictly inside lines the other side changed — conflict; identical changes apply
//! once.

use std::ops::Range;

use super::hunks::Hunk;

/// A region both sides changed differently.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Clash<'a> {
    /// The base lines involved.
    pub base: Range<usize>,
    /// The region as the patch has it.
    pub patch: Vec<&'a str>,
    /// The region as the latest revision has it.
    pub latest: Vec<&'a str>,
}

/// One piece of the woven result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// Lines that are settled.
    Lines(Vec<&'a str>),
    /// A clash (index into [`Woven::clashes`]).
    Clash(usize),
}

/// The woven result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Woven<'a> {
    /// The result in order, clashes in place.
    pub pieces: Vec<Piece<'a>>,
    /// The clashes.
    pub clashes: Vec<Clash<'a>>,
    /// Points where both sides inserted different lines and both were kept.
    pub shared_insertions: usize,
    /// Changes of the patch that sit right beside a change of the latest revision.
    pub beside: usize,
    /// Regions both sides changed identically (applied once): the base lines and what
    /// both made of them.
    pub agreed: Vec<(Range<usize>, Vec<&'a str>)>,
}

impl<'a> Woven<'a> {
    fn push_lines(&mut self, lines: &[&'a str]) {
        if lines.is_empty() {
            return;
        }
        if let Some(Piece::Lines(last)) = self.pieces.last_mut() {
            last.extend_from_slice(lines);
        } else {
            self.pieces.push(Piece::Lines(lines.to_vec()));
        }
    }
}

/// Whether two spans (`start == end`: an insertion point) touch the same base lines.
/// `a_ends_in_deletion`: the lines of `a` up to its end were removed (not rewritten) by the
/// side that changed them — an insertion right after them lost the lines it followed (a
/// lesson added to a section the other side deleted), so it is not "beside" but inside.
fn interacts(a: &Range<usize>, a_ends_in_deletion: bool, b: &Range<usize>) -> bool {
    if a_ends_in_deletion && !a.is_empty() && b.is_empty() && b.start == a.end {
        return true;
    }
    match (a.is_empty(), b.is_empty()) {
        (true, true) => a.start == b.start,
        (true, false) => b.start < a.start && a.start < b.end,
        (false, true) => a.start < b.start && b.start < a.end,
        (false, false) => a.start < b.end && b.start < a.end,
    }
}

/// The order hunks are taken in: by start, an insertion before a range starting there.
fn key(h: &Hunk<'_>) -> (usize, bool) {
    (h.start, !h.is_insertion())
}

/// Weaves `patch` and `latest` (both in base order, as [`super::hunks::hunks`] gives them)
/// over `base`.
pub(crate) fn weave<'a>(base: &[&'a str], patch: &[Hunk<'a>], latest: &[Hunk<'a>]) -> Woven<'a> {
    let mut woven = Woven::default();
    let (mut p, mut l) = (0, 0);
    let mut done = 0;
    while p < patch.len() || l < latest.len() {
        let take_patch = match (patch.get(p), latest.get(l)) {
            (Some(a), Some(b)) => key(a) <= key(b),
            (Some(_), None) => true,
            _ => false,
        };
        let first = if take_patch { &patch[p] } else { &latest[l] };
        let mut span = first.start..first.end;
        let mut ends_in_deletion = is_deletion(first);
        let (from_p, from_l) = (p, l);
        if take_patch {
            p += 1;
        } else {
            l += 1;
        }
        // Gather every hunk of either side that touches the growing span.
        loop {
            let touching = |h: &&Hunk<'_>| interacts(&span, ends_in_deletion, &(h.start..h.end));
            let next = if let Some(h) = patch.get(p).filter(touching) {
                p += 1;
                h
            } else if let Some(h) = latest.get(l).filter(touching) {
                l += 1;
                h
            } else {
                break;
            };
            if next.end > span.end {
                ends_in_deletion = is_deletion(next);
            } else if next.end == span.end && !next.is_insertion() {
                ends_in_deletion |= is_deletion(next);
            } else if next.is_insertion() && next.start == span.end {
                ends_in_deletion = false;
            }
            span = span.start.min(next.start)..span.end.max(next.end);
        }
        woven.push_lines(&base[done..span.start]);
        let (ours, theirs) = (&patch[from_p..p], &latest[from_l..l]);
        match (ours.is_empty(), theirs.is_empty()) {
            (false, true) => woven.push_lines(&render(base, &span, ours)),
            (true, false) => woven.push_lines(&render(base, &span, theirs)),
            _ => resolve(&mut woven, base, span.clone(), ours, theirs),
        }
        if !ours.is_empty() && theirs.is_empty() && touches_other(&span, latest, from_l) {
            woven.beside += 1;
        }
        done = span.end;
    }
    woven.push_lines(&base[done..]);
    woven
}

/// Whether a change of the patch at `span` sits right beside one of the latest revision.
fn touches_other(span: &Range<usize>, latest: &[Hunk<'_>], next: usize) -> bool {
    let beside = |h: &Hunk<'_>| h.end == span.start || h.start == span.end;
    next.checked_sub(1).and_then(|i| latest.get(i)).is_some_and(beside) || latest.get(next).is_some_and(beside)
}

/// Both sides changed `span`.
fn resolve<'a>(woven: &mut Woven<'a>, base: &[&'a str], span: Range<usize>, ours: &[Hunk<'a>], theirs: &[Hunk<'a>]) {
    let mine = render(base, &span, ours);
    let other = render(base, &span, theirs);
    if mine == other {
        woven.push_lines(&mine);
        woven.agreed.push((span, mine));
    } else if span.is_empty() && contains(&other, &mine) {
        // The latest already inserted these lines among others (the patch's own lesson,
        // published meanwhile, or the same lines reported twice): once.
        woven.push_lines(&other);
        woven.agreed.push((span, mine));
    } else if span.is_empty() && contains(&mine, &other) {
        woven.push_lines(&mine);
        woven.agreed.push((span, other));
    } else if span.is_empty() {
        // Two insertions at one point: both, in approval order (the latest revision's
        // first) — unless only the latest's opens a new section: then the patch's lines
        // still belong to the section above and go before it.
        woven.shared_insertions += 1;
        if opens_section(&other) && !opens_section(&mine) {
            woven.push_lines(&mine);
            woven.push_lines(&other);
        } else {
            woven.push_lines(&other);
            woven.push_lines(&mine);
        }
    } else {
        woven.pieces.push(Piece::Clash(woven.clashes.len()));
        woven.clashes.push(Clash {
            base: span,
            patch: mine,
            latest: other,
        });
    }
}

/// Whether `inner` (with some text, not only blank lines) occurs in `outer` as
/// consecutive lines.
fn contains(outer: &[&str], inner: &[&str]) -> bool {
    inner.iter().any(|l| !l.trim().is_empty()) && outer.windows(inner.len()).any(|w| w == inner)
}

/// Whether a hunk removes base lines and puts nothing in their place.
fn is_deletion(h: &Hunk<'_>) -> bool {
    !h.is_insertion() && h.lines.is_empty()
}

/// Whether inserted lines start a new Markdown section: their first non-blank line is an
/// ATX heading (`#` to `######` followed by a space, indented at most three spaces).
fn opens_section(lines: &[&str]) -> bool {
    let Some(first) = lines.iter().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    let indent = first.len() - first.trim_start_matches(' ').len();
    let rest = first.trim_start_matches(' ');
    let hashes = rest.len() - rest.trim_start_matches('#').len();
    indent <= 3 && (1..=6).contains(&hashes) && rest[hashes..].starts_with([' ', '\t', '\r'])
        || indent <= 3 && (1..=6).contains(&hashes) && rest.len() == hashes
}

/// The base lines of `span` with `hunks` (all inside it) applied.
fn render<'a>(base: &[&'a str], span: &Range<usize>, hunks: &[Hunk<'a>]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut at = span.start;
    for h in hunks {
        out.extend_from_slice(&base[at..h.start]);
        out.extend_from_slice(&h.lines);
        at = h.end;
    }
    out.extend_from_slice(&base[at..span.end]);
    out
}
