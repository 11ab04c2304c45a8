//! Logging setup: `CAIRN_LOG` (an env-filter, default `info,sqlx=warn`) and `CAIRN_LOG_FORMAT`
//! (`text`, default, or `json`). Logs go to stderr so stdout stays clean for output that
//! scripts read (tokens, JSON reports).

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. Call once, first thing in `main`.
pub fn init() {
    let filter = EnvFilter::try_from_env("CAIRN_LOG").unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let json = std::env::var("CAIRN_LOG_FORMAT").is_ok_and(|v| v.eq_ignore_ascii_case("json"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if json {
        builder.json().flatten_event(true).init();
    } else {
        builder.init();
    }
}
