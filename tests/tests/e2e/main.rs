//! End-to-end tests: one binary (fast to link) with a module per area. Every test gets
//! its own PostgreSQL database; servers run in-process on random ports.

mod access;
mod accounts;
mod api;
mod blobs;
mod browser;
mod concurrent;
mod conversation;
mod discovery;
mod false_positives;
mod fixtures;
mod grpc;
mod import;
mod live;
mod mcp;
mod openapi;
mod operations;
mod owners;
mod patches;
mod provenance;
mod web;
mod webhooks;
