//! Keyset paging shared by every list, whatever the transport: page sizes and the cursor
//! formats. Errors are messages for the caller (each transport wraps them as a bad
//! request).

/// Page size when the caller names none.
pub const DEFAULT_LIMIT: i64 = 50;
/// The largest page a caller may ask for.
pub const MAX_LIMIT: i64 = 200;

/// Checks a requested page size (`None`: the default).
pub fn limit(requested: Option<i64>) -> Result<i64, String> {
    match requested {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(n) => Err(format!("limit {n} is not valid: use a number from 1 to {MAX_LIMIT}")),
    }
}

/// Lists fetch `limit + 1` rows; this cuts the extra one off and returns the cursor of
/// the next page (the last kept row's key), or `None` on the last page.
pub fn cut_page<T>(rows: &mut Vec<T>, limit: i64, key: impl Fn(&T) -> String) -> Option<String> {
    let limit = usize::try_from(limit).unwrap_or(0);
    if rows.len() <= limit {
        return None;
    }
    rows.truncate(limit);
    rows.last().map(key)
}

/// Parses a `<micros>_<uuid>` cursor (newest-first lists of tokens and patches).
pub fn time_id_cursor(raw: &str) -> Result<(chrono::DateTime<chrono::Utc>, uuid::Uuid), String> {
    let invalid = || format!("cursor '{raw}' is not valid: pass back the next_cursor of the previous page");
    let (micros, id) = raw.split_once('_').ok_or_else(invalid)?;
    let at = micros
        .parse::<i64>()
        .ok()
        .and_then(chrono::DateTime::from_timestamp_micros)
        .ok_or_else(invalid)?;
    Ok((at, uuid::Uuid::parse_str(id).map_err(|_| invalid())?))
}

/// The `<micros>_<uuid>` cursor of a row.
pub fn time_id_key(at: chrono::DateTime<chrono::Utc>, id: uuid::Uuid) -> String {
    format!("{}_{}", at.timestamp_micros(), id)
}
