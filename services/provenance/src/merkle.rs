//! The log's RFC 6962 Merkle tree: leaf hashes `SHA-256(0x00 ‖ entry)`, node hashes
//! `SHA-256(0x01 ‖ left ‖ right)`, inclusion and consistency proofs.
//!
//! The tree is kept as "stored hashes" (every complete subtree's hash, numbered as
//! [`tlog_tiles`] numbers them), so a proof reads `O(log n)` stored hashes. Storage is
//! asynchronous (PostgreSQL) while the tree code is not: each operation comes as a pair
//! — `*_needs` names the stored hashes it reads, and the operation itself takes them as a
//! map. Verification needs no storage at all.

use std::collections::HashMap;
use std::fmt;

use tlog_tiles::tlog;

/// A SHA-256 hash in the tree (a leaf, a node or a root). JSON: lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hash(pub [u8; 32]);

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl Hash {
    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }

    /// A hash from 64 hex digits.
    pub fn from_hex(text: &str) -> Option<Self> {
        let mut out = [0; 32];
        hex::decode_to_slice(text, &mut out).ok()?;
        Some(Self(out))
    }

    /// A hash from 32 bytes.
    pub fn from_slice(bytes: &[u8]) -> Option<Self> {
        bytes.try_into().ok().map(Self)
    }

    fn tlog(self) -> tlog::Hash {
        tlog::Hash(self.0)
    }

    fn from_tlog(hash: tlog::Hash) -> Self {
        Self(hash.0)
    }
}

impl serde::Serialize for Hash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> serde::Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Self::from_hex(&text).ok_or_else(|| serde::de::Error::custom("expected 64 lowercase hex digits"))
    }
}

/// The root of the empty tree (the SHA-256 of nothing).
pub const EMPTY_ROOT: Hash = Hash(tlog::EMPTY_HASH.0);

/// Why a tree operation or a proof failed.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProofError {
    /// The sizes or indexes do not describe a proof (an index beyond the tree, a
    /// consistency proof from a larger tree to a smaller one).
    #[error("{0}")]
    OutOfRange(String),
    /// The proof does not lead to the expected root.
    #[error("the proof does not lead to the checkpoint's root hash: the entry or the log was altered")]
    Invalid,
    /// A stored hash the operation needs is missing.
    #[error("stored hash {0} is missing")]
    Missing(u64),
}

/// An inclusion (audit) proof: the hashes from the leaf's neighbour up to the root's child.
pub type InclusionProof = Vec<Hash>;
/// A consistency proof between two sizes of the tree.
pub type ConsistencyProof = Vec<Hash>;

/// The leaf hash of a log entry: `SHA-256(0x00 ‖ entry)`.
pub fn leaf_hash(entry: &[u8]) -> Hash {
    Hash::from_tlog(tlog::record_hash(entry))
}

/// The hash of an interior node: `SHA-256(0x01 ‖ left ‖ right)`.
pub fn node_hash(left: Hash, right: Hash) -> Hash {
    Hash::from_tlog(tlog::node_hash(left.tlog(), right.tlog()))
}

/// The number of the first stored hash written for leaf `index` (its leaf hash); the
/// hashes [`append`] returns are numbered from here on.
pub fn first_stored_index(index: u64) -> u64 {
    tlog::stored_hash_index(0, index)
}

/// Records which stored hashes an operation reads, answering with placeholders.
struct Recorder(std::cell::RefCell<Vec<u64>>);

impl tlog::HashReader for Recorder {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<tlog::Hash>, tlog::Error> {
        self.0.borrow_mut().extend_from_slice(indexes);
        Ok(vec![tlog::Hash::default(); indexes.len()])
    }
}

/// Answers stored hashes from a map.
struct Known<'a>(&'a HashMap<u64, Hash>);

