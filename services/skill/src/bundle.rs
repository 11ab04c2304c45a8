//! Skill bundles: the complete, validated set of files of one skill version.
//!
//! A [`Bundle`] can only be built through [`BundleBuilder`] (or [`Bundle::from_files`], which
//! uses it), which enforces the bundle limits (docs/API.md) as files are added and parses `SKILL.md`
//! strictly at the end. Holding a `Bundle` therefore proves it may be published; its manifest
//! and digest are computed once, when it is built.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::digest::{Sha256Hash, version_digest};
use crate::frontmatter::{Frontmatter, FrontmatterError, SkillDocument, parse_strict};
use crate::limits::Limits;
use crate::path::RelPath;

/// Why a set of files is not a valid bundle; each message names the rule and the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BundleError {
    /// More files than [`Limits::max_files`].
    #[error("bundle has more than {max} files: a skill may have at most {max} files; remove or merge some")]
    TooManyFiles {
        /// The limit.
        max: usize,
    },
    /// One file is larger than [`Limits::max_file_bytes`].
    #[error(
        "file '{path}' is {size} bytes, more than the {max}-byte limit per file: split it or leave it out of the skill"
    )]
    FileTooLarge {
        /// The file.
        path: RelPath,
        /// Its size in bytes (for archives: at least this many bytes were read).
        size: u64,
        /// The limit in bytes.
        max: u64,
    },
    /// All files together are larger than [`Limits::max_total_bytes`].
    #[error("bundle is larger than the {max}-byte limit for all files together: remove or shrink files")]
    TotalTooLarge {
        /// The limit in bytes.
        max: u64,
    },
    /// The same path was added twice.
    #[error("file '{path}' appears more than once: each path may appear only once in a bundle")]
    DuplicatePath {
        /// The repeated path.
        path: RelPath,
    },
    /// There is no `SKILL.md` at the root of the bundle.
    #[error("bundle has no SKILL.md at its root: add a SKILL.md file (exactly that name, not in a subfolder)")]
    MissingSkillMd,
    /// `SKILL.md` is not valid UTF-8.
    #[error("SKILL.md is not valid UTF-8 (first invalid byte at offset {valid_up_to}): save the file as UTF-8")]
    SkillMdNotUtf8 {
        /// Byte offset of the first invalid sequence.
        valid_up_to: usize,
    },
    /// `SKILL.md` fails [`parse_strict`].
    #[error(transparent)]
    Frontmatter(#[from] FrontmatterError),
}

/// The content of one file in a bundle.
#[derive(Clone, PartialEq, Eq)]
pub struct BundleFile {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Whether the file is executable (mode 0755 rather than 0644 in archives), e.g. scripts.
    pub executable: bool,
}

impl BundleFile {
    /// Convenience constructor.
    pub fn new(bytes: Vec<u8>, executable: bool) -> BundleFile {
        BundleFile { bytes, executable }
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// Shows size and flag rather than up to a mebibyte of bytes.
impl fmt::Debug for BundleFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BundleFile")
            .field("size", &self.bytes.len())
            .field("executable", &self.executable)
            .finish()
    }
}

/// One line of a version's manifest (docs/API.md), as stored and served.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// The file's path in the bundle.
    pub path: RelPath,
    /// SHA-256 of its bytes.
    pub sha256: Sha256Hash,
    /// Size in bytes.
    pub size: u64,
    /// Whether it is executable.
    pub executable: bool,
}

/// A validated skill bundle: files within limits plus the strictly parsed `SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    files: BTreeMap<RelPath, BundleFile>,
    document: SkillDocument,
    manifest: Vec<ManifestEntry>,
    digest: String,
    total_bytes: u64,
}

impl Bundle {
    /// Starts building a bundle that must respect `limits`.
    pub fn builder(limits: &Limits) -> BundleBuilder {
        BundleBuilder {
            limits: limits.clone(),
            files: BTreeMap::new(),
            total_bytes: 0,
        }
    }

