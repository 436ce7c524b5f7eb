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
    // Every host port is published (E0323: a port nothing listens on is refused).
    m.push_str(
        "  container chain {\n    image \"busybox:1.36\"\n    env { LAST = \"${p0.container}\" }\n",
    );
    for i in 0..n {
        m.push_str(&format!("    publish p{i}\n"));
    }
    m.push_str("  }\n}\n");
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
    assert!(
        manifest.contains("\"V\":\"end\""),
        "the answer reads through every provider"
    );
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

/// One file of 20,000 modules, each with a broken entry: 20,000 syntax errors, one each,
/// and each module's checks still see that the file has them. Each module's checks once
/// sorted every syntax error of the file again (modules × errors: 4.6 s for this file in
/// a release build, about two minutes at 100,000); the file's errors are now sorted once.
#[test]
fn a_file_of_many_broken_modules_is_checked_once_per_module() {
    let n = 20_000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("module m{i} {{\n  bad\n}}\n"));
    }
    let diags = check_workspace(&one_file("many.mesh", &text));
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
    assert_eq!(errors.len(), n, "one error per module");
    assert!(errors.iter().all(|d| d.code == Code::E0001));
    // A forgotten brace in each: every module still ends at the next one's keyword.
    let text = text.replace("  bad\n}\n", "  container c {\n    image \"x\"\n}\n");
    let diags = check_workspace(&one_file("many.mesh", &text));
    let unclosed = diags.iter().filter(|d| d.code == Code::E0005).count();
    assert_eq!(unclosed, n, "one unclosed module per module");
}

#[test]
fn a_thousand_alike_logins_are_one_diagnostic() {
    let app = "module app {\n  requires http: host port { container = 80 }\n  container app {\n    image \"busybox:1.36\"\n    publish http\n  }\n}\n";
    let mut mesh = String::from(
        "mesh m {\n  node alpha { private_name = \"alpha.internal\"  ports = 10000..65000 }\n",
    );
    for i in 0..1000 {
        mesh.push_str(&format!("  assign app to alpha as xxxx{i}\n"));
    }
    mesh.push_str("  assign app to alpha as other\n}\n");
    let files = vec![
        ("app.mesh".to_string(), app.to_string()),
        ("m.mesh".to_string(), mesh),
    ];
    let b = build(&files, "m.mesh");
    let all = b.diagnostics();
    let alike: Vec<&&Diagnostic> = all.iter().filter(|d| d.code == Code::E0509).collect();
    assert_eq!(alike.len(), 1, "one diagnostic for the group");
    let d = alike[0];
    assert!(d.message.contains("`xxxx0` on `alpha`"), "{}", d.message);
    assert!(d.message.contains("`xxxx8` on `alpha`"), "{}", d.message);
    assert!(!d.message.contains("`xxxx9` on"), "{}", d.message);
    assert!(d.message.ends_with("and 991 more"), "{}", d.message);
    assert_eq!(d.labels.len(), 8);
    // Every member is still left out, each listing the group's diagnostic; the instance
    // with a login of its own is built.
    let left_out: Vec<_> = b.outcomes[0].left_out.iter().collect();
    assert_eq!(left_out.len(), 1000);
    assert!(
        left_out
            .iter()
            .all(|l| l.diagnostics.iter().any(|d| d.code == Code::E0509))
    );
    let manifest = serde_json::to_string(&b.json("alpha").unwrap()).unwrap();
    assert!(manifest.contains("\"instance\":\"other\""));
}

#[test]
fn a_huge_pattern_is_refused() {
    let mut module = String::from("module m {\n");
    for i in 0..200 {
        module.push_str(&format!(
            "  requires r{i}: operator string matches \"\\\\w{{250}}N{i}\" = \"x\"\n"
        ));
    }
    module.push_str("}\n");
    let diags = check_workspace(&one_file("m.mesh", &module));
    let too_big = diags
        .iter()
        .filter(|d| {
            d.code == Code::E0314
                && d.help
                    .as_deref()
                    .is_some_and(|h| h.contains("too large once compiled"))
        })
        .count();
    assert_eq!(too_big, 200, "{:?}", diags.first());
    // A pattern of a real size still compiles and judges.
    let ok = "module m {\n  requires r: operator string matches \"[a-z]{1,63}\" = \"web\"\n}\n";
    let diags = check_workspace(&one_file("m.mesh", ok));
    assert!(!diags.iter().any(Diagnostic::is_error), "{diags:?}");
}

use support::command::meshc;

