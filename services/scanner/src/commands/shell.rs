//! A small abstract shell. It walks a program parsed by `brush-parser` in order, keeping
//! the variables it set, the files it wrote and where every value came from, and hands
//! each simple command to [`programs::invoke`] to be judged. Nothing runs: values are the
//! best-known text of what a real shell would produce.

use std::collections::{BTreeMap, HashMap};

use brush_parser::ast;
use brush_parser::word::{Parameter, ParameterExpr, TildeExpr, WordPiece};

use super::flow::{Judgment, Origin, Value};
use super::programs::{self, Call};
use super::targets;

/// The most function definitions kept for following calls.
const MAX_FUNCTIONS: usize = 256;
/// The most written files a directory read looks at.
const MAX_DIRECTORY_FILES: usize = 256;
/// How deeply program text found inside other program text (`bash -c "$(…)"`) is followed.
const MAX_DEPTH: usize = 6;
/// Longest function call (name and arguments, in bytes) followed with its arguments.
const MAX_CALL_ARGUMENTS: usize = 4096;
/// The most simple commands one file is followed through (a bound on adversarial input).
const MAX_COMMANDS: usize = 100_000;
/// The longest program text handed to the parser at once.
const MAX_PROGRAM: usize = 1024 * 1024;
/// The longest script gathered from pieces of a file (a justfile's shebang recipe).
pub(crate) const MAX_SCRIPT_TEXT: usize = 256 * 1024;
/// The deepest bracket nesting handed to the parser (real commands nest a few levels).
const MAX_NESTING: usize = 48;
/// The most lines one construct is read across when a file does not parse whole.
const MAX_BLOCK_LINES: usize = 200;
/// How many times its own size of text a file that does not parse whole may be parsed
/// again in runs of lines.
const PARSE_BUDGET_FACTOR: usize = 8;
/// Marks where an unquoted `$IFS` split a word.
const IFS_MARK: char = '\u{1}';

/// Separates an array's elements in its stored value (see `AssignmentValue::Array`).
pub(super) const ARRAY_MARK: char = '\u{2}';

/// The state of the abstract shell over one file.
#[derive(Debug, Default)]
pub struct Machine {
    /// Variables set so far.
    pub vars: HashMap<String, Value>,
    /// Files written so far (by normalised path) and what they hold; ordered, so a
    /// directory's files are one range.
    pub files: BTreeMap<String, Value>,
    /// What the commands were judged to do.
    pub judgments: Vec<Judgment>,
    /// Prose that introduces the text being run ("on the production database:").
    pub lead_in: String,
    /// Where a destructive command's scope is read besides the command: the prose
    /// paragraph introducing its block.
    pub scope_text: String,
    /// The environment a command chose by name last in the file (`terraform workspace
    /// select prod`), read as the scope of later destructive steps.
    pub chosen_environment: String,
    /// Whether a loop is being followed value by value (loops inside it are not).
    unrolling: bool,
    /// Whether a command moved out of the project (`cd ~/.codex`, `pushd /etc`,
    /// `os.chdir(…)`): a relative path written after it is no longer the project's file.
    pub left_project: bool,
    /// The directory the last `cd` moved to, as written (`~`, `/srv/app`).
    pub cwd: Option<String>,
    /// A secret copied into the project (`cp ~/.aws/credentials _env/`): a commit and a
    /// push publish it.
    pub copied_secret: Option<Origin>,
    /// A secret file staged with `git add` in the snippet being followed (cleared by
    /// `git rm --cached`, `git restore --staged`, `git reset`): a push publishes it.
    pub staged_secret: Option<Origin>,
    /// File line of each line of the text being run.
    lines: Vec<usize>,
    /// Set while following program text found inside a command: every command in it is
    /// reported at the line of that command.
    fixed: Option<usize>,
    /// Line offset of the piece being parsed within the text (when the text is parsed
    /// piece by piece).
    offset: usize,
    depth: usize,
    commands: usize,
    /// Standard input of the compound commands being walked (`curl … | while read l`).
    enclosing_stdin: Vec<Value>,
    /// Functions defined so far, followed again where they are called with input
    /// (`curl … | f`).
    functions: HashMap<String, ast::CompoundCommand>,
    /// The bundle's own files (see [`super::Shipped`]): what `cat templates/x >>
    /// ~/.zshenv` writes is their text; `source scripts/lib.sh` loads a library.
    pub shipped: std::sync::Arc<super::Shipped>,
    /// Function calls already followed with their arguments, and shell libraries already
    /// loaded, over this machine and its probes: each once per file.
    followed_calls: std::rc::Rc<std::cell::RefCell<std::collections::HashSet<String>>>,
    loaded_libraries: std::rc::Rc<std::cell::RefCell<std::collections::HashSet<String>>>,
}

impl Machine {
    /// Follows shell `text`, whose lines are at `lines` of the file.
    pub fn run(&mut self, text: &str, lines: &[usize]) {
        if text.len() > MAX_PROGRAM {
            return;
        }
        let saved_lines = std::mem::replace(&mut self.lines, lines.to_vec());
        let saved_fixed = self.fixed.take();
        self.run_text(text);
        self.lines = saved_lines;
        self.fixed = saved_fixed;
    }

    /// Follows program text found inside the command on file line `line` (a `-c`
    /// argument, `eval`'s words, a `$(…)`); returns what it prints.
    pub fn run_nested(&mut self, text: &str, line: usize) -> Value {
        if self.depth >= MAX_DEPTH || text.len() > MAX_PROGRAM || text.trim().is_empty() {
            return Value::default();
        }
        self.depth += 1;
        let saved_fixed = self.fixed.replace(line);
        let saved_offset = std::mem::take(&mut self.offset);
        let out = self.run_text(text);
        self.offset = saved_offset;
        self.fixed = saved_fixed;
        self.depth -= 1;
        out
    }

