//! A script's own functions, followed with what a call hands them: a helper that takes a
//! secret, a download or a secret's path as a parameter (`def upload(data)`,
//! `function send(blob) { … }`, `sub ship { my ($f) = @_; … }`, `function Push-Data {
//! param($Path) … }`, Ruby's `def post(body) … end`) does with it what its body does, and
//! the call that hands it over is where that is reported.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{Language, MAX_TAINTED, follow_given, literals, mentions, secret_literal};
use crate::Severity;
use crate::commands::flow::{Origin, Taint};
use crate::commands::shell::Machine;

/// Longest function body followed, in bytes and in lines: a helper, not a whole program.
const MAX_BODY: usize = 64 * 1024;
const MAX_BODY_LINES: usize = 2_000;

/// A function of a script: its name, parameters (without sigils) and body.
pub(super) struct Function {
    name: String,
    parameters: Vec<String>,
    body: String,
}

/// The functions a script in `language` defines (none for languages without a reader).
pub(super) fn of(language: Language, text: &str) -> Vec<Function> {
    // Each reader stops after `MAX_TAINTED` functions.
    match language {
        Language::Python => python(text),
        Language::Ruby => ruby(text),
        Language::JavaScript | Language::Perl | Language::PowerShell => braced(language, text),
        Language::Shell | Language::Sql | Language::Other => Vec::new(),
    }
}

/// The top-level and nested `def`s of a Python text, each with the lines indented below it.
fn python(text: &str) -> Vec<Function> {
    static DEF: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(\s*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(([^)]*)\)").expect("valid def pattern")
    });
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(caps) = DEF.captures(line) else {
            continue;
        };
        let body = indented_below(&lines[i + 1..], caps[1].len());
        let cut = body
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let body: Vec<&str> = body.iter().map(|l| l.get(cut..).unwrap_or("")).collect();
        out.push(Function {
            name: caps[2].to_owned(),
            parameters: parameter_list(&caps[3]),
            body: body.join("\n"),
        });
        if out.len() >= MAX_TAINTED {
            break;
        }
    }
    out
}

/// The lines of `after` indented deeper than `indent` (blank ones included), up to the
/// first that is not: a `def`'s body.
fn indented_below<'t>(after: &[&'t str], indent: usize) -> Vec<&'t str> {
    after
        .iter()
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > indent)
        .take(MAX_BODY_LINES)
        .copied()
        .collect()
}

/// Ruby's `def name(a, b)` / `def name a, b` with the lines up to its `end` at the same
/// indentation.
fn ruby(text: &str) -> Vec<Function> {
    static DEF: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(\s*)def\s+(?:self\.)?([A-Za-z_]\w*[?!]?)\s*(?:\(([^)]*)\)|([^\n#;=]*))")
            .expect("valid Ruby def pattern")
    });
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(caps) = DEF.captures(line) else {
            continue;
        };
        // An endless (`def x = …`) or one-line (`def x; …; end`) method has no body below.
        let rest = &line[caps.get(0).map_or(line.len(), |m| m.end())..];
        if rest.trim_start().starts_with('=') || line.contains(';') {
            continue;
        }
        // The body is the lines indented deeper than the `def`, up to its `end`.
        let body = indented_below(&lines[i + 1..], caps[1].len());
        let parameters = caps.get(3).or_else(|| caps.get(4)).map_or("", |p| p.as_str());
        out.push(Function {
            name: caps[2].to_owned(),
            parameters: parameter_list(parameters),
            body: body.join("\n"),
        });
        if out.len() >= MAX_TAINTED {
            break;
        }
    }
    out
}

