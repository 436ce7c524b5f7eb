//! Every mesh of a workspace of one to three files (the input split on 0xFF) is resolved
//! and its manifests built without a panic; every diagnostic lies inside its file on
//! character boundaries; and no manifest holds the text of a literal written where a
//! secret is expected (a secret operator requirement's or field's default, a value
//! assigned in a mesh to a secret operator requirement, a secret field's answer).
//!
//! One database lives across executions, as in the check target.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::db::{self, Database, SourceFile, Workspace};
use meshc::resolve::Lock;
use meshc::span::FilePath;
use meshc_fuzz::{MAX_FILES, assert_diagnostics_sound, secret_literals, sources_of, workspace_of};
use salsa::Setter as _;
use std::cell::RefCell;
use std::sync::Arc;

struct Session {
    db: Database,
    ws: Workspace,
    files: Vec<SourceFile>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

fn session() -> Session {
    let empty =
        (0..MAX_FILES).map(|i| (FilePath::from(format!("f{i}.mesh")), Arc::<str>::from("")));
    let (db, ws) = Database::with_files(empty);
    let files = ws.files(&db)[1..].to_vec();
    Session { db, ws, files }
}

fuzz_target!(|data: &[u8]| {
    let mut files = workspace_of(data);
    while files.len() < MAX_FILES {
        files.push((format!("f{}.mesh", files.len()).into(), Arc::from("")));
    }
    SESSION.with(|cell| {
        let mut cell = cell.borrow_mut();
        let s = cell.get_or_insert_with(session);
        for (input, (_, text)) in s.files.iter().zip(&files) {
            if input.text(&s.db) != text {
                input.set_text(&mut s.db).to(text.clone());
            }
        }
        let sources = sources_of(&files);
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
