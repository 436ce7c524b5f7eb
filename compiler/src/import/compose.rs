//! The Compose file, read into services as the Compose specification defines them:
//! `image`, `command`/`entrypoint`, `environment` (list and map), `env_file`, `ports`
//! (short and long syntax, host IPs, ranges), `volumes` (bind and named, short and long
//! syntax, `:ro`), `secrets`, `configs`, `depends_on` (list and map), `user`, `networks`,
//! `healthcheck`, `restart`, `labels`, `profiles` and `extends` (in the same file or
//! another). Every key that has no place in the language is kept as a note, so the report
//! can say what was dropped.

use super::interpolate::{Vars, parse_env_file};
use super::yaml::{Node, Yaml};
use super::{Note, Problem};

/// The most services one import reads: past it, the Compose file is refused. A mesh of
/// that many modules from one file is better imported in parts.
pub const MAX_SERVICES: usize = 200;
/// The most host ports one range in `ports` may publish.
const MAX_PORT_RANGE: usize = 100;

/// A service, as read.
#[derive(Debug, Clone)]
pub struct Service {
    pub name: String,
    pub line: usize,
    pub image: String,
    pub command: Option<Vec<String>>,
    /// Interpolation put a secret-named variable into the command.
    pub command_secret: bool,
    pub env: Vec<EnvVar>,
    pub ports: Vec<Port>,
    pub volumes: Vec<Volume>,
    pub secrets: Vec<Grant>,
    pub configs: Vec<Grant>,
    pub depends_on: Vec<String>,
    pub user: Option<String>,
}

/// One environment variable of a service.
#[derive(Debug, Clone)]
pub struct EnvVar {
    pub key: String,
    /// `None` for a variable named without a value (Compose takes it from the shell).
    pub value: Option<String>,
    /// Interpolation read a variable whose name says it holds a secret.
    pub secret_hint: bool,
}

/// A published port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub host_ip: Option<String>,
    pub published: Option<u16>,
    pub target: u16,
    pub udp: bool,
}

/// Where a mount's data is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A host path, absolute and normalised.
    Bind(String),
    /// A named volume: its key under the top-level `volumes`, and where the engine's local
    /// driver keeps its data.
    Named { key: String, host_path: String },
    /// An anonymous volume: the engine chose its place.
    Anonymous,
}

/// A mount of a service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    pub source: Source,
    pub target: String,
    pub read_only: bool,
}

/// A secret or config granted to a service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// Its key under the top-level `secrets` or `configs`.
    pub name: String,
    /// Where the container reads it.
    pub target: String,
    pub source: GrantSource,
    /// Inline content that interpolation filled from a secret-named variable.
    pub secret_hint: bool,
}

/// Where a secret's or config's content comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantSource {
    /// A file on the host (absolute).
    File(String),
    /// A variable of the `.env` file (a secret) — its name, never its value.
    Environment(String),
    /// Inline text (a config).
    Content(String),
    /// Made outside Compose.
    External,
}

/// The whole file, read.
#[derive(Debug, Clone)]
pub struct Project {
    pub name: String,
    pub services: Vec<Service>,
    pub notes: Vec<Note>,
}

/// What the reader needs besides the Compose text.
pub struct Inputs<'a> {
    /// The directory holding the Compose file: relative paths are read from it (absolute).
    pub dir: &'a str,
    /// The project name when the file gives none (the directory's name).
    pub default_name: &'a str,
    pub vars: &'a Vars,
    /// Reads a file named in the Compose file (an `env_file`, another file of
    /// `extends`); the path is absolute.
    pub read: &'a dyn Fn(&str) -> Result<String, super::files::Unread>,
}

struct Reader<'a> {
    inputs: &'a Inputs<'a>,
    problems: Vec<Problem>,
    notes: Vec<Note>,
}

