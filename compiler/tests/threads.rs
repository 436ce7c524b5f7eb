//! The work spread over the cores never changes what meshc writes: the same mesh checked
//! and built with one thread and with several (`MESHC_THREADS`) gives the same bytes.
//! The workspace is large enough (300 files) for every parallel step to split its work.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

const MODULES: usize = 300;
const NODES: usize = 6;

fn module_text(i: usize) -> String {
    format!(
        r#"module svc{i} {{
  requires db: module postgres
  requires data: host directory {{ owner = 1000  mode = 0o750 }}
  requires http: host port {{ container = 8080 }}
  requires key: module secret {{ length = 48 }}
  requires workers: operator int in 1..64 = {workers}
  container svc{i} {{
    image "ghcr.io/acme/svc{i}:1.{i}"
    user 1000
    env {{
      DB = "${{db.host}}:${{db.port}}/${{db.database}}"
      WORKERS = workers
      TITLE = "svc{i} with ${{workers}} workers"
    }}
    secret "/run/secrets/db_password" = db.password
    secret "/run/secrets/key" = key.value
    mount data.path -> "/data"
    publish http
  }}
}}
"#,
        workers = 1 + i % 60
    )
}

const PROVIDERS: &str = r#"module pg {
  requires here: host node
  requires p: host port { container = 5432 }
  container pg {
    image "postgres:16.4"
    publish p
  }
  provides postgres {
    host = here.private_name
    port = p.host_port
    database = consumer.login
    user = consumer.login
  }
}

module keeper {
  requires api: host port { container = 8200 }
  container keeper {
    image "openbao/openbao:2.0.3"
    publish api
  }
  provides secret { }
}
"#;

fn workspace(dir: &Path) {
    std::fs::create_dir_all(dir.join("modules")).unwrap();
    let mut mesh = String::from("mesh many {\n");
    for n in 0..NODES {
        let _ = writeln!(
            mesh,
            "  node n{n} {{ private_name = \"n{n}.internal\"  ports = 20000..29999 }}"
        );
    }
    mesh.push_str("  seat vault = keeper on n0\n  assign keeper to n0\n");
    for n in 0..NODES {
        let _ = writeln!(mesh, "  assign pg to n{n}");
    }
    for i in 0..MODULES {
        std::fs::write(
            dir.join("modules").join(format!("svc{i}.mesh")),
            module_text(i),
        )
        .unwrap();
        let _ = writeln!(mesh, "  assign svc{i} to n{}", i % NODES);
    }
    mesh.push_str("}\n");
    std::fs::write(dir.join("providers.mesh"), PROVIDERS).unwrap();
    std::fs::write(dir.join("many.mesh"), mesh).unwrap();
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
        workspace(&dir);
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
                "many.mesh",
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
        // One manifest and one compose file per node, and the build's index.
        assert_eq!(out.len(), 2 * NODES + 1, "{:?}", out.iter().map(|f| &f.0));
        let lock = std::fs::read(dir.join("many.mesh.lock")).unwrap();
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
