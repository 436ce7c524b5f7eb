//! Running the built `meshc` binary the way a user does, from a working directory, and
//! reading what it said.

// Each test file uses what it needs of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `meshc render --swarm` of the build in `out`, the secrets in `secrets` and the stack
/// staged into `stage`: how docs/swarm.md has the manager render, in the tests' layout.
pub const RENDER_SWARM: [&str; 7] = [
    "render",
    "--swarm",
    "out",
    "--secrets",
    "secrets",
    "--out",
    "stage",
];

/// Runs `meshc ARGS…` in `dir` and returns what it printed and its exit status.
pub fn meshc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("meshc runs")
}

/// The repository's root (the parent of `compiler/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// What a run printed on its standard output, asserting it exited with 0 (its standard
/// error is the failure's message).
pub fn stdout_ok(out: &Output) -> String {
    exits(out, 0);
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Asserts a run exited with `code`; its standard error is the failure's message.
pub fn exits(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Everything a run printed: its standard output, then its standard error.
pub fn said(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The codes of the diagnostics in what `meshc check --format json` printed, in order.
pub fn codes(json: &serde_json::Value) -> Vec<String> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}
