//! Concurrent lessons on real skills (docs/BENCHMARKS.md, "Concurrent lessons"):
//!
//! ```sh
//! cargo bench -p cairn-e2e --bench lessons     # needs PostgreSQL (DATABASE_URL)
//! ```
//!
//! K curated skills with a pitfalls or troubleshooting list are imported; for each, N
//! agents (N = 5, 20, 50) each submit one lesson against revision 1, as `cairn push`
//! does (an `edit` of the whole SKILL.md), in four shapes taken in turn: a new bullet at
//! the end of the list, a new bullet under its first item, a note on a distinct existing
//! line, a new section at the end. 20 % of the agents report a lesson another agent
//! already reported, worded differently (the held-out half of `tests/data/lessons.json`:
//! the duplicate measure was tuned on the other half). A reviewer then goes through the
//! queue in submission order: a patch grouped with others is approved with
//! `close_duplicates` (one action), any other one approved (one action). Counted: lessons
//! landed, lost (conflict) and wrong merges (a published text whose lines do not add up
//! to the base plus exactly the lessons approved), duplicates grouped and distinct
//! lessons grouped wrongly, reviewer actions, and each approval's latency. The same
//! lessons run through `git merge-file` (each agent's file onto the accumulated result,
//! in the same order) as the anchor.

#![allow(missing_docs)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cairn_e2e::app::{TestApp, text_of};
use cairn_store::Role;
use serde_json::{Value, json};

const SKILLS: usize = 8;
const AGENTS: [usize; 3] = [5, 20, 50];

/// Where a lesson goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    EndOfList,
    UnderFirstItem,
    NoteOnLine,
    NewSection,
}

struct Skill {
    name: String,
    text: String,
    /// Line index (0-based) of the pitfalls list's first item, and one past its last
    /// line.
    list: (usize, usize),
    /// One past the first item's last line.
    first_item_end: usize,
    /// Lines a note can be appended to.
    prose: Vec<usize>,
}

/// One agent's lesson.
#[derive(Clone, Debug)]
struct Lesson {
    /// The bank's lesson (duplicates share it).
    bank: usize,
    text: String,
    shape: Shape,
    /// For a note: the line it is appended to.
    line: Option<usize>,
    duplicate: bool,
}

fn bank() -> Vec<Vec<String>> {
    let path = cairn_e2e::repo_root().join("tests/data/lessons.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["id"].as_u64().unwrap() % 2 == 1)
        .map(|l| {
            l["wordings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w.as_str().unwrap().replace('\n', " "))
                .collect()
        })
        .collect()
}

/// The pitfalls list of a SKILL.md: the first top-level bullet list under a heading that
/// mentions pitfalls or troubleshooting.
fn analyse(name: &str, text: &str) -> Option<Skill> {
    let lines: Vec<&str> = text.lines().collect();
    let heading = lines.iter().position(|l| {
        let l = l.to_lowercase();
        l.starts_with('#') && (l.contains("pitfall") || l.contains("troubleshoot"))
    })?;
    let start = (heading + 1..lines.len()).find(|&i| lines[i].starts_with("- "))?;
    if lines[heading + 1..start].iter().any(|l| l.starts_with('#')) {
        return None;
    }
    let mut end = start;
    let mut first_item_end = None;
    for (i, line) in lines.iter().enumerate().skip(start) {
        if line.starts_with("- ") || (line.starts_with("  ") && !line.trim().is_empty()) {
            end = i + 1;
            if i > start && line.starts_with("- ") && first_item_end.is_none() {
                first_item_end = Some(i);
            }
        } else {
            break;
        }
    }
    let mut in_fence = false;
    let mut body = false;
    let mut prose = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 && *line == "---" && !body {
            body = true;
            continue;
        }
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let plain = !line.trim().is_empty()
            && !line.starts_with('#')
            && !line.starts_with('|')
            && !line.starts_with(' ')
            && line.len() > 30;
        if body && !in_fence && plain && !(start..end).contains(&i) {
            prose.push(i);
        }
    }
    (end - start >= 2 && prose.len() >= 4).then(|| Skill {
        name: name.to_owned(),
        text: text.to_owned(),
        list: (start, end),
        first_item_end: first_item_end.unwrap_or(end),
        prose,
    })
}

fn skills(root: &Path) -> Vec<Skill> {
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md")
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                found.push((path, text));
            }
        }
    }
    found.sort();
    let mut out = Vec::new();
    for (i, (path, text)) in found.iter().enumerate() {
        let name = format!("lesson-skill-{i}");
        let valid = text.starts_with("---\n") && text.len() < 40_000;
        if valid && let Some(skill) = analyse(&name, &text.replace("\r\n", "\n")) {
            let _ = path;
            out.push(skill);
        }
    }
    // Spread over the corpus rather than the first folder alone.
    let step = (out.len() / SKILLS).max(1);
    out.into_iter().step_by(step).take(SKILLS).collect()
}

