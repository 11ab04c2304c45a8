//! What a scan finds: findings with evidence, and the verdict over them.

use serde::{Deserialize, Serialize};

/// How bad a finding is. Ordered: `Info < Low < Medium < High < Critical`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never changes the verdict.
    Info,
    /// Unusual but usually fine; never changes the verdict.
    Low,
    /// A reviewer should look: makes the verdict at least `caution`.
    Medium,
    /// Very likely harmful: makes the verdict `dangerous`.
    High,
    /// Harmful beyond reasonable doubt: makes the verdict `dangerous`.
    Critical,
}

impl Severity {
    /// The severity's name, as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }

    /// One step less severe (floor `Info`), for matches in a less telling context.
    pub fn lowered(self) -> Severity {
        match self {
            Severity::Critical => Severity::High,
            Severity::High => Severity::Medium,
            Severity::Medium => Severity::Low,
            Severity::Low | Severity::Info => Severity::Info,
        }
    }
}

/// The overall judgement of a bundle (docs/SECURITY-SCANNER.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// No finding of medium severity or above.
    Safe,
    /// At least one medium finding, none high or critical.
    Caution,
    /// At least one high or critical finding.
    Dangerous,
}

impl Verdict {
    /// The verdict over findings: the most severe one decides.
    /// Dismissed findings do not count: a reviewer judged them false positives.
    pub fn of(findings: &[Finding]) -> Verdict {
        match findings
            .iter()
            .filter(|f| f.dismissed.is_none())
            .map(|f| f.severity)
            .max()
        {
            Some(Severity::High | Severity::Critical) => Verdict::Dangerous,
            Some(Severity::Medium) => Verdict::Caution,
            _ => Verdict::Safe,
        }
    }

    /// The verdict's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Safe => "safe",
            Verdict::Caution => "caution",
            Verdict::Dangerous => "dangerous",
        }
    }
}

/// One thing the scanner found, with the evidence a reviewer needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Finding {
    /// The rule's id, e.g. `rce.pipe-to-shell`.
    pub rule: String,
    /// The rule's category, e.g. `remote-code-execution`.
    pub category: String,
    /// Severity in this context.
    pub severity: Severity,
    /// The file (relative path in the bundle).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// The matched line, shortened, with secrets masked and invisible characters shown
    /// as `<U+XXXX>`.
    pub excerpt: String,
    /// What is wrong.
    pub message: String,
    /// What the author should do instead.
    pub hint: String,
    /// Delta mode: whether the change under review brought this finding (`None` when the
    /// scan was not a delta).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub introduced: Option<bool>,
    /// A reviewer judged this finding a false positive for this skill: it is still
    /// shown, but no longer counts towards the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dismissed: Option<Dismissed>,
}

impl Finding {
    /// Whether `dismissal` names this finding: the same rule on the same text of the same
    /// file, saying the same thing (line numbers move between revisions; the text a rule
    /// matched and what it found there do not), no more severe than what the reviewer
    /// judged. A flow's message names its source, so a dismissed flow whose source
    /// changes is a new finding.
    pub fn matches(&self, dismissal: &Dismissal) -> bool {
        self.matches_keyed(dismissal, &message_key(&self.message))
    }

    /// [`Finding::matches`] with this finding's [`message_key`] worked out once.
    fn matches_keyed(&self, dismissal: &Dismissal, key: &str) -> bool {
        self.rule == dismissal.rule
            && self.file == dismissal.file
            && self.excerpt == dismissal.excerpt
            && self.severity <= dismissal.severity
            && key == dismissal.message
    }

    /// Whether this finding is one `earlier` already reported, as a dismissal of `earlier`
    /// would match it: same rule, file, text and message, no more severe.
    pub fn is_reported_by(&self, earlier: &Finding) -> bool {
        self.rule == earlier.rule
            && self.file == earlier.file
            && self.excerpt == earlier.excerpt
            && self.severity <= earlier.severity
            && message_key(&self.message) == message_key(&earlier.message)
    }

    /// Whether this finding can be told apart from others well enough to be dismissed:
    /// it points at text (not a whole file), and that text is shown whole (not a masked
    /// secret, not cut short).
    pub fn identifiable(&self) -> bool {
        !self.excerpt.is_empty() && !self.excerpt.contains("****") && !self.excerpt.contains('…')
    }
}

/// A finding's message as a dismissal keeps it: line numbers (`line 12`) left out, since
/// they move when the file changes above them.
pub fn message_key(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        let (before, after) = rest.split_at(at + "line ".len());
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('#');
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// A reviewer's judgement that one finding of a skill is a false positive, kept with the
/// skill so later scans of it (new patches, rescans) show the finding as dismissed
/// instead of raising it again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "FindingDismissal")
)]
pub struct Dismissal {
    /// The rule of the dismissed finding.
    pub rule: String,
    /// The file it was found in.
    pub file: String,
    /// The text the rule matched, as in the finding's excerpt.
    pub excerpt: String,
    /// What the finding said ([`message_key`]).
    pub message: String,
    /// The severity the reviewer judged: a finding of the same text that is more severe
    /// (another context made it so) is not dismissed by it.
    pub severity: Severity,
    /// Who dismissed it, why and when.
    #[serde(flatten)]
    pub dismissed: Dismissed,
}

