//! The Skills extension's entries (`skills/list`, `skills/get`), built the same way by the
//! registry and by `cairn mcp --offline`: the URI of the skill's SKILL.md, its frontmatter
//! verbatim, and the complete manifest with each file's `sha256:` digest and size. The
//! registry's listing names the revision in every URI (`skill://org/@N/name/…`): a
//! publication between a host's listing and its reads cannot hand it bytes the manifest
//! does not describe.

use rmcp::model::{Skill, SkillFrontmatter, SkillResource, SkillResources};

use super::uri::SkillFileUri;

/// One file of a manifest: its path in the skill, hex SHA-256 and size in bytes.
pub type ManifestFile<'a> = (&'a str, &'a str, u64);

/// The entry of skill `name` of `org` (at `revision`, or the latest), or `None` when the
/// skill cannot be described to the extension's rules (a name outside the Agent Skills
/// format, or a frontmatter `name` other than the skill's; the reason is logged): such
/// skills stay reachable through the tools.
pub fn entry<'a>(
    org: &str,
    name: &str,
    revision: Option<i32>,
    frontmatter: &serde_json::Value,
    files: impl IntoIterator<Item = ManifestFile<'a>>,
) -> Option<Skill> {
    let uri = |path: &str| SkillFileUri::new(org, name, revision, path).render();
    let fields = frontmatter.as_object().cloned().unwrap_or_default();
    let text = |key: &str| fields.get(key).and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    let mut described = SkillFrontmatter::new(text("name"), text("description"));
    for (key, value) in fields
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), "name" | "description"))
    {
        described = described.with_field(key.clone(), value.clone());
    }
    let resources = files
        .into_iter()
        .map(|(path, sha256, size)| SkillResource::new(uri(path), format!("sha256:{sha256}"), size))
        .collect();
    let skill = Skill::new(uri("SKILL.md"), described, SkillResources::Files(resources));
    match skill.validate() {
        Ok(()) => Some(skill),
        Err(e) => {
            // Listed on every page read: debug, not warn, or the logs fill up.
            tracing::debug!(skill = name, error = %e, "skill left out of the MCP Skills extension");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha() -> String {
        "ab".repeat(32)
    }

    #[test]
    fn an_entry_lists_every_file_with_its_digest_and_keeps_the_frontmatter() {
        let frontmatter = serde_json::json!({"name": "git-flow", "description": "Branching", "license": "MIT"});
        let sha = sha();
        let files = [("SKILL.md", sha.as_str(), 12), ("refs/a b.md", sha.as_str(), 12)];
        let skill = entry("acme", "git-flow", Some(4), &frontmatter, files).unwrap();
        let json = serde_json::to_value(&skill).unwrap();
        assert_eq!(json["uri"], "skill://acme/@4/git-flow/SKILL.md");
        assert_eq!(json["frontmatter"]["license"], "MIT");
        assert_eq!(json["resources"][1]["uri"], "skill://acme/@4/git-flow/refs/a%20b.md");
        assert_eq!(json["resources"][1]["digest"], format!("sha256:{sha}"));
        assert_eq!(json["resources"][1]["size"], 12);
    }

    #[test]
    fn a_skill_the_extension_cannot_describe_is_left_out() {
        let sha = sha();
        let mismatched = serde_json::json!({"name": "other", "description": "x"});
        assert!(entry("acme", "git-flow", None, &mismatched, [("SKILL.md", sha.as_str(), 1)]).is_none());
        let fine = serde_json::json!({"name": "Git_Flow", "description": "x"});
        assert!(entry("acme", "Git_Flow", None, &fine, [("SKILL.md", sha.as_str(), 1)]).is_none());
    }
}