/// Functions whose body is a `{ … }` block: JavaScript/TypeScript (declarations and
/// functions or arrows assigned to a name), Perl `sub`s, PowerShell `function`s.
fn braced(language: Language, text: &str) -> Vec<Function> {
    static JAVASCRIPT: LazyLock<Regex> = LazyLock::new(|| {
        // A declaration; a function expression or an arrow assigned to a name (an arrow
        // with its parameters in brackets, or one bare parameter).
        Regex::new(
            r"(?m)^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:(?:async[ \t]+)?function[ \t]*\*?[ \t]*([A-Za-z_$][\w$]*)[ \t]*\(([^)]*)\)|(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)(?:[ \t]*:[^=\n]+)?[ \t]*=[ \t]*(?:async[ \t]+)?function[ \t]*\*?[ \t]*[\w$]*[ \t]*\(([^)]*)\)|(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)(?:[ \t]*:[^=\n]+)?[ \t]*=[ \t]*(?:async[ \t]+)?\(([^)]*)\)(?:[ \t]*:[^=\n{]+)?[ \t]*=>|(?:const|let|var)[ \t]+([A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:async[ \t]+)?([A-Za-z_$][\w$]*)[ \t]*=>)",
        )
        .expect("valid JavaScript function pattern")
    });
    static PERL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[ \t]*sub[ \t]+([A-Za-z_]\w*)[ \t]*(?:\(([^)]*)\))?").expect("valid Perl sub pattern")
    });
    static POWERSHELL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?mi)^[ \t]*(?:function|filter)[ \t]+(?:global:|script:)?([A-Za-z_][\w-]*)[ \t]*(?:\(([^)]*)\))?")
            .expect("valid PowerShell function pattern")
    });
    let header = match language {
        Language::JavaScript => &*JAVASCRIPT,
        Language::Perl => &*PERL,
        _ => &*POWERSHELL,
    };
    let mut out = Vec::new();
    // Each header costs a scan of its block (up to `MAX_BODY`): headers whose block never
    // closes count too, so a file of thousands of them is read a bounded number of times.
    for caps in header.captures_iter(text).take(2 * MAX_TAINTED) {
        // The alternatives capture (name, parameters) in groups (1, 2), (3, 4), …
        let Some(first) = (1..caps.len()).step_by(2).find(|&i| caps.get(i).is_some()) else {
            continue;
        };
        let name = caps.get(first).map_or("", |n| n.as_str());
        let written = caps.get(first + 1);
        let after = caps.get(0).map_or(text.len(), |m| m.end());
        let rest = &text[after..];
        // An arrow whose body is one expression (`const send = (b) => fetch(u, {body: b})`).
        let expression_arrow = caps[0].trim_end().ends_with("=>") && !rest.trim_start().starts_with('{');
        let body = if expression_arrow {
            rest.lines().next().unwrap_or("").to_owned()
        } else {
            let Some(body) = block_after(rest, language) else {
                continue;
            };
            body.to_owned()
        };
        let mut parameters = written.map(|p| parameter_list(p.as_str())).unwrap_or_default();
        if parameters.is_empty() {
            parameters = match language {
                Language::Perl => perl_parameters(&body),
                Language::PowerShell => powershell_parameters(&body),
                _ => Vec::new(),
            };
        }
        out.push(Function {
            name: name.to_owned(),
            parameters,
            body,
        });
        if out.len() >= MAX_TAINTED {
            break;
        }
    }
    out
}

