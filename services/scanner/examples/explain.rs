//! Prints every finding (all severities) of the skill bundles under the given
//! directories, one per line, with the verdict: a quick way to see why the scanner judged
//! a bundle as it did while working on rules or the command model.
//!
//! ```sh
//! cargo run -p cairn-scanner --example explain -- path/to/skill [more/skills…]
//! ```

#![allow(missing_docs)]

use std::path::PathBuf;

use cairn_scanner::{ScanFile, Scanner};

mod corpus;

/// The allocator the `cairn-registry` and `cairn` binaries use, so this example's cold
/// start measures what theirs is.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let scanner = Scanner::builtin().expect("built-in rules compile");
    for dir in std::env::args().skip(1) {
        let root = PathBuf::from(&dir);
        let mut files = Vec::new();
        corpus::files_under(&root, &root, &mut files);
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
