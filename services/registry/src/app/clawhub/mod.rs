//! What the ClawHub CLI (`clawhub`) needs from a registry, mapped onto ours: a ClawHub
//! *version* is our revision written `1.0.<revision>`; the *fingerprint* of a skill's
//! files is the SHA-256 of its `path:sha256` lines, sorted the way the CLI sorts them
//! (JavaScript `localeCompare`, i.e. ICU collation — not byte order); archives are zips
//! with the files at the root, built deterministically.

pub mod publish;

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::LazyLock;

use cairn_store::{FileEntry, SkillSummary, Store, VersionInfo};
use sha2::{Digest, Sha256};

use crate::app::catalog::{self, CatalogError};

/// Versions considered per skill (newest first) for listings and [`resolve`].
pub const VERSIONS: i64 = 200;

/// The non-yanked versions of a skill, newest first (at most [`VERSIONS`]).
pub async fn versions(store: &Store, skill: &SkillSummary) -> Result<Vec<VersionInfo>, CatalogError> {
    let all = store.list_versions(skill.id, None, VERSIONS).await?;
    Ok(all.into_iter().filter(|v| !v.yanked).collect())
}

/// What `clawhub` asks before installing or publishing: which served version has exactly
/// the files of `fingerprint`, and the latest. Both `None` for a skill that does not exist
/// yet (what `clawhub publish` asks before a first version).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The revision whose files match the fingerprint.
    pub matched: Option<i32>,
    /// The latest served revision.
    pub latest: Option<i32>,
}

/// Finds the version whose files match `fingerprint` (the CLI's hash of the local copy),
/// reading every candidate version's files in one query.
pub async fn resolve(store: &Store, org_id: i64, slug: &str, fingerprint: &str) -> Result<Resolved, CatalogError> {
    let skill = match catalog::find_skill(store, org_id, slug).await {
        Ok(skill) => skill,
        Err(CatalogError::NotFound(_)) => return Ok(Resolved::default()),
        Err(e) => return Err(e),
    };
    let latest = catalog::resolve(store, org_id, slug, cairn_store::RevisionSelector::Latest)
        .await
        .map_err(|e| match e {
            CatalogError::NotFound(_) => CatalogError::NotFound(format!("skill '{slug}' has no published version")),
            other => other,
        })?
        .version;
    let served = versions(store, &skill).await?;
    let ids: Vec<i64> = served.iter().map(|v| v.id).collect();
    let mut files: BTreeMap<i64, Vec<FileEntry>> = BTreeMap::new();
    for (version_id, file) in store.files_of_versions(&ids).await? {
        files.entry(version_id).or_default().push(file);
    }
    let fingerprint = fingerprint.to_lowercase();
    let matched = served
        .iter()
        .find(|v| files.get(&v.id).is_some_and(|f| manifest_fingerprint(f) == fingerprint))
        .map(|v| v.revision);
    Ok(Resolved {
        matched,
        latest: Some(latest.revision),
    })
}

/// A revision as ClawHub writes versions.
pub fn version_of(revision: i32) -> String {
    format!("1.0.{revision}")
}

/// The revision a ClawHub version names (`1.0.<revision>`), if it is one of ours.
pub fn revision_of(version: &str) -> Option<i32> {
    version
        .strip_prefix("1.0.")
        .and_then(|r| r.parse::<i32>().ok())
        .filter(|r| *r >= 1 && version_of(*r) == version)
}

/// The collation the CLI's `localeCompare` uses (ICU root, default strength).
static COLLATOR: LazyLock<icu_collator::CollatorBorrowed<'static>> = LazyLock::new(|| {
    icu_collator::Collator::try_new(Default::default(), Default::default()).expect("root collation data is compiled in")
});

/// The ClawHub fingerprint of a set of files (`path`, `sha256` hex).
pub fn fingerprint<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut files: Vec<(&str, &str)> = files
        .into_iter()
        .filter(|(p, s)| !p.is_empty() && !s.is_empty())
        .collect();
    files.sort_by(|a, b| COLLATOR.compare(a.0, b.0));
    let payload = files
        .iter()
        .map(|(path, sha)| format!("{path}:{sha}"))
        .collect::<Vec<_>>()
        .join("\n");
    hex::encode(Sha256::digest(payload.as_bytes()))
}

