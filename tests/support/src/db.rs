//! One PostgreSQL database per test.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use cairn_store::Store;
use sqlx::Connection;

/// The server the test databases are created on.
pub fn server_url() -> String {
    std::env::var("DATABASE_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A freshly created, migrated database that is dropped when this value is dropped.
#[derive(Debug)]
pub struct TestDb {
    /// URL of the test database.
    pub url: String,
    /// Its name.
    pub name: String,
    server: String,
}

fn with_database(server: &str, database: &str) -> Result<String> {
    let mut url = url_parts(server)?;
    url.1 = database.to_owned();
    Ok(format!("{}/{}{}", url.0, url.1, url.2))
}

/// Splits `scheme://authority/db?query` into (`scheme://authority`, `db`, `?query`).
fn url_parts(url: &str) -> Result<(String, String, String)> {
    let scheme_end = url
        .find("://")
        .context("DATABASE_URL must look like postgres://user@host:port/db")?
        + 3;
    let (head, rest) = url.split_at(scheme_end);
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (db, query) = match path.split_once('?') {
        Some((db, q)) => (db.to_owned(), format!("?{q}")),
        None => (path.to_owned(), String::new()),
    };
    Ok((format!("{head}{authority}"), db, query))
}

impl TestDb {
    /// Creates `cairn_test_<random>` and applies the migrations.
    pub async fn new() -> Result<Self> {
        let db = Self::unmigrated().await?;
        let store = db.store().await?;
        store.migrate().await?;
        store.pool().close().await;
        Ok(db)
    }

    /// Creates an empty `cairn_test_<random>` (for tests of the migrations themselves).
    pub async fn unmigrated() -> Result<Self> {
        let server = server_url();
        let name = format!("cairn_test_{}", uuid::Uuid::new_v4().simple());
        let mut conn = sqlx::PgConnection::connect(&server)
            .await
            .with_context(|| "connecting to the test PostgreSQL (set DATABASE_URL)".to_owned())?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await?;
        conn.close().await?;
        let url = with_database(&server, &name)?;
        Ok(TestDb { url, name, server })
    }

    /// A store on this database (a small pool).
    pub async fn store(&self) -> Result<Store> {
        Ok(Store::connect(&self.url, 8).await?)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let server = self.server.clone();
        let name = self.name.clone();
        // Drop runs inside the test's runtime; use a thread with its own runtime.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                return;
            };
            rt.block_on(async {
                if let Ok(mut conn) = sqlx::PgConnection::connect(&server).await {
                    let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .execute(&mut conn)
                    .await;
                }
            });
        })
        .join();
    }
}

/// Row counts of every table: compare before and after a rejected request to prove it
/// changed nothing.
pub async fn table_counts(store: &Store) -> Result<BTreeMap<String, i64>> {
    let mut counts = BTreeMap::new();
    for table in [
        "organizations",
        "users",
        "api_tokens",
        "skills",
        "versions",
        "version_files",
        "blobs",
        "index_changes",
        "audit_log",
        "patches",
        "webhooks",
        "webhook_deliveries",
        "finding_dismissals",
        "quarantined_skills",
        "patch_comments",
        "owners",
        "signing_keys",
        "log_entries",
        "log_hashes",
    ] {
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
            .fetch_one(store.pool())
            .await?;
        counts.insert(table.to_owned(), n);
    }
    Ok(counts)
}
