//! Chooses and checks the duplicate-lesson measure (docs/BENCHMARKS.md, "Duplicate
//! lessons"):
//!
//! ```sh
//! cargo run --release -p cairn-pipeline --example duplicates -- tests/data/lessons.json ../shared/corpus/skills
//! ```
//!
//! The lesson bank holds hand-written lessons, each in three wordings as different agents
//! would write them. Lessons with even ids are the tuning half, odd ids the held-out
//! half. For each measure the pairwise rates are printed (same lesson: recall; different
//! lessons of one topic and of other topics: false matches), then a review queue is
//! simulated the way the registry marks duplicates: for each of several real curated
//! skills, 50 patches arrive (40 distinct lessons, 10 more wordings of some of them),
//! each compared with the lessons already open and with the skill's own text; a patch is
//! grouped with its best match when that reaches the threshold. The threshold is chosen
//! on the tuning half (most duplicates grouped with at most 2 % of distinct lessons
//! grouped wrongly) and reported on the held-out half.
//!
//! The bank's lessons are about other things than the skills they are queued on, so it
//! cannot show what a real skill's own subject does to the measure. The optional third
//! argument, `tests/data/skill-lessons.json`, holds lessons written for 24 real curated
//! skills (four distinct ones each, one a close sibling of another; a second wording of
//! two; two that only restate a line the skill already has): per skill they arrive in
//! that order and the same marks are counted — distinct lessons marked as anything,
//! second wordings grouped with their first, restatements marked at their line — for the
//! odd-numbered skills (where the skill weighting was chosen) and the even ones.

#![allow(missing_docs)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cairn_pipeline::lesson::{MIN_FEATURES, Measure, Vocabulary, blocks, features, likeness};

struct Lesson {
    id: u64,
    topic: String,
    wordings: Vec<String>,
}

fn bank(path: &Path) -> Vec<Lesson> {
    let text = std::fs::read_to_string(path).expect("the lesson bank (tests/data/lessons.json)");
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    json["lessons"]
        .as_array()
        .expect("a lessons list")
        .iter()
        .map(|l| Lesson {
            id: l["id"].as_u64().unwrap_or(0),
            topic: l["topic"].as_str().unwrap_or_default().to_owned(),
            wordings: l["wordings"]
                .as_array()
                .map(|w| w.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect())
                .unwrap_or_default(),
        })
        .collect()
}

/// Curated skills with a pitfalls or troubleshooting section, sorted by path.
fn skills(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "SKILL.md")
                && let Ok(text) = std::fs::read_to_string(&path)
                && text.lines().any(|l| {
                    let l = l.to_lowercase();
                    l.starts_with('#') && (l.contains("pitfall") || l.contains("troubleshoot"))
                })
            {
                found.push((path, text));
            }
        }
    }
    found.sort();
    found.into_iter().map(|(_, t)| t).collect()
}

fn variants() -> Vec<(&'static str, Measure)> {
    let base = Measure {
        skill_weighting: 0.0,
        ..Measure::CHOSEN
    };
    vec![
        (
            "words",
            Measure {
                code_tokens: false,
                ..base
            },
        ),
        (
            "words, unstemmed, with function words",
            Measure {
                code_tokens: false,
                stem: false,
                stopwords: false,
                ..base
            },
        ),
        (
            "words + word pairs",
            Measure {
                code_tokens: false,
                word_pairs: true,
                ..base
            },
        ),
        (
            "words, containment",
            Measure {
                code_tokens: false,
                containment: true,
                ..base
            },
        ),
        ("words + technical tokens", base),
        (
            "words + technical tokens + word pairs",
            Measure {
                word_pairs: true,
                ..base
            },
        ),
        (
            "words + technical tokens, weighted by the skill's text, exponent 1",
            Measure {
                skill_weighting: 1.0,
                ..base
            },
        ),
        (
            "words + technical tokens, weighted by the skill's text, exponent 1.5 (chosen)",
            Measure::CHOSEN,
        ),
        (
            "words + technical tokens, weighted by the skill's text, exponent 2",
            Measure {
                skill_weighting: 2.0,
                ..base
            },
        ),
    ]
}

