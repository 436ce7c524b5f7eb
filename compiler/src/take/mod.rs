//! Taking a module over (LANGUAGE.md §13, ADR 0163): the host report a survey writes,
//! the comparison `meshc take` previews (every container of the instance beside what
//! runs), its digest, the cutover plan `--yes` writes, and the genesis plan. Pure: the
//! caller reads the report and the clock and writes the plan.
//!
//! Nothing found reaches a row, a finding or a plan where it could be a secret (LANGUAGE.md
//! §14.5): a sealed file is compared on its template line by line, and of its found text
//! only whether each line matches is shown; a plain file's value on a line whose key names
//! a secret is `‹masked›`; the environment is compared by name.

pub mod diff;
pub mod genesis;
pub mod report;
pub mod time;

use crate::diagnostics::Code;
use crate::emit::{Container, File, Instance, Manifest, Requirement, TemplateRef};
use report::{FoundContainer, FoundFile, HostReport};
use serde::Serialize;
use serde_json::{Value as Json, json};
use sha2::{Digest, Sha256};

/// How a secret part of a sealed file is shown.
pub const SEALED: &str = "‹sealed›";

/// The overrides and matches of one `meshc take`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Options {
    /// `--downgrade`: an older declared image is taken all the same (waives E0603).
    pub downgrade: bool,
    /// `--replace PATH`: these declared files replace their differing originals (E0605).
    pub replace: Vec<String>,
    /// `--mint REQUIREMENT`: these secrets are minted although data was found (E0606).
    pub mint: Vec<String>,
    /// `--match DECLARED=FOUND`: a declared container found under another name.
    #[serde(rename = "match")]
    pub matches: Vec<(String, String)>,
}

/// What a row of the comparison comes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Declared and found agree.
    Same,
    /// They differ, and the difference is said (a warning or a note), not refused.
    Said,
    /// Refused: the take cannot go on without an override.
    Refused,
    /// Refused by default, and waived by the override named in the row.
    Waived,
    /// Declared, and nothing was found: it is raised new.
    New,
}

/// One line of the comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// The declared container it is about (empty for the instance as a whole).
    pub container: String,
    /// `container`, `name`, `image`, `file`, `owner`, `user`, `env`, `secret`, `port`,
    /// `network`, `mount` or `data`.
    pub what: &'static str,
    /// The file path, port, network or requirement the row is about.
    pub subject: String,
    pub declared: Json,
    pub found: Json,
    pub outcome: Outcome,
    /// The code said or refused, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<&'static str>,
    /// The difference in a sentence.
    pub note: String,
    /// A unified diff from the kept original to the declared file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// A diagnostic of the preview: its code and message (the caller builds it with
/// [`crate::diagnostics::rules::TakeFinding`], which gives the help, and places it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: Code,
    pub message: String,
}

/// The preview of one take: its rows, what it says or refuses, and its digest.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub node: String,
    pub instance: String,
    pub rows: Vec<Row>,
    pub findings: Vec<Finding>,
    /// `sha256:<hex>` over the canonical JSON of the comparison, the report and the
    /// manifest's digest.
    pub digest: String,
}

impl Preview {
    /// Whether anything refuses the take.
    pub fn refuses(&self) -> bool {
        self.rows.iter().any(|r| r.outcome == Outcome::Refused)
    }
}

/// Compares `instance` of `manifest` with the node as `report` found it.
/// `report_value` is the report's JSON as read (the digest covers it whole).
pub fn preview(
    manifest: &Manifest,
    instance: &Instance,
    report: &HostReport,
    report_value: &Json,
    options: &Options,
) -> Preview {
    let mut c = Comparison {
        instance,
        report,
        options,
        rows: Vec::new(),
        findings: Vec::new(),
        value_found: Vec::new(),
    };
    for container in &instance.containers {
        c.container(container);
    }
    c.secrets();
    let rows = c.rows;
    let findings = c.findings;
    let digest = preview_digest(manifest, instance, report_value, options, &rows);
    Preview {
        node: manifest.node.clone(),
        instance: instance.instance.clone(),
        rows,
        findings,
        digest,
    }
}

