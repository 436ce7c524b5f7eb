//! The containers of a built instance (LANGUAGE.md §5.4, §9): env values as strings (a
//! secret only when exposed, and then sealed), mounts from resolved host paths, secret
//! files as sealed references, files rendered or sealed with their template, published
//! ports.

use super::FxIndexMap;
use super::evaluate::{Ctx, Evaluate, Resolved, into_text, render_template, text_of};
use super::manifests::Builder;
use super::{Answer, InstanceId};
use crate::check::types::Value;
use crate::check::types::is_duration;
use crate::emit::{
    Container, EnvValue, File, HEALTH_INTERVAL, HEALTH_RETRIES, HEALTH_START_PERIOD, Health, Mount,
    Network, PortMapping, SealedEnv, SecretFile, TemplateEnv, TemplateRef,
};
use crate::syntax::ast::{self, ContainerEntryKind, Expr};

/// The mode of a file that writes none and reads no secret.
pub(crate) const DEFAULT_FILE_MODE: i64 = 0o644;
/// The mode of a sealed file that writes none: readable by its owner only.
pub(crate) const DEFAULT_SEALED_FILE_MODE: i64 = 0o640;
/// A secret file's mode when the definition gives none (LANGUAGE.md §12.1).
pub(crate) const DEFAULT_SECRET_FILE_MODE: i64 = 0o440;

