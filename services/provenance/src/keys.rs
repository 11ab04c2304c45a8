//! The registry's Ed25519 keys: PKCS#8 PEM files (what `openssl genpkey -algorithm
//! ed25519` writes), public keys as raw bytes, key ids as the SHA-256 of those bytes.

use std::fmt;

use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey, spki::der::pem::LineEnding};
use ed25519_dalek::{Signer as _, Verifier as _};
use sha2::{Digest, Sha256};

/// Why a key could not be read.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The text is not an Ed25519 private key in PKCS#8 PEM.
    #[error(
        "not an Ed25519 private key in PKCS#8 PEM (a file starting '-----BEGIN PRIVATE KEY-----'): {0}; \
         create one with 'cairn-registry key generate' or 'openssl genpkey -algorithm ed25519'"
    )]
    PrivateKey(String),
    /// The bytes are not an Ed25519 public key.
    #[error("not an Ed25519 public key: {0}")]
    PublicKey(String),
}

/// The key id of a public key: lowercase hex of the SHA-256 of its 32 raw bytes. It is
/// what DSSE signatures, the keys document and lock files name a key by.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct KeyId(String);

impl KeyId {
    /// The key id of the raw Ed25519 public key `public`.
    pub fn of(public: &[u8; 32]) -> Self {
        Self(hex::encode(Sha256::digest(public)))
    }

    /// A key id read from text (a lock file, a signature): 64 lowercase hex digits.
    pub fn parse(text: &str) -> Option<Self> {
        (text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
            .then(|| Self(text.to_owned()))
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An Ed25519 public key, as verifiers hold it.
#[derive(Clone, PartialEq, Eq)]
pub struct PublicKey {
    key: ed25519_dalek::VerifyingKey,
    id: KeyId,
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.id)
    }
}

impl PublicKey {
    /// The key from its 32 raw bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, KeyError> {
        let raw: [u8; 32] = bytes
            .try_into()
            .map_err(|_| KeyError::PublicKey(format!("{} bytes, expected 32", bytes.len())))?;
        let key = ed25519_dalek::VerifyingKey::from_bytes(&raw).map_err(|e| KeyError::PublicKey(e.to_string()))?;
        Ok(Self {
            key,
            id: KeyId::of(&raw),
        })
    }

    /// The key from lowercase hex of its raw bytes (the keys document's `public_key`).
    pub fn from_hex(text: &str) -> Result<Self, KeyError> {
        let bytes = hex::decode(text).map_err(|e| KeyError::PublicKey(e.to_string()))?;
        Self::from_bytes(&bytes)
    }

    /// The 32 raw bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        self.key.to_bytes()
    }

    /// Lowercase hex of the raw bytes.
    pub fn to_hex(&self) -> String {
        hex::encode(self.key.to_bytes())
    }

    /// The key as a PEM SubjectPublicKeyInfo, for tools such as `openssl`.
    pub fn to_pem(&self) -> String {
        self.key
            .to_public_key_pem(LineEnding::LF)
            .unwrap_or_else(|e| format!("(unencodable key: {e})"))
    }

    /// The key id.
    pub fn id(&self) -> &KeyId {
        &self.id
    }

    /// Whether `signature` is this key's signature of `message` (strict: no malleable or
    /// small-order forms).
    pub fn verifies(&self, message: &[u8], signature: &[u8]) -> bool {
        let Ok(signature) = ed25519_dalek::Signature::from_slice(signature) else {
            return false;
        };
        self.key.verify_strict(message, &signature).is_ok() && self.key.verify(message, &signature).is_ok()
    }

    pub(crate) fn dalek(&self) -> &ed25519_dalek::VerifyingKey {
        &self.key
    }
}

/// The registry's private signing key. Its `Debug` shows only the key id.
#[derive(Clone)]
pub struct SigningKey {
    key: ed25519_dalek::SigningKey,
    public: PublicKey,
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SigningKey({})", self.public.id)
    }
}

impl SigningKey {
    /// The key made from 32 random bytes (the caller draws them).
    pub fn from_seed(seed: [u8; 32]) -> Self {
        Self::from_dalek(ed25519_dalek::SigningKey::from_bytes(&seed))
    }

    /// The key from a PKCS#8 PEM document. Text before the PEM block (a label such as
    /// "development only", which RFC 7468 lets files carry) is ignored.
    pub fn from_pem(text: &str) -> Result<Self, KeyError> {
        let block = text.find("-----BEGIN").map_or(text, |start| &text[start..]);
        ed25519_dalek::SigningKey::from_pkcs8_pem(block.trim())
            .map(Self::from_dalek)
            .map_err(|e| KeyError::PrivateKey(e.to_string()))
    }

    /// The key as a PKCS#8 PEM document (what a key file holds).
    pub fn to_pem(&self) -> String {
        self.key
            .to_pkcs8_pem(LineEnding::LF)
            .map(|pem| pem.to_string())
            .unwrap_or_default()
    }

    fn from_dalek(key: ed25519_dalek::SigningKey) -> Self {
        let raw = key.verifying_key().to_bytes();
        let public = PublicKey {
            key: key.verifying_key(),
            id: KeyId::of(&raw),
        };
        Self { key, public }
    }

    /// The public half.
    pub fn public(&self) -> &PublicKey {
        &self.public
    }

    /// The key id of the public half.
    pub fn id(&self) -> &KeyId {
        &self.public.id
    }

    /// The Ed25519 signature of `message` (64 bytes).
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_survives_its_pem_form_and_signs_what_its_public_half_verifies() {
        let key = SigningKey::from_seed([7; 32]);
        let again = SigningKey::from_pem(&key.to_pem()).unwrap();
        assert_eq!(again.id(), key.id());
        let labelled = SigningKey::from_pem(&format!("Development only.\n{}", key.to_pem())).unwrap();
        assert_eq!(labelled.id(), key.id());
        let signature = again.sign(b"message");
        assert!(key.public().verifies(b"message", &signature));
        assert!(!key.public().verifies(b"messagf", &signature));
        assert!(!SigningKey::from_seed([8; 32]).public().verifies(b"message", &signature));
        assert_eq!(PublicKey::from_hex(&key.public().to_hex()).unwrap(), *key.public());
    }

    #[test]
    fn the_key_id_is_the_sha256_of_the_raw_public_key() {
        let key = SigningKey::from_seed([1; 32]);
        let expected = hex::encode(Sha256::digest(key.public().to_bytes()));
        assert_eq!(key.id().as_str(), expected);
        assert_eq!(KeyId::parse(&expected), Some(key.id().clone()));
        assert_eq!(KeyId::parse("ABC"), None);
    }

    #[test]
    fn other_texts_are_refused_as_private_keys_with_what_to_do() {
        let error = SigningKey::from_pem("hello").unwrap_err().to_string();
        assert!(error.contains("cairn-registry key generate"), "{error}");
        assert!(PublicKey::from_bytes(&[0; 31]).is_err());
    }
}
