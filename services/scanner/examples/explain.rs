//! Prints every finding (all severities) of the skill bundles under the given
//! directories, one per line, with the verdict: a quick way to see why the scanner judged
//! a bundle as it did while working on rules or the command model.
//!
//! ```sh
//! cargo run -p cairn-scanner --example explain -- path/to/skill [more/skills…]
//! ```

#![allow(missing_docs)]

use std::path::{Path, PathBuf};

use cairn_scanner::{ScanFile, Scanner};

/// The allocator the `cairn-registry` and `cairn` binaries use, so this example's cold
/// start measures what theirs is.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_symlink() {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, out);
        } else if let Ok(bytes) = std::fs::read(&path) {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().into_owned();
            out.push((rel, bytes));
        }
    }
}

fn main() {
    let scanner = Scanner::builtin().expect("built-in rules compile");
    for dir in std::env::args().skip(1) {
        let root = PathBuf::from(&dir);
        let mut files = Vec::new();
        collect(&root, &root, &mut files);
        let inputs: Vec<ScanFile<'_>> = files
            .iter()
            .map(|(path, bytes)| ScanFile {
                path,
                bytes,
                executable: false,
            })
            .collect();
        let report = scanner.scan(&inputs);
        println!("{dir}: {}", report.verdict.as_str());
        for f in &report.findings {
            println!(
                "  {:<8} {} {}:{} {} | {}",
                f.severity.as_str(),
                f.rule,
                f.file,
                f.line,
                f.message,
                f.excerpt
            );
        }
    }
}
