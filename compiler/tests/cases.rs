//! The runner of `tests/cases/`: every `.mesh` file of `tests/cases/check/` and
//! `tests/cases/resolve/` is one case, a workspace of that one file. Its header (read by
//! `support/header.rs`, the one header reader) says what must come out:
//!
//! - `// expect: E0302 W0001`: these codes appear; no error code outside `expect`/`allow`;
//! - `// expect: ok`: no error at all (warnings allowed);
//! - `// allow: E0005`: other error codes that may appear too;
//! - `// expect-text: postgres`: a diagnostic of an expected code mentions the text;
//! - `// expect-count: E0514=2`: exactly that many diagnostics of the code;
//! - `// expect-in: E0514 app`: a diagnostic of that code mentions the text;
//! - `// flags: --deny warnings` and `// exit: N`: extra flags, and the exit status.
//!
//! Any other `// key:` line is refused, so a misspelt key never asserts nothing.
//!
//! Each case runs twice here:
//!
//! - in process, as `meshc check` would (resolution included, `--deny` applied): the
//!   header's assertions, and one `insta` snapshot per case holding its input and its
//!   diagnostics rendered as `meshc check` prints them (`snapshots/cases/`). The input
//!   is shown as `meshc` shows source, every place that may hold a secret masked, and
//!   no secret literal of the case may appear anywhere in its snapshot. The header
//!   says what matters; the snapshot catches every other change of a message, a label or
//!   a help line, and is reviewed with `cargo insta review`;
//! - through the real `meshc check --format json`, in a folder of its own: the header's
//!   assertions and the exit status, as a user sees them.
//!
//! The public conformance sample in `../shared/conformance/check` runs both ways too
//! when it is beside the project (without snapshots: it is not this project's).

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// The case folders, each with the fewest cases it may hold (a runner that lost its
/// cases fails instead of passing on a few).
const FOLDERS: &[(&str, usize)] = &[("check", 390), ("resolve", 100)];

fn cases_dir() -> PathBuf {
    repo_root().join("tests/cases")
}

/// Every case in process, judged by its header, and snapshotted.
#[test]
fn cases_in_process_with_snapshots() {
    refuse_update_modes_in_ci();
    let mut failures = Vec::new();
    let mut ran: Vec<PathBuf> = Vec::new();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/cases");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    // `glob!` panics at its end when a snapshot differs; the header's verdicts are told
    // first, then that panic goes on.
    let snapshots = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        settings.bind(|| {
            insta::glob!("../../tests/cases", "*/*.mesh", |path| {
                let rel = path.strip_prefix(cases_dir()).unwrap_or(path).to_path_buf();
                ran.push(rel.clone());
                let text = std::fs::read_to_string(path).unwrap();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let (diags, verdict) = match case_header(&text) {
                    Ok(h) => check_case(&name, &text, &h),
                    Err(e) => (Vec::new(), Err(e)),
                };
                if let Err(e) = verdict {
                    failures.push(format!("{}: {e}", rel.display()));
                }
                // The input as `meshc` shows source: every place that may hold a secret masked.
                let secret = secret_places(&name, &text, &diags);
                let input = meshc::diagnostics::render::masked(&text, secret.iter().copied());
                let out = render_human(&name, &text, &diags);
                let snapshot = format!("--- input\n{input}\n--- output\n{out}");
                // Text that does not parse is masked a whole line at a time, file paths and
                // image names included: the literals of such a case say nothing of secrets.
                let parses = !diags.iter().any(|d| d.code.as_str().starts_with("E000"));
                for literal in secret_literals(&text, &secret)
                    .into_iter()
                    .filter(|_| parses)
                {
                    // As written, or quoted in a message as `value`.
                    let inner = &literal[1..literal.len() - 1];
                    if snapshot.contains(literal) || out.contains(&format!("`{inner}`")) {
                        failures.push(format!("{}: the snapshot holds {literal}", rel.display()));
                    }
                }
                insta::assert_snapshot!("case", snapshot);
            });
        })
    }));
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        ran.len(),
        failures.join("\n")
    );
    // A glob filter (`INSTA_GLOB_FILTER`) runs a few cases on purpose.
    if std::env::var_os("INSTA_GLOB_FILTER").is_none() {
        for (folder, floor) in FOLDERS {
            let n = ran.iter().filter(|p| p.starts_with(folder)).count();
            assert!(n >= *floor, "only {n} cases in tests/cases/{folder}");
        }
    }
    if let Err(panic) = snapshots {
        std::panic::resume_unwind(panic);
    }
}

/// The string literals among `places`, quotes included: the values a case writes where a
/// secret may be, which its snapshot must not hold.
fn secret_literals<'a>(text: &'a str, places: &[meshc::span::Span]) -> Vec<&'a str> {
    places
        .iter()
        .filter_map(|s| text.get(s.start as usize..s.end as usize))
        .filter(|t| t.len() >= 4 && t.starts_with('"') && t.ends_with('"'))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Every snapshot of `snapshots/cases/` belongs to a case that exists: a case renamed or
