//! SHA-256 file hashes and the version digest.
//!
//! Every file in a version is identified by its SHA-256, and a whole version by the digest
//! defined in docs/API.md ("Digest"). Keeping both here, with one hex format, means the registry, the store
//! and clients all compute the same value for the same files.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use crate::name::shown;
use crate::path::RelPath;

/// Why a string is not a SHA-256 hex digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DigestError {
    /// Wrong length or a character outside `0-9a-f` (uppercase is refused so that every
    /// digest has exactly one spelling).
    #[error("sha256 '{value}' is invalid ({len} characters): give exactly 64 lowercase hex characters (0-9, a-f)")]
    InvalidHex {
        /// The offending input (escaped and shortened for display).
        value: String,
        /// Its length in characters.
        len: usize,
    },
}

/// The SHA-256 of a file's bytes, shown and serialized as 64 lowercase hex characters.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Hash([u8; 32]);

impl Sha256Hash {
    /// Hashes `bytes`.
    pub fn of(bytes: &[u8]) -> Sha256Hash {
        Sha256Hash(Sha256::digest(bytes).into())
    }

    /// Wraps raw digest bytes, e.g. from a streaming hasher or a database column.
    pub fn from_bytes(bytes: [u8; 32]) -> Sha256Hash {
        Sha256Hash(bytes)
    }

    /// Parses exactly 64 lowercase hex characters.
    pub fn parse_hex(s: &str) -> Result<Sha256Hash, DigestError> {
        let valid = s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        let invalid = || DigestError::InvalidHex {
            value: shown(s),
            len: s.chars().count(),
        };
        if !valid {
            return Err(invalid());
        }
        let mut out = [0u8; 32];
        hex::decode_to_slice(s, &mut out).map_err(|_| invalid())?;
        Ok(Sha256Hash(out))
    }

    /// The 64-character lowercase hex form.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// Writes the lowercase hex form into `out` without allocating (used per file by
    /// [`version_digest`]).
    fn write_hex(&self, out: &mut [u8; 64]) {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        for (i, byte) in self.0.iter().enumerate() {
            out[2 * i] = DIGITS[usize::from(byte >> 4)];
            out[2 * i + 1] = DIGITS[usize::from(byte & 0x0f)];
        }
    }

    /// The raw 32 bytes.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Display for Sha256Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Sha256Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Hash({})", self.to_hex())
    }
}

impl FromStr for Sha256Hash {
    type Err = DigestError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Sha256Hash::parse_hex(s)
    }
}

impl Serialize for Sha256Hash {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Sha256Hash {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        Sha256Hash::parse_hex(&s).map_err(serde::de::Error::custom)
    }
}

/// The version digest (docs/API.md): `"sha256:"` + hex SHA-256 of the lines
/// `"<path>\0<sha256 hex>\n"` over the files sorted by the UTF-8 bytes of their path.
///
/// The files are sorted here, so callers may pass them in any order.
pub fn version_digest<'a>(files: impl IntoIterator<Item = (&'a RelPath, &'a Sha256Hash)>) -> String {
    let mut files: Vec<(&RelPath, &Sha256Hash)> = files.into_iter().collect();
    files.sort_by(|a, b| a.0.as_str().as_bytes().cmp(b.0.as_str().as_bytes()).then(a.1.cmp(b.1)));
    let mut hasher = Sha256::new();
    let mut hex_buf = [0u8; 64];
    for (path, hash) in files {
        hasher.update(path.as_str().as_bytes());
        hasher.update([0u8]);
        hash.write_hex(&mut hex_buf);
        hasher.update(hex_buf);
        hasher.update(b"\n");
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn of_matches_known_vector() {
        assert_eq!(
            Sha256Hash::of(b"abc").to_hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            Sha256Hash::of(b"").to_string(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn parse_hex_is_strict() {
        let h = Sha256Hash::of(b"abc");
        assert_eq!(Sha256Hash::parse_hex(&h.to_hex()).unwrap(), h);
        assert_eq!(h.to_hex().parse::<Sha256Hash>().unwrap(), h);
        let upper = h.to_hex().to_uppercase();
        for bad in [
            "",
            "abc",
            upper.as_str(),
            &h.to_hex()[..63],
            &format!("{}0", h.to_hex()),
            &format!("{}g", &h.to_hex()[..63]),
            &format!("sha256:{}", h.to_hex()),
            &format!("{}é", &h.to_hex()[..62]),
        ] {
            let e = Sha256Hash::parse_hex(bad).expect_err(bad);
            assert!(e.to_string().contains("64 lowercase hex"), "{e}");
        }
    }

    #[test]
    fn write_hex_matches_to_hex() {
        for input in [&b""[..], b"abc", &[0xff; 100]] {
            let h = Sha256Hash::of(input);
            let mut buf = [0u8; 64];
            h.write_hex(&mut buf);
            assert_eq!(std::str::from_utf8(&buf).unwrap(), h.to_hex());
        }
    }

    #[test]
    fn serde_as_hex() {
        let h = Sha256Hash::of(b"abc");
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(json, format!("\"{}\"", h.to_hex()));
        assert_eq!(serde_json::from_str::<Sha256Hash>(&json).unwrap(), h);
        assert!(serde_json::from_str::<Sha256Hash>("\"ABC\"").is_err());
        assert_eq!(format!("{h:?}"), format!("Sha256Hash({})", h.to_hex()));
        assert_eq!(Sha256Hash::from_bytes(*h.as_bytes()), h);
    }

    #[test]
    fn version_digest_hand_computed() {
        let skill = RelPath::parse("SKILL.md").unwrap();
        let script = RelPath::parse("scripts/run.sh").unwrap();
        let h1 = Sha256Hash::of(b"---\nname: x\n---\nbody\n");
        let h2 = Sha256Hash::of(b"#!/bin/sh\necho hi\n");
        // "SKILL.md" < "scripts/run.sh" because 'S' (0x53) < 's' (0x73).
        let literal = format!("SKILL.md\0{}\nscripts/run.sh\0{}\n", h1.to_hex(), h2.to_hex());
        let expected = format!("sha256:{}", hex::encode(Sha256::digest(literal.as_bytes())));
        assert_eq!(version_digest([(&skill, &h1), (&script, &h2)]), expected);
        // Order of the input does not matter.
        assert_eq!(version_digest([(&script, &h2), (&skill, &h1)]), expected);
        // Swapping contents changes it.
        assert_ne!(version_digest([(&skill, &h2), (&script, &h1)]), expected);
        // Empty set: hash of the empty string.
        assert_eq!(
            version_digest(std::iter::empty()),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn version_digest_sorts_by_bytes_not_chars() {
        // 'é' (0xC3 0xA9) sorts after 'z' in UTF-8 byte order.
        let a = RelPath::parse("z.md").unwrap();
        let b = RelPath::parse("é.md").unwrap();
        let h = Sha256Hash::of(b"x");
        let literal = format!("z.md\0{h}\né.md\0{h}\n");
        let expected = format!("sha256:{}", hex::encode(Sha256::digest(literal.as_bytes())));
        assert_eq!(version_digest([(&b, &h), (&a, &h)]), expected);
    }
}
