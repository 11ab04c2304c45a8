//! Domain values to `cairn.v1` messages and back. Only shapes change here: every rule
//! lives in the application services both transports call.

use base64::Engine as _;
use cairn_pipeline::report::PatchReport;
use cairn_proto::v1 as pb;
use cairn_store::{FileEntry, IndexEntry, PatchRecord, SkillSummary, VersionInfo};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use tonic::Status;

use crate::app::live::{Change, ChangeKind};
use crate::app::patches::AgentInfo;

/// A protobuf timestamp.
pub fn timestamp(at: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: at.timestamp(),
        nanos: i32::try_from(at.timestamp_subsec_nanos()).unwrap_or(0),
    }
}

/// A manifest entry.
pub fn file(f: &FileEntry) -> pb::FileEntry {
    pb::FileEntry {
        path: f.path.clone(),
        sha256: f.sha256.clone(),
        size: f.size,
        executable: f.executable,
    }
}

/// An index entry.
pub fn index_entry(e: &IndexEntry) -> pb::IndexEntry {
    pb::IndexEntry {
        name: e.name.clone(),
        category: e.category.clone(),
        description: e.description.clone(),
        revision: e.revision,
        digest: e.digest.clone(),
        updated_at: Some(timestamp(e.updated_at)),
        files: e.files.iter().map(file).collect(),
    }
}

/// A delta of the index.
pub fn index_delta(delta: cairn_store::IndexSnapshot) -> pb::GetIndexResponse {
    pb::GetIndexResponse {
        cursor: delta.cursor,
        skills: delta.skills.iter().map(index_entry).collect(),
        removed: delta.removed,
    }
}

/// A live change.
pub fn change(c: &Change) -> pb::IndexChange {
    use pb::index_change::Kind;
    let kind = match c.kind {
        ChangeKind::Published => Kind::Published,
        ChangeKind::Yanked => Kind::Yanked,
        ChangeKind::Unyanked => Kind::Unyanked,
        ChangeKind::Recategorized => Kind::Recategorized,
    };
    pb::IndexChange {
        cursor: c.cursor,
        kind: kind.into(),
        name: c.name.clone(),
        revision: c.revision,
        entry: c.entry.as_deref().map(index_entry),
    }
}

/// A heartbeat of a watch.
pub fn heartbeat(cursor: i64) -> pb::IndexChange {
    pb::IndexChange {
        cursor,
        kind: pb::index_change::Kind::Heartbeat.into(),
        ..Default::default()
    }
}

/// A skill.
pub fn skill(s: SkillSummary) -> pb::Skill {
    pb::Skill {
        name: s.name,
        category: s.category,
        description: s.description,
        latest_revision: s.latest_revision,
        digest: s.digest,
        version_count: s.version_count,
        created_at: Some(timestamp(s.created_at)),
        updated_at: Some(timestamp(s.updated_at)),
    }
}

