//! `cairn skill patch`: one `patch` op applied to a local skill with the very matcher the
//! registry uses, so an agent without a tolerant patcher of its own gets one; and a batch
//! mode (JSON lines in, JSON lines out) for agents and benchmarks.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use cairn_pipeline::{Applied, Candidate, Edit, MatchError, apply};
use cairn_skill::path::RelPath;
use serde::{Deserialize, Serialize};

/// Exit code: the edit was applied (or was already in place).
pub const EXIT_APPLIED: u8 = 0;
/// Exit code: the command could not run (bad arguments, unreadable file).
pub const EXIT_ERROR: u8 = 2;
/// Exit code: the matcher refused (not found, ambiguous, or unsure); nothing was written.
pub const EXIT_REFUSED: u8 = 3;

/// One `cairn skill patch` invocation.
#[derive(Debug)]
pub struct PatchRequest {
    /// The skill's directory.
    pub skill_dir: PathBuf,
    /// The file to edit, relative to the skill directory.
    pub file: String,
    /// The text to find (already resolved from `@file`).
    pub old: String,
    /// Its replacement.
    pub new: String,
    /// Replace every occurrence.
    pub replace_all: bool,
    /// Show what would change without writing.
    pub dry_run: bool,
}

/// What one invocation did, printed as text or JSON.
#[derive(Debug, Serialize)]
pub struct PatchReport {
    /// Whether the edit is in the file (applied now or before).
    pub applied: bool,
    /// The file, relative to the skill directory.
    pub file: String,
    /// How `old` was found.
    pub strategy: Option<&'static str>,
    /// Similarity of the replaced text to `old`.
    pub similarity: Option<f64>,
    /// Places replaced.
    pub replacements: usize,
    /// First line of each replaced place (1-based).
    pub lines: Vec<usize>,
    /// Whether the file was written.
    pub written: bool,
    /// Unified diff of the change.
    pub diff: String,
    /// Why nothing was applied.
    pub error: Option<String>,
    /// The closest places, when `old` was not found or not certain.
    pub candidates: Vec<Candidate>,
}

/// Resolves a text argument: `@path` reads a file, `@@text` is the literal `@text`,
/// anything else is the text itself.
pub fn text_argument(value: &str) -> Result<String> {
    if let Some(literal) = value.strip_prefix("@@") {
        return Ok(format!("@{literal}"));
    }
    match value.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).with_context(|| {
            format!("cannot read {path} (an argument starting with @ names a file; write @@ for a literal @)")
        }),
        None => Ok(value.to_owned()),
    }
}

/// Applies the request; `Ok` carries the report (applied or refused), `Err` means the
/// command could not run.
pub fn run(request: &PatchRequest) -> Result<PatchReport> {
    let rel = RelPath::parse(&request.file).map_err(|e| {
        anyhow::anyhow!(
            "--file {:?}: {e}; give a path inside the skill, like SKILL.md or references/api.md",
            request.file
        )
    })?;
    if !request.skill_dir.is_dir() {
        bail!(
            "{} is not a directory: give the skill's folder",
            request.skill_dir.display()
        );
    }
    let path = request.skill_dir.join(rel.as_str());
    refuse_symlinks(&request.skill_dir, &rel)?;
    let bytes = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let content = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} is not UTF-8 text: the patch op edits text files only (write_file replaces others)",
            path.display()
        )
    })?;
    let edit = Edit {
        old: &request.old,
        new: &request.new,
        replace_all: request.replace_all,
    };
    let mut report = PatchReport {
        applied: false,
        file: rel.as_str().to_owned(),
        strategy: None,
        similarity: None,
        replacements: 0,
        lines: Vec::new(),
        written: false,
        diff: String::new(),
        error: None,
        candidates: Vec::new(),
    };
    match apply(&content, edit) {
        Ok(applied) => {
            report.diff = unified_diff(&content, &applied.content, rel.as_str());
            if applied.replacements > 0 && !request.dry_run {
                write_atomically(&path, &applied.content)?;
                report.written = true;
            }
            fill(&mut report, &applied);
        }
        Err(error) => {
            report.candidates = match &error {
                MatchError::NotFound { candidates } => candidates.clone(),
                MatchError::Unsure { candidate } => vec![candidate.clone()],
                _ => Vec::new(),
            };
            report.error = Some(error.to_string());
        }
    }
    Ok(report)
}

/// Refuses a file that is, or lies under, a symbolic link inside the skill: a link could
/// point outside the skill, and writing would replace the link by a file.
fn refuse_symlinks(skill_dir: &Path, rel: &RelPath) -> Result<()> {
    let mut path = skill_dir.to_path_buf();
    for segment in rel.segments() {
        path.push(segment);
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            bail!(
                "{} is a symbolic link: skills hold plain files; edit the file it points to directly",
                path.display()
            );
        }
    }
    Ok(())
}

