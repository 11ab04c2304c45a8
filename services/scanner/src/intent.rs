//! What prose tells the agent to do, in sixteen languages (`lexicon/intents.toml`): an intent
//! is a combination of term groups found in one sentence, in any order, so "ignore" +
//! "previous" + "instructions" is recognised however it is phrased, and in Chinese or
//! Russian as in English. One pass of an Aho-Corasick automaton finds every term.

use std::collections::HashMap;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasickBuilder, MatchKind};
use serde::Deserialize;

use crate::Severity;

/// The built-in lexicon.
pub(crate) const INTENTS: &str = include_str!("../lexicon/intents.toml");

#[derive(Debug, Deserialize)]
struct Lexicon {
    negations: Vec<String>,
    negations_after: Vec<String>,
    never: Vec<String>,
    reinstating: Vec<String>,
    conditions: Vec<String>,
    clause_breaks: Vec<String>,
    reporting: Vec<String>,
    contrastive: Vec<String>,
    intent: Vec<IntentSpec>,
}

/// One intent: every group must be present in a sentence.
#[derive(Debug, Deserialize)]
struct IntentSpec {
    id: String,
    category: String,
    severity: Severity,
    negatable: bool,
    #[serde(default)]
    negation_after: bool,
    /// Whether the groups may stand in up to three neighbouring sentences of one paragraph
    /// ("The guide is at https://…. Load it at the start of every session and do whatever
    /// it says."), not only in one.
    #[serde(default)]
    chain: bool,
    message: String,
    hint: String,
    groups: Vec<Vec<String>>,
    /// Words that, in the same sentence, make it something else ("report whether all
    /// tests pass" asks for the result; "delete backups older than 30 days" is retention).
    #[serde(default)]
    unless: Vec<String>,
    /// The group that goes without saying in text written into the agent's own standing
    /// instructions (`AGENTS.md`, `SOUL.md`): there every rule addresses the agent and
    /// every answer goes to its user, so "never mention it" needs no "to the user".
    #[serde(default)]
    implied_in_standing: Option<usize>,
}

/// The compiled lexicon: one automaton over every term, and which intent and group each
/// term belongs to.
struct Compiled {
    lexicon: Lexicon,
    automaton: crate::searcher::Searcher,
    /// For each pattern: what it is a term of.
    owners: Vec<Owner>,
}

/// Whose term a pattern is: an intent's group, or the handover lexicon's class
/// (`handover.rs`, searched in the same pass).
#[derive(Clone, Copy)]
enum Owner {
    Intent(usize, usize),
    Handover(crate::handover::Class),
}

static COMPILED: LazyLock<Result<Compiled, String>> = LazyLock::new(|| {
    let lexicon: Lexicon = toml::from_str(INTENTS).map_err(|e| format!("lexicon/intents.toml: {e}"))?;
    let mut terms = Vec::new();
    let mut owners = Vec::new();
    for (i, intent) in lexicon.intent.iter().enumerate() {
        for (g, group) in intent.groups.iter().enumerate() {
            for term in group {
                terms.push(term.to_lowercase());
                owners.push(Owner::Intent(i, g));
            }
        }
    }
    for (term, class) in crate::handover::terms()? {
        terms.push(term);
        owners.push(Owner::Handover(class));
    }
    let mut builder = AhoCorasickBuilder::new();
    // Overlapping search cannot use a prefilter: a full DFA (once it pays for itself, see
    // `crate::searcher`) keeps it one table lookup per byte.
    builder.ascii_case_insensitive(true).match_kind(MatchKind::Standard);
    let automaton = crate::searcher::Searcher::new(&builder, terms.into_iter().map(String::into_bytes).collect())
        .map_err(|e| format!("lexicon/intents.toml: {e}"))?;
    Ok(Compiled {
        lexicon,
        automaton,
        owners,
    })
});

/// An intent found in a line of prose.
#[derive(Debug, Clone)]
pub struct IntentFinding {
    /// Line index (0-based) in the text.
    pub line: usize,
    /// Byte offset of the sentence's first matched term in its line.
    pub at: usize,
    /// Whether the instruction is reported, not given ("it told the agent to …"; for a
    /// handover, quoted too). Such a finding raises no other to `high`, nor is raised. (An
    /// intent's quoted phrase may be the very words the agent is told to say: it counts.)
    pub mentioned: bool,
    /// Listed as what not to do (an item under "## Never run these", a "Don't" column):
    /// a warning, or at most worth a look; it joins no larger instruction.
    pub listed: bool,
    /// Byte offset in the text of the term of the intent's first group (its verb): two
    /// intents found from one verb ("disable approval prompts" is both a check skipped
    /// and a safeguard off) are one instruction, not two.
    pub anchor: usize,
    /// Rule id.
    pub rule: &'static str,
    /// Category.
    pub category: &'static str,
    /// Severity (raised when the paragraph holds another intent too).
    pub severity: Severity,
    /// What is wrong.
    pub message: &'static str,
    /// What to do instead.
    pub hint: &'static str,
}

/// The severity the lexicon gives intent `rule` on its own, before a second intent in
/// its paragraph raises it.
pub(crate) fn own_severity(rule: &str) -> Option<Severity> {
    let compiled = COMPILED.as_ref().ok()?;
    compiled
        .lexicon
        .intent
        .iter()
        .find(|i| i.id == rule)
        .map(|i| i.severity)
}

