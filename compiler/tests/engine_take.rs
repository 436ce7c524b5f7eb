//! `meshc survey` and `meshc take` against a real Docker Engine (LANGUAGE.md §13.2,
//! §13.3, §13.5): containers are created the way an existing installation would have
//! them (another network with a neighbour, a port published on all addresses, a
//! configuration file in a bind mount, an image imported before the declared one), the
//! node is surveyed and the module taken; then the genesis round trip: the bootstrap plan
//! is raised on the engine, surveyed and taken, and nothing differs.
//!
//! Docker objects are named `take-…` (the networks genesis raises are named like the
//! instance's login, `take_…`, as the language names them). Without an engine the tests
//! say so and pass, unless `MESHC_REQUIRE_ENGINE` or `CI` is set: then they fail.

#[path = "support/engine.rs"]
mod engine;

use engine::{docker, docker_ok, engine_or_skip};
use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "support/command.rs"]
mod command;
use command::{codes, meshc};

/// Removes the named containers and networks when dropped (and before use).
struct Cleanup {
    containers: Vec<String>,
    networks: Vec<String>,
}

impl Cleanup {
    fn new(containers: &[&str], networks: &[&str]) -> Cleanup {
        let c = Cleanup {
            containers: containers.iter().map(|s| s.to_string()).collect(),
            networks: networks.iter().map(|s| s.to_string()).collect(),
        };
        c.run();
        c
    }

    fn run(&self) {
        for name in &self.containers {
            let _ = docker(&["rm", "-f", name]);
        }
        for name in &self.networks {
            let _ = docker(&["network", "rm", name]);
        }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        self.run();
    }
}

/// Imports a busybox root file system as `reference` (its creation date is now).
fn import_image(reference: &str) {
    engine::import_busybox(reference, &["sh", "sleep"]);
}

/// Imports the two images once per test run: `take-app:old`, then, a moment later,
/// `take-app:new`, so their creation dates order them.
fn images() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        import_image("take-app:old");
        std::thread::sleep(std::time::Duration::from_millis(1500));
        import_image("take-app:new");
    });
}

const MODULES: &str = r#"
/// A small service found on the node, and the module that takes it over.
module app {
  requires data: host directory { owner = 0  mode = 0o755 }
  requires http: host port { container = 8080 }
  requires key?: module secret
  container app {
    image "take-app:new"
    command ["/bin/sleep", "3600"]
    mount data.path -> "/data"
    file "/data/app.conf" = """
      listen = 8080
      """
    when key {
      file "/data/token.conf" = """
        token = ${key.value}
        """
    }
    publish http
  }
}

/// Makes the secrets the app requires.
module vault {
  requires api: host port { container = 8200 }
  container vault {
    image "take-app:new"
    publish api
  }
  provides secret { }
}
"#;

/// The value the found service already uses: it must never reach a report or an output.
const FOUND_TOKEN: &str = "e5a1c9d27b4f8e6a3c0d9b2f7a1e4c8d";

/// A workspace holding the module and `mesh`, where `DATA` stands for the data
/// directory made beside it.
fn workspace(mesh: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(dir.path().join("modules.mesh"), MODULES).unwrap();
    std::fs::write(
        dir.path().join("lab.mesh"),
        mesh.replace("DATA", &data.display().to_string()),
    )
    .unwrap();
    std::fs::create_dir_all(&data).unwrap();
    (dir, data)
}

fn survey(dir: &Path, node: &str) -> PathBuf {
    let out = meshc(dir, &["survey", "--node", node, "lab.mesh", "."]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "survey failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = dir.join("report.json");
    std::fs::write(&report, &out.stdout).unwrap();
    report
}

fn take(dir: &Path, instance: &str, node: &str, extra: &[&str]) -> (Option<i32>, Value, String) {
    let mut args = vec![
        "take",
        instance,
        "--node",
        node,
        "lab.mesh",
        ".",
        "--report",
        "report.json",
        "--format",
        "json",
        "--out",
        "plans",
    ];
    args.extend_from_slice(extra);
    let out = meshc(dir, &args);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "take printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (
        out.status.code(),
        v,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn rows<'a>(v: &'a Value, what: &str) -> Vec<&'a Value> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["what"] == what)
        .collect()
}

