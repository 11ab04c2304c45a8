//! The REST API's records as they go on the wire: the shapes are `cairn-wire`'s (shared
//! with the `cairn` client); the conversions from the store's rows are here, at the
//! boundary, so no row reaches a client as it is stored.

use cairn_wire::{
    AuditItem, ChangesRequested, Comment, DuplicateMark, FileEntry, Index, IndexEntry, Patch, PatchItem, PatchRound,
    ReviewThread, SkillItem, TokenItem, UserItem, VersionItem,
};

/// A store row (or other record) as the API shows it.
pub trait ToWire {
    /// The wire shape.
    type Wire;
    /// Converts.
    fn to_wire(self) -> Self::Wire;
}

impl ToWire for cairn_store::SkillSummary {
    type Wire = SkillItem;
    fn to_wire(self) -> SkillItem {
        SkillItem {
            name: self.name,
            category: self.category,
            description: self.description,
            latest_revision: self.latest_revision,
            digest: self.digest,
            version_count: self.version_count,
            created_at: self.created_at,
            updated_at: self.updated_at,
        }
    }
}

impl ToWire for &cairn_store::FileEntry {
    type Wire = FileEntry;
    fn to_wire(self) -> FileEntry {
        FileEntry {
            path: self.path.clone(),
            sha256: self.sha256.clone(),
            size: self.size,
            executable: self.executable,
        }
    }
}

/// The manifest as the API shows it.
pub fn files(files: &[cairn_store::FileEntry]) -> Vec<FileEntry> {
    files.iter().map(ToWire::to_wire).collect()
}

/// A stored version of skill `name`, with its manifest when `files` is given.
pub fn version(name: &str, v: cairn_store::VersionInfo, files: Option<&[cairn_store::FileEntry]>) -> VersionItem {
    VersionItem {
        name: name.to_owned(),
        revision: v.revision,
        digest: v.digest,
        description: v.description,
        frontmatter: v.frontmatter.0,
        file_count: v.file_count,
        total_size: v.total_size,
        source: v.source,
        published_by: v.published_by,
        patch: v.patch_id.map(|p| p.to_string()),
        contributors: v.contributors.0,
        yanked: v.yanked,
        created_at: v.created_at,
        files: files.map(self::files),
    }
}

impl ToWire for &cairn_store::IndexEntry {
    type Wire = IndexEntry;
    fn to_wire(self) -> IndexEntry {
        IndexEntry {
            name: self.name.clone(),
            category: self.category.clone(),
            description: self.description.clone(),
            revision: self.revision,
            digest: self.digest.clone(),
            updated_at: self.updated_at,
            files: files(&self.files),
        }
    }
}

impl ToWire for cairn_store::IndexSnapshot {
    type Wire = Index;
    fn to_wire(self) -> Index {
        Index {
            cursor: self.cursor,
            skills: self.skills.iter().map(ToWire::to_wire).collect(),
            removed: None,
        }
    }
}

impl ToWire for cairn_store::TokenInfo {
    type Wire = TokenItem;
    fn to_wire(self) -> TokenItem {
        TokenItem {
            id: self.id.to_string(),
            user: self.owner,
            name: self.name,
            scopes: self.scopes,
            created_at: self.created_at,
            expires_at: self.expires_at,
            last_used_at: self.last_used_at,
            revoked_at: self.revoked_at,
        }
    }
}

impl ToWire for cairn_store::User {
    type Wire = UserItem;
    fn to_wire(self) -> UserItem {
        UserItem {
            handle: self.handle,
            role: self.role.as_str().to_owned(),
            disabled: self.disabled,
            created_at: self.created_at,
        }
    }
}

impl ToWire for cairn_store::AuditEntry {
    type Wire = AuditItem;
    fn to_wire(self) -> AuditItem {
        AuditItem {
            id: self.id,
            at: self.created_at,
            actor: self.actor,
            action: self.action,
            target: self.target,
            request_id: self.request_id,
            client_addr: self.client_addr,
            details: self.details.0,
        }
    }
}

