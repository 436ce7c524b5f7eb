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
use meshc::base::visible::visible;
use meshc::check::registry::{HostContract, ProviderKind};
use meshc::emit::compose::{env_file, file_source, files_dir};
use meshc::emit::functions;
use meshc::fsio::{ReadFailure, read_regular};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};

/// The most a manifest may weigh.
const MAX_MANIFEST: u64 = 64 * 1024 * 1024;

/// The most a secret value may weigh: a key, a certificate chain, a keytab.
pub const MAX_SECRET: u64 = 1024 * 1024;

/// The file, in each files folder, holding the digest of each service's rendered files
/// (never a value): what `meshc apply` compares to tell which services to recreate.
pub const DIGESTS: &str = ".digests.json";

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
pub struct Manifest {
    pub node: String,
    pub instances: Vec<Instance>,
}

#[derive(Deserialize)]
pub struct Instance {
    #[serde(default)]
    pub instance: String,
    pub login: String,
    #[serde(default)]
    pub requirements: BTreeMap<String, Value>,
    pub containers: Vec<Container>,
    #[serde(default)]
    pub provides: Vec<Value>,
}

#[derive(Deserialize)]
pub struct Container {
    pub name: String,
    user: Option<i64>,
    /// `user UID:GID`'s group: the default group of a file with no `owner` (§14.2).
    group: Option<i64>,
    #[serde(default)]
    pub env: indexmap::IndexMap<String, Value>,
    #[serde(default)]
    pub files: Vec<FileEntry>,
    #[serde(default)]
    pub secrets: Vec<FileEntry>,
}

/// A file or a secret file: plain `content`, a `sealed` reference, or a `template` with
/// its `references`.
#[derive(Deserialize)]
pub struct FileEntry {
    pub target: String,
    mode: Option<String>,
    owner: Option<i64>,
    group: Option<i64>,
    pub content: Option<String>,
    pub sealed: Option<Sealed>,
    template: Option<String>,
    pub references: Option<BTreeMap<String, Value>>,
}

#[derive(Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Sealed {
    pub by: By,
    pub key: String,
}

#[derive(Deserialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct By {
    pub node: String,
    pub instance: String,
}

impl Sealed {
    /// `node/instance/key`: where the value is under the secrets folder.
    pub fn name(&self) -> String {
        format!("{}/{}/{}", self.by.node, self.by.instance, self.key)
    }

    /// The path of the value under `dir`, or why the reference names no file there: each
    /// part of it is checked as a name, so no reference leads out of the folder.
    pub fn path_in(&self, dir: &Path) -> Result<PathBuf, String> {
        let mut path = dir.to_path_buf();
        for part in [self.by.node.as_str(), self.by.instance.as_str()]
            .into_iter()
            .chain(self.key.split('/'))
        {
            if let Err(why) = check_name(part) {
                return Err(format!(
                    "the secret reference `{}` is no path in the secrets folder: `{}` {why}",
                    visible(&self.name()),
                    visible(part)
                ));
            }
            path.push(part);
        }
        Ok(path)
    }
}

/// Every sealed reference a value of the manifest makes: in an env value, a file or a
/// secret file, directly or through a template's references.
pub fn sealed_of_value(v: &Value, out: &mut Vec<Sealed>) {
    if let Some(s) = v
        .get("sealed")
        .and_then(|s| serde_json::from_value::<Sealed>(s.clone()).ok())
    {
        out.push(s);
    }
    if let Some(refs) = v.get("references").and_then(Value::as_object) {
        for r in refs.values() {
            sealed_of_value(r, out);
        }
    }
}

/// Why `name` cannot be one component of a path, or nothing: a name from a manifest (a
/// login, a container, a node, a part of a secret's key) is input from elsewhere and
/// names exactly one entry of the folder it is joined to.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        Err("is empty")
    } else if name.contains('/') {
        Err("holds a `/`")
    } else if name.starts_with('.') {
        Err("starts with a `.` (`..` would climb out of the folder)")
    } else if name
        .chars()
        .any(|c| c.is_control() || meshc::base::visible::is_hidden(c))
    {
        Err("holds a control or formatting character")
    } else if name.len() > 255 {
        Err("is longer than a file name can be")
    } else {
        Ok(())
    }
}

