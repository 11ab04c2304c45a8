//! The scanner's false positives and the import quarantine: dismissals, rescans,
//! quarantined imports.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::patches::ScanReport;

/// A reviewer's dismissal of a finding (`GET /v1/skills/{name}/dismissals`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Dismissal {
    /// Its id.
    pub id: i64,
    /// The skill.
    pub skill: String,
    /// The rule whose finding it dismisses.
    pub rule: String,
    /// The file.
    pub file: String,
    /// The text the finding matched (a dismissal follows the text, not the line).
    pub excerpt: String,
    /// The finding's severity.
    pub severity: String,
    /// Why it is a false positive.
    pub reason: String,
    /// Who dismissed it.
    pub dismissed_by: String,
    /// The patch it was dismissed on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patch: Option<String>,
    /// When (RFC 3339, seconds).
    #[schemars(extend("format" = "date-time"))]
    pub created_at: String,
    /// When it was revoked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub revoked_at: Option<String>,
    /// Who revoked it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revoked_by: Option<String>,
}

/// The answer to `POST /v1/patches/{id}/findings/dismiss`: the dismissal, and the patch
/// scanned again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Dismissed {
    /// The dismissal recorded.
    pub dismissal: Dismissal,
    /// The patch as it stands now.
    pub patch: crate::Patch,
}

/// A list answered whole, without paging: `{"items": [...]}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "{T}List")]
pub struct Items<T> {
    /// Every item.
    pub items: Vec<T>,
}

/// What `POST /v1/admin/rescan` found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Rescan {
    /// Skills rescanned.
    pub skills: usize,
    /// The latest version of each skill that is not `safe` with today's rules.
    pub versions: Vec<VersionScan>,
    /// Versions scanned in all.
    pub versions_scanned: usize,
    /// Open patches scanned again.
    pub patches_rescanned: usize,
    /// Open patches whose state changed.
    pub patches_changed: Vec<PatchChange>,
    /// Skills that could not be rescanned (the server's log says why); run it again.
    pub failed: Vec<String>,
    /// Quarantined imports scanned again (every one, when every skill is rescanned).
    pub quarantine_rescanned: usize,
    /// Those whose findings changed with today's rules.
    pub quarantine_changed: Vec<String>,
}

/// A latest version's scan with today's rules (and the skill's dismissals).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct VersionScan {
    /// The skill.
    pub skill: String,
    /// Its latest revision.
    pub revision: i32,
    /// Its verdict.
    pub verdict: cairn_scanner::Verdict,
    /// Its findings (dismissed ones marked).
    pub findings: Vec<cairn_scanner::Finding>,
}

/// An open patch whose state a rescan changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PatchChange {
    /// The patch.
    pub id: String,
    /// Its skill.
    pub skill: String,
    /// Its state before.
    pub from: String,
    /// Its state now.
    pub to: String,
}

/// An imported skill held back as dangerous (`GET /v1/admin/quarantine…`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Quarantined {
    /// Its id.
    pub id: String,
    /// The skill's name.
    pub name: String,
    /// Its category.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// The digest its version would have.
    pub digest: String,
    /// Its manifest.
    #[schemars(with = "Vec<serde_json::Map<String, serde_json::Value>>")]
    pub files: serde_json::Value,
    /// Its scan with today's rules.
    pub scan: ScanReport,
    /// Where the import read it.
    pub source_path: String,
    /// Who imported it.
    pub imported_by: String,
    /// When (RFC 3339, seconds).
    #[schemars(extend("format" = "date-time"))]
    pub created_at: String,
}

/// The answer to `POST /v1/admin/quarantine/{id}/release`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Released {
    /// The skill published.
    pub name: String,
    /// Its revision.
    pub revision: i32,
    /// `false`: the released content already was the latest version.
    pub created: bool,
}
