//! `cairn-registry scan <dir>`: runs the security scanner over every file under a
//! directory — dot-files included, since a bundle arriving from outside may hide things
//! there — and exits with a code that says the verdict.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use cairn_scanner::{ScanFile, Scanner, Verdict};

/// Exit code of a `safe` verdict.
pub const EXIT_SAFE: u8 = 0;
/// Exit code when the scan could not run (bad directory, unreadable file).
pub const EXIT_ERROR: u8 = 2;
/// Exit code of a `caution` verdict.
pub const EXIT_CAUTION: u8 = 3;
/// Exit code of a `dangerous` verdict.
pub const EXIT_DANGEROUS: u8 = 4;

/// Scans `dir` and prints the report (JSON with `json`; with `explain`, why each rule
/// fires); returns the verdict's exit code.
pub fn run(dir: &Path, json: bool, explain: bool) -> ExitCode {
    match scan(dir, json, explain) {
        Ok(Verdict::Safe) => ExitCode::from(EXIT_SAFE),
        Ok(Verdict::Caution) => ExitCode::from(EXIT_CAUTION),
        Ok(Verdict::Dangerous) => ExitCode::from(EXIT_DANGEROUS),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

fn scan(dir: &Path, json: bool, explain: bool) -> Result<Verdict> {
    let meta =
        std::fs::metadata(dir).with_context(|| format!("cannot read {}: give a directory to scan", dir.display()))?;
    anyhow::ensure!(
        meta.is_dir(),
        "{} is not a directory: give the skill's folder",
        dir.display()
    );
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    let inputs: Vec<ScanFile<'_>> = files
        .iter()
        .map(|(path, bytes, executable)| ScanFile {
            path,
            bytes,
            executable: *executable,
        })
        .collect();
    let scanner = Scanner::builtin().context("the built-in scanner rules are broken (a build defect): report it")?;
    let report = scanner.scan(&inputs);
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        for f in &report.findings {
            println!(
                "{}:{}:{}: {} [{}] {}\n    {}\n    hint: {}",
                f.file,
                f.line,
                f.column,
                severity_name(f.severity),
                f.rule,
                f.message,
                f.excerpt,
                f.hint
            );
            if explain {
                println!("    why: {}", scanner.explain(&f.rule));
            }
        }
        println!(
            "{}: {} finding(s) in {} file(s)",
            report.verdict.as_str(),
            report.findings.len(),
            files.len()
        );
    }
    Ok(report.verdict)
}

fn severity_name(s: cairn_scanner::Severity) -> &'static str {
    match s {
        cairn_scanner::Severity::Info => "info",
        cairn_scanner::Severity::Low => "low",
        cairn_scanner::Severity::Medium => "medium",
        cairn_scanner::Severity::High => "high",
        cairn_scanner::Severity::Critical => "critical",
    }
}

/// Every regular file under `dir`, as (path relative to `root` with `/`, bytes, executable).
/// Symbolic links are not followed (a bundle never contains them).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>, bool)>) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading {}", dir.display()))?;
    entries.sort();
    for path in entries {
        let meta = std::fs::symlink_metadata(&path).with_context(|| format!("reading {}", path.display()))?;
        if meta.is_dir() {
            collect(root, &path, out)?;
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            out.push((relative, bytes, meta.permissions().mode() & 0o111 != 0));
        }
    }
    Ok(())
}
