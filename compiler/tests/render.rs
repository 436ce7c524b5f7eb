//! `meshc render` without an engine (LANGUAGE.md §13.7): what it writes, with owner,
//! group and mode; what it refuses (a missing value by name, a manifest of another
//! version or changed after the build, a secrets folder open to others, a root that is a
//! link), leaving nothing half-written; values with quotes and line breaks rendered
//! through the template functions without breaking the file's syntax; and `meshc build
//! --target compose` writing the same bytes twice.

use serde_json::Value;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/command.rs"]
mod command;
use command::{meshc, said};

const MODULES: &str = r#"
contract greeting for module {
  host: hostname
  port: port
  password: secret string
}

module web {
  requires http: host port { container = 8080 }
  requires here: host node
  requires site: host directory { owner = OWNER  mode = 0o750 }
  container web {
    image "busybox:1.36"
    mount site.path -> "/www"
    publish http
  }
  provides greeting {
    host = here.private_name
    port = http.host_port
  }
}

module vault {
  container vault { image "busybox:1.36" }
  provides secret {}
}

module client {
  requires web: module greeting
  requires token: module secret
  container client {
    image "busybox:1.36"
    user OWNER
    env {
      TARGET = "${web.host}:${web.port}"
      TOKEN = token.value exposed "the image reads its token from the environment"
    }
    file "/etc/client.conf" = """
      plain = yes
      """
    file "/etc/client.ini" = """
      password = ${web.password}
      """
    secret "/run/secrets/web_password" = web.password
  }
}
"#;

const PASSWORD: &str = "p\"a'ss wo$rd\nsecond \\line";
const TOKEN: &str = "tok3nValue42";

/// A built node: the folder, its root, the manifest's path and the secrets folder.
struct Node {
    dir: tempfile::TempDir,
    root: PathBuf,
    manifest: PathBuf,
    secrets: PathBuf,
    uid: u32,
}

