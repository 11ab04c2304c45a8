//! Scripts in languages other than shell (Python, JavaScript, Ruby, Perl, PowerShell),
//! followed statement by statement: which names hold a download or a secret, whether one
//! reaches code execution or a network send, which files they write, and the shell
//! commands they hand to `system`/`subprocess`/`exec` (followed by the shell model).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::Listed;
use super::flow::{Judgment, Origin, Taint, Value, human};
use super::programs;
use super::shell::Machine;
use super::targets;
use crate::Severity;

mod functions;

/// The language a text is followed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// POSIX shell, bash, zsh.
    Shell,
    /// Python.
    Python,
    /// JavaScript and TypeScript.
    JavaScript,
    /// Ruby.
    Ruby,
    /// Perl.
    Perl,
    /// PowerShell.
    PowerShell,
    /// SQL (judged for statements that destroy data).
    Sql,
    /// Another language, read statement by statement for downloads, execution and sends.
    Other,
}

impl Language {
    /// The language an interpreter runs.
    pub fn of_interpreter(name: &str) -> Language {
        match name {
            n if n.starts_with("python") || n.starts_with("pypy") => Language::Python,
            "node" | "nodejs" | "deno" | "bun" => Language::JavaScript,
            "ruby" | "irb" => Language::Ruby,
            "perl" => Language::Perl,
            "pwsh" | "powershell" | "powershell.exe" | "pwsh.exe" => Language::PowerShell,
            // PHP, Lua, AppleScript, Tcl, R: read statement by statement like the others.
            "php" | "lua" | "luajit" | "osascript" | "tclsh" | "wish" | "rscript" => Language::Other,
            _ => Language::Shell,
        }
    }

    /// The language of a file, by its name (and first line, for extension-less scripts).
    pub fn of_path(path: &str, first_line: &str) -> Option<Language> {
        let lower = path.to_ascii_lowercase();
        let file = lower.rsplit('/').next().unwrap_or(&lower);
        let ext = file.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        Some(match ext {
            "sh" | "bash" | "zsh" | "ksh" | "command" => Language::Shell,
            "py" | "pyw" => Language::Python,
            "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" => Language::JavaScript,
            "rb" => Language::Ruby,
            "pl" | "pm" => Language::Perl,
            "ps1" | "psm1" => Language::PowerShell,
            "lua" | "php" | "gradle" | "groovy" | "kts" => Language::Other,
            "" => match first_line.strip_prefix("#!") {
                Some(shebang) => {
                    let interpreter = shebang.split_whitespace().last().unwrap_or("");
                    Language::of_interpreter(&programs::program_name(interpreter))
                }
                None if lower.starts_with("scripts/") || lower.contains("/scripts/") => Language::Shell,
                None => return None,
            },
            _ => return None,
        })
    }

    /// The language of a fenced code block, by its info string (unlabelled blocks are read
    /// as shell: that is what agents paste into a terminal).
    pub fn of_fence(info: &str) -> Option<Language> {
        let tag = info
            .trim()
            .trim_start_matches('{')
            .split([' ', ',', '}'])
            .next()
            .unwrap_or("")
            .trim_start_matches('.')
            .to_ascii_lowercase();
        Some(match tag.as_str() {
            "python" | "py" | "python3" | "ipython" | "pycon" => Language::Python,
            "js" | "javascript" | "node" | "ts" | "typescript" | "mjs" | "jsx" | "tsx" => Language::JavaScript,
            "ruby" | "rb" => Language::Ruby,
            "perl" | "pl" => Language::Perl,
            "powershell" | "pwsh" | "ps1" | "ps" | "posh" => Language::PowerShell,
            "sql" | "postgres" | "postgresql" | "psql" | "mysql" | "plpgsql" => Language::Sql,
            "json" | "yaml" | "yml" | "toml" | "xml" | "html" | "css" | "csv" | "mermaid" | "diff" | "go" | "rust"
            | "rs" | "java" | "c" | "cpp" | "c++" | "csharp" | "cs" | "kotlin" | "swift" | "markdown" | "md"
            | "graphql" | "proto" | "latex" | "tex" | "r" | "scala" | "haskell" | "php" | "lua" | "dart" | "elixir"
            | "hcl" | "terraform" | "ini" | "dockerfile" | "nginx" | "jinja" | "svg" | "math" => {
                return None;
            }
            _ => Language::Shell,
        })
    }
}

/// The most names a script's reading keeps track of (each is searched for in every later
/// statement).
const MAX_TAINTED: usize = 256;

/// Calls that download.
static FETCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)urlopen\s*\(|urllib\.request|urllib2|requests\.(?:get|request)\s*\(|httpx\.(?:get|stream)|aiohttp|(?-u:\b)fetch\s*\(|axios(?:\.get)?\s*\(|(?-u:\b)https?\.get\s*\(|(?-u:\b)got\s*\(|Net::HTTP|open-uri|URI\.open|LWP::Simple|LWP::UserAgent|HTTP::Tiny|(?-u:\b)get(?:store)?\s*\(\s*['"]https?://|Invoke-WebRequest|Invoke-RestMethod|(?-u:\b)iwr(?-u:\b)|(?-u:\b)irm(?-u:\b)|DownloadString|DownloadData|DownloadFile|Net\.WebClient|curl_exec|file_get_contents\s*\(\s*['"]https?:|http\.client|HTTPSConnection|wget\.download|new\s+URL\s*\([^)]*\)\s*\.(?:text|getText|openStream)|\.toURL\s*\(\s*\)\s*\.(?:text|getText)"#,
    )
    .expect("valid fetch pattern")
});

/// Calls that run program text, and loaders that run code hidden in the data they read
/// (Python's pickle and the libraries built on it, Ruby's Marshal, unsafe YAML, an ERB
/// template rendered with the caller's binding).
static EXEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:^|[^\w.])(?:exec|eval|execfile)\s*\(|new\s+Function\s*\(|vm\.run|runInThisContext|runInNewContext|instance_eval|class_eval|(?-u:\b)eval\s+[$\w]|Invoke-Expression|(?-u:\b)iex(?-u:\b)|\.InvokeScript|\[ScriptBlock\]::Create|__import__\s*\(|pickle\.loads|marshal\.loads|runpy\.|exec\s+compile|GroovyShell\s*\([^)]*\)\s*\.evaluate|(?-u:\b)Eval\.me\s*\(|(?-u:\b)(?:c?pickle|_pickle|dill|cloudpickle|joblib)\.load\s*\(|(?-u:\b)Marshal\.load|(?-u:\b)(?:yaml|YAML|Psych)\.unsafe_load|(?-u:\b)yaml\.load\s*\([^)]*(?-i:Loader\s*=\s*yaml\.(?:Unsafe)?Loader)(?-u:\b)|(?-u:\b)ERB\.new\s*\(.*\)\s*\.result|\.result\s*\(\s*binding"#,
    )
    .expect("valid exec pattern")
});

/// Lua's ways of running text as code (`load(out)`, `loadstring(s)`, `dofile(p)`), and
/// Groovy's (`evaluate(text)` in a Gradle script); read only in languages without a reader
/// of their own, where a method named `load` is none.
static LOADER_EXEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^\w.:>])(?:loadstring|load|dofile|evaluate)\s*\(").expect("valid loader pattern")
});

/// A script's own function named like Lua's loaders (`local function load(text)`): its
/// calls are the script's, not Lua's.
static LOADER_DEFINED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*(?:local\s+)?function\s+(?:loadstring|load|dofile)\s*\(|(?:local\s+)?(?:loadstring|load|dofile)\s*=\s*function")
        .expect("valid loader definition pattern")
});

/// An assignment of the Function constructor (or a sibling's: async, generator) to a name.
static CODE_MAKER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"=\s*(?:[\w.]*\(\s*(?:async\s+)?function\s*\*?\s*\(\s*\)\s*\{\s*\}\s*\)\s*\.constructor|(?:globalThis\.|window\.)?Function)\s*;?\s*$")
        .expect("valid Function constructor pattern")
});