/// A version with its manifest.
pub fn version(name: &str, v: VersionInfo, files: &[FileEntry]) -> pb::Version {
    pb::Version {
        name: name.to_owned(),
        revision: v.revision,
        digest: v.digest,
        description: v.description,
        frontmatter_json: v.frontmatter.0.to_string(),
        file_count: v.file_count,
        total_size: v.total_size,
        source: v.source,
        published_by: v.published_by,
        yanked: v.yanked,
        created_at: Some(timestamp(v.created_at)),
        files: files.iter().map(file).collect(),
        patch: v.patch_id.map(|p| p.to_string()),
        contributors: v
            .contributors
            .0
            .as_array()
            .map(|list| {
                list.iter()
                    .map(|c| pb::Contributor {
                        patch: c.get("patch").and_then(Value::as_str).unwrap_or_default().to_owned(),
                        author: c.get("author").and_then(Value::as_str).unwrap_or_default().to_owned(),
                        agent: Some(agent_out(c.get("agent").unwrap_or(&Value::Null))),
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}

/// The JSON ops the pipeline reads (the shape of `POST /v1/patches`), from messages.
pub fn ops_to_json(ops: &[pb::Op]) -> Result<Value, Status> {
    use pb::op::Op as Kind;
    let mut out = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let Some(kind) = &op.op else {
            return Err(super::invalid(format!(
                "op {i} has no kind: set one of create, edit, patch, write_file, remove_file, delete"
            )));
        };
        out.push(match kind {
            Kind::Create(c) => match &c.category {
                Some(category) => json!({"op": "create", "content": c.content, "category": category}),
                None => json!({"op": "create", "content": c.content}),
            },
            Kind::Edit(e) => json!({"op": "edit", "content": e.content}),
            Kind::Patch(p) => {
                let file = if p.file.is_empty() {
                    cairn_skill::path::SKILL_MD
                } else {
                    &p.file
                };
                json!({"op": "patch", "file": file, "old": p.old, "new": p.new, "replace_all": p.replace_all})
            }
            Kind::WriteFile(w) => match &w.content {
                Some(pb::op::write_file::Content::Text(text)) => {
                    json!({"op": "write_file", "file": w.file, "content": text})
                }
                Some(pb::op::write_file::Content::Data(data)) => json!({
                    "op": "write_file", "file": w.file,
                    "content_base64": base64::engine::general_purpose::STANDARD.encode(data),
                }),
                None => {
                    return Err(super::invalid(format!(
                        "op {i} (write_file) has no content: set text or data"
                    )));
                }
            },
            Kind::RemoveFile(r) => json!({"op": "remove_file", "file": r.file}),
            Kind::Delete(_) => json!({"op": "delete"}),
        });
    }
    Ok(Value::Array(out))
}

/// Messages from stored ops (validated when the patch was submitted).
fn ops_from_json(ops: &Value) -> Vec<pb::Op> {
    use cairn_pipeline::ops::Op;
    use pb::op::Op as Kind;
    let Ok(ops) = serde_json::from_value::<Vec<Op>>(ops.clone()) else {
        return Vec::new();
    };
    ops.into_iter()
        .map(|op| {
            let kind = match op {
                Op::Create { content, category } => Kind::Create(pb::op::Create { content, category }),
                Op::Edit { content } => Kind::Edit(pb::op::Edit { content }),
                Op::Patch {
                    file,
                    old,
                    new,
                    replace_all,
                } => Kind::Patch(pb::op::Patch {
                    file,
                    old,
                    new,
                    replace_all,
                }),
                Op::WriteFile {
                    file,
                    content,
                    content_base64,
                } => {
                    let content = match (content, content_base64) {
                        (Some(text), _) => Some(pb::op::write_file::Content::Text(text)),
                        (None, Some(encoded)) => base64::engine::general_purpose::STANDARD
                            .decode(encoded)
                            .ok()
                            .map(pb::op::write_file::Content::Data),
                        (None, None) => None,
                    };
                    Kind::WriteFile(pb::op::WriteFile { file, content })
                }
                Op::RemoveFile { file } => Kind::RemoveFile(pb::op::RemoveFile { file }),
                Op::Delete => Kind::Delete(pb::op::Delete {}),
            };
            pb::Op { op: Some(kind) }
        })
        .collect()
}

/// The agent of a submission.
pub fn agent_in(agent: Option<pb::Agent>) -> AgentInfo {
    let agent = agent.unwrap_or_default();
    AgentInfo {
        name: agent.name,
        model: agent.model,
        session: agent.session,
        via: None,
    }
}

fn agent_out(agent: &Value) -> pb::Agent {
    let text = |key: &str| agent.get(key).and_then(Value::as_str).map(str::to_owned);
    pb::Agent {
        name: text("name"),
        model: text("model"),
        session: text("session"),
    }
}

fn scan(s: cairn_scanner::Report) -> pb::ScanReport {
    pb::ScanReport {
        verdict: s.verdict.as_str().to_owned(),
        findings: s
            .findings
            .into_iter()
            .map(|f| pb::Finding {
                rule: f.rule,
                category: f.category,
                severity: f.severity.as_str().to_owned(),
                file: f.file,
                line: count(f.line),
                column: count(f.column),
                excerpt: f.excerpt,
                message: f.message,
                hint: f.hint,
                introduced: f.introduced,
            })
            .collect(),
    }
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn file_diffs(diff: Vec<cairn_pipeline::diff::FileDiff>) -> Vec<pb::FileDiff> {
    diff.into_iter()
        .map(|d| pb::FileDiff {
            file: d.file,
            change: match d.change {
                cairn_pipeline::diff::Change::Added => "added",
                cairn_pipeline::diff::Change::Removed => "removed",
                cairn_pipeline::diff::Change::Modified => "modified",
            }
            .to_owned(),
            unified: d.unified,
            binary: d.binary,
            mode_changed: d.mode_changed,
        })
        .collect()
}

fn rebase(r: cairn_pipeline::report::RebaseReport) -> pb::Rebase {
    pb::Rebase {
        base_digest: r.base_digest,
        onto_digest: r.onto_digest,
        rebased: r.rebased,
        merged_files: r.merged_files,
        conflicts: r
            .conflicts
            .into_iter()
            .map(|c| pb::FileConflict {
                file: c.file,
                reason: c.reason,
                hunks: c
                    .hunks
                    .into_iter()
                    .map(|h| pb::ConflictHunk {
                        patch: h.patch,
                        base: h.base,
                        latest: h.latest,
                    })
                    .collect(),
                marked: c.marked,
            })
            .collect(),
        files: r
            .files
            .into_iter()
            .map(|f| pb::FilePlacement {
                file: f.file,
                placement: f.placement.as_str().to_owned(),
                detail: f.detail,
            })
            .collect(),
        ops: r
            .ops
            .into_iter()
            .map(|o| pb::OpPlacement {
                index: count(o.index),
                op: o.op,
                file: o.file,
                placement: o.placement.as_str().to_owned(),
                strategy: o.strategy.map(|s| s.as_str().to_owned()),
                lines: o.lines.into_iter().map(count).collect(),
            })
            .collect(),
    }
}

/// A whole patch (GetPatch, and the answers of submit and review).
pub fn patch(p: PatchRecord) -> pb::Patch {
    let report = PatchReport::from_stored(&p.report);
    let match_report = report
        .ops
        .into_iter()
        .map(|o| pb::OpMatch {
            index: count(o.index),
            op: o.op,
            file: o.file,
            strategy: o.strategy.map(|s| s.as_str().to_owned()),
            similarity: o.similarity,
            lines: o.lines.into_iter().map(count).collect(),
        })
        .collect();
    pb::Patch {
        match_report,
        rebase: Some(rebase(report.rebase)),
        scan: report.scan.map(scan),
        diff: file_diffs(report.diff),
        authored_diff: file_diffs(report.authored_diff),
        decision: report.decision.map(|d| d.as_str().to_owned()),
        ops: ops_from_json(&p.ops),
        ..summary(p)
    }
}

/// A patch in a list: without ops and reports, the scan reduced to its verdict.
pub fn summary(p: PatchRecord) -> pb::Patch {
    let requested = p.outstanding_request().map(|(by, at)| (by.to_owned(), timestamp(at)));
    let verdict = PatchReport::from_stored(&p.report)
        .verdict()
        .map(|v| v.as_str().to_owned());
    pb::Patch {
        id: p.id.to_string(),
        skill: p.skill_name,
        base_revision: p.base_revision,
        status: p.status,
        author: p.author,
        agent: Some(agent_out(&p.agent)),
        summary: p.summary,
        rationale: p.rationale,
        scan: verdict.map(|verdict| pb::ScanReport {
            verdict,
            findings: Vec::new(),
        }),
        candidate_digest: p.candidate_digest,
        result_revision: p.result_revision,
        created_at: Some(timestamp(p.created_at)),
        decided_by: p.decided_by,
        decided_at: p.decided_at.map(timestamp),
        comment: p.comment,
        supersedes: p.supersedes.map(|id| id.to_string()),
        superseded_by: p.superseded_by.map(|id| id.to_string()),
        resolved_by: p.resolved_by,
        duplicate: p.duplicate.map(|d| pb::DuplicateMark {
            patch: d.patch.map(|id| id.to_string()),
            revision: d.revision,
            file: d.file,
            line: d.line.map(count),
            excerpt: d.excerpt,
            similarity: d.similarity,
        }),
        duplicate_group: p.duplicate_group.map(|id| id.to_string()),
        duplicate_of: p.duplicate_of.map(|id| id.to_string()),
        round: p.round,
        changed_lines: p.changed_lines,
        changes_requested_at: requested.as_ref().map(|(_, at)| *at),
        changes_requested_by: requested.map(|(by, _)| by),
        ..Default::default()
    }
}

/// A patch as read with its conversation: threads and owners (GetPatch and the
/// conversation RPCs answer with it).
pub fn review(review: crate::app::patches::conversation::Review) -> pb::Patch {
    pb::Patch {
        threads: review.threads.into_iter().map(thread).collect(),
        owners: review
            .owners
            .into_iter()
            .map(|o| pb::SkillOwner {
                handle: o.handle,
                via: o.kind,
                name: o.name,
            })
            .collect(),
        ..patch(review.patch)
    }
}

/// One stored comment.
pub fn comment(c: cairn_store::CommentRecord) -> pb::ReviewComment {
    pb::ReviewComment {
        id: c.id,
        author: c.author,
        kind: c.kind,
        body: c.body,
        created_at: Some(timestamp(c.created_at)),
        reply_to: c.reply_to,
        round: c.round,
    }
}

/// A thread: its first comment (where it sits) and its answers.
pub fn thread(t: crate::app::patches::conversation::Thread) -> pb::ReviewThread {
    let anchor = t.first.anchor.clone();
    pb::ReviewThread {
        id: t.first.id,
        file: anchor.as_ref().map(|a| a.file.clone()),
        line: anchor.as_ref().map(|a| a.line),
        end_line: anchor.as_ref().map(|a| a.end_line),
        side: anchor.map(|a| a.side),
        round: t.first.round,
        comments: std::iter::once(t.first).chain(t.replies).map(comment).collect(),
    }
}
