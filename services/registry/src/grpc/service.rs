//! The `cairn.v1.Registry` service: each RPC reads its request, calls the application
//! services REST uses, and converts the answer. The gate in front (shared with REST)
//! has already authenticated the caller and checked the authorization table.

use std::pin::Pin;

use cairn_proto::v1 as pb;
use cairn_proto::v1::registry_server::Registry;
use cairn_skill::SkillName;
use cairn_store::RevisionSelector;
use futures::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use super::convert;
use crate::AppState;
use crate::access::{Caller, RequestContext};
use crate::app::live::{WatchError, WatchEvent, Watcher};
use crate::app::patches::{self, Listing, Submission};
use crate::app::{blobs, catalog, index, live};
use crate::auth::Principal;
use crate::error::ApiError;

/// Largest piece of a blob in one `BlobChunk`.
pub const BLOB_CHUNK_BYTES: usize = 1 << 20;

/// The registry service over the shared application state.
#[derive(Clone)]
pub struct RegistryService {
    state: AppState,
}

impl RegistryService {
    /// The service answering from `state`.
    pub fn new(state: AppState) -> Self {
        RegistryService { state }
    }
}

/// A boxed server stream.
type ServerStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

/// The caller the gate established for this request.
pub(super) fn caller<T>(request: &Request<T>) -> Result<Caller, Status> {
    let principal = request.extensions().get::<Principal>().cloned();
    let context = request.extensions().get::<RequestContext>().cloned();
    match (principal, context) {
        (Some(principal), Some(context)) => Ok(Caller { principal, context }),
        _ => Err(ApiError::internal("a gRPC method is routed as public", &"missing principal").into()),
    }
}

/// Maps any error the REST handlers map, the same way.
pub(super) fn fail(error: impl Into<ApiError>) -> Status {
    Status::from(error.into())
}

/// Checks a client's cursor.
pub(super) fn cursor(since: Option<i64>) -> Result<Option<i64>, Status> {
    match since {
        Some(since) if since < 0 => Err(super::invalid(format!(
            "since {since} is not valid: pass the cursor of a previous index response or change, or omit it"
        ))),
        other => Ok(other),
    }
}

fn skill_name(raw: &str) -> Result<SkillName, Status> {
    SkillName::parse(raw).map_err(|e| super::invalid(e.to_string()))
}

#[tonic::async_trait]
impl Registry for RegistryService {
    /// The typed answer. The router serves `GetIndex` from the pre-encoded index instead
    /// (`index_route`), which encodes exactly this message.
    async fn get_index(&self, request: Request<pb::GetIndexRequest>) -> Result<Response<pb::GetIndexResponse>, Status> {
        let caller = caller(&request)?;
        let since = cursor(request.into_inner().since)?;
        let org_id = caller.principal.org_id;
        let newest = index::current_cursor(&self.state, org_id, since).await.map_err(fail)?;
        let response = match since {
            None => {
                let full = index::full(&self.state, org_id, newest).await.map_err(fail)?;
                pb::GetIndexResponse {
                    cursor: full.cursor,
                    skills: full.entries.values().map(|e| convert::index_entry(e)).collect(),
                    removed: Vec::new(),
                }
            }
            Some(since) => convert::index_delta(index::delta(&self.state, org_id, since).await.map_err(fail)?),
        };
        Ok(Response::new(response))
    }

    type WatchIndexStream = ServerStream<pb::IndexChange>;

    async fn watch_index(
        &self,
        request: Request<pb::WatchIndexRequest>,
    ) -> Result<Response<Self::WatchIndexStream>, Status> {
        let caller = caller(&request)?;
        let since = cursor(request.into_inner().since)?;
        let watcher = Watcher {
            auth: self.state.auth.clone(),
            principal: caller.principal,
        };
        let changes = live::watch(&self.state.store, &self.state.live, watcher, since)
            .await
            .map_err(fail)?;
        let stream = changes.map(|event| match event {
            Ok(WatchEvent::Change(change)) => Ok(convert::change(&change)),
            Ok(WatchEvent::Heartbeat { cursor }) => Ok(convert::heartbeat(cursor)),
            Err(WatchError::Unauthorized(denied)) => Err(fail(denied)),
            Err(e) => {
                tracing::warn!(error = %e, "a watch ended");
                Err(Status::unavailable(
                    "the registry could not read further changes: call WatchIndex again with since set to the last cursor received",
                ))
            }
        });
        Ok(Response::new(Box::pin(stream)))
    }

    type GetBlobsStream = ServerStream<pb::BlobChunk>;

    async fn get_blobs(&self, request: Request<pb::GetBlobsRequest>) -> Result<Response<Self::GetBlobsStream>, Status> {
        let caller = caller(&request)?;
        let ids = blobs::visible_batch(&self.state, caller.principal.org_id, &request.into_inner().sha256)
            .await
            .map_err(fail)?;
        let stream = blobs::read_all(self.state.blobs.clone(), ids).flat_map(|read| {
            let chunks: Vec<Result<pb::BlobChunk, Status>> = match read {
                Ok((sha256, bytes)) => chunks(&sha256, &bytes).into_iter().map(Ok).collect(),
                Err(e) => vec![Err(fail(e))],
            };
            futures::stream::iter(chunks)
        });
        Ok(Response::new(Box::pin(stream)))
    }

