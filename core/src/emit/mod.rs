//! Manifests: the serde shape of LANGUAGE.md §9, canonical JSON and the digest.
//!
//! A manifest is built by the resolver ([`crate::resolve`]) and written by the binary.
//! Everything here is deterministic: maps keep source order ([`indexmap::IndexMap`]) and
//! the digest is taken over canonical JSON (sorted keys, no whitespace), so the same
//! input always gives the same bytes.

pub mod canonical;
pub mod compose;
#[cfg(test)]
pub(crate) mod fixture;
/// The template functions, below every layer (the checker and the resolver apply them
/// too); here under the name the node's renderer has always used.
pub use crate::base::template_functions as functions;
pub mod manifest;
pub mod order;
pub mod swarm;

pub use canonical::{
    ManifestWriter, PartsFile, canonical_json, digest_of, write_pretty_with_digest,
};
pub use manifest::*;
pub use order::same_node_providers;

/// The bytes of `manifest` as `meshc build` writes them: pretty JSON with its digest
/// filled in and a trailing newline. A manifest from resolution holds its digest
/// already; one whose `digest` is empty has it computed here.
pub fn manifest_bytes(manifest: &Manifest) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_manifest_bytes(manifest, &mut bytes);
    bytes
}

/// Appends the bytes [`manifest_bytes`] gives to `out`: a build serialises every node's
/// manifest into one buffer per thread, grown once. The digest is worked out in the same
/// walk ([`write_pretty_with_digest`]); a manifest that holds one already must hold that
/// one.
pub fn write_manifest_bytes(manifest: &Manifest, out: &mut Vec<u8>) {
    let digest = write_pretty_with_digest(manifest, out);
    debug_assert!(
        manifest.digest.is_empty() || manifest.digest == digest,
        "a manifest changed after its digest was taken"
    );
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
                diagnostics: vec![LeftOutDiagnostic {
                    code: "E0501".into(),
                    message: "`title` \"quoted\"\n".into(),
                }],
            }],
            retired: vec![
                Retired {
                    instance: "old".into(),
                    container: "old".into(),
                    path: None,
                },
                Retired {
                    instance: "web".into(),
                    container: "web".into(),
                    path: Some("/etc/é".into()),
                },
            ],
        };
        let mut m = m;
        m.nodes.insert(
            "alpha".into(),
            NodeAddress {
                private_name: "alpha.lab".into(),
            },
        );
        let bytes = manifest_bytes(&m);
        let mut filled = m.clone();
        filled.digest = digest_of(&m);
        let mut want = serde_json::to_vec_pretty(&filled).unwrap();
        want.push(b'\n');
        assert_eq!(bytes, want);
    }
}
