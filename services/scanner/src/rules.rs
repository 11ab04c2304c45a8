//! Rules are data: TOML files in `services/scanner/rules/`, embedded at build time. Each
//! rule has a pattern, where it applies, its severity, what to tell the author, and
//! examples that must and must not match (the tests run every one).

use std::sync::OnceLock;

use regex::Regex;
use serde::Deserialize;

use crate::context::Context;
use crate::report::Severity;

include!(concat!(env!("OUT_DIR"), "/rule_files.rs"));

/// One rule file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    /// Where the rules come from, when not written here (e.g. gitleaks, MIT).
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
    /// Hosts (or host/path prefixes) of well-known official installers: a download from
    /// one drops a rule to its `vendor_severity`.
    #[serde(default)]
    installer_hosts: Vec<String>,
    #[serde(default)]
    rule: Vec<RuleSpec>,
}

/// A rule as written in a rule file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    /// Stable id, `<family>.<name>`.
    pub id: String,
    /// The category shown to reviewers, e.g. `remote-code-execution`.
    pub category: String,
    /// Severity in prose and scripts.
    pub severity: Severity,
    /// A regular expression (Rust `regex` syntax: linear time, no backtracking), run over
    /// a file's text; a match is reported on the line where it starts. Write patterns for
    /// one line (`[^\n]` rather than `.` across lines).
    pub pattern: String,
    /// At least one of these (case-insensitive) must be in the text for the rule to be
    /// tried: a cheap filter for rules with expensive patterns.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// Where the rule applies (default: everywhere).
    #[serde(default)]
    pub contexts: Option<Vec<Context>>,
    /// Severity inside Markdown code blocks, when it differs (e.g. a command shown as an
    /// example in documentation).
    #[serde(default)]
    pub in_code: Option<Severity>,
    /// Severity when every URL in the match is trusted: the skill's own vendor (named in
    /// its frontmatter) or a well-known installer (`installer_hosts`), see [`crate::vendor`].
    pub vendor_severity: Option<Severity>,
    /// A second pattern that must match within a few lines for the rule to fire: an
    /// environment dump or a credential read is exfiltration only with a network send
    /// close by.
    #[serde(default)]
    pub near: Option<NearSpec>,
    /// Whether a match in a negated prose sentence ("never pipe curl to sh") is skipped.
    #[serde(default = "yes")]
    pub negatable: bool,
    /// For secrets: the capture group holding the secret (masked in excerpts).
    #[serde(default)]
    pub secret_group: Option<usize>,
    /// For secrets: the least Shannon entropy (bits per character) the secret must have.
    #[serde(default)]
    pub entropy: Option<f64>,
    /// What is wrong.
    pub message: String,
    /// What to do instead.
    pub hint: String,
    /// Examples the tests check.
    pub examples: Examples,
}

fn yes() -> bool {
    true
}

/// The second half of a two-part rule (see [`RuleSpec::near`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearSpec {
    /// A regular expression, one line like the rule's own pattern.
    pub pattern: String,
    /// How many lines before or after the rule's match it may be.
    pub lines: usize,
}

/// A rule's examples: lines it must flag and lines it must not.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    /// Each must produce a finding of this rule (as a line of [`Examples::path`]).
    #[serde(default, rename = "match")]
    pub matches: Vec<String>,
    /// Each must not produce a finding of this rule.
    #[serde(default, rename = "ignore")]
    pub ignores: Vec<String>,
    /// The file the examples are scanned as (default `SKILL.md`), for rules that apply
    /// only to scripts or data files.
    #[serde(default)]
    pub path: Option<String>,
}

/// A compiled rule.
#[derive(Debug)]
pub struct Rule {
    /// The rule as written.
    pub spec: RuleSpec,
    /// Its pattern, compiled on first use: a scan compiles only the rules whose literals
    /// its text contains, so one skill scanned from a cold start compiles a few dozen
    /// patterns, not hundreds.
    regex: OnceLock<Regex>,
    /// Its keywords, lowercased.
    keywords: Vec<String>,
    /// The [`RuleSpec::near`] pattern, compiled on first use.
    near: OnceLock<Option<Regex>>,
    /// The rule file it came from (`remote-code-execution.toml`).
    pub file: String,
}

