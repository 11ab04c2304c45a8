//! The JSON shapes of the registry's v1 REST API (docs/API.md), in one crate that both
//! sides use: the registry builds them from its records, the `cairn` client and other
//! integrations read them. A shape here is a promise: fields may be added, never renamed
//! or removed, so a client built against an older version keeps reading newer answers.
//! Nothing here knows the database: the registry converts its rows at its boundary.
//!
//! The patch report's parts (ops' match reports, the rebase record, the scan, the
//! diff, the policy decision) are the pipeline's and scanner's own typed reports,
//! re-exported from those pure crates rather than copied.

pub mod accounts;
pub mod findings;
pub mod index;
pub mod log;
pub mod mcp;
pub mod patches;
pub mod skills;
pub mod webhooks;

pub use accounts::{AuditItem, IssuedToken, OwnerList, TokenItem, UserItem, WhoAmI};
pub use findings::{Dismissal, Dismissed, Items, Quarantined, Released, Rescan};
pub use index::{Change, ChangeKind, Index, IndexEntry};
pub use log::{
    AttestationBatch, AttestationBatchRequest, AttestationEntry, ConsistencyProof, InclusionProof, KeyActivation,
    LogEntry, SigningKeyItem, SigningKeys, VersionAttestation, VersionRef,
};
pub use patches::{
    BatchResult, BatchResults, ChangesRequested, Comment, DuplicateMark, Owner, Patch, PatchItem, PatchRound,
    Published, ReviewThread,
};
pub use skills::{FileEntry, SkillItem, VersionItem, Yank};
pub use webhooks::{Delivery, Webhook};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A page of a list: `{"items": [...], "next_cursor": "..." | null}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "{T}Page")]
pub struct Page<T> {
    /// The items of this page.
    pub items: Vec<T>,
    /// Pass as `cursor` to get the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// Every error answer: `{"error": {"code", "message"}}`, the same for every endpoint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// The error itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorDetail {
    /// A stable, machine-readable code (`not_found`, `patch_refused`, `rate_limited`, …).
    pub code: String,
    /// What happened and what to do next, for people.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_reads_back_as_written() {
        let body = ErrorBody {
            error: ErrorDetail {
                code: "not_found".to_owned(),
                message: "no skill 'x': list them with GET /v1/skills".to_owned(),
            },
        };
        let text = serde_json::to_string(&body).unwrap();
        assert_eq!(
            text,
            r#"{"error":{"code":"not_found","message":"no skill 'x': list them with GET /v1/skills"}}"#
        );
        assert_eq!(serde_json::from_str::<ErrorBody>(&text).unwrap(), body);
    }
}
