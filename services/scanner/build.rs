//! Embeds every `rules/*.toml` file at build time, so rules are data added by dropping a
//! file in, and the binary needs nothing at run time. Also works out each built-in
//! rule's required literals (`src/literals.rs`, included here) once, so the prefilter
//! does not analyse every pattern at every start.

#[allow(dead_code)]
#[path = "src/literals.rs"]
mod literals;

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
    println!(
        "cargo::rerun-if-changed={}",
        Path::new(&manifest).join("src/literals.rs").display()
    );
    let mut literals = String::from(
        "/// Every built-in rule's pattern with its required literals (see `crate::literals`).\n\
         static RULE_LITERALS: &[(&str, &[&[&[u8]]])] = &[\n",
    );
    for path in files {
        println!("cargo::rerun-if-changed={}", path.display());
        let name = path.file_name().and_then(|n| n.to_str()).expect("UTF-8 rule file name");
        writeln!(out, "    ({name:?}, include_str!({:?})),", path.display().to_string()).expect("write to string");
        let text = std::fs::read_to_string(&path).expect("rule files are UTF-8");
        // A file that does not parse is reported by the rule loader (and its tests) with
        // the reason; here it only has no precomputed literals.
        let Ok(table) = text.parse::<toml::Table>() else {
            continue;
        };
        let rules = table
            .get("rule")
            .and_then(toml::Value::as_array)
            .cloned()
            .unwrap_or_default();
        for rule in rules {
            let Some(pattern) = rule.get("pattern").and_then(toml::Value::as_str) else {
                continue;
            };
            let clauses = literals::required_literals(&literals::ascii_word_boundaries(pattern));
            writeln!(literals, "    ({pattern:?}, &{}),", slices(&clauses)).expect("write to string");
        }
    }
    out.push_str("];\n");
    literals.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo");
    std::fs::write(Path::new(&out_dir).join("rule_files.rs"), out).expect("write rule_files.rs");
    std::fs::write(Path::new(&out_dir).join("rule_literals.rs"), literals).expect("write rule_literals.rs");
}

/// Clauses as Rust source: `[&[&[b, …], …], …]`.
fn slices(clauses: &[Vec<Vec<u8>>]) -> String {
    let clause = |c: &Vec<Vec<u8>>| {
        let literals: Vec<String> = c.iter().map(|l| format!("&{l:?}")).collect();
        format!("&[{}]", literals.join(", "))
    };
    format!("[{}]", clauses.iter().map(clause).collect::<Vec<_>>().join(", "))
}
