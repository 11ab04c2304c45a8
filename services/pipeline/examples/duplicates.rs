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

#![allow(missing_docs)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cairn_pipeline::lesson::{MIN_FEATURES, Measure, blocks, features, likeness};

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
    let base = Measure::CHOSEN;
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
        ("words + technical tokens (chosen)", base),
        (
            "words + technical tokens + word pairs",
            Measure {
                word_pairs: true,
                ..base
            },
        ),
    ]
}

fn sim(a: &BTreeSet<String>, b: &BTreeSet<String>, m: &Measure) -> f64 {
    if a.len() < MIN_FEATURES || b.len() < MIN_FEATURES {
        0.0
    } else {
        likeness(a, b, m)
    }
}

/// Pairwise scores of one half: (same lesson, same topic, other topics).
fn pair_scores(lessons: &[&Lesson], m: &Measure) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let f: Vec<Vec<BTreeSet<String>>> = lessons
        .iter()
        .map(|l| l.wordings.iter().map(|w| features(w, m)).collect())
        .collect();
    let (mut same, mut topic, mut other) = (Vec::new(), Vec::new(), Vec::new());
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
}
