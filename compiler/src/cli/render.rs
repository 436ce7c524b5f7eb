//! `meshc render MANIFEST --secrets DIR [--root PATH]` (LANGUAGE.md §13.7), run on the
//! node: writes every file, sealed file, secret file and exposed-secret env file of the
//! node's manifest under `<root>/.mesh/files/…` with its owner, group and mode, and
//! creates the directories of directory requirements.
//!
//! All or nothing: the files are written into a new folder (`files.<stamp>`, mode 0700
//! from its creation, so no value is ever readable by another user), and only when every
//! one was written is the `files` link switched to it, in one rename. A missing value is
//! refused by name before anything is written. No value is ever printed.

use super::output;
use super::workspace::plain;
use meshc::emit::compose::{env_file, file_source, files_dir};
use meshc::emit::functions;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// The most a manifest may weigh.
const MAX_MANIFEST: u64 = 64 * 1024 * 1024;

/// The top-level fields of a manifest this version writes.
const FIELDS: &[&str] = &[
    "mesh",
    "node",
    "digest",
    "nodes",
    "instances",
    "left_out",
    "retired",
];

#[derive(Deserialize)]
struct Manifest {
    node: String,
    instances: Vec<Instance>,
}

#[derive(Deserialize)]
struct Instance {
    login: String,
    #[serde(default)]
    requirements: BTreeMap<String, Value>,
    containers: Vec<Container>,
}

#[derive(Deserialize)]
struct Container {
    name: String,
    user: Option<i64>,
    #[serde(default)]
    env: indexmap::IndexMap<String, Value>,
    #[serde(default)]
    files: Vec<FileEntry>,
    #[serde(default)]
    secrets: Vec<FileEntry>,
}

/// A file or a secret file: plain `content`, a `sealed` reference, or a `template` with
/// its `references`.
#[derive(Deserialize)]
struct FileEntry {
    target: String,
    mode: Option<String>,
    owner: Option<i64>,
    group: Option<i64>,
    content: Option<String>,
    sealed: Option<Sealed>,
    template: Option<String>,
    references: Option<BTreeMap<String, Value>>,
}

#[derive(Deserialize, Clone)]
struct Sealed {
    by: By,
    key: String,
}

#[derive(Deserialize, Clone)]
struct By {
    node: String,
    instance: String,
}

/// A refusal (exit 1) or an I/O failure (exit 2), said in one sentence.
enum Fail {
    Refused(String),
    Io(String),
}

/// One file to write: where, its bytes, owner, group and mode.
struct Planned {
    path: PathBuf,
    bytes: Vec<u8>,
    owner: u32,
    group: u32,
    mode: u32,
}

pub fn run(manifest: PathBuf, secrets: PathBuf, root: PathBuf) -> u8 {
    match render(&manifest, &secrets, &root) {
        Ok(n) => {
            output::say(&format!(
                "rendered {n} file{} into {}",
                if n == 1 { "" } else { "s" },
                files_dir(&root.display().to_string())
            ));
            0
        }
        Err(Fail::Refused(m)) => {
            output::say(&m);
            output::say("nothing was written");
            1
        }
        Err(Fail::Io(m)) => {
            output::say(&m);
            output::say("nothing was switched: the files written before are still in place");
            2
        }
    }
}

fn io(what: &str, path: &Path, e: &std::io::Error) -> Fail {
    Fail::Io(format!("cannot {what} `{}`: {}", path.display(), plain(e)))
}

