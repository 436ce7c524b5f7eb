//! `meshc survey` (LANGUAGE.md §13.2): the report of the machine it runs on, read from
//! its Docker Engine through the API socket ([`super::engine`]), for the node's declared
//! containers, images, files and mounts as the mesh resolves them.

use super::engine::{self, Engine};
use super::output;
use meshc::base::visible::visible;
use meshc::take::report::{
    FoundContainer, FoundData, FoundFile, FoundImage, FoundMount, FoundNetwork, FoundPort,
    HostReport, Stray,
};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// A found file's text is kept in the report up to this size; above, its digest only.
const MAX_CONTENT: usize = 1024 * 1024;

/// `meshc survey`.
pub fn run(
    node: String,
    mesh_file: PathBuf,
    paths: Vec<PathBuf>,
    docker_host: Option<String>,
) -> u8 {
    let host = docker_host
        .or_else(|| {
            std::env::var("DOCKER_HOST")
                .ok()
                .filter(|h| h.starts_with("unix://"))
        })
        .unwrap_or_else(|| "unix:///var/run/docker.sock".to_string());
    let Some(engine) = Engine::at(&host) else {
        output::say(&visible(&format!(
            "`{host}` is not an engine socket meshc can reach: write `unix:///path/to/docker.sock`"
        )));
        return 2;
    };
    let (_session, outcome) = match super::take::resolve(&mesh_file, paths) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let Some(manifest) = outcome.manifests.get(&node) else {
        output::say(&visible(&format!(
            "mesh `{}` has no node `{node}`",
            outcome.mesh
        )));
        return 2;
    };
    match survey(&engine, manifest) {
        Ok(report) => {
            output::stdout_line(&serde_json::to_string_pretty(&report).unwrap_or_default());
            0
        }
        Err(sentence) => {
            output::say(&visible(&sentence));
            2
        }
    }
}

fn text(v: &Json, key: &str) -> String {
    v.get(key).and_then(Json::as_str).unwrap_or("").to_string()
}

