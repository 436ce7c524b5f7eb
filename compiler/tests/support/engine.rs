//! What the tests on a real Docker Engine share: running `docker`, knowing whether an
//! engine answers (and failing when one is required), and images imported from a root file
//! system of Debian's busybox-static (no registry is reachable in CI).
//!
//! Included with `#[path = "support/engine.rs"] mod engine;`.

#![allow(dead_code)]

use std::process::{Command, Output};

pub fn docker(args: &[&str]) -> Output {
    Command::new("docker")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("docker cannot be run: {e}"))
}

pub fn docker_ok(args: &[&str]) -> String {
    let out = docker(args);
    assert!(
        out.status.success(),
        "docker {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Whether an engine is required: `MESHC_REQUIRE_ENGINE` or `CI` is set.
pub fn engine_required() -> bool {
    std::env::var_os("MESHC_REQUIRE_ENGINE").is_some() || std::env::var_os("CI").is_some()
}

/// Whether an engine answers; without one, fails when it is required, else says so.
pub fn engine_or_skip(test: &str) -> bool {
    // `MESHC_SKIP_ENGINE=1 cargo test`: a run that leaves the engine alone even when one
    // answers (a developer's own engine, busy or not set up for these tests).
    if std::env::var_os("MESHC_SKIP_ENGINE").is_some() {
        assert!(
            !engine_required(),
            "{test}: MESHC_SKIP_ENGINE is set, and so is MESHC_REQUIRE_ENGINE or CI"
        );
        say_skipped(
            test,
            "MESHC_SKIP_ENGINE is set; the engine test did not run",
        );
        return false;
    }
    let answers = Command::new("docker")
        .args(["version", "--format", "{{.Server.Version}}"])
        .output()
        .is_ok_and(|o| o.status.success());
    if answers {
        return true;
    }
    assert!(
        !engine_required(),
        "{test}: no Docker Engine answers, and MESHC_REQUIRE_ENGINE or CI is set"
    );
    say_skipped(
        test,
        "no Docker Engine answers; the engine test did not run",
    );
    false
}

/// Holds the engine for one test: the engine tests name their containers, networks and
/// images after the mesh's instances (survey and take compare by name, so the names are
/// fixed by the mesh), and two runs at once — two test binaries, two checkouts on one
/// machine — would meet on the same names. An exclusive lock on a file in the temporary
/// directory serialises them; it is released when the guard drops (or the process ends).
pub fn exclusive() -> std::fs::File {
    let path = std::env::temp_dir().join("meshc-engine-tests.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    file.lock()
        .unwrap_or_else(|e| panic!("locking {}: {e}", path.display()));
    file
}

/// Imports a busybox root file system as `reference` (its creation date is now), with
/// `tools` linked to busybox in `/bin` and `CMD ["/bin/sleep", "3600"]`.
pub fn import_busybox(reference: &str, tools: &[&str]) {
    let root = tempfile::tempdir().unwrap();
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy("/bin/busybox", bin.join("busybox")).expect("busybox-static is installed");
    for tool in tools {
        std::os::unix::fs::symlink("busybox", bin.join(tool)).unwrap();
    }
    let tar = root.path().with_extension("tar");
    let status = Command::new("tar")
        .args([
            "-C",
            &root.path().display().to_string(),
            "-cf",
            &tar.display().to_string(),
            ".",
        ])
        .status()
        .unwrap();
    assert!(status.success());
    docker_ok(&[
        "import",
        "--change",
        "CMD [\"/bin/sleep\", \"3600\"]",
        &tar.display().to_string(),
        reference,
    ]);
    let _ = std::fs::remove_file(tar);
}

/// Says a test did not run where a plain `cargo test` shows it: a write to the standard
/// error stream itself, which libtest does not capture (it captures `eprintln!`).
pub fn say_skipped(test: &str, why: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}
