//! `meshc import compose` on Compose files of the kind people run (tests/import/): every
//! key the import reads, the secret rules (no secret value reaches a plain env value or
//! any written file), the result checked and built by the real binary, and bad input
//! refused with a sentence per problem and nothing written.

use serde_json::Value;
use std::path::{Path, PathBuf};

#[path = "support/command.rs"]
mod command;
#[path = "support/manifest.rs"]
mod manifest;
use command::meshc;
use manifest::instance;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/import")
        .join(name)
        .canonicalize()
        .unwrap()
}

/// Imports `compose` into a new directory, checks and builds the result; returns the
/// directory, the import's output, the report and the node's manifest.
fn import_and_build(compose: &Path, mesh_file: &str) -> (tempfile::TempDir, String, Value, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let run = meshc(
        tmp.path(),
        &[
            "import",
            "compose",
            compose.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let said = command::said(&run);
    assert_eq!(run.status.code(), Some(0), "{said}");
    let check = meshc(tmp.path(), &["check", "out", "--format", "json"]);
    let diags: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(check.status.code(), Some(0), "{}", command::said(&check));
    assert_eq!(diags["errors"], 0, "{diags}");
    let build = meshc(
        tmp.path(),
        &[
            "build",
            &format!("out/{mesh_file}"),
            "out",
            "--out",
            "manifests",
        ],
    );
    assert_eq!(build.status.code(), Some(0), "{}", command::said(&build));
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("manifests/imported.json")).unwrap(),
    )
    .unwrap();
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("import-report.json")).unwrap())
            .unwrap();
    let schema: Value =
        serde_json::from_str(include_str!("../../schema/import-report.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    if let Some(e) = validator.iter_errors(&report).next() {
        panic!(
            "import-report.json breaks its schema at {}: {e}",
            e.instance_path
        );
    }
    (tmp, said, report, manifest)
}

fn container<'a>(manifest: &'a Value, name: &str) -> &'a Value {
    &instance(manifest, name)["containers"][0]
}