fn survey(engine: &Engine, manifest: &meshc::emit::Manifest) -> Result<HostReport, String> {
    let listed = engine.json("/containers/json?all=1").map_err(|e| {
        if e.starts_with("no container engine") {
            e
        } else {
            format!(
                "the container engine at `{}` did not answer as an engine: {e}",
                engine.socket()
            )
        }
    })?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let declared: Vec<&meshc::emit::Container> = manifest
        .instances
        .iter()
        .flat_map(|i| &i.containers)
        .collect();
    // Per image id: its creation date and the names of the variables it sets itself.
    let mut images_by_id: BTreeMap<String, (Option<String>, BTreeSet<String>)> = BTreeMap::new();
    let mut network_members: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut containers = Vec::new();
    let mut inspected: Vec<(String, Json)> = Vec::new();
    for c in listed.as_array().into_iter().flatten() {
        let id = text(c, "Id");
        let Ok(inspect) = engine.json(&format!("/containers/{id}/json")) else {
            continue; // removed while the survey ran
        };
        inspected.push((id, inspect));
    }
    for (id, inspect) in &inspected {
        let name = text(inspect, "Name").trim_start_matches('/').to_string();
        let image_id = text(inspect, "Image");
        let (created, image_env) = match images_by_id.get(&image_id) {
            Some(c) => c.clone(),
            None => {
                let image = engine
                    .json(&format!("/images/{}/json", engine::encode(&image_id)))
                    .ok();
                let c = (
                    image.as_ref().and_then(image_date),
                    image
                        .as_ref()
                        .map(|i| env_names(i.pointer("/Config/Env")))
                        .unwrap_or_default(),
                );
                images_by_id.insert(image_id.clone(), c.clone());
                c
            }
        };
        // Names only: the engine answers `NAME=value`, and the value is dropped here,
        // never kept or written (LANGUAGE.md §14.5). The image's own variables (`PATH`)
        // are the image's, not the installation's.
        let container_env: Vec<String> = env_names(inspect.pointer("/Config/Env"))
            .into_iter()
            .filter(|n| !image_env.contains(n))
            .collect();
        let user = inspect
            .pointer("/Config/User")
            .and_then(Json::as_str)
            .unwrap_or("")
            .to_string();
        let settings = inspect
            .get("NetworkSettings")
            .cloned()
            .unwrap_or(Json::Null);
        let mut networks = Vec::new();
        for (net, _) in settings
            .get("Networks")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            let members = match network_members.get(net) {
                Some(m) => m.clone(),
                None => {
                    let m = members_of(engine, net);
                    network_members.insert(net.clone(), m.clone());
                    m
                }
            };
            networks.push(FoundNetwork {
                name: net.clone(),
                members,
            });
        }
        let mounts = inspect
            .get("Mounts")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
            .map(|m| FoundMount {
                source: if text(m, "Type") == "volume" {
                    text(m, "Name")
                } else {
                    text(m, "Source")
                },
                target: text(m, "Destination"),
                read_only: !m.get("RW").and_then(Json::as_bool).unwrap_or(true),
            })
            .filter(|m| m.target.starts_with('/'))
            .collect();
        let running = inspect
            .pointer("/State/Running")
            .and_then(Json::as_bool)
            .unwrap_or(false);
        // A running container says what is bound; a stopped one what it asks for.
        let bindings = if running {
            settings.get("Ports").cloned()
        } else {
            inspect.pointer("/HostConfig/PortBindings").cloned()
        };
        let mut ports = Vec::new();
        for (spec, binds) in bindings
            .as_ref()
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            let (port, protocol) = spec.split_once('/').unwrap_or((spec, "tcp"));
            let Ok(container_port) = port.parse::<u16>() else {
                continue;
            };
            for b in binds.as_array().into_iter().flatten() {
                let Ok(host_port) = text(b, "HostPort").parse::<u16>() else {
                    continue;
                };
                ports.push(FoundPort {
                    host_ip: text(b, "HostIp"),
                    host_port,
                    container_port,
                    protocol: protocol.to_string(),
                });
            }
        }
        ports.sort_by(|a, b| {
            (a.container_port, &a.protocol, &a.host_ip).cmp(&(
                b.container_port,
                &b.protocol,
                &b.host_ip,
            ))
        });
        ports.dedup();
        containers.push(FoundContainer {
            name,
            id: id.clone(),
            running,
            image: inspect
                .pointer("/Config/Image")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_string(),
            image_id: Some(image_id).filter(|s| !s.is_empty()),
            image_created: created,
            networks,
            mounts,
            ports,
            user: Some(user),
            env_names: Some(container_env),
        });
    }
    containers.sort_by(|a, b| a.name.cmp(&b.name));

    // The declared images, for their dates.
    let mut images = Vec::new();
    let mut seen = BTreeSet::new();
    for c in &declared {
        if c.image.is_empty() || !seen.insert(c.image.clone()) {
            continue;
        }
        if let Ok(i) = engine.json(&format!("/images/{}/json", engine::encode(&c.image))) {
            images.push(FoundImage {
                reference: c.image.clone(),
                id: Some(text(&i, "Id")).filter(|s| !s.is_empty()),
                created: image_date(&i),
            });
        }
    }

    // Kept originals and data, through the found containers of the declared names.
    let mut files = Vec::new();
    let mut data = Vec::new();
    for d in &declared {
        let Some(found) = containers.iter().find(|c| c.name == d.name) else {
            continue;
        };
        for f in &d.files {
            if let Some(mut file) = read_file(engine, found, &f.target) {
                // Nothing that could be a secret reaches the report: no text of a sealed
                // file, no value of a plain file's line whose key names a secret.
                file.content = file.content.map(|c| meshc::take::mask_found(f, &c));
                files.push(file);
            }
        }
        for m in &d.mounts {
            if let Some(fm) = found.mounts.iter().find(|x| x.target == m.container) {
                let (owner, group, mode) = owner_of(fm);
                data.push(FoundData {
                    container: found.name.clone(),
                    path: m.container.clone(),
                    empty: is_empty_dir(engine, found, fm),
                    owner,
                    group,
                    mode,
                });
            }
        }
    }

    let declared_names: BTreeSet<&str> = declared.iter().map(|c| c.name.as_str()).collect();
    let mut strays: Vec<Stray> = containers
        .iter()
        .filter(|c| !declared_names.contains(c.name.as_str()))
        .map(|c| Stray::Container {
            name: c.name.clone(),
        })
        .collect();
    let published: BTreeSet<u16> = containers
        .iter()
        .flat_map(|c| c.ports.iter().map(|p| p.host_port))
        .chain(
            declared
                .iter()
                .flat_map(|c| c.ports.iter().map(|p| p.host as u16)),
        )
        .collect();
    for port in tcp_listeners() {
        if !published.contains(&port) {
            strays.push(Stray::Listener {
                port,
                protocol: "tcp".into(),
            });
        }
    }
    Ok(HostReport {
        node: manifest.node.clone(),
        taken_at: meshc::take::time::format_rfc3339(now),
        containers,
        images,
        files,
        data,
        accepted: Vec::new(),
        strays,
    })
}

