//! Skill names and categories.
//!
//! A skill's name is the name of its folder in a Hermes tree and its identity inside an
//! organisation, so it must be safe to use as a path segment, in URLs and on every
//! filesystem the registry or an agent may write to. A category is the folder path above
//! the skill (`devops`, `mlops/training`). Both are validated once, at the edge, and then
//! carried around as newtypes so no other code has to re-check them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Longest allowed skill name, in characters (agentskills.io and Hermes rule).
pub const MAX_SKILL_NAME_LEN: usize = 64;
/// Most `/`-separated segments a category may have, to keep trees shallow and paths short.
pub const MAX_CATEGORY_SEGMENTS: usize = 8;
/// Longest allowed category, in characters, including the `/` separators.
pub const MAX_CATEGORY_LEN: usize = 255;

/// Why a skill name or category was refused; every message states the rule and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// The skill name was the empty string.
    #[error(
        "skill name is empty: use 1 to 64 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit"
    )]
    EmptySkillName,
    /// The skill name is longer than [`MAX_SKILL_NAME_LEN`].
    #[error("skill name '{name}' is too long ({len} characters): use at most 64 characters")]
    SkillNameTooLong {
        /// The offending name (escaped and shortened for display).
        name: String,
        /// Its length in characters.
        len: usize,
    },
    /// The skill name contains a character outside the allowed set or starts badly.
    #[error(
        "skill name '{name}' is invalid: use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64 characters)"
    )]
    InvalidSkillName {
        /// The offending name (escaped and shortened for display).
        name: String,
    },
    /// The category was the empty string.
    #[error("category is empty: use one or more '/'-separated segments such as 'devops' or 'mlops/training'")]
    EmptyCategory,
    /// The category is longer than [`MAX_CATEGORY_LEN`].
    #[error("category '{category}' is too long ({len} characters): use at most 255 characters in all")]
    CategoryTooLong {
        /// The offending category (escaped and shortened for display).
        category: String,
        /// Its length in characters.
        len: usize,
    },
    /// The category has more than [`MAX_CATEGORY_SEGMENTS`] segments.
    #[error("category '{category}' has {count} segments: use at most 8 '/'-separated segments")]
    TooManySegments {
        /// The offending category (escaped and shortened for display).
        category: String,
        /// How many segments it has.
        count: usize,
    },
    /// One segment of the category breaks the skill-name rule (this includes empty segments).
    #[error(
        "category '{category}' has an invalid segment '{segment}': each '/'-separated segment must be 1 to 64 lowercase letters, digits, '.', '_' and '-', starting with a letter or digit"
    )]
    InvalidCategorySegment {
        /// The offending category (escaped and shortened for display).
        category: String,
        /// The first offending segment (escaped and shortened for display).
        segment: String,
    },
}

/// Escapes control characters and quotes and shortens very long input so error messages stay
/// readable and cannot inject line breaks into logs.
pub(crate) fn shown(s: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == MAX {
            out.push('…');
            break;
        }
        if c == '\'' || c == '"' || c == '\\' || c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// True when `s` follows the skill-name rule `^[a-z0-9][a-z0-9._-]*$` with 1..=64 characters.
fn follows_name_rule(s: &str) -> bool {
    let bytes = s.as_bytes();
    match bytes.first() {
        Some(first) if first.is_ascii_lowercase() || first.is_ascii_digit() => {}
        _ => return false,
    }
    bytes.len() <= MAX_SKILL_NAME_LEN
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'))
}

/// A validated skill name: the folder name of a skill and its identity within an organisation.
///
/// Holding a `SkillName` proves the string matches `^[a-z0-9][a-z0-9._-]*$` and is at most 64
/// characters, so it can be used as a path segment or URL segment without further checks.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SkillName(String);

impl SkillName {
    /// Validates `s` as a skill name; the error says which rule failed and how to fix it.
    pub fn parse(s: &str) -> Result<SkillName, NameError> {
        if s.is_empty() {
            return Err(NameError::EmptySkillName);
        }
        let len = s.chars().count();
        if len > MAX_SKILL_NAME_LEN {
            return Err(NameError::SkillNameTooLong { name: shown(s), len });
        }
        if !follows_name_rule(s) {
            return Err(NameError::InvalidSkillName { name: shown(s) });
        }
        Ok(SkillName(s.to_owned()))
    }

    /// The name as a string slice, for building paths, URLs and database keys.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Gives back the owned string without copying.
    pub fn into_string(self) -> String {
        self.0
    }
}

/// A validated category: the folder path above a skill in a Hermes tree (`mlops/training`).
///
/// Each `/`-separated segment follows the skill-name rule; at most 8 segments and 255
/// characters in all, so a category can be joined onto a filesystem path safely.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Category(String);

impl Category {
    /// Validates `s` as a category; the error names the offending segment when there is one.
    pub fn parse(s: &str) -> Result<Category, NameError> {
        if s.is_empty() {
            return Err(NameError::EmptyCategory);
        }
        let len = s.chars().count();
        if len > MAX_CATEGORY_LEN {
            return Err(NameError::CategoryTooLong {
                category: shown(s),
                len,
            });
        }
        let count = s.split('/').count();
        if count > MAX_CATEGORY_SEGMENTS {
            return Err(NameError::TooManySegments {
                category: shown(s),
                count,
            });
        }
        if let Some(bad) = s.split('/').find(|seg| !follows_name_rule(seg)) {
            return Err(NameError::InvalidCategorySegment {
                category: shown(s),
                segment: shown(bad),
            });
        }
        Ok(Category(s.to_owned()))
    }

    /// The category as a string slice (segments joined by `/`).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `/`-separated segments, outermost first, for building nested folder paths.
    pub fn segments(&self) -> impl Iterator<Item = &str> + '_ {
        self.0.split('/')
    }

    /// Gives back the owned string without copying.
    pub fn into_string(self) -> String {
        self.0
    }
}

