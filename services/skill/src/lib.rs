//! Cairn skill bundles: the pure domain core shared by the registry, the store and clients.
//!
//! A skill is a folder with a `SKILL.md` (YAML frontmatter + Markdown) and optional extra
//! files. This crate validates everything that comes from outside — names, categories, file
//! paths, frontmatter, size limits, archives — and computes the content digests that identify
//! a version (docs/API.md). It does no I/O of its own beyond `Read`/`Write`, so every service
//! applies exactly the same rules.

pub mod archive;
pub mod bundle;
pub mod digest;
pub mod frontmatter;
pub mod limits;
pub mod name;
pub mod path;

pub use archive::ArchiveError;
pub use bundle::{Bundle, BundleBuilder, BundleError, BundleFile, ManifestEntry};
pub use digest::{DigestError, Sha256Hash};
pub use frontmatter::{Frontmatter, FrontmatterError, SkillDocument};
pub use limits::Limits;
pub use name::{Category, NameError, SkillName};
pub use path::{PathError, RelPath};
