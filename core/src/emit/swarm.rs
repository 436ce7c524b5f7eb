//! `meshc build --target swarm` (LANGUAGE.md §14.4): one Docker Swarm stack for the whole
//! mesh, `swarm/stack.yaml`, deployed from a manager with `docker stack deploy`. The
//! design, and why, is in docs/swarm.md.
//!
//! The stack is a function of the typed manifests the build writes (§9), as Compose's
//! project is, so it says nothing a manifest does not. `meshc render --swarm` reads the
//! written manifests and names their files with the same [`file_kind`] and [`key_of`].
//!
//! - **Placement.** Each service is constrained to `node.labels.mesh.node == <node>`; the
//!   header lists the `docker node update --label-add` commands.
//! - **Files.** A plain file is a Swarm config, a sealed file or a secret file a Swarm
//!   secret, each with its `uid`, `gid` and `mode`. No value passes through the build: the
//!   stack names each one `<mesh>-<key>-${MESH_<KEY>}` and reads it from
//!   `${MESH_STAGE}/<key>`; `meshc render --swarm` writes those files on the manager, and
//!   `stack.env` giving each variable the digest of its content, so a changed value is a
//!   new name and rolls its service (Swarm refuses to change a config or secret in place).
//!   The key is a digest of where the file goes (login, container, path), so it is stable
//!   across builds.
//! - **Reach.** As the manifest says: a consumer reaches `<private name>:<host port>`.
//!   Every private name maps to its node's `private_address` (`extra_hosts`); a private
//!   port is published in host mode on its node, where the node's `docker_gwbridge` binds
//!   host ports to the private address only (made before the node joins; the header says
//!   how). A public port is published by the routing mesh (`mode: ingress`), on every
//!   node. Service names resolve by DNS round robin (`endpoint_mode: dnsrr`) on the
//!   instances' own overlay networks.
//! - **Order.** Swarm has none: `after` and the same-node order of §14.1 are not enforced
//!   (the build says so on stderr); a consumer relies on its restart policy.
//!
//! Quoting as in [`super::compose`]: every scalar a double-quoted YAML string, every `$` of
//! a value doubled (the stack is interpolated by `docker stack deploy` as Compose does).

use super::{Container, EnvValue, Manifest, NodeFacts, Requirement};
// A manifest duration as Compose reads one (`"7d"` is `168h`): Swarm's parser knows no
// days either.
use super::compose::duration;
// One rule for both targets: which env values only `meshc render` can write.
use super::compose::has_sealed_env;
use super::functions::yaml;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The file, beside the manifests, that holds the stack.
pub const STACK: &str = "swarm/stack.yaml";

/// The variable naming the folder `meshc render --swarm` wrote.
pub const STAGE_VAR: &str = "MESH_STAGE";

/// The line of the header naming each node whose manifest the stack was built from;
/// `meshc render --swarm` reads the manifests it names.
pub const NODE_LINE: &str = "# meshc-node: ";

/// The first 16 hex digits of the SHA-256 of `bytes`.
pub fn short_digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    hash.iter().take(8).fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// The key of one config, secret or env file of the stack: a stack-wide name that stays
/// the same while the file stays where it is (node, login, container, path).
pub fn key_of(kind: Kind, node: &str, login: &str, container: &str, target: &str) -> String {
    let prefix = match kind {
        Kind::Config => "c",
        Kind::Secret => "s",
        Kind::Env => "e",
    };
    let mut id = Vec::new();
    for part in [node, login, container, target] {
        id.extend_from_slice(part.as_bytes());
        id.push(0);
    }
    format!("{prefix}{}", short_digest(&id))
}

/// The variable `stack.env` sets to the digest of the content of `key`.
pub fn digest_var(key: &str) -> String {
    format!("MESH_{}", key.to_ascii_uppercase())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A plain file: a Swarm config.
    Config,
    /// A sealed file or a secret file: a Swarm secret.
    Secret,
    /// A container's exposed secrets, an env file read by `docker stack deploy`.
    Env,
}

/// One file of a container as the stack delivers it.
pub struct Delivered {
    pub kind: Kind,
    pub key: String,
    pub target: String,
    pub uid: i64,
    pub gid: i64,
    pub mode: u32,
}

