//! What authentication and authorization cost per request (target: ≤ 5 µs).
//!
//! `gate/check` is the per-request work of the gate with a warm token cache: verify the
//! JWT (HS256), look the token row up in the cache, cap its scopes by the role, check the
//! route's rule and count the request against the token's rate limit. `gate/whoami` is a
//! whole request through the router in-process (no network), for context.
//!
//! Needs PostgreSQL (`DATABASE_URL`, default the local server) for the token row.
//! Run: `cargo bench -p cairn-e2e --bench auth`.

#![allow(missing_docs)]

use std::time::Duration;

use axum::body::Body;
use cairn_e2e::db::TestDb;
use cairn_registry::access::{Access, authorize};
use cairn_registry::auth::scopes::Scope;
use cairn_registry::config::AccessSettings;
use cairn_registry::{AppState, bootstrap};
use cairn_store::blob::FsBlobStore;
use criterion::{Criterion, criterion_group, criterion_main};
use tower::ServiceExt;

fn gate(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (db, state, header) = rt.block_on(async {
        let db = TestDb::new().await.unwrap();
        let store = db.store().await.unwrap();
        let keys = cairn_registry::auth::TokenKeys::from_secret(&[9u8; 32]).unwrap();
        let token = bootstrap::bootstrap(&store, &keys, dir.path()).await.unwrap().unwrap();
        let blobs = std::sync::Arc::new(FsBlobStore::new(dir.path().join("blobs")).unwrap());
        let mut settings = AccessSettings::default();
        // A budget no benchmark exhausts: the check itself is what is measured.
        settings.rate_limits.per_token = cairn_registry::ratelimit::Limit::parse("4000000000/h").unwrap();
        settings.rate_limits.per_address = settings.rate_limits.per_token;
        let state = AppState::new(store, blobs, keys, settings);
        tokio::spawn(cairn_registry::server::background(state.clone()));
        while !state.auth.is_following() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        (db, state, format!("Bearer {token}"))
    });
    let mut group = c.benchmark_group("gate");
    group.bench_function("check", |b| {
        b.to_async(&rt).iter(|| async {
            let principal = state.auth.authenticate(&state.store, Some(&header)).await.unwrap();
            authorize(Access::Scope(Scope::Read), principal.role, principal.scopes).unwrap();
            state.limiters.check_token(principal.token_id).unwrap();
            principal
        });
    });
    let router = cairn_registry::router(state.clone());
    group.bench_function("whoami", |b| {
        b.to_async(&rt).iter(|| async {
            let request = axum::http::Request::get("/v1/whoami")
                .header("authorization", &header)
                .body(Body::empty())
                .unwrap();
            let response = router.clone().oneshot(request).await.unwrap();
            assert!(response.status().is_success());
            response
        });
    });
    group.finish();
    drop(router);
    drop(state);
    drop(db);
}

criterion_group!(benches, gate);
criterion_main!(benches);
