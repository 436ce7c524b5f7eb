//! The work spread over the cores never changes what meshc writes: the same mesh checked
//! and built with one thread and with several (`MESHC_THREADS`) gives the same bytes.
//! The workspace is large enough (300 files) for every parallel step to split its work.

use meshc::workload::{Flavour, Workload};
use std::path::Path;
use std::process::{Command, Output};

const MODULES: usize = 300;

/// The workload, written into `dir`.
fn workspace(dir: &Path) -> Workload {
    let workload = Workload::new(Flavour::Threads, MODULES);
    std::fs::create_dir_all(dir.join("modules")).unwrap();
    for (file, text) in workload.files() {
        std::fs::write(dir.join(file), text).unwrap();
    }
    workload
}

fn meshc(dir: &Path, threads: usize, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .env("MESHC_THREADS", threads.to_string())
        .env("NO_COLOR", "1")
        .output()
        .expect("meshc runs")
}

/// Every file under `dir`, by relative path, with its bytes.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let name = path.strip_prefix(dir).unwrap().display().to_string();
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn one_thread_and_several_write_the_same_bytes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut runs = Vec::new();
    for threads in [1, 3] {
        // Each run in a workspace of its own: a build writes its lock beside the mesh.
        let dir = tmp.path().join(format!("t{threads}"));
        let workload = workspace(&dir);
        let check = meshc(&dir, threads, &["check", "--format", "json", "."]);
        assert_eq!(
            check.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&check.stderr)
        );
        let build = meshc(
            &dir,
            threads,
            &[
                "build",
                workload.mesh_file(),
                ".",
                "--out",
                "out",
                "--target",
                "compose",
            ],
        );
        assert_eq!(
            build.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&build.stderr)
        );
        let out = files(&dir.join("out"));
        // Per node a manifest, a compose file and the `.env` naming its project; and the
        // build's index.
        assert_eq!(
            out.len(),
            3 * workload.nodes() + 1,
            "{:?}",
            out.iter().map(|f| &f.0)
        );
        let lock = std::fs::read(dir.join(format!("{}.lock", workload.mesh_file()))).unwrap();
        runs.push((check.stdout, build.stderr, out, lock));
    }
    let (one, several) = (&runs[0], &runs[1]);
    assert_eq!(one.0, several.0, "check --format json differs");
    assert_eq!(one.1, several.1, "what build said differs");
    assert_eq!(one.3, several.3, "the lock differs");
    for ((name, a), (other, b)) in one.2.iter().zip(&several.2) {
        assert_eq!(name, other);
        assert!(a == b, "`{name}` differs between 1 and 3 threads");
    }
}
