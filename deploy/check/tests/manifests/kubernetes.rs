//! What the Kubernetes manifests must guarantee, checked on the output of `kubectl
//! kustomize` for the base and every overlay: enough replicas, probes on the registry's
//! health endpoints, locked-down pods, a graceful shutdown, secrets only referenced,
//! every setting one the registry reads, and objects that point at each other correctly.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use cairn_deploy_check::settings::{is_registry_setting, is_secret};
use cairn_deploy_check::{kustomizations, kustomize, yaml_documents};

use crate::{assert_clean, assert_reports};

/// The registry's port inside the pod (`CAIRN_LISTEN`).
const REGISTRY_PORT: i64 = 7878;
/// Replicas of the base Deployment; production runs more.
const BASE_REPLICAS: i64 = 3;
/// How long the server drains connections after SIGTERM (services/registry http::DRAIN_TIMEOUT).
const DRAIN_SECONDS: i64 = 30;
/// The Secret every secret setting is read from.
const SECRET_NAME: &str = "cairn-registry-secrets";

/// The objects one kustomization renders to.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// `base` or the overlay's directory name.
    pub name: String,
    /// The objects, as JSON.
    pub objects: Vec<Value>,
}

impl Rendered {
    /// The objects of one kind.
    pub fn all(&self, kind: &str) -> Vec<&Value> {
        self.objects.iter().filter(|o| o["kind"] == kind).collect()
    }

    /// The one object of `kind`; panics (naming the overlay) when there is not exactly one.
    pub fn one(&self, kind: &str) -> &Value {
        let all = self.all(kind);
        assert_eq!(
            all.len(),
            1,
            "{}: expected exactly one {kind}, found {}",
            self.name,
            all.len()
        );
        all[0]
    }

    fn one_mut(&mut self, kind: &str) -> &mut Value {
        self.objects
            .iter_mut()
            .find(|o| o["kind"] == kind)
            .unwrap_or_else(|| panic!("no {kind}"))
    }

    fn named(&self, kind: &str, name: &str) -> Option<&Value> {
        self.all(kind).into_iter().find(|o| o["metadata"]["name"] == name)
    }

    /// The pod-creating objects (Deployment, Job).
    fn workloads(&self) -> Vec<&Value> {
        self.objects
            .iter()
            .filter(|o| o.pointer("/spec/template/spec").is_some())
            .collect()
    }
}

/// Renders the base and every overlay; a missing kubectl or a failing render panics with
/// what to do.
pub fn rendered() -> Vec<Rendered> {
    static RENDERED: OnceLock<Vec<Rendered>> = OnceLock::new();
    RENDERED.get_or_init(render_all).clone()
}

fn render_all() -> Vec<Rendered> {
    let dirs = kustomizations().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        dirs.len() >= 3,
        "expected deploy/k8s/base and at least two overlays, found {dirs:?}"
    );
    dirs.into_iter()
        .map(|(name, dir)| {
            let yaml = kustomize(&dir).unwrap_or_else(|e| panic!("{e}"));
            let objects = yaml_documents(&yaml, &format!("kubectl kustomize {}", dir.display()))
                .unwrap_or_else(|e| panic!("{e}"));
            Rendered { name, objects }
        })
        .collect()
}

fn overlay(name: &str) -> Rendered {
    rendered()
        .into_iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no kustomization named {name}"))
}

/// `Kind/name` of an object, for messages.
pub fn describe(object: &Value) -> String {
    format!(
        "{}/{}",
        object["kind"].as_str().unwrap_or("?"),
        object["metadata"]["name"].as_str().unwrap_or("?")
    )
}

fn pod_spec(workload: &Value) -> &Value {
    &workload["spec"]["template"]["spec"]
}

fn containers(workload: &Value) -> Vec<&Value> {
    pod_spec(workload)["containers"]
        .as_array()
        .map(|c| c.iter().collect())
        .unwrap_or_default()
}

