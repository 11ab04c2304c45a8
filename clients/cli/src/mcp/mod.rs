//! `cairn mcp` (docs/MCP.md): the team's skills as an MCP server on stdio, for agents that
//! start their tools as programs. Online ([`forward`]) it is the registry's `/mcp` with the
//! saved login; `--offline` ([`offline`]) it serves only what is on this machine, verified
//! against the registry's digests. `cairn mcp install` ([`install`]) writes the agents'
//! configuration.

pub mod forward;
pub mod install;
pub mod offline;

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::ServerConfig;

use crate::ci::Lock;
use crate::sync::target::Target;

/// Why the stdio server stopped.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The agent's side of stdio failed or closed before the session began.
    #[error("the MCP session on stdio failed: {0}")]
    Session(String),
    /// What to serve offline cannot be read.
    #[error("{0}")]
    Offline(String),
}

/// What both servers declare, as `cairn mcp`.
pub fn server_config(instructions: &str) -> ServerConfig {
    cairn_wire::mcp::server_config(forward::implementation(), instructions)
}

/// Serves `server` on stdin and stdout until the agent closes them.
pub async fn serve_stdio<S: rmcp::ServerHandler>(server: S) -> Result<(), McpError> {
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| McpError::Session(e.to_string()))?;
    running.waiting().await.map_err(|e| McpError::Session(e.to_string()))?;
    Ok(())
}

/// The skills synced into `targets`, as their sync state describes them.
pub fn catalog_of_targets(targets: &[Target]) -> Result<offline::Catalog, McpError> {
    let mut described = Vec::new();
    for target in targets {
        let path = crate::sync::state::path_for(&target.root).map_err(|e| McpError::Offline(e.to_string()))?;
        let state = crate::sync::state::load(&path).map_err(|e| McpError::Offline(e.to_string()))?;
        if state.cursor.is_none() {
            return Err(McpError::Offline(format!(
                "nothing was pulled into {} yet: run `cairn pull --target {}` first",
                target.root.display(),
                target.label
            )));
        }
        for (name, synced) in state.skills {
            let category = Path::new(&synced.folder)
                .parent()
                .map(|p| p.to_string_lossy().into_owned())
                .filter(|c| !c.is_empty());
            described.push(offline::Described {
                folder: target.root.join(&synced.folder),
                revision: synced.revision,
                digest: synced.digest,
                category,
                files: synced.files.into_iter().map(|(path, f)| (path, f.sha256)).collect(),
                name,
            });
        }
    }
    Ok(offline::Catalog::verified(described))
}

/// The versions `lock` pins, in the folder `cairn ci pull` filled (`dir/<skill>/`).
pub fn catalog_of_lock(lock: &Lock, dir: &Path) -> offline::Catalog {
    offline::Catalog::verified(lock.skills.iter().map(|(name, locked)| {
        offline::Described {
            name: name.clone(),
            folder: dir.join(name),
            revision: locked.revision,
            digest: locked.digest.clone(),
            category: None,
            files: locked
                .files
                .iter()
                .map(|f| (f.path.clone(), f.sha256.clone()))
                .collect(),
        }
    }))
}
