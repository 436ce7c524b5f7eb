//! `meshc migrate` round trip: a workspace in the old forms builds, migrates (a diff
//! without `--write`, the files rewritten with it), passes `meshc check --deny old-forms`,
//! and builds again with the same host paths; comments survive.

use serde_json::Value;
use std::path::Path;

#[path = "support/command.rs"]
mod command;
use command::meshc;

const APP: &str = r#"// The app, still written in the old forms.

/// A small web application.
module app {
  requires http: host port { container = 8080 }
  requires workers: operator int = 2
  container app {
    image "example/app:1.0"
    env {
      // where it listens
      LISTEN = "0.0.0.0:${port:http}"
      WORKERS = "${setting:workers}"
      NODE = "${machine:hostname}"
      DATA = "/var/lib/app"
    }
    mount "/srv/app/data" -> "/var/lib/app"
    mount "/srv/app/logs" -> "/var/log/app" read_only // logs are shipped elsewhere
    publish http
  }
}

module worker {
  container worker {
    image "example/worker:1.0"
    mount "/srv/shared/spool" -> "/spool"
  }
}
"#;

const MESH: &str = r#"// Two machines.
mesh lab {
  node alpha { private_name = "alpha.lab.internal" }
  node beta { private_name = "beta.lab.internal" }

  assign app to alpha
  // the second one
  assign app to beta { workers = 4 }
  assign worker to alpha
  assign worker to alpha as worker2 { short = "w2" }
}
"#;

/// A container's mounts: node, container, and (host, container path, read-only) each.
type ContainerMounts = (String, String, Vec<(String, String, bool)>);

/// Node `node`'s manifest in the build folder `out`.
fn manifest(dir: &Path, out: &str, node: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(dir.join(out).join(format!("{node}.json"))).unwrap(),
    )
    .unwrap()
}

/// Every container's mounts, by node and container name.
fn mounts(dir: &Path, out: &str) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for node in ["alpha", "beta"] {
        let m = manifest(dir, out, node);
        assert!(m["left_out"].as_array().is_none_or(Vec::is_empty), "{m}");
        for i in m["instances"].as_array().unwrap() {
            for c in i["containers"].as_array().unwrap() {
                all.push((
                    node.to_string(),
                    c["name"].as_str().unwrap().to_string(),
                    c["mounts"].clone(),
                ));
            }
        }
    }
    all
}

#[test]
fn the_old_forms_migrate_and_build_with_the_same_host_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("app.mesh"), APP).unwrap();
    std::fs::write(dir.join("lab.mesh"), MESH).unwrap();

    let denied = meshc(dir, &["check", "--deny", "old-forms", "--format", "json"]);
    assert_eq!(
        denied.status.code(),
        Some(1),
        "the old forms are there to migrate"
    );
    let before = meshc(dir, &["build", "lab.mesh", ".", "--out", "before"]);
    assert_eq!(before.status.code(), Some(0), "{}", command::said(&before));

    // Without --write: a unified diff, nothing changed.
    let diff = meshc(dir, &["migrate"]);
    assert_eq!(diff.status.code(), Some(0), "{}", command::said(&diff));
    let shown = String::from_utf8_lossy(&diff.stdout).to_string();
    assert!(
        shown.contains("--- a/app.mesh\n+++ b/app.mesh\n"),
        "{shown}"
    );
    assert!(
        shown.contains("-      LISTEN = \"0.0.0.0:${port:http}\""),
        "{shown}"
    );
    assert!(
        shown.contains("+      LISTEN = \"0.0.0.0:${http.host_port}\""),
        "{shown}"
    );
    assert!(
        shown.contains(
            "+  assign app to alpha { app at \"/srv/app/data\"  logs at \"/srv/app/logs\" }"
        ),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("app.mesh")).unwrap(), APP);
    assert_eq!(std::fs::read_to_string(dir.join("lab.mesh")).unwrap(), MESH);

    // With --write: the files are rewritten, formatted, comments kept.
    let write = meshc(dir, &["migrate", "--write"]);
    assert_eq!(write.status.code(), Some(0), "{}", command::said(&write));
    assert!(
        command::said(&write).contains("migrated 2 files"),
        "{}",
        command::said(&write)
    );
    let app = std::fs::read_to_string(dir.join("app.mesh")).unwrap();
    let lab = std::fs::read_to_string(dir.join("lab.mesh")).unwrap();
    for comment in [
        "// The app, still written in the old forms.",
        "/// A small web application.",
        "// where it listens",
        "// logs are shipped elsewhere",
    ] {
        assert!(app.contains(comment), "{comment} lost:\n{app}");
    }
    assert!(
        lab.contains("// the second one") && lab.contains("// Two machines."),
        "{lab}"
    );
    assert!(app.contains("requires here: host node"), "{app}");
    assert!(app.contains("NODE = \"${here.private_name}\""), "{app}");
    assert!(app.contains("WORKERS = \"${workers}\""), "{app}");
    assert!(app.contains("mount app.path -> \"/var/lib/app\""), "{app}");
    assert!(app.contains("requires app: host directory"), "{app}");
    assert!(
        app.contains("mount logs.path -> \"/var/log/app\" read_only // logs are shipped elsewhere"),
        "{app}"
    );
    // The worker is assigned twice on one node: one shared place, so `access`.
    assert!(
        app.contains("requires spool: host access { write = true }"),
        "{app}"
    );
    assert_eq!(lab.matches("app at \"/srv/app/data\"").count(), 2, "{lab}");
    assert_eq!(
        lab.matches("spool at \"/srv/shared/spool\"").count(),
        2,
        "{lab}"
    );
    let fmt = meshc(dir, &["fmt", "--check"]);
    assert_eq!(
        fmt.status.code(),
        Some(0),
        "formatted: {}",
        command::said(&fmt)
    );

    let clean = meshc(dir, &["check", "--deny", "old-forms"]);
    assert_eq!(clean.status.code(), Some(0), "{}", command::said(&clean));
    let after = meshc(dir, &["build", "lab.mesh", ".", "--out", "after"]);
    assert_eq!(after.status.code(), Some(0), "{}", command::said(&after));

    // The same host paths, container by container.
    let host_paths = |out: &str| -> Vec<ContainerMounts> {
        mounts(dir, out)
            .into_iter()
            .map(|(n, c, m)| {
                let mut list: Vec<(String, String, bool)> = m
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| {
                        (
                            x["host"].as_str().unwrap().to_string(),
                            x["container"].as_str().unwrap().to_string(),
                            x["read_only"].as_bool().unwrap(),
                        )
                    })
                    .collect();
                list.sort();
                (n, c, list)
            })
            .collect()
    };
    let b = host_paths("before");
    assert!(b.iter().any(|(_, _, m)| !m.is_empty()));
    assert_eq!(b, host_paths("after"));

    // Migrating again finds nothing.
    let again = meshc(dir, &["migrate"]);
    assert_eq!(again.status.code(), Some(0));
    assert!(again.stdout.is_empty(), "{}", command::said(&again));
    assert!(command::said(&again).contains("no old form to migrate"));
}