fn labels(value: &Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn pod_labels(workload: &Value) -> Map<String, Value> {
    labels(&workload["spec"]["template"]["metadata"]["labels"])
}

/// Whether a non-empty equality selector selects these labels.
fn selects(selector: &Map<String, Value>, labels: &Map<String, Value>) -> bool {
    !selector.is_empty() && selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

fn as_int(value: &Value) -> Option<i64> {
    value.as_i64()
}

/// Whether a probe or Service `port` (a number or a port name) is the container's
/// registry port.
fn is_registry_port(port: &Value, container: &Value) -> bool {
    let ports = container["ports"].as_array().cloned().unwrap_or_default();
    let number = match port {
        Value::String(name) => ports
            .iter()
            .find(|p| p["name"] == name.as_str())
            .and_then(|p| as_int(&p["containerPort"])),
        other => as_int(other),
    };
    number == Some(REGISTRY_PORT) && ports.iter().any(|p| as_int(&p["containerPort"]) == Some(REGISTRY_PORT))
}

/// Where one environment variable of a container comes from.
#[derive(Clone, Debug, PartialEq)]
enum Source {
    Literal(String),
    SecretKey {
        secret: String,
        key: String,
        optional: bool,
    },
    ConfigMap(String),
    Other,
}

/// The environment a container gets: its ConfigMaps (envFrom), then its `env` entries.
/// Problems met on the way (a missing ConfigMap, an envFrom Secret) are pushed.
fn environment(r: &Rendered, container: &Value, problems: &mut Vec<String>) -> BTreeMap<String, Source> {
    let mut env = BTreeMap::new();
    let who = container["name"].as_str().unwrap_or("?");
    for from in container["envFrom"].as_array().into_iter().flatten() {
        if let Some(name) = from["configMapRef"]["name"].as_str() {
            match r.named("ConfigMap", name) {
                Some(map) => {
                    for (key, value) in map["data"].as_object().into_iter().flatten() {
                        env.insert(key.clone(), Source::ConfigMap(value.as_str().unwrap_or("").to_owned()));
                    }
                }
                None => problems.push(format!(
                    "{}: container {who} reads ConfigMap {name}, which is not in the output",
                    r.name
                )),
            }
        }
        if from.get("secretRef").is_some() {
            problems.push(format!(
                "{}: container {who} takes a whole Secret with envFrom: name each variable with secretKeyRef instead",
                r.name
            ));
        }
    }
    for entry in container["env"].as_array().into_iter().flatten() {
        let name = entry["name"].as_str().unwrap_or("").to_owned();
        let source = if let Some(value) = entry.get("value") {
            Source::Literal(value.as_str().unwrap_or("").to_owned())
        } else if let Some(key) = entry.pointer("/valueFrom/secretKeyRef") {
            Source::SecretKey {
                secret: key["name"].as_str().unwrap_or("").to_owned(),
                key: key["key"].as_str().unwrap_or("").to_owned(),
                optional: key["optional"] == true,
            }
        } else {
            Source::Other
        };
        env.insert(name, source);
    }
    env
}

/// The value of a plain (ConfigMap or literal) setting.
fn plain<'a>(env: &'a BTreeMap<String, Source>, name: &str) -> Option<&'a str> {
    match env.get(name) {
        Some(Source::ConfigMap(v)) | Some(Source::Literal(v)) => Some(v),
        _ => None,
    }
}

// ---- the checks ------------------------------------------------------------------------

fn replica_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let deployment = r.one("Deployment");
    let replicas = as_int(&deployment["spec"]["replicas"]).unwrap_or(1);
    let hpa = r.one("HorizontalPodAutoscaler");
    let min = as_int(&hpa["spec"]["minReplicas"]).unwrap_or(1);
    let max = as_int(&hpa["spec"]["maxReplicas"]).unwrap_or(0);
    let pdb = r.one("PodDisruptionBudget");
    match r.name.as_str() {
        "base" if replicas != BASE_REPLICAS => {
            problems.push(format!("base: {replicas} replicas, want {BASE_REPLICAS}"))
        }
        "dev" if !(1..=2).contains(&replicas) => problems.push(format!("dev: {replicas} replicas, want 1 or 2")),
        "production" => {
            if replicas <= BASE_REPLICAS {
                problems.push(format!(
                    "production: {replicas} replicas, want more than the base's {BASE_REPLICAS}"
                ));
            }
            if (min, max) != (3, 12) {
                problems.push(format!("production: HPA scales {min}..{max}, want 3..12"));
            }
            if pdb["spec"]["minAvailable"] != 2 || pdb["spec"].get("maxUnavailable").is_some() {
                problems.push(format!(
                    "production: PDB spec {}, want minAvailable 2 only",
                    pdb["spec"]
                ));
            }
        }
        _ => {}
    }
    if !(min <= replicas && replicas <= max && min >= 1) {
        problems.push(format!(
            "{}: HPA {min}..{max} does not contain the Deployment's {replicas} replicas",
            r.name
        ));
    }
    // A budget that allows no disruption at the smallest size blocks every node drain.
    let allows = match (
        as_int(&pdb["spec"]["minAvailable"]),
        as_int(&pdb["spec"]["maxUnavailable"]),
    ) {
        (Some(keep), None) => keep < min,
        (None, Some(down)) => down >= 1,
        _ => false,
    };
    if !allows {
        problems.push(format!(
            "{}: PDB {} leaves no room for a voluntary disruption at {min} replica(s)",
            r.name, pdb["spec"]
        ));
    }
    problems
}

