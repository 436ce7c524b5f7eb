//! Writing the imported services as modules and a one-node mesh.
//!
//! - Each service becomes a module of one container, with a doc comment saying where it
//!   came from, assigned to the node `imported`.
//! - A bind mount or named volume becomes a `directory` requirement placed where the data
//!   is (`data at "/srv/app/data"`); one that names a file, a system path, or a place two
//!   services (or two mounts) share becomes an `access` requirement instead, which the
//!   host never creates, chowns or removes.
//! - A published port becomes a `port` requirement placed on its host port.
//! - A service that another depends on and whose image answers a standard contract
//!   (postgres, redis, amqp) provides it; its dependents get a module requirement pinned to
//!   it, and their env reads `db.host`, `db.port`… where the values matched.
//! - Secrets become secret operator requirements (the vault keeps them), delivered as
//!   files where the image reads them from files, else `exposed` with a reason to confirm.
//!   Their values are written nowhere.
//! - A value that names a domain becomes an operator requirement whose value is on the
//!   assignment: a definition names no domain (LANGUAGE.md §5.6).

use super::compose::{GrantSource, Project, Service, Source};
use super::interpolate::{Vars, secret_name};
use super::secrets::{FileForm, file_form, image_name, secret_value};
use super::{Action, Note};
use std::collections::{BTreeMap, BTreeSet};

/// The node every imported service is assigned to.
pub const NODE: &str = "imported";
/// Its private name, for the user to change.
pub const PRIVATE_NAME: &str = "imported.home.arpa";
/// The vault the mesh needs when anything is secret: the catalogue's OpenBao.
const VAULT_TEXT: &str = include_str!("../../../catalogue/openbao.mesh");

/// A standard contract an image answers.
struct Standard {
    contract: &'static str,
    port: u16,
}

fn standard_of(image: &str) -> Option<Standard> {
    let name = image_name(image);
    let last = name.rsplit('/').next().unwrap_or(&name).to_string();
    match last.as_str() {
        "postgres" | "postgis" | "pgvector" | "timescaledb" | "postgresql" | "pgvecto-rs" => {
            Some(Standard {
                contract: "postgres",
                port: 5432,
            })
        }
        "redis" | "valkey" | "keydb" | "redis-stack-server" | "dragonfly" => Some(Standard {
            contract: "redis",
            port: 6379,
        }),
        "mariadb" | "mysql" | "percona-server" => Some(Standard {
            contract: "mysql",
            port: 3306,
        }),
        "rabbitmq" => Some(Standard {
            contract: "amqp",
            port: 5672,
        }),
        _ => None,
    }
}

