//! A learned second opinion on a whole bundle: a linear model of its wording.
//!
//! The rules and the command model judge what a skill makes an agent do, one flow at a
//! time; an attack that none of them spells slips through however plainly its prose reads
//! like one. This model reads the bundle as a bag of words and word pairs (hashed, see
//! [`Vector`]) and scores how much it resembles the malicious skills and patches it was
//! trained on against the benign ones (`examples/train-model.rs`; data, split and
//! thresholds in docs/SECURITY-SCANNER.md). Its finding names the lines that weigh most,
//! so a reviewer reads those first, and it can be dismissed like any other.
//!
//! Deterministic and offline: the weights ship in `data/learned-model.bin`, and the same
//! code turns text into features when training and when scanning.

use std::sync::LazyLock;

use crate::ScanFile;

/// Bits of the hashed feature space: 2^18 buckets (the model file holds one weight each).
pub const BITS: u32 = 18;
/// Number of feature buckets.
pub const DIMENSION: usize = 1 << BITS;
/// How much of one file the model reads: the rest of a long file adds nothing a reviewer
/// would not see in its first 128 KiB, and it bounds the cost of a huge file.
const MAX_FILE_BYTES: usize = 128 * 1024;
/// The fewest distinct features (words and word pairs) a bundle needs for the model to
/// judge it: about sixty words. The model learned from whole skills (the smallest
/// twentieth of its examples have ~180); a snippet of a few lines is not one, and its
/// handful of words would decide the score alone.
pub const MIN_FEATURES: usize = 120;
/// How many lines a finding names as weighing most.
const NAMED_LINES: usize = 3;

const MAGIC: &[u8; 8] = b"CAIRNLM1";
const BUILTIN_BYTES: &[u8] = include_bytes!("../data/learned-model.bin");

/// The trained weights and the scores from which a bundle is `caution` or `dangerous`.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The intercept.
    pub bias: f32,
    /// One weight per feature bucket ([`DIMENSION`] of them).
    pub weights: Vec<f32>,
    /// From this probability up the bundle is judged `dangerous` (a `high` finding).
    pub dangerous_at: f32,
    /// From this probability up (below [`Model::dangerous_at`]) it is `caution`.
    pub caution_at: f32,
}

