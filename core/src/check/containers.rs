//! Containers (LANGUAGE.md §5.4): their entries, the paths they write, what env reads,
//! what is mounted and published.

use super::expressions::Target;
use super::expressions::{Place, Slot, Val, What, a_type, check_mode_literal};
use super::specs::{self, ContainerSpec, EntryKind, FileSpec, HealthSpec, MountSource, MountSpec};

/// The largest uid or gid (LANGUAGE.md §3, `uid`).
const MAX_UID: i64 = 4_294_967_295;
use super::module::{ModuleChecker, Seen, duplicate};
use super::registry::{HostContract, ProviderKind};
use super::scope::RefContext;
use super::types::{
    Constraint, Ty, image_has_digest, image_tag, path_is_under, validate_container_path,
    validate_duration, validate_image,
};
use crate::diagnostics::closest;
use crate::diagnostics::rules::{
    AfterCycle, AfterTwice, BadHealth, Breach, ContainerPath, Duplicate, EnvPathNotHeld,
    ExposedEnv, InJob, InvalidLiteral, MountSource as MountSourceRule, NotOptional,
    PathWrittenTwice, PortNotPublished, PublishNotPort, RootOnly, SecretFilePlain, SyntaxError,
    TypeMismatch, UnknownAfter, UnknownRequirement, Unpinned,
};
use crate::diagnostics::{Reported, Rule};
use crate::span::Span;
use crate::syntax::ast::{
    Container, ContainerEntryKind, EnvEntry, Expr, Health, HealthOptionKind, Ident, IntLit, Owner,
    StrPart, StringLit, User, When,
};
use std::borrow::Cow;

const DEF: RefContext<'static> = RefContext::Definition;

/// The paths one container holds: what env may name (E0401) and what two entries must
/// not both write (E0403).
struct Paths<'a> {
    /// The container's name, for messages.
    container: &'a str,
    /// Mount, secret and file targets, and image paths.
    held: Vec<Cow<'a, str>>,
    /// Mount, secret and file targets: each written once.
    written: Seen<'a>,
}

