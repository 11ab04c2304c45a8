//! Evaluates the scanner on the test corpus (docs/SECURITY-SCANNER.md):
//!
//! ```sh
//! cargo run --release -p cairn-scanner --example evaluate -- ../shared/corpus \
//!     [--verdicts out.jsonl] [--cases services/scanner/tests/cases/dev] [--cases …/heldout] \
//!     [--without-learned]
//! ```
//!
//! Every table is split into the **development** part (the sources rules and thresholds
//! are tuned on) and the **held-out** part (never looked at while tuning), by source (see
//! [`corpus::HELD_OUT_SOURCES`]); docs/SECURITY-SCANNER.md documents the split. `--cases`
//! adds a labeled case set written for the scanner (`cases.toml`: skills and patches,
//! malicious and benign); a patch is judged by what it introduces (delta mode).
//!
//! Prints, as Markdown: recall on the labeled malicious fixtures (per category), the
//! false-alarm rate on their benign fixtures and on the curated real skills (per source),
//! alert rates and the top rules on the unlabeled `wild/` set, and throughput.
//! `--without-learned` leaves the learned model's finding out (the rules' own verdicts;
//! the model's on the sets it learned from are in-sample). `--verdicts` also writes one
//! JSON line per bundle (`{"set", "path", "verdict", "findings"}`, the findings of medium
//! or worse severity) so other scanners' results can be put side by side and what fires
//! can be checked by hand.

#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cairn_scanner::{LEARNED_RULE, Report, Scanner, Verdict};
use corpus::{Bundle, as_scan, bundle, part, skill_dirs};

mod corpus;

/// The allocator the `cairn-registry` and `cairn` binaries use, so throughput here is
/// theirs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A bundle's report; a patch's holds what it introduces. `with_learned: false` leaves the
/// learned model's finding out: the rules' own verdict, for the sets the model learned
/// from (its verdict on them is in-sample).
fn scan(scanner: &Scanner, b: &Bundle, with_learned: bool) -> Report {
    let report = match &b.base {
        None => scanner.scan(&as_scan(&b.files)),
        Some(base) => scanner.scan_delta(&as_scan(base), &as_scan(&b.files)),
    };
    Report::new(
        report
            .findings
            .into_iter()
            .filter(|f| f.introduced != Some(false) && (with_learned || f.rule != LEARNED_RULE))
            .collect(),
    )
}

#[derive(Default)]
struct Tally {
    n: usize,
    dangerous: usize,
    caution: usize,
}

