//! The generated workspaces that the benchmarks and the test of threads run on: services
//! of about 1 KB each, the providers of what they require, and a mesh assigning every
//! service. One generator serves `meshc-bench` (`compiler/examples`), the language
//! server's latency benchmark (`lsp/benches/latency.rs`) and `compiler/tests/threads.rs`;
//! each names its [`Flavour`], and a flavour gives the same bytes for the same size
//! every time, so figures measured on it stay comparable.
//!
//! Not part of the compiler: it returns texts and writes nothing (the callers write the
//! files).

use std::fmt::Write as _;

/// Which workload: the flavours differ in their services' text and in what the mesh
/// and its providers hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// `meshc-bench`: documented services with six requirements and twelve env entries
    /// under `modules/`, documented providers (a database with its directory, the vault),
    /// the mesh `bench` of 20 nodes in `bench.mesh`.
    Bench,
    /// `tests/threads.rs`: shorter services under `modules/` whose values vary with their
    /// number, bare providers (a database without a directory, the vault), the mesh
    /// `many` of 6 nodes in `many.mesh`.
    Threads,
    /// The language server's benchmark: services named with four digits (`svc0042`) at
    /// the workspace's root, each also requiring a cache, with the line [`EDITED`]; the
    /// providers add a cache on every node; the mesh `bench` of 20 nodes in
    /// `zz-bench.mesh` (sorted last).
    Server,
}

/// The line of every [`Flavour::Server`] service that the latency benchmark rewrites.
pub const EDITED: &str = "      LOG_LEVEL = \"info\"";

/// A workload: a flavour and how many services it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    pub flavour: Flavour,
    pub services: usize,
}

impl Workload {
    pub fn new(flavour: Flavour, services: usize) -> Workload {
        Workload { flavour, services }
    }

    /// The nodes the mesh spreads the services over.
    pub fn nodes(&self) -> usize {
        match self.flavour {
            Flavour::Bench | Flavour::Server => 20,
            Flavour::Threads => 6,
        }
    }

    /// The name of service `i` (its module and its container).
    pub fn service_name(&self, i: usize) -> String {
        match self.flavour {
            Flavour::Bench | Flavour::Threads => format!("svc{i}"),
            Flavour::Server => format!("svc{i:04}"),
        }
    }

    /// The file of service `i`, relative to the workspace's root.
    pub fn service_file(&self, i: usize) -> String {
        match self.flavour {
            Flavour::Bench | Flavour::Threads => format!("modules/svc{i}.mesh"),
            Flavour::Server => format!("svc{i:04}.mesh"),
        }
    }

    /// The text of service `i`.
    pub fn service(&self, i: usize) -> String {
        match self.flavour {
            Flavour::Bench => bench_service(i),
            Flavour::Threads => threads_service(i),
            Flavour::Server => server_service(i),
        }
    }

    /// The file of the providers, relative to the workspace's root.
    pub fn providers_file(&self) -> &'static str {
        "providers.mesh"
    }

    /// The providers of what the services require: a database on every node (with a
    /// directory of its own but in [`Flavour::Threads`]), a cache on every node in
    /// [`Flavour::Server`], and the vault.
    pub fn providers(&self) -> String {
        let documented = self.flavour == Flavour::Bench;
        let pg_directory = self.flavour != Flavour::Threads;
        let mut s = String::new();
        if documented {
            s.push_str("/// PostgreSQL for the generated catalogue.\n");
        }
        s.push_str(
            "module pg {\n  requires here: host node\n  requires p: host port { container = 5432 }\n",
        );
        if pg_directory {
            s.push_str("  requires data: host directory { owner = 999  mode = 0o700 }\n");
        }
        s.push_str("  container pg {\n    image \"postgres:16.4\"\n");
        if pg_directory {
            s.push_str("    mount data.path -> \"/var/lib/postgresql/data\"\n");
        }
        s.push_str(
            r#"    publish p
  }
  provides postgres {
    host = here.private_name
    port = p.host_port
    database = consumer.login
    user = consumer.login
  }
}
"#,
        );
        if self.flavour == Flavour::Server {
            s.push_str(
                r#"
module cache {
  requires here: host node
  requires p: host port { container = 6379 }
  container cache {
    image "redis:7.4"
    publish p
  }
  provides redis {
    host = here.private_name
    port = p.host_port
  }
}
"#,
            );
        }
        s.push('\n');
        if documented {
            s.push_str("/// The vault for the generated catalogue.\n");
        }
        s.push_str(
            r#"module keeper {
  requires api: host port { container = 8200 }
  container keeper {
    image "openbao/openbao:2.0.3"
    publish api
  }
  provides secret { }
}
"#,
        );
        s
    }

    /// The file of the mesh, relative to the workspace's root.
    pub fn mesh_file(&self) -> &'static str {
        match self.flavour {
            Flavour::Bench => "bench.mesh",
            Flavour::Threads => "many.mesh",
            Flavour::Server => "zz-bench.mesh",
        }
    }

    /// The mesh: its nodes, the vault's seat, the providers on every node, and service
    /// `i` on node `i % nodes`.
    pub fn mesh(&self) -> String {
        let (name, domain) = match self.flavour {
            Flavour::Bench | Flavour::Server => ("bench", "bench.internal"),
            Flavour::Threads => ("many", "internal"),
        };
        let nodes = self.nodes();
        let mut s = format!("mesh {name} {{\n");
        for node in 0..nodes {
            let _ = writeln!(
                s,
                "  node n{node} {{ private_name = \"n{node}.{domain}\"  ports = 20000..29999 }}"
            );
        }
        s.push_str("  seat vault = keeper on n0\n  assign keeper to n0\n");
        for node in 0..nodes {
            let _ = writeln!(s, "  assign pg to n{node}");
            if self.flavour == Flavour::Server {
                let _ = writeln!(s, "  assign cache to n{node}");
            }
        }
        for i in 0..self.services {
            let _ = writeln!(s, "  assign {} to n{}", self.service_name(i), i % nodes);
        }
        s.push_str("}\n");
        s
    }

    /// Every file of the workspace, by its path relative to the root: the services in
    /// order, then the providers and the mesh.
    pub fn files(&self) -> impl Iterator<Item = (String, String)> + '_ {
        (0..self.services)
            .map(|i| (self.service_file(i), self.service(i)))
            .chain([
                (self.providers_file().to_string(), self.providers()),
                (self.mesh_file().to_string(), self.mesh()),
            ])
    }
}

