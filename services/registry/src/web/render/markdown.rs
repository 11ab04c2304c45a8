//! Safe rendering of SKILL.md files for the admin pages.
//!
//! Skill files are written by agents and must be treated as hostile: raw HTML is shown as inert
//! text, links are limited to a few harmless schemes, images never load third-party content, and the
//! result is run through `ammonia` as a second line of defence.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Splits a SKILL.md into its YAML frontmatter (without the `---` fences) and the Markdown body.
///
/// Exists so the admin pages can show the metadata separately from the prose. The frontmatter must
/// start on the very first line (an optional UTF-8 BOM is skipped) with a `---` fence and end with a
/// `---` (or YAML's `...`) fence line; without a closing fence the whole source is treated as body.
/// Both `\n` and `\r\n` line endings are accepted.
pub fn split_frontmatter(source: &str) -> (Option<&str>, &str) {
    let text = source.strip_prefix('\u{feff}').unwrap_or(source);
    let Some((first, rest)) = split_line(text) else {
        return (None, source);
    };
    if first.trim_end() != "---" {
        return (None, source);
    }
    let mut offset = 0;
    let mut remaining = rest;
    while let Some((line, after)) = split_line(remaining) {
        let fence = line.trim_end();
        if fence == "---" || fence == "..." {
            return (Some(&rest[..offset]), after);
        }
        offset += remaining.len() - after.len();
        remaining = after;
    }
    (None, source)
}

/// Returns the first line of `text` (without its `\n`) and everything after it, or `None` when
/// `text` is empty. A final line without a newline is still returned.
fn split_line(text: &str) -> Option<(&str, &str)> {
    if text.is_empty() {
        return None;
    }
    match text.find('\n') {
        Some(pos) => Some((&text[..pos], &text[pos + 1..])),
        None => Some((text, "")),
    }
}

/// Renders untrusted Markdown to HTML safe to embed in our pages.
///
/// Exists because skill files come from agents: raw HTML is shown as visible, escaped text, only
/// `http:`, `https:`, `mailto:`, fragment, absolute-path and relative links survive, images become
/// plain links (so the page never fetches third-party content), and `ammonia` cleans the output.
///
/// `link_base`: when `Some("/admin/skills/foo/versions/3/files/")`, relative links (not starting with
/// `/`, `#`, or a scheme) are rewritten to `link_base` + the link (so `references/api.md` opens the
/// file view); when `None` they are left relative. Pass the body returned by [`split_frontmatter`].
pub fn render_markdown(source: &str, link_base: Option<&str>) -> String {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let events = sanitize_events(Parser::new_ext(source, options), link_base);
    let mut html = String::with_capacity(source.len() + source.len() / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    SANITIZER.clean(&html).to_string()
}

/// What a link or image start tag was turned into, remembered until its end tag.
struct Frame {
    /// Whether a `Start(Link)` was emitted (and so an `End(Link)` is owed).
    emitted: bool,
    /// Index in the output of the emitted start event (images: to detect empty alt text).
    start: usize,
    /// Text to show for an image whose alt text is empty.
    fallback: String,
}

/// Rewrites the parser's events so that nothing dangerous reaches the HTML writer.
fn sanitize_events<'a>(parser: Parser<'a>, link_base: Option<&str>) -> Vec<Event<'a>> {
    let mut out: Vec<Event<'a>> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for event in parser {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            }) => {
                let dest = if link_type == LinkType::Email {
                    format!("mailto:{dest_url}")
                } else {
                    dest_url.to_string()
                };
                open_link(&mut out, &mut stack, &dest, title, link_base, String::new());
            }
            Event::Start(Tag::Image { dest_url, title, .. }) => {
                // Images are never loaded: they become a link to the image, showing the alt text.
                open_link(&mut out, &mut stack, &dest_url, title, link_base, dest_url.to_string());
            }
            Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => {
                if let Some(frame) = stack.pop()
                    && frame.emitted
                {
                    if out.len() == frame.start + 1 && !frame.fallback.is_empty() {
                        out.push(Event::Text(CowStr::from(frame.fallback)));
                    }
                    out.push(Event::End(TagEnd::Link));
                }
            }
            // Block HTML becomes a visible preformatted block of escaped text.
            Event::Start(Tag::HtmlBlock) => out.push(Event::Start(Tag::CodeBlock(CodeBlockKind::Indented))),
            Event::End(TagEnd::HtmlBlock) => out.push(Event::End(TagEnd::CodeBlock)),
            Event::Html(text) | Event::InlineHtml(text) => out.push(Event::Text(text)),
            other => out.push(other),
        }
    }
    out
}