/// PowerShell's installer idiom: a download piped into `iex`.
static PIPE_TO_IEX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:irm|iwr|invoke-restmethod|invoke-webrequest)\s+\S+\s*\|\s*(?:iex|invoke-expression)")
        .expect("valid pipe-to-iex pattern")
});

/// Calls that send data to another machine (a DNS lookup sends the name it resolves).
static SEND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)requests\.(?:post|put|patch)\s*\(|httpx\.(?:post|put)|session\.(?:post|put)\s*\(|urlopen\s*\([^)]*data\s*=|Request\s*\([^)]*data\s*=|method\s*[:=]\s*['"](?:POST|PUT)|axios\.(?:post|put)|\.sendall\s*\(|sendto\s*\(|smtplib|ftplib|storbinary|upload_file|put_object|upload_blob|-Method\s+['"]?(?:Post|Put)|-Body(?-u:\b)|UploadFile|UploadString|UploadData|Net::HTTP::Post|Net::HTTP\.post|->post\s*\(|gethostbyname(?:_ex)?\s*\(|getaddrinfo\s*\(|dns\.resolver|(?-u:\b)dns\.(?:lookup|resolve\w*)\s*\(|Resolve-DnsName\s+[-$'"\w]|Resolv\.getaddress\s*\(|socket\.connect|\.connect\s*\(\s*\("#,
    )
    .expect("valid send pattern")
});

/// A script that sends mail.
static MAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)smtplib\.SMTP|(?-u:\b)sendmail\s*\(|Net::SMTP|nodemailer|Send-MailMessage")
        .expect("valid mail pattern")
});

/// Expressions that read every secret at once or a credential store.
static SECRET_EXPR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)os\.environ(?:\.copy\s*\(\)|\.items\s*\(\)|\s*\)|\s*$|\s*,)|dict\s*\(\s*os\.environ|process\.env\s*(?:\)|,|;|\}|$)|\.\.\.process\.env|(?-i:ENV)\.(?:to_h|to_a|each|sort|map|select|filter|inspect|values)|%ENV|Get-ChildItem\s+env:|GetEnvironmentVariables|browser_cookie3|CryptUnprotectData|keyring\.get_password|win32crypt"#,
    )
    .expect("valid secret expression pattern")
});

/// A single environment variable read by name.
static ENV_READ: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?:os\.environ\s*\[\s*['"]|os\.(?:environ\.get|getenv)\s*\(\s*['"]|process\.env\.|process\.env\s*\[\s*['"]|ENV\s*\[\s*['"]|\$env:|\$ENV\{)(\w+)"#,
    )
    .expect("valid environment read pattern")
});

