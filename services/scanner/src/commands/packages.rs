//! Packages a skill has the agent install or declares as dependencies, compared with the
//! names of popular packages (`data/popular-packages.csv`, built by
//! `deploy/dev/popular-packages.py` with its sources and date in its header): a name one
//! typo away from a popular one, and not itself popular, is a typosquat.

use std::collections::HashSet;
use std::sync::LazyLock;

/// A package ecosystem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecosystem {
    /// PyPI (pip, uv, poetry, pipx).
    PyPi,
    /// npm (npm, yarn, pnpm, bun, npx).
    Npm,
}

/// A line of a requirements file: a name, extras, version specifiers, markers, a comment.
static REQUIREMENT: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*(?:[<>=!~]=?\s*[\w.*]+(?:\s*,\s*[<>=!~]=?\s*[\w.*]+)*)?\s*(?:;[^#]*)?(?:#.*)?$")
        .expect("valid requirement pattern")
});

pub(crate) const POPULAR_CSV: &str = include_str!("../../data/popular-packages.csv");

struct Popular {
    pypi: HashSet<String>,
    npm: HashSet<String>,
}

static POPULAR: LazyLock<Popular> = LazyLock::new(|| {
    let mut popular = Popular {
        pypi: HashSet::new(),
        npm: HashSet::new(),
    };
    for line in POPULAR_CSV.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let mut fields = line.split(',');
        match (fields.next(), fields.next()) {
            (Some("pypi"), Some(name)) => {
                popular.pypi.insert(normalize(Ecosystem::PyPi, name));
            }
            (Some("npm"), Some(name)) => {
                popular.npm.insert(normalize(Ecosystem::Npm, name));
            }
            _ => {}
        }
    }
    popular
});

/// A name as its registry compares them (PyPI folds case and `-_.`).
fn normalize(ecosystem: Ecosystem, name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match ecosystem {
        Ecosystem::PyPi => {
            let mut out = String::with_capacity(lower.len());
            for c in lower.chars() {
                let c = if matches!(c, '_' | '.') { '-' } else { c };
                if !(c == '-' && out.ends_with('-')) {
                    out.push(c);
                }
            }
            out
        }
        Ecosystem::Npm => lower,
    }
}

/// The popular package `name` imitates, if it is one typo away from one (a letter added,
/// dropped, changed or two swapped) and not popular itself. Names under five letters are
/// not judged: too many real packages are one letter apart.
pub fn lookalike(ecosystem: Ecosystem, name: &str) -> Option<&'static str> {
    let popular = match ecosystem {
        Ecosystem::PyPi => &POPULAR.pypi,
        Ecosystem::Npm => &POPULAR.npm,
    };
    let name = normalize(ecosystem, name);
    // A name popular in the other ecosystem is a mix-up (`requests` in a package.json),
    // not a lookalike planted for this one.
    let other = match ecosystem {
        Ecosystem::PyPi => &POPULAR.npm,
        Ecosystem::Npm => &POPULAR.pypi,
    };
    if name.len() < 5 || popular.contains(&name) || other.contains(&name) {
        return None;
    }
    popular
        .iter()
        .filter(|p| p.len() >= 5 && p.len().abs_diff(name.len()) <= 1)
        .find(|p| one_typo(&name, p))
        .map(String::as_str)
}

/// Whether `a` and `b` differ by exactly one insertion, deletion, substitution or
/// transposition of neighbours.
fn one_typo(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..] || ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..]
        }
        std::cmp::Ordering::Greater => ra[1..] == *rb,
        std::cmp::Ordering::Less => *ra == rb[1..],
    }
}

/// The packages a command installs: `pip install x`, `uv add x`, `npm i x`, `npx x`, …
pub fn installed_by(program: &str, args: &[&str]) -> Option<(Ecosystem, Vec<String>)> {
    let positional: Vec<&str> = args.iter().copied().filter(|a| !a.starts_with('-')).collect();
    let (ecosystem, names): (Ecosystem, &[&str]) = match (program, positional.as_slice()) {
        ("pip" | "pip3" | "pipx", ["install", rest @ ..]) => (Ecosystem::PyPi, rest),
        ("uv", ["pip", "install", rest @ ..]) | ("uv" | "poetry" | "pdm" | "rye", ["add", rest @ ..]) => {
            (Ecosystem::PyPi, rest)
        }
        ("npm" | "pnpm" | "bun", ["i" | "install" | "add", rest @ ..]) => (Ecosystem::Npm, rest),
        ("yarn", ["add", rest @ ..]) | ("yarn", ["global", "add", rest @ ..]) => (Ecosystem::Npm, rest),
        ("npx" | "bunx", [first, ..]) => (Ecosystem::Npm, std::slice::from_ref(first)),
        _ => return None,
    };
    let names = names.iter().filter_map(|n| package_name(ecosystem, n)).collect();
    Some((ecosystem, names))
}

