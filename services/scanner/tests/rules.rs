//! Every rule's examples: each `match` line must produce a finding of that rule, each
//! `ignore` line must not (or, for a `match` line, the command model or the intent lexicon
//! must report the same kind of thing there at least as severely: its finding stands in for
//! the rule's).

use cairn_scanner::{RuleSet, Scanner};

#[test]
fn every_rule_flags_its_examples_and_ignores_its_counter_examples() {
    let scanner = Scanner::builtin().expect("the built-in rules compile");
    let rules = RuleSet::builtin().unwrap();
    let mut failures = Vec::new();
    for rule in &rules.rules {
        let id = &rule.spec.id;
        // Patterns compile lazily when scanning; here every one must compile.
        if let Err(e) = rule.compile_now() {
            failures.push(e.to_string());
        }
        assert!(
            !rule.spec.examples.matches.is_empty(),
            "rule {id} has no example it must match"
        );
        let path = rule.spec.examples.path.as_deref().unwrap_or("SKILL.md");
        for line in &rule.spec.examples.matches {
            let report = scanner.scan_text(path, line);
            // Where the command model or the intent lexicon found the same thing on the
            // line at least as severely, its finding stands in for the rule's.
            let superseded = report.findings.iter().any(|f| {
                (f.rule.starts_with("flow.") || f.rule.starts_with("intent."))
                    && f.category == rule.spec.category
                    && f.severity >= rule.spec.severity
            });
            if !superseded && !report.findings.iter().any(|f| &f.rule == id) {
                failures.push(format!(
                    "{id} missed: {line:?} (found {:?})",
                    report.findings.iter().map(|f| &f.rule).collect::<Vec<_>>()
                ));
            }
        }
        for line in &rule.spec.examples.ignores {
            let report = scanner.scan_text(path, line);
            if report.findings.iter().any(|f| &f.rule == id) {
                failures.push(format!("{id} flagged its counter-example: {line:?}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rule_ids_are_namespaced_and_texts_are_helpful() {
    let rules = RuleSet::builtin().unwrap();
    for rule in &rules.rules {
        let s = &rule.spec;
        assert!(
            s.id.contains('.')
                && s.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c)),
            "{}",
            s.id
        );
        assert!(!s.message.is_empty() && !s.hint.is_empty(), "{}", s.id);
    }
}

#[test]
fn every_rule_can_say_why_it_fires() {
    let scanner = Scanner::builtin().expect("the built-in rules compile");
    for rule in &RuleSet::builtin().unwrap().rules {
        let why = scanner.explain(&rule.spec.id);
        assert!(
            why.starts_with("pattern rule (rules/") && why.contains(&rule.file),
            "{}: {why}",
            rule.spec.id
        );
    }
    for rule in [
        "flow.remote-code",
        "flow.typosquat",
        "intent.override-instructions",
        "hidden.zero-width",
        "bundle.native-executable",
    ] {
        assert_ne!(scanner.explain(rule), "no description", "{rule}");
    }
    assert!(scanner.explain("intent.override-instructions").contains("\"ignore\""));
}