/// A refusal (exit 1), an I/O failure (exit 2) before anything was switched, or an I/O
/// failure after the files were switched in, saying exactly what was left (exit 2).
pub enum Fail {
    Refused(String),
    Io(String),
    Left(String),
}

impl Fail {
    /// The sentence that says why, whatever the kind of failure.
    pub(super) fn into_sentence(self) -> String {
        match self {
            Fail::Refused(m) | Fail::Io(m) | Fail::Left(m) => m,
        }
    }
}

/// One file to write: where, its bytes, owner, group and mode, and the service it is for.
struct Planned {
    path: PathBuf,
    bytes: Vec<u8>,
    owner: u32,
    group: u32,
    mode: u32,
    service: String,
}

/// What a render did: how many files it wrote.
pub struct Rendered {
    pub files: usize,
}

pub fn run(manifest: PathBuf, secrets: PathBuf, root: PathBuf) -> u8 {
    match render(&manifest, &secrets, &root) {
        Ok(r) => {
            said_rendered(&r, &root);
            0
        }
        Err(f) => said_failure(f),
    }
}

pub fn said_rendered(r: &Rendered, root: &Path) {
    output::say(&format!(
        "rendered {} file{} into {}",
        r.files,
        if r.files == 1 { "" } else { "s" },
        visible(&files_dir(&root.display().to_string()))
    ));
}

/// Says why a render failed and what it left; returns the exit status.
pub fn said_failure(f: Fail) -> u8 {
    match f {
        Fail::Refused(m) => {
            output::say(&m);
            output::say("nothing was written");
            1
        }
        Fail::Io(m) => {
            output::say(&m);
            output::say("nothing was switched: the files written before are still in place");
            2
        }
        Fail::Left(m) => {
            output::say(&m);
            2
        }
    }
}

fn io(what: &str, path: &Path, e: &std::io::Error) -> Fail {
    Fail::Io(format!(
        "cannot {what} `{}`: {}",
        visible(&path.display().to_string()),
        plain(e)
    ))
}

