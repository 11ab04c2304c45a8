//! Packages a skill has the agent install or declares as dependencies, compared with the
//! names of popular packages (`data/popular-packages.csv`: PyPI and npm built by
//! `deploy/dev/popular-packages.py`, crates and gems by `deploy/dev/popular-debian.py`,
//! sources and dates in its header): a name one typo away from a popular one, and not
//! itself popular or established, is a typosquat.

use std::collections::HashSet;
use std::sync::LazyLock;

/// A package ecosystem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecosystem {
    /// PyPI (pip, uv, poetry, pipx).
    PyPi,
    /// npm (npm, yarn, pnpm, bun, npx).
    Npm,
    /// crates.io (cargo add, cargo install, Cargo.toml).
    Crates,
    /// RubyGems (gem install, bundle add, Gemfile, gemspec).
    RubyGems,
    /// Go modules (go get, go install, go.mod), by their root path
    /// (`github.com/owner/repo`).
    Go,
}

impl Ecosystem {
    const ALL: [Ecosystem; 5] = [
        Ecosystem::PyPi,
        Ecosystem::Npm,
        Ecosystem::Crates,
        Ecosystem::RubyGems,
        Ecosystem::Go,
    ];

    /// Its name in `data/popular-packages.csv`.
    fn key(self) -> &'static str {
        match self {
            Ecosystem::PyPi => "pypi",
            Ecosystem::Npm => "npm",
            Ecosystem::Crates => "crates",
            Ecosystem::RubyGems => "rubygems",
            Ecosystem::Go => "go",
        }
    }
}

/// A line of a requirements file: a name, extras, version specifiers, markers, a comment.
static REQUIREMENT: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[^\]]*\])?\s*(?:[<>=!~]=?\s*[\w.*]+(?:\s*,\s*[<>=!~]=?\s*[\w.*]+)*)?\s*(?:;[^#]*)?(?:#.*)?$")
        .expect("valid requirement pattern")
});

pub(crate) const POPULAR_CSV: &str = include_str!("../../data/popular-packages.csv");

/// The popular names of each ecosystem (`Ecosystem::ALL` order), normalised, and the
/// names established packages depend on (`crates-dependency` rows): never called a
/// typosquat, never compared with.
struct Popular {
    popular: [HashSet<String>; 5],
    established: [HashSet<String>; 5],
}

impl Popular {
    fn of(&self, ecosystem: Ecosystem) -> &HashSet<String> {
        &self.popular[ecosystem as usize]
    }

    fn established(&self, ecosystem: Ecosystem, name: &str) -> bool {
        self.established[ecosystem as usize].contains(name)
    }
}

static POPULAR: LazyLock<Popular> = LazyLock::new(|| {
    let mut popular = Popular {
        popular: Default::default(),
        established: Default::default(),
    };
    for line in POPULAR_CSV.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let mut fields = line.split(',');
        let (Some(key), Some(name)) = (fields.next(), fields.next()) else {
            continue;
        };
        let (key, established) = match key.strip_suffix("-dependency") {
            Some(key) => (key, true),
            None => (key, false),
        };
        if let Some(&ecosystem) = Ecosystem::ALL.iter().find(|e| e.key() == key) {
            let set = if established {
                &mut popular.established[ecosystem as usize]
            } else {
                &mut popular.popular[ecosystem as usize]
            };
            set.insert(normalize(ecosystem, name));
        }
    }
    popular
});

/// A name as its registry compares them (PyPI folds case and `-_.`; crates.io folds
/// case and `-_`; RubyGems names are compared with `-_` folded, as Debian writes them).
fn normalize(ecosystem: Ecosystem, name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    match ecosystem {
        Ecosystem::Crates | Ecosystem::RubyGems => lower.replace('_', "-"),
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
        Ecosystem::Npm | Ecosystem::Go => lower,
    }
}

