//! The README's two commands, as a newcomer meets them: read from README.md (so the test
//! cannot drift from the text), checked against what CI runs, and the main job run as
//! written in a fresh clone of the repository.

use std::path::Path;
use std::process::Command;

#[path = "support/command.rs"]
mod command;
use command::repo_root;

/// The command lines of the README's "The two commands" block, in order.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let section = readme
        .split_once("## The two commands")
        .expect("the README has a section `The two commands`")
        .1;
    let block = section
        .split_once("```sh\n")
        .expect("the section holds a sh block")
        .1
        .split_once("```")
        .expect("the block ends")
        .0;
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_names_two_commands_and_ci_runs_both_as_written() {
    let commands = readme_commands();
    assert_eq!(commands.len(), 2, "two commands: {commands:?}");
    assert!(
        commands[0].starts_with("cargo run ") && commands[0].contains(" build "),
        "the main job builds a mesh: {}",
        commands[0]
    );
    assert!(commands[1].starts_with("cargo test"), "{}", commands[1]);
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).expect(".ci/run");
    for command in &commands {
        assert!(
            ci.lines().any(|l| l.trim() == command),
            ".ci/run does not run the README's `{command}` as written"
        );
    }
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs")
}

/// Clones the committed tree (HEAD) into a temporary folder and runs the README's main
/// job there with `sh -c`, exactly as written. Only the build cache is kept apart
/// (`target/fresh-clone`), so a second run does not rebuild every dependency.
#[test]
fn the_main_job_runs_as_written_in_a_fresh_clone() {
    let root = repo_root();
    let head = git(&root, &["rev-parse", "HEAD"]);
    if !head.status.success() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must run from a git checkout so the fresh-clone test can clone it"
        );
        eprintln!("skipped: {} is not a git checkout", root.display());
        return;
    }
    let head = String::from_utf8(head.stdout).unwrap().trim().to_string();
    let tmp = tempfile::tempdir().unwrap();
    let clone = tmp.path().join("meshc");
    let cloned = Command::new("git")
        .args(["clone", "--quiet", "--no-checkout"])
        .arg(&root)
        .arg(&clone)
        .output()
        .expect("git runs");
    assert!(
        cloned.status.success(),
        "git clone: {}",
        String::from_utf8_lossy(&cloned.stderr)
    );
    let checkout = git(&clone, &["checkout", "--quiet", &head]);
    assert!(
        checkout.status.success(),
        "git checkout: {}",
        String::from_utf8_lossy(&checkout.stderr)
    );
    assert!(
        !clone.join("manifests").exists(),
        "a fresh clone holds no manifests"
    );

    let main_job = &readme_commands()[0];
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(main_job).current_dir(&clone);
    // The variables `cargo test` sets for this test would otherwise reach the inner cargo.
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().to_string();
        if key.starts_with("CARGO_") && key != "CARGO_HOME" && !key.starts_with("CARGO_PROFILE_")
            || key == "RUSTFLAGS"
            || key == "RUSTC_WRAPPER"
        {
            cmd.env_remove(&key);
        }
    }
    cmd.env("CARGO_TARGET_DIR", root.join("target/fresh-clone"));
    let out = cmd.output().expect("sh runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "`{main_job}` failed:\n{stderr}");

    // One manifest per node of the lab, each a JSON object naming its node.
    let lab = std::fs::read_to_string(clone.join("catalogue/lab.mesh")).unwrap();
    let mut nodes: Vec<String> = lab
        .lines()
        .filter_map(|l| l.trim().strip_prefix("node "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    nodes.sort();
    assert!(!nodes.is_empty());
    // One `<node>.json` per node, beside the build's own hidden index of what it wrote.
    let mut written: Vec<String> = std::fs::read_dir(clone.join("manifests"))
        .expect("the main job wrote manifests/")
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| !name.starts_with('.'))
        .collect();
    written.sort();
    let expected: Vec<String> = nodes.iter().map(|n| format!("{n}.json")).collect();
    assert_eq!(written, expected);
    for node in &nodes {
        let text = std::fs::read_to_string(clone.join(format!("manifests/{node}.json"))).unwrap();
        let manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(manifest["node"].as_str(), Some(node.as_str()), "{text}");
    }
    // What it prints is what the README says it prints.
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let shown = readme
        .split_once("## The two commands")
        .unwrap()
        .1
        .split_once("```text\n")
        .expect("the README shows the main job's output")
        .1
        .split_once("```")
        .unwrap()
        .0;
    // Cargo's own lines (Compiling, Finished, Running) come first on the same stream.
    let printed: String = stderr
        .lines()
        .filter(|l| l.starts_with("meshc: "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        printed, shown,
        "the README shows other output than the main job prints"
    );
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("meshc: ") || !l.contains("warning")),
        "the build warns: {stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "built mesh `lab` into manifests: {}",
            expected.join(", ")
        )),
        "{stderr}"
    );
    // The committed lock already holds every choice: the clone is left as it was.
    let status = git(&clone, &["status", "--porcelain"]);
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "",
        "the main job changed tracked files"
    );
}
