//! `meshc apply MANIFEST --secrets DIR [--root PATH] [--compose FILE] [--dry-run]`
//! (LANGUAGE.md §14.3), run on the node: render, then bring the node's Compose project
//! to what the manifest says, and leave nothing the mesh no longer names running.
//!
//! 1. `meshc render` (all or nothing; a refusal stops here, exit 1).
//! 2. `COMPOSE -p P -f FILE up -d --remove-orphans`: creates what is new, recreates what
//!    the compose file changed, removes the services it no longer names. A job that
//!    completed successfully for the digest it has now is left out of the command (with
//!    `--no-deps`, so nothing brings it back as a dependency): Compose would start an
//!    exited container again on `up`.
//! 3. `COMPOSE … up -d --no-deps --force-recreate S…` for exactly the services whose
//!    rendered files changed since the last apply and that step 2 did not just recreate:
//!    a running container keeps the files it started with.
//! 4. `docker network rm` of every network of the project the manifest no longer names
//!    (Compose's labels say which are the project's; a kept, external network has none).
//! 5. The services' digests are recorded in `<root>/.mesh/applied.json` (digests, never
//!    values), for the next apply's step 3.
//!
//! Each command is printed (`$ …` on stdout) before it runs, its own output shown;
//! `--dry-run` renders nothing, runs no command that changes anything, and prints the
//! commands it would run. Exit 0 once the project is up; 1 when render refused or a
//! command failed; 2 when no engine or no Compose could be reached (or I/O).

use super::output;
use super::render;
use meshc::base::visible::visible;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where the digests of the last apply are kept, under `<root>/.mesh`.
pub const APPLIED: &str = "applied.json";

/// What a project's container is, as the engine lists it.
#[derive(Debug, Clone)]
struct Found {
    id: String,
    state: String,
    status: String,
    digest: String,
}

