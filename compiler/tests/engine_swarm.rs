//! `--target swarm` on a real two-node Docker Swarm (LANGUAGE.md §14.4): two engines, each
//! in network namespaces of its own, joined as a manager and a worker by
//! `support/swarm.sh`. Without the privileges to make them the tests say so and pass,
//! unless `MESHC_REQUIRE_ENGINE` or `CI` is set: then they fail.

#[path = "support/swarm.rs"]
mod swarm;

#[path = "support/command.rs"]
mod command;
#[path = "support/manifest.rs"]
mod manifest;

use command::meshc;
use manifest::instance;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};
use swarm::Swarm;

fn ok(out: &Output, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The reach docs/swarm.md designs, on a stack written by hand: a host-mode port is bound
/// to its node's private address only (the node's `docker_gwbridge` says so), so a task on
/// the other node reaches it there and nothing reaches it on the node's loopback; a secret
/// and a config keep their owner, group and mode; placement follows the node labels.
#[test]
fn the_two_node_swarm_places_binds_and_reaches_as_designed() {
    let test = "the_two_node_swarm_places_binds_and_reaches_as_designed";
    let Some(swarm) = Swarm::up(test) else {
        return;
    };
    let image = "meshc-swarm-hand:1";
    swarm.import_busybox(image, &["sh", "nc", "cat", "stat", "id", "sleep", "echo"]);
    for (node, label) in [(&swarm.a, "alpha"), (&swarm.b, "beta")] {
        swarm.a.docker_ok(&[
            "node",
            "update",
            "--label-add",
            &format!("mesh.node={label}"),
            &node.name,
        ]);
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pw"), "s3cret").unwrap();
    std::fs::write(dir.path().join("conf"), "hello\n").unwrap();
    std::fs::write(
        dir.path().join("stack.yaml"),
        format!(
            r#"version: "3.8"
services:
  prov:
    image: "{image}"
    command: ["/bin/sh", "-c", "while true; do echo pong | nc -l -p 5432; done"]
    user: "1000:1000"
    stop_grace_period: 1s
    ports:
      - {{target: 5432, published: 15432, protocol: tcp, mode: host}}
    deploy:
      endpoint_mode: dnsrr
      placement: {{constraints: ["node.labels.mesh.node == alpha"]}}
    secrets:
      - {{source: pw, target: /run/secrets/pw, uid: "1000", gid: "1001", mode: 0400}}
    configs:
      - {{source: conf, target: /etc/conf, uid: "1000", gid: "1000", mode: 0440}}
    networks: [mesh]
  cons:
    image: "{image}"
    stop_grace_period: 1s
    deploy:
      endpoint_mode: dnsrr
      placement: {{constraints: ["node.labels.mesh.node == beta"]}}
    networks: [mesh]
networks:
  mesh: {{driver: overlay}}
secrets:
  pw: {{file: ./pw}}
configs:
  conf: {{file: ./conf}}
"#
        ),
    )
    .unwrap();
    let deployed = std::process::Command::new("docker")
        .current_dir(dir.path())
        .args(["-H", &format!("unix://{}", swarm.a.sock)])
        .args([
            "stack",
            "deploy",
            "--resolve-image=never",
            "-c",
            "stack.yaml",
            "hand",
        ])
        .output()
        .unwrap();
    assert!(
        deployed.status.success(),
        "{}",
        String::from_utf8_lossy(&deployed.stderr)
    );
    let wait = Duration::from_secs(60);
    let prov = swarm.a.task_container("hand_prov", wait);
    let cons = swarm.b.task_container("hand_cons", wait);
    assert_eq!(
        swarm.a.docker_ok(&[
            "exec",
            &prov,
            "sh",
            "-c",
            "id -u; id -g; stat -c '%u %g %a' /run/secrets/pw /etc/conf; cat /run/secrets/pw; echo; cat /etc/conf"
        ]),
        "1000\n1000\n1000 1001 400\n1000 1000 440\ns3cret\nhello"
    );
    // Across nodes, at node A's private address.
    let reach = |node: &swarm::Node, container: &str, host: &str| {
        node.docker(&[
            "exec",
            container,
            "sh",
            "-c",
            &format!("echo | nc -w 3 {host} 15432"),
        ])
    };
    let mut reached = reach(&swarm.b, &cons, &swarm.a.addr);
    for _ in 0..20 {
        if reached.status.success() {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
        reached = reach(&swarm.b, &cons, &swarm.a.addr);
    }
    assert_eq!(
        String::from_utf8_lossy(&reached.stdout).trim(),
        "pong",
        "{}",
        String::from_utf8_lossy(&reached.stderr)
    );
    // Bound to that address only: not on node A's loopback.
    let listening = swarm.a.on_host("ss", &["-Hltn", "sport = :15432"]);
    let listening = String::from_utf8_lossy(&listening.stdout).to_string();
    let bound: Vec<&str> = listening
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3))
        .collect();
    assert_eq!(bound, [format!("{}:15432", swarm.a.addr)], "{listening}");
    let loopback = swarm
        .a
        .on_host("/bin/busybox", &["nc", "-w", "2", "127.0.0.1", "15432"]);
    assert!(!loopback.status.success(), "reached on loopback");
}

const MODULES: &str = r#"
contract greeting for module {
  host: hostname
  port: port
  password: secret string
}

/// Answers each connection on its private port with a line naming it.
module web {
  requires http: host port { container = 8080 }
  requires here: host node
  requires says: operator string
  container web {
    image "IMAGE"
    command ["/bin/sh", "-c", "while true; do echo ${says} | nc -l -p 8080; done"]
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

/// Reaches a web server on its own node and one on the other, with its files, secrets
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

const PASSWORD: &str = "p\"a'ss wo$rd\nsecond \\line";
const ROTATED: &str = "a new password";
const TOKEN: &str = "tok3nValue42";

/// Inside a task: the address `/etc/hosts` gives host `$1` (busybox-static cannot use the
/// C library's resolver; the engine wrote the file from `extra_hosts`), then the line
/// served at that address and port `$2`.
const RESOLVE_AND_READ: &str = r#"
ip=""
while read -r address names; do
  for n in $names; do [ "$n" = "$1" ] && ip="$address"; done
done < /etc/hosts
[ -n "$ip" ] || { echo "no address for $1" >&2; exit 3; }
echo | nc -w 3 "$ip" "$2"
"#;

fn mesh_text(swarm: &Swarm, with_extra: bool) -> String {
    format!(
        r#"mesh e2e {{
  node alpha {{ private_name = "alpha.e2e.internal"  private_address = "{a}"  ports = 21000..21009 }}
  node beta {{ private_name = "beta.e2e.internal"  private_address = "{b}"  ports = 21010..21019 }}
  seat vault = alpha-vault on alpha
  assign vault to alpha as alpha-vault
  assign web to alpha as alpha-web {{ says = "hello-from-near" }}
  assign web to beta as beta-web {{ says = "hello-from-far" }}
{extra}  assign client to alpha as alpha-client {{
    near from alpha-web on alpha
    far from beta-web on beta
  }}
}}
"#,
        a = swarm.a.addr,
        b = swarm.b.addr,
        extra = if with_extra {
            "  assign web to beta as spare { says = \"extra\" }\n"
        } else {
            ""
        }
    )
}

/// `meshc render --swarm`, then `docker stack deploy` on the manager with the variables
/// of the `stack.env` it wrote, as docs/swarm.md says.
fn render_and_deploy(swarm: &Swarm, dir: &Path) {
    let rendered = meshc(dir, &command::RENDER_SWARM);
    ok(&rendered, "meshc render --swarm");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&rendered.stdout),
        String::from_utf8_lossy(&rendered.stderr)
    );
    assert!(
        !said.contains("tok3n") && !said.contains("wo$rd") && !said.contains(ROTATED),
        "{said}"
    );
    let env = std::fs::read_to_string(dir.join("stage/stack.env")).unwrap();
    let mut deploy = std::process::Command::new("docker");
    deploy
        .current_dir(dir)
        .args(["-H", &format!("unix://{}", swarm.a.sock)])
        .args([
            "stack",
            "deploy",
            "--resolve-image=never",
            "--prune",
            "-c",
            "out/swarm/stack.yaml",
            "e2e",
        ]);
    for line in env.lines() {
        let (k, v) = line.split_once('=').unwrap();
        deploy.env(k, v.trim_matches('\''));
    }
    ok(&deploy.output().unwrap(), "docker stack deploy");
}

