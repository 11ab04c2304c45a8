//! The tools agents call (docs/MCP.md): each parses its arguments, calls one use case of
//! `app`, and answers structured content an agent can act on. Failures are tool errors
//! (`isError`), so the agent reads what to do next; the registry's internals are logged,
//! never shown.

use axum::http::header;
use axum::http::request::Parts;
use cairn_wire::mcp::ToolFailure;
use cairn_wire::mcp::uri::SkillFileUri;
use cairn_wire::mcp::{
    Conflict, FileText, Finding, GetPatchArgs, ListMineArgs, LoadArgs, LoadedSkill, MyPatches, PatchLine, PatchState,
    ProposePatchArgs, ProposeSkillArgs, ReadFileArgs, Remark, SearchAnswer, SearchArgs, SkillFile, SkillHit,
};
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, tool, tool_router};

use super::client;
use super::server::{CairnMcp, principal};
use crate::access::prefix::OrgPrefix;
use crate::access::{Caller, RequestContext as HttpContext, forwarded_https};
use crate::app::patches::{self, PatchError, Submission, conversation};
use crate::app::served::{self, ServedError};
use crate::auth::Principal;

/// A tool's failure, as the agent reads it.
type Failure = ToolFailure;

/// A failure the agent can act on.
fn failure(message: impl Into<String>) -> Failure {
    ToolFailure(message.into())
}

/// A served read's failure.
fn served_failure(error: ServedError) -> Failure {
    match error {
        ServedError::Invalid(message) | ServedError::NotFound(message) => failure(message),
        other => {
            tracing::error!(error = %other, "MCP tool failed");
            failure("the registry could not read the skill: retry in a moment")
        }
    }
}

/// A patch use case's failure.
fn patch_failure(error: PatchError) -> Failure {
    match error {
        PatchError::Invalid(m)
        | PatchError::Refused(m)
        | PatchError::NotFound(m)
        | PatchError::Forbidden(m)
        | PatchError::State(m)
        | PatchError::TooMany(m) => failure(m),
        other => {
            tracing::error!(error = %other, "MCP patch tool failed");
            failure("the registry could not record the patch: retry in a moment")
        }
    }
}

/// The caller, or the failure to name one (a route without the gate).
fn caller(parts: &Parts) -> Result<&Principal, Failure> {
    principal(parts).map_err(|e| failure(e.message.to_string()))
}

/// Where the review web shows patch `id`, as the agent reached this registry.
fn review_url(parts: &Parts, hops: usize, id: &uuid::Uuid) -> String {
    let host = parts
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| parts.uri.authority().map(|a| a.as_str()))
        .unwrap_or("localhost");
    let scheme = if forwarded_https(&parts.headers, hops) {
        "https"
    } else {
        "http"
    };
    let org = parts
        .extensions
        .get::<OrgPrefix>()
        .map(|prefix| format!("/o/{}", prefix.0))
        .unwrap_or_default();
    format!("{scheme}://{host}{org}/admin/patches/{id}")
}

/// What the author's agent does next with a patch in `status`.
fn next_step(status: &str) -> &'static str {
    match status {
        "pending_review" => {
            "wait: a reviewer decides; check again later with get_patch (the remarks say if changes are requested)"
        }
        "approved" => "done: the lesson is published; load the skill again to get the new revision",
        "rejected" => "read the decision's comment; propose again only if you can address it",
        "blocked" => {
            "the security scan judged it dangerous: read the findings, and propose a version without what they name"
        }
        "conflict" => {
            "the skill changed meanwhile and this patch does not merge: load the latest revision and propose the lesson again against it, with supersedes set to this patch's id"
        }
        "withdrawn" => "nothing: it was withdrawn",
        "superseded" => "follow the patch named in superseded_by, which carries this one on",
        "duplicate" => "nothing: another patch with the same lesson was taken instead",
        _ => "check again later with get_patch",
    }
}

