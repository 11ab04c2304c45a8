//! The OpenAPI 3.1 document of the REST API (`GET /openapi.json`), generated from the
//! route table and the wire types: each [`Endpoint`](super::Endpoint) carries an
//! [`Operation`] beside its rule and handler, so a route cannot exist without its entry,
//! and every schema comes from the type the handler really sends (`cairn-wire`'s JSON
//! Schema derives), never from a hand-written copy.

use std::sync::LazyLock;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Map, Value, json};

use crate::access::Access;
use crate::auth::scopes::Scope;

/// Produces the schema of one type with the generator the document is built with (a
/// `$ref` into `components/schemas` for named types).
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

/// What the document says about one REST route: what it takes and what it answers.
/// Errors need no listing: every operation answers `4XX` and `503` with the one error
/// body ([`cairn_wire::ErrorBody`]).
pub struct Operation {
    summary: &'static str,
    query: Option<SchemaFn>,
    body: Option<RequestBody>,
    answers: Vec<Answer>,
}

struct RequestBody {
    content: Content,
    required: bool,
}

struct Answer {
    status: u16,
    description: &'static str,
    content: Content,
    etag: bool,
    links: Vec<Link>,
}

/// An OpenAPI link: a value of this answer that another operation takes as a path
/// parameter (a client, or the fuzzer's stateful phase, follows it).
struct Link {
    method: axum::http::Method,
    path: &'static str,
    parameter: &'static str,
    expression: &'static str,
}

/// A body's media type and shape.
#[derive(Clone, Copy)]
enum Content {
    Json(SchemaFn),
    Bytes(&'static str),
    /// Bytes sent as any of these media types (the handler reads the body as is).
    AnyBytes(&'static [&'static str]),
    EventStream,
    Empty,
}

/// The schema of `T`, for [`SchemaFn`] slots.
fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// The inline object schema of `T` (for query strings, whose properties become
/// parameters).
fn object_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    T::json_schema(generator)
}

impl Operation {
    fn answering(summary: &'static str, status: u16, description: &'static str, content: Content) -> Self {
        Operation {
            summary,
            query: None,
            body: None,
            answers: vec![Answer {
                status,
                description,
                content,
                etag: false,
                links: Vec::new(),
            }],
        }
    }

    /// An operation answering `200` with `T` as JSON.
    pub fn json<T: JsonSchema>(summary: &'static str) -> Self {
        Self::answering(summary, 200, "OK", Content::Json(schema_of::<T>))
    }

    /// An operation answering `201` with `T` as JSON (it made something).
    pub fn created<T: JsonSchema>(summary: &'static str) -> Self {
        Self::answering(summary, 201, "Created", Content::Json(schema_of::<T>))
    }

    /// An operation answering `200` with bytes of this media type.
    pub fn bytes(summary: &'static str, media_type: &'static str) -> Self {
        Self::answering(summary, 200, "OK", Content::Bytes(media_type))
    }

    /// An operation answering `200` with a server-sent event stream.
    pub fn events(summary: &'static str) -> Self {
        Self::answering(summary, 200, "The event stream", Content::EventStream)
    }

    /// An operation answering `204` with no body.
    pub fn no_content(summary: &'static str) -> Self {
        Self::answering(summary, 204, "Done", Content::Empty)
    }

    /// Also answers `200` with the same body (for a `201` that may find nothing to make).
    pub fn or_unchanged(mut self) -> Self {
        let content = self.answers[0].content;
        self.answers.push(Answer {
            status: 200,
            description: "Nothing new: the existing one",
            content,
            etag: false,
            links: Vec::new(),
        });
        self
    }

    /// The answer carries an `ETag`; `If-None-Match` with it gets `304` and no body.
    pub fn conditional(mut self) -> Self {
        self.answers[0].etag = true;
        self.answers.push(Answer {
            status: 304,
            description: "Not modified: the ETag sent in If-None-Match is current",
            content: Content::Empty,
            etag: true,
            links: Vec::new(),
        });
        self
    }

