//! Scan reports of published versions, kept by digest.

use cairn_skill::Bundle;

/// Scan reports of published versions by digest (versions are immutable, so a report
/// never goes stale); bounded, emptied when full.
#[derive(Debug, Default)]
pub struct ScanCache(std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<cairn_scanner::Report>>>);

/// Versions whose scan reports are kept.
const SCAN_CACHE_ENTRIES: usize = 512;

impl ScanCache {
    /// The report of `bundle`, scanned once per digest.
    pub fn report(&self, bundle: &Bundle) -> std::sync::Arc<cairn_scanner::Report> {
        let digest = bundle.digest();
        if let Some(report) = self.0.lock().unwrap_or_else(|e| e.into_inner()).get(&digest) {
            return report.clone();
        }
        let report = std::sync::Arc::new(cairn_pipeline::stages::scan_bundle(bundle));
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= SCAN_CACHE_ENTRIES {
            cache.clear();
        }
        cache.insert(digest, report.clone());
        report
    }
}
