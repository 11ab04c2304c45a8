//! Where an agent keeps its skills: the named targets and plain folders.

use std::path::{Path, PathBuf};

/// How skill folders are laid out under a target's root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// `<root>/<name>/`.
    Flat,
    /// `<root>/<category>/<name>/` (Hermes Agent), `<root>/<name>/` without a category.
    ByCategory,
}

/// A skills folder to sync.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// What the user named (`hermes`, or the folder as given).
    pub label: String,
    /// The skills folder.
    pub root: PathBuf,
    /// Its layout.
    pub layout: Layout,
}

/// The names `Target::resolve` knows (anything else is a folder).
pub const NAMED: [&str; 4] = ["hermes", "claude", "codex", "openclaw"];

/// Why a target cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(String);

impl Target {
    /// Resolves `hermes` (`$HERMES_HOME` or `~/.hermes`, then `skills/<category>/<name>/`),
    /// `claude` (`~/.claude/skills/`), `codex` (`~/.codex/skills/`), `openclaw`
    /// (`~/.openclaw/workspace/skills/`), or any folder path.
    pub fn resolve(spec: &str, env: impl Fn(&str) -> Option<String>) -> Result<Target, TargetError> {
        let home = || {
            env("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).ok_or_else(|| {
                TargetError(format!(
                    "target '{spec}' is under your home folder, but HOME is not set"
                ))
            })
        };
        let (root, layout) = match spec {
            "hermes" => {
                let base = match env("HERMES_HOME").filter(|h| !h.is_empty()) {
                    Some(dir) => PathBuf::from(dir),
                    None => home()?.join(".hermes"),
                };
                (base.join("skills"), Layout::ByCategory)
            }
            "claude" => (home()?.join(".claude/skills"), Layout::Flat),
            "codex" => (home()?.join(".codex/skills"), Layout::Flat),
            "openclaw" => (home()?.join(".openclaw/workspace/skills"), Layout::Flat),
            "" => {
                return Err(TargetError(
                    "the target is empty: name one of hermes, claude, codex, openclaw, or a folder".to_owned(),
                ));
            }
            folder => (PathBuf::from(folder), Layout::Flat),
        };
        Ok(Target {
            label: spec.to_owned(),
            root,
            layout,
        })
    }

    /// The folder a skill is written to when it is first synced.
    pub fn folder_for(&self, name: &str, category: Option<&str>) -> PathBuf {
        match (self.layout, category) {
            (Layout::ByCategory, Some(category)) if !category.is_empty() => self.root.join(category).join(name),
            _ => self.root.join(name),
        }
    }

    /// `folder` relative to the root (as the state records it).
    pub fn relative(&self, folder: &Path) -> String {
        folder
            .strip_prefix(&self.root)
            .unwrap_or(folder)
            .to_string_lossy()
            .replace('\\', "/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_targets_resolve_under_home_and_hermes_home_wins() {
        let env = |k: &str| match k {
            "HOME" => Some("/home/a".to_owned()),
            _ => None,
        };
        let hermes = Target::resolve("hermes", env).unwrap();
        assert_eq!(hermes.root, PathBuf::from("/home/a/.hermes/skills"));
        assert_eq!(
            hermes.folder_for("x", Some("mlops/training")),
            PathBuf::from("/home/a/.hermes/skills/mlops/training/x")
        );
        assert_eq!(hermes.folder_for("x", None), PathBuf::from("/home/a/.hermes/skills/x"));
        let with_home = |k: &str| match k {
            "HERMES_HOME" => Some("/srv/hermes".to_owned()),
            _ => None,
        };
        assert_eq!(
            Target::resolve("hermes", with_home).unwrap().root,
            PathBuf::from("/srv/hermes/skills")
        );
        assert_eq!(
            Target::resolve("claude", env).unwrap().root,
            PathBuf::from("/home/a/.claude/skills")
        );
        assert_eq!(
            Target::resolve("codex", env).unwrap().root,
            PathBuf::from("/home/a/.codex/skills")
        );
        assert_eq!(
            Target::resolve("openclaw", env).unwrap().root,
            PathBuf::from("/home/a/.openclaw/workspace/skills")
        );
        let folder = Target::resolve("/tmp/s", env).unwrap();
        assert_eq!((folder.root, folder.layout), (PathBuf::from("/tmp/s"), Layout::Flat));
        assert!(
            Target::resolve("claude", |_| None)
                .unwrap_err()
                .to_string()
                .contains("HOME is not set")
        );
    }
}
