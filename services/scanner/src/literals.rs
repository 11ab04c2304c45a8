//! The literals a pattern cannot match without. Every match of the pattern contains at
//! least one literal of each of a few sets (clauses); a text that lacks every literal of
//! one clause cannot match, so the rule's regex need not run over it. Derived from the
//! pattern itself, so the filter stays right when a pattern changes. The build script runs
//! this module over the built-in rules once (`build.rs` includes it), so a start does not.
//!
//! Literals are ASCII-lowercased and searched for ASCII case-insensitively, which finds a
//! superset of where they occur exactly. Unicode case folding adds two non-ASCII letters
//! to ASCII ones (`(?i)k` matches the Kelvin sign, `(?i)s` the long s); they are left out
//! of the literals, so a text holding one of [`FOLDS_TO_ASCII`] must skip the filter.

use std::collections::BTreeSet;

use regex_syntax::hir::{Class, Hir, HirKind};

/// Non-ASCII characters that case-insensitive patterns match in place of ASCII letters,
/// left out of the literals: texts holding them cannot be filtered.
pub const FOLDS_TO_ASCII: [char; 2] = ['\u{17F}', '\u{212A}'];

/// Most alternatives in one literal set (larger sets cost more than they save).
const MAX_SET: usize = 256;
/// Most characters a class may hold to be expanded into alternatives.
const MAX_CLASS: usize = 16;
/// Most clauses kept per sub-pattern (the most selective ones).
const MAX_CLAUSES: usize = 3;
/// Shortest literal worth searching for: shorter ones are in almost every file.
const MIN_LEN: usize = 3;

/// Literals, ASCII-lowercased.
type Set = BTreeSet<Vec<u8>>;

/// What is known about the strings a sub-pattern matches.
#[derive(Default)]
struct Info {
    /// Every string it can match, when there are few.
    exact: Option<Set>,
    /// Clauses: every match contains a literal of each.
    required: Vec<Set>,
}

/// Rewrites `\b` and `\B` as ASCII word boundaries. A Unicode word boundary makes the
/// regex engine leave its fast automaton on any non-ASCII text (slower by orders of
/// magnitude on skills written in other scripts); rules mean "not inside an ASCII word".
pub fn ascii_word_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some(b @ ('b' | 'B')) => {
                out.push_str("(?-u:\\");
                out.push(b);
                out.push(')');
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// The clauses of `pattern`: every match contains at least one literal (ASCII-lowercased)
/// of each. Empty when no selective clause is known (then the pattern runs on every text
/// that passes its keywords).
pub fn required_literals(pattern: &str) -> Vec<Vec<Vec<u8>>> {
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return Vec::new();
    };
    analyse(&hir)
        .required
        .into_iter()
        .filter(|clause| shortest(clause) >= MIN_LEN)
        .map(|clause| clause.into_iter().collect())
        .collect()
}

fn analyse(hir: &Hir) -> Info {
    let exact = |set: Set| finish(Some(set), Vec::new());
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => exact(Set::from([Vec::new()])),
        HirKind::Literal(literal) => exact(Set::from([literal.0.to_ascii_lowercase()])),
        HirKind::Class(class) => finish(class_set(class), Vec::new()),
        HirKind::Capture(capture) => analyse(&capture.sub),
        HirKind::Repetition(rep) => {
            let sub = analyse(&rep.sub);
            match (rep.min, rep.max) {
                (1, Some(1)) => sub,
                (0, Some(1)) => finish(
                    sub.exact.map(|mut e| {
                        e.insert(Vec::new());
                        e
                    }),
                    Vec::new(),
                ),
                (0, _) => Info::default(),
                _ => finish(None, sub.required),
            }
        }
        HirKind::Concat(children) => concat(children),
        HirKind::Alternation(branches) => alternation(branches),
    }
}

/// A concatenation: runs of children with exact sets multiply into longer literals; each
/// run and each child's clauses are clauses of the whole.
fn concat(children: &[Hir]) -> Info {
    let mut clauses = Vec::new();
    let mut run = Set::from([Vec::new()]);
    let mut exact = true;
    for child in children {
        let info = analyse(child);
        // A child's exact set is a clause implied by the run it joins.
        clauses.extend(info.required.into_iter().filter(|c| Some(c) != info.exact.as_ref()));
        match info.exact {
            Some(e) => match product(&run, &e) {
                Some(joined) => run = joined,
                None => {
                    exact = false;
                    clauses.push(std::mem::replace(&mut run, e));
                }
            },
            None => {
                exact = false;
                clauses.push(std::mem::replace(&mut run, Set::from([Vec::new()])));
            }
        }
    }
    if exact {
        finish(Some(run), clauses)
    } else {
        clauses.push(run);
        finish(None, clauses)
    }
}