    /// The success answer's `expression` (`$response.body#/id`) is `parameter` of each
    /// of these routes.
    pub fn links(
        mut self,
        parameter: &'static str,
        expression: &'static str,
        targets: &[(axum::http::Method, &'static str)],
    ) -> Self {
        for (method, path) in targets {
            self.answers[0].links.push(Link {
                method: method.clone(),
                path,
                parameter,
                expression,
            });
        }
        self
    }

    /// Takes its query string as `Q`'s fields.
    pub fn query<Q: JsonSchema>(mut self) -> Self {
        self.query = Some(object_of::<Q>);
        self
    }

    /// Takes `B` as a JSON body.
    pub fn body<B: JsonSchema>(mut self) -> Self {
        self.body = Some(RequestBody {
            content: Content::Json(schema_of::<B>),
            required: true,
        });
        self
    }

    /// Takes `B` as a JSON body, or no body at all.
    pub fn optional_body<B: JsonSchema>(mut self) -> Self {
        self.body = Some(RequestBody {
            content: Content::Json(schema_of::<B>),
            required: false,
        });
        self
    }

    /// Takes bytes as its body, sent as any of these media types.
    pub fn bytes_body(mut self, media_types: &'static [&'static str]) -> Self {
        self.body = Some(RequestBody {
            content: Content::AnyBytes(media_types),
            required: true,
        });
        self
    }
}

/// The document, built once from the route table.
pub static DOCUMENT: LazyLock<String> = LazyLock::new(|| {
    let endpoints = super::endpoints();
    let operations: Vec<_> = endpoints
        .iter()
        .map(|e| (&e.rule.method, e.rule.path, &e.rule.access, &e.doc))
        .collect();
    serde_json::to_string(&document(&operations)).expect("a JSON value always serializes")
});

/// Builds the document for these routes (method, path, access, operation).
pub fn document(routes: &[(&axum::http::Method, &str, &Access, &Operation)]) -> Value {
    // Answers are described as the registry writes them (a field it always writes is
    // required); request bodies as it reads them (a field with a default may be left out),
    // inlined so the two readings never share a component.
    let mut answers = SchemaSettings::draft2020_12()
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .for_serialize()
        .into_generator();
    let mut requests = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .for_deserialize()
        .into_generator();
    let error = schema_of::<cairn_wire::ErrorBody>(&mut answers);

    let mut paths = Map::new();
    for (method, path, access, operation) in routes {
        let mut entry = Map::new();
        entry.insert("summary".into(), operation.summary.into());
        entry.insert("operationId".into(), operation_id(method, path).into());
        entry.insert("tags".into(), json!([tag(path)]));
        let mut parameters: Vec<Value> = path_parameters(path);
        if let Some(query) = operation.query {
            parameters.extend(query_parameters(&query(&mut requests)));
        }
        if !parameters.is_empty() {
            entry.insert("parameters".into(), parameters.into());
        }
        if let Some(body) = &operation.body {
            entry.insert(
                "requestBody".into(),
                json!({"required": body.required, "content": content(body.content, &mut requests)}),
            );
        }
        let mut responses = Map::new();
        for answer in &operation.answers {
            let mut response = json!({"description": answer.description});
            if !matches!(answer.content, Content::Empty) {
                response["content"] = content(answer.content, &mut answers);
            }
            if !answer.links.is_empty() {
                let links: Map<String, Value> = answer
                    .links
                    .iter()
                    .map(|link| {
                        let target = operation_id(&link.method, link.path);
                        let name = format!("{target}_{}", link.parameter);
                        (
                            name,
                            json!({"operationId": target, "parameters": {link.parameter: link.expression}}),
                        )
                    })
                    .collect();
                response["links"] = links.into();
            }
            if answer.etag {
                response["headers"] = json!({"ETag": {"description": "The answer's entity tag, for If-None-Match", "schema": {"type": "string"}}});
            }
            responses.insert(answer.status.to_string(), response);
        }
        let error_answer = |description: &str| json!({"description": description, "content": {"application/json": {"schema": error.clone()}}});
        responses.insert(
            "4XX".into(),
            error_answer("The request was refused: `error.code` says why, `error.message` what to do next"),
        );
        responses.insert(
            "503".into(),
            error_answer("A dependency is unavailable or the registry is shutting down: retry"),
        );
        entry.insert("responses".into(), responses.into());
        match access {
            Access::Public | Access::OpenPage => {
                entry.insert("security".into(), json!([]));
            }
            Access::Scope(scope) | Access::Session(scope) => {
                entry.insert("x-cairn-scope".into(), scope_name(*scope).into());
            }
            Access::Discovery => {}
        }
        paths
            .entry(openapi_path(path))
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .expect("paths hold objects")
            .insert(method.as_str().to_ascii_lowercase(), entry.into());
    }

    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Cairn registry",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The v1 REST API of a Cairn skill registry (docs/API.md). Every call but the public ones takes `Authorization: Bearer <token>`; `x-cairn-scope` names the scope each operation needs.",
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": answers.take_definitions(true),
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "An API token (`cairn-registry token issue`, `POST /v1/tokens`)"}
            }
        }
    })
}