fn sim(a: &BTreeSet<String>, b: &BTreeSet<String>, m: &Measure, v: &Vocabulary) -> f64 {
    if a.len() < MIN_FEATURES || b.len() < MIN_FEATURES {
        0.0
    } else {
        likeness(a, b, m, v)
    }
}

/// Pairwise scores of one half: (same lesson, same topic, other topics).
fn pair_scores(lessons: &[&Lesson], m: &Measure) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let f: Vec<Vec<BTreeSet<String>>> = lessons
        .iter()
        .map(|l| l.wordings.iter().map(|w| features(w, m)).collect())
        .collect();
    let (mut same, mut topic, mut other) = (Vec::new(), Vec::new(), Vec::new());
    let sim = |a: &BTreeSet<String>, b: &BTreeSet<String>, m: &Measure| sim(a, b, m, &Vocabulary::default());
    for (i, li) in lessons.iter().enumerate() {
        for a in 0..f[i].len() {
            for b in a + 1..f[i].len() {
                same.push(sim(&f[i][a], &f[i][b], m));
            }
        }
        for (j, lj) in lessons.iter().enumerate().skip(i + 1) {
            for a in &f[i] {
                for b in &f[j] {
                    let s = sim(a, b, m);
                    if li.topic == lj.topic {
                        topic.push(s);
                    } else {
                        other.push(s);
                    }
                }
            }
        }
    }
    (same, topic, other)
}

fn rate(scores: &[f64], threshold: f64) -> f64 {
    if scores.is_empty() {
        return 0.0;
    }
    scores.iter().filter(|s| **s >= threshold).count() as f64 / scores.len() as f64
}

/// A tiny deterministic generator (the simulation must not depend on a seed crate).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// The queue simulation at one threshold: (duplicates grouped with their own lesson,
/// duplicates, distinct lessons grouped with anything, distinct lessons).
fn queue(lessons: &[&Lesson], skill_texts: &[String], m: &Measure, threshold: f64) -> (usize, usize, usize, usize) {
    let (mut grouped, mut dups, mut wrong, mut distinct) = (0, 0, 0, 0);
    let m = Measure { threshold, ..*m };
    for (k, skill) in skill_texts.iter().enumerate() {
        let mut rng = Lcg(k as u64 + 1);
        let skill_blocks: Vec<BTreeSet<String>> = blocks(skill).iter().map(|b| features(&b.text, &m)).collect();
        let vocabulary = Vocabulary::of([skill.as_str()], &m);
        let sim = |a: &BTreeSet<String>, b: &BTreeSet<String>, m: &Measure| sim(a, b, m, &vocabulary);
        // 40 distinct lessons (first wording), then 10 more wordings of 10 of them,
        // arriving shuffled after their first report.
        let mut order: Vec<usize> = (0..lessons.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.next(i + 1));
        }
        let chosen = &order[..40.min(order.len())];
        let mut arrivals: Vec<(usize, usize)> = chosen.iter().map(|&l| (l, 0)).collect();
        for (n, &l) in chosen.iter().take(10).enumerate() {
            let at = 1 + rng.next(arrivals.len());
            let wording = 1 + n % 2;
            let first = arrivals.iter().position(|&(x, w)| x == l && w == 0).unwrap_or(0);
            arrivals.insert(at.max(first + 1), (l, wording));
        }
        let mut open: Vec<(usize, BTreeSet<String>)> = Vec::new();
        for (lesson, wording) in arrivals {
            let mine = features(&lessons[lesson].wordings[wording], &m);
            let best_open = open
                .iter()
                .map(|(l, f)| (sim(&mine, f, &m), Some(*l)))
                .fold((0.0, None), |a, b| if b.0 > a.0 { b } else { a });
            let best_text = skill_blocks.iter().map(|f| sim(&mine, f, &m)).fold(0.0, f64::max);
            let (score, with) = if best_text > best_open.0 {
                (best_text, None)
            } else {
                best_open
            };
            let is_grouped = score >= threshold;
            if wording == 0 {
                distinct += 1;
                if is_grouped {
                    wrong += 1;
                }
            } else {
                dups += 1;
                if is_grouped && with == Some(lesson) {
                    grouped += 1;
                }
            }
            open.push((lesson, mine));
        }
    }
    (grouped, dups, wrong, distinct)
}