/// The popular package `name` imitates, if it is one typo away from one (a letter added,
/// dropped, changed or two swapped, or letters that read alike: `rn` for `m`) and not
/// popular itself. Names under five letters are
/// not judged: too many real packages are one letter apart.
pub fn lookalike(ecosystem: Ecosystem, name: &str) -> Option<&'static str> {
    let popular = POPULAR.of(ecosystem);
    let name = normalize(ecosystem, name);
    // A name popular in this ecosystem, or in PyPI or npm, is a mix-up (`requests` in a
    // package.json), not a lookalike planted for this one. Debian's thousands of crates
    // and gems excuse no one else's names (`wisper`, `shoulda` stay lookalikes).
    let elsewhere = [ecosystem, Ecosystem::PyPi, Ecosystem::Npm]
        .iter()
        .any(|&other| POPULAR.of(other).contains(&normalize(other, &name)));
    if name.len() < 5 || elsewhere || POPULAR.established(ecosystem, &name) {
        return None;
    }
    // A Go module beside a popular one of the same owner (`tidwall/sjson` beside
    // `tidwall/gjson`) is that publisher's own.
    let owner = |path: &str| path.rsplit_once('/').map(|(owner, _)| owner.to_owned());
    let same_publisher = |p: &str| ecosystem == Ecosystem::Go && owner(p) == owner(&name);
    popular
        .iter()
        .filter(|p| p.len() >= 5 && p.len().abs_diff(name.len()) <= 1 && !same_publisher(p))
        .find(|p| one_typo(&name, p) || fold_confusables(&name) == fold_confusables(p))
        .map(String::as_str)
}

/// The registrable domains of the package indexes and image registries agents install
/// from (and their projects' own sites): an address is judged against these.
const PACKAGE_HOSTS: [&str; 37] = [
    "npmjs.org",
    "npmjs.com",
    "yarnpkg.com",
    "pypi.org",
    "pypi.io",
    "python.org",
    "pythonhosted.org",
    "rubygems.org",
    "crates.io",
    "rust-lang.org",
    "golang.org",
    "go.dev",
    "docker.io",
    "docker.com",
    "ghcr.io",
    "github.com",
    "githubusercontent.com",
    "quay.io",
    "gcr.io",
    "k8s.io",
    "maven.org",
    "apache.org",
    "gradle.org",
    "nuget.org",
    "packagist.org",
    "jsdelivr.net",
    "unpkg.com",
    "debian.org",
    "ubuntu.com",
    "alpinelinux.org",
    "fedoraproject.org",
    "hashicorp.com",
    "conda.io",
    "anaconda.org",
    "anaconda.com",
    "microsoft.com",
    "pypa.io",
];

/// The package index or registry `host` imitates, if it imitates one, while it is none of
/// them nor under one: its labels spell an index's domain (`registry.npmjs-org.example`,
/// `pypi.org.mirror-cdn.example`, `files-pythonhosted-org.example`), its registrable
/// domain reads like one (`rubygerns.org`), or — where it is given as an index
/// (`as_index`: `registry=`, `--index-url`, `GOPROXY=`) — it is one typo away from one
/// (`pypl.org`). Many real sites are one typo away from an index (`coda.io`, `pypa.io`).
pub fn index_lookalike(host: &str, as_index: bool) -> Option<&'static str> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 || host.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let registrable = labels[labels.len() - 2..].join(".");
    if PACKAGE_HOSTS.contains(&registrable.as_str()) {
        return None;
    }
    // The host with its dashes read as dots: a domain spelled inside it. Short names
    // (`go.dev`, `gcr.io`, `k8s.io`) are words of many hosts (`go-dev.corp.example`).
    let dotted = format!(".{}.", host.replace('-', "."));
    PACKAGE_HOSTS
        .iter()
        .filter(|official| {
            official
                .split('.')
                .next()
                .is_some_and(|label| label.len() >= 5 || label == "pypi")
        })
        .find(|official| dotted.contains(&format!(".{official}.")))
        .or_else(|| {
            let folded = fold_confusables(&registrable);
            PACKAGE_HOSTS
                .iter()
                .filter(|official| official.len() >= 7)
                .find(|official| as_index && one_typo(&registrable, official) || folded == fold_confusables(official))
        })
        .copied()
}