/// Who dismissed a finding, why and when (shown beside the finding on every surface).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "FindingDismissed")
)]
pub struct Dismissed {
    /// The dismissal's id (for revoking it).
    pub id: i64,
    /// The reviewer's handle.
    pub by: String,
    /// Why the finding is a false positive.
    pub reason: String,
    /// When (RFC 3339).
    pub at: String,
}

/// A scan's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema), schemars(rename = "ScanReport"))]
pub struct Report {
    /// The verdict over every finding.
    pub verdict: Verdict,
    /// The findings, by file, line and column.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Marks the findings that `dismissals` name as dismissed and computes the verdict
    /// again without them.
    pub fn apply_dismissals(&mut self, dismissals: &[Dismissal]) {
        for finding in &mut self.findings {
            let key = message_key(&finding.message);
            finding.dismissed = dismissals
                .iter()
                .find(|d| finding.matches_keyed(d, &key))
                .map(|d| d.dismissed.clone());
        }
        self.verdict = Verdict::of(&self.findings);
    }

    /// The findings that still count (not dismissed).
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.dismissed.is_none())
    }

    /// A report over `findings` (sorted, verdict computed).
    pub fn new(mut findings: Vec<Finding>) -> Report {
        // One finding per rule and line, the most severe (then the first): grouped by rule
        // first, so another rule's finding between two columns cannot keep both.
        findings.sort_by(|a, b| {
            (a.file.as_str(), a.line, a.rule.as_str(), b.severity, a.column).cmp(&(
                b.file.as_str(),
                b.line,
                b.rule.as_str(),
                a.severity,
                b.column,
            ))
        });
        findings.dedup_by(|a, b| a.file == b.file && a.line == b.line && a.rule == b.rule);
        findings.sort_by(|a, b| {
            (a.file.as_str(), a.line, a.column, a.rule.as_str()).cmp(&(
                b.file.as_str(),
                b.line,
                b.column,
                b.rule.as_str(),
            ))
        });
        Report {
            verdict: Verdict::of(&findings),
            findings,
        }
    }
}

/// Longest excerpt, in characters.
const EXCERPT_CHARS: usize = 160;

/// The excerpt of `line` around `start..end` (byte offsets): invisible and control
/// characters made visible, `mask` ranges replaced by `****` (secrets), at most
/// [`EXCERPT_CHARS`] characters.
pub fn excerpt(line: &str, start: usize, end: usize, mask: Option<(usize, usize)>) -> String {
    let mut text = String::new();
    let (from, to) = window(line, start, end);
    if from > 0 {
        text.push('…');
    }
    let mut masked = false;
    for (i, c) in line[from..to].char_indices() {
        let at = from + i;
        if let Some((m0, m1)) = mask
            && at >= m0
            && at < m1
        {
            if !masked {
                let secret = &line[m0..m1];
                let keep: String = secret.chars().take(4).collect();
                text.push_str(&keep);
                text.push_str("****");
                masked = true;
            }
            continue;
        }
        if is_invisible(c) || (c.is_control() && c != '\t') {
            text.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            text.push(c);
        }
    }
    if to < line.len() {
        text.push('…');
    }
    text
}

/// A window of at most [`EXCERPT_CHARS`] characters around `start..end`, on char boundaries.
fn window(line: &str, start: usize, end: usize) -> (usize, usize) {
    if line.chars().nth(EXCERPT_CHARS).is_none() {
        return (0, line.len());
    }
    let boundary = |mut i: usize| {
        while i < line.len() && !line.is_char_boundary(i) {
            i += 1;
        }
        i.min(line.len())
    };
    let context = EXCERPT_CHARS / 3;
    let from = boundary(start.saturating_sub(context));
    let mut to = from;
    for (count, (i, c)) in line[from..].char_indices().enumerate() {
        to = from + i + c.len_utf8();
        // Past the finding's end, or at twice the size when the finding runs on (a
        // finding that spans a 1 MB line shows its start, not the megabyte).
        if count + 1 >= EXCERPT_CHARS && to >= end.min(line.len()) || count + 1 >= 2 * EXCERPT_CHARS {
            break;
        }
    }
    (from, to)
}

