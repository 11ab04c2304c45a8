//! One module per section of the review web. Handlers are thin: check the viewer's scope,
//! call the application services (the same ones the API calls), render a template.

pub mod audit;
pub mod login;
pub mod members;
pub mod owners;
pub mod patch;
pub mod policy;
pub mod queue;
pub mod security;
pub mod skills;
pub mod tokens;
pub mod webhooks;

/// Formats a time for tables: UTC, to the minute.
pub(crate) fn when(at: &chrono::DateTime<chrono::Utc>) -> String {
    at.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// What may stay as is in a path segment of a link (RFC 3986 unreserved characters).
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// A file's path inside a bundle as it goes into a link: each segment percent-encoded, so
/// `#`, `?`, `%` or spaces in a file name cannot change what the link opens.
pub(crate) fn path_href(path: &str) -> String {
    path.split('/')
        .map(|segment| percent_encoding::utf8_percent_encode(segment, PATH_SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// A `Content-Disposition: attachment` header value for `file_name`: an ASCII fallback
/// and the exact name (RFC 6266 `filename*`).
pub(crate) fn attachment(file_name: &str) -> String {
    let fallback: String = file_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-._".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!(
        "attachment; filename=\"{fallback}\"; filename*=UTF-8''{}",
        percent_encoding::utf8_percent_encode(file_name, PATH_SEGMENT)
    )
}

/// A form or query field: trimmed, `None` when empty.
pub(crate) fn given(value: Option<String>) -> Option<String> {
    value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

/// After a form: errors the user can fix (a 4xx from the services) go back to `to` with
/// the message shown there; anything else is an error page.
pub(crate) fn back_with(
    state: &crate::AppState,
    to: &str,
    error: impl Into<crate::web::error::WebError>,
) -> Result<axum::response::Response, crate::web::error::WebError> {
    match error.into() {
        crate::web::error::WebError::Failed(api) if api.status().is_client_error() => {
            Ok(crate::web::redirect_with(state, to, "error", api.message()))
        }
        other => Err(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_paths_and_names_are_encoded_for_links_and_headers() {
        assert_eq!(path_href("references/a b#c?.md"), "references/a%20b%23c%3F.md");
        assert_eq!(path_href("scripts/run.sh"), "scripts/run.sh");
        assert_eq!(
            attachment("notes \"x\"é.md"),
            "attachment; filename=\"notes__x__.md\"; filename*=UTF-8''notes%20%22x%22%C3%A9.md"
        );
    }
}
