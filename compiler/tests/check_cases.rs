//! The checker's fixture cases, in process and without resolution: every `.mesh` file of
//! `tests/cases/check/` (and the conformance sample of the specification, when present)
//! is checked with `check_file` alone in a workspace of its own, with the standard
//! library. Its header (read by `support/header.rs`, as every runner reads it; the keys
//! are listed in `tests/cases.rs`) says what must come out; `--deny warnings` and
//! `--deny old-forms` are honoured.
//!
//! Cases that expect what only resolution finds (E0106–E0109, E05xx), or that carry a
//! flag other than the two `--deny`s, are the command line's and are skipped here,
//! counted; `tests/cases.rs` runs every case whole, resolution included.

mod support;

use meshc::db::{self, Database};
use meshc::diagnostics::{Code, Diagnostic};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::{Seen, case_header, conformance_dir, judge, run_cases};

/// Whether a code is found only by resolving a mesh.
fn is_resolver_code(code: Code) -> bool {
    let s = code.as_str();
    s.starts_with("E05") || matches!(code, Code::E0106 | Code::E0107 | Code::E0108 | Code::E0109)
}

/// The diagnostics of one file checked in a workspace of its own.
fn diagnostics_of(name: &str, text: &str) -> Vec<Diagnostic> {
    let (database, ws) = Database::with_files([(Arc::from(name), Arc::from(text))]);
    let file = ws.files(&database)[1];
    db::check_file(&database, ws, file).as_ref().clone()
}

/// Runs one case; `Ok(false)` when it is skipped (the resolver's or the command line's).
fn run_case(path: &Path, text: &str) -> Result<bool, String> {
    let h = case_header(text)?;
    if !h.other_flags.is_empty() || h.expect.iter().any(|c| is_resolver_code(*c)) {
        return Ok(false);
    }
    let name = path.file_name().unwrap().to_string_lossy();
    let mut diags = diagnostics_of(&name, text);
    h.raise(&mut diags);
    let seen: Vec<Seen> = diags.iter().map(Seen::of).collect();
    judge(&h, &seen, i32::from(diags.iter().any(Diagnostic::is_error)))?;
    Ok(true)
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_cases() {
    // 260 of the 395 cases ran in process when this floor was set.
    run_cases(
        &manifest_dir().join("../tests/cases/check"),
        250,
        |_| true,
        run_case,
    );
}

/// The specification's conformance sample, when it is next to the project (its `res_`
/// cases are the resolver's).
#[test]
fn conformance_check_cases() {
    let Some(dir) = conformance_dir() else {
        support::ci::say_skipped(support::CONFORMANCE_ABSENT);
        return;
    };
    run_cases(
        &dir.join("check"),
        10,
        |p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("res_"))
        },
        run_case,
    );
}

/// Cases in another directory, named by `MESHC_EXTRA_CASES` (for trying a set of cases
/// before it lands in the tree): `MESHC_EXTRA_CASES=DIR cargo test --test check_cases --
/// --ignored extra_cases`. Ignored otherwise, so it never passes having run nothing.
#[test]
#[ignore = "runs the cases of MESHC_EXTRA_CASES=DIR"]
fn extra_cases() {
    let dir = std::env::var_os("MESHC_EXTRA_CASES")
        .expect("MESHC_EXTRA_CASES names the folder of cases to run");
    run_cases(Path::new(&dir), 1, |_| true, run_case);
}

/// Every file of the catalogue, checked as one workspace, is free of errors and
/// warnings. The catalogue is `../catalogue`, or the directory `MESHC_CATALOGUE` names.
#[test]
fn catalogue_checks_clean() {
    let dir = std::env::var_os("MESHC_CATALOGUE")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest_dir().join("../catalogue"));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("{}: absent, skipped", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mesh"))
        .collect();
    files.sort();
    let inputs: Vec<(Arc<str>, Arc<str>)> = files
        .iter()
        .map(|p| {
            (
                Arc::from(p.display().to_string()),
                Arc::from(std::fs::read_to_string(p).unwrap()),
            )
        })
        .collect();
    let (database, ws) = Database::with_files(inputs);
    let mut found = Vec::new();
    for file in ws.files(&database).iter() {
        for d in db::check_file(&database, ws, *file).iter() {
            found.push(format!(
                "{} {} {}@{}: {}",
                d.code,
                d.severity.as_str(),
                d.file,
                d.span.start,
                d.message
            ));
        }
    }
    assert!(
        found.is_empty(),
        "the catalogue does not check clean:\n{}",
        found.join("\n")
    );
}