impl<'a> ModuleChecker<'a, '_> {
    /// Every container of the module.
    pub(crate) fn check_containers(&mut self) {
        let module = self.module;
        let mut names = Seen::new();
        let mut published = Seen::new();
        for c in module.containers() {
            if let Some(first) = names.insert(&c.name.name, c.name.span) {
                let rule = Duplicate::Container {
                    container: &c.name.name,
                    module: &module.name.name,
                    first,
                };
                duplicate(self.cx, c.name.span, rule);
            }
            self.check_container(c, &mut published);
        }
        self.check_unpublished_ports(&published);
        self.check_after();
    }

    /// `after NAME…` (LANGUAGE.md §14.1): each name a container or job of the module
    /// (E0104, with a close name), none the container itself and none closing a cycle
    /// (E0328), none twice in one container (E0102).
    fn check_after(&mut self) {
        let module = self.module;
        let containers: Vec<&'a Container> = module.containers().collect();
        // The first container of each name: a second is E0102, told above.
        let mut index: Vec<(&'a str, usize)> = Vec::new();
        for (k, c) in containers.iter().enumerate() {
            if !index.iter().any(|(n, _)| *n == c.name.name.as_str()) {
                index.push((&c.name.name, k));
            }
        }
        let find = |name: &str| index.iter().find(|(n, _)| *n == name).map(|&(_, k)| k);
        // Edges: container → (the container it waits for, where the name is written).
        let mut edges: Vec<Vec<(usize, Span)>> = vec![Vec::new(); containers.len()];
        for (k, c) in containers.iter().enumerate() {
            if find(&c.name.name) != Some(k) {
                continue; // a duplicate container: its own errors are told
            }
            let mut seen = Seen::new();
            for e in c.entries.iter() {
                let ContainerEntryKind::After(names) = &e.kind else {
                    continue;
                };
                for n in names.iter() {
                    if let Some(first) = seen.insert(&n.name, n.span) {
                        let rule = AfterTwice {
                            name: &n.name,
                            first,
                        };
                        self.cx.report(rule.at(self.cx.path, n.span));
                        continue;
                    }
                    if n.name == c.name.name {
                        let rule = AfterCycle::Itself {
                            keyword: c.keyword(),
                            name: &n.name,
                        };
                        self.cx.report(rule.at(self.cx.path, n.span));
                        continue;
                    }
                    match find(&n.name) {
                        Some(to) => edges[k].push((to, n.span)),
                        None => {
                            let known: Vec<&str> = index
                                .iter()
                                .map(|&(n, _)| n)
                                .filter(|&other| other != c.name.name.as_str())
                                .take(8)
                                .collect();
                            let rule = UnknownAfter {
                                module: &module.name.name,
                                name: &n.name,
                                closest: closest(&n.name, known.iter().copied()),
                                requirement: self.scope.requirements.contains_key(n.name.as_str()),
                                known,
                            };
                            self.cx.report(rule.at(self.cx.path, n.span));
                        }
                    }
                }
            }
        }
        // A cycle is told once, at the name that closes it as the containers are walked
        // in source order (depth first; a module holds few containers).
        const NEW: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; containers.len()];
        for root in 0..containers.len() {
            if state[root] != NEW {
                continue;
            }
            // (container, next edge); `path` holds the open containers with the edge
            // each follows.
            let mut work: Vec<(usize, usize)> = vec![(root, 0)];
            state[root] = OPEN;
            while let Some(&mut (v, ref mut next)) = work.last_mut() {
                let Some(&(to, at)) = edges[v].get(*next) else {
                    state[v] = DONE;
                    work.pop();
                    continue;
                };
                *next += 1;
                match state[to] {
                    NEW => {
                        state[to] = OPEN;
                        work.push((to, 0));
                    }
                    OPEN => {
                        let from = work.iter().position(|&(w, _)| w == to).unwrap_or(0);
                        let cycle = &work[from..];
                        let mut path: Vec<&str> = cycle
                            .iter()
                            .map(|&(w, _)| containers[w].name.name.as_str())
                            .collect();
                        path.push(&containers[to].name.name);
                        // Each edge of the cycle but the closing one, labelled.
                        let others = cycle
                            .windows(2)
                            .map(|pair| {
                                let (w, taken) = pair[0];
                                let (span_at, _) = (edges[w][taken - 1].1, ());
                                (
                                    span_at,
                                    containers[w].name.name.as_str(),
                                    containers[pair[1].0].name.name.as_str(),
                                )
                            })
                            .collect();
                        let rule = AfterCycle::Cycle { path, others };
                        self.cx.report(rule.at(self.cx.path, at));
                    }
                    _ => {}
                }
            }
        }
    }

    /// E0323: a `host port` requirement no container publishes (a `publish` under `when`
    /// counts). A route or a neighbour sent to it would find nothing listening.
    fn check_unpublished_ports(&mut self, published: &Seen<'a>) {
        if self.cx.is_broken(self.module.span) {
            return; // the `publish` may sit in an entry that failed to parse
        }
        let mut unpublished = Vec::new();
        for (name, req) in &self.scope.requirements {
            if req.host_contract() == Some(HostContract::Port) && !published.contains(name) {
                unpublished.push((*name, req.ast.name.span));
            }
        }
        let containers: Vec<&str> = self
            .module
            .containers()
            .map(|c| c.name.name.as_str())
            .collect();
        for (name, span) in unpublished {
            let help = match containers.as_slice() {
                [] => format!("add the container that listens on it, with `publish {name}`"),
                [one] => {
                    format!("add `publish {name}` to container `{one}`, or remove the requirement")
                }
                _ => format!(
                    "add `publish {name}` to the container that listens on it, or remove the requirement"
                ),
            };
            let rule = PortNotPublished {
                port: name,
                module: &self.module.name.name,
                help,
            };
            self.cx.report(rule.at(self.cx.path, span));
        }
    }

    /// One container, lowered to its spec as it is checked: each entry's decisions are
    /// the spec's fields, and an entry that reported an error is kept refused.
    fn check_container(&mut self, c: &'a Container, published: &mut Seen<'a>) {
        let mut single = Seen::new();
        // Sized once: a container's env is a dozen keys or so, which grew the list three
        // times over.
        let env_count = c
            .entries
            .iter()
            .map(|e| match &e.kind {
                ContainerEntryKind::Env(items) => items.len(),
                _ => 0,
            })
            .sum();
        let mut env_keys = Seen::with_capacity(env_count);
        let mut paths = Paths {
            container: &c.name.name,
            held: Vec::new(),
            written: Seen::new(),
        };
        // Each env entry read, with its place in the spec (entry, item).
        // Sized once too.
        let mut envs: Vec<(&'a EnvEntry, usize, usize)> = Vec::with_capacity(env_count);
        let mut has_image = false;
        let mut whens: Vec<Span> = Vec::new();
        let mut entries: Vec<EntryKind> = Vec::with_capacity(c.entries.len());
        // Each env block's entry, and the items of it refused so far; its spec is made
        // once the paths its values name are checked, below.
        let mut env_refused: Vec<(usize, Vec<(u32, Reported)>)> = Vec::new();
        // Who reads the container's files by default (LANGUAGE.md §12.1).
        let has_user = c
            .entries
            .iter()
            .any(|e| matches!(e.kind, ContainerEntryKind::User(_)));
        for (k, entry) in c.entries.iter().enumerate() {
            self.enter_when(entry.when.as_deref(), &mut whens);
            // What the `when` block's requirement says is told once per block, and
            // leaves the module in error; the entry's own refusals are counted from here.
            let before = self.cx.sink.diagnostics.len();
            if c.job {
                let refused = match &entry.kind {
                    ContainerEntryKind::Publish(_) => Some("publish"),
                    ContainerEntryKind::Health(_) => Some("health"),
                    _ => None,
                };
                if let Some(word) = refused {
                    let rule = InJob {
                        entry: word,
                        job: &c.name.name,
                    };
                    self.cx.report(rule.at(self.cx.path, entry.span));
                }
            }
            let keyword = match &entry.kind {
                ContainerEntryKind::Health(_) => Some("health"),
                ContainerEntryKind::Image(_) => Some("image"),
                ContainerEntryKind::Command(_) => Some("command"),
                ContainerEntryKind::User(_) => Some("user"),
                ContainerEntryKind::ImagePaths(_) => Some("image_paths"),
                _ => None,
            };
            if let Some(keyword) = keyword
                && let Some(first) = single.insert(keyword, entry.span)
            {
                let rule = Duplicate::ContainerEntry {
                    container: &c.name.name,
                    keyword,
                    first,
                };
                let refused = self.cx.refuse(rule.at(self.cx.path, entry.span));
                entries.push(EntryKind::Refused(refused));
                continue;
            }
            let kind = match &entry.kind {
                ContainerEntryKind::Image(s) => {
                    has_image = true;
                    self.check_image(s);
                    EntryKind::Image(specs::at(k))
                }
                ContainerEntryKind::Command(e) => {
                    self.check_command(e, Place::Command);
                    EntryKind::Command(specs::arguments(k, e))
                }
                ContainerEntryKind::User(u) => {
                    self.check_user(u);
                    EntryKind::User {
                        uid: specs::at(k),
                        gid: u.gid.as_ref().map(|g| uid(g.value)),
                    }
                }
                ContainerEntryKind::Health(h) => {
                    EntryKind::Health(Box::new(self.check_health(k, h)))
                }
                // Read with the module's containers.
                ContainerEntryKind::After(names) => {
                    EntryKind::After(names.iter().map(|n| n.name.clone()).collect())
                }
                ContainerEntryKind::Env(items) => {
                    let outer = self.when;
                    let mut refused = Vec::new();
                    for (item, e) in items.iter().enumerate() {
                        if e.when.is_some() {
                            self.enter_when(e.when.as_deref(), &mut whens);
                        } else {
                            self.when = outer;
                        }
                        let before = self.cx.sink.diagnostics.len();
                        if let Some(first) = env_keys.insert(&e.key.name, e.key.span) {
                            let rule = Duplicate::EnvKey {
                                key: &e.key.name,
                                container: &c.name.name,
                                first,
                            };
                            refused.push((
                                item as u32,
                                self.cx.refuse(rule.at(self.cx.path, e.key.span)),
                            ));
                            self.eval_names(&e.value, DEF);
                            continue;
                        }
                        self.check_env_entry(e);
                        envs.push((e, k, item));
                        if let Some(proof) = self.refusal_since(before) {
                            refused.push((item as u32, proof));
                        }
                    }
                    self.when = outer;
                    env_refused.push((k, refused));
                    // Its refusals are its items': the spec is made below.
                    entries.push(EntryKind::ImagePaths);
                    continue;
                }
                ContainerEntryKind::Mount(mount) => {
                    let crate::syntax::ast::Mount {
                        source,
                        target,
                        read_only,
                    } = &**mount;
                    let target = match target {
                        Some(t) => self.container_path(t, &mut paths, true),
                        // A syntax error, told by the parser.
                        None => {
                            let path = self.cx.path;
                            Err(self.cx.syntax_refusal(|| {
                                let rule = SyntaxError::Expected {
                                    what: "`->` and the container path",
                                    found: "nothing".into(),
                                };
                                rule.at(path, entry.span)
                            }))
                        }
                    };
                    let checked = self.check_mount_source(source, target.as_deref().ok());
                    match (checked, target) {
                        (Some(checked), Ok(_)) => EntryKind::Mount(MountSpec {
                            value: specs::at(k),
                            source: checked,
                            read_only: read_only.is_some(),
                        }),
                        (_, Err(refused)) => EntryKind::Refused(refused),
                        // Refused and reported by the entry's checks, or a source that
                        // reads nothing for a cause told before them.
                        (None, Ok(_)) => EntryKind::Refused(self.mount_source_told(source, before)),
                    }
                }
                ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                    let secret = matches!(entry.kind, ContainerEntryKind::Secret(_));
                    let what = if secret { "secret file" } else { "file" };
                    // Refused with its diagnostic; the entry's other checks go on.
                    let target = self.container_path(&file.target, &mut paths, true);
                    self.check_owner_and_mode(file.owner.as_ref(), file.mode.as_ref(), what);
                    let sealed = if secret {
                        self.check_secret_file(&file.value);
                        true
                    } else {
                        let val = self.eval(&file.value, Place::FileBody, DEF);
                        let _ = self.refuse_list_content(&file.value, &val, "a file's content");
                        val.secret.is_some()
                    };
                    if sealed && file.owner.is_none() && !has_user {
                        let what = if secret { "secret file" } else { "sealed file" };
                        self.unowned(c, &file.target, entry.span, what);
                    }
                    match target {
                        Ok(_) => {
                            let spec = FileSpec {
                                value: specs::at(k),
                                owner: file.owner.as_ref().map(|o| {
                                    let group = o.gid.as_ref().map_or(o.uid.value, |g| g.value);
                                    (uid(o.uid.value), uid(group))
                                }),
                                // In 0..=0o7777, or refused (E0314).
                                mode: file.mode.as_ref().map(|m| m.value as u16),
                            };
                            if secret {
                                EntryKind::Secret(spec)
                            } else {
                                EntryKind::File(spec)
                            }
                        }
                        Err(refused) => EntryKind::Refused(refused),
                    }
                }
                ContainerEntryKind::Publish(ident) => match self.check_publish(ident, published) {
                    Ok(req) => EntryKind::Publish(req as u32),
                    Err(refused) => EntryKind::Refused(refused),
                },
                ContainerEntryKind::ImagePaths(e) => {
                    self.check_image_paths(e, &mut paths);
                    EntryKind::ImagePaths
                }
            };
            // Any error the entry's checks reported refuses it.
            let kind = match self.refusal_since(before) {
                Some(refused) => EntryKind::Refused(refused),
                None => kind,
            };
            entries.push(kind);
        }
        self.when = None;
        if !has_image && !self.cx.is_broken(c.span) {
            let rule = InvalidLiteral::NoImage {
                container: &c.name.name,
            };
            self.cx.report(rule.at(self.cx.path, c.name.span));
        }
        if !envs.is_empty() {
            let held = HeldPaths::new(&paths.held);
            for (e, k, item) in envs {
                if let Some(refused) = self.check_env_path(c, e, &held)
                    && let Some((_, list)) = env_refused.iter_mut().find(|(at, _)| *at == k)
                {
                    list.push((item as u32, refused));
                }
            }
        }
        for (k, refused) in env_refused {
            entries[k] = EntryKind::Env(refused.into_boxed_slice());
        }
        self.specs.push(ContainerSpec {
            entries: entries.into_boxed_slice(),
        });
    }

    /// The proof of the first error reported since the sink held `before` diagnostics.
    fn refusal_since(&self, before: usize) -> Option<Reported> {
        Reported::among(&self.cx.sink.diagnostics[before..])
    }

    /// Enters the `when` block of an entry (or leaves any, for `None`). The block's
    /// requirement is checked once per block: it exists (E0104) and is optional (E0326).
    fn enter_when(&mut self, when: Option<&'a When>, seen: &mut Vec<Span>) {
        let Some(w) = when else {
            self.when = None;
            return;
        };
        let name = w.requirement.name.as_str();
        self.when = Some(name);
        if seen.contains(&w.span) {
            return;
        }
        seen.push(w.span);
        let Some((idx, _, req)) = self.scope.requirements.get_full(name) else {
            let help = self.unknown_requirement_help(name);
            if let Some(meant) =
                crate::diagnostics::closest(name, self.scope.requirements.keys().copied())
                && let Some(idx) = self.scope.requirements.get_index_of(meant)
            {
                self.used[idx] = true;
                // A typo names the requirement it meant: its reads under the block are not
                // told again.
                self.when = Some(meant);
            }
            let rule = UnknownRequirement::Named {
                module: &self.module.name.name,
                name,
                help,
                loop_var: None,
            };
            self.cx.report(rule.at(self.cx.path, w.requirement.span));
            return;
        };
        // The block's entries are what the requirement is wanted for.
        self.used[idx] = true;
        if !req.is_optional() && req.ast.optional.is_none() {
            let rule = NotOptional::When {
                requirement: name,
                module_kind: req.kind == Some(ProviderKind::Module),
                declared: req.ast.name.span,
            };
            self.cx.report(rule.at(self.cx.path, w.requirement.span));
        }
    }

    /// `image "ref"`: a valid reference (E0314), pinned to a tag or digest (W0002).
    fn check_image(&mut self, s: &'a StringLit) {
        if s.interpolations().next().is_some() {
            // Checked once resolved; only its flow is checked here.
            let val = self.eval_str(s, Place::Image);
            if let Some(taint) = val.secret {
                self.secret_refused(taint, Place::Image, &val);
            }
            return;
        }
        let text = plain_text(s);
        if let Err(why) = validate_image(&text) {
            let rule = InvalidLiteral::Image { text: &text, why };
            self.cx.report(rule.at(self.cx.path, s.span));
            return;
        }
        if image_has_digest(&text) {
            return;
        }
        match image_tag(&text) {
            Some(tag) if tag != "latest" => {}
            tag => {
                let name = text.split('@').next().unwrap_or(&text);
                let name = match tag {
                    Some(_) => name.rsplit_once(':').map_or(name, |(n, _)| n),
                    None => name,
                };
                let rule = Unpinned {
                    image: &text,
                    name,
                    latest: tag.is_some(),
                };
                self.cx.report(rule.at(self.cx.path, s.span));
            }
        }
    }

    /// `command […]`: a list of strings, never carrying a secret.
    fn check_command(&mut self, e: &'a Expr, place: Place<'static>) {
        let (what, keyword) = match place {
            Place::Health => ("the health test", "health"),
            _ => ("the command", "command"),
        };
        let Expr::List(items, _) = e else {
            let val = self.eval(e, place, DEF);
            if val.is_error() {
                return;
            }
            if let Some(taint) = val.secret {
                self.secret_refused(taint, place, &val);
                return;
            }
            let ok = match &val.ty {
                Ty::List(inner) => **inner == Ty::Error || inner.fits(&Ty::String),
                _ => false,
            };
            if !ok {
                let help = match (e, &val.ty) {
                    (Expr::Str(_), _) => {
                        format!("write one string per argument: `{keyword} [\"app\", \"--flag\"]`")
                    }
                    (_, Ty::List(_)) => "interpolate each value into a string".into(),
                    _ => format!("write {what} as a list: `{keyword} [\"app\", \"--flag\"]`"),
                };
                let rule = TypeMismatch::Command {
                    what,
                    a_type: a_type(&val.ty),
                    help,
                };
                self.cx.report(rule.at(self.cx.path, e.span()));
            }
            return;
        };
        for item in items {
            let val = self.eval(item, place, DEF);
            if val.is_error() {
                continue;
            }
            if let Some(taint) = val.secret {
                self.secret_refused(taint, place, &val);
                continue;
            }
            if val.ty.fits(&Ty::String) {
                continue;
            }
            let help = match item {
                Expr::Ref(r) => format!("interpolate it: `\"${{{}}}\"`", r.dotted()),
                Expr::Int(i) => format!("write it as text: `\"{}\"`", i.value),
                Expr::Bool(b, _) => format!("write it as text: `\"{b}\"`"),
                _ => "write each argument as a string".into(),
            };
            let rule = TypeMismatch::CommandArgument {
                what,
                a_type: a_type(&val.ty),
                help,
            };
            self.cx.report(rule.at(self.cx.path, item.span()));
        }
    }

    /// `health ARGV [every D] [start D] [retries N]` (LANGUAGE.md §14.1, §14.7).
    /// Returns its spec: the options it accepts (one it refuses is reported, and the
    /// entry with it).
    fn check_health(&mut self, entry: usize, h: &'a Health) -> HealthSpec {
        let mut spec = HealthSpec {
            test: specs::arguments(entry, &h.argv),
            interval: None,
            start_period: None,
            retries: None,
        };
        self.check_command(&h.argv, Place::Health);
        if let Expr::List(items, _) = &h.argv
            && items.is_empty()
        {
            self.cx
                .report(BadHealth::EmptyTest.at(self.cx.path, h.argv.span()));
        }
        let mut seen: Vec<(HealthOptionKind, Span)> = Vec::new();
        for o in h.options.iter() {
            let option = o.kind.word();
            if let Some(&(_, first)) = seen.iter().find(|(k, _)| *k == o.kind) {
                let rule = BadHealth::OptionTwice { option, first };
                let at = o.keyword.to(o.value.span());
                self.cx.report(rule.at(self.cx.path, at));
                continue;
            }
            seen.push((o.kind, o.keyword.to(o.value.span())));
            let refused = match (o.kind, &o.value) {
                (_, Expr::Error(_)) => None, // a syntax error, told
                (HealthOptionKind::Retries, Expr::Int(n)) if n.value >= 1 => None,
                (HealthOptionKind::Retries, Expr::Int(n)) => Some(BadHealth::Retries {
                    value: Some(n.value),
                }),
                (HealthOptionKind::Retries, _) => Some(BadHealth::Retries { value: None }),
                (_, Expr::Str(s)) => match s.as_plain() {
                    Some(text) => validate_duration(&text)
                        .err()
                        .map(|reason| BadHealth::Duration { option, reason }),
                    None => Some(BadHealth::Duration {
                        option,
                        reason: "a duration is written out, not interpolated".into(),
                    }),
                },
                _ => Some(BadHealth::Duration {
                    option,
                    reason: "a duration is a string, like `\"30s\"`".into(),
                }),
            };
            if let Some(rule) = refused {
                self.cx.report(rule.at(self.cx.path, o.value.span()));
                continue;
            }
            match (o.kind, &o.value) {
                (HealthOptionKind::Retries, Expr::Int(n)) => spec.retries = Some(n.value),
                (kind, Expr::Str(s)) => {
                    let text = s.as_plain().map(String::into_boxed_str);
                    match kind {
                        HealthOptionKind::Every => spec.interval = text,
                        _ => spec.start_period = text,
                    }
                }
                _ => {}
            }
        }
        spec
    }

    /// `owner UID[:GID]` (each in the uid range, E0304) and `mode` (E0314) on a file or
    /// secret file.
    fn check_owner_and_mode(&mut self, owner: Option<&Owner>, mode: Option<&IntLit>, what: &str) {
        if let Some(o) = owner {
            for (n, which) in
                std::iter::once((&o.uid, "owner")).chain(o.gid.as_ref().map(|g| (g, "group")))
            {
                if !(0..=MAX_UID).contains(&n.value) {
                    let rule = Breach::Uid {
                        what,
                        which,
                        max: MAX_UID,
                        value: n.value,
                    };
                    self.cx.report(rule.at(self.cx.path, n.span));
                }
            }
        }
        if let Some(m) = mode {
            // A refused mode is reported; the entry's other checks go on.
            let _ = check_mode_literal(
                self.cx,
                m.value,
                m.radix,
                m.span,
                What::Text(if what == "file" {
                    "the file's mode"
                } else {
                    "the secret file's mode"
                }),
            );
        }
    }

    /// W0004: a secret file or sealed file with no `owner` in a container with no `user`:
    /// it is delivered owned by root and readable by its owner and group only.
    fn unowned(&mut self, c: &Container, target: &StringLit, at: Span, what: &str) {
        let path = plain_text(target);
        let rule = RootOnly {
            what,
            path: &path,
            container: &c.name.name,
        };
        self.cx.report(rule.at(self.cx.path, at));
    }

    /// `user UID[:GID]`: an int in the uid range, and a group in it.
    fn check_user(&mut self, u: &'a User) {
        if let Some(g) = &u.gid
            && !(0..=MAX_UID).contains(&g.value)
        {
            let rule = Breach::Uid {
                what: "container",
                which: "group",
                max: MAX_UID,
                value: g.value,
            };
            self.cx.report(rule.at(self.cx.path, g.span));
        }
        let e = &u.uid;
        let val = self.eval(e, Place::User, DEF);
        if val.is_error() {
            return;
        }
        if let Some(taint) = val.secret {
            self.secret_refused(taint, Place::User, &val);
            return;
        }
        let constraint = Constraint::of_type(&Ty::Uid);
        self.check_fit(
            e,
            &val,
            &Slot {
                what: What::Text("`user`"),
                ty: &Ty::Uid,
                constraint: &constraint,
                secret: false,
                decl: None,
            },
        );
    }

    /// One env entry: any value converts to text, except a secret (E0302, unless
    /// `exposed` with a reason: E0308) and a host path (E0303, in `eval`).
    fn check_env_entry(&mut self, e: &'a EnvEntry) {
        let place = Place::Env(&e.key.name);
        let val = self.eval(&e.value, place, DEF);
        let reasoned = e.exposed.as_ref().map(|x| {
            x.reason
                .as_ref()
                .is_some_and(|r| !r.literal_text().trim().is_empty())
        });
        match (val.secret, &e.exposed, reasoned) {
            (Some(taint), None, _) => self.secret_refused(taint, place, &val),
            (None, Some(x), _) if !val.is_error() => {
                // Written as if it were a secret: the excerpt does not show it.
                let rule = ExposedEnv::NoSecret {
                    key: &e.key.name,
                    value: e.value.span(),
                };
                self.cx.report(rule.at(self.cx.path, x.span));
            }
            (_, Some(x), Some(false)) => {
                let rule = ExposedEnv::NoReason { key: &e.key.name };
                self.cx.report(rule.at(self.cx.path, x.span));
            }
            _ => {}
        }
    }

    /// E0401: an env value whose text begins with `/` names a path the process reads;
    /// it must lie at or under a path the container holds.
    fn check_env_path(
        &mut self,
        c: &Container,
        e: &EnvEntry,
        held: &HeldPaths<'_>,
    ) -> Option<Reported> {
        let Expr::Str(s) = &e.value else {
            return None;
        };
        let Some(StrPart::Text(text)) = s.parts.first() else {
            return None;
        };
        if !text.starts_with('/') {
            return None;
        }
        let continued = s.parts.len() > 1;
        let mut pieces = text.split(':').peekable();
        while let Some(piece) = pieces.next() {
            let last = pieces.peek().is_none();
            if !piece.starts_with('/') {
                continue;
            }
            let path = piece.split(char::is_whitespace).next().unwrap_or(piece);
            // A path an interpolation continues is known only up to its last `/`.
            let open = last && continued && path.len() == piece.len();
            let known = if open {
                match path.rfind('/') {
                    Some(0) | None => "/",
                    Some(i) => &path[..i],
                }
            } else {
                path
            };
            if held.holds(known) {
                continue;
            }
            let (shown, help) = if !open {
                let dir = match path.rfind('/') {
                    Some(0) | None => path,
                    Some(i) => &path[..i],
                };
                (format!("`{path}`"), held_help(dir))
            } else if path.ends_with('/') {
                (format!("a path under `{known}`"), held_help(known))
            } else {
                (
                    format!("a path beginning `{path}`"),
                    format!(
                        "only what follows a `/` is known to lie under a directory: if the interpolation is a name inside `{path}`, write `{path}/${{…}}`; {}",
                        held_help(path)
                    ),
                )
            };
            let rule = EnvPathNotHeld {
                key: &e.key.name,
                shown,
                container: &c.name.name,
                help,
            };
            return Some(self.cx.refuse(rule.at(self.cx.path, e.value.span())));
        }
        None
    }

    /// A container path (mount, secret or file target): absolute and normalised
    /// (E0315). Returns its text when it is one, else the refusal; written paths are
    /// checked for duplicates (E0403), which refuses nothing.
    fn container_path(
        &mut self,
        s: &'a StringLit,
        paths: &mut Paths<'a>,
        written: bool,
    ) -> Result<Cow<'a, str>, Reported> {
        if s.interpolations().next().is_some() {
            self.eval_str(s, Place::ContainerPath);
            let rule = ContainerPath::Interpolates;
            return Err(self.cx.refuse(rule.at(self.cx.path, s.span)));
        }
        let text = plain_text(s);
        if let Err(why) = validate_container_path(&text) {
            let rule = ContainerPath::NotNormal { text: &text, why };
            return Err(self.cx.refuse(rule.at(self.cx.path, s.span)));
        }
        if written {
            let key: &'a str = match &text {
                Cow::Borrowed(b) => b,
                Cow::Owned(_) => {
                    // Escapes in a path: rare; compare the decoded text without keeping it.
                    paths.held.push(text.clone());
                    return Ok(text);
                }
            };
            if let Some(first) = paths.written.insert(key, s.span) {
                let rule = PathWrittenTwice {
                    container: paths.container,
                    path: key,
                    first,
                };
                self.cx.report(rule.at(self.cx.path, s.span));
            }
        }
        paths.held.push(text.clone());
        Ok(text)
    }

    /// `mount SOURCE -> …`: the source is a directory's or access's `path` (E0317); a
    /// literal host path is the old form (W0401). Returns where the host path comes from,
    /// or `None` when the source is refused (reported).
    fn check_mount_source(
        &mut self,
        source: &'a Expr,
        target: Option<&str>,
    ) -> Option<MountSource> {
        match source {
            Expr::Ref(r) => {
                let target_read = self.resolve(r, DEF)?;
                // A host path of an operator value is refused where it is declared.
                if self.target_ty(target_read) == Ty::HostPath {
                    // A `host access` the module does not write is mounted read-only.
                    let first = r.segments.first().map_or("", |s| s.name.as_str());
                    let access = self
                        .scope
                        .requirements
                        .get_full(first)
                        .filter(|(_, _, req)| req.host_contract() == Some(HostContract::Access))
                        .map(|(idx, _, _)| idx as u32);
                    return Some(MountSource::Path { access });
                }
                let name = self.target_name(target_read);
                let help = match target_read {
                    Target::Field { req, .. } => {
                        let info = &self.scope.requirements[req];
                        match info.contract_name().and_then(HostContract::from_name) {
                            Some(host) if host.is_path() => {
                                format!("mount its path: `mount {}.path -> …`", info.name())
                            }
                            Some(HostContract::Port) => format!(
                                "`{}` is a port: open it with `publish {}`",
                                info.name(),
                                info.name()
                            ),
                            _ => "mount the `path` of a `host directory` or `host access` requirement".into(),
                        }
                    }
                    Target::Operator { .. } => "a place on the machine chosen by the operator is a `host access` requirement placed by the assignment: `requires NAME: host access`, then `mount NAME.path -> …`".into(),
                    _ => "mount the `path` of a `host directory` or `host access` requirement".into(),
                };
                let rule = MountSourceRule::Reference { name: &name, help };
                self.cx.report(rule.at(self.cx.path, r.span()));
                None
            }
            Expr::Str(s) if s.interpolations().next().is_none() => {
                let text = plain_text(s);
                if text == "/" {
                    self.mount_source_refused(s.span, "the host's root `/`");
                } else if text.starts_with('/') && super::types::invisible_in_path(&text).is_err() {
                    self.mount_source_refused(
                        s.span,
                        "a host path holding a control or bidirectional formatting character",
                    );
                } else if text.starts_with('/') && validate_container_path(&text).is_err() {
                    // Used as written, `/srv/../etc/shadow` would mount `/etc/shadow`.
                    self.mount_source_refused(
                        s.span,
                        "a host path that climbs with `..` or is not normalised",
                    );
                } else if text.starts_with('/') {
                    self.literal_mount_source(s.span, &text, target);
                    return Some(MountSource::Literal);
                } else {
                    self.mount_source_refused(source.span(), "a relative host path");
                }
                None
            }
            Expr::Str(s) => {
                let val = self.eval_str(s, Place::MountSource);
                if !val.is_error() {
                    self.mount_source_refused(source.span(), "an interpolated string");
                }
                None
            }
            Expr::Error(_) => None,
            other => {
                self.mount_source_refused(other.span(), "this value");
                None
            }
        }
    }

    /// The proof of why mount source `source` gives no mount: an error the entry's checks
    /// reported (since `before`); else what the parser could not read (its syntax
    /// error); else a reference through a requirement whose contract the checker could
    /// not find, told at the requirement (E0103, or E0201 for an unknown kind) before the
    /// containers were checked. Each is among the module's errors, so the entry never
    /// reaches a build (the manifest builder met it as a gate no test reached). None is
    /// left: were one, the mount is refused here (E0317) rather than dropped in silence.
    fn mount_source_told(&mut self, source: &'a Expr, before: usize) -> Reported {
        if let Some(told) = self.refusal_since(before) {
            return told;
        }
        if let Expr::Error(_) = source {
            let (path, span) = (self.cx.path, source.span());
            return self.cx.syntax_refusal(|| {
                let rule = SyntaxError::Expected {
                    what: "a mount source",
                    found: "nothing".into(),
                };
                rule.at(path, span)
            });
        }
        if let Some(told) = self.unresolved_requirement_told() {
            return told;
        }
        let rule = MountSourceRule::Written {
            what: "a reference that reads nothing",
        };
        self.cx.refuse(rule.at(self.cx.path, source.span()))
    }

    /// The proof that a requirement of this module whose contract the checker could not
    /// find (a reference through it reads nothing: `RefError::Unresolved`) was told so
    /// at its declaration.
    fn unresolved_requirement_told(&self) -> Option<Reported> {
        let declared: Vec<Span> = self
            .scope
            .requirements
            .values()
            .zip(&self.contracts)
            .filter(|(r, c)| c.is_none() && r.operator.is_none())
            .map(|(r, _)| r.ast.span)
            .collect();
        if declared.is_empty() {
            return None;
        }
        let path = self.cx.path;
        Reported::among(self.cx.sink.diagnostics.iter().filter(|d| {
            d.file == *path
                && declared
                    .iter()
                    .any(|s| s.start <= d.span.start && d.span.end <= s.end)
        }))
    }

    fn mount_source_refused(&mut self, span: Span, what: &str) {
        self.cx
            .report(MountSourceRule::Written { what }.at(self.cx.path, span));
    }

    /// `secret "/path" = VALUE`: the value must be secret (E0309).
    fn check_secret_file(&mut self, value: &'a Expr) {
        let val = self.eval(value, Place::SecretFile, DEF);
        if self
            .refuse_list_content(value, &val, "a secret file's content")
            .is_err()
        {
            return;
        }
        if val.is_error() || val.secret.is_some() {
            return;
        }
        let name = val.target.map(|t| self.target_name(t));
        let rule = match (value, &name) {
            (_, Some(name)) => SecretFilePlain::Reference { name },
            (Expr::Str(_), None) if val.interpolated => SecretFilePlain::Interpolated,
            (Expr::Str(_), None) => SecretFilePlain::Literal,
            _ => SecretFilePlain::Other,
        };
        self.cx.report(rule.at(self.cx.path, value.span()));
    }

    /// E0301 for a list as a file's content: a file holds text (any one value converts
    /// to it). Refuses a list with what it reported.
    fn refuse_list_content(
        &mut self,
        value: &Expr,
        val: &Val<'a>,
        what: &str,
    ) -> Result<(), Reported> {
        if !matches!(val.ty, Ty::List(_)) {
            return Ok(());
        }
        // A file's content may be sealed like a secret: the excerpt does not show it.
        let rule = TypeMismatch::FileContent {
            what: &what,
            a_type: a_type(&val.ty),
        };
        Err(self.cx.refuse(rule.at(self.cx.path, value.span())))
    }

    /// `publish REQ`: a `host port` requirement (E0316), published once. Returns the
    /// requirement's index in the scope, or the refusal.
    fn check_publish(
        &mut self,
        ident: &'a Ident,
        published: &mut Seen<'a>,
    ) -> Result<usize, Reported> {
        let Some((idx, _, req)) = self.scope.requirements.get_full(ident.name.as_str()) else {
            let help = self.unknown_requirement_help(&ident.name);
            if let Some(meant) =
                crate::diagnostics::closest(&ident.name, self.scope.requirements.keys().copied())
                && let Some(idx) = self.scope.requirements.get_index_of(meant)
            {
                self.used[idx] = true;
                // The typo stands for it: no E0323 on top.
                published.insert(meant, ident.span);
            }
            let rule = UnknownRequirement::Named {
                module: &self.module.name.name,
                name: &ident.name,
                help,
                loop_var: None,
            };
            return Err(self.cx.refuse(rule.at(self.cx.path, ident.span)));
        };
        self.used[idx] = true;
        let is_port = req.contract_name().and_then(HostContract::from_name)
            == Some(HostContract::Port)
            && req.kind.is_none_or(|k| k != ProviderKind::Operator);
        if !is_port {
            let (what, help) = if req.operator.is_some() {
                (
                    format!("`{}` is an operator value", ident.name),
                    format!(
                        "require a port from the host and publish it: `requires http: host port {{ container = {} }}`, then `publish http`",
                        ident.name
                    ),
                )
            } else {
                (
                    format!(
                        "`{}` is a `{} {}` requirement",
                        ident.name,
                        req.kind.map_or("?", ProviderKind::as_str),
                        req.contract_name().unwrap_or("?")
                    ),
                    "publish a `host port` requirement: `requires http: host port { container = 8080 }`".into(),
                )
            };
            let rule = PublishNotPort { what, help };
            return Err(self.cx.refuse(rule.at(self.cx.path, ident.span)));
        }
        if let Some(first) = published.insert(&ident.name, ident.span) {
            let rule = Duplicate::Published {
                requirement: &ident.name,
                first,
            };
            duplicate(self.cx, ident.span, rule);
        }
        Ok(idx)
    }

    /// `image_paths [...]`: absolute, normalised container paths the image holds.
    fn check_image_paths(&mut self, e: &'a Expr, paths: &mut Paths<'a>) {
        let Expr::List(items, _) = e else {
            let val = self.eval(e, Place::ImagePaths, DEF);
            self.image_path_value(e, &val, true);
            return;
        };
        for item in items {
            match item {
                Expr::Str(s) => {
                    let _ = self.container_path(s, paths, false);
                }
                other => {
                    let val = self.eval(other, Place::ImagePaths, DEF);
                    self.image_path_value(other, &val, false);
                }
            }
        }
    }

    fn image_path_value(&mut self, e: &Expr, val: &Val<'a>, whole: bool) {
        if val.is_error() {
            return;
        }
        if let Some(taint) = val.secret {
            self.secret_refused(taint, Place::ImagePaths, val);
            return;
        }
        let want = if whole {
            Ty::List(Box::new(Ty::Path))
        } else {
            Ty::Path
        };
        if !val.ty.fits(&want) {
            let rule = TypeMismatch::ImagePaths {
                expected: a_type(&want),
                found: a_type(&val.ty),
            };
            self.cx.report(rule.at(self.cx.path, e.span()));
        }
    }

    /// Evaluates a string literal (not wrapped in an expression).
    fn eval_str(&mut self, s: &'a StringLit, place: Place<'_>) -> Val<'a> {
        self.eval_string(s, place, DEF)
    }
}

