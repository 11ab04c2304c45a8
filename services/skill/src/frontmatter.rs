//! `SKILL.md` frontmatter: the YAML block between `---` lines at the top of the file.
//!
//! Reading is tolerant ([`parse_tolerant`]): a stored skill must always be readable, whatever
//! keys it carries. Writing is strict ([`parse_strict`]): a new version must have a `name`, a
//! `description` within limits and a body. In both modes every key is kept, in document order,
//! as JSON, so nothing an author (or another tool such as Hermes) wrote is ever dropped.
//!
//! The YAML is untrusted input. The block is capped at [`MAX_FRONTMATTER_BYTES`] and the
//! conversion to JSON runs with a node and byte budget, so alias expansion ("billion laughs")
//! cannot blow up memory or time.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::limits::Limits;
use crate::name::shown;

/// Largest frontmatter block accepted, in bytes (between and including the `---` lines).
/// Real frontmatter is a few hundred bytes; the cap bounds YAML parsing work.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;
/// Most YAML nodes (scalars, sequences, mappings, after alias expansion) one frontmatter block
/// may produce.
pub const MAX_FRONTMATTER_NODES: usize = 100_000;
/// Most bytes of strings (keys and values, after alias expansion) one frontmatter block may
/// produce.
pub const MAX_FRONTMATTER_STRING_BYTES: usize = 1024 * 1024;

/// Why `SKILL.md` or its frontmatter was refused; every message says what is wrong and how to
/// fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    /// SKILL.md or a frontmatter value contains a NUL character.
    #[error("SKILL.md contains a NUL character (U+0000): remove it; skills are plain text")]
    NulCharacter,
    /// The file does not start with a `---` line.
    #[error(
        "SKILL.md has no frontmatter: start the file with a '---' line, then YAML with name and description, then '---'"
    )]
    NoFrontmatter,
    /// The opening `---` line has no matching closing `---` line.
    #[error("SKILL.md frontmatter is not closed: add a line containing only '---' after the YAML, before the body")]
    Unclosed,
    /// The frontmatter block is larger than [`MAX_FRONTMATTER_BYTES`].
    #[error(
        "SKILL.md frontmatter is {size} bytes, more than the {max}-byte limit: keep only name, description and short metadata in the frontmatter and move the rest into the body or references/"
    )]
    TooLarge {
        /// Size of the block in bytes.
        size: usize,
        /// The limit in bytes.
        max: usize,
    },
    /// The YAML did not parse.
    #[error(
        "SKILL.md frontmatter is not valid YAML ({detail}): fix the YAML between the '---' lines (quote values that contain ': ' or start with a special character)"
    )]
    InvalidYaml {
        /// The parser's message, with the line number within SKILL.md.
        detail: String,
    },
    /// The YAML expands to too many nodes or bytes (typically through aliases).
    #[error(
        "SKILL.md frontmatter expands to too much data (more than {max_nodes} values or {max_bytes} bytes of text, usually through YAML aliases): write the values out without '&anchor'/'*alias' references and keep the frontmatter small"
    )]
    TooComplex {
        /// The node budget.
        max_nodes: usize,
        /// The string byte budget.
        max_bytes: usize,
    },
    /// The YAML is valid but is not a mapping of keys to values.
    #[error(
        "SKILL.md frontmatter is a YAML {found}, not a mapping: write 'key: value' lines such as 'name: my-skill' and 'description: ...'"
    )]
    NotMapping {
        /// What kind of YAML value it is instead.
        found: &'static str,
    },
    /// `SKILL.md` is longer than [`Limits::max_skill_md_chars`].
    #[error(
        "SKILL.md is {chars} characters, more than the {max}-character limit: move detail into files under references/ and link to them"
    )]
    SkillMdTooLong {
        /// Length in characters.
        chars: usize,
        /// The limit in characters.
        max: usize,
    },
    /// There is no `name` key.
    #[error("SKILL.md frontmatter has no 'name': add 'name: <skill-name>' (the skill's folder name)")]
    MissingName,
    /// `name` is not a string or is empty.
    #[error(
        "SKILL.md frontmatter 'name' must be a non-empty string: write 'name: <skill-name>' (the skill's folder name)"
    )]
    InvalidName,
    /// There is no `description` key.
    #[error(
        "SKILL.md frontmatter has no 'description': add 'description: <one or two sentences on what the skill does and when to use it>'"
    )]
    MissingDescription,
    /// `description` is not a string or is empty.
    #[error(
        "SKILL.md frontmatter 'description' must be a non-empty string: write one or two sentences on what the skill does and when to use it"
    )]
    InvalidDescription,
    /// `description` is longer than [`Limits::max_description_chars`].
    #[error(
        "SKILL.md frontmatter 'description' is {chars} characters, more than the {max}-character limit: shorten it and move detail into the body"
    )]
    DescriptionTooLong {
        /// Length in characters.
        chars: usize,
        /// The limit in characters.
        max: usize,
    },
    /// Nothing but whitespace follows the frontmatter.
    #[error("SKILL.md has an empty body: write the skill's instructions in Markdown after the closing '---' line")]
    EmptyBody,
}