fn preview_digest(
    manifest: &Manifest,
    instance: &Instance,
    report_value: &Json,
    options: &Options,
    rows: &[Row],
) -> String {
    let whole = json!({
        "node": manifest.node,
        "instance": instance.instance,
        "manifest": manifest.digest,
        "report": report_value,
        "options": options,
        "rows": rows,
    });
    let bytes = crate::emit::canonical::to_canonical_bytes(&whole)
        .expect("a preview has no float and no key that is not text");
    let hash = Sha256::digest(&bytes);
    let mut hex = String::from("sha256:");
    for b in hash.iter() {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

struct Comparison<'a> {
    instance: &'a Instance,
    report: &'a HostReport,
    options: &'a Options,
    rows: Vec<Row>,
    findings: Vec<Finding>,
    /// Requirements minted anew whose found value is in use, with where: a sealed file's
    /// path, or `$NAME` of an env variable.
    value_found: Vec<(String, String)>,
}

impl<'a> Comparison<'a> {
    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        container: &str,
        what: &'static str,
        subject: impl Into<String>,
        declared: Json,
        found: Json,
        outcome: Outcome,
        code: Option<Code>,
        note: String,
    ) -> &mut Row {
        if let Some(code) = code
            && matches!(outcome, Outcome::Refused | Outcome::Said)
        {
            self.findings.push(Finding {
                code,
                message: note.clone(),
            });
        }
        self.rows.push(Row {
            container: container.to_string(),
            what,
            subject: subject.into(),
            declared,
            found,
            outcome,
            code: code.map(Code::as_str),
            note,
            diff: None,
        });
        self.rows.last_mut().expect("just pushed")
    }

    /// The found container a declared one is compared with: `--match`, else its name.
    fn found_name(&self, declared: &str) -> String {
        self.options
            .matches
            .iter()
            .find(|(d, _)| d == declared)
            .map_or_else(|| declared.to_string(), |(_, f)| f.clone())
    }

    fn container(&mut self, declared: &'a Container) {
        let name = declared.name.as_str();
        let found_name = self.found_name(name);
        let report = self.report;
        let Some(found) = report.containers.iter().find(|c| c.name == found_name) else {
            self.row(
                name,
                "container",
                name,
                json!(name),
                Json::Null,
                Outcome::New,
                None,
                format!(
                    "no container `{found_name}` was found on node `{}`: `{name}` is raised new",
                    report.node
                ),
            );
            return;
        };
        // A found container that is not running is no container "as declared": it may
        // have exited because something it needs is missing.
        let (outcome, state) = if found.running {
            (Outcome::Same, "running")
        } else {
            (Outcome::Said, "stopped: it is not running now")
        };
        self.row(
            name,
            "container",
            name,
            json!(name),
            json!({"name": found.name, "id": found.id, "running": found.running}),
            outcome,
            None,
            format!(
                "`{name}` takes over the found container `{}` ({}, {state})",
                found.name,
                short_id(&found.id),
            ),
        );
        if found.name != name {
            self.row(
                name,
                "name",
                name,
                json!(name),
                json!(found.name),
                Outcome::Said,
                None,
                format!("the found container `{}` is renamed `{name}`", found.name),
            );
        }
        self.image(declared, found);
        for f in &declared.files {
            self.file(declared, found, f);
        }
        self.user(declared, found);
        self.env(declared, found);
        self.ports(declared, found);
        self.networks(declared, found);
        self.mounts(declared, found);
        self.data(declared, found);
    }

    /// The user the container runs as, when the report says it (§14.5).
    fn user(&mut self, declared: &Container, found: &FoundContainer) {
        let Some(found_user) = &found.user else {
            return;
        };
        let name = declared.name.as_str();
        // `1100` and `1100:GID` run as the same user; `root` is 0; empty is the image's.
        let found_uid = found_user.split(':').next().unwrap_or("");
        let found_uid = if found_uid == "root" { "0" } else { found_uid };
        let declared_text = declared.user.map(|u| u.to_string());
        let same = match &declared_text {
            Some(d) => d == found_uid,
            None => found_uid.is_empty(),
        };
        let shown = |u: Option<&str>| match u {
            Some(u) if !u.is_empty() => format!("`{u}`"),
            _ => "the image's user".to_string(),
        };
        let (outcome, note) = if same {
            (
                Outcome::Same,
                format!("`{name}` runs as {}", shown(declared_text.as_deref())),
            )
        } else {
            (
                Outcome::Said,
                format!(
                    "the found `{}` runs as {}; `{name}` runs as {}",
                    found.name,
                    shown(Some(found_user)),
                    shown(declared_text.as_deref())
                ),
            )
        };
        self.row(
            name,
            "user",
            name,
            json!(declared.user),
            json!(found_user),
            outcome,
            None,
            note,
        );
    }

    /// The environment by name (never by value): a found variable the module no longer
    /// sets, or now delivers as a file (§14.5).
    fn env(&mut self, declared: &Container, found: &FoundContainer) {
        let Some(names) = &found.env_names else {
            return;
        };
        let name = declared.name.as_str();
        for var in names {
            if let Some(value) = declared.env.get(var) {
                // A variable still set from a secret minted anew holds a value in use.
                let makers: Vec<&crate::emit::InstanceRef> = match value {
                    crate::emit::EnvValue::Sealed(s) => vec![&s.sealed.by],
                    crate::emit::EnvValue::Template(t) => t
                        .references
                        .values()
                        .filter_map(|r| match r {
                            TemplateRef::Sealed { sealed } => Some(&sealed.by),
                            TemplateRef::Value { .. } => None,
                        })
                        .collect(),
                    crate::emit::EnvValue::Text(_) => Vec::new(),
                };
                if let Some(req) = self.minted_by(makers.into_iter()) {
                    self.value_found.push((req, format!("${var}")));
                }
                continue;
            }
            let as_file = [
                format!("{var}_FILE"),
                format!("{var}__FILE"),
                format!("FILE__{var}"),
            ]
            .into_iter()
            .find(|f| declared.env.contains_key(f));
            let note = match &as_file {
                Some(f) => format!(
                    "`{var}` of the found `{}` is now delivered as a file (`{f}`)",
                    found.name
                ),
                None => format!("`{var}` of the found `{}` is no longer set", found.name),
            };
            self.row(
                name,
                "env",
                var,
                json!({"file": as_file}),
                json!({"set": true}),
                Outcome::Said,
                None,
                note,
            );
        }
    }

    /// The owner, group and mode of each declared data directory's found host directory,
    /// which render sets to the declared ones (§14.5).
    fn data(&mut self, declared: &Container, found: &FoundContainer) {
        let name = declared.name.as_str();
        for m in &declared.mounts {
            let Some(d) = self.instance.requirements.values().find_map(|r| match r {
                Requirement::Directory(d) if d.path == m.host => Some(d),
                _ => None,
            }) else {
                continue;
            };
            let Some(entry) = self
                .report
                .data
                .iter()
                .find(|e| e.container == found.name && e.path == m.container)
            else {
                continue;
            };
            let (Some(owner), Some(mode)) = (entry.owner, &entry.mode) else {
                continue;
            };
            let group = entry.group.unwrap_or(owner);
            // Render gives a directory its owner as group too.
            let same_owner = i64::from(owner) == d.owner && i64::from(group) == d.owner;
            let same_mode = *mode == d.mode;
            let declared_json = json!({"owner": d.owner, "group": d.owner, "mode": d.mode});
            let found_json = json!({"owner": owner, "group": group, "mode": mode});
            if same_owner && same_mode {
                self.row(
                    name,
                    "data",
                    &m.container,
                    declared_json,
                    found_json,
                    Outcome::Same,
                    None,
                    format!(
                        "`{}` (`{}`) is owned by {owner}:{group}, mode {mode}, as declared",
                        m.container, m.host
                    ),
                );
                continue;
            }
            let mut changes = Vec::new();
            if !same_owner {
                changes.push(format!(
                    "its owner from {owner}:{group} to {}:{}",
                    d.owner, d.owner
                ));
            }
            if !same_mode {
                changes.push(format!("its mode from {mode} to {}", d.mode));
            }
            self.row(
                name,
                "data",
                &m.container,
                declared_json,
                found_json,
                Outcome::Said,
                None,
                format!(
                    "render will change `{}` (`{}`): {}",
                    m.container,
                    m.host,
                    changes.join(" and ")
                ),
            );
        }
    }

    fn image(&mut self, declared: &Container, found: &FoundContainer) {
        let name = declared.name.as_str();
        let report = self.report;
        let declared_created = report
            .images
            .iter()
            .find(|im| im.reference == declared.image)
            .and_then(|im| im.created.clone())
            .or_else(|| {
                (declared.image == found.image)
                    .then(|| found.image_created.clone())
                    .flatten()
            });
        let d = json!({"ref": declared.image, "created": declared_created});
        let f = json!({"ref": found.image, "created": found.image_created});
        let (Some(dc), Some(fc)) = (
            declared_created.as_deref().and_then(time::parse_rfc3339),
            found.image_created.as_deref().and_then(time::parse_rfc3339),
        ) else {
            let which = if declared_created.is_none() {
                if report
                    .images
                    .iter()
                    .any(|im| im.reference == declared.image)
                {
                    format!(
                        "the declared image `{}` has no creation date on node `{}`",
                        declared.image, report.node
                    )
                } else {
                    format!(
                        "the declared image `{}` is not on node `{}`, so it has no date",
                        declared.image, report.node
                    )
                }
            } else {
                format!(
                    "the running image `{}` of `{}` has no creation date",
                    found.image, found.name
                )
            };
            self.row(
                name,
                "image",
                &declared.image,
                d,
                f,
                Outcome::Refused,
                Some(Code::E0604),
                format!("{which}: older and newer cannot be told apart"),
            );
            return;
        };
        if dc < fc {
            let note = format!(
                "the declared image `{}` ({}) is older than the running `{}` ({})",
                declared.image,
                time::format_rfc3339(dc),
                found.image,
                time::format_rfc3339(fc)
            );
            if self.options.downgrade {
                self.row(
                    name,
                    "image",
                    &declared.image,
                    d,
                    f,
                    Outcome::Waived,
                    Some(Code::E0603),
                    format!("{note}; downgraded by --downgrade"),
                );
            } else {
                self.row(
                    name,
                    "image",
                    &declared.image,
                    d,
                    f,
                    Outcome::Refused,
                    Some(Code::E0603),
                    note,
                );
            }
        } else if declared.image == found.image && dc == fc {
            self.row(
                name,
                "image",
                &declared.image,
                d,
                f,
                Outcome::Same,
                None,
                // The dates as the report has them (the JSON rows carry the same).
                format!(
                    "`{}` ({}) runs already",
                    declared.image,
                    declared_created.as_deref().unwrap_or_default()
                ),
            );
        } else {
            let how = if dc > fc { "newer than" } else { "as old as" };
            self.row(
                name,
                "image",
                &declared.image,
                d,
                f,
                Outcome::Said,
                None,
                format!(
                    "the declared image `{}` ({}) is {how} the running `{}` ({})",
                    declared.image,
                    declared_created.as_deref().unwrap_or_default(),
                    found.image,
                    found.image_created.as_deref().unwrap_or_default()
                ),
            );
        }
    }

    fn file(&mut self, declared: &Container, found: &FoundContainer, f: &File) {
        let name = declared.name.as_str();
        let report = self.report;
        let path = f.target.as_str();
        let Some(original) = report
            .files
            .iter()
            .find(|x| x.container == found.name && x.path == path)
        else {
            self.row(
                name,
                "file",
                path,
                json!({"mode": f.mode, "owner": f.owner, "group": f.group}),
                Json::Null,
                Outcome::New,
                None,
                format!(
                    "`{path}` was not found in `{}`: it is written new",
                    found.name
                ),
            );
            return;
        };
        let found_json = json!({"mode": original.mode, "owner": original.owner, "group": original.group, "digest": original.digest});
        let declared_json = json!({"mode": f.mode, "owner": f.owner, "group": f.group, "sealed": f.template.is_some()});
        let pattern = Template::of(f);
        // What may be shown of each side: of a sealed file, no found text at all; of a
        // plain one, no value whose key names a secret (on both sides, so a value that
        // differs is not told by the diff either).
        let (equal, shown_found, shown_declared) = match (&original.content, pattern.is_sealed()) {
            (Some(text), true) => (
                pattern.matches(text),
                Some(pattern.sealed_view(text)),
                pattern.shown(),
            ),
            (Some(text), false) => {
                let declared_text = f.content.clone().unwrap_or_default();
                // A report masks what could be a secret; the digest is over the real bytes.
                let equal = if text.contains(MASKED) {
                    sha256_text(&declared_text) == original.digest
                } else {
                    *text == declared_text
                };
                (equal, Some(mask_plain(text)), mask_plain(&declared_text))
            }
            (None, _) => match &f.content {
                Some(content) => (sha256_text(content) == original.digest, None, String::new()),
                None => (false, None, String::new()),
            },
        };
        if equal {
            let minted_here = self.minted_for(f);
            let mut note = format!("`{path}` is as declared");
            if original.mode != f.mode {
                note.push_str(&format!(
                    "; its mode changes from {} to {}",
                    original.mode, f.mode
                ));
            }
            if let Some(req) = &minted_here {
                // The found file holds a value in use: the take replaces it with a new one.
                self.value_found.push((req.clone(), path.to_string()));
                note.push_str(&format!(
                    "; its secret part will hold the newly minted `{req}`, not the value it holds now"
                ));
            }
            let outcome = if original.mode == f.mode && minted_here.is_none() {
                Outcome::Same
            } else {
                Outcome::Said
            };
            self.row(
                name,
                "file",
                path,
                declared_json,
                found_json,
                outcome,
                None,
                note,
            );
            self.owner(name, found, f, original);
            return;
        }
        let diff = shown_found.map(|old| {
            let d = diff::unified(
                &old,
                &shown_declared,
                &format!("{path} (kept original in {})", found.name),
                &format!("{path} (declared)"),
            );
            if d.is_empty() {
                // Equal once masked: the values that differ are the ones not shown.
                format!(
                    "--- {path} (kept original in {})\n+++ {path} (declared)\n@@ a value not shown differs (its key names a secret) @@\n",
                    found.name
                )
            } else {
                d
            }
        });
        let note = match &diff {
            Some(_) => format!(
                "`{path}` differs from the kept original in `{}`",
                found.name
            ),
            None => format!(
                "`{path}` differs from the kept original in `{}` (its text could not be read; the digests differ)",
                found.name
            ),
        };
        let replaced = self.options.replace.iter().any(|r| r == path);
        let row = if replaced {
            self.row(
                name,
                "file",
                path,
                declared_json,
                found_json,
                Outcome::Waived,
                Some(Code::E0605),
                format!("{note}; replaced by --replace"),
            )
        } else {
            self.row(
                name,
                "file",
                path,
                declared_json,
                found_json,
                Outcome::Refused,
                Some(Code::E0605),
                note,
            )
        };
        row.diff = diff.clone();
        if let (Some(d), false) = (diff, replaced)
            && let Some(last) = self.findings.last_mut()
        {
            last.message = format!("{}:\n{}", last.message, d.trim_end());
        }
        self.owner(name, found, f, original);
    }

    /// W0604: a taken file whose owner or group changes (render writes the declared ones).
    fn owner(&mut self, name: &str, found: &FoundContainer, f: &File, original: &FoundFile) {
        let (owner, group) = (i64::from(original.owner), i64::from(original.group));
        if owner == f.owner && group == f.group {
            return;
        }
        self.row(
            name,
            "owner",
            &f.target,
            json!({"owner": f.owner, "group": f.group}),
            json!({"owner": original.owner, "group": original.group}),
            Outcome::Said,
            Some(Code::W0604),
            format!(
                "`{}` in `{}` is owned by {owner}:{group} and will be owned by {}:{}",
                f.target, found.name, f.owner, f.group
            ),
        );
    }

    /// The requirement minted anew (not accepted) whose secret the sealed file `f` reads.
    fn minted_for(&self, f: &File) -> Option<String> {
        self.minted_by(f.references.iter().flatten().filter_map(|(_, r)| match r {
            TemplateRef::Sealed { sealed } => Some(&sealed.by),
            TemplateRef::Value { .. } => None,
        }))
    }

    /// The requirement minted anew (not accepted) that one of `makers` provides.
    fn minted_by<'r>(
        &self,
        makers: impl Iterator<Item = &'r crate::emit::InstanceRef>,
    ) -> Option<String> {
        let makers: Vec<&crate::emit::InstanceRef> = makers.collect();
        self.instance
            .requirements
            .iter()
            .find_map(|(req, r)| match r {
                Requirement::Module(m)
                    if makers.contains(&&m.provider)
                        && !self.report.accepted.iter().any(|a| {
                            a.instance == self.instance.instance && a.requirement == *req
                        }) =>
                {
                    Some(req.clone())
                }
                _ => None,
            })
    }

    fn ports(&mut self, declared: &Container, found: &FoundContainer) {
        let name = declared.name.as_str();
        for p in &declared.ports {
            let subject = format!("{}/{}", p.container, p.protocol);
            let matching: Vec<_> = found
                .ports
                .iter()
                .filter(|f| i64::from(f.container_port) == p.container && f.protocol == p.protocol)
                .collect();
            let d = json!({"host": p.host, "reach": p.reach});
            if matching.is_empty() {
                self.row(name, "port", subject, d, Json::Null, Outcome::New, None, format!("container port {}/{} was not published: it is published on host port {} ({})", p.container, p.protocol, p.host, p.reach));
                continue;
            }
            let public = matching.iter().any(|f| f.is_public());
            let found_json = json!(
                matching
                    .iter()
                    .map(|f| json!({"host_ip": f.host_ip, "host_port": f.host_port}))
                    .collect::<Vec<_>>()
            );
            if public && p.reach == "private" {
                self.row(
                    name,
                    "port",
                    subject,
                    d,
                    found_json,
                    Outcome::Said,
                    Some(Code::W0601),
                    format!(
                        "container port {}/{} of `{}` is published on all addresses and becomes private (host port {}): clients outside the private network lose it",
                        p.container, p.protocol, found.name, p.host
                    ),
                );
            } else if matching.iter().any(|f| i64::from(f.host_port) != p.host) {
                let was: Vec<String> = matching.iter().map(|f| f.host_port.to_string()).collect();
                self.row(
                    name,
                    "port",
                    subject,
                    d,
                    found_json,
                    Outcome::Said,
                    None,
                    format!(
                        "container port {}/{} moves from host port {} to {}",
                        p.container,
                        p.protocol,
                        crate::diagnostics::capped_list(&was),
                        p.host
                    ),
                );
            } else {
                self.row(
                    name,
                    "port",
                    subject,
                    d,
                    found_json,
                    Outcome::Same,
                    None,
                    format!(
                        "container port {}/{} stays on host port {}",
                        p.container, p.protocol, p.host
                    ),
                );
            }
        }
        for f in &found.ports {
            if !declared
                .ports
                .iter()
                .any(|p| p.container == i64::from(f.container_port) && p.protocol == f.protocol)
            {
                self.row(
                    name,
                    "port",
                    format!("{}/{}", f.container_port, f.protocol),
                    Json::Null,
                    json!({"host_ip": f.host_ip, "host_port": f.host_port}),
                    Outcome::Said,
                    None,
                    format!(
                        "container port {}/{} (host port {}) is no longer published",
                        f.container_port, f.protocol, f.host_port
                    ),
                );
            }
        }
    }

    fn networks(&mut self, declared: &Container, found: &FoundContainer) {
        let name = declared.name.as_str();
        for n in &found.networks {
            let others: Vec<&str> = n
                .members
                .iter()
                .map(String::as_str)
                .filter(|m| *m != found.name)
                .collect();
            let found_json = json!({"name": n.name, "members": n.members});
            match declared.networks.iter().find(|d| d.name == n.name) {
                Some(d) if d.kept => {
                    self.row(
                        name,
                        "network",
                        &n.name,
                        json!({"name": d.name, "kept": true}),
                        found_json,
                        Outcome::Said,
                        Some(Code::W0603),
                        format!(
                            "`{name}` stays on the found network `{}` (keep_network){}",
                            n.name,
                            members_phrase(&others)
                        ),
                    );
                }
                Some(d) => {
                    self.row(
                        name,
                        "network",
                        &n.name,
                        json!({"name": d.name}),
                        found_json,
                        Outcome::Same,
                        None,
                        format!("`{name}` stays on its own network `{}`", n.name),
                    );
                }
                None if others.is_empty() => {
                    self.row(
                        name,
                        "network",
                        &n.name,
                        Json::Null,
                        found_json,
                        Outcome::Said,
                        None,
                        format!(
                            "`{name}` leaves the found network `{}`, where nothing else is",
                            n.name
                        ),
                    );
                }
                None => {
                    self.row(
                        name,
                        "network",
                        &n.name,
                        Json::Null,
                        found_json,
                        Outcome::Said,
                        Some(Code::W0602),
                        format!(
                            "`{name}` leaves the found network `{}`; {} on it may reach `{}` by name and will not",
                            n.name,
                            crate::diagnostics::capped_list(others.iter().map(|m| format!("`{m}`"))),
                            found.name
                        ),
                    );
                }
            }
        }
        for d in &declared.networks {
            if found.networks.iter().any(|n| n.name == d.name) {
                continue;
            }
            if d.kept {
                self.row(name, "network", &d.name, json!({"name": d.name, "kept": true}), Json::Null, Outcome::Said, Some(Code::W0603), format!("`{name}` joins the found network `{}` (keep_network), which `{}` is not on now", d.name, found.name));
            } else {
                self.row(
                    name,
                    "network",
                    &d.name,
                    json!({"name": d.name}),
                    Json::Null,
                    Outcome::New,
                    None,
                    format!("`{name}` joins its own network `{}`", d.name),
                );
            }
        }
    }

    fn mounts(&mut self, declared: &Container, found: &FoundContainer) {
        let name = declared.name.as_str();
        for m in &declared.mounts {
            let d = json!({"host": m.host, "read_only": m.read_only});
            match found.mounts.iter().find(|f| f.target == m.container) {
                Some(f) if f.source == m.host && f.read_only == m.read_only => {
                    self.row(
                        name,
                        "mount",
                        &m.container,
                        d,
                        json!({"source": f.source, "read_only": f.read_only}),
                        Outcome::Same,
                        None,
                        format!("`{}` stays mounted from `{}`", m.container, m.host),
                    );
                }
                Some(f) => {
                    self.row(
                        name,
                        "mount",
                        &m.container,
                        d,
                        json!({"source": f.source, "read_only": f.read_only}),
                        Outcome::Said,
                        None,
                        format!(
                            "`{}` is mounted from `{}`{} instead of `{}`{}",
                            m.container,
                            m.host,
                            ro(m.read_only),
                            f.source,
                            ro(f.read_only)
                        ),
                    );
                }
                None => {
                    self.row(
                        name,
                        "mount",
                        &m.container,
                        d,
                        Json::Null,
                        Outcome::Said,
                        None,
                        format!(
                            "`{}` was not mounted in `{}`: it is mounted from `{}`",
                            m.container, found.name, m.host
                        ),
                    );
                }
            }
        }
        for f in &found.mounts {
            if !declared.mounts.iter().any(|m| m.container == f.target) {
                self.row(
                    name,
                    "mount",
                    &f.target,
                    Json::Null,
                    json!({"source": f.source, "read_only": f.read_only}),
                    Outcome::Said,
                    None,
                    format!("`{}` (from `{}`) is no longer mounted", f.target, f.source),
                );
            }
        }
    }

    /// E0606: a secret the mesh would mint for this instance, not accepted, while the
    /// service's data was found.
    fn secrets(&mut self) {
        let instance = self.instance;
        let report = self.report;
        let found_names: Vec<String> = instance
            .containers
            .iter()
            .map(|c| self.found_name(&c.name))
            .collect();
        let data: Vec<&str> = report
            .data
            .iter()
            .filter(|d| !d.empty && found_names.contains(&d.container))
            .map(|d| d.path.as_str())
            .collect();
        let value_found = std::mem::take(&mut self.value_found);
        for (req, provider) in minted(instance) {
            let accepted = report
                .accepted
                .iter()
                .any(|a| a.instance == instance.instance && a.requirement == req);
            let d = json!({"provider": provider});
            let found = json!({"accepted": accepted, "data": data});
            if accepted {
                self.row(
                    "",
                    "secret",
                    &req,
                    d,
                    found,
                    Outcome::Same,
                    None,
                    format!("`{req}` takes the value found on the node (accepted)"),
                );
            } else if data.is_empty() && !value_found.iter().any(|(r, _)| *r == req) {
                self.row(
                    "",
                    "secret",
                    &req,
                    d,
                    found,
                    Outcome::New,
                    None,
                    format!("`{req}` is minted by `{provider}`: no data of the service and no file holding its value was found"),
                );
            } else {
                let held: Vec<String> = value_found
                    .iter()
                    .filter(|(r, _)| *r == req)
                    .map(|(_, p)| format!("`{p}`"))
                    .collect();
                let place = match (data.is_empty(), held.is_empty()) {
                    (false, true) => format!(
                        "the service's data was found at {}",
                        crate::diagnostics::capped_list(data.iter().map(|p| format!("`{p}`")))
                    ),
                    (true, _) => format!(
                        "the found {} already {} a value of it",
                        crate::diagnostics::capped_list(&held),
                        if held.len() == 1 { "holds" } else { "hold" }
                    ),
                    (false, false) => format!(
                        "the service's data was found at {}, and the found {} already {} a value of it",
                        crate::diagnostics::capped_list(data.iter().map(|p| format!("`{p}`"))),
                        crate::diagnostics::capped_list(&held),
                        if held.len() == 1 { "holds" } else { "hold" }
                    ),
                };
                let note = format!(
                    "`{req}` of `{}` would be minted by `{provider}`, but {place}: it already has a value",
                    instance.instance,
                );
                if self.options.mint.contains(&req) {
                    self.row(
                        "",
                        "secret",
                        &req,
                        d,
                        found,
                        Outcome::Waived,
                        Some(Code::E0606),
                        format!("{note}; minted by --mint"),
                    );
                } else {
                    self.row(
                        "",
                        "secret",
                        &req,
                        d,
                        found,
                        Outcome::Refused,
                        Some(Code::E0606),
                        note,
                    );
                }
            }
        }
    }
}

