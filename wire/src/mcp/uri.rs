//! The `skill://` URIs the MCP endpoint serves (the Skills extension's convention): the
//! organisation is the authority, the skill's name the last segment of the skill path.
//!
//! - `skill://<org>/<name>/<path>`: the file in the skill's latest revision;
//! - `skill://<org>/@<rev>/<name>/<path>`: the file in revision `rev` (never a yanked one),
//!   so an agent that loaded a revision reads exactly the bytes whose digests it holds. No
//!   skill name starts with `@`, so the two shapes never meet.

use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// The scheme of skill resources.
pub const SCHEME: &str = "skill://";

/// What a path segment must escape: everything a URI path segment may not hold as is.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'\\')
    .add(b'^')
    .add(b'|')
    .add(b'[')
    .add(b']');

/// A file of a skill, as a URI names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillFileUri {
    /// The organisation's slug.
    pub org: String,
    /// The revision (`None`: the latest).
    pub revision: Option<i32>,
    /// The skill's name.
    pub skill: String,
    /// The file's path in the bundle (`SKILL.md`, `references/api.md`).
    pub path: String,
}

impl SkillFileUri {
    /// The URI of `path` in `skill` (at `revision`, or the latest).
    pub fn new(org: &str, skill: &str, revision: Option<i32>, path: &str) -> Self {
        SkillFileUri {
            org: org.to_owned(),
            revision,
            skill: skill.to_owned(),
            path: path.to_owned(),
        }
    }

    /// The URI as text.
    pub fn render(&self) -> String {
        let path: Vec<String> = self
            .path
            .split('/')
            .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
            .collect();
        let revision = self.revision.map(|r| format!("@{r}/")).unwrap_or_default();
        format!(
            "{SCHEME}{}/{revision}{}/{}",
            self.org,
            utf8_percent_encode(&self.skill, SEGMENT),
            path.join("/")
        )
    }

    /// Reads a URI this endpoint serves; the error says what the URI should look like.
    pub fn parse(uri: &str) -> Result<Self, String> {
        let shape = || {
            format!(
                "'{uri}' is not a skill file URI: use skill://<organisation>/<skill>/<path> \
                 (or skill://<organisation>/@<revision>/<skill>/<path>), as load_skill and skills/list give them"
            )
        };
        let rest = uri.strip_prefix(SCHEME).ok_or_else(shape)?;
        if rest.contains(['?', '#']) {
            return Err(shape());
        }
        let mut segments = rest.split('/');
        let org = segments.next().filter(|s| !s.is_empty()).ok_or_else(shape)?;
        let mut next = segments.next().ok_or_else(shape)?;
        let revision = match next.strip_prefix('@') {
            Some(digits) => {
                let canonical = !digits.starts_with('0') && digits.chars().all(|c| c.is_ascii_digit());
                let rev = digits.parse::<i32>().ok().filter(|_| canonical).ok_or_else(shape)?;
                next = segments.next().ok_or_else(shape)?;
                Some(rev)
            }
            None => None,
        };
        let skill = decode(next).ok_or_else(shape)?;
        let path: Vec<String> = segments.map(decode).collect::<Option<_>>().ok_or_else(shape)?;
        if skill.is_empty() || path.is_empty() || path.iter().any(String::is_empty) {
            return Err(shape());
        }
        Ok(SkillFileUri {
            org: org.to_owned(),
            revision,
            skill,
            path: path.join("/"),
        })
    }
}

/// A percent-decoded segment (`None`: not UTF-8, or it hides a `/`).
fn decode(segment: &str) -> Option<String> {
    let decoded = percent_decode_str(segment).decode_utf8().ok()?;
    (!decoded.contains('/')).then(|| decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_with_and_without_a_revision() {
        for (uri, revision, path) in [
            ("skill://acme/git-workflow/SKILL.md", None, "SKILL.md"),
            (
                "skill://acme/@3/git-workflow/references/api%20notes.md",
                Some(3),
                "references/api notes.md",
            ),
        ] {
            let parsed = SkillFileUri::parse(uri).unwrap();
            assert_eq!(parsed, SkillFileUri::new("acme", "git-workflow", revision, path));
            assert_eq!(parsed.render(), uri);
        }
    }

    #[test]
    fn a_skill_named_like_a_version_is_a_skill() {
        let latest = SkillFileUri::parse("skill://acme/v2/references/x.md").unwrap();
        assert_eq!(
            (latest.revision, latest.skill.as_str(), latest.path.as_str()),
            (None, "v2", "references/x.md")
        );
        let pinned = SkillFileUri::parse("skill://acme/@2/v3/SKILL.md").unwrap();
        assert_eq!((pinned.revision, pinned.skill.as_str()), (Some(2), "v3"));
    }

    #[test]
    fn other_shapes_are_refused_with_the_expected_shape() {
        for uri in [
            "https://acme/x/SKILL.md",
            "skill://acme/x",
            "skill://acme/x/",
            "skill:///x/SKILL.md",
            "skill://acme/x/SKILL.md?rev=2",
            "skill://acme/x/a%2Fb.md",
            "skill://acme/x//SKILL.md",
            "skill://acme/@02/x/SKILL.md",
            "skill://acme/@+3/x/SKILL.md",
            "skill://acme/@x/x/SKILL.md",
            "skill://acme/@3/SKILL.md",
        ] {
            let error = SkillFileUri::parse(uri).unwrap_err();
            assert!(
                error.contains("skill://<organisation>/<skill>/<path>"),
                "{uri}: {error}"
            );
        }
    }
}
