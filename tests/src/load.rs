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
    let get = |client: &reqwest::Client| {
        headers
            .iter()
            .fold(client.get(url), |request, (name, value)| request.header(*name, *value))
    };
    let first = get(client).send().await.unwrap();
    assert!(first.status().is_success(), "{url}: {}", first.status());
    let bytes = first.bytes().await.unwrap().len();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let request = get(client);
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            while started.elapsed() < run_for {
                let t = Instant::now();
                let response = request.try_clone().expect("a GET clones").send().await.unwrap();
                assert!(response.status().is_success());
                response.bytes().await.unwrap();
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
