//! Secrets stay secret: a workspace writes distinctive literals (`S3CR3T-marker-N`)
//! everywhere a secret can be written wrongly — a secret contract field's default, a
//! secret field answered with a literal in `provides`, a secret field narrowed to a
//! literal, a secret operator requirement's default, a literal secret file, a literal in
//! an exposed env, a secret operator value written in a mesh (also on lines wrong for
//! other reasons: twice, misspelt, for an unknown node or module, a duplicate instance,
//! `tok.x = …`, `tok at …`, a syntax error), the refinements of secret fields — and no
//! output of meshc, in
//! any format, holds any of them: not `meshc check`, not `meshc build` (its output, the
//! manifests it writes, the lock). Diagnostics name the place, never the value, and
//! source excerpts show such literals masked, with a mask of one width.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const MARKER: &str = "S3CR3T";

/// How many markers the workspace writes (`S3CR3T-marker-1` … `S3CR3T-marker-38`).
const MARKERS: usize = 38;

/// The workspace of `tests/secrets/`, copied into a fresh directory.
fn workspace() -> tempfile::TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/secrets");
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&src).unwrap().flatten() {
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

#[path = "support/command.rs"]
mod command;
use command::meshc;

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
    for n in 1..=MARKERS {
        let marker = format!("S3CR3T-marker-{n}");
        let written = all.match_indices(&marker).any(|(i, _)| {
            !all[i + marker.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        }) || all.contains(&format!("S3CR3T marker {n} "));
        assert!(written, "marker {n} missing");
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
        err.contains("password = ‹secret›"),
        "the masked answer is not shown:\n{err}"
    );
    // A mask has one width whatever it hides: no run of one `*` per character.
    assert!(
        !err.contains("***"),
        "a mask gives the length of what it hides away:\n{err}"
    );
}

/// Each line of `wrong_lines.mesh` that is wrong for another reason as well still shows
/// its secret masked, in the excerpt of whatever diagnostic it draws.
#[test]
fn a_secret_on_a_line_wrong_for_another_reason_is_masked() {
    let dir = workspace();
    let out = meshc(dir.path(), &["check", "wrong_lines.mesh"]);
    assert_no_leak("check wrong_lines.mesh", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    for line in [
        "tok = ‹secret›",                               // twice (E0102)
        "tk = ‹secret›",                                // a misspelt key (E0517)
        "tok.x = ‹secret›",                             // `tok.x = …` (E0516)
        "tok at ‹secret›",                              // `tok at …` (E0516)
        "assign vaulted to nowhere { tok = ‹secret› }", // an unknown node (E0107)
        "assign vaulted to gamma { tok = ‹secret› }",   // a duplicate instance (E0508)
        "assign nosuch to gamma { tok = ‹secret› }",    // an unknown module (E0106)
        "{ tok = ‹secret› ) }",                         // a syntax error on the line (E0001)
        "code in {\"S3CR3T", // (never: the refinement of a secret field is masked)
    ] {
        if line.contains("S3CR3T") {
            assert!(!err.contains(line), "shown: {line}");
        } else {
            assert!(err.contains(line), "not shown masked: {line}\n{err}");
        }
    }
    for code in [
        "E0102", "E0517", "E0516", "E0107", "E0508", "E0106", "E0001", "E0305",
    ] {
        assert!(err.contains(&format!("[{code}]")), "no {code}:\n{err}");
    }
}

#[test]
fn build_shows_no_secret_in_its_output_manifests_or_lock() {
    for format in ["human", "json", "sarif"] {
        let dir = workspace();
        let out = meshc(
            dir.path(),
            &[
                "build",
                "wrong_lines.mesh",
                "--out",
                "out",
                "--format",
                format,
            ],
        );
        assert_no_leak(&format!("build wrong_lines.mesh --format {format}"), &out);
        // `wrong_lines.mesh` does not parse, so a build of the whole folder writes nothing
        // (docs/workspace.md): the manifests are built from the files that parse.
        let out = meshc(
            dir.path(),
            &[
                "build",
                "lab.mesh",
                "defs.mesh",
                "--out",
                "out",
                "--format",
                format,
            ],
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
        for file in written.into_iter().chain([
            dir.path().join("lab.mesh.lock"),
            dir.path().join("wrong_lines.mesh.lock"),
        ]) {
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

/// `meshc fmt` refuses a file that does not parse with diagnostics: their excerpts mask
/// what the line holds, from a path, with `--check`, and from standard input.
#[test]
fn fmt_errors_show_no_secret() {
    let dir = workspace();
    for args in [
        &["fmt", "wrong_lines.mesh"][..],
        &["fmt", "--check", "wrong_lines.mesh"],
        &["fmt", "wrong_lines.mesh", "--format", "json"],
    ] {
        let out = meshc(dir.path(), args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: the file does not parse"
        );
        assert_no_leak(&args.join(" "), &out);
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("E0001")
                || String::from_utf8_lossy(&out.stdout).contains("E0001"),
            "{args:?}: no E0001"
        );
    }
    let text = std::fs::read(dir.path().join("wrong_lines.mesh")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(["fmt", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("meshc runs");
    use std::io::Write as _;
    child.stdin.take().unwrap().write_all(&text).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_no_leak("fmt -", &out);
}

/// A mesh file that is not UTF-8 is not checked, but its excerpt is shown: a secret value
/// on the line of the bad byte is masked although the file is read apart from the
/// definition that declares it secret (what it cannot resolve, it masks).
#[test]
fn a_file_that_is_not_utf8_shows_its_secret_masked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("defs.mesh"),
        "module vaulted {\n  requires tok: operator secret string\n  container c {\n    image \"busybox:1\"\n    secret \"/run/secrets/tok\" = tok\n  }\n}\n",
    )
    .unwrap();
    let mut mesh = b"mesh m {\n  node alpha { private_name = \"alpha\" }\n  assign vaulted to alpha { tok = \"S3CR3T-utf8\" } ".to_vec();
    mesh.extend_from_slice(b"\xff\n}\n");
    std::fs::write(dir.path().join("m.mesh"), mesh).unwrap();
    let out = meshc(dir.path(), &["check", "."]);
    assert_no_leak("check of a file that is not UTF-8", &out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not valid UTF-8"), "{err}");
    assert!(
        err.contains("tok = ‹secret›"),
        "the line is not shown masked:\n{err}"
    );
}