/// An alternation: a match is a match of one branch, so each clause of the whole is a
/// union of one clause per branch.
fn alternation(branches: &[Hir]) -> Info {
    let infos: Vec<Info> = branches.iter().map(analyse).collect();
    let mut exact = Some(Set::new());
    for info in &infos {
        exact = exact
            .zip(info.exact.as_ref())
            .map(|(mut all, e)| {
                all.extend(e.iter().cloned());
                all
            })
            .filter(|all| all.len() <= MAX_SET);
    }
    let mut clauses = vec![Set::new()];
    for info in &infos {
        clauses = clauses
            .iter()
            .flat_map(|acc| {
                info.required
                    .iter()
                    .map(move |c| acc.union(c).cloned().collect::<Set>())
            })
            .filter(|union| union.len() <= MAX_SET)
            .collect();
        clauses = prune(clauses);
    }
    finish(exact, clauses)
}

/// Every `a` followed by every `b`, unless that makes too many.
fn product(a: &Set, b: &Set) -> Option<Set> {
    if a.len() * b.len() > MAX_SET {
        return None;
    }
    Some(
        a.iter()
            .flat_map(|x| b.iter().map(move |y| [x.as_slice(), y.as_slice()].concat()))
            .collect(),
    )
}

/// A small class as its characters' encodings (without [`FOLDS_TO_ASCII`]).
fn class_set(class: &Class) -> Option<Set> {
    let mut set = Set::new();
    match class {
        Class::Unicode(c) => {
            for range in c.ranges() {
                if u32::from(range.end()) - u32::from(range.start()) >= MAX_CLASS as u32 {
                    return None;
                }
                for ch in (range.start()..=range.end()).filter(|ch| !FOLDS_TO_ASCII.contains(ch)) {
                    set.insert(ch.to_string().into_bytes().to_ascii_lowercase());
                }
            }
        }
        Class::Bytes(c) => {
            for range in c.ranges() {
                for byte in range.start()..=range.end() {
                    set.insert(vec![byte.to_ascii_lowercase()]);
                }
            }
        }
    }
    (!set.is_empty() && set.len() <= MAX_CLASS).then_some(set)
}

/// Info with the exact set (a clause itself) among the clauses, and only the most
/// selective clauses kept.
fn finish(exact: Option<Set>, mut required: Vec<Set>) -> Info {
    required.extend(exact.clone());
    Info {
        exact,
        required: prune(required),
    }
}

/// The [`MAX_CLAUSES`] most selective clauses (longest shortest literal, then fewest
/// literals); clauses that hold the empty string say nothing and go.
fn prune(mut clauses: Vec<Set>) -> Vec<Set> {
    clauses.retain(|c| shortest(c) > 0);
    clauses.sort_by_key(|c| (std::cmp::Reverse(shortest(c)), c.len()));
    clauses.dedup();
    clauses.truncate(MAX_CLAUSES);
    clauses
}

fn shortest(set: &Set) -> usize {
    set.iter().map(Vec::len).min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clauses(pattern: &str) -> Vec<Vec<String>> {
        required_literals(pattern)
            .into_iter()
            .map(|clause| {
                clause
                    .into_iter()
                    .map(|l| String::from_utf8_lossy(&l).into_owned())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn clauses_come_from_the_selective_parts() {
        assert_eq!(clauses(r"curl[^\n]*\|\s*sh"), vec![vec!["curl"]]);
        assert_eq!(
            clauses(r"(wget|curl)\s+https?://"),
            vec![vec!["http://", "https://"], vec!["curl", "wget"]]
        );
        assert_eq!(clauses(r"(?i)\bignore\b"), vec![vec!["ignore"]]);
        assert!(
            clauses(r"(?i)(ab|xyz)[0-9]+").is_empty(),
            "\"ab\" is too short to be worth it"
        );
        assert!(clauses(r"[a-z]+@[a-z]+").is_empty());
        assert!(clauses(r"(?:foo)?ba").is_empty());
        assert_eq!(clauses(r"(?:foo)?bar"), vec![vec!["bar", "foobar"]]);
        assert_eq!(clauses(r"(?:foo)*bar[0-9]+"), vec![vec!["bar"]]);
        assert_eq!(
            clauses(r"get this\s+file|run\s+these"),
            vec![
                vec!["get this", "these"],
                vec!["file", "these"],
                vec!["get this", "run"]
            ]
        );
    }

    #[test]
    fn case_folding_to_non_ascii_letters_is_left_out() {
        // (?i)k also matches the Kelvin sign U+212A, (?i)s the long s U+017F: texts
        // holding them skip the filter.
        assert_eq!(clauses(r"(?i)kiss"), vec![vec!["kiss"]]);
        assert_eq!(clauses("(?i)caf\u{C9}"), vec![vec!["caf\u{C9}", "caf\u{E9}"]]);
    }

    #[test]
    fn only_these_characters_fold_to_ascii_letters() {
        for letter in 'a'..='z' {
            let folded = regex_syntax::Parser::new().parse(&format!("(?i){letter}")).unwrap();
            let HirKind::Class(Class::Unicode(class)) = folded.kind() else {
                panic!("{letter} folds to a class");
            };
            let others: Vec<char> = class
                .iter()
                .flat_map(|r| r.start()..=r.end())
                .filter(|c| !c.is_ascii())
                .collect();
            assert!(
                others.iter().all(|c| FOLDS_TO_ASCII.contains(c)),
                "{letter}: {others:?}"
            );
        }
    }
}