/// One skill of the skill-specific bank: its text and the lessons written for it.
struct SkillLessons {
    text: String,
    /// Distinct lessons, each with its second wording when it has one.
    lessons: Vec<(String, Option<String>)>,
    /// Restatements of a line the skill has: (the line, the lesson).
    repeats: Vec<(usize, String)>,
}

fn skill_bank(path: &Path, corpus: &Path) -> Vec<SkillLessons> {
    let text = std::fs::read_to_string(path).expect("the skill-specific lessons (tests/data/skill-lessons.json)");
    let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    json["skills"]
        .as_array()
        .expect("a skills list")
        .iter()
        .map(|skill| SkillLessons {
            text: std::fs::read_to_string(corpus.join(s(&skill["skill"]))).expect("the skill named in the bank"),
            lessons: skill["lessons"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|l| (s(&l["text"]), l["second"].as_str().map(str::to_owned)))
                .collect(),
            repeats: skill["repeats"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|r| (r["line"].as_u64().unwrap_or(0) as usize, s(&r["text"])))
                .collect(),
        })
        .collect()
}

/// What a match was: an open lesson (its index) or a block of the skill (its first line).
#[derive(Clone, Copy, PartialEq)]
enum Match {
    Lesson(usize),
    Line(usize),
}

/// Counts over some skills of the skill-specific bank: (distinct lessons marked as
/// anything, distinct lessons, second wordings grouped with their first, second
/// wordings, restatements marked at the block holding their line, restatements).
fn skill_queue(skills: &[&SkillLessons], m: &Measure) -> [usize; 6] {
    let mut counts = [0; 6];
    for skill in skills {
        let vocabulary = Vocabulary::of([skill.text.as_str()], m);
        let skill_blocks: Vec<(usize, BTreeSet<String>)> = blocks(&skill.text)
            .iter()
            .map(|b| (b.line, features(&b.text, m)))
            .collect();
        let best = |mine: &BTreeSet<String>, open: &[BTreeSet<String>]| {
            let mut best: Option<(f64, Match)> = None;
            let candidates = open.iter().enumerate().map(|(i, f)| (Match::Lesson(i), f));
            for (what, theirs) in candidates.chain(skill_blocks.iter().map(|(line, f)| (Match::Line(*line), f))) {
                let score = sim(mine, theirs, m, &vocabulary);
                if best.is_none_or(|b| score > b.0) {
                    best = Some((score, what));
                }
            }
            best.filter(|b| b.0 >= m.threshold).map(|b| b.1)
        };
        let mut open: Vec<BTreeSet<String>> = Vec::new();
        for (text, _) in &skill.lessons {
            let mine = features(text, m);
            counts[1] += 1;
            counts[0] += usize::from(best(&mine, &open).is_some());
            open.push(mine);
        }
        for (i, (_, second)) in skill.lessons.iter().enumerate() {
            if let Some(second) = second {
                let mine = features(second, m);
                counts[3] += 1;
                counts[2] += usize::from(best(&mine, &open) == Some(Match::Lesson(i)));
                open.push(mine);
            }
        }
        for (line, text) in &skill.repeats {
            let holding = skill_blocks.iter().map(|(l, _)| *l).filter(|l| l <= line).max();
            counts[5] += 1;
            counts[4] += usize::from(holding.is_some_and(|l| best(&features(text, m), &open) == Some(Match::Line(l))));
        }
    }
    counts
}

