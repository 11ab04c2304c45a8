//! Application services: what the registry does, independent of the transport that asks.
//! HTTP handlers (and later gRPC) extract input, call these, and map the result.

pub mod accounts;
pub mod catalog;
pub mod import;
pub mod patches;
pub mod publish;
pub mod webhooks;
