//! Compiles `cairn/v1/registry.proto` with protox (a protobuf compiler in Rust, so no
//! system `protoc` is needed) and generates the messages, client and server with
//! tonic-prost-build. The encoded descriptor set is kept for gRPC reflection.

use std::path::PathBuf;

use prost::Message as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "cairn/v1/registry.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(out.join("cairn_v1_descriptor.bin"), descriptors.encode_to_vec())?;
    tonic_prost_build::configure()
        .build_client(true)
        .build_server(true)
        .compile_fds(descriptors)?;
    Ok(())
}