impl Rule {
    /// The compiled pattern. The rule tests compile every pattern and run its examples (a
    /// broken pattern is a build defect); one that still fails to compile at scan time
    /// matches nothing rather than stopping the scan.
    pub fn regex(&self) -> &Regex {
        self.regex
            .get_or_init(|| compile(&self.spec.id, &self.spec.pattern).unwrap_or_else(|_| never()))
    }

    /// Whether [`Rule::regex`] is compiled already.
    pub fn is_compiled(&self) -> bool {
        self.regex.get().is_some()
    }

    /// The compiled [`RuleSpec::near`] pattern.
    pub fn near(&self) -> Option<&Regex> {
        self.near
            .get_or_init(|| {
                self.spec
                    .near
                    .as_ref()
                    .map(|n| compile(&self.spec.id, &n.pattern).unwrap_or_else(|_| never()))
            })
            .as_ref()
    }

    /// Compiles the rule's patterns now (tests and benchmarks that want errors, not
    /// silence).
    pub fn compile_now(&self) -> Result<(), RuleError> {
        let regex = compile(&self.spec.id, &self.spec.pattern)?;
        let _ = self.regex.set(regex);
        if let Some(near) = &self.spec.near {
            let _ = self.near.set(Some(compile(&self.spec.id, &near.pattern)?));
        }
        Ok(())
    }

    /// Whether the rule applies in `context`.
    pub fn applies_in(&self, context: Context) -> bool {
        self.spec.contexts.as_ref().is_none_or(|c| c.contains(&context))
    }

    /// Whether the line (lowercased) passes the keyword filter.
    pub fn keywords_present(&self, lower_line: &str) -> bool {
        self.keywords.is_empty() || self.keywords.iter().any(|k| lower_line.contains(k.as_str()))
    }
}

/// Why the rules cannot be used (a broken rule file is a build defect: the tests catch it).
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// A file is not valid TOML or not in the rule format.
    #[error("rule file {file}: {message}")]
    Format {
        /// The file.
        file: String,
        /// The parser's message.
        message: String,
    },
    /// A pattern does not compile.
    #[error("rule {id}: pattern does not compile: {message}")]
    Pattern {
        /// The rule.
        id: String,
        /// The compiler's message.
        message: String,
    },
    /// Two rules share an id.
    #[error("rule id {0} is used twice")]
    Duplicate(String),
}

/// Every rule, compiled.
#[derive(Debug)]
pub struct RuleSet {
    /// The rules, in file order.
    pub rules: Vec<Rule>,
    /// Every rule file's `installer_hosts`, lowercased.
    pub installer_hosts: Vec<String>,
}

/// Compiled-size budget of one pattern (the default is too small for some secret rules).
const PATTERN_SIZE_LIMIT: usize = 32 << 20;

impl RuleSet {
    /// Compiles the embedded rule files.
    pub fn builtin() -> Result<RuleSet, RuleError> {
        Self::from_files(RULE_FILES.iter().copied())
    }

    /// Compiles rule files given as (name, contents).
    pub fn from_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<RuleSet, RuleError> {
        let mut rules = Vec::new();
        let mut installer_hosts = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (file, text) in files {
            let parsed: RuleFile = toml::from_str(text).map_err(|e| RuleError::Format {
                file: file.to_owned(),
                message: e.to_string(),
            })?;
            installer_hosts.extend(parsed.installer_hosts.iter().map(|h| h.to_lowercase()));
            for spec in parsed.rule {
                if !seen.insert(spec.id.clone()) {
                    return Err(RuleError::Duplicate(spec.id));
                }
                let keywords = spec.keywords.iter().map(|k| k.to_lowercase()).collect();
                rules.push(Rule {
                    spec,
                    regex: OnceLock::new(),
                    keywords,
                    near: OnceLock::new(),
                    file: file.to_owned(),
                });
            }
        }
        Ok(RuleSet { rules, installer_hosts })
    }

    /// The severity rule `id` drops to for a download from the skill's own vendor or an
    /// official installer, if it has one.
    pub fn vendor_severity(&self, id: &str) -> Option<Severity> {
        self.rules.iter().find(|r| r.spec.id == id)?.spec.vendor_severity
    }
}

