//! Skills and their immutable versions: publishing and reading.

use cairn_provenance::statement::AttestedFile;
use cairn_skill::{Bundle, Category, SkillName};
use chrono::{DateTime, Utc};
use sqlx::{Postgres, Transaction};
use tracing::instrument;

use crate::log::VersionFacts;
use crate::notify::INDEX_CHANNEL;
use crate::{Actor, FileEntry, PublishOutcome, SkillSummary, Store, StoreError, VersionInfo, VersionSource};

/// Advisory-lock namespace for per-organisation index writes (see `index_changes`).
pub(crate) const INDEX_LOCK_NAMESPACE: i32 = 0x6361_6972;

/// The columns of a [`SkillSummary`]: the skill plus its latest non-yanked version.
macro_rules! summary_select {
    () => {
        "SELECT s.id, s.name, s.category, v.revision AS latest_revision, v.description, \
        v.digest, (SELECT count(*) FROM versions c WHERE c.skill_id = s.id) AS version_count, \
        s.created_at, s.updated_at \
    FROM skills s \
    LEFT JOIN LATERAL (SELECT revision, description, digest FROM versions v \
        WHERE v.skill_id = s.id AND NOT v.yanked ORDER BY revision DESC LIMIT 1) v ON TRUE"
    };
}

/// A bundle to publish as the next version of a skill. Its blobs must already be in
/// the blob store: the store records them as present.
#[derive(Clone, Copy, Debug)]
pub struct NewVersion<'a> {
    /// The skill (created when it does not exist yet).
    pub name: &'a SkillName,
    /// What happens to the skill's category.
    pub category: CategoryUpdate<'a>,
    /// The validated bundle.
    pub bundle: &'a Bundle,
    /// Where the version comes from.
    pub source: VersionSource,
    /// The publishing user, when a user publishes.
    pub published_by: Option<i64>,
    /// The scan the bundle passed, stated in its attestation (`None`: not scanned).
    pub scan: Option<VersionScan<'a>>,
}

/// The scan a version passed: its verdict and the scanner's rule-set version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VersionScan<'a> {
    /// `safe`, `caution` or `dangerous`.
    pub verdict: &'a str,
    /// The rule-set version.
    pub rules: &'a str,
}

/// Where a version published by approving a patch comes from: what its attestation
/// states about the patch and its approval.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VersionProvenance {
    /// The approved patch.
    pub(crate) patch: uuid::Uuid,
    /// The revision it was written against.
    pub(crate) base_revision: Option<i32>,
    /// Its author's handle.
    pub(crate) author: String,
    /// The agent's self-reported provenance.
    pub(crate) agent: Option<serde_json::Value>,
    /// Everyone who reported the lesson: `[{"patch", "author", "agent"}]`.
    pub(crate) contributors: serde_json::Value,
    /// The approving reviewer's handle (`None`: the organisation's policy approved it).
    pub(crate) reviewer: Option<String>,
    /// When it was approved (the transaction's time, as `decided_at` records it).
    pub(crate) decided_at: DateTime<Utc>,
}

/// How publishing treats the skill's category.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CategoryUpdate<'a> {
    /// Set it (`None` clears it): an explicit decision, e.g. by an admin.
    Set(Option<&'a Category>),
    /// Give a new skill this category; an existing skill keeps its own. Imports use this,
    /// so importing a subtree (where folders above are not seen) never rewrites categories.
    IfNew(Option<&'a Category>),
}

/// Which version of a skill to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RevisionSelector {
    /// The highest non-yanked revision.
    Latest,
    /// Exactly this revision (yanked ones included: pinned readers keep working).
    Exact(i32),
}

/// A version's archive digest as [`Store::archive_digests`] reads it: skill name,
/// revision, version id, and the archive's SHA-256 (hex) when computed before.
pub type ArchiveDigest = (String, i32, i64, Option<String>);

/// Filters and paging for [`Store::list_skills`].
#[derive(Clone, Debug, Default)]
pub struct SkillQuery {
    /// Case-insensitive substring of the name or the latest description.
    pub text: Option<String>,
    /// Exact category, or any category below it (`devops` matches `devops/k8s`).
    pub category: Option<String>,
    /// Return names strictly after this one (keyset paging).
    pub after: Option<String>,
    /// Page size.
    pub limit: i64,
}

