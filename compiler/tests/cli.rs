//! The command line as users meet it: exit codes, output formats, and hostile input that
//! must end in a sentence or a diagnostic, never a panic or a hang.

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

#[path = "support/command.rs"]
mod command;
use command::{codes, exits, meshc};

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
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
    exits(&out, 0);
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
    exits(&out, 0);
}

/// A file reached twice — named directly beside the directory that holds it, through
/// `./`, and through a link in another directory — is read once; a file of the same name
/// in another directory is a file of its own.
#[cfg(unix)]
#[test]
fn a_file_reached_twice_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["a", "b", "c"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::fs::write(dir.path().join("a/web.mesh"), CLEAN).unwrap();
    std::os::unix::fs::symlink("../a/web.mesh", dir.path().join("b/link.mesh")).unwrap();
    std::fs::write(
        dir.path().join("c/web.mesh"),
        CLEAN.replace("module web", "module other"),
    )
    .unwrap();
    let out = meshc(dir.path(), &["check", "a", "./a/web.mesh", "b", "c"]);
    no_panic(&out);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("2 files checked, no problems"), "{stderr}");
    // Read twice, the module would be declared twice (E0101).
    let out = meshc(dir.path(), &["check", "a/web.mesh", "b/link.mesh"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("1 file checked, no problems"), "{stderr}");
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

/// A reader that stops reading (`meshc check --format json | head -1`) is no reason to
/// panic: output to a closed pipe is dropped and the exit status still says what was found.
#[test]
fn a_closed_stdout_is_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.mesh"),
        "module a {\n  container a { image }\n}\n".repeat(200),
    )
    .unwrap();
    for args in [
        &["check", "--format", "json"][..],
        &["check", "--format", "sarif"],
        &["explain", "E0001"],
        &["fmt", "--check"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_meshc"))
            .args(args)
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end before meshc writes.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        no_panic(&out);
    }
}

// ---- meshc build: the output directory ----

/// A mesh of three nodes, each running `web` with `image`.
fn three_node_workspace(dir: &Path, image: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("web.mesh"),
        format!(
            "module web {{\n  requires http: host port {{ container = 80 }}\n  container web {{\n    image \"{image}\"\n    publish http\n  }}\n}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("lab.mesh"),
        "mesh lab {\n  node alpha { private_name = \"alpha\" }\n  node beta { private_name = \"beta\" }\n  node gamma { private_name = \"gamma\" }\n  assign web to alpha\n  assign web to beta\n  assign web to gamma\n}\n",
    )
    .unwrap();
}

const NODES: [&str; 3] = ["alpha.json", "beta.json", "gamma.json"];

/// The files of `dir` other than the build lock, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names = everything_in(dir);
    names.retain(|n| n != ".meshc-build.lock" && n != ".meshc-build.json");
    names
}

/// Every name in `dir`, hidden ones too, sorted.
fn everything_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A build refused after its files were made and staged in `--out` (the lock would change
/// under `--locked`) leaves `--out` as it was: no staged file is left behind, nothing is
/// replaced, and a folder that did not exist is not created.
#[test]
fn a_refused_build_leaves_no_staged_file_and_makes_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    three_node_workspace(dir.path(), "nginx:1.27");
    let fresh = meshc(
        dir.path(),
        &[
            "build", "lab.mesh", "--out", "new/out", "--locked", "--target", "compose",
        ],
    );
    no_panic(&fresh);
    exits(&fresh, 1);
    assert!(
        String::from_utf8_lossy(&fresh.stderr).contains("nothing was written"),
        "{}",
        String::from_utf8_lossy(&fresh.stderr)
    );
    assert!(
        !dir.path().join("new").exists(),
        "a refused build made its folder"
    );
    let first = meshc(
        dir.path(),
        &["build", "lab.mesh", "--out", "out", "--target", "compose"],
    );
    exits(&first, 0);
    let out_dir = dir.path().join("out");
    let before = everything_in(&out_dir);
    let alpha = std::fs::read(out_dir.join("alpha.json")).unwrap();
    // Another image, and a fourth node: new ports, so the lock would change.
    three_node_workspace(dir.path(), "nginx:1.28");
    std::fs::write(
        dir.path().join("lab.mesh"),
        "mesh lab {\n  node alpha { private_name = \"alpha\" }\n  node beta { private_name = \"beta\" }\n  node gamma { private_name = \"gamma\" }\n  node delta { private_name = \"delta\" }\n  assign web to alpha\n  assign web to beta\n  assign web to gamma\n  assign web to delta\n}\n",
    )
    .unwrap();
    let refused = meshc(
        dir.path(),
        &[
            "build", "lab.mesh", "--out", "out", "--locked", "--target", "compose",
        ],
    );
    no_panic(&refused);
    exits(&refused, 1);
    assert_eq!(
        everything_in(&out_dir),
        before,
        "files left behind in --out"
    );
    assert_eq!(
        everything_in(&out_dir.join("alpha")),
        [".env", "compose.yaml"]
    );
    assert!(
        !out_dir.join("delta").exists(),
        "a refused build made a node's folder"
    );
    assert_eq!(std::fs::read(out_dir.join("alpha.json")).unwrap(), alpha);
    // Built without `--locked`, the same files are written.
    let second = meshc(
        dir.path(),
        &["build", "lab.mesh", "--out", "out", "--target", "compose"],
    );
    exits(&second, 0);
    assert!(out_dir.join("delta/compose.yaml").is_file());
    assert_ne!(std::fs::read(out_dir.join("alpha.json")).unwrap(), alpha);
}

