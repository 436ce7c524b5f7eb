//! `retired` (LANGUAGE.md §13.4): the lock remembers the containers and file paths each
//! instance's last build wrote; a build that no longer names one lists it in the node's
//! manifest, and an instance left out keeps its record (it was not rebuilt).

use std::path::Path;
use std::process::Command;

fn build(dir: &Path) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(["build", "lab.mesh", ".", "--out", "out"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.code() == Some(0) || out.status.code() == Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(dir.join("out/alpha.json")).unwrap()).unwrap()
}

const MODULES: &str = r#"
module web {
  requires http: host port { container = 80 }
  requires title: operator string = "web"
  container web {
    image "nginx:1.27"
    env { TITLE = title }
    file "/etc/a.conf" = "a"
    file "/etc/b.conf" = "b"
    publish http
  }
}
"#;

#[test]
fn what_a_build_no_longer_names_is_retired() {
    let dir = tempfile::tempdir().unwrap();
    let mesh = |body: &str| {
        format!("mesh lab {{\n  node alpha {{ private_name = \"alpha.lab.internal\" }}\n{body}}}\n")
    };
    std::fs::write(dir.path().join("modules.mesh"), MODULES).unwrap();
    std::fs::write(
        dir.path().join("lab.mesh"),
        mesh("  assign web to alpha\n  assign web to alpha as api\n"),
    )
    .unwrap();
    let first = build(dir.path());
    assert_eq!(first["retired"], serde_json::json!([]));
    let lock = std::fs::read_to_string(dir.path().join("lab.mesh.lock")).unwrap();
    assert!(
        lock.contains("\"alpha/api\"") && lock.contains("/etc/b.conf"),
        "{lock}"
    );

    // `api` is no longer assigned and `web` no longer writes /etc/b.conf.
    std::fs::write(
        dir.path().join("modules.mesh"),
        MODULES.replace("    file \"/etc/b.conf\" = \"b\"\n", ""),
    )
    .unwrap();
    std::fs::write(dir.path().join("lab.mesh"), mesh("  assign web to alpha\n")).unwrap();
    let second = build(dir.path());
    assert_eq!(
        second["retired"],
        serde_json::json!([
            {"instance": "api", "container": "api"},
            {"instance": "web", "container": "web", "path": "/etc/b.conf"},
        ])
    );

    // Said once: the lock now remembers the new state, so the next build retires nothing.
    let third = build(dir.path());
    assert_eq!(third["retired"], serde_json::json!([]));

    // Left out (a value that does not fit): not rebuilt, so nothing of it is retired and
    // its record stays.
    std::fs::write(
        dir.path().join("lab.mesh"),
        mesh("  assign web to alpha { title = 3 }\n"),
    )
    .unwrap();
    let fourth = build(dir.path());
    assert_eq!(fourth["retired"], serde_json::json!([]));
    assert_eq!(fourth["left_out"][0]["instance"], "web");
    let lock = std::fs::read_to_string(dir.path().join("lab.mesh.lock")).unwrap();
    assert!(
        lock.contains("\"alpha/web\"") && lock.contains("/etc/a.conf"),
        "{lock}"
    );
}
