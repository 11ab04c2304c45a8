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
    let skill_blocks = blocks_of(latest.map(|(_, bundle)| bundle).or(base), &measure);
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

/// The blocks of a skill's files, each with its features: what every lesson for the
/// skill shares because of its subject (the [`lesson::Vocabulary`]), and text a lesson may
/// repeat.
fn blocks_of<'b>(bundle: Option<&'b Bundle>, measure: &Measure) -> Vec<(&'b RelPath, lesson::Block, BTreeSet<String>)> {
    bundle
        .into_iter()
        .flat_map(|bundle| bundle.files())
        .filter_map(|(path, file)| Some((path, std::str::from_utf8(&file.bytes).ok()?)))
        .flat_map(|(path, text)| lesson::blocks(text).into_iter().map(move |block| (path, block)))
        .map(|(path, block)| {
            let features = lesson::features(&block.text, measure);
            (path, block, features)
        })
        .collect()
}

/// How another open patch of a duplicate group stands to the lesson of the patch being
/// approved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupRepeat {
    /// The other patch.
    pub id: uuid::Uuid,
    /// How alike its lesson is to this one's, measured now (`None`: too short to measure).
    pub similarity: Option<f64>,
    /// Whether it repeats this lesson: marked as its duplicate, or alike enough to it.
    /// Only these are closed with the approval.
    pub repeats: bool,
}

/// The other open patches of `patch`'s duplicate group (`members`, its open patches oldest
/// first), each with whether it repeats `patch`'s own lesson. A group grows by likeness to any of its members, and
/// likeness does not carry over: a patch that joined through another member may teach
/// something else, and approving `patch` with its duplicates must not close that lesson.
/// `latest` is the skill's latest revision (the vocabulary the likeness is weighed by).
pub(super) async fn group_repeats(
    services: &Services,
    org_id: i64,
    patch: &cairn_store::PatchRecord,
    members: &[cairn_store::PatchRecord],
    latest: Option<&Bundle>,
) -> Result<Vec<GroupRepeat>, PatchError> {
    let Some(group) = patch.duplicate_group else {
        return Ok(Vec::new());
    };
    if members.iter().all(|m| m.id == patch.id) {
        return Ok(Vec::new());
    }
    let lessons: std::collections::HashMap<uuid::Uuid, String> = services
        .store
        .open_lessons(org_id, &patch.skill_name)
        .await?
        .into_iter()
        .filter(|open| open.group == Some(group))
        .map(|open| (open.id, open.lesson))
        .collect();
    let measure = Measure::CHOSEN;
    let blocks = blocks_of(latest, &measure);
    let vocabulary = lesson::Vocabulary::of_blocks(blocks.iter().map(|(_, _, features)| features));
    let mine = lessons.get(&patch.id).map(|text| lesson::features(text, &measure));
    Ok(members
        .iter()
        .filter(|member| member.id != patch.id)
        .map(|member| {
            let theirs = lessons.get(&member.id).map(|text| lesson::features(text, &measure));
            let similarity = match (&mine, &theirs) {
                (Some(mine), Some(theirs))
                    if mine.len() >= lesson::MIN_FEATURES && theirs.len() >= lesson::MIN_FEATURES =>
                {
                    Some(lesson::likeness(mine, theirs, &measure, &vocabulary))
                }
                _ => None,
            };
            let marked_as_its_duplicate = member.duplicate.as_ref().and_then(|mark| mark.patch) == Some(patch.id);
            let its_duplicate_marked = patch.duplicate.as_ref().and_then(|mark| mark.patch) == Some(member.id);
            GroupRepeat {
                id: member.id,
                similarity,
                repeats: marked_as_its_duplicate
                    || its_duplicate_marked
                    || similarity.is_some_and(|s| s >= measure.threshold),
            }
        })
        .collect())
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
