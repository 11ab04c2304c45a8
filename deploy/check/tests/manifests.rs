//! Checks of `deploy/`: the kustomize overlays (rendered with `kubectl kustomize`, each
//! object checked strictly against the Kubernetes API types, then the properties a
//! deployment relies on), the compose file and the Dockerfile.
//!
//! Every check is a function returning the problems it found, so each is run twice: on the
//! real files, where it must find nothing, and on a copy broken on purpose, where it must
//! name the problem (a check that cannot fail checks nothing).

mod manifests {
    pub mod compose;
    pub mod dockerfile;
    pub mod kubernetes;
    pub mod schema;
}

use cairn_deploy_check::repo_root;
use cairn_deploy_check::settings::REGISTRY_ENV;

/// Asserts a check found nothing, listing everything it found otherwise.
#[track_caller]
pub fn assert_clean(what: &str, problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s)\n  - {}",
        problems.len(),
        problems.join("\n  - ")
    );
}

/// Asserts a check found a problem whose message contains `needle`.
#[track_caller]
pub fn assert_reports(problems: Vec<String>, needle: &str) {
    assert!(
        problems.iter().any(|p| p.contains(needle)),
        "expected a problem mentioning {needle:?}, got {problems:#?}"
    );
}

/// Every setting name the deployment files may use must still be read by the server: the
/// list in `cairn_deploy_check::settings` is checked against the code it was taken from,
/// so a renamed variable fails here instead of being silently ignored in production.
#[test]
fn every_listed_setting_is_still_read_by_the_registry() {
    let mut sources = String::new();
    for dir in ["services/registry/src", "services/store/src"] {
        collect_rust_sources(&repo_root().join(dir), &mut sources);
    }
    assert!(sources.len() > 10_000, "the registry's sources were not found");
    let missing: Vec<String> = REGISTRY_ENV
        .iter()
        .filter(|name| !sources.contains(&format!("\"{name}\"")))
        .map(|name| format!("{name} is listed as a registry setting but no longer appears in its code"))
        .collect();
    assert_clean("settings list", missing);
}

fn collect_rust_sources(dir: &std::path::Path, into: &mut String) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_rust_sources(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push_str(&std::fs::read_to_string(&path).expect("readable source"));
        }
    }
}
