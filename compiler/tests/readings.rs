//! What a reference reads is decided once, by the checker: resolution evaluates each
//! reference by the table of readings the checker wrote (`check::readings`, in the
//! module's specs) and works out no meaning of its own. This test walks every check,
//! resolve and build case and the catalogue, and holds for every module that
//!
//! - the table says of each reference what the model's reference table
//!   (`db::module_references`, the language server's) says it reads: the same
//!   requirement, the same field of its contract, the same word of `consumer`, the same
//!   kind of read through a loop variable, or that it reads nothing;
//! - in a module without errors every reference reads something, so resolution never
//!   meets one it must pass over (it would have to in a module whose checks passed, which
//!   debug builds assert against);
//! - an edit that only moves text leaves the table equal (it holds no position).

use meshc::check::readings::{LoopReading, Reading};
use meshc::check::semantics::{LoopReads, Reads};
use meshc::db::{self, Database};
use meshc::span::FilePath;
use meshc::syntax::ast::Item;
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[path = "common/case_files.rs"]
mod case_files;

/// Each check and resolve case alone, each build case's directory, the catalogue.
fn workspaces() -> Vec<Vec<PathBuf>> {
    case_files::case_workspaces(&Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
}

/// Whether `reading` is what `reads` (the model's reference table) names, its refusal
/// included. `field_name` is the name of field `f` of the contract of requirement `req`
/// of the module.
fn agrees(
    whole: meshc::span::Span,
    reads: Reads,
    refused: bool,
    reading: Reading,
    field_name: &dyn Fn(u32, u32) -> Option<String>,
    written: &dyn Fn(meshc::span::Span) -> String,
) -> bool {
    if refused {
        // Refused where it is read, or kept refused by a check that refused the
        // expression around it without reading it (E0301): the table then keeps what
        // its names read, for resolution to evaluate as it always has (its module's
        // error leaves every instance out).
        return matches!(reading, Reading::Refused(_) | Reading::Unresolved)
            || agrees(whole, reads, false, reading, field_name, written);
    }
    match (reads, reading) {
        (Reads::OperatorValue { req }, Reading::OperatorValue { req: r }) => req == r,
        (
            Reads::ContractField {
                req,
                field,
                known: true,
            },
            Reading::ContractField { req: r, field: f },
        ) => {
            req == r
                && field_name(r, f).is_some_and(|n| {
                    // A legacy placeholder's field is the one it stands for, not written:
                    // every word of it is placed at the placeholder's name.
                    n == written(field) || field == whole
                })
        }
        (Reads::Consumer { field: Some(a), .. }, Reading::Consumer(b)) => a == b,
        (Reads::Given { known: true, .. }, Reading::Given { .. }) => true,
        (Reads::Loop { read, .. }, Reading::Loop(l)) => {
            matches!(
                (read, l),
                (LoopReads::Whole, LoopReading::Item)
                    | (
                        LoopReads::Given { known: true, .. },
                        LoopReading::Given { .. }
                    )
                    | (
                        LoopReads::Answer { known: true, .. },
                        LoopReading::Answer { .. }
                    )
            ) || matches!((read, l), (LoopReads::Meta { field: a, .. }, LoopReading::Meta(b)) if a == b)
        }
        _ => false,
    }
}

#[test]
fn resolution_reads_each_reference_as_the_checker_decided_it() {
    let (mut compared, mut clean_readings, mut failures) = (0usize, 0usize, Vec::new());
    for files in workspaces() {
        let mut inputs: Vec<(FilePath, Arc<str>)> = files
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).unwrap();
                (FilePath::from(p.display().to_string()), Arc::from(text))
            })
            .collect();
        // Only a workspace with a mesh keeps the table (resolution alone reads it): a
        // case of modules alone gets an empty mesh beside it.
        inputs.push((
            FilePath::from("zz-probe.mesh"),
            Arc::from("mesh readings_probe {\n}\n"),
        ));
        let (database, ws) = Database::with_files(inputs);
        for &file in ws.files(&database).iter().skip(1) {
            let path = file.path(&database).to_string();
            let text = file.text(&database).clone();
            let parsed = db::parse_file(&database, file);
            for (i, item) in parsed.file.items.iter().enumerate() {
                let Item::Module(module) = item else { continue };
                let specs = db::module_specs(&database, ws, file, i);
                let readings = specs.readings.entries();
                if readings.len() != module.references as usize {
                    failures.push(format!(
                        "{path}: module `{}` has {} references and {} readings",
                        module.name.name,
                        module.references,
                        readings.len()
                    ));
                    continue;
                }
                let scope = db::module_scope(&database, ws, file, i);
                let field_name = |r: u32, f: u32| {
                    let facts = scope.requirements.get(r as usize)?;
                    let contract = facts.contract.as_ref()?;
                    let (name, _) = contract.fields.get_index(f as usize)?;
                    Some(name.clone())
                };
                let written = |span: meshc::span::Span| {
                    text[span.start as usize..span.end as usize].to_string()
                };
                let model = db::module_references(&database, ws, file, i);
                for r in &model.references {
                    compared += 1;
                    let reading = readings[r.id as usize];
                    if !agrees(r.span, r.reads, r.refused, reading, &field_name, &written) {
                        failures.push(format!(
                            "{path}: the reference at {:?} reads {:?} (refused: {}) in the model, {reading:?} in the table",
                            r.span, r.reads, r.refused
                        ));
                    }
                }
                let errors = db::module_errors(&database, ws, module.name.name.to_string());
                if errors.iter().any(|d| d.is_error()) {
                    continue;
                }
                for (id, reading) in readings.iter().enumerate() {
                    clean_readings += 1;
                    if matches!(
                        reading,
                        Reading::NotRead | Reading::Refused(_) | Reading::Unresolved
                    ) {
                        failures.push(format!(
                            "{path}: reference {id} of module `{}`, which has no error, reads {reading:?}",
                            module.name.name
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The walk met the cases: thousands of references, most in modules without errors.
    assert!(compared > 1_500, "{compared}");
    assert!(clean_readings > 1_000, "{clean_readings}");
}

/// The table holds no position: text moved around a module (a comment, spaces, an
/// earlier module grown) leaves it equal, so what reads it is kept; a reference
/// changed changes it. A workspace without a mesh keeps none (`meshc check` of modules
/// alone pays nothing for it).
#[test]
fn moving_text_leaves_the_readings_equal() {
    let text = "contract kv for module {\n  host: hostname\n  port: port\n}\nmodule app {\n  requires db: module kv\n  requires n: operator int = 2\n  container app {\n    image \"app:1\"\n    env {\n      A = \"${db.host}:${db.port}\"\n      B = n\n    }\n  }\n}\nmesh lab {\n}\n";
    let readings_of = |text: &str| {
        let (database, ws) =
            Database::with_files([(FilePath::from("a.mesh"), Arc::<str>::from(text))]);
        let file = ws.files(&database)[1];
        db::module_specs(&database, ws, file, 1).readings.clone()
    };
    let before = readings_of(text);
    assert_eq!(
        before.entries(),
        &[
            Reading::ContractField { req: 0, field: 0 },
            Reading::ContractField { req: 0, field: 1 },
            Reading::OperatorValue { req: 1 },
        ]
    );
    let moved = text
        .replacen("module app {", "// above\nmodule app {", 1)
        .replacen("      B = n", "      B =    n", 1);
    assert_eq!(readings_of(&moved), before);
    let changed = text.replacen("${db.port}", "${db.host}", 1);
    assert_ne!(readings_of(&changed), before);
    let no_mesh = text.replacen("mesh lab {\n}\n", "", 1);
    assert!(readings_of(&no_mesh).entries().is_empty());
}
