//! `meshc build --target compose` (LANGUAGE.md §13.7, §14.3): one Compose project per node,
//! `<node>/compose.yaml` and the `<node>/.env` that names it, that Docker Compose (v1.29
//! and v2) runs as it is and that converges under a plain `up -d`.
//!
//! The YAML is written by hand: every scalar is a double-quoted YAML string (escaped by
//! [`super::functions::yaml`], the same function templates use), every mapping and list is
//! in block style, and every `$` of a value is doubled so Compose's interpolation never
//! reads it. Text from the mesh written into a comment has every line break, control,
//! bidirectional and non-character escaped ([`comment`]), so no value ends a comment. The
//! file uses the Compose specification's keys only and no `version` or `name` (Docker
//! Compose v1.29 refuses `name`); the project takes its name from the `.env` beside it.
//!
//! Where things are on the node:
//! - a file, sealed file or secret file of container `C` of instance `L` (its login) at
//!   container path `/T` is `<root>/.mesh/files/L/C/T`, bound read-only;
//! - the env values that are exposed secrets are in `<root>/.mesh/files/L/C.env`,
//!   an `env_file`, written by `meshc render` like the files.

use super::NodeFacts;
use super::functions::yaml;
use super::manifest::{Container, EnvValue, Health, Instance, Manifest, Requirement};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

/// The key of the node's gateway network (see [`Gateway`]). Instance networks are keyed by
/// logins, which hold no `-`.
pub const GATEWAY_NETWORK: &str = "mesh-gateway";

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

/// The Compose project's name: `<mesh>-<node>`, lowercased (Compose v2 refuses capitals;
/// v1 lowercases them itself).
pub fn project_name(manifest: &Manifest) -> String {
    format!("{}-{}", manifest.mesh, manifest.node).to_ascii_lowercase()
}

/// The `.env` beside `compose.yaml`: the project's name, read by Compose v1 and v2 alike,
/// so `--remove-orphans` touches this node's project and nothing else. The name holds
/// only `[a-z0-9_-]`: nothing in it reads specially.
pub fn dot_env(manifest: &Manifest) -> String {
    format!("COMPOSE_PROJECT_NAME={}\n", project_name(manifest))
}

/// The label `mesh.digest` of a service: `sha256:<hex>` over the canonical JSON of
/// `{"node": N, "login": L, "container": ENTRY}` (LANGUAGE.md §14.7), so any change to
/// what the manifest says of the container recreates it under a plain `up -d`.
pub fn service_digest(node: &str, login: &str, container: &Container) -> String {
    #[derive(Serialize)]
    struct Entry<'a> {
        node: &'a str,
        login: &'a str,
        container: &'a Container,
    }
    let entry = Entry {
        node,
        login,
        container,
    };
    super::canonical::digest_of_value(&entry).expect("a container always serialises")
}

/// The network a node without `private_address` defines in its project, so that the
/// address its private ports are bound to is one the engine gives: the gateway of this
/// network, which the engine puts on the host's bridge as it creates the network, before
/// any container starts. Internal (never a route out, never a container's default route)
/// and without traffic between its members (`enable_icc` off), joined by the services
/// that publish a port; its subnet is a block of 198.18.0.0/15 (RFC 2544's range,
/// assigned to no network and in none of the engine's default pools), chosen by the
/// digest of `<mesh>/<node>`, large enough for its members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gateway {
    pub subnet: String,
    pub address: String,
}

/// The gateway network of node `node` of mesh `mesh` with `members` services on it.
pub fn gateway(mesh: &str, node: &str, members: usize) -> Gateway {
    use sha2::{Digest, Sha256};
    // Host bits: room for the members, the gateway, the network and broadcast addresses.
    let needed = members.saturating_add(3);
    let mut bits = 8u32;
    while bits < 16 && (1usize << bits) < needed {
        bits += 1;
    }
    let hash = Sha256::digest(format!("{mesh}/{node}").as_bytes());
    let pick = u32::from_be_bytes([hash[0], hash[1], hash[2], hash[3]]);
    let blocks = 1u32 << (17 - bits);
    let base = (198u32 << 24 | 18 << 16) + ((pick % blocks) << bits);
    let dotted = |a: u32| std::net::Ipv4Addr::from(a).to_string();
    Gateway {
        subnet: format!("{}/{}", dotted(base), 32 - bits),
        address: dotted(base + 1),
    }
}