/// How the stack delivers a file: a secret file (`secret`) or a file that is not `plain`
/// text (sealed, or a template reading a secret) is a Swarm secret, a plain file a config.
pub fn file_kind(secret: bool, plain: bool) -> Kind {
    if secret || !plain {
        Kind::Secret
    } else {
        Kind::Config
    }
}

/// The files, sealed files and secret files of `container` of the instance whose login is
/// `login`, as configs and secrets, with the owner, group and mode the manifest gives them
/// and `meshc render` writes (§12.1). A mode that is not octal is left at its default
/// here (0440 a secret, 0644 a plain file, 0640 a sealed one): `render --swarm` refuses it
/// by name.
pub fn delivered(node: &str, login: &str, container: &Container) -> Vec<Delivered> {
    let files = container.files.iter().map(|f| {
        (
            false,
            f.content.is_some(),
            &f.target,
            f.owner,
            f.group,
            &f.mode,
        )
    });
    let secrets = container
        .secrets
        .iter()
        .map(|f| (true, false, &f.target, f.owner, f.group, &f.mode));
    files
        .chain(secrets)
        .map(|(secret, plain, target, uid, gid, mode)| {
            let kind = file_kind(secret, plain);
            let default = match (secret, plain) {
                (true, _) => 0o440,
                (false, true) => 0o644,
                (false, false) => 0o640,
            };
            Delivered {
                kind,
                key: key_of(kind, node, login, &container.name, target),
                target: target.clone(),
                uid,
                gid,
                mode: u32::from_str_radix(mode, 8)
                    .ok()
                    .filter(|m| *m <= 0o777)
                    .unwrap_or(default),
            }
        })
        .collect()
}

/// A value: a YAML double-quoted scalar with every `$` doubled.
fn val(s: &str) -> String {
    yaml(&s.replace('$', "$$"))
}

/// A key: a YAML double-quoted scalar.
fn key(s: &str) -> String {
    yaml(s)
}

/// A `${MESH_STAGE}/…` path, refused by the engine with a clear message when unset.
fn staged(file: &str) -> String {
    format!("\"${{{STAGE_VAR}:?not set: source the stack.env meshc render wrote}}/{file}\"")
}

/// The line of the header holding one note of what Swarm will not do (each `after`);
/// `meshc build` says each on stderr.
pub const NOTE_LINE: &str = "# not enforced: ";

