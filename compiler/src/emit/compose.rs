//! `meshc build --target compose` (LANGUAGE.md §13.7): one Compose project per node,
//! `<node>/compose.yaml`, that Docker Compose (v1.29 and v2) runs as it is.
//!
//! The YAML is written by hand: every scalar is a double-quoted YAML string (escaped by
//! [`super::functions::yaml`], the same function templates use), every mapping and list is
//! in block style, and every `$` of a value is doubled so Compose's interpolation never
//! reads it. The file uses the Compose specification's keys only and no `version` or
//! `name` (Docker Compose v1.29 refuses `name`); the project takes its name from the
//! node's folder.
//!
//! Where things are on the node:
//! - a file, sealed file or secret file of container `C` of instance `L` (its login) at
//!   container path `/T` is `<root>/.mesh/files/L/C/T`, bound read-only;
//! - the env values that are exposed secrets are in `<root>/.mesh/files/L/C.env`,
//!   an `env_file`, written by `meshc render` like the files.

use super::NodeFacts;
use super::functions::yaml;
use super::manifest::{Container, EnvValue, Manifest};
use std::fmt::Write as _;

/// The address private ports are bound to on a node that declares no `private_address`:
/// the gateway of the Docker Engine's default bridge, which `host-gateway` names too.
pub const GATEWAY: &str = "172.17.0.1";

/// The folder `meshc render` writes a node's files into.
pub fn files_dir(root: &str) -> String {
    format!("{}/.mesh/files", root.trim_end_matches('/'))
}

/// Where the file at `target` of container `container` of the instance whose login is
/// `login` is kept on the node.
pub fn file_source(root: &str, login: &str, container: &str, target: &str) -> String {
    format!(
        "{}/{login}/{container}/{}",
        files_dir(root),
        target.trim_start_matches('/')
    )
}

/// The env file holding a container's exposed secrets.
pub fn env_file(root: &str, login: &str, container: &str) -> String {
    format!("{}/{login}/{container}.env", files_dir(root))
}

/// Whether a container has env values only `meshc render` can write.
pub fn has_sealed_env(c: &Container) -> bool {
    c.env.values().any(|v| !matches!(v, EnvValue::Text(_)))
}

/// A value: a YAML double-quoted scalar with every `$` doubled.
fn val(s: &str) -> String {
    yaml(&s.replace('$', "$$"))
}

/// A key: a YAML double-quoted scalar.
fn key(s: &str) -> String {
    yaml(s)
}

/// `host:port` as Compose's short port syntax writes an address (IPv6 in brackets).
fn bind_address(addr: &str) -> String {
    if addr.contains(':') {
        format!("[{addr}]")
    } else {
        addr.to_string()
    }
}

