//! `cairn mcp` online: the registry's MCP endpoint over stdio. Every request the agent
//! sends is forwarded to `/mcp` with the saved login, in the stateless 2026-07-28 protocol,
//! carrying the agent's own description (its `clientInfo`), so the registry records the
//! agent — not this bridge — as the author's tool. Tools, resources and skills are the
//! registry's: this side adds none and decides nothing.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, GetSkillRequestParams, GetSkillResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::remote::{MCP_PROTOCOL, Registry};

/// The bridge to one registry.
#[derive(Clone)]
pub struct Forwarder {
    registry: Arc<Registry>,
    /// This process's session name: an agent's proposals from one run share it.
    session: String,
}

impl Forwarder {
    /// A bridge to `registry`, with its saved login.
    pub fn new(registry: Registry) -> Self {
        Forwarder {
            registry: Arc::new(registry),
            session: format!("cairn-mcp.{}", uuid::Uuid::new_v4().simple()),
        }
    }

    /// Sends `method` with `params` to the registry, as the agent behind `context`; the
    /// registry's result, or its error as the agent's error.
    async fn forward<T: DeserializeOwned>(
        &self,
        method: &str,
        name: Option<&str>,
        params: impl serde::Serialize,
        context: &RequestContext<RoleServer>,
    ) -> Result<T, ErrorData> {
        let mut params = match serde_json::to_value(params) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        let agent = context
            .client_info()
            .and_then(|info| serde_json::to_value(info).ok())
            .unwrap_or_else(|| json!({"name": "cairn-mcp", "version": env!("CARGO_PKG_VERSION")}));
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": MCP_PROTOCOL,
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/skills": {}}},
            "io.modelcontextprotocol/clientInfo": agent,
        });
        meta[cairn_wire::mcp::SESSION_META] = json!(self.session);
        params.insert("_meta".to_owned(), meta);
        let answer = self
            .registry
            .mcp(method, name, Value::Object(params))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if let Some(error) = answer.get("error") {
            return Err(serde_json::from_value(error.clone()).unwrap_or_else(|_| {
                ErrorData::internal_error(format!("the registry answered an unreadable error: {error}"), None)
            }));
        }
        let result = answer.get("result").cloned().unwrap_or(Value::Null);
        serde_json::from_value(result).map_err(|e| {
            ErrorData::internal_error(
                format!("the registry's answer to {method} cannot be read ({e}): is cairn older than the registry?"),
                None,
            )
        })
    }
}

impl ServerHandler for Forwarder {
    fn get_info(&self) -> ServerConfig {
        super::server_config(cairn_wire::mcp::INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.forward("tools/list", None, request, &context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let result: CallToolResult = self.forward("tools/call", Some(&name), request, &context).await?;
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.forward("resources/list", None, request, &context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.forward("resources/templates/list", None, request, &context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let result: ReadResourceResult = self.forward("resources/read", Some(&uri), request, &context).await?;
        Ok(result.into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.forward("skills/list", None, request, &context).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.forward("skills/get", None, request, &context).await
    }
}

/// This bridge as the agent sees it.
pub fn implementation() -> Implementation {
    Implementation::new("cairn", env!("CARGO_PKG_VERSION")).with_title("Cairn (via cairn mcp)")
}
