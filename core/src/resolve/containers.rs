//! The containers of a built instance (LANGUAGE.md §5.4, §9): env values as strings (a
//! secret only when exposed, and then sealed), mounts from resolved host paths, secret
//! files as sealed references, files rendered or sealed with their template, published
//! ports.

use super::FxIndexMap;
use super::evaluate::{
    Ctx, Evaluate, Evaluation, NoValue, Resolved, into_text, render_template, text_of,
};
use super::manifests::Builder;
use super::{Answer, InstanceId};
use crate::check::specs::{
    ArgRef, ContainerSpec, EntryKind, ExprRef, FileSpec, HealthSpec, MountSource, MountSpec,
    Written, env_refused,
};
use crate::check::types::Value;
use crate::diagnostics::Reported;
use crate::emit::{
    Container, EnvValue, File, HEALTH_INTERVAL, HEALTH_RETRIES, HEALTH_START_PERIOD, Health, Mount,
    Network, PortMapping, SealedEnv, SecretFile, TemplateEnv, TemplateRef,
};
use crate::syntax::ast::Name;

/// The mode of a file that writes none and reads no secret.
pub(crate) const DEFAULT_FILE_MODE: i64 = 0o644;
/// The mode of a sealed file that writes none: readable by its owner only.
pub(crate) const DEFAULT_SEALED_FILE_MODE: i64 = 0o640;
/// A secret file's mode when the definition gives none (LANGUAGE.md §12.1).
pub(crate) const DEFAULT_SECRET_FILE_MODE: i64 = 0o440;

