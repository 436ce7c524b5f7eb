//! Day two on a real Docker Engine (issue 35): two nodes on one engine, each brought up
//! and then changed with `meshc secrets` and `meshc apply` alone, asserted from inside
//! the containers and from the engine's own events.
//!
//! Act one: a provider with a health check and a provisioning job, and its consumer, on
//! node A; a keeper holding an operator secret on A. The consumer starts only once its
//! same-node provider is healthy (the engine's events, not sleeps); the job runs once and
//! a second apply does not start it again.
//!
//! Act two: the provider moves to node B, the consumer is renamed, the keeper's secret
//! value rotates. After `meshc apply` on each node: the new consumer reads its password
//! and reaches the provider on B; nothing retired runs on A or answers on its old port;
//! the retired instances' networks are gone; the keeper was recreated and reads the new
//! value; the moved provider's job ran once on B.
//!
//! Without an engine or Compose the test says so and passes, unless `MESHC_REQUIRE_ENGINE`
//! or `CI` is set.

#[path = "support/engine.rs"]
mod engine;
use engine::{docker, docker_ok, engine_or_skip, engine_required};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

#[path = "support/command.rs"]
mod command;
use command::{meshc, said};

const MODULES: &str = r#"
contract greeting for module {
  host: hostname
  port: port
  password: secret string
}

/// Serves a folder, healthy once it is ready; its job provisions the folder.
module web {
  requires http: host port { container = 8080 }
  requires here: host node
  requires site: host directory { owner = 0  mode = 0o755 }
  container web {
    image "IMAGE"
    command ["/bin/sh", "-c", "mkdir -p /tmp; sleep 2; touch /tmp/ready; exec /bin/httpd -f -p 8080 -h /www"]
    mount site.path -> "/www"
    publish http
    health ["/bin/test", "-f", "/tmp/ready"] every "1s" retries 30
  }
  job setup {
    image "IMAGE"
    mount site.path -> "/www"
    command ["/bin/sh", "-c", "echo ran >> /www/setup.log; echo served > /www/index.html"]
  }
  provides greeting {
    host = here.private_name
    port = http.host_port
  }
}

/// Reads the provider's password and reaches it.
module client {
  requires web: module greeting
  container client {
    image "IMAGE"
    user 1000
    env {
      WEB_HOST = "${web.host}"
      WEB_PORT = "${web.port}"
    }
    secret "/run/secrets/web_password" = web.password
  }
}

/// Makes secrets; keeps the operator's.
module vault {
  container vault { image "IMAGE" }
  provides secret {}
}

/// Holds a value only the operator gives.
module keeper {
  requires token: operator secret string
  container keeper {
    image "IMAGE"
    user 1000
    secret "/run/secrets/token" = token
  }
}
"#;

/// Inside a container: the address `/etc/hosts` gives host `$1`, then the page at that
/// address and port `$2` (busybox-static cannot use the C library's resolver).
const RESOLVE_AND_GET: &str = r#"
ip=""
while read -r address names; do
  for n in $names; do [ "$n" = "$1" ] && ip="$address"; done
done < /etc/hosts
[ -n "$ip" ] || { echo "no address for $1" >&2; exit 3; }
timeout 5 wget -q -O - "http://$ip:$2/index.html"
"#;