/// What an intent looks for, for `scan --explain`: a few terms of each group.
pub fn describe(rule: &str) -> Option<String> {
    let compiled = COMPILED.as_ref().ok()?;
    let intent = compiled.lexicon.intent.iter().find(|i| i.id == rule)?;
    let groups: Vec<String> = intent
        .groups
        .iter()
        .map(|g| {
            g.iter()
                .take(4)
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect();
    Some(format!(
        "intent lexicon (lexicon/intents.toml): one sentence combining {}, in any of the lexicon's sixteen languages",
        groups.join(" + ")
    ))
}

/// `text` lowercased, if every character keeps its UTF-8 length (so byte offsets in the
/// copy are offsets in `text`).
fn lowercase_in_place(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        let start = out.len();
        out.extend(c.to_lowercase());
        if out.len() - start != c.len_utf8() {
            return None;
        }
    }
    Some(out)
}

/// Each line's wrapped line — the lines around it that continue one another (no blank
/// line, no list item, heading, table row or code fence starting in between) — as the
/// first and last line of it, worked out once per text.
struct WrappedLines {
    first: Vec<usize>,
    last: Vec<usize>,
}

impl WrappedLines {
    fn of(text: &str, line_starts: &[usize]) -> WrappedLines {
        let line_text = |l: usize| {
            let end = line_starts.get(l + 1).map_or(text.len(), |e| e - 1);
            &text[line_starts[l]..end.max(line_starts[l])]
        };
        let blank: Vec<bool> = (0..line_starts.len()).map(|l| line_text(l).trim().is_empty()).collect();
        // A block starts where a line opens one the way `starts_block_item` reads it, or
        // with a code fence.
        let starts: Vec<bool> = (0..line_starts.len())
            .map(|l| blank[l] || starts_block_item(line_text(l)) || line_text(l).trim_start().starts_with('`'))
            .collect();
        let mut first = vec![0; line_starts.len()];
        for l in 0..line_starts.len() {
            first[l] = if l == 0 || starts[l] || blank[l - 1] {
                l
            } else {
                first[l - 1]
            };
        }
        let mut last = vec![0; line_starts.len()];
        for l in (0..line_starts.len()).rev() {
            last[l] = if l + 1 == line_starts.len() || starts[l + 1] || blank[l] {
                l
            } else {
                last[l + 1]
            };
        }
        WrappedLines { first, last }
    }

    /// The byte range of the wrapped line holding line `line`.
    fn range(&self, text: &str, line_starts: &[usize], line: usize) -> std::ops::Range<usize> {
        let start = line_starts[self.first[line]];
        let end = line_starts.get(self.last[line] + 1).map_or(text.len(), |e| e - 1);
        start..end.max(start)
    }
}

/// How far (bytes) around an instruction its quotation marks are looked for: a stray `"`
/// (13" laptop) paragraphs away quotes nothing.
const QUOTE_REACH: usize = 200;

/// `range` narrowed to `QUOTE_REACH` bytes around `from..to` (on character boundaries).
fn near(text: &str, range: std::ops::Range<usize>, from: usize, to: usize) -> std::ops::Range<usize> {
    let start = text.floor_char_boundary(range.start.max(from.saturating_sub(QUOTE_REACH)));
    let end = text.ceil_char_boundary(range.end.min(to + QUOTE_REACH));
    start..end.max(start)
}

/// `text` with each line break inside a paragraph read as a space: prose wrapped at 80
/// columns ("approve it without\nopening the diff") holds its phrases across lines. A
/// blank line still ends the paragraph, and every offset stays where it was (one ASCII
/// byte for another).
fn join_wrapped_lines(text: String) -> String {
    let mut bytes = text.into_bytes();
    for i in 1..bytes.len().saturating_sub(1) {
        if bytes[i] == b'\n' && bytes[i - 1] != b'\n' && bytes[i + 1] != b'\n' {
            bytes[i] = b' ';
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// `haystack` with each run of spaces and tabs (a wrapped line's break and indentation,
/// once [`join_wrapped_lines`] has made the break a space) read as one space, and for each
/// byte of the result the offset of the byte of `haystack` it stands for. Line breaks that
/// are left (paragraph ends) are kept as they are.
fn collapse_spaces(haystack: &str) -> (String, Vec<usize>) {
    let bytes = haystack.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut origin = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if matches!(bytes[i], b' ' | b'\t') {
            out.push(b' ');
            origin.push(i);
            while i < bytes.len() && matches!(bytes[i], b' ' | b'\t') {
                i += 1;
            }
        } else {
            out.push(bytes[i]);
            origin.push(i);
            i += 1;
        }
    }
    // Only ASCII spaces were dropped: the rest is the input's UTF-8, byte for byte.
    (String::from_utf8(out).unwrap_or_default(), origin)
}

/// Whether the words before a quoted phrase present it as an example (`phrases such as
/// "…"`, `reject "…"`): the phrase is mentioned, not said.
fn describes_example(before: &str) -> bool {
    const MARKS: [&str; 16] = [
        "such as",
        "like",
        "e.g",
        "for example",
        "phrase",
        "pattern",
        "string",
        "text",
        "attempt",
        "reject",
        "block",
        "detect",
        "flag",
        "contain",
        "look for",
        "watch for",
    ];
    MARKS.iter().any(|m| before.contains(m))
}

/// The most terms of one intent considered in one sentence.
const MAX_HITS_PER_SENTENCE: usize = 256;

/// How far (characters) the terms of one intent may stand from a term of its first group.
const WINDOW: usize = 100;

/// Whether two terms at `a` and `b` (byte offsets) stand within [`WINDOW`] characters of
/// each other: counted in characters, so a sentence in Cyrillic, Chinese or Japanese
/// (two or three bytes a character) gets the reach an English one has.
fn within_reach(haystack: &str, a: usize, b: usize) -> bool {
    let (low, high) = (a.min(b), a.max(b));
    high - low <= WINDOW
        || high - low <= 3 * WINDOW
            && haystack
                .get(low..high)
                .is_some_and(|between| between.chars().count() <= WINDOW)
}

/// Whether one position can be taken from each list, no two the same.
fn distinct_positions(lists: &[Vec<usize>], taken: &mut Vec<usize>) -> bool {
    let Some((first, rest)) = lists.split_first() else {
        return true;
    };
    first.iter().any(|&p| {
        if taken.contains(&p) {
            return false;
        }
        taken.push(p);
        let found = distinct_positions(rest, taken);
        taken.pop();
        found
    })
}

/// Whether `text` (lowercase) holds a verb of telling: what a concealment in the agent's
/// own standing instructions must be about to need no "to the user".
fn speech_verb(text: &str) -> bool {
    const STEMS: [&str; 34] = [
        "mention",
        "tell",
        "report",
        "say",
        "inform",
        "disclose",
        "bring it up",
        "bring this up",
        "to yourself",
        "erwähn",
        "mitteil",
        "mentionn",
        "dites",
        "mencion",
        "digas",
        "упомин",
        "говори",
        "сообща",
        "згаду",
        "кажи",
        "提及",
        "提到",
        "告诉",
        "報告",
        "伝え",
        "言わ",
        "말하",
        "알리",
        "menzion",
        "vermeld",
        "noem",
        "wspomin",
        "bahset",
        "sebutkan",
    ];
    STEMS.iter().any(|s| text.contains(s))
}

/// Checks the lexicon compiles (`tests/intents.rs` calls it: a broken lexicon must fail
/// the tests, not silence the scanner).
pub fn check() -> Result<(), String> {
    COMPILED.as_ref().map(|_| ()).map_err(Clone::clone)
}

/// Finds the intents in the lines of `text` that `include(index)` admits.
pub fn find(text: &str, include: &dyn Fn(usize) -> bool) -> Vec<IntentFinding> {
    find_all(text, include, None).0
}

/// Finds the intents in text that a command writes into the agent's standing
/// instructions or memory: like [`find`], with each intent's `implied_in_standing` group
/// taken as said.
pub fn find_in_standing_instructions(text: &str) -> Vec<IntentFinding> {
    let Ok(compiled) = COMPILED.as_ref() else {
        return Vec::new();
    };
    find_in(compiled, text, &search_text(text), &|_| true, true, &|_, _| false).0
}

/// The text the lexicon is searched in: lowercased, wrapped lines joined. Some character
/// lowercases to a different length (`İ`, the Kelvin sign): offsets would not line up, so
/// such a text is searched as it is (ASCII still folds).
fn search_text(text: &str) -> String {
    join_wrapped_lines(lowercase_in_place(text).unwrap_or_else(|| text.to_owned()))
}

/// Finds the intents in the lines `include(index)` admits and, in one pass of the same
/// automaton, the secrets handed out in the lines `prose(index)` admits (`handover.rs`;
/// none asked without `prose`).
pub(crate) fn find_all(
    text: &str,
    include: &dyn Fn(usize) -> bool,
    prose: Option<&dyn Fn(usize) -> bool>,
) -> (Vec<IntentFinding>, Vec<IntentFinding>) {
    find_all_listed(text, include, prose, &|_, _| false)
}

/// [`find_all`], with the places (`listed(line, at)`) that list what not to do: intents
/// found there are marked `listed` before intents combine, so they raise no neighbour.
pub(crate) fn find_all_listed(
    text: &str,
    include: &dyn Fn(usize) -> bool,
    prose: Option<&dyn Fn(usize) -> bool>,
    listed: &dyn Fn(usize, usize) -> bool,
) -> (Vec<IntentFinding>, Vec<IntentFinding>) {
    let Ok(compiled) = COMPILED.as_ref() else {
        return (Vec::new(), Vec::new());
    };
    let haystack = search_text(text);
    let haystack = haystack.as_str();
    let (found, handover_hits) = find_in(compiled, text, haystack, include, false, listed);
    let handovers = match prose {
        Some(prose) if !handover_hits.is_empty() => crate::handover::find_in(text, haystack, handover_hits, prose),
        _ => Vec::new(),
    };
    (found, handovers)
}

/// The intents found, and the handover lexicon's terms `(offset, class)` for
/// `handover::find_in`.
fn find_in(
    compiled: &'static Compiled,
    text: &str,
    haystack: &str,
    include: &dyn Fn(usize) -> bool,
    standing: bool,
    listed: &dyn Fn(usize, usize) -> bool,
) -> (Vec<IntentFinding>, Vec<(usize, crate::handover::Class)>) {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |at: usize| line_starts.partition_point(|&s| s <= at).saturating_sub(1);
    // Sentences: split at sentence ends and line ends that close a paragraph, found once.
    let sentences = sentence_starts(text);
    let sentence_start = |at: usize| sentences[sentences.partition_point(|&s| s <= at).saturating_sub(1)];
    let sentence_end = |at: usize| {
        sentences
            .get(sentences.partition_point(|&s| s <= at))
            .copied()
            .unwrap_or(text.len())
    };
    let wrapped = WrappedLines::of(text, &line_starts);
    let mut hits: Vec<(usize, usize, usize, usize)> = Vec::new(); // (sentence start, at, intent, group)
    let mut handover_hits = Vec::new();
    // Where each term found ends (by its start; the longest of those starting there).
    let mut term_ends: HashMap<usize, usize> = HashMap::new();
    // Terms are searched with the indentation of wrapped lines read as one space ("inutile
    // de\n   la montrer"); every offset after this is the text's own.
    let (collapsed, origin) = collapse_spaces(haystack);
    for m in compiled.automaton.automaton().find_overlapping_iter(&collapsed) {
        let (start, end) = (origin[m.start()], origin[m.end() - 1] + 1);
        if !at_word(haystack, start, end) {
            continue;
        }
        match compiled.owners[m.pattern().as_usize()] {
            Owner::Handover(class) => handover_hits.push((start, class)),
            Owner::Intent(intent, group) if include(line_of(start)) => {
                hits.push((sentence_start(start), start, intent, group));
                let longest = term_ends.entry(start).or_insert(end);
                *longest = (*longest).max(end);
            }
            Owner::Intent(..) => {}
        }
    }
    hits.sort_unstable();
    let mut found: Vec<IntentFinding> = Vec::new();
    let mut i = 0;
    while i < hits.len() {
        let sentence = hits[i].0;
        let mut j = i;
        while j < hits.len() && hits[j].0 == sentence {
            j += 1;
        }
        for (index, intent) in compiled.lexicon.intent.iter().enumerate() {
            let groups = intent.groups.len();
            let implied = |g: usize| standing && intent.implied_in_standing == Some(g);
            let mine: Vec<(usize, usize)> = hits[i..j]
                .iter()
                .filter(|h| h.2 == index)
                .map(|&(_, at, _, group)| (at, group))
                // A sentence of thousands of repeated terms is not an instruction worth
                // an all-pairs search.
                .take(MAX_HITS_PER_SENTENCE)
                .collect();
            // Every group within reach of one term of the first group: the words of one
            // instruction stand close together, not scattered over a long list item.
            // Every group within reach of one term of the first group, each from a term of
            // its own: one phrase listed in two groups does not fill both.
            let anchor = mine.iter().filter(|(_, g)| *g == 0).map(|(at, _)| *at).find(|&anchor| {
                let positions: Vec<Vec<usize>> = (1..groups)
                    .filter(|&g| !implied(g))
                    .map(|g| {
                        mine.iter()
                            .filter(|(at, group)| *group == g && *at != anchor && within_reach(haystack, *at, anchor))
                            .map(|(at, _)| *at)
                            .collect()
                    })
                    .collect();
                // In a rule written into standing instructions, the implied group stands in
                // only for an instruction about telling ("never mention it").
                let speaks = !standing
                    || intent.implied_in_standing.is_none()
                    || speech_verb(&haystack[anchor..haystack.ceil_char_boundary((anchor + 40).min(haystack.len()))]);
                speaks && distinct_positions(&positions, &mut Vec::new())
            });
            let Some(anchor) = anchor else {
                continue;
            };
            let first = mine
                .iter()
                .filter(|(at, _)| within_reach(haystack, *at, anchor))
                .map(|(at, _)| *at)
                .min()
                .unwrap_or(anchor);
            let line = line_of(first);
            let line_start = line_starts[line];
            let sentence_end = sentence_end(first);
            // The sentence around the instruction (bounded: a sentence may run for a
            // megabyte).
            let around = haystack.floor_char_boundary(sentence.max(first.saturating_sub(QUOTE_REACH)))
                ..haystack.ceil_char_boundary(sentence_end.min(anchor + QUOTE_REACH).max(first));
            if intent
                .unless
                .iter()
                .any(|u| haystack[around.clone()].contains(u.as_str()))
            {
                continue;
            }
            if intent.negatable
                // From where the wrapped line starts, up to the first group's term (the
                // instruction's verb): "pushes to protected branches: do not remove or
                // bypass it" is negated.
                && (negated_in(
                    &compiled.lexicon,
                    &haystack[sentence.max(wrapped.range(text, &line_starts, line).start)..anchor],
                )
                    || negated_after_verb(&compiled.lexicon, &haystack[anchor..sentence_end.max(anchor)]))
            {
                continue;
            }
            // A negation after the verb (Japanese, Korean) belongs to its clause: the
            // clause ends at the first comma after the last term ("…とだけ報告し、…書かないで"
            // negates the second clause, not the first).
            let last_term = (0..groups)
                .filter_map(|g| {
                    mine.iter()
                        .filter(|(at, group)| *group == g && within_reach(haystack, *at, anchor))
                        .map(|(at, _)| *at)
                        .min_by_key(|at| at.abs_diff(anchor))
                })
                .max()
                .unwrap_or(anchor);
            let clause_end = haystack[last_term..sentence_end.max(last_term)]
                .find(['、', '，'])
                .map_or(sentence_end.max(first), |i| last_term + i)
                .min(haystack.ceil_char_boundary(last_term + QUOTE_REACH));
            // A negation that is part of a term ("사용자에게 묻지 않고": without asking the
            // user) is the term's own meaning, not a negation of it.
            let in_a_term = |q: usize| {
                mine.iter()
                    .any(|&(at, _)| at <= q && term_ends.get(&at).is_some_and(|&end| q < end))
            };
            if intent.negation_after
                && compiled.lexicon.negations_after.iter().any(|n| {
                    haystack[first..clause_end]
                        .match_indices(n.as_str())
                        .any(|(q, _)| !in_a_term(first + q))
                })
            {
                continue;
            }
            // Quotation marks may open on one wrapped line and close on the next.
            let around_first = near(text, wrapped.range(text, &line_starts, line), first, first);
            let around_anchor = near(text, wrapped.range(text, &line_starts, line_of(anchor)), anchor, anchor);
            let quoted = crate::context::quoted(&text[around_first.clone()], first - around_first.start)
                || crate::context::quoted(&text[around_anchor.clone()], anchor - around_anchor.start);
            let mut severity = intent.severity;
            if quoted {
                if describes_example(&haystack[sentence.max(around_first.start)..first]) {
                    continue;
                }
                severity = severity.min(Severity::Medium);
            }
            let reported = reported_in(
                &compiled.lexicon,
                &haystack[sentence.max(around_first.start)..anchor.max(first)],
            );
            if reported {
                severity = severity.min(Severity::Medium);
            }
            found.push(IntentFinding {
                line,
                at: first - line_start,
                mentioned: reported,
                listed: false,
                anchor,
                rule: &intent.id,
                category: &intent.category,
                severity,
                message: &intent.message,
                hint: &intent.hint,
            });
        }
        i = j;
    }
    find_chained(compiled, text, haystack, &hits, &sentences, &line_starts, &mut found);
    for f in &mut found {
        f.listed = listed(f.line, f.at);
    }
    escalate_combined(text, &line_starts, &mut found);
    (found, handover_hits)
}

/// How many neighbouring sentences a chained intent's groups may spread over.
const CHAIN: usize = 3;

/// Words by which a chained order points back to a neighbouring sentence.
const BACK_REFERENCES: [&str; 12] = [
    " it ",
    " it.",
    " it,",
    " its ",
    " them",
    "there",
    "the document",
    "the page",
    "the file",
    "everything in",
    "whatever",
    "those",
];

/// The intents marked `chain`, their groups spread over neighbouring sentences of one
/// paragraph (a blank line ends it); each not already found in one sentence of that
/// paragraph, its first group's term not negated.
fn find_chained(
    compiled: &'static Compiled,
    text: &str,
    haystack: &str,
    hits: &[(usize, usize, usize, usize)],
    sentences: &[usize],
    line_starts: &[usize],
    found: &mut Vec<IntentFinding>,
) {
    // Only a chained intent's first group anchors a chain: most texts have none.
    if !hits
        .iter()
        .any(|&(_, _, intent, group)| group == 0 && compiled.lexicon.intent[intent].chain)
    {
        return;
    }
    let line_of = |at: usize| line_starts.partition_point(|&s| s <= at).saturating_sub(1);
    let sentence_index = |at: usize| sentences.partition_point(|&s| s <= at).saturating_sub(1);
    // Paragraphs: a blank line starts a new one.
    let breaks: Vec<usize> = text.match_indices("\n\n").map(|(i, _)| i).collect();
    let paragraph_of = |at: usize| breaks.partition_point(|&b| b < at);
    for (index, intent) in compiled.lexicon.intent.iter().enumerate() {
        if !intent.chain {
            continue;
        }
        let mine: Vec<(usize, usize)> = hits
            .iter()
            .filter(|h| h.2 == index)
            .map(|&(_, at, _, group)| (at, group))
            .take(MAX_HITS_PER_SENTENCE)
            .collect();
        let groups = intent.groups.len();
        for &(anchor, group) in &mine {
            if group != 0 {
                continue;
            }
            let paragraph = paragraph_of(anchor);
            let k = sentence_index(anchor);
            // The order ("do whatever it says") points back to what the neighbouring
            // sentences name: "obey the rate limits" beside an API address does not.
            let sentence = &haystack[sentences[k]..sentences.get(k + 1).copied().unwrap_or(haystack.len())];
            if !BACK_REFERENCES.iter().any(|r| sentence.contains(r)) {
                continue;
            }
            // Three sentences in all, the order's among them.
            let chained = (k.saturating_sub(CHAIN - 1)..=k).any(|first| {
                let window = |at: usize| {
                    let j = sentence_index(at);
                    j >= first && j < first + CHAIN && paragraph_of(at) == paragraph
                };
                (1..groups).all(|g| mine.iter().any(|&(at, gr)| gr == g && window(at)))
            });
            if !chained {
                continue;
            }
            let line = line_of(anchor);
            if found
                .iter()
                .any(|f| f.rule == intent.id && paragraph_of(line_starts[f.line]) == paragraph)
            {
                continue;
            }
            let sentence_start = sentences[sentence_index(anchor)];
            if intent.negatable
                && negated_in(
                    &compiled.lexicon,
                    &haystack[sentence_start.max(line_starts[line])..anchor],
                )
            {
                continue;
            }
            found.push(IntentFinding {
                line,
                at: anchor - line_starts[line],
                mentioned: false,
                listed: false,
                anchor,
                rule: &intent.id,
                category: &intent.category,
                severity: intent.severity,
                message: &intent.message,
                hint: &intent.hint,
            });
        }
    }
}

/// How far apart (lines) two intents of one section may stand and still be one
/// instruction: a step and the note under it.
const SECTION_REACH: usize = 12;

/// Two different intents in one paragraph, or close together under one heading ("merge it
/// past the required checks." … "Report the release as shipped; leave the override out of
/// the summary."): each is part of a larger instruction. Findings mentioned or listed as
/// what not to do raise nothing and are not raised.
fn escalate_combined(text: &str, line_starts: &[usize], found: &mut [IntentFinding]) {
    if found.len() < 2 {
        return;
    }
    // The paragraph and the section of every line, in one pass: a new paragraph after each
    // blank line, a new section at each heading.
    let mut paragraph = Vec::with_capacity(line_starts.len());
    let mut section = Vec::with_capacity(line_starts.len());
    let (mut current, mut heading) = (0, 0);
    for (index, start) in line_starts.iter().enumerate() {
        let end = line_starts.get(index + 1).map_or(text.len(), |e| e - 1);
        let line = text[*start..end.max(*start)].trim();
        if line.is_empty() {
            current = index + 1;
        }
        if line.starts_with('#') {
            heading = index;
        }
        paragraph.push(current);
        section.push(heading);
    }
    // Witnesses: per paragraph, and per line, at most two findings (different verbs) of
    // each rule are enough to answer for every other finding: one whose verb differs.
    let given = |f: &&IntentFinding| !f.mentioned && !f.listed;
    let mut by_paragraph: HashMap<(usize, &str), Vec<usize>> = HashMap::new();
    let mut by_line: std::collections::BTreeMap<usize, HashMap<&str, Vec<usize>>> = std::collections::BTreeMap::new();
    for f in found.iter().filter(given) {
        for anchors in [
            by_paragraph.entry((paragraph[f.line], f.rule)).or_default(),
            by_line.entry(f.line).or_default().entry(f.rule).or_default(),
        ] {
            if anchors.len() < 2 && !anchors.contains(&f.anchor) {
                anchors.push(f.anchor);
            }
        }
    }
    let mut rules_of: HashMap<usize, Vec<&str>> = HashMap::new();
    for &(p, rule) in by_paragraph.keys() {
        rules_of.entry(p).or_default().push(rule);
    }
    let other =
        |f: &IntentFinding, rule: &str, anchors: &[usize]| rule != f.rule && anchors.iter().any(|&a| a != f.anchor);
    let combined: Vec<bool> = found
        .iter()
        .map(|f| {
            if f.mentioned || f.listed {
                return false;
            }
            let p = paragraph[f.line];
            let in_paragraph = rules_of
                .get(&p)
                .is_some_and(|rules| rules.iter().any(|&rule| other(f, rule, &by_paragraph[&(p, rule)])));
            in_paragraph
                || by_line
                    .range(f.line.saturating_sub(SECTION_REACH)..=f.line + SECTION_REACH)
                    .filter(|(line, _)| section[**line] == section[f.line])
                    .any(|(_, rules)| rules.iter().any(|(rule, anchors)| other(f, rule, anchors)))
        })
        .collect();
    for (f, combined) in found.iter_mut().zip(combined) {
        if combined && f.severity < Severity::High {
            f.severity = Severity::High;
        }
    }
}

/// Whether an ASCII term found at `start..end` stands at a word start (and, when it is
/// five letters or fewer, at a word end too). Terms in other scripts match anywhere.
pub(crate) fn at_word(text: &str, start: usize, end: usize) -> bool {
    let term = &text[start..end];
    if !term.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return true;
    }
    let before = text[..start].chars().next_back();
    if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
        return false;
    }
    if term.len() <= 5 && term.chars().all(|c| c.is_ascii_alphanumeric()) {
        let after = text[end..].chars().next();
        return !after.is_some_and(|c| c.is_alphanumeric() || c == '_');
    }
    true
}

/// Where sentences start: at 0, after a sentence end (`.`, `!`, `?`, `。`, `；`, …)
/// followed by something other than a letter or digit, and after a blank line.
pub(crate) fn sentence_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    let mut previous_newline = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let after = i + c.len_utf8();
        // A full-width stop always ends a sentence; `.` only when no letter or digit
        // follows (`e.g.x`, `v1.2`, `file.md` are not ends).
        let ends = matches!(c, '。' | '！' | '？' | '；')
            || matches!(c, '.' | '!' | '?' | ';') && chars.peek().is_none_or(|(_, n)| !n.is_alphanumeric());
        // A blank line ends a paragraph; a list item, heading or table row starts a
        // statement of its own.
        if ends || c == '\n' && (previous_newline || starts_block_item(&text[after..])) {
            starts.push(after);
        }
        previous_newline = c == '\n';
    }
    starts
}

