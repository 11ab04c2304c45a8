//! A closed-loop HTTP load for the page and endpoint benchmarks: a few clients fetch one
//! URL back to back for a while; throughput and latency percentiles come out.

use std::time::{Duration, Instant};

/// Clients fetching at once.
pub const CLIENTS: usize = 8;
/// How long each URL is fetched.
pub const RUN_FOR: Duration = Duration::from_secs(10);

/// What one URL sustained.
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// Bytes of one answer.
    pub bytes: usize,
    /// Answers per second, all clients together.
    pub per_second: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 99th-percentile latency, ms.
    pub p99_ms: f64,
}

impl Measured {
    /// The row of the benchmarks' Markdown tables: `| label | bytes | req/s | p50 | p99 |`.
    pub fn row(&self, label: &str) -> String {
        format!(
            "| {label} | {} | {:.0} | {:.1} | {:.1} |",
            self.bytes, self.per_second, self.p50_ms, self.p99_ms
        )
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Fetches `url` (with the `cookie` header when given) from [`CLIENTS`] clients for
/// [`RUN_FOR`]; every answer must be a success.
pub async fn measure(client: &reqwest::Client, url: &str, cookie: Option<&str>) -> Measured {
    let headers: Vec<(&str, &str)> = cookie.map(|c| ("cookie", c)).into_iter().collect();
    measure_with(client, url, &headers, CLIENTS, RUN_FOR).await
}

/// Fetches `url` with `headers` from `clients` clients for `run_for`; every answer must be
/// a success. `bytes` is the body as sent (compressed when the headers ask for it and the
/// client does not decompress).
pub async fn measure_with(
    client: &reqwest::Client,
    url: &str,
    headers: &[(&str, &str)],
    clients: usize,
    run_for: Duration,
) -> Measured {
    let get = headers
        .iter()
        .fold(client.get(url), |request, (name, value)| request.header(*name, *value));
    measure_requests(&[get], clients, run_for).await
}

/// Whether `body` is a JSON-RPC answer that failed: MCP answers a refused call (a
/// protocol error or a tool error) with HTTP 200, so the status alone proves nothing.
fn failed_rpc(body: &[u8]) -> bool {
    let has = |needle: &[u8]| body.windows(needle.len()).any(|w| w == needle);
    body.starts_with(b"{\"jsonrpc\"") && (has(b"\"isError\":true") || has(b"\"error\":{"))
}

/// Sends `requests` one after another, as one operation, from `clients` clients for
/// `run_for`; every answer must be a success (for MCP, no JSON-RPC or tool error). `bytes`
/// is the operation's bodies as sent;
/// latencies are per operation.
pub async fn measure_requests(requests: &[reqwest::RequestBuilder], clients: usize, run_for: Duration) -> Measured {
    let send_all = |requests: Vec<reqwest::RequestBuilder>| async move {
        let mut bytes = 0;
        for request in requests {
            let response = request.send().await.unwrap();
            let status = response.status();
            let body = response.bytes().await.unwrap();
            assert!(status.is_success(), "{status}: {}", String::from_utf8_lossy(&body));
            assert!(!failed_rpc(&body), "{}", String::from_utf8_lossy(&body));
            bytes += body.len();
        }
        bytes
    };
    let clone = || -> Vec<reqwest::RequestBuilder> {
        requests
            .iter()
            .map(|r| r.try_clone().expect("a request with a body in memory clones"))
            .collect()
    };
    let bytes = send_all(clone()).await;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let operation = clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while started.elapsed() < run_for {
                let t = Instant::now();
                send_all(operation.iter().map(|r| r.try_clone().unwrap()).collect()).await;
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let seconds = started.elapsed().as_secs_f64();
    all.sort_by(f64::total_cmp);
    Measured {
        bytes,
        per_second: all.len() as f64 / seconds,
        p50_ms: percentile(&all, 0.5),
        p99_ms: percentile(&all, 0.99),
    }
}