/// Calls that open a connection or a request whose handle later carries the data
/// (`const req = https.request(…); req.write(body)`, `s = socket.create_connection(…)`).
static CONNECTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?-u:\b)https?\.request\s*\(|(?-u:\b)net\.(?:connect|createConnection)\s*\(|(?-u:\b)tls\.connect\s*\(|new\s+WebSocket\s*\(|(?-u:\b)dgram\.createSocket|socket\.(?:socket|create_connection)\s*\(|HTTPS?Connection\s*\(|TCPSocket\.(?:new|open)|Net::HTTP\.start|System\.Net\.Sockets|smtplib\.SMTP(?:_SSL)?\s*\("#,
    )
    .expect("valid connection pattern")
});

/// A handle's call that sends what it is given (`req.write(body)`, `ws.send(x)`).
static HANDLE_SEND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"([A-Za-z_]\w*)\s*\.\s*(?:write|end|send|sendall|sendto|request|puts|print|send_message|sendmail)\s*\("#,
    )
    .expect("valid handle send pattern")
});

/// Calls that hand a string to a shell.
static SHELL_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)os\.system|os\.popen|subprocess\.|commands\.getoutput|child_process|execSync|execa|(?-u:\b)exec\s*\(|(?-u:\b)spawn(?:Sync)?\s*\(|(?-u:\b)system\s*\(|%x[\(\{\[]|IO\.popen|Open3\.|shell_exec|passthru|proc_open|Start-Process|Deno\.Command|Bun\.spawn|\$\s*`|os\.execute|io\.popen"#,
    )
    .expect("valid shell call pattern")
});

/// Calls that write files.
static WRITE_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)open\s*\([^)]*['"][wa]\+?b?['"]|\.write_text\s*\(|\.write\s*\(|appendFile|writeFile|createWriteStream|File\.(?:write|open|append)|Add-Content|Set-Content|Out-File|copyfile|shutil\.copy|>>"#,
    )
    .expect("valid write pattern")
});

/// Whether a script could hold any flow the statement reader looks for.
static RELEVANT: LazyLock<regex::RegexSet> = LazyLock::new(|| {
    regex::RegexSet::new([
        FETCH.as_str(),
        SEND.as_str(),
        CONNECTION.as_str(),
        SHELL_CALL.as_str(),
        WRITE_CALL.as_str(),
        EXEC.as_str(),
        REMOVE_TREE.as_str(),
        // PowerShell's call operator on a name (see `CALL_BY_NAME`).
        r"(?m)^\s*&\s*\$[A-Za-z_]",
        // The Function constructor taken from a function (see `CODE_MAKER`).
        r"\)\s*\.constructor(?-u:\b)",
    ])
    .expect("valid relevance patterns")
});

/// String literals.
static STRING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`"#).expect("valid string pattern")
});

/// An assignment's target (`x = …`, `const x = …`, `$x = …`, `with … as x:`, a loop's
/// variable: `for p in …:`, `for (const p of …)`). A call's keyword argument is none:
/// `return requests.get(url, timeout=5)` assigns nothing (it made the word `return` a
/// download, and every later `return` ran it); an index may hold a call
/// (`found[str(p)] = …`).
static ASSIGN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*(?:const|let|var|my|local|our)?\s*[\[{(]?\s*[$@%]?([A-Za-z_]\w*)(?:\[[^\]\n]{0,40}|[^=(\[\n]){0,40}?[^=!<>+\-*/%(]=[^=]|(?-u:\b)as\s+([A-Za-z_]\w*)\s*:|^\s*for(?:each)?\s*\(?\s*(?:const|let|var|my)?\s*\$?([A-Za-z_]\w*)\s+(?:in|of)\s"#)
        .expect("valid assignment pattern")
});

/// An address defanged so that nothing can fetch it (`hxxp://`, `example[.]com`).
static DEFANGED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?-u:\b)hxxps?(?:://|\[://\])|\w\[\.\]\w|\w\(\.\)\w|\[:\]//").expect("valid defanged pattern")
});

/// Whether `address` is defanged where it matters — its scheme (`hxxps://…`) or its host
/// (`cdn[.]bad.example`, `https://cdn(.)bad.example/x`): no client can fetch it. A
/// defanged text in its path or query (`https://evil.example/i.sh?ref=hxxp://docs`) leaves
/// it live.
pub(crate) fn defanged(address: &str) -> bool {
    let a = address.trim_matches(|c| matches!(c, '"' | '\'' | '`' | '(' | ')' | '<' | '>'));
    let lower = a.to_ascii_lowercase();
    if lower.starts_with("hxxp") {
        return true;
    }
    let rest = ["://", "[://]"]
        .iter()
        .find_map(|sep| lower.split_once(sep).map(|(_, r)| r))
        .unwrap_or(&lower);
    // The host ends at the first `/`, `?` or `#` (a `[.]` holds no slash).
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    ["[.]", "(.)", "[:]", "[dot]"].iter().any(|d| host.contains(d))
}

/// Whether a statement's only addresses are defanged indicators (`hxxp://…`, `…[.]…`):
/// one real address beside them is still fetched.
fn only_defanged(statement: &str) -> bool {
    DEFANGED.is_match(statement) && BARE_URL.find_iter(statement).all(|u| defanged(u.as_str()))
}

/// Every address of a text, for [`defanged_only`]: with a scheme (live or defanged), or a
/// bare host with a path (`evil.example/i.sh`, `cdn[.]bad.example/x`).
static ANY_ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?-u:\b)(?:h(?:tt|xx)ps?(?:://|\[://\]))[^\s'"`)>|]+|(?-u:\b)[a-z0-9-]+(?:(?:\.|\[\.\]|\(\.\))[a-z0-9-]+)+/[^\s'"`)>|]*"#,
    )
    .expect("valid address pattern")
});

/// Whether `text` names its addresses only defanged (`hxxps://…`, `cdn[.]bad.example`,
/// `https://cdn[.]bad.example`): a command written so is an indicator quoted as evidence,
/// since no client can fetch from it. Unlike [`only_defanged`] (a script's statement,
/// whose live addresses are the URLs it fetches), a bare host with a path counts as live.
pub(crate) fn defanged_only(text: &str) -> bool {
    let mut addresses = ANY_ADDRESS.find_iter(text).peekable();
    addresses.peek().is_some() && addresses.all(|a| defanged(a.as_str()))
}

/// An address written without quotes.
static BARE_URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"https?://[^\s'"`)|;]+"#).expect("valid bare address pattern"));

/// A Python `with … as NAME:` statement.
static WITH_AS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:async\s+)?with\s.*(?-u:\b)as\s+([A-Za-z_]\w*)\s*:\s*$").expect("valid with-as pattern")
});

/// A statement that adds to a collection or message rather than replacing it (`parts <<
/// x`, `lines.append(x)`, `msg.add_attachment(x)`, `zf.write(path)`, `tar.add(path)`), or
/// fills it from a file (`parser.read(path)`): what it adds flows into the name.
static APPEND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"^\s*\$?([A-Za-z_]\w*)\s*(?:<<|\+=|\.\s*(?:append|push|extend|add_attachment|attach|writestr|write|add|update|concat|read|read_file|read_string|readfp)\s*\()"#)
        .expect("valid append pattern")
});

/// A writer opened around another name: `fileobj=buf`, `zipfile.ZipFile(buf, "w")`.
static WRAPPED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u:\b)(?:fileobj|fp|stream)\s*=\s*([A-Za-z_]\w*)|(?:ZipFile|TarFile|GzipFile|TextIOWrapper|BufferedWriter)\s*\(\s*([A-Za-z_]\w*)\s*[,)]")
        .expect("valid wrapped-writer pattern")
});

/// Calls that open a file or an archive for the name they are assigned to.
static OPENS_FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?:^|[^\w.])open\s*\(|ZipFile\s*\(|TarFile|tarfile\.open|gzip\.open|createWriteStream|File\.(?:open|new)\s*\(|Archive::(?:Tar|Zip)|StreamWriter"#)
        .expect("valid file-opening pattern")
});

/// PowerShell's call operator on a name: `& $s -Flag value` (group 1: the name, group 2:
/// the arguments).
static CALL_BY_NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*[&.]\s*\$([A-Za-z_]\w*)((?:\s[^\n]*)?)$").expect("valid call-by-name pattern"));

/// The longest text joined from pieces that is followed as a command.
const MAX_JOINED: usize = 4096;

/// An assignment's value made only of string pieces joined with `+` (`'Set-Mp' +
/// 'Preference'`, `"a" + 'b'`): the text they make.
fn joined_pieces(statement: &str) -> Option<String> {
    static PIECES: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^[^=]*=\s*((?:"[^"\n]*"|'[^'\n]*')(?:\s*\+\s*(?:"[^"\n]*"|'[^'\n]*'))+)\s*;?\s*$"#)
            .expect("valid joined-pieces pattern")
    });
    let value = PIECES.captures(statement.trim_end())?.get(1)?.as_str();
    // A command name and its words, not a payload.
    Some(literals(value).concat()).filter(|text| text.len() <= MAX_JOINED)
}

/// Calls that delete a directory and everything in it.
static REMOVE_TREE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)shutil\.rmtree\s*\(|(?-u:\b)(?:remove_tree|rmtree)\s*[\(@$]|FileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry(?:_secure)?)|(?-u:\b)fs(?:\.promises)?\.(?:rmSync|rm|rmdirSync|rmdir)\s*\(|(?-u:\b)rimraf|Remove-Item(?-u:\b)"#)
        .expect("valid tree-removal pattern")
});

/// PowerShell's `-Recurse` switch, or any prefix of it down to `-r`.
static RECURSE_SWITCH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\s-r(?:e(?:c(?:u(?:r(?:se?)?)?)?)?)?(?:\s|$|:)").expect("valid recurse switch pattern")
});

/// Calls that list a directory's entries.
static LISTS_DIRECTORY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)(?-u:\b)(?:glob|iglob|listdir|scandir|iterdir|readdir|readdirSync|children|entries|Get-ChildItem|gci)(?-u:\b)|[/\\]\*"#)
        .expect("valid directory-listing pattern")
});

