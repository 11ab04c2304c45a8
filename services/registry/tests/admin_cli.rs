//! The admin subcommands of `cairn-registry` (`org`, `user`, `token`, `key`) as an operator
//! runs them, each test against a fresh database on the `DATABASE_URL` server: what they
//! print, that a refused command says what to do and changes no row, and that a running
//! `serve` honours what they did.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use cairn_e2e::db::TestDb;
use common::{registry, serve_until_listening, terminate};
use serde_json::Value;
use tokio::process::Command;

/// The tables the admin commands write.
const TABLES: [&str; 4] = ["organizations", "users", "api_tokens", "audit_log"];

/// A data directory and a database set up by a first `migrate` (the organisation
/// `default` with its admin `admin`), and the binary configured to use them.
struct Registry {
    pool: sqlx::PgPool,
    db: TestDb,
    data_dir: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Registry {
    async fn new() -> Self {
        let db = TestDb::unmigrated().await.unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let data_dir = tmp.path().join("data");
        let mut migrate = admin_command(&data_dir, &db.url);
        let output = migrate.arg("migrate").output().await.unwrap();
        assert!(
            output.status.success(),
            "first migrate failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let pool = db.store().await.unwrap().pool().clone();
        Registry {
            pool,
            db,
            data_dir,
            _tmp: tmp,
        }
    }

    /// The binary with `--data-dir` and the test database, nothing else from the environment.
    fn command(&self) -> Command {
        admin_command(&self.data_dir, &self.db.url)
    }

    async fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().await.unwrap()
    }

    /// Runs a command that must succeed; returns its stdout.
    async fn ok(&self, args: &[&str]) -> String {
        let output = self.run(args).await;
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(
            output.status.success(),
            "`{}` failed ({}): {}\nstdout: {stdout}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }

    /// Runs a command that must fail with a non-zero exit code, print nothing on stdout
    /// and change no row; returns its stderr.
    async fn refused(&self, args: &[&str]) -> String {
        let before = self.counts().await;
        let output = self.run(args).await;
        let stderr = String::from_utf8(output.stderr).unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.code().is_some_and(|code| code != 0),
            "`{}` should fail, exited with {}: stdout: {stdout}\nstderr: {stderr}",
            args.join(" "),
            output.status
        );
        assert!(
            stdout.is_empty(),
            "`{}` failed but printed on stdout: {stdout}",
            args.join(" ")
        );
        assert!(stderr.contains("error:"), "`{}`: {stderr}", args.join(" "));
        assert_eq!(self.counts().await, before, "`{}` changed rows", args.join(" "));
        stderr
    }

    /// Row counts of the tables the admin commands write.
    async fn counts(&self) -> BTreeMap<&'static str, i64> {
        let mut counts = BTreeMap::new();
        for table in TABLES {
            let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!("SELECT count(*) FROM {table}")))
                .fetch_one(&self.pool)
                .await
                .unwrap();
            counts.insert(table, n);
        }
        counts
    }

    /// Issues a token and returns it (checking stdout holds it alone).
    async fn issue(&self, args: &[&str]) -> String {
        let mut full = vec!["token", "issue"];
        full.extend_from_slice(args);
        let stdout = self.ok(&full).await;
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 1, "token issue prints exactly one line: {stdout:?}");
        assert!(stdout.ends_with('\n'));
        lines[0].to_owned()
    }

    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.data_dir.join(file)).unwrap()
    }

    fn mode(&self, file: &str) -> u32 {
        std::fs::metadata(self.data_dir.join(file))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    }
}

fn admin_command(data_dir: &Path, database_url: &str) -> Command {
    let mut command = registry(data_dir);
    command
        .env("CAIRN_DATABASE_URL", database_url)
        .env_remove("CAIRN_JWT_PREVIOUS_SECRETS")
        .env_remove("CAIRN_TOKEN_DEFAULT_TTL")
        .env_remove("CAIRN_TOKEN_MAX_TTL");
    command
}

#[track_caller]
fn assert_contains(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
    }
}

/// The tab-separated fields of each output line.
fn rows(stdout: &str) -> Vec<Vec<&str>> {
    stdout.lines().map(|l| l.split('\t').collect()).collect()
}

