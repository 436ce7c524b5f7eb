//! `meshc secrets` (issue 35): every value render will read, laid out as render reads it;
//! minted as the vault would mint it (length, alphabet, 0400 in 0700 folders), never
//! overwriting a value, and every operator secret listed with the file it goes in.

use serde_json::Value;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

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
  requires key: module secret { length = 40  alphabet = "hex" }
  requires api: operator secret string
  container web {
    image "busybox:1.36"
    user 1000
    publish http
    secret "/run/k" = key.value
    secret "/run/api" = api
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
    user 1000
    env { TOKEN = token.value exposed "the image reads it from the environment" }
    file "/etc/client.ini" = """
      password = ${json(web.password)}
      """
  }
}
"#;

struct Built {
    dir: tempfile::TempDir,
    secrets: PathBuf,
}

impl Built {
    fn run(&self, args: &[&str]) -> std::process::Output {
        meshc(self.dir.path(), args)
    }

    fn secrets(&self, manifests: &[&str], json: bool) -> std::process::Output {
        let mut args = vec!["secrets"];
        args.extend(manifests);
        args.extend(["--secrets", "secrets"]);
        if json {
            args.extend(["--format", "json"]);
        }
        self.run(&args)
    }

    fn value(&self, name: &str) -> String {
        std::fs::read_to_string(self.secrets.join(name)).unwrap()
    }
}