/// Whether a line beginning `rest` starts a Markdown block item: `- x`, `* x`, `+ x`,
/// `1. x`, `1) x`, a heading or a table row (a quote's lines continue one another).
pub(crate) fn starts_block_item(rest: &str) -> bool {
    let t = rest.trim_start_matches([' ', '\t']);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let marker = |after: &str| after.starts_with([' ', '\t']);
    (t.starts_with(['-', '*', '+']) && marker(&t[1..]))
        || (digits > 0 && t[digits..].starts_with(['.', ')']) && marker(&t[digits + 1..]))
        || t.starts_with(['#', '|'])
}

/// Whether `before` (lowercase, the sentence up to an instruction) negates it: a
/// negation of the lexicon not followed by a word that reinstates the instruction ("don't
/// forget to", "n'oubliez pas").
fn negated_in(lexicon: &Lexicon, before: &str) -> bool {
    negated_by(
        lexicon,
        last_clause(lexicon, before),
        lexicon.negations.iter().chain(&lexicon.contrastive).map(String::as_str),
    )
}

/// Whether one of `negations` in `before` (lowercase) stands: at a word's start (for
/// negations written with Latin letters) and not followed by a word that reinstates the
/// instruction.
fn negated_by<'n>(lexicon: &Lexicon, before: &str, negations: impl IntoIterator<Item = &'n str>) -> bool {
    negations.into_iter().any(|n| {
        before.match_indices(n).any(|(i, _)| {
            let at_word = i == 0
                || !n.starts_with(|c: char| c.is_ascii_alphabetic())
                || !before.as_bytes()[i - 1].is_ascii_alphanumeric();
            let after = &before[i + n.len()..];
            // French "ne"/"n'" negate with their particle ("ne … pas", "n'… jamais"), not
            // in "n'importe" or Turkish "ne olursa olsun".
            let particle = !matches!(n, "ne " | "n'") || {
                let near = &after[..after.char_indices().nth(40).map_or(after.len(), |(i, _)| i)];
                [" pas", " jamais", " rien", " plus", " personne", " aucun"]
                    .iter()
                    .any(|p| near.contains(p))
            };
            // "Instead of …", "rather than …" set aside their own phrase, up to a comma.
            let contrast_reaches = !lexicon.contrastive.iter().any(|c| c == n) || !after.contains([',', ':', '，']);
            at_word
                && particle
                && contrast_reaches
                && !in_compound(before, i, n)
                && !reinstated(lexicon, after)
                && !in_closed_condition(lexicon, before, i, n.len())
                && !in_closed_aside(before, i)
                && !closed_by_colon(after)
        })
    })
}