fn bench_service(i: usize) -> String {
    format!(
        r#"/// Service {i} of the generated catalogue: a web application with a database.
module svc{i} {{
  /// Where the service keeps its state.
  requires db: module postgres {{ password len 24.. }}
  requires data: host directory {{ owner = 1000  mode = 0o750 }}
  requires http: host port {{ container = 8080 }}
  requires key: module secret {{ length = 48 }}
  requires workers: operator int in 1..64 = 4
  requires title: operator string = "Service {i}"

  container svc{i} {{
    image "ghcr.io/acme/svc{i}:1.4.2"
    user 1000
    env {{
      DB_HOST = "${{db.host}}:${{db.port}}"
      DB_NAME = db.database
      DB_USER = db.user
      DB_PASSWORD_FILE = "/run/secrets/db_password"
      DATA_DIR = "/data"
      CACHE_DIR = "/data/cache"
      KEY_FILE = "/run/secrets/key"
      WORKERS = workers
      TITLE = "${{title}} with ${{workers}} workers"
      LOG_LEVEL = "info"
      SSL_MODE = db.sslmode
      LISTEN = "8080"
    }}
    secret "/run/secrets/db_password" = db.password
    secret "/run/secrets/key" = key.value
    mount data.path -> "/data"
    publish http
  }}
}}
"#
    )
}

fn threads_service(i: usize) -> String {
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

fn server_service(i: usize) -> String {
    format!(
        r#"/// Service {i}, generated for the language server benchmark.
module svc{i:04} {{
  requires db: module postgres
  requires cache: module redis
  requires data: host directory {{ owner = 1000 }}
  requires http: host port {{ container = 8080 }}
  requires key: module secret {{ length = 64 }}
  requires workers: operator int in 1..64 = 4
  container svc{i:04} {{
    image "registry.example/svc{i:04}:1.{i}"
    user 1000
    env {{
      DB_HOST = db.host
      DB_PORT = "${{db.port}}"
      DB_NAME = db.database
      DB_USER = db.user
      DB_ADDR = "${{db.host}}:${{db.port}}/${{db.database}}"
      CACHE_ADDR = "${{cache.host}}:${{cache.port}}"
      CACHE_DB = "${{cache.db}}"
      WORKERS = "${{workers}}"
      LISTEN = "8080"
{EDITED}
      SERVICE = "svc{i:04}"
      DATA_DIR = "/data"
    }}
    secret "/run/secrets/db_password" = db.password
    secret "/run/secrets/cache_password" = cache.password
    secret "/run/secrets/key" = key.value
    mount data.path -> "/data"
    publish http
  }}
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Database};
    use std::sync::Arc;

    /// Every flavour is a workspace that checks and resolves without a problem: a
    /// benchmark of it times the work, not the rendering of diagnostics.
    #[test]
    fn every_flavour_checks_clean() {
        for flavour in [Flavour::Bench, Flavour::Threads, Flavour::Server] {
            let workload = Workload::new(flavour, 45);
            let files: Vec<_> = workload
                .files()
                .map(|(path, text)| (path.as_str().into(), Arc::from(text)))
                .collect();
            assert_eq!(files.len(), 47);
            let (database, ws) = Database::with_files(files);
            let diagnostics = db::workspace_diagnostics(&database, ws);
            assert!(
                diagnostics.is_empty(),
                "{flavour:?}: {:?}",
                diagnostics
                    .iter()
                    .map(|d| (d.code, &d.message))
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn the_mesh_assigns_every_service_round_the_nodes() {
        for flavour in [Flavour::Bench, Flavour::Threads, Flavour::Server] {
            let workload = Workload::new(flavour, 45);
            let mesh = workload.mesh();
            let nodes = workload.nodes();
            for i in 0..45 {
                let name = workload.service_name(i);
                let line = format!("  assign {name} to n{}\n", i % nodes);
                assert_eq!(mesh.matches(&line).count(), 1, "{flavour:?}: {line}");
                assert!(workload.service(i).contains(&format!("module {name} {{")));
            }
            assert_eq!(mesh.matches("  node n").count(), nodes);
        }
        assert!(
            Workload::new(Flavour::Server, 1)
                .service(0)
                .contains(EDITED)
        );
    }
}