fn percent(part: usize, whole: usize) -> String {
    format!("{part}/{whole} ({:.0} %)", part as f64 * 100.0 / whole.max(1) as f64)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bank_path = PathBuf::from(args.get(1).map_or("tests/data/lessons.json", String::as_str));
    let corpus = PathBuf::from(args.get(2).map_or("../shared/corpus/skills", String::as_str));
    let lessons = bank(&bank_path);
    let tuning: Vec<&Lesson> = lessons.iter().filter(|l| l.id % 2 == 0).collect();
    let held: Vec<&Lesson> = lessons.iter().filter(|l| l.id % 2 == 1).collect();
    let texts = skills(&corpus);
    let mut tune_skills = Vec::new();
    let mut held_skills = Vec::new();
    for (i, text) in texts.into_iter().take(40).enumerate() {
        if i % 2 == 0 {
            tune_skills.push(text);
        } else {
            held_skills.push(text);
        }
    }
    println!(
        "{} lessons ({} tuning, {} held out), {} + {} curated skills with a pitfalls section\n",
        lessons.len(),
        tuning.len(),
        held.len(),
        tune_skills.len(),
        held_skills.len()
    );
    println!(
        "| measure | threshold (tuned) | tuning: duplicates grouped | tuning: distinct grouped wrongly | held out: duplicates grouped | held out: distinct grouped wrongly | held out pairs: same lesson ≥ t | same topic ≥ t | other topics ≥ t |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut tuned = Vec::new();
    for (name, m) in variants() {
        let mut best: Option<(f64, f64, f64)> = None;
        for step in 4..=60 {
            let t = f64::from(step) / 100.0;
            let (g, d, w, n) = queue(&tuning, &tune_skills, &m, t);
            let (grouped, wrong) = (g as f64 / d as f64, w as f64 / n as f64);
            if wrong <= 0.02 && best.is_none_or(|b| grouped > b.1) {
                best = Some((t, grouped, wrong));
            }
        }
        let Some((t, g_tune, w_tune)) = best else {
            println!("| {name} | — | no threshold keeps wrong groupings ≤ 2 % | | | | | | |");
            continue;
        };
        tuned.push((name, Measure { threshold: t, ..m }));
        let (g, d, w, n) = queue(&held, &held_skills, &m, t);
        let (same, topic, other) = pair_scores(&held, &Measure { threshold: t, ..m });
        println!(
            "| {name} | {t:.2} | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.2} % | {:.3} % |",
            g_tune * 100.0,
            w_tune * 100.0,
            g as f64 / d as f64 * 100.0,
            w as f64 / n as f64 * 100.0,
            rate(&same, t) * 100.0,
            rate(&topic, t) * 100.0,
            rate(&other, t) * 100.0,
        );
    }
    // Closing with an approval: how often pairs of wordings of one lesson, and of
    // different lessons of one topic, reach each threshold from the marking one up (the
    // closing threshold is chosen on the tuning half, where different lessons stop
    // reaching it).
    let chosen = Measure::CHOSEN;
    let (same_tuning, topic_tuning, _) = pair_scores(&tuning, &chosen);
    let (same_held, topic_held, _) = pair_scores(&held, &chosen);
    println!(
        "\n| threshold | tuning pairs: same lesson ≥ t | same topic ≥ t | held-out pairs: same lesson ≥ t | same topic ≥ t |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for step in (14..=40).step_by(2) {
        let t = f64::from(step) / 100.0;
        println!(
            "| {t:.2} | {:.1} % | {:.2} % | {:.1} % | {:.2} % |",
            rate(&same_tuning, t) * 100.0,
            rate(&topic_tuning, t) * 100.0,
            rate(&same_held, t) * 100.0,
            rate(&topic_held, t) * 100.0
        );
    }
    let Some(skill_path) = args.get(3) else {
        return;
    };
    let skills = skill_bank(Path::new(skill_path), &corpus);
    let odd: Vec<&SkillLessons> = skills.iter().skip(1).step_by(2).collect();
    let even: Vec<&SkillLessons> = skills.iter().step_by(2).collect();
    println!(
        "\nLessons written for {} real skills (odd-numbered: choosing; even-numbered: checking)\n",
        skills.len()
    );
    println!(
        "| measure | threshold | odd: distinct marked | odd: second wordings grouped | odd: restatements marked | even: distinct marked | even: second wordings grouped | even: restatements marked |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    tuned.push(("the chosen measure at its threshold", Measure::CHOSEN));
    for (name, m) in tuned {
        let [a, b, c, d, e, f] = skill_queue(&odd, &m);
        let [g, h, i, j, k, l] = skill_queue(&even, &m);
        println!(
            "| {name} | {:.2} | {} | {} | {} | {} | {} | {} |",
            m.threshold,
            percent(a, b),
            percent(c, d),
            percent(e, f),
            percent(g, h),
            percent(i, j),
            percent(k, l)
        );
    }
}