    /// Parses `text` whole, or, when that fails (a placeholder like `<token>`, prose in a
    /// code block), line by line with continuations joined.
    fn run_text(&mut self, text: &str) -> Value {
        if !worth_following(text) {
            // Nothing to judge, but what it prints still stands for something (a path
            // from `$(mktemp)`): keep a stand-in, never an empty string.
            return Value::literal(format!("$({})", text.trim()));
        }
        let text = &unplaceholder(text);
        if let Some(program) = parse(text) {
            return self.program(&program);
        }
        // Logical lines: continuations joined, each with the line it starts on.
        let mut logical: Vec<(usize, String)> = Vec::new();
        let mut piece = String::new();
        let mut start = 0;
        for (index, line) in text.split('\n').enumerate() {
            if piece.is_empty() {
                start = index;
            }
            piece.push_str(line);
            if piece.ends_with('\\') {
                piece.pop();
                continue;
            }
            logical.push((start, std::mem::take(&mut piece)));
        }
        if !piece.is_empty() {
            logical.push((start, piece));
        }
        // From each line, the shortest run of lines that parses (a function, a loop, a
        // here-document spans several): one construct the parser does not know (zsh's
        // `&!`, a `}` without `;`) costs its own lines, not every block of the file.
        let mut out = Value::default();
        let mut next = 0;
        // Text given to the parser here: at most eight times the text's own size (64 KiB
        // for a short one), so a file of lines that each open a construct never closed
        // does not cost a parse of every run of lines.
        let mut budget = text.len().saturating_mul(PARSE_BUDGET_FACTOR).max(64 * 1024);
        while next < logical.len() {
            let (first, _) = logical[next];
            let mut joined = String::new();
            let mut parsed = None;
            for (taken, (_, line)) in logical[next..].iter().take(MAX_BLOCK_LINES).enumerate() {
                if taken > 0 {
                    joined.push('\n');
                }
                joined.push_str(line);
                if taken > 0 {
                    if budget < joined.len() {
                        break;
                    }
                    budget -= joined.len();
                }
                match parse_or_say_why(&joined) {
                    Ok(program) => {
                        parsed = Some((program, taken + 1));
                        break;
                    }
                    // Only an open construct is worth the next line.
                    Err(Unparsed::Incomplete) => {}
                    Err(Unparsed::Invalid) => break,
                }
            }
            let shifted = self.offset + first;
            let saved = std::mem::replace(&mut self.offset, shifted);
            match parsed {
                Some((program, lines)) => {
                    out.push(&self.program(&program));
                    next += lines;
                }
                None => next += 1,
            }
            self.offset = saved;
        }
        out
    }

    /// The file line of line `line` (1-based) of the text being parsed.
    pub fn line_at(&self, line: usize) -> usize {
        if let Some(fixed) = self.fixed {
            return fixed;
        }
        let index = (self.offset + line.saturating_sub(1)).min(self.lines.len().saturating_sub(1));
        self.lines.get(index).copied().unwrap_or(0)
    }

    /// A machine with this one's variables and depth whose judgments are its own: it
    /// follows text that is written somewhere to find out what it would do when it runs.
    pub fn probe(&self) -> Machine {
        Machine {
            vars: self.vars.clone(),
            files: self.files.clone(),
            depth: self.depth + 1,
            commands: self.commands,
            left_project: self.left_project,
            cwd: self.cwd.clone(),
            copied_secret: self.copied_secret.clone(),
            shipped: self.shipped.clone(),
            followed_calls: self.followed_calls.clone(),
            loaded_libraries: self.loaded_libraries.clone(),
            ..Machine::default()
        }
    }

    /// Loads a shell library the skill ships (`source scripts/lib.sh`): its functions and
    /// variables become this machine's, so a call after the `source` is followed. What the
    /// library does at its top level is judged where the library itself is scanned.
    pub fn load_library(&mut self, path: &str, text: &str, line: usize) {
        if !self.may_probe() || !self.loaded_libraries.borrow_mut().insert(path.to_owned()) {
            return;
        }
        let mut probe = self.probe();
        probe.run_nested(text, line);
        self.absorb(&probe);
        self.functions.extend(probe.functions);
        self.vars.extend(probe.vars);
    }