/// The system or home directory a statement names (a glob of its entries, `/*`, counts
/// as the directory): as a string, as a path built from pieces, or as the home directory
/// itself (`os.listdir(Path.home())`).
fn sweeping_path_in(statement: &str, strings: &[String]) -> Option<String> {
    let sweeping = |p: &str| targets::sweeping_path(&targets::resolve_dots(p.trim_end_matches('*')));
    // A path joined from pieces is judged whole (`os.path.join(expanduser("~"), ".cache",
    // "pip")` is no home directory), and a piece held in a name makes it unknown.
    if JOINS_PATH.is_match(statement) {
        return built_path(statement, strings).filter(|p| sweeping(p));
    }
    strings.iter().find(|s| sweeping(s)).cloned().or_else(|| {
        (HOME_CALL.is_match(statement)
            && strings
                .iter()
                .all(|s| matches!(s.as_str(), "" | "~" | "/" | "~/" | "*" | "/*" | "HOME")))
        .then(|| "~".to_owned())
    })
}

/// Ways of joining a path from pieces.
static JOINS_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)join\s*\(|Join-Path|\)\s*/|\s/\s|\+|\.joinpath|\.resolve\s*\(|File\.expand_path|\{[^}]*\}[/\\]|["'][^"']*\$\{?\w"#)
        .expect("valid path-joining pattern")
});

/// Judges a statement that deletes a directory tree by what it is aimed at: a system or
/// home directory written in it, a secret's files (named there or by a list the skill
/// ships), or every entry of the home directory.
fn removes_tree(m: &mut Machine, statement: &str, strings: &[String], taint: &Taint, line: usize) {
    let what = match (sweeping_path_in(statement, strings), &taint.every, &taint.secret) {
        (Some(path), _, _) => format!("`{path}`"),
        (None, Some(every), _) => format!("{} (line {})", every.what, human(every.line)),
        (None, None, Some(secret)) if !taint.weak_secret => format!("{} (line {})", secret.what, human(secret.line)),
        _ => return,
    };
    programs::report_destructive(
        m,
        Some((Severity::High, format!("deletes {what} and everything in it"))),
        statement.trim(),
        line,
    );
}

/// Whether a string literal names a file a script could read back (`bundle.zip`,
/// `out/report.json`): no spaces, no address, a dot or a slash in it.
fn file_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && !s.contains("://")
        && !s.contains(char::is_whitespace)
        && (s.contains('.') || s.contains('/'))
        && s.chars().any(char::is_alphanumeric)
}

/// A function definition's first line: its indentation and name.
static FUNCTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*)(?:export\s+)?(?:async\s+)?(?:def|function|sub)\s+([A-Za-z_]\w*)")
        .expect("valid function pattern")
});

/// Statements of a script: lines joined while brackets stay open (at most 30 lines).
fn statements(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut depth: i32 = 0;
    let mut joined = 0;
    for (index, line) in text.lines().enumerate() {
        if current.is_empty() {
            start = index;
        }
        current.push_str(line);
        current.push('\n');
        joined += 1;
        for c in line.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                _ => {}
            }
        }
        if depth <= 0 || joined >= 30 {
            out.push((start, std::mem::take(&mut current)));
            depth = 0;
            joined = 0;
        }
    }
    if !current.is_empty() {
        out.push((start, current));
    }
    out
}

/// The names a block of several lines assigns a download or a secret to, line by line
/// (`my $body = LWP::Simple::get($u)`, `token = os.environ["GH_TOKEN"]`): the calls the
/// block makes with them hand those on. A name used before its assignment (a loop's
/// earlier lines) is not one of them; a one-line statement has none (its own taint is
/// read whole). `line_of(k)`: the file line of the statement's line `k`.
fn block_assignments(statement: &str, line_of: &dyn Fn(usize) -> usize) -> BTreeMap<String, Taint> {
    let mut out = BTreeMap::new();
    if !statement.trim_end().contains('\n') {
        return out;
    }
    let mut offset = 0;
    for (k, body_line) in statement.split_inclusive('\n').enumerate().take(MAX_TAINTED) {
        let here = offset;
        offset += body_line.len();
        if k == 0 {
            continue;
        }
        let Some(name) = ASSIGN
            .captures(body_line)
            .and_then(|caps| caps.get(1).or_else(|| caps.get(2)).or_else(|| caps.get(3)))
        else {
            continue;
        };
        if first_mention(statement, name.as_str()).is_some_and(|at| at < here) {
            continue;
        }
        let origin = |what: String| Some(Origin { line: line_of(k), what });
        let mut taint = Taint::default();
        if FETCH.is_match(body_line) && !only_defanged(body_line) {
            taint.remote = origin("a download".to_owned());
        } else if let Some(found) = SECRET_EXPR.find(body_line) {
            taint.secret = origin(found.as_str().trim().to_owned());
        }
        if !taint.is_clean() {
            out.insert(name.as_str().to_owned(), taint);
        }
    }
    out
}

fn literals(statement: &str) -> Vec<String> {
    STRING
        .captures_iter(statement)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)))
        .map(|m| {
            m.as_str()
                .replace("\\n", "\n")
                .replace("\\\"", "\"")
                .replace("\\'", "'")
        })
        .collect()
}

fn mentions(statement: &str, name: &str) -> bool {
    first_mention(statement, name).is_some()
}

/// Where `statement` first names `name` as a whole word.
fn first_mention(statement: &str, name: &str) -> Option<usize> {
    statement.match_indices(name).map(|(i, _)| i).find(|&i| {
        let before = statement[..i].chars().next_back();
        let after = statement[i + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// Where a sending statement sends: the address written first in it, as a literal or a
/// name holding one (`requests.post(f"{BASE}/links", json={"url": "https://…"})` sends
/// to `BASE`, not to the URL in its body).
fn destination_of(statement: &str, addresses: &BTreeMap<String, String>) -> Option<String> {
    let literal = STRING
        .captures_iter(statement)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)))
        .find(|m| m.as_str().contains("://"))
        .map(|m| (m.start(), m.as_str().to_owned()));
    let named = addresses
        .iter()
        .filter_map(|(name, a)| first_mention(statement, name).map(|at| (at, a.clone())))
        .min_by_key(|(at, _)| *at);
    match (literal, named) {
        (Some(l), Some(n)) => Some(if n.0 < l.0 { n.1 } else { l.1 }),
        (l, n) => l.or(n).map(|(_, a)| a),
    }
}

/// A path built from pieces (`Path.home() / ".hermes" / "SOUL.md"`,
/// `os.path.join(os.path.expanduser("~"), ".codex", "AGENTS.md")`,
/// `path.join(os.homedir(), ".bashrc")`): the statement's string literals joined with `/`,
/// under `~` when the statement starts from the home directory.
fn built_path(statement: &str, strings: &[String]) -> Option<String> {
    let from_home = HOME_CALL.is_match(statement);
    if strings.len() < 2 && !from_home {
        return None;
    }
    let pieces: Vec<&str> = strings
        .iter()
        .map(|s| s.trim_matches('/'))
        .filter(|s| !s.is_empty() && *s != "~" && !s.contains(char::is_whitespace))
        .collect();
    if pieces.is_empty() {
        return None;
    }
    let joined = pieces.join("/");
    Some(if from_home { format!("~/{joined}") } else { joined })
}

/// Whether the downloaded values a shell call names are only arguments of the program it
/// runs: the call is given a list whose first word (the program) is none of them, and no
/// shell reads it (`subprocess.run(["curl", "-X", "DELETE", f"{URL}/files/{fid}"])` with a
/// downloaded `fid` deletes a file; it runs nothing downloaded).
fn only_an_argument(statement: &str, tainted: &BTreeMap<String, Taint>) -> bool {
    let Some(call) = SHELL_CALL.find(statement) else {
        return false;
    };
    let after =
        statement[call.end()..].trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == ' ');
    let Some(list) = after
        .strip_prefix('(')
        .map(str::trim_start)
        .and_then(|a| a.strip_prefix(['[', '{']))
    else {
        return false;
    };
    if statement.contains("shell=True") || statement.contains("shell: true") {
        return false;
    }
    let program = list.split(',').next().unwrap_or("");
    // An interpreter or a shell given the value runs it (`["bash", "-c", payload]`).
    let runs_code = literals(program).first().is_some_and(|p| {
        let name = programs::program_name(p);
        matches!(
            name.as_str(),
            "sh" | "bash"
                | "zsh"
                | "dash"
                | "ksh"
                | "fish"
                | "cmd"
                | "cmd.exe"
                | "pwsh"
                | "powershell"
                | "powershell.exe"
                | "node"
                | "deno"
                | "bun"
                | "perl"
                | "ruby"
                | "php"
                | "lua"
                | "osascript"
                | "env"
                | "sudo"
                | "xargs"
        ) || name.starts_with("python")
    });
    !runs_code
        && !tainted
            .iter()
            .any(|(name, t)| t.remote.is_some() && mentions(program, name))
}