fn lessons(skill: &Skill, n: usize, bank: &[Vec<String>], offset: usize) -> Vec<Lesson> {
    let duplicates = n / 5;
    let distinct = n - duplicates;
    let mut out = Vec::new();
    for i in 0..distinct {
        let shape = [
            Shape::EndOfList,
            Shape::UnderFirstItem,
            Shape::NoteOnLine,
            Shape::NewSection,
        ][i % 4];
        let b = (offset + i) % bank.len();
        out.push(Lesson {
            bank: b,
            text: bank[b][0].clone(),
            shape,
            line: (shape == Shape::NoteOnLine).then(|| skill.prose[(i / 4) % skill.prose.len()]),
            duplicate: false,
        });
    }
    // Duplicates: another wording of a distinct lesson, as a new bullet, arriving after
    // it (interleaved through the second half of the queue).
    for d in 0..duplicates {
        let of = d * distinct / duplicates.max(1);
        let b = out[of].bank;
        let lesson = Lesson {
            bank: b,
            text: bank[b][1 + d % 2].clone(),
            shape: Shape::EndOfList,
            line: None,
            duplicate: true,
        };
        let at = (of + 1 + (distinct - of) / 2).min(out.len());
        out.insert(at, lesson);
    }
    out
}

/// The skill's text with one lesson added.
fn with_lesson(skill: &Skill, lesson: &Lesson) -> String {
    let mut lines: Vec<String> = skill.text.lines().map(str::to_owned).collect();
    match lesson.shape {
        Shape::EndOfList => lines.insert(skill.list.1, format!("- {}", lesson.text)),
        Shape::UnderFirstItem => lines.insert(skill.first_item_end, format!("  - {}", lesson.text)),
        Shape::NoteOnLine => {
            let i = lesson.line.unwrap();
            lines[i] = format!("{} (note: {})", lines[i], lesson.text);
        }
        Shape::NewSection => {
            let title: String = lesson.text.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
            lines.push(String::new());
            lines.push(format!("## Lesson: {}", title.replace(['`', '*', '#'], "")));
            lines.push(String::new());
            lines.push(lesson.text.clone());
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// What a text must be, as a multiset of lines, once `landed` lessons are in.
fn expected_lines(skill: &Skill, landed: &[&Lesson]) -> BTreeMap<String, i64> {
    let mut counts: BTreeMap<String, i64> = BTreeMap::new();
    let base = skill.text.clone();
    for line in base.lines() {
        *counts.entry(line.to_owned()).or_default() += 1;
    }
    for lesson in landed {
        let one = with_lesson(skill, lesson);
        let mut delta: BTreeMap<String, i64> = BTreeMap::new();
        for line in one.lines() {
            *delta.entry(line.to_owned()).or_default() += 1;
        }
        for line in base.lines() {
            *delta.entry(line.to_owned()).or_default() -= 1;
        }
        for (line, d) in delta {
            *counts.entry(line).or_default() += d;
        }
    }
    counts.retain(|_, n| *n != 0);
    counts
}

fn line_counts(text: &str) -> BTreeMap<String, i64> {
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        *counts.entry(line.to_owned()).or_default() += 1;
    }
    counts
}

/// Notes on one line by two lessons change the same original line: those may conflict.
fn shares_a_line(lessons: &[Lesson], i: usize) -> bool {
    lessons[i]
        .line
        .is_some_and(|l| lessons.iter().enumerate().any(|(j, o)| j != i && o.line == Some(l)))
}

#[derive(Default)]
struct Tally {
    distinct: usize,
    landed: usize,
    lost: usize,
    lost_sharing_a_line: usize,
    /// Distinct lessons closed as the duplicate of another lesson (a wrong group closed
    /// by the one-action approval).
    lost_as_duplicate: usize,
    wrong: usize,
    duplicates: usize,
    grouped: usize,
    wrongly_grouped: usize,
    actions: usize,
    approvals: Vec<Duration>,
    git_landed: usize,
    git_lost: usize,
    git_wrong: usize,
}

async fn send(app: &TestApp, token: &str, path: &str, body: Value) -> (reqwest::StatusCode, Value) {
    let response = app
        .client
        .post(app.url(path))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

async fn get(app: &TestApp, path: &str) -> Value {
    app.get(path).send().await.unwrap().json().await.unwrap()
}

fn git_merge(dir: &Path, current: &str, base: &str, other: &str) -> Option<String> {
    std::fs::write(dir.join("current"), current).unwrap();
    std::fs::write(dir.join("base"), base).unwrap();
    std::fs::write(dir.join("other"), other).unwrap();
    let out = std::process::Command::new("git")
        .arg("merge-file")
        .arg("-p")
        .arg(dir.join("current"))
        .arg(dir.join("base"))
        .arg(dir.join("other"))
        .output()
        .expect("git is installed");
    (out.status.code() == Some(0)).then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

async fn run_one(n: usize, skills: &[Skill], bank: &[Vec<String>]) -> Tally {
    let app = TestApp::spawn().await.unwrap();
    let tree = tempfile::tempdir().unwrap();
    for skill in skills {
        let dir = tree.path().join(&skill.name);
        std::fs::create_dir_all(&dir).unwrap();
        // The folder name is the skill's name; the frontmatter name follows it.
        let text = skill.text.clone();
        std::fs::write(dir.join("SKILL.md"), text).unwrap();
    }
    app.import(tree.path()).await.unwrap();
    let (_, reviewer) = app.user_with_token("reviewer", Role::Reviewer).await.unwrap();
    let mut agents = Vec::new();
    for i in 0..n {
        agents.push(
            app.user_with_token(&format!("agent-{i}"), Role::Member)
                .await
                .unwrap()
                .1,
        );
    }
    let scratch = tempfile::tempdir().unwrap();
    let mut tally = Tally::default();
    for (k, skill) in skills.iter().enumerate() {
        let lessons = lessons(skill, n, bank, k * 7);
        // Every agent submits against revision 1.
        let mut ids = Vec::new();
        for (i, lesson) in lessons.iter().enumerate() {
            let body = json!({
                "skill": skill.name, "base_revision": 1, "summary": format!("lesson {i}"),
                "agent": {"name": format!("agent-{i}"), "model": "bench"},
                "ops": [{"op": "edit", "content": with_lesson(skill, lesson)}],
            });
            let (status, patch) = send(&app, &agents[i], "/v1/patches", body).await;
            assert_eq!(status, reqwest::StatusCode::CREATED, "{patch}");
            ids.push(patch["id"].as_str().unwrap().to_owned());
        }
        // Duplicate marks as submitted.
        let mut group_of: Vec<Option<String>> = Vec::new();
        for id in &ids {
            group_of.push(
                get(&app, &format!("/v1/patches/{id}")).await["duplicate_group"]
                    .as_str()
                    .map(str::to_owned),
            );
        }
        for (i, lesson) in lessons.iter().enumerate() {
            if lesson.duplicate {
                tally.duplicates += 1;
                let original = lessons
                    .iter()
                    .position(|l| !l.duplicate && l.bank == lesson.bank)
                    .unwrap();
                if group_of[i].is_some() && group_of[i] == group_of[original] {
                    tally.grouped += 1;
                }
            } else {
                tally.distinct += 1;
                let others = lessons.iter().enumerate().any(|(j, o)| {
                    j != i && o.bank != lesson.bank && group_of[j].is_some() && group_of[j] == group_of[i]
                });
                if others {
                    tally.wrongly_grouped += 1;
                }
            }
        }
        // The reviewer goes through the queue in submission order.
        let mut landed: Vec<&Lesson> = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            let now = get(&app, &format!("/v1/patches/{id}")).await;
            if now["status"] != "pending_review" {
                continue;
            }
            let grouped = now["duplicate_group"].is_string();
            let started = Instant::now();
            let (status, answer) = send(
                &app,
                &reviewer,
                &format!("/v1/patches/{id}/approve"),
                json!({ "close_duplicates": grouped }),
            )
            .await;
            tally.approvals.push(started.elapsed());
            tally.actions += 1;
            if status == reqwest::StatusCode::OK {
                landed.push(&lessons[i]);
            } else if !lessons[i].duplicate {
                tally.lost += 1;
                if shares_a_line(&lessons, i) {
                    tally.lost_sharing_a_line += 1;
                }
                let _ = answer;
            }
        }
        // Distinct lessons closed as someone else's duplicate are lost too.
        for (i, id) in ids.iter().enumerate() {
            let p = get(&app, &format!("/v1/patches/{id}")).await;
            if p["status"] == "duplicate" && !lessons[i].duplicate {
                let of = p["duplicate_of"].as_str().unwrap_or_default();
                let j = ids.iter().position(|x| x == of);
                if j.is_none_or(|j| lessons[j].bank != lessons[i].bank) {
                    tally.lost += 1;
                    tally.lost_as_duplicate += 1;
                }
            }
        }
        tally.landed += landed.iter().filter(|l| !l.duplicate).count();
        let final_text = text_of(app.get(&format!("/v1/skills/{}/versions/latest/files/SKILL.md", skill.name))).await;
        if line_counts(&final_text) != expected_lines(skill, &landed) {
            tally.wrong += 1;
        }

        // The anchor: git merge-file, each agent's file onto the accumulated result.
        let mut acc = skill.text.clone();
        let mut git_landed: Vec<&Lesson> = Vec::new();
        for lesson in &lessons {
            match git_merge(scratch.path(), &acc, &skill.text, &with_lesson(skill, lesson)) {
                Some(merged) => {
                    acc = merged;
                    git_landed.push(lesson);
                    if !lesson.duplicate {
                        tally.git_landed += 1;
                    }
                }
                None if !lesson.duplicate => tally.git_lost += 1,
                None => {}
            }
        }
        if line_counts(&acc) != expected_lines(skill, &git_landed) {
            tally.git_wrong += 1;
        }
    }
    tally
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let skills = skills(&cairn_e2e::corpus().join("skills"));
    let bank = bank();
    println!(
        "{} skills: {}",
        skills.len(),
        skills
            .iter()
            .map(|s| format!("{} ({} list items)", s.name, s.list.1 - s.list.0))
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "\n| N agents per skill | distinct lessons | landed | lost (notes on a shared line / closed as another's duplicate) | wrong merges (skills) | duplicates grouped | distinct lessons grouped wrongly | reviewer actions | approve p50 | approve p99 | git merge-file: landed / lost / wrong |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    for n in AGENTS {
        let t = rt.block_on(run_one(n, &skills, &bank));
        let mut a = t.approvals.clone();
        a.sort_unstable();
        let at = |q: f64| a[((a.len() as f64 * q) as usize).min(a.len() - 1)].as_secs_f64() * 1e3;
        println!(
            "| {n} | {} | {} ({:.1} %) | {} ({} / {}) | {} | {} of {} ({:.0} %) | {} ({:.1} %) | {} | {:.1} ms | {:.1} ms | {} / {} / {} |",
            t.distinct,
            t.landed,
            t.landed as f64 / t.distinct as f64 * 100.0,
            t.lost,
            t.lost_sharing_a_line,
            t.lost_as_duplicate,
            t.wrong,
            t.grouped,
            t.duplicates,
            t.grouped as f64 / t.duplicates.max(1) as f64 * 100.0,
            t.wrongly_grouped,
            t.wrongly_grouped as f64 / t.distinct as f64 * 100.0,
            t.actions,
            at(0.5),
            at(0.99),
            t.git_landed,
            t.git_lost,
            t.git_wrong,
        );
    }
}