/// A uid or gid the checker accepted (in the uid range; one outside it is refused,
/// E0304, and the entry with it).
fn uid(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

/// The paths a container holds, asked whether a path lies at or under one of them. A
/// few are scanned; many are put in a set and each ancestor of the path looked up, so a
/// container with thousands of mounts and env entries is not checked in square time.
struct HeldPaths<'p> {
    few: &'p [Cow<'p, str>],
    many: Option<std::collections::HashSet<&'p str>>,
}

impl<'p> HeldPaths<'p> {
    fn new(held: &'p [Cow<'p, str>]) -> Self {
        let many = (held.len() > 16).then(|| {
            held.iter()
                .map(|h| h.trim_end_matches('/'))
                .collect::<std::collections::HashSet<&str>>()
        });
        HeldPaths { few: held, many }
    }

    /// Whether `path` is a held path or lies under one.
    fn holds(&self, path: &str) -> bool {
        // `/data/../etc/shadow` starts with a held `/data` but leads elsewhere: a path
        // that climbs (or is not normalised) is held by nothing.
        if !super::types::plainly_normal(path)
            && (path.split('/').any(|seg| seg == ".." || seg == ".") || path.contains("//"))
        {
            return false;
        }
        let Some(set) = &self.many else {
            return self.few.iter().any(|h| path_is_under(path, h));
        };
        // The root, held as "" once its `/` is trimmed, holds everything.
        if set.contains("") || set.contains(path) {
            return true;
        }
        path.match_indices('/')
            .any(|(i, _)| i > 0 && set.contains(&path[..i]))
    }
}

/// The help of E0401: the ways a container comes to hold `dir`.
fn held_help(dir: &str) -> String {
    format!(
        "mount a directory there (`mount REQ.path -> \"{dir}\"`), write the file with `file` or `secret`, or, if the image ships it, declare `image_paths [\"{dir}\"]`"
    )
}

/// The text of a string without interpolation, borrowed when it is one piece.
pub(crate) fn plain_text(s: &StringLit) -> Cow<'_, str> {
    match &*s.parts {
        [StrPart::Text(t)] => Cow::Borrowed(t),
        _ => Cow::Owned(s.literal_text()),
    }
}