    async fn get_skill(&self, request: Request<pb::GetSkillRequest>) -> Result<Response<pb::GetSkillResponse>, Status> {
        let caller = caller(&request)?;
        let request = request.into_inner();
        let name = skill_name(&request.name)?;
        let selector = match request.revision {
            None => RevisionSelector::Latest,
            Some(rev) if rev >= 1 => RevisionSelector::Exact(rev),
            Some(rev) => {
                return Err(super::invalid(format!(
                    "revision {rev} is not valid: use a positive number, or omit it for the latest"
                )));
            }
        };
        let (resolved, files) =
            catalog::version_with_files(&self.state.store, caller.principal.org_id, name.as_str(), selector)
                .await
                .map_err(fail)?;
        Ok(Response::new(pb::GetSkillResponse {
            version: Some(convert::version(name.as_str(), resolved.version, &files)),
            skill: Some(convert::skill(resolved.skill)),
        }))
    }

    async fn submit_patch(&self, request: Request<pb::SubmitPatchRequest>) -> Result<Response<pb::Patch>, Status> {
        let caller = caller(&request)?;
        let request = request.into_inner();
        let submission = Submission {
            ops: convert::ops_to_json(&request.ops)?,
            skill: request.skill,
            base_revision: request.base_revision,
            summary: request.summary,
            rationale: request.rationale,
            agent: convert::agent_in(request.agent),
            category: request.category,
            supersedes: request
                .supersedes
                .as_deref()
                .map(patches::parse_id)
                .transpose()
                .map_err(fail)?,
        };
        let record = patches::submit(&self.state, &caller.principal, &caller.actor(), submission)
            .await
            .map_err(fail)?;
        Ok(Response::new(convert::patch(record)))
    }

    async fn get_patch(&self, request: Request<pb::GetPatchRequest>) -> Result<Response<pb::Patch>, Status> {
        let caller = caller(&request)?;
        let id = patches::parse_id(&request.get_ref().id).map_err(fail)?;
        let review = patches::conversation::read(&self.state, &caller.principal, id)
            .await
            .map_err(fail)?;
        Ok(Response::new(convert::review(review)))
    }

    async fn list_patches(
        &self,
        request: Request<pb::ListPatchesRequest>,
    ) -> Result<Response<pb::ListPatchesResponse>, Status> {
        let caller = caller(&request)?;
        let request = request.into_inner();
        let listing = Listing {
            statuses: patches::status_filter(request.status.as_deref()),
            skill: request.skill.filter(|s| !s.is_empty()),
            author: request.author.filter(|s| !s.is_empty()),
            verdict: request.verdict.filter(|s| !s.is_empty()),
            skill_contains: request.skill_contains,
            author_contains: request.author_contains,
            review_requested: request.review_requested,
            sort: request.sort,
            cursor: request.cursor,
            limit: (request.limit > 0).then_some(i64::from(request.limit)),
        };
        let (rows, next_cursor) = patches::list(&self.state, &caller.principal, listing)
            .await
            .map_err(fail)?;
        Ok(Response::new(pb::ListPatchesResponse {
            patches: rows.into_iter().map(convert::summary).collect(),
            next_cursor,
        }))
    }

    async fn review_patch(&self, request: Request<pb::ReviewPatchRequest>) -> Result<Response<pb::Patch>, Status> {
        use pb::review_patch_request::Decision;
        let caller = caller(&request)?;
        let request = request.into_inner();
        let id = patches::parse_id(&request.id).map_err(fail)?;
        let record = match Decision::try_from(request.decision) {
            Ok(Decision::Approve) => {
                let how = patches::Approve {
                    comment: request.comment.as_deref(),
                    close_duplicates: if request.close_duplicates {
                        patches::CloseDuplicates::All
                    } else {
                        patches::CloseDuplicates::None
                    },
                    round: None,
                };
                patches::approve(&self.state, &caller.principal, &caller.actor(), id, how).await
            }
            Ok(Decision::Reject) => {
                let comment = request.comment.unwrap_or_default();
                patches::reject(&self.state, &caller.principal, &caller.actor(), id, &comment).await
            }
            _ => {
                return Err(super::invalid(
                    "decision is not set: use APPROVE or REJECT (rejecting needs a comment)",
                ));
            }
        }
        .map_err(fail)?;
        Ok(Response::new(convert::patch(record)))
    }

