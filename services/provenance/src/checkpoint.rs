//! Signed checkpoints in the C2SP formats: the body is a tlog checkpoint (origin, tree
//! size, base64 root hash, one per line) and the signature lines follow the signed-note
//! format (`— <origin> <base64(key hash ‖ signature)>`), so any C2SP tool reads them.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use signed_note::{Note, StandardVerifier, VerifierList};

use crate::keys::{KeyId, PublicKey, SigningKey};
use crate::merkle::Hash;

/// A checkpoint: the log's size and root hash at one moment.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint {
    /// The log's origin (its unique name; the registry's name).
    pub origin: String,
    /// How many entries the tree holds.
    pub size: u64,
    /// The root hash of those entries.
    pub root: Hash,
}

/// Why a checkpoint was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum CheckpointError {
    /// The text is not a signed checkpoint.
    #[error("the checkpoint is malformed: {0}")]
    Malformed(String),
    /// The checkpoint is another log's.
    #[error("the checkpoint is for log '{found}', expected '{expected}'")]
    Origin {
        /// The origin the checkpoint names.
        found: String,
        /// The expected origin.
        expected: String,
    },
    /// No trusted key signed it, or a signature does not verify.
    #[error("the checkpoint is not signed by a trusted key of '{0}' (or a signature was altered)")]
    Unsigned(String),
}

/// The signed-note key id of `key` under the name `origin` (4 bytes of
/// `SHA-256(origin ‖ "\n" ‖ 0x01 ‖ key)`).
fn note_key_id(origin: &str, key: &PublicKey) -> u32 {
    signed_note::key_id(origin, &[&[1u8][..], &key.to_bytes()[..]].concat())
}

/// The signed-note verifier key of `key` for `origin` (`<origin>+<hash>+<base64>`), what
/// C2SP tools are configured with.
pub fn note_verifier_key(origin: &str, key: &PublicKey) -> String {
    signed_note::new_ed25519_verifier_key(origin, key.dalek())
}

struct NoteSigner<'a> {
    origin: &'a str,
    key: &'a SigningKey,
}

impl signed_note::Signer for NoteSigner<'_> {
    fn name(&self) -> &str {
        self.origin
    }

    fn key_id(&self) -> u32 {
        note_key_id(self.origin, self.key.public())
    }

    fn sign(&self, msg: &[u8]) -> Result<Vec<u8>, ed25519_dalek::SignatureError> {
        Ok(self.key.sign(msg).to_vec())
    }
}

impl Checkpoint {
    /// The checkpoint's body: `<origin>\n<size>\n<base64 root>\n`.
    pub fn body(&self) -> String {
        format!("{}\n{}\n{}\n", self.origin, self.size, STANDARD.encode(self.root.0))
    }

    /// The signed note: the body, a blank line and one signature line per key.
    pub fn sign(&self, keys: &[&SigningKey]) -> Result<String, CheckpointError> {
        if !signed_note::is_key_name_valid(&self.origin) {
            return Err(CheckpointError::Malformed(format!(
                "'{}' cannot name a log (no spaces or '+')",
                self.origin
            )));
        }
        let mut note = Note::new(self.body().as_bytes(), &[]).map_err(|e| CheckpointError::Malformed(e.to_string()))?;
        let signers: Vec<NoteSigner<'_>> = keys
            .iter()
            .map(|key| NoteSigner {
                origin: &self.origin,
                key,
            })
            .collect();
        let signers: Vec<&dyn signed_note::Signer> = signers.iter().map(|s| s as &dyn signed_note::Signer).collect();
        note.add_sigs(&signers)
            .map_err(|e| CheckpointError::Malformed(e.to_string()))?;
        String::from_utf8(note.to_bytes()).map_err(|e| CheckpointError::Malformed(e.to_string()))
    }