/// All frontmatter keys, in document order, as JSON values.
///
/// Unknown keys (Hermes `metadata`, `platforms`, `license`, …) are kept so that a skill survives
/// a round trip through the registry unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Frontmatter {
    fields: Map<String, Value>,
}

impl Frontmatter {
    /// Wraps already-parsed fields, e.g. frontmatter read back from the database.
    pub fn from_fields(fields: Map<String, Value>) -> Frontmatter {
        Frontmatter { fields }
    }

    /// The `name` key when it is a string (it may differ from the folder name; docs/API.md).
    pub fn name(&self) -> Option<&str> {
        self.fields.get("name").and_then(Value::as_str)
    }

    /// The `description` key when it is a string.
    pub fn description(&self) -> Option<&str> {
        self.fields.get("description").and_then(Value::as_str)
    }

    /// Every key, in document order.
    pub fn fields(&self) -> &Map<String, Value> {
        &self.fields
    }

    /// Gives back the fields without copying.
    pub fn into_fields(self) -> Map<String, Value> {
        self.fields
    }

    /// The frontmatter as a JSON object, for storing and serving it.
    pub fn to_json(&self) -> Value {
        Value::Object(self.fields.clone())
    }
}

/// A parsed `SKILL.md`: its frontmatter and the Markdown body after the closing `---` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillDocument {
    /// Every frontmatter key, in document order.
    pub frontmatter: Frontmatter,
    /// Everything after the closing `---` line, unchanged (line endings included).
    pub body: String,
}

/// Parses `SKILL.md` for reading a stored skill: fails only when there is no frontmatter block,
/// the block is too large or not closed, the YAML is malformed or too complex, or it is not a
/// mapping. Missing `name`/`description` and an empty body are accepted.
///
/// An empty block (or one with only comments) is read as an empty mapping.
pub fn parse_tolerant(text: &str) -> Result<SkillDocument, FrontmatterError> {
    let split = split(text)?;
    let fields = parse_yaml(split.yaml)?;
    Ok(SkillDocument {
        frontmatter: Frontmatter { fields },
        body: split.body.to_owned(),
    })
}