/// A file read bounded (`fsio::read_regular`: a device, a pipe or a socket is refused
/// before it is opened): a refusal for what is no file meshc reads, I/O otherwise.
pub fn read_bounded(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, Fail> {
    let shown = visible(&path.display().to_string()).into_owned();
    read_regular(path, limit).map_err(|e| match e {
        ReadFailure::NotRegular(_) | ReadFailure::TooLarge { .. } => {
            Fail::Refused(format!("{what}: {}", e.sentence(&shown)))
        }
        _ => Fail::Io(e.sentence(&shown)),
    })
}

/// Reads and checks the manifest: this version's shape, and its digest. The digest is a
/// plain SHA-256 anyone who can edit the file recomputes: it catches a mistake, not an
/// attacker, so everything read from the manifest is checked as input from elsewhere.
pub fn read_manifest(path: &Path) -> Result<(Manifest, Value), Fail> {
    let shown = visible(&path.display().to_string()).into_owned();
    let bytes = read_bounded(path, MAX_MANIFEST, "the manifest")?;
    let mut value: Value = serde_json::from_slice(&bytes)
        .map_err(|e| Fail::Refused(format!("`{shown}` is not a manifest: not JSON ({e})")))?;
    let Some(object) = value.as_object_mut() else {
        return Err(Fail::Refused(format!(
            "`{shown}` is not a manifest: not a JSON object"
        )));
    };
    let keys: Vec<&String> = object.keys().collect();
    if keys.len() != FIELDS.len() || !FIELDS.iter().all(|f| object.contains_key(*f)) {
        let unknown: Vec<String> = keys
            .iter()
            .filter(|k| !FIELDS.contains(&k.as_str()))
            .map(|k| visible(k).into_owned())
            .collect();
        let missing: Vec<&str> = FIELDS
            .iter()
            .copied()
            .filter(|f| !object.contains_key(*f))
            .collect();
        return Err(Fail::Refused(format!(
            "`{shown}` is a manifest of another version of meshc (unknown fields: {}; missing: {}); build it again with this meshc",
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
    let digest = sha256(meshc::emit::canonical_json(&value).as_bytes());
    if written != digest {
        return Err(Fail::Refused(format!(
            "`{shown}` does not match its digest: it was changed after `meshc build` wrote it"
        )));
    }
    let manifest: Manifest = serde_json::from_value(value.clone()).map_err(|e| {
        Fail::Refused(format!(
            "`{shown}` is a manifest of another version of meshc: {}",
            visible(&e.to_string())
        ))
    })?;
    let mut wrong = Vec::new();
    let mut name = |what: String, n: &str| {
        if let Err(why) = check_name(n) {
            wrong.push(format!("{what} `{}` {why}", visible(n)));
        }
    };
    name("the node".into(), &manifest.node);
    for i in &manifest.instances {
        name("the login".into(), &i.login);
        for c in &i.containers {
            name(
                format!("of `{}`, the container", visible(&i.login)),
                &c.name,
            );
        }
    }
    if !wrong.is_empty() {
        return Err(Fail::Refused(format!(
            "`{shown}` names what no file name can be, so nothing of it is written: {}",
            meshc::diagnostics::capped_join(&wrong, "; ")
        )));
    }
    Ok((manifest, value))
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Refuses a secrets folder another user can read, enter or write.
pub fn check_secrets_dir(dir: &Path) -> Result<(), Fail> {
    let meta = fs::metadata(dir).map_err(|e| io("read the secrets folder", dir, &e))?;
    let shown = visible(&dir.display().to_string()).into_owned();
    if !meta.is_dir() {
        return Err(Fail::Refused(format!(
            "the secrets folder `{shown}` is not a folder"
        )));
    }
    if meta.mode() & 0o007 != 0 {
        return Err(Fail::Refused(format!(
            "the secrets folder `{shown}` is open to other users (mode {:04o}); `chmod o-rwx` it (0700 or 0750)",
            meta.mode() & 0o7777
        )));
    }
    Ok(())
}

/// Refuses a root that is a link, or not a folder, a `.mesh` in it that is a link, and a
/// `files` in that which is not the link render keeps there: checked before anything is
/// written, so such a refusal leaves everything as it was.
fn check_root(root: &Path) -> Result<(), Fail> {
    if !root.is_absolute() {
        return Err(Fail::Refused(format!(
            "the root `{}` is not an absolute path",
            visible(&root.display().to_string())
        )));
    }
    for p in [root.to_path_buf(), root.join(".mesh")] {
        let shown = visible(&p.display().to_string()).into_owned();
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(Fail::Refused(format!(
                    "`{shown}` is a link to somewhere else; give the real folder as --root"
                )));
            }
            Ok(m) if !m.is_dir() => {
                return Err(Fail::Refused(format!("`{shown}` is not a folder")));
            }
            _ => {}
        }
    }
    let live = root.join(".mesh/files");
    match fs::symlink_metadata(&live) {
        Ok(m) if !m.file_type().is_symlink() => Err(Fail::Refused(format!(
            "`{}` is not the link `meshc render` keeps there; move it away",
            visible(&live.display().to_string())
        ))),
        _ => Ok(()),
    }
}

/// The secret values a manifest reads, from `DIR/<node>/<instance>/<key>`; every missing
/// one is refused by name, all at once.
struct Values<'a> {
    dir: &'a Path,
    read: BTreeMap<String, String>,
    missing: BTreeSet<String>,
    refused: Vec<String>,
}

impl Values<'_> {
    /// The value of `s`, or an empty one noted as missing or refused.
    fn get(&mut self, s: &Sealed) -> String {
        let name = s.name();
        if let Some(v) = self.read.get(&name) {
            return v.clone();
        }
        let path = match s.path_in(self.dir) {
            Ok(p) => p,
            Err(why) => {
                self.refused.push(why);
                return String::new();
            }
        };
        let shown = visible(&path.display().to_string()).into_owned();
        match fs::metadata(&path) {
            Ok(m) if m.is_file() && m.mode() & 0o004 != 0 => {
                self.refused.push(format!(
                    "the secret file `{shown}` is readable by other users; `chmod o-rwx` it"
                ));
                return String::new();
            }
            Err(_) => {
                self.missing.insert(name);
                return String::new();
            }
            _ => {}
        }
        match read_regular(&path, MAX_SECRET) {
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
                        .push(format!("the secret `{}` is not UTF-8 text", visible(&name)));
                    String::new()
                }
            },
            Err(ReadFailure::NotFound) => {
                self.missing.insert(name);
                String::new()
            }
            Err(e) => {
                self.refused
                    .push(format!("the secret value {}", e.sentence(&shown)));
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
                            Err(format!(
                                "the reference `{}` is neither a value nor sealed",
                                visible(r)
                            ))
                        }
                    }
                    None => Err(format!(
                        "the template names `{}`, which it does not reference",
                        visible(r)
                    )),
                }
            };
            functions::render(template, &mut lookup)
        };
        match rendered {
            Ok(t) => t,
            Err(e) => {
                self.refused.push(format!("{what}: {}", visible(&e)));
                String::new()
            }
        }
    }
}

