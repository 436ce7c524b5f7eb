//! The catalogue's services as built: each module assigned in a small mesh of the test's
//! own, next to the catalogue's files, so the built manifests can be asserted where a
//! snapshot would only show them. Each mesh is built twice over: once with every optional
//! provider present, once with none, so both sides of every `when` are seen.

mod common;

use meshc::db::{self, Database};
use meshc::resolve::Lock;
use serde_json::Value;
use std::sync::Arc;

/// Everything a node of the full mesh needs: every optional provider of the services
/// under test is assigned, so every `when` holds.
const FULL: &str = r#"
mesh services_full {
  node one { private_name = "one.services.internal"  private_address = "10.1.0.1"  ports = 21000..21999 }
  node two { private_name = "two.services.internal"  private_address = "10.1.0.2"  ports = 21000..21999 }

  seat vault = openbao on one
  seat proxy = caddy on one
  seat dns = powerdns on two

  assign openbao to one
  assign caddy to one { acme_email = "hostmaster@example.org"  http at 80  https at 443  h3 at 443 }
  assign powerdns to two {
    dns_udp at 53
    dns_tcp at 53
    zones = ["example.org", "people.example.org"]
    nameserver = "ns1.example.org"
    public_address = "203.0.113.1"
  }
  assign postfix to two {
    mail_domain = "example.org"
    spf_policy = "v=spf1 -all"
    relay_host = "smtp.example.net"
    relay_user = "services@example.org"
  }
  assign postgres to two
  assign valkey to two
  assign paperless-ngx to two { route.public_name = "docs.example.org"  consume at "/srv/scans" }
  assign gotenberg to two
  assign tika to two
  assign alertmanager to two { alert_to = "ops@example.org" }
  assign loki to two
  assign ntfy to one { route.public_name = "ntfy.example.org" }
  assign home-assistant to one {
    route.public_name = "home.example.org"
    trusted_proxies = ["10.1.0.1", "172.16.0.0/12"]
  }
  assign jellyfin to one { route.public_name = "media.example.org"  media at "/srv/media" }
  assign adguard-home to one { route.public_name = "dns.example.org"  dns_udp at 53  dns_tcp at 53 }
  assign node-exporter to one { host_root at "/" }
  assign node-exporter to two { host_root at "/" }
  assign syncthing to two { folders at "/srv/sync" }
  assign borgmatic to two {
    mesh_root at "/srv/mesh"
    host_root at "/"
    sources = ["/srv/sync"]
    repository at "/mnt/backup/borg"
  }
  assign borgmatic to one { mesh_root at "/srv/mesh"  host_root at "/"  repository at "/mnt/backup/borg" }
  assign prometheus to one { targets at "/srv/prometheus-targets" }
  assign keycloak to two { route.public_name = "id.example.org" }
  assign grafana to one { route.public_name = "dash.example.org" }
  assign gotosocial to two { route.public_name = "social.example.org" }
  // Two answer `smtp` here: ntfy finds Maddy on its own node, the relay's
  // neighbours the relay, and Synapse is pinned to Maddy.
  assign maddy to one {
    tls at "/srv/certs/mx"
    hostname = "mx.example.org"
    mail_domain = "people.example.org"
    public_address = "203.0.113.1"
  }
  assign coturn to two { public_name = "turn.example.org"  public_address = "203.0.113.2" }
  assign mariadb to two
  assign clickhouse to two
  assign synapse to two {
    route.public_name = "matrix.example.org"
    server_name = "matrix.example.org"
    mail from maddy on one
  }
  assign collabora to one { route.public_name = "office.example.org" }
  assign nextcloud to two {
    route.public_name = "cloud.example.org"
    mail_domain = "example.org"
    trusted_proxies = "10.1.0.1/32"
  }
}
"#;

/// The same services with no relay, no Alertmanager, no Tika and no Gotenberg: every
/// optional requirement is absent (Grafana declines the Prometheus that runs here).
const BARE: &str = r#"
mesh services_bare {
  node solo { private_name = "solo.services.internal"  ports = 22000..22999 }

  seat vault = openbao on solo
  seat proxy = caddy on solo

  assign openbao to solo
  assign caddy to solo { acme_email = "hostmaster@example.org"  http at 80  https at 443  h3 at 443 }
  assign postgres to solo
  assign valkey to solo
  assign paperless-ngx to solo { route.public_name = "docs.example.org"  consume at "/srv/scans" }
  assign loki to solo
  assign ntfy to solo { route.public_name = "ntfy.example.org" }
  assign prometheus to solo { targets at "/srv/prometheus-targets" }
  assign keycloak to solo { route.public_name = "id.example.org" }
  assign grafana to solo {
    route.public_name = "dash.example.org"
    metrics absent
  }
  assign gotosocial to solo { route.public_name = "social.example.org" }
  assign synapse to solo { route.public_name = "matrix.example.org"  server_name = "matrix.example.org" }
  assign nextcloud to solo { route.public_name = "cloud.example.org"  mail_domain = "example.org" }
}
"#;

/// The catalogue's files plus one mesh of the test's, named as `meshc check` names them.
fn workspace(extra: &str) -> (Database, db::Workspace) {
    let mut files = common::catalogue_files();
    files.push(("tests/services.mesh".into(), Arc::from(extra)));
    Database::with_files(files)
}

/// Builds `mesh` whole (nothing refused, nothing left out) and returns each node's
/// manifest as JSON.
fn build(extra: &str, mesh: &str) -> Vec<(String, Value)> {
    let (database, ws) = workspace(extra);
    common::assert_checks_clean(&database, ws, "the workspace");
    whole(
        db::resolve_mesh(&database, ws, mesh.to_string(), Lock::new()),
        mesh,
    )
}

/// The manifests of `outcome`, each node's as JSON, once nothing of mesh `mesh` was
/// refused or left out.
fn whole(outcome: std::sync::Arc<meshc::resolve::MeshOutcome>, mesh: &str) -> Vec<(String, Value)> {
    assert!(
        !outcome.refused(),
        "mesh `{mesh}` does not build whole: {:?} {:?}",
        outcome.diagnostics,
        outcome.left_out
    );
    outcome
        .manifests
        .iter()
        .map(|(node, m)| {
            let bytes = meshc::emit::manifest_bytes(m);
            (node.clone(), serde_json::from_slice(&bytes).unwrap())
        })
        .collect()
}

/// The instance `name` on `node`.
fn instance<'a>(manifests: &'a [(String, Value)], node: &str, name: &str) -> &'a Value {
    let (_, m) = manifests
        .iter()
        .find(|(n, _)| n == node)
        .unwrap_or_else(|| panic!("no manifest for node `{node}`"));
    m["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["instance"] == name)
        .unwrap_or_else(|| panic!("no instance `{name}` on `{node}`"))
}

/// The only container of an instance.
fn container(instance: &Value) -> &Value {
    let containers = instance["containers"].as_array().unwrap();
    assert_eq!(containers.len(), 1, "{}", instance["instance"]);
    &containers[0]
}

fn env<'a>(container: &'a Value, key: &str) -> Option<&'a str> {
    container["env"].get(key).and_then(Value::as_str)
}

fn entry<'a>(container: &'a Value, list: &str, target: &str) -> Option<&'a Value> {
    container[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["target"] == target)
}

/// `http://<private name>:<host port>` of a port requirement of an instance.
fn endpoint(instance: &Value, node_name: &str, port: &str) -> String {
    let host_port = &instance["requirements"][port]["host_port"];
    assert!(host_port.is_u64(), "{port} of {}", instance["instance"]);
    format!("http://{node_name}:{host_port}")
}

#[test]
fn paperless_takes_office_documents_through_tika_and_gotenberg_when_the_mesh_runs_them() {
    let full = build(FULL, "services_full");
    let paperless = instance(&full, "two", "paperless-ngx");
    let app = container(paperless);
    let tika = endpoint(
        instance(&full, "two", "tika"),
        "two.services.internal",
        "api",
    );
    let gotenberg = endpoint(
        instance(&full, "two", "gotenberg"),
        "two.services.internal",
        "api",
    );
    assert_eq!(env(app, "PAPERLESS_TIKA_ENABLED"), Some("true"));
    assert_eq!(env(app, "PAPERLESS_TIKA_ENDPOINT"), Some(tika.as_str()));
    assert_eq!(
        env(app, "PAPERLESS_TIKA_GOTENBERG_ENDPOINT"),
        Some(gotenberg.as_str())
    );
    assert_ne!(tika, gotenberg);

    let bare = build(BARE, "services_bare");
    let paperless = instance(&bare, "solo", "paperless-ngx");
    for requirement in ["tika", "gotenberg"] {
        assert_eq!(
            paperless["requirements"][requirement]["absent"],
            Value::Bool(true),
            "{requirement}"
        );
    }
    let app = container(paperless);
    let keys: Vec<&String> = app["env"].as_object().unwrap().keys().collect();
    assert!(
        keys.iter().all(|k| !k.starts_with("PAPERLESS_TIKA")),
        "{keys:?}"
    );
}