/// Why a model file cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("learned model file: {0}")]
pub struct ModelError(&'static str);

static BUILTIN: LazyLock<Model> = LazyLock::new(|| {
    // The build embeds the file the trainer wrote; a unit test reads it, so a broken file
    // fails the tests, never a scan.
    Model::from_bytes(BUILTIN_BYTES)
        .expect("data/learned-model.bin is a model file (retrain with examples/train-model.rs)")
});

impl Model {
    /// The model shipped with the scanner (`data/learned-model.bin`).
    pub fn builtin() -> &'static Model {
        &BUILTIN
    }

    /// The shipped model file's bytes (part of [`crate::rules_version`]).
    pub fn builtin_bytes() -> &'static [u8] {
        BUILTIN_BYTES
    }

    /// Reads a model file: magic, bits, bias, thresholds, a scale, then one 16-bit weight
    /// per bucket (little-endian; weight = value × scale).
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, ModelError> {
        let rest = bytes
            .strip_prefix(MAGIC)
            .ok_or(ModelError("not a Cairn model (bad magic)"))?;
        let (header, body) = rest.split_at_checked(20).ok_or(ModelError("truncated header"))?;
        let word = |i: usize| [header[i], header[i + 1], header[i + 2], header[i + 3]];
        if u32::from_le_bytes(word(0)) != BITS {
            return Err(ModelError("trained for another feature space"));
        }
        let [bias, dangerous_at, caution_at, scale] = [4, 8, 12, 16].map(|i| f32::from_le_bytes(word(i)));
        if ![bias, dangerous_at, caution_at, scale].iter().all(|v| v.is_finite()) {
            return Err(ModelError("a header value is not a finite number"));
        }
        if !(0.0 < caution_at && caution_at <= dangerous_at && dangerous_at <= 1.0) {
            return Err(ModelError("thresholds out of order (0 < caution ≤ dangerous ≤ 1)"));
        }
        if body.len() != DIMENSION * 2 {
            return Err(ModelError("wrong number of weights"));
        }
        let weights = body
            .chunks_exact(2)
            .map(|w| f32::from(i16::from_le_bytes([w[0], w[1]])) * scale)
            .collect();
        Ok(Model {
            bias,
            weights,
            dangerous_at,
            caution_at,
        })
    }

    /// Writes the model file [`Model::from_bytes`] reads (weights rounded to 16 bits).
    pub fn to_bytes(&self) -> Vec<u8> {
        let largest = self.weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        let scale = if largest > 0.0 {
            largest / f32::from(i16::MAX)
        } else {
            1.0
        };
        let mut out = Vec::with_capacity(MAGIC.len() + 20 + DIMENSION * 2);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&BITS.to_le_bytes());
        for v in [self.bias, self.dangerous_at, self.caution_at, scale] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in &self.weights {
            // In range by the choice of scale; `as` saturates anyway.
            #[allow(clippy::cast_possible_truncation)]
            let q = (w / scale).round() as i16;
            out.extend_from_slice(&q.to_le_bytes());
        }
        out
    }

    /// The probability the model gives that a bundle with these features is malicious.
    pub fn probability(&self, vector: &Vector) -> f32 {
        let z = self.bias
            + vector
                .values
                .iter()
                .map(|&(i, x)| self.weights[i as usize] * x)
                .sum::<f32>();
        1.0 / (1.0 + (-z).exp())
    }

    /// How much a line's features push the score up (its features' weights, each counted
    /// at its value in the bundle's vector).
    fn line_weight(&self, vector: &Vector, line: &str) -> f32 {
        let mut buckets = Vec::new();
        line_features(line, &mut |b| buckets.push(b));
        buckets.sort_unstable();
        buckets.dedup();
        buckets
            .iter()
            .map(|&b| {
                let x = vector
                    .values
                    .binary_search_by_key(&b, |&(i, _)| i)
                    .map_or(0.0, |at| vector.values[at].1);
                self.weights[b as usize] * x
            })
            .sum()
    }

    /// Scores a bundle and names the lines that weigh most, best first: the finding's
    /// evidence.
    pub fn assess(&self, files: &[ScanFile<'_>]) -> Assessment {
        let texts = model_texts(files);
        let vector = Vector::of(texts.iter().copied());
        let probability = vector.judgeable().then(|| self.probability(&vector));
        let mut lines: Vec<WeighingLine> = Vec::new();
        if probability.is_some_and(|p| p >= self.caution_at) {
            for (path, text) in &texts {
                for (index, line) in text.lines().enumerate() {
                    let weight = self.line_weight(&vector, line);
                    if weight > 0.0 {
                        lines.push(WeighingLine {
                            file: (*path).to_owned(),
                            line: index + 1,
                            weight,
                        });
                    }
                }
            }
            lines.sort_by(|a, b| b.weight.total_cmp(&a.weight));
            lines.truncate(NAMED_LINES);
        }
        Assessment { probability, lines }
    }
}

/// What the model says of a bundle.
#[derive(Clone, Debug)]
pub struct Assessment {
    /// Probability of malice the model gives; `None` for a bundle too small to judge
    /// ([`MIN_FEATURES`]).
    pub probability: Option<f32>,
    /// When the probability reaches `caution`: the lines that push it up most, best first.
    pub lines: Vec<WeighingLine>,
}

/// A line and how much it pushes the model's score up.
#[derive(Clone, Debug)]
pub struct WeighingLine {
    /// The file (relative path in the bundle).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// Its share of the score (before the logistic function).
    pub weight: f32,
}

/// The text files of a bundle as the model reads them: UTF-8, not binary, at most
/// [`MAX_FILE_BYTES`] each, in path order.
pub fn model_texts<'a>(files: &[ScanFile<'a>]) -> Vec<(&'a str, &'a str)> {
    let mut texts: Vec<(&str, &str)> = files
        .iter()
        .filter_map(|f| {
            let text = crate::content::text_of(f.bytes)?;
            Some((f.path, &text[..text.floor_char_boundary(MAX_FILE_BYTES)]))
        })
        .collect();
    texts.sort_by_key(|(path, _)| *path);
    texts
}

/// A bundle's features: sublinear term frequencies (1 + ln count) of hashed words and
/// word pairs, scaled to unit length, sorted by bucket.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vector {
    /// (bucket, value), sorted by bucket, each bucket once.
    pub values: Vec<(u32, f32)>,
}

impl Vector {
    /// Whether there is enough text for the model to judge ([`MIN_FEATURES`]).
    pub fn judgeable(&self) -> bool {
        self.values.len() >= MIN_FEATURES
    }