    /// The skill's script a command runs (`bash scripts/x.sh …`, `python3 -u scripts/x.py
    /// …`, `./scripts/x.sh …`) and where its arguments start among the words.
    fn shipped_script_run<'s>(
        shipped: &'s super::Shipped,
        words: &[Value],
    ) -> Option<(&'s super::ShippedScript, usize)> {
        let first = words.first()?;
        let name = programs::program_name(&first.text);
        let interpreter = matches!(
            name.as_str(),
            "bash" | "sh" | "zsh" | "node" | "ruby" | "perl" | "pwsh" | "powershell" | "deno" | "bun"
        ) || name.starts_with("python");
        let at = if interpreter {
            1 + words[1..].iter().take_while(|w| w.text.starts_with('-')).count()
        } else {
            0
        };
        Some((shipped.script(&words.get(at)?.text)?, at + 1))
    }

    /// Follows one of the skill's scripts with `args` as its command-line arguments: a
    /// shell script with `$1`, `$2`, `$@` set; another language with its argument reads
    /// (`sys.argv[1]`, `process.argv[2]`, `ARGV[0]`, `$ARGV[0]`, `$args[0]`) replaced by
    /// the arguments' text.
    fn run_script_with(&mut self, script: &super::ShippedScript, args: &[Value], line: usize) {
        let mut probe = self.probe();
        if script.language == super::script::Language::Shell {
            for (i, arg) in args.iter().enumerate() {
                probe.vars.insert((i + 1).to_string(), arg.clone());
            }
            let mut all = Value::default();
            for (i, arg) in args.iter().enumerate() {
                if i > 0 {
                    all.push_text(" ");
                }
                all.push(arg);
            }
            probe.vars.insert("@".to_owned(), all);
            probe.run_nested(&script.text, line);
        } else {
            let text = super::script::with_arguments(&script.text, script.language, args);
            super::script::follow(&mut probe, script.language, &text, &[line], true);
        }
        self.absorb(&probe);
        for mut judgment in probe
            .judgments
            .into_iter()
            .filter(|j| j.severity >= crate::Severity::Medium)
        {
            judgment.message = format!("{}, given these arguments: {}", script.path, judgment.message);
            self.judge(judgment);
        }
    }

    /// Whether the call named `key` is followed for the first time over this machine and
    /// its probes (each call once).
    pub fn first_call(&self, key: &str) -> bool {
        self.followed_calls.borrow_mut().insert(key.to_owned())
    }

    /// Takes back the command budget a [`Machine::probe`] spent: probes and their probes
    /// share one budget per file, however many writes spawn them.
    pub fn absorb(&mut self, probe: &Machine) {
        self.commands = self.commands.max(probe.commands);
    }

    /// Whether this machine may still spawn a probe.
    pub fn may_probe(&self) -> bool {
        self.depth < MAX_DEPTH && self.commands < MAX_COMMANDS
    }

    /// Records a judgment.
    pub fn judge(&mut self, judgment: Judgment) {
        self.judgments.push(judgment);
    }

    fn program(&mut self, program: &ast::Program) -> Value {
        let mut out = Value::default();
        for list in &program.complete_commands {
            out.push(&self.compound_list(list));
        }
        out
    }

    fn compound_list(&mut self, list: &ast::CompoundList) -> Value {
        let mut out = Value::default();
        for item in &list.0 {
            out.push(&self.pipeline(&item.0.first));
            for next in &item.0.additional {
                let (ast::AndOr::And(pipeline) | ast::AndOr::Or(pipeline)) = next;
                out.push(&self.pipeline(pipeline));
            }
        }
        out
    }

    fn pipeline(&mut self, pipeline: &ast::Pipeline) -> Value {
        let mut input: Option<Value> = None;
        for command in &pipeline.seq {
            let output = self.command(command, input.take());
            input = Some(output);
        }
        input.unwrap_or_default()
    }

    fn command(&mut self, command: &ast::Command, stdin: Option<Value>) -> Value {
        match command {
            ast::Command::Simple(simple) => self.simple(simple, stdin),
            ast::Command::Compound(compound, redirects) => {
                let redirects: Vec<&ast::IoRedirect> = redirects.iter().flat_map(|r| r.0.iter()).collect();
                let line = self.fixed.unwrap_or_else(|| self.line_at(1));
                let stdin = self.input_redirects(&redirects, stdin, line);
                self.enclosing_stdin.push(stdin.unwrap_or_default());
                let out = self.compound(compound);
                self.enclosing_stdin.pop();
                self.output_redirects(&redirects, out, line)
            }
            ast::Command::Function(function) => {
                // A function's body is followed where it is defined (what it can do does
                // not depend on being called), and again where it is called with input.
                if self.functions.len() < MAX_FUNCTIONS {
                    self.functions
                        .insert(function.fname.value.clone(), function.body.0.clone());
                }
                self.compound(&function.body.0);
                Value::default()
            }
            ast::Command::ExtendedTest(..) => Value::default(),
        }
    }

    fn compound(&mut self, compound: &ast::CompoundCommand) -> Value {
        /// Loops over at most this many values are followed once per value.
        const MAX_LOOP_VALUES: usize = 4;
        use ast::CompoundCommand as C;
        match compound {
            C::BraceGroup(group) => self.compound_list(&group.list),
            C::Subshell(subshell) => {
                // A `cd` inside `( … )` ends with it.
                let cwd = self.cwd.clone();
                let out = self.compound_list(&subshell.list);
                self.cwd = cwd;
                out
            }
            C::ForClause(clause) => {
                let mut each = Vec::new();
                for word in clause.values.iter().flatten() {
                    for value in self.expand(&word.value, 0) {
                        each.extend(brace_alternatives(value));
                    }
                }
                // A short list is followed value by value, as the shell runs it (`for rc
                // in ~/.bashrc ~/.zshrc; do … >> "$rc"` writes to each); a long one once,
                // with the values joined.
                if (1..=MAX_LOOP_VALUES).contains(&each.len()) && !self.unrolling {
                    // Only the outermost loop is unrolled: nested ones would multiply.
                    self.unrolling = true;
                    let mut out = Value::default();
                    for value in each {
                        self.vars.insert(clause.variable_name.clone(), value);
                        out.push(&self.compound_list(&clause.body.list));
                    }
                    self.unrolling = false;
                    return out;
                }
                if !each.is_empty() {
                    let mut joined = Value::default();
                    for v in each {
                        joined.push(&v);
                        joined.text.push(' ');
                    }
                    self.vars.insert(clause.variable_name.clone(), joined);
                }
                self.compound_list(&clause.body.list)
            }
            C::CaseClause(clause) => {
                let mut out = Value::default();
                for case in &clause.cases {
                    if let Some(list) = &case.cmd {
                        out.push(&self.compound_list(list));
                    }
                }
                out
            }
            C::IfClause(clause) => {
                let mut out = self.compound_list(&clause.condition);
                out.push(&self.compound_list(&clause.then));
                for branch in clause.elses.iter().flatten() {
                    if let Some(condition) = &branch.condition {
                        out.push(&self.compound_list(condition));
                    }
                    out.push(&self.compound_list(&branch.body));
                }
                out
            }
            C::WhileClause(clause) | C::UntilClause(clause) => {
                let mut out = self.compound_list(&clause.0);
                out.push(&self.compound_list(&clause.1.list));
                out
            }
            C::Coprocess(coprocess) => self.command(&coprocess.body, None),
            C::Arithmetic(_) | C::ArithmeticForClause(_) => Value::default(),
        }
    }

    /// Follows a call of one of the script's functions: its arguments bound as `$1`, `$2`,
    /// … and `$@` (restored afterwards), `stdin` as what it reads. What the body does with
    /// arguments it was handed is reported at the call; with input alone, where it does it.
    fn follow_function(
        &mut self,
        body: &ast::CompoundCommand,
        words: &[Value],
        stdin: Option<Value>,
        line: usize,
    ) -> Value {
        self.depth += 1;
        let params: Vec<String> = (1..words.len())
            .map(|i| i.to_string())
            .chain(["@".to_owned()])
            .collect();
        let saved: Vec<(String, Option<Value>)> =
            params.iter().map(|p| (p.clone(), self.vars.get(p).cloned())).collect();
        let mut all = Value::default();
        for (i, word) in words[1..].iter().enumerate() {
            self.vars.insert((i + 1).to_string(), word.clone());
            if i > 0 {
                all.push_text(" ");
            }
            all.push(word);
        }
        self.vars.insert("@".to_owned(), all);
        let with_input = stdin.is_some();
        if let Some(stdin) = stdin {
            self.enclosing_stdin.push(stdin);
        }
        let saved_fixed = if with_input {
            self.fixed
        } else {
            self.fixed.replace(line)
        };
        let out = self.compound(body);
        self.fixed = saved_fixed;
        if with_input {
            self.enclosing_stdin.pop();
        }
        for (name, value) in saved {
            match value {
                Some(v) => self.vars.insert(name, v),
                None => self.vars.remove(&name),
            };
        }
        self.depth -= 1;
        out
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, stdin: Option<Value>) -> Value {
        self.commands += 1;
        if self.commands > MAX_COMMANDS {
            return Value::default();
        }
        let line = self.line_of(simple);
        let mut words = Vec::new();
        let mut assigns = Vec::new();
        let mut redirects = Vec::new();
        let items = simple
            .prefix
            .iter()
            .flat_map(|p| p.0.iter().map(Some))
            .chain(std::iter::once(None))
            .chain(simple.suffix.iter().flat_map(|s| s.0.iter().map(Some)));
        for item in items {
            match item {
                None => {
                    if let Some(name) = &simple.word_or_name {
                        words.extend(self.expand(&name.value, line));
                    }
                }
                Some(ast::CommandPrefixOrSuffixItem::Word(word)) => words.extend(self.expand(&word.value, line)),
                Some(ast::CommandPrefixOrSuffixItem::IoRedirect(redirect)) => redirects.push(redirect),
                Some(ast::CommandPrefixOrSuffixItem::AssignmentWord(assignment, _)) => {
                    let name = match &assignment.name {
                        ast::AssignmentName::VariableName(n) | ast::AssignmentName::ArrayElementName(n, _) => n.clone(),
                    };
                    let value = match &assignment.value {
                        ast::AssignmentValue::Scalar(word) => self.expand_joined(&word.value, line),
                        ast::AssignmentValue::Array(items) => {
                            // Elements are kept apart by the word-splitting mark, so
                            // `"${a[@]}"` gives them back as words; any other use reads
                            // them joined by spaces.
                            let mut joined = Value::default();
                            for (i, (_, word)) in items.iter().enumerate() {
                                if i > 0 {
                                    joined.text.push(ARRAY_MARK);
                                }
                                joined.push(&self.expand_joined(&word.value, line));
                            }
                            joined
                        }
                    };
                    if words.is_empty() {
                        assigns.push((name, value, assignment.append));
                    } else {
                        // `declare X=…` and friends: an argument, not a prefix.
                        words.push(Value {
                            text: format!("{name}={}", value.text),
                            taint: value.taint,
                        });
                    }
                }
                Some(ast::CommandPrefixOrSuffixItem::ProcessSubstitution(kind, subshell)) => {
                    let content = match kind {
                        ast::ProcessSubstitutionKind::Read => self.compound_list(&subshell.list),
                        ast::ProcessSubstitutionKind::Write => {
                            self.compound_list(&subshell.list);
                            Value::default()
                        }
                    };
                    let path = format!("/dev/fd/{}", 63 + self.files.len());
                    self.files.insert(path.clone(), content);
                    words.push(Value::literal(path));
                }
            }
        }
        if words.is_empty() {
            for (name, value, append) in assigns {
                programs::assign(self, &name, value, append, false, line);
            }
            return self.output_redirects(&redirects, Value::default(), line);
        }
        let stdin = self.input_redirects(&redirects, stdin, line);
        let stdin = stdin.or_else(|| self.enclosing_stdin.last().cloned());
        if let Some(body) = words.first().and_then(|w| self.functions.get(&w.text)).cloned()
            && self.depth < MAX_DEPTH
        {
            // A function given input (`done < .env` around its call, `x | f`) is followed
            // with it; one called with an address or a tracked value (`fetch_and_apply
            // https://…`) is followed with the arguments as `$1`, `$2`, … Either way the
            // arguments are bound: a loop over a file's lines hands each line on as one.
            let given_stdin = stdin
                .as_ref()
                .is_some_and(|s| !s.taint.is_clean() || !s.text.is_empty());
            let given_arguments = !given_stdin
                && words[1..].iter().any(|w| w.text.contains("://") || !w.taint.is_clean())
                // Each call once, with arguments of a sane size: a function that calls
                // itself with its arguments repeated must not grow them without bound.
                && words.iter().map(|w| w.text.len() + 1).sum::<usize>() <= MAX_CALL_ARGUMENTS
                && self
                    .followed_calls
                    .borrow_mut()
                    .insert(words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" "));
            if given_stdin || given_arguments {
                // Arguments too long to copy through every call are not bound (a function
                // that calls itself with them must not grow the work without bound).
                let bound = if words.iter().map(|w| w.text.len() + 1).sum::<usize>() <= MAX_CALL_ARGUMENTS {
                    &words[..]
                } else {
                    &words[..1]
                };
                let out = self.follow_function(&body, bound, given_stdin.then(|| stdin.unwrap_or_default()), line);
                return self.output_redirects(&redirects, out, line);
            }
        }
        // One of the skill's scripts run with an address, a tracked value, a secret's path
        // or one of its data lists (`python3 scripts/diag.py attach ~/.pypirc`): its text
        // is followed again with those arguments, and what it does with them is reported
        // here.
        let shipped = self.shipped.clone();
        if let Some((script, first_argument)) = Machine::shipped_script_run(&shipped, &words)
            && words[first_argument..].iter().any(|w| {
                w.text.contains("://")
                    || !w.taint.is_clean()
                    || targets::secret_path(&w.text)
                    || self.shipped.listed_in(&w.text, super::Listed::Secret).is_some()
                    || self.shipped.listed_in(&w.text, super::Listed::Sweeping).is_some()
            })
            && self.may_probe()
            && words.iter().map(|w| w.text.len() + 1).sum::<usize>() <= MAX_CALL_ARGUMENTS
            && self
                .followed_calls
                .borrow_mut()
                .insert(words.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" "))
        {
            self.run_script_with(script, &words[first_argument..], line);
        }
        let out = programs::invoke(
            self,
            Call {
                words,
                assigns: assigns.into_iter().map(|(n, v, _)| (n, v)).collect(),
                stdin,
                line,
            },
        );
        self.output_redirects(&redirects, out, line)
    }

    fn line_of(&self, simple: &ast::SimpleCommand) -> usize {
        if let Some(fixed) = self.fixed {
            return fixed;
        }
        let from_items = |items: &[ast::CommandPrefixOrSuffixItem]| {
            items.iter().find_map(|item| match item {
                ast::CommandPrefixOrSuffixItem::Word(w) => w.loc.as_ref().map(|l| l.start.line),
                ast::CommandPrefixOrSuffixItem::AssignmentWord(a, _) => Some(a.loc.start.line),
                _ => None,
            })
        };
        let line = simple
            .prefix
            .as_ref()
            .and_then(|p| from_items(&p.0))
            .or_else(|| {
                simple
                    .word_or_name
                    .as_ref()
                    .and_then(|w| w.loc.as_ref().map(|l| l.start.line))
            })
            .or_else(|| simple.suffix.as_ref().and_then(|s| from_items(&s.0)))
            .unwrap_or(1);
        self.line_at(line)
    }

    fn input_redirects(&mut self, redirects: &[&ast::IoRedirect], stdin: Option<Value>, line: usize) -> Option<Value> {
        let mut stdin = stdin;
        for redirect in redirects {
            match redirect {
                ast::IoRedirect::File(fd, ast::IoFileRedirectKind::Read, target) if fd.is_none_or(|fd| fd == 0) => {
                    stdin = Some(match target {
                        ast::IoFileRedirectTarget::Filename(word) => {
                            let path = self.expand_joined(&word.value, line);
                            self.read_file(&path.text, line)
                        }
                        ast::IoFileRedirectTarget::ProcessSubstitution(_, subshell) => {
                            self.compound_list(&subshell.list)
                        }
                        _ => Value::default(),
                    });
                }
                ast::IoRedirect::HereDocument(_, doc) => {
                    let text = if doc.requires_expansion {
                        self.expand_heredoc(&doc.doc.value, line)
                    } else {
                        Value::literal(doc.doc.value.clone())
                    };
                    stdin = Some(text);
                }
                ast::IoRedirect::HereString(_, word) => stdin = Some(self.expand_joined(&word.value, line)),
                _ => {}
            }
        }
        stdin
    }

    fn output_redirects(&mut self, redirects: &[&ast::IoRedirect], out: Value, line: usize) -> Value {
        let mut consumed = false;
        for redirect in redirects {
            let (target, append) = match redirect {
                ast::IoRedirect::File(fd, kind, ast::IoFileRedirectTarget::Filename(word))
                    if fd.is_none_or(|fd| fd == 1)
                        && matches!(
                            kind,
                            ast::IoFileRedirectKind::Write
                                | ast::IoFileRedirectKind::Append
                                | ast::IoFileRedirectKind::Clobber
                        ) =>
                {
                    (word, matches!(kind, ast::IoFileRedirectKind::Append))
                }
                ast::IoRedirect::OutputAndError(word, append) => (word, *append),
                _ => continue,
            };
            let path = self.expand_joined(&target.value, line);
            if path.text == "/dev/null" || path.text.starts_with("/dev/std") {
                consumed = true;
                continue;
            }
            programs::write(self, &path.text, out.clone(), append, line);
            consumed = true;
        }
        if consumed { Value::default() } else { out }
    }

    /// What reading `path` yields: what a command here wrote to it, or a secret when the
    /// path holds one.
    pub fn read_file(&self, path: &str, line: usize) -> Value {
        let key = targets::normalize_path(path);
        if let Some(content) = self.files.get(&key) {
            return content.clone();
        }
        if let Some(text) = self.shipped.text(&key) {
            let mut value = Value::literal(text);
            // A list of paths the skill ships hands its reader the secrets it names.
            if let Some(listed) = self.shipped.listed_in(&key, super::Listed::Secret) {
                value.taint.secret = Some(Origin { line, what: listed });
            }
            if let Some(listed) = self.shipped.listed_in(&key, super::Listed::Sweeping) {
                value.taint.every = Some(Origin { line, what: listed });
            }
            return value;
        }
        let mut value = Value::default();
        // A file one of the skill's scripts writes holds what it was given there.
        if let Some(produced) = self.shipped.produced_secret(&key) {
            value.taint.secret = Some(Origin {
                line,
                what: produced.to_owned(),
            });
            return value;
        }
        // A directory holds what was written into it.
        let dir = format!("{}/", key.trim_end_matches('/'));
        for (_, content) in self
            .files
            .range(dir.clone()..)
            .take_while(|(written, _)| written.starts_with(&dir))
            .take(MAX_DIRECTORY_FILES)
        {
            value.taint.join(&content.taint);
        }
        if targets::secret_path(path) {
            value.taint.secret = Some(Origin {
                line,
                what: path.to_owned(),
            });
        }
        value
    }

    /// Expands a word into the words it becomes (one, unless an unquoted `$IFS` splits it).
    pub fn expand(&mut self, word: &str, line: usize) -> Vec<Value> {
        // Most words are plain text: nothing to expand.
        if !word.contains(['$', '`', '\'', '"', '\\', '~', '{']) {
            return vec![Value::literal(word)];
        }
        let options = brush_parser::ParserOptions::default();
        if nesting(word) > MAX_NESTING {
            return vec![Value::literal(word)];
        }
        // Third-party code fed hostile text: a panic in it must not take the scan down.
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            brush_parser::word::parse(word, &options)
        }));
        let Ok(Ok(pieces)) = parsed else {
            return vec![Value::literal(word)];
        };
        let mut value = Value::default();
        for piece in &pieces {
            self.piece(&piece.piece, &mut value, line, false);
        }
        if value.text.contains(IFS_MARK) {
            value
                .text
                .split(IFS_MARK)
                .filter(|s| !s.is_empty())
                .map(|s| Value {
                    text: s.to_owned(),
                    taint: value.taint.clone(),
                })
                .collect()
        } else {
            vec![value]
        }
    }

    /// Expands a word into one value (split pieces joined by spaces).
    pub fn expand_joined(&mut self, word: &str, line: usize) -> Value {
        let mut joined = Value::default();
        for (i, v) in self.expand(word, line).into_iter().enumerate() {
            if i > 0 {
                joined.text.push(' ');
            }
            joined.push(&v);
        }
        joined
    }

    fn expand_heredoc(&mut self, body: &str, line: usize) -> Value {
        let options = brush_parser::ParserOptions::default();
        if nesting(body) > MAX_NESTING {
            return Value::literal(body);
        }
        let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            brush_parser::word::parse_heredoc(body, &options)
        }));
        let Ok(Ok(pieces)) = parsed else {
            return Value::literal(body);
        };
        let mut value = Value::default();
        for piece in &pieces {
            self.piece(&piece.piece, &mut value, line, true);
        }
        value
    }

    fn piece(&mut self, piece: &WordPiece, value: &mut Value, line: usize, quoted: bool) {
        match piece {
            WordPiece::Text(s) | WordPiece::SingleQuotedText(s) => value.push_text(s),
            WordPiece::AnsiCQuotedText(s) => value.push_text(&decode_escapes(s)),
            WordPiece::EscapeSequence(s) => value.push_text(s.strip_prefix('\\').unwrap_or(s)),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for p in inner {
                    self.piece(&p.piece, value, line, true);
                }
            }
            WordPiece::TildeExpansion(TildeExpr::WorkingDir) => value.text.push('.'),
            WordPiece::TildeExpansion(_) => value.text.push('~'),
            WordPiece::ParameterExpansion(expr) => self.parameter(expr, value, line, quoted),
            WordPiece::CommandSubstitution(text) | WordPiece::BackquotedCommandSubstitution(text) => {
                let out = self.run_nested(text, line);
                value.push_text(out.text.trim_end_matches('\n'));
                value.taint.join(&out.taint);
            }
            WordPiece::ArithmeticExpression(_) => value.text.push('0'),
        }
    }

    fn parameter(&mut self, expr: &ParameterExpr, value: &mut Value, line: usize, quoted: bool) {
        // `${key%.pub}`, `${path##*/}`: a known value with a prefix or suffix taken off.
        let trim = match expr {
            ParameterExpr::RemoveSmallestSuffixPattern { pattern, .. } => pattern.as_deref().map(|p| (p, true, false)),
            ParameterExpr::RemoveLargestSuffixPattern { pattern, .. } => pattern.as_deref().map(|p| (p, true, true)),
            ParameterExpr::RemoveSmallestPrefixPattern { pattern, .. } => pattern.as_deref().map(|p| (p, false, false)),
            ParameterExpr::RemoveLargestPrefixPattern { pattern, .. } => pattern.as_deref().map(|p| (p, false, true)),
            _ => None,
        };
        let (parameter, default) = match expr {
            ParameterExpr::Parameter { parameter, .. } => (parameter, None),
            ParameterExpr::UseDefaultValues {
                parameter,
                default_value,
                ..
            }
            | ParameterExpr::AssignDefaultValues {
                parameter,
                default_value,
                ..
            } => (parameter, default_value.as_deref()),
            ParameterExpr::IndicateErrorIfNullOrUnset { parameter, .. }
            | ParameterExpr::UseAlternativeValue { parameter, .. }
            | ParameterExpr::Substring { parameter, .. }
            | ParameterExpr::RemoveLargestSuffixPattern { parameter, .. }
            | ParameterExpr::RemoveSmallestSuffixPattern { parameter, .. }
            | ParameterExpr::RemoveLargestPrefixPattern { parameter, .. }
            | ParameterExpr::RemoveSmallestPrefixPattern { parameter, .. }
            | ParameterExpr::ReplaceSubstring { parameter, .. }
            | ParameterExpr::Transform { parameter, .. }
            | ParameterExpr::UppercaseFirstChar { parameter, .. }
            | ParameterExpr::UppercasePattern { parameter, .. }
            | ParameterExpr::LowercaseFirstChar { parameter, .. }
            | ParameterExpr::LowercasePattern { parameter, .. } => (parameter, None),
            _ => {
                value.text.push('$');
                return;
            }
        };
        let name = match parameter {
            Parameter::Named(n)
            | Parameter::NamedWithIndex { name: n, .. }
            | Parameter::NamedWithAllIndices { name: n, .. } => n.clone(),
            // A function's arguments while its call is followed (`$1`, `$@`).
            Parameter::Positional(n) if self.vars.contains_key(&n.to_string()) => n.to_string(),
            Parameter::Special(brush_parser::word::SpecialParameter::AllPositionalParameters { .. })
                if self.vars.contains_key("@") =>
            {
                "@".to_owned()
            }
            other => {
                value.text.push_str(&other.to_string());
                return;
            }
        };
        if name == "IFS" && !quoted {
            value.text.push(IFS_MARK);
            return;
        }
        if name == "IFS" {
            value.text.push(' ');
            return;
        }
        if let Some(known) = self.vars.get(&name) {
            let mut known = known.clone();
            if known.text.contains(ARRAY_MARK) {
                let every_element = matches!(parameter, Parameter::NamedWithAllIndices { .. });
                let separator = if every_element { IFS_MARK } else { ' ' };
                known.text = known.text.replace(ARRAY_MARK, &separator.to_string());
            }
            if let Some((pattern, suffix, largest)) = trim {
                known.text = trim_pattern(&known.text, pattern, suffix, largest);
            }
            value.push(&known);
            return;
        }
        if let Some(default) = default
            && self.depth < MAX_DEPTH
        {
            self.depth += 1;
            let expanded = self.expand_joined(default, line);
            self.depth -= 1;
            value.push(&expanded);
            return;
        }
        value.text.push('$');
        value.text.push_str(&name);
        if targets::secret_variable(&name) && value.taint.secret.is_none() {
            value.taint.secret = Some(Origin {
                line,
                what: format!("${name}"),
            });
            value.taint.weak_secret = true;
        }
    }
}