fn content(content: Content, generator: &mut SchemaGenerator) -> Value {
    match content {
        Content::Json(schema) => json!({"application/json": {"schema": schema(generator)}}),
        Content::Bytes(media_type) => json!({media_type: {"schema": {}}}),
        Content::AnyBytes(media_types) => media_types
            .iter()
            .map(|m| (m.to_string(), json!({"schema": {}})))
            .collect(),
        Content::EventStream => json!({"text/event-stream": {"schema": {"type": "string"}}}),
        Content::Empty => json!({}),
    }
}

/// `{*path}` (axum's catch-all) is `{path}` in OpenAPI.
fn openapi_path(path: &str) -> String {
    path.replace("{*", "{")
}

fn path_parameters(path: &str) -> Vec<Value> {
    path.split('/')
        .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| {
            let (name, description, schema) = path_parameter(path, name);
            json!({"name": name, "in": "path", "required": true, "description": description, "schema": schema})
        })
        .collect()
}

/// A path parameter's name, description and schema: the rules the handlers parse by,
/// so that a generated value that fits the schema reaches the use case.
fn path_parameter<'a>(path: &str, name: &'a str) -> (&'a str, &'static str, Value) {
    let uuid = json!({"type": "string", "format": "uuid"});
    match name {
        "*path" => (
            "path",
            "A path inside the bundle (may contain `/`)",
            json!({"type": "string", "minLength": 1}),
        ),
        "*category" => (
            "category",
            "A category path: `/`-separated segments of lowercase letters, digits, `.`, `_` and `-`",
            json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9._/-]*$", "maxLength": 255}),
        ),
        "name" => (
            name,
            "The skill's name",
            json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]*$", "maxLength": cairn_skill::name::MAX_SKILL_NAME_LEN}),
        ),
        "rev" => (
            name,
            "A revision number, or `latest`",
            json!({"type": "string", "pattern": "^(latest|[1-9][0-9]{0,8})$"}),
        ),
        "sha256" => (
            name,
            "The content's SHA-256, in lowercase hex",
            json!({"type": "string", "pattern": "^[0-9a-f]{64}$"}),
        ),
        "index" => (
            name,
            "A log entry's index, from 0",
            json!({"type": "string", "pattern": "^(0|[1-9][0-9]{0,18})$"}),
        ),
        "handle" => (
            name,
            "The member's handle",
            json!({"type": "string", "pattern": "^[a-z0-9][a-z0-9._-]{0,63}$"}),
        ),
        "id" if path.contains("/dismissals/") => (
            name,
            "The dismissal's id",
            json!({"type": "string", "pattern": "^[1-9][0-9]{0,17}$"}),
        ),
        "id" if path.starts_with("/v1/patches/") => (name, "The patch's id", uuid),
        "id" if path.starts_with("/v1/tokens/") => (name, "The token's id", uuid),
        "id" if path.starts_with("/v1/webhooks/") => (name, "The webhook's id", uuid),
        "id" if path.starts_with("/v1/admin/quarantine/") => (name, "The quarantined skill's id", uuid),
        _ => (name, "", json!({"type": "string"})),
    }
}

/// Every property of a query struct's schema becomes an optional (or required) query
/// parameter.
fn query_parameters(schema: &Schema) -> Vec<Value> {
    let object = schema.as_object();
    let required: Vec<&str> = object
        .and_then(|o| o.get("required"))
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = object.and_then(|o| o.get("properties")).and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, property)| {
            let mut property = property.clone();
            let description = property.as_object_mut().and_then(|p| p.remove("description"));
            // An absent parameter is the `None`; a query string has no null.
            if let Some(types) = property.get_mut("type").and_then(Value::as_array_mut) {
                types.retain(|t| t != "null");
                if let [only] = types.as_slice() {
                    property["type"] = only.clone();
                }
            }
            let mut parameter = json!({
                "name": name,
                "in": "query",
                "required": required.contains(&name.as_str()),
                "schema": property,
            });
            if let Some(description) = description {
                parameter["description"] = description;
            }
            parameter
        })
        .collect()
}

