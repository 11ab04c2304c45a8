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
        && !localized_spans(line, context)
    {
        // An override (LRO, RLO) forces the display order of everything after it: natural
        // text never needs one, in prose or code ("3. Attach <RLO>… and redact …" reads
        // to the agent in the opposite order from what the reviewer sees).
        // One shown as a sample inside inline code (a table documenting the controls) is
        // mentioned, not used.
        let overrides = line
            .char_indices()
            .any(|(at, c)| matches!(c, '\u{202D}' | '\u{202E}') && line[..at].matches('`').count().is_multiple_of(2));
        out.push(Hidden {
            rule: "hidden.bidi-control",
            severity: if context == Context::Prose && !overrides {
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

/// Whether a character is written right to left (Hebrew, Arabic, Syriac, Thaana, N'Ko,
/// and their presentation forms).
fn is_rtl(c: char) -> bool {
    matches!(c, '\u{0590}'..='\u{08FF}' | '\u{FB1D}'..='\u{FDFF}' | '\u{FE70}'..='\u{FEFC}')
}

/// Whether the line's bidirectional controls are the ones localised right-to-left text
/// uses to set a left-to-right value inside a right-to-left sentence: isolates (LRI, RLI,
/// FSI … PDI) or embeddings (LRE, RLE … PDF), each closed on the line and not nested, each
/// wrapping a value no reordering can disguise — a placeholder (`{name}`, `%(count)s`,
/// `%1$@`, `#{{id}}`), a word, number, path or phone number without code syntax, or in
/// documents one inline code span — and each standing beside right-to-left letters
/// (`آخر مزامنة: {time}` with the placeholder isolated), or itself right-to-left words in
/// left-to-right text. A script's span must also be inside a string literal. Overrides
/// (LRO, RLO), which Trojan Source relies on, never are.
fn localized_spans(line: &str, context: Context) -> bool {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut open: Option<usize> = None;
    let mut spans = Vec::new();
    for (i, &(_, c)) in chars.iter().enumerate() {
        match c {
            '\u{202D}' | '\u{202E}' => return false,
            '\u{202A}' | '\u{202B}' | '\u{2066}'..='\u{2068}' if open.is_some() => return false,
            '\u{202A}' | '\u{202B}' | '\u{2066}'..='\u{2068}' => open = Some(i),
            '\u{202C}' | '\u{2069}' => {
                let Some(start) = open.take() else { return false };
                // An embedding closes with PDF, an isolate with PDI.
                let embedding = matches!(chars[start].1, '\u{202A}' | '\u{202B}');
                if embedding != (c == '\u{202C}') {
                    return false;
                }
                spans.push((start, i));
            }
            _ => {}
        }
    }
    if open.is_some() || spans.is_empty() {
        return false;
    }
    spans.iter().all(|&(start, end)| {
        let inner: String = chars[start + 1..end].iter().map(|&(_, c)| c).collect();
        let beside_rtl = chars[..start]
            .iter()
            .rev()
            .map(|&(_, c)| c)
            .find(|c| c.is_alphabetic())
            .is_some_and(is_rtl)
            || chars[end + 1..]
                .iter()
                .map(|&(_, c)| c)
                .find(|c| c.is_alphabetic())
                .is_some_and(is_rtl);
        let in_string = chars[..start].iter().filter(|&&(_, c)| c == '"').count() % 2 != 0;
        let inner = inner.trim();
        (context != Context::Script || in_string)
            && (rtl_text(inner)
                || beside_rtl && (plain_value(inner) || context != Context::Script && inline_code(inner)))
    })
}

/// Right-to-left words set in left-to-right text (an Arabic name isolated in an English
/// sentence): more right-to-left letters than ASCII ones, no code syntax.
fn rtl_text(inner: &str) -> bool {
    inner.chars().filter(|&c| is_rtl(c)).count() > inner.chars().filter(char::is_ascii_alphabetic).count()
        && !inner.contains([';', '|', '&', '$', '`', '<', '>', '{', '}', '\'', '"', '\\'])
}

/// A value set left to right in right-to-left text: a placeholder, an address, or a word,
/// number, path or phone number with no code syntax a reordering could hide (`;`, `|`, quotes,
/// brackets, `$`).
fn plain_value(inner: &str) -> bool {
    let placeholder = inner.starts_with('{') && inner.ends_with('}') && !inner[1..inner.len() - 1].contains(['{', '}'])
        || inner.starts_with("{{") && inner.ends_with("}}")
        || inner.starts_with("#{{") && inner.ends_with("}}")
        || inner.starts_with('%')
            && inner.len() <= 16
            && inner[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '(' | ')' | '_' | '$' | '@' | '.'));
    let word = !inner.is_empty()
        && inner.len() <= 80
        && !inner.contains([
            ';', '|', '&', '$', '`', '<', '>', '(', ')', '{', '}', '\'', '"', '\\', '#',
        ]);
    // An address (`https://track.example.com/{{ticket.id}}`): one token, no quotes.
    let address = (inner.starts_with("https://") || inner.starts_with("http://"))
        && !inner.contains(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | '<' | '>' | '"' | '\'' | '\\' | '`'));
    placeholder || word || address
}

/// One inline code span (`` `npm run start -- --locale yi` ``) set in right-to-left prose.
fn inline_code(inner: &str) -> bool {
    inner.len() > 2 && inner.starts_with('`') && inner.ends_with('`') && !inner[1..inner.len() - 1].contains('`')
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
        // Placeholders of every localisation format, embeddings around a phone number, a
        // path or inline code set in right-to-left text, a script's RTL string literal.
        for (line, context) in [
            ("msgstr \"تم شحن الطلب \u{2068}%(order_id)s\u{2069}\"", Context::Code),
            ("\"lastSync\": \"آخر مزامنة: \u{2066}{time}\u{2069}\",", Context::Code),
            (
                "\"support.phone\" = \"שירות לקוחות: \u{202A}+972-3-555-0100\u{202C}\";",
                Context::Data,
            ),
            (
                "آپ کا آرڈر \u{2066}#{{ticket.id}}\u{2069} روانہ کر دیا گیا ہے۔",
                Context::Prose,
            ),
            (
                "לויפֿט \u{2066}`npm run start -- --locale yi`\u{2069} כּדי צו זען",
                Context::Code,
            ),
            (
                "assert_eq!(msg, \"فایل \u{2068}out/report.csv\u{2069} ذخیره شد.\");",
                Context::Script,
            ),
            ("Signed by \u{2067}نور الهدى\u{2069} on 3 May.", Context::Prose),
            (
                "\"value\": \"لنک: \u{2066}https://track.example.com/{{ticket.id}}\u{2069}\"",
                Context::Data,
            ),
        ] {
            assert!(check_line(line, context, false).is_empty(), "{line}");
        }
        // Trojan Source: an override, code inside the span, no right-to-left text beside
        // it, a script's span outside a string, or a mismatched closing control.
        for (line, context) in [
            (
                "if (level != \"user\u{202E} \u{2066}// admin\u{2069} \u{2066}\") {",
                Context::Script,
            ),
            ("שלום \u{2066}x; rm -rf ~\u{2069}", Context::Code),
            ("return \u{2066}isAdmin\u{2069};", Context::Script),
            ("שלום \u{2066}isAdmin\u{2069} עולם", Context::Script),
            ("שלום \u{2066}{name}\u{202C}", Context::Data),
            ("שלום \u{2066}`a`\u{2069} עולם", Context::Script),
        ] {
            assert!(!check_line(line, context, false).is_empty(), "{line}");
        }
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
