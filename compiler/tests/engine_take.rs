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

// ---------------------------------------------------------------------------------------
// Compared whole (LANGUAGE.md §14.5, issue 37) and nothing found ever printed (issue 33,
// class 7). Objects of these tests are named `tw-…`.

/// Every secret value the installation below holds carries this marker: no output of
/// survey or take may ever hold it.
const MARK: &str = "twmark";

/// A module taking over an installation that keeps secrets in files and in the
/// environment: a plain file, sealed files whose found lines have other shapes than the
/// template's, and a password that moves from an env variable to a file.
const WHOLE_MODULES: &str = r#"
/// The service found on the node, and the module that takes it over.
module app {
  requires data: host directory { owner = 1100  mode = 0o750 }
  requires key: module secret
  container app {
    image "tw-app:new"
    command ["/bin/sleep", "3600"]
    user 1100
    mount data.path -> "/data"
    env { DB_PASSWORD_FILE = "/data/db_password" }
    file "/data/app.conf" = """
      listen = 8080
      """
    file "/data/equals.conf" = """
      token = ${key.value}
      """
    file "/data/tab.conf" = """
      token = ${key.value}
      """
    file "/data/case.conf" = """
      token = ${key.value}
      """
    file "/data/url.conf" = """
      url = redis://west_app:${key.value}@kvd:6379/0
      """
  }
}

/// Makes the secrets the app requires.
module vault {
  container vault {
    image "tw-app:new"
  }
  provides secret { }
}
"#;

fn tw_images() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        engine::import_busybox("tw-app:old", &["sh", "sleep", "test"]);
        std::thread::sleep(std::time::Duration::from_millis(1500));
        engine::import_busybox("tw-app:new", &["sh", "sleep", "test"]);
    });
}

fn tw_workspace(modules: &str, mesh: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::write(dir.path().join("modules.mesh"), modules).unwrap();
    std::fs::write(
        dir.path().join("lab.mesh"),
        mesh.replace("DATA", &data.display().to_string()),
    )
    .unwrap();
    std::fs::create_dir_all(&data).unwrap();
    (dir, data)
}

/// Runs meshc in `dir`; (exit, stdout, stderr).
fn run_meshc(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = meshc(dir, args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn take_args<'a>(instance: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "take",
        instance,
        "--node",
        "tw",
        "lab.mesh",
        ".",
        "--report",
        "report.json",
        "--out",
        "plans",
    ];
    args.extend_from_slice(extra);
    args
}