fn probe_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let deployment = r.one("Deployment");
    let Some(container) = containers(deployment).into_iter().next() else {
        return vec![format!("{}: the Deployment has no container", r.name)];
    };
    for (probe, path) in [
        ("readinessProbe", Some("/readyz")),
        ("livenessProbe", Some("/healthz")),
        ("startupProbe", None),
    ] {
        let get = &container[probe]["httpGet"];
        if get.is_null() {
            problems.push(format!(
                "{}: the registry container has no {probe} with httpGet",
                r.name
            ));
            continue;
        }
        if let Some(path) = path
            && get["path"] != path
        {
            problems.push(format!("{}: {probe} asks {}, want {path}", r.name, get["path"]));
        }
        if !is_registry_port(&get["port"], container) {
            problems.push(format!(
                "{}: {probe} uses port {}, which is not the container's port {REGISTRY_PORT}",
                r.name, get["port"]
            ));
        }
    }
    let mut ignored = Vec::new();
    let env = environment(r, container, &mut ignored);
    if plain(&env, "CAIRN_LISTEN") != Some(&format!("0.0.0.0:{REGISTRY_PORT}")) {
        problems.push(format!(
            "{}: CAIRN_LISTEN is {:?}, want 0.0.0.0:{REGISTRY_PORT} (reachable by probes and the Service)",
            r.name,
            plain(&env, "CAIRN_LISTEN")
        ));
    }
    problems
}

/// CPU in millicores, memory in bytes: enough of the quantity format for requests ≤ limits.
fn quantity(text: &str) -> Option<f64> {
    const SUFFIXES: [(&str, f64); 9] = [
        ("Ki", 1024.0),
        ("Mi", 1048576.0),
        ("Gi", 1073741824.0),
        ("Ti", 1099511627776.0),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
        ("m", 1e-3),
    ];
    for (suffix, factor) in SUFFIXES {
        if let Some(number) = text.strip_suffix(suffix) {
            return number.parse::<f64>().ok().map(|n| n * factor);
        }
    }
    text.parse().ok()
}

fn resource_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    for workload in r.workloads() {
        for container in containers(workload) {
            let who = format!("{}: {} container {}", r.name, describe(workload), container["name"]);
            for resource in ["cpu", "memory"] {
                let request = container["resources"]["requests"][resource].as_str().and_then(quantity);
                let limit = container["resources"]["limits"][resource].as_str().and_then(quantity);
                match (request, limit) {
                    (Some(request), Some(limit)) if request <= limit => {}
                    (Some(_), Some(_)) => problems.push(format!("{who}: {resource} request above its limit")),
                    _ => problems.push(format!("{who}: needs both a {resource} request and a {resource} limit")),
                }
            }
        }
    }
    problems
}

fn security_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    for workload in r.workloads() {
        let pod = pod_spec(workload);
        let who = format!("{}: {}", r.name, describe(workload));
        let pod_security = &pod["securityContext"];
        if pod_security["runAsNonRoot"] != true {
            problems.push(format!("{who}: pod securityContext.runAsNonRoot must be true"));
        }
        if pod_security["runAsUser"] == 0 {
            problems.push(format!("{who}: pod runs as uid 0"));
        }
        if pod["automountServiceAccountToken"] != false {
            problems.push(format!("{who}: mounts a service account token the registry never uses"));
        }
        let empty_dirs: Vec<&str> = pod["volumes"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| v.get("emptyDir").is_some())
            .filter_map(|v| v["name"].as_str())
            .collect();
        for container in containers(workload) {
            let who = format!("{who} container {}", container["name"]);
            let security = &container["securityContext"];
            if security["allowPrivilegeEscalation"] != false {
                problems.push(format!("{who}: allowPrivilegeEscalation must be false"));
            }
            if security["readOnlyRootFilesystem"] != true {
                problems.push(format!("{who}: readOnlyRootFilesystem must be true"));
            }
            if security["privileged"] == true {
                problems.push(format!("{who}: privileged"));
            }
            if !security["capabilities"]["drop"]
                .as_array()
                .is_some_and(|d| d.contains(&json!("ALL")))
            {
                problems.push(format!("{who}: must drop ALL capabilities"));
            }
            let seccomp = security["seccompProfile"]["type"]
                .as_str()
                .or(pod_security["seccompProfile"]["type"].as_str());
            if seccomp != Some("RuntimeDefault") {
                problems.push(format!("{who}: seccompProfile must be RuntimeDefault, is {seccomp:?}"));
            }
            // A read-only root needs writable scratch space where the registry writes.
            let mut ignored = Vec::new();
            let env = environment(r, container, &mut ignored);
            let data_dir = plain(&env, "CAIRN_DATA_DIR").unwrap_or("(unset)").to_owned();
            for path in [data_dir.as_str(), "/tmp"] {
                let mounted = container["volumeMounts"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|m| m["mountPath"] == path && m["name"].as_str().is_some_and(|n| empty_dirs.contains(&n)));
                if !mounted {
                    problems.push(format!(
                        "{who}: {path} must be an emptyDir mount (the root filesystem is read-only)"
                    ));
                }
            }
        }
    }
    problems
}

