//! A small Dockerfile reader: enough of the format (comments, line continuations, stages,
//! exec-form arguments, `ENV` pairs, flags) to check the structure of `deploy/Dockerfile`
//! without building it.

use serde_json::Value;

/// One instruction, with its continuation lines joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// Line of the file where it starts (1-based).
    pub line: usize,
    /// The instruction, upper-cased (`FROM`, `RUN`, …).
    pub keyword: String,
    /// Everything after the keyword, continuation lines joined with a space.
    pub arguments: String,
}

/// A build stage: a `FROM` and the instructions up to the next one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stage {
    /// The base image (`rust:1.95-bookworm`).
    pub image: String,
    /// The stage's name (`AS builder`), if any.
    pub name: Option<String>,
    /// The instructions after the `FROM`.
    pub instructions: Vec<Instruction>,
}

impl Instruction {
    /// The leading `--flag` / `--flag=value` options (`RUN --mount=…`, `COPY --from=…`,
    /// `HEALTHCHECK --interval=…`).
    pub fn flags(&self) -> Vec<&str> {
        self.arguments
            .split_whitespace()
            .take_while(|word| word.starts_with("--"))
            .collect()
    }

    /// The arguments after the leading flags.
    pub fn without_flags(&self) -> &str {
        let mut rest = self.arguments.trim_start();
        while rest.starts_with("--") {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            rest = rest[end..].trim_start();
        }
        rest
    }

    /// The exec form (`["a", "b"]`) of `text`, if it is one.
    pub fn exec_form(text: &str) -> Option<Vec<String>> {
        match serde_json::from_str::<Value>(text.trim()).ok()? {
            Value::Array(items) => items.into_iter().map(|item| item.as_str().map(str::to_owned)).collect(),
            _ => None,
        }
    }

    /// The `KEY=value` pairs of an `ENV` or `ARG` (also the legacy `ENV KEY value` form);
    /// surrounding double quotes are removed.
    pub fn pairs(&self) -> Vec<(String, String)> {
        let words = quoted_words(&self.arguments);
        match words.first() {
            Some(first) if !first.contains('=') && self.keyword == "ENV" => {
                vec![(first.clone(), unquote(&words[1..].join(" ")))]
            }
            _ => words
                .iter()
                .map(|word| match word.split_once('=') {
                    Some((key, value)) => (key.to_owned(), unquote(value)),
                    None => (word.clone(), String::new()),
                })
                .collect(),
        }
    }
}

impl Stage {
    /// The instructions with this keyword.
    pub fn all<'a>(&'a self, keyword: &'a str) -> impl Iterator<Item = &'a Instruction> + 'a {
        self.instructions.iter().filter(move |i| i.keyword == keyword)
    }

    /// The last instruction with this keyword (the one that takes effect for `USER`,
    /// `CMD`, `ENTRYPOINT`, `HEALTHCHECK`).
    pub fn last(&self, keyword: &str) -> Option<&Instruction> {
        self.instructions.iter().rev().find(|i| i.keyword == keyword)
    }
}

/// Splits on whitespace outside double quotes (`B="two words"` stays one word).
fn quoted_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                word.push(c);
            }
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

fn unquote(text: &str) -> String {
    text.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text)
        .to_owned()
}

/// Splits a Dockerfile into instructions: comment lines (parser directives included) are
/// skipped, also inside a continued instruction; a trailing `\` continues a line.
pub fn instructions(text: &str) -> Vec<Instruction> {
    let mut found = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('#') || (line.is_empty() && current.is_none()) {
            continue;
        }
        let (continues, body) = match line.strip_suffix('\\') {
            Some(body) => (true, body.trim_end()),
            None => (false, line),
        };
        let (start, mut joined) = current.take().unwrap_or((index + 1, String::new()));
        if !joined.is_empty() && !body.is_empty() {
            joined.push(' ');
        }
        joined.push_str(body);
        if continues {
            current = Some((start, joined));
        } else if !joined.is_empty() {
            found.push(split(start, &joined));
        }
    }
    if let Some((start, joined)) = current {
        found.push(split(start, &joined));
    }
    found
}

fn split(line: usize, text: &str) -> Instruction {
    let (keyword, arguments) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    Instruction {
        line,
        keyword: keyword.to_ascii_uppercase(),
        arguments: arguments.trim().to_owned(),
    }
}

/// Groups instructions into stages. Instructions before the first `FROM` (only `ARG` is
/// allowed there) are dropped.
pub fn stages(instructions: &[Instruction]) -> Vec<Stage> {
    let mut stages: Vec<Stage> = Vec::new();
    for instruction in instructions {
        if instruction.keyword == "FROM" {
            let words: Vec<&str> = instruction.without_flags().split_whitespace().collect();
            let name = match words.as_slice() {
                [_, as_word, name] if as_word.eq_ignore_ascii_case("as") => Some((*name).to_owned()),
                _ => None,
            };
            stages.push(Stage {
                image: words.first().copied().unwrap_or_default().to_owned(),
                name,
                instructions: Vec::new(),
            });
        } else if let Some(stage) = stages.last_mut() {
            stage.instructions.push(instruction.clone());
        }
    }
    stages
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"# syntax=docker/dockerfile:1
FROM --platform=$BUILDPLATFORM rust:1 AS build
RUN --mount=type=cache,target=/a \
    # a comment inside a continued instruction
    cargo build \
    && echo done
from debian:bookworm-slim
ENV A=1 \
    B="two words"
ENV LEGACY value here
HEALTHCHECK --interval=5s CMD ["/bin/x", "probe"]
USER 10001:10001
"#;

    #[test]
    fn instructions_join_continuations_and_skip_comments() {
        let all = instructions(SAMPLE);
        let keywords: Vec<&str> = all.iter().map(|i| i.keyword.as_str()).collect();
        assert_eq!(keywords, ["FROM", "RUN", "FROM", "ENV", "ENV", "HEALTHCHECK", "USER"]);
        assert_eq!(all[1].line, 3);
        assert_eq!(
            all[1].arguments,
            "--mount=type=cache,target=/a cargo build && echo done"
        );
        assert_eq!(all[1].flags(), ["--mount=type=cache,target=/a"]);
        assert_eq!(all[1].without_flags(), "cargo build && echo done");
    }

    #[test]
    fn stages_carry_their_image_name_and_instructions() {
        let stages = stages(&instructions(SAMPLE));
        assert_eq!(stages.len(), 2);
        assert_eq!(stages[0].image, "rust:1");
        assert_eq!(stages[0].name.as_deref(), Some("build"));
        assert_eq!(stages[1].image, "debian:bookworm-slim");
        assert_eq!(stages[1].name, None);
        assert_eq!(stages[1].last("USER").unwrap().arguments, "10001:10001");
        let health = stages[1].last("HEALTHCHECK").unwrap();
        let command = health.without_flags().strip_prefix("CMD").unwrap();
        assert_eq!(Instruction::exec_form(command).unwrap(), ["/bin/x", "probe"]);
    }

    #[test]
    fn env_pairs_in_both_forms() {
        let stages = stages(&instructions(SAMPLE));
        let env: Vec<(String, String)> = stages[1].all("ENV").flat_map(Instruction::pairs).collect();
        assert_eq!(env[0], ("A".to_owned(), "1".to_owned()));
        assert_eq!(env[1], ("B".to_owned(), "two words".to_owned()));
        assert_eq!(env[2], ("LEGACY".to_owned(), "value here".to_owned()));
        assert_eq!(Instruction::exec_form("serve"), None);
    }
}