/// `text` with letters that read alike in a URL bar written one way (`rn` → `m`, `vv` →
/// `w`, `0` → `o`, `1` → `l`).
fn fold_confusables(text: &str) -> String {
    text.replace("rn", "m")
        .replace("vv", "w")
        .replace('0', "o")
        .replace('1', "l")
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

/// Options of `cargo add`/`cargo install` that take the next word as their value (a
/// feature, a version, a path), not a package.
const CARGO_VALUE_OPTIONS: [&str; 14] = [
    "-F",
    "--features",
    "--rename",
    "--path",
    "--git",
    "--branch",
    "--tag",
    "--rev",
    "--registry",
    "-p",
    "--package",
    "--manifest-path",
    "--target",
    "--root",
];

/// The same for `gem install` and `bundle add` (`--version` is cargo's too).
const GEM_VALUE_OPTIONS: [&str; 11] = [
    "-v",
    "--version",
    "-i",
    "--install-dir",
    "-s",
    "--source",
    "-n",
    "--bindir",
    "--group",
    "--git",
    "--path",
];

/// The packages a command installs: `pip install x`, `uv add x`, `npm i x`, `npx x`,
/// `cargo add x`, `gem install x`, …
pub fn installed_by(program: &str, args: &[&str]) -> Option<(Ecosystem, Vec<String>)> {
    let takes_value = |option: &str| match program {
        "cargo" => CARGO_VALUE_OPTIONS.contains(&option) || option == "--version",
        _ => GEM_VALUE_OPTIONS.contains(&option),
    };
    let positional: Vec<&str> = if matches!(program, "cargo" | "gem" | "bundle") {
        args.iter()
            .enumerate()
            .filter(|&(i, a)| !a.starts_with('-') && (i == 0 || !takes_value(args[i - 1])))
            .map(|(_, a)| *a)
            .collect()
    } else {
        args.iter().copied().filter(|a| !a.starts_with('-')).collect()
    };
    let (ecosystem, names): (Ecosystem, &[&str]) = match (program, positional.as_slice()) {
        ("pip" | "pip3" | "pipx", ["install", rest @ ..]) => (Ecosystem::PyPi, rest),
        ("uv", ["pip", "install", rest @ ..]) | ("uv" | "poetry" | "pdm" | "rye", ["add", rest @ ..]) => {
            (Ecosystem::PyPi, rest)
        }
        ("npm" | "pnpm" | "bun", ["i" | "install" | "add", rest @ ..]) => (Ecosystem::Npm, rest),
        ("yarn", ["add", rest @ ..]) | ("yarn", ["global", "add", rest @ ..]) => (Ecosystem::Npm, rest),
        ("npx" | "bunx", [first, ..]) => (Ecosystem::Npm, std::slice::from_ref(first)),
        ("cargo", ["add" | "install", rest @ ..]) => (Ecosystem::Crates, rest),
        ("gem", ["install", rest @ ..]) | ("bundle", ["add", rest @ ..]) => (Ecosystem::RubyGems, rest),
        ("go", ["get" | "install", rest @ ..]) => (Ecosystem::Go, rest),
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
        // `cargo add serde@1`, `gem install rails:7.1` (refused above), `rails -v 7`.
        Ecosystem::Crates | Ecosystem::RubyGems => arg.split('@').next().unwrap_or(""),
        Ecosystem::Go => return go_module_root(arg),
    };
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))).then(|| name.to_owned())
}

