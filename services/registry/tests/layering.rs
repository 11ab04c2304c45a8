//! The registry's dependency rule, checked on its source (docs/ARCHITECTURE.md):
//!
//! ```text
//! server → {rest, compat, grpc, web, mcp} → {access, error, serving} → app → store
//! ```
//!
//! Transports never import one another; only the server knows them; the shared edge
//! imports no transport; the application layer imports neither transports nor the edge.
//! Shared services below the edge (`auth`, `config`, …) import neither. Every `use`,
//! every path in code and every `crate::`/`super::` path inside a macro call is read with
//! `syn` and resolved to the top-level module it names (`crate::…`, `super::…`,
//! `self::…`, the crate root's re-exports), inline modules included. Not seen: a type
//! reached only through a field of `AppState` (the composition root holds them all).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The transports: each adapts the application layer to one protocol.
const TRANSPORTS: [&str; 5] = ["rest", "compat", "grpc", "web", "mcp"];
/// The edge every transport shares.
const EDGE: [&str; 3] = ["access", "error", "serving"];
/// Shared services below the edge, which the application layer may use too.
const BELOW_EDGE: [&str; 9] = [
    "auth",
    "bootstrap",
    "config",
    "metrics",
    "private_file",
    "ratelimit",
    "runtime",
    "signing",
    "telemetry",
];

/// One reference from a file to a top-level module of the crate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Reference {
    from: String,
    to: String,
    file: String,
}

/// Collects the top-level modules a file's paths name.
struct Collector<'a> {
    /// The module the file is (`["rest", "skills"]`), plus inline modules while inside
    /// them.
    module: Vec<String>,
    file: &'a str,
    found: BTreeSet<Reference>,
    /// Items the crate root re-exports (`crate::serve` is `server::serve`), by name.
    reexports: &'a std::collections::BTreeMap<String, String>,
}

impl Collector<'_> {
    /// Records the top-level module a path starting with `segments` resolves to.
    fn resolve(&mut self, segments: &[String]) {
        let Some(first) = segments.first() else { return };
        let target = match first.as_str() {
            "crate" => segments.get(1).cloned(),
            "super" | "self" => {
                let mut base = self.module.clone();
                let mut rest = segments;
                while let Some(head) = rest.first() {
                    match head.as_str() {
                        "super" => {
                            base.pop();
                        }
                        "self" => {}
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                base.first().cloned().or_else(|| rest.first().cloned())
            }
            _ => None,
        };
        let target = target.map(|t| self.reexports.get(&t).cloned().unwrap_or(t));
        let (Some(from), Some(to)) = (self.module.first().cloned(), target) else {
            return;
        };
        if from != to {
            self.found.insert(Reference {
                from,
                to,
                file: self.file.to_owned(),
            });
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                prefix.push(n.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Rename(r) => {
                prefix.push(r.ident.to_string());
                self.resolve(&prefix.clone());
                prefix.pop();
            }
            syn::UseTree::Glob(_) => self.resolve(&prefix.clone()),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(&segments);
        syn::visit::visit_path(self, path);
    }

    /// Paths inside macro calls (`tokio::join!(crate::rest::…)`) are tokens, not syntax:
    /// read them as text.
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        let text = mac.tokens.to_string();
        let words: Vec<&str> = text.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            if matches!(*word, "crate" | "super" | "self") && words.get(i + 1) == Some(&"::") {
                let mut segments = vec![(*word).to_owned()];
                let mut j = i + 2;
                while let Some(next) = words.get(j) {
                    segments.push(
                        (*next)
                            .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
                            .to_owned(),
                    );
                    if words.get(j + 1) != Some(&"::") {
                        break;
                    }
                    j += 2;
                }
                self.resolve(&segments);
            }
        }
        syn::visit::visit_macro(self, mac);
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            self.module.push(item.ident.to_string());
            syn::visit::visit_item_mod(self, item);
            self.module.pop();
        }
    }
}

/// The module path of a source file relative to `src` (`rest/skills.rs` → `rest::skills`,
/// `rest/mod.rs` → `rest`, `lib.rs` → the crate root).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    if parts.first().map(String::as_str) == Some("bin") {
        parts.clear();
    }
    parts
}

/// Every reference of `source` (a file of module `module`) to another top-level module.
fn references(
    module: Vec<String>,
    file: &str,
    source: &str,
    reexports: &std::collections::BTreeMap<String, String>,
) -> BTreeSet<Reference> {
    let parsed = syn::parse_file(source).unwrap_or_else(|e| panic!("{file} does not parse: {e}"));
    let mut collector = Collector {
        module,
        file,
        found: BTreeSet::new(),
        reexports,
    };
    collector.visit_file(&parsed);
    collector.found
}

