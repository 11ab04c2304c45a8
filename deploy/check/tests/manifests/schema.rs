//! Strict schema check: every rendered object is read into its k8s-openapi type (chosen by
//! `apiVersion` and `kind`) and written back; whatever the round trip drops or changes is
//! a field the API server would reject or ignore (a misspelling, a field at the wrong
//! level, a wrong type). Kinds not listed here are refused: a new kind in the manifests
//! must be added on purpose.

use k8s_openapi::Resource;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::{Ingress, NetworkPolicy};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use cairn_deploy_check::json::differences;

use super::kubernetes::{describe, rendered};
use crate::{assert_clean, assert_reports};

fn round_trip<T: DeserializeOwned + Serialize>(object: &Value) -> Result<Vec<String>, String> {
    let typed: T = serde_json::from_value(object.clone()).map_err(|e| e.to_string())?;
    let back = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    Ok(differences(object, &back))
}

macro_rules! known_kinds {
    ($($ty:ty),+ $(,)?) => {
        /// The problems of one object against its API type; empty when it is exact.
        pub fn schema_problems(object: &Value) -> Vec<String> {
            let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or("");
            let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
            let name = describe(object);
            let object = &api_server_reading(object);
            $(
                if api_version == <$ty as Resource>::API_VERSION && kind == <$ty as Resource>::KIND {
                    return match round_trip::<$ty>(object) {
                        Ok(found) => found
                            .into_iter()
                            .map(|d| format!("{name}: {d} (not a field of {api_version} {kind}, or a wrong value)"))
                            .collect(),
                        Err(e) => vec![format!("{name}: does not read as {api_version} {kind}: {e}")],
                    };
                }
            )+
            let known = [$(format!("{} {}", <$ty as Resource>::API_VERSION, <$ty as Resource>::KIND)),+];
            vec![format!(
                "{name}: apiVersion {api_version:?} kind {kind:?} is not a kind these manifests use (known: {})",
                known.join(", ")
            )]
        }
    };
}

/// The object as the API server reads it: kustomize wraps long base64 values of a
/// Secret's `data` over several lines, which the server's decoder skips (k8s-openapi's
/// does not).
fn api_server_reading(object: &Value) -> Value {
    let mut object = object.clone();
    if object["kind"] == "Secret"
        && let Some(data) = object.get_mut("data").and_then(Value::as_object_mut)
    {
        for value in data.values_mut() {
            if let Some(text) = value.as_str() {
                *value = Value::String(text.split_whitespace().collect());
            }
        }
    }
    object
}

known_kinds!(
    ConfigMap,
    Deployment,
    HorizontalPodAutoscaler,
    Ingress,
    Job,
    Namespace,
    NetworkPolicy,
    PodDisruptionBudget,
    Secret,
    Service,
    ServiceAccount,
);

#[test]
fn every_rendered_object_matches_its_kubernetes_api_type_exactly() {
    for overlay in rendered() {
        assert!(!overlay.objects.is_empty(), "{} rendered no objects", overlay.name);
        let problems = overlay.objects.iter().flat_map(schema_problems).collect();
        assert_clean(&format!("{} (schema)", overlay.name), problems);
    }
}

#[test]
fn the_schema_check_refuses_misspelt_fields_wrong_types_and_unknown_kinds() {
    let base = rendered()
        .into_iter()
        .find(|r| r.name == "base")
        .expect("base is rendered");
    let deployment = base.one("Deployment").clone();

    let mut misspelt = deployment.clone();
    misspelt["spec"]["replica"] = misspelt["spec"]["replicas"].take();
    assert_reports(schema_problems(&misspelt), "spec.replica: dropped");

    let mut wrong_level = deployment.clone();
    wrong_level["spec"]["template"]["spec"]["containers"][0]["livenessprobe"] = serde_json::json!({});
    assert_reports(
        schema_problems(&wrong_level),
        "spec.template.spec.containers[0].livenessprobe: dropped",
    );

    let mut wrong_type = deployment.clone();
    wrong_type["spec"]["replicas"] = serde_json::json!("three");
    assert_reports(schema_problems(&wrong_type), "does not read as apps/v1 Deployment");

    let mut old_api = deployment;
    old_api["apiVersion"] = serde_json::json!("extensions/v1beta1");
    assert_reports(schema_problems(&old_api), "is not a kind these manifests use");

    let hpa_v1 = serde_json::json!({
        "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "x"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "x"}, "maxReplicas": 3,
                 "targetCPUUtilizationPercentage": 70}
    });
    assert_reports(schema_problems(&hpa_v1), "spec.targetCPUUtilizationPercentage: dropped");
}