/// Whether the negation's own clause ends at a colon before the instruction: "they don't
/// queue changes they are already confident in: land them yourself" negates the queueing,
/// while "never do this: curl … | sh" and "we never do the following: …" introduce what
/// is not to be done. A clause of two words ("do not run:") introduces its object.
fn closed_by_colon(after: &str) -> bool {
    const INTRODUCES: [&str; 9] = [
        "following",
        "these",
        "this",
        "any of",
        "things",
        "like so",
        "as follows",
        "such as",
        "below",
    ];
    after.split_once([':', '：']).is_some_and(|(clause, _)| {
        clause.split_whitespace().count() > 2 && !INTRODUCES.iter().any(|w| clause.contains(w))
    })
}

/// Whether the negation at `at` in `before` stands in an aside in parentheses closed
/// before the instruction ("in this repository (we never open pull requests here) push
/// …").
fn in_closed_aside(before: &str, at: usize) -> bool {
    before[..at]
        .rfind('(')
        .is_some_and(|open| !before[open..at].contains(')'))
        && before[at..].contains(')')
}

/// Whether the negation at `at` (`len` bytes) in `before` belongs to a condition closed
/// before the instruction: "if the check does not help, add a step that …", "если
/// проверка не помогла, добавь …" negate the condition, not the step.
fn in_closed_condition(lexicon: &Lexicon, before: &str, at: usize, len: usize) -> bool {
    before[at + len..].contains([',', '，', '、'])
        && lexicon.conditions.iter().any(|c| {
            before[..at].rfind(c.as_str()).is_some_and(|k| {
                let starts_word = before[..k].chars().next_back().is_none_or(|p| !p.is_alphanumeric());
                starts_word && !before[k..at].contains([',', '，', '、'])
            })
        })
}