#[test]
fn loki_hands_its_alerts_to_the_alertmanager_only_where_one_runs() {
    let full = build(FULL, "services_full");
    let alertmanager = instance(&full, "two", "alertmanager");
    let url = endpoint(alertmanager, "two.services.internal", "http");
    let loki = container(instance(&full, "two", "loki"));
    assert_eq!(env(loki, "ALERTMANAGER_URL"), Some(url.as_str()));
    let config = entry(loki, "files", "/etc/loki/loki.yaml").unwrap();
    assert!(
        config["content"]
            .as_str()
            .unwrap()
            .contains("alertmanager_url: ${ALERTMANAGER_URL:-}")
    );

    let bare = build(BARE, "services_bare");
    let loki = instance(&bare, "solo", "loki");
    assert_eq!(loki["requirements"]["alerts"]["absent"], Value::Bool(true));
    assert_eq!(env(container(loki), "ALERTMANAGER_URL"), None);
}

#[test]
fn ntfy_seals_its_configuration_for_its_own_uid_only_where_a_relay_answers() {
    let full = build(FULL, "services_full");
    let ntfy = container(instance(&full, "one", "ntfy"));
    assert_eq!(ntfy["user"], Value::from(1000));
    let server = entry(ntfy, "files", "/etc/ntfy/server.yml").expect("server.yml");
    assert_eq!(server["owner"], Value::from(1000));
    assert_eq!(server["mode"], "0640");
    assert!(server.get("content").is_none(), "a sealed file has no text");
    let template = server["template"].as_str().unwrap();
    assert!(
        template.contains("smtp-sender-pass: ${yaml(mail.password)}"),
        "{template}"
    );
    assert!(server["references"]["mail.password"]["sealed"].is_object());

    let bare = build(BARE, "services_bare");
    let ntfy = container(instance(&bare, "solo", "ntfy"));
    assert!(entry(ntfy, "files", "/etc/ntfy/server.yml").is_none());
    assert_eq!(env(ntfy, "NTFY_LISTEN_HTTP"), Some(":8080"));
}

#[test]
fn every_file_the_new_services_read_names_the_uid_their_image_runs_as() {
    let full = build(FULL, "services_full");
    // (node, instance, the uid that reads the module's secret and sealed files)
    for (node, name, uid) in [
        ("two", "alertmanager", 65534),
        ("one", "ntfy", 1000),
        ("two", "borgmatic", 0),
    ] {
        let c = container(instance(&full, node, name));
        let sealed = c["files"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f.get("template").is_some());
        let secrets = c["secrets"].as_array().unwrap().iter();
        let mut seen = 0;
        for f in sealed.chain(secrets) {
            assert_eq!(f["owner"], Value::from(uid), "{name} {}", f["target"]);
            seen += 1;
        }
        assert!(seen > 0, "{name} reads no secret");
    }
    let alertmanager = container(instance(&full, "two", "alertmanager"));
    let config = entry(alertmanager, "files", "/etc/alertmanager/alertmanager.yml").unwrap();
    let text = config["content"].as_str().unwrap();
    assert!(text.contains("smtp_auth_password_file: /run/secrets/smtp_password"));
    assert!(text.contains("smtp_require_tls: true"));
    assert!(entry(alertmanager, "secrets", "/run/secrets/smtp_password").is_some());
}

#[test]
fn home_assistant_trusts_exactly_the_proxies_the_operator_lists() {
    let full = build(FULL, "services_full");
    let hass = container(instance(&full, "one", "home-assistant"));
    let proxies = entry(hass, "files", "/config/trusted_proxies.yaml").unwrap();
    assert_eq!(
        proxies["content"].as_str().unwrap(),
        "- \"10.1.0.1\"\n- \"172.16.0.0/12\"\n"
    );
    let config = entry(hass, "files", "/config/configuration.yaml").unwrap();
    let text = config["content"].as_str().unwrap();
    assert!(text.contains("use_x_forwarded_for: true"));
    assert!(text.contains("trusted_proxies: !include trusted_proxies.yaml"));
    assert!(text.contains("external_url: \"https://home.example.org\""));
}

#[test]
fn node_exporter_reads_the_host_root_read_only_on_every_node() {
    let full = build(FULL, "services_full");
    for node in ["one", "two"] {
        let exporter = container(instance(&full, node, "node-exporter"));
        let mounts = exporter["mounts"].as_array().unwrap();
        assert_eq!(mounts.len(), 1);
        assert_eq!(mounts[0]["host"], "/");
        assert_eq!(mounts[0]["container"], "/host");
        assert_eq!(mounts[0]["read_only"], Value::Bool(true));
        assert_eq!(exporter["command"][0], "--path.rootfs=/host");
    }
}

/// The text of a plain file, or the template of a sealed one.
fn text<'a>(container: &'a Value, target: &str) -> &'a str {
    let file = entry(container, "files", target).unwrap_or_else(|| panic!("no file {target}"));
    file.get("content")
        .or_else(|| file.get("template"))
        .and_then(Value::as_str)
        .unwrap()
}

/// The `host_port` of a port requirement, as a number.
fn host_port(instance: &Value, port: &str) -> u64 {
    instance["requirements"][port]["host_port"]
        .as_u64()
        .unwrap_or_else(|| panic!("{port} of {}", instance["instance"]))
}

#[test]
fn prometheus_scrapes_every_exporter_and_alerts_the_alertmanager_where_one_runs() {
    let full = build(FULL, "services_full");
    let prometheus = instance(&full, "one", "prometheus");
    let config = text(container(prometheus), "/etc/prometheus/prometheus.yml");
    // (node, private name, instance, its metrics port, the job's name: the login)
    for (node, private, name, port, job) in [
        (
            "one",
            "one.services.internal",
            "node-exporter",
            "metrics",
            "one_nodeexp",
        ),
        (
            "two",
            "two.services.internal",
            "node-exporter",
            "metrics",
            "two_nodeexp",
        ),
        (
            "two",
            "two.services.internal",
            "alertmanager",
            "http",
            "two_alertman",
        ),
        ("two", "two.services.internal", "loki", "http", "two_loki"),
        (
            "one",
            "one.services.internal",
            "grafana",
            "http",
            "one_grafana",
        ),
    ] {
        let scraped = instance(&full, node, name);
        assert_eq!(
            scraped["requirements"]["scraped"]["provider"]["instance"], "prometheus",
            "{node} {name}"
        );
        let job = format!(
            "  - job_name: \"{job}\"\n    metrics_path: \"/metrics\"\n    static_configs:\n      - targets: ['{private}:{}']\n",
            host_port(scraped, port)
        );
        assert!(config.contains(&job), "{job}\nnot in\n{config}");
    }
    assert!(config.contains("- /etc/prometheus/alertmanager_*.yml"));
    let alertmanager = instance(&full, "two", "alertmanager");
    assert_eq!(
        text(
            container(prometheus),
            "/etc/prometheus/alertmanager_mesh.yml"
        ),
        format!(
            "- targets: [\"two.services.internal:{}\"]\n",
            host_port(alertmanager, "http")
        )
    );

    let bare = build(BARE, "services_bare");
    let prometheus = instance(&bare, "solo", "prometheus");
    assert_eq!(
        prometheus["requirements"]["alerts"]["absent"],
        Value::Bool(true)
    );
    let c = container(prometheus);
    assert!(entry(c, "files", "/etc/prometheus/alertmanager_mesh.yml").is_none());
    // Loki is still scraped; the glob matches nothing, so alerts go nowhere.
    let config = text(c, "/etc/prometheus/prometheus.yml");
    assert!(config.contains("job_name: \"solo_loki\""), "{config}");
    assert!(config.contains("- /etc/prometheus/alertmanager_*.yml"));
}

#[test]
fn grafana_reads_prometheus_and_loki_as_data_sources_only_where_they_answer() {
    let full = build(FULL, "services_full");
    let grafana = container(instance(&full, "one", "grafana"));
    let prometheus = instance(&full, "one", "prometheus");
    let loki = instance(&full, "two", "loki");
    let sources = text(
        grafana,
        "/etc/grafana/provisioning/datasources/prometheus.yaml",
    );
    assert!(sources.contains("type: prometheus"));
    assert!(sources.contains(&format!(
        "url: {}\n",
        endpoint(prometheus, "one.services.internal", "http")
    )));
    assert!(sources.contains("isDefault: true"));
    let sources = text(grafana, "/etc/grafana/provisioning/datasources/loki.yaml");
    assert!(sources.contains("type: loki"));
    assert!(sources.contains(&format!(
        "url: {}\n",
        endpoint(loki, "two.services.internal", "http")
    )));

    // The bare mesh runs Loki, and Grafana declines its Prometheus.
    let bare = build(BARE, "services_bare");
    let grafana = instance(&bare, "solo", "grafana");
    assert_eq!(
        grafana["requirements"]["metrics"]["absent"],
        Value::Bool(true)
    );
    let c = container(grafana);
    assert!(
        entry(
            c,
            "files",
            "/etc/grafana/provisioning/datasources/prometheus.yaml"
        )
        .is_none()
    );
    assert!(
        entry(
            c,
            "files",
            "/etc/grafana/provisioning/datasources/loki.yaml"
        )
        .is_some()
    );
}