/// A node removed from the mesh: the next build removes the manifest and compose folder
/// meshc wrote for it, and says so on stderr. A file meshc did not write (another name,
/// one changed since, a link planted at a removed node's name, a manifest of another
/// mesh) is never removed, and nothing outside `--out` is touched.
#[test]
fn files_of_nodes_removed_from_the_mesh_are_removed_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    three_node_workspace(dir.path(), "nginx:1.27");
    let first = meshc(
        dir.path(),
        &["build", "lab.mesh", "--out", "out", "--target", "compose"],
    );
    exits(&first, 0);
    let out = dir.path().join("out");
    assert!(out.join("gamma/compose.yaml").is_file());
    // Files meshc did not write, beside and inside what it did.
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::write(out.join("gamma/extra.txt"), "mine").unwrap();
    // beta's manifest is changed by hand: no longer what meshc wrote.
    std::fs::write(out.join("beta.json"), "{\"edited\": true}\n").unwrap();
    // A file outside `--out`, that a link planted at a removed node's name leads to.
    let victim = outside.path().join("victim.json");
    std::fs::write(&victim, "outside").unwrap();
    // Only alpha stays.
    std::fs::write(
        dir.path().join("lab.mesh"),
        "mesh lab {\n  node alpha { private_name = \"alpha\" }\n  assign web to alpha\n}\n",
    )
    .unwrap();
    let second = meshc(dir.path(), &["build", "lab.mesh", "--out", "out"]);
    no_panic(&second);
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(0), "{err}");
    assert!(!out.join("gamma.json").exists(), "{err}");
    assert!(!out.join("gamma/compose.yaml").exists(), "{err}");
    assert!(err.contains("removed `out/gamma.json`"), "{err}");
    assert!(
        err.contains("node `gamma` is no longer in the mesh"),
        "{err}"
    );
    // gamma's folder holds a file meshc did not write: it stays, with that file.
    assert_eq!(
        std::fs::read_to_string(out.join("gamma/extra.txt")).unwrap(),
        "mine"
    );
    // beta's manifest changed: kept, and said.
    assert!(out.join("beta.json").is_file());
    assert!(err.contains("kept `out/beta.json`"), "{err}");
    // beta's compose file is still meshc's: removed, and its emptied folder with it.
    assert!(!out.join("beta").exists(), "{err}");
    assert_eq!(
        std::fs::read_to_string(out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert!(out.join("alpha.json").is_file());
    // alpha's compose file (from the compose build) is still recorded and kept.
    assert!(out.join("alpha/compose.yaml").is_file());

    // A link planted where a removed node's manifest was, and an index edited by hand to
    // name files outside: nothing outside is removed.
    std::fs::write(
        dir.path().join("lab.mesh"),
        "mesh lab {\n  node alpha { private_name = \"alpha\" }\n  node delta { private_name = \"delta\" }\n  assign web to alpha\n  assign web to delta\n}\n",
    )
    .unwrap();
    let third = meshc(dir.path(), &["build", "lab.mesh", "--out", "out"]);
    assert_eq!(third.status.code(), Some(0));
    std::fs::remove_file(out.join("delta.json")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("delta.json")).unwrap();
    let index_path = out.join(".meshc-build.json");
    let mut index: Value =
        serde_json::from_str(&std::fs::read_to_string(&index_path).unwrap()).unwrap();
    let victim_sha = index["meshes"]["lab"]["alpha"]["alpha.json"].clone();
    index["meshes"]["lab"]["../escape"] = serde_json::json!({
        "../escape.json": victim_sha,
        format!("{}", victim.display()): victim_sha,
    });
    std::fs::write(&index_path, serde_json::to_vec(&index).unwrap()).unwrap();
    std::fs::write(
        dir.path().join("lab.mesh"),
        "mesh lab {\n  node alpha { private_name = \"alpha\" }\n  assign web to alpha\n}\n",
    )
    .unwrap();
    let fourth = meshc(dir.path(), &["build", "lab.mesh", "--out", "out"]);
    let err = String::from_utf8_lossy(&fourth.stderr);
    assert_eq!(fourth.status.code(), Some(0), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "outside");
    assert!(meshc::fsio::is_link(&out.join("delta.json")), "{err}");
    assert!(err.contains("kept `out/delta.json`: a link"), "{err}");

    // Another mesh built into the same directory never removes this one's files.
    std::fs::write(
        dir.path().join("other.mesh"),
        "mesh other {\n  node omega { private_name = \"omega\" }\n  assign web to omega\n}\n",
    )
    .unwrap();
    let fifth = meshc(dir.path(), &["build", "other.mesh", "--out", "out"]);
    assert_eq!(fifth.status.code(), Some(0));
    assert!(out.join("alpha.json").is_file());
    assert!(out.join("omega.json").is_file());
}

/// Two builds of different workspaces write into one directory at once, many times: each
/// time every manifest comes from the same build, and nothing staged is left behind.
#[test]
fn two_builds_racing_into_one_directory_leave_one_whole_build() {
    let root = tempfile::tempdir().unwrap();
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    three_node_workspace(&a, "nginx:1.27");
    three_node_workspace(&b, "caddy:2.8");
    let out = root.path().join("out");
    let out_arg = out.to_str().unwrap();
    for round in 0..6 {
        let spawn = |dir: &Path| {
            Command::new(env!("CARGO_BIN_EXE_meshc"))
                .args(["build", "lab.mesh", "--out", out_arg])
                .current_dir(dir)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (first, second) = (spawn(&a), spawn(&b));
        for child in [first, second] {
            let done = child.wait_with_output().unwrap();
            no_panic(&done);
            assert_eq!(
                done.status.code(),
                Some(0),
                "round {round}: {}",
                String::from_utf8_lossy(&done.stderr)
            );
        }
        let images: Vec<&str> = NODES
            .iter()
            .map(|n| {
                let text = std::fs::read_to_string(out.join(n)).unwrap();
                if text.contains("nginx:1.27") {
                    "a"
                } else if text.contains("caddy:2.8") {
                    "b"
                } else {
                    panic!("round {round}: {n} is from neither build:\n{text}")
                }
            })
            .collect();
        assert!(
            images.iter().all(|i| *i == images[0]),
            "round {round}: a mix of two builds: {images:?}"
        );
        assert_eq!(listing(&out), NODES, "round {round}: files left behind");
    }
}

/// `--out` under a regular file cannot be created (the tests run as root, so a read-only
/// directory would not stop them; a file in the way does): exit 2, a sentence, nothing
/// written, the file untouched.
#[test]
fn an_output_directory_that_cannot_be_made_exits_two_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    three_node_workspace(dir.path(), "nginx:1.27");
    std::fs::write(dir.path().join("plain"), "not a directory").unwrap();
    let out = meshc(dir.path(), &["build", "lab.mesh", "--out", "plain/out"]);
    no_panic(&out);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("plain")).unwrap(),
        "not a directory"
    );
}

