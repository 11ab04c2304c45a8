//! Owners: who reviews which skills. Everyone reads the lists; admins name the owners of a
//! skill or of a category (and the categories under it).

use askama::Template;
use axum::extract::{Query, State};
use axum::response::Response;
use cairn_store::OwnedKind;
use serde::Deserialize;

use super::back_with;
use crate::AppState;
use crate::app::owners;
use crate::web::error::WebError;
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Query of the owners page.
#[derive(Debug, Default, Deserialize)]
pub struct OwnersQuery {
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One owner list as the page shows it.
#[derive(Debug)]
pub struct RuleRow {
    kind: String,
    name: String,
    owners: String,
    /// Where the skill's page is (skills only).
    href: Option<String>,
}

/// The owners page.
#[derive(Template)]
#[template(path = "owners.html")]
struct OwnersPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    rows: Vec<RuleRow>,
    skills: Vec<String>,
    categories: Vec<String>,
}

/// `GET /admin/owners`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<OwnersQuery>,
) -> Result<Response, WebError> {
    let rules = owners::rules(&state.store, &viewer.principal).await?;
    let chrome = Chrome::new(&viewer, "owners");
    let (skills, categories) = if chrome.admin {
        let org = viewer.principal.org_id;
        let categories = state.store.skill_categories(org).await?;
        (
            state.store.skill_names(org).await?,
            categories.into_iter().filter_map(|(c, _)| c).collect(),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let page = OwnersPage {
        chrome,
        notice: query.flash.notice(&state),
        error: query.flash.error(&state),
        rows: rules
            .into_iter()
            .map(|rule| RuleRow {
                href: (rule.kind == "skill").then(|| format!("/admin/skills/{}", rule.name)),
                owners: rule.owners.join(", "),
                kind: rule.kind,
                name: rule.name,
            })
            .collect(),
        skills,
        categories,
    };
    crate::web::page(&page)
}

/// The form that names owners.
#[derive(Debug, Deserialize)]
pub struct SetForm {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    name: String,
    /// Handles separated by commas or spaces; empty removes the owners.
    #[serde(default)]
    owners: String,
}

/// `POST /admin/owners`: names (or, with no handles, removes) the owners of a skill or
/// a category.
pub async fn set(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<SetForm>,
) -> Result<Response, WebError> {
    let kind = match form.kind.as_str() {
        "skill" => OwnedKind::Skill,
        "category" => OwnedKind::Category,
        other => {
            return back_with(
                &state,
                "/admin/owners",
                WebError::bad_request(format!(
                    "'{other}' is not something owned: choose a skill or a category."
                )),
            );
        }
    };
    let handles: Vec<String> = form
        .owners
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|h| !h.is_empty())
        .map(str::to_owned)
        .collect();
    let name = form.name.trim();
    match owners::set(&state.store, &viewer.principal, kind, name, &handles, &viewer.actor()).await {
        Ok(rule) if rule.owners.is_empty() => Ok(done(
            &state,
            "/admin/owners",
            &format!("The {} {} has no owners now.", rule.kind, rule.name),
        )),
        Ok(rule) => Ok(done(
            &state,
            "/admin/owners",
            &format!(
                "The {} {} is owned by {}: its patches ask them for review.",
                rule.kind,
                rule.name,
                rule.owners.join(", ")
            ),
        )),
        Err(e) => back_with(&state, "/admin/owners", e),
    }
}