/// Text of the mesh written into a comment: every character a YAML reader takes as a
/// line break (`\n`, `\r`, U+0085, U+2028, U+2029) or refuses raw, every control,
/// bidirectional character and non-character, written `\u{hex}`.
fn comment(s: &str) -> String {
    let hidden = |c: char| {
        crate::base::visible::is_hidden(c)
            || crate::base::template_functions::is_noncharacter(c)
            || c == '\u{feff}'
    };
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
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

/// The nodes an instance reaches by private name: its own, and the node of each provider
/// that answers one of its module requirements.
fn reached<'a>(instance: &'a Instance, own: &'a str) -> BTreeSet<&'a str> {
    let mut out = BTreeSet::from([own]);
    for r in instance.requirements.values() {
        if let Requirement::Module(m) = r {
            out.insert(m.provider.node.as_str());
        }
    }
    out
}

/// The compose file of `manifest`'s node; `nodes` are every node of the mesh.
pub fn compose_yaml(manifest: &Manifest, nodes: &[NodeFacts]) -> String {
    let facts: HashMap<&str, &NodeFacts> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let here = facts.get(manifest.node.as_str());
    let root = here.map_or(super::DEFAULT_ROOT, |n| n.root.as_str());
    let address = here.and_then(|n| n.private_address.as_deref());
    let containers = || manifest.instances.iter().flat_map(|i| &i.containers);
    // Without an address of its own, the node's project defines the network whose
    // gateway its ports are bound to, joined by every service that publishes one.
    let gateway = match address {
        Some(_) => None,
        None => {
            let members = containers().filter(|c| !c.ports.is_empty()).count();
            (members > 0).then(|| gateway(&manifest.mesh, &manifest.node, members))
        }
    };
    let bound = address.or(gateway.as_ref().map(|g| g.address.as_str()));
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# Docker Compose project of node `{}` of mesh `{}`, written by `meshc build --target compose`",
        comment(&manifest.node),
        comment(&manifest.mesh)
    );
    let _ = writeln!(y, "# from the manifest {}.", comment(&manifest.digest));
    let _ = writeln!(
        y,
        "# Files and secret files are bound read-only from {}; write them first, on the node:",
        comment(&files_dir(root))
    );
    let _ = writeln!(
        y,
        "#   meshc render {}.json --secrets DIR --root {}",
        comment(&manifest.node),
        comment(root)
    );
    match (address, &gateway) {
        (Some(a), _) => {
            let _ = writeln!(
                y,
                "# Private ports are bound to {}, the node's private_address.",
                comment(a)
            );
        }
        (None, Some(g)) => {
            let _ = writeln!(
                y,
                "# The node declares no private_address: private ports are bound to {}, the gateway of the",
                g.address
            );
            let _ = writeln!(
                y,
                "# project's own network `{GATEWAY_NETWORK}` ({}), an address of this machine reachable from it and",
                g.subnet
            );
            let _ = writeln!(
                y,
                "# its containers, not from other machines; the node's private name maps to it."
            );
        }
        (None, None) => {
            let _ = writeln!(
                y,
                "# The node declares no private_address, and no container publishes a port."
            );
        }
    }
    // Every node some instance here reaches, once, in name order.
    let mut reach: BTreeSet<&str> = BTreeSet::new();
    for i in &manifest.instances {
        reach.extend(reached(i, &manifest.node));
    }
    for n in &reach {
        if let Some(f) = facts.get(n)
            && f.private_address.is_none()
            && *n != manifest.node
            && let Some(name) = &f.private_name
        {
            let _ = writeln!(
                y,
                "# Node `{}` declares no private_address: its private name `{}` is not mapped.",
                comment(n),
                comment(name)
            );
        }
    }
    let host_entry = |n: &str| -> Option<String> {
        let f = facts.get(n)?;
        let name = f.private_name.as_ref()?;
        match (&f.private_address, n == manifest.node) {
            (Some(a), _) => Some(format!("{name}:{a}")),
            (None, true) => Some(format!("{name}:{}", gateway.as_ref()?.address)),
            (None, false) => None,
        }
    };
    // The same-node order between instances (LANGUAGE.md §14.1, §14.7).
    let order = super::same_node_providers(manifest);
    let by_instance: HashMap<&str, &Instance> = manifest
        .instances
        .iter()
        .map(|i| (i.instance.as_str(), i))
        .collect();
    let mut networks: Vec<(String, bool)> = Vec::new();
    if containers().next().is_none() {
        y.push_str("services: {}\n");
        return y;
    }
    y.push_str("services:\n");
    for instance in &manifest.instances {
        let hosts: Vec<String> = reached(instance, &manifest.node)
            .into_iter()
            .filter_map(host_entry)
            .collect();
        for c in &instance.containers {
            let _ = writeln!(y, "  {}:", key(&c.name));
            let _ = writeln!(y, "    image: {}", val(&c.image));
            if !c.command.is_empty() {
                y.push_str("    command:\n");
                for a in &c.command {
                    let _ = writeln!(y, "      - {}", val(a));
                }
            }
            match (c.user, c.group) {
                (Some(u), Some(g)) => {
                    let _ = writeln!(y, "    user: {}", val(&format!("{u}:{g}")));
                }
                (Some(u), None) => {
                    let _ = writeln!(y, "    user: {}", val(&u.to_string()));
                }
                (None, _) => {}
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
                    let host = match (p.reach == "public", bound) {
                        (true, _) | (false, None) => String::new(),
                        (false, Some(b)) => format!("{}:", bind_address(b)),
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
            let on_gateway = gateway.is_some() && !c.ports.is_empty();
            if !c.networks.is_empty() || on_gateway {
                y.push_str("    networks:\n");
                for n in &c.networks {
                    let _ = writeln!(y, "      - {}", key(&n.name));
                    if !networks.iter().any(|(name, _)| *name == n.name) {
                        networks.push((n.name.clone(), n.kept));
                    }
                }
                if on_gateway {
                    let _ = writeln!(y, "      - {}", key(GATEWAY_NETWORK));
                }
            }
            if !hosts.is_empty() {
                y.push_str("    extra_hosts:\n");
                for h in &hosts {
                    let _ = writeln!(y, "      - {}", val(h));
                }
            }
            if let Some(h) = &c.health {
                write_health(&mut y, h);
            }
            let waits = waits_for(instance, c, order.get(&instance.instance), &by_instance);
            if !waits.is_empty() {
                y.push_str("    depends_on:\n");
                for (service, condition) in waits {
                    let _ = writeln!(y, "      {}:", key(service));
                    let _ = writeln!(y, "        condition: {}", val(condition));
                }
            }
            y.push_str("    labels:\n");
            let _ = writeln!(
                y,
                "      \"mesh.digest\": {}",
                val(&service_digest(&manifest.node, &instance.login, c))
            );
            y.push_str(LOGGING);
            // A job runs to completion: restarted only when it fails.
            let restart = if c.job {
                "on-failure"
            } else {
                "unless-stopped"
            };
            let _ = writeln!(y, "    restart: {}", val(restart));
        }
    }
    if !networks.is_empty() || gateway.is_some() {
        y.push_str("networks:\n");
        for (name, kept) in &networks {
            let _ = writeln!(y, "  {}:", key(name));
            let _ = writeln!(y, "    name: {}", val(name));
            if *kept {
                y.push_str("    external: true\n");
            }
        }
        if let Some(g) = &gateway {
            let _ = writeln!(y, "  {}:", key(GATEWAY_NETWORK));
            y.push_str("    internal: true\n");
            y.push_str("    driver_opts:\n");
            y.push_str("      \"com.docker.network.bridge.enable_icc\": \"false\"\n");
            y.push_str("    ipam:\n      config:\n");
            let _ = writeln!(y, "        - subnet: {}", val(&g.subnet));
            let _ = writeln!(y, "          gateway: {}", val(&g.address));
        }
    }
    y
}

/// How a service waits for `c` to be ready: a job until it completed successfully, a
/// container with `health` until it is healthy, any other until it started.
fn condition(c: &Container) -> &'static str {
    if c.job {
        "service_completed_successfully"
    } else if c.health.is_some() {
        "service_healthy"
    } else {
        "service_started"
    }
}

/// The services container `c` of `instance` starts after, each with its condition: the
/// containers its `after` names (by their names in the definition; the manifest's is
/// `<instance>-<name>`), then every container and job of each provider instance on the
/// same node (`providers`), each service once.
fn waits_for<'a>(
    instance: &'a Instance,
    c: &Container,
    providers: Option<&Vec<String>>,
    by_instance: &HashMap<&str, &'a Instance>,
) -> Vec<(&'a str, &'static str)> {
    let mut out: Vec<(&'a str, &'static str)> = Vec::new();
    for name in &c.after {
        let full = format!("{}-{name}", instance.instance);
        if let Some(t) = instance.containers.iter().find(|t| t.name == full)
            && !out.iter().any(|(s, _)| *s == t.name)
        {
            out.push((&t.name, condition(t)));
        }
    }
    for p in providers.into_iter().flatten() {
        let Some(provider) = by_instance.get(p.as_str()) else {
            continue;
        };
        for t in &provider.containers {
            if !out.iter().any(|(s, _)| *s == t.name) {
                out.push((&t.name, condition(t)));
            }
        }
    }
    out
}