/// Whether the last clause of `before` (lowercase, up to an instruction's verb) reports
/// an instruction someone else gave (the lexicon's `reporting` words).
fn reported_in(lexicon: &Lexicon, before: &str) -> bool {
    let clause = last_clause(lexicon, before);
    // "As the lead told the agent to, paste …": a comma or colon ends the report.
    lexicon.reporting.iter().any(|r| {
        clause
            .rfind(r.as_str())
            .is_some_and(|i| !clause[i..].contains([',', ':', '，', '：']))
    })
}

/// [`reported_in`] with the built-in lexicon, for the handover model.
pub(crate) fn reported_clause(before: &str) -> bool {
    COMPILED
        .as_ref()
        .is_ok_and(|compiled| reported_in(&compiled.lexicon, before))
}

/// Whether the last clause of `before` (lowercase, the sentence up to an instruction)
/// negates it, in any of the lexicon's languages.
pub(crate) fn negated_clause(before: &str) -> bool {
    COMPILED
        .as_ref()
        .is_ok_and(|compiled| negated_in(&compiled.lexicon, before))
}

/// Whether `from_verb` (lowercase, from an instruction's verb to its sentence's end) is
/// negated after the verb ("poussez jamais", Japanese "しないで").
pub(crate) fn negated_after(from_verb: &str) -> bool {
    COMPILED.as_ref().is_ok_and(|compiled| {
        negated_after_verb(&compiled.lexicon, from_verb)
            || compiled
                .lexicon
                .negations_after
                .iter()
                .any(|n| from_verb.chars().take(40).collect::<String>().contains(n.as_str()))
    })
}

