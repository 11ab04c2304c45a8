//! Reviewers' answers to the security scanner: findings dismissed as false positives,
//! and imported skills held in quarantine until an admin releases or deletes them.

use chrono::{DateTime, Utc};
use sqlx::types::Json;
use uuid::Uuid;

use crate::audit::record_audit;
use crate::skills::{NewVersion, lock_org_index, publish_in};
use crate::{Actor, PublishOutcome, Store, StoreError};

/// A finding a reviewer is dismissing.
#[derive(Clone, Debug)]
pub struct NewDismissal<'a> {
    /// The skill the finding belongs to.
    pub skill_name: &'a str,
    /// The finding's rule.
    pub rule: &'a str,
    /// Its file.
    pub file: &'a str,
    /// The text it matched (its excerpt).
    pub excerpt: &'a str,
    /// What it said, line numbers left out.
    pub message: &'a str,
    /// Its severity as found.
    pub severity: &'a str,
    /// Why it is a false positive.
    pub reason: &'a str,
    /// The reviewer.
    pub dismissed_by: i64,
    /// The patch the reviewer was reading, if any.
    pub patch_id: Option<Uuid>,
}

/// A stored dismissal.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct DismissalRecord {
    /// Its id.
    pub id: i64,
    /// The skill.
    pub skill_name: String,
    /// The rule.
    pub rule: String,
    /// The file.
    pub file: String,
    /// The matched text.
    pub excerpt: String,
    /// What the finding said, line numbers left out.
    pub message: String,
    /// The finding's severity when dismissed.
    pub severity: String,
    /// Why.
    pub reason: String,
    /// The reviewer's handle.
    pub dismissed_by: String,
    /// The patch it was dismissed on.
    pub patch_id: Option<Uuid>,
    /// When.
    pub created_at: DateTime<Utc>,
    /// When it was revoked (then it no longer applies).
    pub revoked_at: Option<DateTime<Utc>>,
    /// Who revoked it.
    pub revoked_by: Option<String>,
}

const DISMISSAL_SELECT: &str = "SELECT d.id, d.skill_name, d.rule, d.file, d.excerpt, d.message, d.severity, d.reason, \
    u.handle AS dismissed_by, d.patch_id, d.created_at, d.revoked_at, r.handle AS revoked_by \
    FROM finding_dismissals d JOIN users u ON u.id = d.dismissed_by LEFT JOIN users r ON r.id = d.revoked_by";

/// What dismissing did.
#[derive(Clone, Debug, PartialEq)]
pub enum DismissOutcome {
    /// The finding is dismissed now.
    Dismissed(DismissalRecord),
    /// It already was (by this or an earlier dismissal): nothing written.
    AlreadyDismissed(DismissalRecord),
}

/// An imported skill held back because it scans `dangerous`.
#[derive(Clone, Debug)]
pub struct NewQuarantined<'a> {
    /// Its id.
    pub id: Uuid,
    /// The skill's name.
    pub name: &'a str,
    /// Its category, from the import tree.
    pub category: Option<&'a str>,
    /// The bundle's digest.
    pub digest: &'a str,
    /// The bundle's manifest (`[{path, sha256, size, executable}]`; blobs stored).
    pub manifest: serde_json::Value,
    /// The scan report.
    pub scan: serde_json::Value,
    /// Where the import read it.
    pub source_path: &'a str,
}

/// A quarantined import.
#[derive(Clone, Debug, PartialEq, sqlx::FromRow)]
pub struct QuarantinedRecord {
    /// Its id.
    pub id: Uuid,
    /// The skill's name.
    pub name: String,
    /// Its category.
    pub category: Option<String>,
    /// The bundle's digest.
    pub digest: String,
    /// The bundle's manifest.
    pub manifest: Json<serde_json::Value>,
    /// The scan report.
    pub scan: Json<serde_json::Value>,
    /// Where the import read it.
    pub source_path: String,
    /// Who ran the import.
    pub imported_by: String,
    /// When.
    pub created_at: DateTime<Utc>,
}

const QUARANTINE_SELECT: &str = "SELECT id, name, category, digest, manifest, scan, source_path, imported_by, created_at \
    FROM quarantined_skills";