impl tlog::HashReader for Known<'_> {
    fn read_hashes(&self, indexes: &[u64]) -> Result<Vec<tlog::Hash>, tlog::Error> {
        indexes
            .iter()
            .map(|i| self.0.get(i).map(|h| h.tlog()).ok_or(tlog::Error::IndexesNotInTree))
            .collect()
    }
}

fn needs(run: impl FnOnce(&Recorder) -> Result<(), tlog::Error>) -> Vec<u64> {
    let recorder = Recorder(Default::default());
    // The placeholders make any check fail; only the indexes read matter here.
    let _ = run(&recorder);
    recorder.0.into_inner()
}

fn missing(error: tlog::Error, known: &HashMap<u64, Hash>, wanted: &[u64]) -> ProofError {
    match error {
        tlog::Error::IndexesNotInTree => {
            ProofError::Missing(wanted.iter().copied().find(|i| !known.contains_key(i)).unwrap_or(0))
        }
        tlog::Error::InvalidInput(message) => ProofError::OutOfRange(message),
        _ => ProofError::Invalid,
    }
}

/// The stored hashes [`append`] reads to add leaf number `index`.
pub fn append_needs(index: u64) -> Vec<u64> {
    needs(|r| tlog::stored_hashes_for_record_hash(index, tlog::Hash::default(), r).map(drop))
}

/// The stored hashes to write when leaf number `index` (0-based) with hash `leaf` is
/// appended, numbered from [`first_stored_index`]`(index)`.
pub fn append(index: u64, leaf: Hash, known: &HashMap<u64, Hash>) -> Result<Vec<Hash>, ProofError> {
    tlog::stored_hashes_for_record_hash(index, leaf.tlog(), &Known(known))
        .map(|hashes| hashes.into_iter().map(Hash::from_tlog).collect())
        .map_err(|e| missing(e, known, &append_needs(index)))
}

/// The stored hashes [`root`] reads.
pub fn root_needs(size: u64) -> Vec<u64> {
    needs(|r| tlog::tree_hash(size, r).map(drop))
}

/// The root hash of the first `size` leaves.
pub fn root(size: u64, known: &HashMap<u64, Hash>) -> Result<Hash, ProofError> {
    tlog::tree_hash(size, &Known(known))
        .map(Hash::from_tlog)
        .map_err(|e| missing(e, known, &root_needs(size)))
}

fn check_inclusion_range(index: u64, size: u64) -> Result<(), ProofError> {
    if index >= size {
        return Err(ProofError::OutOfRange(format!(
            "entry {index} is not in a tree of {size} entries; ask for an index below the size"
        )));
    }
    Ok(())
}

fn check_consistency_range(from: u64, to: u64) -> Result<(), ProofError> {
    if from == 0 || from > to {
        return Err(ProofError::OutOfRange(format!(
            "no consistency proof from size {from} to size {to}: 'from' must be at least 1 and at most 'to'"
        )));
    }
    Ok(())
}

/// The stored hashes [`inclusion_proof`] reads.
pub fn inclusion_needs(index: u64, size: u64) -> Result<Vec<u64>, ProofError> {
    check_inclusion_range(index, size)?;
    Ok(needs(|r| tlog::prove_record(size, index, r).map(drop)))
}

/// The proof that leaf `index` is in the tree of `size` leaves.
pub fn inclusion_proof(index: u64, size: u64, known: &HashMap<u64, Hash>) -> Result<InclusionProof, ProofError> {
    check_inclusion_range(index, size)?;
    tlog::prove_record(size, index, &Known(known))
        .map(|p| p.into_iter().map(Hash::from_tlog).collect())
        .map_err(|e| missing(e, known, &inclusion_needs(index, size).unwrap_or_default()))
}

/// The stored hashes [`consistency_proof`] reads.
pub fn consistency_needs(from: u64, to: u64) -> Result<Vec<u64>, ProofError> {
    check_consistency_range(from, to)?;
    Ok(needs(|r| tlog::prove_tree(to, from, r).map(drop)))
}

