//! Hidden text: characters that render as nothing or reorder what a reviewer sees, and
//! lookalike letters in domains. Legitimate uses are left alone: emoji sequences joined
//! by U+200D, joiners between letters of scripts that need them (Persian, Indic), flag
//! tag sequences, and right-to-left marks in right-to-left prose.

use unicode_security::MixedScript;

use crate::context::Context;
use crate::report::Severity;

/// A hidden-text problem on one line.
#[derive(Debug, PartialEq, Eq)]
pub struct Hidden {
    /// Rule id.
    pub rule: &'static str,
    /// Severity.
    pub severity: Severity,
    /// Byte offset of the first character involved.
    pub at: usize,
    /// What is wrong (with the hidden text decoded when it carries ASCII).
    pub message: String,
    /// What to do.
    pub hint: &'static str,
}

fn emoji_like(c: char) -> bool {
    matches!(c, '\u{1F000}'..='\u{1FAFF}' | '\u{2600}'..='\u{27BF}' | '\u{FE0F}')
}

fn joins_letters(c: char) -> bool {
    c.is_alphabetic() && !c.is_ascii()
}

/// Whether `line` may hold a character [`check_line`] looks at: all of them are at
/// U+200B or above, encoded with a lead byte of 0xE2 (U+2000–U+2FFF), 0xEF (U+F000–U+FFFF)
/// or 0xF3 (U+C0000–U+FFFFF).
fn may_hide(line: &str) -> bool {
    line.bytes().any(|b| matches!(b, 0xE2 | 0xEF | 0xF3))
}

/// Checks one line for hidden characters.
pub fn check_line(line: &str, context: Context, first_line: bool) -> Vec<Hidden> {
    if may_hide(line) {
        check_characters(line, context, first_line)
    } else {
        Vec::new()
    }
}

/// [`check_line`] without the fast path.
fn check_characters(line: &str, context: Context, first_line: bool) -> Vec<Hidden> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut tags = String::new();
    let mut tag_at = None;
    let mut run = 0usize;
    let mut run_at = 0usize;
    let mut bidi_at = None;
    for (i, &(at, c)) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|p| chars[p].1);
        let next = chars.get(i + 1).map(|n| n.1);
        match c {
            '\u{E0000}'..='\u{E007F}' => {
                // 🏴 + tag letters + cancel tag is a subdivision flag.
                let in_flag = chars[..i]
                    .iter()
                    .rev()
                    .find(|(_, p)| !('\u{E0020}'..='\u{E007E}').contains(p))
                    .is_some_and(|(_, p)| *p == '\u{1F3F4}');
                if !in_flag {
                    tag_at.get_or_insert(at);
                    if let Some(ascii) =
                        char::from_u32(c as u32 - 0xE0000).filter(|a| a.is_ascii_graphic() || *a == ' ')
                    {
                        tags.push(ascii);
                    }
                }
            }
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' => {
                bidi_at.get_or_insert(at);
            }
            '\u{200B}' | '\u{2060}' | '\u{2061}'..='\u{2064}' | '\u{FEFF}' | '\u{200C}' | '\u{200D}' => {
                let legit_bom = c == '\u{FEFF}' && first_line && at == 0;
                let legit_join = matches!(c, '\u{200C}' | '\u{200D}')
                    && (prev.is_some_and(|p| emoji_like(p) || joins_letters(p))
                        && next.is_some_and(|n| emoji_like(n) || joins_letters(n)));
                if !legit_bom && !legit_join {
                    if run == 0 {
                        run_at = at;
                    }
                    run += 1;
                    continue;
                }
            }
            _ => {}
        }
        flush_run(&mut out, &mut run, run_at);
    }
    flush_run(&mut out, &mut run, run_at);
    if let Some(at) = tag_at {
        out.push(Hidden {
            rule: "hidden.unicode-tags",
            severity: Severity::Critical,
            at,
            message: if tags.trim().is_empty() {
                "invisible Unicode tag characters".to_owned()
            } else {
                format!("invisible Unicode tag characters spelling: \"{}\"", tags.trim())
            },
            hint: "remove the invisible characters: agents read them, reviewers do not see them",
        });
    }
    if let Some(at) = bidi_at
        && !(context != Context::Script && localized_isolates(line) && (context != Context::Code || mostly_rtl(line)))
    {
        out.push(Hidden {
            rule: "hidden.bidi-control",
            severity: if context == Context::Prose {
                Severity::Medium
            } else {
                Severity::High
            },
            at,
            message: "bidirectional control characters reorder what is displayed (\"Trojan Source\")".to_owned(),
            hint: "remove the embedding/override/isolate characters; right-to-left text does not need them",
        });
    }
    out
}

/// Whether the line's bidirectional controls are the ones localised right-to-left text
/// uses around embedded values (`"مرحبًا، \u{2068}{name}\u{2069}!"`): isolates only, each
/// closed on the line, in a line with right-to-left letters. Overrides and embeddings,
/// which Trojan Source relies on, never are.
/// Whether a line is right-to-left text rather than code: more right-to-left letters than
/// ASCII ones (a Hebrew paragraph shown in a code block, not a command with a comment).
fn mostly_rtl(line: &str) -> bool {
    let rtl = line
        .chars()
        .filter(|c| matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}'))
        .count();
    rtl > line.chars().filter(char::is_ascii_alphabetic).count()
}

