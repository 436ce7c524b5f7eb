//! The command line a user expects: shell completions and man pages from the same
//! definitions as the parser, `meshc explain --list`, and `--color`.

use std::path::Path;
use std::process::Command;

#[path = "support/ci.rs"]
mod ci;
#[path = "support/command.rs"]
mod command;
use command::{meshc, stdout_ok};

/// The commands `meshc --help` lists.
fn commands() -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout_ok(&meshc(dir.path(), &["--help"]));
    let list = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap();
    let names: Vec<String> = list
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|n| *n != "help")
        .map(str::to_string)
        .collect();
    for expected in [
        "check",
        "build",
        "fmt",
        "explain",
        "graph",
        "doc",
        "completions",
        "man",
    ] {
        assert!(names.iter().any(|n| n == expected), "{names:?}");
    }
    names
}

#[test]
fn completions_know_every_command_and_bash_reads_its_script() {
    let dir = tempfile::tempdir().unwrap();
    let names = commands();
    let bash = stdout_ok(&meshc(dir.path(), &["completions", "bash"]));
    assert!(bash.contains("_meshc()"));
    assert!(bash.contains("complete -F _meshc"));
    let zsh = stdout_ok(&meshc(dir.path(), &["completions", "zsh"]));
    assert!(zsh.starts_with("#compdef meshc"));
    let fish = stdout_ok(&meshc(dir.path(), &["completions", "fish"]));
    for name in &names {
        assert!(bash.contains(name.as_str()), "bash lacks {name}");
        assert!(zsh.contains(name.as_str()), "zsh lacks {name}");
        assert!(
            fish.contains(&format!("-a \"{name}\"")) || fish.contains(&format!("-a {name}")),
            "fish lacks {name}"
        );
    }
    // Flags and their values too: graph's formats.
    assert!(fish.contains("svg") && fish.contains("mermaid"));
    // The bash script parses.
    std::fs::write(dir.path().join("meshc.bash"), &bash).unwrap();
    let check = Command::new("bash")
        .args(["-n", "meshc.bash"])
        .current_dir(dir.path())
        .output()
        .expect("bash runs");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // An unknown shell is a usage error.
    assert_eq!(
        meshc(dir.path(), &["completions", "tcsh"]).status.code(),
        Some(2)
    );
}

#[test]
fn man_pages_come_from_the_same_definitions() {
    let dir = tempfile::tempdir().unwrap();
    let page = stdout_ok(&meshc(dir.path(), &["man"]));
    assert!(page.contains(".TH meshc 1"), "{page}");
    for name in commands() {
        assert!(
            page.contains(&format!("meshc\\-{name}")),
            "meshc(1) does not name {name}"
        );
    }
    let out = dir.path().join("man1");
    stdout_ok(&meshc(dir.path(), &["man", "--out", out.to_str().unwrap()]));
    for name in commands() {
        let sub = std::fs::read_to_string(out.join(format!("meshc-{name}.1")))
            .unwrap_or_else(|_| panic!("no meshc-{name}.1"));
        assert!(
            sub.contains(&format!(
                ".TH meshc-{name} 1  \"meshc-{name} {}\"",
                env!("CARGO_PKG_VERSION")
            )),
            "{sub}"
        );
    }
    let graph = std::fs::read_to_string(out.join("meshc-graph.1")).unwrap();
    assert!(
        graph.contains("pin, seat, node, only"),
        "the page holds the command's long help"
    );
    assert!(out.join("meshc.1").is_file());
}