/// Builds the start event of a plain inline link.
/// Opens a link (or an image shown as one): a link to a safe target, unless it sits inside
/// another link; its frame remembers whether it was emitted and what shows when its text
/// is empty.
fn open_link<'a>(
    out: &mut Vec<Event<'a>>,
    stack: &mut Vec<Frame>,
    dest: &str,
    title: CowStr<'a>,
    link_base: Option<&str>,
    fallback: String,
) {
    let inside_link = stack.iter().any(|frame| frame.emitted);
    let href = if inside_link { None } else { safe_href(dest, link_base) };
    let start = out.len();
    let emitted = href.is_some();
    if let Some(href) = href {
        out.push(link_start(href, title));
    }
    stack.push(Frame {
        emitted,
        start,
        fallback,
    });
}

fn link_start<'a>(href: String, title: CowStr<'a>) -> Event<'a> {
    Event::Start(Tag::Link {
        link_type: LinkType::Inline,
        dest_url: CowStr::from(href),
        title,
        id: CowStr::Borrowed(""),
    })
}

/// Returns the href to emit for a link destination, or `None` when the link must be dropped.
///
/// The destination has already had entities and backslash escapes decoded by the parser, so tricks
/// such as `&#106;avascript:` arrive here as `javascript:`. Like a browser, tabs and newlines are
/// removed anywhere and control characters and spaces are trimmed at both ends before the scheme is
/// looked at. Any scheme other than `http`, `https` and `mailto` is refused.
fn safe_href(dest: &str, link_base: Option<&str>) -> Option<String> {
    let cleaned: String = dest.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
    let url = cleaned.trim_matches(|c: char| c <= ' ' || c == '\u{7f}');
    if url.is_empty() {
        return None;
    }
    if url.starts_with('#') || url.starts_with('/') || url.starts_with('\\') {
        return Some(url.to_string());
    }
    let first_special = url.find([':', '/', '?', '#']);
    if let Some(pos) = first_special
        && url[pos..].starts_with(':')
    {
        let scheme = &url[..pos];
        let allowed = ["http", "https", "mailto"]
            .iter()
            .any(|allowed| scheme.eq_ignore_ascii_case(allowed));
        return allowed.then(|| url.to_string());
    }
    match link_base {
        Some(base) => {
            let mut relative = url;
            while let Some(rest) = relative.strip_prefix("./") {
                relative = rest;
            }
            Some(format!("{base}{relative}"))
        }
        None => Some(url.to_string()),
    }
}

/// The `ammonia` configuration used as the second layer of defence.
static SANITIZER: LazyLock<ammonia::Builder<'static>> = LazyLock::new(|| {
    let tags: HashSet<&'static str> = [
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "ul",
        "ol",
        "li",
        "blockquote",
        "pre",
        "code",
        "em",
        "strong",
        "del",
        "a",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "hr",
        "br",
        "input",
        "sup",
        "div",
        "span",
    ]
    .into_iter()
    .collect();
    let tag_attributes: HashMap<&'static str, HashSet<&'static str>> = [
        ("a", ["href", "title"].into_iter().collect()),
        ("input", ["type", "disabled", "checked"].into_iter().collect()),
        ("code", ["class"].into_iter().collect()),
        ("ol", ["start"].into_iter().collect()),
    ]
    .into_iter()
    .collect();
    let mut builder = ammonia::Builder::empty();
    builder
        .tags(tags)
        .tag_attributes(tag_attributes)
        .generic_attributes(HashSet::new())
        .url_schemes(["http", "https", "mailto"].into_iter().collect())
        .url_relative(ammonia::UrlRelative::PassThrough)
        .link_rel(Some("noopener noreferrer nofollow"))
        .attribute_filter(filter_attribute);
    builder
});

