//! Domain values to `cairn.v1` messages and back. Only shapes change here: every rule
//! lives in the application services both transports call.

use base64::Engine as _;
use cairn_proto::v1 as pb;
use cairn_store::{FileEntry, IndexEntry, PatchRecord, SkillSummary, VersionInfo};
use chrono::{DateTime, Utc};
use serde::Deserialize;
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
    }
}

/// The JSON ops the pipeline reads (the shape of `POST /v1/patches`), from messages.
pub fn ops_to_json(ops: &[pb::Op]) -> Result<Value, Status> {
    use pb::op::Op as Kind;
    let mut out = Vec::with_capacity(ops.len());
    for (i, op) in ops.iter().enumerate() {
        let Some(kind) = &op.op else {
            return Err(super::status::invalid(format!(
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
                    return Err(super::status::invalid(format!(
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

// The stored report's parts, as the pipeline serialized them.

#[derive(Deserialize)]
struct StoredOpReport {
    index: u32,
    op: String,
    file: Option<String>,
    strategy: Option<String>,
    similarity: Option<f64>,
    #[serde(default)]
    lines: Vec<u32>,
}

#[derive(Deserialize)]
struct StoredRebase {
    base_digest: Option<String>,
    onto_digest: Option<String>,
    #[serde(default)]
    rebased: bool,
    #[serde(default)]
    merged_files: Vec<String>,
    #[serde(default)]
    conflicts: Vec<StoredConflict>,
}

#[derive(Deserialize)]
struct StoredConflict {
    file: String,
    reason: String,
    #[serde(default)]
    hunks: Vec<StoredHunk>,
}

#[derive(Deserialize)]
struct StoredHunk {
    patch: String,
    base: String,
    latest: String,
}

#[derive(Deserialize)]
struct StoredScan {
    verdict: String,
    #[serde(default)]
    findings: Vec<StoredFinding>,
}

#[derive(Deserialize)]
struct StoredFinding {
    rule: String,
    category: String,
    severity: String,
    file: String,
    line: u32,
    column: u32,
    excerpt: String,
    message: String,
    hint: String,
    introduced: Option<bool>,
}

#[derive(Deserialize)]
struct StoredDiff {
    file: String,
    change: String,
    unified: String,
    binary: bool,
    mode_changed: bool,
}

fn part<T: serde::de::DeserializeOwned>(report: &Value, key: &str) -> Option<T> {
    report
        .get(key)
        .filter(|v| !v.is_null())
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

fn scan(s: StoredScan) -> pb::ScanReport {
    pb::ScanReport {
        verdict: s.verdict,
        findings: s
            .findings
            .into_iter()
            .map(|f| pb::Finding {
                rule: f.rule,
                category: f.category,
                severity: f.severity,
                file: f.file,
                line: f.line,
                column: f.column,
                excerpt: f.excerpt,
                message: f.message,
                hint: f.hint,
                introduced: f.introduced,
            })
            .collect(),
    }
}

/// A whole patch (GetPatch, and the answers of submit and review).
pub fn patch(p: PatchRecord) -> pb::Patch {
    let report = &p.report;
    let match_report = part::<Vec<StoredOpReport>>(report, "ops")
        .unwrap_or_default()
        .into_iter()
        .map(|o| pb::OpMatch {
            index: o.index,
            op: o.op,
            file: o.file,
            strategy: o.strategy,
            similarity: o.similarity,
            lines: o.lines,
        })
        .collect();
    let rebase = part::<StoredRebase>(report, "rebase").map(|r| pb::Rebase {
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
            })
            .collect(),
    });
    let diff = part::<Vec<StoredDiff>>(report, "diff")
        .unwrap_or_default()
        .into_iter()
        .map(|d| pb::FileDiff {
            file: d.file,
            change: d.change,
            unified: d.unified,
            binary: d.binary,
            mode_changed: d.mode_changed,
        })
        .collect();
    pb::Patch {
        match_report,
        rebase,
        scan: part::<StoredScan>(report, "scan").map(scan),
        diff,
        decision: part::<String>(report, "decision"),
        ops: ops_from_json(&p.ops),
        ..summary(p)
    }
}

/// A patch in a list: without ops and reports, the scan reduced to its verdict.
pub fn summary(p: PatchRecord) -> pb::Patch {
    let verdict = p
        .report
        .get("scan")
        .and_then(|s| s.get("verdict"))
        .and_then(Value::as_str)
        .map(str::to_owned);
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
        ..Default::default()
    }
}