    /// Builds a bundle from `(path, file)` pairs in any order.
    pub fn from_files(
        files: impl IntoIterator<Item = (RelPath, BundleFile)>,
        limits: &Limits,
    ) -> Result<Bundle, BundleError> {
        let mut builder = Bundle::builder(limits);
        for (path, file) in files {
            builder.add(path, file.bytes, file.executable)?;
        }
        builder.finish()
    }

    /// All files, ordered by path bytes.
    pub fn files(&self) -> &BTreeMap<RelPath, BundleFile> {
        &self.files
    }

    /// Gives back the files, e.g. to apply a patch and build a new bundle from them.
    pub fn into_files(self) -> BTreeMap<RelPath, BundleFile> {
        self.files
    }

    /// One file, if present.
    pub fn get(&self, path: &RelPath) -> Option<&BundleFile> {
        self.files.get(path)
    }

    /// The parsed `SKILL.md`.
    pub fn document(&self) -> &SkillDocument {
        &self.document
    }

    /// The `SKILL.md` frontmatter, all keys.
    pub fn frontmatter(&self) -> &Frontmatter {
        &self.document.frontmatter
    }

    /// The frontmatter description (always present and non-empty in a built bundle).
    pub fn description(&self) -> &str {
        self.document.frontmatter.description().unwrap_or_default()
    }

    /// The manifest, sorted by path bytes.
    pub fn manifest(&self) -> Vec<ManifestEntry> {
        self.manifest.clone()
    }

    /// The version digest (`sha256:…`) (docs/API.md) over the manifest.
    pub fn digest(&self) -> String {
        self.digest.clone()
    }

    /// Sum of all file sizes in bytes.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Always false for a built bundle (it has at least `SKILL.md`); present for API symmetry.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

/// Collects files for a [`Bundle`], checking limits as each file is added so that oversized
/// input is refused before more of it is read.
#[derive(Debug, Clone)]
pub struct BundleBuilder {
    limits: Limits,
    files: BTreeMap<RelPath, BundleFile>,
    total_bytes: u64,
}

impl BundleBuilder {
    /// Adds one file; fails on a duplicate path, too many files, a file over the per-file
    /// limit, or a total over the bundle limit. On error the builder is unchanged.
    pub fn add(&mut self, path: RelPath, bytes: Vec<u8>, executable: bool) -> Result<(), BundleError> {
        if self.files.contains_key(&path) {
            return Err(BundleError::DuplicatePath { path });
        }
        if self.files.len() >= self.limits.max_files {
            return Err(BundleError::TooManyFiles {
                max: self.limits.max_files,
            });
        }
        let size = bytes.len() as u64;
        if size > self.limits.max_file_bytes {
            return Err(BundleError::FileTooLarge {
                path,
                size,
                max: self.limits.max_file_bytes,
            });
        }
        let total = self.total_bytes.saturating_add(size);
        if total > self.limits.max_total_bytes {
            return Err(BundleError::TotalTooLarge {
                max: self.limits.max_total_bytes,
            });
        }
        self.total_bytes = total;
        self.files.insert(path, BundleFile { bytes, executable });
        Ok(())
    }

    /// True when `path` was already added; lets readers refuse a duplicate before reading it.
    pub fn contains(&self, path: &RelPath) -> bool {
        self.files.contains_key(path)
    }

