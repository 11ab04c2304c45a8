//! Validated relative paths of files inside a skill bundle.
//!
//! Bundle paths come from agents, uploaded archives and importers, and end up joined onto
//! directories on other machines. [`RelPath`] is the single place where a path is checked
//! (relative, NFC, no traversal, no hidden files, bounded length) so that every consumer can
//! trust it and so that the same file always has the same bytes for the version digest.

use std::borrow::Borrow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use unicode_normalization::UnicodeNormalization;

use crate::name::shown;

/// The name of the file every bundle must have at its root.
pub const SKILL_MD: &str = "SKILL.md";
/// Longest allowed path, in bytes of UTF-8.
pub const MAX_PATH_BYTES: usize = 1024;
/// Longest allowed path segment (file or folder name), in bytes of UTF-8; most filesystems
/// refuse longer names.
pub const MAX_SEGMENT_BYTES: usize = 255;

/// Why a bundle path was refused: one variant per rule, each message names the path and the rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// The path was the empty string.
    #[error("path is empty: give a file path relative to the skill folder, such as 'SKILL.md' or 'references/api.md'")]
    Empty,
    /// The path is longer than [`MAX_PATH_BYTES`].
    #[error("path '{path}' is too long ({len} bytes): use at most 1024 bytes")]
    TooLong {
        /// The offending path (escaped and shortened for display).
        path: String,
        /// Its length in bytes.
        len: usize,
    },
    /// One segment is longer than [`MAX_SEGMENT_BYTES`].
    #[error("path '{path}' has a file or folder name of {len} bytes: use at most 255 bytes per name")]
    SegmentTooLong {
        /// The offending path (escaped and shortened for display).
        path: String,
        /// The length in bytes of the first overlong segment.
        len: usize,
    },
    /// The path starts with `/`.
    #[error("path '{path}' is absolute: remove the leading '/' and give the path relative to the skill folder")]
    Absolute {
        /// The offending path (escaped and shortened for display).
        path: String,
    },
    /// The path contains a backslash.
    #[error("path '{path}' contains a backslash: use '/' to separate folders")]
    Backslash {
        /// The offending path (escaped and shortened for display).
        path: String,
    },
    /// The path contains NUL or another control character.
    #[error("path '{path}' contains a control character: remove NUL, tabs, line breaks and other control characters")]
    ControlChar {
        /// The offending path (control characters escaped, shortened for display).
        path: String,
    },
    /// The path has an empty segment (`a//b` or a trailing `/`).
    #[error("path '{path}' has an empty segment: remove doubled '/' and any trailing '/'")]
    EmptySegment {
        /// The offending path (escaped and shortened for display).
        path: String,
    },
    /// The path has a `.` segment.
    #[error("path '{path}' has a '.' segment: remove './' parts and give the plain relative path")]
    CurrentDir {
        /// The offending path (escaped and shortened for display).
        path: String,
    },
    /// The path has a `..` segment, which could escape the bundle.
    #[error("path '{path}' has a '..' segment: paths must stay inside the skill folder; remove '..'")]
    ParentDir {
        /// The offending path (escaped and shortened for display).
        path: String,
    },
    /// A segment starts with `.`: dot-files and dot-folders are not part of a bundle.
    #[error(
        "path '{path}' names a hidden file or folder ('{segment}'): dot-files and dot-folders are not part of a skill bundle; leave them out"
    )]
    Hidden {
        /// The offending path (escaped and shortened for display).
        path: String,
        /// The first segment that starts with `.`.
        segment: String,
    },
    /// The path is not in Unicode Normalization Form C.
    #[error(
        "path '{path}' is not in Unicode NFC form: normalize it to NFC (macOS file names are NFD) before adding it"
    )]
    NotNfc {
        /// The offending path (escaped and shortened for display).
        path: String,
    },
}

/// Converts `s` to Unicode NFC, for importers reading trees from filesystems (macOS) that
/// store names decomposed (NFD), so that their paths pass [`RelPath::parse`].
pub fn normalize_nfc(s: &str) -> String {
    s.nfc().collect()
}

/// A validated relative path of a file inside a bundle, such as `references/api.md`.
///
/// Ordering is by the UTF-8 bytes of the path, which is the order used by the manifest, the
/// version digest and archives.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelPath(String);

