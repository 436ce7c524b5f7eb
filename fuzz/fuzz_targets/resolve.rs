//! Every mesh of a workspace of one to three files (the input split on 0xFF) is resolved
//! and its manifests built without a panic; every diagnostic lies inside its file on
//! character boundaries; and no manifest holds the text of a literal written where a
//! secret is expected (a secret operator requirement's or field's default, a value
//! assigned in a mesh to a secret operator requirement, a secret field's answer).
//!
//! One database lives across executions, as in the check target (`meshc_fuzz::Session`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::db;
use meshc::resolve::Lock;
use meshc_fuzz::{assert_diagnostics_sound, in_session, secret_literals, sources_of};

fuzz_target!(|data: &[u8]| {
    in_session(data, |s, files| {
        let sources = sources_of(files);
        let secrets = secret_literals(&s.db, &s.files);
        let meshes: Vec<String> = db::registry(&s.db, s.ws).meshes.keys().cloned().collect();
        for mesh in meshes {
            let outcome = db::resolve_mesh(&s.db, s.ws, mesh, Lock::default());
            assert_diagnostics_sound(&outcome.diagnostics, &sources);
            for (node, manifest) in &outcome.manifests {
                let bytes = meshc::emit::manifest_bytes(manifest);
                let text = String::from_utf8_lossy(&bytes);
                for secret in &secrets {
                    assert!(
                        !text.contains(secret.as_str()),
                        "the manifest of node `{node}` holds the secret literal {secret:?}:\n{text}"
                    );
                }
            }
        }
    });
});
