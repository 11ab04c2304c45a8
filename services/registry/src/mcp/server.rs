//! The MCP server of one request: what it declares (tools, resources, the Skills
//! extension, the instructions agents read), which tools a token may see and call, and
//! the resources and skill entries it serves.

use std::sync::Arc;

use axum::http::request::Parts;
use cairn_wire::mcp::{INSTRUCTIONS, WRITE_TOOLS};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetSkillRequestParams, GetSkillResult,
    Implementation, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceTemplate, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::AppState;
use crate::access::{Access, authorize};
use crate::app::served::{self, ServedError};
use crate::auth::Principal;
use crate::auth::scopes::Scope;
use cairn_wire::mcp::skills;
use cairn_wire::mcp::uri::SkillFileUri;

/// Skills (or SKILL.md resources) per page of `skills/list` and `resources/list`.
const PAGE: usize = 100;

/// The MCP server answering one request, over the registry's shared services.
#[derive(Clone)]
pub struct CairnMcp {
    /// The registry's services.
    pub(super) state: AppState,
    /// The tools (see `tools`).
    tools: Arc<ToolRouter<CairnMcp>>,
}

/// The tools, built once per process (their schemas are generated when built).
static TOOLS: std::sync::LazyLock<Arc<ToolRouter<CairnMcp>>> =
    std::sync::LazyLock::new(|| Arc::new(CairnMcp::tool_router()));

impl CairnMcp {
    /// The server over `state`.
    pub fn new(state: AppState) -> Self {
        CairnMcp {
            state,
            tools: Arc::clone(&TOOLS),
        }
    }
}

/// The HTTP request behind an MCP request (the SDK keeps it in the context).
pub(super) fn http_parts(context: &RequestContext<RoleServer>) -> Result<&Parts, ErrorData> {
    context
        .extensions
        .get::<Parts>()
        .ok_or_else(|| ErrorData::internal_error("the request arrived without its HTTP parts", None))
}

/// The caller the gate admitted.
pub(super) fn principal(parts: &Parts) -> Result<&Principal, ErrorData> {
    parts
        .extensions
        .get::<Principal>()
        .ok_or_else(|| ErrorData::internal_error("the MCP route is served without a caller", None))
}

/// Why the caller may not use a write tool, if it may not.
fn write_refusal(principal: &Principal) -> Option<String> {
    authorize(Access::Scope(Scope::Submit), principal.role, principal.scopes)
        .err()
        .map(|denied| format!("{denied} (proposals need it; reading skills does not)"))
}

/// A served read's failure as a protocol error: a bad or unknown name is the client's
/// (invalid params, with the message), anything else is logged and answered generically.
pub(super) fn protocol_error(error: ServedError) -> ErrorData {
    match error {
        ServedError::Invalid(message) | ServedError::NotFound(message) => ErrorData::invalid_params(message, None),
        other => {
            tracing::error!(error = %other, "MCP read failed");
            ErrorData::internal_error("the registry could not read the skill: retry in a moment", None)
        }
    }
}