/// A pattern that matches nothing.
fn never() -> Regex {
    Regex::new(r"[^\s\S]").expect("valid never-matching pattern")
}

/// Compiles a rule's pattern with ASCII word boundaries and ASCII word classes: rules
/// mean the words of shell and English, and Unicode's `\w` made compiling them most of a
/// cold start ([`crate::ascii_words`]).
fn compile(id: &str, pattern: &str) -> Result<Regex, RuleError> {
    regex::RegexBuilder::new(&crate::ascii_words::ascii_words(&ascii_word_boundaries(pattern)))
        .size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|e| RuleError::Pattern {
            id: id.to_owned(),
            message: e.to_string(),
        })
}

pub use crate::literals::ascii_word_boundaries;

/// Whether a matched secret is a documented example or a placeholder, not a key: AWS's
/// own documentation pair, values that say `EXAMPLE`, `fake`, `dummy`, runs of `x` or `0`,
/// or a line marked as an allowed secret (`pragma: allowlist secret`, `gitleaks:allow`).
pub fn example_secret(secret: &str, line: &str) -> bool {
    let lower = secret.to_ascii_lowercase();
    const MARKS: [&str; 9] = [
        "example",
        "fake",
        "dummy",
        "sample",
        "placeholder",
        "xxxx",
        "0000000",
        "your_",
        "redacted",
    ];
    MARKS.iter().any(|m| lower.contains(m))
        || longest_ascending_run(&lower) >= FAKE_RUN
        || jwt_claims(secret).is_some_and(|claims| example_subject(&claims))
        || line.contains("pragma: allowlist secret")
        || line.contains("gitleaks:allow")
}

/// Whether a token's claims name an example subject: jwt.io's own sample (`"sub":
/// "1234567890"`) or a subject, name or e-mail that says it is an example. Only those
/// claims are read: a real token's audience may be all zeros (Microsoft Graph's), and a
/// real user may be called Jane Doe.
fn example_subject(claims: &str) -> bool {
    let Ok(serde_json::Value::Object(claims)) = serde_json::from_str::<serde_json::Value>(claims) else {
        return false;
    };
    const MARKS: [&str; 5] = ["example", "fake", "dummy", "placeholder", "your_"];
    ["sub", "name", "email", "preferred_username"]
        .iter()
        .filter_map(|k| claims.get(*k).and_then(serde_json::Value::as_str))
        .any(|v| {
            let v = v.to_ascii_lowercase();
            v == "1234567890" || MARKS.iter().any(|m| v.contains(m))
        })
}

/// The claims of a JSON Web Token, decoded (its middle part): documentation's tokens say
/// who they are for in them (`{"sub": "1234567890", "name": "John Doe"}`, jwt.io's own
/// sample), where a real token names a real subject.
fn jwt_claims(secret: &str) -> Option<String> {
    use base64::Engine as _;
    let mut parts = secret.split('.');
    let (header, claims) = (parts.next()?, parts.next()?);
    if !header.starts_with("ey") || !claims.starts_with("ey") {
        return None;
    }
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    String::from_utf8(bytes).ok()
}

/// Whether `path` is a test fixture: under a fixtures or test-data directory, or a file
/// named as a test's (`test_rsa_key.pem`, `fake_token.txt`) under a tests directory.
pub fn test_fixture(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut parts: Vec<&str> = lower.split('/').collect();
    let file = parts.pop().unwrap_or_default();
    let fixture_dir = parts
        .iter()
        .any(|p| matches!(*p, "fixtures" | "__fixtures__" | "testdata" | "test-data" | "test_data"));
    let test_dir = parts
        .iter()
        .any(|p| matches!(*p, "tests" | "test" | "spec" | "__tests__"));
    let test_name = ["test", "fake", "dummy", "mock", "sample"]
        .iter()
        .any(|w| file.contains(w));
    fixture_dir || test_dir && test_name
}

/// A run this long of characters in order (`12345678`, `abcdefgh`) marks a key typed by
/// hand for documentation: a generated key holds one by chance about once in 10^10.
const FAKE_RUN: usize = 8;

