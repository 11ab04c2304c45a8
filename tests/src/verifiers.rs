//! Verifiers of signatures and proofs that Cairn did not write, which the provenance
//! tests check Cairn's attestations with. Pinned and installed once beside the target
//! directory (CI prepares them).

use std::path::PathBuf;
use std::process::Command;

/// The pinned DSSE implementation: securesystemslib (in-toto's Python reference uses it).
pub const SECURESYSTEMSLIB: &str = "securesystemslib[crypto]==1.6.0";

/// The Python of a virtualenv with [`SECURESYSTEMSLIB`]: `$CAIRN_DSSE_VENV` (CI prepares
/// it), else one made under the system temp directory and kept for later runs.
pub fn securesystemslib_python() -> PathBuf {
    let venv = crate::mcp_clients::venv(
        "CAIRN_DSSE_VENV",
        "cairn-dsse-venv-1.6.0",
        &[SECURESYSTEMSLIB],
        |venv| {
            Command::new(venv.join("bin/python"))
                .args(["-c", "import securesystemslib.dsse, cryptography"])
                .status()
                .is_ok_and(|s| s.success())
        },
    );
    venv.join("bin/python")
}