/// What a provider answers, as the Compose file set it.
#[derive(Debug, Clone)]
struct Provider {
    contract: &'static str,
    instance: String,
    /// Field name → the literal text it had in the Compose file.
    fields: Vec<(&'static str, String)>,
}

/// A piece of an env value: literal text or a reference.
#[derive(Debug, Clone, PartialEq)]
enum Part {
    Text(String),
    Ref(String),
}

/// A mesh string literal holding `text`.
pub fn quote(text: &str) -> String {
    let mut s = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '$' => s.push_str("\\$"),
            c if c.is_control() => {}
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// An identifier of the language made from `raw` (`my.service` → `my_service`).
pub fn ident(raw: &str) -> String {
    let mut s = String::new();
    for c in raw.chars() {
        let c = if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
            c
        } else {
            '_'
        };
        if c == '-' && (s.is_empty() || s.ends_with('-')) {
            continue;
        }
        s.push(c);
    }
    while s.ends_with('-') {
        s.pop();
    }
    if s.is_empty() || !(s.as_bytes()[0].is_ascii_alphabetic() || s.as_bytes()[0] == b'_') {
        s.insert(0, 's');
        if s.len() > 1 && s.as_bytes()[1] == b'-' {
            s.insert(1, '_');
        }
    }
    s
}

fn unique(names: &mut BTreeSet<String>, wanted: &str) -> String {
    let base = ident(wanted);
    let mut name = base.clone();
    let mut n = 2;
    while names.contains(&name) || RESERVED.contains(&name.as_str()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    names.insert(name.clone());
    name
}

/// Words a requirement is better not named.
const RESERVED: &[&str] = &[
    "consumer", "given", "here", "module", "host", "mesh", "operator", "secret", "when", "file",
    "mode", "user", "image", "env", "mount", "publish", "command",
];

fn parts_expr(parts: &[Part]) -> String {
    if let [Part::Ref(r)] = parts {
        return r.clone();
    }
    let mut s = String::from("\"");
    for p in parts {
        match p {
            Part::Text(t) => {
                let q = quote(t);
                s.push_str(&q[1..q.len() - 1]);
            }
            Part::Ref(r) => {
                s.push_str("${");
                s.push_str(r);
                s.push('}');
            }
        }
    }
    s.push('"');
    s
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'
}

/// Replaces, in the text parts, every value a provider answers by the reference to it.
fn substitute(parts: Vec<Part>, key: &str, req: &str, provider: &Provider) -> Vec<Part> {
    let upper = key.to_ascii_uppercase();
    // A field is matched when its text stands alone (not inside a longer word); the port
    // only after `:` or as the whole value; the password anywhere.
    let candidates: Vec<(&str, &str)> = provider
        .fields
        .iter()
        .filter(|(f, v)| !(v.is_empty() || *f == "vhost" && v == "/"))
        .map(|(f, v)| (*f, v.as_str()))
        .collect();
    // Where two fields have the same text, the one the key names comes first.
    let hint = |f: &str| -> bool {
        match f {
            "user" => upper.contains("USER"),
            "password" => upper.contains("PASS"),
            "host" => upper.contains("HOST"),
            "port" => upper.contains("PORT"),
            "database" => {
                upper.contains("NAME") || upper.contains("DATABASE") || upper.ends_with("DB")
            }
            "vhost" => upper.contains("VHOST"),
            _ => false,
        }
    };
    let mut out = Vec::new();
    for part in parts {
        let Part::Text(text) = part else {
            out.push(part);
            continue;
        };
        let mut buf = String::new();
        let mut i = 0;
        while i < text.len() {
            let before = text[..i].chars().next_back();
            // In a URL, `//user:` and `/database` tell the fields apart.
            let rank = |field: &str| -> u8 {
                let after_scheme = text[..i].ends_with("//") && field == "user";
                let in_path = text[..i].ends_with('/')
                    && !text[..i].ends_with("//")
                    && matches!(field, "database" | "vhost");
                if after_scheme || in_path {
                    0
                } else if hint(field) {
                    1
                } else {
                    2
                }
            };
            let best = candidates
                .iter()
                .filter(|(field, value)| {
                    if !text[i..].starts_with(value) {
                        return false;
                    }
                    let after = text[i + value.len()..].chars().next();
                    match *field {
                        "password" => true,
                        "port" => {
                            (before == Some(':') || i == 0)
                                && !after.is_some_and(|c| c.is_ascii_digit())
                        }
                        _ => {
                            !before.is_some_and(is_word)
                                && !after.is_some_and(|c| is_word(c) && c != '.')
                        }
                    }
                })
                .min_by_key(|(field, value)| (std::cmp::Reverse(value.len()), rank(field)));
            if let Some((field, value)) = best {
                if !buf.is_empty() {
                    out.push(Part::Text(std::mem::take(&mut buf)));
                }
                out.push(Part::Ref(format!("{req}.{field}")));
                i += value.len();
                continue;
            }
            let c = text[i..].chars().next().unwrap_or_default();
            buf.push(c);
            i += c.len_utf8();
        }
        if !buf.is_empty() {
            out.push(Part::Text(buf));
        }
    }
    out
}

/// Whether an env value is about a provider: it names the provider's host or password,
/// or its key names the kind of service.
fn about(parts: &[Part], key: &str, provider: &Provider) -> bool {
    let upper = key.to_ascii_uppercase();
    let words: &[&str] = match provider.contract {
        "postgres" => &["DB", "DATABASE", "POSTGRES", "PG", "SQL"],
        "redis" => &["REDIS", "CACHE", "VALKEY", "KV"],
        "mysql" => &["DB", "DATABASE", "MYSQL", "MARIADB", "SQL"],
        _ => &["AMQP", "RABBIT", "MQ", "BROKER", "QUEUE"],
    };
    let text: String = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            Part::Ref(_) => None,
        })
        .collect();
    let named = |v: &str| {
        text.match_indices(v).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + v.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(|c| is_word(c) && c != '.')
        })
    };
    provider
        .fields
        .iter()
        .any(|(f, v)| (*f == "host" || *f == "password") && !v.is_empty() && named(v))
        || upper.split('_').any(|w| words.contains(&w))
}

/// The module of one service, as it is written.
#[derive(Default)]
struct ModuleOut {
    name: String,
    docs: Vec<String>,
    names: BTreeSet<String>,
    requires: Vec<String>,
    entries: Vec<String>,
    env: Vec<String>,
    image_paths: Vec<String>,
    targets: Vec<String>,
    provides: Option<String>,
    assign: Vec<String>,
}

/// What was generated, before formatting.
pub struct Generated {
    /// File name → text.
    pub files: Vec<(String, String)>,
    pub mesh_file: String,
    pub mesh: String,
    project: String,
    modules: Vec<(String, String)>,
    notes: Vec<Note>,
    deliver: Vec<serde_json::Value>,
}

impl Generated {
    /// The report written as `import-report.json`.
    pub fn report(&self, shown: &str, files: &[(String, String)]) -> serde_json::Value {
        let top: Vec<&Note> = self.notes.iter().filter(|n| n.service.is_empty()).collect();
        let services: Vec<serde_json::Value> = self
            .modules
            .iter()
            .map(|(service, module)| {
                let notes: Vec<&Note> = self
                    .notes
                    .iter()
                    .filter(|n| n.service == *service)
                    .collect();
                serde_json::json!({"service": service, "module": module, "notes": notes})
            })
            .collect();
        serde_json::json!({
            "compose": shown,
            "project": self.project,
            "mesh": self.mesh,
            "mesh_file": self.mesh_file,
            "node": NODE,
            "files": files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            "top_level": top,
            "services": services,
            "deliver": self.deliver,
        })
    }

