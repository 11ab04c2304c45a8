//! Replays real consecutive edits as if they had been made at once (docs/BENCHMARKS.md,
//! "Real concurrent edits"):
//!
//! ```sh
//! cargo run --release -p cairn-pipeline --example concurrent_edits -- ../shared/corpus/edits/hermes
//! ```
//!
//! For every pair of consecutive real edits of one file (v0 → v1, v1 → v2, from
//! `index.tsv`), the second edit's hunks are written as `patch` ops against v0 (each
//! `old` taken with as little context as makes it unique in v0; a pair whose second edit
//! touches text that only v1 has cannot be written against v0 and is counted apart), the
//! first edit is the latest revision, and the patch is rebased onto it. The expected
//! result is exactly v2. `git merge-file` runs on the same three files as the anchor.
//! Each pair also runs as a CRLF file and without a final newline. Pairs are split by id
//! (even: the half the merge was tuned on; odd: held out), and both halves are reported.
//!
//! To look at a case that differs, set `CONCURRENT_EDITS_DUMP=<dir>` and
//! `CONCURRENT_EDITS_LAST=<file>`: each differing case's v0, v1, v2, patched text, ops and
//! Cairn's result are written to `<dir>/<id>/`.

#![allow(missing_docs)]

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use cairn_pipeline::apply::{Outcome, apply_ops};
use cairn_pipeline::ops::{Op, WritableRoots, validate};
use cairn_pipeline::rebase::rebase;
use cairn_skill::limits::Limits;
use cairn_skill::path::RelPath;
use cairn_skill::{Bundle, BundleFile};
use sha2::{Digest as _, Sha256};
use similar::{Algorithm, DiffOp, capture_diff_slices};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Result3 {
    Exact,
    Conflict,
    Different,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Variant {
    AsIs,
    Crlf,
    NoFinalNewline,
}

struct Case {
    id: String,
    v0: String,
    v1: String,
    v2: String,
}

fn bundle(text: &str) -> Option<Bundle> {
    Bundle::from_files(
        [(RelPath::skill_md(), BundleFile::new(text.as_bytes().to_vec(), false))],
        &Limits::unlimited(),
    )
    .ok()
}

/// The second edit as `patch` ops against v0, or `None` when one of its hunks touches
/// text v0 does not have (exactly once).
fn ops_for(v0: &str, v1: &str, v2: &str) -> Option<Vec<Op>> {
    let a: Vec<&str> = v1.split_inclusive('\n').collect();
    let b: Vec<&str> = v2.split_inclusive('\n').collect();
    let mut hunks: Vec<(usize, usize, Vec<&str>)> = Vec::new();
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        let (old, new) = match op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete { old_index, old_len, .. } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (old_index..old_index + old_len, new_index..new_index + new_len),
        };
        match hunks.last_mut() {
            Some(last) if last.1 == old.start => {
                last.1 = old.end;
                last.2.extend_from_slice(&b[new]);
            }
            _ => hunks.push((old.start, old.end, b[new].to_vec())),
        }
    }
    let mut ops = Vec::new();
    for (i, (start, end, new)) in hunks.iter().enumerate() {
        let room_before = if i == 0 { *start } else { (start - hunks[i - 1].1) / 2 };
        let room_after = match hunks.get(i + 1) {
            Some(next) => (next.0 - end) / 2,
            None => a.len() - end,
        };
        let mut found = None;
        'search: for total in 0..=6usize {
            for before in 0..=total {
                let after = total - before;
                if before > room_before || after > room_after {
                    continue;
                }
                let old: String = a[start - before..end + after].concat();
                if old.is_empty() || v0.matches(old.as_str()).count() != 1 {
                    continue;
                }
                let replacement: String =
                    a[start - before..*start].concat() + &new.concat() + &a[*end..end + after].concat();
                found = Some(Op::Patch {
                    file: "SKILL.md".into(),
                    old,
                    new: replacement,
                    replace_all: false,
                });
                break 'search;
            }
        }
        ops.push(found?);
    }
    Some(ops)
}