/// The module requirements whose secret this instance reads (a sealed reference made by
/// their provider): what the mesh mints for it. (requirement, provider instance).
pub fn minted(instance: &Instance) -> Vec<(String, String)> {
    let mut makers: Vec<crate::emit::InstanceRef> = Vec::new();
    let mut note = |r: &TemplateRef| {
        if let TemplateRef::Sealed { sealed } = r {
            makers.push(sealed.by.clone());
        }
    };
    for c in &instance.containers {
        for s in &c.secrets {
            if let Some(sealed) = &s.sealed {
                note(&TemplateRef::Sealed {
                    sealed: sealed.clone(),
                });
            }
            s.references.iter().flatten().for_each(|(_, r)| note(r));
        }
        for f in &c.files {
            f.references.iter().flatten().for_each(|(_, r)| note(r));
        }
        for v in c.env.values() {
            match v {
                crate::emit::EnvValue::Sealed(s) => note(&TemplateRef::Sealed {
                    sealed: s.sealed.clone(),
                }),
                crate::emit::EnvValue::Template(t) => t.references.values().for_each(&mut note),
                crate::emit::EnvValue::Text(_) => {}
            }
        }
    }
    instance
        .requirements
        .iter()
        .filter_map(|(name, r)| match r {
            Requirement::Module(m) if makers.contains(&m.provider) => {
                Some((name.clone(), m.provider.instance.clone()))
            }
            _ => None,
        })
        .collect()
}

