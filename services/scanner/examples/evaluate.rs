//! Evaluates the scanner on the test corpus (docs/SECURITY-SCANNER.md):
//!
//! ```sh
//! cargo run --release -p cairn-scanner --example evaluate -- ../shared/corpus [--verdicts out.jsonl]
//! ```
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

struct Bundle {
    set: String,
    path: String,
    files: Vec<(String, Vec<u8>)>,
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
    }
}

fn scan(scanner: &Scanner, b: &Bundle) -> Report {
    let inputs: Vec<ScanFile<'_>> = b
        .files
        .iter()
        .map(|(p, bytes)| ScanFile {
            path: p,
            bytes,
            executable: false,
        })
        .collect();
    scanner.scan(&inputs)
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
    while let Some(a) = args.next() {
        if a == "--verdicts" {
            verdicts_out = args.next().map(PathBuf::from);
        }
    }
    let scanner = Scanner::builtin().expect("built-in rules compile");
    let mut log = verdicts_out.map(|p| std::fs::File::create(p).expect("create the verdicts file"));
    let mut elapsed = Duration::ZERO;
    let mut bytes_scanned = 0usize;
    let mut run = |b: &Bundle| {
        let started = Instant::now();
        let report = scan(scanner, b);
        elapsed += started.elapsed();
        bytes_scanned += b.files.iter().map(|(_, x)| x.len()).sum::<usize>();
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
            }
        } else if malicious.join(path).is_file() {
            let bytes = std::fs::read(malicious.join(path)).unwrap_or_default();
            Bundle {
                set: "malicious".into(),
                path: path.into(),
                files: vec![("SKILL.md".into(), bytes)],
            }
        } else {
            let mut b = bundle("malicious", &malicious.join(path));
            b.path = path.into();
            b
        };
        let verdict = run(&b).verdict;
        by_label.entry(label.clone()).or_default().add(verdict);
        if label == "malicious" {
            for c in entry["categories"].as_array().into_iter().flatten() {
                by_category
                    .entry(c.as_str().unwrap_or("?").to_owned())
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
            println!("{}", t.row(&source.file_name().unwrap_or_default().to_string_lossy()));
        }
        println!("{}", total.row("**all**"));
        let mut top: Vec<(String, usize)> = rules.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        println!("\nTop rules (bundles with a medium-or-worse finding of the rule):\n");
        for (rule, n) in top.iter().take(12) {
            println!("- `{rule}`: {n}");
        }
    }
    println!(
        "\nScanned {:.1} MB in {:.2} s: {:.1} MB/s (one core, release build).",
        bytes_scanned as f64 / 1e6,
        elapsed.as_secs_f64(),
        bytes_scanned as f64 / 1e6 / elapsed.as_secs_f64().max(1e-9)
    );
}