fn shutdown_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let deployment = r.one("Deployment");
    let grace = as_int(&pod_spec(deployment)["terminationGracePeriodSeconds"]).unwrap_or(30);
    let Some(container) = containers(deployment).into_iter().next() else {
        return vec![format!("{}: the Deployment has no container", r.name)];
    };
    let pre_stop = &container["lifecycle"]["preStop"];
    let sleep = as_int(&pre_stop["sleep"]["seconds"]).or_else(|| {
        let command: Vec<&str> = pre_stop["exec"]["command"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        match command.as_slice() {
            [program, seconds] if program.ends_with("sleep") => seconds.parse().ok(),
            _ => None,
        }
    });
    match sleep {
        Some(seconds) if seconds >= 5 => {
            if grace < seconds + DRAIN_SECONDS {
                problems.push(format!(
                    "{}: terminationGracePeriodSeconds {grace} < preStop {seconds} s + drain {DRAIN_SECONDS} s",
                    r.name
                ));
            }
        }
        _ => problems.push(format!(
            "{}: the registry container needs a preStop sleep (≥ 5 s) so its endpoint leaves the Service before it drains",
            r.name
        )),
    }
    if grace < 40 {
        problems.push(format!("{}: terminationGracePeriodSeconds {grace} < 40", r.name));
    }
    problems
}

fn spread_problems(r: &Rendered) -> Vec<String> {
    let deployment = r.one("Deployment");
    let pod = pod_spec(deployment);
    let pods = pod_labels(deployment);
    let spread = pod["topologySpreadConstraints"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| {
            c["topologyKey"] == "kubernetes.io/hostname" && selects(&labels(&c["labelSelector"]["matchLabels"]), &pods)
        });
    let anti = pod["affinity"]["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| &t["podAffinityTerm"])
        .chain(
            pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                .as_array()
                .into_iter()
                .flatten(),
        )
        .any(|t| {
            t["topologyKey"] == "kubernetes.io/hostname" && selects(&labels(&t["labelSelector"]["matchLabels"]), &pods)
        });
    if spread || anti {
        Vec::new()
    } else {
        vec![format!(
            "{}: replicas are not spread across nodes (no topologySpreadConstraint or podAntiAffinity on \
             kubernetes.io/hostname selecting the pods)",
            r.name
        )]
    }
}

fn secret_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let secrets = r.all("Secret");
    if r.name != "dev" {
        for secret in &secrets {
            problems.push(format!(
                "{}: {} is embedded; only the dev overlay may generate a Secret, others reference one",
                r.name,
                describe(secret)
            ));
        }
    }
    for secret in &secrets {
        // A generated Secret must say it is for development only.
        for (key, value) in secret["data"].as_object().into_iter().flatten() {
            let decoded = decode_base64(value.as_str().unwrap_or(""));
            if !decoded.to_ascii_lowercase().contains("dev") {
                problems.push(format!(
                    "{}: {} key {key} does not say it is a development value",
                    r.name,
                    describe(secret)
                ));
            }
        }
    }
    for map in r.all("ConfigMap") {
        for key in map["data"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if is_secret(key) {
                problems.push(format!("{}: {} holds the secret {key}", r.name, describe(map)));
            }
        }
    }
    for workload in r.workloads() {
        for container in containers(workload) {
            let who = format!("{}: {} container {}", r.name, describe(workload), container["name"]);
            for (name, source) in environment(r, container, &mut problems) {
                match source {
                    Source::SecretKey { secret, key, optional } => {
                        let target = secrets.iter().find(|s| s["metadata"]["name"] == secret.as_str());
                        let resolves = match target {
                            // Generated (dev): the reference was rewritten to it; the key must be there.
                            Some(s) => optional || s["data"].get(&key).is_some(),
                            // Referenced (production): the one documented Secret.
                            None => secret == SECRET_NAME,
                        };
                        if !resolves {
                            problems.push(format!(
                                "{who}: {name} refers to {secret}/{key}, which does not resolve"
                            ));
                        }
                        if key != name {
                            problems.push(format!(
                                "{who}: {name} is read from key {key}; keep key and variable equal"
                            ));
                        }
                    }
                    Source::Literal(_) | Source::ConfigMap(_) if is_secret(&name) => problems.push(format!(
                        "{who}: the secret {name} has a literal value; reference a Secret"
                    )),
                    _ => {}
                }
            }
        }
    }
    problems
}