/// Reads and checks the manifest: this version's shape, and its digest.
fn read_manifest(path: &Path) -> Result<Manifest, Fail> {
    let meta = fs::metadata(path).map_err(|e| io("read", path, &e))?;
    if meta.len() > MAX_MANIFEST {
        return Err(Fail::Refused(format!(
            "`{}` is larger than a manifest can be",
            path.display()
        )));
    }
    let text = fs::read_to_string(path).map_err(|e| io("read", path, &e))?;
    let mut value: Value = serde_json::from_str(&text).map_err(|e| {
        Fail::Refused(format!(
            "`{}` is not a manifest: not JSON ({e})",
            path.display()
        ))
    })?;
    let Some(object) = value.as_object_mut() else {
        return Err(Fail::Refused(format!(
            "`{}` is not a manifest: not a JSON object",
            path.display()
        )));
    };
    let keys: Vec<&String> = object.keys().collect();
    if keys.len() != FIELDS.len() || !FIELDS.iter().all(|f| object.contains_key(*f)) {
        let unknown: Vec<&str> = keys
            .iter()
            .map(|k| k.as_str())
            .filter(|k| !FIELDS.contains(k))
            .collect();
        let missing: Vec<&str> = FIELDS
            .iter()
            .copied()
            .filter(|f| !object.contains_key(*f))
            .collect();
        return Err(Fail::Refused(format!(
            "`{}` is a manifest of another version of meshc (unknown fields: {}; missing: {}); build it again with this meshc",
            path.display(),
            if unknown.is_empty() {
                "none".to_string()
            } else {
                meshc::diagnostics::capped_list(&unknown)
            },
            if missing.is_empty() {
                "none".to_string()
            } else {
                meshc::diagnostics::capped_list(&missing)
            },
        )));
    }
    let written = object
        .remove("digest")
        .and_then(|d| d.as_str().map(str::to_string))
        .unwrap_or_default();
    let digest = {
        use sha2::{Digest, Sha256};
        let hash = Sha256::digest(meshc::emit::canonical_json(&value).as_bytes());
        let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
        format!("sha256:{hex}")
    };
    if written != digest {
        return Err(Fail::Refused(format!(
            "`{}` does not match its digest: it was changed after `meshc build` wrote it",
            path.display()
        )));
    }
    serde_json::from_value(value).map_err(|e| {
        Fail::Refused(format!(
            "`{}` is a manifest of another version of meshc: {e}",
            path.display()
        ))
    })
}

/// Refuses a secrets folder another user can read, enter or write.
fn check_secrets_dir(dir: &Path) -> Result<(), Fail> {
    let meta = fs::metadata(dir).map_err(|e| io("read the secrets folder", dir, &e))?;
    if !meta.is_dir() {
        return Err(Fail::Refused(format!(
            "the secrets folder `{}` is not a folder",
            dir.display()
        )));
    }
    if meta.mode() & 0o007 != 0 {
        return Err(Fail::Refused(format!(
            "the secrets folder `{}` is open to other users (mode {:04o}); `chmod o-rwx` it (0700 or 0750)",
            dir.display(),
            meta.mode() & 0o7777
        )));
    }
    Ok(())
}

/// Refuses a root that is a link, or not a folder, and a `.mesh` in it that is a link.
fn check_root(root: &Path) -> Result<(), Fail> {
    if !root.is_absolute() {
        return Err(Fail::Refused(format!(
            "the root `{}` is not an absolute path",
            root.display()
        )));
    }
    for p in [root.to_path_buf(), root.join(".mesh")] {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Fail::Refused(format!(
                    "`{}` is a link to somewhere else; give the real folder as --root",
                    p.display()
                )));
            }
            Ok(m) if !m.is_dir() => {
                return Err(Fail::Refused(format!("`{}` is not a folder", p.display())));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The secret values a manifest reads, from `DIR/<node>/<instance>/<key>`; every missing
/// one is refused by name, all at once.
struct Values<'a> {
    dir: &'a Path,
    read: BTreeMap<String, String>,
    missing: Vec<String>,
    refused: Vec<String>,
}

