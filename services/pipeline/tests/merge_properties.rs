//! Properties of the three-way merge over generated edits: when the two sides change
//! different lines (and insert anywhere), the merge is exactly what each side did, the
//! latest side's insertions first at a shared point; it only refuses when one side
//! inserts between two lines the other side both changed, or right after lines the other
//! side deleted.

use cairn_pipeline::merge::{accounts_for, merge3};
use proptest::prelude::*;

/// What a side does to one base line.
#[derive(Clone, Copy, Debug)]
enum Action {
    Keep,
    Delete,
    Replace,
}

/// One generated case: per base line, who owns it (0 nobody, 1 patch, 2 latest) and what
/// the owner does; per gap, how many lines each side inserts there.
#[derive(Clone, Debug)]
struct Case {
    owners: Vec<(u8, Action)>,
    inserts: Vec<(u8, u8)>,
    final_newline: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (0usize..24).prop_flat_map(|n| {
        let action = prop_oneof![Just(Action::Keep), Just(Action::Delete), Just(Action::Replace)];
        (
            proptest::collection::vec((0u8..3, action), n),
            proptest::collection::vec((0u8..3, 0u8..3), n + 1),
            any::<bool>(),
        )
            .prop_map(|(owners, inserts, final_newline)| Case {
                owners,
                inserts,
                final_newline,
            })
    })
}

fn text(lines: &[String], final_newline: bool) -> String {
    let mut s = lines.join("\n");
    if final_newline && !lines.is_empty() {
        s.push('\n');
    }
    s
}

/// (base, patch, latest, the merges to expect, whether a refusal is allowed). Where both
/// sides insert at one point and one of them also changed a line beside it, a diff cannot
/// tell "changed the line, then inserted" from "replaced the line by two": either order of
/// the two insertions is then right.
#[allow(clippy::needless_range_loop)] // gaps and lines interleave: one index walks both
fn build(case: &Case) -> (String, String, String, Vec<String>, bool) {
    let n = case.owners.len();
    let base: Vec<String> = (0..n).map(|i| format!("base line {i}")).collect();
    let (mut patch, mut latest, mut merged) = (Vec::new(), Vec::new(), Vec::new());
    let side_of = |i: usize, side: u8| {
        let (owner, action) = case.owners[i];
        if owner == side { action } else { Action::Keep }
    };
    let changed = |i: usize, side: u8| !matches!(side_of(i, side), Action::Keep);
    let mut refusal_allowed = false;
    // Per shared insertion point whose order is ambiguous: where it starts in `merged`,
    // and the two blocks.
    let mut ambiguous: Vec<(usize, Vec<String>, Vec<String>)> = Vec::new();
    for gap in 0..=n {
        let (p, l) = case.inserts[gap];
        let ins = |side: &str, k: u8| {
            (0..k)
                .map(|j| format!("{side} inserts {j} at {gap}"))
                .collect::<Vec<_>>()
        };
        let (pi, li) = (ins("patch", p), ins("latest", l));
        patch.extend(pi.clone());
        latest.extend(li.clone());
        let beside = |side: u8| (gap > 0 && changed(gap - 1, side)) || (gap < n && changed(gap, side));
        if p > 0 && l > 0 && (beside(1) || beside(2)) {
            ambiguous.push((merged.len(), li.clone(), pi.clone()));
        }
        merged.extend(li.clone());
        merged.extend(pi.clone());
        // Inserting right after a line the other side deleted (its anchor is gone) is
        // allowed to conflict, and so is inserting between two lines it both changed.
        let deleted = |i: usize, side: u8| matches!(side_of(i, side), Action::Delete);
        if gap > 0 && ((p > 0 && deleted(gap - 1, 2)) || (l > 0 && deleted(gap - 1, 1))) {
            refusal_allowed = true;
        }
        if gap > 0 && gap < n {
            if p > 0 && changed(gap - 1, 2) && changed(gap, 2) {
                refusal_allowed = true;
            }
            if l > 0 && changed(gap - 1, 1) && changed(gap, 1) {
                refusal_allowed = true;
            }
        }
        if gap == n {
            break;
        }
        for (side, out) in [(1u8, &mut patch), (2u8, &mut latest)] {
            match side_of(gap, side) {
                Action::Keep => out.push(base[gap].clone()),
                Action::Delete => {}
                Action::Replace => out.push(format!(
                    "{} changes line {gap}",
                    if side == 1 { "patch" } else { "latest" }
                )),
            }
        }
        let (owner, action) = case.owners[gap];
        match (owner, action) {
            (0, _) | (_, Action::Keep) => merged.push(base[gap].clone()),
            (_, Action::Delete) => {}
            (1, Action::Replace) => merged.push(format!("patch changes line {gap}")),
            (_, Action::Replace) => merged.push(format!("latest changes line {gap}")),
        }
    }
    let nl = case.final_newline;
    let mut expected = vec![merged.clone()];
    for (at, first, second) in &ambiguous {
        let swapped: Vec<Vec<String>> = expected
            .iter()
            .map(|m| {
                let mut m = m.clone();
                let both: Vec<String> = second.iter().chain(first).cloned().collect();
                m.splice(*at..*at + both.len(), both);
                m
            })
            .collect();
        expected.extend(swapped);
    }
    let expected = expected.iter().map(|m| text(m, nl)).collect();
    (
        text(&base, nl),
        text(&patch, nl),
        text(&latest, nl),
        expected,
        refusal_allowed,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn changes_to_different_lines_merge_exactly(case in case()) {
        let (base, patch, latest, expected, refusal_allowed) = build(&case);
        match merge3(&base, &patch, &latest) {
            Ok(merged) => {
                prop_assert!(expected.contains(&merged.text), "{:?} is none of {:?}", merged.text, expected);
                prop_assert!(accounts_for(&base, &patch, &latest, &merged.text));
            }
            Err(conflict) => prop_assert!(refusal_allowed, "refused: {:?}", conflict.hunks),
        }
    }

    /// Whatever two sides do to arbitrary, repetitive text, the merge never panics, and
    /// merging a side with an unchanged other side gives that side exactly.
    #[test]
    fn a_side_merged_with_an_unchanged_side_is_that_side(
        base in "[ab\\n]{0,40}",
        patch in "[abc\\n]{0,40}",
        latest in "[abd\\n]{0,40}",
    ) {
        let _ = merge3(&base, &patch, &latest);
        prop_assert_eq!(merge3(&base, &patch, &base).map(|m| m.text), Ok(patch.clone()));
        prop_assert_eq!(merge3(&base, &base, &latest).map(|m| m.text), Ok(latest.clone()));
    }
}
