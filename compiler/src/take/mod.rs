//! Taking a module over (LANGUAGE.md §13, ADR 0163): the host report a survey writes,
//! the comparison `meshc take` previews (every container of the instance beside what
//! runs), its digest, the cutover plan `--yes` writes, and the genesis plan. Pure: the
//! caller reads the report and the clock and writes the plan.
//!
//! No secret value reaches a row, a finding or a plan: a sealed file is compared on its
//! template, and in a diff both its secret parts and the found text they match are shown
//! as `‹sealed›`.

pub mod diff;
pub mod genesis;
pub mod report;
pub mod time;

use crate::diagnostics::Code;
use crate::emit::{Container, File, Instance, Manifest, Requirement, TemplateRef};
use report::{FoundContainer, HostReport};
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
    /// `container`, `name`, `image`, `file`, `secret`, `port`, `network` or `mount`.
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
        self.row(
            name,
            "container",
            name,
            json!(name),
            json!({"name": found.name, "id": found.id, "running": found.running}),
            Outcome::Same,
            None,
            format!(
                "`{name}` takes over the found container `{}` ({}, {})",
                found.name,
                short_id(&found.id),
                if found.running { "running" } else { "stopped" }
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
        self.ports(declared, found);
        self.networks(declared, found);
        self.mounts(declared, found);
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
                format!("`{}` runs already", declared.image),
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
                    "the declared image `{}` is {how} the running `{}`",
                    declared.image, found.image
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
                json!({"mode": f.mode}),
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
        let declared_json = json!({"mode": f.mode, "sealed": f.template.is_some()});
        let pattern = Template::of(f);
        let (equal, shown_found) = match &original.content {
            Some(text) => (pattern.matches(text), pattern.mask(text)),
            None => match &f.content {
                Some(content) => (sha256_text(content) == original.digest, None),
                None => (false, None),
            },
        };
        if equal {
            let mut note = format!("`{path}` is as declared");
            if original.mode != f.mode {
                note = format!(
                    "`{path}` is as declared; its mode changes from {} to {}",
                    original.mode, f.mode
                );
            }
            let outcome = if original.mode == f.mode {
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
            return;
        }
        let diff = shown_found.map(|old| {
            diff::unified(
                &old,
                &pattern.shown(),
                &format!("{path} (kept original in {})", found.name),
                &format!("{path} (declared)"),
            )
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
            } else if data.is_empty() {
                self.row(
                    "",
                    "secret",
                    &req,
                    d,
                    found,
                    Outcome::New,
                    None,
                    format!("`{req}` is minted by `{provider}`: no data of the service was found"),
                );
            } else {
                let note = format!(
                    "`{req}` of `{}` would be minted by `{provider}`, but the service's data was found at {}: it already has a value",
                    instance.instance,
                    crate::diagnostics::capped_list(data.iter().map(|p| format!("`{p}`")))
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

/// The found text of a declared file as a report may hold it: for a sealed file, every
/// line with the shape of one of its secret lines (and any line carrying a long token)
/// shows `‹sealed›` in place of the value, so the report carries no secret and still
/// compares equal where the file is as declared. A plain file's text is kept whole.
pub fn mask_found(declared: &File, found: &str) -> String {
    Template::of(declared)
        .mask(found)
        .unwrap_or_else(|| found.to_string())
}

/// A declared file as a pattern: literal text, and secret parts that match any text.
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

    /// Whether `text` is this template with some text in each secret part (none of it
    /// spanning a line end, as a secret value never does).
    fn matches(&self, text: &str) -> bool {
        fn go(parts: &[Part], text: &str) -> bool {
            match parts.split_first() {
                None => text.is_empty(),
                Some((Part::Text(t), rest)) => {
                    text.strip_prefix(t.as_str()).is_some_and(|r| go(rest, r))
                }
                Some((Part::Sealed, rest)) => {
                    let line_end = text.find('\n').unwrap_or(text.len());
                    (0..=line_end)
                        .filter(|&i| text.is_char_boundary(i))
                        .any(|i| go(rest, &text[i..]))
                }
            }
        }
        go(&self.parts, text)
    }

    /// The found text as it may be shown beside a sealed template: every line that has
    /// the shape of a secret line of the template (its literal text before and after the
    /// secret part) is shown as that line, secret parts as `‹sealed›`. `None` when the
    /// file is plain: it is shown as it is.
    fn mask(&self, found: &str) -> Option<String> {
        if !self.is_sealed() {
            return Some(found.to_string());
        }
        // The template's lines that hold a secret part, as (before, after) literal text.
        let shown = self.shown();
        let secret_lines: Vec<(&str, &str)> = shown
            .lines()
            .filter_map(|l| {
                let at = l.find(SEALED)?;
                let after = &l[at + SEALED.len()..];
                let after = after.rsplit(SEALED).next().unwrap_or(after);
                Some((&l[..at], after))
            })
            .collect();
        let mut out = String::new();
        for line in found.split_inclusive('\n') {
            let body = line.trim_end_matches('\n');
            let masked = secret_lines.iter().find(|(before, after)| {
                !before.trim().is_empty()
                    && body.starts_with(before)
                    && body.ends_with(after)
                    && body.len() >= before.len() + after.len()
            });
            match masked {
                Some((before, after)) => {
                    out.push_str(before);
                    out.push_str(SEALED);
                    out.push_str(after);
                    if line.ends_with('\n') {
                        out.push('\n');
                    }
                }
                None if looks_secret(body) => {
                    out.push_str(SEALED);
                    if line.ends_with('\n') {
                        out.push('\n');
                    }
                }
                None => out.push_str(line),
            }
        }
        Some(out)
    }
}

/// A line of a found sealed file that shares no shape with the template but carries a
/// long unbroken token (a key, a password hash): shown as `‹sealed›` all the same.
fn looks_secret(line: &str) -> bool {
    line.split(|c: char| c.is_whitespace() || matches!(c, '=' | ':' | '"' | '\''))
        .any(|w| {
            w.len() >= 16
                && w.chars().any(|c| c.is_ascii_digit())
                && w.chars().any(|c| c.is_ascii_alphabetic())
                && w.chars().all(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '_' | '-' | '.' | '$')
                })
        })
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
        let masked = t
            .mask("[s]\nPORT = 3001\nTOKEN = hunter2-very-secret\nOLD = 0f9c2b7e4d1a8f3c6b5e2d9a\n")
            .unwrap();
        assert!(!masked.contains("hunter2"), "{masked}");
        assert!(!masked.contains("0f9c2b7e"), "{masked}");
        assert!(masked.contains("PORT = 3001"), "{masked}");
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