impl CairnMcp {
    /// A patch as its author's agent follows it.
    fn patch_state(&self, parts: &Parts, review: conversation::Review) -> PatchState {
        let patch = review.patch;
        let report = cairn_pipeline::report::PatchReport::from_stored(&patch.report);
        let (verdict, findings) = match report.scan {
            Some(scan) => (
                Some(scan.verdict.as_str().to_owned()),
                scan.findings
                    .into_iter()
                    .map(|f| Finding {
                        rule: f.rule,
                        severity: f.severity.as_str().to_owned(),
                        file: f.file,
                        line: f.line,
                        message: f.message,
                        introduced: f.introduced,
                    })
                    .collect(),
            ),
            None => (None, Vec::new()),
        };
        let remarks = review
            .threads
            .into_iter()
            .flat_map(|t| std::iter::once(t.first).chain(t.replies))
            .map(|c| Remark {
                by: c.author,
                kind: c.kind,
                body: c.body,
                at: c.created_at,
            })
            .collect();
        PatchState {
            review_url: review_url(parts, self.state.access.trusted_proxy_hops, &patch.id),
            id: patch.id.to_string(),
            next_step: next_step(&patch.status).to_owned(),
            skill: patch.skill_name,
            status: patch.status,
            summary: patch.summary,
            base_revision: patch.base_revision,
            result_revision: patch.result_revision,
            verdict,
            findings,
            conflicts: report
                .rebase
                .conflicts
                .into_iter()
                .map(|c| Conflict {
                    file: c.file,
                    reason: c.reason,
                })
                .collect(),
            decided_by: patch.decided_by,
            decided_at: patch.decided_at,
            comment: patch.comment,
            remarks,
            superseded_by: patch.superseded_by.or(patch.duplicate_of).map(|id| id.to_string()),
            created_at: patch.created_at,
        }
    }

    /// Submits `submission` as the caller and answers the patch's state.
    async fn propose(&self, parts: &Parts, submission: Submission) -> Result<Json<PatchState>, Failure> {
        let principal = caller(parts)?;
        let context = parts
            .extensions
            .get::<HttpContext>()
            .cloned()
            .ok_or_else(|| failure("the request arrived without its context: retry in a moment"))?;
        let actor = Caller {
            principal: principal.clone(),
            context,
        }
        .actor();
        let record = patches::submit(&self.state, principal, &actor, submission)
            .await
            .map_err(patch_failure)?;
        let review = conversation::read(&self.state, principal, record.id)
            .await
            .map_err(patch_failure)?;
        Ok(Json(self.patch_state(parts, review)))
    }
}

