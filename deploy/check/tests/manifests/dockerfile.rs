//! `deploy/Dockerfile` and `.dockerignore`, read structurally: a cached multi-stage build
//! of the registry, a slim final stage running as a fixed non-root user with a health
//! check, and no secret baked in.

use cairn_deploy_check::dockerfile::{Instruction, instructions, stages};
use cairn_deploy_check::read_repo_file;
use cairn_deploy_check::settings::is_registry_setting;

use crate::{assert_clean, assert_reports};

const BINARY: &str = "/usr/local/bin/cairn-registry";

/// Words that mark a secret in a variable or argument name.
const SECRET_WORDS: [&str; 5] = ["SECRET", "PASSWORD", "TOKEN", "_KEY", "DATABASE_URL"];

fn dockerfile_problems(text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let all = instructions(text);
    let stages = stages(&all);
    if stages.len() < 2 {
        return vec![format!(
            "{} stage(s): the image must be built multi-stage",
            stages.len()
        )];
    }
    let builder = &stages[0];
    let last = &stages[stages.len() - 1];
    if builder.image != "rust:1.95-bookworm" {
        problems.push(format!(
            "the build stage starts from {}, want rust:1.95-bookworm",
            builder.image
        ));
    }
    if last.image != "debian:bookworm-slim" {
        problems.push(format!(
            "the final stage starts from {}, want debian:bookworm-slim",
            last.image
        ));
    }
    let build = builder
        .all("RUN")
        .find(|run| run.without_flags().contains("cargo build"));
    match build {
        Some(run) => {
            for part in ["--release", "--locked", "-p cairn-registry"] {
                if !run.without_flags().contains(part) {
                    problems.push(format!("line {}: cargo build lacks {part}", run.line));
                }
            }
            let caches: Vec<&str> = run
                .flags()
                .into_iter()
                .filter(|f| f.starts_with("--mount=type=cache"))
                .collect();
            for (what, target) in [
                ("the cargo registry", "/cargo/registry"),
                ("the target directory", "/target"),
            ] {
                let cached = caches.iter().any(|flag| {
                    flag.split(',')
                        .filter_map(|option| option.strip_prefix("target="))
                        .any(|path| path.ends_with(target))
                });
                if !cached {
                    problems.push(format!("line {}: cargo build needs a cache mount for {what}", run.line));
                }
            }
        }
        None => problems.push("no `cargo build` in the build stage".to_owned()),
    }
    // The final stage: only the binary from the builder, only CA certificates from apt.
    for copy in last.all("COPY") {
        let from_builder = builder
            .name
            .as_deref()
            .is_some_and(|name| copy.flags().contains(&format!("--from={name}").as_str()));
        if !from_builder {
            problems.push(format!(
                "line {}: the final stage copies {:?}; it should only take the binary from the builder",
                copy.line, copy.arguments
            ));
        }
    }
    for run in last.all("RUN") {
        if let Some((_, packages)) = run.arguments.split_once("apt-get install") {
            let packages = packages.split("&&").next().unwrap_or("");
            let extra: Vec<&str> = packages
                .split_whitespace()
                .filter(|w| !w.starts_with('-') && *w != "ca-certificates")
                .collect();
            if !extra.is_empty() {
                problems.push(format!(
                    "line {}: the final stage installs {extra:?}; only ca-certificates",
                    run.line
                ));
            }
        }
    }
    match last.last("USER").map(|u| u.arguments.as_str()) {
        None => problems.push("the final stage has no USER: it would run as root".to_owned()),
        Some(user) => {
            let name = user.split(':').next().unwrap_or("");
            if name == "root" || name == "0" {
                problems.push(format!("the final stage runs as {user}"));
            } else if name != "10001" {
                problems.push(format!(
                    "the final stage runs as {user}; use the numeric uid 10001 so Kubernetes can verify runAsNonRoot"
                ));
            }
        }
    }
    if !last
        .all("RUN")
        .any(|r| r.arguments.contains("10001") && r.arguments.contains("/var/lib/cairn"))
    {
        problems.push("the final stage does not create uid 10001 and give it /var/lib/cairn".to_owned());
    }
    let exec = |keyword: &str| {
        last.last(keyword)
            .and_then(|i| Instruction::exec_form(i.without_flags()))
    };
    let health = last
        .last("HEALTHCHECK")
        .and_then(|h| h.without_flags().strip_prefix("CMD"))
        .and_then(Instruction::exec_form);
    if health != Some(vec![BINARY.to_owned(), "probe".to_owned()]) {
        problems.push(format!("HEALTHCHECK is {health:?}, want CMD [\"{BINARY}\", \"probe\"]"));
    }
    if exec("ENTRYPOINT") != Some(vec![BINARY.to_owned()]) {
        problems.push(format!("ENTRYPOINT is {:?}, want [\"{BINARY}\"]", exec("ENTRYPOINT")));
    }
    if exec("CMD") != Some(vec!["serve".to_owned()]) {
        problems.push(format!("CMD is {:?}, want [\"serve\"]", exec("CMD")));
    }
    if !last
        .all("EXPOSE")
        .any(|e| e.arguments.split_whitespace().any(|p| p == "7878" || p == "7878/tcp"))
    {
        problems.push("the final stage does not EXPOSE 7878".to_owned());
    }
    let env: Vec<(String, String)> = last.all("ENV").flat_map(Instruction::pairs).collect();
    for (name, value) in [
        ("CAIRN_LISTEN", "0.0.0.0:7878"),
        ("CAIRN_LOG_FORMAT", "json"),
        ("CAIRN_DATA_DIR", "/var/lib/cairn"),
    ] {
        if !env.iter().any(|(n, v)| n == name && v == value) {
            problems.push(format!("the final stage should set ENV {name}={value}"));
        }
    }
    for (name, _) in &env {
        if !is_registry_setting(name) {
            problems.push(format!("ENV {name} is not a setting the registry reads"));
        }
    }
    // No secret in any stage: not as ENV/ARG, not copied in.
    for instruction in &all {
        let names: Vec<String> = match instruction.keyword.as_str() {
            "ENV" | "ARG" => instruction.pairs().into_iter().map(|(n, _)| n).collect(),
            _ => Vec::new(),
        };
        for name in names {
            if SECRET_WORDS.iter().any(|w| name.to_ascii_uppercase().contains(w)) {
                problems.push(format!(
                    "line {}: {} {name} bakes a secret into the image",
                    instruction.line, instruction.keyword
                ));
            }
        }
        if matches!(instruction.keyword.as_str(), "COPY" | "ADD")
            && [".env", ".token", "jwt.secret", ".pem", "id_rsa"]
                .iter()
                .any(|s| instruction.arguments.contains(s))
        {
            problems.push(format!(
                "line {}: copies a secret file: {}",
                instruction.line, instruction.arguments
            ));
        }
    }
    problems
}