/// The longest run of consecutive ASCII digits or letters in order in `text`.
fn longest_ascending_run(text: &str) -> usize {
    let mut longest = 0;
    let mut run = 0;
    let mut previous: Option<u8> = None;
    for b in text.bytes() {
        run = match previous {
            Some(p) if b.is_ascii_alphanumeric() && p.checked_add(1) == Some(b) => run + 1,
            _ if b.is_ascii_alphanumeric() => 1,
            _ => 0,
        };
        longest = longest.max(run);
        previous = Some(b);
    }
    longest
}

/// Shannon entropy of `text` in bits per character.
pub fn entropy(text: &str) -> f64 {
    let mut counts = std::collections::HashMap::new();
    let mut total = 0usize;
    for c in text.chars() {
        *counts.entry(c).or_insert(0usize) += 1;
        total += 1;
    }
    if total == 0 {
        return 0.0;
    }
    counts
        .values()
        .map(|&n| {
            let p = n as f64 / total as f64;
            -p * p.log2()
        })
        .sum()
}

/// Fewest patterns worth compiling on several threads (below this, starting threads
/// costs more than it saves).
const PARALLEL_COMPILE_MIN: usize = 8;

/// Compiles the patterns of `rules` that are not compiled yet, on as many threads as the
/// machine has cores: a process's first scan compiles every rule its text may match,
/// which is most of a one-skill scan's time (the CLI's cold start).
pub fn compile_ahead(rules: &[&Rule]) {
    let pending: Vec<&Rule> = rules.iter().copied().filter(|r| !r.is_compiled()).collect();
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    if pending.len() < PARALLEL_COMPILE_MIN || threads < 2 {
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.min(pending.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(rule) = pending.get(i) else {
                        break;
                    };
                    rule.regex();
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_typed_by_hand_for_documentation_are_examples() {
        assert!(example_secret("ghp_1234567890abcdefghijklmnopqrstuvwxyz12", ""));
        assert!(example_secret("AKIAIOSFODNN7EXAMPLE", ""));
        // jwt.io's sample token, and one for an example subject; a token for a real one.
        assert!(example_secret(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
            ""
        ));
        assert!(!example_secret(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfOGYzYTIiLCJvcmciOiJhY21lLXByb2QiLCJpYXQiOjE3MzI1MDAwMDB9.q1Wm3xZr8P0vTnYk2Lc9HdE4sFbJ7aRgU6oNiX5yKe0",
            ""
        ));
        // An audience of zeros (Microsoft Graph's) and a user called Jane Doe are real.
        assert!(!example_secret(
            "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJhdWQiOiIwMDAwMDAwMy0wMDAwLTAwMDAtYzAwMC0wMDAwMDAwMDAwMDAiLCJuYW1lIjoiSmFuZSBEb2UiLCJzdWIiOiJrOXFYMnpQIn0.q1Wm3xZr8P0vTnYk2Lc9HdE4sFbJ7aRgU6oNiX5yKe0",
            ""
        ));
        assert!(test_fixture("tests/fixtures/test_rsa_key.pem"));
        assert!(test_fixture("pkg/testdata/token.txt"));
        assert!(test_fixture("tests/fake_token.txt"));
        assert!(!test_fixture("tests/run.sh.key"));
        assert!(!test_fixture("config/credentials.json"));
        assert!(!example_secret("ghp_Zr8Kq2VwXy7PLm4TnB9cR1sD6fH3jG5aE0uQ", ""));
    }

    #[test]
    fn word_boundaries_become_ascii_and_escapes_survive() {
        assert_eq!(ascii_word_boundaries(r"\bcurl\b"), r"(?-u:\b)curl(?-u:\b)");
        assert_eq!(ascii_word_boundaries(r"a\\b\Bc"), r"a\\b(?-u:\B)c");
        assert_eq!(ascii_word_boundaries(r"(?-u:\b)x"), r"(?-u:(?-u:\b))x");
        assert!(Regex::new(&ascii_word_boundaries(r"(?-u:\b)x\b")).is_ok());
        assert!((entropy("aaaa") - 0.0).abs() < 1e-9 && entropy("abcd") > 1.9);
    }
}
