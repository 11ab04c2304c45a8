//! `cairn push`: a target's local edits become patches against the revision each skill
//! was synced from, and local-only skills become `create` proposals. Only the files of
//! those skill folders are read and sent. Before anything is sent, the ops are validated
//! and the local content scanned with the registry's own rules, so the agent sees the
//! findings first.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine as _;
use cairn_pipeline::ops::{Op, WritableRoots, validate};
use cairn_skill::{Bundle, Limits, RelPath};
use serde::Serialize;
use serde_json::{Value, json};

use super::state::{self, Proposal, StateError};
use super::status::{self, Standing, StatusError};
use super::target::{Layout, Target};
use crate::folder::{self, FolderError};
use crate::remote::{Registry, RemoteError};

/// Who wrote the edits.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Provenance {
    /// The agent (`hermes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The agent's session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// What to push.
#[derive(Clone, Debug, Default)]
pub struct PushOptions {
    /// Only these skills (default: every edited or local-only one).
    pub names: Vec<String>,
    /// The one-line summary (default: one made from the skill and files).
    pub summary: Option<String>,
    /// Why.
    pub rationale: String,
    /// Who wrote it.
    pub agent: Provenance,
    /// Show what would be sent; send nothing.
    pub dry_run: bool,
    /// Skills removed upstream while edited here to propose again, as new skills (by
    /// default they are left alone: the team removed them on purpose).
    pub include_removed: Vec<String>,
}

/// What happened to one skill.
#[derive(Clone, Debug, Serialize)]
pub struct Pushed {
    /// The skill.
    pub name: String,
    /// `submitted`, `revised` (a new round of the open patch it proposed before),
    /// `would_submit` (dry run), `refused` (by the local checks or the pipeline), or
    /// `skipped` (conflict, already proposed).
    pub action: &'static str,
    /// The patch's id, when submitted or already proposed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// The patch's state (`pending_review`, `blocked`, `conflict`, `approved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// The ops sent (or that would be).
    pub ops: Vec<String>,
    /// The local scan's verdict and findings.
    pub preflight: Value,
    /// The registry's scan verdict of the candidate, when submitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// Why it was refused or skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The patch's review page (`<server>/admin/patches/<id>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// Why a push failed as a whole.
#[derive(Debug, thiserror::Error)]
pub enum PushError {
    /// The registry could not be asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// The state cannot be used.
    #[error(transparent)]
    State(#[from] StateError),
    /// The folders cannot be read.
    #[error(transparent)]
    Status(#[from] StatusError),
    /// A folder could not be read.
    #[error(transparent)]
    Folder(#[from] FolderError),
    /// A named skill has nothing to push.
    #[error(
        "skill '{0}' has no local edits and is not local-only in this target: `cairn status` shows what can be pushed"
    )]
    NothingFor(String),
    /// A named skill was removed upstream, and `--include-removed` does not name it.
    #[error(
        "skill '{0}' was deleted or yanked upstream while you edited it here: `cairn push --include-removed {0}` proposes it again as a new skill"
    )]
    RemovedUpstream(String),
    /// `--include-removed` names a skill that is not removed upstream here.
    #[error(
        "skill '{0}' is not a skill removed upstream in this target: --include-removed takes the skills `cairn status` shows as `removed upstream`"
    )]
    NotRemoved(String),
    /// The target syncs with another registry.
    #[error("this target syncs with {synced}, not {now}: push with CAIRN_SERVER={synced}")]
    OtherRegistry {
        /// The target's registry.
        synced: String,
        /// The configured one.
        now: String,
    },
}