impl ToWire for cairn_store::DuplicateMark {
    type Wire = DuplicateMark;
    fn to_wire(self) -> DuplicateMark {
        DuplicateMark {
            patch: self.patch.map(|id| id.to_string()),
            revision: self.revision,
            file: self.file,
            line: self.line,
            excerpt: self.excerpt,
            similarity: self.similarity,
        }
    }
}

impl ToWire for cairn_store::PatchRecord {
    type Wire = Patch;
    fn to_wire(self) -> Patch {
        let report = cairn_pipeline::report::PatchReport::from_stored(&self.report);
        let requested = self.outstanding_request().map(|(by, at)| (by.to_owned(), at));
        Patch {
            changes_requested: requested.map(|(by, at)| ChangesRequested { by, at }),
            id: self.id.to_string(),
            match_report: report.ops,
            rebase: report.rebase,
            scan: report.scan,
            diff: report.diff,
            authored_diff: report.authored_diff,
            decision: report.decision,
            skill: self.skill_name,
            base_revision: self.base_revision,
            status: self.status,
            author: self.author,
            agent: self.agent,
            summary: self.summary,
            rationale: self.rationale,
            ops: self.ops,
            candidate_digest: self.candidate_digest,
            result_revision: self.result_revision,
            created_at: self.created_at,
            decided_by: self.decided_by,
            decided_at: self.decided_at,
            comment: self.comment,
            supersedes: self.supersedes.map(|id| id.to_string()),
            superseded_by: self.superseded_by.map(|id| id.to_string()),
            resolved_by: self.resolved_by,
            duplicate: self.duplicate.map(ToWire::to_wire),
            duplicate_group: self.duplicate_group.map(|id| id.to_string()),
            duplicate_of: self.duplicate_of.map(|id| id.to_string()),
            threads: Vec::new(),
            round: self.round,
            changed_lines: self.changed_lines,
            rounds: Vec::new(),
            round_diff: Vec::new(),
            owners: Vec::new(),
        }
    }
}

impl ToWire for crate::app::patches::conversation::Review {
    type Wire = Patch;
    fn to_wire(self) -> Patch {
        Patch {
            threads: self.threads.into_iter().map(ToWire::to_wire).collect(),
            rounds: self.rounds.into_iter().map(ToWire::to_wire).collect(),
            round_diff: self.round_diff,
            owners: self
                .owners
                .into_iter()
                .map(|o| cairn_wire::Owner {
                    handle: o.handle,
                    via: o.kind,
                    name: o.name,
                })
                .collect(),
            ..self.patch.to_wire()
        }
    }
}

impl ToWire for crate::app::patches::conversation::Thread {
    type Wire = ReviewThread;
    fn to_wire(self) -> ReviewThread {
        let anchor = self.first.anchor.clone();
        ReviewThread {
            id: self.first.id,
            file: anchor.as_ref().map(|a| a.file.clone()),
            line: anchor.as_ref().map(|a| a.line),
            end_line: anchor.as_ref().map(|a| a.end_line),
            side: anchor.map(|a| a.side),
            round: self.first.round,
            comments: std::iter::once(self.first)
                .chain(self.replies)
                .map(ToWire::to_wire)
                .collect(),
        }
    }
}

impl ToWire for cairn_store::RoundRecord {
    type Wire = PatchRound;
    fn to_wire(self) -> PatchRound {
        PatchRound {
            round: self.round,
            base_revision: self.base_revision,
            status: self.status,
            summary: self.summary,
            candidate_digest: self.candidate_digest,
            submitted_at: self.submitted_at,
        }
    }
}

impl ToWire for cairn_store::CommentRecord {
    type Wire = Comment;
    fn to_wire(self) -> Comment {
        Comment {
            id: self.id,
            author: self.author,
            kind: self.kind,
            body: self.body,
            created_at: self.created_at,
        }
    }
}