/// A mode from the manifest: octal, permission bits only. A setuid, setgid or sticky
/// bit is never written, whoever wrote the manifest.
fn mode_of(text: Option<&str>, default: u32, what: &str, refused: &mut Vec<String>) -> u32 {
    match text {
        None => default,
        Some(t) => match u32::from_str_radix(t, 8) {
            Ok(m) if m <= 0o777 => m,
            Ok(m) if m <= 0o7777 => {
                refused.push(format!(
                    "{what}: the mode `{}` sets a setuid, setgid or sticky bit, which meshc never writes",
                    visible(t)
                ));
                default
            }
            _ => {
                refused.push(format!("{what}: the mode `{}` is not octal", visible(t)));
                default
            }
        },
    }
}

/// A user or group number. `u32::MAX` is refused: to `chown` it means "unchanged".
fn id(n: i64, what: &str, refused: &mut Vec<String>) -> u32 {
    match u32::try_from(n) {
        Ok(n) if n != u32::MAX => n,
        _ => {
            refused.push(format!("{what}: `{n}` is not a user or group number"));
            0
        }
    }
}

/// The value an env file carries unchanged in Docker Compose v1.29 and v2: single
/// quotes, and nothing inside them that either reads specially. Compose v1.29 reads env
/// files with python-dotenv, which replaces every `${NAME}` (quoted or not, with no
/// escape) by the deployer's environment: a value holding `${` is refused, so no `$` is
/// ever left for Compose to interpolate (LANGUAGE.md §14.6).
fn env_line(key: &str, value: &str) -> Result<String, String> {
    if value.contains(['\'', '\\', '\n', '\r', '\0']) {
        return Err(format!(
            "env `{}`: the value holds a quote, a backslash or a line break, which an env file cannot carry unchanged; deliver it as a secret file",
            visible(key)
        ));
    }
    if key.is_empty() || key.contains(['=', '\n', '\r', '\0', '#', ' ']) {
        return Err(format!(
            "env `{}`: not a name an env file can carry",
            visible(key)
        ));
    }
    if value.contains("${") {
        return Err(format!(
            "env `{}`: the value holds `${{`, which Docker Compose v1.29 replaces from the environment in an env file (no quoting escapes it); deliver it as a secret file",
            visible(key)
        ));
    }
    Ok(format!("{key}='{value}'\n"))
}

/// A target path in a container: absolute, normalised, every part a name.
fn target_ok(target: &str) -> bool {
    target.starts_with('/')
        && target.len() > 1
        && Path::new(target).components().skip(1).all(|c| match c {
            Component::Normal(n) => n
                .to_str()
                .is_some_and(|n| !n.chars().any(|c| c.is_control())),
            _ => false,
        })
        && !target.contains("//")
        && !target.ends_with('/')
}

/// Why a directory requirement's path is not one render makes, or nothing.
fn directory_refused(path: &str, root: &Path) -> Option<String> {
    if !target_ok(path) {
        return Some("not an absolute, normalised path".into());
    }
    let p = Path::new(path);
    // E0521's own judgement: `/`, a system folder, or the node's `.mesh` folder.
    if let Some((_, state)) = meshc::resolve::system_place(path, &root.display().to_string()) {
        return Some(if state {
            "the `.mesh` folder holding every secret file of the node".into()
        } else {
            "a system folder, never handed to a container".into()
        });
    }
    // Stricter than check: the root itself or a folder above it is never given away.
    if root.starts_with(p) {
        return Some("the node's root, or a folder above it".into());
    }
    None
}