/// What the crate root (`lib.rs`) re-exports with `pub use module::…`: name → module.
fn root_reexports(lib_rs: &str) -> std::collections::BTreeMap<String, String> {
    fn leaves(tree: &syn::UseTree, module: &str, out: &mut std::collections::BTreeMap<String, String>) {
        match tree {
            syn::UseTree::Path(p) => leaves(&p.tree, module, out),
            syn::UseTree::Name(n) => {
                out.insert(n.ident.to_string(), module.to_owned());
            }
            syn::UseTree::Rename(r) => {
                out.insert(r.rename.to_string(), module.to_owned());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| leaves(t, module, out)),
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = std::collections::BTreeMap::new();
    for item in syn::parse_file(lib_rs).expect("lib.rs parses").items {
        if let syn::Item::Use(u) = item
            && matches!(u.vis, syn::Visibility::Public(_))
            && let syn::UseTree::Path(p) = &u.tree
        {
            leaves(&p.tree, &p.ident.to_string(), &mut out);
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Why a reference breaks the rule, if it does.
fn violation(reference: &Reference) -> Option<&'static str> {
    let (from, to) = (reference.from.as_str(), reference.to.as_str());
    let transport = |m: &str| TRANSPORTS.contains(&m);
    let edge = |m: &str| EDGE.contains(&m);
    if transport(from) && transport(to) {
        return Some("a transport imports another transport");
    }
    if to == "server" {
        return Some("only the crate root uses the server");
    }
    if edge(from) && transport(to) {
        return Some("the shared edge imports a transport");
    }
    if from == "app" && (transport(to) || edge(to)) {
        return Some("the application layer imports a transport or the edge");
    }
    if BELOW_EDGE.contains(&from) && (transport(to) || edge(to)) {
        return Some("a shared service below the edge imports a transport or the edge");
    }
    if transport(to) && from != "server" {
        return Some("only the server assembles the transports");
    }
    None
}

fn violations(all: &BTreeSet<Reference>) -> Vec<String> {
    all.iter()
        .filter_map(|r| violation(r).map(|why| format!("{}: {} → {} ({why})", r.file, r.from, r.to)))
        .collect()
}

#[test]
fn the_registry_follows_its_dependency_rule() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let reexports = root_reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    assert_eq!(reexports.get("serve").map(String::as_str), Some("server"));
    let mut all = BTreeSet::new();
    for path in &files {
        let relative = path.strip_prefix(&src).unwrap();
        let source = std::fs::read_to_string(path).unwrap();
        all.extend(references(
            module_of(relative),
            &relative.display().to_string(),
            &source,
            &reexports,
        ));
    }
    // The walk really reads the tree: the server uses every transport, and each
    // transport the edge.
    for transport in TRANSPORTS {
        assert!(
            all.iter().any(|r| r.from == "server" && r.to == transport),
            "server → {transport} not seen"
        );
        assert!(
            all.iter().any(|r| r.from == transport && r.to == "error"),
            "{transport} → error not seen"
        );
    }
    let broken = violations(&all);
    assert!(
        broken.is_empty(),
        "the dependency rule is broken:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_check_sees_imports_in_every_form() {
    let cases = [
        (vec!["rest", "skills"], "use crate::grpc::service::RegistryService;"),
        (vec!["rest", "skills"], "use crate::{AppState, web::session::Viewer};"),
        (
            vec!["rest", "skills"],
            "fn f() { crate::compat::clawhub::upload_ticket(); }",
        ),
        (
            vec!["web", "pages", "queue"],
            "use super::super::super::rest::wire::Page;",
        ),
        (vec!["grpc"], "mod tests { use super::super::web::router; }"),
        (vec!["access", "gate"], "fn f() -> crate::grpc::HEALTH { todo!() }"),
        (vec!["app", "patches"], "use crate::error::ApiError;"),
        (vec!["web"], "use crate::server::rules;"),
        (vec!["web"], "fn f() { crate::serve(); }"),
        (
            vec!["app", "live"],
            "fn f() { tokio::join!(crate::rest::index::warm(), g()); }",
        ),
        (vec!["auth"], "use crate::access::Caller;"),
    ];
    let reexports = [("serve".to_owned(), "server".to_owned())].into_iter().collect();
    for (module, source) in cases {
        let module: Vec<String> = module.into_iter().map(str::to_owned).collect();
        let found = references(module, "case.rs", source, &reexports);
        assert!(!violations(&found).is_empty(), "not caught: {source} ({found:?})");
    }
    // Allowed: a transport using the edge and the application layer, and its own
    // submodules through `super`.
    let fine = references(
        vec!["rest".into(), "skills".into()],
        "case.rs",
        "use super::wire::Page; use crate::error::ApiError; use crate::app::catalog; use crate::access::Caller;",
        &reexports,
    );
    assert!(violations(&fine).is_empty(), "{fine:?}");
}