/// The text inside the first `{ … }` block of `rest` (which must open before any other
/// statement starts), braces inside quotes not counted.
fn block_after(rest: &str, language: Language) -> Option<&str> {
    let open = rest.find('{')?;
    if rest[..open].contains(';') || rest[..open].lines().count() > 3 {
        return None;
    }
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    // A comment's apostrophe (`// it's fine`, `# don't`) opens no quote.
    let mut comment = false;
    let hash_comments = matches!(language, Language::Perl | Language::PowerShell);
    let mut previous = '\0';
    for (i, c) in rest[open..].char_indices() {
        if i > MAX_BODY {
            return None;
        }
        if comment {
            comment = c != '\n';
            previous = c;
            continue;
        }
        if quote.is_none()
            && (hash_comments && c == '#' && previous != '$' || !hash_comments && c == '/' && previous == '/')
        {
            comment = true;
            previous = c;
            continue;
        }
        previous = c;
        match (quote, c) {
            (Some(_), _) if escaped => escaped = false,
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(&rest[open + 1..open + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names of a written parameter list (`a, b=1, *rest, opts: dict`, `$Path, [int]$n`,
/// `{ a, b }` destructuring left out): sigils, types and defaults dropped.
fn parameter_list(list: &str) -> Vec<String> {
    list.split(',')
        .map(|p| {
            let p = p.trim();
            let p = p.rsplit(']').next().unwrap_or(p);
            p.split(['=', ':'])
                .next()
                .unwrap_or("")
                .trim()
                .trim_start_matches(['*', '&', '$', '@', '%'])
                .trim_start_matches("...")
                .trim_end_matches('?')
                .to_owned()
        })
        .filter(|p| p.chars().all(|c| c.is_alphanumeric() || c == '_') && !p.is_empty() && p != "self")
        .collect()
}

/// A Perl sub's parameters: `my ($a, $b) = @_;` or `my $a = shift;` lines.
fn perl_parameters(body: &str) -> Vec<String> {
    static UNPACK: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"my\s*\(([^)]*)\)\s*=\s*@_").expect("valid Perl unpack pattern"));
    static SHIFT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"my\s+\$(\w+)\s*=\s*shift(?:\s*\(\s*@_\s*\))?\s*;").expect("valid shift pattern"));
    if let Some(caps) = UNPACK.captures(body) {
        return parameter_list(&caps[1]);
    }
    SHIFT.captures_iter(body).map(|c| c[1].to_owned()).collect()
}

/// A PowerShell function's `param( … )` block, with its attributes (`[Parameter(Mandatory =
/// $true)]`) read past.
fn powershell_parameters(body: &str) -> Vec<String> {
    static VARIABLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\$([A-Za-z_]\w*)").expect("valid variable pattern"));
    let lower = body.to_ascii_lowercase();
    let Some(at) = lower.find("param") else {
        return Vec::new();
    };
    let Some(open) = body[at..].find('(').map(|o| at + o) else {
        return Vec::new();
    };
    if !body[at + "param".len()..open].trim().is_empty() {
        return Vec::new();
    }
    let mut depth = 0usize;
    let mut end = body.len();
    for (i, c) in body[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    // Attribute arguments are inside square brackets; the names outside them are the
    // parameters.
    let mut outside = String::new();
    let mut square = 0usize;
    for c in body[open + 1..end].chars() {
        match c {
            '[' => square += 1,
            ']' => square = square.saturating_sub(1),
            c if square == 0 => outside.push(c),
            _ => {}
        }
    }
    VARIABLE
        .captures_iter(&outside)
        .map(|c| c[1].to_owned())
        .filter(|n| !matches!(n.to_ascii_lowercase().as_str(), "true" | "false" | "null"))
        .collect()
}

/// One call of a function: which parameter gets which argument text.
struct Call<'a> {
    function: &'a Function,
    /// The arguments as written (for telling calls apart).
    written: String,
    /// Parameter name → argument text.
    arguments: Vec<(&'a str, &'a str)>,
}

/// The calls of `functions` in `statement`: `name(a, b)` in every language, `name a, b`
/// in Ruby and Perl, `Name -Path $p $q` in PowerShell.
fn calls<'a>(language: Language, functions: &'a [Function], statement: &'a str) -> Vec<Call<'a>> {
    static BARE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)(?:^|[=;|(]|(?-u:\b)(?:then|do|and|or|unless|if)(?-u:\b))[ \t]*&?([A-Za-z_][\w-]*)[ \t]+([^\n;|)}#]+)")
            .expect("valid bare call pattern")
    });
    let find = |name: &str| {
        functions.iter().find(|f| {
            if language == Language::PowerShell {
                f.name.eq_ignore_ascii_case(name)
            } else {
                f.name == name
            }
        })
    };
    let mut out = Vec::new();
    // PowerShell's names are matched in any case: the statement is lowered once.
    let ignore_case = language == Language::PowerShell;
    let lowered;
    let haystack = if ignore_case {
        lowered = statement.to_ascii_lowercase();
        lowered.as_str()
    } else {
        statement
    };
    for function in functions {
        for list in parenthesised_calls(statement, haystack, &function.name, ignore_case) {
            out.push(Call {
                function,
                written: list.to_owned(),
                arguments: function
                    .parameters
                    .iter()
                    .map(String::as_str)
                    .zip(split_arguments(list))
                    .collect(),
            });
        }
    }
    if matches!(language, Language::Ruby | Language::Perl | Language::PowerShell) {
        for caps in BARE.captures_iter(statement) {
            let (Some(name), Some(list)) = (caps.get(1), caps.get(2)) else {
                continue;
            };
            let Some(function) = find(name.as_str()) else {
                continue;
            };
            let arguments = if language == Language::PowerShell {
                powershell_arguments(function, list.as_str())
            } else {
                function
                    .parameters
                    .iter()
                    .map(String::as_str)
                    .zip(split_arguments(list.as_str()))
                    .collect()
            };
            out.push(Call {
                function,
                written: list.as_str().to_owned(),
                arguments,
            });
        }
    }
    out
}