/// Parses `SKILL.md` for writing a new version: [`parse_tolerant`] plus the rules of docs/API.md
/// (length within `limits`, non-empty string `name` and `description`, description within
/// limits, non-blank body). The format of `name` is not checked: a skill's identity is its
/// folder name.
pub fn parse_strict(text: &str, limits: &Limits) -> Result<SkillDocument, FrontmatterError> {
    let chars = text.chars().count();
    if chars > limits.max_skill_md_chars {
        return Err(FrontmatterError::SkillMdTooLong {
            chars,
            max: limits.max_skill_md_chars,
        });
    }
    let doc = parse_tolerant(text)?;
    // NUL cannot be stored in PostgreSQL text or JSON, and has no business in a skill
    // (it also arrives through YAML escapes such as "\0", hence the check after parsing).
    if text.contains('\0') || contains_nul(&doc.frontmatter.to_json()) {
        return Err(FrontmatterError::NulCharacter);
    }
    let fields = doc.frontmatter.fields();
    match fields.get("name") {
        None => return Err(FrontmatterError::MissingName),
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        Some(_) => return Err(FrontmatterError::InvalidName),
    }
    match fields.get("description") {
        None => return Err(FrontmatterError::MissingDescription),
        Some(Value::String(s)) if !s.trim().is_empty() => {
            let chars = s.chars().count();
            if chars > limits.max_description_chars {
                return Err(FrontmatterError::DescriptionTooLong {
                    chars,
                    max: limits.max_description_chars,
                });
            }
        }
        Some(_) => return Err(FrontmatterError::InvalidDescription),
    }
    if doc.body.trim().is_empty() {
        return Err(FrontmatterError::EmptyBody);
    }
    Ok(doc)
}

/// Whether any key or string value contains U+0000.
fn contains_nul(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains('\0'),
        Value::Array(items) => items.iter().any(contains_nul),
        Value::Object(map) => map.iter().any(|(k, v)| k.contains('\0') || contains_nul(v)),
        _ => false,
    }
}

/// The two parts of a `SKILL.md`.
struct Split<'a> {
    /// The opening `---` line and the YAML after it, up to the closing line. Keeping the
    /// opening line (a valid YAML document marker) makes parser line numbers match the file.
    yaml: &'a str,
    /// Everything after the closing `---` line.
    body: &'a str,
}

/// True for a `---` delimiter line, ignoring a line ending and trailing spaces or tabs.
fn is_delimiter(line: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r', '\n']) == "---"
}

fn split(text: &str) -> Result<Split<'_>, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().ok_or(FrontmatterError::NoFrontmatter)?;
    if !is_delimiter(first) {
        return Err(FrontmatterError::NoFrontmatter);
    }
    let mut offset = first.len();
    for line in lines {
        let end = offset + line.len();
        if is_delimiter(line) {
            if end > MAX_FRONTMATTER_BYTES {
                return Err(FrontmatterError::TooLarge {
                    size: end,
                    max: MAX_FRONTMATTER_BYTES,
                });
            }
            return Ok(Split {
                yaml: &text[..offset],
                body: &text[end..],
            });
        }
        offset = end;
    }
    Err(FrontmatterError::Unclosed)
}

fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, FrontmatterError> {
    let budget = Budget::default();
    let deserializer = serde_yaml_ng::Deserializer::from_str(yaml);
    let value = match (ValueSeed { budget: &budget }).deserialize(deserializer) {
        Ok(value) => value,
        // serde_yaml_ng has its own alias-repetition guard; report it the same way as ours.
        Err(e) if budget.exceeded.get() || e.to_string().starts_with("repetition limit exceeded") => {
            return Err(FrontmatterError::TooComplex {
                max_nodes: MAX_FRONTMATTER_NODES,
                max_bytes: MAX_FRONTMATTER_STRING_BYTES,
            });
        }
        Err(e) => {
            return Err(FrontmatterError::InvalidYaml {
                detail: shown_detail(&e),
            });
        }
    };
    match value {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        Value::Array(_) => Err(FrontmatterError::NotMapping { found: "sequence" }),
        Value::String(_) => Err(FrontmatterError::NotMapping { found: "string" }),
        Value::Number(_) => Err(FrontmatterError::NotMapping { found: "number" }),
        Value::Bool(_) => Err(FrontmatterError::NotMapping { found: "boolean" }),
    }
}

/// The parser's message, bounded in length (it can quote input).
fn shown_detail(e: &serde_yaml_ng::Error) -> String {
    let msg = e.to_string();
    if msg.chars().count() > 300 {
        let cut: String = msg.chars().take(300).collect();
        format!("{cut}…")
    } else {
        msg
    }
}