/// The fingerprint of a version's manifest.
pub fn manifest_fingerprint(files: &[FileEntry]) -> String {
    fingerprint(files.iter().map(|f| (f.path.as_str(), f.sha256.as_str())))
}

/// A version as ClawHub downloads it: a zip of its files, built under the process's
/// archive permits (each holds a whole bundle in memory).
pub async fn zip_of(services: &crate::Services, resolved: &catalog::ResolvedVersion) -> Result<Vec<u8>, CatalogError> {
    let files = {
        let _permit = services
            .archive_permits
            .acquire()
            .await
            .map_err(|_| CatalogError::ShuttingDown)?;
        catalog::read_files(&services.store, services.blobs.as_ref(), resolved).await?
    };
    zip(files.iter().map(|(e, b)| (e.path.as_str(), b.as_ref(), e.executable)))
        .map_err(|e| CatalogError::Corrupt(format!("building a zip: {e}")))
}

/// A zip of the files (path, bytes, executable) at the root: entries sorted by path, a
/// fixed timestamp (1980-01-01) and fixed modes, so the same files always give the same
/// bytes.
pub fn zip<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8], bool)>) -> std::io::Result<Vec<u8>> {
    let mut files: Vec<(&str, &[u8], bool)> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (path, bytes, executable) in files {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .last_modified_time(zip::DateTime::default())
            .unix_permissions(if executable { 0o755 } else { 0o644 });
        writer.start_file(path, options).map_err(std::io::Error::other)?;
        writer.write_all(bytes)?;
    }
    Ok(writer.finish().map_err(std::io::Error::other)?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_revisions_and_back() {
        assert_eq!(version_of(7), "1.0.7");
        assert_eq!(revision_of("1.0.7"), Some(7));
        for bad in ["1.0.0", "1.0.07", "2.0.1", "1.0.x", "1.0.", "latest", "1.0.-1"] {
            assert_eq!(revision_of(bad), None, "{bad}");
        }
    }

    #[test]
    fn fingerprints_sort_paths_like_locale_compare() {
        // JavaScript: ["SKILL.md", "references/a.md"].sort((a, b) => a.localeCompare(b))
        // gives ["references/a.md", "SKILL.md"] (byte order would put SKILL.md first).
        let expected = hex::encode(Sha256::digest(b"references/a.md:bb\nSKILL.md:aa"));
        assert_eq!(fingerprint([("SKILL.md", "aa"), ("references/a.md", "bb")]), expected);
        assert_eq!(fingerprint([("references/a.md", "bb"), ("SKILL.md", "aa")]), expected);
    }

    #[test]
    fn the_collation_orders_paths_as_node_does() {
        // node -e 'console.log([...].sort((a, b) => a.localeCompare(b)))' on Node 20 (ICU):
        let node = [
            "assets/x.png",
            "references/a_b.md",
            "references/a-b.md",
            "references/a.md",
            "references/Z.md",
            "scripts/run.sh",
            "SKILL.md",
        ];
        let mut ours = [
            "SKILL.md",
            "references/a.md",
            "scripts/run.sh",
            "references/Z.md",
            "references/a-b.md",
            "references/a_b.md",
            "assets/x.png",
        ];
        ours.sort_by(|a, b| COLLATOR.compare(a, b));
        assert_eq!(ours, node);
    }

    #[test]
    fn zips_are_deterministic() {
        let files = [
            ("SKILL.md", b"a".as_slice(), false),
            ("scripts/run.sh", b"b".as_slice(), true),
        ];
        let one = zip(files).unwrap();
        let reversed = [files[1], files[0]];
        assert_eq!(zip(reversed).unwrap(), one);
        let archive = zip::ZipArchive::new(std::io::Cursor::new(one)).unwrap();
        assert_eq!(archive.file_names().collect::<Vec<_>>().len(), 2);
    }
}