fn members_phrase(others: &[&str]) -> String {
    if others.is_empty() {
        String::new()
    } else {
        format!(
            "; {} on it keep reaching it by name",
            crate::diagnostics::capped_list(others.iter().map(|m| format!("`{m}`")))
        )
    }
}

fn ro(read_only: bool) -> &'static str {
    if read_only { " (read-only)" } else { "" }
}

fn short_id(id: &str) -> &str {
    let id = id.strip_prefix("sha256:").unwrap_or(id);
    id.get(..12).unwrap_or(id)
}

/// `sha256:<hex>` of a text.
pub fn sha256_text(text: &str) -> String {
    let hash = Sha256::digest(text.as_bytes());
    let mut hex = String::from("sha256:");
    for b in hash.iter() {
        hex.push_str(&format!("{b:02x}"));
    }
    hex
}

/// How a plain file's value is shown where its key names a secret.
pub const MASKED: &str = "‹masked›";

/// What a line of a found sealed file that matches no declared line shows instead of its
/// text: its line number only.
fn unmatched(line: usize) -> String {
    format!("‹sealed: line {line} is not as declared›")
}

fn is_unmatched(line: &str) -> bool {
    line.starts_with("‹sealed: line ") && line.ends_with(" is not as declared›")
}

/// The found text of a declared file as a report or an output may hold it (LANGUAGE.md
/// §14.5: nothing found is shown where it could be a secret). Of a sealed file no found
/// text at all: each line is the declared line it matches (its secret parts `‹sealed›`),
/// or a marker that it matches none. Of a plain file, the value of each line whose key
/// names a secret (or whose value is a URL with a password) is `‹masked›`. A masked sealed
/// file still compares equal where the file is as declared; the digest is over the real
/// bytes.
pub fn mask_found(declared: &File, found: &str) -> String {
    let t = Template::of(declared);
    if t.is_sealed() {
        t.sealed_view(found)
    } else {
        mask_plain(found)
    }
}