#[test]
fn survey_and_take_an_existing_installation() {
    if !engine_or_skip("survey_and_take_an_existing_installation") {
        return;
    }
    let _engine = engine::exclusive();
    images();
    let _cleanup = Cleanup::new(&["take-app", "take-neighbour"], &["take-legacy"]);
    let (dir, data) = workspace(
        r#"
mesh lab {
  node take {
    private_name = "take.lab.internal"
    ports = 24700..24799
    adopted = true
  }
  seat vault = take-vault on take
  assign vault to take as take-vault { api at 24790 }
  assign app to take as take-app {
    data at "DATA"
    http at 24780
  }
}
"#,
    );
    // The installation as it was found: the configuration file's own line, an older
    // image, a port on every address, a neighbour on a network of its own.
    std::fs::write(data.join("app.conf"), "listen = 9090\n").unwrap();
    std::fs::write(data.join("token.conf"), format!("token = {FOUND_TOKEN}\n")).unwrap();
    docker_ok(&["network", "create", "take-legacy"]);
    docker_ok(&[
        "run",
        "-d",
        "--name",
        "take-neighbour",
        "--network",
        "take-legacy",
        "take-app:old",
    ]);
    docker_ok(&[
        "run",
        "-d",
        "--name",
        "take-app",
        "--network",
        "take-legacy",
        "-p",
        "0.0.0.0:24780:8080",
        "-v",
        &format!("{}:/data", data.display()),
        "take-app:old",
    ]);

    let report_path = survey(dir.path(), "take");
    let report_text = std::fs::read_to_string(&report_path).unwrap();
    assert!(
        !report_text.contains(FOUND_TOKEN),
        "the survey wrote the found secret"
    );
    assert!(report_text.contains("token = ‹sealed›"), "{report_text}");
    let report: Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap()).unwrap();
    let found = report["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "take-app")
        .expect("the survey found take-app");
    assert_eq!(found["image"], "take-app:old");
    assert!(found["image_created"].is_string(), "{found}");
    assert_eq!(found["networks"][0]["name"], "take-legacy");
    let members = found["networks"][0]["members"].as_array().unwrap();
    assert!(members.iter().any(|m| m == "take-neighbour"), "{members:?}");
    assert_eq!(found["ports"][0]["host_ip"], "0.0.0.0");
    assert_eq!(found["ports"][0]["host_port"], 24780);
    assert_eq!(found["mounts"][0]["target"], "/data");
    let file = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "/data/app.conf")
        .expect("the survey kept the configuration file");
    assert_eq!(file["content"], "listen = 9090\n");
    assert_eq!(file["container"], "take-app");
    assert!(
        report["images"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["ref"] == "take-app:new")
    );
    assert!(
        report["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["path"] == "/data" && d["empty"] == false),
        "{}",
        report["data"]
    );
    assert!(
        report["strays"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["kind"] == "container" && s["name"] == "take-neighbour"),
        "{}",
        report["strays"]
    );

    // The preview: the file refuses, the rest is said.
    let (code, v, text) = take(dir.path(), "take-app", "take", &[]);
    assert_eq!(code, Some(1), "{text}");
    assert!(!text.contains(FOUND_TOKEN));
    let c = codes(&v);
    assert!(c.contains(&"E0605".to_string()), "{c:?}");
    assert!(
        c.contains(&"E0606".to_string()),
        "the service's data was found: {c:?}"
    );
    let token = rows(&v, "file")
        .into_iter()
        .find(|r| r["subject"] == "/data/token.conf")
        .expect("a row for the sealed file");
    // Equal content (its secret part matches the found value); a mode may differ.
    assert!(
        token["note"].as_str().unwrap().contains("is as declared"),
        "{token}"
    );
    assert_ne!(token["outcome"], "refused", "{token}");
    assert!(c.contains(&"W0601".to_string()), "{c:?}");
    assert!(c.contains(&"W0602".to_string()), "{c:?}");
    assert!(
        !c.contains(&"E0603".to_string()),
        "an upgrade is not refused: {c:?}"
    );
    let image = rows(&v, "image");
    assert_eq!(image[0]["outcome"], "said", "{}", image[0]);
    assert!(
        image[0]["note"].as_str().unwrap().contains("newer"),
        "{}",
        image[0]
    );
    let file = rows(&v, "file");
    let diff = file[0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("-listen = 9090") && diff.contains("+listen = 8080"),
        "{diff}"
    );
    let network = rows(&v, "network");
    assert!(
        network.iter().any(|r| r["code"] == "W0602" && r["note"].as_str().unwrap().contains("take-neighbour")),
        "{network:?}"
    );

    // Replaced knowingly, then confirmed by digest.
    let (code, v, text) = take(
        dir.path(),
        "take-app",
        "take",
        &["--replace", "/data/app.conf", "--mint", "key"],
    );
    assert_eq!(code, Some(0), "{text}");
    let digest = v["digest"].as_str().unwrap().to_string();
    let (code, _, text) = take(
        dir.path(),
        "take-app",
        "take",
        &[
            "--replace",
            "/data/app.conf",
            "--mint",
            "key",
            "--yes",
            "sha256:0000000000000000000000000000000000000000000000000000000000000000",
        ],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(!dir.path().join("plans/take.take-app.take.json").exists());
    let (code, _, text) = take(
        dir.path(),
        "take-app",
        "take",
        &[
            "--replace",
            "/data/app.conf",
            "--mint",
            "key",
            "--yes",
            &digest,
        ],
    );
    assert_eq!(code, Some(0), "{text}");
    let plan_text =
        std::fs::read_to_string(dir.path().join("plans/take.take-app.take.json")).unwrap();
    assert!(!plan_text.contains(FOUND_TOKEN));
    let plan: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("plans/take.take-app.take.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(plan["preview_digest"], digest.as_str());
    assert_eq!(plan["overrides"]["replace"][0], "/data/app.conf");
}

#[test]
fn genesis_raises_what_the_module_then_takes_without_a_difference() {
    if !engine_or_skip("genesis_raises_what_the_module_then_takes_without_a_difference") {
        return;
    }
    let _engine = engine::exclusive();
    images();
    let (dir, _data) = workspace(
        r#"
mesh lab {
  node take {
    private_name = "take.lab.internal"
    ports = 24700..24799
    adopted = true
  }
  assign app to take as take-gen {
    genesis
    key absent
    data at "DATA"
    http at 24781
  }
}
"#,
    );
    let out = meshc(
        dir.path(),
        &[
            "genesis", "lab.mesh", ".", "--node", "take", "--out", "genesis",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join("genesis/take.genesis.json")).unwrap(),
    )
    .unwrap();
    let networks: Vec<String> = plan["networks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    let containers: Vec<String> = plan["instances"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| i["containers"].as_array().unwrap())
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(containers, ["take-gen"]);
    let net_refs: Vec<&str> = networks.iter().map(String::as_str).collect();
    let _cleanup = Cleanup::new(&["take-gen"], &net_refs);
    raise(&plan);

    survey(dir.path(), "take");
    let (code, v, text) = take(dir.path(), "take-gen", "take", &[]);
    assert_eq!(code, Some(0), "{text}");
    assert!(codes(&v).is_empty(), "{text}");
    for row in v["rows"].as_array().unwrap() {
        assert_eq!(
            row["outcome"], "same",
            "genesis raised something the module does not declare: {row}"
        );
    }
    assert!(
        !rows(&v, "file").is_empty()
            && !rows(&v, "port").is_empty()
            && !rows(&v, "network").is_empty()
    );
}

/// Raises a genesis plan on the engine, as a host would: networks, directories, files
/// written into the mounted directories, containers.
fn raise(plan: &Value) {
    for n in plan["networks"].as_array().unwrap() {
        docker_ok(&["network", "create", n.as_str().unwrap()]);
    }
    for inst in plan["instances"].as_array().unwrap() {
        for d in inst["directories"].as_array().unwrap() {
            std::fs::create_dir_all(d["path"].as_str().unwrap()).unwrap();
        }
        for c in inst["containers"].as_array().unwrap() {
            for f in c["files"].as_array().unwrap() {
                let target = f["target"].as_str().unwrap();
                let mount = c["mounts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|m| target.starts_with(&format!("{}/", m["container"].as_str().unwrap())))
                    .expect("the test's files lie in a mount");
                let host = Path::new(mount["host"].as_str().unwrap()).join(
                    target
                        .strip_prefix(mount["container"].as_str().unwrap())
                        .unwrap()
                        .trim_start_matches('/'),
                );
                std::fs::write(&host, f["content"].as_str().unwrap()).unwrap();
                let mode = u32::from_str_radix(f["mode"].as_str().unwrap(), 8).unwrap();
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&host, std::fs::Permissions::from_mode(mode)).unwrap();
            }
            let mut args: Vec<String> = vec![
                "run".into(),
                "-d".into(),
                "--name".into(),
                c["name"].as_str().unwrap().into(),
            ];
            for n in c["networks"].as_array().unwrap() {
                args.push("--network".into());
                args.push(n.as_str().unwrap().into());
            }
            for p in c["ports"].as_array().unwrap() {
                let ip = if p["reach"] == "public" {
                    "0.0.0.0"
                } else {
                    "127.0.0.1"
                };
                args.push("-p".into());
                args.push(format!(
                    "{ip}:{}:{}/{}",
                    p["host"],
                    p["container"],
                    p["protocol"].as_str().unwrap()
                ));
            }
            for m in c["mounts"].as_array().unwrap() {
                args.push("-v".into());
                let ro = if m["read_only"] == true { ":ro" } else { "" };
                args.push(format!(
                    "{}:{}{ro}",
                    m["host"].as_str().unwrap(),
                    m["container"].as_str().unwrap()
                ));
            }
            args.push(c["image"].as_str().unwrap().into());
            for part in c["command"].as_array().unwrap() {
                args.push(part.as_str().unwrap().into());
            }
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            docker_ok(&refs);
        }
    }
}