/// A command as printed: words quoted for a POSIX shell where they need it.
fn shown(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@,+".contains(&b))
            {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .map(|w| visible(&w).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `words` runs and exits 0, its output discarded.
fn succeeds(words: &[&str]) -> bool {
    Command::new(words[0])
        .args(&words[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The standard output of `words`, when it exits 0.
fn captured(words: &[String]) -> Option<String> {
    let out = Command::new(&words[0])
        .args(&words[1..])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The Compose command: the `docker compose` plugin where present, else `docker-compose`.
fn compose_command() -> Option<Vec<String>> {
    if succeeds(&["docker", "compose", "version"]) {
        Some(vec!["docker".into(), "compose".into()])
    } else if succeeds(&["docker-compose", "version"]) {
        Some(vec!["docker-compose".into()])
    } else {
        None
    }
}

/// The project's name as Compose v1 and v2 take it: `COMPOSE_PROJECT_NAME` of the `.env`
/// beside the file, else the folder's name, lowercased, with only `a-z 0-9 _ -` kept.
fn project_name(dir: &Path) -> String {
    let env = meshc::fsio::read_regular(&dir.join(".env"), 1024 * 1024).unwrap_or_default();
    let from_env = String::from_utf8_lossy(&env).lines().find_map(|l| {
        l.trim()
            .strip_prefix("COMPOSE_PROJECT_NAME=")
            .map(|v| v.trim().trim_matches(['"', '\'']).to_string())
    });
    let name = from_env.unwrap_or_else(|| {
        std::fs::canonicalize(dir)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default()
    });
    name.to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

/// The project's containers: service → what the engine says of it.
fn containers(project: &str) -> BTreeMap<String, Found> {
    let words: Vec<String> = [
        "docker",
        "ps",
        "-a",
        "--filter",
        &format!("label=com.docker.compose.project={project}"),
        "--format",
        "{{.Label \"com.docker.compose.service\"}}\t{{.ID}}\t{{.State}}\t{{.Status}}\t{{.Label \"mesh.digest\"}}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut out = BTreeMap::new();
    for line in captured(&words).unwrap_or_default().lines() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() >= 4 {
            out.insert(
                f[0].to_string(),
                Found {
                    id: f[1].to_string(),
                    state: f[2].to_string(),
                    status: f[3].to_string(),
                    digest: f.get(4).copied().unwrap_or_default().to_string(),
                },
            );
        }
    }
    out
}

/// The project's networks: (engine name, name in the compose file).
fn networks(project: &str) -> Vec<(String, String)> {
    let words: Vec<String> = [
        "docker",
        "network",
        "ls",
        "--filter",
        &format!("label=com.docker.compose.project={project}"),
        "--format",
        "{{.Name}}\t{{.Label \"com.docker.compose.network\"}}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    captured(&words)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// `mesh.digest` of a container as LANGUAGE.md §14.7 defines it.
fn mesh_digest(node: &str, login: &str, entry: &Value) -> String {
    render::sha256(
        meshc::emit::canonical_json(&json!({"node": node, "login": login, "container": entry}))
            .as_bytes(),
    )
}

/// Runs a command that changes the project, printed first; `false` when it failed.
fn run_printed(words: &[String], dry_run: bool) -> bool {
    output::stdout_line(&format!("$ {}", shown(words)));
    if dry_run {
        return true;
    }
    match Command::new(&words[0])
        .args(&words[1..])
        .stdin(Stdio::null())
        .status()
    {
        Ok(s) if s.success() => true,
        Ok(s) => {
            output::say(&format!(
                "`{}` failed ({s}); its output is above",
                shown(words)
            ));
            false
        }
        Err(e) => {
            output::say(&format!(
                "cannot run `{}`: {}",
                shown(words),
                super::workspace::plain(&e)
            ));
            false
        }
    }
}

pub fn run(
    manifest: PathBuf,
    secrets: PathBuf,
    root: PathBuf,
    compose: Option<PathBuf>,
    dry_run: bool,
) -> u8 {
    let prepared = match render::prepare(&manifest, &secrets, &root) {
        Ok(p) => p,
        Err(f) => return render::said_failure(f),
    };
    let node = prepared.manifest.node.clone();
    let file = compose.unwrap_or_else(|| {
        manifest
            .parent()
            .unwrap_or(Path::new("."))
            .join(&node)
            .join("compose.yaml")
    });
    let compose_text = match meshc::fsio::read_regular(&file, 64 * 1024 * 1024) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            output::say(&format!(
                "{}; give the node's compose file with --compose",
                e.sentence(&visible(&file.display().to_string()))
            ));
            return 2;
        }
    };
    let dir = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let Some(compose) = compose_command() else {
        output::say(
            "no Docker Compose found: neither `docker compose` nor `docker-compose` runs here",
        );
        return 2;
    };
    if which("docker") && !succeeds(&["docker", "info"]) {
        output::say("no Docker Engine answers (`docker info` failed): nothing was changed");
        return 2;
    }
    let project = project_name(&dir);
    let mut base = compose.clone();
    base.extend([
        "-p".into(),
        project.clone(),
        "-f".into(),
        file.display().to_string(),
    ]);

    // The services whose rendered files changed since the last apply.
    let applied_path = root.join(".mesh").join(APPLIED);
    let applied: BTreeMap<String, String> =
        meshc::fsio::read_regular(&applied_path, 64 * 1024 * 1024)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
    let changed: BTreeSet<String> = prepared
        .digests
        .iter()
        .filter(|(s, d)| applied.get(*s) != Some(*d))
        .map(|(s, _)| s.clone())
        .collect();

    // Jobs that completed successfully for the digest they have now.
    let before = containers(&project);
    let mut services: Vec<String> = Vec::new();
    let mut done_jobs: Vec<String> = Vec::new();
    let mut named_networks: BTreeSet<String> = compose_networks(&compose_text);
    let instances = prepared.json["instances"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for i in &instances {
        let login = i["login"].as_str().unwrap_or_default();
        for c in i["containers"].as_array().into_iter().flatten() {
            let name = c["name"].as_str().unwrap_or_default().to_string();
            for n in c["networks"].as_array().into_iter().flatten() {
                if let Some(n) = n["name"].as_str() {
                    named_networks.insert(n.to_string());
                }
            }
            let finished = c["job"] == true
                && !changed.contains(&name)
                && before.get(&name).is_some_and(|f| {
                    f.state == "exited"
                        && f.status.starts_with("Exited (0)")
                        && f.digest == mesh_digest(&node, login, c)
                });
            if finished {
                done_jobs.push(name);
            } else {
                services.push(name);
            }
        }
    }
    if dry_run {
        output::say(&format!(
            "dry run: would render {} files into {}; nothing is changed",
            prepared.files(),
            visible(&meshc::emit::compose::files_dir(
                &root.display().to_string()
            ))
        ));
    } else {
        match render::commit(&prepared, &root) {
            Ok(r) => render::said_rendered(&r, &root),
            Err(f) => return render::said_failure(f),
        }
    }
    for j in &done_jobs {
        output::say(&format!(
            "job `{}` completed for its digest: not started again",
            visible(j)
        ));
    }
    let mut up = base.clone();
    up.extend(["up", "-d", "--remove-orphans"].map(String::from));
    if !done_jobs.is_empty() {
        up.push("--no-deps".into());
        up.extend(services.iter().cloned());
    }
    if !run_printed(&up, dry_run) {
        return 1;
    }
    // What step 2 recreated has its new files already.
    let after = if dry_run {
        before.clone()
    } else {
        containers(&project)
    };
    let force: Vec<String> = changed
        .iter()
        .filter(|s| services.contains(s))
        .filter(|s| match (before.get(*s), after.get(*s)) {
            (Some(b), Some(a)) => a.id == b.id,
            (None, _) => false,
            (Some(_), None) => false,
        })
        .cloned()
        .collect();
    if !force.is_empty() {
        let mut recreate = base.clone();
        recreate.extend(["up", "-d", "--no-deps", "--force-recreate"].map(String::from));
        recreate.extend(force);
        if !run_printed(&recreate, dry_run) {
            return 1;
        }
    }
    for (name, in_file) in networks(&project) {
        if !named_networks.contains(&in_file) && in_file != "default" {
            let rm: Vec<String> = ["docker", "network", "rm", &name]
                .iter()
                .map(|s| s.to_string())
                .collect();
            if !run_printed(&rm, dry_run) {
                return 1;
            }
        }
    }
    if dry_run {
        return 0;
    }
    let record = serde_json::to_vec_pretty(&prepared.digests).unwrap_or_default();
    if let Err(e) = super::atomic::replace_file(&applied_path, &record) {
        output::say(&format!(
            "the project is up, but {e}: the next apply recreates every service"
        ));
        return 2;
    }
    output::say(&format!(
        "node `{}` applied: project `{}`",
        visible(&node),
        visible(&project)
    ));
    0
}

/// The networks the compose file defines (its top-level `networks:` keys, as meshc
/// writes them: two spaces, a double-quoted name, a colon): a network the target adds
/// (a node's gateway network) is the project's as much as an instance's own.
fn compose_networks(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') {
            inside = line.trim_end() == "networks:";
            continue;
        }
        if inside
            && let Some(rest) = line.strip_prefix("  ")
            && rest.starts_with('"')
            && let Some(key) = rest.trim_end().strip_suffix(':')
            && let Ok(name) = serde_json::from_str::<String>(key)
        {
            out.insert(name);
        }
    }
    out
}

/// Whether a program of that name is on the `PATH`.
fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_networks_a_compose_file_defines_are_read_and_nothing_else() {
        let text = "services:\n  \"web\":\n    networks:\n      - \"n1_web\"\nnetworks:\n  \"n1_web\":\n    name: \"n1_web\"\n  \"t-n1-gateway\":\n    internal: true\nvolumes: {}\n";
        assert_eq!(
            compose_networks(text).into_iter().collect::<Vec<_>>(),
            ["n1_web", "t-n1-gateway"]
        );
        assert!(compose_networks("services: {}\n").is_empty());
    }

    #[test]
    fn a_printed_command_quotes_what_a_shell_would_read() {
        let words: Vec<String> = ["docker", "network", "rm", "a b", "x'y", "\u{1b}[2J"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            shown(&words),
            "docker network rm 'a b' 'x'\\''y' '\\u{1b}[2J'"
        );
    }
}