/// Pushes `target`'s edits and local-only skills.
pub async fn push(registry: &Registry, target: &Target, options: &PushOptions) -> Result<Vec<Pushed>, PushError> {
    let state_path = state::path_for(&target.root)?;
    let mut state = state::load(&state_path)?;
    if !state.server.is_empty() && state.server != registry.server() {
        return Err(PushError::OtherRegistry {
            synced: state.server.clone(),
            now: registry.server().to_owned(),
        });
    }
    let report = status::status(target, &state, None)?;
    let removed = |name: &str| {
        report
            .skills
            .iter()
            .any(|s| s.name == name && s.standing == Standing::RemovedUpstream)
    };
    if let Some(unknown) = options.include_removed.iter().find(|n| !removed(n)) {
        return Err(PushError::NotRemoved(unknown.clone()));
    }
    if let Some(named) = options
        .names
        .iter()
        .find(|n| removed(n) && !options.include_removed.contains(n))
    {
        return Err(PushError::RemovedUpstream(named.clone()));
    }
    let candidates: Vec<_> = report
        .skills
        .iter()
        .filter(|s| match s.standing {
            Standing::ModifiedLocally | Standing::LocalOnly | Standing::Conflict => {
                options.names.is_empty() || options.names.contains(&s.name)
            }
            Standing::RemovedUpstream => options.include_removed.contains(&s.name),
            _ => false,
        })
        .collect();
    if let Some(missing) = options.names.iter().find(|n| !candidates.iter().any(|c| &c.name == *n)) {
        return Err(PushError::NothingFor(missing.clone()));
    }
    let mut results = Vec::new();
    for skill in candidates {
        let mut pushed = Pushed {
            name: skill.name.clone(),
            action: "skipped",
            patch: None,
            status: None,
            ops: Vec::new(),
            preflight: Value::Null,
            verdict: None,
            message: None,
            url: None,
        };
        if skill.standing == Standing::Conflict {
            pushed.message = Some("in conflict: resolve the <file>.upstream files and delete them first".to_owned());
            results.push(pushed);
            continue;
        }
        let files = read_files(&skill.folder)?;
        let synced = state.skills.get(&skill.name);
        let (ops, base_revision, category) = match synced {
            Some(synced) => (edit_ops(&files, &synced.files), Some(synced.revision), None),
            None => {
                let category = match target.layout {
                    Layout::ByCategory => skill
                        .folder
                        .parent()
                        .and_then(|p| p.strip_prefix(&target.root).ok())
                        .map(|p| p.to_string_lossy().replace('\\', "/"))
                        .filter(|c| !c.is_empty()),
                    Layout::Flat => None,
                };
                (create_ops(&files, category.clone()), None, category)
            }
        };
        pushed.ops = ops.iter().map(describe).collect();
        let bundle = build(&files);
        pushed.preflight = match &bundle {
            Ok(bundle) => serde_json::to_value(cairn_pipeline::stages::scan_bundle(bundle)).unwrap_or_default(),
            Err(e) => json!({ "error": e }),
        };
        if ops.is_empty() {
            pushed.message = Some(
                "only file modes changed here; patches cannot carry modes: publish the mode change directly".to_owned(),
            );
            results.push(pushed);
            continue;
        }
        if let Err(e) = validate(&ops, &WritableRoots::default()) {
            pushed.action = "refused";
            pushed.message = Some(format!("not sent: {e}"));
            results.push(pushed);
            continue;
        }
        let digest = match &bundle {
            Ok(bundle) => bundle.digest(),
            Err(e) => {
                pushed.action = "refused";
                pushed.message = Some(format!("not sent: the folder is not a valid skill: {e}"));
                results.push(pushed);
                continue;
            }
        };
        // A proposal still open is carried on, so one lesson is never two open patches:
        // one waiting for review (perhaps with changes requested) takes these edits as its
        // next round; one in conflict (merged onto the latest by the pull that followed it
        // up) is superseded by a new patch.
        let open = state.proposals.get(&skill.name);
        let next_round = open
            .filter(|p| matches!(p.status.as_deref(), Some("pending_review" | "blocked")))
            .map(|p| p.patch.clone());
        let supersedes = open
            .filter(|p| p.status.as_deref() == Some("conflict"))
            .map(|p| p.patch.clone());
        if let Some(previous) = state.proposals.get(&skill.name)
            && previous.digest == digest
            && previous.status.as_deref() != Some("conflict")
        {
            pushed.patch = Some(previous.patch.clone());
            pushed.url = Some(format!("{}/admin/patches/{}", registry.server(), previous.patch));
            pushed.message = Some("these edits were already proposed".to_owned());
            results.push(pushed);
            continue;
        }
        if options.dry_run {
            pushed.action = "would_submit";
            results.push(pushed);
            continue;
        }
        let summary = options.summary.clone().unwrap_or_else(|| match synced {
            Some(_) => format!("Update {} from {}", skill.name, target.label),
            None => format!("New skill {} from {}", skill.name, target.label),
        });
        let mut body = json!({
            "skill": skill.name,
            "base_revision": base_revision,
            "ops": ops,
            "summary": summary,
            "rationale": options.rationale,
            "agent": options.agent,
        });
        if let Some(category) = category {
            body["category"] = json!(category);
        }
        if let Some(old) = &supersedes {
            body["supersedes"] = json!(old);
        }
        let answer = match &next_round {
            Some(id) => match registry
                .revise_patch(id, &round_body(&body, options.summary.is_some()))
                .await
            {
                // Decided meanwhile: the edits go as a patch of their own. Still open (another
                // round landed first): the refusal stands, and the next push sends again.
                Err(refused @ RemoteError::Refused { status: 409, .. }) => match registry.patch(id).await {
                    Ok(now) if matches!(now["status"].as_str(), Some("pending_review" | "blocked" | "conflict")) => {
                        Err(refused)
                    }
                    _ => registry.submit_patch(&body).await,
                },
                answer => answer.inspect(|_| pushed.action = "revised"),
            },
            None => registry.submit_patch(&body).await,
        };
        match answer {
            Ok(patch) => {
                let Some(id) = patch["id"].as_str().map(str::to_owned) else {
                    return Err(PushError::Remote(RemoteError::NotARegistry {
                        url: format!("{}/v1/patches", registry.server()),
                        reason: "the answer to a submitted patch has no id".to_owned(),
                    }));
                };
                let revised = pushed.action == "revised" && next_round.as_deref() == Some(id.as_str());
                pushed.action = if revised { "revised" } else { "submitted" };
                pushed.status = patch["status"].as_str().map(str::to_owned);
                pushed.verdict = patch["scan"]["verdict"].as_str().map(str::to_owned);
                pushed.url = Some(format!("{}/admin/patches/{id}", registry.server()));
                state.proposals.insert(
                    skill.name.clone(),
                    Proposal {
                        digest,
                        patch: id.clone(),
                        status: pushed.status.clone(),
                        supersedes: supersedes.clone(),
                        seen_comment: open.filter(|_| revised).and_then(|p| p.seen_comment),
                    },
                );
                if revised {
                    pushed.message = Some(format!(
                        "round {} of patch {id}: the review goes on with the new version",
                        patch["round"].as_i64().unwrap_or(2)
                    ));
                } else if let Some(old) = &supersedes {
                    pushed.message = Some(format!("carries on patch {old}, which ended in conflict"));
                }
                pushed.patch = Some(id);
            }
            Err(RemoteError::Refused {
                status: 422, message, ..
            }) => {
                pushed.action = "refused";
                pushed.message = Some(message);
            }
            Err(e) => {
                // What was already submitted stays on record, so it is not proposed twice.
                if results.iter().any(|r| matches!(r.action, "submitted" | "revised")) {
                    state::save(&state_path, &state)?;
                }
                return Err(e.into());
            }
        }
        results.push(pushed);
    }
    if !options.dry_run && results.iter().any(|r| matches!(r.action, "submitted" | "revised")) {
        state::save(&state_path, &state)?;
    }
    Ok(results)
}