/// The compose file of `manifest`'s node; `nodes` are every node of the mesh.
pub fn compose_yaml(manifest: &Manifest, nodes: &[NodeFacts]) -> String {
    let here = nodes.iter().find(|n| n.name == manifest.node);
    let root = here.map_or(super::DEFAULT_ROOT, |n| n.root.as_str());
    let address = here.and_then(|n| n.private_address.as_deref());
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# Docker Compose project of node `{}` of mesh `{}`, written by `meshc build --target compose`",
        manifest.node, manifest.mesh
    );
    let _ = writeln!(y, "# from the manifest {}.", manifest.digest);
    let _ = writeln!(
        y,
        "# Files and secret files are bound read-only from {}; write them first, on the node:",
        files_dir(root)
    );
    let _ = writeln!(
        y,
        "#   meshc render {}.json --secrets DIR --root {root}",
        manifest.node
    );
    match address {
        Some(a) => {
            let _ = writeln!(
                y,
                "# Private ports are bound to {a}, the node's private_address."
            );
        }
        None => {
            let _ = writeln!(
                y,
                "# The node declares no private_address: private ports are bound to {GATEWAY}, the gateway of the"
            );
            let _ = writeln!(
                y,
                "# Docker Engine's default bridge, reachable from this machine and its containers, not from"
            );
            let _ = writeln!(
                y,
                "# other machines; the node's private name maps to that gateway (host-gateway)."
            );
        }
    }
    // Every node's private name, mapped to its address, inside every container.
    let mut hosts: Vec<String> = Vec::new();
    for n in nodes {
        let Some(name) = &n.private_name else {
            continue;
        };
        match (&n.private_address, n.name == manifest.node) {
            (Some(a), _) => hosts.push(format!("{name}:{a}")),
            (None, true) => hosts.push(format!("{name}:host-gateway")),
            (None, false) => {
                let _ = writeln!(
                    y,
                    "# Node `{}` declares no private_address: its private name `{name}` is not mapped.",
                    n.name
                );
            }
        }
    }
    let mut networks: Vec<(String, bool)> = Vec::new();
    if manifest.instances.iter().all(|i| i.containers.is_empty()) {
        y.push_str("services: {}\n");
        return y;
    }
    y.push_str("services:\n");
    for instance in &manifest.instances {
        for c in &instance.containers {
            let _ = writeln!(y, "  {}:", key(&c.name));
            let _ = writeln!(y, "    container_name: {}", val(&c.name));
            let _ = writeln!(y, "    image: {}", val(&c.image));
            if !c.command.is_empty() {
                y.push_str("    command:\n");
                for a in &c.command {
                    let _ = writeln!(y, "      - {}", val(a));
                }
            }
            if let Some(u) = c.user {
                let _ = writeln!(y, "    user: {}", val(&u.to_string()));
            }
            let plain: Vec<(&String, &String)> = c
                .env
                .iter()
                .filter_map(|(k, v)| match v {
                    EnvValue::Text(t) => Some((k, t)),
                    _ => None,
                })
                .collect();
            if !plain.is_empty() {
                y.push_str("    environment:\n");
                for (k, v) in plain {
                    let _ = writeln!(y, "      {}: {}", key(k), val(v));
                }
            }
            if has_sealed_env(c) {
                y.push_str("    env_file:\n");
                let _ = writeln!(
                    y,
                    "      - {}",
                    val(&env_file(root, &instance.login, &c.name))
                );
            }
            if !c.ports.is_empty() {
                y.push_str("    ports:\n");
                for p in &c.ports {
                    let host = if p.reach == "public" {
                        String::new()
                    } else {
                        format!("{}:", bind_address(address.unwrap_or(GATEWAY)))
                    };
                    let _ = writeln!(
                        y,
                        "      - {}",
                        val(&format!("{host}{}:{}/{}", p.host, p.container, p.protocol))
                    );
                }
            }
            let binds: Vec<(String, &str, bool)> = c
                .mounts
                .iter()
                .map(|m| (m.host.clone(), m.container.as_str(), m.read_only))
                .chain(c.files.iter().map(|f| {
                    (
                        file_source(root, &instance.login, &c.name, &f.target),
                        f.target.as_str(),
                        true,
                    )
                }))
                .chain(c.secrets.iter().map(|s| {
                    (
                        file_source(root, &instance.login, &c.name, &s.target),
                        s.target.as_str(),
                        true,
                    )
                }))
                .collect();
            if !binds.is_empty() {
                y.push_str("    volumes:\n");
                for (source, target, read_only) in binds {
                    let _ = writeln!(y, "      - type: \"bind\"");
                    let _ = writeln!(y, "        source: {}", val(&source));
                    let _ = writeln!(y, "        target: {}", val(target));
                    let _ = writeln!(y, "        read_only: {read_only}");
                }
            }
            if !c.networks.is_empty() {
                y.push_str("    networks:\n");
                for n in &c.networks {
                    let _ = writeln!(y, "      - {}", key(&n.name));
                    if !networks.iter().any(|(name, _)| *name == n.name) {
                        networks.push((n.name.clone(), n.kept));
                    }
                }
            }
            if !hosts.is_empty() {
                y.push_str("    extra_hosts:\n");
                for h in &hosts {
                    let _ = writeln!(y, "      - {}", val(h));
                }
            }
            y.push_str("    restart: \"unless-stopped\"\n");
        }
    }
    if !networks.is_empty() {
        y.push_str("networks:\n");
        for (name, kept) in &networks {
            let _ = writeln!(y, "  {}:", key(name));
            let _ = writeln!(y, "    name: {}", val(name));
            if *kept {
                y.push_str("    external: true\n");
            }
        }
    }
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::manifest::*;

    fn node(name: &str, address: Option<&str>) -> NodeFacts {
        NodeFacts {
            name: name.into(),
            private_name: Some(format!("{name}.lab.internal")),
            private_address: address.map(str::to_string),
            root: "/srv/mesh".into(),
        }
    }

    fn manifest() -> Manifest {
        let mut env = crate::base::fx_hash::FxIndexMap::default();
        env.insert(
            "PLAIN".to_string(),
            EnvValue::Text("a $HOME \"q\"\nb".into()),
        );
        env.insert(
            "TOKEN".to_string(),
            EnvValue::Sealed(SealedEnv {
                sealed: SealedRef {
                    by: InstanceRef {
                        node: "beta".into(),
                        instance: "vault".into(),
                    },
                    key: "alpha_web/token".into(),
                },
                exposed: Some("the image reads no file".into()),
            }),
        );
        Manifest {
            mesh: "lab".into(),
            node: "alpha".into(),
            digest: "sha256:00".into(),
            nodes: Default::default(),
            instances: vec![Instance {
                instance: "web".into(),
                module: "web".into(),
                login: "alpha_web".into(),
                requirements: Default::default(),
                containers: vec![Container {
                    name: "web".into(),
                    image: "example/web:1.0".into(),
                    command: vec!["serve".into(), "--port=$PORT".into()],
                    user: Some(1000),
                    group: None,
                    env,
                    mounts: vec![Mount {
                        host: "/srv/mesh/web/data".into(),
                        container: "/data".into(),
                        read_only: false,
                    }],
                    secrets: vec![SecretFile {
                        target: "/run/secrets/db".into(),
                        owner: 1000,
                        group: 1000,
                        mode: "0440".into(),
                        sealed: None,
                        template: None,
                        references: None,
                    }],
                    files: vec![File {
                        target: "/etc/web.conf".into(),
                        owner: 1000,
                        group: 1000,
                        mode: "0644".into(),
                        content: Some("x".into()),
                        template: None,
                        references: None,
                    }],
                    ports: vec![
                        PortMapping {
                            host: 20000,
                            container: 80,
                            protocol: "tcp".into(),
                            reach: "private".into(),
                        },
                        PortMapping {
                            host: 20001,
                            container: 443,
                            protocol: "tcp".into(),
                            reach: "public".into(),
                        },
                    ],
                    networks: vec![
                        Network {
                            name: "alpha_web".into(),
                            kept: false,
                        },
                        Network {
                            name: "legacy".into(),
                            kept: true,
                        },
                    ],
                    health: None,
                    job: false,
                    after: Vec::new(),
                }],
                provides: vec![],
                genesis: false,
            }],
            left_out: vec![],
            retired: vec![],
        }
    }

    #[test]
    fn a_node_with_a_private_address_binds_and_maps_to_it() {
        let y = compose_yaml(
            &manifest(),
            &[
                node("alpha", Some("10.0.0.11")),
                node("beta", Some("10.0.0.12")),
            ],
        );
        assert!(y.contains("      - \"10.0.0.11:20000:80/tcp\"\n"), "{y}");
        assert!(y.contains("      - \"20001:443/tcp\"\n"), "{y}");
        assert!(y.contains("      - \"alpha.lab.internal:10.0.0.11\"\n"));
        assert!(y.contains("      - \"beta.lab.internal:10.0.0.12\"\n"));
        assert!(y.contains("    user: \"1000\"\n"));
        // `$` doubled, quotes and newlines escaped: the value reads back as written.
        assert!(
            y.contains("      \"PLAIN\": \"a $$HOME \\\"q\\\"\\nb\"\n"),
            "{y}"
        );
        assert!(y.contains("      - \"--port=$$PORT\"\n"));
        // The exposed secret is not in the file: it is in the env file render writes.
        assert!(!y.contains("TOKEN"));
        assert!(y.contains("      - \"/srv/mesh/.mesh/files/alpha_web/web.env\"\n"));
        assert!(y.contains(
            "        source: \"/srv/mesh/.mesh/files/alpha_web/web/etc/web.conf\"\n        target: \"/etc/web.conf\"\n        read_only: true\n"
        ));
        assert!(
            y.contains("        source: \"/srv/mesh/.mesh/files/alpha_web/web/run/secrets/db\"\n")
        );
        assert!(y.contains("  \"legacy\":\n    name: \"legacy\"\n    external: true\n"));
        assert!(y.contains("  \"alpha_web\":\n    name: \"alpha_web\"\n"));
    }

    #[test]
    fn a_node_without_an_address_binds_to_the_gateway_and_says_so() {
        let y = compose_yaml(&manifest(), &[node("alpha", None), node("beta", None)]);
        assert!(y.contains("      - \"172.17.0.1:20000:80/tcp\"\n"), "{y}");
        assert!(y.contains("      - \"alpha.lab.internal:host-gateway\"\n"));
        assert!(y.contains("declares no private_address: private ports are bound to 172.17.0.1"));
        assert!(y.contains("# Node `beta` declares no private_address"));
        assert!(!y.contains("beta.lab.internal:"));
    }

    #[test]
    fn ipv6_addresses_are_bracketed_where_a_port_follows() {
        let y = compose_yaml(&manifest(), &[node("alpha", Some("fd00::11"))]);
        assert!(y.contains("      - \"[fd00::11]:20000:80/tcp\"\n"), "{y}");
        assert!(y.contains("      - \"alpha.lab.internal:fd00::11\"\n"));
    }

    #[test]
    fn every_value_reads_back_as_written_through_a_yaml_parser() {
        let hostile = [
            "plain",
            "a: b # not a comment",
            "- list? {map} [seq] & * ! | > ' % @ `",
            "tab\there\r\nnew line",
            "\u{0}\u{1}\u{7f}\u{80}\u{85}\u{9f}\u{2028}\u{2029}\u{feff}é✓𝄞",
            "yes",
            "0o17",
            "~",
            "",
            "  spaced  ",
            "back\\slash \"quoted\"",
        ];
        let mut m = manifest();
        let c = &mut m.instances[0].containers[0];
        c.command = hostile.iter().map(|s| s.to_string()).collect();
        c.env.clear();
        for (i, h) in hostile.iter().enumerate() {
            c.env.insert(format!("K{i}"), EnvValue::Text(h.to_string()));
        }
        let y = compose_yaml(&m, &[node("alpha", Some("10.0.0.11"))]);
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
        let web = &docs[0]["services"]["web"];
        for (i, h) in hostile.iter().enumerate() {
            // Compose reads `$$` as one `$`: the value Compose sees is the one written.
            let want = h.replace('$', "$$");
            assert_eq!(web["command"][i].as_str(), Some(want.as_str()), "{h:?}");
            assert_eq!(
                web["environment"][format!("K{i}").as_str()].as_str(),
                Some(want.as_str()),
                "{h:?}"
            );
        }
        assert_eq!(web["user"].as_str(), Some("1000"));
        assert_eq!(web["volumes"][0]["read_only"].as_bool(), Some(false));
        assert_eq!(web["volumes"][1]["read_only"].as_bool(), Some(true));
        assert_eq!(
            docs[0]["networks"]["legacy"]["external"].as_bool(),
            Some(true)
        );
    }

    #[test]
    fn an_env_file_is_bound_exactly_when_a_container_has_a_sealed_value() {
        let env_file = "    env_file:\n      - \"/srv/mesh/.mesh/files/alpha_web/web.env\"\n";
        let nodes = [node("alpha", Some("10.0.0.11"))];
        // Plain values only: no env file, the values in `environment`.
        let mut plain = manifest();
        plain.instances[0].containers[0].env.shift_remove("TOKEN");
        let y = compose_yaml(&plain, &nodes);
        assert!(!y.contains("env_file"), "{y}");
        assert!(y.contains("    environment:\n"), "{y}");
        // A sealed value only: the env file, and no `environment`.
        let mut sealed = manifest();
        sealed.instances[0].containers[0].env.shift_remove("PLAIN");
        let y = compose_yaml(&sealed, &nodes);
        assert!(y.contains(env_file), "{y}");
        assert!(!y.contains("environment"), "{y}");
        // Both: both.
        let y = compose_yaml(&manifest(), &nodes);
        assert!(
            y.contains(env_file) && y.contains("    environment:\n"),
            "{y}"
        );
        // None at all: neither.
        let mut none = manifest();
        none.instances[0].containers[0].env.clear();
        let y = compose_yaml(&none, &nodes);
        assert!(!y.contains("env_file") && !y.contains("environment"), "{y}");
    }
}
