//! Lessons and their likeness: what a patch teaches, and whether two patches (or a patch
//! and text already in the skill) teach the same thing in different words.
//!
//! A patch's *lesson* is the text it adds: inserted lines whole, and from a changed line
//! only the words that are new in it (a note appended to an existing bullet is the note,
//! not the bullet). Two lessons are compared as sets of features: the words, with Markdown
//! markup, link targets, case and punctuation dropped, Unicode folded (NFKC), common
//! English function words left out and plural/verb endings trimmed; runs of Chinese,
//! Japanese or Korean script, written without spaces, count as overlapping two-character
//! pieces. Their likeness is a weighted Jaccard coefficient of the two sets: a feature
//! weighs less the more blocks of the skill's own text use it ([`Vocabulary`]), because
//! two lessons for a deploy skill that both say `make deploy` share the skill's subject,
//! not a lesson (with plain Jaccard a third of real distinct lessons were marked as
//! repeats of the skill's text). The measure and its threshold were chosen on one half of
//! a hand-written bank of lessons, each worded three ways, and of a bank of lessons
//! written for real skills, and checked on the other halves (docs/BENCHMARKS.md,
//! "Duplicate lessons").
//!
//! A duplicate mark is advice for a reviewer; it never closes anything by itself.

use std::collections::BTreeSet;

use cairn_skill::Bundle;
use similar::{ChangeTag, DiffOp, TextDiff};
use unicode_normalization::UnicodeNormalization as _;

/// How features are taken and compared (the chosen one is [`Measure::CHOSEN`]; the others
/// exist so the evaluation can show why).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measure {
    /// Trim plural and verb endings of Latin-script words.
    pub stem: bool,
    /// Leave out common English function words.
    pub stopwords: bool,
    /// Add pairs of consecutive words as features.
    pub word_pairs: bool,
    /// Add the technical tokens as features of their own: each inline code span whole,
    /// its pieces (`--include-untracked`, `HF_HOME`, `requirements.txt`), and flags,
    /// upper-case names and paths written in prose. Agents reporting one lesson name the
    /// same command, flag or file even when the rest of their words differ.
    pub code_tokens: bool,
    /// Divide the overlap by the smaller set (containment) instead of the union (Jaccard).
    pub containment: bool,
    /// How much a feature the skill's own text uses loses weight: it weighs
    /// `(1 + blocks using it)^-skill_weighting` (0: every feature weighs 1).
    pub skill_weighting: f64,
    /// Likeness at or above which two lessons are likely the same.
    pub threshold: f64,
}

impl Measure {
    /// The measure in use: word sets and technical tokens, stemmed, without function
    /// words, Jaccard weighted by the skill's own text.
    pub const CHOSEN: Measure = Measure {
        stem: true,
        stopwords: true,
        word_pairs: false,
        code_tokens: true,
        containment: false,
        skill_weighting: 1.5,
        threshold: 0.14,
    };
}

/// The features of a text under `measure`.
pub fn features(text: &str, measure: &Measure) -> BTreeSet<String> {
    let text = strip_link_targets(text);
    let folded: String = text.nfkc().collect::<String>().to_lowercase();
    let mut words: Vec<String> = Vec::new();
    let mut out = BTreeSet::new();
    let mut word = String::new();
    let text = text.as_str();
    let mut cjk = String::new();
    let flush_word = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            let w = std::mem::take(word);
            let stopword = measure.stopwords && STOPWORDS.contains(&w.as_str());
            let letter = w.chars().count() == 1 && w.is_ascii();
            if !stopword && !letter {
                words.push(if measure.stem { stem(&w) } else { w });
            }
        }
    };
    let flush_cjk = |cjk: &mut String, out: &mut BTreeSet<String>| {
        let chars: Vec<char> = cjk.chars().collect();
        if chars.len() == 1 {
            out.insert(chars[0].to_string());
        }
        for pair in chars.windows(2) {
            out.insert(pair.iter().collect());
        }
        cjk.clear();
    };
    for c in folded.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut words);
            cjk.push(c);
        } else {
            flush_cjk(&mut cjk, &mut out);
            if c.is_alphanumeric() {
                word.push(c);
            } else {
                flush_word(&mut word, &mut words);
            }
        }
    }
    flush_word(&mut word, &mut words);
    flush_cjk(&mut cjk, &mut out);
    if measure.word_pairs {
        for pair in words.windows(2) {
            out.insert(format!("{} {}", pair[0], pair[1]));
        }
    }
    out.extend(words);
    if measure.code_tokens {
        code_tokens(text, &mut out);
    }
    out
}