/// A manifest that cannot be replaced (a directory stands where `gamma.json` goes, so its
/// rename fails after the others succeeded): exit 2, and the previous build's manifests
/// are all still there, unchanged.
#[test]
fn a_manifest_that_cannot_be_replaced_leaves_the_previous_build_intact() {
    let dir = tempfile::tempdir().unwrap();
    three_node_workspace(dir.path(), "nginx:1.27");
    let first = meshc(dir.path(), &["build", "lab.mesh", "--out", "out"]);
    assert_eq!(first.status.code(), Some(0));
    let out_dir = dir.path().join("out");
    let before: Vec<String> = NODES
        .iter()
        .map(|n| std::fs::read_to_string(out_dir.join(n)).unwrap())
        .collect();
    std::fs::remove_file(out_dir.join("gamma.json")).unwrap();
    std::fs::create_dir(out_dir.join("gamma.json")).unwrap();
    std::fs::write(out_dir.join("gamma.json/keep"), "x").unwrap();
    three_node_workspace(dir.path(), "nginx:1.28");
    let second = meshc(dir.path(), &["build", "lab.mesh", "--out", "out"]);
    no_panic(&second);
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("nothing was written"), "{err}");
    for (n, old) in NODES.iter().zip(&before).take(2) {
        assert_eq!(
            &std::fs::read_to_string(out_dir.join(n)).unwrap(),
            old,
            "{n} was replaced by a build that failed"
        );
    }
    assert_eq!(listing(&out_dir), NODES);
}

