//! The gRPC contract of the Cairn registry: the `cairn.v1` messages, the `Registry`
//! client and server traits generated from `cairn/v1/registry.proto`, and the encoded
//! descriptor set the server offers through gRPC reflection.
//!
//! The `.proto` file is the contract; read it for what each field means. Clients in
//! other languages generate their code from the same file.

#![forbid(unsafe_code)]

/// Package `cairn.v1`.
#[allow(missing_docs, clippy::all, clippy::pedantic, unused_qualifications)]
pub mod v1 {
    tonic::include_proto!("cairn.v1");
}

/// The encoded `FileDescriptorSet` of `cairn/v1/registry.proto` (with its imports), for
/// gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/cairn_v1_descriptor.bin"));

/// The fully qualified name of the registry service (`cairn.v1.Registry`), as health
/// checks and reflection name it.
pub const REGISTRY_SERVICE: &str = "cairn.v1.Registry";