/// The root path of a Go module or package path (`github.com/o/r/v2/sub@v2.1.0` →
/// `github.com/o/r`): its first three segments, as Debian's homepages give them; `None`
/// for paths that are no module (`./cmd/...`, `std`).
fn go_module_root(arg: &str) -> Option<String> {
    let path = arg
        .split('@')
        .next()
        .unwrap_or("")
        .trim_end_matches("/...")
        .to_ascii_lowercase();
    let segments: Vec<&str> = path.split('/').collect();
    (segments.len() >= 3
        && segments[0].contains('.')
        && segments
            .iter()
            .all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_.~".contains(c))))
    .then(|| segments[..3].join("/"))
}

/// Dependencies declared in a manifest: `requirements*.txt`, `package*.json`,
/// `pyproject.toml`, `Cargo.toml`, `Gemfile`, `*.gemspec`; with their line (0-based).
pub fn declared_in(path: &str, text: &str) -> Vec<(usize, Ecosystem, String)> {
    let file = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    // A template the agent copies into place is read as the manifest it becomes
    // (`Cargo.toml.tmpl`, `pyproject.toml.j2`, `Gemfile.auth` appended to the Gemfile).
    let file = [
        ".tmpl",
        ".template",
        ".tpl",
        ".j2",
        ".jinja",
        ".example",
        ".sample",
        ".dist",
    ]
    .iter()
    .find_map(|suffix| file.strip_suffix(suffix))
    .unwrap_or(&file)
    .to_owned();
    let gemfile = file == "gemfile"
        || file == "gems.rb"
        || file.ends_with(".gemfile")
        || file.starts_with("gemfile.") && file != "gemfile.lock";
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
    } else if file.starts_with("package") && file.ends_with(".json") && !file.contains("lock") {
        // `package.json`, and the templates that become one (`package.scripts.json`,
        // `package.template.json`); not a lock file.
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
    } else if file == "go.mod" {
        // `require x v1` and the lines of a `require ( … )` block.
        let mut in_block = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.split("//").next().unwrap_or("").trim();
            let entry = if in_block {
                if t.starts_with(')') {
                    in_block = false;
                    continue;
                }
                t
            } else if let Some(rest) = t.strip_prefix("require") {
                let rest = rest.trim();
                if rest.starts_with('(') {
                    in_block = true;
                    continue;
                }
                rest
            } else {
                continue;
            };
            if let Some(root) = entry.split_whitespace().next().and_then(go_module_root) {
                out.push((i, Ecosystem::Go, root));
            }
        }
    } else if file == "cargo.toml" {
        out.extend(cargo_dependencies(text));
    } else if gemfile || file.ends_with(".gemspec") {
        for (i, line) in text.lines().enumerate() {
            if let Some(caps) = GEM.captures(line)
                && let Some(name) = caps.get(1)
            {
                out.push((i, Ecosystem::RubyGems, name.as_str().to_owned()));
            }
        }
    }
    out
}

/// A Gemfile's `gem "name"` or a gemspec's `add_dependency "name"` (and its runtime and
/// development forms).
static GEM: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r#"^\s*(?:gem|\w+\.add_(?:runtime_|development_)?dependency)\s*\(?\s*["']([A-Za-z0-9][A-Za-z0-9._-]*)["']"#,
    )
    .expect("valid gem pattern")
});

