//! Trains the scanner's learned model (`src/learned.rs`) and writes
//! `data/learned-model.bin` (docs/SECURITY-SCANNER.md, "The learned model"):
//!
//! ```sh
//! cargo run --release -p cairn-scanner --example train-model -- ../shared/corpus \
//!     --cases services/scanner/tests/cases/dev --cases services/scanner/tests/cases/heldout … \
//!     --out services/scanner/data/learned-model.bin
//! ```
//!
//! What it learns from: every case of the `--cases` sets (a skill as it is; a patch as two
//! bundles, its base benign and its new side labeled as the case), the labeled fixtures
//! of the corpus's **development** sources and the curated skills of its development
//! sources. The held-out sources are never read, and a case set not named is not either.
//!
//! How the thresholds are chosen: cross-validation by author first. Each case set named
//! `heldout*` was written by one author; each is left out in turn (the other data — the
//! development set, fixtures and curated skills, which have no single author — spread
//! over the same number of folds, a patch's two sides always together), and the model
//! trained on the rest scores it. From the
//! pooled scores, `dangerous` starts at the lowest score that judges at most 1 % of the
//! benign cases and at most 0.3 % of the curated skills dangerous; `caution` at the
//! lowest that judges at most 5 % and 2 %. Then the model is trained on everything and
//! written with those thresholds. Deterministic: the same inputs give the same file.

#![allow(missing_docs)]

use std::path::PathBuf;

use cairn_scanner::learned::{DIMENSION, Model, Vector, model_texts};
use corpus::{Bundle, as_scan, bundle, part, skill_dirs};

mod corpus;

/// Inverse regularisation strength, as scikit-learn's `C`: chosen in the prototype that
/// preceded this trainer (leave-one-author-out AUC 0.96–0.999 per set at C = 4).
const C: f64 = 4.0;
/// Gradient steps (accelerated, full batch).
const STEPS: usize = 800;

/// What an example is, for the threshold rules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A case set's skill, or a patch's new side.
    Case,
    /// A patch's base: benign, learned from, judged only through its patch.
    Base,
    /// A curated real skill.
    Curated,
    /// A labeled fixture of the corpus.
    Fixture,
}

struct Example {
    vector: Vector,
    /// Examples of one case (a patch's base and new side) share a group, and so a fold.
    group: usize,
    malicious: bool,
    kind: Kind,
    fold: usize,
    /// For a patch's new side: the index of its base's example (a patch is stopped when
    /// its new side reaches the threshold and its base does not).
    base: Option<usize>,
}

