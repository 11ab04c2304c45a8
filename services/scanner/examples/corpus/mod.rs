//! Reading the test corpus and the scanner's case sets, shared by the `evaluate`,
//! `train-model` and `explain` examples so they all see exactly the same bundles.

// Each example uses part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use cairn_scanner::ScanFile;

/// Sources held out from tuning: labeled fixture sources (`source` in `labels.jsonl`) and
/// curated skill sources (`skills/<source>`). Everything else is development data.
pub const HELD_OUT_SOURCES: [&str; 6] = [
    "skillscan-security",
    "skill-inject",
    "snyk-agent-scan",
    "nvidia",
    "anthropic",
    "openai",
];

/// Which part of the split a source is in.
pub fn part(source: &str) -> &'static str {
    if HELD_OUT_SOURCES.contains(&source) {
        "held-out"
    } else {
        "development"
    }
}

/// One bundle to scan: its files, and for a patch the bundle it changes.
pub struct Bundle {
    pub set: String,
    pub path: String,
    pub files: Vec<(String, Vec<u8>)>,
    /// For a patch: the bundle it changes. The patch is judged by what it introduces.
    pub base: Option<Vec<(String, Vec<u8>)>>,
}

/// Every file under `dir` (symbolic links not followed), in path order, as (path relative
/// to `root`, contents).
pub fn files_under(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            files_under(root, &path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            out.push((rel, bytes));
        }
    }
}

/// The source folders of a corpus set (`skills/<source>`, `wild/<source>`), sorted.
pub fn sources(corpus: &Path, set: &str) -> Vec<PathBuf> {
    let mut sources: Vec<PathBuf> = std::fs::read_dir(corpus.join(set))
        .expect("the corpus set's folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    sources.sort();
    sources
}

/// Every directory under `dir` holding a SKILL.md (nested skills are their own bundles).
pub fn skill_dirs(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.join("SKILL.md").is_file() {
        out.push(dir.to_path_buf());
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir() && !p.is_symlink())
        .collect();
    dirs.sort();
    for d in dirs {
        skill_dirs(&d, out);
    }
}

/// A bundle's own files (not those of skills nested below it).
pub fn bundle(set: &str, dir: &Path) -> Bundle {
    let mut files = Vec::new();
    files_under(dir, dir, &mut files);
    files.retain(|(rel, _)| {
        let p = Path::new(rel);
        !p.ancestors()
            .skip(1)
            .any(|a| !a.as_os_str().is_empty() && dir.join(a).join("SKILL.md").is_file())
    });
    Bundle {
        set: set.to_owned(),
        path: dir.display().to_string(),
        files,
        base: None,
    }
}

/// The files of a bundle as the scanner takes them.
pub fn as_scan(files: &[(String, Vec<u8>)]) -> Vec<ScanFile<'_>> {
    files
        .iter()
        .map(|(p, b)| ScanFile {
            path: p,
            bytes: b,
            executable: false,
        })
        .collect()
}

/// A labeled fixture of `malicious/labels.jsonl`.
pub struct Labeled {
    pub bundle: Bundle,
    /// `malicious`, `benign` or `risky`.
    pub label: String,
    /// The source's own categories.
    pub categories: Vec<String>,
    /// The first path component: the sub-set it comes from.
    pub source: String,
}

/// Every labeled fixture, in the file's order.
pub fn labeled(corpus: &Path) -> Vec<Labeled> {
    let malicious = corpus.join("malicious");
    let labels = std::fs::read_to_string(malicious.join("labels.jsonl")).expect("malicious/labels.jsonl");
    let mut inject_cache: HashMap<String, serde_json::Value> = HashMap::new();
    let mut out = Vec::new();
    for line in labels.lines() {
        let entry: serde_json::Value = serde_json::from_str(line).expect("a JSON label");
        let path = entry["path"].as_str().unwrap_or_default();
        let bundle = if let Some((file, id)) = path.split_once("#id=") {
            let items = inject_cache.entry(file.to_owned()).or_insert_with(|| {
                serde_json::from_str(&std::fs::read_to_string(malicious.join(file)).expect("injection file"))
                    .expect("JSON")
            });
            let item = items.as_array().and_then(|a| {
                a.iter()
                    .find(|i| i["id"].as_i64().map(|n| n.to_string()).as_deref() == Some(id))
            });
            let text = item.map_or(String::new(), |i| {
                format!(
                    "---\nname: injected\ndescription: {}\n---\n{}\n",
                    i["instructions"]["description_injection"].as_str().unwrap_or(""),
                    i["instructions"]["line_injection"].as_str().unwrap_or("")
                )
            });
            Bundle {
                set: "malicious".into(),
                path: path.into(),
                files: vec![("SKILL.md".into(), text.into_bytes())],
                base: None,
            }
        } else if malicious.join(path).is_file() {
            let bytes = std::fs::read(malicious.join(path)).unwrap_or_default();
            Bundle {
                set: "malicious".into(),
                path: path.into(),
                files: vec![("SKILL.md".into(), bytes)],
                base: None,
            }
        } else {
            let mut b = bundle("malicious", &malicious.join(path));
            b.path = path.into();
            b
        };
        out.push(Labeled {
            bundle,
            label: entry["label"].as_str().unwrap_or_default().to_owned(),
            categories: entry["categories"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c.as_str().unwrap_or("?").to_owned())
                .collect(),
            source: path.split('/').next().unwrap_or_default().to_owned(),
        });
    }
    out
}

/// One entry of a case set's `cases.toml`.
#[derive(serde::Deserialize)]
pub struct Case {
    pub id: String,
    pub kind: String,
    pub label: String,
    pub category: String,
    #[serde(default)]
    pub evasive: bool,
    pub expect: String,
}

#[derive(serde::Deserialize)]
struct CaseFile {
    case: Vec<Case>,
}

/// A case set's name (its directory's) and its cases with their bundles (`set` is
/// `cases:<name>`, `path` the case's id).
pub fn case_set(dir: &Path) -> (String, Vec<(Case, Bundle)>) {
    let text = std::fs::read_to_string(dir.join("cases.toml")).expect("cases.toml in the case set");
    let file: CaseFile = toml::from_str(&text).expect("a valid cases.toml");
    let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let set = format!("cases:{name}");
    let cases = file
        .case
        .into_iter()
        .map(|case| {
            let mut b = if case.kind == "patch" {
                let dir = dir.join("patches").join(&case.id);
                let mut new = bundle(&set, &dir.join("new"));
                new.base = Some(bundle(&set, &dir.join("base")).files);
                new
            } else {
                bundle(&set, &dir.join("skills").join(&case.id))
            };
            b.path = case.id.clone();
            (case, b)
        })
        .collect();
    (name, cases)
}
