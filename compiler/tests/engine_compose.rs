//! `meshc build --target compose` and `meshc render` on a real Docker Engine (LANGUAGE.md
//! §13.7): a small mesh is built, its node rendered from a secrets folder and brought up
//! with `docker-compose`, and everything is asserted from inside the containers: files
//! and secret files with their owner, group, mode and content (sealed ones rendered from
//! the secret), env values as built, mounts where declared, and a consumer reaching its
//! provider by the host and port the manifest gave it. Then everything is torn down.
//!
//! Also: `docker-compose config` accepts every compose file built from the catalogue's
//! meshes. Without an engine (or `docker-compose`) the tests say so and pass, unless
//! `MESHC_REQUIRE_ENGINE` or `CI` is set: then they fail.

#[path = "support/engine.rs"]
mod engine;

use engine::{docker, docker_ok, engine_or_skip, engine_required};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

#[path = "support/command.rs"]
mod command;
#[path = "support/manifest.rs"]
mod manifest;
use command::meshc;
use manifest::instance;

fn ok(out: &Output, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Whether `docker-compose` (v1.29, Debian's package) can be run; without it, fails when
/// an engine is required, else says so.
fn compose_or_skip(test: &str) -> bool {
    let runs = Command::new("docker-compose")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            !engine_required(),
            "{test}: docker-compose cannot be run, and MESHC_REQUIRE_ENGINE or CI is set"
        );
        engine::say_skipped(test, "docker-compose cannot be run; the test did not run");
    }
    runs
}

fn compose(file: &Path, args: &[&str]) -> Output {
    Command::new("docker-compose")
        .arg("-f")
        .arg(file)
        .args(args)
        .output()
        .expect("docker-compose runs")
}

/// Every `env_file` a compose file names (each written by `meshc render` on a node).
fn env_files(yaml: &str) -> Vec<PathBuf> {
    let lines: Vec<&str> = yaml.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim() == "env_file:" {
            for next in &lines[i + 1..] {
                match next.trim().strip_prefix("- ") {
                    Some(p) => out.push(PathBuf::from(p.trim_matches('"'))),
                    None => break,
                }
            }
        }
    }
    out
}

