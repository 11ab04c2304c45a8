//! The matcher on the shapes agents produce, including the ones that must be refused.

use super::*;

fn edit<'a>(old: &'a str, new: &'a str) -> Edit<'a> {
    Edit {
        old,
        new,
        replace_all: false,
    }
}

fn applied(content: &str, old: &str, new: &str) -> Applied {
    apply(content, edit(old, new)).unwrap_or_else(|e| panic!("expected a match: {e}"))
}

#[test]
fn exact_replaces_once_and_reports_the_line() {
    let a = applied("one\ntwo\nthree\n", "two", "2");
    assert_eq!(a.content, "one\n2\nthree\n");
    assert_eq!(
        (a.strategy, a.similarity, a.replacements, a.lines.clone()),
        (Strategy::Exact, 1.0, 1, vec![2])
    );
}

#[test]
fn several_exact_matches_need_replace_all() {
    let err = apply("x = 1\ny = 2\nx = 1\n", edit("x = 1", "x = 3")).unwrap_err();
    assert_eq!(
        err,
        MatchError::Ambiguous {
            strategy: Strategy::Exact,
            lines: vec![1, 3]
        }
    );
    assert!(err.to_string().contains("lines 1, 3"), "{err}");
    let all = apply(
        "x = 1\ny = 2\nx = 1\n",
        Edit {
            old: "x = 1",
            new: "x = 3",
            replace_all: true,
        },
    )
    .unwrap();
    assert_eq!((all.content.as_str(), all.replacements), ("x = 3\ny = 2\nx = 3\n", 2));
}

#[test]
fn degenerate_edits_are_refused() {
    assert_eq!(apply("abc", edit("", "x")), Err(MatchError::EmptyOld));
    assert_eq!(apply("abc", edit("b", "b")), Err(MatchError::Unchanged));
}

#[test]
fn an_edit_already_in_place_is_a_no_op_success() {
    let file = "# Steps\n1. Install.\n2. Configure the proxy before the first run.\n";
    let a = applied(file, "2. Configure.", "2. Configure the proxy before the first run.");
    assert_eq!(
        (a.strategy, a.replacements, a.content.as_str()),
        (Strategy::AlreadyApplied, 0, file)
    );
    // An insertion whose new text contains old is not applied twice.
    let file = "- a\n- b\n- c\n";
    let a = applied(file, "- a\n- b\n", "- a\n- b\n- c\n");
    assert_eq!((a.strategy, a.content.as_str()), (Strategy::AlreadyApplied, file));
    let a = applied("- a\n- b\n", "- a\n- b\n", "- a\n- b\n- c\n");
    assert_eq!((a.strategy, a.content.as_str()), (Strategy::Exact, "- a\n- b\n- c\n"));
}

#[test]
fn new_text_that_is_also_elsewhere_is_not_taken_for_an_applied_edit() {
    // Deleting lines: `new` is the start of the region `old` (misremembered) covers.
    let file = "intro\nkeep this line as it is, it is long enough\nfirst removed line\nsecond removed line\nend\n";
    let err = apply(
        file,
        edit(
            "keep this line as it is, it is long enough\nfirst removed lines\nsecond removed line",
            "keep this line as it is, it is long enough",
        ),
    );
    assert!(
        !matches!(
            err,
            Ok(Applied {
                strategy: Strategy::AlreadyApplied,
                ..
            })
        ),
        "{err:?}"
    );
}

#[test]
fn trailing_whitespace_is_forgiven_and_kept_where_unchanged() {
    let file = "keep this  \nold line\nend\n";
    let a = applied(file, "keep this\nold line", "keep this\nnew line");
    assert_eq!(a.strategy, Strategy::LineTrimmed);
    assert_eq!(a.content, "keep this  \nnew line\nend\n");
}

#[test]
fn indentation_is_forgiven_and_the_replacement_follows_the_file() {
    let file = "def f():\n    if x:\n        return 1\n    return 2\n";
    let a = applied(file, "if x:\n    return 1", "if x:\n    log()\n    return 1");
    assert_eq!(a.strategy, Strategy::IndentationFlexible);
    assert_eq!(
        a.content,
        "def f():\n    if x:\n        log()\n        return 1\n    return 2\n"
    );
    // Two-space old against a four-space file: the unit is scaled.
    let file = "a:\n    b:\n        c: 1\n";
    let a = applied(file, "a:\n  b:\n    c: 1", "a:\n  b:\n    c: 2\n    d: 3");
    assert_eq!(a.content, "a:\n    b:\n        c: 2\n        d: 3\n");
}

