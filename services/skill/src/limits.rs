//! Bundle size limits (docs/API.md).
//!
//! Limits are data rather than constants so that an organisation setting or a test can tighten
//! them, while [`Limits::default`] gives the documented values. Exceeding any limit is an error,
//! never a silent truncation.

use serde::{Deserialize, Serialize};

/// The size limits a bundle must respect; `Default` gives the values docs/API.md lists.
///
/// Deserializing fills absent fields with their defaults, so a configuration file only needs
/// to name the limits it changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Maximum length of `SKILL.md` in characters (not bytes).
    pub max_skill_md_chars: usize,
    /// Maximum length of the frontmatter `description` in characters.
    pub max_description_chars: usize,
    /// Maximum size of any single file, in bytes.
    pub max_file_bytes: u64,
    /// Maximum number of files in a bundle.
    pub max_files: usize,
    /// Maximum total size of all files, in bytes.
    pub max_total_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_skill_md_chars: 100_000,
            max_description_chars: 1024,
            max_file_bytes: 1024 * 1024,
            max_files: 200,
            max_total_bytes: 10 * 1024 * 1024,
        }
    }
}

impl Limits {
    /// No limit at all: for reading back what was checked when it was written (stored
    /// versions and candidates), where a limit lowered since must not make it unreadable.
    pub fn unlimited() -> Limits {
        Limits {
            max_skill_md_chars: usize::MAX,
            max_description_chars: usize::MAX,
            max_file_bytes: u64::MAX,
            max_files: usize::MAX,
            max_total_bytes: u64::MAX,
        }
    }

    /// These limits with another description limit: reading is tolerant of an over-long
    /// description (real skills have them), and a patch may keep the length it found.
    pub fn with_description_chars(&self, max: usize) -> Limits {
        Limits {
            max_description_chars: max,
            ..self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_design() {
        let l = Limits::default();
        assert_eq!(l.max_skill_md_chars, 100_000);
        assert_eq!(l.max_description_chars, 1024);
        assert_eq!(l.max_file_bytes, 1_048_576);
        assert_eq!(l.max_files, 200);
        assert_eq!(l.max_total_bytes, 10_485_760);
    }

    #[test]
    fn serde_fills_defaults() {
        let l: Limits = serde_json::from_str(r#"{"max_files": 5}"#).unwrap();
        assert_eq!(
            l,
            Limits {
                max_files: 5,
                ..Limits::default()
            }
        );
        let back: Limits = serde_json::from_value(serde_json::to_value(&l).unwrap()).unwrap();
        assert_eq!(back, l);
    }
}
