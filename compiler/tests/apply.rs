//! `meshc apply` (LANGUAGE.md §14.3) against stand-ins for `docker` and `docker-compose`
//! that record every command they are given and answer queries from files: which
//! commands run, in which order, with which services, what `--dry-run` leaves alone, and
//! each exit status. `engine_compose.rs` runs apply on the real engine.

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Output;

#[path = "support/command.rs"]
mod command;
use command::said;

const MODULES: &str = r#"
module web {
  requires http: host port { container = 8080 }
  requires key: module secret { length = 40  alphabet = "hex" }
  container web {
    image "busybox:1.36"
    user 1000
    publish http
    secret "/run/k" = key.value
  }
}
module vault {
  container vault { image "busybox:1.36" }
  provides secret {}
}
module setup {
  container setup { image "busybox:1.36"  command ["true"] }
}
"#;

/// `docker`: `compose version` answers as `FAKE_PLUGIN` says, `info` as `FAKE_INFO`,
/// `ps` and `network ls` with the files `ps` and `networks`; everything is logged.
const DOCKER: &str = r#"#!/bin/sh
PATH=/usr/bin:/bin
echo "docker $*" >> "$FAKE_DIR/log"
case "$1 $2" in
  "compose version") [ -n "$FAKE_PLUGIN" ] && exit 0; exit 1 ;;
  "compose "*) [ -n "$FAKE_UP_FAILS" ] && exit 1; exit 0 ;;
esac
case "$1" in
  info) exit "${FAKE_INFO:-0}" ;;
  ps) cat "$FAKE_DIR/ps" 2>/dev/null; exit 0 ;;
  network) [ "$2" = ls ] && cat "$FAKE_DIR/networks" 2>/dev/null; exit 0 ;;
esac
exit 0
"#;

const COMPOSE: &str = r#"#!/bin/sh
PATH=/usr/bin:/bin
echo "docker-compose $*" >> "$FAKE_DIR/log"
[ "$1" = version ] && exit 0
[ -n "$FAKE_UP_FAILS" ] && { echo "ERROR: for web  Cannot start service" >&2; exit 1; }
exit 0
"#;

struct Node {
    dir: tempfile::TempDir,
    fake: PathBuf,
    root: PathBuf,
    manifest: PathBuf,
    compose: PathBuf,
}

impl Node {
    fn apply(&self, extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_meshc"));
        c.args([
            "apply",
            &self.manifest.display().to_string(),
            "--secrets",
            "secrets",
            "--root",
            &self.root.display().to_string(),
        ])
        .args(extra)
        .current_dir(self.dir.path())
        // Only the stand-ins: never the machine's own `docker` or `docker-compose`.
        .env("PATH", self.fake.join("bin"))
        .env("FAKE_DIR", &self.fake)
        .env_remove("FAKE_PLUGIN");
        for (k, v) in env {
            c.env(k, v);
        }
        let _ = std::fs::remove_file(self.fake.join("log"));
        c.output().unwrap()
    }