impl Node {
    fn render(&self) -> Output {
        meshc(
            self.dir.path(),
            &[
                "render",
                &self.manifest.display().to_string(),
                "--secrets",
                &self.secrets.display().to_string(),
                "--root",
                &self.root.display().to_string(),
            ],
        )
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&std::fs::read(&self.manifest).unwrap()).unwrap()
    }

    /// Writes `manifest` back with a digest of its own, as a build of it would.
    fn write_with_digest(&self, mut manifest: Value) {
        use sha2::{Digest, Sha256};
        manifest.as_object_mut().unwrap().remove("digest");
        let hash = Sha256::digest(meshc::emit::canonical_json(&manifest).as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        manifest["digest"] = Value::String(format!("sha256:{hex}"));
        std::fs::write(
            &self.manifest,
            serde_json::to_vec_pretty(&manifest).unwrap(),
        )
        .unwrap();
    }

    fn secret(&self, by: &str, key: &str, value: &str) {
        let path = self.secrets.join("n1").join(by).join(key);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, format!("{value}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    }

    fn files(&self) -> PathBuf {
        self.root.join(".mesh/files")
    }
}

/// Builds `modules` (`OWNER` standing for the uid running the test, so ownership can be
/// given without being root) with a mesh `t` of one node `n1` holding `assigns`, for
/// `--target compose`, and makes the secrets folder.
fn build_node(modules: &str, assigns: &str) -> Node {
    let dir = tempfile::tempdir().unwrap();
    let uid = std::fs::metadata(dir.path()).unwrap().uid();
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(
        dir.path().join("modules.mesh"),
        modules.replace("OWNER", &uid.to_string()),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("t.mesh"),
        format!(
            "mesh t {{\n  node n1 {{ private_name = \"n1.t.internal\"  private_address = \"10.9.0.1\"  root = \"{}\"  ports = 20000..20099 }}\n{assigns}}}\n",
            root.display()
        ),
    )
    .unwrap();
    let built = meshc(
        dir.path(),
        &[
            "build", "t.mesh", ".", "--out", "out", "--target", "compose",
        ],
    );
    assert_eq!(built.status.code(), Some(0), "{}", said(&built));
    let secrets = dir.path().join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    Node {
        manifest: dir.path().join("out/n1.json"),
        dir,
        root,
        secrets,
        uid,
    }
}

/// The node of [`MODULES`]: a web server, a vault and their client, with the client's
/// two secrets when `with_secrets`.
fn node(with_secrets: bool) -> Node {
    let n = build_node(
        MODULES,
        "  seat vault = vault on n1\n  assign web to n1\n  assign vault to n1\n  assign client to n1\n",
    );
    if with_secrets {
        n.secret("web", "n1_client/password", PASSWORD);
        n.secret("vault", "n1_client/value", TOKEN);
    }
    n
}

fn stat(path: &Path) -> (u32, u32, u32) {
    let m = std::fs::metadata(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (m.uid(), m.gid(), m.mode() & 0o7777)
}

#[test]
fn render_writes_every_file_with_its_owner_mode_and_content() {
    let n = node(true);
    let o = n.render();
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(!said(&o).contains("tok3n") && !said(&o).contains("wo$rd"));
    let files = n.files().join("n1_client/client");
    let uid = n.uid;
    assert_eq!(
        std::fs::read_to_string(files.join("run/secrets/web_password")).unwrap(),
        PASSWORD
    );
    assert_eq!(
        stat(&files.join("run/secrets/web_password")),
        (uid, uid, 0o440)
    );
    let manifest = n.json();
    let c = &manifest["instances"][2]["containers"][0];
    let declared = |target: &str| -> u32 {
        let f = c["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["target"] == target)
            .unwrap();
        u32::from_str_radix(f["mode"].as_str().unwrap(), 8).unwrap()
    };
    assert_eq!(
        std::fs::read_to_string(files.join("etc/client.conf")).unwrap(),
        "plain = yes\n"
    );
    assert_eq!(
        stat(&files.join("etc/client.conf")),
        (uid, uid, declared("/etc/client.conf"))
    );
    assert_eq!(
        std::fs::read_to_string(files.join("etc/client.ini")).unwrap(),
        format!("password = {PASSWORD}\n")
    );
    assert_eq!(
        stat(&files.join("etc/client.ini")),
        (uid, uid, declared("/etc/client.ini"))
    );
    // The exposed secret in the env file, single-quoted; root's, 0400.
    let env = n.files().join("n1_client/client.env");
    assert_eq!(
        std::fs::read_to_string(&env).unwrap(),
        format!("TOKEN='{TOKEN}'\n")
    );
    assert_eq!(stat(&env).2, 0o400);
    // Nothing under `.mesh` is open to other users.
    assert_eq!(stat(&n.root.join(".mesh")).2, 0o700);
    // The directory requirement, made with its owner and mode.
    let site = manifest["instances"][0]["requirements"]["site"]["path"]
        .as_str()
        .unwrap();
    assert_eq!(stat(Path::new(site)), (uid, uid, 0o750));
    // The compose file binds exactly these files.
    let yaml = std::fs::read_to_string(n.dir.path().join("out/n1/compose.yaml")).unwrap();
    assert!(yaml.contains(&format!(
        "source: \"{}\"",
        files.join("run/secrets/web_password").display()
    )));
    assert!(
        yaml.contains("      - \"10.9.0.1:20000:8080/tcp\"\n"),
        "{yaml}"
    );
    assert!(yaml.contains("      - \"n1.t.internal:10.9.0.1\"\n"));
}

#[test]
fn a_second_render_switches_the_whole_folder_and_removes_the_old_one() {
    let n = node(true);
    assert_eq!(n.render().status.code(), Some(0));
    let first = std::fs::read_link(n.files()).unwrap();
    n.secret("web", "n1_client/password", "changed");
    let o = n.render();
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let second = std::fs::read_link(n.files()).unwrap();
    assert_ne!(first, second);
    assert!(
        !n.root.join(".mesh").join(&first).exists(),
        "old folder removed"
    );
    assert_eq!(
        std::fs::read_to_string(n.files().join("n1_client/client/run/secrets/web_password"))
            .unwrap(),
        "changed"
    );
    let names: Vec<String> = std::fs::read_dir(n.root.join(".mesh"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "the link and one folder: {names:?}");
}

/// Asserts a refusal: exit 1, the message holds `want`, and nothing was written.
fn refused(n: &Node, want: &str) -> String {
    let o = n.render();
    let text = said(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains(want), "`{want}` in: {text}");
    assert!(!n.root.join(".mesh").exists(), "nothing written: {text}");
    assert!(!text.contains("tok3n") && !text.contains("wo$rd"), "{text}");
    text
}

#[test]
fn a_missing_value_is_refused_by_name_and_nothing_is_written() {
    let n = node(false);
    n.secret("vault", "n1_client/value", TOKEN);
    let text = refused(&n, "`n1/web/n1_client/password`");
    assert!(!text.contains("n1/vault/"), "only the missing one: {text}");
}

#[test]
fn a_changed_manifest_is_refused() {
    let n = node(true);
    let text = std::fs::read_to_string(&n.manifest).unwrap();
    std::fs::write(&n.manifest, text.replace("plain = yes", "plain = no")).unwrap();
    refused(&n, "does not match its digest");
}

#[test]
fn a_manifest_of_another_version_is_refused() {
    let n = node(true);
    let mut m = n.json();
    m["version"] = Value::from(2);
    n.write_with_digest(m);
    refused(&n, "another version of meshc");
    let mut m = n.json();
    m.as_object_mut().unwrap().remove("version");
    m.as_object_mut().unwrap().remove("retired");
    n.write_with_digest(m);
    refused(&n, "missing: retired");
}

#[test]
fn a_secrets_folder_open_to_others_is_refused() {
    let n = node(true);
    std::fs::set_permissions(&n.secrets, std::fs::Permissions::from_mode(0o755)).unwrap();
    refused(&n, "open to other users");
    std::fs::set_permissions(&n.secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    let value = n.secrets.join("n1/web/n1_client/password");
    std::fs::set_permissions(&value, std::fs::Permissions::from_mode(0o644)).unwrap();
    refused(&n, "readable by other users");
}

#[test]
fn a_root_that_is_a_link_is_refused() {
    let n = node(true);
    let elsewhere = n.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::remove_dir(&n.root).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &n.root).unwrap();
    let o = n.render();
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("is a link"), "{}", said(&o));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_files_folder_render_did_not_make_is_refused_and_left_alone() {
    let n = node(true);
    let files = n.files();
    std::fs::create_dir_all(&files).unwrap();
    std::fs::write(files.join("keep"), "operator's").unwrap();
    let o = n.render();
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("is not the link"), "{}", said(&o));
    assert_eq!(
        std::fs::read_to_string(files.join("keep")).unwrap(),
        "operator's"
    );
    let names: Vec<String> = std::fs::read_dir(n.root.join(".mesh"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["files"], "the new folder is removed again");
}

#[test]
fn quotes_and_line_breaks_keep_the_syntax_through_the_functions() {
    let n = node(true);
    let mut m = n.json();
    let files = m["instances"][2]["containers"][0]["files"]
        .as_array_mut()
        .unwrap();
    let ini = files
        .iter_mut()
        .find(|f| f["target"] == "/etc/client.ini")
        .unwrap();
    ini["template"] = Value::from(
        "{\"password\": ${json(web.password)}}\npassword: ${yaml(web.password)}\nurl: x://u:${url(web.password)}@h\n",
    );
    n.write_with_digest(m);
    let o = n.render();
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let text = std::fs::read_to_string(n.files().join("n1_client/client/etc/client.ini")).unwrap();
    let mut lines = text.lines();
    let json: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(json["password"], PASSWORD);
    assert_eq!(
        lines.next().unwrap(),
        r#"password: "p\"a'ss wo$rd\nsecond \\line""#
    );
    assert_eq!(
        lines.next().unwrap(),
        "url: x://u:p%22a%27ss%20wo%24rd%0Asecond%20%5Cline@h"
    );
    assert_eq!(lines.next(), None);
}

#[test]
fn an_env_value_an_env_file_cannot_carry_is_refused_by_key() {
    let n = node(true);
    n.secret("vault", "n1_client/value", "two\nlines");
    let text = refused(&n, "env `TOKEN`");
    assert!(!text.contains("two"), "{text}");
}

/// Issue 33, class 5: an exposed secret holding `${VAR}` reached the container as the
/// deployer's environment (Compose v1.29 interpolates env files, quoted or not). No `$`
/// is left for Compose to read: the value is refused by key, and never printed; a `$`
/// that Compose leaves alone is written as it is.
#[test]
fn an_exposed_secret_holding_a_variable_is_never_left_for_compose_to_interpolate() {
    let n = node(true);
    n.secret("vault", "n1_client/value", "s3cr${HOME}t");
    let text = refused(&n, "env `TOKEN`");
    assert!(text.contains("`${`"), "{text}");
    assert!(!text.contains("s3cr"), "{text}");
    let n = node(true);
    n.secret("vault", "n1_client/value", "s3cr$HOME$$t");
    let rendered = n.render();
    assert_eq!(rendered.status.code(), Some(0), "{}", said(&rendered));
    let env = std::fs::read_to_string(n.files().join("n1_client/client.env")).unwrap();
    assert!(env.contains("TOKEN='s3cr$HOME$$t'\n"), "{env}");
}

#[test]
fn the_compose_target_writes_the_same_bytes_twice() {
    let n = node(false);
    let yaml = |n: &Node| std::fs::read(n.dir.path().join("out/n1/compose.yaml")).unwrap();
    let first = yaml(&n);
    let again = meshc(
        n.dir.path(),
        &[
            "build", "t.mesh", ".", "--out", "out", "--target", "compose",
        ],
    );
    assert_eq!(again.status.code(), Some(0), "{}", said(&again));
    assert_eq!(yaml(&n), first);
    let mut listing: Vec<String> = std::fs::read_dir(n.dir.path().join("out/n1"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    listing.sort();
    // The project's `.env` (its name) beside the file, and nothing staged.
    assert_eq!(listing, [".env", "compose.yaml"], "nothing staged is left");
}

#[test]
fn a_private_address_that_is_no_ip_address_is_refused() {
    let n = node(false);
    let mesh = std::fs::read_to_string(n.dir.path().join("t.mesh")).unwrap();
    std::fs::write(
        n.dir.path().join("t.mesh"),
        mesh.replace("10.9.0.1", "10.9.0.300"),
    )
    .unwrap();
    let o = meshc(
        n.dir.path(),
        &[
            "build", "t.mesh", ".", "--out", "out2", "--target", "compose",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("E0314"), "{}", said(&o));
    assert!(said(&o).contains("not an IP address"), "{}", said(&o));
}

/// LANGUAGE.md §12.3: a provider's sealed template rendered for each consumer keeps one
/// reference per consumer, and the host fills each with that consumer's own secret.
#[test]
fn a_loop_over_consumers_renders_each_consumers_secret() {
    let modules = r#"
module relay {
  requires here: host node
  requires p: host port { container = 587 }
  requires sender: operator email
  provides smtp {
    host = here.private_name
    port = p.host_port
    user = consumer.login
    from = sender
  }
  container relay {
    image "busybox:1.36"
    user OWNER
    publish p
    file "/etc/sasl_users" = for c in consumers smtp "${c.user}:${c.password}\n"
  }
}

module app {
  requires mail: module smtp
  container app {
    image "busybox:1.36"
    user OWNER
    secret "/run/secrets/smtp_password" = mail.password
  }
}
"#;
    let n = build_node(
        modules,
        "  assign relay to n1 { sender = \"noreply@example.org\" }\n  assign app to n1 as one\n  assign app to n1 as two\n",
    );
    let manifest = n.json();
    let logins: Vec<String> = manifest["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["module"] == "app")
        .map(|i| i["login"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(logins.len(), 2);
    for (login, password) in logins.iter().zip(["first-Secret-1", "second-Secret-2"]) {
        n.secret("relay", &format!("{login}/password"), password);
    }
    let o = n.render();
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(!said(&o).contains("Secret-"));
    let relay_login = manifest["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["module"] == "relay")
        .unwrap()["login"]
        .as_str()
        .unwrap()
        .to_string();
    let users =
        std::fs::read_to_string(n.files().join(&relay_login).join("relay/etc/sasl_users")).unwrap();
    assert_eq!(
        users,
        format!(
            "{}:first-Secret-1\n{}:second-Secret-2\n",
            logins[0], logins[1]
        )
    );
}

// Issue 33, class 1: the manifest is input from elsewhere. Its digest is a plain SHA-256
// anyone who can edit the file recomputes (`write_with_digest` does), so each attack
// below is written with a valid digest.

/// Every entry under `dir`, recursively, as paths relative to it: what a refused render
/// must leave exactly as it was.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
            if e.file_type().unwrap().is_dir() {
                todo.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Applies `edit` to the manifest (digest recomputed), renders, and asserts a refusal
/// holding `want` that wrote nothing anywhere in the test's folder.
fn attack(edit: impl FnOnce(&mut Value), want: &str) -> String {
    let n = node(true);
    let mut m = n.json();
    edit(&mut m);
    n.write_with_digest(m);
    let before = tree(n.dir.path());
    let text = refused(&n, want);
    assert_eq!(tree(n.dir.path()), before, "nothing written: {text}");
    text
}

#[test]
fn render_refuses_a_login_that_climbs_out_of_the_root() {
    attack(
        |m| m["instances"][2]["login"] = Value::from("../../../escaped"),
        "the login `../../../escaped` holds a `/`",
    );
    attack(
        |m| m["instances"][2]["login"] = Value::from(".."),
        "starts with a `.`",
    );
    attack(|m| m["instances"][2]["login"] = Value::from(""), "is empty");
}

#[test]
fn render_refuses_a_container_name_that_climbs_out_of_the_root() {
    attack(
        |m| m["instances"][2]["containers"][0]["name"] = Value::from("../../../../escaped"),
        "the container `../../../../escaped` holds a `/`",
    );
}

#[test]
fn render_refuses_a_name_holding_a_control_character_and_never_prints_it_raw() {
    let text = attack(
        |m| m["instances"][2]["login"] = Value::from("n1\u{1b}[2Jclient"),
        "holds a control or formatting character",
    );
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("\\u{1b}"), "{text:?}");
}

#[test]
fn render_refuses_a_file_target_that_climbs_out_of_its_container_folder() {
    attack(
        |m| m["instances"][2]["containers"][0]["files"][0]["target"] = Value::from("/../../x"),
        "not an absolute, normalised path",
    );
}

#[test]
fn render_refuses_a_secret_reference_that_climbs_out_of_the_secrets_folder() {
    let n = node(true);
    // A value planted beside the secrets folder: a reference climbing to it is refused,
    // not read.
    std::fs::write(n.dir.path().join("planted"), "outside").unwrap();
    let mut m = n.json();
    m["instances"][2]["containers"][0]["secrets"][0]["sealed"]["by"]["node"] = Value::from("..");
    m["instances"][2]["containers"][0]["secrets"][0]["sealed"]["key"] = Value::from("planted");
    n.write_with_digest(m);
    refused(&n, "is no path in the secrets folder");
}

#[test]
fn render_never_writes_a_setuid_setgid_or_sticky_mode() {
    for mode in ["4755", "2755", "1777", "6711"] {
        attack(
            |m| m["instances"][2]["containers"][0]["files"][0]["mode"] = Value::from(mode),
            "sets a setuid, setgid or sticky bit",
        );
    }
    attack(
        |m| m["instances"][0]["requirements"]["site"]["mode"] = Value::from("4750"),
        "sets a setuid, setgid or sticky bit",
    );
}

#[test]
fn render_refuses_an_owner_that_chown_reads_as_unchanged() {
    attack(
        |m| m["instances"][2]["containers"][0]["files"][0]["owner"] = Value::from(4294967295u64),
        "is not a user or group number",
    );
}

#[test]
fn render_refuses_a_directory_requirement_at_a_system_folder_or_in_the_mesh_folder() {
    for path in ["/etc/cron.d", "/", "/usr", "/srv/../etc"] {
        attack(
            |m| m["instances"][0]["requirements"]["site"]["path"] = Value::from(path),
            "directory `site`",
        );
    }
    let n = node(true);
    let mut m = n.json();
    m["instances"][0]["requirements"]["site"]["path"] =
        Value::from(n.root.join(".mesh/files").display().to_string());
    n.write_with_digest(m);
    refused(&n, "the `.mesh` folder holding every secret file");
}

#[test]
fn render_refuses_two_files_at_one_path() {
    attack(
        |m| {
            let files = m["instances"][2]["containers"][0]["files"]
                .as_array_mut()
                .unwrap();
            let mut twin = files[0].clone();
            twin["content"] = Value::from("other");
            files.push(twin);
        },
        "two files are written at",
    );
}

/// Issue 33, class 10: a folder in the way of a directory requirement was found after
/// the files had been written and switched in, and the refusal said "nothing was
/// written". It is found before anything is written now.
#[test]
fn a_folder_in_the_way_of_a_directory_requirement_is_refused_before_anything_is_written() {
    let n = node(true);
    let site = n.json()["instances"][0]["requirements"]["site"]["path"]
        .as_str()
        .unwrap()
        .to_string();
    std::fs::create_dir_all(Path::new(&site).parent().unwrap()).unwrap();
    std::fs::write(&site, "a file where the folder goes").unwrap();
    let text = refused(&n, "is in the way of a directory requirement");
    assert!(text.contains("nothing was written"), "{text}");
    // A file standing where a parent folder goes is found as early.
    std::fs::remove_file(&site).unwrap();
    let parent = Path::new(&site).parent().unwrap();
    std::fs::remove_dir_all(parent).unwrap();
    std::fs::write(parent, "a file where a parent goes").unwrap();
    refused(&n, "is in the way of the directory requirement");
}

/// Runs render with `manifest` and asserts it ends, refused, within ten seconds.
fn render_ends(n: &Node, manifest: &Path, want: &str) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args([
            "render",
            &manifest.display().to_string(),
            "--secrets",
            &n.secrets.display().to_string(),
            "--root",
            &n.root.display().to_string(),
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("render of `{}` did not end", manifest.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    let text = said(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains(want), "`{want}` in: {text}");
    assert!(!n.root.join(".mesh").exists(), "{text}");
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo runs");
}

/// Issue 33, class 9: `/dev/zero` as the manifest read until memory ran out; a named
/// pipe as the manifest or as a secret value waited forever.
#[test]
fn render_of_a_device_or_a_pipe_ends_with_a_refusal() {
    let n = node(true);
    render_ends(&n, Path::new("/dev/zero"), "a device, not a regular file");
    let link = n.dir.path().join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    render_ends(&n, &link, "a device, not a regular file");
    let pipe = n.dir.path().join("pipe.json");
    mkfifo(&pipe);
    render_ends(&n, &pipe, "a named pipe, not a regular file");
    // A secret value that is a pipe, a device, or a link to one.
    let value = n.secrets.join("n1/web/n1_client/password");
    std::fs::remove_file(&value).unwrap();
    mkfifo(&value);
    render_ends(&n, &n.manifest, "a named pipe, not a regular file");
    std::fs::remove_file(&value).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &value).unwrap();
    render_ends(&n, &n.manifest, "a device, not a regular file");
}

/// Render's refusal names every missing value, not the first eight.
#[test]
fn every_missing_value_is_named() {
    let n = build_node(
        MODULES,
        &(0..12)
            .map(|i| format!("  assign client to n1 as c{i}\n"))
            .chain([
                "  seat vault = vault on n1\n  assign web to n1\n  assign vault to n1\n"
                    .to_string(),
            ])
            .collect::<String>(),
    );
    let o = n.render();
    let text = said(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("no value for 24 secrets"), "{text}");
    for i in 0..12 {
        assert!(
            text.contains(&format!("`n1/web/n1_client_c{i}/password`")),
            "{text}"
        );
        assert!(
            text.contains(&format!("`n1/vault/n1_client_c{i}/value`")),
            "{text}"
        );
    }
}

/// Issue 33, class 9, on a swarm's manager: `meshc render --swarm` read the stack (and
/// the manifests beside it) unbounded, so a named pipe put in its place waited forever.
#[test]
fn render_swarm_of_a_pipe_for_a_stack_ends_with_a_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let built = dir.path().join("out");
    std::fs::create_dir_all(built.join("swarm")).unwrap();
    mkfifo(&built.join("swarm/stack.yaml"));
    let secrets = dir.path().join("secrets");
    std::fs::create_dir(&secrets).unwrap();
    std::fs::set_permissions(&secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_meshc"))
        .args(command::RENDER_SWARM)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("render --swarm of a pipe did not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    let text = said(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("a named pipe, not a regular file"), "{text}");
    assert!(!dir.path().join("stage/stack.env").exists());
}