impl ServerHandler for CairnMcp {
    fn get_info(&self) -> ServerConfig {
        cairn_wire::mcp::server_config(
            Implementation::new("cairn-registry", env!("CARGO_PKG_VERSION")).with_title("Cairn"),
            INSTRUCTIONS,
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let may_write = write_refusal(principal(http_parts(&context)?)?).is_none();
        let tools = self
            .tools
            .list_all()
            .into_iter()
            .filter(|tool| may_write || !WRITE_TOOLS.contains(&tool.name.as_ref()))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.tools.get(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if WRITE_TOOLS.contains(&request.name.as_ref())
            && let Some(refusal) = write_refusal(principal(http_parts(&context)?)?)
        {
            return Ok(CallToolResult::error(vec![ContentBlock::text(refusal)]).into());
        }
        let name = request.name.clone();
        let answer = self.tools.call(ToolCallContext::new(self, request, context)).await?;
        Ok(explain_argument_errors(&name, answer))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let principal = principal(http_parts(&context)?)?;
        let after = request.and_then(|r| r.cursor);
        let (page, next) = served::page(&self.state, principal.org_id, after.as_deref(), PAGE)
            .await
            .map_err(protocol_error)?;
        let resources = page
            .into_iter()
            .map(|(entry, _)| {
                let uri = SkillFileUri::new(&principal.org_slug, &entry.name, None, cairn_skill::path::SKILL_MD);
                Resource::new(uri.render(), entry.name.clone())
                    .with_description(entry.description.clone())
                    .with_mime_type("text/markdown")
            })
            .collect();
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = next;
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let org = &principal(http_parts(&context)?)?.org_slug;
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new(format!("skill://{org}/{{name}}/{{+path}}"), "skill-file")
                .with_description("A file of a skill's latest approved revision (SKILL.md, references/…)"),
            ResourceTemplate::new(
                format!("skill://{org}/@{{revision}}/{{name}}/{{+path}}"),
                "skill-file-pinned",
            )
            .with_description("A file of one approved revision of a skill"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let principal = principal(http_parts(&context)?)?;
        let uri = self.served_uri(principal, &request.uri)?;
        let loaded = served::load(&self.state, principal.org_id, &uri.skill, uri.revision)
            .await
            .map_err(protocol_error)?;
        let (entry, bytes) = served::read(&self.state, &loaded, &uri.path)
            .await
            .map_err(protocol_error)?;
        let contents = cairn_wire::mcp::resource_contents(&request.uri, &entry.path, bytes.to_vec());
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let principal = principal(http_parts(&context)?)?;
        let after = request.and_then(|r| r.cursor);
        let (page, next) = served::page(&self.state, principal.org_id, after.as_deref(), PAGE)
            .await
            .map_err(protocol_error)?;
        let entries = page
            .iter()
            .filter_map(|(entry, frontmatter)| {
                skills::entry(
                    &principal.org_slug,
                    &entry.name,
                    Some(entry.revision),
                    frontmatter,
                    manifest(&entry.files),
                )
            })
            .collect();
        let mut result = ListSkillsResult::with_all_items(entries);
        result.next_cursor = next;
        Ok(result)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let principal = principal(http_parts(&context)?)?;
        let uri = self.served_uri(principal, &request.uri)?;
        if uri.path != cairn_skill::path::SKILL_MD {
            return Err(ErrorData::invalid_params(
                format!(
                    "'{}' is not the URI of a SKILL.md: ask for the skill's SKILL.md",
                    request.uri
                ),
                None,
            ));
        }
        let loaded = served::load(&self.state, principal.org_id, &uri.skill, uri.revision)
            .await
            .map_err(protocol_error)?;
        let frontmatter = served::frontmatter(&self.state, principal.org_id, &loaded)
            .await
            .map_err(protocol_error)?;
        let skill = skills::entry(
            &principal.org_slug,
            &uri.skill,
            // In the form asked (the SDK holds an answer to the request's URI): a pinned
            // URI, as skills/list gives, answers that revision's URIs.
            uri.revision,
            &frontmatter,
            manifest(&loaded.0.files),
        )
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!(
                    "'{}' cannot be described as an Agent Skill (its name or frontmatter name is outside the \
                         format): load it with the load_skill tool instead",
                    uri.skill
                ),
                None,
            )
        })?;
        Ok(GetSkillResult::new(skill))
    }
}

impl CairnMcp {
    /// A URI of the caller's organisation, parsed.
    fn served_uri(&self, principal: &Principal, raw: &str) -> Result<SkillFileUri, ErrorData> {
        let uri = SkillFileUri::parse(raw).map_err(|message| ErrorData::invalid_params(message, None))?;
        if uri.org != principal.org_slug {
            return Err(ErrorData::invalid_params(
                format!(
                    "'{raw}' names the organisation '{}', but this token reads '{}': use skill://{}/…",
                    uri.org, principal.org_slug, principal.org_slug
                ),
                None,
            ));
        }
        Ok(uri)
    }
}

/// A stored manifest as the Skills extension lists it.
fn manifest(files: &[cairn_store::FileEntry]) -> impl Iterator<Item = skills::ManifestFile<'_>> {
    files
        .iter()
        .map(|f| (f.path.as_str(), f.sha256.as_str(), f.size.max(0).unsigned_abs()))
}

/// The SDK's answer to arguments that do not fit a tool's schema, with what to do next.
fn explain_argument_errors(tool: &str, answer: CallToolResponse) -> CallToolResponse {
    let CallToolResponse::Complete(mut result) = answer else {
        return answer;
    };
    if result.is_error == Some(true)
        && let [block] = result.content.as_mut_slice()
        && let Some(text) = block.as_text().map(|t| t.text.clone())
        && let Some(reason) = text.strip_prefix("failed to deserialize parameters: ")
    {
        *block = ContentBlock::text(format!(
            "the arguments do not fit {tool}'s input schema: {reason}; send the fields its schema (tools/list) names"
        ));
    }
    CallToolResponse::Complete(result)
}
