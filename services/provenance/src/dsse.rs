//! DSSE envelopes (the Dead Simple Signing Envelope, v1.0): a payload, its type and
//! signatures over the pre-authentication encoding of both.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::keys::{KeyId, PublicKey, SigningKey};

/// The payload type of an in-toto statement.
pub const IN_TOTO_PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";

/// A signed envelope as it travels (JSON: `payload` in standard base64, `payloadType`,
/// `signatures: [{keyid, sig}]`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Envelope {
    /// The payload, base64 (standard alphabet, padded).
    pub payload: String,
    /// What the payload is.
    pub payload_type: String,
    /// One or more signatures over the PAE of type and payload.
    pub signatures: Vec<EnvelopeSignature>,
}

/// One signature of an envelope.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvelopeSignature {
    /// The signing key's id ([`KeyId`]).
    pub keyid: String,
    /// The Ed25519 signature, base64.
    pub sig: String,
}

/// Why an envelope was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// The envelope's JSON or base64 does not parse.
    #[error("the envelope is malformed: {0}")]
    Malformed(String),
    /// The payload type is not the expected one.
    #[error("the envelope carries '{found}', expected '{expected}'")]
    PayloadType {
        /// The type the envelope names.
        found: String,
        /// The expected type.
        expected: String,
    },
    /// No signature is by a trusted key and valid.
    #[error("no valid signature by a trusted key (signed by: {0})")]
    Unsigned(String),
    /// A signature by a trusted key does not verify.
    #[error("the signature by key {0} does not match the envelope: it was altered or signed by another key")]
    BadSignature(KeyId),
}

/// The pre-authentication encoding: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`,
/// lengths as ASCII decimal byte counts.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload.len() + payload_type.len() + 32);
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload);
    out
}

impl Envelope {
    /// `payload` of `payload_type`, signed by every key of `keys` (in order).
    pub fn sign(payload_type: &str, payload: &[u8], keys: &[&SigningKey]) -> Self {
        let message = pae(payload_type, payload);
        Self {
            payload: STANDARD.encode(payload),
            payload_type: payload_type.to_owned(),
            signatures: keys
                .iter()
                .map(|key| EnvelopeSignature {
                    keyid: key.id().to_string(),
                    sig: STANDARD.encode(key.sign(&message)),
                })
                .collect(),
        }
    }

    /// Reads an envelope from its JSON.
    pub fn from_json(bytes: &[u8]) -> Result<Self, EnvelopeError> {
        serde_json::from_slice(bytes).map_err(|e| EnvelopeError::Malformed(e.to_string()))
    }

    /// The envelope's JSON (what the log stores and hashes as a leaf).
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// The payload's bytes, unverified.
    pub fn payload_bytes(&self) -> Result<Vec<u8>, EnvelopeError> {
        STANDARD
            .decode(&self.payload)
            .map_err(|e| EnvelopeError::Malformed(format!("payload: {e}")))
    }

    /// Checks the type and that at least one signature is by a key `trusted` accepts and
    /// valid; any signature by an accepted key that does not verify refuses the envelope.
    /// Returns the payload and the keys whose signatures verified.
    pub fn verify<'k>(
        &self,
        payload_type: &str,
        trusted: impl Fn(&str) -> Option<&'k PublicKey>,
    ) -> Result<(Vec<u8>, Vec<KeyId>), EnvelopeError> {
        if self.payload_type != payload_type {
            return Err(EnvelopeError::PayloadType {
                found: self.payload_type.clone(),
                expected: payload_type.to_owned(),
            });
        }
        let payload = self.payload_bytes()?;
        let message = pae(&self.payload_type, &payload);
        let mut verified = Vec::new();
        for signature in &self.signatures {
            let Some(key) = trusted(&signature.keyid) else {
                continue;
            };
            let sig = STANDARD
                .decode(&signature.sig)
                .map_err(|e| EnvelopeError::Malformed(format!("signature: {e}")))?;
            if !key.verifies(&message, &sig) {
                return Err(EnvelopeError::BadSignature(key.id().clone()));
            }
            verified.push(key.id().clone());
        }
        if verified.is_empty() {
            let signers: Vec<&str> = self.signatures.iter().map(|s| s.keyid.as_str()).collect();
            return Err(EnvelopeError::Unsigned(if signers.is_empty() {
                "nobody".to_owned()
            } else {
                signers.join(", ")
            }));
        }
        Ok((payload, verified))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_matches_the_specification_example() {
        // The DSSE protocol document's example.
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ".to_vec());
    }

    #[test]
    fn a_signed_envelope_verifies_and_every_alteration_is_refused() {
        let key = SigningKey::from_seed([3; 32]);
        let other = SigningKey::from_seed([4; 32]);
        let envelope = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, b"{\"a\":1}", &[&key]);
        let trust = |id: &str| (id == key.id().as_str()).then_some(key.public());
        let (payload, keys) = envelope.verify(IN_TOTO_PAYLOAD_TYPE, trust).unwrap();
        assert_eq!(payload, b"{\"a\":1}");
        assert_eq!(keys, vec![key.id().clone()]);

        let mut changed = envelope.clone();
        changed.payload = STANDARD.encode(b"{\"a\":2}");
        assert_eq!(
            changed.verify(IN_TOTO_PAYLOAD_TYPE, trust),
            Err(EnvelopeError::BadSignature(key.id().clone()))
        );
        let mut retyped = envelope.clone();
        retyped.payload_type = "text/plain".into();
        assert!(matches!(
            retyped.verify(IN_TOTO_PAYLOAD_TYPE, trust),
            Err(EnvelopeError::PayloadType { .. })
        ));
        let foreign = Envelope::sign(IN_TOTO_PAYLOAD_TYPE, b"{\"a\":1}", &[&other]);
        assert!(matches!(
            foreign.verify(IN_TOTO_PAYLOAD_TYPE, trust),
            Err(EnvelopeError::Unsigned(_))
        ));
        // A foreign signature relabelled with the trusted key's id.
        let mut relabelled = foreign.clone();
        relabelled.signatures[0].keyid = key.id().to_string();
        assert!(matches!(
            relabelled.verify(IN_TOTO_PAYLOAD_TYPE, trust),
            Err(EnvelopeError::BadSignature(_))
        ));
        let json = envelope.to_json();
        assert_eq!(Envelope::from_json(&json).unwrap(), envelope);
        assert!(Envelope::from_json(b"{}").is_err());
    }
}