#[test]
fn gotosocial_reads_the_relays_password_from_a_sealed_file_never_the_environment() {
    let full = build(FULL, "services_full");
    let gts = container(instance(&full, "two", "gotosocial"));
    assert_eq!(
        gts["command"],
        serde_json::json!(["--config-path", "/gotosocial/config-mail.yaml"])
    );
    let with_mail = entry(gts, "files", "/gotosocial/config-mail.yaml").unwrap();
    assert_eq!(with_mail["owner"], Value::from(1000));
    let template = with_mail["template"].as_str().unwrap();
    assert!(
        template.contains("smtp-password: ${yaml(mail.password)}"),
        "{template}"
    );
    assert!(
        template.contains("db-password: ${yaml(db.password)}"),
        "{template}"
    );
    assert_eq!(env(gts, "GTS_SMTP_HOST"), Some("two.services.internal"));
    for (key, value) in gts["env"].as_object().unwrap() {
        // The identity provider's client secret is the one exception, said where it is
        // set: the configuration file is already chosen by the relay.
        if key == "GTS_OIDC_CLIENT_SECRET" {
            assert!(value["exposed"].is_string(), "{value}");
            assert_eq!(value["sealed"]["by"]["instance"], "keycloak");
            continue;
        }
        assert!(value.is_string(), "{key} is not a plain value: {value}");
    }

    let bare = build(BARE, "services_bare");
    let gts = container(instance(&bare, "solo", "gotosocial"));
    assert_eq!(gts["command"], serde_json::json!([]));
    assert!(entry(gts, "files", "/gotosocial/config-mail.yaml").is_none());
    assert_eq!(env(gts, "GTS_CONFIG_PATH"), Some("/gotosocial/config.yaml"));
    assert_eq!(env(gts, "GTS_SMTP_HOST"), None);
}

#[test]
fn maddy_answers_smtp_with_a_login_per_consumer_checked_against_a_sealed_list() {
    let full = build(FULL, "services_full");
    let maddy = instance(&full, "one", "maddy");
    let provides = maddy["provides"].as_array().unwrap();
    let smtp = provides
        .iter()
        .find(|p| p["contract"] == "smtp")
        .expect("smtp");
    let logins: Vec<&str> = smtp["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["login"].as_str().unwrap())
        .collect();
    assert_eq!(logins, ["one_ntfy", "two_synapse"]);
    let c = container(maddy);
    let list = entry(c, "files", "/etc/maddy/mesh-logins").unwrap();
    assert_eq!(list["owner"], Value::from(0));
    assert_eq!(list["mode"], "0400");
    let expected: String = logins
        .iter()
        .map(|l| format!("${{c.{l}.user}}:${{c.{l}.password}}\n"))
        .collect();
    assert_eq!(list["template"].as_str().unwrap(), expected);
    let helper = entry(c, "files", "/etc/maddy/mesh-login").unwrap();
    assert_eq!(helper["mode"], "0555");
    let script = helper["content"].as_str().unwrap();
    assert!(script.starts_with("#!/bin/sh\n"), "{script}");
    assert!(script.contains("done < /etc/maddy/mesh-logins"), "{script}");
    let config = text(c, "/data/maddy.conf");
    assert!(config.contains("helper /etc/maddy/mesh-login"), "{config}");
    assert!(config.contains("pass &mesh_logins"), "{config}");
    assert!(config.contains("auth &submission_auth"), "{config}");

    // Synapse, pinned to Maddy, logs in with its own address on the public name.
    let synapse = instance(&full, "two", "synapse");
    assert_eq!(
        synapse["requirements"]["mail"]["provider"]["instance"],
        "maddy"
    );
    let email = text(container(synapse), "/config/email.yaml");
    assert!(email.contains("smtp_host: \"mx.example.org\"\n"), "{email}");
    assert!(
        email.contains("smtp_user: \"two_synapse@people.example.org\"\n"),
        "{email}"
    );
    assert!(email.contains("smtp_port: ${mail.port}\n"), "{email}");
    let email_file = entry(container(synapse), "files", "/config/email.yaml").unwrap();
    assert_eq!(
        email_file["references"]["mail.port"]["value"],
        host_port(maddy, "submission").to_string()
    );
    // ntfy, on Maddy's node, is answered by it; the relay's neighbours by the relay.
    let ntfy = instance(&full, "one", "ntfy");
    assert_eq!(
        ntfy["requirements"]["mail"]["provider"]["instance"],
        "maddy"
    );
    let gts = instance(&full, "two", "gotosocial");
    assert_eq!(
        gts["requirements"]["mail"]["provider"]["instance"],
        "postfix"
    );
}

#[test]
fn synapse_reads_a_configuration_directory_with_mail_and_turn_only_where_they_answer() {
    let full = build(FULL, "services_full");
    let synapse = container(instance(&full, "two", "synapse"));
    assert_eq!(
        synapse["command"],
        serde_json::json!(["run", "--config-path", "/config"])
    );
    let in_config: Vec<&str> = synapse["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["target"].as_str().unwrap())
        .filter(|t| t.starts_with("/config/"))
        .collect();
    assert_eq!(
        in_config,
        [
            "/config/homeserver.yaml",
            "/config/email.yaml",
            "/config/oidc.yaml",
            "/config/turn.yaml"
        ]
    );
    // Keycloak runs on `two`: Synapse's login goes through it, at its own callback.
    let oidc = text(synapse, "/config/oidc.yaml");
    assert!(
        oidc.contains("issuer: \"https://id.example.org/realms/mesh\""),
        "{oidc}"
    );
    assert!(
        oidc.contains("client_secret: ${yaml(sso.client_secret)}"),
        "{oidc}"
    );
    for target in &in_config {
        assert_eq!(
            entry(synapse, "files", target).unwrap()["owner"],
            Value::from(991)
        );
    }
    let coturn = instance(&full, "two", "coturn");
    let turn = text(synapse, "/config/turn.yaml");
    for (port, transport) in [("turn_udp", "udp"), ("turn_tcp", "tcp")] {
        let uri = format!(
            "  - \"turn:turn.example.org:{}?transport={transport}\"\n",
            host_port(coturn, port)
        );
        assert!(turn.contains(&uri), "{uri} not in {turn}");
    }
    assert!(turn.contains("turn_shared_secret: ${yaml(turn.shared_secret)}"));
    let homeserver = text(synapse, "/config/homeserver.yaml");
    assert!(homeserver.contains("log_config: /etc/synapse/log.yaml\n"));
    assert!(!homeserver.contains("smtp_"), "{homeserver}");

    let bare = build(BARE, "services_bare");
    let synapse = instance(&bare, "solo", "synapse");
    for requirement in ["mail", "turn"] {
        assert_eq!(
            synapse["requirements"][requirement]["absent"],
            Value::Bool(true),
            "{requirement}"
        );
    }
    let c = container(synapse);
    assert!(entry(c, "files", "/config/homeserver.yaml").is_some());
    assert!(entry(c, "files", "/config/email.yaml").is_none());
    assert!(entry(c, "files", "/config/turn.yaml").is_none());
}

/// Regression (issue 38): the web container's start ran the office setup with `;`
/// between its steps, so a failing `occ` was passed over and Apache started anyway. The
/// setup is a job of its own now, under `set -eu`, and the web container keeps the
/// image's own start.
#[test]
fn nextcloud_points_richdocuments_at_the_office_suite_only_where_one_answers() {
    let full = build(FULL, "services_full");
    let nextcloud = instance(&full, "two", "nextcloud");
    assert_eq!(
        nextcloud["requirements"]["office"]["provider"]["instance"],
        "collabora"
    );
    let web = &nextcloud["containers"][0];
    assert_eq!(web["name"], "nextcloud-nextcloud");
    assert_eq!(web["command"], serde_json::json!([]));
    assert_eq!(env(web, "NEXTCLOUD_UPDATE"), None);
    assert_eq!(env(web, "TRUSTED_PROXIES"), Some("10.1.0.1/32"));
    let office = named(nextcloud, "office");
    assert_eq!(office["job"], true);
    assert_eq!(office["after"], serde_json::json!(["nextcloud"]));
    assert_eq!(
        env(office, "OFFICE_URL"),
        Some("https://office.example.org")
    );
    let script = entry(office, "files", "/mesh/office").unwrap()["content"]
        .as_str()
        .unwrap();
    let strict = script
        .find("set -eu")
        .expect("the setup stops at a failing step");
    let install = script.find("occ app:install richdocuments").unwrap();
    assert!(strict < install, "{script}");
    assert!(
        script.contains("richdocuments wopi_url --value=\"$OFFICE_URL\""),
        "{script}"
    );
    assert!(!script.contains("; occ"), "{script}");
    // Collabora accepts WOPI requests from Nextcloud's public address only.
    let collabora = container(instance(&full, "one", "collabora"));
    assert_eq!(
        env(collabora, "aliasgroup1"),
        Some("https://cloud.example.org:443")
    );

    let bare = build(BARE, "services_bare");
    let nextcloud = instance(&bare, "solo", "nextcloud");
    assert_eq!(
        nextcloud["requirements"]["office"]["absent"],
        Value::Bool(true)
    );
    let web = &nextcloud["containers"][0];
    assert_eq!(web["command"], serde_json::json!([]));
    assert_eq!(env(named(nextcloud, "office"), "OFFICE_URL"), None);
}

/// The container of an instance whose name ends with `-{name}`.
fn named<'a>(instance: &'a Value, name: &str) -> &'a Value {
    let suffix = format!("-{name}");
    instance["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().unwrap().ends_with(&suffix))
        .unwrap_or_else(|| panic!("no container `{name}` in {}", instance["instance"]))
}

/// Regression (issue 38): the module added `launch=lmdb` in `pdns.d` while the image's own
/// `pdns.conf` still set `gsqlite3-*` options, which PowerDNS refuses once gsqlite3 is not
/// launched; and `provides dns_record {}` never published a record.
#[test]
fn powerdns_replaces_the_images_pdns_conf_and_publishes_every_record_and_public_name() {
    let full = build(FULL, "services_full");
    let powerdns = instance(&full, "two", "powerdns");
    let server = named(powerdns, "powerdns");
    let conf = entry(server, "files", "/etc/powerdns/pdns.conf").expect("the module's pdns.conf");
    assert_eq!(conf["owner"], Value::from(953));
    assert_eq!(conf["mode"], "0400");
    let text_of_conf = conf["template"]
        .as_str()
        .expect("sealed: it holds the API key");
    assert!(text_of_conf.contains("\nlaunch=lmdb\n"), "{text_of_conf}");
    assert!(!text_of_conf.contains("gsqlite3"), "{text_of_conf}");
    assert!(
        text_of_conf.contains("api-key=${api_key.value}"),
        "{text_of_conf}"
    );
    let in_pdns_d: Vec<&Value> = server["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["target"]
                .as_str()
                .unwrap()
                .starts_with("/etc/powerdns/pdns.d/")
        })
        .collect();
    assert!(in_pdns_d.is_empty(), "{in_pdns_d:?}");

    let provision = named(powerdns, "provision");
    assert_eq!(provision["command"][1], "/mesh/provision");
    assert_eq!(env(provision, "PUBLIC_ADDRESS"), Some("203.0.113.1"));
    assert_eq!(
        env(provision, "PDNS_API"),
        Some(
            format!(
                "http://two.services.internal:{}/api/v1/servers/localhost",
                host_port(powerdns, "api")
            )
            .as_str()
        )
    );
    assert_eq!(
        text(provision, "/mesh/zones"),
        "\"example.org\"\n\n\"people.example.org\"\n\n"
    );
    // The relay's and Maddy's SPF records, one JSON array per line.
    let records = text(provision, "/mesh/records");
    for record in [
        r#"["example.org", "TXT", "v=spf1 -all"]"#,
        r#"["people.example.org", "TXT", "v=spf1 a:mx.example.org -all"]"#,
    ] {
        assert!(records.contains(record), "{record} not in {records}");
    }
    // Every public name the proxy routes gets an `A` record.
    let names: Vec<&str> = text(provision, "/mesh/public_names").lines().collect();
    for name in [
        "docs.example.org",
        "ntfy.example.org",
        "id.example.org",
        "cloud.example.org",
        "matrix.example.org",
    ] {
        assert!(names.contains(&name), "{name} not in {names:?}");
    }
    assert!(!names.contains(&""), "{names:?}");
}