/// The body of a new round: the submission without what a round cannot change (the
/// skill, its category, what it supersedes), and without the default summary unless one
/// was given (the patch keeps its own).
fn round_body(submission: &Value, summary_given: bool) -> Value {
    let mut body = submission.clone();
    if let Some(fields) = body.as_object_mut() {
        for fixed in ["skill", "category", "supersedes"] {
            fields.remove(fixed);
        }
        if !summary_given {
            fields.remove("summary");
        }
    }
    body
}

/// The folder's files: path → (bytes, executable); the upstream sides of conflicts
/// (`<file>.upstream`, written by pull) are never proposed.
fn read_files(folder: &Path) -> Result<BTreeMap<String, (Vec<u8>, bool)>, FolderError> {
    let listed = folder::read(folder)?.unwrap_or_default();
    let mut files = BTreeMap::new();
    for (path, state) in listed {
        if path.ends_with(super::pull::UPSTREAM_SUFFIX) {
            continue;
        }
        let full = folder.join(&path);
        files.insert(
            path,
            (std::fs::read(&full).map_err(folder::io(&full))?, state.executable),
        );
    }
    Ok(files)
}

fn write_op(file: &str, bytes: &[u8]) -> Op {
    match std::str::from_utf8(bytes) {
        Ok(text) => Op::WriteFile {
            file: file.to_owned(),
            content: Some(text.to_owned()),
            content_base64: None,
        },
        Err(_) => Op::WriteFile {
            file: file.to_owned(),
            content: None,
            content_base64: Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
        },
    }
}