/// `meshc build` says, on stderr, every port the lock moved and why (LANGUAGE.md §12.6):
/// placing one instance on the port the lock gave another moves that other.
#[test]
fn build_notes_every_port_the_lock_moved() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("web.mesh"),
        "module web {\n  requires http: host port { container = 80 }\n  container web { image \"nginx:1.27\"  publish http }\n}\n",
    )
    .unwrap();
    let mesh = |a_entries: &str| {
        format!(
            "mesh lab {{\n  node alpha {{ private_name = \"alpha.lab.internal\" }}\n  assign web to alpha as a{a_entries}\n  assign web to alpha as b\n}}\n"
        )
    };
    std::fs::write(dir.path().join("lab.mesh"), mesh("")).unwrap();
    let first = meshc(dir.path(), &["build", "lab.mesh", ".", "--out", "out"]);
    assert_eq!(first.status.code(), Some(0));
    assert!(
        !String::from_utf8_lossy(&first.stderr).contains("note:"),
        "a first build moves nothing"
    );
    // The lock gave a 20000 and b 20001; now a is placed on b's port.
    std::fs::write(dir.path().join("lab.mesh"), mesh(" { http at 20001 }")).unwrap();
    let second = meshc(dir.path(), &["build", "lab.mesh", ".", "--out", "out"]);
    assert_eq!(second.status.code(), Some(0));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("note: port `http` of `b` on `alpha` was 20001 in the lock; moved to 20000: the mesh now places `http` of `a` on `alpha` there"),
        "{err}"
    );
    assert!(
        err.contains("note: port `http` of `a` on `alpha` was 20000 in the lock; moved to 20001: the mesh places it there"),
        "{err}"
    );
    // Built again, nothing moves.
    let third = meshc(dir.path(), &["build", "lab.mesh", ".", "--out", "out"]);
    assert!(!String::from_utf8_lossy(&third.stderr).contains("note:"));
}

/// One mistake in a provider's `provides` is one E0514 per mesh in every format: at the
/// provider's assignment, pointing back at the mistake, naming each waiting instance; the
/// consumers get none of their own, and the secret literal of the mistake is never shown.
#[test]
fn a_left_out_provider_is_one_e0514_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pg.mesh"),
        "module pg {\n  requires here: host node\n  requires p: host port { container = 5432 }\n  container pg {\n    image \"postgres:16.4\"\n    publish p\n  }\n  provides postgres {\n    host = here.private_name\n    port = p.host_port\n    database = consumer.login\n    user = consumer.login\n    password = \"W4ITING-marker-secret\"\n  }\n}\n",
    )
    .unwrap();
    let mut apps = String::new();
    let mut assigns = String::new();
    for i in 0..6 {
        apps.push_str(&format!(
            "module app{i} {{\n  requires db: module postgres\n  container app {{\n    image \"nginx:1.27\"\n    user 1000\n    env {{ H = db.host }}\n  }}\n}}\n"
        ));
        assigns.push_str(&format!("  assign app{i} to alpha\n"));
    }
    std::fs::write(dir.path().join("apps.mesh"), apps).unwrap();
    std::fs::write(
        dir.path().join("lab.mesh"),
        format!("mesh lab {{\n  node alpha {{ private_name = \"alpha.lab.internal\" }}\n  assign pg to alpha\n{assigns}}}\n"),
    )
    .unwrap();

    let out = meshc(dir.path(), &["check", "--format", "json"]);
    no_panic(&out);
    let v = json(&out);
    let e0514: Vec<&Value> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "E0514")
        .collect();
    assert_eq!(e0514.len(), 1, "{v}");
    let d = e0514[0];
    assert_eq!(d["file"], "lab.mesh");
    assert_eq!(d["line"], 3, "at `assign pg to alpha`: {d}");
    assert!(
        d["message"].as_str().unwrap().starts_with(
            "6 instances wait for `pg` on `alpha`, which was left out: its module `pg` has errors"
        ),
        "{d}"
    );
    let help = d["help"].as_str().unwrap();
    for i in 0..6 {
        assert!(help.contains(&format!("`app{i}` on `alpha`")), "{help}");
    }
    assert_eq!(d["labels"][0]["file"], "pg.mesh", "{d}");
    assert_eq!(d["labels"][0]["line"], 13, "the E0311 line: {d}");
    assert_eq!(v["errors"], 2, "E0311 and one E0514: {v}");

    let out = meshc(dir.path(), &["check", "--format", "sarif"]);
    let v = json(&out);
    let results: Vec<&Value> = v["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["ruleId"] == "E0514")
        .collect();
    assert_eq!(results.len(), 1, "{v}");
    assert_eq!(
        results[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        3
    );
    assert!(
        results[0]["relatedLocations"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{}",
        results[0]
    );

    let out = meshc(dir.path(), &["check"]);
    let human = String::from_utf8_lossy(&out.stderr);
    assert_eq!(human.matches("[E0514]").count(), 1, "{human}");
    assert!(
        human.contains("6 instances wait for `pg` on `alpha`"),
        "{human}"
    );
    assert!(!human.contains("W4ITING-marker"), "{human}");
}