fn cairn(v0: &str, v1: &str, v2: &str, ops: &[Op]) -> Option<Result3> {
    let (base, latest) = (bundle(v0)?, bundle(v1)?);
    let valid = validate(ops, &WritableRoots::default()).ok()?;
    let Outcome::Bundle(patched) = apply_ops(Some(&base), &valid, &Limits::unlimited()).ok()?.outcome else {
        return None;
    };
    let rebased = rebase(&base, &valid, &patched, &latest);
    if !rebased.is_clean() {
        return Some(Result3::Conflict);
    }
    let text = &rebased.files[&RelPath::skill_md()].bytes;
    if let Ok(path) = std::env::var("CONCURRENT_EDITS_LAST") {
        std::fs::write(path, text).unwrap();
    }
    Some(if text == v2.as_bytes() {
        Result3::Exact
    } else {
        Result3::Different
    })
}

fn patched_text(v0: &str, ops: &[Op]) -> Option<String> {
    let valid = validate(ops, &WritableRoots::default()).ok()?;
    let Outcome::Bundle(patched) = apply_ops(Some(&bundle(v0)?), &valid, &Limits::unlimited())
        .ok()?
        .outcome
    else {
        return None;
    };
    String::from_utf8(patched.files()[&RelPath::skill_md()].bytes.clone()).ok()
}

fn git(dir: &Path, v0: &str, v1: &str, patched: &str, v2: &str) -> Result3 {
    let (base, current, other) = (dir.join("base"), dir.join("current"), dir.join("other"));
    std::fs::write(&base, v0).unwrap();
    std::fs::write(&current, v1).unwrap();
    std::fs::write(&other, patched).unwrap();
    let out = Command::new("git")
        .arg("merge-file")
        .arg("-p")
        .arg(&current)
        .arg(&base)
        .arg(&other)
        .output()
        .expect("git is installed");
    if out.status.code() != Some(0) {
        Result3::Conflict
    } else if out.stdout == v2.as_bytes() {
        Result3::Exact
    } else {
        Result3::Different
    }
}

fn variant(text: &str, v: Variant) -> String {
    match v {
        Variant::AsIs => text.to_owned(),
        Variant::Crlf => text.replace("\r\n", "\n").replace('\n', "\r\n"),
        Variant::NoFinalNewline => text.strip_suffix('\n').unwrap_or(text).to_owned(),
    }
}