/// Each PostgreSQL server asks the backup of its node for dumps and creates the login the
/// backup answers; the backup dumps every database with it.
#[test]
fn borgmatic_dumps_every_postgres_server_with_the_login_the_server_creates() {
    let full = build(FULL, "services_full");
    let postgres = instance(&full, "two", "postgres");
    assert_eq!(
        postgres["requirements"]["dump"]["provider"]["instance"],
        "borgmatic"
    );
    let dump_file = entry(named(postgres, "provision"), "files", "/mesh/dump.sql").unwrap();
    let dump_sql = dump_file["template"].as_str().unwrap();
    assert!(
        dump_sql.contains("GRANT pg_read_all_data TO ${dump.user};"),
        "{dump_sql}"
    );
    assert_eq!(dump_file["references"]["dump.user"]["value"], "mesh_backup");
    let server_key = &dump_file["references"]["dump.password"]["sealed"]["key"];
    assert!(server_key.is_string(), "{dump_file}");

    // The backup connects with the same login and the same sealed password.
    let login = postgres["login"].as_str().unwrap();
    let borgmatic = container(instance(&full, "two", "borgmatic"));
    let config = entry(borgmatic, "files", "/etc/borgmatic.d/config.yaml").unwrap();
    let template = config["template"].as_str().unwrap();
    let dump = format!(
        "postgresql_databases: [{{name: all, hostname: \"two.services.internal\", port: ${{c.{login}.given.port}}, username: \"mesh_backup\", password: ${{yaml(c.{login}.password)}}}},]"
    );
    assert!(template.contains(&dump), "{dump}\nnot in\n{template}");
    assert_eq!(
        config["references"][format!("c.{login}.given.port")]["value"],
        host_port(postgres, "pg").to_string()
    );
    assert_eq!(
        &config["references"][format!("c.{login}.password")]["sealed"]["key"],
        server_key
    );
    assert!(
        template.contains("\n  - \"/host/srv/sync\"\n"),
        "{template}"
    );
    let mounts = borgmatic["mounts"].as_array().unwrap();
    assert!(
        mounts
            .iter()
            .any(|m| m["host"] == "/" && m["container"] == "/host" && m["read_only"] == true),
        "{mounts:?}"
    );

    let bare = build(BARE, "services_bare");
    let postgres = instance(&bare, "solo", "postgres");
    assert_eq!(
        postgres["requirements"]["dump"]["absent"],
        Value::Bool(true)
    );
    assert!(entry(named(postgres, "provision"), "files", "/mesh/dump.sql").is_none());
}