fn operation_id(method: &axum::http::Method, path: &str) -> String {
    let mut id = method.as_str().to_ascii_lowercase();
    for segment in path.trim_start_matches("/v1").split('/').filter(|s| !s.is_empty()) {
        let word = segment
            .trim_start_matches('{')
            .trim_start_matches('*')
            .trim_end_matches('}');
        let by = segment.starts_with('{');
        id.push('_');
        if by {
            id.push_str("by_");
        }
        id.push_str(&word.replace(['-', '.'], "_"));
    }
    id
}

fn tag(path: &str) -> &str {
    path.trim_start_matches("/v1")
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("api")
}

fn scope_name(scope: Scope) -> &'static str {
    scope.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built() -> Value {
        serde_json::from_str(&DOCUMENT).expect("the document is JSON")
    }

    fn refs<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    match (key.as_str(), inner) {
                        ("$ref", Value::String(target)) => out.push(target),
                        _ => refs(inner, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|inner| refs(inner, out)),
            _ => {}
        }
    }

    #[test]
    fn every_endpoint_is_an_operation_with_an_answer_and_a_unique_id() {
        let document = built();
        assert_eq!(document["openapi"], "3.1.0");
        let mut ids = std::collections::BTreeSet::new();
        for endpoint in super::super::endpoints() {
            let path = openapi_path(endpoint.rule.path);
            let method = endpoint.rule.method.as_str().to_ascii_lowercase();
            let operation = &document["paths"][&path][&method];
            assert!(operation.is_object(), "{method} {path} is missing from the document");
            let responses = operation["responses"].as_object().expect("responses");
            assert!(
                responses.keys().any(|status| status.starts_with('2')),
                "{method} {path} documents no success"
            );
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                if parameter["in"] == "path" {
                    assert!(
                        parameter["description"].as_str().is_some_and(|d| !d.is_empty())
                            && parameter["schema"].as_object().is_some_and(|s| s.len() > 1),
                        "{method} {path}: path parameter {} has no rule of its own (add it to path_parameter)",
                        parameter["name"]
                    );
                }
            }
            let id = operation["operationId"].as_str().expect("operationId").to_owned();
            assert!(ids.insert(id.clone()), "operationId {id} is used twice");
        }
    }

    #[test]
    fn every_reference_names_a_component_with_a_valid_name() {
        let document = built();
        let components = document["components"]["schemas"].as_object().expect("components");
        assert!(components.contains_key("ErrorBody"), "{:?}", components.keys());
        for name in components.keys() {
            assert!(
                !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
                "component name {name:?} is not allowed by OpenAPI"
            );
        }
        let mut found = Vec::new();
        refs(&document, &mut found);
        assert!(found.len() > 40, "only {} references", found.len());
        for target in found {
            let name = target
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{target} points outside components/schemas"));
            assert!(components.contains_key(name), "{target} names no component");
        }
    }

    #[test]
    fn every_link_names_an_operation_and_one_of_its_parameters() {
        let document = built();
        let mut operations = std::collections::BTreeMap::new();
        for item in document["paths"].as_object().unwrap().values() {
            for operation in item.as_object().unwrap().values() {
                operations.insert(operation["operationId"].as_str().unwrap().to_owned(), operation.clone());
            }
        }
        let mut count = 0;
        for operation in operations.values() {
            for answer in operation["responses"].as_object().unwrap().values() {
                for link in answer["links"].as_object().into_iter().flat_map(|l| l.values()) {
                    let target = &operations[link["operationId"].as_str().unwrap()];
                    for name in link["parameters"].as_object().unwrap().keys() {
                        let takes = target["parameters"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .any(|p| p["name"] == *name);
                        assert!(takes, "{link} names a parameter its operation does not take");
                    }
                    count += 1;
                }
            }
        }
        assert!(count >= 20, "only {count} links");
    }

    #[test]
    fn answers_require_what_the_registry_always_writes_and_requests_only_what_it_needs() {
        let document = built();
        let patch = &document["components"]["schemas"]["Patch"];
        let required: Vec<&str> = patch["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        // Always written, even when null.
        assert!(
            required.contains(&"scan") && required.contains(&"decided_by"),
            "{required:?}"
        );
        // Left out when empty.
        assert!(!required.contains(&"authored_diff"), "{required:?}");
        let submit = &document["paths"]["/v1/patches"]["post"]["requestBody"]["content"]["application/json"]["schema"];
        let required: Vec<&str> = submit["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(required, ["skill", "ops"], "{submit}");
        let listing = &document["paths"]["/v1/skills"]["get"]["parameters"];
        let names: Vec<&str> = listing
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["name"].as_str())
            .collect();
        assert_eq!(names, ["q", "category", "cursor", "limit"]);
    }
}