impl<'m> Builder<'_, 'm> {
    /// Whether an entry under `when` is left out of instance `i`'s manifest: its
    /// optional requirement is absent (LANGUAGE.md §12.2).
    fn left_out_by_when(&self, i: InstanceId, when: Option<&Name>) -> bool {
        when.is_some_and(|w| self.world.is_absent(i, w))
    }

    /// The containers of instance `i`, from its module's specs: `<instance>` for a
    /// module with one container, else `<instance>-<container>`.
    pub(super) fn build_containers(&mut self, i: InstanceId) -> Vec<Container> {
        let Some(m) = self.world.module_of(i) else {
            return Vec::new();
        };
        let specs: &'m [ContainerSpec] = m.containers();
        let single = specs.len() == 1;
        specs
            .iter()
            .zip(Written::containers(m.ast))
            .map(|(c, written)| self.build_container(i, c, written, single))
            .collect()
    }

    fn build_container(
        &mut self,
        i: InstanceId,
        c: &'m ContainerSpec,
        written: Written<'m>,
        single: bool,
    ) -> Container {
        let name = if single {
            self.world.instances[i].name.clone()
        } else {
            format!("{}-{}", self.world.instances[i].name, written.name())
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
            job: written.job(),
            after: Vec::new(),
        };
        // Files and secret files that name no owner: the container's user owns them,
        // once it is known (it may be declared after them).
        let mut unowned_files = Vec::new();
        let mut unowned_secrets = Vec::new();
        for (k, entry) in c.entries.iter().enumerate() {
            if self.left_out_by_when(i, written.when(k)) {
                continue;
            }
            match entry {
                // Written twice, or refused otherwise: the checker's error leaves the
                // module out of every build.
                EntryKind::Refused(refused) => {
                    let _proof: Reported = *refused;
                }
                &EntryKind::Image(at) => {
                    let image = match written.string(at) {
                        Some(s) => self.eval_string(i, Ctx::Definition, s),
                        None => Err(self.passed_over(i, "E0301").into()),
                    };
                    match image {
                        Ok(Resolved::Plain(v, ty)) => out.image = into_text(v, &ty),
                        // Nothing, on the proof of why.
                        Err(_no_value) => {}
                        // A secret where the checker accepted the image: its miss (a
                        // secret in an image is E0302).
                        Ok(_) => {
                            let _proof = self.passed_over(i, "E0302");
                        }
                    }
                }
                EntryKind::Command(args) => out.command = self.command(i, written, args),
                &EntryKind::User { uid, gid } => match self.eval_at(i, written, uid) {
                    Ok(Resolved::Plain(Value::Int(uid), _)) => {
                        out.user = Some(uid);
                        out.group = gid.map(i64::from);
                    }
                    // Nothing, on the proof of why.
                    Err(_no_value) => {}
                    // Anything but a uid where the checker accepted one: its miss (a
                    // value of another type is E0301).
                    Ok(_) => {
                        let _proof = self.passed_over(i, "E0301");
                    }
                },
                EntryKind::Health(h) => {
                    if out.health.is_none() {
                        out.health = Some(self.health(i, written, h));
                    }
                }
                EntryKind::After(names) => {
                    for n in names.iter() {
                        if !out.after.iter().any(|a| a == n.as_str()) {
                            out.after.push(String::from(n.as_str()));
                        }
                    }
                }
                EntryKind::Env(refused) => {
                    for e in written.env(k) {
                        if self.left_out_by_when(i, e.when) {
                            continue;
                        }
                        // A key written twice, or a value the checker refused.
                        if let Some(proof) = env_refused(refused, e.item) {
                            let _proof: Reported = proof;
                            continue;
                        }
                        let indexmap::map::Entry::Vacant(slot) = out.env.entry(String::from(e.key))
                        else {
                            let _proof = self.passed_over(i, "E0102");
                            continue;
                        };
                        let exposed = e
                            .exposed
                            .map(|reason| reason.map(|r| r.literal_text()).unwrap_or_default());
                        match self.env_value(i, written, e.value, exposed) {
                            Ok(v) => {
                                slot.insert(v);
                            }
                            Err(_no_value) => {}
                        }
                    }
                }
                EntryKind::Mount(mount) => match self.mount(i, written, mount) {
                    Ok(m) => out.mounts.push(m),
                    Err(_no_value) => {}
                },
                EntryKind::Secret(file) => {
                    let (sealed, template, references) = match self.eval_at(i, written, file.value)
                    {
                        Ok(Resolved::Sealed(s)) => (Some(*s), None, None),
                        Ok(Resolved::Template(parts)) => {
                            let (template, references) = render_template(&parts);
                            (None, Some(template), Some(references))
                        }
                        // A plain value in a secret file (E0309).
                        Ok(Resolved::Plain(..) | Resolved::HostPath(_)) => {
                            let _proof = self.passed_over(i, "E0309");
                            continue;
                        }
                        // No value, on the proof of why.
                        Err(_no_value) => continue,
                    };
                    let Some(target) = written.target(file.value) else {
                        // An interpolated container path (E0315).
                        let _proof = self.passed_over(i, "E0315");
                        continue;
                    };
                    let (owner, group) = owner_of(file);
                    if file.owner.is_none() {
                        unowned_secrets.push(out.secrets.len());
                    }
                    out.secrets.push(SecretFile {
                        target,
                        owner,
                        group,
                        mode: mode_of(file, DEFAULT_SECRET_FILE_MODE),
                        sealed,
                        template,
                        references,
                    });
                }
                EntryKind::File(file) => {
                    if let Ok(mut f) = self.file(i, written, file) {
                        (f.owner, f.group) = owner_of(file);
                        if file.owner.is_none() {
                            unowned_files.push(out.files.len());
                        }
                        out.files.push(f);
                    }
                }
                EntryKind::Publish(req) => {
                    if let Ok(p) = self.published_port(i, *req) {
                        out.ports.push(p);
                    }
                }
                // Read by the checker only.
                EntryKind::ImagePaths => {}
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

    /// Evaluates the expression `at` of a container in instance `i`'s scope.
    fn eval_at(&mut self, i: InstanceId, written: Written<'m>, at: ExprRef) -> Evaluation {
        match written.expr(at) {
            Some(expr) => self.eval_expr(i, Ctx::Definition, expr),
            // The spec's places are in the module's own tree.
            None => Err(self.passed_over(i, "a syntax error").into()),
        }
    }

    /// `health`: the ARGV evaluated as a command is, the options the checker accepted
    /// or their defaults.
    fn health(&mut self, i: InstanceId, written: Written<'m>, h: &HealthSpec) -> Health {
        let text = |value: &Option<Box<str>>, default: &str| {
            value.as_deref().unwrap_or(default).to_string()
        };
        Health {
            test: self.command(i, written, &h.test),
            interval: text(&h.interval, HEALTH_INTERVAL),
            start_period: text(&h.start_period, HEALTH_START_PERIOD),
            retries: h.retries.unwrap_or(HEALTH_RETRIES),
        }
    }

    /// A command's arguments: each evaluated, a list's values each one argument.
    fn command(&mut self, i: InstanceId, written: Written<'m>, args: &[ArgRef]) -> Vec<String> {
        let mut out = Vec::new();
        for &at in args {
            let value = match written.arg(at) {
                Some(arg) => self.eval_expr(i, Ctx::Definition, arg),
                None => Err(self.passed_over(i, "a syntax error").into()),
            };
            match value {
                Ok(Resolved::Plain(Value::List(vs), ty)) => {
                    let inner = match ty {
                        crate::check::types::Ty::List(t) => *t,
                        _ => crate::check::types::Ty::Error,
                    };
                    out.extend(vs.iter().map(|v| text_of(v, &inner)));
                }
                Ok(Resolved::Plain(v, ty)) => out.push(into_text(v, &ty)),
                // Nothing, on the proof of why.
                Err(_no_value) => {}
                // A secret in a command (E0302).
                Ok(_) => {
                    let _proof = self.passed_over(i, "E0302");
                }
            }
        }
        out
    }

    /// An env value: text, or a secret exposed with its reason (still sealed).
    fn env_value(
        &mut self,
        i: InstanceId,
        written: Written<'m>,
        at: ExprRef,
        exposed: Option<String>,
    ) -> Evaluation<EnvValue> {
        Ok(match self.eval_at(i, written, at)? {
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
            Resolved::HostPath(_) => return Err(self.passed_over(i, "E0303").into()),
        })
    }

    /// A mount: the resolved host path of a directory or access (or an old-form literal
    /// path, used as written). An access its module does not write is mounted read-only.
    fn mount(
        &mut self,
        i: InstanceId,
        written: Written<'m>,
        mount: &MountSpec,
    ) -> Evaluation<Mount> {
        let Some(container) = written.target(mount.value) else {
            // An interpolated container path (E0315).
            return Err(self.passed_over(i, "E0315").into());
        };
        let (host, access) = match mount.source {
            MountSource::Literal => match written.literal(mount.value) {
                Some(host) => (host, None),
                // A literal source is a plain string the checker read (E0317 else).
                None => return Err(self.passed_over(i, "E0317").into()),
            },
            MountSource::Path { access } => match self.eval_at(i, written, mount.value)? {
                Resolved::HostPath(p) => (p, access),
                _ => return Err(self.passed_over(i, "E0317").into()),
            },
        };
        let mut read_only = mount.read_only;
        if let Some(access) = access
            && let Some((&req, _)) = self
                .world
                .module_of(i)
                .and_then(|m| m.scope.requirements.get_index(access as usize))
            && matches!(
                self.given_value(i, req, "write"),
                Ok(Resolved::Plain(Value::Bool(false), _))
            )
        {
            read_only = true;
        }
        Ok(Mount {
            host,
            container,
            read_only,
        })
    }

    /// A file: rendered content when it reads no secret, else sealed — its template and
    /// references, never its rendered text.
    fn file(&mut self, i: InstanceId, written: Written<'m>, file: &FileSpec) -> Evaluation<File> {
        let Some(target) = written.target(file.value) else {
            // An interpolated container path (E0315).
            return Err(self.passed_over(i, "E0315").into());
        };
        let resolved = self.eval_at(i, written, file.value)?;
        let (content, template, references, default_mode) = match resolved {
            Resolved::Plain(v, ty) => (Some(into_text(v, &ty)), None, None, DEFAULT_FILE_MODE),
            Resolved::Sealed(sealed) => {
                let name = written
                    .reference(file.value)
                    .unwrap_or_else(|| "secret".to_string());
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
            Resolved::HostPath(_) => return Err(self.passed_over(i, "E0303").into()),
        };
        Ok(File {
            target,
            owner: 0,
            group: 0,
            mode: mode_of(file, default_mode),
            content,
            template,
            references,
        })
    }

    /// The port mapping of a `publish REQ`: requirement `req` of the module's scope, a
    /// `host port` (the checker decided it).
    fn published_port(&mut self, i: InstanceId, req: u32) -> Evaluation<PortMapping> {
        let found = self
            .world
            .module_of(i)
            .and_then(|m| m.scope.requirements.get_index(req as usize));
        let Some((&req, _)) = found else {
            // The checker's spec names a requirement of the module's scope (E0316 else).
            return Err(self.passed_over(i, "E0316").into());
        };
        let Some(Answer::Port { host_port, .. }) = self.world.answers[i].get(req) else {
            // A requirement that is no host port (E0316).
            return Err(self.passed_over(i, "E0316").into());
        };
        let host = *host_port;
        // A built instance's port has its container port: a value missing (E0501) or
        // not a port (E0304, E0314) refused the instance, which is then not built. The
        // builder holds no proof of either, so each is a miss (`passed_over`).
        let container = match self.given_value(i, req, "container") {
            Ok(Resolved::Plain(Value::Int(p), _)) => p,
            Ok(_) => return Err(self.passed_over(i, "E0304 or E0314").into()),
            Err(NoValue::Refused(told)) => return Err(told.into()),
            Err(_) => return Err(self.passed_over(i, "E0501").into()),
        };
        let text = |r: Evaluation, default: &str| match r {
            Ok(Resolved::Plain(Value::Str(s), _)) => s,
            // Unwritten, or no value on the proof of why: the contract's default.
            _ => default.to_string(),
        };
        let protocol = text(self.given_value(i, req, "protocol"), "tcp");
        let reach = text(self.given_value(i, req, "reach"), "private");
        Ok(PortMapping {
            host,
            container,
            protocol,
            reach,
        })
    }
}

/// The owner and group of a file or secret file as the checker decided them; 0:0 when
/// none is written, until the container's user is known.
fn owner_of(file: &FileSpec) -> (i64, i64) {
    file.owner
        .map_or((0, 0), |(uid, gid)| (i64::from(uid), i64::from(gid)))
}

/// The mode of a file or secret file, `default` when none is written, as the manifest
/// writes it.
fn mode_of(file: &FileSpec, default: i64) -> String {
    format!("{:04o}", file.mode.map_or(default, i64::from))
}