/// What a render will write, read and checked whole, nothing written yet.
pub struct Prepared {
    pub manifest: Manifest,
    /// The manifest as JSON (digest removed), for what the typed view leaves out.
    pub json: Value,
    planned: Vec<Planned>,
    directories: Vec<(PathBuf, u32, u32)>,
    /// The digest of each service's rendered files.
    pub digests: BTreeMap<String, String>,
}

impl Prepared {
    /// How many files the render writes.
    pub fn files(&self) -> usize {
        self.planned.len()
    }
}

pub fn render(manifest_path: &Path, secrets: &Path, root: &Path) -> Result<Rendered, Fail> {
    let prepared = prepare(manifest_path, secrets, root)?;
    commit(&prepared, root)
}

/// `meshc render --swarm` (super::swarm): the files of a node's manifest rendered under
/// `root` as on the node, without making its directories (they are the node's, not the
/// manager's). Gives the manifest as read and checked (read once), or the sentence of a
/// refusal or failure.
pub(super) fn render_files(
    manifest_path: &Path,
    secrets: &Path,
    root: &Path,
) -> Result<Manifest, String> {
    let mut prepared = prepare(manifest_path, secrets, root).map_err(Fail::into_sentence)?;
    prepared.directories.clear();
    commit(&prepared, root).map_err(Fail::into_sentence)?;
    Ok(prepared.manifest)
}

/// Reads the manifest and every value, renders every template and checks everything
/// that can refuse: a refusal here has written nothing.
pub fn prepare(manifest_path: &Path, secrets: &Path, root: &Path) -> Result<Prepared, Fail> {
    let (manifest, json) = read_manifest(manifest_path)?;
    check_secrets_dir(secrets)?;
    check_root(root)?;
    let mut values = Values {
        dir: secrets,
        read: BTreeMap::new(),
        missing: BTreeSet::new(),
        refused: Vec::new(),
    };
    let mut planned: Vec<Planned> = Vec::new();
    let mut directories: Vec<(PathBuf, u32, u32)> = Vec::new();
    let mut services: BTreeSet<String> = BTreeSet::new();
    for instance in &manifest.instances {
        let login = visible(&instance.login).into_owned();
        for (name, req) in &instance.requirements {
            if req.get("kind").and_then(Value::as_str) == Some(ProviderKind::Host.as_str())
                && req.get("contract").and_then(Value::as_str)
                    == Some(HostContract::Directory.as_str())
            {
                let what = format!("directory `{}` of `{login}`", visible(name));
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
                if let Some(why) = directory_refused(path, root) {
                    values
                        .refused
                        .push(format!("{what}: `{}` is {why}", visible(path)));
                    continue;
                }
                directories.push((PathBuf::from(path), owner, mode));
            }
        }
        for c in &instance.containers {
            let cname = visible(&c.name).into_owned();
            services.insert(c.name.clone());
            let default_owner = c.user.unwrap_or(0);
            let entries = c
                .files
                .iter()
                .map(|f| (f, false))
                .chain(c.secrets.iter().map(|s| (s, true)));
            for (f, secret) in entries {
                let what = format!("`{}` of container `{cname}`", visible(&f.target));
                if !target_ok(&f.target) {
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
                let group = f.group.unwrap_or(match (f.owner, c.group) {
                    (None, Some(g)) => g,
                    _ => owner,
                });
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
                    service: c.name.clone(),
                });
            }
            let mut env = String::new();
            for (k, v) in &c.env {
                if v.is_string() {
                    continue;
                }
                let what = format!("env `{}` of container `{cname}`", visible(k));
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
                    values.template(t, &refs, &what)
                } else {
                    values
                        .refused
                        .push(format!("{what}: not a value this meshc reads"));
                    continue;
                };
                match env_line(k, &text) {
                    Ok(line) => env.push_str(&line),
                    Err(e) => values.refused.push(format!("{e} (container `{cname}`)")),
                }
            }
            if !env.is_empty() {
                planned.push(Planned {
                    path: PathBuf::from(env_file("", &instance.login, &c.name)),
                    bytes: env.into_bytes(),
                    owner: 0,
                    group: 0,
                    mode: 0o400,
                    service: c.name.clone(),
                });
            }
        }
    }
    // Two entries at one path, or one inside another's file, would overwrite each other
    // or fail halfway: refused before anything is written.
    let mut at: BTreeSet<&Path> = BTreeSet::new();
    for p in &planned {
        if !at.insert(&p.path) {
            values.refused.push(format!(
                "two files are written at `{}`",
                visible(&p.path.display().to_string())
            ));
        }
    }
    for p in &planned {
        if let Some(a) = p.path.ancestors().skip(1).find(|a| at.contains(a)) {
            values.refused.push(format!(
                "`{}` would be written inside the file `{}`",
                visible(&p.path.display().to_string()),
                visible(&a.display().to_string())
            ));
        }
    }
    if !values.missing.is_empty() {
        // Every missing value, one per line: the operator fills them all in one go.
        let expected: Vec<String> = values
            .missing
            .iter()
            .map(|m| {
                format!(
                    "  `{}` (the file `{}`)",
                    visible(m),
                    visible(&secrets.join(m).display().to_string())
                )
            })
            .collect();
        return Err(Fail::Refused(format!(
            "no value for {} secret{} of node `{}` (`meshc secrets` mints what can be minted and lists the rest):\n{}",
            expected.len(),
            if expected.len() == 1 { "" } else { "s" },
            visible(&manifest.node),
            expected.join("\n")
        )));
    }
    let mut seen = BTreeSet::new();
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
    for (path, _, _) in &directories {
        directory_in_the_way(path)?;
    }
    let digests = digests(&planned, &services);
    Ok(Prepared {
        manifest,
        json,
        planned,
        directories,
        digests,
    })
}

