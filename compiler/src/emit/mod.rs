//! Manifests: the serde shape of LANGUAGE.md §9, canonical JSON and the digest.
//!
//! A manifest is built by the resolver ([`crate::resolve`]) and written by the binary.
//! Everything here is deterministic: maps keep source order ([`indexmap::IndexMap`]) and
//! the digest is taken over canonical JSON (sorted keys, no whitespace), so the same
//! input always gives the same bytes.

pub mod canonical;
pub mod manifest;

pub use canonical::{canonical_json, digest_of};
pub use manifest::*;

/// The bytes of `manifest` as `meshc build` writes them: pretty JSON with its digest
/// filled in and a trailing newline.
pub fn manifest_bytes(manifest: &Manifest) -> Vec<u8> {
    let mut m = manifest.clone();
    m.digest = digest_of(&m);
    let mut bytes = serde_json::to_vec_pretty(&m).expect("a manifest always serialises");
    bytes.push(b'\n');
    bytes
}