/// The crates a `Cargo.toml` depends on: each key of a `[*dependencies]` table (or the
/// table `[dependencies.name]`), or its `package = "…"` when it renames one — the crate
/// fetched is the `package`.
fn cargo_dependencies(text: &str) -> Vec<(usize, Ecosystem, String)> {
    let mut out = Vec::new();
    let mut in_table = false;
    // A `[dependencies.name]` table: its name, until a `package` key says otherwise.
    let mut table_crate: Option<(usize, String)> = None;
    let flush = |table_crate: &mut Option<(usize, String)>, out: &mut Vec<(usize, Ecosystem, String)>| {
        if let Some((line, name)) = table_crate.take() {
            out.push((line, Ecosystem::Crates, name));
        }
    };
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(header) = t.strip_prefix('[').and_then(|h| h.split(']').next()) {
            flush(&mut table_crate, &mut out);
            let header = header.trim();
            in_table = header.ends_with("dependencies");
            if let Some((table, name)) = header.rsplit_once('.')
                && table.ends_with("dependencies")
            {
                table_crate = Some((i, name.trim_matches('"').to_owned()));
            }
            continue;
        }
        let Some((key, value)) = t.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches(['"', '\'']);
        if table_crate.is_some() {
            if key == "package"
                && let Some(package) = value.split(['"', '\'']).nth(1)
            {
                table_crate = Some((i, package.to_owned()));
            }
            continue;
        }
        if !in_table || key.is_empty() || key.starts_with('#') {
            continue;
        }
        // `serde.version = "1"` declares `serde`; `x = { package = 'y' }` fetches `y`.
        let key = key.split('.').next().unwrap_or(key).trim_matches(['"', '\'']);
        let renamed = value
            .split_once("package")
            .and_then(|(_, rest)| rest.trim_start().strip_prefix('='))
            .and_then(|rest| rest.split(['"', '\'']).nth(1));
        out.push((i, Ecosystem::Crates, renamed.unwrap_or(key).to_owned()));
    }
    flush(&mut table_crate, &mut out);
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
        // A template that becomes a package.json is read as one; a lock file is not.
        assert_eq!(
            declared_in("templates/package.scripts.json", manifest),
            vec![(2, Ecosystem::Npm, "lodahs".to_owned())]
        );
        assert!(declared_in("package-lock.json", manifest).is_empty());
        assert_eq!(
            declared_in("requirements.txt", "# x\nreqeusts>=2\n-r base.txt\n"),
            vec![(1, Ecosystem::PyPi, "reqeusts".to_owned())]
        );
    }

    #[test]
    fn crates_and_gems_are_read_from_commands_and_manifests() {
        assert_eq!(
            installed_by("cargo", &["add", "serde", "-F", "derive", "tokoi@1", "--rename", "x"]),
            Some((Ecosystem::Crates, vec!["serde".to_owned(), "tokoi".to_owned()]))
        );
        assert_eq!(
            installed_by("gem", &["install", "nokogiri", "-v", "1.16", "rials"]),
            Some((Ecosystem::RubyGems, vec!["nokogiri".to_owned(), "rials".to_owned()]))
        );
        let cargo = "[package]\nname = \"x\"\n\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\nhttp = { package = \"reqwests\", version = \"0.12\" }\n\n[dependencies.tokio]\nversion = \"1\"\n\n[dev-dependencies.fake]\npackage = \"anyhwo\"\n";
        assert_eq!(
            declared_in("Cargo.toml", cargo),
            vec![
                (4, Ecosystem::Crates, "serde".to_owned()),
                (5, Ecosystem::Crates, "reqwests".to_owned()),
                (7, Ecosystem::Crates, "tokio".to_owned()),
                (11, Ecosystem::Crates, "anyhwo".to_owned()),
            ]
        );
        let quoted = "[dependencies]\nhttp = { package = 'reqwets', version = \"0.12\" }\nreqwets.version = \"0.12\"\n";
        let names: Vec<String> = declared_in("Cargo.toml", quoted)
            .into_iter()
            .map(|(_, _, n)| n)
            .collect();
        assert_eq!(names, ["reqwets", "reqwets"]);
        assert_eq!(
            installed_by("cargo", &["add", "-v", "reqwets"]),
            Some((Ecosystem::Crates, vec!["reqwets".to_owned()]))
        );
        let gemfile = "source \"https://rubygems.org\"\ngem 'rails', '~> 7.1'\ngem \"devise\"\n  spec.add_development_dependency \"rspec\"\n";
        let names: Vec<String> = declared_in("Gemfile", gemfile).into_iter().map(|(_, _, n)| n).collect();
        assert_eq!(names, ["rails", "devise", "rspec"]);
        // A Gemfile fragment the skill has the agent append, and a template manifest.
        let names: Vec<String> = declared_in("templates/Gemfile.auth", gemfile)
            .into_iter()
            .map(|(_, _, n)| n)
            .collect();
        assert_eq!(names, ["rails", "devise", "rspec"]);
        assert!(declared_in("Gemfile.lock", gemfile).is_empty());
        let names: Vec<String> = declared_in("templates/Cargo.toml.tmpl", cargo)
            .into_iter()
            .map(|(_, _, n)| n)
            .collect();
        assert!(!names.is_empty());
    }

    #[test]
    fn package_index_lookalikes() {
        for (host, official) in [
            ("registry.npmjs-org.example", "npmjs.org"),
            ("pypi.org.mirror-cdn.example", "pypi.org"),
            ("files-pythonhosted-org.example", "pythonhosted.org"),
            ("pypl.org", "pypi.org"),
            ("rubygerns.org", "rubygems.org"),
        ] {
            assert_eq!(index_lookalike(host, true), Some(official), "{host}");
        }
        // A site one typo from an index is only suspect where it is given as one.
        assert_eq!(index_lookalike("pypl.org", false), None);
        assert_eq!(index_lookalike("setuptools.pypa.io", false), None);
        assert_eq!(index_lookalike("rubygerns.org", false), Some("rubygems.org"));
        for host in [
            "registry.npmjs.org",
            "files.pythonhosted.org",
            "www.npmjs.com",
            "npm.pkg.github.com",
            "artifactory.corp.example",
            "npm-mirror.corp.example",
            "pypi.internal",
            "go-dev.corp.example.com",
            "pip.pypa.io",
            "10.0.0.5",
            "localhost",
        ] {
            assert_eq!(index_lookalike(host, true), None, "{host}");
        }
    }

    #[test]
    fn crate_and_gem_lookalikes_of_names_debian_packages() {
        for (index, ecosystem) in Ecosystem::ALL.iter().enumerate() {
            assert_eq!(
                *ecosystem as usize, index,
                "the tables are indexed by declaration order"
            );
        }
        assert_eq!(lookalike(Ecosystem::Crates, "reqwests"), Some("reqwest"));
        assert_eq!(
            lookalike(Ecosystem::Crates, "serde_json"),
            None,
            "popular itself, `_` folded"
        );
        assert_eq!(lookalike(Ecosystem::Crates, "tokio"), None);
        assert_eq!(lookalike(Ecosystem::RubyGems, "nokogiri"), None);
        assert_eq!(lookalike(Ecosystem::RubyGems, "nokogirl"), Some("nokogiri"));
        assert_eq!(lookalike(Ecosystem::RubyGems, "activesupport"), None);
        // Debian's crates and gems excuse no PyPI or npm lookalike.
        assert_eq!(lookalike(Ecosystem::PyPi, "wisper"), Some("whisper"));
        // A crate that Debian-packaged crates depend on is established, not a lookalike
        // (`dotenvy`, one letter from `dotenv`).
        assert_eq!(lookalike(Ecosystem::Crates, "dotenvy"), None);
        // Go modules, by their root path.
        assert_eq!(
            lookalike(Ecosystem::Go, "github.com/grpc-ecosystern/go-grpc-middleware"),
            Some("github.com/grpc-ecosystem/go-grpc-middleware")
        );
        assert_eq!(
            lookalike(Ecosystem::Go, "github.com/grpc-ecosystem/go-grpc-middleware"),
            None
        );
        assert_eq!(
            lookalike(Ecosystem::Go, "github.com/tidwall/sjson"),
            None,
            "the same owner's module"
        );
        assert_eq!(
            installed_by("go", &["get", "github.com/spf13/cobra/v2/doc@v1.8.0"]),
            Some((Ecosystem::Go, vec!["github.com/spf13/cobra".to_owned()]))
        );
        let gomod = "module example.com/app\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n\nrequire (\n\tgithub.com/grpc-ecosystern/go-grpc-middleware/v2 v2.1.0 // indirect\n\tgolang.org/x/net v0.20.0\n)\n\nreplace github.com/a/b => ../b\n";
        let names: Vec<String> = declared_in("templates/go.mod", gomod)
            .into_iter()
            .map(|(_, _, n)| n)
            .collect();
        assert_eq!(
            names,
            [
                "github.com/spf13/cobra",
                "github.com/grpc-ecosystern/go-grpc-middleware",
                "golang.org/x/net"
            ]
        );
    }
}