impl RelPath {
    /// Validates `s` as a bundle path; the error names the path and the rule it breaks.
    pub fn parse(s: &str) -> Result<RelPath, PathError> {
        if s.is_empty() {
            return Err(PathError::Empty);
        }
        if s.len() > MAX_PATH_BYTES {
            return Err(PathError::TooLong {
                path: shown(s),
                len: s.len(),
            });
        }
        if s.starts_with('/') {
            return Err(PathError::Absolute { path: shown(s) });
        }
        if s.contains('\\') {
            return Err(PathError::Backslash { path: shown(s) });
        }
        if s.chars().any(char::is_control) {
            return Err(PathError::ControlChar { path: shown(s) });
        }
        for segment in s.split('/') {
            match segment {
                "" => return Err(PathError::EmptySegment { path: shown(s) }),
                "." => return Err(PathError::CurrentDir { path: shown(s) }),
                ".." => return Err(PathError::ParentDir { path: shown(s) }),
                _ if segment.starts_with('.') => {
                    return Err(PathError::Hidden {
                        path: shown(s),
                        segment: shown(segment),
                    });
                }
                _ if segment.len() > MAX_SEGMENT_BYTES => {
                    return Err(PathError::SegmentTooLong {
                        path: shown(s),
                        len: segment.len(),
                    });
                }
                _ => {}
            }
        }
        if !unicode_normalization::is_nfc(s) {
            return Err(PathError::NotNfc { path: shown(s) });
        }
        Ok(RelPath(s.to_owned()))
    }

    /// The path of the bundle's `SKILL.md`, which every bundle must contain.
    pub fn skill_md() -> RelPath {
        RelPath(SKILL_MD.to_owned())
    }

    /// True for the root `SKILL.md` (not for `SKILL.md` files in subfolders).
    pub fn is_skill_md(&self) -> bool {
        self.0 == SKILL_MD
    }

    /// The path as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `/`-separated segments, outermost first, e.g. to check the top-level folder.
    pub fn segments(&self) -> impl Iterator<Item = &str> + '_ {
        self.0.split('/')
    }

    /// Gives back the owned string without copying.
    pub fn into_string(self) -> String {
        self.0
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RelPath({:?})", self.0)
    }
}

impl FromStr for RelPath {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RelPath::parse(s)
    }
}

impl TryFrom<&str> for RelPath {
    type Error = PathError;
    fn try_from(s: &str) -> Result<Self, Self::Error> {
        RelPath::parse(s)
    }
}

impl TryFrom<String> for RelPath {
    type Error = PathError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        RelPath::parse(&s)
    }
}

impl AsRef<str> for RelPath {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

/// Lets maps keyed by `RelPath` be queried with a plain `&str`; ordering and hashing agree
/// with `str` because both are the derived string ones.
impl Borrow<str> for RelPath {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<RelPath> for String {
    fn from(p: RelPath) -> String {
        p.0
    }
}

impl Serialize for RelPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for RelPath {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        RelPath::parse(&s).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts() {
        let ok = [
            "SKILL.md",
            "references/api.md",
            "scripts/run.sh",
            "a/b/c/d.txt",
            "LICENSE.txt",
            "café.md",
            "日本語/ファイル.md",
            "emoji-😀.png",
            "a..b",
            "x.",
            "name with spaces.md",
            "C:x",
            "-dash",
        ];
        for s in ok {
            assert_eq!(RelPath::parse(s).unwrap().as_str(), s, "{s}");
        }
        let long = format!("{}/{}", "a".repeat(255), "b".repeat(255));
        assert!(RelPath::parse(&long).is_ok());
        let max = vec!["a".repeat(204); 5].join("/");
        assert_eq!(max.len(), 1024);
        assert!(RelPath::parse(&max).is_ok());
    }

    /// Checks that an error is the expected variant.
    type Check = fn(&PathError) -> bool;

