//! Which rules are worth running on a text, found in one pass: every rule's keywords and
//! required literals ([`crate::literals`]) go into one Aho-Corasick automaton, searched
//! ASCII case-insensitively, instead of one substring search per keyword per rule.

use aho_corasick::{AhoCorasick, MatchKind};

use crate::searcher::Searcher;

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::rules::{Rule, ascii_word_boundaries};

// `RULE_LITERALS`: (pattern, its clauses) of every built-in rule, worked out by `build.rs`
// with `crate::literals`.
include!(concat!(env!("OUT_DIR"), "/rule_literals.rs"));

/// The clauses of a built-in rule's pattern, as the build script worked them out from
/// `rules/*.toml` (the same analysis, run once at build time instead of at every start);
/// `None` for a pattern it did not see (a rule set loaded at run time).
fn precomputed(pattern: &str) -> Option<&'static [&'static [&'static [u8]]]> {
    static BY_PATTERN: LazyLock<HashMap<&'static str, &'static [&'static [&'static [u8]]]>> =
        LazyLock::new(|| RULE_LITERALS.iter().copied().collect());
    BY_PATTERN.get(pattern).copied()
}

/// The clauses of `pattern` ([`crate::literals::required_literals`] of its ASCII-boundary form).
fn clauses_of(pattern: &str) -> Vec<Vec<Vec<u8>>> {
    match precomputed(pattern) {
        Some(clauses) => clauses
            .iter()
            .map(|clause| clause.iter().map(|literal| literal.to_vec()).collect())
            .collect(),
        None => crate::literals::required_literals(&ascii_word_boundaries(pattern)),
    }
}

/// Characters after which the cheap checks are not exact. `İ` and the Kelvin sign
/// lowercase to ASCII letters (`i̇`, `k`), so a keyword can be in the lowercased text
/// without being in the text: such a text takes the exact keyword check. The long s and
/// the Kelvin sign are matched by case-insensitive patterns in place of `s` and `k` and
/// left out of the required literals ([`crate::literals::FOLDS_TO_ASCII`]): such a text
/// skips the literal filter.
const NOT_FILTERED: [char; 3] = ['\u{130}', '\u{17F}', '\u{212A}'];

/// The rules' keywords and required literals, compiled into one searcher.
#[derive(Debug)]
pub struct Prefilter {
    searcher: Searcher,
    /// Per rule, in rule order.
    rules: Vec<RuleNeedles>,
}

/// What must be in a text for one rule to be tried.
#[derive(Debug)]
struct RuleNeedles {
    /// Indices of the rule's keywords among the needles (`None`: no keywords).
    keywords: Option<Vec<usize>>,
    /// The rule's keywords, when one is not ASCII (checked on the lowercased text).
    unicode_keywords: Option<Vec<String>>,
    /// Clauses of the literals every match contains: indices of the needles of each.
    required: Vec<Vec<usize>>,
}

impl Prefilter {
    /// The prefilter of `rules` (in that order).
    pub fn new(rules: &[Rule]) -> Prefilter {
        let mut needles: Vec<Vec<u8>> = Vec::new();
        let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
        let mut intern = |needle: Vec<u8>| {
            *index.entry(needle.clone()).or_insert_with(|| {
                needles.push(needle);
                needles.len() - 1
            })
        };
        let mut per_rule = Vec::with_capacity(rules.len());
        for rule in rules {
            let lower: Vec<String> = rule.spec.keywords.iter().map(|k| k.to_lowercase()).collect();
            let (keywords, unicode_keywords) = if lower.is_empty() {
                (None, None)
            } else if lower.iter().all(|k| k.is_ascii()) {
                (Some(lower.into_iter().map(|k| intern(k.into_bytes())).collect()), None)
            } else {
                (None, Some(lower))
            };
            let required = clauses_of(&rule.spec.pattern)
                .into_iter()
                .map(|clause| clause.into_iter().map(&mut intern).collect())
                .collect();
            per_rule.push(RuleNeedles {
                keywords,
                unicode_keywords,
                required,
            });
        }
        let mut builder = AhoCorasick::builder();
        builder.ascii_case_insensitive(true).match_kind(MatchKind::Standard);
        let searcher = Searcher::new(&builder, needles).expect("a few thousand short needles fit in an automaton");
        Prefilter {
            searcher,
            rules: per_rule,
        }
    }

    /// For each rule, whether to run it on `text`: its keywords (if any) are in the
    /// lowercased text, as [`Rule::keywords_present`] says, and the text holds a literal
    /// of each of its clauses.
    pub fn rules_to_try(&self, text: &str) -> Vec<bool> {
        let special = !text.is_ascii() && text.contains(NOT_FILTERED);
        let mut lower = None;
        let haystack = if special {
            lower.insert(text.to_lowercase()).as_str()
        } else {
            text
        };
        let mut found = vec![false; self.searcher.patterns_len()];
        for m in self.searcher.automaton().find_overlapping_iter(haystack) {
            found[m.pattern().as_usize()] = true;
        }
        let any = |ids: &[usize]| ids.iter().any(|&i| found[i]);
        self.rules
            .iter()
            .map(|rule| {
                let keywords = match (&rule.keywords, &rule.unicode_keywords) {
                    (Some(ids), _) => any(ids),
                    (None, Some(words)) => {
                        let lower = lower.get_or_insert_with(|| text.to_lowercase());
                        words.iter().any(|w| lower.contains(w.as_str()))
                    }
                    (None, None) => true,
                };
                // Required literals are searched in the text itself and leave out what
                // folds to ASCII: with such characters the rule is tried.
                let required = special || rule.required.iter().all(|clause| any(clause));
                keywords && required
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clauses_worked_out_at_build_time_are_the_ones_worked_out_now() {
        let rules = crate::rules::RuleSet::builtin().expect("the built-in rules load");
        let mut seen = 0;
        for rule in &rules.rules {
            let now = crate::literals::required_literals(&ascii_word_boundaries(&rule.spec.pattern));
            let built =
                precomputed(&rule.spec.pattern).unwrap_or_else(|| panic!("{} was not precomputed", rule.spec.id));
            let built: Vec<Vec<Vec<u8>>> = built.iter().map(|c| c.iter().map(|l| l.to_vec()).collect()).collect();
            assert_eq!(built, now, "{}", rule.spec.id);
            seen += 1;
        }
        assert!(seen > 300, "only {seen} rules");
    }

    #[test]
    fn only_these_characters_lowercase_to_ascii() {
        let mut found: Vec<char> = (0x80..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| c.to_lowercase().any(|l| l.is_ascii()))
            .chain(crate::literals::FOLDS_TO_ASCII)
            .collect();
        found.sort();
        found.dedup();
        assert_eq!(found, NOT_FILTERED);
    }
}