/// Whether shell text could earn any judgment: it names a program the model has a rule
/// for (as a whole word), writes with a redirection, or builds commands from pieces (a
/// variable in command position, `$(…)`, backquotes, escapes) that could spell one. Most
/// documentation blocks (`ls`, `cd src`, `make test`) do none of these and are not parsed.
fn worth_following(text: &str) -> bool {
    static TOKENS: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(targets::interesting())
            .expect("valid token automaton")
    });
    static ASSEMBLED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?m)(?:^|[;&|(]\s*)\s*\$|\$\(|`|\\x|\$'|IFS|>").expect("valid assembly pattern")
    });
    if ASSEMBLED.is_match(text) {
        return true;
    }
    let bytes = text.as_bytes();
    TOKENS.find_overlapping_iter(text).any(|m| {
        let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
        let starts = m.start() == 0 || !word(bytes[m.start() - 1]);
        let pattern = targets::interesting()[m.pattern().as_usize()];
        let prefix = pattern.ends_with(['-', '_']) || pattern == "python" || pattern == "pypy";
        let ends = prefix || m.end() == bytes.len() || !word(bytes[m.end()]);
        starts && ends
    })
}

/// How deeply brackets (`(`, `{`, `[`) and shell's compound commands (`do … done`,
/// `then … fi`, `case … esac`) nest in `text`, at most: the parser recurses once per
/// level of either.
fn nesting(text: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut open = |depth: &mut usize| {
        *depth += 1;
        max = max.max(*depth);
    };
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphabetic() {
            word.push(c);
            continue;
        }
        match word.as_str() {
            "do" | "then" | "case" => open(&mut depth),
            "done" | "fi" | "esac" => depth = depth.saturating_sub(1),
            _ => {}
        }
        word.clear();
        match c {
            '(' | '{' | '[' => open(&mut depth),
            ')' | '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Documentation placeholders (`<workspace>/AGENTS.md`, `--token <your-token>`) read as
/// words, not as the redirections they would parse as.
fn unplaceholder(text: &str) -> std::borrow::Cow<'_, str> {
    static PLACEHOLDER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"<([A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+){0,3})>").expect("valid placeholder pattern")
    });
    if !text.contains('<') {
        return std::borrow::Cow::Borrowed(text);
    }
    PLACEHOLDER.replace_all(text, |caps: &regex::Captures<'_>| {
        format!("__{}__", caps[1].replace(' ', "_"))
    })
}

/// Parses shell text; `None` when it is not valid shell.
fn parse(text: &str) -> Option<ast::Program> {
    parse_or_say_why(text).ok()
}

/// Why shell text did not parse.
enum Unparsed {
    /// It stops inside a construct more lines could close: an open brace, loop, command
    /// substitution or here-document. (An open quote is no such construct: in a block of
    /// prose or pseudo-code it is an apostrophe, and joining the lines after it into one
    /// string would hide their commands.)
    Incomplete,
    /// It is not shell as the parser knows it.
    Invalid,
}

/// Parses shell text, or says whether more lines could make it parse.
fn parse_or_say_why(text: &str) -> Result<ast::Program, Unparsed> {
    use brush_parser::{ParseError, TokenizerError as T};
    // The parser and the walker recurse once per level of nesting: deep nesting would
    // overflow the stack, which no `catch_unwind` catches.
    if nesting(text) > MAX_NESTING {
        return Err(Unparsed::Invalid);
    }
    let options = brush_parser::ParserOptions::default();
    let mut parser = brush_parser::Parser::new(text.as_bytes(), &options);
    // The parser is third-party code fed hostile text: a panic in it must not take the
    // scan down with it.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parser.parse_program())) {
        Ok(Ok(program)) => Ok(program),
        Ok(Err(
            ParseError::ParsingAtEndOfInput
            | ParseError::Tokenizing {
                inner:
                    T::UnterminatedCommandSubstitution
                    | T::UnterminatedExpansion
                    | T::MissingHereTagForDocumentBody
                    | T::MissingHereTag(_),
                ..
            },
        )) => Err(Unparsed::Incomplete),
        _ => Err(Unparsed::Invalid),
    }
}

/// Decodes the escapes of `$'…'` and `printf`/`echo -e` formats (`\x63`, `\143`, `\n`).
pub fn decode_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('x') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_hexdigit))
                    .take(2)
                    .collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => out.push_str("\\x"),
                }
            }
            Some('u') | Some('U') => {
                let hex: String = std::iter::from_fn(|| chars.next_if(char::is_ascii_hexdigit))
                    .take(8)
                    .collect();
                if let Some(decoded) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    out.push(decoded);
                }
            }
            Some(d @ '0'..='7') => {
                let mut octal = String::from(d);
                while octal.len() < 3 {
                    match chars.next_if(|c| ('0'..='7').contains(c)) {
                        Some(c) => octal.push(c),
                        None => break,
                    }
                }
                if let Some(decoded) = u32::from_str_radix(&octal, 8).ok().and_then(char::from_u32) {
                    out.push(decoded);
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// A value with one brace expansion (`"$DIR"/{a,b}.sh`) as its alternatives
/// (`$DIR/a.sh`, `$DIR/b.sh`); other values as they are. At most eight alternatives.
fn brace_alternatives(value: Value) -> Vec<Value> {
    let text = &value.text;
    let Some(open) = text.find('{') else {
        return vec![value];
    };
    let Some(close) = text[open..].find('}').map(|c| open + c) else {
        return vec![value];
    };
    let inner = &text[open + 1..close];
    if !inner.contains(',') || inner.contains(char::is_whitespace) || inner.contains('{') {
        return vec![value];
    }
    inner
        .split(',')
        .take(8)
        .map(|alternative| Value {
            text: format!("{}{alternative}{}", &text[..open], &text[close + 1..]),
            taint: value.taint.clone(),
        })
        .collect()
}

/// `text` with the prefix or suffix `pattern` matches taken off, as `${x%pat}`, `${x%%pat}`,
/// `${x#pat}` and `${x##pat}` do, for the patterns scripts use: a literal (`.pub`), a
/// literal then `*` for suffixes (`.*`), `*` then a literal for prefixes (`*/`). Other
/// patterns leave the text as it is.
fn trim_pattern(text: &str, pattern: &str, suffix: bool, largest: bool) -> String {
    let glob = |s: &str| s.contains(['*', '?', '[']);
    if !glob(pattern) {
        let trimmed = if suffix {
            text.strip_suffix(pattern)
        } else {
            text.strip_prefix(pattern)
        };
        return trimmed.unwrap_or(text).to_owned();
    }
    let found = match (suffix, pattern.strip_suffix('*'), pattern.strip_prefix('*')) {
        (true, Some(lit), _) if !lit.is_empty() && !glob(lit) => {
            let at = if largest { text.find(lit) } else { text.rfind(lit) };
            at.map(|at| text[..at].to_owned())
        }
        (false, _, Some(lit)) if !lit.is_empty() && !glob(lit) => {
            let at = if largest { text.rfind(lit) } else { text.find(lit) };
            at.map(|at| text[at + lit.len()..].to_owned())
        }
        _ => None,
    };
    found.unwrap_or_else(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_patterns_take_off_what_bash_takes_off() {
        assert_eq!(
            trim_pattern("~/.ssh/id_ed25519.pub", ".pub", true, false),
            "~/.ssh/id_ed25519"
        );
        assert_eq!(trim_pattern("a.tar.gz", ".*", true, false), "a.tar");
        assert_eq!(trim_pattern("a.tar.gz", ".*", true, true), "a");
        assert_eq!(trim_pattern("/opt/x/bin/tool", "*/", false, true), "tool");
        assert_eq!(trim_pattern("/opt/x/bin/tool", "*/", false, false), "opt/x/bin/tool");
        assert_eq!(trim_pattern("name", "[ab]*", true, false), "name");
    }

    #[test]
    fn one_brace_expansion_gives_its_alternatives() {
        let texts = |v: &str| -> Vec<String> {
            brace_alternatives(Value::literal(v))
                .into_iter()
                .map(|v| v.text)
                .collect()
        };
        assert_eq!(texts("~/p/{a,b}.sh"), vec!["~/p/a.sh", "~/p/b.sh"]);
        assert_eq!(texts("${HOME}"), vec!["${HOME}"]);
        assert_eq!(texts("{ a, b }"), vec!["{ a, b }"]);
    }
}
