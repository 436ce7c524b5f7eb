//! What a workspace is: the nearest `mesh.toml` names the folders read when no path is
//! given, a build of a workspace that does not parse writes nothing, and a build leaves
//! nothing in its output folder but manifests.

use std::path::Path;
use std::process::Output;

#[path = "support/command.rs"]
mod command;
use command::meshc;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const MODULE: &str = "module hello {\n  container hello { image \"busybox:1.36\" }\n}\n";
const MESH: &str = "mesh tiny {\n  node alpha { private_name = \"alpha.internal\"  root = \"/srv/mesh\" }\n  assign hello to alpha\n}\n";
const BROKEN: &str = "module broken {\n  container c { image \"x:1\"\n";

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// defs/ holds a module and a mesh; defs/old/ and fixtures/ hold files that do not parse.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "defs/hello.mesh", MODULE);
    write(dir.path(), "defs/tiny.mesh", MESH);
    write(dir.path(), "defs/old/broken.mesh", BROKEN);
    write(dir.path(), "fixtures/broken.mesh", BROKEN);
    dir
}

#[test]
fn check_with_no_path_reads_the_sources_of_the_nearest_mesh_toml() {
    let dir = workspace();
    // Without a mesh.toml, the current directory: the fixtures' errors are reported.
    let out = meshc(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("E0005"), "{}", stderr(&out));

    write(
        dir.path(),
        "mesh.toml",
        "[workspace]\nsources = [\"defs\"]\nexclude = [\"defs/old\"]\n",
    );
    let out = meshc(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("2 files checked"), "{}", stderr(&out));
    // From a folder below the root, the same workspace.
    let below = dir.path().join("fixtures");
    let out = meshc(&below, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A path given names exactly what is read: the root's file does not apply to it.
    let out = meshc(&below, &["check", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // `fmt` reads the same workspace: the files that do not parse are not its own.
    let out = meshc(dir.path(), &["fmt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = meshc(dir.path(), &["fmt", "--check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("fixtures/broken.mesh")).unwrap(),
        BROKEN
    );
    // `build` with its mesh file alone builds from the workspace's sources.
    let out = meshc(
        &below,
        &["build", "../defs/tiny.mesh", "--out", "../manifests"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(dir.path().join("manifests/alpha.json").is_file());
}

#[test]
fn a_mesh_toml_meshc_cannot_read_is_said_with_exit_2() {
    let dir = workspace();
    write(
        dir.path(),
        "mesh.toml",
        "[workspace]\nsource = [\"defs\"]\n",
    );
    let out = meshc(&dir.path().join("defs"), &["check"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("`../mesh.toml`"), "{err}");
    assert!(err.contains("unknown field `source`"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_build_of_a_workspace_that_does_not_parse_writes_nothing() {
    let dir = workspace();
    let out = meshc(
        dir.path(),
        &["build", "defs/tiny.mesh", "defs", "--out", "manifests"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("nothing was written: `defs/old/broken.mesh` does not parse"),
        "{err}"
    );
    assert!(!dir.path().join("manifests").exists(), "manifests written");
    assert!(
        !dir.path().join("defs/tiny.mesh.lock").exists(),
        "lock written"
    );

    // Near miss: without the broken file the same build writes the manifest, and the
    // output folder holds the manifest and the build's index of what it wrote, nothing
    // else (no lock file of the build's).
    std::fs::remove_dir_all(dir.path().join("defs/old")).unwrap();
    let out = meshc(
        dir.path(),
        &["build", "defs/tiny.mesh", "defs", "--out", "manifests"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("manifests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".meshc-build.json", "alpha.json"]);
}

#[test]
fn the_repository_is_a_workspace_whose_check_is_clean() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    assert!(root.join("mesh.toml").is_file());
    let out = meshc(root, &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // From deep inside the test fixtures too.
    let out = meshc(&root.join("tests/cases"), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The main job without the catalogue path builds from the workspace's sources.
    let tmp = tempfile::tempdir().unwrap();
    let out = meshc(
        root,
        &[
            "build",
            "catalogue/lab.mesh",
            "--out",
            tmp.path().to_str().unwrap(),
            "--locked",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(tmp.path().join("alpha.json").is_file());
}