/// The package name in an install argument (`requests==2.31`, `@scope/pkg@1`,
/// `flask[async]`), or `None` for paths, URLs and requirement files.
fn package_name(ecosystem: Ecosystem, arg: &str) -> Option<String> {
    if arg.contains("://")
        || arg.starts_with('.')
        || arg.starts_with('/')
        || arg.ends_with(".txt")
        || arg.ends_with(".whl")
        || arg.contains(':')
    {
        return None;
    }
    let name = match ecosystem {
        Ecosystem::PyPi => arg
            .split(['=', '<', '>', '!', '~', '[', ';', ' ', '@'])
            .next()
            .unwrap_or(""),
        Ecosystem::Npm => {
            let (scope, rest) = match arg.strip_prefix('@') {
                Some(rest) => ("@", rest),
                None => ("", arg),
            };
            let bare = rest.split('@').next().unwrap_or("");
            return (!bare.is_empty() && bare.chars().all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c)))
                .then(|| format!("{scope}{bare}"));
        }
    };
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))).then(|| name.to_owned())
}

/// Dependencies declared in a manifest: `requirements*.txt`, `package.json`,
/// `pyproject.toml`; with their line (0-based).
pub fn declared_in(path: &str, text: &str) -> Vec<(usize, Ecosystem, String)> {
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let mut out = Vec::new();
    if file.starts_with("requirements") && file.ends_with(".txt") {
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') || t.starts_with('-') || !REQUIREMENT.is_match(t) {
                continue;
            }
            if let Some(name) = package_name(Ecosystem::PyPi, t) {
                out.push((i, Ecosystem::PyPi, name));
            }
        }
    } else if file == "package.json" {
        let mut in_deps = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with("\"dependencies\"")
                || t.starts_with("\"devDependencies\"")
                || t.starts_with("\"peerDependencies\"")
                || t.starts_with("\"optionalDependencies\"")
            {
                in_deps = true;
                continue;
            }
            if in_deps && t.starts_with('}') {
                in_deps = false;
                continue;
            }
            if in_deps && let Some(name) = t.strip_prefix('"').and_then(|r| r.split('"').next()) {
                out.push((i, Ecosystem::Npm, name.to_owned()));
            }
        }
    } else if file == "pyproject.toml" {
        let mut in_list = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with("dependencies") && t.contains('[') {
                in_list = !t.contains(']');
                for quoted in t.split('"').skip(1).step_by(2) {
                    if let Some(name) = package_name(Ecosystem::PyPi, quoted) {
                        out.push((i, Ecosystem::PyPi, name));
                    }
                }
                continue;
            }
            if in_list {
                if t.starts_with(']') {
                    in_list = false;
                    continue;
                }
                if let Some(quoted) = t.split('"').nth(1)
                    && let Some(name) = package_name(Ecosystem::PyPi, quoted)
                {
                    out.push((i, Ecosystem::PyPi, name));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_typo_away() {
        assert!(one_typo("reqeusts", "requests") && one_typo("colourama", "colorama") && one_typo("lodahs", "lodash"));
        assert!(one_typo("beautifulsoup", "beautifulsoup4") && one_typo("expresss", "express"));
        assert!(!one_typo("requests", "requests") && !one_typo("numpy", "numba") && !one_typo("flask", "django"));
    }

    #[test]
    fn popular_names_and_their_lookalikes() {
        assert_eq!(lookalike(Ecosystem::PyPi, "reqeusts"), Some("requests"));
        assert_eq!(lookalike(Ecosystem::PyPi, "python_dateutils"), Some("python-dateutil"));
        assert_eq!(lookalike(Ecosystem::PyPi, "requests"), None);
        assert_eq!(
            lookalike(Ecosystem::PyPi, "Python_DateUtil"),
            None,
            "PyPI folds case and separators"
        );
        assert_eq!(lookalike(Ecosystem::Npm, "lodahs"), Some("lodash"));
        assert_eq!(lookalike(Ecosystem::Npm, "crossenv"), Some("cross-env"));
    }

    #[test]
    fn install_commands_and_manifests() {
        assert_eq!(
            installed_by("pip", &["install", "-U", "reqeusts==2.0"]),
            Some((Ecosystem::PyPi, vec!["reqeusts".to_owned()]))
        );
        assert_eq!(
            installed_by("npm", &["i", "-D", "@types/node@20"]),
            Some((Ecosystem::Npm, vec!["@types/node".to_owned()]))
        );
        let manifest = "{\n  \"dependencies\": {\n    \"lodahs\": \"^4\"\n  }\n}\n";
        assert_eq!(
            declared_in("package.json", manifest),
            vec![(2, Ecosystem::Npm, "lodahs".to_owned())]
        );
        assert_eq!(
            declared_in("requirements.txt", "# x\nreqeusts>=2\n-r base.txt\n"),
            vec![(1, Ecosystem::PyPi, "reqeusts".to_owned())]
        );
    }
}