/// Builds `MODULES` into a mesh `t` with the nodes and assignments of `body`.
fn build(body: &str) -> Built {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("modules.mesh"), MODULES).unwrap();
    std::fs::write(dir.path().join("t.mesh"), format!("mesh t {{\n{body}}}\n")).unwrap();
    let o = meshc(
        dir.path(),
        &[
            "build", "t.mesh", ".", "--out", "out", "--target", "compose",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    Built {
        secrets: dir.path().join("secrets"),
        dir,
    }
}

fn one_node() -> Built {
    build(
        "  node n1 { private_name = \"n1.t.internal\"  root = \"/srv/t\"  ports = 20000..20099 }\n  seat vault = vault on n1\n  assign web to n1\n  assign vault to n1\n  assign client to n1\n",
    )
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().mode() & 0o7777
}

#[test]
fn secrets_mints_what_the_vault_would_and_lists_the_operators_values_then_render_runs() {
    let b = one_node();
    let o = b.secrets(&["out/n1.json"], false);
    let text = said(&o);
    // One operator secret is left: exit 1, named with the file it goes in.
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("3 values minted"), "{text}");
    assert!(
        text.contains("1 value only the operator can give"),
        "{text}"
    );
    assert!(
        text.contains("secrets/n1/vault/n1_web/api` ← `api` of `n1_web`"),
        "{text}"
    );
    // The vault's terms: 40 hex digits for `web`, the default 32 alnum for `client`.
    let key = b.value("n1/vault/n1_web/value");
    assert_eq!(key.len(), 40);
    assert!(
        key.bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    let token = b.value("n1/vault/n1_client/value");
    assert_eq!(token.len(), 32);
    assert!(token.bytes().all(|c| c.is_ascii_alphanumeric()));
    let password = b.value("n1/web/n1_client/password");
    assert_eq!(password.len(), 32);
    for v in [&key, &token, &password] {
        assert!(!text.contains(v.as_str()), "a value printed: {text}");
    }
    // Laid out as render reads it: 0400 values in 0700 folders.
    assert_eq!(mode(&b.secrets.join("n1/vault/n1_web/value")), 0o400);
    for folder in ["", "n1", "n1/vault", "n1/vault/n1_web", "n1/web/n1_client"] {
        assert_eq!(mode(&b.secrets.join(folder)), 0o700, "{folder}");
    }
    // The operator gives their value; everything is in place; render runs.
    std::fs::write(b.secrets.join("n1/vault/n1_web/api"), "operator's key\n").unwrap();
    std::fs::set_permissions(
        b.secrets.join("n1/vault/n1_web/api"),
        std::fs::Permissions::from_mode(0o400),
    )
    .unwrap();
    let o = b.secrets(&["out/n1.json"], false);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(
        said(&o).contains("0 values minted, 4 already in"),
        "{}",
        said(&o)
    );
    assert_eq!(b.value("n1/vault/n1_web/value"), key, "never minted again");
    let root = b.dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    let o = b.run(&[
        "render",
        "out/n1.json",
        "--secrets",
        "secrets",
        "--root",
        &root.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(
        std::fs::read_to_string(root.join(".mesh/files/n1_web/web/run/k")).unwrap(),
        key
    );
}

#[test]
fn secrets_never_overwrites_a_value_nor_writes_through_a_link() {
    let b = one_node();
    std::fs::create_dir_all(b.secrets.join("n1/vault/n1_web")).unwrap();
    std::fs::set_permissions(&b.secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(b.secrets.join("n1/vault/n1_web/value"), "kept as it is").unwrap();
    // A link planted where a value goes, to a file outside: left alone, never written.
    let victim = b.dir.path().join("victim");
    std::fs::write(&victim, "untouched").unwrap();
    std::fs::create_dir_all(b.secrets.join("n1/web/n1_client")).unwrap();
    std::os::unix::fs::symlink(&victim, b.secrets.join("n1/web/n1_client/password")).unwrap();
    // A link planted where a folder goes.
    let elsewhere = b.dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, b.secrets.join("n1/vault/n1_client")).unwrap();
    let o = b.secrets(&["out/n1.json"], false);
    let text = said(&o);
    assert_eq!(b.value("n1/vault/n1_web/value"), "kept as it is");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0, "{text}");
    assert!(
        text.contains("is not a folder (a link or a file)"),
        "{text}"
    );
    assert_eq!(o.status.code(), Some(2), "{text}");
}

#[test]
fn every_operator_secret_is_listed_not_the_first_eight() {
    let assigns: String = (0..12)
        .map(|i| format!("  assign web to n1 as w{i}\n"))
        .collect();
    let b = build(&format!(
        "  node n1 {{ private_name = \"n1.t.internal\"  root = \"/srv/t\"  ports = 20000..20099 }}\n  seat vault = vault on n1\n  assign vault to n1\n{assigns}"
    ));
    let o = b.secrets(&["out/n1.json"], true);
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let operator = json["operator"].as_array().unwrap();
    assert_eq!(operator.len(), 12, "{json}");
    for i in 0..12 {
        let login = format!("n1_web_w{i}");
        assert!(
            operator.iter().any(|o| o["login"] == login.as_str()
                && o["requirement"] == "api"
                && o["file"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("n1/vault/{login}/api"))),
            "{login} in {json}"
        );
    }
    assert_eq!(json["minted"].as_array().unwrap().len(), 12);
    let human = b.secrets(&["out/n1.json"], false);
    assert_eq!(said(&human).matches("← `api` of `n1_web_w").count(), 12);
}

#[test]
fn a_vault_on_another_node_mints_with_the_length_its_manifest_gives() {
    let b = build(
        "  node n1 { private_name = \"n1.t.internal\"  root = \"/srv/t\"  ports = 20000..20099 }\n  node n2 { private_name = \"n2.t.internal\"  root = \"/srv/t\"  ports = 20000..20099 }\n  seat vault = vault on n2\n  assign vault to n2\n  assign web to n1\n",
    );
    // The vault's manifest is not given: its length is not known, so nothing is guessed.
    let o = b.secrets(&["out/n1.json"], true);
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        json["unknown"][0]["name"], "n2/vault/n1_web/value",
        "{json}"
    );
    assert_eq!(json["unknown"][0]["manifest_of"], "n2");
    assert!(!b.secrets.join("n2/vault/n1_web/value").exists());
    // Both manifests: minted with the vault's terms, in one folder for the whole mesh.
    let o = b.secrets(&["out/n1.json", "out/n2.json"], true);
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(json["unknown"].as_array().unwrap().is_empty(), "{json}");
    assert_eq!(b.value("n2/vault/n1_web/value").len(), 40);
}

#[test]
fn a_secrets_folder_open_to_others_and_a_changed_manifest_are_refused() {
    let b = one_node();
    std::fs::create_dir(&b.secrets).unwrap();
    std::fs::set_permissions(&b.secrets, std::fs::Permissions::from_mode(0o755)).unwrap();
    let o = b.secrets(&["out/n1.json"], false);
    assert_eq!(o.status.code(), Some(1));
    assert!(said(&o).contains("open to other users"), "{}", said(&o));
    assert_eq!(std::fs::read_dir(&b.secrets).unwrap().count(), 0);
    std::fs::set_permissions(&b.secrets, std::fs::Permissions::from_mode(0o700)).unwrap();
    let manifest = b.dir.path().join("out/n1.json");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("n1_web/value", "../../../x")).unwrap();
    let o = b.secrets(&["out/n1.json"], false);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        said(&o).contains("does not match its digest"),
        "{}",
        said(&o)
    );
    assert_eq!(std::fs::read_dir(&b.secrets).unwrap().count(), 0);
}