/// The proof that the tree of `from` leaves is a prefix of the tree of `to` leaves.
pub fn consistency_proof(from: u64, to: u64, known: &HashMap<u64, Hash>) -> Result<ConsistencyProof, ProofError> {
    check_consistency_range(from, to)?;
    tlog::prove_tree(to, from, &Known(known))
        .map(|p| p.into_iter().map(Hash::from_tlog).collect())
        .map_err(|e| missing(e, known, &consistency_needs(from, to).unwrap_or_default()))
}

/// Checks that `leaf` is entry `index` of the tree of `size` leaves whose root is `root`.
pub fn verify_inclusion(proof: &[Hash], index: u64, size: u64, root: Hash, leaf: Hash) -> Result<(), ProofError> {
    check_inclusion_range(index, size)?;
    let proof: Vec<tlog::Hash> = proof.iter().map(|h| h.tlog()).collect();
    tlog::check_record(&proof, size, root.tlog(), index, leaf.tlog()).map_err(|_| ProofError::Invalid)
}

/// Checks that the tree of `from` leaves with root `from_root` is a prefix of the tree of
/// `to` leaves with root `to_root`.
pub fn verify_consistency(
    proof: &[Hash],
    from: u64,
    from_root: Hash,
    to: u64,
    to_root: Hash,
) -> Result<(), ProofError> {
    check_consistency_range(from, to)?;
    let proof: Vec<tlog::Hash> = proof.iter().map(|h| h.tlog()).collect();
    tlog::check_tree(&proof, to, to_root.tlog(), from, from_root.tlog()).map_err(|_| ProofError::Invalid)
}

/// A whole log in memory: for tests, benchmarks and tools that rebuild a tree from its
/// entries.
#[derive(Clone, Debug, Default)]
pub struct MemoryLog {
    stored: HashMap<u64, Hash>,
    size: u64,
}

impl MemoryLog {
    /// Appends an entry; returns its index.
    pub fn push(&mut self, entry: &[u8]) -> u64 {
        let index = self.size;
        let hashes = append(index, leaf_hash(entry), &self.stored).unwrap_or_default();
        let first = first_stored_index(index);
        for (offset, hash) in (0..).zip(hashes) {
            self.stored.insert(first + offset, hash);
        }
        self.size += 1;
        index
    }

    /// The number of entries.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The stored hashes.
    pub fn stored(&self) -> &HashMap<u64, Hash> {
        &self.stored
    }