    /// The features of a bundle's texts ((path, text) pairs): each path is read as a line
    /// of its own, then every line of the text.
    pub fn of<'a>(texts: impl IntoIterator<Item = (&'a str, &'a str)>) -> Vector {
        let mut buckets = Vec::new();
        for (path, text) in texts {
            line_features(path, &mut |b| buckets.push(b));
            for line in text.lines() {
                line_features(line, &mut |b| buckets.push(b));
            }
        }
        buckets.sort_unstable();
        let mut values: Vec<(u32, f32)> = Vec::new();
        for chunk in buckets.chunk_by(|a, b| a == b) {
            // Counts stay far below f32's exact range.
            #[allow(clippy::cast_precision_loss)]
            let count = chunk.len() as f32;
            values.push((chunk[0], 1.0 + count.ln()));
        }
        let norm = values.iter().map(|(_, x)| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, x) in &mut values {
                *x /= norm;
            }
        }
        Vector { values }
    }
}

/// Calls `emit` with the bucket of each word and of each pair of neighbouring words on a
/// line. Words are read from the line's whitespace-separated chunks: an address, a host
/// name, an IP address or a long base64 run becomes one placeholder word (the model
/// learns that a skill sends something somewhere, not which made-up host a sample used);
/// otherwise runs of letters and digits of two characters or more, lowercased, digits
/// read as `0`; Chinese, Japanese and Korean text, written without spaces, as pairs of
/// neighbouring characters.
pub fn line_features(line: &str, emit: &mut dyn FnMut(u32)) {
    let mut words = Words { emit, previous: None };
    let mut buffer = String::new();
    for chunk in line.split_whitespace() {
        if let Some(placeholder) = placeholder(chunk) {
            words.word(placeholder.as_bytes());
        } else if chunk.is_ascii() {
            words.ascii_chunk(chunk.as_bytes());
        } else {
            words.chunk(chunk, &mut buffer);
        }
    }
}

/// Emits the buckets of words and of neighbouring pairs of words.
struct Words<'a> {
    emit: &'a mut dyn FnMut(u32),
    /// The previous word's hash (a pair's is the next word hashed from it).
    previous: Option<u64>,
}

impl Words<'_> {
    fn word(&mut self, word: &[u8]) {
        let hash = fnv1a(word, FNV_OFFSET);
        let pair = self.previous.map(|p| fnv1a(word, fnv1a(&[1], p)));
        self.emit_word(hash, pair);
    }

    fn emit_word(&mut self, hash: u64, pair: Option<u64>) {
        (self.emit)(bucket(hash));
        if let Some(pair) = pair {
            (self.emit)(bucket(pair));
        }
        self.previous = Some(hash);
    }

    /// The words of an ASCII chunk, hashed as they are read (the common case: no
    /// allocation, no Unicode tables). The same features as [`Words::chunk`].
    fn ascii_chunk(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            if !is_ascii_word(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            let mut hash = FNV_OFFSET;
            let mut pair = self.previous.map(|p| fnv1a(&[1], p));
            while i < bytes.len() && is_ascii_word(bytes[i]) {
                let b = if bytes[i].is_ascii_digit() {
                    b'0'
                } else {
                    bytes[i].to_ascii_lowercase()
                };
                hash = fnv1a(&[b], hash);
                pair = pair.map(|p| fnv1a(&[b], p));
                i += 1;
            }
            if i - start >= 2 {
                self.emit_word(hash, pair);
            }
        }
    }

    /// The words of a chunk with other characters: letters and digits of any script;
    /// Chinese, Japanese and Korean runs as pairs of characters.
    fn chunk(&mut self, chunk: &str, buffer: &mut String) {
        let mut chars = chunk.chars().peekable();
        while let Some(&c) = chars.peek() {
            if !(c.is_alphanumeric() || c == '_') {
                chars.next();
                continue;
            }
            buffer.clear();
            let cjk = is_cjk(c);
            while let Some(&c) = chars.peek() {
                if !(c.is_alphanumeric() || c == '_') || is_cjk(c) != cjk {
                    break;
                }
                if c.is_numeric() {
                    buffer.push('0');
                } else {
                    buffer.extend(c.to_lowercase());
                }
                chars.next();
            }
            if cjk {
                let characters: Vec<char> = buffer.chars().collect();
                if characters.len() == 1 {
                    self.word(buffer.as_bytes());
                }
                for pair in characters.windows(2) {
                    let pair: String = pair.iter().collect();
                    self.word(pair.as_bytes());
                }
            } else if buffer.chars().nth(1).is_some() {
                self.word(buffer.as_bytes());
            }
        }
    }
}