/// removed leaves no snapshot behind that nothing checks.
#[test]
fn every_case_snapshot_has_its_case() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/cases");
    let mut orphans = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(case) = name
            .strip_prefix("case@")
            .and_then(|n| n.strip_suffix(".snap"))
        else {
            orphans.push(name);
            continue;
        };
        let Some((folder, file)) = case.split_once("__") else {
            orphans.push(name);
            continue;
        };
        if !cases_dir().join(folder).join(file).is_file() {
            orphans.push(name);
        }
    }
    assert!(
        orphans.is_empty(),
        "snapshots without a case in tests/cases (remove them): {orphans:?}"
    );
}

/// Whether a case's file name agrees with its header: it starts with the code it is about
/// (`e0514_waits_transitively.mesh`, one of its `expect:` codes), or with `ok_` for a case
/// that expects no error, or with a code and `_ok` for that code's near miss
/// (`e0102_ok_one_key_per_container.mesh`, which expects no error).
fn name_agrees(name: &str, h: &CaseHeader) -> Result<(), String> {
    let stem = name.strip_suffix(".mesh").unwrap_or(name);
    let (first, rest) = stem.split_once('_').unwrap_or((stem, ""));
    if first == "ok" {
        return if h.ok {
            Ok(())
        } else {
            Err("named `ok_` but expects codes".into())
        };
    }
    let code = Some(first)
        .filter(|f| {
            f.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        .and_then(|f| meshc::diagnostics::Code::parse(&f.to_ascii_uppercase()))
        .ok_or("starts with neither a code (`e0514_`, `w0001_`) nor `ok_`")?;
    if rest == "ok" || rest.starts_with("ok_") {
        return if h.ok {
            Ok(())
        } else {
            Err(format!("named a near miss of {code} but expects codes"))
        };
    }
    if h.expect.contains(&code) {
        Ok(())
    } else if h.ok {
        Err(format!(
            "named after {code} but expects no error (name it `{first}_ok_…`)"
        ))
    } else {
        Err(format!(
            "named after {code}, which its `expect:` does not list"
        ))
    }
}

/// Every case's file name carries the code it is about, as its header says.
#[test]
fn every_case_name_carries_its_code() {
    let header = |text: &str| case_header(text).unwrap();
    let ok = header("// expect: ok\n");
    let e0514 = header("// expect: E0501 E0514\n");
    assert_eq!(name_agrees("ok_placed.mesh", &ok), Ok(()));
    assert_eq!(name_agrees("e0514_ok_placed.mesh", &ok), Ok(()));
    assert_eq!(name_agrees("e0514_waits.mesh", &e0514), Ok(()));
    assert_eq!(name_agrees("e0501_waits.mesh", &e0514), Ok(()));
    for (name, h) in [
        ("ok_waits.mesh", &e0514),
        ("e0514_ok_waits.mesh", &e0514),
        ("e0502_waits.mesh", &e0514),
        ("waits_transitively.mesh", &e0514),
        ("chk_e0514_waits.mesh", &e0514),
        ("E0514_waits.mesh", &e0514),
        ("e0514_placed.mesh", &ok),
    ] {
        assert!(name_agrees(name, h).is_err(), "{name}");
    }
    let mut wrong = Vec::new();
    for (folder, _) in FOLDERS {
        for path in case_files(&cases_dir().join(folder)) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            // A header that does not read fails in the runners, which say why.
            let Ok(h) = case_header(&std::fs::read_to_string(&path).unwrap()) else {
                continue;
            };
            if let Err(why) = name_agrees(&name, &h) {
                wrong.push(format!("{folder}/{name}: {why}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} cases are misnamed (docs/testing.md, Writing a fixture case):\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Runs one case through `meshc check --format json` in a folder of its own.
fn run_command_line(path: &Path, text: &str) -> Result<bool, String> {
    let h = case_header(text)?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join(path.file_name().unwrap()), text).map_err(|e| e.to_string())?;
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
    let seen: Vec<Seen> = json["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            let mut text = d["message"].as_str().unwrap_or("").to_string();
            let help = d["help"].as_str().into_iter();
            let labels = d["labels"].as_array().into_iter().flatten();
            for part in help.chain(labels.filter_map(|l| l["message"].as_str())) {
                text.push('\n');
                text.push_str(part);
            }
            Seen {
                code: d["code"].as_str().unwrap_or("").to_string(),
                error: d["severity"] == "error",
                text,
            }
        })
        .collect();
    judge(&h, &seen, out.status.code().unwrap_or(-1))?;
    Ok(true)
}

#[test]
fn cases_through_the_command_line() {
    for (folder, floor) in FOLDERS {
        run_cases(
            &cases_dir().join(folder),
            *floor,
            |_| true,
            run_command_line,
        );
    }
}

/// The conformance sample, in process with resolution (no snapshots: it is not ours).
#[test]
fn conformance_in_process() {
    let Some(dir) = conformance_dir() else {
        support::ci::say_skipped(CONFORMANCE_ABSENT);
        return;
    };
    run_cases(
        &dir.join("check"),
        20,
        |_| true,
        |path, text| {
            let name = path.file_name().unwrap().to_string_lossy();
            run_check_case(&name, text).map(|()| true)
        },
    );
}

#[test]
fn conformance_through_the_command_line() {
    let Some(dir) = conformance_dir() else {
        support::ci::say_skipped(CONFORMANCE_ABSENT);
        return;
    };
    run_cases(&dir.join("check"), 20, |_| true, run_command_line);
}
