use super::*;

fn clean(base: &str, patch: &str, latest: &str) -> Merged {
    merge3(base, patch, latest).unwrap_or_else(|c| panic!("expected a clean merge, got {c:#?}"))
}

const LIST: &str = "# Skill\n\n## Pitfalls\n\n- first\n- second\n- third\n\n## Steps\n\n1. one\n";

#[test]
fn two_bullets_appended_to_one_list_both_land_latest_first() {
    let latest = LIST.replace("- third\n", "- third\n- from latest\n");
    let patch = LIST.replace("- third\n", "- third\n- from patch\n");
    let m = clean(LIST, &patch, &latest);
    assert_eq!(
        m.text,
        LIST.replace("- third\n", "- third\n- from latest\n- from patch\n")
    );
    assert_eq!(m.shared_insertions, 1);
}

#[test]
fn two_sub_bullets_under_the_first_item_both_land() {
    let latest = LIST.replace("- first\n", "- first\n  - latest detail\n");
    let patch = LIST.replace("- first\n", "- first\n  - patch detail\n");
    let m = clean(LIST, &patch, &latest);
    assert_eq!(
        m.text,
        LIST.replace("- first\n", "- first\n  - latest detail\n  - patch detail\n")
    );
}

#[test]
fn changes_to_neighbouring_lines_both_apply() {
    let latest = LIST.replace("- first\n", "- first (see docs)\n");
    let patch = LIST.replace("- second\n", "- second, twice\n");
    let m = clean(LIST, &patch, &latest);
    assert_eq!(
        m.text,
        LIST.replace("- first\n", "- first (see docs)\n")
            .replace("- second\n", "- second, twice\n")
    );
    assert_eq!(m.beside, 1);
}

#[test]
fn an_insertion_beside_a_changed_line_lands() {
    let latest = LIST.replace("- third\n", "- third (really)\n");
    let patch = LIST.replace("- third\n", "- third\n- fourth\n");
    assert_eq!(
        clean(LIST, &patch, &latest).text,
        LIST.replace("- third\n", "- third (really)\n- fourth\n")
    );
    // And the other way round: the patch changes the line, the latest inserted after it.
    assert_eq!(
        clean(LIST, &latest, &patch).text,
        LIST.replace("- third\n", "- third (really)\n- fourth\n")
    );
}

#[test]
fn two_sections_appended_to_the_file_both_land() {
    let latest = format!("{LIST}\n## Notes\n\nlatest\n");
    let patch = format!("{LIST}\n## Troubleshooting\n\npatch\n");
    assert_eq!(
        clean(LIST, &patch, &latest).text,
        format!("{LIST}\n## Notes\n\nlatest\n\n## Troubleshooting\n\npatch\n")
    );
}

#[test]
fn different_changes_to_one_line_conflict_with_markers() {
    let latest = LIST.replace("- second\n", "- second (latest)\n");
    let patch = LIST.replace("- second\n", "- second (patch)\n");
    let c = merge3(LIST, &patch, &latest).unwrap_err();
    assert_eq!(
        c.hunks,
        vec![ConflictHunk {
            patch: "- second (patch)\n".into(),
            base: "- second\n".into(),
            latest: "- second (latest)\n".into()
        }]
    );
    assert_eq!(
        c.marked,
        LIST.replace(
            "- second\n",
            "<<<<<<< patch\n- second (patch)\n||||||| base\n- second\n=======\n- second (latest)\n>>>>>>> latest\n"
        )
    );
}

#[test]
fn a_lesson_added_to_a_section_the_other_side_deleted_conflicts() {
    let base = "## Build\n\n- b1\n- b2\n\n## Deploy\n\n- d1\n- d2\n\n## Debug\n\n- g1\n";
    let latest = base.replace("## Deploy\n\n- d1\n- d2\n\n", "");
    let patch = base.replace("- d2\n", "- d2\n- never on Fridays\n");
    assert!(merge3(base, &patch, &latest).is_err(), "it would land under Build");
    // Beside a line the other side rewrote (not removed), it lands.
    let latest = base.replace("- d2\n", "- d2, carefully\n");
    assert_eq!(
        clean(base, &patch, &latest).text,
        base.replace("- d2\n", "- d2, carefully\n- never on Fridays\n")
    );
}

#[test]
fn a_blank_line_is_not_swallowed_by_the_other_sides_insertion() {
    let base = "p1\np2\n";
    let patch = "p1\n\np2\n";
    let latest = "p1\nx\n\ny\np2\n";
    let merged = clean(base, patch, latest).text;
    assert_eq!(merged.matches('\n').count(), 6, "{merged:?}");
}

