//! The generated workspaces that the benchmarks and the test of threads run on: services
//! of about 1 KB each, the providers of what they require, and a mesh assigning every
//! service. One generator serves `meshc-bench` (`compiler/examples`), the language
//! server's latency benchmark (`lsp/benches/latency.rs`), the `check_catalogue` and
//! `resolve_large` benches and `compiler/tests/threads.rs`; each names its [`Flavour`],
//! and a flavour gives the same bytes for the same size every time, so figures measured
//! on it stay comparable.
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
    /// The `check_catalogue` bench: applications (`app0`…) with a database, a cache, a
    /// route, a vault secret and a configuration file, a hundred to a file
    /// (`catalogue/part0.mesh`…), with neither providers nor a mesh.
    Catalogue,
    /// The `resolve_large` bench: short modules (`m0`…) after their providers (written
    /// compactly) in one file, `catalogue.mesh`, and the mesh `big` of 100 nodes in
    /// `big.mesh`, each assignment setting `workers`.
    Resolve,
    /// `meshc-bench --shape dense`: fewer, larger nodes and more interpolation. Documented
    /// services under `modules/` with three module requirements (a database, a cache, a
    /// key), twelve env entries most of which interpolate several `${…}` references to
    /// those requirements, and a secret file with an owner; documented providers (a
    /// database with its directory, a cache, the vault); the mesh `dense` of 10 nodes
    /// in `dense.mesh`, so each node holds twice as many services as in [`Flavour::Bench`].
    Dense,
}

