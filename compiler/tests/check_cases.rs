//! The checker's fixture cases, in process: every `.mesh` file of `tests/cases/check/`
//! (and the conformance sample of the specification, when present) is checked with
//! `check_file` in a workspace of its own, with the standard library, and its header
//! says what must come out (`tests/cases.rs` runs the same files through the command
//! line, resolution included):
//!
//! - `// expect: E0302 W0402`: these codes must appear; no other error code may;
//! - `// expect: ok`: no error at all (warnings allowed);
//! - `// allow: E0005`: other error codes that may appear too;
//! - `// expect-text: postgres`: a diagnostic with an expected code mentions the text
//!   in its message, help or labels;
//! - `// flags: --deny warnings` / `--deny old-forms`: raise those warnings to errors;
//!   any other flag is the command line's to test, and the case is skipped here;
//! - `// exit: N`: 1 when an error remains, else 0;
//! - `// expect-count: E0514=2`: exactly that many diagnostics of the code;
//! - `// expect-in: E0514 app`: a diagnostic of that code mentions the text.
//!
//! Any other `// key:` line of the header is refused (a misspelt key asserts nothing).
//!
//! Cases that expect what only resolution finds (E0106–E0109, E05xx) are the resolver's
//! and are skipped here; the command-line tests run them whole.

mod support;

use meshc::db::{self, Database};
use meshc::diagnostics::{Code, Diagnostic, Severity};
use std::path::{Path, PathBuf};
use std::sync::Arc;

#[derive(Debug, Default)]
struct Header {
    expect: Vec<Code>,
    ok: bool,
    allow: Vec<Code>,
    texts: Vec<String>,
    deny_warnings: bool,
    deny_old_forms: bool,
    other_flags: bool,
    exit: Option<i32>,
    counts: Vec<(Code, usize)>,
    code_texts: Vec<(Code, String)>,
}

fn codes(list: &str, file: &Path) -> Vec<Code> {
    list.split([' ', ','])
        .filter(|w| !w.is_empty())
        .map(|w| Code::parse(w).unwrap_or_else(|| panic!("{}: unknown code `{w}`", file.display())))
        .collect()
}

fn header(text: &str, file: &Path) -> Header {
    let mut h = Header::default();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("//") else {
            if line.trim().is_empty() {
                continue;
            }
            break;
        };
        let rest = rest.trim();
        if let Some(v) = rest.strip_prefix("expect:") {
            if v.trim() == "ok" {
                h.ok = true;
            } else {
                h.expect.extend(codes(v, file));
            }
        } else if let Some(v) = rest.strip_prefix("allow:") {
            h.allow.extend(codes(v, file));
        } else if let Some(v) = rest.strip_prefix("expect-text:") {
            h.texts.push(v.trim().to_string());
        } else if let Some(v) = rest.strip_prefix("flags:") {
            let mut words = v.split_whitespace();
            while let Some(w) = words.next() {
                match (w, words.clone().next()) {
                    ("--deny", Some("warnings")) => {
                        h.deny_warnings = true;
                        words.next();
                    }
                    ("--deny", Some("old-forms")) => {
                        h.deny_old_forms = true;
                        words.next();
                    }
                    _ => h.other_flags = true,
                }
            }
        } else if let Some(v) = rest.strip_prefix("exit:") {
            h.exit = v.trim().parse().ok();
        } else if let Some(v) = rest.strip_prefix("expect-count:") {
            for w in v.split_whitespace() {
                let (c, n) = w.split_once('=').unwrap_or_else(|| {
                    panic!("{}: `expect-count: {w}` is not CODE=N", file.display())
                });
                let n = n.parse().unwrap_or_else(|_| {
                    panic!("{}: `expect-count: {w}` is not CODE=N", file.display())
                });
                h.counts.extend(codes(c, file).into_iter().map(|c| (c, n)));
            }
        } else if let Some(v) = rest.strip_prefix("expect-in:") {
            let (c, t) = v
                .trim()
                .split_once(char::is_whitespace)
                .unwrap_or_else(|| panic!("{}: `expect-in:{v}` is not CODE TEXT", file.display()));
            for c in codes(c, file) {
                h.code_texts.push((c, t.trim().to_string()));
            }
        } else if let Some((key, _)) = rest.split_once(':') {
            assert!(
                !support::looks_like_key(key),
                "{}: unknown header key `{key}:`",
                file.display()
            );
        }
    }
    h
}

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