/// The build context must keep every workspace member (cargo resolves the whole
/// workspace) and leave out build output and VCS data.
fn dockerignore_problems(text: &str, members: &[String]) -> Vec<String> {
    let mut problems = Vec::new();
    let patterns: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    for needed in ["target", ".git"] {
        if !patterns
            .iter()
            .any(|p| p.trim_start_matches("**/").trim_end_matches('/') == needed)
        {
            problems.push(format!(".dockerignore does not leave out {needed}"));
        }
    }
    for member in members {
        for pattern in &patterns {
            let pattern = pattern.trim_end_matches('/');
            if !pattern.starts_with('!') && (member == pattern || member.starts_with(&format!("{pattern}/"))) {
                problems.push(format!(
                    ".dockerignore pattern {pattern} drops the workspace member {member}"
                ));
            }
        }
    }
    problems
}

fn workspace_members() -> Vec<String> {
    let manifest: toml::Value = toml::from_str(&read_repo_file("Cargo.toml").expect("root Cargo.toml")).expect("TOML");
    manifest["workspace"]["members"]
        .as_array()
        .expect("workspace members")
        .iter()
        .filter_map(|m| m.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn the_dockerfile_builds_a_slim_non_root_image_with_a_health_check() {
    let text = read_repo_file("deploy/Dockerfile").unwrap_or_else(|e| panic!("{e}"));
    assert_clean("deploy/Dockerfile", dockerfile_problems(&text));
}

#[test]
fn the_dockerignore_keeps_the_workspace_and_drops_build_output() {
    let text = read_repo_file(".dockerignore").unwrap_or_else(|e| panic!("{e}"));
    let members = workspace_members();
    assert!(members.contains(&"deploy/check".to_owned()), "{members:?}");
    assert_clean(".dockerignore", dockerignore_problems(&text, &members));
    assert_reports(
        dockerignore_problems(&format!("{text}\ndeploy\n"), &members),
        "drops the workspace member deploy/check",
    );
}

#[test]
fn the_dockerfile_checks_catch_broken_images() {
    let good = read_repo_file("deploy/Dockerfile").unwrap_or_else(|e| panic!("{e}"));
    let single = "FROM rust:1.95-bookworm\nRUN cargo build --release\nCMD [\"serve\"]\n";
    assert_reports(dockerfile_problems(single), "multi-stage");
    assert_reports(
        dockerfile_problems(&good.replace("USER 10001:10001", "USER root")),
        "runs as root",
    );
    assert_reports(dockerfile_problems(&good.replace("USER 10001:10001\n", "")), "no USER");
    assert_reports(
        dockerfile_problems(&good.replace("HEALTHCHECK", "# HEALTHCHECK")),
        "HEALTHCHECK is None",
    );
    assert_reports(
        dockerfile_problems(&good.replace(
            "CAIRN_LOG_FORMAT=json",
            "CAIRN_LOG_FORMAT=json \\\n    CAIRN_JWT_SECRET=abc",
        )),
        "ENV CAIRN_JWT_SECRET bakes a secret",
    );
    assert_reports(
        dockerfile_problems(&good.replace("CAIRN_LISTEN=", "CAIRN_LISTEN_ADDR=")),
        "ENV CAIRN_LISTEN_ADDR is not a setting",
    );
    assert_reports(
        dockerfile_problems(&good.replace("ca-certificates \\", "ca-certificates curl \\")),
        "only ca-certificates",
    );
    assert_reports(
        dockerfile_problems(&good.replace(
            "--mount=type=cache,id=cairn-target",
            "--mount=type=bind,id=cairn-target",
        )),
        "cache mount for the target directory",
    );
}