    /// Number of files added so far.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no file was added yet.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Sum of the sizes of the files added so far.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// The limits this builder enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Checks `SKILL.md` (present at the root, UTF-8, [`parse_strict`]) and computes the
    /// manifest and digest.
    pub fn finish(self) -> Result<Bundle, BundleError> {
        let skill_md = self
            .files
            .get(crate::path::SKILL_MD)
            .ok_or(BundleError::MissingSkillMd)?;
        let text = std::str::from_utf8(&skill_md.bytes).map_err(|e| BundleError::SkillMdNotUtf8 {
            valid_up_to: e.valid_up_to(),
        })?;
        let document = parse_strict(text, &self.limits)?;
        let manifest: Vec<ManifestEntry> = self
            .files
            .iter()
            .map(|(path, file)| ManifestEntry {
                path: path.clone(),
                sha256: Sha256Hash::of(&file.bytes),
                size: file.size(),
                executable: file.executable,
            })
            .collect();
        let digest = version_digest(manifest.iter().map(|e| (&e.path, &e.sha256)));
        Ok(Bundle {
            files: self.files,
            document,
            manifest,
            digest,
            total_bytes: self.total_bytes,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SKILL: &[u8] = b"---\nname: demo\ndescription: Demo skill.\n---\n# Demo\n";

    fn p(s: &str) -> RelPath {
        RelPath::parse(s).unwrap()
    }

    fn builder_with_skill(limits: &Limits) -> BundleBuilder {
        let mut b = Bundle::builder(limits);
        b.add(RelPath::skill_md(), SKILL.to_vec(), false).unwrap();
        b
    }

    #[test]
    fn builds_and_exposes() {
        let mut b = builder_with_skill(&Limits::default());
        b.add(p("scripts/run.sh"), b"#!/bin/sh\n".to_vec(), true).unwrap();
        b.add(p("references/api.md"), b"api".to_vec(), false).unwrap();
        let bundle = b.finish().unwrap();
        assert_eq!(bundle.len(), 3);
        assert!(!bundle.is_empty());
        assert_eq!(bundle.description(), "Demo skill.");
        assert_eq!(bundle.frontmatter().name(), Some("demo"));
        assert_eq!(bundle.document().body, "# Demo\n");
        assert_eq!(bundle.total_bytes(), (SKILL.len() + 10 + 3) as u64);
        assert!(bundle.get(&p("scripts/run.sh")).unwrap().executable);
        let m = bundle.manifest();
        let paths: Vec<&str> = m.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["SKILL.md", "references/api.md", "scripts/run.sh"]);
        assert_eq!(m[2].sha256, Sha256Hash::of(b"#!/bin/sh\n"));
        assert_eq!(m[2].size, 10);
        assert!(m[2].executable && !m[1].executable);
        let json = serde_json::to_value(&m[1]).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"path": "references/api.md", "sha256": Sha256Hash::of(b"api").to_hex(), "size": 3, "executable": false})
        );
        assert_eq!(serde_json::from_value::<ManifestEntry>(json).unwrap(), m[1]);
        assert_eq!(bundle.digest(), version_digest(m.iter().map(|e| (&e.path, &e.sha256))));
    }

    #[test]
    fn digest_is_order_independent_and_content_sensitive() {
        let files = vec![
            (RelPath::skill_md(), BundleFile::new(SKILL.to_vec(), false)),
            (p("a.txt"), BundleFile::new(b"a".to_vec(), false)),
            (p("b/c.txt"), BundleFile::new(b"c".to_vec(), false)),
        ];
        let one = Bundle::from_files(files.clone(), &Limits::default()).unwrap();
        let mut rev = files.clone();
        rev.reverse();
        let two = Bundle::from_files(rev, &Limits::default()).unwrap();
        assert_eq!(one.digest(), two.digest());
        assert_eq!(one, two);
        assert!(one.digest().starts_with("sha256:") && one.digest().len() == 71);
        let mut changed = files.clone();
        changed[1].1.bytes = b"A".to_vec();
        assert_ne!(
            Bundle::from_files(changed, &Limits::default()).unwrap().digest(),
            one.digest()
        );
        // The executable flag is in the manifest but not in the digest (docs/API.md, "Digest").
        let mut exec = files;
        exec[1].1.executable = true;
        assert_eq!(
            Bundle::from_files(exec, &Limits::default()).unwrap().digest(),
            one.digest()
        );
    }