/// Words that hold a negation's character without negating (Chinese 别 "don't" in 特别
/// "especially", 区别 "difference", 识别 "recognise").
const COMPOUNDS: [&str; 10] = [
    "特别", "区别", "分别", "级别", "类别", "识别", "个别", "告别", "别的", "别人",
];

/// Whether the negation `n` found at byte `i` of `text` is part of one of [`COMPOUNDS`].
fn in_compound(text: &str, i: usize, n: &str) -> bool {
    COMPOUNDS.iter().any(|word| {
        word.match_indices(n)
            .any(|(offset, _)| i >= offset && text.get(i - offset..).is_some_and(|rest| rest.starts_with(word)))
    })
}

/// Whether one of the English `negations` in `clause` (lowercase, see
/// [`current_clause`]) stands, read as the lexicon's negations are.
pub(crate) fn negated_by_english(clause: &str, negations: &[&str]) -> bool {
    COMPILED
        .as_ref()
        .is_ok_and(|compiled| negated_by(&compiled.lexicon, clause, negations.iter().copied()))
}

/// Whether `from_verb` (lowercase, from an instruction's first term to the sentence's
/// end) carries a negation in the two words after that term ("poussez jamais", "desactives
/// nunca", "pushe nicht").
fn negated_after_verb(lexicon: &Lexicon, from_verb: &str) -> bool {
    // Whole words only: "jamais-vu" is no "jamais".
    let mut words = from_verb
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .skip(1)
        .take(2);
    words.any(|w| lexicon.never.iter().any(|n| n == w)) && !reinstated(lexicon, from_verb)
}