#[test]
fn explain_list_names_every_code_once_and_each_explains() {
    let dir = tempfile::tempdir().unwrap();
    let list = stdout_ok(&meshc(dir.path(), &["explain", "--list"]));
    let explain_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/diagnostics/explain");
    let shipped = std::fs::read_dir(explain_dir).unwrap().count();
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), shipped);
    let mut seen = std::collections::BTreeSet::new();
    for line in &lines {
        let (code, title) = line.split_once("  ").expect("CODE  meaning");
        assert!(!title.trim().is_empty());
        assert!(seen.insert(code.to_string()), "{code} twice");
    }
    assert!(list.starts_with("E0001  unexpected token\n"));
    let out = meshc(dir.path(), &["explain"]);
    assert_eq!(out.status.code(), Some(2), "a code or --list is needed");
    let out = meshc(dir.path(), &["explain", "E0302", "--list"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn color_is_chosen_by_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.mesh"), "module broken {\n").unwrap();
    let has_escape = |args: &[&str]| {
        let out = meshc(dir.path(), args);
        assert_eq!(out.status.code(), Some(1));
        out.stderr.contains(&0x1b)
    };
    // Standard error is a pipe here: no colour unless asked for.
    assert!(!has_escape(&["check"]));
    assert!(has_escape(&["--color", "always", "check"]));
    assert!(has_escape(&["check", "--color", "always"]));
    assert!(!has_escape(&["check", "--color", "never"]));
    assert!(!has_escape(&["check", "--color", "auto"]));
    assert_eq!(
        meshc(dir.path(), &["--color", "sometimes", "check"])
            .status
            .code(),
        Some(2)
    );
}

/// `meshc explain <TAB>` completes diagnostic codes in bash (and zsh), while `meshc explain` itself still answers an unknown code with the closest.
#[test]
fn completion_offers_the_codes_after_explain() {
    let dir = tempfile::tempdir().unwrap();
    let bash = stdout_ok(&meshc(dir.path(), &["completions", "bash"]));
    std::fs::write(dir.path().join("meshc.bash"), &bash).unwrap();
    // Bash completes as it would on `meshc explain E03<TAB>`.
    let out = Command::new("bash")
        .arg("-c")
        .arg(
            "source ./meshc.bash; COMP_WORDS=(meshc explain E03); COMP_CWORD=2; \
             COMP_LINE='meshc explain E03'; COMP_POINT=${#COMP_LINE}; \
             _meshc meshc E03 explain; printf '%s\\n' \"${COMPREPLY[@]}\"",
        )
        .current_dir(dir.path())
        .output()
        .expect("bash runs");
    let offered: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let listed = stdout_ok(&meshc(dir.path(), &["explain", "--list"]));
    let expected: Vec<String> = listed
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| c.starts_with("E03"))
        .map(str::to_string)
        .collect();
    assert!(expected.len() > 10);
    assert_eq!(
        offered,
        expected,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // zsh offers them with their titles.
    let zsh = stdout_ok(&meshc(dir.path(), &["completions", "zsh"]));
    for code in ["E0302", "W0004", "E0607"] {
        assert!(zsh.contains(code), "zsh lacks {code}");
    }
    assert!(zsh.contains("secret read into a plain value"));
    // So does fish (a line per code, since clap's fish script completes no positional
    // value), asked as it would on `meshc explain E03<TAB>`.
    let fish = stdout_ok(&meshc(dir.path(), &["completions", "fish"]));
    std::fs::write(dir.path().join("meshc.fish"), &fish).unwrap();
    match Command::new("fish")
        .arg("-c")
        .arg("source ./meshc.fish; complete -C 'meshc explain E03'")
        .current_dir(dir.path())
        .output()
    {
        Ok(out) => {
            let offered: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .filter_map(|l| l.split('\t').next())
                .map(str::to_string)
                .collect();
            assert_eq!(
                offered,
                expected,
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                String::from_utf8_lossy(&out.stdout)
                    .contains("E0302\tsecret read into a plain value")
            );
        }
        Err(e) => {
            // `.ci/run` installs fish: there, a missing shell fails the test.
            assert!(!ci::in_ci(), "fish cannot be run under CI: {e}");
            ci::say_skipped(&format!(
                "fish cannot be run ({e}); its script was not tried"
            ));
        }
    }
    // The command line still takes any text: a near miss is answered, not refused by
    // the parser.
    let out = meshc(dir.path(), &["explain", "E0320x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a diagnostic code"));
}