#[test]
fn collapsed_spaces_and_typography_are_forgiven_and_the_file_keeps_its_characters() {
    let file = "| name  | value |\n|---|---|\n";
    let a = applied(file, "| name | value |", "| name | amount |");
    assert_eq!(a.strategy, Strategy::WhitespaceNormalized);
    assert_eq!(a.content, "| name | amount |\n|---|---|\n");
    let file = "Don’t run it — ever.\nSecond “quoted” line.\nThird.\n";
    let a = applied(
        file,
        "Don't run it - ever.\nSecond \"quoted\" line.",
        "Don't run it - ever.\nSecond \"quoted\" line, changed.",
    );
    assert_eq!(a.strategy, Strategy::UnicodeNormalized);
    assert_eq!(
        a.content,
        "Don’t run it — ever.\nSecond \"quoted\" line, changed.\nThird.\n"
    );
}

#[test]
fn literal_escapes_are_decoded() {
    let file = "first line\nsecond line\n";
    let a = applied(file, r"first line\nsecond line", r"first line\nsecond, changed");
    assert_eq!(a.strategy, Strategy::EscapeNormalized);
    assert_eq!(a.content, "first line\nsecond, changed\n");
}

#[test]
fn padding_around_old_is_forgiven() {
    let file = "a\nb\nc\n";
    let a = applied(file, "\n\nb\n\n", "\n\nB\n\n");
    assert_eq!(a.strategy, Strategy::TrimmedBoundary);
    assert_eq!(a.content, "a\nB\nc\n");
}

#[test]
fn a_misremembered_line_that_the_edit_keeps_is_refused_with_the_difference() {
    let file = "## Tuning\nalpha(1)\nbeta(9)\ngamma(3)\n## Next\n";
    let err = apply(
        file,
        edit(
            "## Tuning\nalpha(1)\nbeta(2)\ngamma(3)",
            "## Tuning\nalpha(5)\nbeta(2)\ngamma(3)",
        ),
    )
    .unwrap_err();
    let MatchError::Unsure { candidate } = &err else {
        panic!("expected Unsure, got {err:?}");
    };
    assert_eq!((candidate.start_line, candidate.end_line), (1, 4));
    assert_eq!(
        candidate.differences,
        vec![LineDifference {
            line: 3,
            file: "beta(9)".into(),
            old: "beta(2)".into()
        }]
    );
    assert!(err.to_string().contains("beta(9)"), "{err}");
}

#[test]
fn a_misremembered_line_that_the_edit_replaces_is_a_block_anchor_match() {
    let file = "## Tuning\nalpha(1)\nbeta(9)\ngamma(3)\n## Next\n";
    let a = applied(
        file,
        "## Tuning\nalpha(1)\nbeta(2)\ngamma(3)",
        "## Tuning\nalpha(1)\nbeta(4)\ngamma(3)",
    );
    assert_eq!(a.strategy, Strategy::BlockAnchor);
    assert_eq!(a.content, "## Tuning\nalpha(1)\nbeta(4)\ngamma(3)\n## Next\n");
    assert!(a.similarity >= candidates::BLOCK_ANCHOR_MIN_SIMILARITY && a.similarity < 1.0);
}

#[test]
fn a_close_variant_of_a_replaced_line_next_to_a_matching_one_is_a_context_aware_match() {
    let file = "intro\n\n- **Bespoke visual design, little-driven artifact** -> claude-design\n- **Explain / plan / report** -> html-artifact\nend\n";
    let a = applied(
        file,
        "\n- **Bespoke visual design, little-driven artefact** -> claude-design\n- **Explain / plan / report** -> html-artifact",
        "\n- **Process + taste, one-off artifact** -> claude-design\n- **Explain / plan / report** -> html-artifact",
    );
    assert_eq!(a.strategy, Strategy::ContextAware);
    assert_eq!(
        a.content,
        "intro\n\n- **Process + taste, one-off artifact** -> claude-design\n- **Explain / plan / report** -> html-artifact\nend\n"
    );
    // The same drift in a line the edit keeps is refused.
    let err = apply(
        file,
        edit(
            "\n- **Bespoke visual design, little-driven artefact** -> claude-design\n- **Explain / plan / report** -> html-artifact",
            "\n- **Bespoke visual design, little-driven artefact** -> claude-design\n- **Explain** -> html-artifact",
        ),
    );
    assert!(err.is_err(), "{err:?}");
}

#[test]
fn two_similar_sections_are_never_confused() {
    let file = "## A\nrun it\nthen stop\n## B\nrun it\nthen stop\n";
    let err = apply(file, edit("run it\nthen stop", "run it twice\nthen stop")).unwrap_err();
    assert!(
        matches!(err, MatchError::Ambiguous { ref lines, .. } if *lines == vec![2, 5]),
        "{err:?}"
    );
    let err = apply(file, edit("## C\nrun it\nthen stop", "## C\nrun it twice\nthen stop")).unwrap_err();
    assert!(matches!(err, MatchError::NotFound { .. }), "{err:?}");
}

#[test]
fn absent_text_is_refused_with_the_closest_candidates() {
    let file = "# Title\n\nInstall the package with pip.\nThen run the tests.\n";
    let err = apply(file, edit("Install the package with npm.", "x")).unwrap_err();
    let MatchError::NotFound { candidates } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(candidates[0].start_line, 3);
    assert!(candidates[0].similarity > 0.8);
    assert!(err.to_string().contains("line 3"), "{err}");
    let err = apply(file, edit("completely unrelated words", "x")).unwrap_err();
    assert_eq!(err, MatchError::NotFound { candidates: vec![] });
}

