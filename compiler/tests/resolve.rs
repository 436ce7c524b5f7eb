//! Resolution fixtures: every `tests/cases/resolve/*.mesh` (and the shared conformance
//! suite's `check/res_*.mesh`) is a workspace of one file whose header says which codes
//! `meshc check` reports.

mod common;

use common::*;

fn run_dir(dir: &std::path::Path, filter: impl Fn(&str) -> bool) -> usize {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mesh"))
        .filter(|p| filter(&p.file_name().unwrap().to_string_lossy()))
        .collect();
    names.sort();
    let mut failures = Vec::new();
    for p in &names {
        let text = std::fs::read_to_string(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if let Err(e) = run_check_case(&name, &text) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
    names.len()
}

#[test]
fn fixture_cases() {
    let n = run_dir(&repo_root().join("tests/cases/resolve"), |_| true);
    assert!(n > 0);
}

#[test]
fn conformance_resolution_cases() {
    let Some(dir) = conformance_dir() else {
        eprintln!("shared conformance suite absent: skipped");
        return;
    };
    run_dir(&dir.join("check"), |n| n.starts_with("res_"));
}

#[test]
#[ignore]
fn dump_fixture_diagnostics() {
    let dir = repo_root().join("tests/cases/resolve");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for p in names {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        eprintln!("== {name}");
        for d in check_workspace(&one_file(&name, &text)) {
            eprintln!(
                "  {} {}\n      help: {}",
                d.code,
                d.message,
                d.help.unwrap_or_default()
            );
        }
    }
}
