//! in-toto Statement v1 and Cairn's predicates: what the registry attests about a version
//! (and about its own keys).

use serde::{Deserialize, Serialize};

/// The in-toto statement type.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// The predicate type of a version event (versioned: a change of shape gets a new URI).
pub const VERSION_PREDICATE_TYPE: &str = "https://cairn.dev/attestation/version/v1";
/// The predicate type of a signing-key event.
pub const KEY_PREDICATE_TYPE: &str = "https://cairn.dev/attestation/key/v1";

/// Why a statement was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum StatementError {
    /// The payload is not a statement of the expected shape.
    #[error("the statement is malformed: {0}")]
    Malformed(String),
    /// The statement's predicate is of another type.
    #[error("the statement's predicate is '{found}', expected '{expected}'")]
    PredicateType {
        /// The type the statement names.
        found: String,
        /// The expected type.
        expected: String,
    },
}

/// An in-toto Statement v1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    /// Always [`STATEMENT_TYPE`].
    #[serde(rename = "_type")]
    pub statement_type: String,
    /// What the statement is about.
    pub subject: Vec<Subject>,
    /// The predicate's type URI.
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    /// The predicate.
    pub predicate: serde_json::Value,
}

/// A statement's subject: a name and its digests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    /// `cairn://<registry>/<org>/<skill>@<revision>` for a version.
    pub name: String,
    /// `{"sha256": "<hex>"}`.
    pub digest: std::collections::BTreeMap<String, String>,
}

/// What happened to a version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum VersionEvent {
    /// The version was published.
    Published,
    /// The version was yanked (hidden from latest; pinned copies still resolve).
    Yanked,
    /// A yanked version was restored.
    Unyanked,
}

impl VersionEvent {
    /// The event's name as written in the predicate.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Published => "published",
            Self::Yanked => "yanked",
            Self::Unyanked => "unyanked",
        }
    }
}

/// One file of an attested version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttestedFile {
    /// The path inside the bundle.
    pub path: String,
    /// Lowercase hex SHA-256 of the contents.
    pub sha256: String,
    /// Size in bytes.
    pub size: u64,
    /// Whether the file is executable.
    pub executable: bool,
}

/// The patch a version came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttestedPatch {
    /// The patch id.
    pub id: String,
    /// The revision the author started from (`None`: a new skill).
    pub base_revision: Option<i32>,
    /// The author's handle.
    pub author: String,
    /// The agent's self-reported provenance (name, model, session, via), as submitted.
    pub agent: serde_json::Value,
    /// Everyone who reported the same lesson (`[{patch, author, agent}]`).
    pub contributors: serde_json::Value,
}

/// A reviewer's approval.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    /// The reviewer's handle.
    pub reviewer: String,
    /// When (RFC 3339).
    pub at: String,
}

/// The security scan the version passed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttestedScan {
    /// `safe`, `caution` or `dangerous`.
    pub verdict: String,
    /// The scanner's rule-set version.
    pub rules: String,
}

/// Cairn's predicate for a version event ([`VERSION_PREDICATE_TYPE`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionPredicate {
    /// What happened.
    pub event: VersionEvent,
    /// The registry's name (its log origin).
    pub registry: String,
    /// The organisation's slug.
    pub organization: String,
    /// The skill's name.
    pub skill: String,
    /// The revision.
    pub revision: i32,
    /// The version digest (`sha256:<hex>`).
    pub digest: String,
    /// The skill's category when the event happened.
    pub category: Option<String>,
    /// Every file, by path.
    pub files: Vec<AttestedFile>,
    /// `import`, `publish` or `patch`.
    pub source: String,
    /// The patch, for a version published by approving one.
    pub patch: Option<AttestedPatch>,
    /// Who published or imported it, when a user did directly.
    pub publisher: Option<String>,
    /// Who approved it.
    pub approvals: Vec<Approval>,
    /// The scan it passed, when the registry scanned it.
    pub scan: Option<AttestedScan>,
    /// When the version was published (RFC 3339).
    pub published_at: String,
    /// When this event happened (RFC 3339; the publication time for `published`).
    pub recorded_at: String,
}

/// What happened to a signing key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyEvent {
    /// The key became the one that signs.
    Activated,
    /// The key stopped signing; its signatures stay valid.
    Retired,
    /// The key is compromised: its signatures count only below `revokedAfterIndex`.
    Revoked,
}

