//! `clawhub publish` as a use case: upload tickets signed for the caller, the uploaded
//! files kept as content-addressed blobs, and the publish turned into a **patch** against
//! the latest revision (or a new skill) — through the whole pipeline and review, never a
//! direct publish.

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine;
use bytes::Bytes;
use cairn_skill::Sha256Hash;
use cairn_store::blob::BlobError;
use cairn_store::{Actor, PatchRecord, RevisionSelector};
use serde_json::{Value, json};

use crate::Services;
use crate::app::catalog::{self, CatalogError};
use crate::app::patches::{self, AgentInfo, PatchError, Submission};
use crate::auth::Principal;

/// How long an upload ticket can be used, from asking for the upload URL to publishing:
/// the CLI does all three in one run, and a ticket that leaked into a log stops working.
pub const UPLOAD_TICKET_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// Why a ClawHub upload or publish was refused.
#[derive(Debug, thiserror::Error)]
pub enum ClawhubError {
    /// The request is wrong; the message says what to send.
    #[error("{0}")]
    Invalid(String),
    /// Reading the latest version failed.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The patch was refused or failed.
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// The blob store failed.
    #[error(transparent)]
    Blob(#[from] BlobError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] cairn_store::StoreError),
}

/// An upload ticket: which file (SHA-256, size) the caller announced and until when
/// (Unix seconds), signed for them.
pub fn upload_ticket(services: &Services, user_id: i64, sha256: &str, size: u64, expires: i64) -> String {
    let signature = services
        .session_key
        .sign(&format!("clawhub-upload\0{user_id}\0{sha256}\0{size}\0{expires}"));
    format!("{sha256}.{size}.{expires}.{signature}")
}

/// A ticket for uploading one file of a publish: the announced digest must be a SHA-256
/// and the size within the per-file limit.
pub fn announce(
    services: &Services,
    user_id: i64,
    path: &str,
    sha256: &str,
    size: u64,
) -> Result<String, ClawhubError> {
    let sha = sha256.to_lowercase();
    if Sha256Hash::parse_hex(&sha).is_err() {
        return Err(ClawhubError::Invalid(format!(
            "'{sha256}' is not a SHA-256 for {path}: send the file's hex digest"
        )));
    }
    if size > services.limits.max_file_bytes {
        return Err(ClawhubError::Invalid(format!(
            "{path} is {size} bytes, more than the {}-byte limit per file",
            services.limits.max_file_bytes
        )));
    }
    let expires = unix_now() + UPLOAD_TICKET_LIFETIME.as_secs() as i64;
    Ok(upload_ticket(services, user_id, &sha, size, expires))
}

/// Why an upload ticket cannot be used.
#[derive(Debug, PartialEq, Eq)]
enum TicketProblem {
    /// Not one the registry signed for this caller.
    Invalid,
    /// Genuine, but its lifetime is over.
    Expired,
}

/// The (SHA-256, size) a ticket the caller holds announces, if it is genuine and `now`
/// (Unix seconds) is within its lifetime.
fn check_ticket(services: &Services, user_id: i64, raw: &str, now: i64) -> Result<(String, u64), TicketProblem> {
    let mut parts = raw.splitn(4, '.');
    let mut next = || parts.next().ok_or(TicketProblem::Invalid);
    let sha = next()?;
    let size = next()?.parse::<u64>().map_err(|_| TicketProblem::Invalid)?;
    let expires = next()?.parse::<i64>().map_err(|_| TicketProblem::Invalid)?;
    // Compared in constant time: a byte-by-byte comparison would tell a forger how much of
    // a signature is right.
    if Sha256Hash::parse_hex(sha).is_err()
        || !crate::auth::same_secret(&upload_ticket(services, user_id, sha, size, expires), raw)
    {
        return Err(TicketProblem::Invalid);
    }
    if now > expires {
        return Err(TicketProblem::Expired);
    }
    Ok((sha.to_owned(), size))
}

fn unix_now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// Keeps one uploaded file, checked against its ticket, as a content-addressed blob until
/// the publish names it. Answers its storage id (the SHA-256).
pub async fn upload(services: &Services, user_id: i64, ticket: &str, body: Bytes) -> Result<String, ClawhubError> {
    let (sha, size) = check_ticket(services, user_id, ticket, unix_now()).map_err(|problem| {
        ClawhubError::Invalid(match problem {
            TicketProblem::Invalid => "this upload ticket is not valid: ask for a new upload URL".to_owned(),
            TicketProblem::Expired => format!(
                "this upload ticket expired (tickets last {} minutes): ask for a new upload URL",
                UPLOAD_TICKET_LIFETIME.as_secs() / 60
            ),
        })
    })?;
    let id = Sha256Hash::of(&body);
    if body.len() as u64 != size || id.to_hex() != sha {
        return Err(ClawhubError::Invalid(
            "the bytes sent are not the file announced (size or SHA-256 differ): upload the file again".to_owned(),
        ));
    }
    services.blobs.put(&id, body).await?;
    Ok(sha)
}

/// One file of a publish: its path, the storage id its upload answered, and its ticket.
#[derive(Clone, Debug)]
pub struct UploadedFile {
    /// Path inside the skill.
    pub path: String,
    /// The SHA-256 the upload answered.
    pub storage_id: String,
    /// The ticket it was uploaded with.
    pub ticket: String,
}

/// What `clawhub publish` sends.
#[derive(Clone, Debug)]
pub struct PublishRequest {
    /// The skill.
    pub slug: String,
    /// The version the CLI proposes (kept in the summary; ours is the revision).
    pub version: Option<String>,
    /// The changelog: its first line becomes the summary, all of it the rationale.
    pub changelog: Option<String>,
    /// Every file of the skill.
    pub files: Vec<UploadedFile>,
}

/// Turns a publish into a patch of the files that differ from the latest revision (or a
/// new skill), submitted as the caller.
pub async fn publish(
    services: &Services,
    caller: &Principal,
    actor: &Actor,
    request: PublishRequest,
) -> Result<PatchRecord, ClawhubError> {
    let files = uploaded_files(services, caller.user_id, &request.files).await?;
    let skill_md = files
        .get("SKILL.md")
        .and_then(|b| std::str::from_utf8(b).ok())
        .ok_or_else(|| ClawhubError::Invalid("a skill needs a SKILL.md (UTF-8) at its root".to_owned()))?
        .to_owned();
    let latest = catalog::resolve(&services.store, caller.org_id, &request.slug, RevisionSelector::Latest).await;
    let (base_revision, ops) = match latest {
        Ok(latest) => {
            let current = services.store.version_files(latest.version.id).await?;
            let mut ops = Vec::new();
            for (path, bytes) in &files {
                let sha = Sha256Hash::of(bytes).to_hex();
                if current.iter().any(|f| f.path == *path && f.sha256 == sha) {
                    continue;
                }
                ops.push(if path == "SKILL.md" {
                    json!({"op": "edit", "content": skill_md})
                } else {
                    write_file(path, bytes)
                });
            }
            for gone in current.iter().filter(|f| !files.contains_key(&f.path)) {
                ops.push(json!({"op": "remove_file", "file": gone.path}));
            }
            (Some(latest.version.revision), ops)
        }
        Err(CatalogError::NotFound(_)) => {
            let mut ops = vec![json!({"op": "create", "content": skill_md})];
            ops.extend(
                files
                    .iter()
                    .filter(|(p, _)| *p != "SKILL.md")
                    .map(|(p, b)| write_file(p, b)),
            );
            (None, ops)
        }
        Err(other) => return Err(other.into()),
    };
    let changelog = request.changelog.unwrap_or_default();
    let summary = if changelog.trim().is_empty() {
        format!(
            "Published with clawhub{}",
            request
                .version
                .as_deref()
                .map(|v| format!(" as {v}"))
                .unwrap_or_default()
        )
    } else {
        changelog.lines().next().unwrap_or_default().chars().take(200).collect()
    };
    let submission = Submission {
        skill: request.slug,
        base_revision,
        ops: Value::Array(ops),
        summary,
        rationale: changelog,
        supersedes: None,
        agent: AgentInfo {
            name: Some("clawhub".to_owned()),
            model: None,
            session: None,
            via: None,
        },
        category: None,
    };
    Ok(patches::submit(services, caller, actor, submission).await?)
}

/// The bytes of every file of a publish, each checked against the ticket it was uploaded
/// with.
async fn uploaded_files(
    services: &Services,
    user_id: i64,
    files: &[UploadedFile],
) -> Result<BTreeMap<String, Bytes>, ClawhubError> {
    let mut read = BTreeMap::new();
    for file in files {
        let sha = match check_ticket(services, user_id, &file.ticket, unix_now()) {
            Ok((sha, _)) if sha == file.storage_id => sha,
            Err(TicketProblem::Expired) => {
                return Err(ClawhubError::Invalid(format!(
                    "the upload ticket of {} expired (tickets last {} minutes): upload it again, then publish",
                    file.path,
                    UPLOAD_TICKET_LIFETIME.as_secs() / 60
                )));
            }
            _ => {
                return Err(ClawhubError::Invalid(format!(
                    "{} was not uploaded with this token: upload it again",
                    file.path
                )));
            }
        };
        let id = Sha256Hash::parse_hex(&sha).map_err(|e| ClawhubError::Invalid(e.to_string()))?;
        let bytes = services.blobs.get(&id).await?.ok_or_else(|| {
            ClawhubError::Invalid(format!(
                "{} was announced but never uploaded: upload it, then publish again",
                file.path
            ))
        })?;
        read.insert(file.path.clone(), bytes);
    }
    Ok(read)
}

/// A `write_file` op: text as is, anything else in base64.
fn write_file(path: &str, bytes: &[u8]) -> Value {
    match std::str::from_utf8(bytes) {
        Ok(text) => json!({"op": "write_file", "file": path, "content": text}),
        Err(_) => json!({"op": "write_file", "file": path,
            "content_base64": base64::engine::general_purpose::STANDARD.encode(bytes)}),
    }
}