/// Narrows the few attributes whose values we produce ourselves to exactly those values.
fn filter_attribute<'u>(element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    match (element, attribute) {
        ("code", "class") => {
            let language = value.strip_prefix("language-")?;
            let plain = !language.is_empty()
                && language
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.' | '#'));
            plain.then_some(Cow::Borrowed(value))
        }
        ("input", "type") => (value == "checkbox").then_some(Cow::Borrowed(value)),
        _ => Some(Cow::Borrowed(value)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The real tags of `html` (escaped text never contains a literal `<`), lowercased.
    fn tags(html: &str) -> Vec<String> {
        let lower = html.to_ascii_lowercase();
        lower
            .split('<')
            .skip(1)
            .map(|rest| rest.split('>').next().unwrap_or("").to_string())
            .collect()
    }

    /// Every `href`/`src` attribute value inside a real tag, lowercased.
    fn urls(html: &str) -> Vec<String> {
        let mut found = Vec::new();
        for tag in tags(html) {
            for attr in ["href=\"", "src=\""] {
                if let Some(pos) = tag.find(attr) {
                    let after = &tag[pos + attr.len()..];
                    found.push(after[..after.find('"').unwrap_or(after.len())].to_string());
                }
            }
        }
        found
    }

    fn assert_no_link(html: &str) {
        for tag in tags(html) {
            assert!(
                !tag.contains("href") && !tag.contains("src"),
                "unexpected url in {html}"
            );
            assert!(
                !tag.starts_with("a ") && !tag.starts_with("img"),
                "unexpected link tag in {html}"
            );
            assert!(!tag.contains("javascript"), "javascript in a tag: {html}");
        }
    }

    #[test]
    fn script_tag_is_inert_and_visible() {
        let html = render_markdown("<script>alert(1)</script>\n", None);
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        let inline = render_markdown("hello <script>alert(1)</script> world", None);
        assert!(inline.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{inline}");
        assert!(!inline.contains("<script"), "{inline}");
    }

    #[test]
    fn img_onerror_is_inert() {
        for source in [
            "<img src=x onerror=alert(1)>\n",
            "text <img src=x onerror=alert(1)> text",
        ] {
            let html = render_markdown(source, None);
            assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;"), "{html}");
            assert!(!html.contains("<img"), "{html}");
            assert_no_link(&html);
        }
    }

    #[test]
    fn raw_anchor_with_javascript_is_text() {
        let html = render_markdown("click <a href=\"javascript:alert(1)\">me</a>", None);
        assert!(html.contains("&lt;a href=\"javascript:alert(1)\"&gt;"), "{html}");
        assert_no_link(&html);
        let block = render_markdown("<div><a href=\"javascript:alert(1)\">me</a></div>\n", None);
        assert!(block.contains("&lt;div&gt;&lt;a href="), "{block}");
        assert!(block.contains("<pre>"), "{block}");
        assert_no_link(&block);
    }

    #[test]
    fn dangerous_schemes_are_dropped() {
        let cases = [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x]( javascript:alert(1))",
            "[x](<\u{1}javascript:alert(1)>)",
            "[x](<\tjavascript:alert(1)>)",
            "[x](java&#x09;script:alert(1))",
            "[x](java&#9;script:alert(1))",
            "[x](<java\nscript:alert(1)>)",
            "[x](&#106;avascript:alert(1))",
            "[x](&#x6A;avascript&#x3A;alert(1))",
            "[x](javascript&colon;alert(1))",
            "[x](java\\script:alert(1))",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox(1))",
            "[x](file:///etc/passwd)",
            "<javascript:alert(1)>",
            "[x][r]\n\n[r]: javascript:alert(1)",
            "![x](javascript:alert(1))",
            "![x](data:image/png;base64,AAAA)",
        ];
        for source in cases {
            let html = render_markdown(source, Some("/base/"));
            assert_no_link(&html);
            assert!(!html.to_ascii_lowercase().contains("href=\"javascript"), "{html}");
            assert!(!html.to_ascii_lowercase().contains("href"), "{html}");
            assert!(html.contains('x') || html.contains("javascript"), "{source} -> {html}");
        }
        // The link text stays visible.
        let html = render_markdown("[click here](javascript:alert(1))", None);
        assert!(html.contains("click here"), "{html}");
    }

    #[test]
    fn safe_schemes_are_kept_with_rel() {
        let html = render_markdown(
            "[site](https://example.com/a?b=1) and [mail](mailto:a@example.com)",
            None,
        );
        let found = urls(&html);
        assert_eq!(
            found,
            vec!["https://example.com/a?b=1", "mailto:a@example.com"],
            "{html}"
        );
        assert!(html.contains("rel=\"noopener noreferrer nofollow\""), "{html}");
        let auto = render_markdown("<a@example.com> <HTTP://Example.com>", Some("/base/"));
        assert_eq!(
            urls(&auto),
            vec!["mailto:a@example.com", "http://example.com"],
            "{auto}"
        );
    }

    #[test]
    fn relative_links_are_rewritten_with_base() {
        let base = Some("/admin/skills/foo/versions/3/files/");
        let html = render_markdown(
            "[api](references/api.md) [dot](./scripts/run.sh) [top](#usage) [abs](/admin/x)",
            base,
        );
        assert_eq!(
            urls(&html),
            vec![
                "/admin/skills/foo/versions/3/files/references/api.md",
                "/admin/skills/foo/versions/3/files/scripts/run.sh",
                "#usage",
                "/admin/x",
            ],
            "{html}"
        );
        let plain = render_markdown("[api](references/api.md)", None);
        assert_eq!(urls(&plain), vec!["references/api.md"], "{plain}");
    }

    #[test]
    fn remote_image_becomes_link() {
        let html = render_markdown("![a diagram](https://evil.example/track.png)", None);
        assert!(!html.contains("<img"), "{html}");
        assert_eq!(urls(&html), vec!["https://evil.example/track.png"], "{html}");
        assert!(html.contains(">a diagram</a>"), "{html}");
        let empty_alt = render_markdown("![](https://evil.example/t.png)", None);
        assert!(empty_alt.contains(">https://evil.example/t.png</a>"), "{empty_alt}");
        let relative = render_markdown("![chart](img/chart.png)", Some("/files/"));
        assert_eq!(urls(&relative), vec!["/files/img/chart.png"], "{relative}");
        assert!(!relative.contains("<img"), "{relative}");
        // An image inside a link does not create a nested anchor.
        let nested = render_markdown("[![alt](https://a.example/i.png)](https://b.example/)", None);
        assert_eq!(urls(&nested), vec!["https://b.example/"], "{nested}");
    }

    #[test]
    fn markdown_features_render() {
        let source = "# Title\n\n| a | b |\n|:-:|--:|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n- [ ] todo\n\n```rust\nlet x = \"<b>\";\n```\n";
        let html = render_markdown(source, None);
        assert!(html.contains("<h1>Title</h1>"), "{html}");
        assert!(html.contains("<table>"), "{html}");
        // Column alignment would need an inline style, which the pages' CSP forbids.
        assert!(!html.contains("style="), "{html}");
        assert!(html.contains("<del>old</del>"), "{html}");
        assert!(html.contains("type=\"checkbox\""), "{html}");
        assert!(html.contains("checked"), "{html}");
        assert!(html.contains("<code class=\"language-rust\">"), "{html}");
        assert!(html.contains("&lt;b&gt;"), "{html}");
        let odd_lang = render_markdown("```\"onclick=x\n1\n```\n", None);
        assert!(!odd_lang.contains("class"), "{odd_lang}");
    }

    #[test]
    fn frontmatter_is_split() {
        let source = "---\nname: foo\ndescription: bar\n---\n# Body\n\ntext\n---\nmore\n";
        assert_eq!(
            split_frontmatter(source),
            (Some("name: foo\ndescription: bar\n"), "# Body\n\ntext\n---\nmore\n")
        );
        assert_eq!(split_frontmatter("# Just body\n---\n"), (None, "# Just body\n---\n"));
        assert_eq!(
            split_frontmatter("---\nname: x\nno close\n"),
            (None, "---\nname: x\nno close\n")
        );
        assert_eq!(split_frontmatter("---\n---\nbody"), (Some(""), "body"));
        assert_eq!(split_frontmatter("---\nname: x\n---"), (Some("name: x\n"), ""));
        assert_eq!(
            split_frontmatter("---\r\nname: x\r\n---\r\nbody\r\n"),
            (Some("name: x\r\n"), "body\r\n")
        );
        assert_eq!(
            split_frontmatter("\u{feff}---\nname: x\n---\nbody"),
            (Some("name: x\n"), "body")
        );
        assert_eq!(split_frontmatter(""), (None, ""));
        assert_eq!(split_frontmatter("----\nx\n----\n"), (None, "----\nx\n----\n"));
    }

    #[test]
    fn random_inputs_do_not_panic() {
        let pieces = [
            "<",
            ">",
            "[",
            "]",
            "(",
            ")",
            "!",
            "`",
            "*",
            "_",
            "~",
            "|",
            "-",
            "#",
            "\n",
            " ",
            "&#",
            ";",
            "x",
            ":",
            "javascript",
            "\t",
            "\\",
            "\"",
            "é",
            "\u{0}",
            "---",
            "> ",
            "1. ",
            "- [ ] ",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..500 {
            let mut source = String::new();
            for _ in 0..40 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                source.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            let html = render_markdown(&source, Some("/b/"));
            assert!(
                !html.to_ascii_lowercase().contains("href=\"javascript"),
                "{source:?} -> {html}"
            );
            let _ = split_frontmatter(&source);
        }
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for source in [
            "", "\0", "[", "![", "<", "```", "|a|\n|-|", "\u{feff}", "[x](<>)", "[]()",
        ] {
            let _ = render_markdown(source, Some("/b/"));
            let _ = split_frontmatter(source);
        }
    }
}
