//! Parsing of requests into domain values (path and query parameters, JSON bodies),
//! answering bad input in the API's error shape with what to send instead. Shared by
//! the REST and compatibility routes.

use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use cairn_skill::SkillName;
use cairn_store::RevisionSelector;

use super::{ApiError, ErrorKind};

/// Validates a skill name from the path.
pub fn skill_name(raw: &str) -> Result<SkillName, ApiError> {
    SkillName::parse(raw).map_err(|e| ApiError::bad_request(e.to_string()))
}

/// Parses `latest` or a positive revision number.
pub fn revision(raw: &str) -> Result<RevisionSelector, ApiError> {
    if raw == "latest" {
        return Ok(RevisionSelector::Latest);
    }
    match raw.parse::<i32>() {
        Ok(rev) if rev >= 1 => Ok(RevisionSelector::Exact(rev)),
        _ => Err(ApiError::bad_request(format!(
            "revision '{raw}' is not valid: use a positive number such as 3, or 'latest'"
        ))),
    }
}

/// The paging half of a list's query string (`cursor`, `limit`): one definition for every
/// paged REST list, flattened into its query.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
pub struct PageQuery {
    /// Where the previous page ended: its `next_cursor`.
    pub cursor: Option<String>,
    /// Items per page, 1 to 200 (default 50).
    #[schemars(with = "Option<u32>", range(min = 1, max = 200))]
    pub limit: Option<String>,
}

impl PageQuery {
    /// The page size asked for (or the default).
    pub fn limit(&self) -> Result<i64, ApiError> {
        limit(self.limit.as_deref())
    }

    /// The cursor, when one was given (an empty one is none).
    pub fn cursor(&self) -> Option<&str> {
        self.cursor.as_deref().filter(|c| !c.is_empty())
    }
}

/// Parses `limit` from a query string.
pub fn limit(raw: Option<&str>) -> Result<i64, ApiError> {
    use crate::app::paging::{self, MAX_LIMIT};
    let parsed = match raw {
        None => None,
        Some(v) => Some(v.parse::<i64>().map_err(|_| {
            ApiError::bad_request(format!("limit '{v}' is not valid: use a number from 1 to {MAX_LIMIT}"))
        })?),
    };
    paging::limit(parsed).map_err(ApiError::bad_request)
}

pub use crate::app::paging::cut_page;

/// `Path` whose rejections (e.g. invalid UTF-8 in a percent-escape) answer in the API's
/// JSON error shape instead of axum's plain text.
#[derive(axum::extract::FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct ApiPath<T>(pub T);

impl From<PathRejection> for ApiError {
    fn from(rejection: PathRejection) -> Self {
        ApiError::bad_request(format!("the URL path is not valid: {}", rejection.body_text()))
    }
}

/// `Query` whose rejections (a malformed query string, a parameter the endpoint does not
/// take) answer in the API's JSON shape. An unknown parameter is refused, not ignored: a
/// misspelt filter (`?state=` for `?status=`) would otherwise answer with everything.
pub struct ApiQuery<T>(pub T);

impl<T, S> axum::extract::FromRequestParts<S> for ApiQuery<T>
where
    T: serde::de::DeserializeOwned + schemars::JsonSchema + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, ApiError> {
        if let Some(query) = parts.uri.query() {
            let known = known_parameters::<T>();
            let given: Vec<(String, String)> = serde_urlencoded::from_str(query)
                .map_err(|e| ApiError::bad_request(format!("the query string is not valid: {e}")))?;
            if let Some((unknown, _)) = given.iter().find(|(key, _)| !known.iter().any(|k| k == key)) {
                let takes = if known.is_empty() {
                    "this endpoint takes no query parameters".to_owned()
                } else {
                    format!("this endpoint takes {}", known.join(", "))
                };
                return Err(ApiError::bad_request(format!(
                    "unknown query parameter '{unknown}': {takes}"
                )));
            }
        }
        let axum::extract::Query(value) = axum::extract::Query::<T>::from_request_parts(parts, state).await?;
        Ok(ApiQuery(value))
    }
}

/// The query parameters `T` accepts: the properties of its JSON Schema (flattened parts
/// included), the same list the OpenAPI document publishes. Worked out once per query
/// type, not per request.
fn known_parameters<T: schemars::JsonSchema>() -> std::sync::Arc<[String]> {
    type Known = std::collections::HashMap<String, std::sync::Arc<[String]>>;
    static KNOWN: std::sync::LazyLock<std::sync::Mutex<Known>> = std::sync::LazyLock::new(Default::default);
    let id = T::schema_id();
    let mut known = KNOWN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(names) = known.get(id.as_ref()) {
        return names.clone();
    }
    let schema = schemars::SchemaGenerator::default().into_root_schema_for::<T>();
    let mut names: Vec<String> = schema
        .get("properties")
        .and_then(|p| p.as_object())
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    let names: std::sync::Arc<[String]> = names.into();
    known.insert(id.into_owned(), names.clone());
    names
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        ApiError::bad_request(format!("the query string is not valid: {}", rejection.body_text()))
    }
}

/// `Json` whose rejections (wrong content type, malformed or unknown fields, too large)
/// answer in the API's JSON shape and say what was expected.
#[derive(axum::extract::FromRequest)]
#[from_request(via(axum::Json), rejection(ApiError))]
pub struct ApiJson<T>(pub T);

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> Self {
        match rejection {
            JsonRejection::MissingJsonContentType(_) => ApiError::new(
                ErrorKind::UnsupportedMediaType,
                "unsupported_media_type",
                "send the body as JSON with 'Content-Type: application/json'",
            ),
            e if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
                ErrorKind::TooLarge,
                "payload_too_large",
                "the request body is over 256 KiB: send less",
            ),
            e => ApiError::bad_request(format!("the JSON body is not valid: {}", e.body_text())),
        }
    }
}

/// The raw body, whose rejections (over the route's size limit, a broken upload) answer in
/// the API's JSON shape like every other error.
pub struct ApiBytes(pub axum::body::Bytes);

impl<S> axum::extract::FromRequest<S> for ApiBytes
where
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: axum::extract::Request, state: &S) -> Result<Self, Self::Rejection> {
        match axum::body::Bytes::from_request(request, state).await {
            Ok(bytes) => Ok(ApiBytes(bytes)),
            Err(e) if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE => Err(ApiError::new(
                ErrorKind::TooLarge,
                "payload_too_large",
                "the request body is larger than this endpoint takes: send less (docs/API.md gives each limit)",
            )),
            Err(e) => Err(ApiError::bad_request(format!(
                "the request body could not be read: {}",
                e.body_text()
            ))),
        }
    }
}

/// Parses a `<micros>_<uuid>` keyset cursor (newest-first lists of tokens and patches).
pub fn time_id_cursor(raw: &str) -> Result<(chrono::DateTime<chrono::Utc>, uuid::Uuid), ApiError> {
    crate::app::paging::time_id_cursor(raw).map_err(ApiError::bad_request)
}
