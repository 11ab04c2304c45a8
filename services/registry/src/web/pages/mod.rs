//! One module per section of the review web. Handlers are thin: check the viewer's scope,
//! call the application services (the same ones the API calls), render a template.

pub mod audit;
pub mod login;
pub mod members;
pub mod patch;
pub mod policy;
pub mod queue;
pub mod skills;
pub mod tokens;
pub mod webhooks;

/// Formats a time for tables: UTC, to the minute.
pub(crate) fn when(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// A form or query field: trimmed, `None` when empty.
pub(crate) fn given(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// After a form: errors the user can fix (a 4xx from the services) go back to `to` with
/// the message shown there; anything else is an error page.
pub(crate) fn back_with(
    to: &str,
    error: impl Into<crate::web::error::WebError>,
) -> Result<axum::response::Response, crate::web::error::WebError> {
    use axum::response::IntoResponse;
    match error.into() {
        crate::web::error::WebError::Failed(api) if api.status().is_client_error() => {
            let separator = if to.contains('?') { '&' } else { '?' };
            Ok(axum::response::Redirect::to(&format!(
                "{to}{separator}error={}",
                crate::web::error::encode(api.message())
            ))
            .into_response())
        }
        other => Err(other),
    }
}
