//! Properties of the matcher over generated inputs.

use cairn_pipeline::{Edit, MatchError, apply};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// An `old` taken verbatim from the file behaves like `str::replacen` (or `replace`
    /// with replace_all) whenever `new` does not itself contain `old`.
    #[test]
    fn exact_old_behaves_like_replacen(
        content in "[a-c \\n]{1,60}",
        from in 0usize..60,
        len in 1usize..12,
        new in "[a-d \\n]{0,10}",
        replace_all in any::<bool>(),
    ) {
        let from = from % content.len();
        let to = (from + len).min(content.len());
        let old = &content[from..to];
        prop_assume!(old != new && !new.contains(old));
        let count = content.matches(old).count();
        let result = apply(&content, Edit { old, new: &new, replace_all });
        if count > 1 && !replace_all {
            let is_ambiguous = matches!(result, Err(MatchError::Ambiguous { .. }));
            prop_assert!(is_ambiguous, "{result:?}");
        } else {
            let expected = if replace_all { content.replace(old, &new) } else { content.replacen(old, &new, 1) };
            let applied = result.expect("an exact old applies");
            prop_assert_eq!(applied.content, expected);
            prop_assert_eq!(applied.replacements, count);
        }
    }

    /// Text that is nowhere in the file, in any spelling, never applies.
    #[test]
    fn absent_text_never_applies(
        content in "[a-m \\n'\"-]{0,200}",
        old in "[n-z][n-z \\n]{0,40}",
        new in "[n-z \\n]{0,40}",
        replace_all in any::<bool>(),
    ) {
        prop_assume!(old != new);
        let result = apply(&content, Edit { old: &old, new: &new, replace_all });
        let refused = matches!(result, Err(MatchError::NotFound { .. }));
        prop_assert!(refused, "{result:?}");
    }

    /// Arbitrary text never panics, and a success changes only what it says it did.
    #[test]
    fn arbitrary_input_never_panics(
        content in "\\PC{0,300}",
        old in "\\PC{0,60}",
        new in "\\PC{0,60}",
        replace_all in any::<bool>(),
    ) {
        if let Ok(applied) = apply(&content, Edit { old: &old, new: &new, replace_all }) {
            prop_assert!(applied.similarity > 0.0 && applied.similarity <= 1.0);
            if applied.replacements == 0 {
                prop_assert_eq!(applied.content, content);
            }
        }
    }
}
