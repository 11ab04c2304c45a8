//! What a file is by its bytes, not its name: native executables and archives hide in
//! bundles under innocent names.

use crate::report::Severity;

/// A finding about a whole file.
#[derive(Debug, PartialEq, Eq)]
pub struct FileFinding {
    /// Rule id.
    pub rule: &'static str,
    /// Category.
    pub category: &'static str,
    /// Severity.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// What to do.
    pub hint: &'static str,
}

/// Whether `bytes` look binary (a NUL in the first 8 KiB, or not UTF-8).
pub fn is_binary(bytes: &[u8]) -> bool {
    text_of(bytes).is_none()
}

/// The text of a file that is not binary (see [`is_binary`]): validated once, for callers
/// that go on to read it.
pub fn text_of(bytes: &[u8]) -> Option<&str> {
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return None;
    }
    std::str::from_utf8(bytes).ok()
}

/// Checks a file's kind and mode.
pub fn check_file(path: &str, bytes: &[u8], executable: bool) -> Vec<FileFinding> {
    let mut out = Vec::new();
    let magic = |m: &[u8]| bytes.starts_with(m);
    let native = if magic(b"\x7fELF") {
        Some("an ELF executable")
    } else if magic(b"MZ") {
        Some("a Windows executable")
    } else if magic(&[0xCF, 0xFA, 0xED, 0xFE]) || magic(&[0xCE, 0xFA, 0xED, 0xFE]) || magic(&[0xCA, 0xFE, 0xBA, 0xBE]) {
        Some("a Mach-O executable")
    } else {
        None
    };
    if let Some(kind) = native {
        out.push(FileFinding {
            rule: "bundle.native-executable",
            category: "bundle-anomaly",
            severity: Severity::High,
            message: format!("{path} is {kind} (detected by content)"),
            hint: "skills carry instructions and readable scripts, not compiled programs: remove it",
        });
    }
    let archive = if magic(b"PK\x03\x04") {
        Some("a ZIP archive")
    } else if magic(&[0x1F, 0x8B]) {
        Some("a gzip archive")
    } else if magic(b"7z\xBC\xAF\x27\x1C") {
        Some("a 7-Zip archive")
    } else if magic(b"Rar!") {
        Some("a RAR archive")
    } else {
        None
    };
    if let Some(kind) = archive {
        out.push(FileFinding {
            rule: "bundle.archive",
            category: "bundle-anomaly",
            severity: Severity::Medium,
            message: format!("{path} is {kind} (detected by content): its contents are not reviewed"),
            hint: "add the files themselves instead of an archive",
        });
    }
    let script_like =
        path.starts_with("scripts/") || crate::context::file_context(path) == crate::context::Context::Script;
    if executable && !script_like && native.is_none() {
        out.push(FileFinding {
            rule: "bundle.unexpected-executable",
            category: "bundle-anomaly",
            severity: Severity::Low,
            message: format!("{path} is executable but is not a script"),
            hint: "clear the executable bit, or move the script under scripts/",
        });
    }
    out
}

/// A file larger than this is more than a reviewer can read (and more than the
/// registry accepts by default).
pub const MAX_REVIEWABLE_FILE_BYTES: usize = 1024 * 1024;
/// A bundle with more files than this hides what matters among them.
pub const MAX_REVIEWABLE_FILES: usize = 200;

/// Checks the bundle as a whole: oversized files and too many files. `files` are
/// (path, size in bytes); the findings are (path, finding), `.` for the bundle itself.
pub fn check_bundle<'a>(files: impl IntoIterator<Item = (&'a str, usize)>) -> Vec<(&'a str, FileFinding)> {
    let mut out = Vec::new();
    let mut count = 0;
    for (path, size) in files {
        count += 1;
        if size > MAX_REVIEWABLE_FILE_BYTES {
            out.push((
                path,
                FileFinding {
                    rule: "bundle.oversized-file",
                    category: "bundle-anomaly",
                    severity: Severity::Medium,
                    message: format!(
                        "{path} is {} KiB, more than a reviewer can read (limit {} KiB)",
                        size / 1024,
                        MAX_REVIEWABLE_FILE_BYTES / 1024
                    ),
                    hint: "split it, trim it to what the skill needs, or link to the source instead",
                },
            ));
        }
    }
    if count > MAX_REVIEWABLE_FILES {
        out.push((
            ".",
            FileFinding {
                rule: "bundle.too-many-files",
                category: "bundle-anomaly",
                severity: Severity::Medium,
                message: format!("the bundle has {count} files (more than {MAX_REVIEWABLE_FILES}): too many to review"),
                hint: "keep the skill to the files it needs; move data sets elsewhere",
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oversized_files_and_crowded_bundles_are_anomalies() {
        let big = MAX_REVIEWABLE_FILE_BYTES + 1;
        let found = check_bundle([("SKILL.md", 100), ("references/dump.txt", big)]);
        assert_eq!(found.len(), 1);
        assert_eq!(
            (found[0].0, found[0].1.rule),
            ("references/dump.txt", "bundle.oversized-file")
        );
        assert!(check_bundle([("a", MAX_REVIEWABLE_FILE_BYTES)]).is_empty());
        let names: Vec<String> = (0..=MAX_REVIEWABLE_FILES).map(|i| format!("f{i}")).collect();
        let found = check_bundle(names.iter().map(|n| (n.as_str(), 1)));
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].0, found[0].1.rule), (".", "bundle.too-many-files"));
        let names: Vec<String> = (0..MAX_REVIEWABLE_FILES).map(|i| format!("f{i}")).collect();
        assert!(check_bundle(names.iter().map(|n| (n.as_str(), 1))).is_empty());
    }

    #[test]
    fn executables_and_archives_are_found_by_content() {
        let rules = |p: &str, b: &[u8], x: bool| check_file(p, b, x).into_iter().map(|f| f.rule).collect::<Vec<_>>();
        assert_eq!(
            rules("assets/logo.png", b"\x7fELF\x02\x01", false),
            vec!["bundle.native-executable"]
        );
        assert_eq!(
            rules("references/data.txt", b"PK\x03\x04rest", false),
            vec!["bundle.archive"]
        );
        assert_eq!(rules("notes.md", b"# hi", true), vec!["bundle.unexpected-executable"]);
        assert!(rules("scripts/run.sh", b"#!/bin/sh", true).is_empty());
        assert!(is_binary(b"a\0b") && !is_binary("héllo".as_bytes()));
    }
}