    async fn review_patches(
        &self,
        request: Request<pb::ReviewPatchesRequest>,
    ) -> Result<Response<pb::ReviewPatchesResponse>, Status> {
        use pb::review_patch_request::Decision;
        let caller = caller(&request)?;
        let request = request.into_inner();
        let ids = request
            .ids
            .iter()
            .map(|id| patches::parse_id(id))
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        let action = match Decision::try_from(request.decision) {
            Ok(Decision::Approve) => patches::BatchAction::Approve {
                comment: request.comment,
                close_duplicates: request.close_duplicates,
                shown: Vec::new(),
            },
            Ok(Decision::Reject) => patches::BatchAction::Reject {
                comment: request.comment.unwrap_or_default(),
            },
            _ => {
                return Err(super::invalid(
                    "decision is not set: use APPROVE or REJECT (rejecting needs a comment)",
                ));
            }
        };
        let outcomes = patches::review_batch(&self.state, &caller.principal, &caller.actor(), &ids, &action)
            .await
            .map_err(fail)?;
        let results = outcomes
            .into_iter()
            .map(|outcome| match outcome.result {
                Ok(record) => pb::ReviewOutcome {
                    id: outcome.id.to_string(),
                    patch: Some(convert::patch(record)),
                    error_code: None,
                    error_message: None,
                },
                Err(e) => {
                    let error = ApiError::from(e);
                    pb::ReviewOutcome {
                        id: outcome.id.to_string(),
                        patch: None,
                        error_code: Some(error.code().to_owned()),
                        error_message: Some(error.message().to_owned()),
                    }
                }
            })
            .collect();
        Ok(Response::new(pb::ReviewPatchesResponse { results }))
    }

    async fn withdraw_patch(&self, request: Request<pb::WithdrawPatchRequest>) -> Result<Response<pb::Patch>, Status> {
        let caller = caller(&request)?;
        let id = patches::parse_id(&request.get_ref().id).map_err(fail)?;
        let record = patches::withdraw(&self.state, &caller.principal, &caller.actor(), id)
            .await
            .map_err(fail)?;
        Ok(Response::new(convert::patch(record)))
    }

    async fn comment_on_patch(
        &self,
        request: Request<pb::CommentOnPatchRequest>,
    ) -> Result<Response<pb::ReviewComment>, Status> {
        let caller = caller(&request)?;
        let request = request.into_inner();
        let id = patches::parse_id(&request.id).map_err(fail)?;
        let anchor = match (request.file, request.line) {
            (Some(file), Some(line)) => Some(patches::conversation::AnchorRequest {
                file,
                line,
                end_line: request.end_line,
                side: request.side,
            }),
            (None, None) if request.end_line.is_none() && request.side.is_none() => None,
            _ => {
                return Err(super::invalid(
                    "a comment on lines needs both file and line (and optionally end_line, side); leave all four out to comment on the patch",
                ));
            }
        };
        let remark = patches::conversation::Remark {
            body: &request.body,
            reply_to: request.reply_to,
            anchor,
            round: request.round,
        };
        let stored = patches::conversation::comment(&self.state, &caller.principal, &caller.actor(), id, remark)
            .await
            .map_err(fail)?;
        Ok(Response::new(convert::comment(stored)))
    }

    async fn request_changes(
        &self,
        request: Request<pb::RequestChangesRequest>,
    ) -> Result<Response<pb::Patch>, Status> {
        let caller = caller(&request)?;
        let request = request.into_inner();
        let id = patches::parse_id(&request.id).map_err(fail)?;
        let review = patches::conversation::request_changes(
            &self.state,
            &caller.principal,
            &caller.actor(),
            id,
            &request.comment,
            request.round,
        )
        .await
        .map_err(fail)?;
        Ok(Response::new(convert::review(review)))
    }

    async fn revise_patch(&self, request: Request<pb::RevisePatchRequest>) -> Result<Response<pb::Patch>, Status> {
        let caller = caller(&request)?;
        let request = request.into_inner();
        let id = patches::parse_id(&request.id).map_err(fail)?;
        let revision = patches::rounds::Revision {
            base_revision: request.base_revision,
            ops: convert::ops_to_json(&request.ops)?,
            summary: request.summary,
            rationale: request.rationale,
            agent: request.agent.map(|a| convert::agent_in(Some(a))),
        };
        patches::rounds::revise(&self.state, &caller.principal, &caller.actor(), id, revision)
            .await
            .map_err(fail)?;
        let review = patches::conversation::read(&self.state, &caller.principal, id)
            .await
            .map_err(fail)?;
        Ok(Response::new(convert::review(review)))
    }
}

/// A blob as chunks of at most [`BLOB_CHUNK_BYTES`] (an empty blob is one empty chunk).
fn chunks(sha256: &str, bytes: &bytes::Bytes) -> Vec<pb::BlobChunk> {
    let size = bytes.len();
    let mut out = Vec::with_capacity(size / BLOB_CHUNK_BYTES + 1);
    let mut offset = 0;
    loop {
        let end = (offset + BLOB_CHUNK_BYTES).min(size);
        out.push(pb::BlobChunk {
            sha256: sha256.to_owned(),
            offset: offset as i64,
            size: size as i64,
            data: bytes.slice(offset..end).to_vec(),
            last: end == size,
        });
        if end == size {
            return out;
        }
        offset = end;
    }
}