impl Values<'_> {
    fn name(s: &Sealed) -> String {
        format!("{}/{}/{}", s.by.node, s.by.instance, s.key)
    }

    /// The value of `s`, or an empty one noted as missing.
    fn get(&mut self, s: &Sealed) -> String {
        let name = Self::name(s);
        if let Some(v) = self.read.get(&name) {
            return v.clone();
        }
        let rel = Path::new(&name);
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            self.refused
                .push(format!("the secret reference `{name}` is not a plain path"));
            return String::new();
        }
        let path = self.dir.join(rel);
        match fs::metadata(&path) {
            Ok(m) if m.mode() & 0o004 != 0 => {
                self.refused.push(format!(
                    "the secret file `{}` is readable by other users; `chmod o-rwx` it",
                    path.display()
                ));
                return String::new();
            }
            _ => {}
        }
        match fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(mut v) => {
                    // A value written with `echo` ends with one newline that is not part of it.
                    if v.ends_with('\n') {
                        v.pop();
                    }
                    self.read.insert(name, v.clone());
                    v
                }
                Err(_) => {
                    self.refused
                        .push(format!("the secret `{name}` is not UTF-8 text"));
                    String::new()
                }
            },
            Err(_) => {
                if !self.missing.contains(&name) {
                    self.missing.push(name);
                }
                String::new()
            }
        }
    }

    /// Renders a template from its references.
    fn template(
        &mut self,
        template: &str,
        references: &BTreeMap<String, Value>,
        what: &str,
    ) -> String {
        let rendered = {
            let mut lookup = |r: &str| -> Result<String, String> {
                match references.get(r) {
                    Some(v) => {
                        if let Some(t) = v.get("value").and_then(Value::as_str) {
                            Ok(t.to_string())
                        } else if let Some(s) = v
                            .get("sealed")
                            .and_then(|s| serde_json::from_value::<Sealed>(s.clone()).ok())
                        {
                            Ok(self.get(&s))
                        } else {
                            Err(format!("the reference `{r}` is neither a value nor sealed"))
                        }
                    }
                    None => Err(format!(
                        "the template names `{r}`, which it does not reference"
                    )),
                }
            };
            functions::render(template, &mut lookup)
        };
        match rendered {
            Ok(t) => t,
            Err(e) => {
                self.refused.push(format!("{what}: {e}"));
                String::new()
            }
        }
    }
}

fn mode_of(text: Option<&str>, default: u32, what: &str, refused: &mut Vec<String>) -> u32 {
    match text {
        None => default,
        Some(t) => match u32::from_str_radix(t, 8) {
            Ok(m) if m <= 0o7777 => m,
            _ => {
                refused.push(format!("{what}: the mode `{t}` is not octal"));
                default
            }
        },
    }
}

fn id(n: i64, what: &str, refused: &mut Vec<String>) -> u32 {
    u32::try_from(n).unwrap_or_else(|_| {
        refused.push(format!("{what}: `{n}` is not a user or group number"));
        0
    })
}

/// The value an env file carries unchanged in Docker Compose v1.29 and v2: single
/// quotes, and nothing inside them that either reads specially. Compose v1.29 reads env
/// files with python-dotenv, which replaces every `${NAME}` (quoted or not, with no
/// escape) by the deployer's environment: a value holding `${` is refused, so no `$` is
/// ever left for Compose to interpolate (LANGUAGE.md §14.6).
fn env_line(key: &str, value: &str) -> Result<String, String> {
    if value.contains(['\'', '\\', '\n', '\r', '\0']) {
        return Err(format!(
            "env `{key}`: the value holds a quote, a backslash or a line break, which an env file cannot carry unchanged; deliver it as a secret file"
        ));
    }
    if value.contains("${") {
        return Err(format!(
            "env `{key}`: the value holds `${{`, which Docker Compose v1.29 replaces from the environment in an env file (no quoting escapes it); deliver it as a secret file"
        ));
    }
    Ok(format!("{key}='{value}'\n"))
}

fn render(manifest_path: &Path, secrets: &Path, root: &Path) -> Result<usize, Fail> {
    render_with(manifest_path, secrets, root, true)
}

/// `meshc render --swarm` (super::swarm): the files of a node's manifest rendered under
/// `root` as on the node, without making its directories (they are the node's, not the
/// manager's). The sentence of a refusal or failure on error.
pub(super) fn render_files(
    manifest_path: &Path,
    secrets: &Path,
    root: &Path,
) -> Result<usize, String> {
    render_with(manifest_path, secrets, root, false).map_err(|f| match f {
        Fail::Refused(m) | Fail::Io(m) => m,
    })
}

