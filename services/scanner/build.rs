//! Embeds every `rules/*.toml` file at build time, so rules are data added by dropping a
//! file in, and the binary needs nothing at run time.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read when the script runs, not baked in when it was compiled: a build script compiled
    // for one checkout is reused for another sharing the target directory.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR is set by cargo");
    let dir = Path::new(&manifest).join("rules");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("services/scanner/rules exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut out = String::from(
        "/// Every embedded rule file: (file name, contents).\npub static RULE_FILES: &[(&str, &str)] = &[\n",
    );
    for path in files {
        println!("cargo::rerun-if-changed={}", path.display());
        let name = path.file_name().and_then(|n| n.to_str()).expect("UTF-8 rule file name");
        writeln!(out, "    ({name:?}, include_str!({:?})),", path.display().to_string()).expect("write to string");
    }
    out.push_str("];\n");
    let target = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo")).join("rule_files.rs");
    std::fs::write(target, out).expect("write rule_files.rs");
}