/// An ASCII letter, digit or underscore.
fn is_ascii_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The placeholder word for a chunk that is an address, a host, an IP address or a
/// base64 run.
fn placeholder(chunk: &str) -> Option<&'static str> {
    let trimmed = chunk.trim_matches(|c: char| !(c.is_alphanumeric() || c == '/' || c == '=' || c == '+'));
    if trimmed.contains("://") {
        return Some("xurl");
    }
    if trimmed.len() >= 32
        && trimmed
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-'))
        && trimmed.bytes().any(|b| b.is_ascii_digit())
    {
        return Some("xblob");
    }
    if !trimmed.contains('.') {
        return None;
    }
    if trimmed.split('.').count() == 4
        && trimmed
            .split('.')
            .all(|l| !l.is_empty() && l.len() <= 3 && l.bytes().all(|b| b.is_ascii_digit()))
    {
        return Some("xip");
    }
    let host = trimmed.split(['/', ':']).next().unwrap_or(trimmed);
    if host.split('.').count() >= 2
        && host
            .split('.')
            .all(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        && host
            .rsplit('.')
            .next()
            .is_some_and(|tld| HOST_ENDINGS.iter().any(|e| e.eq_ignore_ascii_case(tld)))
    {
        return Some("xhost");
    }
    None
}

/// Endings that make a dotted word a host name rather than a file name (`setup.py`) or
/// a property (`os.environ`).
const HOST_ENDINGS: [&str; 24] = [
    "invalid", "test", "example", "com", "net", "org", "io", "dev", "sh", "co", "ru", "cn", "xyz", "top", "app", "ai",
    "cloud", "site", "online", "info", "biz", "me", "cc", "tk",
];

/// Letters of the scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30ff}' | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{ac00}'..='\u{d7af}')
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a: a stable hash (the model file depends on it), fast on short words.
fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    bytes
        .iter()
        .fold(seed, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn bucket(hash: u64) -> u32 {
    // The mask keeps BITS bits: the value fits.
    #[allow(clippy::cast_possible_truncation)]
    let folded = (hash ^ (hash >> 32)) as u32;
    folded & (DIMENSION as u32 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> usize {
        let mut n = 0;
        line_features(line, &mut |_| n += 1);
        n
    }

    #[test]
    fn hosts_addresses_and_blobs_read_as_placeholders() {
        assert_eq!(placeholder("https://x.example.invalid/a"), Some("xurl"));
        assert_eq!(placeholder("(cdn-sync.example.invalid)"), Some("xhost"));
        assert_eq!(placeholder("192.0.2.7"), Some("xip"));
        assert_eq!(placeholder("setup.py"), None);
        assert_eq!(placeholder("os.environ"), None);
        assert_eq!(
            placeholder("aGVsbG8gd29ybGQgdGhpcyBpcyBhIGxvbmcgYmFzZTY0IHJ1bg1="),
            Some("xblob")
        );
    }

    #[test]
    fn words_pairs_and_cjk_character_pairs_are_features() {
        // Two words and their pair.
        assert_eq!(words("Ignore it"), 3);
        // A single letter is no word.
        assert_eq!(words("a b"), 0);
        // 忽略指令: three character pairs and two pairs of those.
        assert_eq!(words("忽略指令"), 5);
        // Digits read as 0: the same features.
        let collect = |line: &str| {
            let mut v = Vec::new();
            line_features(line, &mut |b| v.push(b));
            v
        };
        assert_eq!(collect("port 8080"), collect("PORT 1234"));
    }

    #[test]
    fn the_vector_has_unit_length_and_sorted_buckets() {
        let v = Vector::of([("SKILL.md", "run the tests\nrun the tests again")]);
        let norm: f32 = v.values.iter().map(|(_, x)| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
        assert!(v.values.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn the_model_file_round_trips_and_rejects_other_files() {
        let model = Model::builtin();
        assert_eq!(model.weights.len(), DIMENSION);
        assert!(model.caution_at <= model.dangerous_at && model.dangerous_at < 1.0);
        let again = Model::from_bytes(&model.to_bytes()).expect("reads its own file");
        assert_eq!(again.bias, model.bias);
        let largest = model.weights.iter().fold(0f32, |m, w| m.max(w.abs()));
        assert!(
            again
                .weights
                .iter()
                .zip(&model.weights)
                .all(|(a, b)| (a - b).abs() <= largest / 32767.0)
        );
        assert!(Model::from_bytes(b"not a model").is_err());
        let swapped = Model {
            caution_at: 0.9,
            dangerous_at: 0.5,
            ..model.clone()
        };
        assert!(Model::from_bytes(&swapped.to_bytes()).is_err());
        let nan = Model {
            bias: f32::NAN,
            ..model.clone()
        };
        assert!(Model::from_bytes(&nan.to_bytes()).is_err());
        assert!(Model::from_bytes(&model.to_bytes()[..100]).is_err());
    }
}