/// Runs one case; returns why it failed, if it did.
fn run_case(path: &Path, h: &Header, text: &str) -> Result<(), String> {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let mut diags = diagnostics_of(&name, text);
    for d in &mut diags {
        if d.severity == Severity::Warning
            && (h.deny_warnings || (h.deny_old_forms && d.code.is_old_form()))
        {
            d.severity = Severity::Error;
        }
    }
    let show = |diags: &[Diagnostic]| -> String {
        diags
            .iter()
            .map(|d| {
                format!(
                    "\n    {} {}@{}..{}: {}{}",
                    d.code,
                    d.severity.as_str(),
                    d.span.start,
                    d.span.end,
                    d.message,
                    d.help
                        .as_ref()
                        .map(|h| format!("\n        help: {h}"))
                        .unwrap_or_default()
                )
            })
            .collect()
    };
    let mut problems = Vec::new();
    for code in &h.expect {
        if !diags.iter().any(|d| d.code == *code) {
            problems.push(format!("expected {code}, which did not appear"));
        }
    }
    for d in diags.iter().filter(|d| d.is_error()) {
        if !h.expect.contains(&d.code) && !h.allow.contains(&d.code) {
            problems.push(format!("unexpected error {}: {}", d.code, d.message));
        }
    }
    for t in &h.texts {
        let found = diags
            .iter()
            .filter(|d| h.expect.contains(&d.code))
            .any(|d| {
                d.message.contains(t.as_str())
                    || d.help.as_deref().is_some_and(|x| x.contains(t.as_str()))
                    || d.labels.iter().any(|l| l.message.contains(t.as_str()))
            });
        if !found {
            problems.push(format!("no expected diagnostic mentions `{t}`"));
        }
    }
    for (code, want) in &h.counts {
        let got = diags.iter().filter(|d| d.code == *code).count();
        if got != *want {
            problems.push(format!("{got} diagnostics {code}, expected exactly {want}"));
        }
    }
    for (code, t) in &h.code_texts {
        let found = diags.iter().filter(|d| d.code == *code).any(|d| {
            d.message.contains(t.as_str())
                || d.help.as_deref().is_some_and(|x| x.contains(t.as_str()))
                || d.labels.iter().any(|l| l.message.contains(t.as_str()))
        });
        if !found {
            problems.push(format!("no {code} diagnostic mentions `{t}`"));
        }
    }
    if let Some(exit) = h.exit {
        let got = i32::from(diags.iter().any(Diagnostic::is_error));
        if got != exit {
            problems.push(format!("exit {got}, expected {exit}"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}\n  diagnostics:{}",
            path.display(),
            problems.join("; "),
            show(&diags)
        ))
    }
}

/// Runs every case of `dir` accepted by `keep`; panics listing every failure.
fn run_dir(dir: &Path, keep: impl Fn(&Path) -> bool) -> (usize, usize) {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mesh") && keep(p))
        .collect();
    files.sort();
    let (mut ran, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let h = header(&text, path);
        if h.other_flags || h.expect.iter().any(|c| is_resolver_code(*c)) {
            skipped += 1;
            continue;
        }
        assert!(
            h.ok || !h.expect.is_empty(),
            "{}: the header says neither `// expect: ok` nor `// expect: CODE`",
            path.display()
        );
        ran += 1;
        if let Err(why) = run_case(path, &h, &text) {
            failures.push(why);
        }
    }
    eprintln!(
        "{}: {ran} cases ran, {} failed, {skipped} skipped (resolver codes or command-line flags)",
        dir.display(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {ran} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (ran, skipped)
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn check_cases() {
    let dir = manifest_dir().join("../tests/cases/check");
    let (ran, _) = run_dir(&dir, |_| true);
    assert!(ran > 0, "no case ran in {}", dir.display());
}

/// The specification's conformance sample, when it is next to the project.
#[test]
fn conformance_check_cases() {
    let dir = manifest_dir().join("../../shared/conformance/check");
    if !dir.is_dir() {
        let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"));
        assert!(
            !ci,
            "{}: absent, and CI is set: a CI run never skips it",
            dir.display()
        );
        eprintln!("{}: absent, skipped", dir.display());
        return;
    }
    run_dir(&dir, |p| {
        !p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("res_"))
    });
}

/// Cases in another directory, named by `MESHC_EXTRA_CASES` (for trying a set of cases
/// before it lands in the tree): `MESHC_EXTRA_CASES=DIR cargo test --test check_cases --
/// --ignored extra_cases`. Ignored otherwise, so it never passes having run nothing.
#[test]
#[ignore = "runs the cases of MESHC_EXTRA_CASES=DIR"]
fn extra_cases() {
    let dir = std::env::var_os("MESHC_EXTRA_CASES")
        .expect("MESHC_EXTRA_CASES names the folder of cases to run");
    run_dir(Path::new(&dir), |_| true);
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