fn decode_base64(text: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut count = 0;
    let mut out = Vec::new();
    for byte in text.bytes().filter(|b| *b != b'=') {
        let Some(index) = ALPHABET.iter().position(|a| *a == byte) else {
            continue;
        };
        bits = (bits << 6) | index as u32;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn setting_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    for workload in r.workloads() {
        for container in containers(workload) {
            let who = format!("{}: {} container {}", r.name, describe(workload), container["name"]);
            let env = environment(r, container, &mut problems);
            for name in env.keys() {
                if !is_registry_setting(name) {
                    problems.push(format!("{who}: sets {name}, which the registry does not read"));
                }
            }
            let want = |name: &str, expected: &str, problems: &mut Vec<String>| {
                if plain(&env, name) != Some(expected) {
                    problems.push(format!("{who}: {name} is {:?}, want {expected:?}", plain(&env, name)));
                }
            };
            want("CAIRN_TRUSTED_PROXY_HOPS", "1", &mut problems);
            want("CAIRN_BLOB_STORE", "s3", &mut problems);
            want("CAIRN_LOG_FORMAT", "json", &mut problems);
            if plain(&env, "CAIRN_S3_BUCKET").is_none_or(str::is_empty) {
                problems.push(format!("{who}: CAIRN_S3_BUCKET is not set"));
            }
            for secret in [
                "CAIRN_DATABASE_URL",
                "CAIRN_JWT_SECRET",
                "CAIRN_S3_ACCESS_KEY_ID",
                "CAIRN_S3_SECRET_ACCESS_KEY",
            ] {
                if !matches!(env.get(secret), Some(Source::SecretKey { optional: false, .. })) {
                    problems.push(format!("{who}: {secret} must come from a (required) secretKeyRef"));
                }
            }
            match r.name.as_str() {
                "production" => {
                    want("CAIRN_S3_FORCE_PATH_STYLE", "false", &mut problems);
                    want("CAIRN_COOKIE_SECURE", "always", &mut problems);
                    if !plain(&env, "CAIRN_S3_ENDPOINT").is_some_and(|e| e.starts_with("https://")) {
                        problems.push(format!("{who}: CAIRN_S3_ENDPOINT must be an https:// endpoint"));
                    }
                    if plain(&env, "CAIRN_DATABASE_MAX_CONNECTIONS")
                        .and_then(|n| n.parse::<u32>().ok())
                        .is_none()
                    {
                        problems.push(format!("{who}: CAIRN_DATABASE_MAX_CONNECTIONS must be set to a number"));
                    }
                }
                "dev" => {
                    want("CAIRN_S3_FORCE_PATH_STYLE", "true", &mut problems);
                    if !plain(&env, "CAIRN_S3_ENDPOINT").is_some_and(|e| e.contains(".svc.cluster.local")) {
                        problems.push(format!("{who}: CAIRN_S3_ENDPOINT should be an in-cluster Service"));
                    }
                }
                _ => {}
            }
        }
    }
    problems
}

fn wiring_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let deployment = r.one("Deployment");
    let deployment_name = deployment["metadata"]["name"].as_str().unwrap_or("");
    let pods = pod_labels(deployment);
    let container = containers(deployment)
        .into_iter()
        .next()
        .cloned()
        .unwrap_or(Value::Null);
    let job_pods: Vec<Map<String, Value>> = r.all("Job").into_iter().map(pod_labels).collect();

    if !selects(&labels(&deployment["spec"]["selector"]["matchLabels"]), &pods) {
        problems.push(format!(
            "{}: the Deployment's selector does not select its own pods",
            r.name
        ));
    }
    let account = pod_spec(deployment)["serviceAccountName"].as_str().unwrap_or("default");
    if r.named("ServiceAccount", account).is_none() {
        problems.push(format!("{}: ServiceAccount {account} is not in the output", r.name));
    }
    let service = r.one("Service");
    let selector = labels(&service["spec"]["selector"]);
    if !selects(&selector, &pods) {
        problems.push(format!(
            "{}: the Service selector {selector:?} does not select the registry pods",
            r.name
        ));
    }
    if job_pods.iter().any(|job| selects(&selector, job)) {
        problems.push(format!(
            "{}: the Service selector also selects the migration Job's pods",
            r.name
        ));
    }
    for port in service["spec"]["ports"].as_array().into_iter().flatten() {
        if !is_registry_port(&port["targetPort"], &container) {
            problems.push(format!(
                "{}: Service port {} targets {}, not the registry port",
                r.name, port["name"], port["targetPort"]
            ));
        }
    }
    for ingress in r.all("Ingress") {
        for path in ingress["spec"]["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|rule| rule["http"]["paths"].as_array().into_iter().flatten())
        {
            let backend = &path["backend"]["service"];
            let found = r
                .named("Service", backend["name"].as_str().unwrap_or(""))
                .is_some_and(|s| {
                    s["spec"]["ports"].as_array().into_iter().flatten().any(|p| {
                        (backend["port"]["name"].is_string() && p["name"] == backend["port"]["name"])
                            || (backend["port"]["number"].is_number() && p["port"] == backend["port"]["number"])
                    })
                });
            if !found {
                problems.push(format!(
                    "{}: {} sends {} to {backend}, which is no Service port",
                    r.name,
                    describe(ingress),
                    path["path"]
                ));
            }
        }
    }
    let hpa = r.one("HorizontalPodAutoscaler");
    let target = &hpa["spec"]["scaleTargetRef"];
    if target["apiVersion"] != "apps/v1" || target["kind"] != "Deployment" || target["name"] != deployment_name {
        problems.push(format!(
            "{}: the HPA scales {target}, not Deployment {deployment_name}",
            r.name
        ));
    }
    let pdb = r.one("PodDisruptionBudget");
    if !selects(&labels(&pdb["spec"]["selector"]["matchLabels"]), &pods) {
        problems.push(format!("{}: the PDB does not select the registry pods", r.name));
    }
    for policy in r.all("NetworkPolicy") {
        if !selects(&labels(&policy["spec"]["podSelector"]["matchLabels"]), &pods) {
            problems.push(format!(
                "{}: {} does not select the registry pods",
                r.name,
                describe(policy)
            ));
        }
        let open = policy["spec"]["ingress"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|rule| rule["ports"].as_array().into_iter().flatten())
            .any(|p| is_registry_port(&p["port"], &container));
        if !open {
            problems.push(format!(
                "{}: {} does not let traffic reach port {REGISTRY_PORT}",
                r.name,
                describe(policy)
            ));
        }
    }
    let image = container["image"].as_str().unwrap_or("");
    let tagged = image.contains('@') || image.rsplit('/').next().is_some_and(|last| last.contains(':'));
    if !tagged || image.ends_with(":latest") {
        problems.push(format!(
            "{}: image {image:?} must be pinned to a tag or digest (not latest)",
            r.name
        ));
    }
    problems
}

fn migration_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let jobs = r.all("Job");
    let [job] = jobs.as_slice() else {
        return vec![format!("{}: expected one migration Job, found {}", r.name, jobs.len())];
    };
    let deployment = r.one("Deployment");
    let server = containers(deployment)
        .into_iter()
        .next()
        .cloned()
        .unwrap_or(Value::Null);
    let Some(container) = containers(job).into_iter().next() else {
        return vec![format!("{}: the Job has no container", r.name)];
    };
    let words: Vec<&str> = ["command", "args"]
        .iter()
        .flat_map(|field| container[*field].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    if !words.contains(&"migrate") || words.contains(&"serve") {
        problems.push(format!(
            "{}: the Job runs {words:?}, want `cairn-registry migrate`",
            r.name
        ));
    }
    if container["image"] != server["image"] {
        problems.push(format!(
            "{}: the Job runs image {}, the Deployment {}: they must migrate to the schema the server expects",
            r.name, container["image"], server["image"]
        ));
    }
    let restart = &pod_spec(job)["restartPolicy"];
    if restart != "Never" && restart != "OnFailure" {
        problems.push(format!("{}: the Job's restartPolicy is {restart}", r.name));
    }
    if job["spec"]["backoffLimit"].is_null() {
        problems.push(format!("{}: the Job needs a backoffLimit", r.name));
    }
    if !job["metadata"]["annotations"]
        .as_object()
        .is_some_and(|a| a.keys().any(|k| k.ends_with("apply-order")))
    {
        problems.push(format!(
            "{}: the Job should carry an apply-order annotation saying it runs first",
            r.name
        ));
    }
    // The Job bootstraps an empty database: it must sign the first admin token with the
    // server's key and see the same settings.
    let mut ignored = Vec::new();
    let job_env = environment(r, container, &mut ignored);
    let server_env = environment(r, &server, &mut ignored);
    for (name, source) in &server_env {
        if job_env.get(name) != Some(source) {
            problems.push(format!("{}: the Job's {name} differs from the server's", r.name));
        }
    }
    problems
}

/// deploy/README.md applies an overlay in two steps by label: first
/// `app.kubernetes.io/component in (config,migrate)` (what the migration Job needs, and the
/// Job), then everything. That only works if every object carries the label, the Job's
/// dependencies are in the first step and the serving objects are not.
fn apply_order_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    let component = |o: &Value| {
        o["metadata"]["labels"]["app.kubernetes.io/component"]
            .as_str()
            .map(str::to_owned)
    };
    let first_step = |o: &Value| matches!(component(o).as_deref(), Some("config" | "migrate"));
    for object in &r.objects {
        let Some(label) = component(object) else {
            problems.push(format!(
                "{}: {} has no app.kubernetes.io/component label",
                r.name,
                describe(object)
            ));
            continue;
        };
        let needed_by_job = matches!(
            object["kind"].as_str(),
            Some("ConfigMap" | "Secret" | "ServiceAccount" | "Job")
        );
        if needed_by_job != first_step(object) {
            problems.push(format!(
                "{}: {} is labelled component={label}, but {}",
                r.name,
                describe(object),
                if needed_by_job {
                    "the migration step (config, migrate) needs it"
                } else {
                    "only the Job and what it reads belong to the migration step"
                }
            ));
        }
    }
    problems
}

