//! How long resolving a large mesh takes: a generated catalogue of 10,000 modules, each
//! assigned once over 100 nodes, with ports, directories, operator values, a database
//! from the provider on its own node and a secret from the vault seat. Prints figures;
//! asserts nothing about time.
//!
//! Run: `cargo bench -p meshc --bench resolve_large` (add a count to change the size).

use meshc::db::{self, Database};
use meshc::emit;
use meshc::resolve::Lock;
use meshc::span::FilePath;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

fn catalogue(modules: usize, nodes: usize) -> (String, String) {
    let mut defs = String::new();
    defs.push_str(
        r#"module pg {
  requires here: host node
  requires p: host port { container = 5432 }
  requires data: host directory { owner = 999  mode = 0o700 }
  container pg { image "postgres:16.4"  publish p  mount data.path -> "/var/lib/postgresql/data" }
  provides postgres { host = here.private_name  port = p.host_port  database = consumer.login  user = consumer.login }
}
module keeper {
  requires api: host port { container = 8200 }
  container keeper { image "hashicorp/vault:1.17.6"  publish api }
  provides secret { }
}
"#,
    );
    for i in 0..modules {
        writeln!(
            defs,
            r#"module m{i} {{
  requires db: module postgres
  requires key: module secret
  requires http: host port {{ container = 8080 }}
  requires data: host directory {{ owner = 1000 }}
  requires workers: operator int in 1..64 = 4
  container m{i} {{
    image "nginx:1.27"
    env {{ DB = "${{db.host}}:${{db.port}}"  W = workers }}
    secret "/run/secrets/db" = db.password
    secret "/run/secrets/key" = key.value
    mount data.path -> "/data"
    publish http
  }}
}}"#
        )
        .unwrap();
    }
    let mut mesh = String::from("mesh big {\n");
    for n in 0..nodes {
        writeln!(
            mesh,
            "  node n{n} {{ private_name = \"n{n}.lab.internal\"  ports = 20000..29999 }}"
        )
        .unwrap();
        writeln!(mesh, "  assign pg to n{n}").unwrap();
    }
    mesh.push_str("  seat vault = keeper on n0\n  assign keeper to n0\n");
    for i in 0..modules {
        writeln!(mesh, "  assign m{i} to n{} {{ workers = 8 }}", i % nodes).unwrap();
    }
    mesh.push_str("}\n");
    (defs, mesh)
}

/// CPU time this thread has run, from the scheduler's own count (Linux), so figures hold
/// on a machine other jobs share; `None` elsewhere.
fn cpu_time() -> Option<std::time::Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(std::time::Duration::from_nanos(ns))
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let modules: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(10_000);
    let (defs, mesh) = catalogue(modules, 100);
    let start = Instant::now();
    let cpu0 = cpu_time();
    let (db, ws) = Database::with_files([
        (
            FilePath::from("catalogue.mesh"),
            Arc::<str>::from(defs.as_str()),
        ),
        (FilePath::from("big.mesh"), Arc::<str>::from(mesh.as_str())),
    ]);
    let reg = db::registry(&db, ws);
    let (parsed, cpu1) = (start.elapsed(), cpu_time());
    let outcome = db::resolve_mesh(&db, ws, "big".into(), Lock::default());
    let (resolved, cpu2) = (start.elapsed(), cpu_time());
    let mut bytes = 0;
    for m in outcome.manifests.values() {
        bytes += emit::manifest_bytes(m).len();
    }
    let (emitted, cpu3) = (start.elapsed(), cpu_time());
    let again = db::resolve_mesh(&db, ws, "big".into(), outcome.lock.clone());
    let (relocked, cpu4) = (start.elapsed(), cpu_time());
    assert_eq!(reg.modules.len(), modules + 2);
    assert!(
        outcome.diagnostics.is_empty(),
        "{:?}",
        &outcome.diagnostics[..3.min(outcome.diagnostics.len())]
    );
    assert!(outcome.left_out.is_empty());
    assert_eq!(again.lock, outcome.lock);
    let cpu = |a: Option<std::time::Duration>, b: Option<std::time::Duration>| match (a, b) {
        (Some(a), Some(b)) => format!("{:.0} ms cpu", ms(b - a)),
        _ => "cpu n/a".to_string(),
    };
    println!(
        "resolve_large: {modules} modules over 100 nodes, {} manifests, {:.1} MB",
        outcome.manifests.len(),
        bytes as f64 / 1e6
    );
    println!(
        "  parse + registry     {:>6.0} ms wall, {}",
        ms(parsed),
        cpu(cpu0, cpu1)
    );
    println!(
        "  resolve              {:>6.0} ms wall, {}",
        ms(resolved - parsed),
        cpu(cpu1, cpu2)
    );
    println!(
        "  write the manifests  {:>6.0} ms wall, {}",
        ms(emitted - resolved),
        cpu(cpu2, cpu3)
    );
    println!(
        "  resolve with a lock  {:>6.0} ms wall, {}",
        ms(relocked - emitted),
        cpu(cpu3, cpu4)
    );
    println!(
        "  build in all         {:>6.0} ms wall, {}",
        ms(emitted),
        cpu(cpu0, cpu3)
    );
}