fn fill(report: &mut PatchReport, applied: &Applied) {
    report.applied = true;
    report.strategy = Some(applied.strategy.as_str());
    report.similarity = Some(applied.similarity);
    report.replacements = applied.replacements;
    report.lines = applied.lines.clone();
}

/// Prints the report for a person.
pub fn print_text(report: &PatchReport, dry_run: bool, out: &mut impl Write) -> std::io::Result<()> {
    if let Some(error) = &report.error {
        writeln!(out, "{}: not applied: {error}", report.file)?;
        for c in &report.candidates {
            writeln!(
                out,
                "  lines {}–{} ({:.0}% similar):",
                c.start_line,
                c.end_line,
                c.similarity * 100.0
            )?;
            for line in c.preview.lines() {
                writeln!(out, "    | {line}")?;
            }
        }
        return Ok(());
    }
    if report.replacements == 0 {
        return writeln!(out, "{}: already applied, nothing to change", report.file);
    }
    let places = report.lines.iter().map(usize::to_string).collect::<Vec<_>>().join(", ");
    writeln!(
        out,
        "{}: replaced {} place{} at line {places} ({}, similarity {:.2})",
        report.file,
        report.replacements,
        if report.replacements == 1 { "" } else { "s" },
        report.strategy.unwrap_or("?"),
        report.similarity.unwrap_or(0.0)
    )?;
    if dry_run {
        writeln!(out, "dry run: nothing written\n{}", report.diff)?;
    }
    Ok(())
}

fn unified_diff(before: &str, after: &str, name: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string()
}

/// Writes through a temporary file in the same directory and renames it into place, so
/// an interrupted write never leaves half a file; the file keeps its permissions.
fn write_atomically(path: &Path, content: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut temp =
        tempfile::NamedTempFile::new_in(dir).with_context(|| format!("cannot write in {}", dir.display()))?;
    temp.write_all(content.as_bytes())?;
    let permissions = std::fs::metadata(path)?.permissions();
    std::fs::set_permissions(temp.path(), permissions)?;
    temp.persist(path)
        .map_err(|e| anyhow::anyhow!("cannot replace {}: {}", path.display(), e.error))?;
    Ok(())
}

/// One line of `--batch` input (other keys, such as a case id, are ignored).
#[derive(Debug, Deserialize)]
struct BatchInput {
    content: String,
    old: String,
    new: String,
    #[serde(default)]
    replace_all: bool,
}

/// One line of `--batch` output.
#[derive(Debug, Serialize)]
struct BatchOutput {
    applied: bool,
    content: Option<String>,
    strategy: Option<&'static str>,
    similarity: Option<f64>,
    error: Option<String>,
    /// Time of the match and replacement alone, in microseconds.
    micros: f64,
}

/// `--batch`: one JSON object per input line (`content`, `old`, `new`, `replace_all`),
/// one JSON object per output line (`applied`, `content`, `strategy`, `similarity`,
/// `error`, `micros`), in order. Blank lines are skipped; a line that is not valid input
/// (not JSON, not UTF-8) gets an output line with its error, and the batch goes on.
pub fn run_batch(input: impl BufRead, mut output: impl Write) -> Result<()> {
    for (number, line) in input.split(b'\n').enumerate() {
        let line = line.context("cannot read the batch input")?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let result = match serde_json::from_slice::<BatchInput>(&line) {
            Err(e) => BatchOutput {
                applied: false,
                content: None,
                strategy: None,
                similarity: None,
                error: Some(format!(
                    "input line {}: {e}; expected {{\"content\", \"old\", \"new\", \"replace_all\"}}",
                    number + 1
                )),
                micros: 0.0,
            },
            Ok(case) => {
                let started = Instant::now();
                let result = apply(
                    &case.content,
                    Edit {
                        old: &case.old,
                        new: &case.new,
                        replace_all: case.replace_all,
                    },
                );
                let micros = started.elapsed().as_secs_f64() * 1e6;
                match result {
                    Ok(applied) => BatchOutput {
                        applied: true,
                        strategy: Some(applied.strategy.as_str()),
                        similarity: Some(applied.similarity),
                        content: Some(applied.content),
                        error: None,
                        micros,
                    },
                    Err(e) => BatchOutput {
                        applied: false,
                        content: None,
                        strategy: None,
                        similarity: None,
                        error: Some(e.to_string()),
                        micros,
                    },
                }
            }
        };
        serde_json::to_writer(&mut output, &result)?;
        output.write_all(b"\n")?;
    }
    output.flush()?;
    Ok(())
}