/// Waits until `check` holds, up to `within`; its last answer.
fn eventually(within: Duration, mut check: impl FnMut() -> Option<String>) -> Option<String> {
    let deadline = Instant::now() + within;
    loop {
        if let Some(v) = check() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_built_stack_runs_on_two_swarm_nodes_as_its_manifests_say() {
    let test = "a_built_stack_runs_on_two_swarm_nodes_as_its_manifests_say";
    let Some(swarm) = Swarm::up(test) else {
        return;
    };
    let started = Instant::now();
    let image = "meshc-swarm-e2e:1";
    swarm.import_busybox(
        image,
        &["sh", "nc", "cat", "stat", "id", "sleep", "echo", "env"],
    );
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    std::fs::write(dir.join("modules.mesh"), MODULES.replace("IMAGE", image)).unwrap();
    std::fs::write(dir.join("e2e.mesh"), mesh_text(&swarm, true)).unwrap();
    let built = meshc(
        dir,
        &[
            "build", "e2e.mesh", ".", "--out", "out", "--target", "swarm",
        ],
    );
    ok(&built, "meshc build --target swarm");
    let stack = std::fs::read_to_string(dir.join("out/swarm/stack.yaml")).unwrap();
    let read = |node: &str| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join(format!("out/{node}.json"))).unwrap())
            .unwrap()
    };
    let (alpha, beta) = (read("alpha"), read("beta"));
    let client_instance = instance(&alpha, "alpha-client");
    let client = &client_instance["containers"][0];
    let far = instance(&beta, "beta-web");

    // The labels, as the stack's header says, each node's for its swarm node.
    for (mesh_node, swarm_node) in [("alpha", &swarm.a), ("beta", &swarm.b)] {
        let line = format!(
            "docker node update --label-add mesh.node={mesh_node} <the swarm node of {mesh_node}>"
        );
        assert!(stack.contains(&line), "{stack}");
        swarm.a.docker_ok(&[
            "node",
            "update",
            "--label-add",
            &format!("mesh.node={mesh_node}"),
            &swarm_node.name,
        ]);
    }

    // The secrets folder, on the manager: one file per sealed reference.
    let secrets = dir.join("secrets");
    let login = client_instance["login"].as_str().unwrap();
    let write_secret = |node: &str, by: &str, key: &str, value: &str| {
        let path = secrets.join(node).join(by).join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{value}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    };
    write_secret("beta", "beta-web", &format!("{login}/password"), PASSWORD);
    write_secret("alpha", "alpha-vault", &format!("{login}/value"), TOKEN);
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    render_and_deploy(&swarm, dir);

    // Placement: each task on its node.
    let wait = Duration::from_secs(90);
    let client_name = format!("e2e_alpha_{}", client["name"].as_str().unwrap());
    let c = swarm.a.task_container(&client_name, wait);
    swarm.b.task_container("e2e_beta_beta-web", wait);
    swarm.b.task_container("e2e_beta_spare", wait);
    swarm.a.task_container("e2e_alpha_alpha-web", wait);
    let exec = |script: &str| swarm.a.docker_ok(&["exec", &c, "sh", "-c", script]);

    // Files and secret files: owner, group, mode and content as the manifest declares
    // them (§12.1's defaults: the container's user, its number as the group; 0440 a
    // secret file, 0644 a plain file, 0640 a sealed one).
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
    let stat = |path: &str| exec(&format!("stat -c '%u %g %a' {path}"));
    assert_eq!(
        stat("/run/secrets/web_password"),
        declared("secrets", "/run/secrets/web_password", "0440")
    );
    assert_eq!(
        exec("cat /run/secrets/web_password; echo '|'"),
        format!("{PASSWORD}|")
    );
    assert_eq!(
        stat("/etc/client.conf"),
        declared("files", "/etc/client.conf", "0644")
    );
    let plain = client["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["target"] == "/etc/client.conf")
        .unwrap();
    assert_eq!(
        exec("cat /etc/client.conf; echo '|'"),
        format!("{}|", plain["content"].as_str().unwrap())
    );
    assert_eq!(
        stat("/etc/client.ini"),
        declared("files", "/etc/client.ini", "0640")
    );
    assert_eq!(
        exec("cat /etc/client.ini; echo '|'"),
        format!("[db]\npassword = {PASSWORD}\n|")
    );
    // The declared user.
    assert_eq!(exec("id -u"), "1000");
    // Env as built, the exposed secret from the env file render wrote.
    let env = exec("env");
    assert!(
        env.lines().any(|l| l == "GREETING=hello \"mesh\" $HOME"),
        "{env}"
    );
    assert!(env.lines().any(|l| l == format!("TOKEN={TOKEN}")), "{env}");

    // Reach, at the manifest's address: the provider on the client's own node and the
    // one on the other node, by private name and host port.
    for (prefix, node, says) in [
        ("NEAR", "alpha", "hello-from-near"),
        ("FAR", "beta", "hello-from-far"),
    ] {
        let host = client["env"][format!("{prefix}_HOST")].as_str().unwrap();
        let port = client["env"][format!("{prefix}_PORT")].as_str().unwrap();
        assert_eq!(host, format!("{node}.e2e.internal"));
        let reached = eventually(Duration::from_secs(30), || {
            let o = swarm
                .a
                .docker(&["exec", &c, "sh", "-c", RESOLVE_AND_READ, "read", host, port]);
            let line = String::from_utf8_lossy(&o.stdout).trim().to_string();
            (o.status.success() && !line.is_empty()).then_some(line)
        });
        assert_eq!(reached.as_deref(), Some(says), "{host}:{port}");
    }
    // The far provider's private port is bound to beta's private address and nothing
    // else: not its loopback, not another address.
    let far_port = far["requirements"]["http"]["host_port"].to_string();
    let listening = swarm
        .b
        .on_host("ss", &["-Hltn", &format!("sport = :{far_port}")]);
    let listening = String::from_utf8_lossy(&listening.stdout).to_string();
    let bound: Vec<&str> = listening
        .lines()
        .filter_map(|l| l.split_whitespace().nth(3))
        .collect();
    assert_eq!(
        bound,
        [format!("{}:{far_port}", swarm.b.addr)],
        "{listening}"
    );

    // A rotated secret rolls its service to the new value.
    write_secret("beta", "beta-web", &format!("{login}/password"), ROTATED);
    let rotated_at = Instant::now();
    render_and_deploy(&swarm, dir);
    let rolled = eventually(Duration::from_secs(90), || {
        let id = swarm.a.docker_ok(&[
            "ps",
            "-q",
            "--filter",
            &format!("label=com.docker.swarm.service.name={client_name}"),
            "--filter",
            "status=running",
        ]);
        let id = id.lines().next()?.to_string();
        let o = swarm
            .a
            .docker(&["exec", &id, "cat", "/run/secrets/web_password"]);
        let v = String::from_utf8_lossy(&o.stdout).to_string();
        (id != c && v == ROTATED).then_some(v)
    });
    assert_eq!(rolled.as_deref(), Some(ROTATED), "the client did not roll");
    eprintln!(
        "{test}: rotated secret rolled in {:.1}s",
        rotated_at.elapsed().as_secs_f64()
    );

    // A removed instance is gone after --prune.
    std::fs::write(dir.join("e2e.mesh"), mesh_text(&swarm, false)).unwrap();
    ok(
        &meshc(
            dir,
            &[
                "build", "e2e.mesh", ".", "--out", "out", "--target", "swarm",
            ],
        ),
        "meshc build --target swarm without spare",
    );
    render_and_deploy(&swarm, dir);
    let services = swarm
        .a
        .docker_ok(&["service", "ls", "--format", "{{.Name}}"]);
    assert!(
        !services.lines().any(|s| s == "e2e_beta_spare"),
        "{services}"
    );
    assert!(
        services.lines().any(|s| s == "e2e_beta_beta-web"),
        "{services}"
    );
    let gone = eventually(Duration::from_secs(30), || {
        let left = swarm.b.docker_ok(&[
            "ps",
            "-q",
            "--filter",
            "label=com.docker.swarm.service.name=e2e_beta_spare",
        ]);
        left.is_empty().then_some(String::new())
    });
    assert!(gone.is_some(), "spare's container is still on beta");
    eprintln!(
        "{test}: build, render, deploy, assertions, rotation and prune in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}

/// How a stack file is loaded and checked without deploying it: `docker stack config`
/// where the `docker` command line has it (it loads the file as `docker stack deploy`
/// does), else `docker-compose config` (Debian's docker.io 20.10 has no `docker stack
/// config`; Compose 1.29 checks the same Compose file schema, `deploy` keys included, and
/// interpolates alike). `None`, failing when an engine is required, when neither runs.
fn stack_checker(test: &str) -> Option<&'static str> {
    let runs = |program: &str, args: &[&str]| {
        std::process::Command::new(program)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    // Docker 20.10 answers `docker stack config --help` with the help of `docker stack`.
    let has_stack_config = std::process::Command::new("docker")
        .args(["stack", "config", "--help"])
        .output()
        .is_ok_and(|o| {
            o.status.success() && String::from_utf8_lossy(&o.stdout).contains("docker stack config")
        });
    if has_stack_config {
        return Some("docker");
    }
    if runs("docker-compose", &["version"]) {
        return Some("docker-compose");
    }
    assert!(
        std::env::var_os("MESHC_REQUIRE_ENGINE").is_none() && std::env::var_os("CI").is_none(),
        "{test}: neither `docker stack config` nor `docker-compose` can be run, and MESHC_REQUIRE_ENGINE or CI is set"
    );
    swarm::say_skipped(
        test,
        "neither `docker stack config` nor `docker-compose` can be run; the test did not run",
    );
    None
}

/// The command that loads `stack` with `checker` (see [`stack_checker`]).
fn check_stack(checker: &str, stack: &Path) -> std::process::Command {
    let mut c = std::process::Command::new(checker);
    if checker == "docker" {
        c.args(["stack", "config", "-c"]).arg(stack);
    } else {
        c.arg("-f").arg(stack).args(["config", "-q"]);
    }
    c
}

/// `docker stack config` loads a stack as `docker stack deploy` does (the Compose file
/// schema of its version, interpolation, the env files read) and accepts the stack of
/// every mesh of the catalogue, with the variables `meshc render --swarm` sets and the
/// files it writes stood in for.
#[test]
fn docker_stack_config_accepts_the_stack_of_every_catalogue_mesh() {
    let test = "docker_stack_config_accepts_the_stack_of_every_catalogue_mesh";
    let Some(checker) = stack_checker(test) else {
        return;
    };
    let repo = command::repo_root();
    let meshes: Vec<String> = std::fs::read_dir(repo.join("catalogue"))
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let text = std::fs::read_to_string(e.path()).ok()?;
            let stem = name.strip_suffix(".mesh")?;
            text.lines()
                .any(|l| l.starts_with("mesh "))
                .then(|| stem.to_string())
        })
        .collect();
    assert!(meshes.len() >= 3, "{meshes:?}");
    for mesh in &meshes {
        let work = tempfile::tempdir().unwrap();
        let out = work.path().join("out");
        let built = meshc(
            &repo,
            &[
                "build",
                &format!("catalogue/{mesh}.mesh"),
                "catalogue",
                "--out",
                &out.display().to_string(),
                "--target",
                "swarm",
                "--locked",
            ],
        );
        ok(&built, &format!("building {mesh} for swarm"));
        let stack = std::fs::read_to_string(out.join("swarm/stack.yaml")).unwrap();
        // Every file the stack reads from the stage, and every digest variable.
        let stage = work.path().join("stage");
        std::fs::create_dir(&stage).unwrap();
        let mut vars = Vec::new();
        for line in stack.lines() {
            if let Some(at) = line.find("${MESH_STAGE:") {
                let rest = &line[at..];
                let file = rest[rest.find("}/").unwrap() + 2..].trim_end_matches('"');
                std::fs::write(stage.join(file), "").unwrap();
            }
            let mut rest = line;
            while let Some(at) = rest.find("${MESH_") {
                let name: String = rest[at + 2..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != "MESH_STAGE" {
                    vars.push(name);
                }
                rest = &rest[at + 2..];
            }
        }
        let mut config = check_stack(checker, &out.join("swarm/stack.yaml"));
        config.env("MESH_STAGE", &stage);
        for v in &vars {
            config.env(v, "0123456789abcdef");
        }
        let loaded = config.output().unwrap();
        ok(&loaded, &format!("{checker} loading the stack of {mesh}"));
        if checker == "docker" {
            let text = String::from_utf8_lossy(&loaded.stdout);
            assert!(text.contains("services:"), "{text}");
        }
        // Without the variables render sets, the engine refuses to deploy, saying why.
        let bare = check_stack(checker, &out.join("swarm/stack.yaml"))
            .env_remove("MESH_STAGE")
            .output()
            .unwrap();
        if !vars.is_empty() {
            assert!(!bare.status.success(), "{mesh}: deployable without render");
            assert!(
                String::from_utf8_lossy(&bare.stderr).contains("meshc render"),
                "{}",
                String::from_utf8_lossy(&bare.stderr)
            );
        }
    }
}

/// Swarm has no start order: the build says, on stderr and in the stack's header, which
/// `after` it will not enforce; health becomes the service's healthcheck and a job's
/// restart policy is `on-failure`.
#[test]
fn a_swarm_build_says_after_is_not_enforced_and_keeps_health_and_jobs() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    std::fs::write(
        dir.join("db.mesh"),
        r#"
/// A database and the job that fills it.
module db {
  container pg {
    image "postgres:18.6"
    health ["pg_isready", "--quiet"] every "10s" start "7d" retries 5
  }
  job provision {
    image "postgres:18.6"
    after pg
    command ["sh", "/mesh/provision"]
  }
}

mesh m {
  node alpha { private_name = "alpha.m.internal"  private_address = "10.9.0.1" }
  assign db to alpha
}
"#,
    )
    .unwrap();
    let built = meshc(
        dir,
        &["build", "db.mesh", ".", "--out", "out", "--target", "swarm"],
    );
    ok(&built, "meshc build --target swarm");
    let said = String::from_utf8_lossy(&built.stderr);
    assert!(
        said.lines().any(|l| l
            .contains("note: --target swarm: `db-provision` on node `alpha` starts after `pg`")
            && l.contains("Swarm has no start order")),
        "{said}"
    );
    let stack = std::fs::read_to_string(dir.join("out/swarm/stack.yaml")).unwrap();
    assert!(
        stack.contains("# not enforced: `db-provision` on node `alpha` starts after `pg`"),
        "{stack}"
    );
    assert!(
        stack.contains("    healthcheck:\n      test:\n        - \"CMD\"\n        - \"pg_isready\"\n        - \"--quiet\"\n      interval: \"10s\"\n      start_period: \"168h\"\n      retries: 5\n"),
        "{stack}"
    );
    let job = &stack[stack
        .find("  \"alpha_db-provision\":")
        .expect("the job's service")..];
    assert!(
        job.contains("      restart_policy:\n        condition: \"on-failure\"\n"),
        "{job}"
    );
    let pg = &stack[stack.find("  \"alpha_db-pg\":").expect("pg's service")..];
    assert!(
        pg.contains("      restart_policy:\n        condition: \"any\"\n"),
        "{pg}"
    );
}