    /// The report for people: every key dropped or guessed, by service, and the secrets
    /// to deliver to the vault.
    pub fn summary(&self, shown: &str) -> String {
        let mut s = format!(
            "imported {} service{} of {shown} into mesh `{}` (node `{NODE}`, file {})\n",
            self.modules.len(),
            if self.modules.len() == 1 { "" } else { "s" },
            self.mesh,
            self.mesh_file
        );
        let line = |n: &Note| {
            format!(
                "    {:<8} {}: {}\n",
                format!("{:?}", n.action).to_lowercase(),
                n.key,
                n.reason
            )
        };
        let top: Vec<&Note> = self.notes.iter().filter(|n| n.service.is_empty()).collect();
        if !top.is_empty() {
            s.push_str("  the file:\n");
            for n in top {
                s.push_str(&line(n));
            }
        }
        for (service, module) in &self.modules {
            let notes: Vec<&Note> = self
                .notes
                .iter()
                .filter(|n| n.service == *service)
                .collect();
            s.push_str(&format!("  service `{service}` → module `{module}`\n"));
            for n in notes {
                s.push_str(&line(n));
            }
        }
        if !self.deliver.is_empty() {
            s.push_str("  deliver to the vault before the first build runs (values are written nowhere):\n");
            for d in &self.deliver {
                s.push_str(&format!(
                    "    {}/{}: {}\n",
                    d["instance"].as_str().unwrap_or_default(),
                    d["requirement"].as_str().unwrap_or_default(),
                    d["from"].as_str().unwrap_or_default()
                ));
            }
        }
        s
    }
}

/// The uid (and directory mode) the official images of common data services run as, so
/// the directory keeps the owner the data has: PostgreSQL refuses a data directory that
/// others may read.
fn data_owner(image: &str) -> Option<(u32, u32)> {
    let name = image_name(image);
    match name.rsplit('/').next().unwrap_or(&name) {
        "postgres" | "postgis" | "pgvector" | "timescaledb" | "pgvecto-rs" => Some((999, 0o700)),
        "mariadb" | "mysql" | "redis" | "valkey" | "rabbitmq" | "mongo" => Some((999, 0o750)),
        _ => None,
    }
}

/// The narrowing of a directory requirement: only what differs from the defaults.
fn directory_narrowing(owner: u32, mode: u32) -> String {
    match (owner, mode) {
        (0, 0o750) => String::new(),
        (o, 0o750) => format!(" {{ owner = {o} }}"),
        (o, m) => format!(" {{ owner = {o}  mode = {m:#o} }}"),
    }
}