#[test]
fn an_insertion_inside_lines_the_other_side_replaced_conflicts() {
    let latest = LIST.replace("- first\n- second\n- third\n", "- all in one\n");
    let patch = LIST.replace("- second\n", "- second\n- extra\n");
    assert!(merge3(LIST, &patch, &latest).is_err());
}

#[test]
fn the_same_change_on_both_sides_applies_once() {
    let both = LIST.replace("- second\n", "- second\n- same\n");
    assert_eq!(clean(LIST, &both, &both).text, both);
    let latest = both.replace("1. one\n", "1. one\n2. two\n");
    assert_eq!(clean(LIST, &both, &latest).text, latest);
}

#[test]
fn an_insertion_the_other_side_already_made_among_others_lands_once() {
    // The member's own bullet was published with another one next to it: pulling merges
    // their folder (which still has only their bullet) without doubling it.
    let mine = LIST.replace("- third\n", "- third\n- mine\n");
    let published = LIST.replace("- third\n", "- third\n- mine\n- theirs\n");
    assert_eq!(clean(LIST, &mine, &published).text, published);
    assert_eq!(clean(LIST, &published, &mine).text, published);
}

#[test]
fn a_file_without_a_final_newline_keeps_what_each_side_did() {
    // The latest removed a section; the patch appended at the end of a file without a
    // final newline. The removed section must stay removed.
    let base = "# S\n\n## Old\n\nold text\n\n## End\n\nlast line";
    let latest = "# S\n\n## End\n\nlast line";
    let patch = "# S\n\n## Old\n\nold text\n\n## End\n\nlast line\n- appended";
    assert_eq!(
        clean(base, patch, latest).text,
        "# S\n\n## End\n\nlast line\n- appended"
    );
    // The patch adds the final newline only; the latest appended a line.
    assert_eq!(clean("a\nb", "a\nb\n", "a\nb\nc").text, "a\nb\nc\n");
}

#[test]
fn crlf_files_merge_by_line() {
    let base = "a\r\nb\r\nc\r\nd\r\n";
    assert_eq!(
        clean(base, "A\r\nb\r\nc\r\nd\r\n", "a\r\nb\r\nc\r\nD\r\n").text,
        "A\r\nb\r\nc\r\nD\r\n"
    );
}

#[test]
fn edits_at_the_very_start_and_end() {
    let base = "first\nmiddle\nlast\n";
    assert_eq!(
        clean(base, "zeroth\nfirst\nmiddle\nlast\n", "first\nmiddle\nlast\nafter\n").text,
        "zeroth\nfirst\nmiddle\nlast\nafter\n"
    );
    assert_eq!(
        clean(base, "new first\nmiddle\nlast\n", "first\nmiddle\nnew last\n").text,
        "new first\nmiddle\nnew last\n"
    );
    // Both prepend: both land, latest first.
    assert_eq!(
        clean(base, "p\nfirst\nmiddle\nlast\n", "l\nfirst\nmiddle\nlast\n").text,
        "l\np\nfirst\nmiddle\nlast\n"
    );
}

#[test]
fn the_line_account_catches_a_line_brought_back_or_lost() {
    let split = |s: &'static str| s.split_terminator('\n').collect::<Vec<_>>();
    let (base, patch, latest) = (split("a\nb\nc\n"), split("a\nc\n"), split("a\nb\nc\nd\n"));
    assert!(accounted(&base, &patch, &latest, &split("a\nc\nd\n"), &[]));
    assert!(
        !accounted(&base, &patch, &latest, &split("a\nb\nc\nd\n"), &[]),
        "b came back"
    );
    assert!(!accounted(&base, &patch, &latest, &split("a\nc\n"), &[]), "d lost");
    assert!(
        !accounted(&base, &patch, &latest, &split("a\nc\nd\nd\n"), &[]),
        "d twice"
    );
}

#[test]
fn a_paragraph_goes_before_a_section_inserted_at_the_same_point() {
    let base = "# S\n\n## One\n\nintro\n\n## Two\n\ntext\n";
    let latest = base.replace("intro\n", "intro\n\n## One and a half\n\nnew section\n");
    let patch = base.replace("intro\n", "intro\n\nA further note on one.\n");
    assert_eq!(
        clean(base, &patch, &latest).text,
        base.replace(
            "intro\n",
            "intro\n\nA further note on one.\n\n## One and a half\n\nnew section\n"
        )
    );
    // Two sections, or two paragraphs: approval order.
    let patch = base.replace("intro\n", "intro\n\n## Another\n\nx\n");
    assert_eq!(
        clean(base, &patch, &latest).text,
        base.replace(
            "intro\n",
            "intro\n\n## One and a half\n\nnew section\n\n## Another\n\nx\n"
        )
    );
}