/// Whether an environment variable or a configuration key names a secret: the name rules
/// of `import compose`, called here only (one place to follow them as they grow).
pub fn secret_key(name: &str) -> bool {
    crate::import::secrets::secret_name(name)
}

/// A plain text with the value of every line that could hold a secret shown as
/// `‹masked›`: `KEY=value`, `key: value`, `key = value`, `"key": "value"`, `key<TAB>value`
/// and `export KEY=value`, in any case, where the key names a secret; and any line whose
/// value has the shape of one (a URL with credentials, a bearer token, a key of a known
/// shape: `import::secrets::secret_value`, the rules `import compose` follows).
pub fn mask_plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match secret_value_at(line) {
            Some(at) => {
                out.push_str(&line[..at]);
                out.push_str(MASKED);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Where the value of `line` starts when it could be a secret (see [`mask_plain`]).
fn secret_value_at(line: &str) -> Option<usize> {
    // A commented-out line is a line too (`# password = …`).
    let body = line
        .trim_start()
        .trim_start_matches(['#', ';', '/'])
        .trim_start();
    let mut at = line.len() - body.len();
    let body = match body.strip_prefix("export ") {
        Some(rest) => {
            at += "export ".len();
            rest
        }
        None => body,
    };
    let quote = body.starts_with(['"', '\'']);
    let key_start = usize::from(quote);
    let key_len = body[key_start..]
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .unwrap_or(body.len() - key_start);
    let key = &body[key_start..key_start + key_len];
    let mut rest_at = key_start
        + key_len
        + usize::from(quote && body[key_start + key_len..].starts_with(['"', '\'']));
    // The separator: blanks, one `=` or `:`, blanks; or blanks alone (`key<TAB>value`).
    let rest = &body[rest_at..];
    let blanks = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let after_blanks = &rest[blanks..];
    let sep = if after_blanks.starts_with(['=', ':']) {
        let more = &after_blanks[1..];
        blanks + 1 + (more.len() - more.trim_start_matches([' ', '\t']).len())
    } else {
        blanks
    };
    rest_at += sep;
    let value = body[rest_at..].trim_end_matches('\r');
    if sep == 0 || value.trim().is_empty() {
        // No separator: a whole line that is a URL with a password still is one.
        let whole = body.trim();
        return (!whole.is_empty() && crate::import::secrets::secret_value(whole)).then_some(at);
    }
    let unquoted = value.trim().trim_matches(['"', '\'', ',']);
    let secret =
        (!key.is_empty() && secret_key(key)) || crate::import::secrets::secret_value(unquoted);
    secret.then_some(at + rest_at)
}

/// A declared file as a pattern: literal text, and secret parts that match any text
/// within one line.
struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Sealed,
}

impl Template {
    /// A plain file is one literal; a sealed one its template, plain references filled in.
    fn of(f: &File) -> Template {
        if let Some(content) = &f.content {
            return Template {
                parts: vec![Part::Text(content.clone())],
            };
        }
        let Some(template) = &f.template else {
            return Template {
                parts: vec![Part::Sealed],
            };
        };
        let references = f.references.clone().unwrap_or_default();
        let mut parts: Vec<Part> = Vec::new();
        let mut text = String::new();
        let mut rest = template.as_str();
        while let Some(at) = rest.find('$') {
            text.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            if let Some(r) = after.strip_prefix('$') {
                text.push('$');
                rest = r;
            } else if let Some(inner) = after.strip_prefix('{')
                // A call's string arguments may hold `}`: the balanced end, as meshc
                // wrote it (LANGUAGE.md §12.4).
                && let Some(end) = crate::syntax::lexer::interp_end(inner.as_bytes(), 0, false)
                    .map(|e| e - 1)
            {
                let name = &inner[..end];
                match references.get(name) {
                    Some(TemplateRef::Value { value }) => text.push_str(value),
                    _ => {
                        parts.push(Part::Text(std::mem::take(&mut text)));
                        parts.push(Part::Sealed);
                    }
                }
                rest = &inner[end + 1..];
            } else {
                text.push('$');
                rest = after;
            }
        }
        text.push_str(rest);
        parts.push(Part::Text(text));
        parts.retain(|p| !matches!(p, Part::Text(t) if t.is_empty()));
        Template { parts }
    }

    fn is_sealed(&self) -> bool {
        self.parts.contains(&Part::Sealed)
    }

    /// The declared text as shown: secret parts as `‹sealed›`.
    fn shown(&self) -> String {
        self.parts
            .iter()
            .map(|p| match p {
                Part::Text(t) => t.as_str(),
                Part::Sealed => SEALED,
            })
            .collect()
    }

    /// The template line by line (split at every `\n`, so a final newline leaves an
    /// empty last line): a secret value never spans a line end.
    fn lines(&self) -> Vec<Vec<Part>> {
        let mut lines: Vec<Vec<Part>> = vec![Vec::new()];
        for p in &self.parts {
            match p {
                Part::Sealed => lines.last_mut().expect("one line").push(Part::Sealed),
                Part::Text(t) => {
                    for (i, piece) in t.split('\n').enumerate() {
                        if i > 0 {
                            lines.push(Vec::new());
                        }
                        if !piece.is_empty() {
                            lines
                                .last_mut()
                                .expect("one line")
                                .push(Part::Text(piece.to_string()));
                        }
                    }
                }
            }
        }
        lines
    }

    /// Whether `text` is this template with some text in each secret part.
    fn matches(&self, text: &str) -> bool {
        let lines = self.lines();
        let found: Vec<&str> = text.split('\n').collect();
        lines.len() == found.len() && lines.iter().zip(&found).all(|(p, l)| line_matches(p, l))
    }

    /// A found sealed file as it may be shown: each line the declared line it matches
    /// (the one at its place first), shown with `‹sealed›`, or a marker with its number.
    fn sealed_view(&self, found: &str) -> String {
        let lines = self.lines();
        let shown: Vec<String> = lines.iter().map(|l| shown_line(l)).collect();
        // Literal lines are looked up, only lines with a secret part are tried one by one:
        // linear in the found text, however long the template (LANGUAGE.md §14.6).
        let mut literal: std::collections::HashMap<&str, usize> = Default::default();
        let mut patterned: Vec<usize> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if l.contains(&Part::Sealed) {
                patterned.push(i);
            } else {
                literal.entry(shown[i].as_str()).or_insert(i);
            }
        }
        let mut out = String::with_capacity(found.len());
        for (i, line) in found.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let at = lines
                .get(i)
                .filter(|p| line_matches(p, line))
                .map(|_| i)
                .or_else(|| {
                    (!is_unmatched(line))
                        .then(|| literal.get(line).copied())
                        .flatten()
                })
                .or_else(|| {
                    patterned
                        .iter()
                        .copied()
                        .find(|&at| line_matches(&lines[at], line))
                });
            match at {
                Some(at) => out.push_str(&shown[at]),
                None => out.push_str(&unmatched(i + 1)),
            }
        }
        out
    }
}

