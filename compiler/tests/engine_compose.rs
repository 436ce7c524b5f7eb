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

fn meshc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("meshc runs")
}

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
        eprintln!("{test}: docker-compose cannot be run; the test did not run");
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

/// Tears the project, the image and the folders down when dropped (and first).
struct Teardown {
    compose_file: PathBuf,
    image: String,
}

impl Teardown {
    fn run(&self) {
        if self.compose_file.exists() {
            let _ = compose(&self.compose_file, &["down", "--remove-orphans", "-t", "1"]);
        }
    }
}

impl Drop for Teardown {
    fn drop(&mut self) {
        self.run();
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

/// Reaches web, with its files, secrets and env.
module client {
  requires web: module greeting
  requires token: module secret
  container client {
    image "IMAGE"
    user 1000
    env {
      TARGET_HOST = "${web.host}"
      TARGET_PORT = "${web.port}"
      GREETING = "hello \"mesh\" $HOME"
      TOKEN = token.value exposed "busybox reads the token from its environment"
    }
    file "/etc/client.conf" = """
      plain = yes
      """
    file "/etc/client.ini" = """
      [db]
      password = ${web.password}
      """
    secret "/run/secrets/web_password" = web.password
  }
}
"#;

/// The secret values, by the key under which each provider keeps them.
const PASSWORD: &str = "p\"a'ss wo$rd\nsecond \\line";
const TOKEN: &str = "tok3nValue42";

/// Inside the client: the address `/etc/hosts` gives TARGET_HOST (busybox-static cannot
/// use the C library's resolver, so the shell reads the file the engine wrote from
/// `extra_hosts`), then the page at that address and TARGET_PORT.
const RESOLVE_AND_GET: &str = r#"
ip=""
while read -r address names; do
  for n in $names; do [ "$n" = "$TARGET_HOST" ] && ip="$address"; done
done < /etc/hosts
[ -n "$ip" ] || { echo "no address for $TARGET_HOST" >&2; exit 3; }
timeout 5 wget -q -O - "http://$ip:$TARGET_PORT/index.html"
"#;

fn exec(container: &str, script: &str) -> String {
    docker_ok(&["exec", container, "/bin/sh", "-c", script])
}

#[test]
fn a_built_node_runs_on_the_engine_as_its_manifest_says() {
    let test = "a_built_node_runs_on_the_engine_as_its_manifest_says";
    if !engine_or_skip(test) || !compose_or_skip(test) {
        return;
    }
    let started = Instant::now();
    let tag = format!("e{}", std::process::id() % 100_000);
    let image = format!("meshc-compose-e2e:{tag}");
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    let root = dir.join("root");
    std::fs::create_dir(&root).unwrap();
    let out = dir.join("out");
    let compose_file = out.join(&tag).join("compose.yaml");
    let teardown = Teardown {
        compose_file: compose_file.clone(),
        image: image.clone(),
    };
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
            "mesh e2e {{\n  node {tag} {{ private_name = \"{tag}.e2e.internal\"  root = \"{}\"  ports = {low}..{} }}\n  assign web to {tag} as {tag}-web\n  seat vault = {tag}-vault on {tag}\n  assign vault to {tag} as {tag}-vault\n  assign client to {tag} as {tag}-client\n}}\n",
            root.display(),
            low + 19
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
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(out.join(format!("{tag}.json"))).unwrap()).unwrap();
    let instance = |name: &str| -> &Value {
        manifest["instances"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["instance"] == format!("{tag}-{name}"))
            .unwrap_or_else(|| panic!("{name} is built"))
    };
    let client = &instance("client")["containers"][0];
    let web = instance("web");

    // The secrets folder: one file per sealed reference, closed to other users.
    let secrets = dir.join("secrets");
    let client_login = instance("client")["login"].as_str().unwrap();
    let web_name = format!("{tag}-web");
    let vault_name = format!("{tag}-vault");
    for (by, key, value) in [
        (&web_name, format!("{client_login}/password"), PASSWORD),
        (&vault_name, format!("{client_login}/value"), TOKEN),
    ] {
        let path = secrets.join(&tag).join(by).join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{value}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o700)).unwrap();

    let rendered = meshc(
        dir,
        &[
            "render",
            &format!("out/{tag}.json"),
            "--secrets",
            "secrets",
            "--root",
            &root.display().to_string(),
        ],
    );
    ok(&rendered, "meshc render");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&rendered.stdout),
        String::from_utf8_lossy(&rendered.stderr)
    );
    assert!(!said.contains("tok3n") && !said.contains("wo$rd"), "{said}");

    // The directory requirement was made by render; the page is served from it.
    let site = web["requirements"]["site"]["path"].as_str().unwrap();
    std::fs::write(Path::new(site).join("index.html"), "hello from web\n").unwrap();

    let up = compose(&compose_file, &["up", "-d"]);
    ok(&up, "docker-compose up -d");
    let client_name = client["name"].as_str().unwrap();
    let web_container = web["containers"][0]["name"].as_str().unwrap();

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
        exec(web_container, "stat -c '%u %a' /www; cat /www/index.html"),
        "0 755\nhello from web"
    );

    // The consumer reaches its provider by the host and port the manifest gave it.
    let host = client["env"]["TARGET_HOST"].as_str().unwrap();
    let port = client["env"]["TARGET_PORT"].as_str().unwrap();
    assert_eq!(host, format!("{tag}.e2e.internal"));
    assert_eq!(
        port,
        web["requirements"]["http"]["host_port"].to_string(),
        "the port the manifest gave"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let reached = loop {
        let o = docker(&["exec", client_name, "/bin/sh", "-c", RESOLVE_AND_GET]);
        if o.status.success() || Instant::now() > deadline {
            break o;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    ok(&reached, "the client reaching web");
    assert_eq!(String::from_utf8_lossy(&reached.stdout), "hello from web\n");

    // Torn down: nothing of the project is left.
    teardown.run();
    let left = docker_ok(&[
        "ps",
        "-a",
        "--filter",
        &format!("name={tag}-"),
        "--format",
        "{{.Names}}",
    ]);
    assert_eq!(left, "", "containers left after down");
    drop(teardown);
    eprintln!(
        "{test}: build, render, up, assertions and teardown in {:.1}s",
        started.elapsed().as_secs_f64()
    );
}
