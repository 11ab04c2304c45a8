//! What prose tells the agent to do, in nine languages (`lexicon/intents.toml`): an intent
//! is a combination of term groups found in one sentence, in any order, so "ignore" +
//! "previous" + "instructions" is recognised however it is phrased, and in Chinese or
//! Russian as in English. One pass of an Aho-Corasick automaton finds every term.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use serde::Deserialize;

use crate::Severity;

/// The built-in lexicon.
const INTENTS: &str = include_str!("../lexicon/intents.toml");

#[derive(Debug, Deserialize)]
struct Lexicon {
    negations: Vec<String>,
    negations_after: Vec<String>,
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
    message: String,
    hint: String,
    groups: Vec<Vec<String>>,
}

/// The compiled lexicon: one automaton over every term, and which intent and group each
/// term belongs to.
struct Compiled {
    lexicon: Lexicon,
    automaton: AhoCorasick,
    /// For each pattern: (intent index, group index).
    owners: Vec<(usize, usize)>,
}

static COMPILED: LazyLock<Result<Compiled, String>> = LazyLock::new(|| {
    let lexicon: Lexicon = toml::from_str(INTENTS).map_err(|e| format!("lexicon/intents.toml: {e}"))?;
    let mut terms = Vec::new();
    let mut owners = Vec::new();
    for (i, intent) in lexicon.intent.iter().enumerate() {
        for (g, group) in intent.groups.iter().enumerate() {
            for term in group {
                terms.push(term.to_lowercase());
                owners.push((i, g));
            }
        }
    }
    let automaton = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        // Overlapping search cannot use a prefilter: a full DFA keeps it one table
        // lookup per byte.
        .kind(Some(AhoCorasickKind::DFA))
        .build(&terms)
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

/// How far (bytes) the terms of one intent may stand from a term of its first group.
const WINDOW: usize = 100;

/// Checks the lexicon compiles (the rule tests call it; a broken lexicon must fail them).
pub fn check() -> Result<(), String> {
    COMPILED.as_ref().map(|_| ()).map_err(Clone::clone)
}

/// Finds the intents in the prose lines of `text` (`is_prose(index)` says which lines
/// are prose).
pub fn find(text: &str, is_prose: &dyn Fn(usize) -> bool) -> Vec<IntentFinding> {
    let Ok(compiled) = COMPILED.as_ref() else {
        return Vec::new();
    };
    match lowercase_in_place(text) {
        Some(lower) => find_in(compiled, text, &lower, is_prose),
        // Some character lowercases to a different length (`İ`, the Kelvin sign): offsets
        // would not line up, so the text is searched as it is (ASCII still folds).
        None => find_in(compiled, text, text, is_prose),
    }
}

fn find_in(
    compiled: &'static Compiled,
    text: &str,
    haystack: &str,
    is_prose: &dyn Fn(usize) -> bool,
) -> Vec<IntentFinding> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_of = |at: usize| line_starts.partition_point(|&s| s <= at).saturating_sub(1);
    // Sentences: split at sentence ends and line ends that close a paragraph.
    let mut hits: Vec<(usize, usize, usize, usize)> = Vec::new(); // (sentence start, at, intent, group)
    for m in compiled.automaton.find_overlapping_iter(haystack) {
        let (intent, group) = compiled.owners[m.pattern().as_usize()];
        if !is_prose(line_of(m.start())) || !at_word(haystack, m.start(), m.end()) {
            continue;
        }
        hits.push((sentence_start(text, m.start()), m.start(), intent, group));
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
            let mine: Vec<(usize, usize)> = hits[i..j]
                .iter()
                .filter(|h| h.2 == index)
                .map(|&(_, at, _, group)| (at, group))
                .collect();
            // Every group within reach of one term of the first group: the words of one
            // instruction stand close together, not scattered over a long list item.
            let anchor = mine.iter().filter(|(_, g)| *g == 0).map(|(at, _)| *at).find(|&anchor| {
                (1..groups).all(|g| {
                    mine.iter()
                        .any(|(at, group)| *group == g && at.abs_diff(anchor) <= WINDOW)
                })
            });
            let Some(anchor) = anchor else {
                continue;
            };
            let first = mine
                .iter()
                .filter(|(at, _)| at.abs_diff(anchor) <= WINDOW)
                .map(|(at, _)| *at)
                .min()
                .unwrap_or(anchor);
            let line = line_of(first);
            let line_start = line_starts[line];
            if intent.negatable && negated(&compiled.lexicon.negations, &haystack[sentence.max(line_start)..first]) {
                continue;
            }
            let sentence_end = sentence_end(text, first);
            if intent.negation_after
                && compiled
                    .lexicon
                    .negations_after
                    .iter()
                    .any(|n| haystack[first..sentence_end].contains(n.as_str()))
            {
                continue;
            }
            let line_end = line_starts.get(line + 1).map_or(text.len(), |e| e - 1);
            let anchor_line = line_of(anchor);
            let anchor_end = line_starts.get(anchor_line + 1).map_or(text.len(), |e| e - 1);
            if crate::context::quoted(&text[line_start..line_end.max(line_start)], first - line_start)
                || crate::context::quoted(
                    &text[line_starts[anchor_line]..anchor_end.max(line_starts[anchor_line])],
                    anchor - line_starts[anchor_line],
                )
            {
                continue;
            }
            found.push(IntentFinding {
                line,
                at: first - line_start,
                rule: &intent.id,
                category: &intent.category,
                severity: intent.severity,
                message: &intent.message,
                hint: &intent.hint,
            });
        }
        i = j;
    }
    escalate_combined(text, &line_starts, &mut found);
    found
}