fn render_with(
    manifest_path: &Path,
    secrets: &Path,
    root: &Path,
    make_directories: bool,
) -> Result<usize, Fail> {
    let manifest = read_manifest(manifest_path)?;
    check_secrets_dir(secrets)?;
    check_root(root)?;
    let root_text = root.display().to_string();
    let mut values = Values {
        dir: secrets,
        read: BTreeMap::new(),
        missing: Vec::new(),
        refused: Vec::new(),
    };
    let mut planned: Vec<Planned> = Vec::new();
    let mut directories: Vec<(PathBuf, u32, u32)> = Vec::new();
    let live = PathBuf::from(files_dir(&root_text));
    for instance in &manifest.instances {
        for (name, req) in &instance.requirements {
            if req.get("kind").and_then(Value::as_str) == Some("host")
                && req.get("contract").and_then(Value::as_str) == Some("directory")
            {
                let what = format!("directory `{name}` of `{}`", instance.login);
                let path = req.get("path").and_then(Value::as_str).unwrap_or_default();
                let owner = id(
                    req.get("owner").and_then(Value::as_i64).unwrap_or(0),
                    &what,
                    &mut values.refused,
                );
                let mode = mode_of(
                    req.get("mode").and_then(Value::as_str),
                    0o750,
                    &what,
                    &mut values.refused,
                );
                if !path.starts_with('/') {
                    values
                        .refused
                        .push(format!("{what}: `{path}` is not an absolute path"));
                }
                directories.push((PathBuf::from(path), owner, mode));
            }
        }
        for c in &instance.containers {
            let default_owner = c.user.unwrap_or(0);
            let entries = c
                .files
                .iter()
                .map(|f| (f, false))
                .chain(c.secrets.iter().map(|s| (s, true)));
            for (f, secret) in entries {
                let what = format!("`{}` of container `{}`", f.target, c.name);
                if !Path::new(&f.target)
                    .components()
                    .skip(1)
                    .all(|c| matches!(c, Component::Normal(_)))
                    || !f.target.starts_with('/')
                {
                    values
                        .refused
                        .push(format!("{what}: not an absolute, normalised path"));
                    continue;
                }
                let text = if let Some(content) = &f.content {
                    content.clone()
                } else if let Some(s) = &f.sealed {
                    values.get(s)
                } else if let Some(t) = &f.template {
                    values.template(t, f.references.as_ref().unwrap_or(&BTreeMap::new()), &what)
                } else {
                    values
                        .refused
                        .push(format!("{what}: neither content, sealed nor template"));
                    continue;
                };
                let owner = f.owner.unwrap_or(default_owner);
                let group = f.group.unwrap_or(owner);
                let default_mode = match (secret, f.content.is_some()) {
                    (true, _) => 0o440,
                    (false, true) => 0o644,
                    (false, false) => 0o640,
                };
                planned.push(Planned {
                    path: PathBuf::from(file_source("", &instance.login, &c.name, &f.target)),
                    bytes: text.into_bytes(),
                    owner: id(owner, &what, &mut values.refused),
                    group: id(group, &what, &mut values.refused),
                    mode: mode_of(f.mode.as_deref(), default_mode, &what, &mut values.refused),
                });
            }
            let mut env = String::new();
            for (k, v) in &c.env {
                if v.is_string() {
                    continue;
                }
                let text = if let Some(s) = v
                    .get("sealed")
                    .and_then(|s| serde_json::from_value::<Sealed>(s.clone()).ok())
                {
                    values.get(&s)
                } else if let (Some(t), Some(refs)) = (
                    v.get("template").and_then(Value::as_str),
                    v.get("references").and_then(|r| {
                        serde_json::from_value::<BTreeMap<String, Value>>(r.clone()).ok()
                    }),
                ) {
                    values.template(t, &refs, &format!("env `{k}` of container `{}`", c.name))
                } else {
                    values.refused.push(format!(
                        "env `{k}` of container `{}`: not a value this meshc reads",
                        c.name
                    ));
                    continue;
                };
                match env_line(k, &text) {
                    Ok(line) => env.push_str(&line),
                    Err(e) => values.refused.push(format!("{e} (container `{}`)", c.name)),
                }
            }
            if !env.is_empty() {
                planned.push(Planned {
                    path: PathBuf::from(env_file("", &instance.login, &c.name)),
                    bytes: env.into_bytes(),
                    owner: 0,
                    group: 0,
                    mode: 0o400,
                });
            }
        }
    }
    if !values.missing.is_empty() {
        let expected: Vec<String> = values
            .missing
            .iter()
            .map(|m| format!("`{m}` (the file `{}`)", secrets.join(m).display()))
            .collect();
        return Err(Fail::Refused(format!(
            "no value for the secret{} of node `{}`: {}",
            if expected.len() == 1 { "" } else { "s" },
            manifest.node,
            meshc::diagnostics::capped_list(&expected)
        )));
    }
    let mut seen = std::collections::BTreeSet::new();
    values.refused.retain(|r| seen.insert(r.clone()));
    if let Some(first) = values.refused.first() {
        let more = values.refused.len() - 1;
        return Err(Fail::Refused(if more == 0 {
            first.clone()
        } else {
            format!(
                "{first} (and {more} more: {})",
                meshc::diagnostics::capped_join(&values.refused[1..], "; ")
            )
        }));
    }
    write_tree(root, &live, &planned)?;
    for (path, owner, mode) in directories.iter().filter(|_| make_directories) {
        make_directory(path, *owner, *mode)?;
    }
    Ok(planned.len())
}

