//! The agents and MCP clients the tests drive Cairn with — ones we did not write: Hermes
//! Agent, the official Python MCP SDK with FastMCP's Skills client, and the official
//! TypeScript SDK. Each is pinned and installed once beside the target directory (CI
//! prepares them).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned Python clients: the official SDK and FastMCP (whose Skills client pins it).
pub const PYTHON_CLIENTS: [&str; 2] = ["mcp==2.3.0", "fastmcp==4.1.6"];

/// The pinned official TypeScript SDK.
pub const TS_SDK: &str = "@modelcontextprotocol/sdk@1.32.2";

/// The Python of a virtualenv with [`PYTHON_CLIENTS`]: `$CAIRN_MCP_VENV` (CI prepares
/// it), else one made under the system temp directory and kept for later runs.
pub fn python() -> PathBuf {
    let venv = venv("CAIRN_MCP_VENV", "cairn-mcp-venv-2.3.0", &PYTHON_CLIENTS, |venv| {
        Command::new(venv.join("bin/python"))
            .args(["-c", "import mcp, fastmcp"])
            .status()
            .is_ok_and(|s| s.success())
    });
    venv.join("bin/python")
}

/// The virtualenv `$<variable>` names, else `<temp>/<default_dir>`, with `packages`
/// installed when `ready` says they are not there yet.
pub(crate) fn venv(variable: &str, default_dir: &str, packages: &[&str], ready: impl Fn(&Path) -> bool) -> PathBuf {
    let venv = std::env::var_os(variable)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join(default_dir));
    if !ready(&venv) {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .unwrap();
        assert!(made.success(), "python3 -m venv {} failed", venv.display());
        let installed = Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(packages)
            .status()
            .unwrap();
        assert!(
            installed.success(),
            "pip install {packages:?} failed (PyPI must be reachable)"
        );
    }
    venv
}

/// A folder with [`TS_SDK`] installed: `$CAIRN_MCP_TS_SDK` (CI prepares it), else one made
/// under the system temp directory and kept for later runs.
pub fn ts_sdk() -> PathBuf {
    let prefix = std::env::var_os("CAIRN_MCP_TS_SDK")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("cairn-mcp-ts-sdk-1.32.2"));
    if !prefix
        .join("node_modules/@modelcontextprotocol/sdk/package.json")
        .exists()
    {
        let installed = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
            .arg(&prefix)
            .arg(TS_SDK)
            .status()
            .unwrap_or_else(|e| panic!("npm must be installed for the {TS_SDK} test: {e}"));
        assert!(
            installed.success(),
            "npm install {TS_SDK} failed (the npm registry must be reachable)"
        );
    }
    prefix
}

/// Runs a client and parses the JSON object it printed last.
pub async fn run_json(mut command: tokio::process::Command, what: &str) -> serde_json::Value {
    let output = command.output().await.unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{what} failed:\n{stdout}\n{stderr}");
    serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("{what} printed no JSON ({e}):\n{stdout}\n{stderr}"))
}

/// The pinned Hermes Agent.
pub const HERMES: &str = "hermes-agent==0.19.0";

/// The `hermes` program of a virtualenv with [`HERMES`]: `$CAIRN_HERMES_VENV` (CI prepares
/// it), else one made under the system temp directory and kept for later runs.
pub fn hermes() -> PathBuf {
    venv("CAIRN_HERMES_VENV", "cairn-hermes-venv-0.19.0", &[HERMES], |venv| {
        venv.join("bin/hermes").exists()
    })
    .join("bin/hermes")
}