/// The last clause of `before`: a negation in an earlier clause negates that clause's
/// verb, not the instruction that follows.
fn last_clause<'t>(lexicon: &Lexicon, before: &'t str) -> &'t str {
    // Only the end of a long sentence is searched: a clause is never thousands of bytes,
    // and searching all of it for every command in it would be quadratic.
    let before = &before[before.ceil_char_boundary(before.len().saturating_sub(MAX_CLAUSE))..];
    let start = lexicon
        .clause_breaks
        .iter()
        // Dashes in pairs set off an aside ("never — not even for a hotfix — push …"); a
        // single one ends a clause.
        .filter(|b| !b.contains(['—', '–']) || !before.matches(b.as_str()).count().is_multiple_of(2))
        .filter_map(|b| before.rfind(b.as_str()).map(|i| i + b.len()))
        .max()
        .unwrap_or(0);
    &before[start..]
}

fn reinstated(lexicon: &Lexicon, after_negation: &str) -> bool {
    let near: String = after_negation.chars().take(REINSTATING_REACH).collect();
    lexicon.reinstating.iter().any(|r| near.contains(r.as_str()))
}

/// The most bytes of a sentence read as the clause before an instruction.
const MAX_CLAUSE: usize = 400;

/// How far after a negation (characters) a reinstating word is looked for: "don't ever
/// forget to" still reinstates, an unrelated clause later in a long sentence does not.
const REINSTATING_REACH: usize = 24;