impl Store {
    /// Publishes one bundle (see [`Store::publish_versions`]).
    pub async fn publish_version(
        &self,
        org_id: i64,
        version: NewVersion<'_>,
        actor: &Actor,
    ) -> Result<PublishOutcome, StoreError> {
        let mut outcomes = self.publish_versions(org_id, &[version], actor).await?;
        Ok(outcomes.remove(0))
    }

    /// Publishes many bundles in one transaction (bulk import). For each: if its digest
    /// equals the latest non-yanked version's, nothing is written (`Unchanged`); otherwise
    /// the next revision is created with its manifest, an index change and an audit row.
    #[instrument(skip_all, fields(count = versions.len()))]
    pub async fn publish_versions(
        &self,
        org_id: i64,
        versions: &[NewVersion<'_>],
        actor: &Actor,
    ) -> Result<Vec<PublishOutcome>, StoreError> {
        let mut tx = self.pool.begin().await?;
        lock_org_index(&mut tx, org_id).await?;
        let mut outcomes = Vec::with_capacity(versions.len());
        let mut events = Vec::new();
        for version in versions {
            outcomes.push(publish_in(&mut tx, org_id, version, None, actor, &mut events).await?);
        }
        crate::log::append_version_events(&mut tx, self.log_signer(), &events).await?;
        tx.commit().await?;
        Ok(outcomes)
    }

    /// The names of every skill of the organisation that has a version or an open patch
    /// (one creating it), in byte order: what an admin's rescan of all skills walks.
    pub async fn skill_names(&self, org_id: i64) -> Result<Vec<String>, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT s.name COLLATE \"C\" FROM skills s WHERE s.org_id = $1 \
               AND EXISTS (SELECT 1 FROM versions v WHERE v.skill_id = s.id) \
             UNION SELECT p.skill_name COLLATE \"C\" FROM patches p WHERE p.org_id = $1 AND p.status = ANY($2) \
             ORDER BY 1",
        )
        .bind(org_id)
        .bind(&crate::OPEN_PATCH_STATUSES[..])
        .fetch_all(&self.pool)
        .await?)
    }

    /// Lists an organisation's skills by name, filtered and paged.
    #[instrument(skip_all)]
    pub async fn list_skills(&self, org_id: i64, query: &SkillQuery) -> Result<Vec<SkillSummary>, StoreError> {
        let pattern = query.text.as_ref().map(|t| format!("%{}%", escape_like(t)));
        let category_prefix = query.category.as_ref().map(|c| format!("{}/%", escape_like(c)));
        let sql = concat!(
            summary_select!(),
            " WHERE s.org_id = $1 \
               AND ($2::text IS NULL OR s.name ILIKE $2 OR v.description ILIKE $2) \
               AND ($3::text IS NULL OR s.category = $3 OR s.category LIKE $4) \
               AND ($5::text IS NULL OR s.name > $5) \
             ORDER BY s.name LIMIT $6"
        );
        Ok(sqlx::query_as::<_, SkillSummary>(sql)
            .bind(org_id)
            .bind(pattern)
            .bind(&query.category)
            .bind(category_prefix)
            .bind(&query.after)
            .bind(query.limit)
            .fetch_all(&self.pool)
            .await?)
    }

    /// The organisation's skill categories with how many skills each holds directly
    /// (`None`: skills without a category), by category.
    #[instrument(skip_all)]
    pub async fn skill_categories(&self, org_id: i64) -> Result<Vec<(Option<String>, i64)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT category, count(*) FROM skills WHERE org_id = $1 GROUP BY category ORDER BY category NULLS FIRST",
        )
        .bind(org_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// For each `(name, revision)` of the organisation: the version's id and its archive
    /// SHA-256 if computed before. Unknown pairs are left out.
    #[instrument(skip_all)]
    pub async fn archive_digests(
        &self,
        org_id: i64,
        versions: &[(String, i32)],
    ) -> Result<Vec<ArchiveDigest>, StoreError> {
        let (names, revisions): (Vec<&str>, Vec<i32>) = versions.iter().map(|(n, r)| (n.as_str(), *r)).unzip();
        Ok(sqlx::query_as(
            "SELECT s.name, v.revision, v.id, v.archive_sha256 FROM versions v JOIN skills s ON s.id = v.skill_id \
             JOIN unnest($2::text[], $3::int[]) AS wanted(name, revision) \
               ON wanted.name = s.name AND wanted.revision = v.revision \
             WHERE s.org_id = $1",
        )
        .bind(org_id)
        .bind(names)
        .bind(revisions)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The frontmatter (as JSON, unknown keys included) of each `(name, revision)` of the
    /// organisation, by that pair; unknown pairs are left out. One query for a page of
    /// skills (the MCP Skills extension lists every skill's frontmatter).
    #[instrument(skip_all)]
    pub async fn frontmatters(
        &self,
        org_id: i64,
        versions: &[(String, i32)],
    ) -> Result<std::collections::HashMap<(String, i32), serde_json::Value>, StoreError> {
        let (names, revisions): (Vec<&str>, Vec<i32>) = versions.iter().map(|(n, r)| (n.as_str(), *r)).unzip();
        let rows: Vec<(String, i32, sqlx::types::Json<serde_json::Value>)> = sqlx::query_as(
            "SELECT s.name, v.revision, v.frontmatter FROM versions v JOIN skills s ON s.id = v.skill_id \
             JOIN unnest($2::text[], $3::int[]) AS wanted(name, revision) \
               ON wanted.name = s.name AND wanted.revision = v.revision \
             WHERE s.org_id = $1",
        )
        .bind(org_id)
        .bind(names)
        .bind(revisions)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(|(n, r, f)| ((n, r), f.0)).collect())
    }

    /// The SHA-256 (hex) of a version's stored archive, if one was recorded.
    #[instrument(skip_all)]
    pub async fn archive_sha256(&self, version_id: i64) -> Result<Option<String>, StoreError> {
        Ok(sqlx::query_scalar("SELECT archive_sha256 FROM versions WHERE id = $1")
            .bind(version_id)
            .fetch_optional(&self.pool)
            .await?
            .flatten())
    }

    /// Records a version's archive SHA-256 (its blob must be stored first). With
    /// `replace` false the first value written stays, so concurrent builders agree on one
    /// archive; with `replace` true (the recorded archive's blob is gone) it is replaced.
    #[instrument(skip_all)]
    pub async fn set_archive_sha256(&self, version_id: i64, sha256: &str, replace: bool) -> Result<(), StoreError> {
        sqlx::query("UPDATE versions SET archive_sha256 = $2 WHERE id = $1 AND ($3 OR archive_sha256 IS NULL)")
            .bind(version_id)
            .bind(sha256)
            .bind(replace)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// One skill by name.
    #[instrument(skip_all)]
    pub async fn skill(&self, org_id: i64, name: &str) -> Result<SkillSummary, StoreError> {
        let sql = concat!(summary_select!(), " WHERE s.org_id = $1 AND s.name = $2");
        sqlx::query_as::<_, SkillSummary>(sql)
            .bind(org_id)
            .bind(name)
            .fetch_optional(&self.pool)
            .await?
            .ok_or_else(|| StoreError::NotFound(format!("skill '{name}'")))
    }

    /// A skill's versions, newest first, paged by revision.
    #[instrument(skip_all)]
    pub async fn list_versions(
        &self,
        skill_id: i64,
        before_revision: Option<i32>,
        limit: i64,
    ) -> Result<Vec<VersionInfo>, StoreError> {
        Ok(sqlx::query_as::<_, VersionInfo>(
            "SELECT v.id, v.revision, v.digest, v.description, v.frontmatter, v.file_count, v.total_size, \
                    v.source, u.handle AS published_by, v.patch_id, v.contributors, v.yanked, v.created_at \
             FROM versions v LEFT JOIN users u ON u.id = v.published_by \
             WHERE v.skill_id = $1 AND ($2::int IS NULL OR v.revision < $2) \
             ORDER BY v.revision DESC LIMIT $3",
        )
        .bind(skill_id)
        .bind(before_revision)
        .bind(limit)
        .fetch_all(&self.pool)
        .await?)
    }

    /// One version of a skill.
    #[instrument(skip_all)]
    pub async fn version(&self, skill_id: i64, selector: RevisionSelector) -> Result<VersionInfo, StoreError> {
        let (exact, what) = match selector {
            RevisionSelector::Latest => (None, "a non-yanked version".to_owned()),
            RevisionSelector::Exact(rev) => (Some(rev), format!("revision {rev}")),
        };
        sqlx::query_as::<_, VersionInfo>(
            "SELECT v.id, v.revision, v.digest, v.description, v.frontmatter, v.file_count, v.total_size, \
                    v.source, u.handle AS published_by, v.patch_id, v.contributors, v.yanked, v.created_at \
             FROM versions v LEFT JOIN users u ON u.id = v.published_by \
             WHERE v.skill_id = $1 AND (($2::int IS NULL AND NOT v.yanked) OR v.revision = $2) \
             ORDER BY v.revision DESC LIMIT 1",
        )
        .bind(skill_id)
        .bind(exact)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound(what))
    }

    /// A version's manifest, sorted by path.
    #[instrument(skip_all)]
    pub async fn version_files(&self, version_id: i64) -> Result<Vec<FileEntry>, StoreError> {
        Ok(sqlx::query_as::<_, FileEntry>(
            "SELECT path, sha256, size, executable FROM version_files WHERE version_id = $1 ORDER BY path",
        )
        .bind(version_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The files of several versions in one query: `(version id, file)`, by version then
    /// path.
    pub async fn files_of_versions(&self, version_ids: &[i64]) -> Result<Vec<(i64, FileEntry)>, StoreError> {
        let rows = sqlx::query_as::<_, (i64, String, String, i64, bool)>(
            "SELECT version_id, path, sha256, size, executable FROM version_files \
             WHERE version_id = ANY($1) ORDER BY version_id, path",
        )
        .bind(version_ids)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(version_id, path, sha256, size, executable)| {
                (
                    version_id,
                    FileEntry {
                        path,
                        sha256,
                        size,
                        executable,
                    },
                )
            })
            .collect())
    }

    /// Which of `sha256s` are referenced by some version of this organisation. Blob reads
    /// go through this, so one tenant cannot probe or read another tenant's content.
    #[instrument(skip_all, fields(count = sha256s.len()))]
    pub async fn blobs_visible_to_org(
        &self,
        org_id: i64,
        sha256s: &[String],
    ) -> Result<Vec<(String, i64)>, StoreError> {
        Ok(sqlx::query_as::<_, (String, i64)>(
            "SELECT b.sha256, b.size FROM blobs b WHERE b.sha256 = ANY($2) AND EXISTS ( \
                SELECT 1 FROM version_files f JOIN versions v ON v.id = f.version_id \
                JOIN skills s ON s.id = v.skill_id WHERE f.sha256 = b.sha256 AND s.org_id = $1)",
        )
        .bind(org_id)
        .bind(sha256s)
        .fetch_all(&self.pool)
        .await?)
    }
}

/// Takes the organisation's index lock for the rest of the transaction, so change-log
/// cursors are handed out in commit order within the organisation.
pub(crate) async fn lock_org_index(tx: &mut Transaction<'_, Postgres>, org_id: i64) -> Result<(), StoreError> {
    let key = i32::try_from(org_id).unwrap_or(i32::MAX);
    sqlx::query("SELECT pg_advisory_xact_lock($1, $2)")
        .bind(INDEX_LOCK_NAMESPACE)
        .bind(key)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

pub(crate) async fn publish_in(
    tx: &mut Transaction<'_, Postgres>,
    org_id: i64,
    version: &NewVersion<'_>,
    provenance: Option<&VersionProvenance>,
    actor: &Actor,
    events: &mut Vec<crate::log::PendingEvent>,
) -> Result<PublishOutcome, StoreError> {
    let name = version.name.as_str();
    let initial_category = match version.category {
        CategoryUpdate::Set(c) | CategoryUpdate::IfNew(c) => c.map(Category::as_str),
    };
    // One round trip: create the skill if needed and lock its row. `xmax = 0` tells a
    // fresh insert from an existing row; `category` is the stored one in either case.
    let (skill_id, old_category, new_skill): (i64, Option<String>, bool) = sqlx::query_as(
        "INSERT INTO skills (org_id, name, category) VALUES ($1, $2, $3) \
         ON CONFLICT (org_id, name) DO UPDATE SET name = EXCLUDED.name \
         RETURNING id, category, (xmax = 0) AS inserted",
    )
    .bind(org_id)
    .bind(name)
    .bind(initial_category)
    .fetch_one(&mut **tx)
    .await?;
    let category = match version.category {
        CategoryUpdate::Set(c) => c.map(Category::as_str),
        CategoryUpdate::IfNew(_) => old_category.as_deref(),
    };
    let recategorized = old_category.as_deref() != category;
    let digest = version.bundle.digest();

    // One round trip: the latest non-yanked version and the next revision number.
    let (next_revision, latest_id, latest_revision, latest_digest): (i32, Option<i64>, Option<i32>, Option<String>) =
        sqlx::query_as(
            "SELECT (SELECT coalesce(max(revision), 0) + 1 FROM versions WHERE skill_id = $1), l.id, l.revision, l.digest \
             FROM (SELECT 1) AS one LEFT JOIN LATERAL ( \
                 SELECT id, revision, digest FROM versions WHERE skill_id = $1 AND NOT yanked \
                 ORDER BY revision DESC LIMIT 1) l ON TRUE",
        )
        .bind(skill_id)
        .fetch_one(&mut **tx)
        .await?;
    if let (Some(latest_id), Some(revision), Some(latest_digest)) = (latest_id, latest_revision, latest_digest)
        && latest_digest == digest
        && same_modes(tx, latest_id, version.bundle).await?
    {
        if recategorized {
            let details = serde_json::json!({ "from": old_category, "to": category });
            record_skill_change(
                tx,
                org_id,
                skill_id,
                category,
                "recategorized",
                revision,
                actor,
                "skill.recategorize",
                &format!("skill:{name}"),
                details,
            )
            .await?;
        }
        return Ok(PublishOutcome::Unchanged {
            revision,
            recategorized,
        });
    }

    let revision = next_revision;
    let manifest = version.bundle.manifest();
    let paths: Vec<&str> = manifest.iter().map(|f| f.path.as_str()).collect();
    let shas: Vec<String> = manifest.iter().map(|f| f.sha256.to_hex()).collect();
    let sizes: Vec<i64> = manifest
        .iter()
        .map(|f| i64::try_from(f.size).unwrap_or(i64::MAX))
        .collect();
    let executables: Vec<bool> = manifest.iter().map(|f| f.executable).collect();
    let total_size: i64 = sizes.iter().sum();

    // One round trip: blob rows, the version and its manifest; back come what the
    // version's attestation states beyond what is in hand.
    let (version_id, created_at, organization, publisher): (i64, DateTime<Utc>, String, Option<String>) = sqlx::query_as(
        "WITH new_blobs AS ( \
             INSERT INTO blobs (sha256, size) SELECT * FROM UNNEST($10::text[], $11::bigint[]) ON CONFLICT DO NOTHING), \
         new_version AS ( \
             INSERT INTO versions (skill_id, revision, digest, description, frontmatter, file_count, total_size, source, \
                                   published_by, patch_id, contributors, scan_verdict, scan_rules) \
             VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8, $9, $14, coalesce($15, '[]'::jsonb), $16, $17) \
             RETURNING id, created_at), \
         new_files AS ( \
             INSERT INTO version_files (version_id, path, sha256, size, executable) \
             SELECT new_version.id, f.path, f.sha256, f.size, f.executable FROM new_version, \
                 UNNEST($12::text[], $10::text[], $11::bigint[], $13::bool[]) AS f(path, sha256, size, executable)) \
         SELECT id, created_at, (SELECT slug FROM organizations WHERE id = $18), \
             (SELECT handle FROM users WHERE id = $9) FROM new_version",
    )
    .bind(skill_id)
    .bind(revision)
    .bind(&digest)
    .bind(version.bundle.description())
    // Bound as text and cast to `json`: binding `Json<…>` would go through `jsonb` and
    // lose the document's key order.
    .bind(serde_json::to_string(&version.bundle.frontmatter().to_json()).unwrap_or_else(|_| "{}".to_owned()))
    .bind(i32::try_from(manifest.len()).unwrap_or(i32::MAX))
    .bind(total_size)
    .bind(version.source.as_str())
    .bind(version.published_by)
    .bind(&shas)
    .bind(&sizes)
    .bind(&paths)
    .bind(&executables)
    .bind(provenance.map(|p| p.patch))
    .bind(provenance.map(|p| sqlx::types::Json(&p.contributors)))
    .bind(version.scan.map(|s| s.verdict))
    .bind(version.scan.map(|s| s.rules))
    .bind(org_id)
    .fetch_one(&mut **tx)
    .await?;
    events.push(crate::log::PendingEvent::published(VersionFacts {
        id: version_id,
        organization,
        skill: name.to_owned(),
        category: category.map(str::to_owned),
        revision,
        digest: digest.clone(),
        source: version.source.as_str().to_owned(),
        created_at,
        scan_verdict: version.scan.map(|s| s.verdict.to_owned()),
        scan_rules: version.scan.map(|s| s.rules.to_owned()),
        publisher,
        patch_id: provenance.map(|p| p.patch.to_string()),
        base_revision: provenance.and_then(|p| p.base_revision),
        author: provenance.map(|p| p.author.clone()),
        agent: provenance.and_then(|p| p.agent.clone()),
        contributors: provenance.map_or_else(|| serde_json::json!([]), |p| p.contributors.clone()),
        reviewer: provenance.and_then(|p| p.reviewer.clone()),
        decided_at: provenance.map(|p| p.decided_at),
        files: manifest
            .iter()
            .zip(&shas)
            .map(|(file, sha256)| AttestedFile {
                path: file.path.as_str().to_owned(),
                sha256: sha256.clone(),
                size: file.size,
                executable: file.executable,
            })
            .collect(),
    }));
    let details = serde_json::json!({ "digest": digest, "source": version.source.as_str(), "files": manifest.len() });
    record_skill_change(
        tx,
        org_id,
        skill_id,
        category,
        "published",
        revision,
        actor,
        "version.publish",
        &format!("skill:{name}@{revision}"),
        details,
    )
    .await?;
    let event = serde_json::json!({
        "skill": name, "revision": revision, "digest": digest, "source": version.source.as_str(),
    });
    crate::webhooks::enqueue(tx, org_id, "version.published", event).await?;
    Ok(PublishOutcome::Created { revision, new_skill })
}

/// One round trip: touches the skill (and sets its category), appends the index change
/// and the audit row.
#[allow(clippy::too_many_arguments)]
async fn record_skill_change(
    tx: &mut Transaction<'_, Postgres>,
    org_id: i64,
    skill_id: i64,
    category: Option<&str>,
    kind: &str,
    revision: i32,
    actor: &Actor,
    action: &str,
    target: &str,
    details: serde_json::Value,
) -> Result<(), StoreError> {
    sqlx::query(
        "WITH touched AS (UPDATE skills SET category = $3, updated_at = now() WHERE id = $2), \
         change AS (INSERT INTO index_changes (org_id, skill_id, kind, revision) VALUES ($1, $2, $4, $5)) \
         INSERT INTO audit_log (org_id, actor_id, actor, action, target, request_id, client_addr, details) \
         SELECT $1, $6, $7, $8, $9, $10, $11, $12 FROM (SELECT pg_notify($13, $1::text)) AS notified",
    )
    .bind(org_id)
    .bind(skill_id)
    .bind(category)
    .bind(kind)
    .bind(revision)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(action)
    .bind(target)
    .bind(&actor.request_id)
    .bind(&actor.client_addr)
    .bind(sqlx::types::Json(details))
    .bind(INDEX_CHANNEL)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Whether a stored version's files have the same executable bits as `bundle` (the
/// digest covers paths and contents only, so a `chmod +x` alone must be detected here).
async fn same_modes(tx: &mut Transaction<'_, Postgres>, version_id: i64, bundle: &Bundle) -> Result<bool, StoreError> {
    let stored: Vec<(String, bool)> =
        sqlx::query_as("SELECT path, executable FROM version_files WHERE version_id = $1 ORDER BY path")
            .bind(version_id)
            .fetch_all(&mut **tx)
            .await?;
    let manifest = bundle.manifest();
    Ok(stored.len() == manifest.len()
        && stored
            .iter()
            .zip(&manifest)
            .all(|((path, exec), m)| path == m.path.as_str() && *exec == m.executable))
}

/// Escapes `%`, `_` and `\` so user text is matched literally by LIKE.
pub(crate) fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// What [`Store::set_yanked`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct YankOutcome {
    /// Whether the flag changed (yanking a yanked version changes nothing).
    pub changed: bool,
    /// The skill's latest non-yanked revision afterwards.
    pub latest_revision: Option<i32>,
}

impl Store {
    /// Yanks (or unyanks) one version: it stays readable by exact revision, but `latest`
    /// and the index skip it. The index change, the skill's `updated_at` and the audit row
    /// commit together; a version already in the requested state changes nothing.
    #[instrument(skip_all)]
    pub async fn set_yanked(
        &self,
        org_id: i64,
        skill: &SkillName,
        revision: i32,
        yanked: bool,
        actor: &Actor,
    ) -> Result<YankOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        lock_org_index(&mut tx, org_id).await?;
        let name = skill.as_str();
        let row: Option<(i64, Option<String>, bool, i64)> = sqlx::query_as(
            "SELECT s.id, s.category, v.yanked, v.id FROM skills s JOIN versions v ON v.skill_id = s.id \
             WHERE s.org_id = $1 AND s.name = $2 AND v.revision = $3 FOR UPDATE OF v",
        )
        .bind(org_id)
        .bind(name)
        .bind(revision)
        .fetch_optional(&mut *tx)
        .await?;
        let Some((skill_id, category, was_yanked, version_id)) = row else {
            return Err(StoreError::NotFound(format!("version {revision} of skill '{name}'")));
        };
        if was_yanked == yanked {
            let latest_revision = latest_unyanked(&mut tx, skill_id).await?;
            return Ok(YankOutcome {
                changed: false,
                latest_revision,
            });
        }
        sqlx::query("UPDATE versions SET yanked = $3 WHERE skill_id = $1 AND revision = $2")
            .bind(skill_id)
            .bind(revision)
            .bind(yanked)
            .execute(&mut *tx)
            .await?;
        let (kind, action) = if yanked {
            ("yanked", "version.yank")
        } else {
            ("unyanked", "version.unyank")
        };
        record_skill_change(
            &mut tx,
            org_id,
            skill_id,
            category.as_deref(),
            kind,
            revision,
            actor,
            action,
            &format!("skill:{name}@{revision}"),
            serde_json::json!({}),
        )
        .await?;
        let latest_revision = latest_unyanked(&mut tx, skill_id).await?;
        let event = if yanked {
            cairn_provenance::statement::VersionEvent::Yanked
        } else {
            cairn_provenance::statement::VersionEvent::Unyanked
        };
        let pending = crate::log::PendingEvent::read_under_lock(version_id, event);
        crate::log::append_version_events(&mut tx, self.log_signer(), &[pending]).await?;
        tx.commit().await?;
        Ok(YankOutcome {
            changed: true,
            latest_revision,
        })
    }
}

/// The highest non-yanked revision of a skill, if any.
/// Yanks every version of a skill that is not yanked yet, each with its index change
/// and audit row (a deleted skill leaves the index; its versions stay readable by
/// number, and an unyank brings one back).
pub(crate) async fn yank_all_in(
    tx: &mut Transaction<'_, Postgres>,
    org_id: i64,
    skill: &SkillName,
    actor: &Actor,
    events: &mut Vec<crate::log::PendingEvent>,
) -> Result<(), StoreError> {
    let name = skill.as_str();
    let rows: Vec<(i64, Option<String>, i32, i64)> = sqlx::query_as(
        "UPDATE versions v SET yanked = true FROM skills s \
         WHERE s.id = v.skill_id AND s.org_id = $1 AND s.name = $2 AND NOT v.yanked \
         RETURNING s.id, s.category, v.revision, v.id",
    )
    .bind(org_id)
    .bind(name)
    .fetch_all(&mut **tx)
    .await?;
    for (skill_id, category, revision, version_id) in rows {
        events.push(crate::log::PendingEvent::read_under_lock(
            version_id,
            cairn_provenance::statement::VersionEvent::Yanked,
        ));
        record_skill_change(
            tx,
            org_id,
            skill_id,
            category.as_deref(),
            "yanked",
            revision,
            actor,
            "version.yank",
            &format!("skill:{name}@{revision}"),
            serde_json::json!({ "reason": "skill deleted by a patch" }),
        )
        .await?;
    }
    Ok(())
}

async fn latest_unyanked(tx: &mut Transaction<'_, Postgres>, skill_id: i64) -> Result<Option<i32>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT max(revision) FROM versions WHERE skill_id = $1 AND NOT yanked")
            .bind(skill_id)
            .fetch_one(&mut **tx)
            .await?,
    )
}