    /// Reads a signed checkpoint of `origin` and checks its signatures against `keys`:
    /// at least one must be by one of them, and none by them may be invalid. Returns the
    /// checkpoint and the keys that signed it.
    pub fn open(text: &str, origin: &str, keys: &[&PublicKey]) -> Result<(Self, Vec<KeyId>), CheckpointError> {
        let note = Note::from_bytes(text.as_bytes()).map_err(|e| CheckpointError::Malformed(e.to_string()))?;
        let body = std::str::from_utf8(note.text()).map_err(|e| CheckpointError::Malformed(e.to_string()))?;
        let checkpoint = Self::parse_body(body)?;
        if checkpoint.origin != origin {
            return Err(CheckpointError::Origin {
                found: checkpoint.origin,
                expected: origin.to_owned(),
            });
        }
        let mut verifiers: Vec<Box<dyn signed_note::Verifier>> = Vec::new();
        for key in keys {
            let verifier = StandardVerifier::new(&note_verifier_key(origin, key))
                .map_err(|e| CheckpointError::Malformed(e.to_string()))?;
            verifiers.push(Box::new(verifier));
        }
        let (verified, _) = note
            .verify(&VerifierList::new(verifiers))
            .map_err(|_| CheckpointError::Unsigned(origin.to_owned()))?;
        let signed_by = keys
            .iter()
            .filter(|key| verified.iter().any(|s| s.id() == note_key_id(origin, key)))
            .map(|key| key.id().clone())
            .collect();
        Ok((checkpoint, signed_by))
    }

    /// Parses a checkpoint body (without signatures): origin, size and root, extension
    /// lines ignored.
    pub fn parse_body(body: &str) -> Result<Self, CheckpointError> {
        let mut lines = body.split('\n');
        let (Some(origin), Some(size), Some(root)) = (lines.next(), lines.next(), lines.next()) else {
            return Err(CheckpointError::Malformed("fewer than three lines".to_owned()));
        };
        let size = size
            .parse::<u64>()
            .ok()
            .filter(|_| !size.starts_with('+') && (size == "0" || !size.starts_with('0')))
            .ok_or_else(|| CheckpointError::Malformed(format!("'{size}' is not a tree size")))?;
        let root = STANDARD
            .decode(root)
            .ok()
            .and_then(|b| Hash::from_slice(&b))
            .ok_or_else(|| CheckpointError::Malformed("the root hash is not 32 bytes of base64".to_owned()))?;
        if origin.is_empty() {
            return Err(CheckpointError::Malformed("the origin is empty".to_owned()));
        }
        Ok(Self {
            origin: origin.to_owned(),
            size,
            root,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint() -> Checkpoint {
        Checkpoint {
            origin: "cairn.example.com".to_owned(),
            size: 8,
            root: Hash([5; 32]),
        }
    }

    #[test]
    fn a_signed_checkpoint_opens_with_its_key_and_is_a_c2sp_note() {
        let key = SigningKey::from_seed([9; 32]);
        let text = checkpoint().sign(&[&key]).unwrap();
        let (lines, signature) = text.split_once("\n\n").unwrap();
        assert_eq!(format!("{lines}\n"), checkpoint().body());
        assert!(signature.starts_with("— cairn.example.com "), "{signature}");
        let (opened, by) = Checkpoint::open(&text, "cairn.example.com", &[key.public()]).unwrap();
        assert_eq!(opened, checkpoint());
        assert_eq!(by, vec![key.id().clone()]);
        // The reference verifier of the signed-note crate agrees.
        let reference = StandardVerifier::new(&note_verifier_key("cairn.example.com", key.public())).unwrap();
        let note = Note::from_bytes(text.as_bytes()).unwrap();
        note.verify(&VerifierList::new(vec![Box::new(reference)])).unwrap();
    }

    #[test]
    fn altered_foreign_or_unsigned_checkpoints_are_refused() {
        let key = SigningKey::from_seed([9; 32]);
        let other = SigningKey::from_seed([10; 32]);
        let text = checkpoint().sign(&[&key]).unwrap();
        let grown = text.replacen("\n8\n", "\n9\n", 1);
        assert!(matches!(
            Checkpoint::open(&grown, "cairn.example.com", &[key.public()]),
            Err(CheckpointError::Unsigned(_))
        ));
        assert!(matches!(
            Checkpoint::open(&text, "cairn.example.com", &[other.public()]),
            Err(CheckpointError::Unsigned(_))
        ));
        assert!(matches!(
            Checkpoint::open(&text, "elsewhere", &[key.public()]),
            Err(CheckpointError::Origin { .. })
        ));
        assert!(Checkpoint::open("cairn.example.com\n8\n", "cairn.example.com", &[key.public()]).is_err());
        assert!(Checkpoint::parse_body("o\n08\nAAAA\n").is_err());
    }
}
