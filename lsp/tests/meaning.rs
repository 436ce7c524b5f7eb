//! The checker, the resolver and the language server's index read every reference one
//! way: each asks `meshc::check::meaning::meaning`, and this test records what each was
//! told for every reference of every fixture case, build case and the catalogue, and
//! holds them equal.
//!
//! The index knows contracts by name only, so where the checker knew too little to tell
//! more (a contract unknown to the registry: `unresolved`), only the checker's reading is
//! kept. The resolver evaluates what the assigned modules read: each of its readings is
//! one the checker gave at the same place.

use meshc::check::meaning::{Recorded, recording};
use meshc::db::{self, Database};
use meshc::span::FilePath;
use meshc_lsp::analysis::index::{index_file, module_shapes};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

type Readings = BTreeMap<(String, u32, String), BTreeSet<String>>;

fn mesh_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
        .collect();
    files.sort();
    files
}

/// The workspaces: each check and resolve case alone, each build case's directory, the
/// catalogue.
fn workspaces() -> Vec<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for kind in ["check", "resolve"] {
        out.extend(
            mesh_files(&root.join("tests/cases").join(kind))
                .into_iter()
                .map(|f| vec![f]),
        );
    }
    let mut builds: Vec<PathBuf> = std::fs::read_dir(root.join("tests/cases/build"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    builds.sort();
    out.extend(builds.iter().map(|d| mesh_files(d)));
    out.push(mesh_files(&root.join("catalogue")));
    out
}

fn add(into: &mut Readings, file: &str, seen: Vec<Recorded>, keep: impl Fn(&Recorded) -> bool) {
    for r in seen.into_iter().filter(|r| keep(r)) {
        into.entry((file.to_string(), r.at, r.dotted))
            .or_default()
            .insert(r.read);
    }
}

#[test]
fn the_checker_the_resolver_and_the_index_read_every_reference_alike() {
    let (mut compared, mut resolved, mut disagreements) = (0usize, 0usize, Vec::new());
    for files in workspaces() {
        let inputs: Vec<(FilePath, Arc<str>)> = files
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).unwrap();
                (FilePath::from(p.display().to_string()), Arc::from(text))
            })
            .collect();
        let (database, ws) = Database::with_files(inputs);
        let shapes = module_shapes(&database, ws);
        let (mut checker, mut index) = (Readings::new(), Readings::new());
        let mut checker_any: BTreeMap<(u32, String), BTreeSet<String>> = BTreeMap::new();
        for &file in ws.files(&database).iter().skip(1) {
            let path = file.path(&database).to_string();
            let parsed = db::parse_file(&database, file);
            let ((), seen) = recording(|| {
                db::check_file(&database, ws, file);
            });
            for r in &seen {
                checker_any
                    .entry((r.at, r.dotted.clone()))
                    .or_default()
                    .insert(r.read.clone());
            }
            // What the checker could not tell (an unknown contract, a refused loop) the
            // index, knowing contracts by name, may tell more of: not compared.
            let unresolved: BTreeSet<(u32, String)> = seen
                .iter()
                .filter(|r| r.unresolved)
                .map(|r| (r.at, r.dotted.clone()))
                .collect();
            add(&mut checker, &path, seen, |r| {
                !unresolved.contains(&(r.at, r.dotted.clone()))
            });
            let (_, seen) = recording(|| index_file(&parsed.file, &shapes));
            add(&mut index, &path, seen, |r| {
                !unresolved.contains(&(r.at, r.dotted.clone()))
            });
        }
        for (key, read) in &checker {
            if let Some(other) = index.get(key) {
                compared += 1;
                if other != read {
                    disagreements.push(format!("{key:?}: checker {read:?}, index {other:?}"));
                }
            }
        }
        // The resolver, after every file is checked (so only its own readings are
        // recorded): each reading is one the checker gave at that place.
        let meshes: Vec<String> = db::registry(&database, ws).meshes.keys().cloned().collect();
        for mesh in meshes {
            let (_, mut seen) = recording(|| db::check_mesh(&database, ws, mesh.clone()));
            // The build path too: manifests read what templates and loops render.
            let (_, built) =
                recording(|| db::resolve_mesh(&database, ws, mesh.clone(), Default::default()));
            seen.extend(built);
            for r in seen {
                resolved += 1;
                let agrees = checker_any
                    .get(&(r.at, r.dotted.clone()))
                    .is_some_and(|reads| reads.contains(&r.read));
                if !agrees {
                    disagreements.push(format!(
                        "mesh {mesh}: the resolver read `{}` at {} as {:?}; the checker {:?}",
                        r.dotted,
                        r.at,
                        r.read,
                        checker_any.get(&(r.at, r.dotted.clone()))
                    ));
                }
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    println!(
        "{compared} references read alike by the checker and the index, {resolved} by the resolver"
    );
    // Not vacuous: thousands of references are read by both.
    assert!(compared > 1000, "only {compared} references compared");
    assert!(resolved > 1000, "only {resolved} references resolved");
}