/// Decodes unpadded base64url, refusing any other character.
fn base64url(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = Vec::new();
    let (mut bits, mut count) = (0u32, 0u32);
    for c in text.bytes() {
        let value = ALPHABET
            .iter()
            .position(|&a| a == c)
            .unwrap_or_else(|| panic!("{:?} is not base64url in {text:?}", c as char));
        bits = (bits << 6) | value as u32;
        count += 6;
        if count >= 8 {
            count -= 8;
            out.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    out
}

/// Checks that `token` is a JWT (three non-empty base64url parts) and returns its
/// header and payload.
fn jwt(token: &str) -> (Value, Value) {
    let parts: Vec<&str> = token.split('.').collect();
    assert_eq!(parts.len(), 3, "a JWT has three parts: {token:?}");
    assert!(parts.iter().all(|p| !p.is_empty()), "{token:?}");
    let signature = base64url(parts[2]);
    assert_eq!(signature.len(), 32, "an HS256 signature is 32 bytes");
    let header = serde_json::from_slice(&base64url(parts[0])).unwrap();
    let payload = serde_json::from_slice(&base64url(parts[1])).unwrap();
    (header, payload)
}

fn jti(token: &str) -> String {
    jwt(token).1["jti"].as_str().unwrap().to_owned()
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// `GET /v1/whoami` with `token`: the status and the JSON body.
async fn whoami(client: &reqwest::Client, url: &str, token: &str) -> (u16, Value) {
    let response = client
        .get(format!("{url}/v1/whoami"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// `whoami` until it answers `status` (changes made by another process reach the server
/// through a notification); fails after 5 seconds.
async fn whoami_becomes(client: &reqwest::Client, url: &str, token: &str, status: u16) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (got, body) = whoami(client, url, token).await;
        if got == status {
            return body;
        }
        assert!(
            Instant::now() < deadline,
            "whoami still answers {got} instead of {status}: {body}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn org_add_creates_organisations_and_refuses_taken_or_malformed_slugs() {
    let reg = Registry::new().await;

    let before = reg.counts().await;
    let out = reg.ok(&["org", "add", "acme"]).await;
    assert_contains(
        &out,
        &[
            "created organisation 'acme'",
            "cairn-registry user add <handle> --role admin --org acme",
        ],
    );
    let after = reg.counts().await;
    assert_eq!(after["organizations"], before["organizations"] + 1);
    assert_eq!(after["audit_log"], before["audit_log"] + 1, "the creation is audited");

    let err = reg.refused(&["org", "add", "acme"]).await;
    assert_contains(&err, &["organisation 'acme' already exists"]);

    let err = reg.refused(&["org", "add", "Bad Slug"]).await;
    assert_contains(
        &err,
        &[
            "'Bad Slug' is not a valid organisation slug",
            "lowercase letters, digits or '-', starting with a letter or digit",
        ],
    );
    reg.refused(&["org", "add", "acme.eu"]).await;

    reg.ok(&["org", "add", "beta", "--name", "Beta Corp"]).await;
    let list = reg.ok(&["org", "list"]).await;
    let orgs = rows(&list);
    let slugs: Vec<&str> = orgs.iter().map(|r| r[0]).collect();
    assert_eq!(slugs, ["acme", "beta", "default"], "{list}");
    assert_eq!(orgs[0][1], "acme", "the name defaults to the slug");
    assert_eq!(orgs[1][1], "Beta Corp");
    assert!(orgs.iter().all(|r| r.len() == 4 && r[3] == "token-only"), "{list}");

    // Anonymous read: on, shown, off; bad values and unknown organisations change nothing.
    let out = reg.ok(&["org", "set", "beta", "--anonymous-read", "on"]).await;
    assert_contains(
        &out,
        &["'beta' now serves its discovery endpoints to clients without a token"],
    );
    let list = reg.ok(&["org", "list"]).await;
    assert_eq!(rows(&list)[1][3], "anonymous-read", "{list}");
    let err = reg.refused(&["org", "set", "beta", "--anonymous-read", "yes"]).await;
    assert_contains(&err, &["'yes' is not a setting: use on or off"]);
    let err = reg.refused(&["org", "set", "nobody", "--anonymous-read", "on"]).await;
    assert_contains(&err, &["nobody"]);
    reg.ok(&["org", "set", "beta", "--anonymous-read", "off"]).await;
    let list = reg.ok(&["org", "list"]).await;
    assert_eq!(rows(&list)[1][3], "token-only", "{list}");

    let json: Value = serde_json::from_str(&reg.ok(&["org", "list", "--json"]).await).unwrap();
    let slugs: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["slug"].as_str().unwrap())
        .collect();
    assert_eq!(slugs, ["acme", "beta", "default"]);
}

#[tokio::test]
async fn user_add_and_list_and_their_refusals() {
    let reg = Registry::new().await;

    let out = reg.ok(&["user", "add", "alice", "--role", "member"]).await;
    assert_contains(
        &out,
        &[
            "added 'alice' to 'default' as member",
            "cairn-registry token issue --user alice --org default",
        ],
    );
    let list = reg.ok(&["user", "list"]).await;
    assert_eq!(
        rows(&list),
        [vec!["admin", "admin", "active"], vec!["alice", "member", "active"]],
        "{list}"
    );

    let err = reg.refused(&["user", "add", "alice", "--role", "member"]).await;
    assert_contains(&err, &["user 'alice' already exists"]);
    let err = reg.refused(&["user", "add", "alice", "--role", "reader"]).await;
    assert_contains(&err, &["user 'alice' already exists"]);

    let err = reg.refused(&["user", "add", "bob", "--role", "wizard"]).await;
    assert_contains(&err, &["'wizard'", "admin, reviewer, member, reader"]);

    let err = reg
        .refused(&["user", "add", "bob", "--role", "member", "--org", "nosuch"])
        .await;
    assert_contains(
        &err,
        &["organisation 'nosuch' does not exist", "cairn-registry org add nosuch"],
    );
    let err = reg.refused(&["user", "list", "--org", "nosuch"]).await;
    assert_contains(&err, &["organisation 'nosuch' does not exist"]);

    let err = reg.refused(&["user", "add", "Bob Smith", "--role", "member"]).await;
    assert_contains(
        &err,
        &["'Bob Smith' is not a valid user handle", "lowercase letters, digits"],
    );

    // Handles are per organisation.
    reg.ok(&["org", "add", "acme"]).await;
    let out = reg
        .ok(&["user", "add", "alice", "--role", "reader", "--org", "acme"])
        .await;
    assert_contains(&out, &["added 'alice' to 'acme' as reader"]);
    let list = reg.ok(&["user", "list", "--org", "acme"]).await;
    assert_eq!(rows(&list), [vec!["alice", "reader", "active"]], "{list}");

    let json: Value = serde_json::from_str(&reg.ok(&["user", "list", "--json"]).await).unwrap();
    let alice = json
        .as_array()
        .unwrap()
        .iter()
        .find(|u| u["handle"] == "alice")
        .unwrap();
    assert_eq!(alice["role"], "member");
    assert_eq!(alice["disabled"], false);
}

#[tokio::test]
async fn token_issue_prints_only_a_jwt_that_a_running_server_honours() {
    let reg = Registry::new().await;
    reg.ok(&["user", "add", "alice", "--role", "member"]).await;

    let output = reg
        .run(&["token", "issue", "--user", "alice", "--ttl", "30d", "--name", "laptop"])
        .await;
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert!(stdout.ends_with('\n') && stdout.lines().count() == 1, "{stdout:?}");
    let token = stdout.trim_end_matches('\n');
    assert!(!token.contains(char::is_whitespace), "{token:?}");
    let signature = token.rsplit('.').next().unwrap();
    assert!(
        !stderr.contains(token) && !stderr.contains(signature),
        "the token leaked to stderr: {stderr}"
    );

    let (header, claims) = jwt(token);
    assert_eq!(header["alg"], "HS256");
    assert_eq!(claims["sub"], "alice");
    assert_eq!(claims["org"], "default");
    assert_eq!(claims["role"], "member");
    assert_eq!(claims["scopes"], serde_json::json!(["read", "submit"]));
    let id: uuid::Uuid = claims["jti"].as_str().unwrap().parse().unwrap();
    let exp = claims["exp"].as_i64().unwrap();
    let thirty_days = 30 * 24 * 3600;
    assert!(
        (exp - now() - thirty_days).abs() < 120,
        "exp {exp} is not 30 days ahead"
    );
    assert!((claims["iat"].as_i64().unwrap() - now()).abs() < 120);

    // Signed with the data directory's key, which the header names.
    let secret = reg.read("jwt.secret");
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::HS256);
    validation.validate_nbf = true;
    jsonwebtoken::decode::<Value>(
        token,
        &jsonwebtoken::DecodingKey::from_secret(secret.trim().as_bytes()),
        &validation,
    )
    .expect("the token verifies with jwt.secret");
    let admin_kid = jwt(reg.read("admin.token").trim()).0["kid"].clone();
    assert!(header["kid"].is_string());
    assert_eq!(header["kid"], admin_kid, "both signed with the one current key");

    // The token row is what `token list` shows.
    let list = reg.ok(&["token", "list", "--user", "alice"]).await;
    let listed = rows(&list);
    assert_eq!(listed.len(), 1, "{list}");
    assert_eq!(
        &listed[0][..4],
        [id.to_string().as_str(), "alice", "laptop", "read,submit"]
    );

    let (child, url, _) = serve_until_listening(reg.command()).await;
    let client = reqwest::Client::new();
    let (status, me) = whoami(&client, &url, token).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["user"], "alice");
    assert_eq!(me["org"], "default");
    assert_eq!(me["role"], "member");
    assert_eq!(me["scopes"], serde_json::json!(["read", "submit"]));
    assert_eq!(me["token_id"], id.to_string());

    // What the admin commands change reaches the running server: a role change caps the
    // token, a disabled user's token stops working and works again once enabled, and a
    // revoked token stops working for good.
    reg.ok(&["user", "set-role", "alice", "reader"]).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (status, me) = whoami(&client, &url, token).await;
        assert_eq!(status, 200, "{me}");
        if me["role"] == "reader" {
            assert_eq!(me["scopes"], serde_json::json!(["read"]));
            break;
        }
        assert!(Instant::now() < deadline, "the server still sees role {}", me["role"]);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    reg.ok(&["user", "disable", "alice"]).await;
    let body = whoami_becomes(&client, &url, token, 401).await;
    assert_contains(&body.to_string(), &["disabled"]);
    reg.ok(&["user", "enable", "alice"]).await;
    whoami_becomes(&client, &url, token, 200).await;
    reg.ok(&["token", "revoke", &id.to_string()]).await;
    let body = whoami_becomes(&client, &url, token, 401).await;
    assert_contains(&body.to_string(), &["revoked"]);

    let admin_token = reg.read("admin.token");
    let (status, me) = whoami(&client, &url, admin_token.trim()).await;
    assert_eq!((status, &me["user"]), (200, &Value::from("admin")), "{me}");
    assert!(terminate(child).await.success());
}

#[tokio::test]
async fn token_issue_refuses_excess_scopes_and_bad_lifetimes() {
    let reg = Registry::new().await;
    reg.ok(&["user", "add", "alice", "--role", "member"]).await;

    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--scope", "admin"])
        .await;
    assert_contains(&err, &["cannot grant admin", "read, submit", "'member'"]);
    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--scope", "review"])
        .await;
    assert_contains(&err, &["cannot grant review"]);
    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--scope", "bogus"])
        .await;
    assert_contains(&err, &["unknown scope 'bogus'", "read, submit, review or admin"]);

    let err = reg.refused(&["token", "issue", "--user", "alice", "--ttl", "5y"]).await;
    assert_contains(&err, &["a token must live between 1 minute and", "choose another ttl"]);
    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--ttl", "367d"])
        .await;
    assert_contains(&err, &["a token must live between 1 minute and"]);
    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--ttl", "30s"])
        .await;
    assert_contains(&err, &["a token must live between 1 minute and"]);
    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--ttl", "banana"])
        .await;
    assert_contains(&err, &["'banana' is not a duration", "write it like 30d, 12h or 90min"]);

    let err = reg.refused(&["token", "issue", "--user", "nosuch"]).await;
    assert_contains(
        &err,
        &[
            "user 'nosuch' does not exist in 'default'",
            "cairn-registry user add nosuch",
        ],
    );
    let err = reg
        .refused(&["token", "issue", "--user", "alice", "--org", "nosuch"])
        .await;
    assert_contains(&err, &["organisation 'nosuch' does not exist"]);
    let err = reg.refused(&["token", "issue", "--user", "alice", "--name", " "]).await;
    assert_contains(&err, &["the token name must be 1 to 100 characters"]);

    // The limits themselves are accepted; `read` is always included.
    let token = reg.issue(&["--user", "alice", "--ttl", "366d"]).await;
    let exp = jwt(&token).1["exp"].as_i64().unwrap();
    assert!((exp - now() - 366 * 24 * 3600).abs() < 120);
    let token = reg.issue(&["--user", "alice", "--scope", "submit"]).await;
    assert_eq!(jwt(&token).1["scopes"], serde_json::json!(["read", "submit"]));
    let token = reg.issue(&["--user", "alice", "--scope", "read"]).await;
    assert_eq!(jwt(&token).1["scopes"], serde_json::json!(["read"]));
    // Without --ttl and --name: the default lifetime (30 days) and name.
    let token = reg.issue(&["--user", "alice"]).await;
    let exp = jwt(&token).1["exp"].as_i64().unwrap();
    assert!((exp - now() - 30 * 24 * 3600).abs() < 120);
    let list = reg.ok(&["token", "list", "--user", "alice"]).await;
    let listed = rows(&list);
    let row = listed.iter().find(|r| r[0] == jti(&token)).unwrap();
    assert_eq!(row[2], "token");
}

#[tokio::test]
async fn token_list_and_revoke() {
    let reg = Registry::new().await;
    reg.ok(&["user", "add", "alice", "--role", "member"]).await;
    let token = reg
        .issue(&["--user", "alice", "--ttl", "30d", "--name", "laptop"])
        .await;
    let id = jti(&token);
    let admin_id = jti(reg.read("admin.token").trim());

    let list = reg.ok(&["token", "list"]).await;
    let listed = rows(&list);
    assert_eq!(listed.len(), 2, "the admin's and alice's: {list}");
    let row = listed
        .iter()
        .find(|r| r[0] == id)
        .unwrap_or_else(|| panic!("{id} not in {list}"));
    assert_eq!(row[1..4], ["alice", "laptop", "read,submit"]);
    assert!(row[4].starts_with("expires "), "{list}");
    assert_eq!(row[5], "active");
    assert!(listed.iter().any(|r| r[0] == admin_id), "{list}");
    let list = reg.ok(&["token", "list", "--user", "alice"]).await;
    assert_eq!(rows(&list).len(), 1, "{list}");
    let json: Value = serde_json::from_str(&reg.ok(&["token", "list", "--json"]).await).unwrap();
    let item = json
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id.as_str())
        .unwrap();
    assert_eq!(item["user"], "alice");
    assert_eq!(item["name"], "laptop");
    assert!(item["revoked_at"].is_null());

    let before = reg.counts().await;
    let out = reg.ok(&["token", "revoke", &id]).await;
    assert_contains(&out, &[&format!("token {id}"), "is revoked", "'laptop'", "alice"]);
    let after = reg.counts().await;
    assert_eq!(after["audit_log"], before["audit_log"] + 1, "the revocation is audited");
    assert_eq!(after["api_tokens"], before["api_tokens"]);

    // Revoking again changes nothing.
    let before = reg.counts().await;
    reg.ok(&["token", "revoke", &id]).await;
    assert_eq!(reg.counts().await, before);

    let unknown = uuid::Uuid::new_v4().to_string();
    let err = reg.refused(&["token", "revoke", &unknown]).await;
    assert_contains(
        &err,
        &[&format!("token {unknown} does not exist"), "cairn-registry token list"],
    );
    let err = reg.refused(&["token", "revoke", "not-a-uuid"]).await;
    assert_contains(&err, &["'not-a-uuid'"]);

    let list = reg.ok(&["token", "list"]).await;
    assert!(!list.contains(&id), "a revoked token is not listed: {list}");
    assert!(list.contains(&admin_id), "{list}");
    let list = reg.ok(&["token", "list", "--all"]).await;
    let listed = rows(&list);
    let row = listed
        .iter()
        .find(|r| r[0] == id)
        .unwrap_or_else(|| panic!("{id} not in {list}"));
    assert_eq!(row[5], "revoked");
    let json: Value = serde_json::from_str(&reg.ok(&["token", "list", "--all", "--json"]).await).unwrap();
    let item = json
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id.as_str())
        .unwrap();
    assert!(item["revoked_at"].is_string());

    let err = reg.refused(&["token", "list", "--org", "nosuch"]).await;
    assert_contains(&err, &["organisation 'nosuch' does not exist"]);
    let err = reg.refused(&["token", "list", "--user", "nosuch"]).await;
    assert_contains(&err, &["'nosuch'"]);
}

#[tokio::test]
async fn user_roles_and_disabling_keep_an_active_admin() {
    let reg = Registry::new().await;
    reg.ok(&["user", "add", "alice", "--role", "member"]).await;

    let before = reg.counts().await;
    let out = reg.ok(&["user", "set-role", "alice", "reviewer"]).await;
    assert_contains(&out, &["'alice' in 'default' is now reviewer (active)"]);
    assert_eq!(reg.counts().await["audit_log"], before["audit_log"] + 1);
    assert_contains(&reg.ok(&["user", "list"]).await, &["alice\treviewer\tactive\n"]);
    // Setting the same role again changes nothing.
    let before = reg.counts().await;
    reg.ok(&["user", "set-role", "alice", "reviewer"]).await;
    assert_eq!(reg.counts().await, before);

    let err = reg.refused(&["user", "set-role", "alice", "wizard"]).await;
    assert_contains(&err, &["admin, reviewer, member, reader"]);
    let err = reg.refused(&["user", "set-role", "nosuch", "reviewer"]).await;
    assert_contains(&err, &["user 'nosuch' does not exist"]);
    let err = reg.refused(&["user", "disable", "alice", "--org", "nosuch"]).await;
    assert_contains(&err, &["organisation 'nosuch' does not exist"]);

    let err = reg.refused(&["user", "disable", "admin"]).await;
    assert_contains(&err, &["last active admin", "make another user admin first"]);
    let err = reg.refused(&["user", "set-role", "admin", "member"]).await;
    assert_contains(&err, &["last active admin"]);

    let out = reg.ok(&["user", "disable", "alice"]).await;
    assert_contains(&out, &["'alice' in 'default' is now reviewer (disabled)"]);
    assert_contains(&reg.ok(&["user", "list"]).await, &["alice\treviewer\tdisabled\n"]);
    let err = reg.refused(&["token", "issue", "--user", "alice"]).await;
    assert_contains(&err, &["user 'alice' is disabled", "enable them"]);

    let out = reg.ok(&["user", "enable", "alice"]).await;
    assert_contains(&out, &["'alice' in 'default' is now reviewer (active)"]);
    assert_contains(&reg.ok(&["user", "list"]).await, &["alice\treviewer\tactive\n"]);
    reg.issue(&["--user", "alice"]).await;

    // With a second active admin, the first may go; then the second is the last.
    reg.ok(&["user", "set-role", "alice", "admin"]).await;
    reg.ok(&["user", "disable", "admin"]).await;
    let err = reg.refused(&["user", "disable", "alice"]).await;
    assert_contains(&err, &["'alice' is the organisation's last active admin"]);
    reg.ok(&["user", "enable", "admin"]).await;
    reg.ok(&["user", "set-role", "alice", "member"]).await;
    assert_eq!(
        rows(&reg.ok(&["user", "list"]).await),
        [vec!["admin", "admin", "active"], vec!["alice", "member", "active"]]
    );
}

#[tokio::test]
async fn key_rotate_replaces_the_signing_key_in_the_data_directory() {
    let reg = Registry::new().await;
    let client = reqwest::Client::new();
    let first_key = reg.read("jwt.secret");
    let old_token = reg.read("admin.token").trim().to_owned();
    reg.ok(&["org", "add", "acme"]).await;
    let rotations = || async {
        sqlx::query_as::<_, (String, String, Value)>(
            "SELECT o.slug, a.actor, a.details FROM audit_log a JOIN organizations o ON o.id = a.org_id \
             WHERE a.action = 'key.rotate' ORDER BY a.id",
        )
        .fetch_all(&reg.pool)
        .await
        .unwrap()
    };

    // The database cannot be reached: nothing changes (the rotation could not be audited).
    let unreachable = admin_command(&reg.data_dir, "postgres://postgres@127.0.0.1:1/nowhere")
        .args(["key", "rotate"])
        .output()
        .await
        .unwrap();
    assert!(!unreachable.status.success());
    assert_eq!(reg.read("jwt.secret"), first_key, "the key is untouched");
    assert!(rotations().await.is_empty());

    let out = reg.ok(&["key", "rotate", "--keep-old"]).await;
    // Every organisation's admins see the rotation in their audit log.
    let audited = rotations().await;
    assert_eq!(
        audited
            .iter()
            .map(|(slug, actor, _)| (slug.as_str(), actor.as_str()))
            .collect::<Vec<_>>(),
        [("default", "cli:key rotate"), ("acme", "cli:key rotate")]
    );
    assert_eq!(audited[0].2["keep_old"], true);
    let second_key = reg.read("jwt.secret");
    assert_ne!(second_key.trim(), first_key.trim(), "a new key");
    assert!(second_key.trim().len() >= 32);
    assert_eq!(reg.mode("jwt.secret"), 0o600);
    assert_eq!(reg.mode("jwt.previous"), 0o600);
    let previous = reg.read("jwt.previous");
    assert_eq!(previous.lines().collect::<Vec<_>>(), [first_key.trim()]);
    assert!(
        !out.contains(second_key.trim()) && !out.contains(first_key.trim()),
        "{out}"
    );
    assert_contains(&out, &["new signing key", "jwt.secret", "keep working", "restart"]);

    // A restarted server accepts tokens of both keys; new ones are signed with the new key,
    // whose id the command printed.
    let new_token = reg.issue(&["--user", "admin", "--ttl", "1h"]).await;
    let new_kid = jwt(&new_token).0["kid"].as_str().unwrap().to_owned();
    assert_ne!(jwt(&old_token).0["kid"].as_str().unwrap(), new_kid);
    assert_contains(&out, &[&format!("new signing key {new_kid} ")]);
    let (child, url, _) = serve_until_listening(reg.command()).await;
    assert_eq!(whoami(&client, &url, &old_token).await.0, 200);
    assert_eq!(whoami(&client, &url, &new_token).await.0, 200);
    assert!(terminate(child).await.success());

    // Without --keep-old every earlier key is dropped.
    let out = reg.ok(&["key", "rotate"]).await;
    assert_eq!(rotations().await.len(), 4);
    assert_contains(&out, &["stops working", "cairn-registry token issue"]);
    let third_key = reg.read("jwt.secret");
    assert_ne!(third_key.trim(), second_key.trim());
    assert_eq!(reg.mode("jwt.secret"), 0o600);
    assert_eq!(reg.read("jwt.previous").trim(), "", "jwt.previous is emptied");
    assert_eq!(reg.mode("jwt.previous"), 0o600);
    let newest_token = reg.issue(&["--user", "admin", "--ttl", "1h"]).await;
    let (child, url, _) = serve_until_listening(reg.command()).await;
    assert_eq!(whoami(&client, &url, &old_token).await.0, 401);
    assert_eq!(whoami(&client, &url, &new_token).await.0, 401);
    assert_eq!(whoami(&client, &url, &newest_token).await.0, 200);
    assert!(terminate(child).await.success());

    // A key from the environment is not the data directory's to rotate.
    let output = reg
        .command()
        .env("CAIRN_JWT_SECRET", "0123456789abcdef0123456789abcdef0123456789abcdef")
        .args(["key", "rotate"])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code().is_some_and(|c| c != 0), "{stderr}");
    assert!(output.stdout.is_empty());
    assert_contains(&stderr, &["CAIRN_JWT_SECRET", "CAIRN_JWT_PREVIOUS_SECRETS"]);
    assert_eq!(reg.read("jwt.secret"), third_key, "the key file is untouched");
    assert_eq!(reg.read("jwt.previous").trim(), "");

    // A data directory without a key: the command says to check --data-dir and writes nothing.
    let empty = tempfile::tempdir().unwrap();
    let output = registry(empty.path()).args(["key", "rotate"]).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert_contains(&stderr, &["jwt.secret", "--data-dir"]);
    assert_eq!(std::fs::read_dir(empty.path()).unwrap().count(), 0, "nothing written");
}

