//! Skills to test with: SKILL.md texts, bundles, folders on disk. They panic on failure
//! (they are for tests, where a panic is the failure report).

use std::collections::BTreeMap;
use std::path::Path;

use cairn_skill::{Bundle, BundleFile, Limits, RelPath};

/// A SKILL.md with the given name, description and body.
pub fn skill_md(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\nmetadata:\n  hermes:\n    tags: [test]\n---\n{body}\n")
}

/// A valid bundle: SKILL.md plus `extra` files.
pub fn bundle(name: &str, body: &str, extra: &[(&str, &str)]) -> Bundle {
    let mut files = BTreeMap::new();
    files.insert(
        RelPath::parse("SKILL.md").unwrap(),
        BundleFile {
            bytes: skill_md(name, &format!("{name} does things"), body).into_bytes(),
            executable: false,
        },
    );
    for (path, content) in extra {
        files.insert(
            RelPath::parse(path).unwrap(),
            BundleFile {
                bytes: content.as_bytes().to_vec(),
                executable: path.ends_with(".sh"),
            },
        );
    }
    Bundle::from_files(files, &Limits::default()).unwrap()
}

/// Writes a skill folder `<root>/<rel>/` with SKILL.md and extra files.
pub fn write_skill(root: &Path, rel: &str, name: &str, body: &str, extra: &[(&str, &str)]) {
    let dir = root.join(rel);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("SKILL.md"),
        skill_md(name, &format!("{name} does things"), body),
    )
    .unwrap();
    for (path, content) in extra {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, content).unwrap();
    }
}

/// Copies a directory tree (regular files and folders only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if kind.is_file() {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
