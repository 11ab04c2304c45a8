//! The one error type the store hands to its callers.

/// Why a store operation failed, in terms the application layer can act on.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The thing asked for does not exist (in this organisation).
    #[error("{0} not found")]
    NotFound(String),
    /// The write would break a uniqueness rule (e.g. a name already taken).
    #[error("conflict: {0}")]
    Conflict(String),
    /// Applying migrations failed.
    #[error("database migration failed: {0}")]
    Migration(String),
    /// Any other database failure (connection, query, constraint).
    #[error("database error: {0}")]
    Database(sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match &error {
            sqlx::Error::RowNotFound => StoreError::NotFound("row".to_owned()),
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
            _ => StoreError::Database(error),
        }
    }
}