/// What releasing a quarantined import did.
#[derive(Clone, Debug, PartialEq)]
pub enum ReleaseOutcome {
    /// Published (or already the latest version).
    Released(PublishOutcome),
    /// Another admin released or deleted it first.
    Gone,
    /// The skill got a version after the import was quarantined: releasing would replace
    /// it with the older imported content. Nothing was written.
    SkillMoved {
        /// The skill's latest revision now.
        revision: i32,
    },
}

impl Store {
    /// The active dismissals of one skill's findings, oldest first.
    pub async fn dismissals(&self, org_id: i64, skill: &str) -> Result<Vec<DismissalRecord>, StoreError> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{DISMISSAL_SELECT} WHERE d.org_id = $1 AND d.skill_name = $2 AND d.revoked_at IS NULL ORDER BY d.id"
        )))
        .bind(org_id)
        .bind(skill)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Every dismissal of one skill, revoked ones included (its history), newest first.
    pub async fn dismissal_history(&self, org_id: i64, skill: &str) -> Result<Vec<DismissalRecord>, StoreError> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{DISMISSAL_SELECT} WHERE d.org_id = $1 AND d.skill_name = $2 ORDER BY d.id DESC"
        )))
        .bind(org_id)
        .bind(skill)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The active dismissals of every skill of the organisation (imports and rescans of
    /// many skills read them once).
    pub async fn org_dismissals(&self, org_id: i64) -> Result<Vec<DismissalRecord>, StoreError> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{DISMISSAL_SELECT} WHERE d.org_id = $1 AND d.revoked_at IS NULL ORDER BY d.skill_name, d.id"
        )))
        .bind(org_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Dismisses a finding of a skill, with an audit entry; a finding already dismissed
    /// stays as it is (concurrent reviewers dismissing the same finding store one row).
    pub async fn dismiss_finding(
        &self,
        org_id: i64,
        dismissal: &NewDismissal<'_>,
        actor: &Actor,
    ) -> Result<DismissOutcome, StoreError> {
        // Another reviewer may revoke the active dismissal between the insert that found
        // it and the read: then the insert is tried again.
        for _ in 0..3 {
            let mut tx = self.pool.begin().await?;
            let inserted = insert_dismissal(&mut tx, org_id, dismissal).await?;
            if let Some(id) = inserted {
                record_audit(
                    &mut tx,
                    Some(org_id),
                    actor,
                    "finding.dismiss",
                    &format!("skill:{}", dismissal.skill_name),
                    serde_json::json!({
                        "dismissal": id, "rule": dismissal.rule, "file": dismissal.file,
                        "excerpt": dismissal.excerpt, "severity": dismissal.severity,
                        "reason": dismissal.reason, "patch": dismissal.patch_id,
                    }),
                )
                .await?;
            }
            let record: Option<DismissalRecord> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "{DISMISSAL_SELECT} WHERE d.org_id = $1 AND d.skill_name = $2 AND d.rule = $3 AND d.file = $4 \
                 AND d.excerpt = $5 AND d.message = $6 AND d.revoked_at IS NULL"
            )))
            .bind(org_id)
            .bind(dismissal.skill_name)
            .bind(dismissal.rule)
            .bind(dismissal.file)
            .bind(dismissal.excerpt)
            .bind(dismissal.message)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(record) = record else {
                continue;
            };
            tx.commit().await?;
            return Ok(if inserted.is_some() {
                DismissOutcome::Dismissed(record)
            } else {
                DismissOutcome::AlreadyDismissed(record)
            });
        }
        Err(StoreError::Conflict(
            "the finding's dismissal keeps being revoked while it is dismissed: try again".to_owned(),
        ))
    }

    /// Revokes a dismissal (the finding counts again in later scans), with an audit
    /// entry; `None` when there is no active dismissal with that id for the skill.
    pub async fn revoke_dismissal(
        &self,
        org_id: i64,
        skill: &str,
        id: i64,
        revoked_by: i64,
        actor: &Actor,
    ) -> Result<Option<DismissalRecord>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let revoked = sqlx::query(
            "UPDATE finding_dismissals SET revoked_at = now(), revoked_by = $4 \
             WHERE org_id = $1 AND skill_name = $2 AND id = $3 AND revoked_at IS NULL",
        )
        .bind(org_id)
        .bind(skill)
        .bind(id)
        .bind(revoked_by)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if revoked == 0 {
            return Ok(None);
        }
        let record: DismissalRecord = sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{DISMISSAL_SELECT} WHERE d.org_id = $1 AND d.id = $2"
        )))
        .bind(org_id)
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "finding.undismiss",
            &format!("skill:{skill}"),
            serde_json::json!({ "dismissal": id, "rule": record.rule, "file": record.file, "excerpt": record.excerpt }),
        )
        .await?;
        tx.commit().await?;
        Ok(Some(record))
    }

    /// Holds imported skills back (their blobs are stored); the same content of the same
    /// skill quarantined again keeps its one entry. Per skill: the entry's id, and whether
    /// this call created it.
    pub async fn quarantine(
        &self,
        org_id: i64,
        skills: &[NewQuarantined<'_>],
        actor: &Actor,
    ) -> Result<Vec<(Uuid, bool)>, StoreError> {
        let mut tx = self.pool.begin().await?;
        let mut entries = Vec::with_capacity(skills.len());
        for skill in skills {
            let (id, created): (Uuid, bool) = sqlx::query_as(
                "INSERT INTO quarantined_skills (id, org_id, name, category, digest, manifest, scan, source_path, imported_by) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (org_id, name, digest) DO UPDATE SET created_at = now(), source_path = EXCLUDED.source_path \
                 RETURNING id, (xmax = 0) AS created",
            )
            .bind(skill.id)
            .bind(org_id)
            .bind(skill.name)
            .bind(skill.category)
            .bind(skill.digest)
            .bind(Json(&skill.manifest))
            .bind(Json(&skill.scan))
            .bind(skill.source_path)
            .bind(&actor.name)
            .fetch_one(&mut *tx)
            .await?;
            if created {
                record_audit(
                    &mut tx,
                    Some(org_id),
                    actor,
                    "skill.quarantine",
                    &format!("skill:{}", skill.name),
                    serde_json::json!({ "quarantine": id, "digest": skill.digest, "path": skill.source_path }),
                )
                .await?;
            }
            entries.push((id, created));
        }
        tx.commit().await?;
        Ok(entries)
    }

    /// The organisation's quarantined imports, oldest first (by name within one import).
    pub async fn quarantined_skills(&self, org_id: i64) -> Result<Vec<QuarantinedRecord>, StoreError> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{QUARANTINE_SELECT} WHERE org_id = $1 ORDER BY created_at, name, id"
        )))
        .bind(org_id)
        .fetch_all(&self.pool)
        .await?)
    }

    /// One quarantined import.
    pub async fn quarantined_skill(&self, org_id: i64, id: Uuid) -> Result<QuarantinedRecord, StoreError> {
        sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "{QUARANTINE_SELECT} WHERE org_id = $1 AND id = $2"
        )))
        .bind(org_id)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or_else(|| StoreError::NotFound(format!("quarantined skill {id}")))
    }

    /// Releases a quarantined import in one transaction: its findings are dismissed with
    /// the admin's reason (so importing the same content again does not hold it back),
    /// it is published as an import, and it leaves the quarantine.
    pub async fn release_quarantined(
        &self,
        org_id: i64,
        id: Uuid,
        version: &NewVersion<'_>,
        dismissals: &[NewDismissal<'_>],
        actor: &Actor,
    ) -> Result<ReleaseOutcome, StoreError> {
        let mut tx = self.pool.begin().await?;
        lock_org_index(&mut tx, org_id).await?;
        let held: Option<(DateTime<Utc>,)> = sqlx::query_as(
            "DELETE FROM quarantined_skills WHERE org_id = $1 AND id = $2 AND digest = $3 RETURNING created_at",
        )
        .bind(org_id)
        .bind(id)
        .bind(version.bundle.digest())
        .fetch_optional(&mut *tx)
        .await?;
        let Some((quarantined_at,)) = held else {
            return Ok(ReleaseOutcome::Gone);
        };
        let newer: Option<(i32,)> = sqlx::query_as(
            "SELECT v.revision FROM versions v JOIN skills s ON s.id = v.skill_id \
             WHERE s.org_id = $1 AND s.name = $2 AND v.created_at > $3 ORDER BY v.revision DESC LIMIT 1",
        )
        .bind(org_id)
        .bind(version.name.as_str())
        .bind(quarantined_at)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some((revision,)) = newer {
            // Dropping the transaction puts the entry back.
            return Ok(ReleaseOutcome::SkillMoved { revision });
        }
        for dismissal in dismissals {
            insert_dismissal(&mut tx, org_id, dismissal).await?;
        }
        let mut events = Vec::new();
        let outcome = publish_in(&mut tx, org_id, version, None, actor, &mut events).await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "skill.release",
            &format!("skill:{}", version.name),
            serde_json::json!({
                "quarantine": id,
                "digest": version.bundle.digest(),
                "dismissed": dismissals.len(),
                "reason": dismissals.first().map(|d| d.reason),
            }),
        )
        .await?;
        crate::log::append_version_events(&mut tx, self.log_signer(), &events).await?;
        tx.commit().await?;
        Ok(ReleaseOutcome::Released(outcome))
    }

    /// Replaces the stored scan of a quarantined import (a rescan with newer rules);
    /// `false` when it is gone.
    pub async fn set_quarantine_scan(
        &self,
        org_id: i64,
        id: Uuid,
        scan: &serde_json::Value,
    ) -> Result<bool, StoreError> {
        Ok(
            sqlx::query("UPDATE quarantined_skills SET scan = $3 WHERE org_id = $1 AND id = $2")
                .bind(org_id)
                .bind(id)
                .bind(Json(scan))
                .execute(&self.pool)
                .await?
                .rows_affected()
                == 1,
        )
    }

    /// Deletes a quarantined import (its blobs are collected later), with an audit entry;
    /// `false` when it is already gone.
    pub async fn delete_quarantined(&self, org_id: i64, id: Uuid, actor: &Actor) -> Result<bool, StoreError> {
        let mut tx = self.pool.begin().await?;
        let deleted: Option<(String, String)> =
            sqlx::query_as("DELETE FROM quarantined_skills WHERE org_id = $1 AND id = $2 RETURNING name, digest")
                .bind(org_id)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?;
        let Some((name, digest)) = deleted else {
            return Ok(false);
        };
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "skill.quarantine_delete",
            &format!("skill:{name}"),
            serde_json::json!({ "quarantine": id, "digest": digest }),
        )
        .await?;
        tx.commit().await?;
        Ok(true)
    }
}