/// A duration of the manifest (digits and one unit of `s`, `m`, `h`, `d`) as Compose
/// reads one: days, which Compose does not know, in hours (`"7d"` is `168h`).
pub fn duration(d: &str) -> String {
    match d.strip_suffix('d').map(str::parse::<u128>) {
        Some(Ok(days)) => format!("{}h", days * 24),
        _ => d.to_string(),
    }
}

/// A `healthcheck` from a container's `health`: its ARGV in exec form.
fn write_health(y: &mut String, h: &Health) {
    y.push_str("    healthcheck:\n      test:\n        - \"CMD\"\n");
    for a in &h.test {
        let _ = writeln!(y, "        - {}", val(a));
    }
    let _ = writeln!(y, "      interval: {}", val(&duration(&h.interval)));
    let _ = writeln!(y, "      start_period: {}", val(&duration(&h.start_period)));
    let _ = writeln!(y, "      retries: {}", h.retries);
}

/// Every service's logs: Docker's `json-file` driver, 10 MB a file, three files kept.
const LOGGING: &str = "    logging:\n      driver: \"json-file\"\n      options:\n        max-size: \"10m\"\n        max-file: \"3\"\n";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::manifest::*;

    use crate::emit::fixture::{self, node};

    fn manifest() -> Manifest {
        let mut env = crate::base::fx_hash::FxIndexMap::default();
        env.insert(
            "PLAIN".to_string(),
            EnvValue::Text("a $HOME \"q\"\nb".into()),
        );
        env.insert(
            "TOKEN".to_string(),
            EnvValue::Sealed(SealedEnv {
                sealed: fixture::sealed("alpha_web/token"),
                exposed: Some("the image reads no file".into()),
            }),
        );
        let port = |host, container, reach: &str| PortMapping {
            host,
            container,
            protocol: "tcp".into(),
            reach: reach.into(),
        };
        let mut networks = fixture::container().networks;
        networks.push(Network {
            name: "legacy".into(),
            kept: true,
        });
        fixture::manifest(
            Default::default(),
            Container {
                env,
                mounts: vec![Mount {
                    host: "/srv/mesh/web/data".into(),
                    container: "/data".into(),
                    read_only: false,
                }],
                secrets: vec![fixture::secret("/run/secrets/db", None)],
                files: vec![File {
                    target: "/etc/web.conf".into(),
                    owner: 1000,
                    group: 1000,
                    mode: "0644".into(),
                    content: Some("x".into()),
                    template: None,
                    references: None,
                }],
                ports: vec![port(20000, 80, "private"), port(20001, 443, "public")],
                networks,
                ..fixture::container()
            },
        )
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
        // beta answers nothing of web's: web does not reach it.
        assert!(!y.contains("beta.lab.internal"), "{y}");
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
        // No fixed container name: two nodes' projects on one engine never clash.
        assert!(!y.contains("container_name"), "{y}");
        assert!(!y.contains(GATEWAY_NETWORK), "{y}");
    }

    /// Issue 35, "No address is assumed": a node without `private_address` binds its
    /// private ports to the gateway of a network its own project defines, which the
    /// engine creates with that gateway, and maps its private name there; never a
    /// constant the engine may not have.
    #[test]
    fn a_node_without_an_address_binds_to_the_gateway_of_its_own_network() {
        let y = compose_yaml(&manifest(), &[node("alpha", None), node("beta", None)]);
        let g = gateway("lab", "alpha", 1);
        assert!(
            !y.contains("172.17.0.1") && !y.contains("host-gateway"),
            "{y}"
        );
        assert!(
            y.contains(&format!("      - \"{}:20000:80/tcp\"\n", g.address)),
            "{y}"
        );
        assert!(y.contains(&format!("      - \"alpha.lab.internal:{}\"\n", g.address)));
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
        let net = &docs[0]["networks"][GATEWAY_NETWORK];
        assert_eq!(net["internal"].as_bool(), Some(true));
        assert_eq!(
            net["ipam"]["config"][0]["subnet"].as_str(),
            Some(g.subnet.as_str())
        );
        assert_eq!(
            net["ipam"]["config"][0]["gateway"].as_str(),
            Some(g.address.as_str())
        );
        let web = &docs[0]["services"]["web"]["networks"];
        assert!(
            web.as_vec()
                .unwrap()
                .iter()
                .any(|n| n.as_str() == Some(GATEWAY_NETWORK)),
            "{y}"
        );
        assert!(y.contains("declares no private_address: private ports are bound to"));
        assert!(!y.contains("beta.lab.internal:"));
    }

    #[test]
    fn the_gateway_network_is_a_block_of_198_18_0_0_15_with_room_for_its_members() {
        for (members, prefix) in [(1, 24), (253, 24), (254, 23), (5000, 19)] {
            let g = gateway("lab", "alpha", members);
            let (net, len) = g.subnet.split_once('/').unwrap();
            assert_eq!(len, prefix.to_string(), "{members}");
            let net: std::net::Ipv4Addr = net.parse().unwrap();
            let gw: std::net::Ipv4Addr = g.address.parse().unwrap();
            let base = u32::from(net);
            assert_eq!(base >> 17, (198u32 << 24 | 18 << 16) >> 17, "{g:?}");
            assert_eq!(base & ((1 << (32 - prefix)) - 1), 0, "{g:?}");
            assert_eq!(u32::from(gw), base + 1);
        }
        // Chosen by the mesh and the node: two nodes of a mesh on one engine differ.
        assert_ne!(gateway("lab", "alpha", 3), gateway("lab", "beta", 3));
        assert_eq!(gateway("lab", "alpha", 3), gateway("lab", "alpha", 3));
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

    /// Issue 33, class 4: a U+2028 in a node's `root` ended the header comment (YAML 1.1
    /// readers such as PyYAML break lines there) and injected a top-level key. Every line
    /// break a YAML reader knows is escaped, in comments and values alike.
    #[test]
    fn a_line_break_in_a_nodes_root_never_ends_a_comment_or_injects_a_key() {
        for brk in ["\u{2028}", "\u{2029}", "\u{85}", "\r", "\n"] {
            let mut alpha = node("alpha", None);
            alpha.root = format!("/srv/mesh{brk}injected: true{brk}#");
            let y = compose_yaml(&manifest(), &[alpha]);
            assert!(
                !y.contains(['\u{2028}', '\u{2029}', '\u{85}', '\r']),
                "{brk:?}: {y}"
            );
            for line in y.lines() {
                assert!(!line.starts_with("injected"), "{brk:?}: {y}");
            }
            let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
            let keys: Vec<&str> = docs[0]
                .as_hash()
                .unwrap()
                .keys()
                .map(|k| k.as_str().unwrap())
                .collect();
            assert_eq!(keys, ["services", "networks"], "{brk:?}");
            // The binds hold the root exactly as written.
            let source = docs[0]["services"]["web"]["volumes"][1]["source"]
                .as_str()
                .unwrap();
            assert!(source.starts_with(&alpha_root(brk)), "{source:?}");
        }
    }

    fn alpha_root(brk: &str) -> String {
        format!("/srv/mesh{brk}injected: true{brk}#")
    }

    /// Issue 33, class 4: a U+FFFF in an env value made the whole file unreadable to the
    /// engine (YAML readers refuse non-characters raw). The file holds exactly the value,
    /// escaped.
    #[test]
    fn a_noncharacter_in_a_value_never_makes_the_file_unreadable() {
        let odd = "a\u{ffff}b\u{fffe}c\u{fdd0}d\u{10ffff}e\u{1fffe}";
        let mut m = manifest();
        let c = &mut m.instances[0].containers[0];
        c.env.clear();
        c.env.insert("ODD".into(), EnvValue::Text(odd.into()));
        c.command = vec![odd.into()];
        let mut alpha = node("alpha", None);
        alpha.root = format!("/srv/{odd}");
        let y = compose_yaml(&m, &[alpha]);
        assert!(
            !y.chars()
                .any(crate::base::template_functions::is_noncharacter),
            "{y}"
        );
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
        let web = &docs[0]["services"]["web"];
        assert_eq!(web["environment"]["ODD"].as_str(), Some(odd));
        assert_eq!(web["command"][0].as_str(), Some(odd));
    }

    /// Issue 33, class 12: every container listed every node in `extra_hosts` (a mesh of
    /// 2,000 nodes wrote 173 MB). An instance lists its own node and the nodes of the
    /// providers it reaches, nothing else.
    #[test]
    fn extra_hosts_list_only_the_nodes_an_instance_reaches() {
        let nodes: Vec<NodeFacts> = (0..2000)
            .map(|k| {
                node(
                    &format!("n{k}"),
                    Some(&format!("10.1.{}.{}", k / 250, k % 250 + 1)),
                )
            })
            .collect();
        let mut m = manifest();
        m.node = "n0".into();
        m.instances[0].requirements.insert(
            "db".into(),
            Requirement::Module(ModuleRequirement {
                kind: "module",
                contract: "pg".into(),
                provider: InstanceRef {
                    node: "n7".into(),
                    instance: "pg".into(),
                },
                by: By::Pin,
            }),
        );
        let y = compose_yaml(&m, &nodes);
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
        let hosts: Vec<&str> = docs[0]["services"]["web"]["extra_hosts"]
            .as_vec()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect();
        assert_eq!(
            hosts,
            ["n0.lab.internal:10.1.0.1", "n7.lab.internal:10.1.0.8"]
        );
        assert!(y.len() < 8_000, "{} bytes", y.len());
    }

    /// LANGUAGE.md §14.3: each service carries `mesh.digest` over the canonical JSON of
    /// its node, login and container entry; logs are bounded; a container restarts unless
    /// stopped, a job only when it fails.
    #[test]
    fn every_service_has_its_digest_bounded_logs_and_a_restart_policy() {
        let mut m = manifest();
        let mut job = m.instances[0].containers[0].clone();
        job.name = "web-migrate".into();
        job.job = true;
        job.ports.clear();
        m.instances[0].containers[0].name = "web-web".into();
        m.instances[0].containers.push(job);
        let y = compose_yaml(&m, &[node("alpha", Some("10.0.0.11"))]);
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
        let mut digests = Vec::new();
        for c in &m.instances[0].containers {
            let s = &docs[0]["services"][c.name.as_str()];
            let entry = serde_json::json!({
                "node": "alpha",
                "login": "alpha_web",
                "container": serde_json::to_value(c).unwrap(),
            });
            let want = {
                use sha2::{Digest, Sha256};
                let hash = Sha256::digest(crate::emit::canonical_json(&entry).as_bytes());
                let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
                format!("sha256:{hex}")
            };
            assert_eq!(s["labels"]["mesh.digest"].as_str(), Some(want.as_str()));
            digests.push(want);
            assert_eq!(s["logging"]["driver"].as_str(), Some("json-file"));
            assert_eq!(s["logging"]["options"]["max-size"].as_str(), Some("10m"));
            assert_eq!(s["logging"]["options"]["max-file"].as_str(), Some("3"));
            let restart = if c.job {
                "on-failure"
            } else {
                "unless-stopped"
            };
            assert_eq!(s["restart"].as_str(), Some(restart));
        }
        assert_ne!(digests[0], digests[1]);
        // Any change to the entry changes the digest.
        let mut changed = m.clone();
        changed.instances[0].containers[0].image = "example/web:1.1".into();
        let y2 = compose_yaml(&changed, &[node("alpha", Some("10.0.0.11"))]);
        assert!(!y2.contains(&digests[0]) && y2.contains(&digests[1]));
    }

    #[test]
    fn health_becomes_a_healthcheck_in_durations_compose_reads() {
        let mut m = manifest();
        m.instances[0].containers[0].health = Some(Health {
            test: vec!["pg_isready".into(), "-q".into(), "$USER".into()],
            interval: "7d".into(),
            start_period: "90s".into(),
            retries: 5,
        });
        let y = compose_yaml(&m, &[node("alpha", Some("10.0.0.11"))]);
        assert!(
            y.contains("    healthcheck:\n      test:\n        - \"CMD\"\n        - \"pg_isready\"\n        - \"-q\"\n        - \"$$USER\"\n      interval: \"168h\"\n      start_period: \"90s\"\n      retries: 5\n"),
            "{y}"
        );
        assert_eq!(duration("2d"), "48h");
        assert_eq!(duration("15m"), "15m");
        assert_eq!(duration("0s"), "0s");
    }

    /// `after` and the same-node rule of LANGUAGE.md §14.1: a consumer's containers wait
    /// for every container and job of its provider on the same node, and a container for
    /// what its `after` names, each with the condition of what it waits for.
    #[test]
    fn after_and_same_node_providers_become_depends_on_with_conditions() {
        let mut m = manifest();
        let base = m.instances[0].containers[0].clone();
        let mut pg = m.instances[0].clone();
        pg.instance = "pg".into();
        pg.login = "alpha_pg".into();
        let mut server = base.clone();
        server.name = "pg-server".into();
        server.health = Some(Health {
            test: vec!["true".into()],
            interval: "30s".into(),
            start_period: "0s".into(),
            retries: 3,
        });
        let mut provision = base.clone();
        provision.name = "pg-provision".into();
        provision.job = true;
        provision.ports.clear();
        provision.after = vec!["server".into()];
        pg.containers = vec![server, provision];
        // A provider on another node is not waited for.
        let mut far = InstanceRef {
            node: "beta".into(),
            instance: "cache".into(),
        };
        m.instances[0].requirements.insert(
            "db".into(),
            Requirement::Module(ModuleRequirement {
                kind: "module",
                contract: "pg".into(),
                provider: InstanceRef {
                    node: "alpha".into(),
                    instance: "pg".into(),
                },
                by: By::Node,
            }),
        );
        far.instance = "cache".into();
        m.instances[0].requirements.insert(
            "cache".into(),
            Requirement::Module(ModuleRequirement {
                kind: "module",
                contract: "cache".into(),
                provider: far,
                by: By::Only,
            }),
        );
        m.instances.insert(0, pg);
        let y = compose_yaml(&m, &[node("alpha", Some("10.0.0.11"))]);
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the file is YAML");
        let depends = |service: &str| -> Vec<(String, String)> {
            docs[0]["services"][service]["depends_on"]
                .as_hash()
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| {
                            (
                                k.as_str().unwrap().to_string(),
                                v["condition"].as_str().unwrap().to_string(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
        assert_eq!(depends("pg-server"), []);
        assert_eq!(
            depends("pg-provision"),
            [pair("pg-server", "service_healthy")]
        );
        assert_eq!(
            depends("web"),
            [
                pair("pg-server", "service_healthy"),
                pair("pg-provision", "service_completed_successfully")
            ]
        );
    }

    #[test]
    fn a_user_with_a_group_runs_as_uid_and_gid() {
        let mut m = manifest();
        m.instances[0].containers[0].group = Some(2000);
        let y = compose_yaml(&m, &[node("alpha", Some("10.0.0.11"))]);
        assert!(y.contains("    user: \"1000:2000\"\n"), "{y}");
    }

    /// The project is named `<mesh>-<node>` by a `.env` beside the file, never by a
    /// top-level `name:` (Compose v1.29 refuses it).
    #[test]
    fn the_project_is_named_by_its_dot_env() {
        let mut m = manifest();
        m.mesh = "Lab".into();
        assert_eq!(dot_env(&m), "COMPOSE_PROJECT_NAME=lab-alpha\n");
        let y = compose_yaml(&m, &[node("alpha", Some("10.0.0.11"))]);
        assert!(!y.lines().any(|l| l.starts_with("name:")), "{y}");
    }
}
