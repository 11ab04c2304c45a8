//! Owners: the reviewers an organisation names for a skill or for a category of skills.
//! A patch to a skill they own asks them for review; admins set the lists, each change
//! written with its audit row in one transaction.

use tracing::instrument;

use crate::audit::record_audit;
use crate::{Actor, Store, StoreError};

/// What an owner list covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OwnedKind {
    /// One skill, by name.
    Skill,
    /// A category path and every category under it (`ops` covers `ops/db`).
    Category,
}

impl OwnedKind {
    /// The stored name (`skill`, `category`).
    pub fn as_str(self) -> &'static str {
        match self {
            OwnedKind::Skill => "skill",
            OwnedKind::Category => "category",
        }
    }
}

/// One owner list: what it covers and who owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerRule {
    /// `skill` or `category`.
    pub kind: String,
    /// The skill's name or the category's path.
    pub name: String,
    /// The owners' handles, sorted.
    pub owners: Vec<String>,
}

/// An owner of one skill, and the list that makes them one.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct SkillOwner {
    /// The owner's handle.
    pub handle: String,
    /// `skill` (named for the skill itself) or `category`.
    pub kind: String,
    /// The skill or the category the list names.
    pub name: String,
}

/// Why an owner list was refused; nothing was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnersRefusal {
    /// No member of the organisation has this handle.
    UnknownUser(String),
    /// The member cannot review (a member or reader, or disabled).
    CannotReview(String),
}

/// Whether an owner row applies to a skill named `$skill` whose category is `$category`:
/// SQL shared by the owner lookup and the queue's "review requested" filter.
fn owner_applies(owner: &str, skill: &str, category: &str) -> String {
    format!(
        "(({owner}.kind = 'skill' AND {owner}.name = {skill}) OR ({owner}.kind = 'category' AND \
         ({category} = {owner}.name OR starts_with({category}, {owner}.name || '/'))))"
    )
}

/// Whether user row `user` may review now (an admin or a reviewer, not disabled): only
/// such owners are asked for anything.
fn can_review(user: &str) -> String {
    format!("(NOT {user}.disabled AND {user}.role IN ('admin', 'reviewer'))")
}

/// The condition on a patch `p` that it is open and asks user `$param` for review (they
/// own its skill and may review it): the queue's "review requested from" filter.
pub(crate) fn review_requested_condition(param: &str) -> String {
    let open = crate::OPEN_PATCH_STATUSES.map(|s| format!("'{s}'")).join(", ");
    format!(
        "(p.status IN ({open}) AND p.author_id <> {param} \
         AND p.changes_requested_by IS NULL AND EXISTS (\
         SELECT 1 FROM owners o JOIN users ou ON ou.id = o.user_id \
         LEFT JOIN skills os ON os.org_id = p.org_id AND os.name = p.skill_name \
         WHERE o.org_id = p.org_id AND o.user_id = {param} AND {} AND {}))",
        can_review("ou"),
        owner_applies("o", "p.skill_name", "coalesce(os.category, p.category)")
    )
}