impl Tally {
    fn add(&mut self, v: Verdict) {
        self.n += 1;
        match v {
            Verdict::Dangerous => self.dangerous += 1,
            Verdict::Caution => self.caution += 1,
            Verdict::Safe => {}
        }
    }
    fn pct(x: usize, n: usize) -> String {
        if n == 0 {
            "–".to_owned()
        } else {
            format!("{:.1}%", 100.0 * x as f64 / n as f64)
        }
    }
    fn row(&self, name: &str) -> String {
        format!(
            "| {name} | {} | {} | {} |",
            self.n,
            Self::pct(self.dangerous, self.n),
            Self::pct(self.dangerous + self.caution, self.n)
        )
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = PathBuf::from(args.next().unwrap_or_else(|| "../shared/corpus".to_owned()));
    let mut verdicts_out = None;
    let mut case_sets = Vec::new();
    let mut with_learned = true;
    while let Some(a) = args.next() {
        if a == "--verdicts" {
            verdicts_out = args.next().map(PathBuf::from);
        } else if a == "--cases" {
            case_sets.extend(args.next().map(PathBuf::from));
        } else if a == "--without-learned" {
            with_learned = false;
        }
    }
    let scanner = Scanner::builtin().expect("built-in rules compile");
    let mut log = verdicts_out.map(|p| std::fs::File::create(p).expect("create the verdicts file"));
    let mut elapsed = Duration::ZERO;
    let mut bytes_scanned = 0usize;
    let mut run = |b: &Bundle| {
        let started = Instant::now();
        let report = scan(scanner, b, with_learned);
        // Throughput is the corpus's (the bundles Hermes is timed on too).
        if !b.set.starts_with("cases:") {
            elapsed += started.elapsed();
            bytes_scanned += b.files.iter().map(|(_, x)| x.len()).sum::<usize>();
        }
        if let Some(log) = log.as_mut() {
            let findings: Vec<serde_json::Value> = report
                .findings
                .iter()
                .filter(|f| f.severity >= cairn_scanner::Severity::Medium)
                .map(|f| {
                    serde_json::json!({
                        "rule": f.rule, "severity": f.severity, "file": f.file,
                        "line": f.line, "excerpt": f.excerpt,
                    })
                })
                .collect();
            let line = serde_json::json!({
                "set": b.set, "path": b.path, "verdict": report.verdict.as_str(), "findings": findings,
            });
            writeln!(log, "{line}").expect("write verdicts");
        }
        report
    };

    // Labeled fixtures.
    let mut by_label: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_category: BTreeMap<String, Tally> = BTreeMap::new();
    for fixture in corpus::labeled(&corpus) {
        let (b, label) = (&fixture.bundle, &fixture.label);
        let split = part(&fixture.source);
        let verdict = run(b).verdict;
        by_label.entry(format!("{label} ({split})")).or_default().add(verdict);
        by_label.entry(format!("{label} (all)")).or_default().add(verdict);
        if label == "malicious" {
            for c in &fixture.categories {
                by_category.entry(format!("{c} ({split})")).or_default().add(verdict);
            }
        }
    }
    println!("## Labeled fixtures (`malicious/labels.jsonl`)\n");
    println!("| label | bundles | dangerous | at least caution |\n|---|---|---|---|");
    for (label, t) in &by_label {
        println!("{}", t.row(label));
    }
    println!("\n### Recall on label `malicious`, per category (categories with ≥ 5 fixtures)\n");
    println!("| category | fixtures | dangerous | at least caution |\n|---|---|---|---|");
    for (c, t) in by_category.iter().filter(|(_, t)| t.n >= 5) {
        println!("{}", t.row(c));
    }

    // Curated and wild skills.
    for (title, set) in [
        ("Curated real skills (`skills/`)", "skills"),
        ("Unlabeled ClawHub snapshot (`wild/`)", "wild"),
    ] {
        println!("\n## {title}\n");
        println!("| source | bundles | dangerous | at least caution |\n|---|---|---|---|");
        let mut rules: BTreeMap<String, usize> = BTreeMap::new();
        let mut total = Tally::default();
        for source in corpus::sources(&corpus, set) {
            let mut dirs = Vec::new();
            skill_dirs(&source, &mut dirs);
            let mut t = Tally::default();
            for dir in dirs {
                let b = bundle(set, &dir);
                let report = run(&b);
                t.add(report.verdict);
                total.add(report.verdict);
                let mut seen = std::collections::BTreeSet::new();
                for f in report
                    .findings
                    .iter()
                    .filter(|f| f.severity >= cairn_scanner::Severity::Medium)
                {
                    if seen.insert(f.rule.clone()) {
                        *rules.entry(f.rule.clone()).or_default() += 1;
                    }
                }
            }
            let name = source.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let name = if set == "skills" {
                format!("{name} ({})", part(&name))
            } else {
                name
            };
            println!("{}", t.row(&name));
        }
        println!("{}", total.row("**all**"));
        let mut top: Vec<(String, usize)> = rules.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        println!("\nTop rules (bundles with a medium-or-worse finding of the rule):\n");
        for (rule, n) in top.iter().take(12) {
            println!("- `{rule}`: {n}");
        }
    }
    for set in &case_sets {
        cases(set, &mut run);
    }
    println!(
        "\nScanned {:.1} MB in {:.2} s: {:.1} MB/s (one core, release build).",
        bytes_scanned as f64 / 1e6,
        elapsed.as_secs_f64(),
        bytes_scanned as f64 / 1e6 / elapsed.as_secs_f64().max(1e-9)
    );
}

/// Scans a case set and prints its tables: per label and kind, per category, evasive.
fn cases(dir: &Path, run: &mut dyn FnMut(&Bundle) -> Report) {
    let (name, cases) = corpus::case_set(dir);
    let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_category: BTreeMap<String, Tally> = BTreeMap::new();
    let mut expected: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for (case, b) in &cases {
        let verdict = run(b).verdict;
        by_kind
            .entry(format!("{} {}", case.label, case.kind))
            .or_default()
            .add(verdict);
        if case.label == "malicious" {
            by_category.entry(case.category.clone()).or_default().add(verdict);
            if case.evasive {
                by_kind.entry("malicious, evasive".to_owned()).or_default().add(verdict);
            }
        } else {
            by_category
                .entry(format!("{} (benign)", case.category))
                .or_default()
                .add(verdict);
        }
        let at_expected = verdict.as_str() == case.expect
            || (case.label == "benign" && case.expect == "caution" && verdict == Verdict::Safe);
        let e = expected.entry(case.label.clone()).or_default();
        e.0 += 1;
        if at_expected {
            e.1 += 1;
        } else {
            missed.push(format!(
                "{} ({}, expected {}, got {})",
                case.id,
                case.category,
                case.expect,
                verdict.as_str()
            ));
        }
    }
    println!("\n## Case set `{name}` ({} cases)\n", cases.len());
    println!("A patch counts by what it introduces (delta mode): `dangerous` means it is stopped.\n");
    println!("| label, kind | cases | dangerous | at least caution |\n|---|---|---|---|");
    for (k, t) in &by_kind {
        println!("{}", t.row(k));
    }
    println!("\n| category | cases | dangerous | at least caution |\n|---|---|---|---|");
    for (c, t) in &by_category {
        println!("{}", t.row(c));
    }
    println!();
    for (label, (n, ok)) in &expected {
        println!(
            "- {label}: {ok} of {n} at their expected verdict ({})",
            Tally::pct(*ok, *n)
        );
    }
    if std::env::var_os("CAIRN_EVAL_LIST_MISSES").is_some() {
        println!("\nNot at the expected verdict:\n");
        for m in &missed {
            println!("- {m}");
        }
    }
}
