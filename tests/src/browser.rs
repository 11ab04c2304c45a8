//! A real browser for the tests: Debian's Chromium driven through ChromeDriver (WebDriver,
//! with fantoccini), with the checks every page of the review web must pass (labels,
//! contrast, no inline styles) and screenshots under `target/screenshots/`.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use tokio::process::{Child, Command};

/// Chromium and ChromeDriver from Debian's packages (`.ci/run` installs them); override
/// with `CAIRN_CHROMIUM` / `CAIRN_CHROMEDRIVER`.
fn program(variable: &str, default: &str) -> String {
    std::env::var(variable).unwrap_or_else(|_| default.to_owned())
}

/// A headless Chromium session and the ChromeDriver serving it: what the browser tests of
/// the review web (and of the client, whose pushes reviewers read) drive.
pub struct Browser {
    /// The WebDriver session (navigate, find elements, resize the window).
    pub client: Client,
    driver: Child,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts ChromeDriver and a headless Chromium session (1280×800).
    pub async fn start() -> Browser {
        let chromium = program("CAIRN_CHROMIUM", "/usr/bin/chromium");
        let chromedriver = program("CAIRN_CHROMEDRIVER", "/usr/bin/chromedriver");
        assert!(
            std::path::Path::new(&chromium).exists() && std::path::Path::new(&chromedriver).exists(),
            "the browser test needs Debian's chromium and chromium-driver: apt-get install chromium chromium-driver \
             (or set CAIRN_CHROMIUM and CAIRN_CHROMEDRIVER)"
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("chromedriver starts");
        let profile = tempfile::tempdir().unwrap();
        let options = json!({
            "binary": chromium,
            "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--window-size=1280,800", format!("--user-data-dir={}", profile.path().display()),
            ],
        });
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("goog:chromeOptions".to_owned(), options);
        let url = format!("http://127.0.0.1:{port}");
        let mut last_error = String::new();
        for _ in 0..100 {
            // ChromeDriver speaks plain HTTP on loopback: no TLS stack needed.
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(capabilities.clone())
                .connect(&url)
                .await
            {
                Ok(client) => {
                    return Browser {
                        client,
                        driver,
                        _profile: profile,
                    };
                }
                Err(e) => last_error = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("could not start a Chromium session through chromedriver: {last_error}");
    }

    /// Ends the session and ChromeDriver.
    pub async fn stop(mut self) {
        let _ = self.client.close().await;
        let _ = self.driver.kill().await;
    }

    /// Runs `script` in the page; its return value.
    pub async fn js(&self, script: &str) -> Value {
        self.client.execute(script, Vec::new()).await.unwrap()
    }

    /// The text of the first element matching `css` (waiting for it to appear).
    pub async fn text(&self, css: &str) -> String {
        self.client
            .wait()
            .for_element(Locator::Css(css))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// Clicks the element, scrolled to the middle of the window first as a person would
    /// (the patch page's decision bar covers the bottom of the window).
    pub async fn click(&self, css: &str) {
        let element = self.client.wait().for_element(Locator::Css(css)).await.unwrap();
        self.client
            .execute(
                "arguments[0].scrollIntoView({block: 'center'});",
                vec![serde_json::to_value(&element).unwrap()],
            )
            .await
            .unwrap();
        element.click().await.unwrap();
    }

    /// Answers the confirmation the last click asked for (its text must contain
    /// `question`): `accept` goes on, otherwise the form is not sent.
    pub async fn confirm(&self, question: &str, accept: bool) {
        let mut text = String::new();
        for _ in 0..50 {
            match self.client.get_alert_text().await {
                Ok(t) => {
                    text = t;
                    break;
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        assert!(
            text.contains(question),
            "expected a confirmation asking {question:?}, got {text:?}"
        );
        if accept {
            self.client.accept_alert().await.unwrap();
        } else {
            self.client.dismiss_alert().await.unwrap();
        }
    }

    /// Logs in through the login form with `token`; the queue opens.
    pub async fn log_in(&self, base: &str, token: &str) {
        self.client.goto(&format!("{base}/admin/login")).await.unwrap();
        self.client
            .wait()
            .for_element(Locator::Css("#token"))
            .await
            .unwrap()
            .send_keys(token)
            .await
            .unwrap();
        self.click("form button[type=submit]").await;
        self.until("the queue shows", "return location.pathname === '/admin/queue'")
            .await;
    }

    /// The current path and query.
    pub async fn path(&self) -> String {
        let url = self.client.current_url().await.unwrap();
        match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        }
    }

    /// Waits until `script` returns `true` (up to 15 s).
    pub async fn until(&self, what: &str, script: &str) {
        for _ in 0..150 {
            if self.js(script).await == Value::Bool(true) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("timed out waiting until {what}");
    }

    /// Saves a screenshot as `target/screenshots/<name>.png`.
    pub async fn screenshot(&self, name: &str) {
        let png = self.client.screenshot().await.unwrap();
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        let dir = screenshots_dir();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }

    /// Every visible form control has a label, every image alt text, and text has at
    /// least WCAG AA contrast (4.5:1) against its background.
    pub async fn check_accessibility(&self, page: &str) {
        let unlabeled = self.js(UNLABELED).await;
        assert_eq!(unlabeled, json!([]), "{page}: form controls without a label");
        let low_contrast = self.js(LOW_CONTRAST).await;
        assert_eq!(low_contrast, json!([]), "{page}: text below 4.5:1 contrast");
        // The pages' CSP forbids inline styles: none may be relied on.
        let styled = self
            .js("return Array.from(document.querySelectorAll('[style]')).map(e => e.outerHTML.slice(0, 80));")
            .await;
        assert_eq!(styled, json!([]), "{page}: inline styles the CSP blocks");
    }
}

/// The workspace's `target/screenshots/` (whichever crate's test takes the screenshot).
fn screenshots_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/screenshots")
}

/// Visible inputs, selects, textareas and buttons without an accessible name.
const UNLABELED: &str = r#"
const visible = e => e.offsetParent !== null && e.type !== 'hidden';
return Array.from(document.querySelectorAll('input, select, textarea, button')).filter(visible)
  .filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label') && !(e.tagName === 'BUTTON' && e.textContent.trim()))
  .map(e => e.outerHTML.slice(0, 120));
"#;

/// Visible text whose colour has less than 4.5:1 contrast with its effective background.
const LOW_CONTRAST: &str = r#"
const rgb = s => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(',').map(Number); return {r:p[0], g:p[1], b:p[2], a: p.length > 3 ? p[3] : 1}; };
const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
const background = e => { for (let n = e; n; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor); if (c && c.a > 0.5) return c; } return {r:255, g:255, b:255, a:1}; };
const bad = [];
for (const e of document.querySelectorAll('body *')) {
  if (e.offsetParent === null || !Array.from(e.childNodes).some(n => n.nodeType === 3 && n.textContent.trim())) continue;
  const fg = rgb(getComputedStyle(e).color), bg = background(e);
  const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
  const ratio = (a + 0.05) / (b + 0.05);
  if (ratio < 4.5) bad.push(e.tagName + '.' + e.className + ' ' + ratio.toFixed(2) + ' "' + e.textContent.trim().slice(0, 40) + '"');
}
return bad;
"#;
