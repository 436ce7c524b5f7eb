//! Manifests: the serde shape of LANGUAGE.md §9, canonical JSON and the digest.
//!
//! A manifest is built by the resolver ([`crate::resolve`]) and written by the binary.
//! Everything here is deterministic: maps keep source order ([`indexmap::IndexMap`]) and
//! the digest is taken over canonical JSON (sorted keys, no whitespace), so the same
//! input always gives the same bytes.

pub mod canonical;
pub mod compose;
/// The template functions, below every layer (the checker and the resolver apply them
/// too); here under the name the node's renderer has always used.
pub use crate::base::template_functions as functions;
pub mod manifest;
pub mod node_names;

pub use canonical::{canonical_json, digest_of};
pub use manifest::*;

/// The bytes of `manifest` as `meshc build` writes them: pretty JSON with its digest
/// filled in and a trailing newline. A manifest from resolution holds its digest
/// already; one whose `digest` is empty has it computed here.
pub fn manifest_bytes(manifest: &Manifest) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_manifest_bytes(manifest, &mut bytes);
    bytes
}

/// Appends the bytes [`manifest_bytes`] gives to `out`: a build serialises every node's
/// manifest into one buffer per thread, grown once.
pub fn write_manifest_bytes(manifest: &Manifest, out: &mut Vec<u8>) {
    let digest = if manifest.digest.is_empty() {
        digest_of(manifest)
    } else {
        debug_assert_eq!(
            manifest.digest,
            digest_of(manifest),
            "a manifest changed after its digest was taken"
        );
        manifest.digest.clone()
    };
    serde_json::to_writer_pretty(&mut *out, &WithDigest(manifest, &digest))
        .expect("a manifest always serialises");
    out.push(b'\n');
}

/// A manifest serialised with `digest` in place of the one it holds, field for field as
/// [`Manifest`] writes itself (a test holds the two together).
struct WithDigest<'a>(&'a Manifest, &'a str);

impl serde::Serialize for WithDigest<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let m = self.0;
        let mut st = s.serialize_struct("Manifest", 7)?;
        st.serialize_field("mesh", &m.mesh)?;
        st.serialize_field("node", &m.node)?;
        st.serialize_field("digest", self.1)?;
        st.serialize_field("nodes", &m.nodes)?;
        st.serialize_field("instances", &m.instances)?;
        st.serialize_field("left_out", &m.left_out)?;
        st.serialize_field("retired", &m.retired)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_the_manifest_with_its_digest() {
        let m = Manifest {
            mesh: "lab".into(),
            node: "alpha".into(),
            digest: String::new(),
            nodes: Default::default(),
            instances: vec![],
            left_out: vec![LeftOut {
                instance: "web".into(),
                module: "web".into(),
                diagnostics: vec![],
            }],
            retired: vec![],
        };
        let bytes = manifest_bytes(&m);
        let mut filled = m.clone();
        filled.digest = digest_of(&m);
        let mut want = serde_json::to_vec_pretty(&filled).unwrap();
        want.push(b'\n');
        assert_eq!(bytes, want);
    }
}