/// Two different intents in one paragraph: each is part of a larger instruction.
fn escalate_combined(text: &str, line_starts: &[usize], found: &mut [IntentFinding]) {
    let paragraph_of = |line: usize| {
        let mut p = 0;
        for (index, start) in line_starts.iter().enumerate().take(line + 1) {
            let end = line_starts.get(index + 1).map_or(text.len(), |e| e - 1);
            if text[*start..end.max(*start)].trim().is_empty() {
                p = index + 1;
            }
        }
        p
    };
    let paragraphs: Vec<usize> = found.iter().map(|f| paragraph_of(f.line)).collect();
    for a in 0..found.len() {
        let other = (0..found.len()).any(|b| paragraphs[b] == paragraphs[a] && found[b].rule != found[a].rule);
        if other && found[a].severity < Severity::High {
            found[a].severity = Severity::High;
        }
    }
}

/// Whether an ASCII term found at `start..end` stands at a word start (and, when it is
/// five letters or fewer, at a word end too). Terms in other scripts match anywhere.
fn at_word(text: &str, start: usize, end: usize) -> bool {
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

/// Where the sentence holding byte `at` ends.
fn sentence_end(text: &str, at: usize) -> usize {
    text[at..]
        .char_indices()
        .find(|(_, c)| matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | ';' | '；'))
        .map_or(text.len(), |(i, c)| at + i + c.len_utf8())
}

/// Where the sentence holding byte `at` starts.
fn sentence_start(text: &str, at: usize) -> usize {
    let before = &text[..at];
    before
        .char_indices()
        .rev()
        .find(|(i, c)| {
            matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | ';' | '；')
                && text[i + c.len_utf8()..].starts_with(|n: char| !n.is_alphanumeric())
                || *c == '\n' && before[..*i].ends_with('\n')
        })
        .map_or(0, |(i, c)| i + c.len_utf8())
}

fn negated(negations: &[String], before: &str) -> bool {
    negations.iter().any(|n| {
        before.match_indices(n.as_str()).any(|(i, _)| {
            i == 0
                || !n.starts_with(|c: char| c.is_ascii_alphabetic())
                || !before.as_bytes()[i - 1].is_ascii_alphanumeric()
        })
    })
}
