//! Data as the command model sees it: a value's best-known text and where its content
//! came from (a download, a secret), and the judgments a command earns.

use crate::Severity;

/// Where a value's content came from.
#[derive(Clone, Debug)]
pub struct Origin {
    /// The file line (0-based) of the command that produced it.
    pub line: usize,
    /// What it is, for messages ("a download from https://…", "~/.ssh").
    pub what: String,
}

/// The provenance that matters to the gate: remote content, secrets.
#[derive(Clone, Debug, Default)]
pub struct Taint {
    /// Downloaded content, and the URLs it came from.
    pub remote: Option<Origin>,
    /// URLs of the downloads (every one must be trusted for a vendor's installer).
    pub urls: Vec<String>,
    /// A secret (key, token, credential store, environment dump).
    pub secret: Option<Origin>,
    /// Whether the secret is only a variable named like one (`$API_TOKEN`): sending a
    /// token to the service it belongs to is everyday work, sending a key file is not.
    pub weak_secret: bool,
    /// A listing of every object of a kind (`kubectl get ns`, `git branch -r`), narrowed
    /// at most by exclusions (`grep -v kube-system`): what a deletion fed this deletes
    /// everything but the exceptions.
    pub every: Option<Origin>,
}

impl Taint {
    /// Adds `other`'s provenance to this one.
    pub fn join(&mut self, other: &Taint) {
        if self.remote.is_none() {
            self.remote.clone_from(&other.remote);
        }
        for url in &other.urls {
            if !self.urls.contains(url) {
                self.urls.push(url.clone());
            }
        }
        if self.every.is_none() {
            self.every.clone_from(&other.every);
        }
        if other.secret.is_some() && (self.secret.is_none() || (self.weak_secret && !other.weak_secret)) {
            self.secret.clone_from(&other.secret);
            self.weak_secret = other.weak_secret;
        }
    }

    /// Whether nothing tracked flows in it.
    pub fn is_clean(&self) -> bool {
        self.remote.is_none() && self.secret.is_none()
    }

    /// Whether a script's name holding this must be remembered: a download, a secret, or
    /// a listing of everything (which only a deletion consumes).
    pub fn tracks_anything(&self) -> bool {
        !self.is_clean() || self.every.is_some()
    }
}

/// The longest text a value keeps: enough for any command or script a skill could hold.
pub const MAX_VALUE: usize = 256 * 1024;

/// A value: its best-known text (variables the model could not follow stay `$NAME`) and
/// its provenance.
#[derive(Clone, Debug, Default)]
pub struct Value {
    /// The text as far as it is known.
    pub text: String,
    /// Where its content came from.
    pub taint: Taint,
}

impl Value {
    /// A literal with no provenance.
    pub fn literal(text: impl Into<String>) -> Value {
        Value {
            text: text.into(),
            taint: Taint::default(),
        }
    }

    /// Appends `other`, text and provenance. Text stops growing at [`MAX_VALUE`] bytes
    /// (`x=$x$x` repeated would otherwise double it each time); provenance always joins.
    pub fn push(&mut self, other: &Value) {
        self.push_text(&other.text);
        self.taint.join(&other.taint);
    }

    /// Appends text, up to [`MAX_VALUE`] bytes in all.
    pub fn push_text(&mut self, text: &str) {
        let room = MAX_VALUE.saturating_sub(self.text.len());
        if text.len() <= room {
            self.text.push_str(text);
        } else {
            let mut end = room;
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.text.push_str(&text[..end]);
        }
    }
}

/// What the model concluded about one command: judged by the flow, then weighed by its
/// context (`commands::judge_file` returns the judgments that stand).
#[derive(Clone, Debug)]
pub struct Judgment {
    /// The file line (0-based) of the command.
    pub line: usize,
    /// Rule id (`flow.remote-code`, …).
    pub rule: &'static str,
    /// Category, as the rules name them.
    pub category: &'static str,
    /// Severity before context (negation, training, vendor) is applied.
    pub severity: Severity,
    /// What is wrong, naming the flow and its lines.
    pub message: String,
    /// What to do instead.
    pub hint: &'static str,
    /// Downloads involved: when every one is the skill's own vendor or an official
    /// installer, the finding drops to `caution`.
    pub urls: Vec<String>,
    /// The program the judgment is about, when the skill's own subject may excuse it
    /// (a skill about an agent documenting that agent's flags).
    pub tool: Option<String>,
}

/// `line` as a reader counts (1-based), for messages.
pub fn human(line: usize) -> usize {
    line + 1
}
