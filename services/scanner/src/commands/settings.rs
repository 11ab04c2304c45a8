//! Safeguards turned off in a configuration file the skill ships: `strict-ssl=false` in an
//! `.npmrc`, `"http.sslVerify": false` in a JSON profile, `GOSUMDB = "off"` in a TOML
//! table, `insecure-skip-tls-verify: true` in a kubeconfig. A command line that sets one
//! is judged where it runs (`programs/checks.rs`); a file holding the setting is what a
//! script or a step copies or applies, often through a loop no reader follows, so the
//! setting is judged where it is written down.
//!
//! Keys are read from lines of the common forms (`key = value`, `key: value`, `"key":
//! value`, `export KEY=value`), by their last dotted component, case-insensitively.

use std::sync::LazyLock;

use regex::Regex;

use crate::Severity;

use super::flow::Judgment;
use super::programs::{safety_off, shorten};
use super::targets::{names_public_index, tls_off_setting};

/// Lines of a settings file read (a larger file is data, not settings).
const MAX_LINES: usize = 10_000;
/// Bytes of one line read as a value.
const MAX_VALUE_BYTES: usize = 4096;
/// Continuation lines read for one value (`trusted-host =` and the hosts below it).
const MAX_CONTINUATION_LINES: usize = 64;

/// One `key <sep> value` pair, several to a line in inline objects (`{ "npm": {
/// "strict-ssl": false } }`): the key (optionally quoted) and the value (its quotes, a
/// trailing comma, brace or comment left out).
static SETTING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"["']?([A-Za-z_][A-Za-z0-9_.\-]*)["']?\s*[:=]\s*["']?([^"'\s,#;{}\]]*)"#)
        .expect("valid setting pattern")
});

/// What turning off the setting `key` (as written) to `value` does, when it does.
/// `listed`: the setting's whole value, continuation lines included, for the settings
/// that take a list of hosts.
fn weakens(key: &str, value: &str, listed: &dyn Fn() -> String) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    let name = lower.rsplit('.').next().unwrap_or(&lower);
    // An empty value in a file is a placeholder or an unset (`REQUESTS_CA_BUNDLE=` in an
    // `.env.example`), not a bundle emptied on purpose.
    if !value.is_empty() && tls_off_setting(&name.to_ascii_uppercase(), value) {
        return Some("turns TLS certificate checks off for every program that reads it");
    }
    let value = value.to_ascii_lowercase();
    let off = matches!(value.as_str(), "false" | "0" | "no" | "off");
    match name {
        "strict-ssl"
        | "strict_ssl"
        | "strictssl"
        | "npm_config_strict_ssl"
        | "yarn_enable_strict_ssl"
        | "enablestrictssl"
            if off =>
        {
            Some("turns TLS certificate checks off for the package manager")
        }
        "sslverify" | "ssl_verify" | "ssl-verify" | "verify_ssl" | "verifyssl" | "rejectunauthorized" if off => {
            Some("turns TLS certificate checks off")
        }
        "insecure-skip-tls-verify" | "insecure_skip_tls_verify" if value == "true" => {
            Some("turns TLS certificate checks off for the cluster's API server")
        }
        "gosumdb" if value == "off" => Some("turns Go's checksum database off: no module download is verified"),
        "gonosumdb" | "gonosumcheck" if value == "*" => {
            Some("exempts every Go module from the checksum database: no module download is verified")
        }
        "goinsecure" if value == "*" => Some("lets Go fetch every module over plain HTTP or unverified TLS"),
        "goflags" if value.contains("-insecure") => Some("lets Go fetch modules without TLS checks"),
        "check_certificate" | "check-certificate" if off => Some("turns TLS certificate checks off for wget"),
        "trusted-host" | "trusted_host" | "allow-insecure-host" | "allow_insecure_host"
            if names_public_index(&listed()) =>
        {
            Some("trusts a public package index without TLS checks: anyone on the network path can serve the packages")
        }
        _ => None,
    }
}

