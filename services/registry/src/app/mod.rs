//! Application services: what the registry does, independent of the transport that asks.
//! Every transport (REST, gRPC, the compatibility APIs, the review web, MCP) extracts input,
//! calls these, and maps the result; messages here name no transport's paths.

pub mod accounts;
pub mod activity;
pub mod archives;
pub mod audit;
pub mod blobs;
pub mod catalog;
pub mod clawhub;
pub mod discovery;
pub mod gc;
pub mod import;
pub mod index;
pub mod live;
pub mod outbound;
pub mod owners;
pub mod paging;
pub mod patches;
pub mod policy;
pub mod provenance;
pub mod publish;
pub mod quarantine;
pub mod served;
pub mod webhooks;