/// Work budget for converting one YAML document; shared by all nested visitors.
struct Budget {
    nodes: Cell<usize>,
    bytes: Cell<usize>,
    exceeded: Cell<bool>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            nodes: Cell::new(0),
            bytes: Cell::new(0),
            exceeded: Cell::new(false),
        }
    }
}

impl Budget {
    fn charge<E: de::Error>(&self, nodes: usize, bytes: usize) -> Result<(), E> {
        let n = self.nodes.get().saturating_add(nodes);
        let b = self.bytes.get().saturating_add(bytes);
        self.nodes.set(n);
        self.bytes.set(b);
        if n > MAX_FRONTMATTER_NODES || b > MAX_FRONTMATTER_STRING_BYTES {
            self.exceeded.set(true);
            return Err(E::custom("frontmatter expands to too much data"));
        }
        Ok(())
    }
}

/// Deserializes any YAML value into JSON, charging every node and string to the budget so
/// that aliases cannot expand without bound.
#[derive(Clone, Copy)]
struct ValueSeed<'b> {
    budget: &'b Budget,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.budget.charge(1, 0)?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.budget.charge(1, 0)?;
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.budget.charge(1, 0)?;
        Ok(Value::from(v))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Value, E> {
        match i64::try_from(v) {
            Ok(v) => self.visit_i64(v),
            Err(_) => self.visit_string(v.to_string()),
        }
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Value, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => self.visit_string(v.to_string()),
        }
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.budget.charge(1, 0)?;
        // JSON has no NaN or infinity: keep them as their YAML spelling instead of dropping them.
        Ok(match serde_json::Number::from_f64(v) {
            Some(n) => Value::Number(n),
            None if v.is_nan() => Value::String(".nan".to_owned()),
            None if v > 0.0 => Value::String(".inf".to_owned()),
            None => Value::String("-.inf".to_owned()),
        })
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.budget.charge(1, v.len())?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.budget.charge(1, v.len())?;
        Ok(Value::String(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Value, E> {
        self.budget.charge(1, v.len())?;
        Ok(Value::String(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.budget.charge(1, 0)?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_newtype_struct<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.budget.charge(1, 0)?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.budget.charge(1, 0)?;
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(self)? {
            let key = key_string(key);
            let value = map.next_value_seed(self)?;
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key '{}'; each key may appear once",
                    shown(&key)
                )));
            }
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        // serde_yaml_ng reports a custom tag (`!tag value`) as an enum; keep it the way its own
        // `Value` serializes a tagged value: a one-key map from "!tag" to the value.
        let (tag, variant): (String, _) = data.variant()?;
        self.budget.charge(1, tag.len())?;
        let value = variant.newtype_variant_seed(self)?;
        let mut out = Map::new();
        out.insert(format!("!{tag}"), value);
        Ok(Value::Object(out))
    }
}

