//! The command line as users meet it: exit codes, output formats, and hostile input that
//! must end in a sentence or a diagnostic, never a panic or a hang.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn meshc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("meshc runs")
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn codes(v: &Value) -> Vec<String> {
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn no_panic(out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "meshc panicked: {err}");
    assert!(out.status.code().is_some(), "meshc was killed by a signal");
}

const CLEAN: &str = "module web {\n  requires http: host port { container = 80 }\n  container web {\n    image \"nginx:1.27\"\n    publish http\n  }\n}\n";

#[test]
fn clean_workspace_exits_zero() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
    let out = meshc(dir.path(), &["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no problems"));
}

#[test]
fn errors_exit_one_and_json_has_the_shape_of_section_11() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.mesh"),
        "contract thing for module {\n  host hostname\n}\n",
    )
    .unwrap();
    let out = meshc(dir.path(), &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let d = &v["diagnostics"][0];
    assert_eq!(d["code"], "E0001");
    assert_eq!(d["severity"], "error");
    assert_eq!(d["file"], "bad.mesh");
    assert_eq!(d["line"], 2);
    assert_eq!(d["column"], 8);
    assert_eq!(d["span"]["start"], 35);
    assert_eq!(d["span"]["end"], 43);
    assert_eq!(v["errors"], 1);
    assert_eq!(v["warnings"], 0);
}

#[test]
fn human_output_shows_the_source_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.mesh"),
        "contract thing for module {\n  host hostname\n}\n",
    )
    .unwrap();
    let out = meshc(dir.path(), &["check"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("E0001"), "{err}");
    assert!(err.contains("host hostname"), "{err}");
    assert!(err.contains("bad.mesh:2:8"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn sarif_is_version_2_1_0_with_a_rule_per_code() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.mesh"),
        "module a {\n  container a { image }\n}\n",
    )
    .unwrap();
    let out = meshc(dir.path(), &["check", "--format", "sarif"]);
    let v = json(&out);
    assert_eq!(v["version"], "2.1.0");
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.len(), meshc::diagnostics::Code::ALL.len());
    let result = &v["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "E0001");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
}

#[test]
fn missing_path_exits_two_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let out = meshc(dir.path(), &["check", "no-such-dir"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read `no-such-dir`"), "{err}");
}

#[test]
fn usage_errors_exit_two() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        meshc(dir.path(), &["check", "--format", "xml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(meshc(dir.path(), &["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        meshc(dir.path(), &["explain", "E9999"]).status.code(),
        Some(2)
    );
}

#[test]
fn explain_prints_every_code() {
    let dir = tempfile::tempdir().unwrap();
    for code in meshc::diagnostics::Code::ALL {
        let out = meshc(dir.path(), &["explain", code.as_str()]);
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.starts_with(&format!("# {code}")), "{text}");
        assert!(text.contains("```mesh"), "{code} has no example");
    }
}

#[test]
fn empty_file_is_fine() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.mesh"), "").unwrap();
    let out = meshc(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn invalid_utf8_is_a_diagnostic_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("latin1.mesh"), b"module caf\xe9 {\n}\n").unwrap();
    std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
    let out = meshc(dir.path(), &["check", "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let d = &v["diagnostics"][0];
    assert_eq!(d["file"], "latin1.mesh");
    assert!(d["message"].as_str().unwrap().contains("not valid UTF-8"));
    assert_eq!(d["line"], 1);
    assert_eq!(d["column"], 11);
}

#[test]
fn nul_bytes_are_syntax_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nul.mesh"), vec![0u8; 4096]).unwrap();
    let out = meshc(dir.path(), &["check", "--format", "json"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(1));
    assert!(codes(&json(&out)).iter().all(|c| c == "E0001"));
}

/// 100,000-deep nesting of every bracketing form: a diagnostic, no stack overflow.
#[test]
fn deep_nesting_is_refused_without_overflow() {
    let n = 100_000;
    let cases = [
        (
            "lists",
            format!(
                "module a {{\n  container a {{ command {} }}\n}}\n",
                "[".repeat(n)
            ),
        ),
        (
            "closed lists",
            format!(
                "module a {{\n  container a {{ command {}{} }}\n}}\n",
                "[".repeat(n),
                "]".repeat(n)
            ),
        ),
        (
            "types",
            format!(
                "contract c for module {{\n  x: {}string{}\n}}\n",
                "list<".repeat(n),
                ">".repeat(n)
            ),
        ),
        ("braces", format!("module a {}\n", "{".repeat(n))),
        (
            "interpolations",
            format!(
                "module a {{\n  container a {{ env {{ X = \"{}\" }} }}\n}}\n",
                "${".repeat(n)
            ),
        ),
    ];
    for (what, text) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("deep.mesh"), &text).unwrap();
        let out = meshc(dir.path(), &["check", "--format", "json"]);
        no_panic(&out);
        assert_eq!(out.status.code(), Some(1), "{what}");
        let v = json(&out);
        assert!(!codes(&v).is_empty(), "{what}: no diagnostic");
        assert!(
            v["diagnostics"].as_array().unwrap().len() < 100,
            "{what}: a flood of diagnostics"
        );
    }
}