fn compose_or_skip(test: &str) -> bool {
    let runs = std::process::Command::new("docker-compose")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success())
        || std::process::Command::new("docker")
            .args(["compose", "version"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !runs {
        assert!(
            !engine_required(),
            "{test}: no Docker Compose runs, and MESHC_REQUIRE_ENGINE or CI is set"
        );
        eprintln!("{test}: no Docker Compose runs; the test did not run");
    }
    runs
}

fn ok(out: &Output, what: &str) {
    assert_eq!(out.status.code(), Some(0), "{what}: {}", said(out));
}

/// Tears the projects, the network and the image down when dropped.
struct Teardown {
    projects: Vec<PathBuf>,
    network: Option<String>,
    image: String,
}

impl Drop for Teardown {
    fn drop(&mut self) {
        for file in &self.projects {
            if file.exists() {
                let _ = std::process::Command::new("docker-compose")
                    .args([
                        "-f",
                        &file.display().to_string(),
                        "down",
                        "--remove-orphans",
                        "-t",
                        "1",
                    ])
                    .output();
            }
        }
        if let Some(n) = &self.network {
            let _ = docker(&["network", "rm", n]);
        }
        let _ = docker(&["image", "rm", "-f", &self.image]);
    }
}

fn lan(name: &str) -> (String, String) {
    let pid = std::process::id();
    for attempt in 0..20 {
        let octet = 20 + (pid + attempt + 101) % 200;
        let subnet = format!("10.214.{octet}.0/24");
        let gateway = format!("10.214.{octet}.1");
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
    panic!("no free subnet under 10.214.0.0/16 for the test's network");
}

fn exec(container: &str, script: &str) -> String {
    docker_ok(&["exec", container, "/bin/sh", "-c", script])
}

/// Waits (polling the engine, at most a minute) until `container` has exited.
fn exited(container: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = docker_ok(&[
            "inspect",
            "-f",
            "{{.State.Status}} {{.State.ExitCode}}",
            container,
        ]);
        if s.starts_with("exited") || Instant::now() > deadline {
            return s;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The container of service `service` in the Compose project of `node` (named by the
/// `.env` beside its compose file), or an empty string.
fn container(out: &Path, node: &str, service: &str) -> String {
    let env = std::fs::read_to_string(out.join(node).join(".env")).unwrap();
    let project = env
        .lines()
        .find_map(|l| l.strip_prefix("COMPOSE_PROJECT_NAME="))
        .unwrap()
        .trim()
        .to_string();
    docker_ok(&[
        "ps",
        "-a",
        "-q",
        "--no-trunc",
        "--filter",
        &format!("label=com.docker.compose.project={project}"),
        "--filter",
        &format!("label=com.docker.compose.service={service}"),
    ])
}

/// The engine's events of `container` since `since` (a Unix time), as (time in
/// nanoseconds, status) pairs.
fn events(container: &str, since: u64) -> Vec<(u128, String)> {
    let until = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 1;
    docker_ok(&[
        "events",
        "--since",
        &since.to_string(),
        "--until",
        &until.to_string(),
        "--filter",
        &format!("container={container}"),
        "--format",
        "{{.TimeNano}} {{.Status}}",
    ])
    .lines()
    .filter_map(|l| l.split_once(' '))
    .map(|(t, s)| (t.parse().unwrap_or(0), s.to_string()))
    .collect()
}

fn login<'a>(manifest: &'a Value, instance: &str) -> &'a str {
    manifest["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["instance"] == instance)
        .unwrap_or_else(|| panic!("no instance {instance}"))["login"]
        .as_str()
        .unwrap()
}

fn named<'a>(manifest: &'a Value, instance: &str, container: &str) -> &'a Value {
    manifest["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["instance"] == instance)
        .unwrap_or_else(|| panic!("no instance {instance}"))["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().ends_with(container))
        .unwrap_or_else(|| panic!("no container {container} in {instance}"))
}

#[test]
fn a_second_apply_converges_every_change_on_the_engine() {
    let test = "a_second_apply_converges_every_change_on_the_engine";
    if !engine_or_skip(test) || !compose_or_skip(test) {
        return;
    }
    let _engine = engine::exclusive();
    let started = Instant::now();
    let n = std::process::id() % 100_000;
    let (a, b) = (format!("ga{n}"), format!("gb{n}"));
    let image = format!("meshc-apply-e2e:{a}");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let (root_a, root_b) = (dir.join("root-a"), dir.join("root-b"));
    std::fs::create_dir(&root_a).unwrap();
    std::fs::create_dir(&root_b).unwrap();
    let out = dir.join("out");
    let mut teardown = Teardown {
        projects: vec![
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
            "sh", "sleep", "httpd", "wget", "cat", "test", "touch", "echo", "timeout", "wc",
        ],
    );
    std::fs::write(dir.join("modules.mesh"), MODULES.replace("IMAGE", &image)).unwrap();
    let low = 40_000 + (std::process::id() % 1_000) * 20;
    let mesh = |assigns: &str| {
        std::fs::write(
            dir.join("m.mesh"),
            format!(
                "mesh ap{n} {{\n  node {a} {{ private_name = \"{a}.ap.internal\"  root = \"{ra}\"  ports = {low}..{a_hi} }}\n  node {b} {{ private_name = \"{b}.ap.internal\"  private_address = \"{address_b}\"  root = \"{rb}\"  ports = {b_lo}..{b_hi} }}\n{assigns}}}\n",
                ra = root_a.display(),
                rb = root_b.display(),
                a_hi = low + 9,
                b_lo = low + 10,
                b_hi = low + 19,
            ),
        )
        .unwrap();
        ok(
            &meshc(
                dir,
                &[
                    "build", "m.mesh", ".", "--out", "out", "--target", "compose",
                ],
            ),
            "meshc build",
        );
        let read = |node: &str| -> Value {
            serde_json::from_slice(&std::fs::read(out.join(format!("{node}.json"))).unwrap())
                .unwrap()
        };
        (read(&a), read(&b))
    };
    let secrets = || {
        meshc(
            dir,
            &[
                "secrets",
                &format!("out/{a}.json"),
                &format!("out/{b}.json"),
                "--secrets",
                "secrets",
            ],
        )
    };
    let apply = |node: &str, root: &Path| -> String {
        let o = meshc(
            dir,
            &[
                "apply",
                &format!("out/{node}.json"),
                "--secrets",
                "secrets",
                "--root",
                &root.display().to_string(),
            ],
        );
        ok(&o, &format!("meshc apply of {node}"));
        said(&o)
    };

    // Act one.
    let (m_a, _) = mesh(&format!(
        "  assign web to {a} as {a}-web\n  assign client to {a} as {a}-client\n  assign keeper to {a} as {a}-keeper\n  seat vault = {a}-vault on {a}\n  assign vault to {a} as {a}-vault\n"
    ));
    let o = secrets();
    assert_eq!(
        o.status.code(),
        Some(1),
        "the keeper's token is the operator's: {}",
        said(&o)
    );
    // Where the operator writes it, as `meshc secrets` lists it.
    let listed = meshc(
        dir,
        &[
            "secrets",
            &format!("out/{a}.json"),
            &format!("out/{b}.json"),
            "--secrets",
            "secrets",
            "--format",
            "json",
        ],
    );
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert_eq!(listed["operator"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(
        listed["operator"][0]["login"],
        login(&m_a, &format!("{a}-keeper"))
    );
    let token = dir.join(listed["operator"][0]["file"].as_str().unwrap());
    let write_token = |value: &str| {
        std::fs::write(&token, value).unwrap();
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    };
    std::fs::create_dir_all(token.parent().unwrap()).unwrap();
    write_token("first token");
    ok(&secrets(), "meshc secrets, every value in place");
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        - 1;
    let text = apply(&a, &root_a);
    assert!(text.contains("up -d --remove-orphans"), "{text}");
    let web_a = named(&m_a, &format!("{a}-web"), "-web")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let job_a = named(&m_a, &format!("{a}-web"), "-setup")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let client_a = named(&m_a, &format!("{a}-client"), "client")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let keeper = named(&m_a, &format!("{a}-keeper"), "keeper")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let on_a = |service: &str| container(&out, &a, service);
    let on_b = |service: &str| container(&out, &b, service);
    assert_eq!(exited(&on_a(&job_a)), "exited 0");
    // The consumer started only once its same-node provider was healthy.
    let healthy = events(&on_a(&web_a), since)
        .into_iter()
        .find(|(_, s)| s.contains("health_status: healthy"))
        .map(|(t, _)| t)
        .expect("the provider became healthy");
    let client_start = events(&on_a(&client_a), since)
        .into_iter()
        .find(|(_, s)| s == "start")
        .map(|(t, _)| t)
        .expect("the consumer started");
    assert!(
        client_start > healthy,
        "consumer started at {client_start}, provider healthy at {healthy}"
    );
    let password_a = std::fs::read_to_string(
        dir.join(format!("secrets/{a}/{a}-web"))
            .join(login(&m_a, &format!("{a}-client")))
            .join("password"),
    )
    .unwrap();
    assert_eq!(
        exec(&on_a(&client_a), "cat /run/secrets/web_password"),
        password_a.trim_end()
    );
    assert_eq!(
        exec(&on_a(&keeper), "cat /run/secrets/token"),
        "first token"
    );
    let web_port_a = exec(&on_a(&client_a), "echo $WEB_PORT");
    // Where the provider answers on A, as the consumer reached it: asked now, and again
    // (from the consumer that replaced it) once the provider has moved away.
    let address_a = exec(
        &on_a(&client_a),
        &format!(
            "while read -r address names; do for n in $names; do [ \"$n\" = {a}.ap.internal ] && echo \"$address\"; done; done < /etc/hosts; true"
        ),
    );
    let old_url = format!("http://{address_a}:{web_port_a}/index.html");
    let answers = |container: String| {
        docker(&[
            "exec",
            &container,
            "/bin/sh",
            "-c",
            &format!("timeout 5 wget -q -O - {old_url}"),
        ])
    };
    let o = answers(on_a(&client_a));
    assert!(o.status.success(), "{old_url}: {}", said(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), "served\n");
    let site_a = m_a["instances"][0]["requirements"]["site"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        std::fs::read_to_string(Path::new(&site_a).join("setup.log")).unwrap(),
        "ran\n"
    );
    // A second apply of the same mesh: the job that completed is not started again.
    let text = apply(&a, &root_a);
    assert!(text.contains("completed for its digest"), "{text}");
    assert_eq!(exited(&on_a(&job_a)), "exited 0");
    assert_eq!(
        std::fs::read_to_string(Path::new(&site_a).join("setup.log")).unwrap(),
        "ran\n"
    );
    let keeper_id = on_a(&keeper);

    // Act two: the provider moves to B, the consumer is renamed, the token rotates.
    let (m_a2, m_b2) = mesh(&format!(
        "  assign web to {b} as {b}-web\n  assign client to {a} as {a}-reader {{ web from {b}-web on {b} }}\n  assign keeper to {a} as {a}-keeper\n  seat vault = {a}-vault on {a}\n  assign vault to {a} as {a}-vault\n"
    ));
    ok(&secrets(), "meshc secrets after the change");
    write_token("second token");
    let text_b = apply(&b, &root_b);
    let text_a = apply(&a, &root_a);
    let reader = named(&m_a2, &format!("{a}-reader"), "reader")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let web_b = named(&m_b2, &format!("{b}-web"), "-web")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let job_b = named(&m_b2, &format!("{b}-web"), "-setup")["name"]
        .as_str()
        .unwrap()
        .to_string();
    // Every change arrived.
    let reader_login = login(&m_a2, &format!("{a}-reader"));
    let password_b =
        std::fs::read_to_string(dir.join(format!("secrets/{b}/{b}-web/{reader_login}/password")))
            .unwrap();
    assert_eq!(
        exec(&on_a(&reader), "cat /run/secrets/web_password"),
        password_b.trim_end()
    );
    assert_eq!(exited(&on_b(&job_b)), "exited 0");
    let site_b = m_b2["instances"][0]["requirements"]["site"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        std::fs::read_to_string(Path::new(&site_b).join("setup.log")).unwrap(),
        "ran\n"
    );
    let host_b = exec(&on_a(&reader), "echo $WEB_HOST");
    let port_b = exec(&on_a(&reader), "echo $WEB_PORT");
    assert_eq!(
        exec(
            &on_a(&reader),
            &format!("set -- {host_b} {port_b}\n{RESOLVE_AND_GET}")
        ),
        "served"
    );
    assert_eq!(
        exec(&on_a(&keeper), "cat /run/secrets/token"),
        "second token",
        "{text_a}"
    );
    assert_ne!(on_a(&keeper), keeper_id, "recreated");
    // Nothing retired runs, nor answers on its old port.
    for gone in [&web_a, &job_a, &client_a] {
        assert!(
            on_a(gone).is_empty(),
            "`{gone}` still exists after apply: {text_a}"
        );
    }
    let o = answers(on_a(&reader));
    assert!(
        !o.status.success(),
        "the moved provider still answers at {old_url}: {}",
        said(&o)
    );
    // The retired instances' networks are gone, but one the new mesh still names (a
    // login is made from the node, the module and the instance's first characters, so
    // the renamed consumer may keep its network).
    let still: Vec<&str> = m_a2["instances"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["containers"].as_array().unwrap())
        .flat_map(|c| c["networks"].as_array().unwrap())
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    let mut retired = 0;
    for (instance, container) in [
        (format!("{a}-web"), "-web"),
        (format!("{a}-client"), "client"),
    ] {
        for net in named(&m_a, &instance, container)["networks"]
            .as_array()
            .unwrap()
        {
            let name = net["name"].as_str().unwrap();
            if still.contains(&name) {
                continue;
            }
            retired += 1;
            assert!(
                !docker(&["network", "inspect", name]).status.success(),
                "network `{name}` is left: {text_a}"
            );
        }
    }
    assert!(retired >= 1, "the moved provider's network is retired");
    for text in [&text_a, &text_b] {
        assert!(
            !text.contains("second token") && !text.contains(password_b.trim_end()),
            "{text}"
        );
    }
    drop(teardown);
    for c in [&reader, &keeper] {
        assert!(on_a(c).is_empty(), "`{c}` left after teardown");
    }
    for c in [&web_b, &job_b] {
        assert!(on_b(c).is_empty(), "`{c}` left after teardown");
    }
    eprintln!("{test}: {:.1} s", started.elapsed().as_secs_f64());
}
