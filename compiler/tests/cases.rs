//! The fixture harness: every `.mesh` file under `tests/cases/check/` is one case, run
//! through the real `meshc check --format json`. Its header says what it expects:
//!
//! - `// expect: E0302 W0001` — these codes must appear; no other error code may;
//! - `// expect: ok` — no error at all (warnings allowed);
//! - `// allow: E0005` — other error codes that may appear too;
//! - `// expect-text: postgres` — a diagnostic with an expected code mentions this;
//! - `// expect-count: E0514=2` — exactly that many diagnostics of the code;
//! - `// expect-in: E0514 app` — a diagnostic of that code mentions the text;
//! - `// flags: --deny warnings` and `// exit: N` — extra flags, and the exit status.
//!
//! Any other `// key:` line is refused, so a misspelt key never asserts nothing.
//!
//! The same harness runs the public conformance sample in `../shared/conformance/check`
//! when it is present beside the project.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::header;

fn diag_text(d: &Value) -> String {
    let mut parts = vec![
        d["message"].as_str().unwrap_or("").to_string(),
        d["help"].as_str().unwrap_or("").to_string(),
    ];
    for l in d["labels"].as_array().into_iter().flatten() {
        parts.push(l["message"].as_str().unwrap_or("").to_string());
    }
    parts.join("\n")
}

/// Runs one case; `Err` says what went wrong.
fn run_case(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let h = header(&text);
    if !h.unknown.is_empty() {
        return Err(h.unknown.join("; "));
    }
    if h.expect.is_empty() {
        return Err("the case has no `// expect:` line".into());
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::copy(path, dir.path().join(path.file_name().unwrap())).map_err(|e| e.to_string())?;
    let out = Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(["check", "--format", "json"])
        .args(&h.flags)
        .arg(".")
        .current_dir(dir.path())
        .output()
        .map_err(|e| e.to_string())?;
    let json: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        format!(
            "no JSON on stdout (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let diags = json["diagnostics"].as_array().cloned().unwrap_or_default();
    let code_of = |d: &Value| d["code"].as_str().unwrap_or("").to_string();
    let codes: Vec<String> = diags.iter().map(code_of).collect();
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(code_of)
        .collect();
    let summary = || {
        diags
            .iter()
            .map(|d| format!("{} {}", code_of(d), d["message"].as_str().unwrap_or("")))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut problems = Vec::new();
    let want_exit = if h.expect == ["ok"] {
        if !errors.is_empty() {
            problems.push(format!("expected no errors, got: {}", summary()));
        }
        h.exit.unwrap_or(0)
    } else {
        let missing: Vec<_> = h.expect.iter().filter(|c| !codes.contains(c)).collect();
        if !missing.is_empty() {
            problems.push(format!("missing {missing:?}; got: {}", summary()));
        }
        let unexpected: Vec<_> = errors
            .iter()
            .filter(|c| !h.expect.contains(c) && !h.allow.contains(c))
            .collect();
        if !unexpected.is_empty() {
            problems.push(format!("unexpected errors {unexpected:?}: {}", summary()));
        }
        for t in &h.expect_text {
            let found = diags
                .iter()
                .filter(|d| h.expect.contains(&code_of(d)))
                .any(|d| diag_text(d).contains(t.as_str()));
            if !found {
                problems.push(format!("no diagnostic of {:?} mentions {t:?}", h.expect));
            }
        }
        for (code, want) in &h.counts {
            let got = codes.iter().filter(|c| *c == code).count();
            if got != *want {
                problems.push(format!(
                    "{got} diagnostics {code}, expected exactly {want}: {}",
                    summary()
                ));
            }
        }
        for (code, t) in &h.code_texts {
            let found = diags
                .iter()
                .any(|d| code_of(d) == *code && diag_text(d).contains(t.as_str()));
            if !found {
                problems.push(format!("no {code} diagnostic mentions {t:?}"));
            }
        }
        let has_error = h.expect.iter().any(|c| c.starts_with('E'));
        h.exit.unwrap_or(i32::from(has_error))
    };
    if out.status.code() != Some(want_exit) {
        problems.push(format!(
            "exit {:?}, expected {want_exit}",
            out.status.code()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn run_dir(dir: &Path) -> (usize, Vec<String>) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "mesh"));
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        if let Err(e) = run_case(f) {
            let name = f.file_name().unwrap().to_string_lossy();
            failures.push(format!("{name}: {e}"));
        }
    }
    (files.len(), failures)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn fixture_cases() {
    let (ran, failures) = run_dir(&repo().join("tests/cases/check"));
    assert!(ran > 100, "only {ran} fixture cases found");
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn conformance_sample() {
    let Some(dir) = support::conformance_dir() else {
        eprintln!("no conformance sample beside the project; skipped");
        return;
    };
    let (ran, failures) = run_dir(&dir.join("check"));
    assert!(ran > 20, "only {ran} conformance cases found");
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