/// An image's creation date, when the engine knows one (imported images may say year 1).
fn image_date(image: &Json) -> Option<String> {
    let created = image.get("Created")?.as_str()?;
    let secs = meshc::take::time::parse_rfc3339(created)?;
    (secs > 0).then(|| created.to_string())
}

fn members_of(engine: &Engine, network: &str) -> Vec<String> {
    let Ok(n) = engine.json(&format!("/networks/{}", engine::encode(network))) else {
        return Vec::new();
    };
    let mut members: Vec<String> = n
        .get("Containers")
        .and_then(Json::as_object)
        .into_iter()
        .flatten()
        .map(|(_, c)| text(c, "Name"))
        .filter(|n| !n.is_empty())
        .collect();
    members.sort();
    members
}

/// The found container's file at `path`, through the engine's archive endpoint (which
/// reads through the container's mounts, running or not).
fn read_file(engine: &Engine, found: &FoundContainer, path: &str) -> Option<FoundFile> {
    let answer = engine
        .get(&format!(
            "/containers/{}/archive?path={}",
            found.id,
            engine::encode(path)
        ))
        .ok()?;
    if answer.status != 200 {
        return None;
    }
    let (mode, owner, group, bytes) = engine::first_file_of_tar(&answer.body)?;
    let content = (bytes.len() <= MAX_CONTENT)
        .then(|| String::from_utf8(bytes.clone()).ok())
        .flatten();
    let digest = {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(&bytes);
        let mut hex = String::from("sha256:");
        for b in hash.iter() {
            hex.push_str(&format!("{b:02x}"));
        }
        hex
    };
    Some(FoundFile {
        container: found.name.clone(),
        path: path.to_string(),
        mode: format!("{mode:04o}"),
        owner,
        group,
        digest,
        content,
    })
}

/// The names of a list of `NAME=value` environment entries; each value is dropped unread.
fn env_names(env: Option<&Json>) -> BTreeSet<String> {
    env.and_then(Json::as_array)
        .into_iter()
        .flatten()
        .filter_map(Json::as_str)
        .map(|e| e.split_once('=').map_or(e, |(name, _)| name).to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// The owner, group and mode of a bind mount's host directory, as the survey sees it
/// (none for a named volume, or what cannot be read).
fn owner_of(mount: &FoundMount) -> (Option<u32>, Option<u32>, Option<String>) {
    use std::os::unix::fs::MetadataExt;
    if !mount.source.starts_with('/') {
        return (None, None, None);
    }
    match std::fs::metadata(&mount.source) {
        Ok(m) => (
            Some(m.uid()),
            Some(m.gid()),
            Some(format!("{:04o}", m.mode() & 0o7777)),
        ),
        Err(_) => (None, None, None),
    }
}

/// Whether a found mount holds nothing. A bind mount's host directory is read where the
/// survey runs; anything that cannot be read counts as data (the careful answer: E0606
/// then asks before a secret is minted).
fn is_empty_dir(_engine: &Engine, _found: &FoundContainer, mount: &FoundMount) -> bool {
    if !mount.source.starts_with('/') {
        return false;
    }
    match std::fs::read_dir(&mount.source) {
        Ok(mut entries) => entries.next().is_none(),
        Err(_) => false,
    }
}

/// TCP ports something listens on, from /proc/net/tcp and tcp6 (empty where there is no
/// /proc).
fn tcp_listeners() -> BTreeSet<u16> {
    let mut ports = BTreeSet::new();
    for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let cols: Vec<&str> = line.split_whitespace().collect();
            if cols.get(3) != Some(&"0A") {
                continue;
            }
            if let Some(port) = cols
                .get(1)
                .and_then(|a| a.rsplit(':').next())
                .and_then(|p| u16::from_str_radix(p, 16).ok())
            {
                ports.insert(port);
            }
        }
    }
    ports
}
