//! A fast, non-cryptographic hasher for the resolver's own tables and the checker's
//! small name tables (the multiply-rotate
//! hash rustc uses). Keys are names and indices from the workspace; a resolver's tables
//! are built and dropped within one run, so hash flooding buys an attacker nothing they
//! could not get by writing a large mesh.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A `HashSet` with [`FxHasher`].
pub(crate) type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;
/// The builder of [`FxHasher`]s.
pub type FxBuildHasher = BuildHasherDefault<FxHasher>;
/// An `IndexMap` (insertion order) with [`FxHasher`]: the small name tables a module's
/// scope and a contract's fields are looked up in on every reference.
pub type FxIndexMap<K, V> = indexmap::IndexMap<K, V, FxBuildHasher>;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// Word-at-a-time multiply-rotate hashing.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("eight bytes")));
        }
        // The tail, a byte at a time: names are short, and a copy into a buffer would cost
        // a call to memcpy per hash.
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = 0u64;
            for (k, &b) in rest.iter().enumerate() {
                word |= u64::from(b) << (8 * k);
            }
            self.add(word);
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// The last multiply leaves the low bits depending on the low bits of what was mixed
    /// in alone (`p12345` and `p12399` share theirs), and a table picks its bucket from
    /// the low bits: the well-mixed high bits are rotated down, as rustc's hasher does
    /// since 2.0. Without it, a chain of 50,000 requirements `p0`…`p49999` probed long
    /// runs of one bucket on every lookup.
    #[inline]
    fn finish(&self) -> u64 {
        self.hash.rotate_left(26)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tells_keys_apart() {
        let mut m: FxHashMap<(usize, &str, &str), u32> = FxHashMap::default();
        m.insert((1, "db", "host"), 1);
        m.insert((1, "db", "port"), 2);
        m.insert((2, "db", "host"), 3);
        m.insert((1, "dbh", "ost"), 4);
        assert_eq!(m.len(), 4);
        assert_eq!(m[&(1, "db", "port")], 2);
    }

    /// The bucket a table picks is the hash's low bits: names alike but for their last
    /// characters, as a generated chain's are, spread over the buckets as random hashes
    /// would (about 63% of 65,536 buckets for 65,536 keys), not into a few.
    #[test]
    fn names_alike_spread_over_the_low_bits() {
        use std::hash::BuildHasher;
        let build = FxBuildHasher::default();
        let n = 1usize << 16;
        let names: Vec<String> = (0..n).map(|i| format!("p{i}")).collect();
        for key_of in [
            (|i: usize, s: &str| (i % 3, s.to_string())) as fn(usize, &str) -> (usize, String),
            |_, s| (0, s.to_string()),
        ] {
            let mut seen = vec![false; n];
            for (i, name) in names.iter().enumerate() {
                let h = build.hash_one(key_of(i, name));
                seen[(h as usize) & (n - 1)] = true;
            }
            let used = seen.iter().filter(|b| **b).count();
            assert!(used > n / 2, "{used} of {n} buckets used");
        }
    }
}
