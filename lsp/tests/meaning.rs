//! One semantic model: the checker resolves every reference of a module once
//! (`db::module_references`), and the language server's index names what the model read
//! instead of reading references itself. This test walks every check, resolve and build
//! case and the catalogue and holds that every reference the index meets in a module has
//! its entry in the model (none is left for the index to guess), and that what the model
//! says a contract field reads is typed as the registry's contract declares it, which is
//! the type hover shows; and that every name a mesh's model resolves
//! (`db::mesh_semantics`) is one the index names, at its place.

use meshc::check::semantics::{MeshReads, Reads};
use meshc::db::{self, Database};
use meshc::span::FilePath;
use meshc::syntax::ast::Item;
use meshc_lsp::analysis::index::{Symbol, file_index};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "../../compiler/tests/common/case_files.rs"]
mod case_files;

/// A database of `files` as the server reads them, the cursor marks gone (a fixture marks
/// the cursor with `$0`; nothing else holds it).
fn database_of(files: &[PathBuf]) -> (Database, meshc::db::Workspace) {
    let inputs: Vec<(FilePath, Arc<str>)> = files
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap().replace("$0", "");
            (FilePath::from(p.display().to_string()), Arc::from(text))
        })
        .collect();
    Database::with_files(inputs)
}

/// The workspaces: each check and resolve case alone, each build case's directory, the
/// catalogue, each fixture of the language server alone.
fn workspaces() -> Vec<Vec<PathBuf>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = case_files::case_workspaces(&root);
    // The language server's fixtures, each alone.
    for kind in case_files::folders(&root.join("lsp/tests/fixtures")) {
        out.extend(case_files::mesh_files(&kind).into_iter().map(|f| vec![f]));
    }
    out
}

#[test]
fn every_reference_the_index_meets_is_one_the_model_resolved() {
    let (mut references, mut fields, mut unread) = (0usize, 0usize, Vec::new());
    let mut mesh_names = 0usize;
    for files in workspaces() {
        let (database, ws) = database_of(&files);
        let registry = db::registry(&database, ws);
        for &file in ws.files(&database).iter().skip(1) {
            let path = file.path(&database).to_string();
            let index = file_index(&database, ws, file);
            for span in &index.unread {
                unread.push(format!("{path}: the reference at {span:?}"));
            }
            let parsed = db::parse_file(&database, file);
            for (i, item) in parsed.file.items.iter().enumerate() {
                if matches!(item, Item::Mesh(_)) {
                    // Every name the mesh's model resolves, the index names there.
                    let model = db::mesh_semantics(&database, ws, file, i);
                    for r in &model.references {
                        mesh_names += 1;
                        if r.reads == MeshReads::Keyword {
                            continue;
                        }
                        let named = index.occurrences.iter().any(|o| {
                            o.span == r.span
                                && o.implicit == r.implicit
                                && o.symbol.name() == r.name
                        });
                        if !named {
                            unread.push(format!("{path}: the mesh's name at {:?}", r.span));
                        }
                    }
                    continue;
                }
                if !matches!(item, Item::Module(_)) {
                    continue;
                }
                let model = db::module_references(&database, ws, file, i);
                references += model.references.len();
                for r in &model.references {
                    let Reads::ContractField {
                        field, known: true, ..
                    } = r.reads
                    else {
                        continue;
                    };
                    // A legacy placeholder's field is the one it stands for, not written.
                    if r.refused || field == r.span {
                        continue;
                    }
                    // The symbol the index gives the field, its type as declared.
                    let Some(Symbol::Field {
                        contract,
                        field: name,
                    }) = index.at(field.start).map(|o| o.symbol.clone())
                    else {
                        unread.push(format!("{path}: no field symbol at {field:?}"));
                        continue;
                    };
                    let declared = registry
                        .contracts
                        .get(contract.as_str())
                        .and_then(|c| c.fields.get(name.as_str()))
                        .map(|f| f.ty.clone());
                    fields += 1;
                    assert_eq!(
                        declared.as_ref(),
                        Some(&r.ty),
                        "{path}: `{contract}.{name}` at {field:?}"
                    );
                }
            }
        }
    }
    assert!(
        unread.is_empty(),
        "{} references the model does not hold:\n{}",
        unread.len(),
        unread.join("\n")
    );
    println!(
        "{references} references in the models, {fields} contract fields typed, {mesh_names} names of meshes"
    );
    // Not vacuous: thousands of references are resolved.
    assert!(references > 1000, "only {references} references");
    assert!(fields > 500, "only {fields} fields");
    assert!(mesh_names > 500, "only {mesh_names} names of meshes");
}