impl Store {
    /// Replaces the owners of a skill or a category with `handles` (none: the list goes).
    /// Every handle must name a member who can review (an admin or a reviewer, not
    /// disabled); otherwise nothing is written and the refusal says who. A list equal to the
    /// current one writes nothing. Concurrent changes of one list are applied one at a
    /// time, so the list ends as one of them left it.
    #[instrument(skip_all)]
    pub async fn set_owners(
        &self,
        org_id: i64,
        kind: OwnedKind,
        name: &str,
        handles: &[String],
        actor: &Actor,
    ) -> Result<Result<OwnerRule, OwnersRefusal>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended('owners:' || $1 || ':' || $2 || ':' || $3, 0))")
            .bind(org_id)
            .bind(kind.as_str())
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let found: Vec<(i64, String, String, bool)> = sqlx::query_as(
            "SELECT id, handle, role, disabled FROM users WHERE org_id = $1 AND handle = ANY($2) ORDER BY handle",
        )
        .bind(org_id)
        .bind(handles)
        .fetch_all(&mut *tx)
        .await?;
        for handle in handles {
            match found.iter().find(|(_, h, _, _)| h == handle) {
                None => return Ok(Err(OwnersRefusal::UnknownUser(handle.clone()))),
                Some((_, _, role, disabled)) if *disabled || !matches!(role.as_str(), "admin" | "reviewer") => {
                    return Ok(Err(OwnersRefusal::CannotReview(handle.clone())));
                }
                Some(_) => {}
            }
        }
        let previous: Vec<String> = sqlx::query_scalar(
            "SELECT u.handle FROM owners o JOIN users u ON u.id = o.user_id \
             WHERE o.org_id = $1 AND o.kind = $2 AND o.name = $3 ORDER BY u.handle",
        )
        .bind(org_id)
        .bind(kind.as_str())
        .bind(name)
        .fetch_all(&mut *tx)
        .await?;
        let owners: Vec<String> = found.iter().map(|(_, h, _, _)| h.clone()).collect();
        let rule = OwnerRule {
            kind: kind.as_str().to_owned(),
            name: name.to_owned(),
            owners: owners.clone(),
        };
        if previous == owners {
            return Ok(Ok(rule));
        }
        sqlx::query("DELETE FROM owners WHERE org_id = $1 AND kind = $2 AND name = $3")
            .bind(org_id)
            .bind(kind.as_str())
            .bind(name)
            .execute(&mut *tx)
            .await?;
        let ids: Vec<i64> = found.iter().map(|(id, _, _, _)| *id).collect();
        sqlx::query("INSERT INTO owners (org_id, kind, name, user_id) SELECT $1, $2, $3, unnest($4::bigint[])")
            .bind(org_id)
            .bind(kind.as_str())
            .bind(name)
            .bind(&ids)
            .execute(&mut *tx)
            .await?;
        record_audit(
            &mut tx,
            Some(org_id),
            actor,
            "owners.set",
            &format!("{}:{name}", kind.as_str()),
            serde_json::json!({ "owners": owners, "previous": previous }),
        )
        .await?;
        tx.commit().await?;
        Ok(Ok(rule))
    }

    /// Every owner list of an organisation: skills first, then categories, by name.
    #[instrument(skip_all)]
    pub async fn owner_rules(&self, org_id: i64) -> Result<Vec<OwnerRule>, StoreError> {
        let rows: Vec<(String, String, Vec<String>)> = sqlx::query_as(
            "SELECT o.kind, o.name, array_agg(u.handle ORDER BY u.handle) FROM owners o \
             JOIN users u ON u.id = o.user_id WHERE o.org_id = $1 \
             GROUP BY o.kind, o.name ORDER BY o.kind DESC, o.name",
        )
        .bind(org_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(kind, name, owners)| OwnerRule { kind, name, owners })
            .collect())
    }

    /// Who owns skill `skill` (whose category is the stored skill's, or `category` for a
    /// skill not published yet), each once, by handle, with the closest list that names
    /// them (the skill's own, else the deepest category); only members who can review count.
    #[instrument(skip_all)]
    pub async fn skill_owners(
        &self,
        org_id: i64,
        skill: &str,
        category: Option<&str>,
    ) -> Result<Vec<SkillOwner>, StoreError> {
        Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT DISTINCT ON (u.handle) u.handle, o.kind, o.name FROM owners o \
             JOIN users u ON u.id = o.user_id \
             LEFT JOIN skills s ON s.org_id = o.org_id AND s.name = $2 \
             WHERE o.org_id = $1 AND {} AND {} \
             ORDER BY u.handle, o.kind DESC, length(o.name) DESC",
            can_review("u"),
            owner_applies("o", "$2", "coalesce(s.category, $3)")
        )))
        .bind(org_id)
        .bind(skill)
        .bind(category)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Whether any skill of the organisation is in category `category` or under it.
    #[instrument(skip_all)]
    pub async fn category_in_use(&self, org_id: i64, category: &str) -> Result<bool, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM skills WHERE org_id = $1 \
             AND (category = $2 OR starts_with(category, $2 || '/')))",
        )
        .bind(org_id)
        .bind(category)
        .fetch_one(&self.pool)
        .await?)
    }

    /// How many open patches ask user `user_id` for review (see
    /// [`crate::PatchQuery::review_requested`]): the queue's "requested from you" count.
    #[instrument(skip_all)]
    pub async fn review_requested_count(&self, org_id: i64, user_id: i64) -> Result<i64, StoreError> {
        Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            // Most members own nothing: then no patch is looked at.
            "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM owners WHERE org_id = $1 AND user_id = $2) THEN 0 \
             ELSE (SELECT count(*) FROM patches p WHERE p.org_id = $1 AND {}) END",
            review_requested_condition("$2")
        )))
        .bind(org_id)
        .bind(user_id)
        .fetch_one(&self.pool)
        .await?)
    }
}