/// The argument lists of `name( … )` calls in `statement` (not a method of another
/// object: `x.name(`), brackets inside them balanced and quotes respected. `haystack` is
/// `statement`, ASCII-lowered when names are matched in any case.
fn parenthesised_calls<'a>(statement: &'a str, haystack: &str, name: &str, ignore_case: bool) -> Vec<&'a str> {
    let mut out = Vec::new();
    let needle = if ignore_case {
        std::borrow::Cow::Owned(name.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    };
    for (at, _) in haystack.match_indices(needle.as_ref()) {
        let before = statement[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$' | '>' | ':' | '-')) {
            continue;
        }
        let rest = &statement[at + name.len()..];
        let open = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        if !rest[open..].starts_with('(') {
            continue;
        }
        let inside = &rest[open + 1..];
        let (mut depth, mut quote) = (0usize, None);
        for (i, c) in inside.char_indices() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'' | '`') => quote = Some(c),
                (None, '(' | '[' | '{') => depth += 1,
                (None, ')') if depth == 0 => {
                    out.push(&inside[..i]);
                    break;
                }
                (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    out
}

/// PowerShell's call arguments: `-Name value` pairs by (a prefix of) the parameter's
/// name, the other words by position.
fn powershell_arguments<'a>(function: &'a Function, list: &'a str) -> Vec<(&'a str, &'a str)> {
    let words: Vec<&str> = list.split_whitespace().collect();
    let mut named = Vec::new();
    let mut positional = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if let Some(flag) = word
            .strip_prefix('-')
            .filter(|f| f.starts_with(|c: char| c.is_alphabetic()))
        {
            let flag = flag.trim_end_matches(':').to_ascii_lowercase();
            if let Some(parameter) = function
                .parameters
                .iter()
                .find(|p| p.to_ascii_lowercase().starts_with(&flag))
                && let Some(value) = words.get(i + 1)
            {
                named.push((parameter.as_str(), *value));
                i += 2;
                continue;
            }
        } else {
            positional.push(word);
        }
        i += 1;
    }
    let free: Vec<&str> = function
        .parameters
        .iter()
        .map(String::as_str)
        .filter(|p| !named.iter().any(|(n, _)| n == p))
        .collect();
    named.extend(free.into_iter().zip(positional));
    named
}

/// Calls in `statement` of the script's own functions that hand them a secret, a download
/// or a secret's path (`attach(os.path.expanduser("~/.pypirc"))`, `upload(token)`): the
/// function's body is followed with its parameters holding what the call gave them, and
/// what it does is reported at the call (each call once).
pub(super) fn call(
    m: &mut Machine,
    language: Language,
    functions: &[Function],
    statement: &str,
    tainted: &BTreeMap<String, Taint>,
    line: usize,
) {
    static DEFINITION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:def|function|sub|filter)\s")
            .expect("valid definition pattern")
    });
    // A definition's own header is no call of it; its body (joined into the statement
    // while its braces are open) may hold calls.
    let statement = if DEFINITION.is_match(statement) {
        statement.split_once('\n').map_or("", |(_, body)| body)
    } else {
        statement
    };
    for call in calls(language, functions, statement) {
        let mut given = BTreeMap::new();
        for (parameter, argument) in &call.arguments {
            let mut taint = Taint::default();
            for (name, t) in tainted {
                if mentions(argument, name) {
                    taint.join(t);
                }
            }
            if let Some(path) = secret_literal(argument, &literals(argument)) {
                taint.secret.get_or_insert(Origin { line, what: path });
            }
            if !taint.is_clean() {
                given.insert((*parameter).to_owned(), taint);
            }
        }
        let function = call.function;
        // Each distinct call once; a long argument list is told apart by its hash.
        let key = format!("{language:?} call {}({:016x})", function.name, hash_of(&call.written));
        if given.is_empty() || !m.may_probe() || !m.first_call(&key) {
            continue;
        }
        let mut probe = m.probe();
        follow_given(&mut probe, language, &function.body, &[line], true, given);
        m.absorb(&probe);
        for mut judgment in probe.judgments.into_iter().filter(|j| j.severity >= Severity::Medium) {
            judgment.message = format!(
                "in {}(), given what this call hands it: {}",
                function.name, judgment.message
            );
            m.judge(judgment);
        }
    }
}