/// Cairn's predicate for a signing-key event ([`KEY_PREDICATE_TYPE`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyPredicate {
    /// What happened.
    pub event: KeyEvent,
    /// The registry's name (its log origin).
    pub registry: String,
    /// The key's id.
    pub key_id: String,
    /// The key, lowercase hex of its raw bytes.
    pub public_key: String,
    /// For a revocation: entries at or above this log index signed by the key are invalid.
    pub revoked_after_index: Option<u64>,
    /// Who did it.
    pub by: String,
    /// When (RFC 3339).
    pub at: String,
}

impl VersionPredicate {
    /// The subject name of this version: `cairn://<registry>/<org>/<skill>@<revision>`.
    pub fn subject_name(&self) -> String {
        version_subject(&self.registry, &self.organization, &self.skill, self.revision)
    }
}

/// The subject name of a version.
pub fn version_subject(registry: &str, organization: &str, skill: &str, revision: i32) -> String {
    format!("cairn://{registry}/{organization}/{skill}@{revision}")
}

impl Statement {
    /// The statement about a version event: subject the version, digest its version digest.
    pub fn for_version(predicate: &VersionPredicate) -> Self {
        let hex = predicate.digest.strip_prefix("sha256:").unwrap_or(&predicate.digest);
        Self {
            statement_type: STATEMENT_TYPE.to_owned(),
            subject: vec![Subject {
                name: predicate.subject_name(),
                digest: [("sha256".to_owned(), hex.to_owned())].into(),
            }],
            predicate_type: VERSION_PREDICATE_TYPE.to_owned(),
            predicate: serde_json::to_value(predicate).unwrap_or_default(),
        }
    }

    /// The statement about a key event: subject the key, digest its key id (the SHA-256
    /// of the key).
    pub fn for_key(predicate: &KeyPredicate) -> Self {
        Self {
            statement_type: STATEMENT_TYPE.to_owned(),
            subject: vec![Subject {
                name: format!("cairn://{}/keys/{}", predicate.registry, predicate.key_id),
                digest: [("sha256".to_owned(), predicate.key_id.clone())].into(),
            }],
            predicate_type: KEY_PREDICATE_TYPE.to_owned(),
            predicate: serde_json::to_value(predicate).unwrap_or_default(),
        }
    }

    /// Reads a statement from an envelope's payload.
    pub fn from_json(bytes: &[u8]) -> Result<Self, StatementError> {
        let statement: Self = serde_json::from_slice(bytes).map_err(|e| StatementError::Malformed(e.to_string()))?;
        if statement.statement_type != STATEMENT_TYPE {
            return Err(StatementError::Malformed(format!(
                "'_type' is '{}', expected '{STATEMENT_TYPE}'",
                statement.statement_type
            )));
        }
        Ok(statement)
    }

    /// The statement's JSON (an envelope's payload).
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The version predicate, checked against the subject: one subject, named after the
    /// predicate's version, with the predicate's digest.
    pub fn version_predicate(&self) -> Result<VersionPredicate, StatementError> {
        if self.predicate_type != VERSION_PREDICATE_TYPE {
            return Err(StatementError::PredicateType {
                found: self.predicate_type.clone(),
                expected: VERSION_PREDICATE_TYPE.to_owned(),
            });
        }
        let predicate: VersionPredicate =
            serde_json::from_value(self.predicate.clone()).map_err(|e| StatementError::Malformed(e.to_string()))?;
        let [subject] = self.subject.as_slice() else {
            return Err(StatementError::Malformed(format!(
                "{} subjects, expected one",
                self.subject.len()
            )));
        };
        let hex = predicate.digest.strip_prefix("sha256:").unwrap_or_default();
        if subject.name != predicate.subject_name() || subject.digest.get("sha256").map(String::as_str) != Some(hex) {
            return Err(StatementError::Malformed(
                "the subject does not name the predicate's version and digest".to_owned(),
            ));
        }
        Ok(predicate)
    }

    /// The key predicate.
    pub fn key_predicate(&self) -> Result<KeyPredicate, StatementError> {
        if self.predicate_type != KEY_PREDICATE_TYPE {
            return Err(StatementError::PredicateType {
                found: self.predicate_type.clone(),
                expected: KEY_PREDICATE_TYPE.to_owned(),
            });
        }
        serde_json::from_value(self.predicate.clone()).map_err(|e| StatementError::Malformed(e.to_string()))
    }
}