/// Ops turning the synced files into the local ones.
fn edit_ops(local: &BTreeMap<String, (Vec<u8>, bool)>, synced: &BTreeMap<String, folder::FileState>) -> Vec<Op> {
    let mut ops = Vec::new();
    for (path, (bytes, _)) in local {
        let changed = synced
            .get(path)
            .is_none_or(|s| s.sha256 != cairn_skill::Sha256Hash::of(bytes).to_hex());
        if !changed {
            continue;
        }
        if path == cairn_skill::path::SKILL_MD {
            ops.push(Op::Edit {
                content: String::from_utf8_lossy(bytes).into_owned(),
            });
        } else {
            ops.push(write_op(path, bytes));
        }
    }
    for path in synced.keys().filter(|p| !local.contains_key(*p)) {
        ops.push(Op::RemoveFile { file: path.clone() });
    }
    ops
}

/// Ops creating a local-only skill.
fn create_ops(local: &BTreeMap<String, (Vec<u8>, bool)>, category: Option<String>) -> Vec<Op> {
    let mut ops = vec![Op::Create {
        content: local
            .get(cairn_skill::path::SKILL_MD)
            .map(|(bytes, _)| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_default(),
        category,
    }];
    for (path, (bytes, _)) in local {
        if path != cairn_skill::path::SKILL_MD {
            ops.push(write_op(path, bytes));
        }
    }
    ops
}

fn describe(op: &Op) -> String {
    match op {
        Op::Create { .. } => "create".to_owned(),
        Op::Edit { .. } => "edit SKILL.md".to_owned(),
        Op::Patch { file, .. } => format!("patch {file}"),
        Op::WriteFile { file, .. } => format!("write_file {file}"),
        Op::RemoveFile { file } => format!("remove_file {file}"),
        Op::Delete => "delete".to_owned(),
    }
}

/// The local content as a bundle (for the scan and its digest). The description's length
/// is left to the registry: a skill imported with a description over the limit may keep
/// it (but not lengthen it), which only the registry can tell.
fn build(files: &BTreeMap<String, (Vec<u8>, bool)>) -> Result<Bundle, String> {
    let limits = Limits::default().with_description_chars(usize::MAX);
    let mut builder = Bundle::builder(&limits);
    for (path, (bytes, executable)) in files {
        let rel = RelPath::parse(path).map_err(|e| e.to_string())?;
        builder
            .add(rel, bytes.clone(), *executable)
            .map_err(|e| e.to_string())?;
    }
    builder.finish().map_err(|e| e.to_string())
}