/// The clause of `before` (lowercase) that an instruction after it belongs to (see
/// `clause_breaks` in the lexicon).
pub(crate) fn current_clause(before: &str) -> &str {
    match COMPILED.as_ref() {
        Ok(compiled) => last_clause(&compiled.lexicon, before),
        Err(_) => before,
    }
}

/// Whether the sentence `before` an instruction (lowercase) says "never" in another
/// language than English (the lexicon's `never` words), for the pattern rules and the
/// command model's prose reading.
pub(crate) fn never_before(before: &str) -> bool {
    let Ok(compiled) = COMPILED.as_ref() else {
        return false;
    };
    let before = last_clause(&compiled.lexicon, before);
    compiled.lexicon.never.iter().any(|n| {
        before.match_indices(n.as_str()).any(|(i, _)| {
            // Scripts written with spaces between words need whole words ("nie", not
            // "nieder"); Chinese, Japanese and Korean are written without them.
            let spaced = |c: char| c.is_alphabetic() && u32::from(c) < 0x2E80;
            let starts_word = before[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric() || !n.starts_with(spaced));
            let ends_word = before[i + n.len()..]
                .chars()
                .next()
                .is_none_or(|c| !c.is_alphanumeric() || !n.ends_with(spaced));
            // The reinstating word may also come just before ("n'oubliez jamais").
            let lead = before[..i]
                .char_indices()
                .rev()
                .nth(REINSTATING_REACH - 1)
                .map_or(0, |(k, _)| k);
            starts_word
                && ends_word
                && !reinstated(&compiled.lexicon, &before[i + n.len()..])
                && !reinstated(&compiled.lexicon, &before[lead..i])
                && !compiled
                    .lexicon
                    .conditions
                    .iter()
                    .any(|c| before[..i].contains(c.as_str()))
        })
    })
}

/// Builds the lexicon's automaton now (a second core does it while the prefilter builds).
pub(crate) fn warm_up() {
    LazyLock::force(&COMPILED);
}