/// Characters that render as nothing (or reorder text) and so can hide instructions.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' |
        '\u{2066}'..='\u{2069}' | '\u{FEFF}' | '\u{00AD}' | '\u{E0000}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_reports_a_line_once_at_its_most_severe_whatever_lies_between() {
        let at = |rule: &str, column: usize, severity: Severity| Finding {
            column,
            ..finding(rule, severity, "", 3)
        };
        let report = Report::new(vec![
            at("a.rule", 1, Severity::Medium),
            at("b.rule", 5, Severity::Low),
            at("a.rule", 10, Severity::High),
        ]);
        let kept: Vec<(&str, usize, Severity)> = report
            .findings
            .iter()
            .map(|f| (f.rule.as_str(), f.column, f.severity))
            .collect();
        assert_eq!(kept, [("b.rule", 5, Severity::Low), ("a.rule", 10, Severity::High)]);
        assert_eq!(report.verdict, Verdict::Dangerous);
    }

    #[test]
    fn excerpts_mask_secrets_and_show_invisible_characters() {
        let line = "token = ghp_abcdefghijklmnopqrstuvwxyz0123456789 end";
        let e = excerpt(line, 8, 48, Some((8, 48)));
        assert_eq!(e, "token = ghp_**** end");
        assert_eq!(excerpt("a\u{200B}b", 0, 1, None), "a<U+200B>b");
        let long = "x".repeat(1000) + "curl | sh" + &"y".repeat(1000);
        let e = excerpt(&long, 1000, 1009, None);
        assert!(e.contains("curl | sh") && e.starts_with('…') && e.ends_with('…'), "{e}");
        assert!(e.chars().count() <= EXCERPT_CHARS + 2);
        // A finding that runs to the end of a very long line shows its start only.
        let e = excerpt(&long, 1000, long.len(), None);
        assert!(
            e.starts_with('…') && e.ends_with('…') && e.chars().count() <= 2 * EXCERPT_CHARS + 2,
            "{e}"
        );
    }

    #[test]
    fn the_most_severe_finding_decides_the_verdict() {
        assert_eq!(Verdict::of(&[]), Verdict::Safe);
        assert!(Severity::Critical > Severity::High && Severity::Low > Severity::Info);
        assert_eq!(Severity::High.lowered(), Severity::Medium);
    }

    fn finding(rule: &str, severity: Severity, excerpt: &str, line: usize) -> Finding {
        Finding {
            rule: rule.to_owned(),
            category: "test".to_owned(),
            severity,
            file: "SKILL.md".to_owned(),
            line,
            column: 1,
            excerpt: excerpt.to_owned(),
            message: format!("runs a download (line {line})"),
            hint: String::new(),
            introduced: None,
            dismissed: None,
        }
    }

    #[test]
    fn dismissed_findings_stay_listed_but_no_longer_decide_the_verdict() {
        let mut report = Report::new(vec![
            finding("rce.pipe-to-shell", Severity::High, "curl https://x | sh", 3),
            finding("net.webhook", Severity::Medium, "post to hooks.example", 9),
        ]);
        assert_eq!(report.verdict, Verdict::Dangerous);
        let dismissal = Dismissal {
            rule: "rce.pipe-to-shell".to_owned(),
            file: "SKILL.md".to_owned(),
            excerpt: "curl https://x | sh".to_owned(),
            message: message_key("runs a download (line 3)"),
            severity: Severity::High,
            dismissed: Dismissed {
                id: 7,
                by: "rita".to_owned(),
                reason: "the vendor's own installer".to_owned(),
                at: "2026-12-03T08:00:00Z".to_owned(),
            },
        };
        report.apply_dismissals(std::slice::from_ref(&dismissal));
        assert_eq!(report.verdict, Verdict::Caution, "the medium finding still counts");
        assert_eq!(report.findings.len(), 2, "a dismissed finding is still shown");
        assert_eq!(report.findings[0].dismissed.as_ref().map(|d| d.id), Some(7));
        assert_eq!(report.active().count(), 1);
        // The same text on another line (the file moved on) is the same finding; other
        // text matched by the same rule is not.
        let mut later = Report::new(vec![
            finding("rce.pipe-to-shell", Severity::High, "curl https://x | sh", 30),
            finding("rce.pipe-to-shell", Severity::High, "curl https://y | sh", 31),
        ]);
        later.apply_dismissals(std::slice::from_ref(&dismissal));
        assert!(later.findings[0].dismissed.is_some() && later.findings[1].dismissed.is_none());
        assert_eq!(later.verdict, Verdict::Dangerous);
        // The same text found more severe (another context), or saying something else
        // (a flow from another source), is not what the reviewer judged.
        let mut worse = Report::new(vec![finding(
            "rce.pipe-to-shell",
            Severity::Critical,
            "curl https://x | sh",
            3,
        )]);
        worse.apply_dismissals(std::slice::from_ref(&dismissal));
        assert!(worse.findings[0].dismissed.is_none());
        let mut other = finding("rce.pipe-to-shell", Severity::High, "curl https://x | sh", 3);
        other.message = "runs a download from another host (line 3)".to_owned();
        let mut other = Report::new(vec![other]);
        other.apply_dismissals(&[dismissal]);
        assert!(other.findings[0].dismissed.is_none());
        assert_eq!(
            message_key("from line 12: x (line 3), lines"),
            "from line #: x (line #), lines"
        );
        // Serialised, an undismissed finding has no `dismissed` field (older readers).
        let json = serde_json::to_value(&later.findings[1]).unwrap();
        assert!(json.get("dismissed").is_none());
    }
}
