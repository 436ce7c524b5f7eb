//! The project's own cases as workspaces, for the tests that walk every one of them (the
//! reading table's, here, and the language server's model-and-index test, which includes
//! this file by path): plain `std`, so that either crate can hold it.

use std::path::{Path, PathBuf};

/// The `.mesh` files directly in `dir`, sorted.
pub fn mesh_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
        .collect();
    files.sort();
    files
}

/// The folders directly in `dir`, sorted.
pub fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// Each check and resolve case alone, each build case's folder, and the catalogue, under
/// the repository's `root`.
pub fn case_workspaces(root: &Path) -> Vec<Vec<PathBuf>> {
    let mut out = Vec::new();
    for kind in ["check", "resolve"] {
        out.extend(
            mesh_files(&root.join("tests/cases").join(kind))
                .into_iter()
                .map(|f| vec![f]),
        );
    }
    out.extend(
        folders(&root.join("tests/cases/build"))
            .iter()
            .map(|d| mesh_files(d)),
    );
    out.push(mesh_files(&root.join("catalogue")));
    out
}
