//! The catalogue is the language's proof: every definition checks clean (warnings
//! included), every mesh builds whole with its committed lock, and the manifests are
//! snapshots, so a change in resolution shows as a reviewable diff.

mod common;

use meshc::db::{self, Database};
use meshc::resolve::Lock;
use std::path::{Path, PathBuf};

fn catalogue_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalogue")
}

/// The catalogue's files as a workspace, named as `meshc check catalogue` names them.
fn workspace() -> (Database, db::Workspace) {
    Database::with_files(common::catalogue_files())
}

#[test]
fn catalogue_checks_clean_with_warnings_denied() {
    let (database, ws) = workspace();
    common::assert_checks_clean(&database, ws, "the catalogue");
}

#[test]
fn catalogue_has_providers_for_every_standard_contract_and_seat() {
    let (database, ws) = workspace();
    let reg = db::registry(&database, ws);
    let mut provided = std::collections::BTreeSet::new();
    for name in reg.modules.keys() {
        let source = db::module_source(&database, ws, name).unwrap();
        for p in source.module().provides() {
            provided.insert(p.contract.name.clone());
        }
    }
    for contract in [
        "secret",
        "postgres",
        "redis",
        "bucket",
        "route",
        "amqp",
        "smtp",
        "dns_record",
    ] {
        assert!(
            provided.contains(contract),
            "no catalogue module provides `{contract}`"
        );
    }
    assert!(
        reg.modules.len() >= 20,
        "only {} modules",
        reg.modules.len()
    );
}

#[test]
fn every_mesh_builds_whole_and_matches_its_snapshot() {
    common::refuse_update_modes_in_ci();
    let (database, ws) = workspace();
    let reg = db::registry(&database, ws);
    let meshes: Vec<String> = reg.meshes.keys().cloned().collect();
    assert!(
        meshes.len() >= 2,
        "the catalogue has {} meshes",
        meshes.len()
    );
    for mesh in meshes {
        let lock_path = catalogue_dir().join(format!("{mesh}.mesh.lock"));
        let lock = Lock::parse(&std::fs::read_to_string(&lock_path).unwrap()).unwrap();
        let outcome = db::resolve_mesh(&database, ws, mesh.clone(), lock.clone());
        assert!(
            !outcome.refused(),
            "mesh `{mesh}` does not build whole: {:?} {:?}",
            outcome.diagnostics,
            outcome.left_out
        );
        assert!(
            outcome.locked_refusals(&lock).is_empty(),
            "mesh `{mesh}` would change its committed lock"
        );
        for (node, manifest) in &outcome.manifests {
            let text = String::from_utf8(meshc::emit::manifest_bytes(manifest)).unwrap();
            insta::assert_snapshot!(format!("{mesh}__{node}"), text);
        }
    }
}