/// How many services a [`Flavour::Catalogue`] file holds.
const SERVICES_PER_FILE: usize = 100;

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
            Flavour::Dense => 10,
            Flavour::Catalogue => 0,
            Flavour::Resolve => 100,
        }
    }

    /// The name of service `i` (its module and its container).
    pub fn service_name(&self, i: usize) -> String {
        match self.flavour {
            Flavour::Bench | Flavour::Threads | Flavour::Dense => format!("svc{i}"),
            Flavour::Server => format!("svc{i:04}"),
            Flavour::Catalogue => format!("app{i}"),
            Flavour::Resolve => format!("m{i}"),
        }
    }

    /// The file of service `i`, relative to the workspace's root.
    pub fn service_file(&self, i: usize) -> String {
        match self.flavour {
            Flavour::Bench | Flavour::Threads | Flavour::Dense => {
                format!("modules/svc{i}.mesh")
            }
            Flavour::Server => format!("svc{i:04}.mesh"),
            Flavour::Catalogue => format!("catalogue/part{}.mesh", i / SERVICES_PER_FILE),
            Flavour::Resolve => "catalogue.mesh".to_string(),
        }
    }

    /// The text of service `i`.
    pub fn service(&self, i: usize) -> String {
        match self.flavour {
            Flavour::Bench => bench_service(i),
            Flavour::Threads => threads_service(i),
            Flavour::Server => server_service(i),
            Flavour::Catalogue => catalogue_service(i),
            Flavour::Resolve => resolve_service(i),
            Flavour::Dense => dense_service(i),
        }
    }

    /// The file of the providers, relative to the workspace's root.
    pub fn providers_file(&self) -> &'static str {
        match self.flavour {
            Flavour::Resolve => "catalogue.mesh",
            _ => "providers.mesh",
        }
    }

    /// The providers of what the services require: a database on every node (with a
    /// directory of its own but in [`Flavour::Threads`]), a cache on every node in
    /// [`Flavour::Server`] and [`Flavour::Dense`], and the vault; none in
    /// [`Flavour::Catalogue`].
    pub fn providers(&self) -> Option<String> {
        match self.flavour {
            Flavour::Catalogue => None,
            Flavour::Resolve => Some(COMPACT_PROVIDERS.to_string()),
            _ => Some(self.written_out_providers()),
        }
    }

    fn written_out_providers(&self) -> String {
        let documented = matches!(self.flavour, Flavour::Bench | Flavour::Dense);
        let cache = matches!(self.flavour, Flavour::Server | Flavour::Dense);
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
        if cache {
            s.push('\n');
            if documented {
                s.push_str("/// Redis for the generated catalogue.\n");
            }
            s.push_str(
                r#"module cache {
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
            Flavour::Catalogue => "",
            Flavour::Resolve => "big.mesh",
            Flavour::Dense => "dense.mesh",
        }
    }

    /// The mesh: its nodes, the vault's seat, the providers on every node, and service
    /// `i` on node `i % nodes`; none in [`Flavour::Catalogue`].
    pub fn mesh(&self) -> Option<String> {
        let (name, domain) = match self.flavour {
            Flavour::Bench | Flavour::Server => ("bench", "bench.internal"),
            Flavour::Threads => ("many", "internal"),
            Flavour::Dense => ("dense", "dense.internal"),
            Flavour::Catalogue => return None,
            Flavour::Resolve => return Some(self.resolve_mesh()),
        };
        let nodes = self.nodes();
        let last = self.last_port();
        let mut s = format!("mesh {name} {{\n");
        for node in 0..nodes {
            let _ = writeln!(
                s,
                "  node n{node} {{ private_name = \"n{node}.{domain}\"  ports = 20000..{last} }}"
            );
        }
        s.push_str("  seat vault = keeper on n0\n  assign keeper to n0\n");
        for node in 0..nodes {
            let _ = writeln!(s, "  assign pg to n{node}");
            if matches!(self.flavour, Flavour::Server | Flavour::Dense) {
                let _ = writeln!(s, "  assign cache to n{node}");
            }
        }
        for i in 0..self.services {
            let _ = writeln!(s, "  assign {} to n{}", self.service_name(i), i % nodes);
        }
        s.push_str("}\n");
        Some(s)
    }

    /// The last port of every node's range: 10,000 ports from 20000, or twice the
    /// services a node holds when that is more, so that every service and provider finds a
    /// host port at any size (the dense shape puts 10,003 publishing instances on a node at
    /// 100,000 modules). Never past the last port there is: a workload larger still is
    /// refused by the check, port by port, as the operator's would be.
    fn last_port(&self) -> u32 {
        let per_node = self.services.div_ceil(self.nodes()) as u32;
        (20_000 + per_node.saturating_mul(2).max(10_000) - 1).min(65_535)
    }

    /// The mesh `big`: each node with a database, the vault's seat, and service `i` on
    /// node `i % nodes` with `workers = 8`.
    fn resolve_mesh(&self) -> String {
        let nodes = self.nodes();
        let mut mesh = String::from("mesh big {\n");
        for n in 0..nodes {
            let _ = writeln!(
                mesh,
                "  node n{n} {{ private_name = \"n{n}.lab.internal\"  ports = 20000..29999 }}"
            );
            let _ = writeln!(mesh, "  assign pg to n{n}");
        }
        mesh.push_str("  seat vault = keeper on n0\n  assign keeper to n0\n");
        for i in 0..self.services {
            let _ = writeln!(mesh, "  assign m{i} to n{} {{ workers = 8 }}", i % nodes);
        }
        mesh.push_str("}\n");
        mesh
    }

    /// Every file of the workspace, by its path relative to the root, in order: the
    /// services' files, then the providers' and the mesh's where they have files of
    /// their own.
    pub fn files(&self) -> Vec<(String, String)> {
        let mut files: Vec<(String, String)> = Vec::new();
        let mut add = |path: String, text: &str| match files.last_mut() {
            Some((last, held)) if *last == path => held.push_str(text),
            _ => files.push((path, text.to_string())),
        };
        let providers = self.providers();
        // The providers open the file of the services they share it with.
        let shared = providers
            .as_ref()
            .filter(|_| self.flavour == Flavour::Resolve);
        if let Some(text) = shared {
            add(self.providers_file().to_string(), text);
        }
        for i in 0..self.services {
            add(self.service_file(i), &self.service(i));
        }
        if let Some(text) = providers.as_ref().filter(|_| shared.is_none()) {
            add(self.providers_file().to_string(), text);
        }
        if let Some(text) = self.mesh() {
            add(self.mesh_file().to_string(), &text);
        }
        files
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

/// A [`Flavour::Dense`] service: most env values interpolate several references to the
/// module's requirements, as workloads written outside the project tend to.
fn dense_service(i: usize) -> String {
    format!(
        r#"/// Service {i} of the dense catalogue: a web application with a database, a cache
/// and a key.
module svc{i} {{
  /// Where the service keeps its state.
  requires db: module postgres {{ password len 24.. }}
  requires cache: module redis
  requires key: module secret {{ length = 48 }}
  requires here: host node
  requires data: host directory {{ owner = 1000  mode = 0o750 }}
  requires http: host port {{ container = 8080 }}
  requires workers: operator int in 1..64 = 4
  requires title: operator string = "Service {i}"

  container svc{i} {{
    image "ghcr.io/acme/svc{i}:2.{i}.0"
    user 1000
    env {{
      DATABASE_URL = "postgres://${{db.user}}@${{db.host}}:${{db.port}}/${{db.database}}?sslmode=${{db.sslmode}}"
      DB_ADDR = "${{db.host}}:${{db.port}}"
      REDIS_URL = "redis://${{cache.host}}:${{cache.port}}/${{cache.db}}"
      CACHE_ADDR = "${{cache.host}}:${{cache.port}}"
      UPSTREAMS = "${{db.host}}:${{db.port}},${{cache.host}}:${{cache.port}}"
      PUBLIC_ADDR = "${{here.private_name}}:${{http.host_port}}"
      ROOT_URL = "http://${{here.private_name}}:${{http.host_port}}/svc{i}/"
      LISTEN = "0.0.0.0:${{http.container}}"
      DATA_DIR = "/data/${{db.database}}/${{cache.db}}"
      WORKERS = "${{workers}}"
      TITLE = "${{title}} on ${{here.private_name}} with ${{workers}} workers"
      LOG_PREFIX = "svc{i}@${{here.private_name}}:${{http.host_port}} db=${{db.database}} cache=${{cache.db}} key=${{key.length}}"
    }}
    secret "/run/secrets/db_password" owner 1000:1000 mode 0o400 = db.password
    secret "/run/secrets/cache_password" = cache.password
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

fn catalogue_service(i: usize) -> String {
    format!(
        r#"/// Application number {i}, with a database, a cache, a route and mail.
module app{i} {{
  requires data: host directory {{ owner = 1000  mode = 0o750 }}
  requires db: module postgres {{ password len 32.. }}
  requires cache: module redis
  requires http: host port {{ container = 8080 }}
  requires route: module route {{ target = http.host_port }}
  requires key: module secret {{ length = 64 }}
  requires workers: operator int in 1..64 = 4
  requires title: operator string len 1..64 matches "[A-Za-z0-9 ]+" = "App {i}"

  container app{i} {{
    image "ghcr.io/example-org/app{i}:1.{i}.0"
    command ["app", "serve", "--config", "/etc/app/app.ini"]
    user 1000
    env {{
      DB_HOST = "${{db.host}}:${{db.port}}"
      DB_NAME = db.database
      DB_USER = db.user
      DB_PASSWORD_FILE = "/run/secrets/db_password"
      REDIS_ADDR = "${{cache.host}}:${{cache.port}}"
      ROOT_URL = route.url
      WORKERS = workers
      TITLE = title
      DATA_DIR = "/data/app"
    }}
    secret "/run/secrets/db_password" = db.password
    secret "/run/secrets/redis_password" = cache.password
    secret "/run/secrets/key" = key.value
    file "/etc/app/app.ini" mode 0o640 = """
      [server]
      root_url = ${{route.url}}
      workers = ${{workers}}
      [database]
      password = ${{db.password}}
      """
    mount data.path -> "/data"
    publish http
  }}
}}

"#
    )
}

/// The providers of [`Flavour::Resolve`], their containers written on one line.
const COMPACT_PROVIDERS: &str = r#"module pg {
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
"#;

fn resolve_service(i: usize) -> String {
    format!(
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
}}
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{self, Database};
    use std::sync::Arc;

    const ALL: [Flavour; 6] = [
        Flavour::Bench,
        Flavour::Threads,
        Flavour::Server,
        Flavour::Catalogue,
        Flavour::Resolve,
        Flavour::Dense,
    ];

    /// Every flavour is a workspace that checks and resolves without an error, and the
    /// command-line ones without a warning either: a benchmark of it times the work, not
    /// the rendering of diagnostics.
    #[test]
    fn every_flavour_checks_clean() {
        for flavour in ALL {
            let workload = Workload::new(flavour, 245);
            let files: Vec<_> = workload
                .files()
                .into_iter()
                .map(|(path, text)| (path.as_str().into(), Arc::from(text)))
                .collect();
            let (database, ws) = Database::with_files(files);
            let diagnostics = db::workspace_diagnostics(&database, ws);
            let allowed = |d: &crate::diagnostics::Diagnostic| {
                !d.is_error() && matches!(flavour, Flavour::Catalogue | Flavour::Resolve)
            };
            let listed: Vec<_> = diagnostics
                .iter()
                .filter(|d| !allowed(d))
                .map(|d| (d.code, &d.message))
                .collect();
            assert!(listed.is_empty(), "{flavour:?}: {listed:?}");
        }
    }

    /// Each node's range holds a host port for every instance the mesh places on it,
    /// at the largest size the benchmarks ask for (a range of 10,000 ports left 21 of the
    /// dense shape's 100,000 services without one), and stays 20000..29999 where that
    /// is enough, so the 10,000-module workloads are the files they were.
    #[test]
    fn every_node_has_a_port_for_each_instance_it_holds() {
        for flavour in [
            Flavour::Bench,
            Flavour::Threads,
            Flavour::Server,
            Flavour::Dense,
        ] {
            for services in [245, 10_000, 100_000] {
                let workload = Workload::new(flavour, services);
                let mesh = workload.mesh().unwrap();
                let node = mesh.lines().find(|l| l.starts_with("  node n0 ")).unwrap();
                let range = node.split("ports = ").nth(1).unwrap();
                let (first, last) = range.trim_end_matches(" }").split_once("..").unwrap();
                let (first, last): (u32, u32) = (first.parse().unwrap(), last.parse().unwrap());
                let on_n0 = mesh.lines().filter(|l| l.ends_with(" to n0")).count() as u32;
                assert!(
                    last - first + 1 >= on_n0,
                    "{flavour:?} {services}: {node}, {on_n0}"
                );
                if services <= 10_000 {
                    assert_eq!((first, last), (20_000, 29_999), "{flavour:?} {services}");
                }
            }
        }
    }

    #[test]
    fn every_service_is_in_its_file_and_the_mesh_assigns_it_round_the_nodes() {
        for flavour in ALL {
            let workload = Workload::new(flavour, 245);
            let files = workload.files();
            let nodes = workload.nodes();
            let mesh = workload.mesh();
            for i in 0..245 {
                let name = workload.service_name(i);
                let text = workload.service(i);
                assert!(text.contains(&format!("module {name} {{")), "{flavour:?}");
                let file = workload.service_file(i);
                assert!(
                    files.iter().any(|(p, t)| *p == file && t.contains(&text)),
                    "{flavour:?}: {name} in {file}"
                );
                if let Some(mesh) = &mesh {
                    let line = format!("  assign {name} to n{}", i % nodes);
                    let found = mesh
                        .lines()
                        .filter(|l| *l == line || l.starts_with(&format!("{line} {{")));
                    assert_eq!(found.count(), 1, "{flavour:?}: {line}");
                }
            }
            match &mesh {
                Some(mesh) => assert_eq!(mesh.matches("  node n").count(), nodes),
                None => assert_eq!(flavour, Flavour::Catalogue),
            }
            let paths: std::collections::BTreeSet<_> = files.iter().map(|f| &f.0).collect();
            assert_eq!(paths.len(), files.len(), "{flavour:?}: a file twice");
        }
        assert!(
            Workload::new(Flavour::Server, 1)
                .service(0)
                .contains(EDITED)
        );
        assert_eq!(Workload::new(Flavour::Catalogue, 250).files().len(), 3);
    }
}
