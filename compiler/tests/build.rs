//! Build fixtures: every `tests/cases/build/<case>/` (and the shared conformance suite's
//! `build/*`) holds `.mesh` files and an `expect.json` asserting the manifests' contents.

mod common;

use common::*;

fn run_cases(dir: &std::path::Path) -> usize {
    let mut cases: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("expect.json").is_file())
        .collect();
    cases.sort();
    let mut failures = Vec::new();
    for c in &cases {
        if let Err(e) = run_build_case(c) {
            failures.push(format!("{}: {e}", c.file_name().unwrap().to_string_lossy()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases.len()
}

#[test]
fn fixture_cases() {
    run_cases(&repo_root().join("tests/cases/build"));
}

#[test]
fn conformance_build_cases() {
    let Some(dir) = conformance_dir() else {
        eprintln!("shared conformance suite absent: skipped");
        return;
    };
    run_cases(&dir.join("build"));
}

#[test]
#[ignore]
fn dump_lab() {
    let files = read_mesh_files(&repo_root().join("tests/cases/build/lab"));
    let b = build(&files, "lab.mesh");
    for d in b.diagnostics() {
        eprintln!("{} {} | {:?}", d.code, d.message, d.help);
    }
    for (n, bytes) in b.bytes() {
        eprintln!("== {n}\n{}", String::from_utf8(bytes).unwrap());
    }
    eprintln!("{}", b.outcomes[0].lock.to_text());
}
