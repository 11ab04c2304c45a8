//! Evaluates the scanner on the test corpus (docs/SECURITY-SCANNER.md):
//!
//! ```sh
//! cargo run --release -p cairn-scanner --example evaluate -- ../shared/corpus \
//!     [--verdicts out.jsonl] [--cases services/scanner/tests/cases/dev] [--cases …/heldout]
//! ```
//!
//! Every table is split into the **development** part (the sources rules and thresholds
//! are tuned on) and the **held-out** part (never looked at while tuning), by source (see
//! [`HELD_OUT_SOURCES`]); docs/SECURITY-SCANNER.md documents the split. `--cases` adds a
//! labeled case set written for the scanner (`cases.toml`: skills and patches, malicious
//! and benign); a patch is judged by what it introduces (delta mode).
//!
//! Prints, as Markdown: recall on the labeled malicious fixtures (per category), the
//! false-alarm rate on their benign fixtures and on the curated real skills (per source),
//! alert rates and the top rules on the unlabeled `wild/` set, and throughput.
//! `--verdicts` also writes one JSON line per bundle (`{"set", "path", "verdict",
//! "findings"}`, the findings of medium or worse severity) so other scanners' results can
//! be put side by side and what fires can be checked by hand.

#![allow(missing_docs)]

use std::collections::{BTreeMap, HashMap};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cairn_scanner::{Report, ScanFile, Scanner, Verdict};

/// The allocator the `cairn-registry` and `cairn` binaries use, so throughput here is
/// theirs.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Sources held out from tuning: labeled fixture sources (`source` in `labels.jsonl`) and
/// curated skill sources (`skills/<source>`). Everything else is development data.
const HELD_OUT_SOURCES: [&str; 6] = [
    "skillscan-security",
    "skill-inject",
    "snyk-agent-scan",
    "nvidia",
    "anthropic",
    "openai",
];

/// Which part of the split a source is in.
fn part(source: &str) -> &'static str {
    if HELD_OUT_SOURCES.contains(&source) {
        "held-out"
    } else {
        "development"
    }
}

struct Bundle {
    set: String,
    path: String,
    files: Vec<(String, Vec<u8>)>,
    /// For a patch: the bundle it changes. The patch is judged by what it introduces.
    base: Option<Vec<(String, Vec<u8>)>>,
}

fn files_under(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            files_under(root, &path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            out.push((rel, bytes));
        }
    }
}

/// Every directory under `dir` holding a SKILL.md (nested skills are their own bundles).
fn skill_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("SKILL.md").is_file() {
        out.push(dir.to_path_buf());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.is_symlink())
        .collect();
    dirs.sort();
    for d in dirs {
        skill_dirs(&d, out);
    }
}

/// A bundle's own files (not those of skills nested below it).
fn bundle(set: &str, dir: &Path) -> Bundle {
    let mut files = Vec::new();
    files_under(dir, dir, &mut files);
    files.retain(|(rel, _)| {
        let p = Path::new(rel);
        !p.ancestors()
            .skip(1)
            .any(|a| !a.as_os_str().is_empty() && dir.join(a).join("SKILL.md").is_file())
    });
    Bundle {
        set: set.to_owned(),
        path: dir.display().to_string(),
        files,
        base: None,
    }
}