    /// The commands the stand-ins were given that change something.
    fn changes(&self) -> Vec<String> {
        std::fs::read_to_string(self.fake.join("log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains(" up ") || l.contains("network rm"))
            .map(str::to_string)
            .collect()
    }

    fn containers(&self, lines: &[String]) {
        std::fs::write(self.fake.join("ps"), lines.join("\n") + "\n").unwrap();
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&std::fs::read(&self.manifest).unwrap()).unwrap()
    }

    fn write_with_digest(&self, mut manifest: Value) {
        use sha2::{Digest, Sha256};
        manifest.as_object_mut().unwrap().remove("digest");
        let hash = Sha256::digest(meshc::emit::canonical_json(&manifest).as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        manifest["digest"] = Value::String(format!("sha256:{hex}"));
        std::fs::write(&self.manifest, serde_json::to_vec(&manifest).unwrap()).unwrap();
    }

    fn key(&self) -> PathBuf {
        self.dir.path().join("secrets/n1/vault/n1_web/value")
    }
}

fn node() -> Node {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("modules.mesh"), MODULES).unwrap();
    std::fs::write(
        dir.path().join("t.mesh"),
        "mesh t {\n  node n1 { private_name = \"n1.t.internal\"  private_address = \"10.9.0.1\"  ports = 20000..20099 }\n  seat vault = vault on n1\n  assign web to n1\n  assign vault to n1\n  assign setup to n1\n}\n",
    )
    .unwrap();
    let o = command::meshc(
        dir.path(),
        &[
            "build", "t.mesh", ".", "--out", "proj", "--target", "compose",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let o = command::meshc(
        dir.path(),
        &["secrets", "proj/n1.json", "--secrets", "secrets"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    let fake = dir.path().join("fake");
    std::fs::create_dir_all(fake.join("bin")).unwrap();
    for (name, text) in [("docker", DOCKER), ("docker-compose", COMPOSE)] {
        let p = fake.join("bin").join(name);
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let root = dir.path().join("root");
    std::fs::create_dir(&root).unwrap();
    Node {
        manifest: dir.path().join("proj/n1.json"),
        compose: dir.path().join("proj/n1/compose.yaml"),
        dir,
        fake,
        root,
    }
}

fn running(service: &str, id: &str) -> String {
    format!("{service}\t{id}\trunning\tUp 2 minutes\t")
}

fn up(n: &Node, tail: &str) -> String {
    format!(
        "docker-compose -p t-n1 -f {} up -d {tail}",
        n.compose.display()
    )
}

#[test]
fn apply_recreates_exactly_the_services_whose_rendered_files_changed() {
    let n = node();
    // Containers from an earlier `docker-compose up`, run before any apply: the files
    // they bound are not known to be these, so each is recreated once.
    n.containers(&[
        running("web", "a1"),
        running("vault", "b1"),
        running("setup", "c1"),
    ]);
    let o = n.apply(&[], &[]);
    let text = said(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert_eq!(
        n.changes(),
        [
            up(&n, "--remove-orphans"),
            up(&n, "--no-deps --force-recreate setup vault web"),
        ],
        "{text}"
    );
    // Every command is printed before it runs.
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains(&format!("$ {}", up(&n, "--remove-orphans"))),
        "{stdout}"
    );
    assert!(n.root.join(".mesh/files/n1_web/web/run/k").exists());
    // Nothing changed: `up` alone.
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(n.changes(), [up(&n, "--remove-orphans")]);
    // A rotated secret value: exactly its service is recreated.
    std::fs::set_permissions(n.key(), std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(n.key(), "0123456789abcdef0123456789abcdef01234567").unwrap();
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(
        n.changes(),
        [
            up(&n, "--remove-orphans"),
            up(&n, "--no-deps --force-recreate web"),
        ]
    );
    // No value in any output.
    assert!(!said(&o).contains("0123456789abcdef"), "{}", said(&o));
    // A service step 1 recreated (its container is new) is not recreated twice: the
    // stand-in lists a new id only after `up`, so here it lists none before.
    std::fs::write(n.key(), "fedcba9876543210fedcba9876543210fedcba98").unwrap();
    n.containers(&[running("vault", "b1"), running("setup", "c1")]);
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(n.changes(), [up(&n, "--remove-orphans")]);
}

#[test]
fn a_dry_run_prints_the_commands_and_changes_nothing() {
    let n = node();
    n.containers(&[running("web", "a1")]);
    std::fs::write(n.fake.join("networks"), "n1_gone\tgone\nn1_web\tn1_web\n").unwrap();
    let o = n.apply(&["--dry-run"], &[]);
    let text = said(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(n.changes().is_empty(), "{:?}", n.changes());
    assert!(!n.root.join(".mesh").exists(), "nothing rendered");
    let stdout = String::from_utf8_lossy(&o.stdout);
    for line in [
        format!("$ {}", up(&n, "--remove-orphans")),
        format!("$ {}", up(&n, "--no-deps --force-recreate web")),
        "$ docker network rm n1_gone".to_string(),
    ] {
        assert!(stdout.contains(&line), "`{line}` in {stdout}");
    }
    assert!(!stdout.contains("network rm n1_web"), "{stdout}");
}

#[test]
fn networks_of_the_project_the_manifest_no_longer_names_are_removed() {
    let n = node();
    std::fs::write(
        n.fake.join("networks"),
        "n1_n1_old\tn1_old\nn1_n1_web\tn1_web\nn1_n1_vault\tn1_vault\n",
    )
    .unwrap();
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(
        n.changes(),
        [
            up(&n, "--remove-orphans"),
            "docker network rm n1_n1_old".to_string()
        ]
    );
}

#[test]
fn no_compose_or_no_engine_is_exit_2_and_nothing_is_rendered() {
    let n = node();
    std::fs::remove_file(n.fake.join("bin/docker-compose")).unwrap();
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(said(&o).contains("no Docker Compose found"), "{}", said(&o));
    assert!(!n.root.join(".mesh").exists());
    // The plugin, where present, is used.
    let o = n.apply(&[], &[("FAKE_PLUGIN", "1")]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("$ docker compose -p t-n1 -f "),
        "{}",
        said(&o)
    );
    let n = node();
    let o = n.apply(&[], &[("FAKE_INFO", "1")]);
    assert_eq!(o.status.code(), Some(2), "{}", said(&o));
    assert!(
        said(&o).contains("no Docker Engine answers"),
        "{}",
        said(&o)
    );
    assert!(n.changes().is_empty());
    assert!(!n.root.join(".mesh").exists());
}

#[test]
fn a_failed_command_is_exit_1_and_the_next_apply_recreates_again() {
    let n = node();
    n.containers(&[
        running("web", "a1"),
        running("vault", "b1"),
        running("setup", "c1"),
    ]);
    let o = n.apply(&[], &[("FAKE_UP_FAILS", "1")]);
    let text = said(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("Cannot start service"),
        "its output is shown: {text}"
    );
    assert!(text.contains("failed"), "{text}");
    assert!(!n.root.join(".mesh/applied.json").exists());
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(n.changes().len(), 2, "recreated: {:?}", n.changes());
}

#[test]
fn render_refusing_stops_apply_before_any_command() {
    let n = node();
    std::fs::remove_file(n.key()).unwrap();
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", said(&o));
    assert!(said(&o).contains("no value for 1 secret"), "{}", said(&o));
    assert!(n.changes().is_empty());
}

/// Issue 35: Compose starts an exited container again on `up`, so a plain `up -d` ran a
/// finished job once more. A job that completed for its current digest is left out.
#[test]
fn a_job_that_completed_for_its_digest_is_not_started_again() {
    let n = node();
    let mut m = n.json();
    m["instances"][2]["containers"][0]["job"] = Value::Bool(true);
    let entry = m["instances"][2]["containers"][0].clone();
    n.write_with_digest(m);
    let digest = {
        use sha2::{Digest, Sha256};
        let v = serde_json::json!({"node": "n1", "login": "n1_setup", "container": entry});
        let hash = Sha256::digest(meshc::emit::canonical_json(&v).as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    };
    n.containers(&[running("web", "a1"), running("vault", "b1")]);
    assert_eq!(n.apply(&[], &[]).status.code(), Some(0));
    // The job ran to completion, exit 0, under its digest: left alone.
    let done = format!("setup\tc1\texited\tExited (0) 1 minute ago\t{digest}");
    n.containers(&[running("web", "a1"), running("vault", "b1"), done.clone()]);
    let o = n.apply(&[], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", said(&o));
    assert_eq!(
        n.changes(),
        [up(&n, "--remove-orphans --no-deps web vault")],
        "{}",
        said(&o)
    );
    assert!(said(&o).contains("job `setup` completed for its digest"));
    // Failed, or completed under another digest: run again.
    for other in [
        format!("setup\tc1\texited\tExited (1) 1 minute ago\t{digest}"),
        "setup\tc1\texited\tExited (0) 1 minute ago\tsha256:00".to_string(),
    ] {
        n.containers(&[running("web", "a1"), running("vault", "b1"), other]);
        let o = n.apply(&[], &[]);
        assert_eq!(n.changes(), [up(&n, "--remove-orphans")], "{}", said(&o));
    }
}