fn localized_isolates(line: &str) -> bool {
    let is_rtl = |c: char| matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}');
    let mut rtl = false;
    let mut span: Option<String> = None;
    for c in line.chars() {
        match c {
            '\u{202A}'..='\u{202E}' => return false,
            // Isolates are not nested in localised text.
            '\u{2066}'..='\u{2068}' if span.is_some() => return false,
            '\u{2066}'..='\u{2068}' => span = Some(String::new()),
            '\u{2069}' => {
                let Some(inner) = span.take() else { return false };
                // What an isolate wraps is a placeholder (`{name}`, `%s`, `{{count}}`), one
                // word or right-to-left text, never code.
                let inner = inner.trim();
                let placeholder =
                    inner.starts_with('{') && inner.ends_with('}') || inner.starts_with('%') && inner.len() <= 4;
                // Left-to-right words set in right-to-left text (`EACCES`, `npm install`,
                // `src/app.ts`): no code syntax a reordering could hide (`;`, `|`, quotes,
                // brackets, `$`).
                let word = !inner.is_empty()
                    && inner.len() <= 80
                    && !inner.contains([
                        ';', '|', '&', '$', '`', '<', '>', '(', ')', '{', '}', '\'', '"', '\\', '#',
                    ]);
                if !placeholder && !word && !inner.chars().any(is_rtl) {
                    return false;
                }
            }
            c => {
                rtl |= is_rtl(c);
                if let Some(inner) = span.as_mut() {
                    inner.push(c);
                }
            }
        }
    }
    span.is_none() && rtl
}

fn flush_run(out: &mut Vec<Hidden>, run: &mut usize, at: usize) {
    if *run == 0 {
        return;
    }
    let (severity, what) = if *run >= 8 {
        (
            Severity::High,
            "a long run of zero-width characters (a hidden encoding)",
        )
    } else {
        (Severity::Medium, "zero-width characters")
    };
    out.push(Hidden {
        rule: "hidden.zero-width",
        severity,
        at,
        message: format!("{what}: {} invisible", *run),
        hint: "remove the invisible characters; they can hide or split words a reviewer would notice",
    });
    *run = 0;
}

/// Checks the hosts of URLs on a line for mixed-script lookalikes (`pаypal.com` with a
/// Cyrillic `а`).
pub fn check_hosts(line: &str) -> Vec<Hidden> {
    let mut out = Vec::new();
    if line.is_ascii() {
        return out;
    }
    for (at, _) in line.match_indices("://") {
        let host: String = line[at + 3..]
            .chars()
            .take_while(|c| {
                !matches!(c, '/' | ':' | '?' | '#' | ' ' | ')' | ']' | '"' | '\'' | '>' | '<') && !c.is_whitespace()
            })
            .collect();
        if host.is_ascii() || host.is_empty() {
            continue;
        }
        let labels_mixed = host.split('.').any(|label| !label.is_single_script());
        let latin_lookalike =
            host.chars().any(|c| c.is_ascii_alphabetic()) && host.chars().any(|c| !c.is_ascii() && c.is_alphabetic());
        if labels_mixed || latin_lookalike {
            out.push(Hidden {
                rule: "hidden.mixed-script-domain",
                severity: Severity::High,
                at,
                message: format!("the domain \"{host}\" mixes scripts: letters that look Latin but are not"),
                hint: "write the domain in one script (or its punycode form) so reviewers see where it really points",
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(line: &str) -> Vec<&'static str> {
        let mut found: Vec<&str> = check_line(line, Context::Prose, false).iter().map(|h| h.rule).collect();
        found.extend(check_hosts(line).iter().map(|h| h.rule));
        found
    }

    #[test]
    fn tag_characters_are_decoded_and_flagged() {
        let hidden: String = "ignore previous"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).unwrap())
            .collect();
        let found = check_line(&format!("Nice skill{hidden}"), Context::Prose, false);
        assert_eq!(found[0].rule, "hidden.unicode-tags");
        assert!(found[0].message.contains("ignore previous"), "{}", found[0].message);
        // England's flag: 🏴 + tags + cancel tag.
        assert!(rules("\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} team").is_empty());
    }

    #[test]
    fn legitimate_joiners_and_marks_are_left_alone() {
        assert!(rules("family: 👨\u{200D}👩\u{200D}👧").is_empty());
        assert!(rules("می\u{200C}خواهم").is_empty(), "Persian ZWNJ");
        assert!(rules("\u{200F}שלום עולם").is_empty(), "RTL mark");
        assert_eq!(rules("pass\u{200B}word"), vec!["hidden.zero-width"]);
        assert_eq!(rules("a\u{202E}txt.exe"), vec!["hidden.bidi-control"]);
        // Localised right-to-left strings isolate their placeholders; an override or an
        // unclosed isolate still counts.
        assert!(check_line("\"greeting\": \"שלום, \u{2068}{name}\u{2069}!\"", Context::Data, false).is_empty());
        assert_eq!(rules("\"x\": \"שלום \u{202E}{name}\""), vec!["hidden.bidi-control"]);
        assert_eq!(rules("\"x\": \"שלום \u{2068}{name}\""), vec!["hidden.bidi-control"]);
        assert_eq!(rules("let a = \"\u{2068}admin\u{2069}\";"), vec!["hidden.bidi-control"]);
        assert!(
            check_line("\u{FEFF}---", Context::Prose, true).is_empty(),
            "a BOM at the start of a file"
        );
    }

    #[test]
    fn lines_without_the_lead_bytes_hide_nothing() {
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let line = format!("a{c}b");
            if !may_hide(&line) {
                assert!(check_characters(&line, Context::Prose, false).is_empty(), "{c:?}");
                assert!(check_characters(&line, Context::Code, true).is_empty(), "{c:?}");
            }
        }
    }

    #[test]
    fn lookalike_domains_are_flagged() {
        assert_eq!(
            rules("see https://p\u{0430}ypal.com/login"),
            vec!["hidden.mixed-script-domain"]
        );
        assert!(rules("see https://example.com and https://пример.рф/").is_empty());
    }
}