/// What Swarm will not do of what the manifests say: each `after`, one sentence each.
pub fn notes(manifests: &[Manifest]) -> Vec<String> {
    let mut out = Vec::new();
    for m in manifests {
        for i in &m.instances {
            for c in &i.containers {
                let after = &c.after;
                if !after.is_empty() {
                    out.push(format!(
                        "`{}` on node `{}` starts after {} under Compose; Swarm has no start order, so it may start first and relies on its restart policy",
                        c.name,
                        m.node,
                        after
                            .iter()
                            .map(|a| format!("`{a}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
    }
    out
}

/// The stack of mesh `mesh`, from the manifests of its nodes (in the mesh's order) and
/// the facts of every node.
pub fn stack_yaml(mesh: &str, manifests: &[Manifest], nodes: &[NodeFacts]) -> String {
    let mut y = String::new();
    let _ = writeln!(
        y,
        "# Docker Swarm stack of mesh `{mesh}`, written by `meshc build --target swarm` from the manifests:"
    );
    for m in manifests {
        let _ = writeln!(y, "{NODE_LINE}{} {}", m.node, m.digest);
    }
    y.push_str("#\n# 1. On each node, before it joins the swarm: its host ports on its private address only.\n");
    for n in nodes {
        match &n.private_address {
            Some(a) => {
                let _ = writeln!(
                    y,
                    "#    ({}) docker network create --driver bridge -o com.docker.network.bridge.name=docker_gwbridge -o com.docker.network.bridge.enable_icc=false -o com.docker.network.bridge.enable_ip_masquerade=true -o com.docker.network.bridge.host_binding_ipv4={a} docker_gwbridge",
                    n.name
                );
            }
            None => {
                let _ = writeln!(
                    y,
                    "#    ({}) declares no private_address: its private ports are published on every address of the machine, and its private name is not mapped",
                    n.name
                );
            }
        }
    }
    y.push_str("# 2. On a manager, once: the label that places each node's services.\n");
    for n in nodes {
        let _ = writeln!(
            y,
            "#    docker node update --label-add mesh.node={} <the swarm node of {}>",
            n.name, n.name
        );
    }
    let mut directories = Vec::new();
    for m in manifests {
        for i in &m.instances {
            for r in i.requirements.values() {
                if let Requirement::Directory(d) = r {
                    directories.push(format!(
                        "#    ({}) install -d -o {} -m {} {}",
                        m.node, d.owner, d.mode, d.path
                    ));
                }
            }
        }
    }
    if !directories.is_empty() {
        y.push_str("# 3. On each node: the directories its services mount.\n");
        for d in directories {
            y.push_str(&crate::base::visible::visible(&d));
            y.push('\n');
        }
    }
    y.push_str("# Each deploy, on the manager:\n");
    y.push_str("#    meshc render --swarm DIR --secrets SECRETS --out STAGE\n");
    y.push_str("#    set -a; . STAGE/stack.env; set +a\n");
    let _ = writeln!(
        y,
        "#    docker stack deploy -c DIR/swarm/stack.yaml --prune {mesh}"
    );
    y.push_str("# Swarm has no start order: `after` is not enforced here (docs/swarm.md).\n");
    for n in notes(manifests) {
        y.push_str(NOTE_LINE);
        y.push_str(&crate::base::visible::visible(&n));
        y.push('\n');
    }
    y.push_str("version: \"3.8\"\n");

    // Every node's private name, mapped to its address, inside every container.
    let hosts: Vec<String> = nodes
        .iter()
        .filter_map(|n| {
            Some(format!(
                "{}:{}",
                n.private_name.as_ref()?,
                n.private_address.as_ref()?
            ))
        })
        .collect();
    let mut networks: Vec<(String, bool)> = Vec::new();
    let mut configs: Vec<String> = Vec::new();
    let mut secrets: Vec<String> = Vec::new();
    let mut services = String::new();
    let mut names: std::collections::HashSet<String> = std::collections::HashSet::new();
    for m in manifests {
        for i in &m.instances {
            for c in &i.containers {
                service(
                    &mut services,
                    &mut names,
                    &m.node,
                    &i.login,
                    c,
                    &hosts,
                    &mut networks,
                    &mut configs,
                    &mut secrets,
                );
            }
        }
    }
    if services.is_empty() {
        y.push_str("services: {}\n");
        return y;
    }
    y.push_str("services:\n");
    y.push_str(&services);
    if !networks.is_empty() {
        y.push_str("networks:\n");
        for (name, kept) in &networks {
            let _ = writeln!(y, "  {}:", key(name));
            let _ = writeln!(y, "    name: {}", val(name));
            if *kept {
                y.push_str("    external: true\n");
            } else {
                y.push_str("    driver: \"overlay\"\n");
            }
        }
    }
    for (section, keys) in [("configs", &configs), ("secrets", &secrets)] {
        if keys.is_empty() {
            continue;
        }
        let _ = writeln!(y, "{section}:");
        for k in keys {
            let _ = writeln!(y, "  {}:", key(k));
            let _ = writeln!(
                y,
                "    name: \"{}-{k}-${{{}:?not set: source the stack.env meshc render wrote}}\"",
                mesh.replace('$', "$$"),
                digest_var(k)
            );
            let _ = writeln!(y, "    file: {}", staged(k));
        }
    }
    y
}

/// The service of container `container` of node `node`: `<node>_<container>`, as a
/// container's name is unique on its node only (the fleet runs one `node-exporter` on
/// every node). Where two would meet (node `a_b` and container `c`, node `a` and container
/// `b_c`), the later one takes a number.
pub fn service_name(
    names: &mut std::collections::HashSet<String>,
    node: &str,
    container: &str,
) -> String {
    let base = format!("{node}_{container}");
    let mut name = base.clone();
    let mut n = 2;
    while !names.insert(name.clone()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

#[allow(clippy::too_many_arguments)]
fn service(
    y: &mut String,
    names: &mut std::collections::HashSet<String>,
    node: &str,
    login: &str,
    c: &Container,
    hosts: &[String],
    networks: &mut Vec<(String, bool)>,
    configs: &mut Vec<String>,
    secrets: &mut Vec<String>,
) {
    let name = c.name.as_str();
    let _ = writeln!(y, "  {}:", key(&service_name(names, node, name)));
    let _ = writeln!(y, "    image: {}", val(&c.image));
    if !c.command.is_empty() {
        y.push_str("    command:\n");
        for a in &c.command {
            let _ = writeln!(y, "      - {}", val(a));
        }
    }
    if let Some(u) = c.user {
        let user = match c.group {
            Some(g) => format!("{u}:{g}"),
            None => u.to_string(),
        };
        let _ = writeln!(y, "    user: {}", val(&user));
    }
    let plain: Vec<(&String, &str)> = c
        .env
        .iter()
        .filter_map(|(k, v)| match v {
            EnvValue::Text(v) => Some((k, v.as_str())),
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
        let k = key_of(Kind::Env, node, login, name, "");
        y.push_str("    env_file:\n");
        let _ = writeln!(y, "      - {}", staged(&format!("{k}.env")));
    }
    if let Some(h) = &c.health {
        y.push_str("    healthcheck:\n      test:\n        - \"CMD\"\n");
        for a in &h.test {
            let _ = writeln!(y, "        - {}", val(a));
        }
        for (field, value) in [("interval", &h.interval), ("start_period", &h.start_period)] {
            let _ = writeln!(y, "      {field}: {}", val(&duration(value)));
        }
        let _ = writeln!(y, "      retries: {}", h.retries);
    }
    let ports = &c.ports;
    let public = ports.iter().any(|p| p.reach == "public");
    if !ports.is_empty() {
        y.push_str("    ports:\n");
        for p in ports {
            let _ = writeln!(
                y,
                "      - target: {}\n        published: {}\n        protocol: {}\n        mode: {}",
                p.container,
                p.host,
                val(&p.protocol),
                if p.reach == "public" {
                    "\"ingress\""
                } else {
                    "\"host\""
                }
            );
        }
    }
    if !c.mounts.is_empty() {
        y.push_str("    volumes:\n");
        for m in &c.mounts {
            let _ = writeln!(y, "      - type: \"bind\"");
            let _ = writeln!(y, "        source: {}", val(&m.host));
            let _ = writeln!(y, "        target: {}", val(&m.container));
            let _ = writeln!(y, "        read_only: {}", m.read_only);
        }
    }
    let files = delivered(node, login, c);
    for (section, kind, keys) in [
        ("configs", Kind::Config, &mut *configs),
        ("secrets", Kind::Secret, &mut *secrets),
    ] {
        let mine: Vec<&Delivered> = files.iter().filter(|f| f.kind == kind).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(y, "    {section}:");
        for f in mine {
            let _ = writeln!(y, "      - source: {}", key(&f.key));
            let _ = writeln!(y, "        target: {}", val(&f.target));
            let _ = writeln!(y, "        uid: \"{}\"", f.uid);
            let _ = writeln!(y, "        gid: \"{}\"", f.gid);
            // Decimal: the engine's YAML reader and others disagree on a leading 0.
            let _ = writeln!(y, "        mode: {}  # 0{:o}", f.mode, f.mode);
            keys.push(f.key.clone());
        }
    }
    let nets: Vec<(&str, bool)> = c
        .networks
        .iter()
        .map(|n| (n.name.as_str(), n.kept))
        .collect();
    if !nets.is_empty() {
        // On each of its networks the service answers to its container's name too, as a
        // Compose service does: containers of one instance find each other by it.
        y.push_str("    networks:\n");
        for (n, kept) in nets {
            let _ = writeln!(y, "      {}:", key(n));
            let _ = writeln!(y, "        aliases:\n          - {}", val(name));
            if !networks.iter().any(|(name, _)| name == n) {
                networks.push((n.to_string(), kept));
            }
        }
    }
    if !hosts.is_empty() {
        y.push_str("    extra_hosts:\n");
        for h in hosts {
            let _ = writeln!(y, "      - {}", val(h));
        }
    }
    let job = c.job;
    y.push_str("    deploy:\n");
    // The routing mesh publishes only a service with a virtual IP; every other service
    // is found by DNS round robin, which needs no IPVS on the nodes.
    let _ = writeln!(
        y,
        "      endpoint_mode: {}",
        if public { "\"vip\"" } else { "\"dnsrr\"" }
    );
    y.push_str("      placement:\n        constraints:\n");
    let _ = writeln!(
        y,
        "          - {}",
        val(&format!("node.labels.mesh.node == {node}"))
    );
    let _ = writeln!(
        y,
        "      restart_policy:\n        condition: {}",
        if job { "\"on-failure\"" } else { "\"any\"" }
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::emit::fixture::{node, sealed};

    fn manifest() -> Manifest {
        use crate::emit::*;
        let mut requirements = crate::base::fx_hash::FxIndexMap::default();
        requirements.insert(
            "site".to_string(),
            Requirement::Directory(DirectoryRequirement {
                kind: "host",
                contract: "directory".into(),
                path: "/srv/mesh/web".into(),
                owner: 0,
                mode: "0755".into(),
                placed: false,
            }),
        );
        let mut env = crate::base::fx_hash::FxIndexMap::default();
        env.insert("PLAIN".to_string(), EnvValue::Text("a $HOME".into()));
        env.insert(
            "TOKEN".to_string(),
            EnvValue::Sealed(SealedEnv {
                sealed: sealed("k"),
                exposed: Some("why".into()),
            }),
        );
        let file = |target: &str, owner, mode: &str, content: Option<&str>| File {
            target: target.into(),
            owner,
            group: owner,
            mode: mode.into(),
            content: content.map(str::to_string),
            template: content.is_none().then(|| "p=${db.password}".to_string()),
            references: content.is_none().then(Default::default),
        };
        fixture::manifest(
            requirements,
            Container {
                env,
                mounts: vec![Mount {
                    host: "/srv/mesh/web".into(),
                    container: "/www".into(),
                    read_only: false,
                }],
                secrets: vec![fixture::secret("/run/secrets/db", Some(sealed("db")))],
                files: vec![
                    file("/etc/web.conf", 1000, "0600", Some("x")),
                    file("/etc/web.ini", 7, "0640", None),
                ],
                ports: vec![PortMapping {
                    host: 20000,
                    container: 80,
                    protocol: "tcp".into(),
                    reach: "private".into(),
                }],
                health: Some(Health {
                    test: vec!["pg_isready".into()],
                    interval: "7d".into(),
                    start_period: "0s".into(),
                    retries: 2,
                }),
                job: true,
                after: vec!["pg".into()],
                ..fixture::container()
            },
        )
    }

    #[test]
    fn a_stack_places_delivers_and_reaches_as_the_manifests_say() {
        let y = stack_yaml(
            "lab",
            &[manifest()],
            &[node("alpha", Some("10.0.0.11")), node("beta", None)],
        );
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).expect("the stack is YAML");
        let web = &docs[0]["services"]["alpha_web"];
        assert_eq!(
            web["deploy"]["placement"]["constraints"][0].as_str(),
            Some("node.labels.mesh.node == alpha")
        );
        assert_eq!(web["deploy"]["endpoint_mode"].as_str(), Some("dnsrr"));
        assert_eq!(
            web["deploy"]["restart_policy"]["condition"].as_str(),
            Some("on-failure")
        );
        assert_eq!(web["ports"][0]["mode"].as_str(), Some("host"));
        assert_eq!(web["ports"][0]["published"].as_i64(), Some(20000));
        assert_eq!(
            web["extra_hosts"][0].as_str(),
            Some("alpha.lab.internal:10.0.0.11")
        );
        assert!(web["extra_hosts"][1].is_badvalue(), "beta has no address");
        assert_eq!(web["command"][1].as_str(), Some("--port=$$PORT"));
        assert_eq!(web["environment"]["PLAIN"].as_str(), Some("a $$HOME"));
        assert!(!y.contains("TOKEN"));
        assert_eq!(web["healthcheck"]["interval"].as_str(), Some("168h"));
        assert_eq!(web["healthcheck"]["test"][0].as_str(), Some("CMD"));
        // The plain file is a config; the sealed file and the secret file are secrets,
        // each with the owner, group and mode render would give it.
        let conf = &web["configs"][0];
        assert_eq!(conf["target"].as_str(), Some("/etc/web.conf"));
        assert_eq!(
            (conf["uid"].as_str(), conf["gid"].as_str()),
            (Some("1000"), Some("1000"))
        );
        assert_eq!(conf["mode"].as_i64(), Some(0o600));
        let ini = &web["secrets"][0];
        assert_eq!(ini["target"].as_str(), Some("/etc/web.ini"));
        assert_eq!(
            (ini["uid"].as_str(), ini["gid"].as_str()),
            (Some("7"), Some("7"))
        );
        assert_eq!(ini["mode"].as_i64(), Some(0o640));
        let db = &web["secrets"][1];
        assert_eq!(db["mode"].as_i64(), Some(0o440));
        // Named by the digest render writes, read from the stage.
        let key = db["source"].as_str().unwrap();
        assert_eq!(
            key,
            key_of(Kind::Secret, "alpha", "alpha_web", "web", "/run/secrets/db")
        );
        let top = &docs[0]["secrets"][key];
        assert_eq!(
            top["name"].as_str().unwrap(),
            format!(
                "lab-{key}-${{{}:?not set: source the stack.env meshc render wrote}}",
                digest_var(key)
            )
        );
        assert!(
            top["file"]
                .as_str()
                .unwrap()
                .ends_with(&format!("}}/{key}"))
        );
        assert_eq!(
            docs[0]["networks"]["alpha_web"]["driver"].as_str(),
            Some("overlay")
        );
        // The header: the labels, the bridge, the directory, the manifests.
        assert!(
            y.contains("docker node update --label-add mesh.node=alpha <the swarm node of alpha>")
        );
        assert!(y.contains("host_binding_ipv4=10.0.0.11 docker_gwbridge"));
        assert!(y.contains("#    (alpha) install -d -o 0 -m 0755 /srv/mesh/web\n"));
        assert!(y.contains("# meshc-node: alpha sha256:00\n"));
        assert_eq!(notes(&[manifest()]).len(), 1);
    }

    #[test]
    fn a_public_port_is_published_by_the_routing_mesh() {
        let mut m = manifest();
        m.instances[0].containers[0].ports[0].reach = "public".into();
        let y = stack_yaml("lab", &[m], &[node("alpha", Some("10.0.0.11"))]);
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).unwrap();
        let web = &docs[0]["services"]["alpha_web"];
        assert_eq!(web["ports"][0]["mode"].as_str(), Some("ingress"));
        assert_eq!(web["deploy"]["endpoint_mode"].as_str(), Some("vip"));
    }

    #[test]
    fn services_of_one_container_name_on_two_nodes_are_two_services() {
        let mut beta = manifest();
        beta.node = "beta".into();
        let y = stack_yaml(
            "lab",
            &[manifest(), beta],
            &[
                node("alpha", Some("10.0.0.11")),
                node("beta", Some("10.0.0.12")),
            ],
        );
        let docs = yaml_rust2::YamlLoader::load_from_str(&y).unwrap();
        let services = docs[0]["services"].as_hash().unwrap();
        assert_eq!(services.len(), 2, "{y}");
        let beta_web = &docs[0]["services"]["beta_web"];
        assert_eq!(
            beta_web["deploy"]["placement"]["constraints"][0].as_str(),
            Some("node.labels.mesh.node == beta")
        );
        // Each still answers to its container's name on its instance's network.
        assert_eq!(
            beta_web["networks"]["alpha_web"]["aliases"][0].as_str(),
            Some("web")
        );
        let mut names = std::collections::HashSet::new();
        assert_eq!(service_name(&mut names, "a_b", "c"), "a_b_c");
        assert_eq!(service_name(&mut names, "a", "b_c"), "a_b_c_2");
    }

    #[test]
    fn keys_stay_with_where_a_file_goes() {
        let a = key_of(Kind::Secret, "alpha", "alpha_web", "web", "/run/secrets/db");
        assert_eq!(
            a,
            key_of(Kind::Secret, "alpha", "alpha_web", "web", "/run/secrets/db")
        );
        assert_ne!(
            a,
            key_of(
                Kind::Secret,
                "alpha",
                "alpha_web",
                "web",
                "/run/secrets/db2"
            )
        );
        assert_ne!(
            a,
            key_of(Kind::Secret, "alpha", "alpha_we", "bweb", "/run/secrets/db")
        );
        assert_ne!(
            a,
            key_of(Kind::Secret, "beta", "alpha_web", "web", "/run/secrets/db")
        );
        assert_eq!(a.len(), 17);
    }
}