fn ingress_problems(r: &Rendered) -> Vec<String> {
    let mut problems = Vec::new();
    for ingress in r.all("Ingress") {
        let hosts: Vec<&str> = ingress["spec"]["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|rule| rule["host"].as_str())
            .collect();
        if hosts.is_empty() {
            problems.push(format!("{}: {} has no host", r.name, describe(ingress)));
        }
        if r.name == "production" {
            let covered: Vec<&str> = ingress["spec"]["tls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| t["secretName"].is_string())
                .flat_map(|t| t["hosts"].as_array().into_iter().flatten().filter_map(Value::as_str))
                .collect();
            for host in &hosts {
                if !covered.contains(host) {
                    problems.push(format!("production: {} serves {host} without TLS", describe(ingress)));
                }
            }
        }
    }
    problems
}

// ---- the tests -------------------------------------------------------------------------

type Check = fn(&Rendered) -> Vec<String>;

const CHECKS: [(&str, Check); 12] = [
    ("apply order", apply_order_problems),
    ("replicas", replica_problems),
    ("probes", probe_problems),
    ("resources", resource_problems),
    ("security", security_problems),
    ("shutdown", shutdown_problems),
    ("spread", spread_problems),
    ("secrets", secret_problems),
    ("settings", setting_problems),
    ("wiring", wiring_problems),
    ("migration", migration_problems),
    ("ingress", ingress_problems),
];

#[test]
fn base_and_overlays_render_with_the_expected_objects() {
    let all = rendered();
    let names: Vec<&str> = all.iter().map(|r| r.name.as_str()).collect();
    for expected in ["base", "dev", "production"] {
        assert!(names.contains(&expected), "missing kustomization {expected}: {names:?}");
    }
    for r in &all {
        for kind in [
            "Deployment",
            "Service",
            "Ingress",
            "HorizontalPodAutoscaler",
            "PodDisruptionBudget",
            "Job",
            "ConfigMap",
            "ServiceAccount",
        ] {
            assert!(!r.all(kind).is_empty(), "{}: no {kind}", r.name);
        }
    }
}

#[test]
fn every_kustomization_passes_every_check() {
    let all = rendered();
    let mut problems = Vec::new();
    for r in &all {
        for (check, run) in CHECKS {
            problems.extend(run(r).into_iter().map(|p| format!("[{check}] {p}")));
        }
    }
    assert_clean("deploy/k8s", problems);
}

/// Breaks a copy of a rendered overlay and expects `check` to name the damage.
#[track_caller]
fn broken(name: &str, check: Check, needle: &str, damage: impl FnOnce(&mut Rendered)) {
    let mut r = overlay(name);
    assert_clean(&format!("{name} before the damage"), check(&r));
    damage(&mut r);
    assert_reports(check(&r), needle);
}

fn registry_container(r: &mut Rendered) -> &mut Value {
    &mut r.one_mut("Deployment")["spec"]["template"]["spec"]["containers"][0]
}

#[test]
fn the_checks_catch_broken_manifests() {
    broken("production", replica_problems, "want more than the base", |r| {
        r.one_mut("Deployment")["spec"]["replicas"] = json!(3);
    });
    broken("dev", replica_problems, "leaves no room", |r| {
        r.one_mut("PodDisruptionBudget")["spec"] = json!({"minAvailable": 1, "selector": {}});
    });
    broken("base", probe_problems, "want /readyz", |r| {
        registry_container(r)["readinessProbe"]["httpGet"]["path"] = json!("/healthz");
    });
    broken("base", probe_problems, "not the container's port", |r| {
        registry_container(r)["livenessProbe"]["httpGet"]["port"] = json!(8080);
    });
    broken("base", resource_problems, "memory limit", |r| {
        registry_container(r)["resources"]["limits"] = json!({"cpu": "1"});
    });
    broken("base", security_problems, "readOnlyRootFilesystem", |r| {
        registry_container(r)["securityContext"]["readOnlyRootFilesystem"] = json!(false);
    });
    broken("base", security_problems, "/var/lib/cairn must be an emptyDir", |r| {
        registry_container(r)["volumeMounts"] = json!([{"name": "tmp", "mountPath": "/tmp"}]);
    });
    broken("base", shutdown_problems, "< preStop", |r| {
        r.one_mut("Deployment")["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] = json!(30);
    });
    broken("base", shutdown_problems, "needs a preStop sleep", |r| {
        registry_container(r)["lifecycle"] = json!({});
    });
    broken("base", spread_problems, "not spread", |r| {
        let pod = &mut r.one_mut("Deployment")["spec"]["template"]["spec"];
        pod["topologySpreadConstraints"] = json!([]);
        pod["affinity"] = json!({});
    });
    broken("production", secret_problems, "has a literal value", |r| {
        registry_container(r)["env"][1] = json!({"name": "CAIRN_JWT_SECRET", "value": "hunter2-hunter2"});
    });
    broken("production", secret_problems, "is embedded", |r| {
        r.objects
            .push(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": SECRET_NAME}}));
    });
    broken("dev", secret_problems, "does not say", |r| {
        r.one_mut("Secret")["data"]["CAIRN_JWT_SECRET"] = json!("cmVhbC1sb29raW5nLXNlY3JldA==");
    });
    broken(
        "production",
        setting_problems,
        "CAIRN_S3_PATH_STYLE, which the registry does not read",
        |r| {
            let env = registry_container(r)["env"].as_array_mut().expect("env");
            env.push(json!({"name": "CAIRN_S3_PATH_STYLE", "value": "false"}));
        },
    );
    broken("production", setting_problems, "CAIRN_S3_FORCE_PATH_STYLE", |r| {
        r.one_mut("ConfigMap")["data"]["CAIRN_S3_FORCE_PATH_STYLE"] = json!("true");
    });
    broken("base", wiring_problems, "also selects the migration Job", |r| {
        r.one_mut("Service")["spec"]["selector"] = json!({"app.kubernetes.io/name": "cairn-registry"});
    });
    broken("base", wiring_problems, "the HPA scales", |r| {
        r.one_mut("HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]["name"] = json!("cairn");
    });
    broken("base", wiring_problems, "the PDB does not select", |r| {
        r.one_mut("PodDisruptionBudget")["spec"]["selector"]["matchLabels"] = json!({"app": "cairn"});
    });
    broken("base", migration_problems, "want `cairn-registry migrate`", |r| {
        r.one_mut("Job")["spec"]["template"]["spec"]["containers"][0]["args"] = json!(["serve"]);
    });
    broken("base", migration_problems, "the Job's CAIRN_JWT_SECRET differs", |r| {
        let job = &mut r.one_mut("Job")["spec"]["template"]["spec"]["containers"][0];
        let env = job["env"].as_array_mut().expect("env");
        env.retain(|e| e["name"] != "CAIRN_JWT_SECRET");
    });
    broken(
        "dev",
        apply_order_problems,
        "the migration step (config, migrate) needs it",
        |r| {
            r.one_mut("Secret")["metadata"]["labels"]["app.kubernetes.io/component"] = json!("server");
        },
    );
    broken(
        "base",
        apply_order_problems,
        "has no app.kubernetes.io/component",
        |r| {
            r.one_mut("Deployment")["metadata"]["labels"] = json!({});
        },
    );
    broken("production", ingress_problems, "without TLS", |r| {
        r.one_mut("Ingress")["spec"]["tls"] = json!([]);
    });
}

#[test]
fn quantities_and_base64_read_as_kubernetes_writes_them() {
    assert_eq!(quantity("250m"), Some(0.25));
    assert_eq!(quantity("2"), Some(2.0));
    assert_eq!(quantity("1Gi"), Some(1073741824.0));
    assert!(quantity("512Mi") < quantity("1Gi"));
    assert_eq!(decode_base64("ZGV2LW9ubHk="), "dev-only");
}