/// Find references and rename index only the files the word index gives
/// (`analysis::words`): over every workspace above, every symbol of every file is found
/// in the same places as by indexing every file of the workspace.
#[test]
fn references_through_the_word_index_equal_a_scan_of_every_file() {
    use meshc_lsp::analysis::{occurrences_in, words};
    let (mut symbols, mut places, mut narrowed) = (0usize, 0usize, 0usize);
    for files in workspaces() {
        let (database, ws) = database_of(&files);
        let all = ws.files(&database).clone();
        let mut seen = std::collections::HashSet::new();
        for &file in all.iter() {
            for o in &file_index(&database, ws, file).occurrences {
                if !seen.insert(o.symbol.clone()) {
                    continue;
                }
                let scanned: Vec<_> = all
                    .iter()
                    .flat_map(|&f| {
                        let ix = file_index(&database, ws, f);
                        let path = f.path(&database).to_string();
                        ix.of(&o.symbol)
                            .map(|o| (path.clone(), o.clone()))
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let found: Vec<_> = occurrences_in(&database, ws, &o.symbol)
                    .into_iter()
                    .map(|(p, _, o)| (p.to_string(), o))
                    .collect();
                assert_eq!(found, scanned, "the places of {:?}", o.symbol);
                symbols += 1;
                places += found.len();
                narrowed += all.len() - words::files_with(&database, ws, &o.symbol).len();
            }
        }
    }
    println!("{symbols} symbols in {places} places; {narrowed} files left unindexed");
    assert!(
        symbols > 1000 && places > symbols,
        "{symbols} symbols, {places} places"
    );
    // Not vacuous: the index leaves files out.
    assert!(narrowed > 1000, "only {narrowed} files left out");
}

/// A requirement of one module is looked for in its module's file and in the meshes that
/// assign the module, not in the workspace's other modules, though every module has a
/// requirement of that name.
#[test]
fn a_requirement_is_looked_for_only_where_its_module_is_named() {
    use meshc_lsp::analysis::{occurrences_in, words};
    let mut inputs: Vec<(FilePath, Arc<str>)> = (0..300)
        .map(|i| {
            let text = format!(
                "module m{i} {{\n  requires db: operator int in 1..64 = 4\n  container c {{\n    image \"x:1\"\n    env {{\n      DB = \"${{db}}\"\n    }}\n  }}\n}}\n"
            );
            (FilePath::from(format!("m{i:03}.mesh")), Arc::from(text))
        })
        .collect();
    inputs.push((
        FilePath::from("zz.mesh"),
        Arc::from(
            "mesh prod {\n  node a {\n    private_address = \"10.0.0.1\"\n  }\n  assign m7 to a {\n    db = 5\n  }\n}\n",
        ),
    ));
    let (database, ws) = Database::with_files(inputs);
    let symbol = Symbol::Requirement {
        module: "m7".into(),
        name: "db".into(),
    };
    let paths = |files: Vec<meshc::db::SourceFile>| -> Vec<String> {
        files
            .iter()
            .map(|f| f.path(&database).to_string())
            .collect()
    };
    assert_eq!(
        paths(words::files_with(&database, ws, &symbol)),
        ["m007.mesh", "zz.mesh"]
    );
    let found = occurrences_in(&database, ws, &symbol);
    let places: Vec<String> = found.iter().map(|(p, _, _)| p.to_string()).collect();
    // Declared, read in the module, set by the assignment.
    assert_eq!(places, ["m007.mesh", "m007.mesh", "zz.mesh"]);
}