/// A sealed template rendered as the node would, with every secret replaced by
/// `<secret KEY>` (KEY the vault's key): `${REF}`, `${json(REF)}` and `${yaml(REF)}`
/// are the forms the catalogue's templates use.
fn render(template: &str, references: &Value) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("an unclosed ${") + start;
        let expr = &rest[start + 2..end];
        let (function, name) = match expr.split_once('(') {
            Some((f, arg)) => (Some(f), arg.trim_end_matches(')')),
            None => (None, expr),
        };
        let reference = &references[name];
        let value = match reference.get("value") {
            Some(v) => v.as_str().unwrap().to_string(),
            None => format!(
                "<secret {}>",
                reference["sealed"]["key"]
                    .as_str()
                    .unwrap_or_else(|| panic!("no reference `{name}`"))
            ),
        };
        match function {
            None => out.push_str(&value),
            Some("json" | "yaml") => out.push_str(&serde_json::to_string(&value).unwrap()),
            Some(other) => panic!("`{other}` is not rendered here"),
        }
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The logins of the consumers of `contract` an instance provides for.
fn consumer_logins(instance: &Value, contract: &str) -> Vec<String> {
    instance["provides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["contract"] == contract)
        .unwrap_or_else(|| panic!("{} provides no {contract}", instance["instance"]))["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["login"].as_str().unwrap().to_string())
        .collect()
}

/// The catalogue's three meshes built whole, each node's manifest as JSON, with the name
/// of the mesh before the node's.
fn catalogue_meshes() -> Vec<(String, Value)> {
    let (database, ws) = Database::with_files(common::catalogue_files());
    let mut all = Vec::new();
    for mesh in ["lab", "fleet", "single"] {
        let outcome = db::resolve_mesh(&database, ws, mesh.to_string(), Lock::new());
        assert!(!outcome.refused(), "mesh `{mesh}` does not build whole");
        for (node, m) in &outcome.manifests {
            let json = serde_json::from_slice(&meshc::emit::manifest_bytes(m)).unwrap();
            all.push((format!("{mesh}/{node}"), json));
        }
    }
    all
}

/// The modules whose long-running containers declare no `health`, because their images
/// cannot answer one: the Forgejo runner serves nothing to ask. (Loki's and Headscale's
/// distroless images ask themselves: `loki -health`, `headscale health`.)
const NO_HEALTH: [&str; 1] = ["forgejo-runner"];

/// Issue 38: every long-running container of every mesh of the catalogue has a `health`,
/// or its module is one whose image cannot answer one, listed above and saying so in its
/// doc comment. The list is exact: a module that gains a check leaves it.
#[test]
fn every_long_running_container_has_a_health_or_its_module_says_why_not() {
    let mut without = std::collections::BTreeSet::new();
    let mut with = 0;
    for (node, manifest) in catalogue_meshes() {
        for instance in manifest["instances"].as_array().unwrap() {
            for c in instance["containers"].as_array().unwrap() {
                if c["job"] == true {
                    assert!(c.get("health").is_none(), "{node}: a job with a health");
                    continue;
                }
                match c.get("health") {
                    Some(health) => {
                        with += 1;
                        let test = health["test"].as_array().unwrap();
                        assert!(!test.is_empty(), "{node}: {}", c["name"]);
                        assert!(health["retries"].as_u64().unwrap() >= 1);
                    }
                    None => {
                        without.insert(instance["module"].as_str().unwrap().to_string());
                    }
                }
            }
        }
    }
    assert_eq!(
        without.iter().map(String::as_str).collect::<Vec<_>>(),
        NO_HEALTH,
        "the modules whose containers run without a health"
    );
    assert!(with >= 60, "only {with} containers with a health");
    for module in NO_HEALTH {
        let text = std::fs::read_to_string(format!(
            "{}/../catalogue/{module}.mesh",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        assert!(
            text.contains("/// Declares no `health`:"),
            "{module}.mesh does not say why it declares no health"
        );
    }
}

/// Issue 38: provisioning is a job, never a step a long-running container runs beside its
/// server and then sleeps on; and no failing step is hidden behind `|| true`.
#[test]
fn no_catalogue_module_keeps_a_provisioning_step_running_or_hides_a_failure() {
    for (name, text) in common::catalogue_files() {
        for forbidden in ["sleep infinity", "|| true", "|| :", "wait \"$server\""] {
            assert!(!text.contains(forbidden), "{name} contains `{forbidden}`");
        }
    }
    // Every job of the meshes runs after a container of its own module.
    for (node, manifest) in catalogue_meshes() {
        for instance in manifest["instances"].as_array().unwrap() {
            let containers = instance["containers"].as_array().unwrap();
            for job in containers.iter().filter(|c| c["job"] == true) {
                let after = job["after"]
                    .as_array()
                    .expect("a job runs after its server");
                assert!(!after.is_empty(), "{node}: {}", job["name"]);
            }
        }
    }
}

/// A test's own consumer of `amqp`: no catalogue module speaks it yet.
const BROKER: &str = r#"
module queue_client {
  requires broker: module amqp
  container app {
    image "busybox:1.37"
    env { AMQP_HOST = broker.host  AMQP_USER = broker.user }
    user 1000
    secret "/run/secrets/amqp" = broker.password
  }
}

mesh broker_test {
  node one { private_name = "one.broker.internal"  ports = 23000..23999 }
  seat vault = openbao on one
  seat broker = rabbitmq on one
  assign openbao to one
  assign rabbitmq to one
  assign queue_client to one
  assign queue_client to one as second { short = "b" }
}
"#;

/// Issue 38: RabbitMQ provisioned its consumers from its start script and stayed with the
/// server; now a job does, once the server is healthy, through the management API with the
/// administrator's password in a file, never an argument.
#[test]
fn rabbitmq_provisions_every_consumer_in_a_job_after_the_healthy_server() {
    let built = build(BROKER, "broker_test");
    let rabbitmq = instance(&built, "one", "rabbitmq");
    let consumers = consumer_logins(rabbitmq, "amqp");
    assert_eq!(consumers.len(), 2, "{consumers:?}");
    let server = named(rabbitmq, "rabbitmq");
    assert!(server.get("job").is_none());
    assert_eq!(server["command"], serde_json::json!([]));
    assert_eq!(
        server["health"]["test"],
        serde_json::json!(["rabbitmq-diagnostics", "-q", "ping"])
    );
    let job = named(rabbitmq, "provision");
    assert_eq!(job["job"], true);
    assert_eq!(job["after"], serde_json::json!(["rabbitmq"]));
    assert_eq!(job["image"], server["image"]);
    let conf = entry(job, "files", "/mesh/rabbitmqadmin.conf").unwrap();
    assert_eq!(conf["mode"], "0400");
    let template = conf["template"].as_str().unwrap();
    assert!(
        template.contains("port = ${management.host_port}"),
        "{template}"
    );
    assert_eq!(
        conf["references"]["management.host_port"]["value"],
        rabbitmq["requirements"]["management"]["host_port"].to_string()
    );
    assert!(conf["references"]["admin.value"].get("sealed").is_some());
    // A failing line of the consumers' list stops the job: it is run with `-e`.
    let provision = entry(job, "files", "/mesh/provision").unwrap()["content"]
        .as_str()
        .unwrap();
    assert!(
        provision.contains("set -eu\nsh -eu /mesh/consumers\n"),
        "{provision}"
    );
    let lines = entry(job, "files", "/mesh/consumers").unwrap();
    let script = lines["template"].as_str().unwrap();
    assert!(lines["references"].get("admin.value").is_none(), "{script}");
    for login in &consumers {
        for (reference, step) in [
            (
                "vhost",
                format!("vhosts declare --name '${{c.{login}.vhost}}'"),
            ),
            (
                "user",
                format!("users declare --name '${{c.{login}.user}}'"),
            ),
            (
                "vhost",
                format!(
                    "--vhost '${{c.{login}.vhost}}' permissions declare --user '${{c.{login}.user}}'"
                ),
            ),
        ] {
            assert!(script.contains(&step), "{step} not in {script}");
            assert_eq!(
                lines["references"][format!("c.{login}.{reference}")]["value"],
                login.as_str()
            );
        }
        assert_eq!(
            lines["references"][format!("c.{login}.password")]["sealed"]["key"],
            format!("{login}/password")
        );
    }
}

/// Issue 38: ClickHouse provisioned its consumers from its start script; now a job does,
/// once the server is healthy, through the published native port, its password in the
/// client's configuration file.
#[test]
fn clickhouse_provisions_every_consumer_in_a_job_after_the_healthy_server() {
    let lab: Vec<(String, Value)> = catalogue_meshes()
        .into_iter()
        .filter(|(n, _)| n == "lab/beta")
        .collect();
    let clickhouse = instance(&lab, "lab/beta", "clickhouse");
    let consumers = consumer_logins(clickhouse, "clickhouse");
    assert!(!consumers.is_empty());
    let server = named(clickhouse, "clickhouse");
    assert_eq!(server["command"][0], "clickhouse-server");
    assert!(entry(server, "files", "/mesh/consumers.sql").is_none());
    assert!(
        server["health"]["test"][4]
            .as_str()
            .unwrap()
            .ends_with("/ping")
    );
    let job = named(clickhouse, "provision");
    assert_eq!(job["job"], true);
    assert_eq!(job["after"], serde_json::json!(["clickhouse"]));
    let native = clickhouse["requirements"]["native"]["host_port"].to_string();
    let script = entry(job, "files", "/mesh/provision").unwrap()["content"]
        .as_str()
        .unwrap();
    assert!(
        script.contains(&format!("--host beta.lab.internal --port {native}")),
        "{script}"
    );
    assert!(!script.contains("password"), "{script}");
    let client = entry(job, "files", "/etc/clickhouse-client/config.d/mesh.xml").unwrap();
    assert!(client["references"]["admin.value"].get("sealed").is_some());
    let sql = entry(job, "files", "/mesh/consumers.sql").unwrap();
    for login in &consumers {
        assert_eq!(
            sql["references"][format!("c.{login}.password")]["sealed"]["key"],
            format!("{login}/password")
        );
        let template = sql["template"].as_str().unwrap();
        assert!(
            template.contains(&format!(
                "GRANT ALL ON ${{c.{login}.database}}.* TO ${{c.{login}.user}};"
            )),
            "{template}"
        );
    }
}

/// Issue 38: a container that needs another of its module starts after it: Mastodon's
/// streaming API and Sidekiq read the schema the web container migrates, Nextcloud's cron
/// the installation the web container makes.
#[test]
fn containers_that_need_another_of_their_module_start_after_it() {
    let meshes = catalogue_meshes();
    let mut seen = std::collections::BTreeSet::new();
    for (_, manifest) in &meshes {
        for instance in manifest["instances"].as_array().unwrap() {
            let expected: &[(&str, &str)] = match instance["module"].as_str().unwrap() {
                "mastodon" => &[("streaming", "web"), ("sidekiq", "web")],
                "nextcloud" => &[("cron", "nextcloud")],
                _ => continue,
            };
            for (container, after) in expected {
                let c = named(instance, container);
                assert_eq!(c["after"], serde_json::json!([after]), "{}", c["name"]);
                assert!(
                    named(instance, after).get("health").is_some(),
                    "`{after}` has no health to wait for"
                );
                seen.insert(*container);
            }
        }
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
}

/// Regression (issue 38): `SMTPD_SASL_USERS` ended every entry with `,`; the image splits
/// the list on `,` and runs `saslpasswd2` under `set -e` for each entry, so the empty last
/// entry stopped its start script. The image also asks for logins with their domain.
#[test]
fn postfix_sasl_users_have_no_empty_entry_and_every_login_its_domain() {
    let full = build(FULL, "services_full");
    let postfix = instance(&full, "two", "postfix");
    let consumers = consumer_logins(postfix, "smtp");
    assert!(consumers.len() >= 2, "{consumers:?}");
    let relay = container(postfix);
    let users = &relay["env"]["SMTPD_SASL_USERS"];
    let list = render(users["template"].as_str().unwrap(), &users["references"]);
    let entries: Vec<&str> = list.split(',').collect();
    assert!(!entries.contains(&""), "an empty entry in {list}");
    assert!(!list.ends_with(',') && !list.starts_with(','), "{list}");
    assert_eq!(entries.len(), consumers.len(), "{list}");
    for login in &consumers {
        let entry = format!("{login}@example.org:<secret {login}/password>");
        assert!(entries.contains(&entry.as_str()), "{entry} not in {list}");
    }
    // A consumer logs in as what the relay lists.
    let gts = container(instance(&full, "two", "gotosocial"));
    let gts_login = instance(&full, "two", "gotosocial")["login"]
        .as_str()
        .unwrap();
    assert_eq!(
        env(gts, "GTS_SMTP_USERNAME"),
        Some(format!("{gts_login}@example.org").as_str())
    );
    assert_eq!(
        relay["health"]["test"],
        serde_json::json!(["/scripts/healthcheck.sh"])
    );
}

/// Regression (issue 38): Keycloak started with no realm, so the client secrets the vault
/// mints never reached it. The realm it imports holds one confidential client per consumer,
/// with the consumer's callback and the same sealed secret the consumer reads; the job that
/// adds later consumers holds the same clients.
#[test]
fn keycloak_imports_a_realm_with_one_client_per_consumer_and_its_secret() {
    let full = build(FULL, "services_full");
    let keycloak = instance(&full, "two", "keycloak");
    let consumers = consumer_logins(keycloak, "oidc");
    assert!(consumers.len() >= 2, "{consumers:?}");
    let server = named(keycloak, "keycloak");
    assert_eq!(
        server["command"],
        serde_json::json!(["start", "--import-realm"])
    );
    let realm_file = entry(server, "files", "/opt/keycloak/data/import/mesh-realm.json")
        .expect("the realm file");
    assert_eq!(realm_file["owner"], Value::from(1000));
    let realm: Value = serde_json::from_str(&render(
        realm_file["template"].as_str().unwrap(),
        &realm_file["references"],
    ))
    .expect("the realm is JSON");
    assert_eq!(realm["realm"], "mesh");
    let clients = realm["clients"].as_array().unwrap();
    assert_eq!(clients.len(), consumers.len(), "{realm}");
    for login in &consumers {
        let client = clients
            .iter()
            .find(|c| c["clientId"] == login.as_str())
            .unwrap_or_else(|| panic!("no client for {login}"));
        assert_eq!(client["publicClient"], false);
        assert_eq!(client["secret"], format!("<secret {login}/client_secret>"));
    }
    // Grafana's client: its callback, and the very secret Grafana reads.
    let grafana = instance(&full, "one", "grafana");
    let login = grafana["login"].as_str().unwrap();
    let client = clients.iter().find(|c| c["clientId"] == login).unwrap();
    assert_eq!(
        client["redirectUris"],
        serde_json::json!(["https://dash.example.org/login/generic_oauth"])
    );
    let grafana_secret = entry(
        container(grafana),
        "secrets",
        "/run/secrets/oauth_client_secret",
    )
    .unwrap();
    assert_eq!(
        grafana_secret["sealed"]["key"],
        format!("{login}/client_secret")
    );
    assert_eq!(grafana_secret["sealed"]["by"]["instance"], "keycloak");

    let job = named(keycloak, "provision");
    assert_eq!(job["job"], true);
    assert_eq!(job["after"], serde_json::json!(["keycloak"]));
    let lines = entry(job, "files", "/mesh/clients").unwrap();
    let rendered = render(lines["template"].as_str().unwrap(), &lines["references"]);
    let from_job: Vec<Value> = rendered
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(&from_job, clients);
    assert!(
        server["health"]["test"][2]
            .as_str()
            .unwrap()
            .contains("/health/ready")
    );
}

/// Issue 38: a public name that is not a route had no record. coturn's and Maddy's names
/// point at the public addresses their assignments give, and Maddy's mail domain names
/// Maddy as its mail exchanger; PowerDNS publishes all three.
#[test]
fn coturn_and_maddy_publish_their_names_and_maddy_the_domains_mail_exchanger() {
    let full = build(FULL, "services_full");
    let maddy = instance(&full, "one", "maddy");
    let coturn = instance(&full, "two", "coturn");
    for (consumer, requirement) in [(maddy, "address"), (maddy, "mx"), (coturn, "address")] {
        assert_eq!(
            consumer["requirements"][requirement]["provider"]["instance"], "powerdns",
            "{requirement} of {}",
            consumer["instance"]
        );
    }
    let provision = named(instance(&full, "two", "powerdns"), "provision");
    let records = text(provision, "/mesh/records");
    for record in [
        r#"["mx.example.org", "A", "203.0.113.1"]"#,
        r#"["turn.example.org", "A", "203.0.113.2"]"#,
    ] {
        assert!(records.contains(record), "{record} not in {records}");
    }
    let exchangers: Vec<&str> = text(provision, "/mesh/mx_records")
        .lines()
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        exchangers,
        [r#"["people.example.org", "mx.example.org", 10]"#]
    );
    let script = text(provision, "/mesh/provision");
    assert!(
        script.contains(r#"records += [[domain, "MX", f"{preference} {absolute(host)}"]"#),
        "{script}"
    );
}

/// One of the catalogue's own meshes built with its committed lock, each node's manifest as
/// JSON.
fn build_catalogue_mesh(mesh: &str) -> Vec<(String, Value)> {
    let (database, ws) = Database::with_files(common::catalogue_files());
    let lock_path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../catalogue/{mesh}.mesh.lock"));
    let lock = Lock::parse(&std::fs::read_to_string(&lock_path).unwrap()).unwrap();
    whole(
        db::resolve_mesh(&database, ws, mesh.to_string(), lock),
        mesh,
    )
}

/// Issue 38: the backups kept the paths the operator listed by hand. Each module that
/// holds data asks the backup of its node to keep its directories (`backup_…`), and the
/// backup reads each one under the node's mesh root; a directory placed on another disk is
/// declined by its module and listed among the backup's sources instead. So on every node
/// of the lab and the fleet, every directory a module asks to keep is in that node's
/// backup, learned or listed, and nothing learned lies anywhere but where it is read.
#[test]
fn every_backup_learns_the_directories_of_its_nodes_modules_and_keeps_the_placed_ones_listed() {
    for mesh in ["lab", "fleet"] {
        let manifests = build_catalogue_mesh(mesh);
        for (node, manifest) in &manifests {
            let borgmatic = instance(&manifests, node, "borgmatic");
            let server = container(borgmatic);
            let config = entry(server, "files", "/etc/borgmatic.d/config.yaml").unwrap();
            // Sealed where a database's dump login is in it, plain elsewhere.
            let template = config["template"]
                .as_str()
                .or(config["content"].as_str())
                .unwrap();
            let mounts = server["mounts"].as_array().unwrap();
            assert!(
                mounts.iter().any(|m| m["host"] == "/srv/mesh"
                    && m["container"] == "/mesh"
                    && m["read_only"] == true),
                "{mesh}/{node}: {mounts:?}"
            );
            let learned: Vec<(String, String)> = borgmatic["provides"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["contract"] == "backup")
                .unwrap()["consumers"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| {
                    assert_eq!(c["node"], node.as_str(), "{mesh}: {c}");
                    (
                        c["instance"].as_str().unwrap().to_string(),
                        c["given"]["directory"].as_str().unwrap().to_string(),
                    )
                })
                .collect();
            let mut asked = 0;
            for i in manifest["instances"].as_array().unwrap() {
                let name = i["instance"].as_str().unwrap();
                for (req, answer) in i["requirements"].as_object().unwrap() {
                    if answer["contract"] != "backup" {
                        continue;
                    }
                    asked += 1;
                    let directory = req.strip_prefix("backup_").unwrap();
                    let dir = &i["requirements"][directory];
                    assert_eq!(dir["contract"], "directory", "{mesh}/{node}/{name}: {req}");
                    let host_path = dir["path"].as_str().unwrap();
                    if answer["absent"] == true {
                        // Declined: placed elsewhere, and listed by the operator.
                        assert_eq!(dir["placed"], true, "{mesh}/{node}/{name}: {req}");
                        let listed = format!("  - \"/host{host_path}\"\n");
                        assert!(
                            template.contains(&listed),
                            "{mesh}/{node}: {name}'s {directory} at {host_path} is kept by nobody:\n{template}"
                        );
                    } else {
                        assert_eq!(
                            answer["provider"],
                            serde_json::json!({"node": node, "instance": "borgmatic"}),
                            "{mesh}/{node}/{name}: {req}"
                        );
                        assert_eq!(dir["placed"], false, "{mesh}/{node}/{name}: {req}");
                        assert_eq!(host_path, format!("/srv/mesh/{name}/{directory}"));
                        assert!(learned.contains(&(name.to_string(), directory.to_string())));
                        let read = format!("  - \"/mesh/{name}/{directory}\"\n");
                        assert!(template.contains(&read), "{read} not in\n{template}");
                    }
                }
            }
            assert!(asked > 0, "{mesh}/{node}: no module asks to be kept");
            assert_eq!(
                learned.len(),
                template.matches("  - \"/mesh/").count(),
                "{mesh}/{node}:\n{template}"
            );
        }
    }
    // The lab's vault, forge, and photo library, by name.
    let lab = build_catalogue_mesh("lab");
    let config = entry(
        container(instance(&lab, "alpha", "borgmatic")),
        "files",
        "/etc/borgmatic.d/config.yaml",
    )
    .unwrap();
    let alpha = config["template"]
        .as_str()
        .or(config["content"].as_str())
        .unwrap();
    for kept in [
        "  - \"/mesh/openbao/data\"\n",
        "  - \"/mesh/vaultwarden/data\"\n",
        "  - \"/host/mnt/disk2/forge\"\n",
    ] {
        assert!(alpha.contains(kept), "{kept} not in\n{alpha}");
    }
    assert!(!alpha.contains("/mesh/openbao/logs"), "{alpha}");
}

/// Issue 38: only PostgreSQL was dumped. A MariaDB server asks the backup of its node for
/// dumps too; its job creates the login the backup answers, with the rights `mariadb-dump`
/// needs, and the backup dumps every database with it (`mariadb_databases`).
#[test]
fn borgmatic_dumps_every_mariadb_server_with_the_login_its_job_creates() {
    let full = build(FULL, "services_full");
    let mariadb = instance(&full, "two", "mariadb");
    assert_eq!(
        mariadb["requirements"]["dump"]["provider"],
        serde_json::json!({"node": "two", "instance": "borgmatic"})
    );
    let job = named(mariadb, "dump_login");
    assert_eq!(job["job"], true);
    assert_eq!(job["after"], serde_json::json!(["mariadb"]));
    let dump_file = entry(job, "files", "/mesh/dump.sql").unwrap();
    let sql = dump_file["template"].as_str().unwrap();
    for statement in [
        "CREATE USER IF NOT EXISTS '${dump.user}'@'%' IDENTIFIED BY '${replace(dump.password, \"'\", \"''\")}';",
        "GRANT SELECT, SHOW VIEW, TRIGGER, LOCK TABLES, EVENT ON *.* TO '${dump.user}'@'%';",
    ] {
        assert!(sql.contains(statement), "{statement} not in {sql}");
    }
    assert_eq!(dump_file["references"]["dump.user"]["value"], "mesh_backup");
    let login = mariadb["login"].as_str().unwrap();
    assert_eq!(
        dump_file["references"]["dump.password"]["sealed"]["key"],
        format!("{login}/password")
    );
    let root = entry(job, "secrets", "/run/secrets/root.cnf").unwrap();
    assert_eq!(root["owner"], Value::from(999));

    let borgmatic = container(instance(&full, "two", "borgmatic"));
    let config = entry(borgmatic, "files", "/etc/borgmatic.d/config.yaml").unwrap();
    let rendered = render(config["template"].as_str().unwrap(), &config["references"]);
    let dump = format!(
        "mariadb_databases: [{{name: all, hostname: \"two.services.internal\", port: {}, username: \"mesh_backup\", password: \"<secret {login}/password>\"}},]",
        host_port(mariadb, "sql")
    );
    assert!(rendered.contains(&dump), "{dump}\nnot in\n{rendered}");
}

/// Issue 38: Nextcloud, Immich, Paperless-ngx and GoToSocial had no single sign-on. In the
/// lab, each asks Keycloak (the only `oidc` provider) for a client with the callback its
/// upstream documents, and reads the client's id and the very secret Keycloak holds, each
/// the way its upstream takes it.
#[test]
fn the_labs_apps_log_in_through_keycloak_each_as_its_upstream_documents() {
    let lab = build_catalogue_mesh("lab");
    let keycloak = instance(&lab, "alpha", "keycloak");
    let realm_file = entry(
        named(keycloak, "keycloak"),
        "files",
        "/opt/keycloak/data/import/mesh-realm.json",
    )
    .unwrap();
    let realm: Value = serde_json::from_str(&render(
        realm_file["template"].as_str().unwrap(),
        &realm_file["references"],
    ))
    .unwrap();
    let issuer = "https://sso.example.org/realms/lab";
    for (node, name, callback) in [
        (
            "beta",
            "nextcloud",
            "https://cloud.example.org/apps/user_oidc/code",
        ),
        ("gamma", "immich", "https://photos.example.org/auth/login"),
        (
            "gamma",
            "paperless-ngx",
            "https://docs.example.org/accounts/oidc/mesh/login/callback/",
        ),
        (
            "beta",
            "gotosocial",
            "https://social.example.org/auth/callback",
        ),
    ] {
        let app = instance(&lab, node, name);
        assert_eq!(
            app["requirements"]["sso"]["provider"],
            serde_json::json!({"node": "alpha", "instance": "keycloak"}),
            "{name}"
        );
        let login = app["login"].as_str().unwrap();
        let client = realm["clients"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["clientId"] == login)
            .unwrap_or_else(|| panic!("no client for {name}"));
        assert_eq!(
            client["redirectUris"],
            serde_json::json!([callback]),
            "{name}"
        );
        let secret = format!("<secret {login}/client_secret>");
        assert_eq!(client["secret"], secret.as_str(), "{name}");
        let sealed = serde_json::json!({
            "by": {"node": "alpha", "instance": "keycloak"},
            "key": format!("{login}/client_secret"),
        });
        match name {
            "nextcloud" => {
                let job = named(app, "oidc_login");
                assert_eq!(job["job"], true);
                assert_eq!(job["user"], Value::from(33));
                assert_eq!(env(job, "OIDC_CLIENT_ID"), Some(login));
                assert_eq!(
                    env(job, "OIDC_DISCOVERY_URI"),
                    Some(format!("{issuer}/.well-known/openid-configuration").as_str())
                );
                let file = entry(job, "secrets", "/run/secrets/oidc_client_secret").unwrap();
                assert_eq!(file["sealed"], sealed);
                let script = text(job, "/mesh/oidc_login");
                assert!(
                    script.contains("occ user_oidc:provider mesh --clientid=\"$OIDC_CLIENT_ID\" --clientsecret=\"$(cat /run/secrets/oidc_client_secret)\" --discoveryuri=\"$OIDC_DISCOVERY_URI\""),
                    "{script}"
                );
                let mounts = job["mounts"].as_array().unwrap();
                assert!(
                    mounts.iter().any(|m| m["container"] == "/var/www/html"),
                    "{mounts:?}"
                );
            }
            "immich" => {
                let server = named(app, "server");
                assert_eq!(
                    env(server, "IMMICH_CONFIG_FILE"),
                    Some("/config/immich.json")
                );
                let file = entry(server, "files", "/config/immich.json").unwrap();
                let config: Value = serde_json::from_str(&render(
                    file["template"].as_str().unwrap(),
                    &file["references"],
                ))
                .unwrap();
                assert_eq!(config["oauth"]["enabled"], true);
                assert_eq!(config["oauth"]["issuerUrl"], issuer);
                assert_eq!(config["oauth"]["clientId"], login);
                assert_eq!(config["oauth"]["clientSecret"], secret.as_str());
                assert_eq!(config["oauth"]["autoRegister"], true);
            }
            "paperless-ngx" => {
                let paperless = container(app);
                assert_eq!(
                    env(paperless, "PAPERLESS_APPS"),
                    Some("allauth.socialaccount.providers.openid_connect")
                );
                assert_eq!(
                    env(paperless, "PAPERLESS_SOCIALACCOUNT_PROVIDERS_FILE"),
                    Some("/run/secrets/socialaccount_providers")
                );
                let file =
                    entry(paperless, "secrets", "/run/secrets/socialaccount_providers").unwrap();
                let providers: Value = serde_json::from_str(&render(
                    file["template"].as_str().unwrap(),
                    &file["references"],
                ))
                .unwrap();
                let app = &providers["openid_connect"]["APPS"][0];
                assert_eq!(app["provider_id"], "mesh");
                assert_eq!(app["client_id"], login);
                assert_eq!(app["secret"], secret.as_str());
                assert_eq!(app["settings"]["server_url"], issuer);
            }
            _ => {
                let gts = container(app);
                assert_eq!(env(gts, "GTS_OIDC_ENABLED"), Some("true"));
                assert_eq!(env(gts, "GTS_OIDC_ISSUER"), Some(issuer));
                assert_eq!(env(gts, "GTS_OIDC_CLIENT_ID"), Some(login));
                let value = &gts["env"]["GTS_OIDC_CLIENT_SECRET"];
                assert_eq!(value["sealed"], sealed);
                assert!(value["exposed"].is_string(), "{value}");
            }
        }
    }
}

/// Issue 38: ClickHouse was not dumped, and borgmatic has no hook for it. A ClickHouse
/// server asks the backup of its node for dumps and creates the login the backup answers,
/// allowed to read every table; before each backup, borgmatic's script dumps each table over
/// the HTTP interface into a folder the backup keeps.
#[test]
fn borgmatic_dumps_every_clickhouse_server_over_http_with_the_login_it_creates() {
    let full = build(FULL, "services_full");
    let clickhouse = instance(&full, "two", "clickhouse");
    assert_eq!(
        clickhouse["requirements"]["dump"]["provider"],
        serde_json::json!({"node": "two", "instance": "borgmatic"})
    );
    // The server's container, whether or not the module also runs jobs.
    let server = clickhouse["containers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "clickhouse" || c["name"] == "clickhouse-clickhouse")
        .unwrap();
    let users = entry(
        server,
        "files",
        "/etc/clickhouse-server/users.d/mesh-backup.xml",
    )
    .unwrap();
    assert_eq!(users["mode"], "0400");
    let xml = users["template"].as_str().unwrap();
    for part in [
        "<${dump.user}>",
        r#"<password>${replace(replace(dump.password, "&", "&amp;"), "<", "&lt;")}</password>"#,
        "<query>GRANT SELECT, SHOW ON *.*</query>",
        "</${dump.user}>",
    ] {
        assert!(xml.contains(part), "{part} not in {xml}");
    }
    assert_eq!(users["references"]["dump.user"]["value"], "mesh_backup");
    let login = clickhouse["login"].as_str().unwrap();
    assert_eq!(
        users["references"]["dump.password"]["sealed"]["key"],
        format!("{login}/password")
    );

    let borgmatic = container(instance(&full, "two", "borgmatic"));
    let servers = entry(borgmatic, "files", "/etc/mesh/clickhouse-servers").unwrap();
    let line = render(
        servers["template"].as_str().unwrap(),
        &servers["references"],
    );
    let server_line: Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(
        server_line,
        serde_json::json!({
            "host": "two.services.internal",
            "port": host_port(clickhouse, "http"),
            "user": "mesh_backup",
            "password": format!("<secret {login}/password>"),
        })
    );
    let config = entry(borgmatic, "files", "/etc/borgmatic.d/config.yaml").unwrap();
    let template = config["template"].as_str().unwrap();
    for part in [
        "\n  - /mnt/clickhouse-dumps\n",
        "commands:\n  - before: action\n    when: [create]\n    run: [sh /etc/mesh/check-kept, python3 /etc/mesh/clickhouse-dump]\n",
    ] {
        assert!(template.contains(part), "{part} not in\n{template}");
    }
    let script = text(borgmatic, "/etc/mesh/clickhouse-dump");
    assert!(script.contains("FORMAT Native"), "{script}");
    assert!(
        borgmatic["mounts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["container"] == "/mnt/clickhouse-dumps" && m["read_only"] == false)
    );
}

/// Issue 38: the lab's DNS server published the proxy's names only. Every name the proxy
/// routes is published at the front's address, and so is the TURN relay's, which is not a
/// route; Synapse hands that relay to its clients.
#[test]
fn the_labs_dns_server_publishes_every_public_name() {
    let lab = build_catalogue_mesh("lab");
    let caddy = instance(&lab, "alpha", "caddy");
    let routed: Vec<String> = caddy["provides"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["contract"] == "route")
        .unwrap()["consumers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["given"]["public_name"].as_str().unwrap().to_string())
        .collect();
    assert!(routed.len() >= 16, "{routed:?}");
    let provision = named(instance(&lab, "beta", "powerdns"), "provision");
    assert_eq!(env(provision, "PUBLIC_ADDRESS"), Some("203.0.113.11"));
    let published: Vec<&str> = text(provision, "/mesh/public_names").lines().collect();
    for name in &routed {
        assert!(
            published.contains(&name.as_str()),
            "{name} not in {published:?}"
        );
    }
    let records = text(provision, "/mesh/records");
    let turn = r#"["turn.example.org", "A", "203.0.113.11"]"#;
    assert!(records.contains(turn), "{turn} not in {records}");
    let synapse = instance(&lab, "beta", "synapse");
    assert_eq!(
        synapse["requirements"]["turn"]["provider"],
        serde_json::json!({"node": "alpha", "instance": "coturn"})
    );
}

/// What the catalogue's modules do not ask a backup to keep, and why; every other directory
/// of every module in the lab and the fleet is asked for (`backup_<directory>`).
const NOT_KEPT: &[(&str, &str, &str)] = &[
    ("postgres", "data", "dumped (pg_dump)"),
    ("pgvecto-rs", "data", "dumped (pg_dump)"),
    ("mariadb", "data", "dumped (mariadb_dump)"),
    ("clickhouse", "data", "dumped (clickhouse_dump)"),
    ("clickhouse", "logs", "logs"),
    ("openbao", "logs", "logs"),
    (
        "caddy",
        "config",
        "Caddy's autosave of the configuration the mesh writes",
    ),
    ("immich", "model_cache", "downloaded models"),
    ("jellyfin", "cache", "a cache"),
    ("ntfy", "cache", "the message cache"),
    (
        "paperless-ngx",
        "export",
        "made from the data and media it keeps",
    ),
    (
        "rabbitmq",
        "data",
        "queues in flight; users and vhosts come from the mesh",
    ),
    ("postfix", "spool", "mail in flight"),
    ("borgmatic", "repository", "the backup itself"),
    ("borgmatic", "borg_config", "Borg's own state"),
    ("borgmatic", "borg_cache", "Borg's cache"),
    (
        "borgmatic",
        "clickhouse_dumps",
        "kept as a source of its own",
    ),
];

/// Issue 38: "nightly backups of every directory that holds data". A module added with a
/// directory and no `backup_…` requirement fails here until it asks or is listed above.
#[test]
fn every_directory_of_the_lab_and_the_fleet_is_kept_or_named_as_not_holding_data() {
    for mesh in ["lab", "fleet"] {
        for (node, manifest) in build_catalogue_mesh(mesh) {
            for i in manifest["instances"].as_array().unwrap() {
                let module = i["module"].as_str().unwrap();
                let requirements = i["requirements"].as_object().unwrap();
                for (name, r) in requirements {
                    if r["contract"] != "directory" {
                        continue;
                    }
                    let asked = requirements
                        .get(&format!("backup_{name}"))
                        .is_some_and(|b| b["contract"] == "backup");
                    let listed = NOT_KEPT.iter().any(|(m, d, _)| *m == module && *d == name);
                    assert!(
                        asked != listed,
                        "{mesh}/{node}: {module}'s `{name}` is {}",
                        if asked {
                            "asked for and listed as not kept"
                        } else {
                            "neither asked for nor listed as not kept"
                        }
                    );
                }
            }
        }
    }
}

/// A node without a backup of its own, in a mesh with one backup elsewhere.
const BACKUP_ELSEWHERE: &str = r#"
mesh backup_elsewhere {
  node one { private_name = "one.backups.internal"  ports = 23000..23999 }
  node two { private_name = "two.backups.internal"  ports = 23000..23999 }

  seat vault = openbao on one
  seat proxy = caddy on one

  assign openbao to one
  assign caddy to one { acme_email = "hostmaster@example.org"  http at 80  https at 443  h3 at 443 }
  assign borgmatic to one { mesh_root at "/srv/mesh"  host_root at "/"  repository at "/mnt/backup/borg" }
  assign uptime-kuma to two { route.public_name = "status.example.org" }
}
"#;

/// Runs borgmatic's `check-kept` hook as built for `instance`, reading its own `kept`
/// list; returns whether it passed and what it said.
fn check_kept(instance: &Value) -> (bool, String) {
    let server = container(instance);
    let kept = text(server, "/etc/mesh/kept");
    let script = text(server, "/etc/mesh/check-kept");
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("kept");
    std::fs::write(&list, kept).unwrap();
    let script = script.replace("/etc/mesh/kept", list.to_str().unwrap());
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .expect("sh runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A mesh whose only backup is on another node gives that backup the node's modules too
/// (resolution's "only provider"), and their directories are not where it reads. Before
/// each backup a hook stops it, naming each such directory and its node, instead of
/// letting it fail on a missing path; on the lab's nodes it passes.
#[test]
fn a_backup_refuses_directories_of_another_node_by_name() {
    let manifests = build(BACKUP_ELSEWHERE, "backup_elsewhere");
    let kuma = instance(&manifests, "two", "uptime-kuma");
    assert_eq!(
        kuma["requirements"]["backup_data"]["provider"],
        serde_json::json!({"node": "one", "instance": "borgmatic"})
    );
    let (passed, said) = check_kept(instance(&manifests, "one", "borgmatic"));
    assert!(!passed, "{said}");
    assert!(
        said.contains(
            "backup: uptime-kuma's data lies on two.backups.internal, not on one.backups.internal"
        ),
        "{said}"
    );
    // Caddy and OpenBao on the backup's own node are not named.
    assert_eq!(said.lines().count(), 1, "{said}");

    let lab = build_catalogue_mesh("lab");
    for node in ["alpha", "beta", "gamma"] {
        let (passed, said) = check_kept(instance(&lab, node, "borgmatic"));
        assert!(passed, "{node}: {said}");
    }
}
