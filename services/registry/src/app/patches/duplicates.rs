//! Finding what a new patch likely duplicates: the lesson of an open patch of the same
//! skill, or text already in its latest revision (`cairn_pipeline::lesson`). A mark is
//! advice shown to reviewers; it never closes anything by itself.

use std::collections::BTreeSet;

use cairn_pipeline::lesson::{self, Measure};
use cairn_skill::Bundle;
use cairn_skill::path::RelPath;
use cairn_store::DuplicateMark;

use super::PatchError;
use crate::Services;

/// Longest excerpt kept in a mark, in characters.
const EXCERPT_CHARS: usize = 160;

/// The closest likely duplicate of `lesson` (a patch of `skill` based on `base`, whose
/// candidate is `candidate` when it merged), if any is alike enough. `excluded` are the
/// patch itself and the one it supersedes (which it repeats by design): never its
/// duplicates.
#[allow(clippy::too_many_arguments)]
pub(super) async fn find(
    services: &Services,
    org_id: i64,
    skill: &str,
    excluded: &[uuid::Uuid],
    lesson: &str,
    latest: Option<(i32, &Bundle)>,
    base: Option<&Bundle>,
    candidate: Option<&Bundle>,
) -> Result<Option<DuplicateMark>, PatchError> {
    let measure = Measure::CHOSEN;
    let mine = lesson::features(lesson, &measure);
    if mine.len() < lesson::MIN_FEATURES {
        return Ok(None);
    }
    // The skill's own text as it stands (the latest revision, or the base of a new
    // skill's first patch), block by block with each block's features: what every lesson
    // for it shares because of its subject, and, in the latest revision, text the lesson
    // may repeat.
    let skill_blocks: Vec<(&RelPath, lesson::Block, BTreeSet<String>)> = latest
        .map(|(_, bundle)| bundle)
        .or(base)
        .into_iter()
        .flat_map(|bundle| bundle.files())
        .filter_map(|(path, file)| Some((path, std::str::from_utf8(&file.bytes).ok()?)))
        .flat_map(|(path, text)| lesson::blocks(text).into_iter().map(move |block| (path, block)))
        .map(|(path, block)| {
            let features = lesson::features(&block.text, &measure);
            (path, block, features)
        })
        .collect();
    let vocabulary = lesson::Vocabulary::of_blocks(skill_blocks.iter().map(|(_, _, features)| features));
    let alike = |theirs: &BTreeSet<String>| {
        (theirs.len() >= lesson::MIN_FEATURES)
            .then(|| lesson::likeness(&mine, theirs, &measure, &vocabulary))
            .filter(|s| *s >= measure.threshold)
    };
    let mut best: Option<DuplicateMark> = None;
    let mut consider = |mark: DuplicateMark| {
        if best.as_ref().is_none_or(|b| mark.similarity > b.similarity) {
            best = Some(mark);
        }
    };
    for open in services.store.open_lessons(org_id, skill).await? {
        if excluded.contains(&open.id) {
            continue;
        }
        if let Some(similarity) = alike(&lesson::features(&open.lesson, &measure)) {
            consider(DuplicateMark {
                patch: Some(open.id),
                revision: None,
                file: None,
                line: None,
                excerpt: excerpt(&open.lesson),
                similarity,
            });
        }
    }
    // The blocks are the latest revision's when there is one.
    if let Some((revision, _)) = latest {
        fn text_of<'b>(bundle: Option<&'b Bundle>, path: &RelPath) -> &'b str {
            bundle
                .and_then(|b| b.get(path))
                .and_then(|f| std::str::from_utf8(&f.bytes).ok())
                .unwrap_or("")
        }
        for (path, block, theirs) in &skill_blocks {
            // Text the patch itself rewrote is not text it repeats: compare only with
            // blocks the candidate keeps as they are (or, in conflict, blocks added
            // since the patch's base).
            let kept = match candidate {
                Some(_) => text_of(candidate, path).contains(&block.text),
                None => !text_of(base, path).contains(&block.text),
            };
            if !kept {
                continue;
            }
            if let Some(similarity) = alike(theirs) {
                consider(DuplicateMark {
                    patch: None,
                    revision: Some(revision),
                    file: Some(path.as_str().to_owned()),
                    line: Some(block.line),
                    excerpt: excerpt(&block.text),
                    similarity,
                });
            }
        }
    }
    Ok(best)
}

fn excerpt(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= EXCERPT_CHARS {
        flat
    } else {
        let mut cut: String = flat.chars().take(EXCERPT_CHARS - 1).collect();
        cut.push('…');
        cut
    }
}