/// Writes what [`prepare`] planned: the files folder switched in whole, then the
/// directory requirements' folders.
pub fn commit(prepared: &Prepared, root: &Path) -> Result<Rendered, Fail> {
    let Prepared {
        planned,
        directories,
        digests,
        ..
    } = prepared;
    let mesh_existed = root.join(".mesh").exists();
    write_tree(root, planned, digests).inspect_err(|_| {
        if !mesh_existed {
            // Made by this run and left empty by the failure: removed, so a refusal
            // leaves the root as it was.
            let _ = fs::remove_dir(root.join(".mesh"));
        }
    })?;
    let live = files_dir(&root.display().to_string());
    let mut made: Vec<String> = Vec::new();
    for (path, owner, mode) in directories {
        if let Err(f) = make_directory(path, *owner, *mode) {
            let why = f.into_sentence();
            let pending: Vec<String> = directories
                .iter()
                .skip(made.len())
                .map(|(p, _, _)| format!("`{}`", visible(&p.display().to_string())))
                .collect();
            return Err(Fail::Left(format!(
                "{why}\nthe files were written and switched in at `{}`; the directories {} were made; {} not",
                visible(&live),
                if made.is_empty() {
                    "none".to_string()
                } else {
                    made.join(", ")
                },
                pending.join(", ")
            )));
        }
        made.push(format!("`{}`", visible(&path.display().to_string())));
    }
    Ok(Rendered {
        files: planned.len(),
    })
}

/// The digest of each service's rendered files: over each file's path, owner, group,
/// mode and bytes, so any change to what a container binds changes it. A digest, never a
/// value: `.mesh` is root's alone, and a value is not read back from it.
fn digests(planned: &[Planned], services: &BTreeSet<String>) -> BTreeMap<String, String> {
    use sha2::{Digest, Sha256};
    let mut hashers: BTreeMap<&str, Sha256> = services
        .iter()
        .map(|s| (s.as_str(), Sha256::new()))
        .collect();
    let mut sorted: Vec<&Planned> = planned.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    for p in sorted {
        if let Some(h) = hashers.get_mut(p.service.as_str()) {
            let path = p.path.to_string_lossy();
            h.update((path.len() as u64).to_le_bytes());
            h.update(path.as_bytes());
            h.update(p.owner.to_le_bytes());
            h.update(p.group.to_le_bytes());
            h.update(p.mode.to_le_bytes());
            h.update((p.bytes.len() as u64).to_le_bytes());
            h.update(&p.bytes);
        }
    }
    hashers
        .into_iter()
        .map(|(s, h)| {
            let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
            (s.to_string(), format!("sha256:{hex}"))
        })
        .collect()
}