/// Every `app` container's environment, by node.
fn app_env(dir: &Path, out: &str) -> Vec<(String, Value)> {
    ["alpha", "beta"]
        .into_iter()
        .map(|node| {
            let env = manifest(dir, out, node)["instances"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|i| i["containers"].as_array().unwrap())
                .find(|c| c["name"] == "app")
                .map(|c| c["env"].clone())
                .unwrap_or(Value::Null);
            (node.to_string(), env)
        })
        .collect()
}

/// `${machine:hostname}` in a module with no `host node` requirement is an old form read
/// as what it stands for: the private name of the node the instance runs on (and
/// `${machine:mesh_names}` every node's). It was
/// dropped from the container's environment with nothing but the warning, so the
/// migrated build (which reads `here.private_name`) set a variable the old one lacked.
#[test]
fn a_machine_placeholder_without_a_node_requirement_reads_the_node_it_runs_on() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    // The other fact too: every node's private name, as a list in a string is written.
    let node = r#"NODE = "${machine:hostname}""#;
    assert!(APP.contains(node));
    let app = APP.replace(
        node,
        &format!("{node}\n      PEERS = \"${{machine:mesh_names}}\""),
    );
    std::fs::write(dir.join("app.mesh"), app).unwrap();
    std::fs::write(dir.join("lab.mesh"), MESH).unwrap();
    let before = meshc(dir, &["build", "lab.mesh", ".", "--out", "before"]);
    assert_eq!(before.status.code(), Some(0), "{}", command::said(&before));
    let env = app_env(dir, "before");
    for (node, env) in &env {
        assert_eq!(
            env["NODE"].as_str(),
            Some(format!("{node}.lab.internal").as_str()),
            "{env}"
        );
        assert_eq!(
            env["PEERS"].as_str(),
            Some("alpha.lab.internal,beta.lab.internal"),
            "{env}"
        );
    }
    let migrated = meshc(dir, &["migrate", "--write"]);
    assert_eq!(
        migrated.status.code(),
        Some(0),
        "{}",
        command::said(&migrated)
    );
    let after = meshc(dir, &["build", "lab.mesh", ".", "--out", "after"]);
    assert_eq!(after.status.code(), Some(0), "{}", command::said(&after));
    assert_eq!(env, app_env(dir, "after"));
}

#[test]
fn a_file_with_syntax_errors_is_not_migrated() {
    let tmp = tempfile::tempdir().unwrap();
    let broken = "module app {\n  container app {\n    image \"example/app:1.0\"\n    mount \"/srv/x\" -> \n";
    std::fs::write(tmp.path().join("app.mesh"), broken).unwrap();
    let out = meshc(tmp.path(), &["migrate", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", command::said(&out));
    assert!(command::said(&out).contains("nothing was migrated"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("app.mesh")).unwrap(),
        broken
    );
}

/// The diff `meshc migrate` prints shows every place that may hold a secret masked, as an
/// excerpt does, in the old lines and the new: a secret default, a secret file's value
/// next to a placeholder being migrated, an `exposed` env value. `--write` writes the
/// file itself, literals and all.
#[test]
fn the_diff_shows_no_secret() {
    let tmp = tempfile::tempdir().unwrap();
    let source = r#"module app {
  requires key: module secret
  requires workers: operator int = 2
  requires tok: operator secret string = "Q9SECRETqM1"
  container app {
    image "nginx:1.27"
    secret "/run/secrets/x" = "${secret:key}Q9SECRETqM2"
    env { W = "${setting:workers}"  T = "Q9SECRETqM3" exposed "reads it" }
    mount "/srv/data" -> "/data"
  }
}
"#;
    std::fs::write(tmp.path().join("app.mesh"), source).unwrap();
    let out = meshc(tmp.path(), &["migrate", "."]);
    let said = command::said(&out);
    assert!(said.contains("${workers}"), "the diff is shown: {said}");
    assert!(said.contains("‹secret›"), "{said}");
    assert!(!said.contains("Q9SECRETq"), "{said}");
    let written = meshc(tmp.path(), &["migrate", "--write", "."]);
    assert!(!command::said(&written).contains("Q9SECRETq"));
    let file = std::fs::read_to_string(tmp.path().join("app.mesh")).unwrap();
    assert!(file.contains("\"${key.value}Q9SECRETqM2\""), "{file}");
}
