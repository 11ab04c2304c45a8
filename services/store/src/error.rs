//! The one error type the store hands to its callers.

/// Why a store operation failed, in terms the application layer can act on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The thing asked for does not exist (in this organisation).
    #[error("{0} not found")]
    NotFound(String),
    /// Text the database cannot hold (a NUL character, in text or in JSON): the caller's
    /// input, not a fault of the store. Other data exceptions stay `Database` errors, so
    /// a fault of ours is never answered as the caller's.
    #[error("{0}")]
    Invalid(String),
    /// The write would break a uniqueness rule (e.g. a name already taken).
    #[error("conflict: {0}")]
    Conflict(String),
    /// The transparency log cannot be signed or appended to (the registry holds another
    /// key than the active one, or the log was never opened): publishing waits until an
    /// operator fixes the key.
    #[error("the transparency log refused the entry: {0}")]
    Signing(String),
    /// Applying migrations failed.
    #[error("database migration failed: {0}")]
    Migration(String),
    /// The database cannot be reached right now (connection refused or lost, the server
    /// restarting, the pool exhausted): the same request may succeed when retried.
    #[error("database unavailable: {0}")]
    Unavailable(sqlx::Error),
    /// Any other database failure (query, constraint).
    #[error("database error: {0}")]
    Database(sqlx::Error),
}

impl StoreError {
    /// Whether retrying the same request later may succeed (the database was unreachable).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, StoreError::Unavailable(_))
    }
}

/// Whether a sqlx error means "retrying may succeed" rather than "this query is wrong":
/// lost or refused connections (also a connection cut mid-message), an exhausted pool,
/// and the SQLSTATEs of class 08 (connection exception), 57P01–57P03 (server shutting
/// down or starting), 53300 (too many connections), 40001 and 40P01 (serialization
/// failure, deadlock: the transaction was rolled back) and 55P03 (lock not available).
/// TLS failures are not: a certificate problem does not fix itself.
fn is_transient(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08")
                || matches!(
                    code.as_ref(),
                    "57P01" | "57P02" | "57P03" | "53300" | "40001" | "40P01" | "55P03"
                )
        }),
        _ => false,
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            sqlx::Error::RowNotFound => StoreError::NotFound("row".to_owned()),
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
            // 22021: a NUL byte in text; 22P05: `\u0000` in JSON stored as jsonb.
            sqlx::Error::Database(db) if db.code().is_some_and(|code| matches!(code.as_ref(), "22021" | "22P05")) => {
                StoreError::Invalid(
                    "text may not contain the NUL character (U+0000): remove it and send again".to_owned(),
                )
            }
            _ if is_transient(&error) => StoreError::Unavailable(error),
            _ => StoreError::Database(error),
        }
    }
}