/// Refuses, before anything is written, what stands where a directory requirement's
/// folder or one of its parents goes: a file, a link, anything but a folder.
fn directory_in_the_way(path: &Path) -> Result<(), Fail> {
    for p in path.ancestors() {
        match fs::symlink_metadata(p) {
            Ok(m) if p == path && (m.file_type().is_symlink() || !m.is_dir()) => {
                return Err(Fail::Refused(format!(
                    "`{}` is in the way of a directory requirement: it is not a folder",
                    visible(&p.display().to_string())
                )));
            }
            Ok(m) if !m.is_dir() && !m.file_type().is_symlink() => {
                return Err(Fail::Refused(format!(
                    "`{}` is in the way of the directory requirement `{}`: it is not a folder",
                    visible(&p.display().to_string()),
                    visible(&path.display().to_string())
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Writes `planned` (paths relative to the files folder, as `/.mesh/files/…`) and the
/// services' digests into a new folder, then switches the `files` link to it and
/// removes the folder it named before.
fn write_tree(
    root: &Path,
    planned: &[Planned],
    digests: &BTreeMap<String, String>,
) -> Result<(), Fail> {
    let mesh = root.join(".mesh");
    let live = PathBuf::from(files_dir(&root.display().to_string()));
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
        let index = serde_json::to_vec_pretty(digests).unwrap_or_default();
        let files = planned
            .iter()
            .map(|p| {
                let rel = p
                    .path
                    .strip_prefix("/.mesh/files")
                    .expect("planned paths are under the files folder");
                (fresh.join(rel), &p.bytes[..], p.owner, p.group, p.mode)
            })
            .chain(std::iter::once((
                fresh.join(DIGESTS),
                &index[..],
                0,
                0,
                0o400,
            )));
        for (path, bytes, owner, group, mode) in files {
            // Every part below `fresh` was checked as a name, and `fresh` is this run's
            // own 0700 folder: nothing here is a link, and nothing leads out of it.
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
                .custom_flags(libc::O_NOFOLLOW)
                .mode(0o600)
                .open(&path)
                .map_err(|e| io("write", &path, &e))?;
            f.write_all(bytes)
                .and_then(|_| f.sync_all())
                .map_err(|e| io("write", &path, &e))?;
            std::os::unix::fs::fchown(&f, Some(owner), Some(group))
                .map_err(|e| io(&format!("give owner {owner}:{group} to"), &path, &e))?;
            f.set_permissions(fs::Permissions::from_mode(mode & 0o777))
                .map_err(|e| io("set the mode of", &path, &e))?;
        }
        // The switch: a new link beside `files`, renamed over it in one step.
        let previous = match fs::symlink_metadata(&live) {
            Ok(m) if m.file_type().is_symlink() => fs::read_link(&live).ok(),
            Ok(_) => {
                return Err(Fail::Refused(format!(
                    "`{}` is not the link `meshc render` keeps there; move it away",
                    visible(&live.display().to_string())
                )));
            }
            Err(_) => None,
        };
        let link = mesh.join(format!(".files.link-{}", std::process::id()));
        let _ = fs::remove_file(&link);
        std::os::unix::fs::symlink(&stamp, &link).map_err(|e| io("create", &link, &e))?;
        if let Err(e) = fs::rename(&link, &live) {
            let _ = fs::remove_file(&link);
            return Err(io("switch", &live, &e));
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
                visible(&path.display().to_string())
            )));
        }
        Ok(_) => {}
        Err(_) => fs::DirBuilder::new()
            .mode(0o700)
            .create(path)
            .map_err(|e| io("create", path, &e))?,
    }
    // `lchown`: should the folder have been replaced by a link since, the link is
    // changed, never what it leads to.
    std::os::unix::fs::lchown(path, Some(owner), Some(owner))
        .map_err(|e| io(&format!("give owner {owner} to"), path, &e))?;
    if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(Fail::Refused(format!(
            "`{}` became a link while it was made",
            visible(&path.display().to_string())
        )));
    }
    fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o777))
        .map_err(|e| io("set the mode of", path, &e))
}