/// JSON keys are strings: YAML scalar keys become their string form, other keys their JSON text.
fn key_string(key: Value) -> String {
    match key {
        Value::String(s) => s,
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod nul_tests {
    use super::*;

    #[test]
    fn nul_characters_are_refused_when_writing() {
        let limits = Limits::default();
        let escaped = "---\nname: x\ndescription: \"a\\0b\"\n---\nbody\n";
        assert!(matches!(
            parse_strict(escaped, &limits),
            Err(FrontmatterError::NulCharacter)
        ));
        let raw = "---\nname: x\ndescription: ok\n---\nbo\0dy\n";
        assert!(matches!(
            parse_strict(raw, &limits),
            Err(FrontmatterError::NulCharacter)
        ));
        let key = "---\nname: x\ndescription: ok\n\"k\\0\": 1\n---\nbody\n";
        assert!(matches!(
            parse_strict(key, &limits),
            Err(FrontmatterError::NulCharacter)
        ));
        assert!(parse_tolerant(escaped).is_ok(), "reading stays tolerant");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(text: &str) -> Result<SkillDocument, FrontmatterError> {
        parse_strict(text, &Limits::default())
    }

    const GOOD: &str = "---\nname: demo\ndescription: Does things.\n---\n# Demo\n\nBody.\n";

    #[test]
    fn basic() {
        let doc = strict(GOOD).unwrap();
        assert_eq!(doc.frontmatter.name(), Some("demo"));
        assert_eq!(doc.frontmatter.description(), Some("Does things."));
        assert_eq!(doc.body, "# Demo\n\nBody.\n");
        assert_eq!(
            doc.frontmatter.to_json(),
            json!({"name": "demo", "description": "Does things."})
        );
    }

    #[test]
    fn bom_and_crlf() {
        let text = "\u{feff}---  \r\nname: demo\r\ndescription: Does things.\r\n--- \t\r\n# Demo\r\n";
        let doc = strict(text).unwrap();
        assert_eq!(doc.frontmatter.name(), Some("demo"));
        assert_eq!(doc.frontmatter.description(), Some("Does things."));
        assert_eq!(doc.body, "# Demo\r\n");
    }

    #[test]
    fn opening_must_be_first_line() {
        assert_eq!(strict("\n---\nname: a\n---\nx"), Err(FrontmatterError::NoFrontmatter));
        assert_eq!(
            strict("# Title\n---\nname: a\n---\n"),
            Err(FrontmatterError::NoFrontmatter)
        );
        assert_eq!(strict(""), Err(FrontmatterError::NoFrontmatter));
        assert_eq!(strict("----\nname: a\n---\nx"), Err(FrontmatterError::NoFrontmatter));
        assert_eq!(parse_tolerant("no frontmatter"), Err(FrontmatterError::NoFrontmatter));
        let e = FrontmatterError::NoFrontmatter.to_string();
        assert_eq!(
            e,
            "SKILL.md has no frontmatter: start the file with a '---' line, then YAML with name and description, then '---'"
        );
    }

    #[test]
    fn unclosed() {
        assert_eq!(
            strict("---\nname: a\ndescription: b\n# body\n"),
            Err(FrontmatterError::Unclosed)
        );
        assert_eq!(strict("---"), Err(FrontmatterError::Unclosed));
        assert_eq!(parse_tolerant("---\nname: a\n"), Err(FrontmatterError::Unclosed));
        // A closing line at end of file without newline is fine (tolerant: empty body).
        let doc = parse_tolerant("---\nname: a\n---").unwrap();
        assert_eq!(doc.body, "");
        assert_eq!(
            strict("---\nname: a\ndescription: b\n---"),
            Err(FrontmatterError::EmptyBody)
        );
    }

    #[test]
    fn unknown_keys_kept_in_order_with_nested_metadata() {
        let text = "---\nzeta: 1\nname: demo\nalpha: [x, y]\ndescription: d\nmetadata:\n  hermes:\n    tags: [git, devops]\n    related_skills: []\n  version: 1.2\nplatforms: [linux, macos]\nlicense: MIT\n---\nbody\n";
        let doc = strict(text).unwrap();
        let keys: Vec<&str> = doc.frontmatter.fields().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "zeta",
                "name",
                "alpha",
                "description",
                "metadata",
                "platforms",
                "license"
            ]
        );
        assert_eq!(
            doc.frontmatter.fields()["metadata"],
            json!({"hermes": {"tags": ["git", "devops"], "related_skills": []}, "version": 1.2})
        );
        let json_text = serde_json::to_string(&doc.frontmatter.to_json()).unwrap();
        assert!(
            json_text.starts_with("{\"zeta\":1,\"name\":\"demo\",\"alpha\""),
            "{json_text}"
        );
        // Serde of Frontmatter is the plain object and preserves order.
        let back: Frontmatter = serde_json::from_str(&json_text).unwrap();
        assert_eq!(back, doc.frontmatter);
    }

    #[test]
    fn yaml_scalars_and_keys() {
        let text = "---\nname: demo\ndescription: d\n1: one\ntrue: yes\n~: nothing\n1.5: x\nn: 0x10\nbig: 123456789012345678901234567890\ninf: .inf\nnan: .nan\nq: 'quoted: value'\nblock: |\n  line1\n  line2\ntagged: !custom {a: 1}\n? [a, b]\n: complex\n---\nbody\n";
        let doc = strict(text).unwrap();
        let f = doc.frontmatter.fields();
        assert_eq!(f["1"], json!("one"));
        assert_eq!(f["true"], json!("yes"));
        assert_eq!(f["null"], json!("nothing"));
        assert_eq!(f["1.5"], json!("x"));
        assert_eq!(f["n"], json!(16));
        assert!(f["big"].is_number() || f["big"].is_string());
        assert_eq!(f["inf"], json!(".inf"));
        assert_eq!(f["nan"], json!(".nan"));
        assert_eq!(f["q"], json!("quoted: value"));
        assert_eq!(f["block"], json!("line1\nline2\n"));
        assert_eq!(f["tagged"], json!({"!custom": {"a": 1}}));
        assert_eq!(f["[\"a\",\"b\"]"], json!("complex"));
    }

    #[test]
    fn name_and_description_rules() {
        use FrontmatterError as E;
        assert_eq!(strict("---\ndescription: d\n---\nbody"), Err(E::MissingName));
        assert_eq!(strict("---\nname: demo\n---\nbody"), Err(E::MissingDescription));
        assert_eq!(strict("---\nname: ''\ndescription: d\n---\nbody"), Err(E::InvalidName));
        assert_eq!(strict("---\nname: 12\ndescription: d\n---\nbody"), Err(E::InvalidName));
        assert_eq!(strict("---\nname:\ndescription: d\n---\nbody"), Err(E::InvalidName));
        assert_eq!(
            strict("---\nname: a\ndescription: '  '\n---\nbody"),
            Err(E::InvalidDescription)
        );
        assert_eq!(
            strict("---\nname: a\ndescription: [x]\n---\nbody"),
            Err(E::InvalidDescription)
        );
        // The name's format is not checked here.
        assert!(strict("---\nname: Not A Slug\ndescription: d\n---\nbody").is_ok());
        // Tolerant accepts all of the above.
        for t in [
            "---\ndescription: d\n---\nbody",
            "---\nname: demo\n---\nbody",
            "---\nname: 12\n---\n",
            "---\n---\n",
            "---\n# only a comment\n---\n",
        ] {
            assert!(parse_tolerant(t).is_ok(), "{t}");
        }
        assert!(parse_tolerant("---\n---\n").unwrap().frontmatter.fields().is_empty());
    }

    #[test]
    fn description_length_in_chars() {
        let limits = Limits::default();
        // 1024 multi-byte characters are fine; 1025 are not.
        let ok = format!("---\nname: a\ndescription: {}\n---\nbody", "é".repeat(1024));
        assert!(parse_strict(&ok, &limits).is_ok());
        let bad = format!("---\nname: a\ndescription: {}\n---\nbody", "d".repeat(1025));
        assert_eq!(
            parse_strict(&bad, &limits),
            Err(FrontmatterError::DescriptionTooLong { chars: 1025, max: 1024 })
        );
        assert!(parse_tolerant(&bad).is_ok());
    }

    #[test]
    fn skill_md_length_in_chars() {
        let limits = Limits {
            max_skill_md_chars: 100,
            ..Limits::default()
        };
        let head = "---\nname: a\ndescription: b\n---\n";
        let ok = format!("{head}{}", "é".repeat(100 - head.len()));
        assert!(ok.len() > 100);
        assert!(parse_strict(&ok, &limits).is_ok());
        let bad = format!("{ok}x");
        assert_eq!(
            parse_strict(&bad, &limits),
            Err(FrontmatterError::SkillMdTooLong { chars: 101, max: 100 })
        );
    }

    #[test]
    fn blank_body() {
        assert_eq!(
            strict("---\nname: a\ndescription: b\n---\n"),
            Err(FrontmatterError::EmptyBody)
        );
        assert_eq!(
            strict("---\nname: a\ndescription: b\n---\n \n\t\r\n"),
            Err(FrontmatterError::EmptyBody)
        );
    }

    #[test]
    fn invalid_yaml_reports_file_line() {
        let e = parse_tolerant("---\nname: a\ndescription: b: c\n---\nbody").unwrap_err();
        match &e {
            FrontmatterError::InvalidYaml { detail } => {
                assert!(detail.contains("line 3"), "{detail}")
            }
            other => panic!("{other:?}"),
        }
        assert!(e.to_string().contains("not valid YAML"));
        assert!(matches!(
            parse_tolerant("---\nname: [unclosed\n---\nbody"),
            Err(FrontmatterError::InvalidYaml { .. })
        ));
        assert!(matches!(
            parse_tolerant("---\na: 1\na: 2\n---\nbody"),
            Err(FrontmatterError::InvalidYaml { detail }) if detail.contains("duplicate key")
        ));
        assert!(matches!(
            parse_tolerant("---\nname: *nope\n---\nbody"),
            Err(FrontmatterError::InvalidYaml { .. })
        ));
    }

    #[test]
    fn not_a_mapping() {
        assert_eq!(
            parse_tolerant("---\n- a\n- b\n---\n"),
            Err(FrontmatterError::NotMapping { found: "sequence" })
        );
        assert_eq!(
            parse_tolerant("---\njust text\n---\n"),
            Err(FrontmatterError::NotMapping { found: "string" })
        );
        assert_eq!(
            parse_tolerant("---\n42\n---\n"),
            Err(FrontmatterError::NotMapping { found: "number" })
        );
    }

    #[test]
    fn block_size_capped() {
        let big = format!(
            "---\nname: a\ndescription: b\npad: '{}'\n---\nbody",
            "x".repeat(MAX_FRONTMATTER_BYTES)
        );
        assert!(matches!(
            parse_tolerant(&big),
            Err(FrontmatterError::TooLarge {
                max: MAX_FRONTMATTER_BYTES,
                ..
            })
        ));
    }

    #[test]
    fn alias_bomb_is_refused_quickly() {
        // Classic billion laughs: 9 levels of 9 aliases each.
        let mut text = String::from("---\nname: a\ndescription: b\nl0: &l0 \"lol\"\n");
        for i in 1..=9 {
            let refs = vec![format!("*l{}", i - 1); 9].join(", ");
            text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
        }
        text.push_str("---\nbody\n");
        let start = std::time::Instant::now();
        assert!(matches!(
            parse_tolerant(&text),
            Err(FrontmatterError::TooComplex { .. })
        ));
        assert!(start.elapsed().as_secs() < 5);

        // Wide variant within the size cap: one big anchored list referenced many times.
        let list = vec!["x"; 8000].join(",");
        let refs = vec!["*a"; 8000].join(",");
        let wide = format!("---\na: &a [{list}]\nb: [{refs}]\n---\nbody\n");
        assert!(wide.len() < MAX_FRONTMATTER_BYTES);
        assert!(matches!(
            parse_tolerant(&wide),
            Err(FrontmatterError::TooComplex { .. })
        ));

        // Modest alias use is fine.
        let ok = "---\nname: a\ndescription: b\nbase: &base {x: 1}\nother: *base\n---\nbody\n";
        assert_eq!(
            parse_tolerant(ok).unwrap().frontmatter.fields()["other"],
            json!({"x": 1})
        );
    }

    #[test]
    fn deep_nesting_does_not_panic() {
        let deep = format!("---\na: {}{}\n---\nbody", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_tolerant(&deep).is_err());
    }
}
