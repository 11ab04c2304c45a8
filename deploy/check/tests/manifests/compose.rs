//! `deploy/compose.yaml`: the services a laptop needs, started in the right order, with
//! settings the registry reads and credentials that agree between the services.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use cairn_deploy_check::settings::{is_registry_setting, is_secret};
use cairn_deploy_check::{read_repo_file, repo_root, yaml_document};

use crate::{assert_clean, assert_reports};

const COMPOSE: &str = "deploy/compose.yaml";

fn compose() -> Value {
    let text = read_repo_file(COMPOSE).unwrap_or_else(|e| panic!("{e}"));
    yaml_document(&text, COMPOSE).unwrap_or_else(|e| panic!("{e}"))
}

/// A service's environment as a map, from either compose form (map or `KEY=value` list).
fn environment(service: &Value) -> BTreeMap<String, String> {
    match &service["environment"] {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let text = match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                (k.clone(), text)
            })
            .collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(|item| match item.split_once('=') {
                Some((k, v)) => (k.to_owned(), v.to_owned()),
                None => (item.to_owned(), String::new()),
            })
            .collect(),
        _ => BTreeMap::new(),
    }
}

fn command(service: &Value) -> Vec<String> {
    match &service["command"] {
        Value::Array(words) => words.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        Value::String(line) => line.split_whitespace().map(str::to_owned).collect(),
        _ => Vec::new(),
    }
}

/// Host and port of a URL such as `postgres://user:pass@host:5432/db`.
fn host_port(url: &str) -> Option<(String, u16)> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?']).next()?;
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = host_port.rsplit_once(':')?;
    Some((host.to_owned(), port.parse().ok()?))
}

/// `user`, `password` and database of a PostgreSQL URL.
fn database_parts(url: &str) -> Option<(String, String, String)> {
    let rest = url.split_once("://")?.1;
    let (credentials, location) = rest.rsplit_once('@')?;
    let (user, password) = credentials.split_once(':')?;
    let database = location.split_once('/')?.1.split('?').next()?;
    Some((user.to_owned(), password.to_owned(), database.to_owned()))
}

fn port_of(address: &str) -> Option<u16> {
    address.rsplit_once(':')?.1.parse().ok()
}