fn shown_line(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.as_str(),
            Part::Sealed => SEALED,
        })
        .collect()
}

/// Whether one found line is one declared line, each secret part matching any text. The
/// marker of a line that matched nothing matches nothing.
fn line_matches(parts: &[Part], line: &str) -> bool {
    fn go(parts: &[Part], text: &str) -> bool {
        match parts.split_first() {
            None => text.is_empty(),
            Some((Part::Text(t), rest)) => {
                text.strip_prefix(t.as_str()).is_some_and(|r| go(rest, r))
            }
            Some((Part::Sealed, rest)) => (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .any(|i| go(rest, &text[i..])),
        }
    }
    !is_unmatched(line) && go(parts, line)
}
/// The cutover plan `--yes` writes: what is replaced, where each original is kept, the
/// overrides used. Never a secret: rows carry masked diffs and digests only.
pub fn plan(
    manifest: &Manifest,
    preview: &Preview,
    report: &HostReport,
    options: &Options,
) -> Json {
    let instance = manifest
        .instances
        .iter()
        .find(|i| i.instance == preview.instance);
    let login = instance.map(|i| i.login.as_str()).unwrap_or("");
    let mut containers = Vec::new();
    let mut files = Vec::new();
    for row in &preview.rows {
        match row.what {
            "container" => {
                let found = report.containers.iter().find(|c| {
                    Some(c.name.as_str()) == row.found.get("name").and_then(Json::as_str)
                });
                containers.push(json!({
                    "declared": row.container,
                    "found": found.map(|c| c.name.clone()),
                    "found_id": found.map(|c| c.id.clone()),
                    "action": if found.is_some() { "replace" } else { "create" },
                    "original_kept_as": found.map(|c| format!("{}.found", c.name)),
                }));
            }
            "file" => {
                let found = row.found.is_object();
                let action = match row.outcome {
                    Outcome::Same => "keep",
                    Outcome::New => "create",
                    _ => "replace",
                };
                files.push(json!({
                    "container": row.container,
                    "path": row.subject,
                    "action": action,
                    "original_digest": row.found.get("digest"),
                    "original_kept_at": found.then(|| format!(".mesh/originals/{login}/{}{}", row.container, row.subject)),
                }));
            }
            _ => {}
        }
    }
    json!({
        "node": manifest.node,
        "mesh": manifest.mesh,
        "instance": preview.instance,
        "manifest_digest": manifest.digest,
        "preview_digest": preview.digest,
        "report_taken_at": report.taken_at,
        "containers": containers,
        "files": files,
        "kept_networks": preview.rows.iter().filter(|r| r.code == Some("W0603")).map(|r| r.subject.clone()).collect::<Vec<_>>(),
        "overrides": {
            "downgrade": options.downgrade,
            "replace": options.replace,
            "mint": options.mint,
            "match": options.matches.iter().map(|(d, f)| json!({"declared": d, "found": f})).collect::<Vec<_>>(),
        },
        "rows": preview.rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{InstanceRef, SealedRef};

    fn sealed_file(template: &str) -> File {
        let mut refs = crate::base::fx_hash::FxIndexMap::default();
        refs.insert(
            "key.value".to_string(),
            TemplateRef::Sealed {
                sealed: SealedRef {
                    by: InstanceRef {
                        node: "alpha".into(),
                        instance: "vault".into(),
                    },
                    key: "alpha_forge/value".into(),
                },
            },
        );
        refs.insert(
            "http.port".to_string(),
            TemplateRef::Value {
                value: "3000".into(),
            },
        );
        File {
            target: "/x".into(),
            owner: 0,
            group: 0,
            mode: "0640".into(),
            content: None,
            template: Some(template.into()),
            references: Some(refs),
        }
    }

    #[test]
    fn a_sealed_template_matches_any_secret_and_shows_none() {
        let t = Template::of(&sealed_file(
            "[s]\nPORT = ${http.port}\nTOKEN = ${key.value}\nCOST = $$5\n",
        ));
        assert_eq!(t.shown(), "[s]\nPORT = 3000\nTOKEN = ‹sealed›\nCOST = $5\n");
        assert!(t.matches("[s]\nPORT = 3000\nTOKEN = abcdef\nCOST = $5\n"));
        assert!(!t.matches("[s]\nPORT = 3001\nTOKEN = abcdef\nCOST = $5\n"));
        let masked = t.sealed_view(
            "[s]\nPORT = 3001\nTOKEN = hunter2-very-secret\nOLD = 0f9c2b7e4d1a8f3c6b5e2d9a\n",
        );
        assert!(!masked.contains("hunter2"), "{masked}");
        assert!(!masked.contains("0f9c2b7e"), "{masked}");
        // No found text at all: a line that differs is reported by its number.
        assert!(!masked.contains("3001"), "{masked}");
        assert_eq!(
            masked,
            "[s]\n‹sealed: line 2 is not as declared›\nTOKEN = ‹sealed›\n‹sealed: line 4 is not as declared›\n"
        );
    }

    /// Issue 33 class 7: a found secret line shaped otherwise than the template's
    /// (`KEY=value`, a tab, another case) was shown whole in E0605's diff.
    #[test]
    fn a_found_secret_line_of_another_shape_is_never_shown() {
        let t = Template::of(&sealed_file("[s]\nTOKEN = ${key.value}\n"));
        for found in [
            "[s]\nTOKEN=Winter2024!legacy\n",
            "[s]\nTOKEN\tWinter2024!legacy\n",
            "[s]\ntoken = Winter2024!legacy\n",
            "[s]\nurl = redis://west_app:Winter2024!legacy@kvd:6379/0\n",
        ] {
            assert!(!t.matches(found), "{found}");
            let view = t.sealed_view(found);
            assert!(!view.contains("Winter2024"), "{view}");
            let d = diff::unified(&view, &t.shown(), "found", "declared");
            assert!(!d.contains("Winter2024"), "{d}");
        }
    }

    #[test]
    fn a_plain_files_secret_values_are_masked_in_every_shape() {
        let text = "listen = 8080\nadmin_password = Winter2024!\nDB_PASSWORD=Winter2024!\nApi-Token: Winter2024!\n\"secret_key\": \"Winter2024!\",\nexport SMTP_PASS=Winter2024!\npassword\tWinter2024!\n# password = Winter2024!\nurl = redis://u:Winter2024!@kvd:6379/0\nuser = west\n";
        let masked = mask_plain(text);
        assert!(!masked.contains("Winter2024"), "{masked}");
        assert!(masked.contains("listen = 8080"), "{masked}");
        assert!(masked.contains("user = west"), "{masked}");
        assert!(masked.contains("DB_PASSWORD=‹masked›"), "{masked}");
        // Near misses: keys that name no secret keep their values.
        assert_eq!(
            mask_plain("public_key_path = /etc/k\n"),
            "public_key_path = /etc/k\n"
        );
        assert_eq!(mask_plain("[security]\n"), "[security]\n");
    }

    #[test]
    fn a_masked_report_of_a_sealed_file_still_compares_equal() {
        let f = sealed_file("[s]\nTOKEN = ${key.value}\n");
        let found = "[s]\nTOKEN = 9c4f1e8b3d6a9c2f5e8b1d4a\n";
        let masked = mask_found(&f, found);
        assert_eq!(masked, "[s]\nTOKEN = ‹sealed›\n");
        assert!(Template::of(&f).matches(&masked));
        assert!(Template::of(&f).matches(found));
    }
}