/// The safeguards `text` (a configuration file the skill ships) turns off, one judgment
/// per line. `applied`: a script of the skill reads or installs the file, so its settings
/// take effect (`high`); a file nothing applies is for a reviewer to read (`medium`).
pub(crate) fn weakened_in(path: &str, text: &str, applied: bool) -> Vec<Judgment> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    for (line, content) in lines.iter().enumerate() {
        let trimmed = content.trim_start();
        if trimmed.starts_with(['#', ';']) || trimmed.starts_with("//") {
            continue;
        }
        // A value continued on the indented lines below (`trusted-host =` in pip.conf).
        let listed = |from: usize| {
            let rest = &content[from..];
            let mut whole = rest[..rest.floor_char_boundary(MAX_VALUE_BYTES)].to_owned();
            for next in lines.iter().skip(line + 1).take(MAX_CONTINUATION_LINES) {
                if !next.starts_with([' ', '\t']) || next.trim().is_empty() {
                    break;
                }
                whole.push(' ');
                whole.push_str(next.trim());
            }
            whole
        };
        let Some(what) = SETTING.captures_iter(content).find_map(|caps| {
            let (key, value) = (caps.get(1)?, caps.get(2)?);
            weakens(key.as_str(), value.as_str(), &|| listed(key.end()))
        }) else {
            continue;
        };
        let severity = if applied { Severity::High } else { Severity::Medium };
        let how = if applied {
            "applied by the skill's scripts or steps"
        } else {
            "in a file the skill ships"
        };
        out.push(safety_off(
            line,
            severity,
            format!("`{}` {what} ({how}: {path})", shorten(content.trim())),
        ));
    }
    out
}

/// Whether `path` is a file of settings this module reads: data files and the usual
/// configuration files (`.npmrc`, `pip.conf`, `.env`, `*.conf`, kubeconfigs). Markdown,
/// scripts and text are read elsewhere.
pub(crate) fn is_settings_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "json" | "yaml" | "yml" | "toml" | "ini" | "cfg" | "conf" | "env" | "properties" | "npmrc" | "yarnrc"
    ) || matches!(
        file,
        ".npmrc"
            | "npmrc"
            | ".yarnrc"
            | ".yarnrc.yml"
            | ".env"
            | "kubeconfig"
            | "config"
            | ".condarc"
            | "condarc"
            | ".wgetrc"
            | "wgetrc"
    ) || file.starts_with(".env.")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safeguards_turned_off_in_every_common_form() {
        for (path, text) in [
            (
                "templates/.npmrc",
                "registry=https://registry.npmjs.org/\nstrict-ssl=false\n",
            ),
            ("assets/profiles.json", "{\n  \"git\": { \"http.sslVerify\": false }\n}"),
            ("assets/env.json", "{ \"NODE_TLS_REJECT_UNAUTHORIZED\": \"0\" }"),
            ("assets/go-env.toml", "[env]\nGOSUMDB = \"off\"\n"),
            ("assets/go-env.toml", "GONOSUMDB = \"*\"\n"),
            (
                "templates/kubeconfig.yaml",
                "clusters:\n- cluster:\n    insecure-skip-tls-verify: true\n",
            ),
            ("templates/net.env", "export GIT_SSL_NO_VERIFY=1\n"),
            ("templates/.yarnrc.yml", "enableStrictSsl: false\n"),
            (
                "templates/pip.conf",
                "[global]\ntrusted-host =\n    pypi.corp.example\n    pypi.org\n",
            ),
            (
                "templates/uv.toml",
                "allow-insecure-host = [\"mirror.corp.example\", \"files.pythonhosted.org\"]\n",
            ),
        ] {
            assert!(is_settings_file(path), "{path}");
            let found = weakened_in(path, text, true);
            assert_eq!(found.len(), 1, "{path}: {text}");
            assert_eq!(found[0].severity, Severity::High);
            assert_eq!(weakened_in(path, text, false)[0].severity, Severity::Medium);
        }
    }

    #[test]
    fn safeguards_left_on_or_narrowed_are_not_findings() {
        for text in [
            "strict-ssl=true\ncafile=/etc/ssl/corp.pem\n",
            "{ \"http.sslVerify\": true }",
            "GOSUMDB = \"sum.golang.org\"\nGONOSUMDB = \"git.corp.example/*\"\n",
            "GOPRIVATE = \"*\"\n",
            "NODE_TLS_REJECT_UNAUTHORIZED=1\n",
            "# strict-ssl=false was needed once; no longer\n",
            "insecure-skip-tls-verify: false\n",
            "[global]\ntrusted-host = pypi.corp.example\nindex-url = https://pypi.corp.example/simple\n",
        ] {
            assert!(weakened_in("x.conf", text, true).is_empty(), "{text}");
        }
        assert!(!is_settings_file("SKILL.md"));
        assert!(!is_settings_file("scripts/apply.sh"));
    }
}