fn scan(scanner: &Scanner, b: &Bundle) -> Report {
    match &b.base {
        None => scanner.scan(&as_scan(&b.files)),
        Some(base) => {
            let report = scanner.scan_delta(&as_scan(base), &as_scan(&b.files));
            Report::new(
                report
                    .findings
                    .into_iter()
                    .filter(|f| f.introduced == Some(true))
                    .collect(),
            )
        }
    }
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
    while let Some(a) = args.next() {
        if a == "--verdicts" {
            verdicts_out = args.next().map(PathBuf::from);
        } else if a == "--cases" {
            case_sets.extend(args.next().map(PathBuf::from));
        }
    }
    let scanner = Scanner::builtin().expect("built-in rules compile");
    let mut log = verdicts_out.map(|p| std::fs::File::create(p).expect("create the verdicts file"));
    let mut elapsed = Duration::ZERO;
    let mut bytes_scanned = 0usize;
    let mut run = |b: &Bundle| {
        let started = Instant::now();
        let report = scan(scanner, b);
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
    let malicious = corpus.join("malicious");
    let labels = std::fs::read_to_string(malicious.join("labels.jsonl")).expect("malicious/labels.jsonl");
    let mut by_label: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_category: BTreeMap<String, Tally> = BTreeMap::new();
    let mut inject_cache: HashMap<String, serde_json::Value> = HashMap::new();
    for line in labels.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("a JSON label");
        let path = entry["path"].as_str().unwrap_or_default();
        let label = entry["label"].as_str().unwrap_or_default().to_owned();
        let split = part(path.split('/').next().unwrap_or_default());
        let b = if let Some((file, id)) = path.split_once("#id=") {
            let items = inject_cache.entry(file.to_owned()).or_insert_with(|| {
                serde_json::from_str(&std::fs::read_to_string(malicious.join(file)).expect("injection file"))
                    .expect("JSON")
            });
            let item = items.as_array().and_then(|a| {
                a.iter()
                    .find(|i| i["id"].as_i64().map(|n| n.to_string()).as_deref() == Some(id))
            });
            let text = item.map_or(String::new(), |i| {
                format!(
                    "---\nname: injected\ndescription: {}\n---\n{}\n",
                    i["instructions"]["description_injection"].as_str().unwrap_or(""),
                    i["instructions"]["line_injection"].as_str().unwrap_or("")
                )
            });
            Bundle {
                set: "malicious".into(),
                path: path.into(),
                files: vec![("SKILL.md".into(), text.into_bytes())],
                base: None,
            }
        } else if malicious.join(path).is_file() {
            let bytes = std::fs::read(malicious.join(path)).unwrap_or_default();
            Bundle {
                set: "malicious".into(),
                path: path.into(),
                files: vec![("SKILL.md".into(), bytes)],
                base: None,
            }
        } else {
            let mut b = bundle("malicious", &malicious.join(path));
            b.path = path.into();
            b
        };
        let verdict = run(&b).verdict;
        by_label.entry(format!("{label} ({split})")).or_default().add(verdict);
        by_label.entry(format!("{label} (all)")).or_default().add(verdict);
        if label == "malicious" {
            for c in entry["categories"].as_array().into_iter().flatten() {
                by_category
                    .entry(format!("{} ({split})", c.as_str().unwrap_or("?")))
                    .or_default()
                    .add(verdict);
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
        let mut sources: Vec<PathBuf> = std::fs::read_dir(corpus.join(set))
            .expect("corpus set")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        sources.sort();
        for source in sources {
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

fn as_scan(files: &[(String, Vec<u8>)]) -> Vec<ScanFile<'_>> {
    files
        .iter()
        .map(|(p, b)| ScanFile {
            path: p,
            bytes: b,
            executable: false,
        })
        .collect()
}

/// One entry of a case set's `cases.toml`.
#[derive(serde::Deserialize)]
struct Case {
    id: String,
    kind: String,
    label: String,
    category: String,
    #[serde(default)]
    evasive: bool,
    expect: String,
}

#[derive(serde::Deserialize)]
struct CaseFile {
    case: Vec<Case>,
}

/// Scans a case set and prints its tables: per label and kind, per category, evasive.
fn cases(dir: &Path, run: &mut dyn FnMut(&Bundle) -> Report) {
    let text = std::fs::read_to_string(dir.join("cases.toml")).expect("cases.toml in the case set");
    let file: CaseFile = toml::from_str(&text).expect("a valid cases.toml");
    let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
    let mut by_category: BTreeMap<String, Tally> = BTreeMap::new();
    let mut expected: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut missed = Vec::new();
    for case in &file.case {
        let mut b = if case.kind == "patch" {
            let dir = dir.join("patches").join(&case.id);
            let mut new = bundle(&format!("cases:{name}"), &dir.join("new"));
            new.base = Some(bundle(&format!("cases:{name}"), &dir.join("base")).files);
            new
        } else {
            bundle(&format!("cases:{name}"), &dir.join("skills").join(&case.id))
        };
        b.path = case.id.clone();
        let verdict = run(&b).verdict;
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
    println!("\n## Case set `{name}` ({} cases)\n", file.case.len());
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