    /// The root of the first `size` entries.
    pub fn root(&self, size: u64) -> Result<Hash, ProofError> {
        root(size, &self.stored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The leaves of RFC 6962's reference test vectors (as used by Certificate
    /// Transparency's and transparency-dev's test suites).
    fn rfc_leaves() -> Vec<Vec<u8>> {
        [
            "",
            "00",
            "10",
            "2021",
            "3031",
            "40414243",
            "5051525354555657",
            "606162636465666768696a6b6c6d6e6f",
        ]
        .iter()
        .map(|h| hex::decode(h).unwrap())
        .collect()
    }

    fn h(text: &str) -> Hash {
        Hash::from_hex(text).unwrap()
    }

    fn rfc_log() -> MemoryLog {
        let mut log = MemoryLog::default();
        for leaf in rfc_leaves() {
            log.push(&leaf);
        }
        log
    }

    #[test]
    fn roots_match_the_rfc_6962_test_vectors() {
        let log = rfc_log();
        let roots = [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
            "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
            "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
            "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
            "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
            "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
        ];
        for (size, expected) in (1..).zip(roots) {
            assert_eq!(log.root(size).unwrap(), h(expected), "root of {size}");
        }
        assert_eq!(log.root(0).unwrap(), EMPTY_ROOT);
        assert_eq!(
            EMPTY_ROOT,
            h("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        );
    }

    #[test]
    fn consistency_proofs_match_the_rfc_6962_test_vectors() {
        let log = rfc_log();
        let six_to_eight = consistency_proof(6, 8, log.stored()).unwrap();
        assert_eq!(
            six_to_eight,
            vec![
                h("0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a"),
                h("ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0"),
                h("d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"),
            ]
        );
        let two_to_five = consistency_proof(2, 5, log.stored()).unwrap();
        assert_eq!(
            two_to_five,
            vec![
                h("5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e"),
                h("bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"),
            ]
        );
        let root = |n| log.root(n).unwrap();
        verify_consistency(&six_to_eight, 6, root(6), 8, root(8)).unwrap();
        verify_consistency(&two_to_five, 2, root(2), 5, root(5)).unwrap();
        assert_eq!(
            verify_consistency(&six_to_eight, 6, root(5), 8, root(8)),
            Err(ProofError::Invalid)
        );
        assert!(matches!(
            consistency_proof(0, 3, log.stored()),
            Err(ProofError::OutOfRange(_))
        ));
        assert!(matches!(
            consistency_proof(5, 3, log.stored()),
            Err(ProofError::OutOfRange(_))
        ));
    }

    #[test]
    fn every_inclusion_proof_verifies_and_no_altered_one_does() {
        let log = rfc_log();
        let leaves = rfc_leaves();
        for size in 1..=8u64 {
            let root = log.root(size).unwrap();
            for index in 0..size {
                let leaf = leaf_hash(&leaves[usize::try_from(index).unwrap()]);
                let proof = inclusion_proof(index, size, log.stored()).unwrap();
                verify_inclusion(&proof, index, size, root, leaf).unwrap();
                // Another leaf, another index, a shortened or altered proof: refused.
                assert!(verify_inclusion(&proof, index, size, root, leaf_hash(b"other")).is_err());
                if size > 1 {
                    assert!(verify_inclusion(&proof, (index + 1) % size, size, root, leaf).is_err());
                    assert!(verify_inclusion(&proof[1..], index, size, root, leaf).is_err());
                    let mut altered = proof.clone();
                    altered[0].0[0] ^= 1;
                    assert!(verify_inclusion(&altered, index, size, root, leaf).is_err());
                }
            }
        }
        assert!(matches!(
            inclusion_proof(8, 8, log.stored()),
            Err(ProofError::OutOfRange(_))
        ));
    }

    #[test]
    fn operations_name_exactly_the_stored_hashes_they_read() {
        let log = rfc_log();
        let needed = inclusion_needs(2, 7).unwrap();
        let partial: HashMap<u64, Hash> = needed.iter().map(|i| (*i, log.stored()[i])).collect();
        assert_eq!(
            inclusion_proof(2, 7, &partial).unwrap(),
            inclusion_proof(2, 7, log.stored()).unwrap()
        );
        let mut short = partial.clone();
        short.remove(&needed[0]);
        assert_eq!(inclusion_proof(2, 7, &short), Err(ProofError::Missing(needed[0])));
        let for_root: HashMap<u64, Hash> = root_needs(6).iter().map(|i| (*i, log.stored()[i])).collect();
        assert_eq!(root(6, &for_root).unwrap(), log.root(6).unwrap());
    }

    proptest::proptest! {
        #[test]
        fn consistency_holds_between_any_two_sizes(to in 1u64..70, seed in 0u64..1000) {
            let from = 1 + seed % to;
            let mut log = MemoryLog::default();
            for i in 0..to {
                log.push(&u64::to_be_bytes(i));
            }
            let proof = consistency_proof(from, to, log.stored()).unwrap();
            let (from_root, to_root) = (log.root(from).unwrap(), log.root(to).unwrap());
            proptest::prop_assert!(verify_consistency(&proof, from, from_root, to, to_root).is_ok());
            let mut other = log.clone();
            other.push(b"fork");
            if to + 1 > from {
                let forked = other.root(to + 1).unwrap();
                proptest::prop_assert!(verify_consistency(&proof, from, from_root, to, forked).is_err());
            }
        }
    }
}