#[tokio::test]
async fn attestation_keys_are_generated_activated_and_revoked_with_every_step_logged() {
    let reg = Registry::new().await;
    let log_size = || async {
        sqlx::query_scalar::<_, i64>("SELECT size FROM transparency_log")
            .fetch_one(&reg.pool)
            .await
            .unwrap()
    };
    let keys = || async {
        let listed: Value = serde_json::from_str(&reg.ok(&["key", "list", "--json"]).await).unwrap();
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|k| {
                (
                    k["key_id"].as_str().unwrap().to_owned(),
                    k["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect::<Vec<_>>()
    };
    // The first start registered the data directory's key as the active one.
    let first = keys().await;
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].1, "active");
    assert_eq!(reg.mode("signing.key"), 0o600);
    assert_eq!(log_size().await, 1, "the activation is the log's first entry");

    let next = reg.data_dir.join("next.key");
    let out = reg.ok(&["key", "generate", "--out", next.to_str().unwrap()]).await;
    assert!(out.contains("key activate"), "{out}");
    assert_eq!(std::fs::metadata(&next).unwrap().permissions().mode() & 0o777, 0o600);
    let stderr = reg.refused(&["key", "generate", "--out", next.to_str().unwrap()]).await;
    assert!(stderr.contains("never overwritten"), "{stderr}");

    let out = reg.ok(&["key", "activate", next.to_str().unwrap()]).await;
    assert!(out.contains("retired"), "{out}");
    let second = keys().await;
    assert_eq!(second.len(), 2);
    assert_eq!(
        (second[0].0.as_str(), second[0].1.as_str()),
        (first[0].0.as_str(), "retired")
    );
    assert_eq!(second[1].1, "active");
    assert_eq!(log_size().await, 3, "the retirement and the activation are logged");

    // The data directory still holds the retired key: the registry refuses to serve
    // (and to change keys) with it, and says what to do.
    let stderr = reg.refused(&["key", "activate", next.to_str().unwrap()]).await;
    assert!(
        stderr.contains("is retired: give this registry the active key"),
        "{stderr}"
    );
    let serve = reg.run(&["serve", "--listen", "127.0.0.1:0"]).await;
    assert!(!serve.status.success());
    assert!(String::from_utf8_lossy(&serve.stderr).contains("CAIRN_SIGNING_KEY_FILE"));

    // With the new key configured: revoking needs a known, non-active key.
    let with_next = |args: &[&str]| {
        let mut command = reg.command();
        command.env("CAIRN_SIGNING_KEY_FILE", &next).args(args);
        command
    };
    let refused = async |args: &[&str], needle: &str| {
        let before = (reg.counts().await, log_size().await);
        let output = with_next(args).output().await.unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(!output.status.success(), "{args:?} must fail");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert_eq!(
            (reg.counts().await, log_size().await),
            before,
            "{args:?} changed something"
        );
    };
    refused(&["key", "revoke", &second[1].0], "active key").await;
    refused(&["key", "revoke", &"0".repeat(64)], "does not exist").await;
    refused(
        &["key", "revoke", &first[0].0, "--after-index", "99"],
        "holds 3 entries",
    )
    .await;
    refused(&["key", "activate", next.to_str().unwrap()], "already known").await;

    let output = with_next(&["key", "revoke", &first[0].0, "--after-index", "1"])
        .output()
        .await
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stdout).contains("below 1"));
    let third = keys().await;
    assert_eq!(third[0].1, "revoked");
    refused(&["key", "revoke", &first[0].0], "already revoked").await;
    assert_eq!(log_size().await, 4);
    // Every key event is in every organisation's audit log.
    let actions: Vec<String> = sqlx::query_scalar("SELECT action FROM audit_log WHERE action LIKE 'key.%' ORDER BY id")
        .fetch_all(&reg.pool)
        .await
        .unwrap();
    assert_eq!(actions, ["key.activate", "key.activate", "key.revoke"]);
}
