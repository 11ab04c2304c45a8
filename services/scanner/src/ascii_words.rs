//! Rewrites `\w` and `\W` in a pattern as ASCII word classes (`[[:word:]]`, `[^[:word:]]`,
//! and `[:word:]` / `[:^word:]` inside brackets). Unicode's `\w` holds some 140,000
//! characters: every occurrence compiles into a large UTF-8 automaton, forwards and in
//! reverse, and those automata are most of what a process's first scan spends building
//! its regexes (`explain`'s cold start). Prose and command patterns mean the words of
//! shell, English and ASCII identifiers, as their boundaries already do
//! ([`crate::literals::ascii_word_boundaries`]); patterns that must read identifiers in
//! other scripts (the script model's) keep Unicode classes and do not use this.
//!
//! The rewrite works on the parsed pattern, so `\\w` (a backslash, then `w`), `\w` inside
//! a bracketed class and negated classes are each rewritten as what they mean.

use regex_syntax::ast::{self, Ast, ClassAscii, ClassAsciiKind, ClassPerl, ClassPerlKind, ClassSet, ClassSetItem};

/// `pattern` with every `\w` and `\W` read as ASCII, or `pattern` itself when it does not
/// parse (compiling it then reports the error as written).
pub fn ascii_words(pattern: &str) -> String {
    if !pattern.contains("\\w") && !pattern.contains("\\W") {
        return pattern.to_owned();
    }
    let Ok(mut parsed) = ast::parse::Parser::new().parse(pattern) else {
        return pattern.to_owned();
    };
    rewrite(&mut parsed);
    let mut out = String::with_capacity(pattern.len() + 32);
    match ast::print::Printer::new().print(&parsed, &mut out) {
        Ok(()) => out,
        Err(_) => pattern.to_owned(),
    }
}

fn ascii_word(perl: &ClassPerl) -> ClassAscii {
    ClassAscii {
        span: perl.span,
        kind: ClassAsciiKind::Word,
        negated: perl.negated,
    }
}

fn rewrite(node: &mut Ast) {
    match node {
        Ast::ClassPerl(perl) if perl.kind == ClassPerlKind::Word => {
            // `\W` becomes `[^[:word:]]`: the negation moves to the brackets.
            let class = ast::ClassBracketed {
                span: perl.span,
                negated: perl.negated,
                kind: ClassSet::Item(ClassSetItem::Ascii(ClassAscii {
                    negated: false,
                    ..ascii_word(perl)
                })),
            };
            *node = Ast::class_bracketed(class);
        }
        Ast::ClassBracketed(class) => rewrite_set(&mut class.kind),
        Ast::Repetition(repetition) => rewrite(&mut repetition.ast),
        Ast::Group(group) => rewrite(&mut group.ast),
        Ast::Alternation(alternation) => alternation.asts.iter_mut().for_each(rewrite),
        Ast::Concat(concat) => concat.asts.iter_mut().for_each(rewrite),
        _ => {}
    }
}

fn rewrite_set(set: &mut ClassSet) {
    match set {
        ClassSet::Item(item) => rewrite_item(item),
        ClassSet::BinaryOp(op) => {
            rewrite_set(&mut op.lhs);
            rewrite_set(&mut op.rhs);
        }
    }
}

fn rewrite_item(item: &mut ClassSetItem) {
    match item {
        ClassSetItem::Perl(perl) if perl.kind == ClassPerlKind::Word => {
            *item = ClassSetItem::Ascii(ascii_word(perl));
        }
        ClassSetItem::Bracketed(class) => rewrite_set(&mut class.kind),
        ClassSetItem::Union(union) => union.items.iter_mut().for_each(rewrite_item),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::Regex;

    #[test]
    fn word_classes_become_ascii_wherever_they_stand() {
        assert_eq!(ascii_words(r"\w+\W"), r"[[:word:]]+[^[:word:]]");
        assert_eq!(ascii_words(r#"[^"'\w]\s*[\w.-]+"#), r#"[^"'[:word:]]\s*[[:word:].-]+"#);
        assert_eq!(ascii_words(r"[^\W\d]"), r"[^[:^word:]\d]");
        assert_eq!(
            ascii_words(r"(?i)(?:a\w|b)\w{2,}"),
            r"(?i)(?:a[[:word:]]|b)[[:word:]]{2,}"
        );
    }

    #[test]
    fn what_is_not_a_word_class_stays_as_written() {
        assert_eq!(ascii_words(r"a\\w\s\d"), r"a\\w\s\d");
        assert_eq!(ascii_words(r"no classes"), r"no classes");
        // Not a pattern: returned unchanged so compiling it reports the author's error.
        assert_eq!(ascii_words(r"\w(unclosed"), r"\w(unclosed");
    }

    #[test]
    fn ascii_words_match_ascii_words_only() {
        let unicode = Regex::new(r"^\w+$").unwrap();
        let ascii = Regex::new(&ascii_words(r"^\w+$")).unwrap();
        for word in ["curl", "pip_install2", "K"] {
            assert!(unicode.is_match(word) && ascii.is_match(word), "{word}");
        }
        assert!(unicode.is_match("café") && !ascii.is_match("café"));
        let not_word = Regex::new(&ascii_words(r"^\W$")).unwrap();
        assert!(not_word.is_match("é") && not_word.is_match(" ") && !not_word.is_match("a"));
    }
}