fn set_owner(path: &Path, owner: u32, group: u32, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::os::unix::fs::chown(path, Some(owner), Some(group)).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn take_compares_owners_user_env_and_data_and_prints_no_found_secret() {
    if !engine_or_skip("take_compares_owners_user_env_and_data_and_prints_no_found_secret") {
        return;
    }
    let _engine = engine::exclusive();
    tw_images();
    let _cleanup = Cleanup::new(&["tw-app"], &[]);
    let (dir, data) = tw_workspace(
        WHOLE_MODULES,
        r#"
mesh lab {
  node tw {
    private_name = "tw.lab.internal"
    ports = 24800..24899
    adopted = true
  }
  seat vault = tw-vault on tw
  assign vault to tw as tw-vault
  assign app to tw as tw-app { data at "DATA" }
}
"#,
    );
    // The installation as it is found: root-owned 0644 files, a root-owned 0755 data
    // directory, secret lines in shapes the templates do not have, an admin password in
    // a plain file, a password in the environment, the container running as root.
    let files: [(&str, String); 6] = [
        (
            "app.conf",
            format!("listen = 8080\nadmin_password = Winter2024!{MARK}1\n"),
        ),
        ("equals.conf", format!("TOKEN=Winter2024!{MARK}2\n")),
        ("tab.conf", format!("token\tWinter2024!{MARK}3\n")),
        ("case.conf", format!("Token = Winter2024!{MARK}4\n")),
        (
            "url.conf",
            format!("url = redis://west_app:Winter2024!{MARK}5@kvd:6379/0\nextra = 1\n"),
        ),
        ("db_password", format!("Winter2024!{MARK}6\n")),
    ];
    for (name, text) in &files {
        std::fs::write(data.join(name), text).unwrap();
        set_owner(&data.join(name), 0, 0, 0o644);
    }
    set_owner(&data, 0, 0, 0o755);
    docker_ok(&[
        "run",
        "-d",
        "--name",
        "tw-app",
        "--user",
        "0:0",
        "-e",
        &format!("DB_PASSWORD=Winter2024!{MARK}7"),
        "-e",
        "USER_UID=1100",
        "-v",
        &format!("{}:/data", data.display()),
        "tw-app:old",
    ]);

    // Every output of survey and take, kept for the sweep below.
    let mut outputs: Vec<(String, String)> = Vec::new();
    let (code, report_text, err) =
        run_meshc(dir.path(), &["survey", "--node", "tw", "lab.mesh", "."]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::write(dir.path().join("report.json"), &report_text).unwrap();
    outputs.push(("survey stdout (the report)".into(), report_text.clone()));
    outputs.push(("survey stderr".into(), err));
    let report: Value = serde_json::from_str(&report_text).unwrap();
    let found = report["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "tw-app")
        .expect("the survey found tw-app");
    assert_eq!(found["user"], "0:0", "{found}");
    let env: Vec<&str> = found["env_names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        env,
        ["DB_PASSWORD", "USER_UID"],
        "names only, the image's left out"
    );
    let data_entry = report["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["container"] == "tw-app")
        .unwrap_or_else(|| panic!("no data entry: {report_text}"));
    assert_eq!(
        (
            &data_entry["owner"],
            &data_entry["group"],
            &data_entry["mode"]
        ),
        (&0.into(), &0.into(), &"0755".into()),
        "{data_entry}"
    );

    // The preview, as JSON and for a person.
    let (code, json_out, err) = run_meshc(dir.path(), &take_args("tw-app", &["--format", "json"]));
    assert_eq!(code, Some(1), "{json_out}{err}");
    outputs.push(("take --format json".into(), json_out.clone()));
    outputs.push(("take --format json stderr".into(), err));
    let v: Value = serde_json::from_str(&json_out).unwrap();
    let (code, human_out, human_err) = run_meshc(dir.path(), &take_args("tw-app", &[]));
    assert_eq!(code, Some(1), "{human_out}{human_err}");
    outputs.push(("take stdout".into(), human_out.clone()));
    outputs.push(("take stderr".into(), human_err.clone()));

    let c = codes(&v);
    assert!(c.contains(&"W0604".to_string()), "{c:?}");
    let owner_rows = rows(&v, "owner");
    assert_eq!(
        owner_rows.len(),
        5,
        "one W0604 per found file: {owner_rows:?}"
    );
    assert!(
        owner_rows[0]["note"]
            .as_str()
            .unwrap()
            .contains("is owned by 0:0 and will be owned by 1100:1100"),
        "{}",
        owner_rows[0]
    );
    let user = rows(&v, "user");
    assert_eq!(user[0]["outcome"], "said", "{}", user[0]);
    assert!(
        user[0]["note"].as_str().unwrap().contains("runs as `0:0`"),
        "{}",
        user[0]
    );
    let env_rows = rows(&v, "env");
    let said = |name: &str| {
        env_rows
            .iter()
            .find(|r| r["subject"] == name)
            .map(|r| r["note"].as_str().unwrap().to_string())
            .unwrap_or_default()
    };
    assert!(
        said("DB_PASSWORD").contains("now delivered as a file (`DB_PASSWORD_FILE`)"),
        "{env_rows:?}"
    );
    assert!(said("USER_UID").contains("no longer set"), "{env_rows:?}");
    let data_rows = rows(&v, "data");
    assert!(
        data_rows[0]["note"]
            .as_str()
            .unwrap()
            .contains("its owner from 0:0 to 1100:1100 and its mode from 0755 to 0750"),
        "{data_rows:?}"
    );
    // Every sealed file differs in shape: refused, each line reported by number only.
    let sealed: Vec<&Value> = rows(&v, "file")
        .into_iter()
        .filter(|r| r["declared"]["sealed"] == true)
        .collect();
    assert_eq!(sealed.len(), 4);
    for r in &sealed {
        assert_eq!(r["code"], "E0605", "{r}");
        let diff = r["diff"].as_str().unwrap();
        let line = if r["subject"] == "/data/url.conf" {
            2
        } else {
            1
        };
        assert!(
            diff.contains(&format!("-‹sealed: line {line} is not as declared›")),
            "{diff}"
        );
    }
    let plain = rows(&v, "file")
        .into_iter()
        .find(|r| r["subject"] == "/data/app.conf")
        .unwrap();
    assert!(
        plain["diff"]
            .as_str()
            .unwrap()
            .contains("-admin_password = ‹masked›"),
        "{plain}"
    );
    // The human image row shows both dates, as the JSON has them.
    let image = &rows(&v, "image")[0];
    let image_line = human_out
        .lines()
        .find(|l| l.contains(" image "))
        .expect("an image row");
    for date in [&image["declared"]["created"], &image["found"]["created"]] {
        let date = date.as_str().unwrap();
        assert!(image_line.contains(date), "{image_line} lacks {date}");
    }

    // Confirmed, the plan is written 0600.
    let overrides = [
        "--replace",
        "/data/app.conf",
        "--replace",
        "/data/equals.conf",
        "--replace",
        "/data/tab.conf",
        "--replace",
        "/data/case.conf",
        "--replace",
        "/data/url.conf",
        "--mint",
        "key",
    ];
    let mut args = take_args("tw-app", &overrides);
    args.extend(["--format", "json"]);
    let (code, out, err) = run_meshc(dir.path(), &args);
    assert_eq!(code, Some(0), "{out}{err}");
    let digest = serde_json::from_str::<Value>(&out).unwrap()["digest"]
        .as_str()
        .unwrap()
        .to_string();
    let mut args = take_args("tw-app", &overrides);
    args.extend(["--yes", &digest]);
    let (code, out, err) = run_meshc(dir.path(), &args);
    assert_eq!(code, Some(0), "{out}{err}");
    outputs.push(("take --yes stdout".into(), out));
    outputs.push(("take --yes stderr".into(), err));
    let plan_path = dir.path().join("plans/tw.tw-app.take.json");
    let plan = std::fs::read_to_string(&plan_path).unwrap();
    outputs.push(("the cutover plan".into(), plan));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&plan_path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the plan is the operator's alone");

    // The sweep: no secret value the installation holds, in any output.
    for (what, text) in &outputs {
        assert!(
            !text.contains(MARK),
            "{what} holds a found secret value:\n{text}"
        );
        assert!(!text.contains("Winter2024"), "{what}:\n{text}");
    }
}

/// The genesis plan of an instance with a sealed file and owners, raised as a host would
/// (files rendered as `meshc render` renders them, owners and modes set), then surveyed
/// and taken: nothing differs. A container that exited because its configuration is
/// missing is then not "the same container".
#[test]
fn genesis_with_sealed_files_and_owners_round_trips_without_a_difference() {
    if !engine_or_skip("genesis_with_sealed_files_and_owners_round_trips_without_a_difference") {
        return;
    }
    let _engine = engine::exclusive();
    tw_images();
    let (dir, _data) = tw_workspace(
        r#"
/// A service that will not start without its sealed configuration.
module app {
  requires data: host directory { owner = 1100  mode = 0o750 }
  requires token: operator secret string
  container app {
    image "tw-app:new"
    command ["/bin/sh", "-c", "test -f /data/token.conf && exec /bin/sleep 3600"]
    user 1100
    env { LISTEN = "8080" }
    mount data.path -> "/data"
    file "/data/app.conf" = """
      listen = 8080
      """
    file "/data/token.conf" = """
      token = ${token}
      """
  }
}

/// Holds the operator's secrets.
module vault {
  container vault {
    image "tw-app:new"
  }
  provides secret { }
}
"#,
        r#"
mesh lab {
  node tw {
    private_name = "tw.lab.internal"
    ports = 24800..24899
    adopted = true
  }
  seat vault = tw-vault on tw
  assign vault to tw as tw-vault
  assign app to tw as tw-gen {
    genesis
    data at "DATA"
  }
}
"#,
    );
    let (code, _, err) = run_meshc(
        dir.path(),
        &[
            "genesis", "lab.mesh", ".", "--node", "tw", "--out", "genesis",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    let plan: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("genesis/tw.genesis.json")).unwrap())
            .unwrap();
    let networks: Vec<String> = plan["networks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    let net_refs: Vec<&str> = networks.iter().map(String::as_str).collect();
    let _cleanup = Cleanup::new(&["tw-gen"], &net_refs);
    // The operator's secret, where render reads it: DIR/<node>/<instance>/<key>.
    let secrets = dir.path().join("secrets");
    let value = format!("Winter2024!{MARK}9");
    let file = plan["instances"][0]["containers"][0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["target"] == "/data/token.conf")
        .expect("genesis plans the sealed file")
        .clone();
    let sealed = file["references"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()["sealed"]
        .clone();
    let at = secrets
        .join(sealed["by"]["node"].as_str().unwrap())
        .join(sealed["by"]["instance"].as_str().unwrap())
        .join(sealed["key"].as_str().unwrap());
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(&at, &value).unwrap();
    raise_whole(&plan, &secrets);

    let (code, report_text, err) =
        run_meshc(dir.path(), &["survey", "--node", "tw", "lab.mesh", "."]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!report_text.contains(MARK), "{report_text}");
    let report: Value = serde_json::from_str(&report_text).unwrap();
    let found = report["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "tw-gen")
        .unwrap();
    assert_eq!(found["user"], "1100", "{found}");
    assert_eq!(found["env_names"], serde_json::json!(["LISTEN"]), "{found}");
    std::fs::write(dir.path().join("report.json"), &report_text).unwrap();
    let (code, out, err) = run_meshc(dir.path(), &take_args("tw-gen", &["--format", "json"]));
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!out.contains(MARK) && !err.contains(MARK));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert!(codes(&v).is_empty(), "{out}");
    for row in v["rows"].as_array().unwrap() {
        assert_eq!(
            row["outcome"], "same",
            "genesis raised something the module does not declare: {row}"
        );
    }
    for what in ["container", "file", "user", "data", "network"] {
        assert!(!rows(&v, what).is_empty(), "no {what} row: {out}");
    }
    assert_eq!(rows(&v, "file").len(), 2, "{out}");

    // Raised without its sealed configuration, the container exits: not the same.
    docker_ok(&["rm", "-f", "tw-gen"]);
    let token = Path::new(
        plan["instances"][0]["directories"][0]["path"]
            .as_str()
            .unwrap(),
    )
    .join("token.conf");
    std::fs::remove_file(&token).unwrap();
    raise_container(&plan["instances"][0]["containers"][0]);
    let mut stopped = false;
    for _ in 0..50 {
        if docker_ok(&["inspect", "-f", "{{.State.Running}}", "tw-gen"]) == "false" {
            stopped = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(stopped, "tw-gen kept running without its configuration");
    let (code, report_text, err) =
        run_meshc(dir.path(), &["survey", "--node", "tw", "lab.mesh", "."]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::write(dir.path().join("report.json"), &report_text).unwrap();
    let (_, out, _) = run_meshc(dir.path(), &take_args("tw-gen", &["--format", "json"]));
    let v: Value = serde_json::from_str(&out).unwrap();
    let container = &rows(&v, "container")[0];
    assert_eq!(container["outcome"], "said", "{container}");
    assert!(
        container["note"].as_str().unwrap().contains("stopped"),
        "{container}"
    );
}

/// Raises a genesis plan as a host would: networks; directories with their owner, group
/// and mode; every file with its owner, group and mode, a sealed one rendered from the
/// secrets under `secrets` as `meshc render` renders it; then the containers.
fn raise_whole(plan: &Value, secrets: &Path) {
    for n in plan["networks"].as_array().unwrap() {
        docker_ok(&["network", "create", n.as_str().unwrap()]);
    }
    for inst in plan["instances"].as_array().unwrap() {
        for d in inst["directories"].as_array().unwrap() {
            let path = Path::new(d["path"].as_str().unwrap());
            std::fs::create_dir_all(path).unwrap();
            set_owner(
                path,
                d["owner"].as_u64().unwrap() as u32,
                d["group"].as_u64().unwrap() as u32,
                u32::from_str_radix(d["mode"].as_str().unwrap(), 8).unwrap(),
            );
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
                let text = match f["content"].as_str() {
                    Some(t) => t.to_string(),
                    None => {
                        let refs = f["references"].clone();
                        let mut lookup = |r: &str| -> Result<String, String> {
                            let v = &refs[r];
                            if let Some(t) = v["value"].as_str() {
                                return Ok(t.to_string());
                            }
                            let s = &v["sealed"];
                            std::fs::read_to_string(
                                secrets
                                    .join(s["by"]["node"].as_str().unwrap())
                                    .join(s["by"]["instance"].as_str().unwrap())
                                    .join(s["key"].as_str().unwrap()),
                            )
                            .map_err(|e| e.to_string())
                        };
                        meshc::emit::functions::render(f["template"].as_str().unwrap(), &mut lookup)
                            .unwrap()
                    }
                };
                std::fs::write(&host, text).unwrap();
                set_owner(
                    &host,
                    f["owner"].as_u64().unwrap() as u32,
                    f["group"].as_u64().unwrap() as u32,
                    u32::from_str_radix(f["mode"].as_str().unwrap(), 8).unwrap(),
                );
            }
            raise_container(c);
        }
    }
}

fn raise_container(c: &Value) {
    let mut args: Vec<String> = vec![
        "run".into(),
        "-d".into(),
        "--name".into(),
        c["name"].as_str().unwrap().into(),
    ];
    if let Some(user) = c["user"].as_i64() {
        args.push("--user".into());
        args.push(user.to_string());
    }
    for (name, value) in c["env"].as_object().into_iter().flatten() {
        let value = value.as_str().expect("the test's env values are plain");
        args.push("-e".into());
        args.push(format!("{name}={value}"));
    }
    for n in c["networks"].as_array().unwrap() {
        args.push("--network".into());
        args.push(n.as_str().unwrap().into());
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