#[test]
fn crlf_files_keep_their_line_endings() {
    let file = "a\r\nb  \r\nc\r\n";
    let a = applied(file, "a\nb\n", "a\nB\n");
    assert_eq!(a.content, "a\r\nB\r\nc\r\n");
}

#[test]
fn deleting_whole_lines_removes_their_newline() {
    // Remembered with other indentation: the whole line goes, newline included.
    let a = applied("keep\n  drop me\nkeep too\n", "    drop me\n", "");
    assert_eq!(
        (a.strategy, a.content.as_str()),
        (Strategy::IndentationFlexible, "keep\nkeep too\n")
    );
    // Exact text behaves like `str::replacen`, even inside a line.
    let a = applied("keep\n  drop me\nkeep too\n", "drop me\n", "");
    assert_eq!(a.content, "keep\n  keep too\n");
}

/// The wrong edits an independent review found; each must now be refused or right.
#[test]
fn review_findings_are_refused_or_right() {
    let refused = |content: &str, old: &str, new: &str| {
        let result = apply(content, edit(old, new));
        assert!(result.is_err(), "{content:?} / {old:?} → {result:?}");
    };
    // Padding stripped, `old` must still be whole lines, not a piece of one.
    refused("a\nbc\n", "a\nb\n", "a\nX\n");
    refused("barfoo\n", "\nfoo\n", "\nbaz\n");
    refused("xx = 10\n", "  x = 1  ", "  x = 2  ");
    // Indentation dropped altogether maps onto nothing.
    refused(
        "metadata:\n  tags: [a]\nname: x\n",
        "metadata:\ntags: [a]",
        "metadata:\ntags: [a, b]\nmore: 1",
    );
    refused("  if a:\n\tb\n", "if a:\nb", "if a:\nc\nd");
    let a = applied("def f():\n    if x:\n        foo()\n", "if x:\nfoo()", "if x:\nbar()");
    assert_eq!(a.content, "def f():\n    if x:\n        bar()\n");
    // A file's own escapes are not decoded.
    let a = applied(
        "s = \"a\\tb\"\nreturn s\n",
        "s = \"a\\tb\"\\nreturn s",
        "s = \"a\\tc\"\\nreturn s",
    );
    assert_eq!(a.content, "s = \"a\\tc\"\nreturn s\n");
    refused(
        "body=\"a\\n\" + x\nnext line\n",
        "body=\"a\\n\" + x\\nnext line",
        "body=\"b\\n\" + x\\nnext line",
    );
    let a = applied(
        "path = C:\\\\new\nnext\n",
        "path = C:\\\\new\\nnext",
        "path = D:\\\\new\\nnext",
    );
    assert_eq!(a.content, "path = D:\\\\new\nnext\n");
    // `new` elsewhere while the misremembered target is still there: not "already applied".
    let filler = "filler line\n".repeat(20);
    let file = format!("run foo --slow\nrun bar --slow\n{filler}run foo --fast\nrun bar --fast\n");
    refused(
        &file,
        "run foo --slwo\nrun bar --slwo",
        "run foo --fast\nrun bar --fast",
    );
    // One place left beside a place the edit already covers is ambiguous.
    refused("x = 1\ny = 2\n\nx = 1\nz\n", "x = 1", "x = 1\ny = 2");
    // A block anchor never replaces a line unlike the one the agent remembered.
    let file =
        "fn a() {\n    step(1);\n    step(2);\n    danger_call_here();\n    step(4);\n    step(5);\n    step(6);\n}\n";
    refused(
        file,
        "fn a() {\n    step(1);\n    step(2);\n    step(3);\n    step(4);\n    step(5);\n    step(6);\n}",
        "fn a() {\n    step(1);\n    step(2);\n    step(33);\n    step(4);\n    step(5);\n    step(6);\n}",
    );
    // CRLF files get CRLF in what is written, whatever the strategy.
    assert_eq!(applied("a\r\nb\r\n", "a", "a\nx").content, "a\r\nx\r\nb\r\n");
    assert_eq!(applied("a\r\nb", "b ", "b\nc").content, "a\r\nb\r\nc");
    assert_eq!(applied("one\r\ntwo\r\n", "one\\ntwo", "1\\n2").content, "1\r\n2\r\n");
}

#[test]
fn a_file_of_near_identical_lines_is_searched_quickly() {
    let file = "x\n".repeat(20_000);
    let old = format!("{}y\n{}", "x\n".repeat(1000), "x\n".repeat(1000));
    let started = std::time::Instant::now();
    assert!(apply(&file, edit(&old, "z")).is_err());
    // Not a timing assertion on the machine: a guard against the quadratic path, whose
    // cost was seconds.
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}