fn vector_of(files: &[(String, Vec<u8>)]) -> Vector {
    Vector::of(model_texts(&as_scan(files)))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let corpus = PathBuf::from(args.next().unwrap_or_else(|| "../shared/corpus".to_owned()));
    let mut case_sets = Vec::new();
    let mut out = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cases" => case_sets.extend(args.next().map(PathBuf::from)),
            "--out" => out = args.next().map(PathBuf::from),
            other => panic!("unknown argument {other}: expected --cases DIR or --out FILE"),
        }
    }
    let out = out.expect("--out FILE: where to write the model");

    // Authors' sets first: their number is the number of folds.
    let mut examples: Vec<Example> = Vec::new();
    let mut loose: Vec<Example> = Vec::new();
    let mut author_folds = 0;
    let mut groups = 0;
    for dir in &case_sets {
        let (name, cases) = corpus::case_set(dir);
        let fold = name.starts_with("heldout").then(|| {
            author_folds += 1;
            author_folds - 1
        });
        let into = if fold.is_some() { &mut examples } else { &mut loose };
        for (case, b) in cases {
            let malicious = case.label == "malicious";
            groups += 1;
            let base = b.base.as_ref().map(|base| {
                into.push(Example {
                    group: groups,
                    vector: vector_of(base),
                    malicious: false,
                    kind: Kind::Base,
                    fold: fold.unwrap_or(0),
                    base: None,
                });
                into.len() - 1
            });
            into.push(Example {
                group: groups,
                vector: vector_of(&b.files),
                malicious,
                kind: Kind::Case,
                fold: fold.unwrap_or(0),
                base,
            });
        }
        eprintln!("read case set {name}");
    }
    assert!(
        author_folds >= 2,
        "name at least two heldout* case sets: they are the folds"
    );
    for fixture in corpus::labeled(&corpus) {
        if part(&fixture.source) == "development" && fixture.label != "risky" {
            groups += 1;
            loose.push(Example {
                group: groups,
                vector: vector_of(&fixture.bundle.files),
                malicious: fixture.label == "malicious",
                kind: Kind::Fixture,
                fold: 0,
                base: None,
            });
        }
    }
    for source in corpus::sources(&corpus, "skills") {
        let name = source.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if part(&name) != "development" {
            continue;
        }
        let mut dirs = Vec::new();
        skill_dirs(&source, &mut dirs);
        for dir in dirs {
            let b: Bundle = bundle("skills", &dir);
            groups += 1;
            loose.push(Example {
                group: groups,
                vector: vector_of(&b.files),
                malicious: false,
                kind: Kind::Curated,
                fold: 0,
                base: None,
            });
        }
    }
    let offset = examples.len();
    for mut e in loose {
        e.fold = e.group % author_folds;
        e.base = e.base.map(|b| b + offset);
        examples.push(e);
    }
    eprintln!("{} examples, {} folds", examples.len(), author_folds);

    // Cross-validation.
    let mut scores = vec![0f32; examples.len()];
    for fold in 0..author_folds {
        let train: Vec<&Example> = examples.iter().filter(|e| e.fold != fold).collect();
        let model = train_model(&train);
        for (i, e) in examples.iter().enumerate().filter(|(_, e)| e.fold == fold) {
            scores[i] = model.probability(&e.vector);
        }
        eprintln!("fold {fold} done");
    }
    // A patch counts as flagged when its new side reaches the threshold and its base
    // does not (what it introduces, as delta mode judges it).
    let flagged = |i: usize, t: f32| {
        let reaches = |i: usize| examples[i].vector.judgeable() && scores[i] >= t;
        reaches(i) && examples[i].base.is_none_or(|b| !reaches(b))
    };
    let rate = |kind: Kind, malicious: bool, t: f32| {
        let of: Vec<usize> = (0..examples.len())
            .filter(|&i| examples[i].kind == kind && examples[i].malicious == malicious)
            .collect();
        (of.iter().filter(|&&i| flagged(i, t)).count(), of.len())
    };
    let pct = |(hit, n): (usize, usize)| 100.0 * hit as f64 / n.max(1) as f64;
    let lowest = |case_benign: f64, curated: f64| {
        (50..100)
            .map(|t| t as f32 / 100.0)
            .find(|&t| pct(rate(Kind::Case, false, t)) <= case_benign && pct(rate(Kind::Curated, false, t)) <= curated)
            .unwrap_or_else(|| {
                eprintln!(
                    "no score up to 0.99 meets the false-alarm limits ({case_benign} %, {curated} %): using 0.99"
                );
                0.99
            })
    };
    let dangerous_at = lowest(1.0, 0.3);
    let caution_at = lowest(5.0, 2.0).min(dangerous_at);
    println!("Cross-validation by author ({author_folds} folds; pooled):\n");
    println!("| from score | malicious cases | benign cases | curated skills | benign fixtures | malicious fixtures |");
    println!("|---|---|---|---|---|---|");
    let mut thresholds: Vec<f32> = [0.5, 0.6, 0.7, 0.8, 0.9, dangerous_at, caution_at].to_vec();
    thresholds.sort_by(f32::total_cmp);
    thresholds.dedup();
    for t in thresholds {
        let cell = |r: (usize, usize)| format!("{}/{} ({:.1} %)", r.0, r.1, pct(r));
        println!(
            "| {t:.2}{} | {} | {} | {} | {} | {} |",
            if t == dangerous_at {
                " (dangerous)"
            } else if t == caution_at {
                " (caution)"
            } else {
                ""
            },
            cell(rate(Kind::Case, true, t)),
            cell(rate(Kind::Case, false, t)),
            cell(rate(Kind::Curated, false, t)),
            cell(rate(Kind::Fixture, false, t)),
            cell(rate(Kind::Fixture, true, t)),
        );
    }

    // How well the scores rank: malicious cases above benign ones.
    let auc = {
        let (mut pos, mut neg): (Vec<f32>, Vec<f32>) = (Vec::new(), Vec::new());
        for (e, s) in examples
            .iter()
            .zip(&scores)
            .filter(|(e, _)| e.kind == Kind::Case && e.base.is_none())
        {
            if e.malicious { pos.push(*s) } else { neg.push(*s) }
        }
        // Ties count half.
        let above: f64 = pos
            .iter()
            .map(|p| {
                neg.iter()
                    .map(|n| {
                        if n < p {
                            1.0
                        } else if n == p {
                            0.5
                        } else {
                            0.0
                        }
                    })
                    .sum::<f64>()
            })
            .sum();
        above / (pos.len() * neg.len()).max(1) as f64
    };
    println!("\nAUC over the case sets' skills: {auc:.3}");

    let all: Vec<&Example> = examples.iter().collect();
    let mut model = train_model(&all);
    model.dangerous_at = dangerous_at;
    model.caution_at = caution_at;
    std::fs::write(&out, model.to_bytes()).expect("write the model file");
    println!(
        "\nWrote {} (dangerous from {dangerous_at:.2}, caution from {caution_at:.2}).",
        out.display()
    );
}