#[tool_router(vis = "pub(super)")]
impl CairnMcp {
    /// Finds the team's skills for a task.
    #[tool(
        description = "Search the team's reviewed skills by a few words about your task. Answers each skill's name, \
                       description, latest revision and digest; load_skill the ones that fit before you start.",
        annotations(title = "Search team skills", read_only_hint = true, open_world_hint = false)
    )]
    async fn search_skills(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<Json<SearchAnswer>, Failure> {
        let principal = caller(&parts)?;
        let limit = cairn_wire::mcp::search_limit(args.limit).map_err(failure)?;
        let found = served::search(
            &self.state,
            principal.org_id,
            &args.query,
            args.category.as_deref(),
            limit,
        )
        .await
        .map_err(served_failure)?;
        let skills = found
            .iter()
            .map(|e| SkillHit {
                uri: SkillFileUri::new(&principal.org_slug, &e.name, None, cairn_skill::path::SKILL_MD).render(),
                name: e.name.clone(),
                description: e.description.clone(),
                category: e.category.clone(),
                revision: e.revision,
                digest: e.digest.clone(),
            })
            .collect();
        Ok(Json(SearchAnswer { skills }))
    }

    /// Loads a skill: its SKILL.md and file list.
    #[tool(
        description = "Load a team skill: its whole SKILL.md and the list of its other files (read them with \
                       read_skill_file). Use the revision it answers as base_revision when you propose a change.",
        annotations(title = "Load a skill", read_only_hint = true, open_world_hint = false)
    )]
    async fn load_skill(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<LoadArgs>,
    ) -> Result<Json<LoadedSkill>, Failure> {
        let principal = caller(&parts)?;
        let loaded = served::load(&self.state, principal.org_id, &args.name, args.revision)
            .await
            .map_err(served_failure)?;
        let (_, bytes) = served::read(&self.state, &loaded, cairn_skill::path::SKILL_MD)
            .await
            .map_err(served_failure)?;
        let version = &loaded.0;
        let name = &loaded.0.name;
        let files = loaded
            .0
            .files
            .iter()
            .map(|f| SkillFile {
                uri: SkillFileUri::new(&principal.org_slug, name, Some(version.revision), &f.path).render(),
                path: f.path.clone(),
                size: f.size,
                sha256: f.sha256.clone(),
            })
            .collect();
        Ok(Json(LoadedSkill {
            name: name.clone(),
            revision: version.revision,
            digest: version.digest.clone(),
            category: loaded.0.category.clone(),
            skill_md: String::from_utf8_lossy(&bytes).into_owned(),
            files,
        }))
    }

    /// Reads one file of a skill.
    #[tool(
        description = "Read one file of a team skill (a reference, template or script the SKILL.md points to), \
                       from the latest revision or the one you loaded.",
        annotations(title = "Read a skill file", read_only_hint = true, open_world_hint = false)
    )]
    async fn read_skill_file(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<ReadFileArgs>,
    ) -> Result<Json<FileText>, Failure> {
        let principal = caller(&parts)?;
        let loaded = served::load(&self.state, principal.org_id, &args.name, args.revision)
            .await
            .map_err(served_failure)?;
        let (entry, bytes) = served::read(&self.state, &loaded, &args.path)
            .await
            .map_err(served_failure)?;
        Ok(Json(FileText::of(
            loaded.0.name.clone(),
            loaded.0.revision,
            entry.path,
            entry.sha256,
            bytes.to_vec(),
        )))
    }

    /// Proposes a change to a skill.
    #[tool(
        description = "Propose a lesson for a team skill (a pitfall, a fix, a missing step) as ops against the \
                       revision you loaded. It is scanned and reviewed by people before anyone's agent sees it. \
                       Answers the patch id, its state and the review link. Needs the 'submit' scope.",
        annotations(
            title = "Propose a change to a skill",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn propose_patch(
        &self,
        Extension(parts): Extension<Parts>,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<ProposePatchArgs>,
    ) -> Result<Json<PatchState>, Failure> {
        let supersedes = args
            .supersedes
            .as_deref()
            .map(|id| patches::parse_id(id.trim()))
            .transpose()
            .map_err(patch_failure)?;
        let submission = Submission {
            skill: args.skill,
            base_revision: Some(args.base_revision),
            ops: serde_json::Value::Array(args.ops),
            summary: args.summary,
            rationale: args.rationale,
            agent: client::agent(&context, &parts),
            category: None,
            supersedes,
        };
        self.propose(&parts, submission).await
    }

    /// Proposes a new skill.
    #[tool(
        description = "Propose a new team skill from its SKILL.md (frontmatter name and description, then steps and \
                       pitfalls) and optional other files. It is scanned and reviewed by people before anyone's \
                       agent sees it. Needs the 'submit' scope.",
        annotations(
            title = "Propose a new skill",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn propose_skill(
        &self,
        Extension(parts): Extension<Parts>,
        context: RequestContext<RoleServer>,
        Parameters(args): Parameters<ProposeSkillArgs>,
    ) -> Result<Json<PatchState>, Failure> {
        let submission = patches::new_skill(
            args.content,
            args.files.unwrap_or_default(),
            args.category,
            args.summary,
            args.rationale.unwrap_or_default(),
            client::agent(&context, &parts),
        )
        .map_err(patch_failure)?;
        self.propose(&parts, submission).await
    }

    /// Lists the caller's patches.
    #[tool(
        description = "List the patches you proposed (newest first, at most 50), optionally only those in a state \
                       such as 'open' or 'conflict'.",
        annotations(title = "List my proposals", read_only_hint = true, open_world_hint = false)
    )]
    async fn list_my_patches(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<ListMineArgs>,
    ) -> Result<Json<MyPatches>, Failure> {
        let principal = caller(&parts)?;
        let listing = patches::Listing {
            statuses: patches::status_filter(args.status.as_deref()),
            author: Some(principal.handle.clone()),
            limit: Some(50),
            ..Default::default()
        };
        let (records, _) = patches::list(&self.state, principal, listing)
            .await
            .map_err(patch_failure)?;
        let hops = self.state.access.trusted_proxy_hops;
        let patches = records
            .into_iter()
            .map(|p| {
                let scan = cairn_pipeline::report::PatchReport::from_stored(&p.report).scan;
                PatchLine {
                    review_url: review_url(&parts, hops, &p.id),
                    id: p.id.to_string(),
                    skill: p.skill_name,
                    next_step: next_step(&p.status).to_owned(),
                    status: p.status,
                    summary: p.summary,
                    result_revision: p.result_revision,
                    verdict: scan.as_ref().map(|s| s.verdict.as_str().to_owned()),
                    findings: scan.map_or(0, |s| s.findings.len()),
                    decided_by: p.decided_by,
                    decided_at: p.decided_at,
                    created_at: p.created_at,
                }
            })
            .collect();
        Ok(Json(MyPatches { patches }))
    }

    /// Reads one patch's state.
    #[tool(
        description = "Read a patch's state: status, what to do next, the scan's findings, conflicts, the decision \
                       and reviewers' comments.",
        annotations(title = "Read a proposal", read_only_hint = true, open_world_hint = false)
    )]
    async fn get_patch(
        &self,
        Extension(parts): Extension<Parts>,
        Parameters(args): Parameters<GetPatchArgs>,
    ) -> Result<Json<PatchState>, Failure> {
        let principal = caller(&parts)?;
        let id = patches::parse_id(args.id.trim()).map_err(patch_failure)?;
        let review = conversation::read(&self.state, principal, id)
            .await
            .map_err(patch_failure)?;
        Ok(Json(self.patch_state(&parts, review)))
    }
}