/// `render --swarm` refuses a missing secret value by name and writes no `stack.env`, so
/// nothing can be deployed half-rendered; with every value, each file is its owner's only
/// and `stack.env` names each by the digest of its content, never by the value.
#[test]
fn render_swarm_refuses_a_missing_value_and_names_files_by_digest() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    std::fs::write(
        dir.join("modules.mesh"),
        MODULES.replace("IMAGE", "busybox:1"),
    )
    .unwrap();
    std::fs::write(
        dir.join("e2e.mesh"),
        r#"mesh e2e {
  node alpha { private_name = "alpha.e2e.internal"  private_address = "10.9.0.1"  ports = 21000..21009 }
  node beta { private_name = "beta.e2e.internal"  private_address = "10.9.0.2"  ports = 21010..21019 }
  seat vault = alpha-vault on alpha
  assign vault to alpha as alpha-vault
  assign web to alpha as alpha-web { says = "near" }
  assign web to beta as beta-web { says = "far" }
  assign client to alpha as alpha-client {
    near from alpha-web on alpha
    far from beta-web on beta
  }
}
"#,
    )
    .unwrap();
    ok(
        &meshc(
            dir,
            &[
                "build", "e2e.mesh", ".", "--out", "out", "--target", "swarm",
            ],
        ),
        "meshc build --target swarm",
    );
    let alpha: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/alpha.json")).unwrap()).unwrap();
    let login = instance(&alpha, "alpha-client")["login"]
        .as_str()
        .unwrap()
        .to_string();
    let secrets = dir.join("secrets");
    let password = secrets.join(format!("beta/beta-web/{login}/password"));
    std::fs::create_dir_all(password.parent().unwrap()).unwrap();
    std::fs::write(&password, "pw-value-1\n").unwrap();
    std::fs::set_permissions(&password, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    let render = || meshc(dir, &command::RENDER_SWARM);
    // The vault's token is missing.
    let refused = render();
    assert_eq!(refused.status.code(), Some(1));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("no value for") && said.contains(&format!("alpha/alpha-vault/{login}/value")),
        "{said}"
    );
    assert!(!said.contains("pw-value-1"), "{said}");
    assert!(!dir.join("stage/stack.env").exists());
    // With it, every file is written, and stack.env holds digests, not values.
    let token = secrets.join(format!("alpha/alpha-vault/{login}/value"));
    std::fs::create_dir_all(token.parent().unwrap()).unwrap();
    std::fs::write(&token, "token-value-1\n").unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o600)).unwrap();
    ok(&render(), "meshc render --swarm");
    let env = std::fs::read_to_string(dir.join("stage/stack.env")).unwrap();
    assert!(
        !env.contains("pw-value-1") && !env.contains("token-value-1"),
        "{env}"
    );
    let stack = std::fs::read_to_string(dir.join("out/swarm/stack.yaml")).unwrap();
    let mut digests = 0;
    for line in env.lines() {
        let (k, v) = line.split_once('=').unwrap();
        if k == "MESH_STAGE" {
            continue;
        }
        assert!(
            stack.contains(&format!("${{{k}:?")),
            "{k} is read by the stack"
        );
        let file = dir
            .join("stage")
            .join(k.trim_start_matches("MESH_").to_ascii_lowercase());
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(
            meta.permissions().mode() & 0o777,
            0o400,
            "{}",
            file.display()
        );
        let bytes = std::fs::read(&file).unwrap();
        use sha2::Digest;
        let hex: String = sha2::Sha256::digest(&bytes)
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(v, hex, "{}", file.display());
        digests += 1;
    }
    assert_eq!(
        digests, 3,
        "a config, a sealed file and a secret file: {env}"
    );
    // A changed value changes its digest, and only its own.
    std::fs::write(&password, "pw-value-2\n").unwrap();
    ok(&render(), "meshc render --swarm again");
    let again = std::fs::read_to_string(dir.join("stage/stack.env")).unwrap();
    let changed: Vec<&str> = env
        .lines()
        .zip(again.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, _)| a.split('=').next().unwrap())
        .collect();
    assert_eq!(
        changed.len(),
        2,
        "the sealed file and the secret file: {changed:?}"
    );
    // A refused render takes the stack.env of the last one away: nothing deploys
    // half-rendered.
    std::fs::remove_file(&token).unwrap();
    assert_eq!(render().status.code(), Some(1));
    assert!(!dir.join("stage/stack.env").exists());
}
