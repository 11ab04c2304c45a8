//! A browser-alike for the review web over plain HTTP: keeps the cookies the pages set,
//! follows no redirects (tests look at them), and fills in the CSRF token the last page
//! carried, so tests can post forms exactly as a browser would, or leave the token out.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use reqwest::StatusCode;
use reqwest::header::{COOKIE, HeaderMap, LOCATION, SET_COOKIE};

/// One answer of a page.
#[derive(Debug)]
pub struct Page {
    /// The status.
    pub status: StatusCode,
    /// Where a redirect points.
    pub location: Option<String>,
    /// The response headers.
    pub headers: HeaderMap,
    /// The body as text.
    pub body: String,
}

/// A logged-in (or not yet) visitor of the admin pages.
pub struct WebSession {
    client: reqwest::Client,
    base_url: String,
    cookies: BTreeMap<String, String>,
    csrf: Option<String>,
}

/// The `csrf` hidden field's value in a page, if it has one.
pub fn csrf_in(body: &str) -> Option<String> {
    let marker = "name=\"csrf\" value=\"";
    let start = body.find(marker)? + marker.len();
    body[start..].split('"').next().map(str::to_owned)
}

impl WebSession {
    /// A visitor without cookies.
    pub fn new(base_url: &str) -> Result<Self> {
        Ok(WebSession {
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .timeout(std::time::Duration::from_secs(60))
                .build()?,
            base_url: base_url.to_owned(),
            cookies: BTreeMap::new(),
            csrf: None,
        })
    }

    /// Logs in with `token` through the login form; fails unless the form redirects.
    pub async fn login(base_url: &str, token: &str) -> Result<Self> {
        let mut session = WebSession::new(base_url)?;
        session.get("/admin/login").await?;
        let page = session.post("/admin/login", &[("token", token)]).await?;
        anyhow::ensure!(
            page.status == StatusCode::SEE_OTHER,
            "login failed with {}: {}",
            page.status,
            page.body
        );
        Ok(session)
    }

    /// The cookies held, by name.
    pub fn cookies(&self) -> &BTreeMap<String, String> {
        &self.cookies
    }

    /// The CSRF token of the last page seen.
    pub fn csrf(&self) -> Option<&str> {
        self.csrf.as_deref()
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    async fn read(&mut self, response: reqwest::Response) -> Result<Page> {
        for value in response.headers().get_all(SET_COOKIE) {
            let text = value.to_str().context("a Set-Cookie header is not text")?;
            let pair = text.split(';').next().unwrap_or_default();
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let removed = value.is_empty() || text.to_ascii_lowercase().contains("max-age=0");
            if removed {
                self.cookies.remove(name.trim());
            } else {
                self.cookies.insert(name.trim().to_owned(), value.to_owned());
            }
        }
        let status = response.status();
        let headers = response.headers().clone();
        let location = headers.get(LOCATION).and_then(|v| v.to_str().ok()).map(str::to_owned);
        let body = response.text().await?;
        if let Some(token) = csrf_in(&body) {
            self.csrf = Some(token);
        }
        Ok(Page {
            status,
            location,
            headers,
            body,
        })
    }

    /// `GET path` with the session's cookies.
    pub async fn get(&mut self, path: &str) -> Result<Page> {
        let response = self
            .client
            .get(format!("{}{path}", self.base_url))
            .header(COOKIE, self.cookie_header())
            .send()
            .await?;
        self.read(response).await
    }

    /// `GET path` with extra headers.
    pub async fn get_with(&mut self, path: &str, headers: &[(&str, &str)]) -> Result<Page> {
        let mut request = self
            .client
            .get(format!("{}{path}", self.base_url))
            .header(COOKIE, self.cookie_header());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await?;
        self.read(response).await
    }

    /// Posts a form with the CSRF token of the last page seen added.
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Result<Page> {
        let csrf = self.csrf.clone().unwrap_or_default();
        let mut all: Vec<(&str, &str)> = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post_exactly(path, &all, &[]).await
    }

    /// Posts a form that must redirect (303) and follows it: the page that shows the outcome.
    pub async fn post_and_follow(&mut self, path: &str, fields: &[(&str, &str)]) -> Result<Page> {
        let page = self.post(path, fields).await?;
        anyhow::ensure!(
            page.status == StatusCode::SEE_OTHER,
            "POST {path} answered {} instead of a redirect: {}",
            page.status,
            page.body
        );
        let location = page.location.context("a redirect without a location")?;
        self.get(&location).await
    }

    /// Posts exactly these fields (no CSRF token added) with extra headers.
    pub async fn post_exactly(
        &mut self,
        path: &str,
        fields: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> Result<Page> {
        let body = serde_urlencoded_pairs(fields);
        let mut request = self
            .client
            .post(format!("{}{path}", self.base_url))
            .header(COOKIE, self.cookie_header())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await?;
        self.read(response).await
    }
}

/// `a=1&b=two+words`: form encoding.
fn serde_urlencoded_pairs(fields: &[(&str, &str)]) -> String {
    let mut url = reqwest::Url::parse("http://form.invalid/").expect("a constant URL parses");
    url.query_pairs_mut().extend_pairs(fields);
    url.query().unwrap_or_default().to_owned()
}
