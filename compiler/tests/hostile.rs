//! Hostile input, tried as an attacker would: inputs far deeper or wider than any real
//! definition, run on a small stack, must end in manifests or diagnostics, never in a
//! stack overflow, and diagnostics must stay linear in the input.

mod support;

use meshc::diagnostics::{Code, Diagnostic};
use std::path::Path;
use std::process::{Command, Output};
use support::*;

/// Runs `f` on a thread with a 1 MiB stack, half of what a test thread or a language
/// server worker gets: a recursion as deep as the input overflows it quickly.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .expect("no panic, no overflow")
}

/// One module whose `n` port requirements each narrow their container port to the next
/// one's, written first to last, so the first reads through all the others; the last
/// is 8080. A container publishes the first and shows its port in `LAST`. With
/// `cycle`, the last reads the first instead.
fn narrowing_chain(n: usize, cycle: bool) -> Vec<(String, String)> {
    let mut m = String::from("module chain {\n");
    for i in 0..n - 1 {
        m.push_str(&format!(
            "  requires p{i}: host port {{ container = p{}.container }}\n",
            i + 1
        ));
    }
    match cycle {
        true => m.push_str(&format!(
            "  requires p{}: host port {{ container = p0.container }}\n",
            n - 1
        )),
        false => m.push_str(&format!(
            "  requires p{}: host port {{ container = 8080 }}\n",
            n - 1
        )),
    }
    m.push_str(
        "  container chain {\n    image \"busybox:1.36\"\n    env { LAST = \"${p0.container}\" }\n    publish p0\n  }\n}\n",
    );
    let mesh = "mesh m {\n  node a { private_name = \"a.internal\"  ports = 10000..65000 }\n  assign chain to a\n}\n";
    vec![
        ("chain.mesh".to_string(), m),
        ("m.mesh".to_string(), mesh.to_string()),
    ]
}

/// `n` modules, each providing contract `cK` by reading what `m(K+1)` provides, the last
/// answering `"end"`; assigned first to last, so the first answer reads through all.
fn provider_chain(n: usize) -> Vec<(String, String)> {
    let mut defs = String::new();
    for k in 0..n {
        defs.push_str(&format!("contract c{k} for module {{\n  v: string\n}}\n"));
    }
    defs.push_str(
        "module top {\n  requires up: module c0\n  container top {\n    image \"busybox:1.36\"\n    env { V = up.v }\n  }\n}\n",
    );
    for k in 0..n {
        if k + 1 < n {
            defs.push_str(&format!(
                "module m{k} {{\n  requires up: module c{}\n  provides c{k} {{ v = up.v }}\n}}\n",
                k + 1
            ));
        } else {
            defs.push_str(&format!(
                "module m{k} {{\n  provides c{k} {{ v = \"end\" }}\n}}\n"
            ));
        }
    }
    let mut mesh = String::from(
        "mesh m {\n  node a { private_name = \"a.internal\"  ports = 10000..65000 }\n  assign top to a\n",
    );
    for k in 0..n {
        mesh.push_str(&format!("  assign m{k} to a\n"));
    }
    mesh.push_str("}\n");
    vec![
        ("defs.mesh".to_string(), defs),
        ("m.mesh".to_string(), mesh),
    ]
}

fn errors(diags: &[&Diagnostic]) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{:?}: {}", d.code, d.message))
        .collect()
}

#[test]
fn a_chain_of_50000_narrowings_builds_on_a_small_stack() {
    let b = on_small_stack(|| {
        let b = build(&narrowing_chain(50_000, false), "m.mesh");
        (b.exit, errors(&b.diagnostics()), b.json("a"))
    });
    assert_eq!(b.0, 0, "{:?}", b.1);
    let manifest = b.2.expect("node a built");
    let chain = &manifest["instances"][0];
    assert_eq!(chain["requirements"]["p0"]["container"], 8080);
    assert_eq!(chain["requirements"]["p49999"]["container"], 8080);
    let env = serde_json::to_string(&chain["containers"]).unwrap();
    assert!(env.contains("\"LAST\""), "{env}");
    assert!(env.contains("8080"), "{env}");
}

#[test]
fn a_cycle_of_50000_narrowings_is_one_short_diagnostic() {
    let diags = on_small_stack(|| check_workspace(&narrowing_chain(50_000, true)));
    let cycles: Vec<&Diagnostic> = diags.iter().filter(|d| d.code == Code::E0313).collect();
    assert!(!cycles.is_empty(), "the cycle is reported");
    for d in &cycles {
        // The cycle is named by its first requirements and counted past them: the
        // message and its labels stay short however long the cycle is.
        assert!(d.message.len() < 400, "{}", d.message);
        assert!(d.labels.len() <= 9, "{} labels", d.labels.len());
    }
    assert!(
        cycles
            .iter()
            .any(|d| d.message.contains("49992 more, which read")),
        "{:?}",
        cycles.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    assert!(diags.len() < 10, "{} diagnostics", diags.len());
}

#[test]
fn a_chain_of_20000_providers_builds_on_a_small_stack() {
    let b = on_small_stack(|| {
        let b = build(&provider_chain(20_000), "m.mesh");
        (b.exit, errors(&b.diagnostics()), b.json("a"))
    });
    assert_eq!(b.0, 0, "{:?}", b.1);
    let manifest = serde_json::to_string(&b.2.expect("node a built")).unwrap();
    assert!(manifest.contains("\"V\":\"end\""), "the answer reads through every provider");
}

/// `meshc ARGS` in `dir` with the main thread's stack limited to `kib` (`ulimit -s`).
fn meshc_with_stack(dir: &Path, kib: u32, args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -s {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("sh runs")
}

fn write(dir: &Path, files: &[(String, String)]) {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

#[test]
fn the_command_line_checks_and_builds_deep_inputs_on_a_1_mib_stack() {
    for (name, files) in [
        ("narrowings", narrowing_chain(50_000, false)),
        ("providers", provider_chain(20_000)),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &files);
        let out = meshc_with_stack(dir.path(), 1024, &["check", "."]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: check: {err}");
        let out = meshc_with_stack(dir.path(), 1024, &["build", "m.mesh", ".", "--out", "out"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: build: {err}");
        assert!(dir.path().join("out/a.json").is_file(), "{name}");
    }
}