/// The technical tokens of a text (see [`Measure::code_tokens`]), prefixed so they never
/// equal a plain word.
fn code_tokens(text: &str, out: &mut BTreeSet<String>) {
    let piece = |c: char| c.is_alphanumeric() || matches!(c, '.' | '-' | '/' | ':' | '=' | '_');
    let mut rest = text;
    let mut prose = String::new();
    while let Some(open) = rest.find('`') {
        prose.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find('`') else {
            rest = after;
            break;
        };
        let span: String = after[..close].nfkc().collect::<String>().to_lowercase();
        let span = span.trim();
        if !span.is_empty() {
            out.insert(format!("`{span}`"));
            for token in span.split(|c: char| !piece(c)).filter(|t| t.chars().count() > 1) {
                out.insert(format!("`{token}"));
            }
        }
        rest = &after[close + 1..];
    }
    prose.push_str(rest);
    for word in prose.split_whitespace() {
        let word = word.trim_matches(|c: char| !piece(c) || c == '.' || c == ':');
        let flag = word.starts_with('-')
            && word
                .trim_start_matches('-')
                .starts_with(|c: char| c.is_ascii_alphabetic());
        let upper = word.chars().count() >= 3
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && word.chars().any(|c| c.is_ascii_uppercase());
        let path = word.contains('/') && word.chars().count() > 2 && !word.contains("://");
        if flag || upper || path {
            out.insert(format!("`{}", word.to_lowercase()));
        }
    }
}

/// The features of one skill's text and how many of its blocks use each: what lessons
/// for that skill have in common because of its subject.
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    blocks_using: std::collections::HashMap<String, u32>,
}

impl Vocabulary {
    /// The vocabulary of the given texts (a skill's files), block by block.
    pub fn of<'t>(texts: impl IntoIterator<Item = &'t str>, measure: &Measure) -> Vocabulary {
        let per_block: Vec<BTreeSet<String>> = texts
            .into_iter()
            .flat_map(blocks)
            .map(|block| features(&block.text, measure))
            .collect();
        Vocabulary::of_blocks(&per_block)
    }

    /// The vocabulary of blocks whose features are already known (a caller that also
    /// compares a lesson with each block computes them once).
    pub fn of_blocks<'f>(per_block: impl IntoIterator<Item = &'f BTreeSet<String>>) -> Vocabulary {
        let mut blocks_using = std::collections::HashMap::new();
        for features in per_block {
            for feature in features {
                *blocks_using.entry(feature.clone()).or_insert(0) += 1;
            }
        }
        Vocabulary { blocks_using }
    }

    /// The weight of `feature` under `measure`.
    pub fn weight(&self, feature: &str, measure: &Measure) -> f64 {
        if measure.skill_weighting == 0.0 {
            return 1.0;
        }
        let used = self.blocks_using.get(feature).copied().unwrap_or(0);
        (1.0 + f64::from(used)).powf(-measure.skill_weighting)
    }
}

/// How alike two feature sets are, 0–1 (0 when either is empty), each feature weighed by
/// `vocabulary` (see [`Measure::skill_weighting`]).
pub fn likeness(a: &BTreeSet<String>, b: &BTreeSet<String>, measure: &Measure, vocabulary: &Vocabulary) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let sum = |set: &mut dyn Iterator<Item = &String>| -> f64 { set.map(|f| vocabulary.weight(f, measure)).sum() };
    let shared = sum(&mut a.intersection(b));
    let whole = if measure.containment {
        sum(&mut a.iter()).min(sum(&mut b.iter()))
    } else {
        sum(&mut a.union(b))
    };
    // An empty sum of floats is -0.0: nothing shared is 0, shown as such.
    if shared > 0.0 && whole > 0.0 {
        shared / whole
    } else {
        0.0
    }
}

/// How alike two lessons are under the chosen measure, with no skill text to weigh by.
pub fn similarity(a: &str, b: &str) -> f64 {
    let m = Measure::CHOSEN;
    likeness(&features(a, &m), &features(b, &m), &m, &Vocabulary::default())
}

/// Lessons with fewer features than this are too short to call duplicates.
pub const MIN_FEATURES: usize = 4;

/// Whether two lessons for a skill whose text has `vocabulary` are likely the same lesson.
pub fn likely_same(a: &str, b: &str, vocabulary: &Vocabulary) -> Option<f64> {
    let m = Measure::CHOSEN;
    let (fa, fb) = (features(a, &m), features(b, &m));
    if fa.len() < MIN_FEATURES || fb.len() < MIN_FEATURES {
        return None;
    }
    let s = likeness(&fa, &fb, &m, vocabulary);
    (s >= m.threshold).then_some(s)
}