/// Runs a shell command a script builds, with the script's names it interpolates
/// (`"curl -T $f …"` in Perl or PowerShell, `` `…${f}…` `` in JavaScript, `"#{f}"` in Ruby)
/// holding what they hold in the script while the shell follows it.
fn run_shell(
    m: &mut Machine,
    language: Language,
    command: &str,
    line: usize,
    tainted: &BTreeMap<String, Taint>,
) -> Value {
    static RUBY_INTERPOLATION: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"#\{\s*([A-Za-z_]\w*)\s*\}").expect("valid interpolation pattern"));
    let command = if language == Language::Ruby {
        RUBY_INTERPOLATION.replace_all(command, "$${${1}}")
    } else {
        std::borrow::Cow::Borrowed(command)
    };
    let mut saved = Vec::new();
    if command.contains('$') {
        for (name, taint) in tainted {
            if saved.len() >= 16 || !mentions(&command, name) {
                continue;
            }
            // The text a later word sees: the secret's path when the name holds one.
            let text = taint
                .secret
                .as_ref()
                .map(|o| o.what.clone())
                .filter(|w| w.contains('/') || w.starts_with('~'))
                .unwrap_or_else(|| format!("script-value-{name}"));
            let value = Value {
                text,
                taint: taint.clone(),
            };
            saved.push((name.clone(), m.vars.insert(name.clone(), value)));
        }
    }
    let printed = m.run_nested(&command, line);
    for (name, before) in saved {
        match before {
            Some(value) => m.vars.insert(name, value),
            None => m.vars.remove(&name),
        };
    }
    printed
}

/// A secret's path the statement names: a literal (`"~/.aws/credentials"`) or one joined
/// from the home directory and pieces (`os.homedir() + '/.ssh/id_ed25519'`).
fn secret_literal(statement: &str, strings: &[String]) -> Option<String> {
    strings.iter().find(|s| targets::secret_path(s)).cloned().or_else(|| {
        if !HOME_CALL.is_match(statement) {
            return None;
        }
        // The pieces joined, or one piece under the home directory: other literals of
        // the statement (`'utf8'`) are no part of the path.
        built_path(statement, strings)
            .filter(|p| targets::secret_path(p))
            .or_else(|| {
                strings
                    .iter()
                    .map(|s| format!("~/{}", s.trim_start_matches('/')))
                    .find(|p| targets::secret_path(p))
            })
    })
}

/// Whether a string is a host name or address as a connection is given it
/// (`api.example.com`, `203.0.113.9`): dotted, no spaces or slashes.
fn bare_host(s: &str) -> bool {
    s.contains('.')
        && s.len() <= 253
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
        && s.split('.').all(|label| !label.is_empty())
}

/// Calls that change the working directory (a relative path written after one is no
/// longer the project's file).
static CHDIR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?-u:\b)(?:os\.chdir|process\.chdir|Dir\.chdir|Set-Location|Push-Location)(?-u:\b)|(?-u:\b)chdir\s*\("#,
    )
    .expect("valid chdir pattern")
});