fn notes(report: &Value, service: &str) -> Vec<(String, String)> {
    let list = if service.is_empty() {
        report["top_level"].as_array().unwrap().clone()
    } else {
        report["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["service"] == service)
            .unwrap()["notes"]
            .as_array()
            .unwrap()
            .clone()
    };
    list.iter()
        .map(|n| {
            (
                n["key"].as_str().unwrap().to_string(),
                n["action"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn has(notes: &[(String, String)], key: &str, action: &str) -> bool {
    notes.iter().any(|(k, a)| k == key && a == action)
}

/// Every file under `dir`, as text.
fn all_text(dir: &Path) -> String {
    let mut s = String::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            s.push_str(&all_text(&p));
        } else {
            s.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
        }
    }
    s
}

/// The values of the `.env`-style files of a fixture whose names say they are secret.
fn secret_values(dir: &Path, files: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for f in files {
        for line in std::fs::read_to_string(dir.join(f)).unwrap().lines() {
            if let Some((k, v)) = line.split_once('=')
                && ["PASSWORD", "SECRET", "KEY", "TOKEN"]
                    .iter()
                    .any(|w| k.contains(w))
            {
                out.push(v.trim_matches('"').to_string());
            }
        }
    }
    assert!(!out.is_empty());
    out
}

#[test]
fn a_shop_with_database_cache_broker_and_proxy_imports_checks_and_builds() {
    let dir = fixture("shop");
    let (tmp, said, report, manifest) = import_and_build(&dir.join("compose.yaml"), "shop.mesh");
    let out = tmp.path().join("out");
    let app_text = std::fs::read_to_string(out.join("app.mesh")).unwrap();

    // Each module says where it came from.
    for m in ["db", "cache", "queue", "app", "worker", "proxy"] {
        let t = std::fs::read_to_string(out.join(format!("{m}.mesh"))).unwrap();
        assert!(
            t.starts_with(&format!(
                "/// Imported by `meshc import compose` from the service `{m}` of"
            )),
            "{t}"
        );
    }

    // image, interpolated from .env with a default.
    assert_eq!(container(&manifest, "db")["image"], "postgres:16.4");
    // A named volume (short syntax): a directory placed where the engine keeps its data.
    let db = container(&manifest, "db");
    assert_eq!(
        db["mounts"][0]["host"],
        "/var/lib/docker/volumes/shop_pgdata/_data"
    );
    assert_eq!(db["mounts"][0]["container"], "/var/lib/postgresql/data");
    assert_eq!(
        instance(&manifest, "db")["requirements"]["pgdata"]["placed"],
        true
    );
    // Owned as the image runs, so the data keeps its owner: PostgreSQL's uid 999, 0700.
    assert_eq!(
        instance(&manifest, "db")["requirements"]["pgdata"]["owner"],
        999
    );
    assert_eq!(
        instance(&manifest, "db")["requirements"]["pgdata"]["mode"],
        "0700"
    );
    assert_eq!(
        instance(&manifest, "cache")["requirements"]["cachedata"]["owner"],
        999
    );
    // A service with a `user` owns its directories.
    assert_eq!(
        instance(&manifest, "app")["requirements"]["uploads"]["owner"],
        1000
    );
    // A named volume (long syntax), and one with its own `name`.
    assert_eq!(
        container(&manifest, "cache")["mounts"][0]["host"],
        "/var/lib/docker/volumes/shop_cachedata/_data"
    );
    assert_eq!(
        container(&manifest, "proxy")["mounts"][0]["host"],
        "/var/lib/docker/volumes/shop-caddy-data/_data"
    );
    // Bind mounts, relative and read-only; a file and the engine's socket become `access`.
    let app = container(&manifest, "app");
    let mounts = app["mounts"].as_array().unwrap();
    let uploads = dir.join("uploads");
    assert!(mounts.iter().any(|m| m["host"] == uploads.to_str().unwrap()
        && m["container"] == "/srv/uploads"
        && m["read_only"] == false));
    assert!(
        mounts
            .iter()
            .any(|m| m["container"] == "/etc/app/app.toml" && m["read_only"] == true)
    );
    assert!(
        app_text.contains("requires app_toml: host access"),
        "{app_text}"
    );
    assert_eq!(
        instance(&manifest, "proxy")["requirements"]["docker_sock"]["contract"],
        "access"
    );
    // Ports: short syntax (public, on its host port), long syntax with a host IP (private).
    let ports = app["ports"].as_array().unwrap();
    assert!(
        ports
            .iter()
            .any(|p| p["host"] == 8080 && p["container"] == 3000 && p["reach"] == "public")
    );
    assert!(
        ports
            .iter()
            .any(|p| p["host"] == 9090 && p["container"] == 9090 && p["reach"] == "private")
    );
    let proxy_ports = container(&manifest, "proxy")["ports"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        proxy_ports
            .iter()
            .any(|p| p["host"] == 443 && p["protocol"] == "udp")
    );
    assert!(ports.len() == 2);
    // user (the group is dropped and said).
    assert_eq!(app["user"], 1000);
    assert!(has(&notes(&report, "app"), "user", "dropped"));
    // depends_on (map form) on standard contracts: module requirements pinned to the provider,
    // env reading its answers where the values matched.
    let app_inst = instance(&manifest, "app");
    for (req, contract, provider) in [
        ("db", "postgres", "db"),
        ("cache", "redis", "cache"),
        ("queue", "amqp", "queue"),
    ] {
        assert_eq!(app_inst["requirements"][req]["contract"], contract);
        assert_eq!(
            app_inst["requirements"][req]["provider"]["instance"],
            provider
        );
    }
    assert_eq!(app["env"]["REDIS_HOST"], "imported.home.arpa");
    let cache_port = instance(&manifest, "cache")["requirements"]["port_6379"]["host_port"].clone();
    assert_eq!(app["env"]["REDIS_PORT"], cache_port.to_string());
    assert!(
        app_text.contains(
            "\"postgres://${db.user}:${db.password}@${db.host}:${db.port}/${db.database}\""
        ),
        "{app_text}"
    );
    // A value naming a domain is an operator value, set on the assignment.
    assert_eq!(app["env"]["PUBLIC_URL"], "https://shop.example.net");
    assert!(app_text.contains("requires public_url: operator string"));
    // env_file and extends from another file (environment list form in `worker`).
    let worker = container(&manifest, "worker");
    assert_eq!(worker["env"]["LOG_LEVEL"], "info");
    assert_eq!(worker["env"]["TZ"], "Europe/Berlin");
    assert_eq!(worker["user"], 1000);
    // command as a list, and as a string split like a shell would; entrypoint dropped.
    assert_eq!(
        worker["command"],
        serde_json::json!(["shop-app", "worker", "--concurrency", "4"])
    );
    assert_eq!(
        container(&manifest, "cache")["command"],
        serde_json::json!(["redis-server", "--appendonly", "yes"])
    );
    assert_eq!(
        container(&manifest, "proxy")["command"],
        serde_json::json!([
            "reverse-proxy",
            "--from",
            "shop.example.net",
            "--to",
            "app:3000"
        ])
    );
    assert!(has(&notes(&report, "proxy"), "entrypoint", "dropped"));
    assert!(
        has(&notes(&report, "proxy"), "command", "guessed"),
        "the word naming `app` is said"
    );
    // configs (inline content) and secrets (a file): a file and a secret file.
    let files = app["files"].as_array().unwrap();
    assert!(
        files
            .iter()
            .any(|f| f["target"] == "/etc/motd" && f["content"] == "Welcome to the shop")
    );
    let secrets = app["secrets"].as_array().unwrap();
    assert!(
        secrets
            .iter()
            .any(|s| s["target"] == "/run/secrets/stripe_key" && s["sealed"].is_object())
    );
    // Keys with no place in the language are dropped and said, by service.
    let db_notes = notes(&report, "db");
    for key in ["restart", "healthcheck", "networks"] {
        assert!(has(&db_notes, key, "dropped"), "{key}: {db_notes:?}");
    }
    let app_notes = notes(&report, "app");
    assert!(has(&app_notes, "labels", "dropped"));
    assert!(has(&app_notes, "profiles", "guessed"));
    assert!(has(&app_notes, "extends", "guessed"));
    assert!(has(&app_notes, "depends_on.db.condition", "dropped"));
    assert!(has(&notes(&report, "proxy"), "depends_on.app", "dropped"));
    assert!(has(&notes(&report, ""), "networks", "dropped"));
    assert!(has(&notes(&report, ""), "x-common", "dropped"));
    // The human summary says the same, by service.
    assert!(said.contains("service `app` → module `app`"), "{said}");
    assert!(said.contains("dropped  labels"), "{said}");

    // Secrets: by name (POSTGRES_PASSWORD, SESSION_SECRET), by the .env variable they came
    // from (RABBITMQ_DEFAULT_PASS), inside a URL (DATABASE_URL).
    let db_env = &db["env"];
    assert_eq!(
        db_env["POSTGRES_PASSWORD_FILE"],
        "/run/secrets/postgres_password"
    );
    assert!(db_env.get("POSTGRES_PASSWORD").is_none());
    for (c, key) in [
        ("app", "DATABASE_URL"),
        ("app", "AMQP_URL"),
        ("app", "SESSION_SECRET"),
        ("queue", "RABBITMQ_DEFAULT_PASS"),
    ] {
        let v = &container(&manifest, c)["env"][key];
        // Never a plain string: a sealed reference, or a template whose secret part is one.
        assert!(!v.is_string() && v["exposed"].is_string(), "{c} {key}: {v}");
        assert!(
            v["sealed"].is_object() || v["references"].to_string().contains("\"sealed\""),
            "{c} {key}: {v}"
        );
    }
    let deliver: Vec<String> = report["deliver"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{}/{}",
                d["instance"].as_str().unwrap(),
                d["requirement"].as_str().unwrap()
            )
        })
        .collect();
    for d in [
        "db/postgres_password",
        "queue/rabbitmq_default_pass",
        "app/stripe_key",
        "app/session_secret",
    ] {
        assert!(deliver.contains(&d.to_string()), "{deliver:?}");
    }
    // No secret value anywhere: not in the definitions, the report, the manifests, the
    // lock, or what the commands said.
    let written = all_text(tmp.path());
    for secret in secret_values(&dir, &[".env", "app.env"]) {
        assert!(!written.contains(&secret), "a secret value was written");
        assert!(!said.contains(&secret), "a secret value was printed");
    }
}

#[test]
fn forgejo_with_postgres_linuxserver_and_an_external_volume() {
    let dir = fixture("forge");
    let (tmp, said, report, manifest) =
        import_and_build(&dir.join("docker-compose.yml"), "forge.mesh");
    let out = tmp.path().join("out");
    let forgejo_text = std::fs::read_to_string(out.join("forgejo.mesh")).unwrap();
    // depends_on in the list form; the consumer's password is the provider's own.
    assert!(
        forgejo_text.contains("requires postgres: module postgres"),
        "{forgejo_text}"
    );
    assert!(
        forgejo_text.contains("FORGEJO__database__HOST = \"${postgres.host}:${postgres.port}\""),
        "{forgejo_text}"
    );
    assert!(
        forgejo_text.contains("FORGEJO__database__USER = postgres.user"),
        "{forgejo_text}"
    );
    assert!(
        forgejo_text
            .contains("secret \"/run/secrets/forgejo__database__passwd\" = postgres.password"),
        "{forgejo_text}"
    );
    let forgejo = container(&manifest, "forgejo");
    // `${PWD}` is the Compose file's directory.
    let data = dir.join("forgejo");
    assert!(
        forgejo["mounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["host"] == data.to_str().unwrap() && m["container"] == "/data"),
        "{forgejo}"
    );
    assert_eq!(
        forgejo["env"]["FORGEJO__database__PASSWD__FILE"],
        "/run/secrets/forgejo__database__passwd"
    );
    assert!(forgejo["env"].get("FORGEJO__database__PASSWD").is_none());
    // A token by its name, a file the image reads through `__FILE`.
    assert!(
        forgejo["env"]
            .get("FORGEJO__security__INTERNAL_TOKEN")
            .is_none()
    );
    assert!(forgejo["env"]["FORGEJO__security__INTERNAL_TOKEN__FILE"].is_string());
    // The provider passes the password the Compose file gave it.
    let pg_text = std::fs::read_to_string(out.join("postgres.mesh")).unwrap();
    assert!(
        pg_text.contains("password = postgres_password"),
        "{pg_text}"
    );
    assert!(pg_text.contains("user = \"forgejo\""), "{pg_text}");
    // A variable named without a value is dropped and said.
    assert!(has(
        &notes(&report, "forgejo"),
        "environment.SHELL_PROXY",
        "dropped"
    ));
    // Host IPs: `[::]` is every address, public.
    let ports = forgejo["ports"].as_array().unwrap();
    assert!(
        ports
            .iter()
            .any(|p| p["host"] == 2222 && p["container"] == 22 && p["reach"] == "public")
    );
    // System files mounted read-only are `access`, never created or chowned.
    assert_eq!(
        instance(&manifest, "forgejo")["requirements"]["timezone"]["contract"],
        "access"
    );
    // linuxserver.io images read `FILE__KEY`; the key is a secret by its name.
    let sync = container(&manifest, "syncthing");
    assert_eq!(sync["env"]["FILE__STGUIAPIKEY"], "/run/secrets/stguiapikey");
    assert!(sync["env"].get("STGUIAPIKEY").is_none());
    assert_eq!(sync["env"]["PUID"], "1000");
    // Bind mounts in the long syntax, absolute and relative.
    let mounts = sync["mounts"].as_array().unwrap();
    assert!(
        mounts
            .iter()
            .any(|m| m["host"] == "/srv/sync" && m["container"] == "/data1")
    );
    let config = dir.join("syncthing/config");
    assert!(mounts.iter().any(|m| m["host"] == config.to_str().unwrap()));
    let udp: Vec<&Value> = sync["ports"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["protocol"] == "udp")
        .collect();
    assert_eq!(udp.len(), 2);
    // An external named volume keeps its own name.
    assert_eq!(
        container(&manifest, "kuma")["mounts"][0]["host"],
        "/var/lib/docker/volumes/kuma/_data"
    );
    assert!(has(&notes(&report, "kuma"), "labels", "dropped"));
    assert!(has(&notes(&report, "kuma"), "healthcheck", "dropped"));
    assert!(has(&notes(&report, ""), "version", "dropped"));
    assert_eq!(report["project"], "forge");
    let written = all_text(tmp.path());
    let secrets = [
        "Zr8vN2qL5xT1mK9wB4cF7hJ3",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.x7Qf3kZ9",
        "8fJ2kL9qR4tW7yB3nM6pX1zC5vD0hG2",
    ];
    for s in secrets {
        assert!(!written.contains(s), "a secret value was written");
        assert!(!said.contains(s), "a secret value was printed");
    }
}

/// Runs an import of `compose` (with `.env` text) that must be refused; returns what it
/// said, after checking that nothing was written.
fn refused(compose: &str, dotenv: Option<&str>) -> String {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("compose.yaml"), compose).unwrap();
    if let Some(e) = dotenv {
        std::fs::write(tmp.path().join(".env"), e).unwrap();
    }
    let run = meshc(
        tmp.path(),
        &["import", "compose", "compose.yaml", "--out", "out"],
    );
    let said = command::said(&run);
    assert_eq!(run.status.code(), Some(1), "{said}");
    assert!(!said.contains("panicked"), "{said}");
    assert!(
        !tmp.path().join("out").exists(),
        "nothing is written: {said}"
    );
    assert!(said.contains("nothing was written"), "{said}");
    said
}

#[test]
fn text_that_is_not_yaml_is_refused_with_its_line() {
    let said = refused("services:\n  web:\n    image: [nginx\n", None);
    assert!(said.contains("not YAML"), "{said}");
    assert!(said.contains("compose.yaml:"), "{said}");
    let said = refused("\u{0}\u{1}binary", None);
    assert!(said.contains("error:"), "{said}");
}

#[test]
fn anchors_aliases_and_merge_keys_are_each_refused() {
    let said = refused(
        "x-defaults: &defaults\n  restart: always\nservices:\n  web:\n    <<: *defaults\n    image: nginx:1.27\n  api:\n    image: &img example/api:1.0\n",
        None,
    );
    assert!(said.contains("compose.yaml:1: an anchor"), "{said}");
    assert!(said.contains("compose.yaml:5: a merge key"), "{said}");
    assert!(said.contains("an alias"), "{said}");
    assert!(said.contains("compose.yaml:8: an anchor"), "{said}");
    assert!(said.contains("4 problems"), "{said}");
}

#[test]
fn five_hundred_services_are_refused() {
    let mut compose = String::from("services:\n");
    for i in 0..500 {
        compose.push_str(&format!("  s{i}:\n    image: example/s:1.0\n"));
    }
    let said = refused(&compose, None);
    assert!(said.contains("defines 500 services"), "{said}");
    assert!(said.contains("at most 200"), "{said}");
}

#[test]
fn a_variable_with_no_value_is_named() {
    let said = refused(
        "services:\n  db:\n    image: postgres:${TAG}\n    environment:\n      POSTGRES_PASSWORD: ${DB_PASSWORD:?set DB_PASSWORD in .env}\n",
        Some("OTHER=1\n"),
    );
    assert!(
        said.contains("compose.yaml:3: the variable `TAG` has no value"),
        "{said}"
    );
    assert!(
        said.contains(
            "compose.yaml:5: the variable `DB_PASSWORD` has no value: set DB_PASSWORD in .env"
        ),
        "{said}"
    );
}

#[test]
fn services_the_import_cannot_read_are_said_one_by_one() {
    let said = refused(
        "services:\n  built:\n    build: .\n  web:\n    image: nginx:1.27\n    depends_on: [nowhere]\n    volumes:\n      - undeclared:/data\n      - ~/x:/y\n    ports:\n      - \"http:80\"\n",
        None,
    );
    assert!(said.contains("`built` names no `image`"), "{said}");
    assert!(
        said.contains("`nowhere`, which the file does not define"),
        "{said}"
    );
    assert!(said.contains("`undeclared` is not declared"), "{said}");
    assert!(said.contains("home directory"), "{said}");
    // A value that does not parse is said by its line, never quoted (§14.6).
    assert!(
        said.contains(
            "compose.yaml:11, service `web`: this entry of `ports` is not a port mapping"
        ),
        "{said}"
    );
    assert!(!said.contains("http:80"), "{said}");
}

#[test]
fn a_directory_that_is_not_empty_is_never_written_into() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(
        tmp.path().join("compose.yaml"),
        "services:\n  web:\n    image: nginx:1.27\n",
    )
    .unwrap();
    std::fs::create_dir(tmp.path().join("out")).unwrap();
    std::fs::write(tmp.path().join("out/mine.mesh"), "// mine\n").unwrap();
    let run = meshc(
        tmp.path(),
        &["import", "compose", "compose.yaml", "--out", "out"],
    );
    assert_eq!(run.status.code(), Some(2), "{}", command::said(&run));
    assert!(command::said(&run).contains("is not empty"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("out/mine.mesh")).unwrap(),
        "// mine\n"
    );
}

/// A secret given on a command line as a flag's value (`--password X`, `--api-token=X`)
/// is never written into the modules, the report, the output or the manifest: the command
/// is dropped, saying why. A flag that names no secret keeps its command.
#[test]
fn a_secret_given_to_a_flag_on_the_command_line_is_not_imported() {
    let tmp = tempfile::tempdir().unwrap();
    for (i, command) in [
        r#"["--password", "Q9SECRETqA1"]"#,
        r#"["serve", "--api-token=Q9SECRETqA2"]"#,
        r#"["-secret", "Q9SECRETqA3"]"#,
    ]
    .iter()
    .enumerate()
    {
        std::fs::create_dir_all(tmp.path().join(format!("p{i}"))).unwrap();
        let compose = tmp.path().join(format!("p{i}/compose.yaml"));
        std::fs::write(
            &compose,
            format!("services:\n  app:\n    image: nginx:1.27\n    command: {command}\n"),
        )
        .unwrap();
        let (dir, said, report, manifest) = import_and_build(&compose, &format!("p{i}.mesh"));
        let everything = format!("{said}{report}{manifest}{}", all_text(dir.path()));
        assert!(!everything.contains("Q9SECRETq"), "{command}: {everything}");
        assert!(
            has(&notes(&report, "app"), "command", "dropped"),
            "{report}"
        );
    }
    std::fs::create_dir_all(tmp.path().join("plain")).unwrap();
    let compose = tmp.path().join("plain/compose.yaml");
    std::fs::write(
        &compose,
        "services:\n  app:\n    image: nginx:1.27\n    command: [\"--port\", \"8080\", \"--log-level=debug\"]\n",
    )
    .unwrap();
    let (_dir, _, _, manifest) = import_and_build(&compose, "plain.mesh");
    assert_eq!(
        container(&manifest, "app")["command"],
        serde_json::json!(["--port", "8080", "--log-level=debug"])
    );
}

#[test]
fn deep_nesting_is_refused_without_a_crash() {
    let deep = format!(
        "services:\n  a:\n    image: x\n    command: {}{}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let said = refused(&deep, None);
    assert!(said.contains("compose.yaml:4: not YAML"), "{said}");
}

mod mutated {
    use meshc::import::{Request, import_compose};
    use proptest::prelude::*;

    const SHOP: &str = include_str!("../../tests/import/shop/compose.yaml");
    const FORGE: &str = include_str!("../../tests/import/forge/docker-compose.yml");

    fn import(text: &str) {
        let read = |p: &str| -> Result<String, meshc::import::files::Unread> {
            if p.ends_with("app.env") {
                Ok("LOG_LEVEL=info\nSESSION_SECRET=c1a5f0e9b8d7c6a5f4e3d2c1b0a9f8e7\n".into())
            } else {
                Err(meshc::import::files::Unread {
                    missing: true,
                    reason: "no such file".into(),
                })
            }
        };
        let request = Request {
            text,
            shown: "compose.yaml",
            dir: "/srv/shop",
            default_name: "shop",
            dotenv: Some(
                "DB_PASSWORD=Vq3xT9mZpL2wR8sK4nB7yD1c\nMQ_PASSWORD=x\nPOSTGRES_PASSWORD=y\n",
            ),
            read: &read,
        };
        // Either result is fine; a panic is not, and a refusal always says why.
        if let Err(problems) = import_compose(&request) {
            assert!(!problems.is_empty());
            assert!(problems.iter().all(|p| !p.message.is_empty()));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

        /// Real Compose files with a piece cut out and other text put in: never a panic.
        #[test]
        fn a_mutated_compose_file_never_panics(
            forge in any::<bool>(),
            at in 0usize..4000,
            cut in 0usize..40,
            insert in "[ -~\n]{0,12}",
        ) {
            let base = if forge { FORGE } else { SHOP };
            let mut at = at.min(base.len());
            while !base.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + cut).min(base.len());
            while !base.is_char_boundary(end) {
                end -= 1;
            }
            let text = format!("{}{}{}", &base[..at], insert, &base[end..]);
            import(&text);
        }
    }
}

#[test]
fn the_compose_specification_example_with_configs_and_secrets() {
    let dir = fixture("spec");
    let (tmp, said, report, manifest) = import_and_build(&dir.join("compose.yaml"), "spec.mesh");
    let frontend = container(&manifest, "frontend");
    // A config from a file: the file mounted read-only where the service reads it.
    let app_ini = dir.join("app.ini");
    assert!(
        frontend["mounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["host"] == app_ini.to_str().unwrap()
                && m["container"] == "/etc/webapp/app.ini"
                && m["read_only"] == true)
    );
    // Secrets in the short and long syntax (a relative target lies under /run/secrets).
    let targets: Vec<&str> = frontend["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        ["/run/secrets/server-certificate", "/run/secrets/api_token"]
    );
    let frontend_notes = notes(&report, "frontend");
    assert!(has(&frontend_notes, "configs.httpd-config", "dropped"));
    assert!(has(&frontend_notes, "secrets.api-token", "secret"));
    assert!(has(
        &notes(&report, "backend"),
        "volumes.db-data",
        "guessed"
    ));
    assert_eq!(
        container(&manifest, "backend")["mounts"][0]["host"],
        "/var/lib/docker/volumes/spec_db-data/_data"
    );
    let written = all_text(tmp.path());
    assert!(!written.contains("tok_4Nq8ZxV2mL7pR1kW9sD3"));
    assert!(!said.contains("tok_4Nq8ZxV2mL7pR1kW9sD3"));
}

#[test]
fn nextcloud_with_mariadb_and_valkey() {
    let dir = fixture("cloud");
    let (tmp, said, report, manifest) = import_and_build(&dir.join("compose.yml"), "cloud.mesh");
    let out = tmp.path().join("out");
    // MariaDB answers the standard `mysql` contract with the user, database and password
    // the Compose file gave it.
    let db_text = std::fs::read_to_string(out.join("db.mesh")).unwrap();
    assert!(db_text.contains("provides mysql {"), "{db_text}");
    assert!(db_text.contains("user = \"nextcloud\""), "{db_text}");
    assert!(db_text.contains("password = mysql_password"), "{db_text}");
    let app = container(&manifest, "app");
    assert_eq!(
        instance(&manifest, "app")["requirements"]["db"]["contract"],
        "mysql"
    );
    assert_eq!(app["env"]["MYSQL_HOST"], "imported.home.arpa");
    assert_eq!(app["env"]["MYSQL_USER"], "nextcloud");
    assert_eq!(app["env"]["REDIS_HOST"], "imported.home.arpa");
    // The image reads `MYSQL_PASSWORD_FILE` and `NEXTCLOUD_ADMIN_PASSWORD_FILE`.
    assert_eq!(
        app["env"]["MYSQL_PASSWORD_FILE"],
        "/run/secrets/mysql_password"
    );
    assert!(app["env"].get("MYSQL_PASSWORD").is_none());
    assert!(app["env"].get("NEXTCLOUD_ADMIN_PASSWORD").is_none());
    // One named volume shared by two services: `access`, placed for both.
    for i in ["app", "cron"] {
        let req = &instance(&manifest, i)["requirements"]["nextcloud"];
        assert_eq!(req["contract"], "access", "{i}: {req}");
    }
    // Data a service only reads stays the operator's.
    assert_eq!(
        instance(&manifest, "app")["requirements"]["photos"]["contract"],
        "access"
    );
    // links and entrypoint are said.
    assert!(has(&notes(&report, "app"), "links", "dropped"));
    assert!(has(&notes(&report, "cron"), "entrypoint", "dropped"));
    let written = all_text(tmp.path());
    for s in [
        "Kd93LxQz7Wm2Np5Rt8Vb",
        "Hy6Tq2Zx9Lm4Bn7Cv1Wk",
        "changeme-please-now",
    ] {
        assert!(!written.contains(s), "a secret value was written");
        assert!(!said.contains(s), "a secret value was printed");
    }
}

#[test]
fn short_secrets_interpolated_into_a_command_or_a_config_are_written_nowhere() {
    let src = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("compose.yaml"),
        r#"services:
  cache:
    image: redis:7.4
    command: redis-server --requirepass ${REDIS_PASSWORD}
  app:
    image: example/app:1.0
    configs:
      - source: creds
        target: /etc/app/creds.ini
      - source: site
        target: /etc/app/site.conf
configs:
  creds:
    content: "user=app password=${APP_PASSWORD}"
  site:
    content: "server_name app.example.org;"
"#,
    )
    .unwrap();
    std::fs::write(
        src.path().join(".env"),
        "REDIS_PASSWORD=hunter2\nAPP_PASSWORD=swordfish\n",
    )
    .unwrap();
    let (tmp, said, report, manifest) = import_and_build(
        &src.path().join("compose.yaml"),
        &format!(
            "{}.mesh",
            meshc::import::generate::ident(
                &src.path()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .to_ascii_lowercase()
            )
        ),
    );
    assert!(has(&notes(&report, "cache"), "command", "dropped"));
    assert!(
        container(&manifest, "cache")["command"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
    assert!(has(&notes(&report, "app"), "configs.creds", "secret"));
    assert!(has(&notes(&report, "app"), "configs.site", "guessed"));
    let files = container(&manifest, "app")["files"]
        .as_array()
        .unwrap()
        .clone();
    let site = files
        .iter()
        .find(|f| f["target"] == "/etc/app/site.conf")
        .unwrap();
    assert_eq!(site["content"], "server_name app.example.org;");
    let written = all_text(tmp.path());
    for s in ["hunter2", "swordfish"] {
        assert!(!written.contains(s), "a secret value was written");
        assert!(!said.contains(s), "a secret value was printed");
    }
}

#[test]
fn a_service_named_like_the_vault_keeps_its_name() {
    let src = tempfile::tempdir().unwrap();
    std::fs::write(
        src.path().join("compose.yaml"),
        "name: bao\nservices:\n  openbao:\n    image: quay.io/openbao/openbao:2.1.0\n    environment:\n      BAO_DEV_ROOT_TOKEN_ID: ${ROOT_TOKEN}\n",
    )
    .unwrap();
    std::fs::write(src.path().join(".env"), "ROOT_TOKEN=dev-root-token-value\n").unwrap();
    let (tmp, said, _report, manifest) =
        import_and_build(&src.path().join("compose.yaml"), "bao.mesh");
    assert_eq!(instance(&manifest, "openbao")["module"], "openbao");
    assert_eq!(instance(&manifest, "mesh-vault")["module"], "mesh-vault");
    assert!(!all_text(tmp.path()).contains("dev-root-token-value"));
    assert!(!said.contains("dev-root-token-value"));
}