impl<'m> Builder<'_, 'm> {
    /// Whether an entry under `when` is left out of instance `i`'s manifest: its
    /// optional requirement is absent (LANGUAGE.md §12.2).
    fn left_out_by_when(&self, i: InstanceId, when: Option<&ast::When>) -> bool {
        when.is_some_and(|w| self.world.is_absent(i, &w.requirement.name))
    }

    /// The containers of instance `i`: `<instance>` for a module with one container,
    /// else `<instance>-<container>`.
    pub(super) fn build_containers(&mut self, i: InstanceId) -> Vec<Container> {
        let Some(m) = self.world.module_of(i) else {
            return Vec::new();
        };
        let containers: Vec<&'m ast::Container> = m.ast.containers().collect();
        let single = containers.len() == 1;
        containers
            .into_iter()
            .map(|c| self.build_container(i, c, single))
            .collect()
    }

    fn build_container(&mut self, i: InstanceId, c: &'m ast::Container, single: bool) -> Container {
        let name = if single {
            self.world.instances[i].name.clone()
        } else {
            format!("{}-{}", self.world.instances[i].name, c.name.name)
        };
        let mut out = Container {
            name,
            image: String::new(),
            command: Vec::new(),
            user: None,
            group: None,
            env: Default::default(),
            mounts: Vec::new(),
            secrets: Vec::new(),
            files: Vec::new(),
            ports: Vec::new(),
            networks: std::iter::once(Network {
                name: self.world.logins[i].clone(),
                kept: false,
            })
            .chain(
                self.world.settings[i]
                    .keep_networks
                    .iter()
                    .map(|n| Network {
                        name: n.clone(),
                        kept: true,
                    }),
            )
            .collect(),
            health: None,
            job: c.job,
            after: Vec::new(),
        };
        let mut image_seen = false;
        // Files and secret files that name no owner: the container's user owns them,
        // once it is known (it may be declared after them).
        let mut unowned_files = Vec::new();
        let mut unowned_secrets = Vec::new();
        for entry in &c.entries {
            if self.left_out_by_when(i, entry.when.as_deref()) {
                continue;
            }
            match &entry.kind {
                ContainerEntryKind::Image(s) => {
                    if image_seen {
                        continue;
                    }
                    image_seen = true;
                    if let Some(Resolved::Plain(v, ty)) = self.eval_string(i, Ctx::Definition, s) {
                        out.image = into_text(v, &ty);
                    }
                }
                ContainerEntryKind::Command(expr) => out.command = self.command(i, expr),
                ContainerEntryKind::User(u) => {
                    if let Some(Resolved::Plain(Value::Int(uid), _)) =
                        self.eval_expr(i, Ctx::Definition, &u.uid)
                    {
                        out.user = Some(uid);
                        out.group = u.gid.as_ref().map(|g| g.value);
                    }
                }
                ContainerEntryKind::Health(h) => {
                    if out.health.is_none() {
                        out.health = Some(self.health(i, h));
                    }
                }
                ContainerEntryKind::After(names) => {
                    for n in names {
                        if !out.after.iter().any(|a| *a == n.name) {
                            out.after.push(String::from(n.name.as_str()));
                        }
                    }
                }
                ContainerEntryKind::Env(entries) => {
                    for e in entries {
                        if self.left_out_by_when(i, e.when.as_deref()) {
                            continue;
                        }
                        let indexmap::map::Entry::Vacant(slot) =
                            out.env.entry(String::from(e.key.name.as_str()))
                        else {
                            continue; // E0102, the checker's
                        };
                        let exposed = e.exposed.as_ref().map(|x| {
                            x.reason
                                .as_ref()
                                .map(|r| r.literal_text())
                                .unwrap_or_default()
                        });
                        if let Some(v) = self.env_value(i, &e.value, exposed) {
                            slot.insert(v);
                        }
                    }
                }
                ContainerEntryKind::Mount(mount) => {
                    let crate::syntax::ast::Mount {
                        source,
                        target,
                        read_only,
                    } = &**mount;
                    if let Some(m) = self.mount(i, source, target.as_ref(), read_only.is_some()) {
                        out.mounts.push(m);
                    }
                }
                ContainerEntryKind::Secret(file) => {
                    let crate::syntax::ast::FileEntry {
                        target,
                        owner,
                        mode,
                        value,
                    } = &**file;
                    let Some(target) = target.as_plain() else {
                        continue;
                    };
                    let (uid, gid) = owner_of(owner.as_ref());
                    let mode = format!(
                        "{:04o}",
                        mode.as_ref().map_or(DEFAULT_SECRET_FILE_MODE, |m| m.value)
                    );
                    let (sealed, template, references) =
                        match self.eval_expr(i, Ctx::Definition, value) {
                            Some(Resolved::Sealed(s)) => (Some(*s), None, None),
                            Some(Resolved::Template(parts)) => {
                                let (template, references) = render_template(&parts);
                                (None, Some(template), Some(references))
                            }
                            // A plain value in a secret file is refused by the checker (E0309).
                            _ => continue,
                        };
                    if owner.is_none() {
                        unowned_secrets.push(out.secrets.len());
                    }
                    out.secrets.push(SecretFile {
                        target,
                        owner: uid,
                        group: gid,
                        mode,
                        sealed,
                        template,
                        references,
                    });
                }
                ContainerEntryKind::File(file) => {
                    let crate::syntax::ast::FileEntry {
                        target,
                        owner,
                        mode,
                        value,
                    } = &**file;
                    let Some(target) = target.as_plain() else {
                        continue;
                    };
                    if let Some(mut f) = self.file(i, target, mode.as_ref().map(|m| m.value), value)
                    {
                        (f.owner, f.group) = owner_of(owner.as_ref());
                        if owner.is_none() {
                            unowned_files.push(out.files.len());
                        }
                        out.files.push(f);
                    }
                }
                ContainerEntryKind::Publish(req) => {
                    if let Some(p) = self.published_port(i, &req.name) {
                        out.ports.push(p);
                    }
                }
                ContainerEntryKind::ImagePaths(_) => {}
            }
        }
        // A file with no `owner` belongs to the container's user and group; the group
        // is the user's number unless `user UID:GID` names one (LANGUAGE.md §14.2).
        let user = out.user.unwrap_or(0);
        let group = out.group.unwrap_or(user);
        for f in unowned_files {
            (out.files[f].owner, out.files[f].group) = (user, group);
        }
        for s in unowned_secrets {
            (out.secrets[s].owner, out.secrets[s].group) = (user, group);
        }
        out
    }

    /// `health`: the ARGV evaluated as a command is, the options as written or their
    /// defaults. A malformed option is the checker's (E0314), and is left at its default.
    fn health(&mut self, i: InstanceId, h: &ast::Health) -> Health {
        let duration = |kind, default: &str| match h.option(kind) {
            Some(Expr::Str(s)) => s
                .as_plain()
                .filter(|d| is_duration(d))
                .unwrap_or_else(|| default.to_string()),
            _ => default.to_string(),
        };
        let interval = duration(ast::HealthOptionKind::Every, HEALTH_INTERVAL);
        let start_period = duration(ast::HealthOptionKind::Start, HEALTH_START_PERIOD);
        let retries = match h.option(ast::HealthOptionKind::Retries) {
            Some(Expr::Int(n)) if n.value >= 1 => n.value,
            _ => HEALTH_RETRIES,
        };
        Health {
            test: self.command(i, &h.argv),
            interval,
            start_period,
            retries,
        }
    }

    fn command(&mut self, i: InstanceId, expr: &Expr) -> Vec<String> {
        let items: Vec<&Expr> = match expr {
            Expr::List(items, _) => items.iter().collect(),
            other => vec![other],
        };
        let mut out = Vec::new();
        for item in items {
            match self.eval_expr(i, Ctx::Definition, item) {
                Some(Resolved::Plain(Value::List(vs), ty)) => {
                    let inner = match ty {
                        crate::check::types::Ty::List(t) => *t,
                        _ => crate::check::types::Ty::Error,
                    };
                    out.extend(vs.iter().map(|v| text_of(v, &inner)));
                }
                Some(Resolved::Plain(v, ty)) => out.push(into_text(v, &ty)),
                _ => {} // a secret in a command is refused by the checker (E0302)
            }
        }
        out
    }

    /// An env value: text, or a secret exposed with its reason (still sealed).
    fn env_value(
        &mut self,
        i: InstanceId,
        value: &Expr,
        exposed: Option<String>,
    ) -> Option<EnvValue> {
        Some(match self.eval_expr(i, Ctx::Definition, value)? {
            Resolved::Plain(v, ty) => EnvValue::Text(into_text(v, &ty)),
            Resolved::Sealed(sealed) => EnvValue::Sealed(SealedEnv {
                sealed: *sealed,
                exposed,
            }),
            Resolved::Template(parts) => {
                let (template, references) = render_template(&parts);
                EnvValue::Template(TemplateEnv {
                    template,
                    references,
                    exposed,
                })
            }
            Resolved::HostPath(_) => return None, // E0303, the checker's
        })
    }

    /// A mount: the resolved host path of a directory or access (or an old-form literal
    /// path, used as written). An access its module does not write is mounted read-only.
    fn mount(
        &mut self,
        i: InstanceId,
        source: &Expr,
        target: Option<&ast::StringLit>,
        read_only: bool,
    ) -> Option<Mount> {
        let container = target?.as_plain()?;
        let host = match source {
            Expr::Str(s) => s.as_plain().filter(|p| p.starts_with('/'))?,
            _ => match self.eval_expr(i, Ctx::Definition, source)? {
                Resolved::HostPath(p) => p,
                _ => return None, // E0317, the checker's
            },
        };
        let mut read_only = read_only;
        if let Expr::Ref(r) = source {
            let name = r.segments.first().map(|s| s.name.as_str()).unwrap_or("");
            if let Some((&req, info)) = self
                .world
                .module_of(i)
                .and_then(|m| m.scope.requirements.get_key_value(name))
                && info.contract_name() == Some("access")
                && matches!(
                    self.given_value(i, req, "write"),
                    Some(Resolved::Plain(Value::Bool(false), _))
                )
            {
                read_only = true;
            }
        }
        Some(Mount {
            host,
            container,
            read_only,
        })
    }

    /// A file: rendered content when it reads no secret, else sealed — its template and
    /// references, never its rendered text.
    fn file(
        &mut self,
        i: InstanceId,
        target: String,
        mode: Option<i64>,
        value: &Expr,
    ) -> Option<File> {
        let resolved = self.eval_expr(i, Ctx::Definition, value)?;
        let (content, template, references, default_mode) = match resolved {
            Resolved::Plain(v, ty) => (Some(into_text(v, &ty)), None, None, DEFAULT_FILE_MODE),
            Resolved::Sealed(sealed) => {
                let name = match value {
                    Expr::Ref(r) => r.dotted(),
                    _ => "secret".to_string(),
                };
                let mut refs = FxIndexMap::default();
                refs.insert(name.clone(), TemplateRef::Sealed { sealed: *sealed });
                (
                    None,
                    Some(format!("${{{name}}}")),
                    Some(refs),
                    DEFAULT_SEALED_FILE_MODE,
                )
            }
            Resolved::Template(parts) => {
                let (t, refs) = render_template(&parts);
                (None, Some(t), Some(refs), DEFAULT_SEALED_FILE_MODE)
            }
            Resolved::HostPath(_) => return None, // E0303, the checker's
        };
        Some(File {
            target,
            owner: 0,
            group: 0,
            mode: format!("{:04o}", mode.unwrap_or(default_mode)),
            content,
            template,
            references,
        })
    }

    /// The port mapping of a `publish REQ`.
    fn published_port(&mut self, i: InstanceId, req: &str) -> Option<PortMapping> {
        let (&req, _) = self
            .world
            .module_of(i)?
            .scope
            .requirements
            .get_key_value(req)?;
        let Some(Answer::Port { host_port, .. }) = self.world.answers[i].get(req) else {
            return None;
        };
        let host = *host_port;
        let container = match self.given_value(i, req, "container")? {
            Resolved::Plain(Value::Int(p), _) => p,
            _ => return None,
        };
        let text = |r: Option<Resolved>, default: &str| match r {
            Some(Resolved::Plain(Value::Str(s), _)) => s,
            _ => default.to_string(),
        };
        let protocol = text(self.given_value(i, req, "protocol"), "tcp");
        let reach = text(self.given_value(i, req, "reach"), "private");
        Some(PortMapping {
            host,
            container,
            protocol,
            reach,
        })
    }
}

/// The owner and group an `owner UID[:GID]` names (the group defaults to the uid's
/// number); 0:0 when none is written, until the container's user is known.
fn owner_of(owner: Option<&ast::Owner>) -> (i64, i64) {
    match owner {
        Some(o) => (o.uid.value, o.gid.as_ref().map_or(o.uid.value, |g| g.value)),
        None => (0, 0),
    }
}