fn hash_of(text: &str) -> u64 {
    use std::hash::{Hash as _, Hasher as _};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// A call's arguments, split at the commas outside brackets and quotes (keyword arguments
/// left out: they are not matched by position).
fn split_arguments(arguments: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    for (i, c) in arguments.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            (None, ',') if depth == 0 => {
                out.push(arguments[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(arguments[start..].trim());
    out.retain(|a| !a.is_empty() && !keyword_argument(a));
    out
}

/// Whether a call's argument is passed by name (`data=buf`, `timeout = 3`), not by
/// position; `a == b` and Ruby's `key => value` are positional.
fn keyword_argument(argument: &str) -> bool {
    argument.split_once('=').is_some_and(|(name, value)| {
        let name = name.trim();
        !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') && !value.starts_with(['=', '>'])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(functions: &[Function]) -> Vec<(String, Vec<String>)> {
        functions
            .iter()
            .map(|f| (f.name.clone(), f.parameters.clone()))
            .collect()
    }

    #[test]
    fn functions_are_read_in_each_language() {
        let plain = "const url = base;\nconst run = compile(await load(u));\nlet n = 3;\n";
        assert!(of(Language::JavaScript, plain).is_empty());
        let js = "import fs from 'fs';\nasync function ship(data, { retries } = {}) {\n  await fetch(u, { body: data });\n}\nconst post = async (body: string): Promise<void> => {\n  x(body);\n};\nconst one = b => send(b)\n";
        assert_eq!(
            names(&of(Language::JavaScript, js)),
            vec![
                ("ship".to_owned(), vec!["data".to_owned()]),
                ("post".to_owned(), vec!["body".to_owned()]),
                ("one".to_owned(), vec!["b".to_owned()]),
            ]
        );
        let perl = "sub ship {\n    my ($file, $to) = @_;\n    system(\"curl -T $file $to\");\n}\nsub one { my $x = shift; print $x; }\n";
        assert_eq!(
            names(&of(Language::Perl, perl)),
            vec![
                ("ship".to_owned(), vec!["file".to_owned(), "to".to_owned()]),
                ("one".to_owned(), vec!["x".to_owned()]),
            ]
        );
        let ps = "function Send-Blob {\n  param(\n    [Parameter(Mandatory = $true)][string]$Path,\n    [int]$Retries = 3\n  )\n  Invoke-RestMethod -Uri $u -InFile $Path\n}\n";
        assert_eq!(
            names(&of(Language::PowerShell, ps)),
            vec![("Send-Blob".to_owned(), vec!["Path".to_owned(), "Retries".to_owned()])]
        );
        let ruby = "def post(body, to:)\n  Net::HTTP.post(URI(to), body)\nend\n\ndef self.shout msg\n  puts msg\nend\n";
        let ruby = of(Language::Ruby, ruby);
        assert_eq!(
            names(&ruby),
            vec![
                ("post".to_owned(), vec!["body".to_owned(), "to".to_owned()]),
                ("shout".to_owned(), vec!["msg".to_owned()]),
            ]
        );
        assert_eq!(ruby[0].body.trim(), "Net::HTTP.post(URI(to), body)");
    }

    #[test]
    fn powershell_calls_match_named_and_positional_arguments() {
        let f = Function {
            name: "Send-Blob".into(),
            parameters: vec!["Path".into(), "Uri".into()],
            body: String::new(),
        };
        assert_eq!(
            powershell_arguments(&f, "-Uri $u $key"),
            vec![("Uri", "$u"), ("Path", "$key")]
        );
        assert_eq!(powershell_arguments(&f, "-pa $key"), vec![("Path", "$key")]);
        let functions = [f];
        let found = calls(Language::PowerShell, &functions, "$r = send-blob -Path $k | Out-Null");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].arguments, vec![("Path", "$k")]);
    }
}