/// Calls that stand for the home directory.
static HOME_CALL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)Path\.home\s*\(|expanduser\s*\(\s*['"]~|os\.homedir\s*\(|Dir\.home|\$HOME|\$env:USERPROFILE|getenv\s*\(\s*['"]HOME|\$ENV\{\s*['"]?HOME|ENV\[\s*['"]HOME|process\.env\.HOME|environ(?:\.get)?\s*[\[(]\s*['"]HOME['"]"#)
        .expect("valid home pattern")
});

/// Follows `text` in `language`; its lines are at `lines` of the file (`nested`: every
/// statement is reported at `lines[0]`, the command that carried the text).
pub fn follow(m: &mut Machine, language: Language, text: &str, lines: &[usize], nested: bool) {
    follow_given(m, language, text, lines, nested, BTreeMap::new());
}

/// [`follow`], with names that hold tracked values from the start (a function's
/// parameters, given a call's arguments).
fn follow_given(
    m: &mut Machine,
    language: Language,
    text: &str,
    lines: &[usize],
    nested: bool,
    given: BTreeMap<String, Taint>,
) {
    if language == Language::Sql {
        for (index, statement) in text.split(';').scan(0, |line, s| {
            // A statement is on the line of its first word, after the newlines that
            // follow the previous `;`.
            let leading = s.len() - s.trim_start().len();
            let at = *line + s[..leading].matches('\n').count();
            *line += s.matches('\n').count();
            Some((at, s))
        }) {
            let line = if nested { lines.first() } else { lines.get(index) }
                .copied()
                .unwrap_or(0);
            programs::destructive_statements(m, statement, line);
        }
        return;
    }
    if language == Language::Shell {
        if nested {
            m.run_nested(text, lines.first().copied().unwrap_or(0));
        } else {
            m.run(text, lines);
        }
        return;
    }
    // Most scripts download nothing, send nothing, shell out to nothing and write no file:
    // one pass over the whole text spares them the statement-by-statement reading.
    if !RELEVANT.is_match(text) {
        return;
    }
    let at = |index: usize| {
        if nested {
            lines.first().copied().unwrap_or(0)
        } else {
            lines.get(index).copied().or_else(|| lines.last().copied()).unwrap_or(0)
        }
    };
    // Ordered, so which origin a message names does not change between runs.
    let mut tainted: BTreeMap<String, Taint> = given;
    let mut paths: BTreeMap<String, String> = BTreeMap::new();
    // Names holding a directory under the home (`home = Path.home() / ".hermes"`): a write
    // naming one and a file (`open(home / "MEMORY.md", "a")`) writes that file.
    let mut directories: BTreeMap<String, String> = BTreeMap::new();
    // The script's functions, for calls that hand them a tracked value.
    let functions = functions::of(language, text);
    // Names holding an open connection or request: what is written to them is sent.
    let mut connections: Vec<String> = Vec::new();
    // The connections that are mail servers (`smtplib.SMTP(…)`): what goes through them is
    // mail, never a call to a token's own API.
    let mut mailers: Vec<String> = Vec::new();
    // Names holding an address (a URL, a connection's host).
    let mut addresses: BTreeMap<String, String> = BTreeMap::new();
    // The function being read: what its statements take in flows out of its calls.
    let mut function: Option<(String, usize)> = None;
    // Names holding a file opened by the script (`with zipfile.ZipFile("b.zip", "w") as
    // z:`), and what the script put into each file by name: a later statement naming
    // the file (`open("b.zip", "rb")`) reads it back.
    let mut file_of: BTreeMap<String, String> = BTreeMap::new();
    // Names holding a writer around another name (`tarfile.open(fileobj=buf)`): what is
    // added to the writer ends up in what it wraps.
    let mut wraps: BTreeMap<String, String> = BTreeMap::new();
    let mut written: BTreeMap<String, Taint> = BTreeMap::new();
    // Names holding text joined from string pieces (`$s = 'Set-Mp' + 'Preference'`): a
    // command named through one (`& $s -DisableRealtimeMonitoring $true`) is that text.
    let mut joined: BTreeMap<String, String> = BTreeMap::new();
    // Names holding the Function constructor (`const AsyncFn =
    // Object.getPrototypeOf(async function () {}).constructor`): calling one compiles text.
    let mut code_makers: Vec<String> = Vec::new();
    // Lua's `load`/`dofile` and Groovy's `evaluate` run text, unless the script defines
    // its own of that name.
    let loaders = language == Language::Other && !LOADER_DEFINED.is_match(text);
    // Commands already run that way: each distinct one once.
    let mut called_by_name: std::collections::HashSet<String> = std::collections::HashSet::new();
    for (index, statement) in statements(text) {
        let line = at(index);
        let first = statement.lines().next().unwrap_or("");
        let indent = first.len() - first.trim_start().len();
        if let Some(caps) = FUNCTION.captures(first) {
            function = caps.get(2).map(|name| (name.as_str().to_owned(), indent));
        } else if language == Language::Python
            && !first.trim().is_empty()
            && function.as_ref().is_some_and(|(_, at)| indent <= *at)
        {
            function = None;
        }
        let strings = literals(&statement);
        if CHDIR.is_match(&statement) {
            m.left_project = true;
        }
        let mut taint = Taint::default();
        // A defanged indicator (`hxxp://198.51.100[.]77/a.ps1`) is quoted, not fetched: no
        // client can download from it.
        if FETCH.is_match(&statement) && !only_defanged(&statement) {
            let mut urls: Vec<String> = strings.iter().filter(|s| s.contains("://")).cloned().collect();
            // An address written without quotes (`irm https://… | iex`).
            if urls.is_empty() {
                urls.extend(BARE_URL.find_iter(&statement).map(|u| u.as_str().to_owned()));
            }
            taint.remote = Some(Origin {
                line,
                what: urls
                    .first()
                    .map_or_else(|| "a download".to_owned(), |u| format!("a download from {u}")),
            });
            taint.urls = urls;
        }
        if let Some(found) = SECRET_EXPR.find(&statement) {
            taint.secret = Some(Origin {
                line,
                what: found.as_str().trim().to_owned(),
            });
        } else if let Some(path) = secret_literal(&statement, &strings) {
            taint.secret = Some(Origin { line, what: path });
        } else if let Some(listed) = strings.iter().find_map(|s| m.shipped.listed_in(s, Listed::Secret)) {
            // A data list the skill ships, read here, names a secret's path.
            taint.secret = Some(Origin { line, what: listed });
        } else if let Some(produced) = strings
            .iter()
            .filter(|s| file_name(s) && !written.contains_key(*s))
            .find_map(|s| m.shipped.produced_secret(&targets::normalize_path(s)))
        {
            // A file another of the skill's scripts wrote a secret into.
            taint.secret = Some(Origin {
                line,
                what: produced.to_owned(),
            });
        } else if let Some(name) = ENV_READ
            .captures_iter(&statement)
            .filter_map(|c| c.get(1))
            .find(|n| targets::secret_variable(n.as_str()))
        {
            taint.secret = Some(Origin {
                line,
                what: format!("${}", name.as_str()),
            });
            taint.weak_secret = true;
        }
        // A command that prints a secret, run from the script
        // (`subprocess.check_output(["gh", "auth", "token"])`, `` `aws configure
        // export-credentials` ``): its output is that secret.
        if taint.secret.is_none()
            && let Some(call) = SHELL_CALL.find(&statement)
        {
            // The words of the call: a list of arguments, or one command line.
            let called = &statement[call.end()..];
            let given = literals(called);
            let list = called
                .trim_start_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '(' || c == ' ')
                .starts_with('[');
            let words: Vec<&str> = if list && given.len() > 1 {
                given.iter().map(String::as_str).collect()
            } else {
                given
                    .first()
                    .map(|s| s.split_whitespace().collect())
                    .unwrap_or_default()
            };
            if let Some((program, args)) = words.split_first()
                && let Some(what) = targets::prints_secrets(program, args)
            {
                taint.secret = Some(Origin {
                    line,
                    what: what.to_owned(),
                });
                taint.weak_secret = programs::prints_one_token(program);
            }
        }
        for (name, t) in &tainted {
            if mentions(&statement, name) {
                taint.join(t);
            }
        }
        for (file, t) in &written {
            if strings.iter().any(|s| s == file) {
                taint.join(t);
            }
        }
        // A file a shell command of this script wrote (`os.execute("curl … -o /tmp/x.lua")`)
        // holds what that command put there.
        for s in strings.iter().filter(|s| file_name(s) && !written.contains_key(*s)) {
            if let Some(content) = m.files.get(&targets::normalize_path(s)) {
                taint.join(&content.taint);
            }
        }
        if !functions.is_empty() {
            // A block read as one statement (a loop's or a function's body) assigns names
            // before it hands them on (`my $body = get($u) or next; return load($body);`).
            let local = block_assignments(&statement, &|k| at(index + k));
            if local.is_empty() {
                functions::call(m, language, &functions, &statement, &tainted, line);
            } else {
                let mut known = tainted.clone();
                for (name, taint) in local {
                    known.entry(name).or_default().join(&taint);
                }
                functions::call(m, language, &functions, &statement, &known, line);
            }
        }
        let makes_code = || {
            code_makers.iter().any(|n| {
                first_mention(&statement, n).is_some_and(|at| statement[at + n.len()..].trim_start().starts_with('('))
            })
        };
        let runs_code = EXEC.is_match(&statement) || loaders && LOADER_EXEC.is_match(&statement);
        if taint.remote.is_some() && (runs_code || makes_code()) {
            let origin = taint.remote.clone().unwrap_or_else(|| Origin {
                line,
                what: String::new(),
            });
            let from = if origin.line == line {
                origin.what.clone()
            } else {
                format!("line {}: {}", human(origin.line), origin.what)
            };
            m.judge(Judgment {
                line,
                rule: "flow.remote-code",
                category: "remote-code-execution",
                severity: Severity::Critical,
                message: format!("downloaded content ({from}) is run as code"),
                hint: "pin what the agent installs (a package with a version, a checksum-verified release) instead of running a download",
                // Code run by a script is never an installer a vendor vouches for, except
                // PowerShell's own one-line installer idiom (`irm https://… | iex`).
                urls: if language == Language::PowerShell && PIPE_TO_IEX.is_match(&statement) { taint.urls.clone() } else { Vec::new() },
                tool: None,
            });
        }
        let handle = HANDLE_SEND
            .captures_iter(&statement)
            .filter_map(|c| c.get(1))
            .find(|h| connections.iter().any(|n| n == h.as_str()))
            .map(|h| h.as_str().to_owned());
        // A connection opened and used in one statement (`Net::HTTP.start(…) { |h|
        // h.request(req) }`) sends what the statement hands it.
        let sends = SEND.is_match(&statement)
            || handle.is_some()
            || CONNECTION.is_match(&statement) && HANDLE_SEND.is_match(&statement);
        if sends && let Some(secret) = &taint.secret {
            let from = if secret.line == line {
                secret.what.clone()
            } else {
                format!("{} (line {})", secret.what, human(secret.line))
            };
            // Where it goes: the connection's address, else the first one the call names.
            let destination = handle
                .as_ref()
                .and_then(|h| addresses.get(h).cloned())
                .or_else(|| destination_of(&statement, &addresses));
            // A token variable sent to the service it is named for is an API call; one
            // named for a service and sent to another host is a theft.
            // Mail never goes to a token's own API.
            let mailed = MAIL.is_match(&statement) || handle.as_ref().is_some_and(|h| mailers.contains(h));
            let stolen_token = programs::service_of(&secret.what).is_some()
                && match destination.as_deref() {
                    Some(d) => !programs::token_may_belong(&secret.what, d),
                    None => mailed,
                };
            let severity = match (taint.weak_secret, stolen_token) {
                (false, _) => Severity::Critical,
                (true, true) => Severity::High,
                (true, false) => Severity::Low,
            };
            let to = match (&destination, stolen_token) {
                (Some(d), true) => format!(" to {d}, a host of another service"),
                _ => String::new(),
            };
            m.judge(Judgment {
                line,
                rule: "flow.secret-exfiltration",
                category: "exfiltration",
                severity,
                message: format!("sends {from} off the machine{to}"),
                hint: "a skill must never send keys, tokens, credential files or the environment anywhere; ask the user to provide what a service needs",
                urls: Vec::new(),
                tool: None,
            });
        }
        // A downloaded value handed to a shell (`for cmd in json.loads(urlopen(u).read()):
        // subprocess.run(cmd, shell=True)`): commands chosen by a server.
        if SHELL_CALL.is_match(&statement)
            && !EXEC.is_match(&statement)
            && !FETCH.is_match(&statement)
            && !only_an_argument(&statement, &tainted)
            && let Some(origin) = taint.remote.clone()
        {
            m.judge(Judgment {
                line,
                rule: "flow.remote-code",
                category: "remote-code-execution",
                severity: Severity::Critical,
                message: format!(
                    "downloaded content (line {}: {}) is run as a shell command",
                    human(origin.line),
                    origin.what
                ),
                hint: "pin what the agent installs (a package with a version, a checksum-verified release) instead of running a download",
                urls: Vec::new(),
                tool: None,
            });
        }
        // A data list the skill ships, read here, names the home or a system directory.
        if taint.every.is_none()
            && let Some(listed) = strings.iter().find_map(|s| m.shipped.listed_in(s, Listed::Sweeping))
        {
            taint.every = Some(Origin { line, what: listed });
        }
        // Every entry of the home directory (`glob(join('', $ENV{HOME}, '/', '*'))`,
        // `os.listdir(Path.home())`): what a deletion fed this deletes the home.
        if taint.every.is_none()
            && LISTS_DIRECTORY.is_match(&statement)
            && let Some(directory) = sweeping_path_in(&statement, &strings)
        {
            taint.every = Some(Origin {
                line,
                what: format!("every entry of `{directory}`"),
            });
        }
        if REMOVE_TREE.is_match(&statement) && (language != Language::PowerShell || RECURSE_SWITCH.is_match(&statement))
        {
            removes_tree(m, &statement, &strings, &taint, line);
        }
        if language == Language::PowerShell
            && let Some(caps) = CALL_BY_NAME.captures(statement.trim_end())
            && let Some(command) = joined.get(&caps[1])
        {
            let call = format!("{command}{}", &caps[2]);
            if called_by_name.len() < MAX_TAINTED && called_by_name.insert(call.clone()) {
                m.run_nested(&call, line);
            }
        }
        // What a shell command the script runs prints (a download, a secret) is what the
        // statement hands on (`out = vim.fn.system({"curl", url})`).
        if SHELL_CALL.is_match(&statement) {
            let list = (statement.contains('[') || statement.contains('{')) && strings.len() > 1;
            if list {
                taint.join(&run_shell(m, language, &strings.join(" "), line, &tainted).taint);
            } else {
                for s in &strings {
                    taint.join(&run_shell(m, language, s, line, &tainted).taint);
                }
            }
        }
        if matches!(language, Language::Ruby | Language::Perl) {
            for c in STRING.captures_iter(&statement) {
                if let Some(command) = c.get(3) {
                    taint.join(&run_shell(m, language, command.as_str(), line, &tainted).taint);
                }
            }
        }
        if WRITE_CALL.is_match(&statement) {
            let target = strings
                .iter()
                .find(|s| targets::persistent(s).is_some())
                .cloned()
                .or_else(|| {
                    paths
                        .iter()
                        .find(|(name, _)| mentions(&statement, name))
                        .map(|(_, p)| p.clone())
                })
                .or_else(|| {
                    directories
                        .iter()
                        .filter(|(name, _)| mentions(&statement, name))
                        .flat_map(|(_, dir)| strings.iter().map(move |s| format!("{dir}/{}", s.trim_matches('/'))))
                        .find(|p| targets::persistent(p).is_some())
                });
            if let Some(target) = target {
                let content = Value {
                    text: strings
                        .iter()
                        .filter(|s| **s != target)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join("\n"),
                    taint: taint.clone(),
                };
                programs::write(m, &target, content, true, line);
            }
        }
        if let Some((name, _)) = &function
            && taint.tracks_anything()
        {
            tainted.entry(name.clone()).or_default().join(&taint);
        }
        if taint.tracks_anything()
            && let Some(caps) = APPEND.captures(&statement)
            && let Some(name) = caps.get(1)
            && (tainted.len() < MAX_TAINTED || tainted.contains_key(name.as_str()))
        {
            tainted.entry(name.as_str().to_owned()).or_default().join(&taint);
            if let Some(inner) = wraps.get(name.as_str())
                && (tainted.len() < MAX_TAINTED || tainted.contains_key(inner))
            {
                tainted.entry(inner.clone()).or_default().join(&taint);
            }
            if let Some(file) = file_of.get(name.as_str())
                && (written.len() < MAX_TAINTED || written.contains_key(file))
            {
                written.entry(file.clone()).or_default().join(&taint);
            }
        }
        // `with smtplib.SMTP(host, timeout=10) as s:` names `s`, whatever `=` its
        // arguments hold.
        let assigned = WITH_AS.captures(&statement).or_else(|| ASSIGN.captures(&statement));
        if let Some(caps) = assigned
            && let Some(name) = caps.get(1).or_else(|| caps.get(2)).or_else(|| caps.get(3))
        {
            let name = name.as_str().to_owned();
            match joined_pieces(&statement) {
                Some(text) if joined.len() < MAX_TAINTED || joined.contains_key(&name) => {
                    joined.insert(name.clone(), text);
                }
                _ => {
                    joined.remove(&name);
                }
            }
            if CODE_MAKER.is_match(&statement) && code_makers.len() < MAX_TAINTED && !code_makers.contains(&name) {
                code_makers.push(name.clone());
            }
            let connection = CONNECTION.is_match(&statement);
            if connection && connections.len() < MAX_TAINTED && !connections.contains(&name) {
                connections.push(name.clone());
            }
            if connection && MAIL.is_match(&statement) && mailers.len() < MAX_TAINTED {
                mailers.push(name.clone());
            }
            // The address a connection or variable is given (`HTTPSConnection("host")`,
            // `url = "https://…"`), for what is later sent through it.
            let address = strings.iter().find(|s| s.contains("://")).cloned().or_else(|| {
                strings
                    .iter()
                    .find(|s| connection && bare_host(s))
                    .map(|h| format!("https://{h}"))
            });
            match address {
                Some(a) if addresses.len() < MAX_TAINTED || addresses.contains_key(&name) => {
                    addresses.insert(name.clone(), a);
                }
                Some(_) => {}
                None => {
                    addresses.remove(&name);
                }
            }
            match WRAPPED.captures(&statement).and_then(|c| c.get(1).or_else(|| c.get(2))) {
                Some(inner) if wraps.len() < MAX_TAINTED || wraps.contains_key(&name) => {
                    wraps.insert(name.clone(), inner.as_str().to_owned());
                }
                _ => {
                    wraps.remove(&name);
                }
            }
            match strings.iter().find(|s| OPENS_FILE.is_match(&statement) && file_name(s)) {
                Some(file) if file_of.len() < MAX_TAINTED || file_of.contains_key(&name) => {
                    file_of.insert(name.clone(), file.clone());
                }
                _ => {
                    file_of.remove(&name);
                }
            }
            if let Some(path) = strings
                .iter()
                .find(|s| targets::persistent(s).is_some())
                .cloned()
                .or_else(|| built_path(&statement, &strings).filter(|p| targets::persistent(p).is_some()))
            {
                paths.insert(name.clone(), path);
            } else if let Some(dir) = built_path(&statement, &strings).filter(|p| p.starts_with("~/"))
                && (directories.len() < MAX_TAINTED || directories.contains_key(&name))
            {
                directories.insert(name.clone(), dir);
            }
            // A path made of another root and a listed path's last part
            // (`os.path.join(dest, os.path.basename(src))`) is somewhere else: a copy's
            // place, not the listed secret or directory.
            if JOINS_PATH.is_match(&statement) && statement.contains("basename") {
                taint.every = None;
                taint.secret = None;
                taint.weak_secret = false;
            }
            // What a request answers is the service's content, not the token that
            // authorised it (`titles = requests.get(url, headers={"Authorization": tok})`).
            if FETCH.is_match(&statement) && taint.weak_secret {
                taint.secret = None;
                taint.weak_secret = false;
            }
            if !taint.tracks_anything() {
                tainted.remove(&name);
            } else if tainted.len() < MAX_TAINTED || tainted.contains_key(&name) {
                tainted.insert(name, taint);
            }
        }
    }
    // What the script put into files stays in them for the commands that follow.
    for (file, taint) in written {
        let key = targets::normalize_path(&file);
        m.files.entry(key).or_default().taint.join(&taint);
    }
}