    #[test]
    fn too_many_files() {
        let limits = Limits::default();
        let mut b = builder_with_skill(&limits);
        for i in 1..200 {
            b.add(p(&format!("f{i}.txt")), vec![b'x'], false).unwrap();
        }
        assert_eq!(b.len(), 200);
        assert_eq!(
            b.add(p("f200.txt"), vec![b'x'], false),
            Err(BundleError::TooManyFiles { max: 200 })
        );
        assert_eq!(b.len(), 200);
        assert!(b.finish().is_ok());
    }

    #[test]
    fn file_too_large() {
        let limits = Limits::default();
        let mut b = builder_with_skill(&limits);
        b.add(p("ok.bin"), vec![0; 1_048_576], false).unwrap();
        let e = b.add(p("big.bin"), vec![0; 1_048_577], false).unwrap_err();
        assert_eq!(
            e,
            BundleError::FileTooLarge {
                path: p("big.bin"),
                size: 1_048_577,
                max: 1_048_576
            }
        );
        assert!(e.to_string().contains("big.bin") && e.to_string().contains("1048576"));
    }

    #[test]
    fn total_too_large() {
        let limits = Limits::default();
        let mut b = builder_with_skill(&limits);
        for i in 0..9 {
            b.add(p(&format!("f{i}.bin")), vec![0; 1_048_576], false).unwrap();
        }
        // 9 MiB + SKILL.md; one more MiB goes over 10 MiB.
        assert_eq!(
            b.add(p("f9.bin"), vec![0; 1_048_576], false),
            Err(BundleError::TotalTooLarge { max: 10_485_760 })
        );
        let left = 10_485_760 - b.total_bytes();
        b.add(p("fill.bin"), vec![0; left as usize], false).unwrap();
        assert_eq!(b.total_bytes(), 10_485_760);
        assert_eq!(
            b.add(p("one.bin"), vec![0], false),
            Err(BundleError::TotalTooLarge { max: 10_485_760 })
        );
        assert_eq!(b.finish().unwrap().total_bytes(), 10_485_760);
    }

    #[test]
    fn duplicate_path() {
        let mut b = builder_with_skill(&Limits::default());
        assert!(b.contains(&RelPath::skill_md()));
        assert_eq!(
            b.add(RelPath::skill_md(), b"x".to_vec(), false),
            Err(BundleError::DuplicatePath {
                path: RelPath::skill_md()
            })
        );
        let dup = vec![
            (RelPath::skill_md(), BundleFile::new(SKILL.to_vec(), false)),
            (RelPath::skill_md(), BundleFile::new(SKILL.to_vec(), false)),
        ];
        assert!(matches!(
            Bundle::from_files(dup, &Limits::default()),
            Err(BundleError::DuplicatePath { .. })
        ));
    }

    #[test]
    fn skill_md_rules() {
        let limits = Limits::default();
        let mut b = Bundle::builder(&limits);
        b.add(p("README.md"), b"x".to_vec(), false).unwrap();
        b.add(p("sub/SKILL.md"), SKILL.to_vec(), false).unwrap();
        assert_eq!(b.finish().unwrap_err(), BundleError::MissingSkillMd);
        assert_eq!(
            Bundle::builder(&limits).finish().unwrap_err(),
            BundleError::MissingSkillMd
        );

        let mut bad = SKILL.to_vec();
        bad.extend_from_slice(&[b'o', 0xff, 0xfe]);
        let mut b = Bundle::builder(&limits);
        b.add(RelPath::skill_md(), bad, false).unwrap();
        assert_eq!(
            b.finish().unwrap_err(),
            BundleError::SkillMdNotUtf8 {
                valid_up_to: SKILL.len() + 1
            }
        );

        let mut b = Bundle::builder(&limits);
        b.add(RelPath::skill_md(), b"---\nname: x\n---\nbody".to_vec(), false)
            .unwrap();
        let e = b.finish().unwrap_err();
        assert_eq!(e, BundleError::Frontmatter(FrontmatterError::MissingDescription));
        assert!(e.to_string().contains("no 'description'"));
    }
}