/// The text a patch adds, from `base` (`None`: a new skill) to `patched`: inserted lines
/// whole, and the words new in changed lines, over every text file.
pub fn lesson(base: Option<&Bundle>, patched: &Bundle) -> String {
    let mut out = String::new();
    for (path, file) in patched.files() {
        let Ok(after) = std::str::from_utf8(&file.bytes) else {
            continue;
        };
        let before = base
            .and_then(|b| b.get(path))
            .and_then(|f| std::str::from_utf8(&f.bytes).ok())
            .unwrap_or("");
        if before == after {
            continue;
        }
        let old: Vec<&str> = before.lines().collect();
        let new: Vec<&str> = after.lines().collect();
        for op in crate::merge::diff_ops(&old, &new) {
            match op {
                DiffOp::Insert { new_index, new_len, .. } => {
                    for line in &new[new_index..new_index + new_len] {
                        out.push_str(line);
                        out.push('\n');
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    let removed = old[old_index..old_index + old_len].join("\n");
                    let added = new[new_index..new_index + new_len].join("\n");
                    for change in TextDiff::from_words(&removed, &added).iter_all_changes() {
                        if change.tag() == ChangeTag::Insert {
                            out.push_str(change.value());
                        }
                    }
                    out.push('\n');
                }
                DiffOp::Equal { .. } | DiffOp::Delete { .. } => {}
            }
        }
    }
    out
}

/// One block of a Markdown file (a list item with its continuation lines, a paragraph, a
/// heading, a code block): what a lesson may repeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Its first line (1-based).
    pub line: usize,
    /// Its text.
    pub text: String,
}

/// The blocks of a Markdown text.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        let starts_item = ["- ", "* ", "+ "].iter().any(|m| trimmed.starts_with(m))
            || trimmed.split_once(['.', ')']).is_some_and(|(n, rest)| {
                !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && rest.starts_with(' ')
            });
        let boundary = !in_fence && (line.trim().is_empty() || starts_item || trimmed.starts_with('#') || fence);
        if boundary && let Some(block) = current.take() {
            out.push(block);
        }
        if fence {
            in_fence = !in_fence;
        }
        if line.trim().is_empty() && !in_fence {
            continue;
        }
        let block = current.get_or_insert_with(|| Block {
            line: i + 1,
            text: String::new(),
        });
        block.text.push_str(line);
        block.text.push('\n');
        if !in_fence && trimmed.starts_with('#') {
            out.extend(current.take());
        }
    }
    out.extend(current);
    out
}

/// Removes the targets of Markdown links and images (`](…)`), keeping their text.
fn strip_link_targets(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        match after.find(')') {
            Some(end) => rest = &after[end + 1..],
            None => {
                rest = after;
                break;
            }
        }
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// Whether `c` belongs to a script written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff   // Hiragana, Katakana
        | 0x3400..=0x4dbf // CJK Extension A
        | 0x4e00..=0x9fff // CJK Unified Ideographs
        | 0xac00..=0xd7af // Hangul syllables
        | 0xf900..=0xfaff // CJK Compatibility Ideographs
        | 0x20000..=0x2fa1f)
}

/// Trims common English plural and verb endings from a Latin-script word (a light
/// stemmer: "caches", "cached", "caching" all become "cach").
fn stem(word: &str) -> String {
    if !word.is_ascii() || word.len() <= 4 {
        return word.to_owned();
    }
    if ["ss", "us", "is"].iter().any(|keep| word.ends_with(keep)) {
        return word.to_owned();
    }
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.len() >= 3
        {
            return stem.to_owned();
        }
    }
    word.to_owned()
}