#[test]
fn docker_compose_config_accepts_every_compose_file_of_the_catalogue() {
    if !compose_or_skip("docker_compose_config_accepts_every_compose_file_of_the_catalogue") {
        return;
    }
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let catalogue = repo.join("catalogue");
    let mut checked = 0;
    for mesh in ["lab", "single"] {
        // The mesh is built with its lock from a copy of the catalogue whose roots are a
        // folder of the test, so the env files render would write can be made there.
        let work = tempfile::tempdir().unwrap();
        let root = work.path().join("root");
        let copy = work.path().join("catalogue");
        std::fs::create_dir(&copy).unwrap();
        for entry in std::fs::read_dir(&catalogue).unwrap().flatten() {
            std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
        }
        let mesh_file = copy.join(format!("{mesh}.mesh"));
        let text = std::fs::read_to_string(&mesh_file).unwrap();
        assert!(
            text.contains("root = \"/srv/mesh\""),
            "{mesh}.mesh writes its roots"
        );
        std::fs::write(
            &mesh_file,
            text.replace(
                "root = \"/srv/mesh\"",
                &format!("root = \"{}\"", root.display()),
            ),
        )
        .unwrap();
        let out = work.path().join("out");
        let built = meshc(
            work.path(),
            &[
                "build",
                &mesh_file.display().to_string(),
                &copy.display().to_string(),
                "--out",
                &out.display().to_string(),
                "--target",
                "compose",
                "--locked",
            ],
        );
        ok(&built, &format!("building {mesh}"));
        for entry in std::fs::read_dir(&out).unwrap().flatten() {
            let file = entry.path().join("compose.yaml");
            if !entry.path().is_dir() {
                continue;
            }
            let yaml = std::fs::read_to_string(&file).unwrap();
            for env in env_files(&yaml) {
                assert!(
                    env.starts_with(&root),
                    "{} is under the root",
                    env.display()
                );
                std::fs::create_dir_all(env.parent().unwrap()).unwrap();
                std::fs::write(&env, "").unwrap();
            }
            let config = compose(&file, &["config", "-q"]);
            ok(
                &config,
                &format!("docker-compose config of {}", file.display()),
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 4, "lab's three nodes and single's one");
}

/// Tears the projects, the network and the image down when dropped (and on `run`).
struct Teardown {
    compose_files: Vec<PathBuf>,
    network: Option<String>,
    image: String,
}

impl Teardown {
    fn run(&self) {
        for file in &self.compose_files {
            if file.exists() {
                let _ = compose(file, &["down", "--remove-orphans", "-t", "1"]);
            }
        }
    }
}

impl Drop for Teardown {
    fn drop(&mut self) {
        self.run();
        if let Some(n) = &self.network {
            let _ = docker(&["network", "rm", n]);
        }
        let _ = docker(&["image", "rm", "-f", &self.image]);
    }
}

const MODULES: &str = r#"
contract greeting for module {
  host: hostname
  port: port
  password: secret string
}

/// Serves a folder over HTTP on its private port.
module web {
  requires http: host port { container = 8080 }
  requires here: host node
  requires site: host directory { owner = 0  mode = 0o755 }
  container web {
    image "IMAGE"
    command ["/bin/httpd", "-f", "-p", "8080", "-h", "/www"]
    mount site.path -> "/www"
    publish http
  }
  provides greeting {
    host = here.private_name
    port = http.host_port
  }
}

/// Makes secrets.
module vault {
  container vault {
    image "IMAGE"
  }
  provides secret {}
}

/// Reaches a web server on its own node and one on another, with its files, secrets
/// and env.
module client {
  requires near: module greeting
  requires far: module greeting
  requires token: module secret
  container client {
    image "IMAGE"
    user 1000
    env {
      NEAR_HOST = "${near.host}"
      NEAR_PORT = "${near.port}"
      FAR_HOST = "${far.host}"
      FAR_PORT = "${far.port}"
      GREETING = "hello \"mesh\" $HOME"
      TOKEN = token.value exposed "busybox reads the token from its environment"
    }
    file "/etc/client.conf" = """
      plain = yes
      """
    file "/etc/client.ini" = """
      [db]
      password = ${far.password}
      """
    secret "/run/secrets/web_password" = far.password
  }
}
"#;

/// The secret values, by the key under which each provider keeps them.
const PASSWORD: &str = "p\"a'ss wo$rd\nsecond \\line";
const TOKEN: &str = "tok3nValue42";

/// Inside the client: the address `/etc/hosts` gives host `$1` (busybox-static cannot
/// use the C library's resolver, so the shell reads the file the engine wrote from
/// `extra_hosts`), then the page at that address and port `$2`.
const RESOLVE_AND_GET: &str = r#"
ip=""
while read -r address names; do
  for n in $names; do [ "$n" = "$1" ] && ip="$address"; done
done < /etc/hosts
[ -n "$ip" ] || { echo "no address for $1" >&2; exit 3; }
timeout 5 wget -q -O - "http://$ip:$2/index.html"
"#;

fn exec(container: &str, script: &str) -> String {
    docker_ok(&["exec", container, "/bin/sh", "-c", script])
}

/// The container Compose runs for `service` of project `project` (the compose file fixes
/// no container name: Compose names it after the project, which differs by version).
fn container_of(project: &str, service: &str) -> String {
    let id = docker_ok(&[
        "ps",
        "-aq",
        "--filter",
        &format!("label=com.docker.compose.project={project}"),
        "--filter",
        &format!("label=com.docker.compose.service={service}"),
    ]);
    assert!(
        !id.is_empty() && !id.contains('\n'),
        "one container of {project}/{service}: {id:?}"
    );
    id
}

/// A network of its own, so the machine has an address no other node uses: node B's
/// `private_address`. Returns the network and that address (its gateway).
fn lan(name: &str) -> (String, String) {
    let pid = std::process::id();
    for attempt in 0..20 {
        let octet = 20 + (pid + attempt) % 200;
        let subnet = format!("10.213.{octet}.0/24");
        let gateway = format!("10.213.{octet}.1");
        let o = docker(&[
            "network",
            "create",
            "--subnet",
            &subnet,
            "--gateway",
            &gateway,
            name,
        ]);
        if o.status.success() {
            return (name.to_string(), gateway);
        }
    }
    panic!("no free subnet under 10.213.0.0/16 for the test's network");
}

#[test]
fn built_nodes_run_on_the_engine_as_their_manifests_say() {
    let test = "built_nodes_run_on_the_engine_as_their_manifests_say";
    if !engine_or_skip(test) || !compose_or_skip(test) {
        return;
    }
    let _engine = engine::exclusive();
    let started = Instant::now();
    // Node A declares no private_address (private ports on the gateway of the network its
    // project defines: the engine's own bridge is not 172.17.0.1 everywhere, and in CI it
    // is 172.29.0.1); node B declares the address of a network made for the test.
    let n = std::process::id() % 100_000;
    let (a, b) = (format!("e{n}"), format!("f{n}"));
    let image = format!("meshc-compose-e2e:{a}");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let (root_a, root_b) = (dir.join("root-a"), dir.join("root-b"));
    std::fs::create_dir(&root_a).unwrap();
    std::fs::create_dir(&root_b).unwrap();
    let out = dir.join("out");
    let mut teardown = Teardown {
        compose_files: vec![
            out.join(&a).join("compose.yaml"),
            out.join(&b).join("compose.yaml"),
        ],
        network: None,
        image: image.clone(),
    };
    let (network, address_b) = lan(&format!("{a}-lan"));
    teardown.network = Some(network);
    engine::import_busybox(
        &image,
        &[
            "sh", "sleep", "httpd", "wget", "cat", "stat", "env", "id", "timeout",
        ],
    );
    let low = 30_000 + (std::process::id() % 1_000) * 20;
    std::fs::write(dir.join("modules.mesh"), MODULES.replace("IMAGE", &image)).unwrap();
    std::fs::write(
        dir.join("e2e.mesh"),
        format!(
            r#"mesh e2e {{
  node {a} {{ private_name = "{a}.e2e.internal"  root = "{ra}"  ports = {low}..{a_hi} }}
  node {b} {{ private_name = "{b}.e2e.internal"  private_address = "{address_b}"  root = "{rb}"  ports = {b_lo}..{b_hi} }}
  seat vault = {a}-vault on {a}
  assign vault to {a} as {a}-vault
  assign web to {a} as {a}-web
  assign web to {b} as {b}-web
  assign client to {a} as {a}-client {{
    near from {a}-web on {a}
    far from {b}-web on {b}
  }}
}}
"#,
            ra = root_a.display(),
            rb = root_b.display(),
            a_hi = low + 9,
            b_lo = low + 10,
            b_hi = low + 19,
        ),
    )
    .unwrap();
    let built = meshc(
        dir,
        &[
            "build", "e2e.mesh", ".", "--out", "out", "--target", "compose",
        ],
    );
    ok(&built, "meshc build --target compose");
    let read = |node: &str| -> Value {
        serde_json::from_slice(&std::fs::read(out.join(format!("{node}.json"))).unwrap()).unwrap()
    };
    let (manifest_a, manifest_b) = (read(&a), read(&b));
    let client_instance = instance(&manifest_a, &format!("{a}-client"));
    let client = &client_instance["containers"][0];
    let near = instance(&manifest_a, &format!("{a}-web"));
    let far = instance(&manifest_b, &format!("{b}-web"));

    // The secrets folder: one file per sealed reference, closed to other users.
    let secrets = dir.join("secrets");
    let login = client_instance["login"].as_str().unwrap();
    for (node, by, key, value) in [
        (
            &b,
            format!("{b}-web"),
            format!("{login}/password"),
            PASSWORD,
        ),
        (&a, format!("{a}-vault"), format!("{login}/value"), TOKEN),
    ] {
        let path = secrets.join(node).join(by).join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{value}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o700)).unwrap();

    for (node, root) in [(&a, &root_a), (&b, &root_b)] {
        let rendered = meshc(
            dir,
            &[
                "render",
                &format!("out/{node}.json"),
                "--secrets",
                "secrets",
                "--root",
                &root.display().to_string(),
            ],
        );
        ok(&rendered, &format!("meshc render of {node}"));
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&rendered.stdout),
            String::from_utf8_lossy(&rendered.stderr)
        );
        assert!(!said.contains("tok3n") && !said.contains("wo$rd"), "{said}");
    }

    // The directory requirements were made by render; each page is served from one.
    for (web, page) in [(near, "hello from near\n"), (far, "hello from far\n")] {
        let site = web["requirements"]["site"]["path"].as_str().unwrap();
        std::fs::write(Path::new(site).join("index.html"), page).unwrap();
    }

    for file in &teardown.compose_files {
        ok(&compose(file, &["up", "-d"]), "docker-compose up -d");
    }
    let (project_a, project_b) = (format!("e2e-{a}"), format!("e2e-{b}"));
    for (node, project) in [(&a, &project_a), (&b, &project_b)] {
        assert_eq!(
            std::fs::read_to_string(out.join(node).join(".env")).unwrap(),
            format!("COMPOSE_PROJECT_NAME={project}\n")
        );
    }
    let client_name = &container_of(&project_a, client["name"].as_str().unwrap());
    let near_container = &container_of(&project_a, near["containers"][0]["name"].as_str().unwrap());

    // Files and secret files: owner, group, mode and content, as the manifest declares
    // them (§12.1's defaults: the container's user, its number as the group; a secret
    // file 0440 when the manifest writes no mode).
    let stat = |path: &str| exec(client_name, &format!("stat -c '%u %g %a' {path}"));
    let declared = |list: &str, target: &str, default_mode: &str| -> String {
        let f = client[list]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["target"] == target)
            .unwrap_or_else(|| panic!("{target} is declared"));
        let owner = f["owner"].as_i64().unwrap_or(1000);
        let group = f["group"].as_i64().unwrap_or(owner);
        let mode = f["mode"].as_str().unwrap_or(default_mode);
        format!("{owner} {group} {}", mode.trim_start_matches('0'))
    };
    assert_eq!(
        stat("/run/secrets/web_password"),
        declared("secrets", "/run/secrets/web_password", "0440")
    );
    assert_eq!(
        exec(client_name, "cat /run/secrets/web_password; echo '|'"),
        format!("{PASSWORD}|")
    );
    assert_eq!(
        stat("/etc/client.conf"),
        declared("files", "/etc/client.conf", "")
    );
    let plain = client["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["target"] == "/etc/client.conf")
        .unwrap();
    assert_eq!(
        exec(client_name, "cat /etc/client.conf; echo '|'"),
        format!("{}|", plain["content"].as_str().unwrap())
    );
    assert_eq!(
        stat("/etc/client.ini"),
        declared("files", "/etc/client.ini", "")
    );
    assert_eq!(
        exec(client_name, "cat /etc/client.ini; echo '|'"),
        format!("[db]\npassword = {PASSWORD}\n|")
    );
    assert_eq!(exec(client_name, "id -u"), "1000");

    // Env as built, the exposed secret from the env file render wrote.
    let env = exec(client_name, "env");
    for (k, v) in client["env"].as_object().unwrap() {
        if let Some(v) = v.as_str() {
            assert!(
                env.lines().any(|l| l == format!("{k}={v}")),
                "{k}={v} in {env}"
            );
        }
    }
    assert!(
        env.lines().any(|l| l == "GREETING=hello \"mesh\" $HOME"),
        "{env}"
    );
    assert!(env.lines().any(|l| l == format!("TOKEN={TOKEN}")), "{env}");

    // The mount where declared, with the directory's owner and mode.
    assert_eq!(
        exec(near_container, "stat -c '%u %a' /www; cat /www/index.html"),
        "0 755\nhello from near"
    );

    // The consumer reaches each provider by the host and port its manifest gave it: the
    // one on its own node through the gateway of node A's own network, the one on node B
    // through B's private_address, both by private name.
    for (prefix, web, node, page) in [
        ("NEAR", near, &a, "hello from near\n"),
        ("FAR", far, &b, "hello from far\n"),
    ] {
        let host = client["env"][format!("{prefix}_HOST")].as_str().unwrap();
        let port = client["env"][format!("{prefix}_PORT")].as_str().unwrap();
        assert_eq!(host, format!("{node}.e2e.internal"));
        assert_eq!(port, web["requirements"]["http"]["host_port"].to_string());
        let deadline = Instant::now() + Duration::from_secs(20);
        let reached = loop {
            let o = docker(&[
                "exec",
                client_name,
                "/bin/sh",
                "-c",
                RESOLVE_AND_GET,
                "get",
                host,
                port,
            ]);
            if o.status.success() || Instant::now() > deadline {
                break o;
            }
            std::thread::sleep(Duration::from_millis(300));
        };
        ok(&reached, &format!("the client reaching {host}:{port}"));
        assert_eq!(String::from_utf8_lossy(&reached.stdout), page);
    }
    let hosts = exec(client_name, "cat /etc/hosts");
    assert!(
        hosts.lines().any(|l| l
            .split_whitespace()
            .eq([address_b.as_str(), &format!("{b}.e2e.internal")])),
        "{hosts}"
    );
    // Node A's name maps to the gateway the engine gave node A's network: an address the
    // engine made, not one assumed.
    let gateway_a = docker_ok(&[
        "network",
        "inspect",
        "--format",
        "{{range .IPAM.Config}}{{.Gateway}}{{end}}",
        &format!("{project_a}_mesh-gateway"),
    ]);
    assert!(
        hosts.lines().any(|l| l
            .split_whitespace()
            .eq([gateway_a.as_str(), &format!("{a}.e2e.internal")])),
        "{gateway_a}: {hosts}"
    );
    // Every container carries its digest label, and its logs are bounded.
    let inspected = docker_ok(&[
        "inspect",
        "--format",
        "{{index .Config.Labels \"mesh.digest\"}} {{.HostConfig.LogConfig.Type}} {{index .HostConfig.LogConfig.Config \"max-size\"}}",
        client_name,
    ]);
    assert!(
        inspected.starts_with("sha256:") && inspected.ends_with(" json-file 10m"),
        "{inspected}"
    );

    // Torn down: nothing of either project is left.
    teardown.run();
    for project in [&project_a, &project_b] {
        let left = docker_ok(&[
            "ps",
            "-a",
            "--filter",
            &format!("label=com.docker.compose.project={project}"),
            "--format",
            "{{.Names}}",
        ]);
        assert_eq!(left, "", "containers of {project} left after down");
        let networks = docker_ok(&[
            "network",
            "ls",
            "--filter",
            &format!("label=com.docker.compose.project={project}"),
            "--format",
            "{{.Name}}",
        ]);
        assert_eq!(networks, "", "networks of {project} left after down");
    }
    drop(teardown);
    eprintln!(
        "{test}: build, render, up, assertions and teardown in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

/// An engine time (RFC 3339 in UTC, its fraction with trailing zeros dropped) written
/// so that text order is time order: the fraction padded to nine digits.
fn instant(t: &str) -> String {
    let t = t.trim().trim_matches('"').trim_end_matches('Z');
    let (seconds, fraction) = t.split_once('.').unwrap_or((t, ""));
    assert!(
        seconds.len() == 19 && fraction.len() <= 9,
        "an engine time in UTC: {t:?}"
    );
    format!("{seconds}.{fraction:0<9}")
}

/// LANGUAGE.md §14.1 and §14.3 on a real engine: a plain `up -d` of one node starts a
/// container with `health` first, its module's job once it is healthy (`after`), and the
/// consumer on the same node only once the job completed and the provider is healthy
/// (the same-node rule); the job exits 0 and stays exited (`restart: on-failure`); the
/// consumer runs as `UID:GID`. Asserted with the engine's own start and finish times and
/// health log, never with sleeps.
#[test]
fn a_node_starts_in_the_order_its_health_jobs_and_providers_say() {
    let test = "a_node_starts_in_the_order_its_health_jobs_and_providers_say";
    if !engine_or_skip(test) || !compose_or_skip(test) {
        return;
    }
    let _engine = engine::exclusive();
    let n = std::process::id() % 100_000;
    let node = format!("o{n}");
    let image = format!("meshc-compose-order:{node}");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let out = dir.join("out");
    let teardown = Teardown {
        compose_files: vec![out.join(&node).join("compose.yaml")],
        network: None,
        image: image.clone(),
    };
    engine::import_busybox(&image, &["sh", "sleep", "httpd", "true"]);
    let low = 40_000 + (std::process::id() % 1_000) * 10;
    std::fs::write(
        dir.join("order.mesh"),
        format!(
            r#"contract store for module {{
  host: hostname
}}

module db {{
  requires http: host port {{ container = 8080 }}
  requires here: host node
  container server {{
    image "{image}"
    command ["/bin/httpd", "-f", "-p", "8080", "-h", "/"]
    health ["/bin/sh", "-c", "sleep 1"] every "1s" retries 5
    publish http
  }}
  job provision {{
    image "{image}"
    after server
    command ["/bin/sh", "-c", "sleep 1"]
  }}
  provides store {{
    host = here.private_name
  }}
}}

module app {{
  requires db: module store
  container app {{
    image "{image}"
    user 1000:2000
    env {{
      DB = "${{db.host}}"
    }}
  }}
}}

mesh order {{
  node {node} {{ private_name = "{node}.order.internal"  ports = {low}..{hi} }}
  assign db to {node}
  assign app to {node}
}}
"#,
            hi = low + 9,
        ),
    )
    .unwrap();
    let built = meshc(
        dir,
        &[
            "build",
            "order.mesh",
            ".",
            "--out",
            "out",
            "--target",
            "compose",
        ],
    );
    ok(&built, "meshc build --target compose");
    let file = &teardown.compose_files[0];
    ok(&compose(file, &["up", "-d"]), "docker-compose up -d");
    let project = format!("order-{node}");
    let state = |service: &str, format: &str| -> String {
        docker_ok(&[
            "inspect",
            "--format",
            format,
            &container_of(&project, service),
        ])
    };
    let time =
        |service: &str, what: &str| -> String { state(service, &format!("{{{{.State.{what}}}}}")) };
    // RFC 3339 with nanoseconds, all in UTC: compared as text.
    let healthy_at = {
        let log = state(
            "db-server",
            "{{range .State.Health.Log}}{{if eq .ExitCode 0}}{{json .End}} {{end}}{{end}}",
        );
        instant(
            log.split_whitespace()
                .next()
                .unwrap_or_else(|| panic!("the server became healthy: {log:?}")),
        )
    };
    let (provision_start, provision_end) = (
        time("db-provision", "StartedAt"),
        time("db-provision", "FinishedAt"),
    );
    let app_start = time("app", "StartedAt");
    assert!(
        healthy_at < provision_start,
        "the job started ({provision_start}) before the server was healthy ({healthy_at})"
    );
    assert!(
        provision_end < app_start,
        "the consumer started ({app_start}) before the job completed ({provision_end})"
    );
    assert_eq!(
        state(
            "db-provision",
            "{{.State.Status}} {{.State.ExitCode}} {{.RestartCount}}"
        ),
        "exited 0 0"
    );
    assert_eq!(state("app", "{{.Config.User}}"), "1000:2000");
    drop(teardown);
}
