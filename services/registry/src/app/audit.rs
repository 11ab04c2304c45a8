//! The organisation's audit log as admins read it: filtered by actor, action (or a family
//! of actions ending in `.`), target and time, newest first, paged by a cursor. One
//! reading for the API and the review web.

use cairn_store::{AuditEntry, Store, StoreError};
use chrono::{DateTime, NaiveDateTime, Utc};

use crate::app::paging;

/// What to list; empty strings count as not given.
#[derive(Clone, Debug, Default)]
pub struct AuditFilter {
    /// Exactly this actor.
    pub actor: Option<String>,
    /// This action, or a family of actions ending with `.` (`token.`).
    pub action: Option<String>,
    /// Exactly this target.
    pub target: Option<String>,
    /// At or after: RFC 3339, or a form's `2026-11-29T12:00` (UTC) or `2026-11-29`.
    pub since: Option<String>,
    /// Before, in the same forms.
    pub until: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// One page of entries and the cursor of the next, if there is one.
#[derive(Debug)]
pub struct AuditPage {
    /// Newest first.
    pub entries: Vec<AuditEntry>,
    /// Pass back as [`AuditFilter::cursor`] for the next page.
    pub next_cursor: Option<String>,
}

/// Why the log could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    /// A filter or the cursor is not valid; the message says what to send.
    #[error("{0}")]
    Invalid(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Lists up to `limit` entries of the organisation's audit log matching `filter`.
pub async fn list(store: &Store, org_id: i64, filter: AuditFilter, limit: i64) -> Result<AuditPage, AuditError> {
    let given = |v: Option<String>| v.filter(|v| !v.trim().is_empty());
    let before_id = match given(filter.cursor) {
        None => None,
        Some(c) => Some(c.parse::<i64>().ok().filter(|id| *id > 0).ok_or_else(|| {
            AuditError::Invalid(format!(
                "cursor '{c}' is not valid: pass back the next cursor of the previous page, or start from the first"
            ))
        })?),
    };
    let query = cairn_store::AuditQuery {
        actor: given(filter.actor),
        action: given(filter.action),
        target: given(filter.target),
        since: time("since", given(filter.since).as_deref())?,
        until: time("until", given(filter.until).as_deref())?,
        before_id,
        limit: limit + 1,
    };
    let mut entries = store.list_audit(org_id, &query).await?;
    let next_cursor = paging::cut_page(&mut entries, limit, |e| e.id.to_string());
    Ok(AuditPage { entries, next_cursor })
}

/// A time filter: RFC 3339, or a browser's `datetime-local` value or a date (read as UTC).
fn time(name: &str, raw: Option<&str>) -> Result<Option<DateTime<Utc>>, AuditError> {
    let Some(raw) = raw.map(str::trim) else { return Ok(None) };
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        return Ok(Some(t.with_timezone(&Utc)));
    }
    for format in ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(raw, format) {
            return Ok(Some(t.and_utc()));
        }
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        return Ok(d.and_hms_opt(0, 0, 0).map(|t| t.and_utc()));
    }
    Err(AuditError::Invalid(format!(
        "{name} '{raw}' is not a time: use RFC 3339 such as 2026-11-29T12:00:00Z, or 2026-11-29T12:00 (UTC)"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_times_accept_rfc3339_and_browser_input() {
        let t = time("since", Some("2026-11-29T12:00:00Z")).unwrap().unwrap();
        assert_eq!(t.to_rfc3339(), "2026-11-29T12:00:00+00:00");
        assert_eq!(time("since", Some("2026-11-29T12:00")).unwrap(), Some(t));
        assert!(time("since", Some("2026-11-29")).unwrap().is_some());
        let wrong = time("since", Some("yesterday")).unwrap_err().to_string();
        assert!(wrong.contains("since 'yesterday' is not a time"), "{wrong}");
        assert_eq!(time("since", None).unwrap(), None);
    }
}
