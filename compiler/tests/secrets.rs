//! Secrets stay secret: a workspace writes distinctive literals (`S3CR3T-marker-N`)
//! everywhere a secret can be written wrongly — a secret contract field's default, a
//! secret field answered with a literal in `provides`, a secret field narrowed to a
//! literal, a secret operator requirement's default, a literal secret file, a literal in
//! an exposed env, a secret operator value written in a mesh — and no output of meshc, in
//! any format, holds any of them: not `meshc check`, not `meshc build` (its output, the
//! manifests it writes, the lock). Diagnostics name the place, never the value, and
//! source excerpts show such literals masked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MARKER: &str = "S3CR3T";

/// The workspace of `tests/secrets/`, copied into a fresh directory.
fn workspace() -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/secrets");
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

fn meshc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("meshc runs")
}

/// Every line of `bytes` holding a marker.
fn leaks(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter(|l| l.contains(MARKER))
        .map(String::from)
        .collect()
}

fn assert_no_leak(what: &str, out: &Output) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{what}: meshc panicked: {err}");
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let found = leaks(bytes);
        assert!(
            found.is_empty(),
            "{what} shows a secret on {stream}:\n{}",
            found.join("\n")
        );
    }
}

/// Every file below `dir`.
fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn the_workspace_writes_every_marker_it_means_to() {
    let dir = workspace();
    let mut all = String::new();
    for f in files_below(dir.path()) {
        all.push_str(&std::fs::read_to_string(f).unwrap());
    }
    for n in 1..=21 {
        assert!(
            all.contains(&format!("S3CR3T-marker-{n}\""))
                || all.contains(&format!("S3CR3T-marker-{n}$"))
                || all.contains(&format!("S3CR3T-marker-{n}\n"))
                || all.contains(&format!("S3CR3T marker {n} ")),
            "marker {n} missing"
        );
    }
}

#[test]
fn check_shows_no_secret_in_any_format() {
    let dir = workspace();
    for format in ["human", "json", "sarif"] {
        let out = meshc(dir.path(), &["check", "--format", format]);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{format}: the workspace has errors"
        );
        assert_no_leak(&format!("check --format {format}"), &out);
    }
    // The errors the workspace is there to provoke are reported, by code.
    let out = meshc(dir.path(), &["check", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    for code in ["E0311", "E0309", "E0307", "W0003"] {
        assert!(codes.contains(&code), "no {code} in {codes:?}");
    }
}

#[test]
fn check_with_deny_and_old_forms_shows_no_secret() {
    let dir = workspace();
    for args in [
        &["check", "--deny", "warnings"][..],
        &["check", "--old-forms", "--format", "json"],
        &["check", "defs.mesh", "--format", "sarif"],
    ] {
        let out = meshc(dir.path(), args);
        assert_no_leak(&args.join(" "), &out);
    }
}

#[test]
fn excerpts_mask_the_literal_but_keep_the_line() {
    let dir = workspace();
    let out = meshc(dir.path(), &["check"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("password = ******************"),
        "the masked answer is not shown:\n{err}"
    );
}

#[test]
fn build_shows_no_secret_in_its_output_manifests_or_lock() {
    for format in ["human", "json", "sarif"] {
        let dir = workspace();
        let out = meshc(
            dir.path(),
            &["build", "lab.mesh", "--out", "out", "--format", format],
        );
        assert_no_leak(&format!("build --format {format}"), &out);
        // The assignment holding secret operator values is refused (E0512) and left out,
        // listed in the manifest with its diagnostics: those name places, not values.
        let written = files_below(&dir.path().join("out"));
        assert!(
            written.iter().any(|p| p.ends_with("alpha.json")),
            "{format}: no manifest written: {written:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for file in written
            .into_iter()
            .chain([dir.path().join("lab.mesh.lock")])
        {
            let Ok(bytes) = std::fs::read(&file) else {
                continue;
            };
            let found = leaks(&bytes);
            assert!(
                found.is_empty(),
                "{} holds a secret:\n{}",
                file.display(),
                found.join("\n")
            );
        }
    }
    let dir = workspace();
    let out = meshc(
        dir.path(),
        &["build", "lab.mesh", "--out", "out", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "E0512"),
        "no E0512"
    );
}