const CLEAN: &str = "module web {\n  requires http: host port { container = 80 }\n  container web {\n    image \"nginx:1.27\"\n    publish http\n  }\n}\n";
const MESH: &str = "mesh m {\n  node a { private_name = \"a.internal\"  ports = 10000..65000 }\n  assign web to a\n}\n";

#[cfg(unix)]
#[test]
fn special_files_are_refused_not_read() {
    use std::os::unix::fs::symlink;
    for dev in ["/dev/zero", "/dev/urandom"] {
        // Named directly: one sentence, exit 2.
        let dir = tempfile::tempdir().unwrap();
        symlink(dev, dir.path().join("z.mesh")).unwrap();
        let out = meshc(dir.path(), &["check", "z.mesh"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("not a regular file"), "{err}");
        // Found in a directory: a link leading out, not followed.
        std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
        let out = meshc(dir.path(), &["check", "."]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("`z.mesh` is a link leading out"), "{err}");
        // The lock file beside the mesh.
        std::fs::remove_file(dir.path().join("z.mesh")).unwrap();
        std::fs::write(dir.path().join("m.mesh"), MESH).unwrap();
        symlink(dev, dir.path().join("m.mesh.lock")).unwrap();
        let out = meshc(dir.path(), &["build", "m.mesh", ".", "--out", "out"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("m.mesh.lock` is a device"), "{err}");
    }
}

#[test]
fn a_lock_is_read_for_its_ports_or_refused_saying_why() {
    // A lock meshc would write: its port is kept (LANGUAGE.md §7, the lock file's number).
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
    std::fs::write(dir.path().join("m.mesh"), MESH).unwrap();
    std::fs::write(
        dir.path().join("m.mesh.lock"),
        "{\n  \"ports\": {\n    \"a/web/http\": 12345\n  }\n}\n",
    )
    .unwrap();
    let out = meshc(dir.path(), &["build", "m.mesh", ".", "--out", "out"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out/a.json")).unwrap()).unwrap();
    assert_eq!(
        manifest["instances"][0]["requirements"]["http"]["host_port"],
        12345
    );
    // What is not a lock: exit 2, one sentence saying what is wrong, nothing written.
    for (lock, says) in [
        (
            "{\"ports\": {\"a/web\": 1}}",
            "the lock file's key `a/web` is not `<node>/<instance>/<requirement>`",
        ),
        ("[{}, {}]", "the lock file is not a JSON object"),
        (
            "{\"ports\": {\"a/web/http\": 0}}",
            "the lock file's port for `a/web/http` is not in 1..65535",
        ),
        ("{\"ports\": {", "the lock file is not JSON"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
        std::fs::write(dir.path().join("m.mesh"), MESH).unwrap();
        std::fs::write(dir.path().join("m.mesh.lock"), lock).unwrap();
        let out = meshc(dir.path(), &["build", "m.mesh", ".", "--out", "out"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{lock}: {err}");
        assert!(
            err.contains("`m.mesh.lock` is not a lock file meshc can read: ") && err.contains(says),
            "{lock}: {err}"
        );
        assert!(
            !dir.path().join("out").exists(),
            "{lock}: something was written"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("m.mesh.lock")).unwrap(),
            lock,
            "the lock was changed"
        );
    }
}

#[cfg(unix)]
#[test]
fn links_out_of_the_input_are_not_followed() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("shadow.mesh"),
        "root:S3CR3T-hash:19000\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
    symlink(
        outside.path().join("shadow.mesh"),
        dir.path().join("shadow.mesh"),
    )
    .unwrap();
    symlink("/", dir.path().join("everything")).unwrap();
    // A link that stays inside is followed.
    std::fs::create_dir(dir.path().join("real")).unwrap();
    std::fs::write(
        dir.path().join("real/other.mesh"),
        CLEAN.replace("web", "other"),
    )
    .unwrap();
    symlink(dir.path().join("real"), dir.path().join("alias")).unwrap();
    let out = meshc(dir.path(), &["check", "--format", "json", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{err}{stdout}");
    assert!(!stdout.contains("S3CR3T") && !err.contains("S3CR3T"));
    assert!(err.contains("`shadow.mesh` is a link leading out"), "{err}");
    assert!(err.contains("`everything` is a link leading out"), "{err}");
    let out = meshc(dir.path(), &["check", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 files checked"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_manifest_link_is_refused_with_exit_2() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "untouched").unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.mesh"), CLEAN).unwrap();
    std::fs::write(dir.path().join("m.mesh"), MESH).unwrap();
    std::fs::create_dir(dir.path().join("out")).unwrap();
    symlink(&victim, dir.path().join("out/a.json")).unwrap();
    let out = meshc(dir.path(), &["build", "m.mesh", ".", "--out", "out"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is a symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
    // The lock beside the mesh, a link: refused too, and the victim untouched.
    std::fs::remove_file(dir.path().join("out/a.json")).unwrap();
    symlink(&victim, dir.path().join("m.mesh.lock")).unwrap();
    let out = meshc(dir.path(), &["build", "m.mesh", ".", "--out", "out"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.mesh"), format!("\u{feff}{CLEAN}")).unwrap();
    let out = meshc(dir.path(), &["check", "."]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("no problems"), "{err}");
}

/// A workspace where one diagnostic of `code` would list `n` names: a mesh of `n` nodes
/// and an assignment to an unknown one (E0107), a module of `n` requirements and an
/// assignment setting an unknown one (E0517), a node of `n` instances and a seat held by
/// an unknown one (E0109), a contract's set of `n` values and a narrowing outside it
/// (E0305).
fn listing_family(code: Code, n: usize) -> Vec<(String, String)> {
    let web = "module web {\n  container web { image \"nginx:1.27\" }\n}\n".to_string();
    let mut files = vec![("web.mesh".to_string(), web)];
    let mut mesh = String::from("mesh m {\n");
    match code {
        Code::E0107 => {
            for i in 0..n {
                mesh.push_str(&format!(
                    "  node alpha{i} {{ private_name = \"alpha{i}\" }}\n"
                ));
            }
            mesh.push_str("  assign web to qqqqqqqqqqqqqqqq\n");
        }
        Code::E0517 => {
            let mut m = String::from("module many {\n");
            for i in 0..n {
                m.push_str(&format!("  requires r{i}: operator int = 1\n"));
            }
            m.push_str("  container many { image \"nginx:1.27\" }\n}\n");
            files.push(("many.mesh".to_string(), m));
            mesh.push_str("  node alpha { private_name = \"alpha\" }\n");
            mesh.push_str("  assign many to alpha { qqqqqqqqqqqqqqqq = 1 }\n");
        }
        Code::E0109 => {
            mesh.push_str("  node alpha { private_name = \"alpha\" }\n");
            for i in 0..n {
                mesh.push_str(&format!("  assign web to alpha as w{i}\n"));
            }
            mesh.push_str("  seat vault = qqqqqqqqqqqqqqqq on alpha\n");
        }
        Code::E0305 => {
            let values: Vec<String> = (0..n).map(|i| format!("\"v{i}\"")).collect();
            files.push((
                "c.mesh".to_string(),
                format!(
                    "contract wide for module {{\n  mode: string in {{{}}}\n}}\nmodule user {{\n  requires w: module wide {{ mode in {{\"qqqqqqqqqqqqqqqq\"}} }}\n  container user {{ image \"nginx:1.27\"  env {{ MODE = w.mode }} }}\n}}\n",
                    values.join(", ")
                ),
            ));
        }
        _ => unreachable!(),
    }
    mesh.push_str("}\n");
    files.push(("m.mesh".to_string(), mesh));
    files
}

/// Every diagnostic that lists names names at most a few and counts the rest: with
/// thousands of members, each family's diagnostic stays short (under 1,000 bytes, where
/// the whole list is 30,000), and the whole output grows linearly with the members.
#[test]
fn every_list_in_a_diagnostic_is_capped() {
    for code in [Code::E0107, Code::E0517, Code::E0109, Code::E0305] {
        let size = |n: usize| -> usize {
            let files = listing_family(code, n);
            let b = build(&files, "m.mesh");
            let all = b.diagnostics();
            let found: Vec<&&Diagnostic> = all.iter().filter(|d| d.code == code).collect();
            assert!(!found.is_empty(), "{code:?} with {n} members: {all:?}");
            for d in &found {
                let text = format!("{} {}", d.message, d.help.as_deref().unwrap_or(""));
                assert!(
                    text.len() < 1_000,
                    "{code:?} with {n} members: {} bytes: {}",
                    text.len(),
                    &text[..300]
                );
                assert!(text.contains("more"), "{code:?}: {text}");
            }
            all.iter()
                .map(|d| d.message.len() + d.help.as_deref().map_or(0, str::len))
                .sum()
        };
        // Linear: other diagnostics may be one per member, none grows with the list.
        for n in [300, 3_000] {
            let total = size(n);
            assert!(
                total <= 200 * n + 10_000,
                "{code:?}: {total} bytes of diagnostics for {n} members"
            );
        }
    }
}