/// `text` with its reads of the command-line arguments replaced by `args`' text, quoted
/// (`sys.argv[1]` → `'~/.pypirc'`): what the script does with what it was given.
pub(crate) fn with_arguments(text: &str, language: Language, args: &[Value]) -> String {
    static ARGUMENT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"sys\.argv\[(\d)\]|process\.argv\[(\d)\]|\$ARGV\[(\d)\]|(?-u:\b)ARGV\[(\d)\]|\$args\[(\d)\]")
            .expect("valid argument pattern")
    });
    ARGUMENT
        .replace_all(text, |caps: &regex::Captures<'_>| {
            let digit = |i: usize| caps.get(i).and_then(|m| m.as_str().parse::<usize>().ok());
            // Which argument, counted from 0 for the first one after the script.
            let index = match language {
                Language::Python => digit(1).and_then(|n| n.checked_sub(1)),
                Language::JavaScript => digit(2).and_then(|n| n.checked_sub(2)),
                Language::Perl => digit(3),
                Language::Ruby => digit(4),
                Language::PowerShell => digit(5),
                _ => None,
            };
            match index.and_then(|i| args.get(i)) {
                Some(arg) => format!("'{}'", arg.text.replace(['\'', '\n'], "")),
                None => caps[0].to_owned(),
            }
        })
        .into_owned()
}

/// Builds this module's patterns now (a second core does it while the prefilter builds).
pub(crate) fn warm_up() {
    for pattern in [
        &FETCH,
        &EXEC,
        &PIPE_TO_IEX,
        &SEND,
        &CONNECTION,
        &HANDLE_SEND,
        &SECRET_EXPR,
        &ENV_READ,
        &SHELL_CALL,
        &WRITE_CALL,
        &STRING,
        &ASSIGN,
        &WITH_AS,
        &MAIL,
        &DEFANGED,
        &CODE_MAKER,
        &LOADER_EXEC,
        &LOADER_DEFINED,
        &BARE_URL,
        &FUNCTION,
        &APPEND,
        &HOME_CALL,
        &CHDIR,
    ] {
        LazyLock::force(pattern);
    }
    LazyLock::force(&RELEVANT);
}