    #[test]
    fn rejects_each_rule() {
        use PathError as E;
        let cases: &[(&str, Check)] = &[
            ("", |e| matches!(e, E::Empty)),
            ("/etc/passwd", |e| matches!(e, E::Absolute { .. })),
            ("/", |e| matches!(e, E::Absolute { .. })),
            ("C:\\x", |e| matches!(e, E::Backslash { .. })),
            ("a\\b", |e| matches!(e, E::Backslash { .. })),
            ("a\0b", |e| matches!(e, E::ControlChar { .. })),
            ("a\nb", |e| matches!(e, E::ControlChar { .. })),
            ("a\tb", |e| matches!(e, E::ControlChar { .. })),
            ("a\u{7f}", |e| matches!(e, E::ControlChar { .. })),
            ("a\u{85}", |e| matches!(e, E::ControlChar { .. })),
            ("a//b", |e| matches!(e, E::EmptySegment { .. })),
            ("a/", |e| matches!(e, E::EmptySegment { .. })),
            ("./x", |e| matches!(e, E::CurrentDir { .. })),
            ("a/./b", |e| matches!(e, E::CurrentDir { .. })),
            (".", |e| matches!(e, E::CurrentDir { .. })),
            ("a/../b", |e| matches!(e, E::ParentDir { .. })),
            ("../evil", |e| matches!(e, E::ParentDir { .. })),
            ("..", |e| matches!(e, E::ParentDir { .. })),
            (
                ".git/config",
                |e| matches!(e, E::Hidden { segment, .. } if segment == ".git"),
            ),
            ("a/.env", |e| matches!(e, E::Hidden { .. })),
            (".DS_Store", |e| matches!(e, E::Hidden { .. })),
            ("cafe\u{301}.md", |e| matches!(e, E::NotNfc { .. })),
            ("\u{212B}", |e| matches!(e, E::NotNfc { .. })), // U+212B ANGSTROM SIGN, NFC is U+00C5
        ];
        for (input, check) in cases {
            let err = RelPath::parse(input).expect_err(input);
            assert!(check(&err), "{input:?} gave {err:?}");
        }
        let seg = format!("x/{}", "a".repeat(256));
        assert!(matches!(RelPath::parse(&seg), Err(E::SegmentTooLong { len: 256, .. })));
        let long = vec!["a".repeat(200); 6].join("/");
        assert!(matches!(RelPath::parse(&long), Err(E::TooLong { .. })));
    }

    #[test]
    fn messages_name_path_and_rule() {
        let e = RelPath::parse("a/../b").unwrap_err().to_string();
        assert!(e.contains("'a/../b'") && e.contains(".."), "{e}");
        let e = RelPath::parse("cafe\u{301}").unwrap_err().to_string();
        assert!(e.contains("NFC"), "{e}");
        let e = RelPath::parse(".git/config").unwrap_err().to_string();
        assert!(e.contains(".git/config") && e.contains("hidden"), "{e}");
    }

    #[test]
    fn nfd_input_normalizes() {
        let nfd = "re\u{301}sume\u{301}/cafe\u{301}.md";
        assert!(RelPath::parse(nfd).is_err());
        let nfc = normalize_nfc(nfd);
        assert_eq!(nfc, "résumé/café.md");
        assert_eq!(RelPath::parse(&nfc).unwrap().as_str(), "résumé/café.md");
    }

    #[test]
    fn skill_md_and_order() {
        assert!(RelPath::skill_md().is_skill_md());
        assert_eq!(RelPath::skill_md(), RelPath::parse("SKILL.md").unwrap());
        assert!(!RelPath::parse("sub/SKILL.md").unwrap().is_skill_md());
        // Byte order: uppercase before lowercase, '-' before '/', multi-byte after ASCII.
        let mut v: Vec<RelPath> = ["b", "a/b", "a-b", "B", "é", "z"]
            .iter()
            .map(|s| RelPath::parse(s).unwrap())
            .collect();
        v.sort();
        let got: Vec<&str> = v.iter().map(RelPath::as_str).collect();
        assert_eq!(got, ["B", "a-b", "a/b", "b", "z", "é"]);
    }

    #[test]
    fn serde_validates() {
        let p = RelPath::parse("references/api.md").unwrap();
        assert_eq!(serde_json::to_string(&p).unwrap(), "\"references/api.md\"");
        assert_eq!(serde_json::from_str::<RelPath>("\"references/api.md\"").unwrap(), p);
        assert!(serde_json::from_str::<RelPath>("\"../x\"").is_err());
        assert!(serde_json::from_str::<RelPath>("\"/x\"").is_err());
    }
}