/// Paths a mount must never create or chown: the engine's socket, system directories.
fn system_path(path: &str) -> bool {
    path == "/"
        || [
            "/var/run", "/run", "/etc", "/dev", "/proc", "/sys", "/usr", "/lib", "/boot", "/bin",
            "/sbin",
        ]
        .iter()
        .any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

/// Whether the last segment of a path looks like a file (`nginx.conf`).
fn file_like(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or("");
    last.contains('.') && !last.starts_with('.') && !last.ends_with(".d")
}

fn nested(a: &str, b: &str) -> bool {
    a == b
        || a.starts_with(&format!("{b}/"))
        || b.starts_with(&format!("{a}/"))
        || a == "/"
        || b == "/"
}

/// Writes the modules and the mesh of `project`.
pub fn generate(project: &Project, shown: &str, vars: &Vars) -> Generated {
    let mut notes = project.notes.clone();
    let mut deliver = Vec::new();
    let mesh_name = ident(&project.name.to_ascii_lowercase());
    // Module names, unique, not clashing with the vault.
    let mut module_names = BTreeSet::new();
    let mut module_of: BTreeMap<String, String> = BTreeMap::new();
    for s in &project.services {
        let m = unique(&mut module_names, &s.name);
        module_of.insert(s.name.clone(), m);
    }
    // The vault module: the catalogue's `openbao`, renamed when a service has that name.
    let vault_name = ["openbao", "mesh-vault", "mesh-openbao"]
        .into_iter()
        .find(|n| !module_names.contains(*n));
    // Providers: depended on, and answering a standard contract.
    let depended: BTreeSet<&str> = project
        .services
        .iter()
        .flat_map(|s| s.depends_on.iter().map(String::as_str))
        .collect();
    let mut providers: BTreeMap<String, Provider> = BTreeMap::new();
    for s in &project.services {
        if !depended.contains(s.name.as_str()) {
            continue;
        }
        let Some(std) = standard_of(&s.image) else {
            continue;
        };
        let env = |keys: &[&str]| -> Option<String> {
            keys.iter().find_map(|k| {
                s.env
                    .iter()
                    .find(|e| e.key == *k)
                    .and_then(|e| e.value.clone())
            })
        };
        let host = s.name.clone();
        let port = std.port.to_string();
        let fields: Vec<(&'static str, String)> = match std.contract {
            "postgres" => {
                let user = env(&["POSTGRES_USER", "POSTGRESQL_USERNAME"])
                    .unwrap_or_else(|| "postgres".into());
                let database =
                    env(&["POSTGRES_DB", "POSTGRESQL_DATABASE"]).unwrap_or_else(|| user.clone());
                let password =
                    env(&["POSTGRES_PASSWORD", "POSTGRESQL_PASSWORD"]).unwrap_or_default();
                vec![
                    ("host", host),
                    ("port", port),
                    ("user", user),
                    ("database", database),
                    ("password", password),
                ]
            }
            "mysql" => {
                let user = env(&["MARIADB_USER", "MYSQL_USER"]).unwrap_or_else(|| "root".into());
                let database = env(&["MARIADB_DATABASE", "MYSQL_DATABASE"]).unwrap_or_default();
                let password = if user == "root" {
                    env(&["MARIADB_ROOT_PASSWORD", "MYSQL_ROOT_PASSWORD"])
                } else {
                    env(&["MARIADB_PASSWORD", "MYSQL_PASSWORD"])
                }
                .unwrap_or_default();
                vec![
                    ("host", host),
                    ("port", port),
                    ("user", user),
                    ("database", database),
                    ("password", password),
                ]
            }
            "redis" => {
                // The password of a Redis server is on its command line, which is not
                // imported (it would show the secret): consumers keep theirs as written.
                vec![("host", host), ("port", port)]
            }
            _ => {
                let user = env(&["RABBITMQ_DEFAULT_USER"]).unwrap_or_else(|| "guest".into());
                let password = env(&["RABBITMQ_DEFAULT_PASS"]).unwrap_or_default();
                let vhost = env(&["RABBITMQ_DEFAULT_VHOST"]).unwrap_or_else(|| "/".into());
                vec![
                    ("host", host),
                    ("port", port),
                    ("user", user),
                    ("password", password),
                    ("vhost", vhost),
                ]
            }
        };
        providers.insert(
            s.name.clone(),
            Provider {
                contract: std.contract,
                instance: module_of[&s.name].clone(),
                fields,
            },
        );
    }
    // Host paths that more than one mount reaches (equal or nested) are shared: `access`.
    let mut all_paths: Vec<(usize, usize, String)> = Vec::new();
    for (si, s) in project.services.iter().enumerate() {
        for (vi, v) in s.volumes.iter().enumerate() {
            match &v.source {
                Source::Bind(p) => all_paths.push((si, vi, p.clone())),
                Source::Named { host_path, .. } => all_paths.push((si, vi, host_path.clone())),
                Source::Anonymous => {}
            }
        }
    }
    let shared: BTreeSet<(usize, usize)> = all_paths
        .iter()
        .filter(|(si, vi, p)| {
            all_paths
                .iter()
                .any(|(sj, vj, q)| (si, vi) != (sj, vj) && nested(p, q))
        })
        .map(|(si, vi, _)| (*si, *vi))
        .collect();
    let mut modules: Vec<ModuleOut> = Vec::new();
    let mut any_secret = false;
    let mut files: Vec<(String, String)> = Vec::new();
    for (si, s) in project.services.iter().enumerate() {
        let mut m = ModuleOut {
            name: module_of[&s.name].clone(),
            ..ModuleOut::default()
        };
        let mut note = |key: &str, action: Action, reason: String| {
            notes.push(Note {
                service: s.name.clone(),
                key: key.to_string(),
                action,
                reason,
            })
        };
        m.docs.push(format!(
            "Imported by `meshc import compose` from the service `{}` of {shown} (line {}).",
            s.name, s.line
        ));
        let uid: Option<u32> = s.user.as_deref().and_then(|u| match u.split(':').next()? {
            "root" => Some(0),
            n => n.parse().ok(),
        });
        // Who owns the service's data directories: its `user`, else the user the image
        // is known to run as, else root.
        let image_owner = data_owner(&s.image);
        let owner_known = uid.is_some() || image_owner.is_some();
        let (owner, mode) = match (uid, image_owner) {
            (Some(u), _) => (u, 0o750),
            (None, Some((u, m))) => (u, m),
            (None, None) => (0, 0o750),
        };
        m.entries.push(format!("image {}", quote(&s.image)));
        if let Some(user) = &s.user {
            match uid {
                Some(u) => {
                    m.entries.push(format!("user {u}"));
                    if user.contains(':') {
                        note(
                            "user",
                            Action::Dropped,
                            "the group: a container runs with its user's group".into(),
                        );
                    }
                }
                None => note(
                    "user",
                    Action::Dropped,
                    "a user named, not numbered: `user` takes a uid".into(),
                ),
            }
        }
        // Ports.
        let mut port_req: BTreeMap<(u16, bool), String> = BTreeMap::new();
        for p in &s.ports {
            if port_req.contains_key(&(p.target, p.udp)) {
                note(&format!("ports.{}", p.target), Action::Dropped, "the same container port published again (another address or host port): a port requirement is published once".into());
                continue;
            }
            let name = unique(
                &mut m.names,
                &format!("port_{}{}", p.target, if p.udp { "_udp" } else { "" }),
            );
            let public = matches!(
                p.host_ip.as_deref(),
                None | Some("0.0.0.0") | Some("::") | Some("")
            );
            let mut narrowing = format!("container = {}", p.target);
            if public {
                narrowing.push_str("  reach = \"public\"");
            } else if !matches!(p.host_ip.as_deref(), Some("127.0.0.1") | Some("::1")) {
                note(
                    &format!("ports.{}", p.target),
                    Action::Guessed,
                    "bound to one address: a private port is bound to the node's private address"
                        .into(),
                );
            }
            if p.udp {
                narrowing.push_str("  protocol = \"udp\"");
            }
            m.requires
                .push(format!("requires {name}: host port {{ {narrowing} }}"));
            m.entries.push(format!("publish {name}"));
            match p.published {
                Some(h) => m.assign.push(format!("{name} at {h}")),
                None => note(&format!("ports.{}", p.target), Action::Guessed, "no host port given: the build chooses one from the node's range and keeps it in the lock".into()),
            }
            port_req.insert((p.target, p.udp), name);
        }
        // Mounts.
        for (vi, v) in s.volumes.iter().enumerate() {
            let last = v
                .target
                .rsplit('/')
                .find(|x| !x.is_empty())
                .unwrap_or("data");
            let wanted = match &v.source {
                Source::Named { key, .. } => key.clone(),
                _ => last.to_string(),
            };
            let name = unique(&mut m.names, &wanted);
            let key = format!("volumes.{}", v.target);
            let ro = if v.read_only { " read_only" } else { "" };
            m.targets.push(v.target.clone());
            match &v.source {
                Source::Anonymous => {
                    m.requires.push(format!(
                        "requires {name}: host directory{}",
                        directory_narrowing(owner, mode)
                    ));
                    note(&key, Action::Guessed, "an anonymous volume: a directory under the node's root, its old data left where the engine kept it".into());
                }
                Source::Bind(path)
                | Source::Named {
                    host_path: path, ..
                } => {
                    // Data the service only reads is the operator's, not the module's.
                    let read_only_bind = v.read_only && matches!(v.source, Source::Bind(_));
                    let access = shared.contains(&(si, vi))
                        || system_path(path)
                        || file_like(path)
                        || read_only_bind;
                    if access {
                        let write = if v.read_only {
                            String::new()
                        } else {
                            " { write = true }".into()
                        };
                        m.requires
                            .push(format!("requires {name}: host access{write}"));
                        let why = if system_path(path) {
                            "a system path"
                        } else if file_like(path) {
                            "a file"
                        } else if read_only_bind {
                            "data the service only reads"
                        } else {
                            "a place other mounts reach too"
                        };
                        note(
                            &key,
                            Action::Guessed,
                            format!(
                                "{why}: an `access` requirement at `{path}`, which the host never creates, chowns or removes"
                            ),
                        );
                    } else {
                        m.requires.push(format!(
                            "requires {name}: host directory{}",
                            directory_narrowing(owner, mode)
                        ));
                        let what = if matches!(v.source, Source::Named { .. }) {
                            "the named volume's data, as the engine's local driver keeps it"
                        } else {
                            "the bind mount's source"
                        };
                        note(
                            &key,
                            Action::Guessed,
                            format!(
                                "a directory placed at `{path}` ({what}), owned by uid {owner} mode {mode:#o}{}: check they match the data",
                                if owner_known {
                                    ", as the image runs"
                                } else {
                                    ""
                                }
                            ),
                        );
                    }
                    m.assign.push(format!("{name} at {}", quote(path)));
                }
            }
            m.entries
                .push(format!("mount {name}.path -> {}{ro}", quote(&v.target)));
        }
        // Configs.
        for g in &s.configs {
            let key = format!("configs.{}", g.name);
            m.targets.push(g.target.clone());
            match &g.source {
                GrantSource::File(path) => {
                    let name = unique(&mut m.names, &g.name);
                    m.requires.push(format!("requires {name}: host access"));
                    m.entries.push(format!(
                        "mount {name}.path -> {} read_only",
                        quote(&g.target)
                    ));
                    m.assign.push(format!("{name} at {}", quote(path)));
                    note(
                        &key,
                        Action::Guessed,
                        format!("the config file `{path}`, mounted read-only"),
                    );
                }
                GrantSource::Content(_) | GrantSource::Environment(_) => {
                    let (text, from) = match &g.source {
                        GrantSource::Content(t) => (Some(t.clone()), "its content".to_string()),
                        GrantSource::Environment(var) => {
                            (vars_get(vars, var), format!("the value of `{var}` in .env"))
                        }
                        _ => (None, String::new()),
                    };
                    let secret = g.secret_hint
                        || matches!(&g.source, GrantSource::Environment(var) if secret_name(var))
                        || text.as_deref().is_some_and(secret_value);
                    match text {
                        None => note(&key, Action::Dropped, format!("{from} has no value")),
                        Some(_) if secret => {
                            // A config holding a secret: a sealed file, its text kept by the vault.
                            let name = unique(&mut m.names, &g.name);
                            any_secret = true;
                            m.requires
                                .push(format!("requires {name}: operator secret string"));
                            m.entries
                                .push(format!("file {} = {name}", quote(&g.target)));
                            deliver.push(serde_json::json!({"instance": m.name, "requirement": name, "from": from}));
                            note(
                                &key,
                                Action::Secret,
                                format!(
                                    "a config holding a secret: a sealed file whose text, {from}, the vault keeps"
                                ),
                            );
                        }
                        Some(text) if crate::check::names_a_domain(&text) => {
                            let name = unique(&mut m.names, &g.name);
                            m.requires.push(format!("requires {name}: operator string"));
                            m.assign.push(format!("{name} = {}", quote(&text)));
                            m.entries
                                .push(format!("file {} = {name}", quote(&g.target)));
                            note(
                                &key,
                                Action::Guessed,
                                format!(
                                    "names a domain: the operator value `{name}`, set on the assignment"
                                ),
                            );
                        }
                        Some(text) => {
                            m.entries
                                .push(format!("file {} = {}", quote(&g.target), quote(&text)))
                        }
                    }
                }
                GrantSource::External => note(
                    &key,
                    Action::Dropped,
                    "an external config: made outside Compose, unknown here".into(),
                ),
            }
        }
        // Secrets of the Compose file.
        for g in &s.secrets {
            let name = unique(&mut m.names, &g.name);
            any_secret = true;
            m.requires
                .push(format!("requires {name}: operator secret string"));
            m.entries
                .push(format!("secret {} = {name}", quote(&g.target)));
            m.targets.push(g.target.clone());
            let from = match &g.source {
                GrantSource::File(p) => format!("the content of `{p}`"),
                GrantSource::Environment(v) => format!("the value of `{v}` in .env"),
                _ => format!("the secret `{}` (external to Compose)", g.name),
            };
            deliver
                .push(serde_json::json!({"instance": m.name, "requirement": name, "from": from}));
            note(
                &format!("secrets.{}", g.name),
                Action::Secret,
                format!(
                    "a secret operator value `{name}`, a file at `{}`; deliver {from} to the vault",
                    g.target
                ),
            );
        }
        // Module requirements on providers.
        let mut reads: Vec<(String, &Provider)> = Vec::new();
        for d in &s.depends_on {
            match providers.get(d) {
                Some(p) => {
                    let name = unique(&mut m.names, d);
                    m.requires
                        .push(format!("requires {name}: module {}", p.contract));
                    m.assign
                        .push(format!("{name} from {} on {NODE}", p.instance));
                    note(
                        &format!("depends_on.{d}"),
                        Action::Guessed,
                        format!(
                            "the module requirement `{name}` on `{}`, pinned to `{}`",
                            p.contract, p.instance
                        ),
                    );
                    reads.push((name, p));
                }
                None => note(
                    &format!("depends_on.{d}"),
                    Action::Dropped,
                    format!(
                        "`{d}` answers no standard contract: a module reaches another only through a contract"
                    ),
                ),
            }
        }
        // The provider side.
        if let Some(p) = providers.get(&s.name) {
            let std = standard_of(&s.image).map(|x| x.port).unwrap_or(0);
            let port_name = match port_req.get(&(std, false)) {
                Some(n) => n.clone(),
                None => {
                    let n = unique(&mut m.names, &format!("port_{std}"));
                    m.requires
                        .push(format!("requires {n}: host port {{ container = {std} }}"));
                    m.entries.push(format!("publish {n}"));
                    n
                }
            };
            let here = unique(&mut m.names, "node");
            m.requires.push(format!("requires {here}: host node"));
            let mut answers = vec![
                format!("host = {here}.private_name"),
                format!("port = {port_name}.host_port"),
            ];
            for (f, v) in &p.fields {
                if matches!(*f, "user" | "database" | "vhost") {
                    answers.push(format!("{f} = {}", quote(v)));
                }
            }
            m.provides = Some(format!(
                "provides {} {{\n{}\n}}",
                p.contract,
                answers.join("\n")
            ));
            m.docs.push(format!(
                "It provides `{}` to the services that depend on it.",
                p.contract
            ));
        }
        // Command.
        if let Some(cmd) = &s.command {
            let secretish = s.command_secret
                || cmd.iter().any(|w| secret_value(w))
                || cmd.windows(2).any(|w| secret_value(&w.join(" ")))
                || secret_flag_value(cmd)
                || providers.get(&s.name).is_some_and(|p| {
                    p.fields
                        .iter()
                        .any(|(f, v)| *f == "password" && !v.is_empty() && cmd.contains(v))
                });
            if secretish {
                note("command", Action::Dropped, "it holds a secret, which the command line would show to every process of the node: give it to the program in a file".into());
            } else {
                let mut words = Vec::new();
                for (i, w) in cmd.iter().enumerate() {
                    if crate::check::names_a_domain(w) {
                        let name = unique(&mut m.names, &format!("command_{}", i + 1));
                        m.requires.push(format!("requires {name}: operator string"));
                        m.assign.push(format!("{name} = {}", quote(w)));
                        words.push(format!("\"${{{name}}}\""));
                        note(
                            "command",
                            Action::Guessed,
                            format!(
                                "word {} names a domain: the operator value `{name}`, set on the assignment",
                                i + 1
                            ),
                        );
                    } else {
                        if let Some(other) = project
                            .services
                            .iter()
                            .find(|o| o.name != s.name && names_token(w, &o.name))
                        {
                            note(
                                "command",
                                Action::Guessed,
                                format!(
                                    "word {} names the service `{}`, which is no host name in a mesh: reach it through a requirement",
                                    i + 1,
                                    other.name
                                ),
                            );
                        }
                        words.push(quote(w));
                    }
                }
                m.entries.push(format!("command [{}]", words.join(", ")));
            }
        }
        // Environment.
        let keys: Vec<String> = s.env.iter().map(|e| e.key.clone()).collect();
        let mut secret_entries: Vec<String> = Vec::new();
        for e in &s.env {
            let key_note = format!("environment.{}", e.key);
            let Some(value) = &e.value else {
                note(
                    &key_note,
                    Action::Dropped,
                    "no value in the Compose file (Compose would take it from the shell)".into(),
                );
                continue;
            };
            if !is_env_key(&e.key) {
                note(
                    &key_note,
                    Action::Dropped,
                    "not a name an env entry can have".into(),
                );
                continue;
            }
            // The provider's own password: a secret operator value it passes to consumers.
            let mut parts = vec![Part::Text(value.clone())];
            for (req, p) in &reads {
                if about(&parts, &e.key, p) {
                    parts = substitute(parts, &e.key, req, p);
                }
            }
            let reads_password = parts
                .iter()
                .any(|p| matches!(p, Part::Ref(r) if r.ends_with(".password")));
            let literal: String = parts
                .iter()
                .filter_map(|p| match p {
                    Part::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            let own_secret = !value.is_empty()
                && (secret_name(&e.key) || e.secret_hint || secret_value(&literal));
            let provider_password = providers
                .get(&s.name)
                .and_then(|p| p.fields.iter().find(|(f, _)| *f == "password"))
                .is_some_and(|(_, v)| !v.is_empty() && v == value);
            if own_secret && (!reads_password || secret_literal(&literal)) {
                // A secret of this service's own: the vault keeps it.
                let name = unique(&mut m.names, &e.key.to_ascii_lowercase());
                any_secret = true;
                m.requires
                    .push(format!("requires {name}: operator secret string"));
                deliver.push(serde_json::json!({"instance": m.name, "requirement": name, "from": format!("the value of `{}` of the service `{}`", e.key, s.name)}));
                if provider_password
                    && let Some(provides) = &mut m.provides
                    && !provides.contains("\npassword = ")
                {
                    provides.insert_str(provides.len() - 2, &format!("\npassword = {name}"));
                }
                secret_entries.push(deliver_secret(
                    &mut m, &mut note, s, &e.key, &name, &keys, &key_note,
                ));
                continue;
            }
            if reads_password {
                // A consumer's value holding its provider's password.
                let expr = parts_expr(&parts);
                secret_entries.push(deliver_secret(
                    &mut m, &mut note, s, &e.key, &expr, &keys, &key_note,
                ));
                continue;
            }
            if parts.iter().any(|p| matches!(p, Part::Ref(_))) {
                note(
                    &key_note,
                    Action::Guessed,
                    format!(
                        "reads {}",
                        crate::diagnostics::capped_list(parts.iter().filter_map(|p| match p {
                            Part::Ref(r) => Some(format!("`{r}`")),
                            _ => None,
                        }))
                    ),
                );
                m.env.push(format!("{} = {}", e.key, parts_expr(&parts)));
                continue;
            }
            if crate::check::names_a_domain(value) {
                let name = unique(&mut m.names, &e.key.to_ascii_lowercase());
                m.requires.push(format!("requires {name}: operator string"));
                m.assign.push(format!("{name} = {}", quote(value)));
                m.env.push(format!("{} = {name}", e.key));
                note(
                    &key_note,
                    Action::Guessed,
                    format!("names a domain: the operator value `{name}`, set on the assignment"),
                );
                continue;
            }
            if let Some(other) = project
                .services
                .iter()
                .find(|o| o.name != s.name && names_token(value, &o.name))
            {
                note(
                    &key_note,
                    Action::Guessed,
                    format!(
                        "names the service `{}`, which is no host name in a mesh: reach it through a requirement",
                        other.name
                    ),
                );
            }
            if value.starts_with('/') {
                let path = super::compose::absolute(
                    "/",
                    value.split([':', ' ', ',']).next().unwrap_or(value),
                );
                if !m
                    .targets
                    .iter()
                    .any(|t| path == *t || path.starts_with(&format!("{t}/")))
                    && !m.image_paths.contains(&path)
                {
                    m.image_paths.push(path.clone());
                    note(
                        &key_note,
                        Action::Guessed,
                        format!(
                            "a path no mount holds: declared as one the image holds (`image_paths`, `{path}`)"
                        ),
                    );
                }
            }
            m.env.push(format!("{} = {}", e.key, quote(value)));
        }
        // Secret files come after the env block.
        m.entries
            .extend(secret_entries.into_iter().filter(|e| !e.is_empty()));
        modules.push(m);
    }
    // The vault.
    let broker: Vec<&Provider> = providers
        .values()
        .filter(|p| p.contract == "amqp")
        .collect();
    let mut mesh = String::new();
    mesh.push_str(&format!(
        "/// Imported by `meshc import compose` from {shown}: every service on one node.\n"
    ));
    mesh.push_str(&format!("mesh {mesh_name} {{\n"));
    mesh.push_str(
        "  /// This machine: set its private name to the one the mesh's hosts know it by.\n",
    );
    mesh.push_str(&format!(
        "  node {NODE} {{ private_name = {} }}\n",
        quote(PRIVATE_NAME)
    ));
    if any_secret && let Some(v) = vault_name {
        {
            mesh.push_str(&format!("  seat vault = {v} on {NODE}\n"));
            mesh.push_str(&format!("  assign {v} to {NODE}\n"));
            files.push((
                format!("{v}.mesh"),
                VAULT_TEXT.replacen("module openbao {", &format!("module {v} {{"), 1),
            ));
            notes.push(Note {
                    service: String::new(),
                    key: "secrets".into(),
                    action: Action::Guessed,
                    reason: format!("secrets are kept by a vault: the catalogue's OpenBao (`{v}.mesh`) holds the `vault` seat; use your own if the workspace has one"),
                });
        }
    }
    if broker.len() == 1 {
        mesh.push_str(&format!(
            "  seat broker = {} on {NODE}\n",
            broker[0].instance
        ));
    }
    for m in &modules {
        if m.assign.is_empty() {
            mesh.push_str(&format!("  assign {} to {NODE}\n", m.name));
        } else {
            mesh.push_str(&format!("  assign {} to {NODE} {{\n", m.name));
            for a in &m.assign {
                mesh.push_str(&format!("    {a}\n"));
            }
            mesh.push_str("  }\n");
        }
    }
    mesh.push_str("}\n");
    let mut module_files: Vec<(String, String)> = Vec::new();
    for m in &modules {
        let mut t = String::new();
        for d in &m.docs {
            t.push_str(&format!("/// {d}\n"));
        }
        t.push_str(&format!("module {} {{\n", m.name));
        for r in &m.requires {
            t.push_str(&format!("  {r}\n"));
        }
        t.push_str(&format!("  container {} {{\n", m.name));
        let (first, rest) = m.entries.split_at(m.entries.len().min(1));
        for e in first {
            t.push_str(&format!("    {e}\n"));
        }
        // image, then user/command before env, then the rest.
        let (head, tail): (Vec<&String>, Vec<&String>) = rest
            .iter()
            .partition(|e| e.starts_with("user ") || e.starts_with("command "));
        for e in head {
            t.push_str(&format!("    {e}\n"));
        }
        if !m.image_paths.is_empty() {
            t.push_str(&format!(
                "    image_paths [{}]\n",
                m.image_paths
                    .iter()
                    .map(|p| quote(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if !m.env.is_empty() {
            t.push_str("    env {\n");
            for e in &m.env {
                t.push_str(&format!("      {e}\n"));
            }
            t.push_str("    }\n");
        }
        for e in tail {
            t.push_str(&format!("    {e}\n"));
        }
        t.push_str("  }\n");
        if let Some(p) = &m.provides {
            t.push_str(&format!("  {}\n", p.replace('\n', "\n  ")));
        }
        t.push_str("}\n");
        module_files.push((format!("{}.mesh", m.name), t));
    }
    let taken: BTreeSet<String> = module_files
        .iter()
        .chain(files.iter())
        .map(|(n, _)| n.clone())
        .collect();
    let mut mesh_file = format!("{mesh_name}.mesh");
    if taken.contains(&mesh_file) {
        mesh_file = format!("mesh-{mesh_name}.mesh");
    }
    let mut all = module_files;
    all.append(&mut files);
    all.push((mesh_file.clone(), mesh));
    Generated {
        files: all,
        mesh_file,
        mesh: mesh_name,
        project: project.name.clone(),
        modules: project
            .services
            .iter()
            .map(|s| (s.name.clone(), module_of[&s.name].clone()))
            .collect(),
        notes,
        deliver,
    }
}

fn vars_get(vars: &Vars, name: &str) -> Option<String> {
    super::interpolate::interpolate(&format!("${{{name}}}"), vars)
        .ok()
        .map(|(v, _)| v)
}

/// Whether the literal text left in a value still holds a secret of its own.
fn secret_literal(text: &str) -> bool {
    secret_value(text)
}

/// Whether `text` names `token` as a word (a host name in a URL or `host:port`).
fn names_token(text: &str, token: &str) -> bool {
    text.match_indices(token).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + token.len()..].chars().next();
        !before.is_some_and(is_word)
            && !after.is_some_and(|c| is_word(c) && c != '.')
            && (before.is_some() || after.is_some())
    })
}

fn is_env_key(key: &str) -> bool {
    crate::syntax::string::is_ident(key)
}

/// The env entry (and secret file) that give a secret expression to the container: a
/// file where the image reads one, else the value `exposed` with a reason to confirm.
/// Returns the container entry of the secret file (empty when exposed).
fn deliver_secret(
    m: &mut ModuleOut,
    note: &mut dyn FnMut(&str, Action, String),
    s: &Service,
    key: &str,
    expr: &str,
    keys: &[String],
    key_note: &str,
) -> String {
    let file_name = ident(&key.to_ascii_lowercase());
    match file_form(&s.image, key, keys) {
        Some(form) => {
            let target = format!("/run/secrets/{file_name}");
            let env_key = match form {
                FileForm::Suffix(suffix) => format!("{key}{suffix}"),
                FileForm::Prefix => format!("FILE__{key}"),
            };
            if keys.contains(&env_key) {
                note(
                    key_note,
                    Action::Dropped,
                    format!(
                        "a secret the service also gives as the file named by `{env_key}`, which is kept"
                    ),
                );
                return String::new();
            }
            m.env.push(format!("{env_key} = {}", quote(&target)));
            m.targets.push(target.clone());
            note(
                key_note,
                Action::Secret,
                format!(
                    "a secret, delivered as the file `{target}` the image reads through `{env_key}`"
                ),
            );
            format!("secret {} = {expr}", quote(&target))
        }
        None => {
            let image = image_name(&s.image);
            m.env.push(format!(
                "{key} = {expr} exposed {}",
                quote(&format!("TO CONFIRM: imported from Compose; {image} reads {key} only from its environment"))
            ));
            note(
                key_note,
                Action::Secret,
                format!(
                    "a secret, given to the environment `exposed` because {image} is not known to read it from a file: confirm the reason, or deliver it as a file"
                ),
            );
            String::new()
        }
    }
}

/// Whether a command line gives a secret as a flag's value: `--password X`,
/// `--api-token=X` (a flag whose name says it holds a secret, with a value).
fn secret_flag_value(cmd: &[String]) -> bool {
    cmd.iter().enumerate().any(|(i, w)| {
        let Some(flag) = w.strip_prefix('-').map(|f| f.trim_start_matches('-')) else {
            return false;
        };
        match flag.split_once('=') {
            Some((name, value)) => secret_name(name) && !value.is_empty(),
            None => secret_name(flag) && cmd.get(i + 1).is_some_and(|v| !v.starts_with('-')),
        }
    })
}