fn cases(root: &Path) -> Vec<Case> {
    let index = std::fs::read_to_string(root.join("index.tsv")).expect("index.tsv (pass the edits/hermes folder)");
    let read = |id: &str, side: &str| std::fs::read_to_string(root.join(format!("{id}_{side}.md"))).unwrap_or_default();
    let mut by_path: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in index.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() >= 3 {
            by_path.entry(cols[2].to_owned()).or_default().push(cols[0].to_owned());
        }
    }
    let hash = |s: &str| hex::encode(Sha256::digest(s.as_bytes()));
    let mut out = Vec::new();
    for ids in by_path.values() {
        let before: HashMap<String, &String> = ids.iter().map(|id| (hash(&read(id, "before")), id)).collect();
        for id in ids {
            let after = read(id, "after");
            if let Some(next) = before.get(&hash(&after)).filter(|next| **next != id) {
                out.push(Case {
                    id: id.clone(),
                    v0: read(id, "before"),
                    v1: after,
                    v2: read(next, "after"),
                });
            }
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

fn main() {
    let root = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "../shared/corpus/edits/hermes".into()),
    );
    let dir = tempfile::tempdir().unwrap();
    let cases = cases(&root);
    // (half, variant) -> (cases, not expressible, cairn counts, git counts)
    type Counts = BTreeMap<Result3, usize>;
    type Tally = (usize, usize, Counts, Counts, usize);
    let mut tally: BTreeMap<(&str, Variant), Tally> = BTreeMap::new();
    let mut edges: BTreeMap<&str, (usize, Counts, Counts)> = BTreeMap::new();
    let mut wrong = Vec::new();
    for case in &cases {
        let half = if case.id.trim_start_matches('0').parse::<u32>().unwrap_or(0) % 2 == 0 {
            "tuning (even ids)"
        } else {
            "held out (odd ids)"
        };
        for v in [Variant::AsIs, Variant::Crlf, Variant::NoFinalNewline] {
            let (v0, v1, v2) = (variant(&case.v0, v), variant(&case.v1, v), variant(&case.v2, v));
            let entry = tally.entry((half, v)).or_default();
            entry.0 += 1;
            let Some(ops) = ops_for(&v0, &v1, &v2) else {
                entry.1 += 1;
                continue;
            };
            let (Some(ours), Some(patched)) = (cairn(&v0, &v1, &v2, &ops), patched_text(&v0, &ops)) else {
                entry.1 += 1;
                continue;
            };
            if patched == v0 {
                // The second edit restores text v0 still has (it reverts the first): made
                // against v0 it changes nothing, so it is no concurrent edit.
                entry.4 += 1;
                continue;
            }
            let theirs = git(dir.path(), &v0, &v1, &patched, &v2);
            *entry.2.entry(ours).or_default() += 1;
            *entry.3.entry(theirs).or_default() += 1;
            if ours == Result3::Different {
                wrong.push(format!("{} ({v:?})", case.id));
                if let Ok(dump) = std::env::var("CONCURRENT_EDITS_DUMP") {
                    let d = Path::new(&dump).join(&case.id);
                    std::fs::create_dir_all(&d).unwrap();
                    std::fs::copy(std::env::var("CONCURRENT_EDITS_LAST").unwrap(), d.join("cairn")).unwrap();
                    for (name, text) in [("v0", &v0), ("v1", &v1), ("v2", &v2), ("patched", &patched)] {
                        std::fs::write(d.join(name), text).unwrap();
                    }
                    std::fs::write(d.join("ops.json"), serde_json::to_string_pretty(&ops).unwrap()).unwrap();
                }
            }
            let first_or_last = ops.iter().any(|op| match op {
                Op::Patch { old, .. } => v0.starts_with(old.as_str()) || v0.ends_with(old.as_str()),
                _ => false,
            });
            if first_or_last {
                let e = edges.entry("edits at the very start or end").or_default();
                e.0 += 1;
                *e.1.entry(ours).or_default() += 1;
                *e.2.entry(theirs).or_default() += 1;
            }
        }
    }
    let get = |m: &BTreeMap<Result3, usize>, r| m.get(&r).copied().unwrap_or(0);
    println!("{} consecutive edit pairs in {}\n", cases.len(), root.display());
    println!(
        "| half | file form | pairs | not expressible against v0 | reverts (no-op against v0) | cairn exact | cairn conflict | cairn differs | git exact | git conflict | git differs |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut totals: BTreeMap<&str, [usize; 9]> = BTreeMap::new();
    for ((half, v), (n, skipped, ours, theirs, reverts)) in &tally {
        println!(
            "| {half} | {v:?} | {n} | {skipped} | {reverts} | {} | {} | {} | {} | {} | {} |",
            get(ours, Result3::Exact),
            get(ours, Result3::Conflict),
            get(ours, Result3::Different),
            get(theirs, Result3::Exact),
            get(theirs, Result3::Conflict),
            get(theirs, Result3::Different),
        );
        let t = totals.entry(half).or_default();
        for (i, x) in [
            *n,
            *skipped,
            *reverts,
            get(ours, Result3::Exact),
            get(ours, Result3::Conflict),
            get(ours, Result3::Different),
            get(theirs, Result3::Exact),
            get(theirs, Result3::Conflict),
            get(theirs, Result3::Different),
        ]
        .into_iter()
        .enumerate()
        {
            t[i] += x;
        }
    }
    for (half, t) in &totals {
        println!(
            "| **{half}** | all | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8]
        );
    }
    for (what, (n, ours, theirs)) in &edges {
        println!(
            "| both halves | {what} | {n} | — | — | {} | {} | {} | {} | {} | {} |",
            get(ours, Result3::Exact),
            get(ours, Result3::Conflict),
            get(ours, Result3::Different),
            get(theirs, Result3::Exact),
            get(theirs, Result3::Conflict),
            get(theirs, Result3::Different),
        );
    }
    if !wrong.is_empty() {
        println!("\nwrong results (cairn): {}", wrong.join(", "));
    }
}