fn compose_problems(file: &Value, garage_toml: Option<&toml::Value>) -> Vec<String> {
    let mut problems = Vec::new();
    let services = file["services"].as_object().cloned().unwrap_or_default();
    for name in ["postgres", "garage", "migrate", "registry"] {
        if !services.contains_key(name) {
            problems.push(format!("no `{name}` service"));
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    let (postgres, garage, migrate, registry) = (
        &services["postgres"],
        &services["garage"],
        &services["migrate"],
        &services["registry"],
    );

    // Images and health checks.
    if !postgres["image"].as_str().is_some_and(|i| i.starts_with("postgres:15")) {
        problems.push(format!("postgres runs {}, want PostgreSQL 15", postgres["image"]));
    }
    if garage["image"] != "dxflrs/garage:v2.5.0" {
        problems.push(format!("garage runs {}, want dxflrs/garage:v2.5.0", garage["image"]));
    }
    for (name, service, needle) in [
        ("postgres", postgres, "pg_isready"),
        ("garage", garage, "/garage"),
        ("registry", registry, "probe"),
    ] {
        let test = &service["healthcheck"]["test"];
        if !test.as_array().is_some_and(|t| t.contains(&json!(needle))) {
            problems.push(format!("{name} has no healthcheck running {needle}: {test}"));
        }
    }

    // Order: the database and the bucket first, then the migration, then the server.
    for (name, service, wanted) in [
        (
            "migrate",
            migrate,
            vec![("postgres", "service_healthy"), ("garage", "service_healthy")],
        ),
        (
            "registry",
            registry,
            vec![
                ("postgres", "service_healthy"),
                ("garage", "service_healthy"),
                ("migrate", "service_completed_successfully"),
            ],
        ),
    ] {
        for (dependency, condition) in wanted {
            if service["depends_on"][dependency]["condition"] != condition {
                problems.push(format!("{name} must wait for {dependency} ({condition})"));
            }
        }
    }
    for (name, service) in &services {
        for dependency in service["depends_on"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if !services.contains_key(dependency) {
                problems.push(format!("{name} depends on {dependency}, which is not a service"));
            }
        }
    }
    if command(migrate) != ["migrate"] {
        problems.push(format!("migrate runs {:?}, want [\"migrate\"]", command(migrate)));
    }
    if migrate["restart"].as_str().is_some_and(|r| r != "no") {
        problems.push("migrate is one-shot: it must not restart".to_owned());
    }

    // The registry is built from this checkout with deploy/Dockerfile.
    for (name, service) in [("migrate", migrate), ("registry", registry)] {
        let context = repo_root()
            .join("deploy")
            .join(service["build"]["context"].as_str().unwrap_or("."));
        let dockerfile = context.join(service["build"]["dockerfile"].as_str().unwrap_or("Dockerfile"));
        let expected = repo_root().join("deploy/Dockerfile");
        let same = dockerfile.canonicalize().ok() == expected.canonicalize().ok();
        let root = context.canonicalize().ok() == repo_root().canonicalize().ok();
        if !same || !root {
            problems.push(format!(
                "{name} must build deploy/Dockerfile with the repository root as context (context {}, dockerfile {})",
                context.display(),
                dockerfile.display()
            ));
        }
    }

    // Settings: real names, the S3 backend, credentials that match the other services.
    let postgres_env = environment(postgres);
    let garage_env = environment(garage);
    for (name, service) in [("migrate", migrate), ("registry", registry)] {
        let env = environment(service);
        for key in env.keys() {
            if !is_registry_setting(key) {
                problems.push(format!("{name} sets {key}, which the registry does not read"));
            }
        }
        for (key, value) in [
            ("CAIRN_BLOB_STORE", "s3"),
            ("CAIRN_S3_REGION", "garage"),
            ("CAIRN_S3_FORCE_PATH_STYLE", "true"),
        ] {
            if env.get(key).map(String::as_str) != Some(value) {
                problems.push(format!("{name}: {key} is {:?}, want {value:?}", env.get(key)));
            }
        }
        for key in [
            "CAIRN_DATABASE_URL",
            "CAIRN_S3_ENDPOINT",
            "CAIRN_S3_BUCKET",
            "CAIRN_S3_ACCESS_KEY_ID",
            "CAIRN_S3_SECRET_ACCESS_KEY",
            "CAIRN_JWT_SECRET",
        ] {
            if env.get(key).is_none_or(String::is_empty) {
                problems.push(format!("{name}: {key} is not set"));
            }
        }
        if env.get("CAIRN_JWT_SECRET").is_some_and(|s| s.len() < 32) {
            problems.push(format!("{name}: CAIRN_JWT_SECRET is shorter than 32 bytes"));
        }
        for (key, value) in &env {
            if is_secret(key) && !value.to_ascii_lowercase().contains("laptop") {
                problems.push(format!("{name}: {key} is not labelled as a laptop-only value"));
            }
        }
        let url = env.get("CAIRN_DATABASE_URL").map(String::as_str).unwrap_or("");
        match (host_port(url), database_parts(url)) {
            (Some((host, _)), Some((user, password, database))) => {
                if !services.contains_key(&host) {
                    problems.push(format!(
                        "{name}: CAIRN_DATABASE_URL points at {host}, which is not a service"
                    ));
                }
                let expected = ["POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"]
                    .map(|k| postgres_env.get(k).cloned().unwrap_or_default());
                if [user, password, database] != expected {
                    problems.push(format!(
                        "{name}: CAIRN_DATABASE_URL does not match the postgres service's user, password and database"
                    ));
                }
            }
            _ => problems.push(format!(
                "{name}: CAIRN_DATABASE_URL {url:?} is not user:password@host:port/db"
            )),
        }
        let endpoint = env.get("CAIRN_S3_ENDPOINT").map(String::as_str).unwrap_or("");
        match host_port(endpoint) {
            Some((host, port)) => {
                if host != "garage" {
                    problems.push(format!(
                        "{name}: CAIRN_S3_ENDPOINT points at {host}, not the garage service"
                    ));
                }
                let s3_port = garage_toml
                    .and_then(|t| t.get("s3_api")?.get("api_bind_addr")?.as_str())
                    .and_then(port_of)
                    .unwrap_or(3900);
                if port != s3_port {
                    problems.push(format!(
                        "{name}: CAIRN_S3_ENDPOINT uses port {port}, Garage's S3 API listens on {s3_port}"
                    ));
                }
            }
            None => problems.push(format!("{name}: CAIRN_S3_ENDPOINT {endpoint:?} has no host:port")),
        }
        for (key, garage_key) in [
            ("CAIRN_S3_ACCESS_KEY_ID", "GARAGE_DEFAULT_ACCESS_KEY"),
            ("CAIRN_S3_SECRET_ACCESS_KEY", "GARAGE_DEFAULT_SECRET_KEY"),
            ("CAIRN_S3_BUCKET", "GARAGE_DEFAULT_BUCKET"),
        ] {
            if env.get(key) != garage_env.get(garage_key) {
                problems.push(format!("{name}: {key} differs from garage's {garage_key}"));
            }
        }
    }

    // Garage sets itself up (`--single-node --default-bucket`) from its environment.
    let garage_command = command(garage);
    for flag in ["server", "--single-node", "--default-bucket"] {
        if !garage_command.iter().any(|w| w == flag) {
            problems.push(format!(
                "garage must run `server --single-node --default-bucket`: {garage_command:?}"
            ));
            break;
        }
    }
    if let Some(config) = garage_toml {
        if config.get("replication_factor").and_then(toml::Value::as_integer) != Some(1) {
            problems.push("deploy/dev/garage.toml: single-node mode needs replication_factor = 1".to_owned());
        }
        let region = config
            .get("s3_api")
            .and_then(|api| api.get("s3_region"))
            .and_then(toml::Value::as_str);
        if region != Some("garage") {
            problems.push(format!(
                "deploy/dev/garage.toml: s3_region is {region:?}; CAIRN_S3_REGION says garage"
            ));
        }
    }

    // Every file mounted from the checkout exists.
    for (name, service) in &services {
        for volume in service["volumes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            let source = volume.split(':').next().unwrap_or("");
            if source.starts_with('.') && !repo_root().join("deploy").join(source).exists() {
                problems.push(format!("{name} mounts {source}, which does not exist"));
            }
        }
    }
    problems
}

fn garage_toml() -> Option<toml::Value> {
    let path = repo_root().join("deploy/dev/garage.toml");
    let text = std::fs::read_to_string(&path).ok()?;
    Some(toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid TOML: {e}", path.display())))
}

#[test]
fn compose_starts_postgres_garage_migration_and_registry_in_order() {
    assert_clean(COMPOSE, compose_problems(&compose(), garage_toml().as_ref()));
}

#[test]
fn the_compose_checks_catch_broken_files() {
    let good = compose();
    let config = garage_toml();
    let broken = |damage: &dyn Fn(&mut Value)| {
        let mut file = good.clone();
        damage(&mut file);
        compose_problems(&file, config.as_ref())
    };
    assert_reports(
        broken(&|f| f["services"]["registry"]["depends_on"]["migrate"]["condition"] = json!("service_started")),
        "registry must wait for migrate",
    );
    assert_reports(
        broken(&|f| f["services"]["postgres"]["healthcheck"] = Value::Null),
        "postgres has no healthcheck",
    );
    assert_reports(
        broken(&|f| f["services"]["registry"]["environment"]["CAIRN_S3_PATH_STYLE"] = json!("true")),
        "CAIRN_S3_PATH_STYLE, which the registry does not read",
    );
    assert_reports(
        broken(&|f| f["services"]["migrate"]["environment"]["CAIRN_S3_SECRET_ACCESS_KEY"] = json!("wrong-secret")),
        "CAIRN_S3_SECRET_ACCESS_KEY differs from garage's",
    );
    assert_reports(
        broken(&|f| f["services"]["postgres"]["environment"]["POSTGRES_PASSWORD"] = json!("other")),
        "does not match the postgres service",
    );
    assert_reports(
        broken(&|f| f["services"]["registry"]["build"]["context"] = json!(".")),
        "repository root as context",
    );
    assert_reports(
        broken(&|f| f["services"]["garage"]["volumes"][0] = json!("./dev/missing.toml:/etc/garage.toml:ro")),
        "does not exist",
    );
    assert_reports(
        broken(&|f| {
            f["services"].as_object_mut().expect("services").remove("migrate");
        }),
        "no `migrate` service",
    );
}

#[test]
fn urls_split_into_host_port_and_credentials() {
    assert_eq!(
        host_port("postgres://u:p@db:5432/x?sslmode=disable"),
        Some(("db".to_owned(), 5432))
    );
    assert_eq!(host_port("http://garage:3900"), Some(("garage".to_owned(), 3900)));
    assert_eq!(
        database_parts("postgres://u:p@db:5432/x?a=b"),
        Some(("u".to_owned(), "p".to_owned(), "x".to_owned()))
    );
    assert_eq!(port_of("[::]:3900"), Some(3900));
}