macro_rules! string_newtype_impls {
    ($ty:ident) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($ty), self.0)
            }
        }

        impl FromStr for $ty {
            type Err = NameError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::parse(s)
            }
        }

        impl TryFrom<&str> for $ty {
            type Error = NameError;
            fn try_from(s: &str) -> Result<Self, Self::Error> {
                $ty::parse(s)
            }
        }

        impl TryFrom<String> for $ty {
            type Error = NameError;
            fn try_from(s: String) -> Result<Self, Self::Error> {
                $ty::parse(&s)
            }
        }

        impl AsRef<str> for $ty {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<$ty> for String {
            fn from(v: $ty) -> String {
                v.0
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let s = String::deserialize(deserializer)?;
                $ty::parse(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}

string_newtype_impls!(SkillName);
string_newtype_impls!(Category);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_name_table() {
        let ok = [
            "a",
            "0",
            "obsidian",
            "google-workspace",
            "v1.2_beta-3",
            "9lives",
            "a.",
            "a-",
            &"a".repeat(64),
        ];
        for s in ok {
            assert_eq!(SkillName::parse(s).map(|n| n.to_string()), Ok(s.to_owned()), "{s}");
        }
        let bad = [
            "",
            "Foo",
            "-a",
            ".a",
            "_a",
            "a b",
            "a/b",
            "a\\b",
            "é",
            "cafe\u{301}",
            "ａ",
            "a\0",
            "a\n",
            "../x",
            "./x",
            "日本",
            &"a".repeat(65),
        ];
        for s in bad {
            assert!(SkillName::parse(s).is_err(), "{s:?} should be rejected");
        }
    }

    #[test]
    fn skill_name_errors_explain() {
        let e = SkillName::parse("Foo").unwrap_err();
        assert_eq!(
            e.to_string(),
            "skill name 'Foo' is invalid: use lowercase letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64 characters)"
        );
        assert!(matches!(
            SkillName::parse(&"a".repeat(65)),
            Err(NameError::SkillNameTooLong { len: 65, .. })
        ));
        assert_eq!(SkillName::parse(""), Err(NameError::EmptySkillName));
        // Control characters are escaped in messages.
        let e = SkillName::parse("a\nb").unwrap_err().to_string();
        assert!(e.contains("a\\nb"), "{e}");
    }

    #[test]
    fn category_table() {
        let ok = ["devops", "mlops/training", "a/b/c/d/e/f/g/h", "x.y/z_1"];
        for s in ok {
            let c = Category::parse(s).unwrap();
            assert_eq!(c.as_str(), s);
            assert_eq!(c.segments().collect::<Vec<_>>().join("/"), s);
        }
        assert_eq!(
            Category::parse("mlops/training")
                .unwrap()
                .segments()
                .collect::<Vec<_>>(),
            ["mlops", "training"]
        );
        let long_ok = vec!["a".repeat(63); 4].join("/");
        assert_eq!(long_ok.len(), 255);
        assert!(Category::parse(&long_ok).is_ok());
        let bad = [
            "",
            "/devops",
            "devops/",
            "a//b",
            "Dev",
            "a/../b",
            "./x",
            "a/.git",
            "a\\b",
            "a/b/c/d/e/f/g/h/i",
            "ml ops",
            "é/x",
        ];
        for s in bad {
            assert!(Category::parse(s).is_err(), "{s:?} should be rejected");
        }
        let too_long = format!("{}/a", vec!["a".repeat(63); 4].join("/"));
        assert!(matches!(
            Category::parse(&too_long),
            Err(NameError::CategoryTooLong { .. })
        ));
        assert!(matches!(
            Category::parse("a/b/c/d/e/f/g/h/i"),
            Err(NameError::TooManySegments { count: 9, .. })
        ));
        let e = Category::parse("mlops/Training").unwrap_err();
        assert!(matches!(&e, NameError::InvalidCategorySegment { segment, .. } if segment == "Training"));
        assert!(Category::parse(&format!("x/{}", "a".repeat(65))).is_err());
    }

    #[test]
    fn serde_round_trip_validates() {
        let n = SkillName::parse("obsidian").unwrap();
        assert_eq!(serde_json::to_string(&n).unwrap(), "\"obsidian\"");
        assert_eq!(serde_json::from_str::<SkillName>("\"obsidian\"").unwrap(), n);
        assert!(serde_json::from_str::<SkillName>("\"Obsidian\"").is_err());
        let c = Category::parse("mlops/training").unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), "\"mlops/training\"");
        assert_eq!(serde_json::from_str::<Category>("\"mlops/training\"").unwrap(), c);
        assert!(serde_json::from_str::<Category>("\"a//b\"").is_err());
        assert_eq!("obsidian".parse::<SkillName>().unwrap(), n);
        assert_eq!(format!("{n:?}"), "SkillName(\"obsidian\")");
    }
}