#[test]
fn oversized_file_is_refused_with_a_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let big = vec![b' '; 33 * 1024 * 1024];
    std::fs::write(dir.path().join("big.mesh"), big).unwrap();
    let out = meshc(dir.path(), &["check"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("are refused"));
}

#[cfg(unix)]
#[test]
fn symlink_loop_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/web.mesh"), CLEAN).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("sub/up")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path().join("sub/dangling")).unwrap();
    let out = meshc(dir.path(), &["check", "--format", "json"]);
    no_panic(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn deny_warnings_turns_a_warning_into_failure() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.mesh"),
        "module a {\n  container a {\n    image \"nginx:latest\"\n  }\n}\n",
    )
    .unwrap();
    let plain = meshc(dir.path(), &["check", "--format", "json"]);
    assert_eq!(plain.status.code(), Some(0));
    assert_eq!(json(&plain)["warnings"], 1);
    let denied = meshc(
        dir.path(),
        &["check", "--format", "json", "--deny", "warnings"],
    );
    assert_eq!(denied.status.code(), Some(1));
    assert_eq!(json(&denied)["errors"], 1);
}

/// Every `.mesh` file of the repository that parses is in the canonical layout (files
/// with syntax errors are fixtures of those errors and stay as written).
#[test]
fn repository_mesh_files_are_formatted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut stack = vec![
        root.join("catalogue"),
        root.join("stdlib-contracts"),
        root.join("tests"),
    ];
    let mut checked = 0;
    let mut unformatted = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "mesh") {
                let text = std::fs::read_to_string(&path).unwrap();
                let name: meshc::span::FilePath = path.to_string_lossy().as_ref().into();
                if let Ok(out) = meshc::fmt::format(&name, &text) {
                    checked += 1;
                    if out != text {
                        unformatted.push(path.display().to_string());
                    }
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} files checked");
    assert!(
        unformatted.is_empty(),
        "not formatted (run `meshc fmt`): {unformatted:?}"
    );
}

#[test]
fn fmt_check_lists_files_and_fmt_rewrites_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.mesh"),
        "module a {\ncontainer a {\nimage \"nginx:1.27\"\n}\n}\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("broken.mesh"), "module b {\n").unwrap();
    let check = meshc(dir.path(), &["fmt", "--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&check.stdout).contains("a.mesh"));
    let run = meshc(dir.path(), &["fmt"]);
    assert_eq!(
        run.status.code(),
        Some(1),
        "a file with syntax errors is reported"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.mesh")).unwrap(),
        "module a {\n  container a {\n    image \"nginx:1.27\"\n  }\n}\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("broken.mesh")).unwrap(),
        "module b {\n"
    );
    let stdin = Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(["fmt", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(b"mesh m {\nnode a { private_name = \"a\" }\n}")?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(stdin.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&stdin.stdout),
        "mesh m {\n  node a { private_name = \"a\" }\n}\n"
    );
}