/// A patch in a list: the summary, without ops and reports.
pub fn patch_item(p: cairn_store::PatchRecord) -> PatchItem {
    PatchItem {
        round: p.round,
        changed_lines: p.changed_lines,
        changes_requested_by: p.outstanding_request().map(|(by, _)| by.to_owned()),
        id: p.id.to_string(),
        verdict: cairn_pipeline::report::PatchReport::from_stored(&p.report)
            .verdict()
            .map(|v| v.as_str().to_owned()),
        skill: p.skill_name,
        base_revision: p.base_revision,
        status: p.status,
        author: p.author,
        summary: p.summary,
        result_revision: p.result_revision,
        created_at: p.created_at,
        duplicate_group: p.duplicate_group.map(|id| id.to_string()),
        duplicate: p.duplicate.map(ToWire::to_wire),
        supersedes: p.supersedes.map(|id| id.to_string()),
        superseded_by: p.superseded_by.map(|id| id.to_string()),
    }
}

/// Times of the findings' records: RFC 3339 to the second.
fn seconds(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl ToWire for cairn_store::DismissalRecord {
    type Wire = cairn_wire::Dismissal;
    fn to_wire(self) -> cairn_wire::Dismissal {
        cairn_wire::Dismissal {
            id: self.id,
            skill: self.skill_name,
            rule: self.rule,
            file: self.file,
            excerpt: self.excerpt,
            severity: self.severity,
            reason: self.reason,
            dismissed_by: self.dismissed_by,
            patch: self.patch_id.map(|id| id.to_string()),
            created_at: seconds(self.created_at),
            revoked_at: self.revoked_at.map(seconds),
            revoked_by: self.revoked_by,
        }
    }
}

impl ToWire for cairn_store::QuarantinedRecord {
    type Wire = cairn_wire::Quarantined;
    fn to_wire(self) -> cairn_wire::Quarantined {
        cairn_wire::Quarantined {
            scan: crate::app::quarantine::scan_of(&self),
            id: self.id.to_string(),
            name: self.name,
            category: self.category,
            digest: self.digest,
            files: self.manifest.0,
            source_path: self.source_path,
            imported_by: self.imported_by,
            created_at: seconds(self.created_at),
        }
    }
}

impl ToWire for crate::app::patches::findings::RescanReport {
    type Wire = cairn_wire::Rescan;
    fn to_wire(self) -> cairn_wire::Rescan {
        cairn_wire::Rescan {
            skills: self.skills,
            versions: self
                .versions
                .into_iter()
                .map(|v| cairn_wire::findings::VersionScan {
                    skill: v.skill,
                    revision: v.revision,
                    verdict: v.verdict,
                    findings: v.findings,
                })
                .collect(),
            versions_scanned: self.versions_scanned,
            patches_rescanned: self.patches_rescanned,
            patches_changed: self
                .patches_changed
                .into_iter()
                .map(|p| cairn_wire::findings::PatchChange {
                    id: p.id.to_string(),
                    skill: p.skill,
                    from: p.from,
                    to: p.to,
                })
                .collect(),
            failed: self.failed,
            quarantine_rescanned: self.quarantine_rescanned,
            quarantine_changed: self.quarantine_changed,
        }
    }
}

impl ToWire for cairn_store::WebhookInfo {
    type Wire = cairn_wire::Webhook;
    fn to_wire(self) -> cairn_wire::Webhook {
        cairn_wire::Webhook {
            id: self.id.to_string(),
            url: self.url,
            events: self.events,
            active: self.active,
            created_at: self.created_at,
            secret: None,
        }
    }
}

impl ToWire for crate::app::live::ChangeKind {
    type Wire = cairn_wire::ChangeKind;
    fn to_wire(self) -> cairn_wire::ChangeKind {
        use crate::app::live::ChangeKind as Kind;
        match self {
            Kind::Published => cairn_wire::ChangeKind::Published,
            Kind::Yanked => cairn_wire::ChangeKind::Yanked,
            Kind::Unyanked => cairn_wire::ChangeKind::Unyanked,
            Kind::Recategorized => cairn_wire::ChangeKind::Recategorized,
        }
    }
}
