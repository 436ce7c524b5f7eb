//! Running the built `meshc` binary the way a user does, from a working directory.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `meshc ARGS…` in `dir` and returns what it printed and its exit status.
pub fn meshc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("meshc runs")
}
