//! Application services: what the registry does, independent of the transport that asks.
//! REST and gRPC handlers extract input, call these, and map the result.

pub mod accounts;
pub mod activity;
pub mod blobs;
pub mod catalog;
pub mod clawhub;
pub mod discovery;
pub mod gc;
pub mod import;
pub mod index;
pub mod live;
pub mod outbound;
pub mod paging;
pub mod patches;
pub mod publish;
pub mod quarantine;
pub mod webhooks;