/// Stores a dismissal unless the same finding of the skill already has an active one at
/// the same or a higher severity (a dismissal judged at a higher severity replaces the
/// lower one's severity, reason and reviewer); the id of the row written.
async fn insert_dismissal(
    tx: &mut sqlx::Transaction<'_, sqlx::Postgres>,
    org_id: i64,
    dismissal: &NewDismissal<'_>,
) -> Result<Option<i64>, StoreError> {
    Ok(sqlx::query_scalar(
        "INSERT INTO finding_dismissals (org_id, skill_name, rule, file, excerpt, severity, reason, dismissed_by, patch_id, message) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
         ON CONFLICT (org_id, skill_name, rule, file, excerpt, message) WHERE revoked_at IS NULL \
         DO UPDATE SET severity = EXCLUDED.severity, reason = EXCLUDED.reason, dismissed_by = EXCLUDED.dismissed_by, \
                       patch_id = EXCLUDED.patch_id, created_at = now() \
         WHERE (CASE EXCLUDED.severity WHEN 'critical' THEN 3 WHEN 'high' THEN 2 ELSE 1 END) \
             > (CASE finding_dismissals.severity WHEN 'critical' THEN 3 WHEN 'high' THEN 2 ELSE 1 END) \
         RETURNING id",
    )
    .bind(org_id)
    .bind(dismissal.skill_name)
    .bind(dismissal.rule)
    .bind(dismissal.file)
    .bind(dismissal.excerpt)
    .bind(dismissal.severity)
    .bind(dismissal.reason)
    .bind(dismissal.dismissed_by)
    .bind(dismissal.patch_id)
    .bind(dismissal.message)
    .fetch_optional(&mut **tx)
    .await?)
}