/// L2-regularised logistic regression, classes weighted to count equally, fitted by
/// Nesterov's accelerated gradient over the whole batch (convex: the same optimum
/// whatever the order, and deterministic).
fn train_model(examples: &[&Example]) -> Model {
    let n = examples.len() as f64;
    let positives = examples.iter().filter(|e| e.malicious).count() as f64;
    let class_weight = |malicious: bool| {
        if malicious {
            n / (2.0 * positives)
        } else {
            n / (2.0 * (n - positives))
        }
    };
    let lambda = 1.0 / (C * n);
    // Each vector has unit length and the intercept's feature is 1, so the loss's
    // curvature is at most a quarter of the largest class weight times 2.
    let lipschitz = 0.5 * class_weight(true).max(class_weight(false)) + lambda;
    let step = 1.0 / lipschitz;
    let mut w = vec![0f64; DIMENSION + 1];
    let mut previous = w.clone();
    let mut gradient = vec![0f64; DIMENSION + 1];
    let mut look = w.clone();
    for k in 0..STEPS {
        let momentum = k as f64 / (k as f64 + 3.0);
        for i in 0..w.len() {
            look[i] = w[i] + momentum * (w[i] - previous[i]);
        }
        gradient.iter_mut().for_each(|g| *g = 0.0);
        for e in examples {
            let z = look[DIMENSION]
                + e.vector
                    .values
                    .iter()
                    .map(|&(i, x)| look[i as usize] * f64::from(x))
                    .sum::<f64>();
            let y = if e.malicious { 1.0 } else { 0.0 };
            let residual = class_weight(e.malicious) * (1.0 / (1.0 + (-z).exp()) - y) / n;
            for &(i, x) in &e.vector.values {
                gradient[i as usize] += residual * f64::from(x);
            }
            gradient[DIMENSION] += residual;
        }
        for (i, g) in gradient.iter_mut().enumerate().take(DIMENSION) {
            *g += lambda * look[i];
        }
        previous.copy_from_slice(&w);
        for i in 0..w.len() {
            w[i] = look[i] - step * gradient[i];
        }
    }
    #[allow(clippy::cast_possible_truncation)]
    Model {
        bias: w[DIMENSION] as f32,
        weights: w[..DIMENSION].iter().map(|&x| x as f32).collect(),
        dangerous_at: 1.0,
        caution_at: 1.0,
    }
}
