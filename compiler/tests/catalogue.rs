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

/// Issue 38: docs/catalogue.md gives, for every module, its pins, the date they were
/// checked and the upstream page that names them. Every image the catalogue pins is in its
/// module's row, so a pin cannot move without the table.
#[test]
fn every_pin_is_in_the_docs_table_with_its_date_and_upstream_page() {
    let docs = std::fs::read_to_string(catalogue_dir().join("../docs/catalogue.md")).unwrap();
    let start = docs
        .find("### Every pin, module by module")
        .expect("the pins table in docs/catalogue.md");
    let table = &docs[start..];
    let table = &table[..table[4..].find("\n### ").map_or(table.len(), |i| i + 4)];
    let rows: std::collections::BTreeMap<&str, &str> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once("` |"))
        .collect();
    let mut modules = 0;
    for (name, text) in common::catalogue_files() {
        let images: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("image \""))
            .filter_map(|l| l.split('"').next())
            .collect();
        if images.is_empty() {
            continue;
        }
        modules += 1;
        let module = name
            .trim_start_matches("catalogue/")
            .trim_end_matches(".mesh");
        let row = rows
            .get(module)
            .unwrap_or_else(|| panic!("no row for `{module}` in the pins table"));
        for image in images {
            assert!(
                row.contains(&format!("`{image}`")),
                "`{image}` of {module} is not in its row: {row}"
            );
        }
        let cells: Vec<&str> = row.split(" | ").collect();
        assert!(cells.len() >= 4, "{module}: {row}");
        let date = cells[1].trim();
        assert!(
            date.len() == 10 && date.starts_with("20") && date.as_bytes()[4] == b'-',
            "{module}: no date checked in {row}"
        );
        assert!(
            cells[2].contains("<https://"),
            "{module}: no upstream page in {row}"
        );
        assert!(
            !cells[3].trim().is_empty(),
            "{module}: nothing verified in {row}"
        );
    }
    assert_eq!(rows.len(), modules, "rows for modules the catalogue lacks");
}