/// Joins `path` to `dir` unless it is absolute, and normalises `.` and `..`.
pub fn absolute(dir: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("{dir}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for seg in joined.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    format!("/{}", parts.join("/"))
}

/// Splits a command written as one string the way a POSIX shell would split words
/// (quotes and backslashes; no expansion).
fn shell_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(o) => cur.push(o),
                        None => return Err("a quote is not closed".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => {
                            if let Some(o) = chars.next() {
                                cur.push(o);
                            }
                        }
                        Some(o) => cur.push(o),
                        None => return Err("a quote is not closed".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(o) = chars.next() {
                    cur.push(o);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            o => {
                in_word = true;
                cur.push(o);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Ok(words)
}

impl Reader<'_> {
    fn problem(&mut self, service: &str, line: usize, message: impl Into<String>) {
        self.problems.push(Problem {
            service: service.to_string(),
            line,
            message: message.into(),
        });
    }

    fn note(&mut self, service: &str, key: &str, action: super::Action, reason: impl Into<String>) {
        self.notes.push(Note {
            service: service.to_string(),
            key: key.to_string(),
            action,
            reason: reason.into(),
        });
    }

    fn scalar(&mut self, service: &str, key: &str, node: &Node) -> Option<String> {
        match &node.value {
            Yaml::Scalar(s) => Some(s.clone()),
            _ => {
                self.problem(
                    service,
                    node.line,
                    format!("`{key}` must be a single value"),
                );
                None
            }
        }
    }

    fn strings(&mut self, service: &str, key: &str, node: &Node) -> Option<Vec<String>> {
        match &node.value {
            Yaml::Scalar(s) => match shell_words(s) {
                Ok(w) => Some(w),
                Err(e) => {
                    self.problem(service, node.line, format!("`{key}`: {e}"));
                    None
                }
            },
            Yaml::Seq(items) => {
                let mut out = Vec::new();
                for item in items {
                    out.push(self.scalar(service, key, item)?);
                }
                Some(out)
            }
            Yaml::Null => None,
            Yaml::Map(_) => {
                self.problem(
                    service,
                    node.line,
                    format!("`{key}` must be a string or a list"),
                );
                None
            }
        }
    }
}

/// The services with `extends` applied, in source order.
fn extended(reader: &mut Reader<'_>, services: &[(String, Node)]) -> Vec<(String, Node)> {
    let mut out = Vec::new();
    for (name, node) in services {
        let mut seen = vec![name.clone()];
        out.push((
            name.clone(),
            extend_one(reader, name, node, services, &mut seen, 0),
        ));
    }
    out
}

fn extend_one(
    reader: &mut Reader<'_>,
    name: &str,
    node: &Node,
    services: &[(String, Node)],
    seen: &mut Vec<String>,
    depth: usize,
) -> Node {
    let Some(ext) = node.get("extends") else {
        return node.clone();
    };
    if depth > 8 {
        reader.problem(name, ext.line, "`extends` goes more than 8 levels deep");
        return node.clone();
    }
    let (base_name, file) = match &ext.value {
        Yaml::Scalar(s) => (s.clone(), None),
        Yaml::Map(_) => (
            ext.get("service")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string(),
            ext.get("file").and_then(Node::as_str).map(str::to_string),
        ),
        _ => (String::new(), None),
    };
    if base_name.is_empty() {
        reader.problem(name, ext.line, "`extends` names no service");
        return node.clone();
    }
    let base = match &file {
        None => {
            if seen.contains(&base_name) {
                reader.problem(
                    name,
                    ext.line,
                    format!(
                        "`extends` makes a cycle: {} → {base_name}",
                        crate::diagnostics::capped_join(seen.iter(), " → ")
                    ),
                );
                return node.clone();
            }
            match services.iter().find(|(n, _)| *n == base_name) {
                Some((_, b)) => {
                    seen.push(base_name.clone());
                    extend_one(reader, &base_name, b, services, seen, depth + 1)
                }
                None => {
                    reader.problem(
                        name,
                        ext.line,
                        format!("`extends` names the service `{base_name}`, which the file does not define"),
                    );
                    return node.clone();
                }
            }
        }
        Some(file) => {
            let path = absolute(reader.inputs.dir, file);
            let text = match (reader.inputs.read)(&path) {
                Ok(t) => t,
                Err(e) => {
                    reader.problem(
                        name,
                        ext.line,
                        format!("`extends` reads `{file}`: {}", e.reason),
                    );
                    return node.clone();
                }
            };
            let mut other = match super::yaml::parse(&text) {
                Ok(o) => o,
                Err(ps) => {
                    for p in ps {
                        reader.problem(
                            name,
                            ext.line,
                            format!("`{file}` (line {}): {}", p.line, p.message),
                        );
                    }
                    return node.clone();
                }
            };
            let mut problems = Vec::new();
            super::interpolate::interpolate_tree(&mut other, reader.inputs.vars, &mut problems);
            for (line, p) in problems {
                reader.problem(name, ext.line, format!("`{file}` (line {line}): {p}"));
            }
            match other
                .get("services")
                .and_then(|s| s.get(&base_name))
                .cloned()
            {
                Some(b) if b.get("extends").is_none() => b,
                Some(_) => {
                    reader.problem(
                        name,
                        ext.line,
                        format!("`{base_name}` in `{file}` extends a service in turn; import reads one level from another file"),
                    );
                    return node.clone();
                }
                None => {
                    reader.problem(
                        name,
                        ext.line,
                        format!("`{file}` defines no service `{base_name}`"),
                    );
                    return node.clone();
                }
            }
        }
    };
    reader.note(
        name,
        "extends",
        super::Action::Guessed,
        format!("merged with the keys of `{base_name}`, as Compose does"),
    );
    merge(&base, node)
}

/// Compose's merge of a service over the one it extends: mappings merge key by key,
/// `environment` and `labels` entry by entry, sequences of ports, volumes, secrets and the
/// like are joined; everything else is replaced.
fn merge(base: &Node, over: &Node) -> Node {
    let (Some(b), Some(o)) = (base.as_map(), over.as_map()) else {
        return over.clone();
    };
    let mut entries: Vec<(String, Node)> = b.to_vec();
    for (k, v) in o {
        if k == "extends" {
            continue;
        }
        match entries.iter_mut().find(|(e, _)| e == k) {
            Some((_, existing)) => {
                *existing = match (k.as_str(), &existing.value, &v.value) {
                    (_, Yaml::Map(_), Yaml::Map(_)) => merge(existing, v),
                    ("environment" | "labels", _, _) => {
                        let mut m = as_pairs(existing);
                        for (kk, vv) in as_pairs(v) {
                            match m.iter_mut().find(|(e, _)| *e == kk) {
                                Some(slot) => slot.1 = vv,
                                None => m.push((kk, vv)),
                            }
                        }
                        Node {
                            value: Yaml::Map(m),
                            line: v.line,
                            secret_hint: false,
                        }
                    }
                    (
                        "ports" | "volumes" | "secrets" | "configs" | "expose" | "env_file" | "dns"
                        | "cap_add" | "devices",
                        Yaml::Seq(a),
                        Yaml::Seq(c),
                    ) => {
                        let mut all = a.clone();
                        all.extend(c.iter().cloned());
                        Node {
                            value: Yaml::Seq(all),
                            line: v.line,
                            secret_hint: false,
                        }
                    }
                    _ => v.clone(),
                };
            }
            None => entries.push((k.clone(), v.clone())),
        }
    }
    Node {
        value: Yaml::Map(entries),
        line: over.line,
        secret_hint: false,
    }
}

/// `environment` or `labels` in either form, as key → value node.
fn as_pairs(node: &Node) -> Vec<(String, Node)> {
    match &node.value {
        Yaml::Map(m) => m.clone(),
        Yaml::Seq(items) => items
            .iter()
            .filter_map(|i| {
                let s = i.as_str()?;
                Some(match s.split_once('=') {
                    Some((k, v)) => (
                        k.to_string(),
                        Node {
                            value: Yaml::Scalar(v.to_string()),
                            line: i.line,
                            secret_hint: i.secret_hint,
                        },
                    ),
                    None => (
                        s.to_string(),
                        Node {
                            value: Yaml::Null,
                            line: i.line,
                            secret_hint: false,
                        },
                    ),
                })
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Reads the Compose tree (already interpolated). Every problem is returned, each with
/// its service and line; nothing is read half-way.
pub fn read(root: &Node, inputs: &Inputs<'_>) -> Result<Project, Vec<Problem>> {
    let mut reader = Reader {
        inputs,
        problems: Vec::new(),
        notes: Vec::new(),
    };
    let Some(top) = root.as_map() else {
        return Err(vec![Problem {
            service: String::new(),
            line: root.line,
            message: "a Compose file is a mapping with a `services` key".into(),
        }]);
    };
    let name = match root.get("name").and_then(Node::as_str) {
        Some(n) => n.to_string(),
        None => inputs.default_name.to_string(),
    };
    let volumes_top = root.get("volumes");
    let secrets_top = root.get("secrets");
    let configs_top = root.get("configs");
    for (key, node) in top {
        match key.as_str() {
            "services" | "name" | "volumes" | "secrets" | "configs" => {}
            "version" => reader.note("", key, super::Action::Dropped, "obsolete in the Compose specification"),
            "networks" => reader.note(
                "",
                key,
                super::Action::Dropped,
                "each instance has a network of its own; services reach one another through requirements",
            ),
            k if k.starts_with("x-") => reader.note("", key, super::Action::Dropped, "an extension field, read by nothing"),
            _ => reader.problem("", node.line, format!("`{key}` is not a top-level key of the Compose specification")),
        }
    }
    let Some(services) = root.get("services").and_then(Node::as_map) else {
        return Err(vec![Problem {
            service: String::new(),
            line: root.line,
            message: "the file has no `services` mapping".into(),
        }]);
    };
    if services.len() > MAX_SERVICES {
        return Err(vec![Problem {
            service: String::new(),
            line: root.get("services").map(|s| s.line).unwrap_or(1),
            message: format!(
                "the file defines {} services; import reads at most {MAX_SERVICES} at a time: split it into several Compose files (one per group of services) and import each",
                services.len()
            ),
        }]);
    }
    let services = extended(&mut reader, services);
    let mut out = Vec::new();
    for (name, node) in &services {
        if let Some(s) = read_service(
            &mut reader,
            name,
            node,
            volumes_top,
            secrets_top,
            configs_top,
            &project_prefix(&name_of(root, inputs)),
        ) {
            out.push(s);
        }
    }
    // depends_on must name services of the file.
    let names: Vec<String> = out.iter().map(|s| s.name.clone()).collect();
    for s in &out {
        for d in &s.depends_on {
            if !names.contains(d) {
                reader.problems.push(Problem {
                    service: s.name.clone(),
                    line: s.line,
                    message: format!("`depends_on` names `{d}`, which the file does not define"),
                });
            }
        }
    }
    if reader.problems.is_empty() {
        Ok(Project {
            name,
            services: out,
            notes: reader.notes,
        })
    } else {
        Err(reader.problems)
    }
}

fn name_of(root: &Node, inputs: &Inputs<'_>) -> String {
    root.get("name")
        .and_then(Node::as_str)
        .unwrap_or(inputs.default_name)
        .to_string()
}

/// The prefix Compose gives the named volumes of a project: its name, lowercased, with
/// only `[a-z0-9_-]` kept.
fn project_prefix(name: &str) -> String {
    name.to_ascii_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn read_service(
    r: &mut Reader<'_>,
    name: &str,
    node: &Node,
    volumes_top: Option<&Node>,
    secrets_top: Option<&Node>,
    configs_top: Option<&Node>,
    project: &str,
) -> Option<Service> {
    let Some(entries) = node.as_map() else {
        r.problem(
            name,
            node.line,
            format!("the service `{name}` must be a mapping"),
        );
        return None;
    };
    let mut s = Service {
        name: name.to_string(),
        line: node.line,
        image: String::new(),
        command: None,
        command_secret: false,
        env: Vec::new(),
        ports: Vec::new(),
        volumes: Vec::new(),
        secrets: Vec::new(),
        configs: Vec::new(),
        depends_on: Vec::new(),
        user: None,
    };
    let mut env_files: Vec<EnvVar> = Vec::new();
    use super::Action::{Dropped, Guessed};
    for (key, v) in entries {
        match key.as_str() {
            "image" => s.image = r.scalar(name, key, v).unwrap_or_default(),
            "command" => {
                s.command = r.strings(name, key, v);
                s.command_secret = any_hint(v);
            }
            "entrypoint" => {
                let words = r.strings(name, key, v).unwrap_or_default();
                r.note(
                    name,
                    key,
                    Dropped,
                    format!(
                        "a container declares no entrypoint; the image's own runs (this one was {} word{})",
                        words.len(),
                        if words.len() == 1 { "" } else { "s" }
                    ),
                );
            }
            "environment" => {
                for (k, val) in as_pairs(v) {
                    s.env.push(EnvVar {
                        key: k,
                        value: val.as_str().map(str::to_string),
                        secret_hint: val.secret_hint,
                    });
                }
            }
            "env_file" => {
                let files: Vec<(String, bool, usize)> = match &v.value {
                    Yaml::Scalar(f) => vec![(f.clone(), true, v.line)],
                    Yaml::Seq(items) => items
                        .iter()
                        .filter_map(|i| match &i.value {
                            Yaml::Scalar(f) => Some((f.clone(), true, i.line)),
                            Yaml::Map(_) => Some((
                                i.get("path").and_then(Node::as_str)?.to_string(),
                                i.get("required").and_then(Node::as_str) != Some("false"),
                                i.line,
                            )),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                for (file, required, line) in files {
                    let path = absolute(r.inputs.dir, &file);
                    match (r.inputs.read)(&path) {
                        Ok(text) => match parse_env_file(&text) {
                            Ok(pairs) => {
                                for (k, val) in pairs {
                                    env_files.push(EnvVar {
                                        secret_hint: super::interpolate::secret_name(&k),
                                        key: k,
                                        value: Some(val),
                                    });
                                }
                            }
                            Err(ps) => {
                                for (l, p) in ps {
                                    r.problem(name, line, format!("`{file}` line {l}: {p}"));
                                }
                            }
                        },
                        Err(e) if e.missing && !required => {}
                        Err(e) => {
                            r.problem(name, line, format!("`env_file` `{file}`: {}", e.reason))
                        }
                    }
                }
            }
            "ports" => {
                let Yaml::Seq(items) = &v.value else {
                    r.problem(name, v.line, "`ports` must be a list");
                    continue;
                };
                for item in items {
                    read_port(r, name, item, &mut s.ports);
                }
            }
            "expose" => r.note(name, key, Dropped, "ports open only to other containers: a module requirement reaches a provider by its host port"),
            "volumes" => {
                let Yaml::Seq(items) = &v.value else {
                    r.problem(name, v.line, "`volumes` must be a list");
                    continue;
                };
                for item in items {
                    if let Some(vol) = read_volume(r, name, item, volumes_top, project) {
                        s.volumes.push(vol);
                    }
                }
            }
            "secrets" | "configs" => {
                let top = if key == "secrets" { secrets_top } else { configs_top };
                let Yaml::Seq(items) = &v.value else {
                    r.problem(name, v.line, format!("`{key}` must be a list"));
                    continue;
                };
                for item in items {
                    if let Some(g) = read_grant(r, name, key, item, top) {
                        if key == "secrets" {
                            s.secrets.push(g);
                        } else {
                            s.configs.push(g);
                        }
                    }
                }
            }
            "depends_on" => match &v.value {
                Yaml::Seq(items) => {
                    for i in items {
                        if let Some(d) = r.scalar(name, key, i) {
                            s.depends_on.push(d);
                        }
                    }
                }
                Yaml::Map(m) => {
                    for (d, cond) in m {
                        s.depends_on.push(d.clone());
                        if cond.get("condition").is_some() {
                            r.note(name, &format!("depends_on.{d}.condition"), Dropped, "a consumer waits for its provider to be built; start order is the host's");
                        }
                    }
                }
                _ => r.problem(name, v.line, "`depends_on` must be a list or a mapping"),
            },
            "user" => {
                let u = r.scalar(name, key, v).unwrap_or_default();
                s.user = Some(u);
            }
            "networks" | "network_mode" | "links" | "external_links" => r.note(
                name,
                key,
                Dropped,
                "each instance has a network of its own; services reach one another through requirements",
            ),
            "healthcheck" => r.note(name, key, Dropped, "the language has no health check; the host watches the container"),
            "restart" => r.note(name, key, Dropped, "the host restarts what the manifest declares"),
            "labels" => r.note(name, key, Dropped, "labels are not part of a module; routes are `route` requirements"),
            "profiles" => r.note(name, key, Guessed, "the service is assigned like every other: a mesh has no profiles"),
            "extends" => {}
            "container_name" | "hostname" => r.note(name, key, Dropped, "a container is named after its instance"),
            "build" => r.note(name, key, Dropped, "meshc builds no image: the module runs the image named by `image`"),
            other => r.note(name, other, Dropped, "the language has no place for it"),
        }
    }
    if s.image.is_empty() {
        r.problem(
            name,
            node.line,
            format!("the service `{name}` names no `image` (a container runs a built image): build and push it, then name it with `image:`"),
        );
        return None;
    }
    // A variable set twice keeps its last value; `environment` wins over `env_file`,
    // as in Compose.
    last_of_each(&mut s.env);
    last_of_each(&mut env_files);
    let set: std::collections::HashSet<String> = s.env.iter().map(|e| e.key.clone()).collect();
    s.env
        .extend(env_files.into_iter().filter(|e| !set.contains(&e.key)));
    Some(s)
}

/// Keeps the last entry of each key, in the order of those last entries (as removing an
/// earlier entry at each repeat would, in one pass instead of one per entry).
fn last_of_each(vars: &mut Vec<EnvVar>) {
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<EnvVar> = vars
        .drain(..)
        .rev()
        .filter(|e| seen.insert(e.key.clone()))
        .collect();
    kept.reverse();
    *vars = kept;
}

fn parse_port_number(text: &str) -> Option<Vec<u16>> {
    match text.split_once('-') {
        Some((a, b)) => {
            let (a, b): (u16, u16) = (a.parse().ok()?, b.parse().ok()?);
            (a >= 1 && a <= b).then(|| (a..=b).collect())
        }
        None => {
            let p: u16 = text.parse().ok()?;
            (p >= 1).then_some(vec![p])
        }
    }
}

fn read_port(r: &mut Reader<'_>, name: &str, item: &Node, out: &mut Vec<Port>) {
    // A value that does not parse is never quoted (it may hold anything): its line says
    // which one it is.
    let bad = |r: &mut Reader<'_>| {
        r.problem(
            name,
            item.line,
            "this entry of `ports` is not a port mapping Compose knows (`[HOST_IP:][HOST:]CONTAINER[/udp]`)",
        );
    };
    match &item.value {
        Yaml::Scalar(text) => {
            let (spec, proto) = match text.rsplit_once('/') {
                Some((s, p)) => (s, p),
                None => (text.as_str(), "tcp"),
            };
            if proto != "tcp" && proto != "udp" {
                bad(r);
                return;
            }
            // An IPv6 host address is written in brackets.
            let (ip, rest) = if let Some(after) = spec.strip_prefix('[') {
                match after.split_once("]:") {
                    Some((ip, rest)) => (Some(ip.to_string()), rest),
                    None => {
                        bad(r);
                        return;
                    }
                }
            } else {
                let parts: Vec<&str> = spec.split(':').collect();
                if parts.len() == 3 {
                    (Some(parts[0].to_string()), &spec[parts[0].len() + 1..])
                } else {
                    (None, spec)
                }
            };
            let (host, container) = match rest.split_once(':') {
                Some((h, c)) => (Some(h), c),
                None => (None, rest),
            };
            let Some(targets) = parse_port_number(container) else {
                bad(r);
                return;
            };
            let hosts = match host {
                Some("") | None => None,
                Some(h) => match parse_port_number(h) {
                    Some(h) => Some(h),
                    None => {
                        bad(r);
                        return;
                    }
                },
            };
            if targets.len() > MAX_PORT_RANGE {
                r.problem(name, item.line, format!("this entry of `ports` publishes {} ports; import reads ranges of at most {MAX_PORT_RANGE}", targets.len()));
                return;
            }
            if let Some(h) = &hosts
                && h.len() != targets.len()
                && h.len() != 1
            {
                bad(r);
                return;
            }
            for (i, t) in targets.iter().enumerate() {
                out.push(Port {
                    host_ip: ip.clone().filter(|s| !s.is_empty()),
                    published: hosts
                        .as_ref()
                        .map(|h| if h.len() == 1 { h[0] } else { h[i] }),
                    target: *t,
                    udp: proto == "udp",
                });
            }
        }
        Yaml::Map(_) => {
            let target = item
                .get("target")
                .and_then(Node::as_str)
                .and_then(|t| t.parse::<u16>().ok());
            let Some(target) = target.filter(|t| *t >= 1) else {
                r.problem(
                    name,
                    item.line,
                    "a port in the long syntax needs `target`, a port number",
                );
                return;
            };
            let published = match item.get("published").and_then(Node::as_str) {
                Some(p) => match parse_port_number(p) {
                    Some(v) if v.len() == 1 => Some(v[0]),
                    _ => {
                        bad(r);
                        return;
                    }
                },
                None => None,
            };
            let proto = item.get("protocol").and_then(Node::as_str).unwrap_or("tcp");
            if proto != "tcp" && proto != "udp" {
                r.problem(name, item.line, "the `protocol` is neither tcp nor udp");
                return;
            }
            if item.get("mode").and_then(Node::as_str) == Some("host")
                || item.get("name").is_some()
                || item.get("app_protocol").is_some()
            {
                r.note(name, "ports.mode", super::Action::Dropped, "`mode`, `name` and `app_protocol` of a port have no place in a port requirement");
            }
            out.push(Port {
                host_ip: item
                    .get("host_ip")
                    .and_then(Node::as_str)
                    .map(str::to_string),
                published,
                target,
                udp: proto == "udp",
            });
        }
        _ => bad(r),
    }
}

fn read_volume(
    r: &mut Reader<'_>,
    name: &str,
    item: &Node,
    volumes_top: Option<&Node>,
    project: &str,
) -> Option<Volume> {
    let (kind, source, target, read_only) = match &item.value {
        Yaml::Scalar(text) => {
            let parts: Vec<&str> = text.split(':').collect();
            match parts.as_slice() {
                [t] => ("volume", String::new(), t.to_string(), false),
                [s, t] => (bind_or_volume(s), s.to_string(), t.to_string(), false),
                [s, t, mode] => {
                    let modes: Vec<&str> = mode.split(',').collect();
                    if modes.iter().any(|m| {
                        !matches!(
                            *m,
                            "ro" | "rw"
                                | "z"
                                | "Z"
                                | "nocopy"
                                | "cached"
                                | "delegated"
                                | "consistent"
                        )
                    }) {
                        r.problem(
                            name,
                            item.line,
                            "a mode of this volume is not one Compose knows (ro, rw, z, Z)",
                        );
                        return None;
                    }
                    (
                        bind_or_volume(s),
                        s.to_string(),
                        t.to_string(),
                        modes.contains(&"ro"),
                    )
                }
                _ => {
                    r.problem(
                        name,
                        item.line,
                        "this entry of `volumes` is not a volume Compose knows (`SOURCE:TARGET[:ro]`)",
                    );
                    return None;
                }
            }
        }
        Yaml::Map(_) => {
            let kind = item.get("type").and_then(Node::as_str).unwrap_or("volume");
            let source = item
                .get("source")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string();
            let Some(target) = item.get("target").and_then(Node::as_str) else {
                r.problem(
                    name,
                    item.line,
                    "a volume in the long syntax needs `target`",
                );
                return None;
            };
            let ro = item.get("read_only").and_then(Node::as_str) == Some("true");
            let kind = match kind {
                "bind" => "bind",
                "volume" => "volume",
                "tmpfs" | "npipe" | "cluster" | "image" => {
                    r.note(
                        name,
                        &format!("volumes.{target}"),
                        super::Action::Dropped,
                        format!("a `{kind}` mount has no place in a module"),
                    );
                    return None;
                }
                _ => {
                    r.problem(
                        name,
                        item.line,
                        "the volume's `type` is not one Compose knows (volume, bind, tmpfs, npipe, cluster)",
                    );
                    return None;
                }
            };
            (kind, source, target.to_string(), ro)
        }
        _ => {
            r.problem(name, item.line, "a volume must be a string or a mapping");
            return None;
        }
    };
    if !target.starts_with('/') {
        r.problem(
            name,
            item.line,
            format!("the volume target `{target}` is not an absolute path"),
        );
        return None;
    }
    let target = absolute("/", &target);
    let source = match kind {
        "bind" => {
            if source.starts_with('~') {
                r.problem(name, item.line, format!("the bind source `{source}` lies under the home directory of whoever runs Compose: write it as an absolute path"));
                return None;
            }
            if source.is_empty() {
                r.problem(name, item.line, "a bind mount needs `source`");
                return None;
            }
            Source::Bind(absolute(r.inputs.dir, &source))
        }
        _ if source.is_empty() => Source::Anonymous,
        _ => {
            let declared = volumes_top.and_then(|v| v.get(&source));
            if volumes_top
                .and_then(|v| v.as_map())
                .is_none_or(|m| !m.iter().any(|(k, _)| *k == source))
            {
                r.problem(
                    name,
                    item.line,
                    format!(
                        "the named volume `{source}` is not declared under the top-level `volumes`"
                    ),
                );
                return None;
            }
            let external = declared
                .and_then(|d| d.get("external"))
                .and_then(Node::as_str)
                == Some("true");
            let engine_name = match declared.and_then(|d| d.get("name")).and_then(Node::as_str) {
                Some(n) => n.to_string(),
                None if external => source.clone(),
                None => format!("{project}_{source}"),
            };
            if let Some(driver) = declared
                .and_then(|d| d.get("driver"))
                .and_then(Node::as_str)
                && driver != "local"
            {
                r.note(name, &format!("volumes.{source}"), super::Action::Guessed, format!("the volume's driver is `{driver}`; its data was placed as the local driver keeps it"));
            }
            Source::Named {
                key: source.clone(),
                host_path: format!("/var/lib/docker/volumes/{engine_name}/_data"),
            }
        }
    };
    Some(Volume {
        source,
        target,
        read_only,
    })
}

/// Whether interpolation put a secret-named variable anywhere in `node`.
fn any_hint(node: &Node) -> bool {
    node.secret_hint
        || match &node.value {
            Yaml::Seq(items) => items.iter().any(any_hint),
            Yaml::Map(entries) => entries.iter().any(|(_, v)| any_hint(v)),
            _ => false,
        }
}

fn bind_or_volume(source: &str) -> &'static str {
    if source.starts_with('.') || source.starts_with('/') || source.starts_with('~') {
        "bind"
    } else {
        "volume"
    }
}

fn read_grant(
    r: &mut Reader<'_>,
    name: &str,
    key: &str,
    item: &Node,
    top: Option<&Node>,
) -> Option<Grant> {
    let (source, target) = match &item.value {
        Yaml::Scalar(s) => (s.clone(), None),
        Yaml::Map(_) => (
            item.get("source")
                .and_then(Node::as_str)
                .unwrap_or_default()
                .to_string(),
            item.get("target")
                .and_then(Node::as_str)
                .map(str::to_string),
        ),
        _ => {
            r.problem(
                name,
                item.line,
                format!("an entry of `{key}` must be a name or a mapping"),
            );
            return None;
        }
    };
    if item.get("uid").is_some() || item.get("gid").is_some() || item.get("mode").is_some() {
        r.note(name, &format!("{key}.{source}"), super::Action::Dropped, "uid, gid and mode: a secret file is owned as the language's defaults say (LANGUAGE.md §12.1)");
    }
    let Some(decl) = top.and_then(|t| t.get(&source)) else {
        r.problem(
            name,
            item.line,
            format!("`{source}` is not declared under the top-level `{key}`"),
        );
        return None;
    };
    let target = match target {
        Some(t) if t.starts_with('/') => absolute("/", &t),
        Some(t) if key == "secrets" => format!("/run/secrets/{t}"),
        Some(t) => absolute("/", &t),
        None if key == "secrets" => format!("/run/secrets/{source}"),
        None => format!("/{source}"),
    };
    let gsource = if let Some(f) = decl.get("file").and_then(Node::as_str) {
        GrantSource::File(absolute(r.inputs.dir, f))
    } else if let Some(e) = decl.get("environment").and_then(Node::as_str) {
        GrantSource::Environment(e.to_string())
    } else if let Some(c) = decl.get("content").and_then(Node::as_str) {
        GrantSource::Content(c.to_string())
    } else {
        GrantSource::External
    };
    let secret_hint = decl.get("content").is_some_and(any_hint);
    Some(Grant {
        name: source,
        target,
        source: gsource,
        secret_hint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_commands_and_normalises_paths() {
        assert_eq!(
            shell_words("redis-server --save '' \"a b\"").unwrap(),
            ["redis-server", "--save", "", "a b"]
        );
        assert_eq!(absolute("/srv/app", "./data/../pg"), "/srv/app/pg");
        assert_eq!(absolute("/srv/app", "/var/x/"), "/var/x");
    }
}