/// English function words, left out of the features.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "do", "does", "for", "from", "has", "have", "if",
    "in", "into", "is", "it", "its", "no", "not", "of", "on", "or", "so", "than", "that", "the", "then", "there",
    "this", "to", "was", "we", "when", "which", "will", "with", "you", "your",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_drop_markup_case_and_function_words() {
        let f = features(
            "**Always** pass `--frozen` to [uv](https://docs.example/uv) when the lockfile exists.",
            &Measure::CHOSEN,
        );
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        assert_eq!(
            f,
            vec![
                "`--frozen",
                "`--frozen`",
                "alway",
                "exist",
                "frozen",
                "lockfile",
                "pass",
                "uv"
            ]
        );
    }

    #[test]
    fn lessons_sharing_nothing_are_exactly_zero_alike() {
        let s = similarity(
            "Rotate the grafana admin password through vault quarterly.",
            "Kibana service tokens expire monthly; renew them with curator.",
        );
        assert!(s == 0.0 && s.is_sign_positive(), "{s}");
    }

    #[test]
    fn chinese_is_compared_by_character_pairs() {
        let f = features("先运行测试", &Measure::CHOSEN);
        assert!(f.contains("先运") && f.contains("测试"));
        assert!(similarity("安装前先运行测试", "先运行测试再安装") > 0.3);
    }

    #[test]
    fn the_same_lesson_in_other_words_is_alike_and_a_different_one_is_not() {
        let a = "Set `HF_HOME` to the data disk before downloading models, or the cache fills the root partition.";
        let b =
            "Downloading models filled `/root`: export HF_HOME to the big data disk first so the cache lands there.";
        let c = "Pass `--gradient-checkpointing` when the model does not fit in GPU memory.";
        let none = Vocabulary::default();
        assert!(likely_same(a, b, &none).is_some(), "{}", similarity(a, b));
        assert!(likely_same(a, c, &none).is_none(), "{}", similarity(a, c));
        assert!(likely_same("ok", "ok", &none).is_none(), "too short to tell");
    }

    /// Seen in a user flow: distinct lessons for a deploy skill were marked as repeats of
    /// its lines because they all name `make deploy`; what the skill's text says at every
    /// turn is its subject, not a lesson.
    #[test]
    fn the_skill_subject_alone_does_not_make_lessons_alike() {
        let skill = "# Deploy notes\n\n## Steps\n1. Run the test suite with `make test`.\n\
                     2. Run `make deploy ENV=staging` and watch the logs.\n3. Promote with `make promote`.\n\n\
                     ## Pitfalls\n- The staging database is reset every night at 02:00 UTC.\n\
                     - `make deploy` needs the VPN.\n- `make deploy` fails on a dirty tree.\n";
        let m = Measure::CHOSEN;
        let vocabulary = Vocabulary::of([skill], &m);
        let migrations = "`make deploy` silently skips migrations unless `MIGRATE=1` is set; pass it when the release has a schema change.";
        let vpn_line = "`make deploy` needs the VPN.";
        let plain = likeness(
            &features(migrations, &m),
            &features(vpn_line, &m),
            &m,
            &Vocabulary::default(),
        );
        assert!(plain >= m.threshold, "plain word overlap alone marks it: {plain}");
        assert!(likely_same(migrations, vpn_line, &vocabulary).is_none());
        // The same lesson in other words still is one, the skill's subject notwithstanding.
        let again = "Deploys that change the schema need `MIGRATE=1`: without it `make deploy` quietly leaves the migrations unapplied.";
        assert!(likely_same(migrations, again, &vocabulary).is_some());
        // Weights: a feature of every block weighs least, one the skill never uses weighs 1.
        assert!(vocabulary.weight("`make deploy`", &m) < vocabulary.weight("migrat", &m));
        assert_eq!(vocabulary.weight("never-used-here", &m), 1.0);
    }

    #[test]
    fn a_lesson_is_what_the_patch_adds() {
        use cairn_skill::BundleFile;
        use cairn_skill::limits::Limits;
        use cairn_skill::path::RelPath;
        let make = |t: &str| {
            Bundle::from_files(
                [(RelPath::skill_md(), BundleFile::new(t.as_bytes().to_vec(), false))],
                &Limits::default(),
            )
            .unwrap()
        };
        let base = make("---\nname: s\ndescription: d\n---\n- keep the cache warm\n- pin versions\n");
        let patched = make(
            "---\nname: s\ndescription: d\n---\n- keep the cache warm (run `make warm` first)\n- pin versions\n- new bullet here\n",
        );
        let lesson = lesson(Some(&base), &patched);
        assert!(
            lesson.contains("make warm") && lesson.contains("new bullet here"),
            "{lesson}"
        );
        assert!(!lesson.contains("keep the cache"), "{lesson}");
    }

    #[test]
    fn blocks_are_items_paragraphs_headings_and_fences() {
        let text = "# T\n\nA paragraph\nthat continues.\n\n- one\n  more\n- two\n\n```sh\nx\n\ny\n```\n";
        let b = blocks(text);
        let starts: Vec<usize> = b.iter().map(|b| b.line).collect();
        assert_eq!(starts, vec![1, 3, 6, 8, 10]);
        assert_eq!(b[2].text, "- one\n  more\n");
        assert_eq!(b[4].text, "```sh\nx\n\ny\n```\n");
    }
}