/// Writes `planned` (paths relative to the files folder, as `/.mesh/files/…`) into a new
/// folder, then switches the `files` link to it and removes the folder it named before.
fn write_tree(root: &Path, live: &Path, planned: &[Planned]) -> Result<(), Fail> {
    let mesh = root.join(".mesh");
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&mesh)
        .map_err(|e| io("create", &mesh, &e))?;
    check_root(root)?;
    fs::set_permissions(&mesh, fs::Permissions::from_mode(0o700))
        .map_err(|e| io("set the mode of", &mesh, &e))?;
    let stamp = format!(
        "files.{}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
        std::process::id()
    );
    let fresh = mesh.join(&stamp);
    let result = (|| {
        fs::DirBuilder::new()
            .mode(0o700)
            .create(&fresh)
            .map_err(|e| io("create", &fresh, &e))?;
        for p in planned {
            let rel = p
                .path
                .strip_prefix("/.mesh/files")
                .expect("planned paths are under the files folder");
            let path = fresh.join(rel);
            if let Some(parent) = path.parent() {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| io("create", parent, &e))?;
            }
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path)
                .map_err(|e| io("write", &path, &e))?;
            f.write_all(&p.bytes)
                .and_then(|_| f.sync_all())
                .map_err(|e| io("write", &path, &e))?;
            std::os::unix::fs::fchown(&f, Some(p.owner), Some(p.group))
                .map_err(|e| io(&format!("give owner {}:{} to", p.owner, p.group), &path, &e))?;
            f.set_permissions(fs::Permissions::from_mode(p.mode))
                .map_err(|e| io("set the mode of", &path, &e))?;
        }
        // The switch: a new link beside `files`, renamed over it in one step.
        let previous = match fs::symlink_metadata(live) {
            Ok(m) if m.file_type().is_symlink() => fs::read_link(live).ok(),
            Ok(_) => {
                return Err(Fail::Refused(format!(
                    "`{}` is not the link `meshc render` keeps there; move it away",
                    live.display()
                )));
            }
            Err(_) => None,
        };
        let link = mesh.join(format!(".files.link-{}", std::process::id()));
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(&stamp, &link).map_err(|e| io("create", &link, &e))?;
        if let Err(e) = fs::rename(&link, live) {
            let _ = fs::remove_file(&link);
            return Err(io("switch", live, &e));
        }
        if let Some(old) = previous
            && old.components().count() == 1
            && old.to_string_lossy().starts_with("files.")
        {
            let _ = fs::remove_dir_all(mesh.join(old));
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_dir_all(&fresh);
    }
    result
}

/// Creates a directory requirement's folder (parents 0755) and gives it its owner and mode.
fn make_directory(path: &Path, owner: u32, mode: u32) -> Result<(), Fail> {
    if let Some(parent) = path.parent() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o755)
            .create(parent)
            .map_err(|e| io("create", parent, &e))?;
    }
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() || !m.is_dir() => {
            return Err(Fail::Refused(format!(
                "`{}` is in the way of a directory requirement: it is not a folder",
                path.display()
            )));
        }
        Ok(_) => {}
        Err(_) => fs::DirBuilder::new()
            .mode(0o700)
            .create(path)
            .map_err(|e| io("create", path, &e))?,
    }
    std::os::unix::fs::chown(path, Some(owner), Some(owner))
        .map_err(|e| io(&format!("give owner {owner} to"), path, &e))?;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
        .map_err(|e| io("set the mode of", path, &e))
}
