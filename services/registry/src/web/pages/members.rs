//! Members and roles (admins): add people, change roles, disable and enable accounts.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use cairn_store::{Role, UserUpdate};
use serde::Deserialize;

use super::{back_with, given, when};
use crate::AppState;
use crate::app::accounts;
use crate::web::error::{WebError, encode};
use crate::web::session::{Verified, Viewer};
use crate::web::{Chrome, done};

/// Members listed per page.
const PAGE: i64 = 200;

/// Query of the members page.
#[derive(Debug, Default, Deserialize)]
pub struct MembersQuery {
    cursor: Option<String>,
    #[serde(flatten)]
    flash: crate::web::Flash,
}

/// One member.
#[derive(Debug)]
pub struct MemberRow {
    handle: String,
    role: &'static str,
    disabled: bool,
    created: String,
    is_viewer: bool,
}

/// The members page.
#[derive(Template)]
#[template(path = "members.html")]
struct MembersPage {
    chrome: Chrome,
    notice: Option<String>,
    error: Option<String>,
    roles: [&'static str; 4],
    rows: Vec<MemberRow>,
    next_page: Option<String>,
}

const ROLES: [&str; 4] = ["reader", "member", "reviewer", "admin"];

/// `GET /admin/members`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Query(query): Query<MembersQuery>,
) -> Result<Response, WebError> {
    let mut rows = state
        .store
        .list_users(viewer.principal.org_id, given(query.cursor).as_deref(), PAGE + 1)
        .await?;
    let next = crate::app::paging::cut_page(&mut rows, PAGE, |u| u.handle.clone());
    let page = MembersPage {
        chrome: Chrome::new(&viewer, "members"),
        notice: query.flash.notice(&state),
        error: query.flash.error(&state),
        roles: ROLES,
        rows: rows
            .into_iter()
            .map(|u| MemberRow {
                is_viewer: u.id == viewer.principal.user_id,
                handle: u.handle,
                role: u.role.as_str(),
                disabled: u.disabled,
                created: when(&u.created_at),
            })
            .collect(),
        next_page: next.map(|c| format!("/admin/members?cursor={}", encode(&c))),
    };
    crate::web::page(&page)
}

fn role(raw: &str) -> Result<Role, WebError> {
    raw.parse()
        .map_err(|e: String| WebError::bad_request(format!("{e}. Choose one of the listed roles.")))
}

/// The add-member form.
#[derive(Debug, Deserialize)]
pub struct AddForm {
    #[serde(default)]
    handle: String,
    #[serde(default)]
    role: String,
}

/// `POST /admin/members`: adds a member with a role.
pub async fn add(
    State(state): State<AppState>,
    viewer: Viewer,
    Verified(form): Verified<AddForm>,
) -> Result<Response, WebError> {
    let role = match role(&form.role) {
        Ok(role) => role,
        Err(e) => return back_with(&state, "/admin/members", e),
    };
    let handle = form.handle.trim();
    match accounts::add_user(&state.store, viewer.principal.org_id, handle, role, &viewer.actor()).await {
        Ok(user) => Ok(done(
            &state,
            "/admin/members",
            &format!(
                "Added {} as {}. Issue them a token on the Tokens page.",
                user.handle, user.role
            ),
        )),
        Err(e) => back_with(&state, "/admin/members", e),
    }
}

/// The change-member form: a new role, or `disabled` set to `true` / `false`.
#[derive(Debug, Deserialize)]
pub struct UpdateForm {
    role: Option<String>,
    disabled: Option<String>,
}

/// `POST /admin/members/{handle}`: changes a role or disables / enables an account (at
/// once, for every token of theirs, on every replica).
pub async fn update(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(handle): Path<String>,
    Verified(form): Verified<UpdateForm>,
) -> Result<Response, WebError> {
    let update = UserUpdate {
        role: match given(form.role).as_deref().map(role).transpose() {
            Ok(role) => role,
            Err(e) => return back_with(&state, "/admin/members", e),
        },
        disabled: match given(form.disabled).as_deref() {
            None => None,
            Some("true") => Some(true),
            Some("false") => Some(false),
            Some(other) => {
                return back_with(
                    &state,
                    "/admin/members",
                    WebError::bad_request(format!("'{other}' is not a choice: disable or enable the account.")),
                );
            }
        },
    };
    match accounts::change_user(&state, viewer.principal.org_id, &handle, update, &viewer.actor()).await {
        Ok(user) => {
            let status = if user.disabled { "disabled" } else { "active" };
            Ok(done(
                &state,
                "/admin/members",
                &format!("{} is now {} ({status}).", user.handle, user.role),
            ))
        }
        Err(e) => back_with(&state, "/admin/members", e),
    }
}
