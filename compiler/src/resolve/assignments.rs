//! The entries of an assignment, judged where they are written (LANGUAGE.md §6): operator
//! values and given fields must fit their requirement (E0513), name a requirement the
//! module has (E0517) of the right kind (E0516), never a secret operator value (E0512);
//! pins name an instance of the mesh (E0107, E0109); placements stay on the instance's
//! own node (E0506). An entry written twice is refused (E0102).

use super::fx_hash::FxHashMap;
use super::host::{is_short, validate_host_path};
use super::{Entries, IdVec, InstanceId, KnownInstance, Placement, Refusals, Resolver, Settings};
use crate::check::registry::ProviderKind;
use crate::check::scope::ReqInfo;
use crate::check::types::{Constraint, Ty, Value, validate_literal};
use crate::diagnostics::rules::{Duplicate, UnknownField};
use crate::diagnostics::{Code, Diagnostic, Rule, closest};
use crate::span::Span;
use crate::syntax::ast::{AssignEntryKind, Expr, Ident, StrPart};

/// Why a mesh value does not fit, in words; `None` when the value did not parse (the
/// parser said so).
pub(crate) fn judge_literal(
    expr: &Expr,
    ty: &Ty,
    constraint: &Constraint,
) -> Result<Value, Option<String>> {
    let value = literal_of_type(expr, ty)?;
    if let Some(breach) = constraint.check(&value) {
        return Err(Some(breach.to_string()));
    }
    Ok(value)
}

fn literal_of_type(expr: &Expr, ty: &Ty) -> Result<Value, Option<String>> {
    match expr {
        Expr::Error(_) => return Err(None),
        // The word is not quoted: a value written without its quotes may be a secret.
        Expr::Ref(_) => {
            return Err(Some(
                "a value in a mesh is a literal, written in quotes; a bare word reads nothing here"
                    .into(),
            ));
        }
        Expr::Str(s) if s.as_plain().is_none() => {
            return Err(Some(
                "a value in a mesh is a literal; `${…}` reads nothing here".into(),
            ));
        }
        Expr::Range(_) => return Err(Some(format!("a range is not a {ty}"))),
        // Refused where it is written (E0314); a value in error is no value.
        Expr::Str(s) if s.parts.iter().any(|p| matches!(p, StrPart::Text(t) if t.chars().any(|c| crate::syntax::string::invisible_char(c).is_some()))) => {
            return Err(Some(
                "the text holds a control or bidirectional formatting character".into(),
            ));
        }
        _ => {}
    }
    let value = Value::from_literal(expr).ok_or_else(|| Some(format!("not a {ty}")))?;
    let fits = match (ty, &value) {
        (Ty::Error, _) => true,
        (t, Value::Int(_)) if t.is_int() => true,
        (Ty::Bool, Value::Bool(_)) => true,
        (Ty::HostPath, Value::Str(s)) => {
            validate_host_path(s).map_err(Some)?;
            true
        }
        (t, Value::Str(_)) if t.is_textual() => {
            validate_literal(t, &value).map_err(|why| Some(format!("not a valid {t}: {why}")))?;
            true
        }
        (Ty::List(inner), Value::List(_)) => {
            if let Expr::List(items, _) = expr {
                for item in items {
                    literal_of_type(item, inner)?;
                }
            }
            true
        }
        _ => false,
    };
    if fits {
        Ok(value)
    } else {
        let what = match &value {
            Value::Str(_) => "text",
            Value::Int(_) => "a number",
            Value::Bool(_) => "a boolean",
            Value::List(_) => "a list",
        };
        Err(Some(format!(
            "it is {what}, and the requirement wants a value of type {ty}"
        )))
    }
}

impl<'m> Resolver<'m> {
    /// The entries phase: judges what every assignment writes in its braces.
    pub(super) fn judge_entries(&self) -> Entries<'m> {
        let mut settings = IdVec::default();
        settings.reserve_exact(self.instances.len());
        let mut refusals = Refusals::new(self.instances.len());
        for i in self.instances.ids() {
            let mut judge = Judge {
                r: self,
                settings: Settings::default(),
                refusals: Vec::new(),
            };
            judge.judge_entries(i);
            settings.push(judge.settings);
            for d in judge.refusals {
                refusals.push(i, d);
            }
        }
        Entries { settings, refusals }
    }
}

/// The entries of one assignment being judged: what it writes, and its refusals. Reads
/// the mesh's names through [`Resolver`].
struct Judge<'r, 'm> {
    r: &'r Resolver<'m>,
    settings: Settings<'m>,
    refusals: Vec<Diagnostic>,
}

impl<'m> std::ops::Deref for Judge<'_, 'm> {
    type Target = Resolver<'m>;
    fn deref(&self) -> &Resolver<'m> {
        self.r
    }
}

impl<'m> Judge<'_, 'm> {
    /// Records a refusal of the assignment being judged (`_i`).
    fn refuse(&mut self, _i: InstanceId, diagnostic: Diagnostic) {
        self.refusals.push(diagnostic);
    }

    /// Judges the entries of instance `i`'s assignment and records them in its settings.
    fn judge_entries(&mut self, i: InstanceId) {
        let a = self.instances[i].assign;
        let known = self.known(i);
        let mut seen: FxHashMap<String, Span> = FxHashMap::default();
        for entry in &a.entries {
            let (key, name) = match &entry.kind {
                AssignEntryKind::Value { name, .. } => (name.name.to_string(), name),
                AssignEntryKind::Given {
                    requirement, field, ..
                } => (format!("{}.{}", requirement.name, field.name), requirement),
                // A pin and `absent` say who answers: one of them, once.
                AssignEntryKind::Pin { requirement, .. }
                | AssignEntryKind::Absent { requirement } => {
                    (format!("{} from", requirement.name), requirement)
                }
                AssignEntryKind::Place { requirement, .. } => {
                    (format!("{} at", requirement.name), requirement)
                }
                AssignEntryKind::KeepNetwork { keyword, network } => {
                    self.judge_keep_network(i, *keyword, network, entry.span);
                    continue;
                }
                AssignEntryKind::Genesis { keyword } => {
                    if self.settings.genesis {
                        let rule = Duplicate::Genesis {
                            instance: &self.instances[i].name,
                            node: self.node_name(i),
                        };
                        let d = rule.at(self.path, *keyword);
                        self.refuse(i, d);
                    }
                    self.settings.genesis = true;
                    continue;
                }
            };
            if let Some(first) = seen.get(&key) {
                let rule = Duplicate::AssignEntry {
                    key: key.trim_end_matches(" from").trim_end_matches(" at"),
                    instance: &self.instances[i].name,
                    node: self.node_name(i),
                    first: *first,
                };
                let d = rule.at(self.path, entry.span);
                self.refuse(i, d);
                continue;
            }
            seen.insert(key, entry.span);
            if let AssignEntryKind::Value { name, value } = &entry.kind
                && name.name == "short"
            {
                self.judge_short(i, value);
                continue;
            }
            let Some(k) = known else {
                continue; // unknown module: refused once (E0106)
            };
            let m = k.module;
            let Some(req) = m.scope.requirements.get(name.name.as_str()) else {
                let names: Vec<&str> = m.scope.requirements.keys().copied().collect();
                let help = match closest(&name.name, names.iter().copied()) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None if names.is_empty() => format!("module `{}` has no requirement", m.name),
                    None => format!(
                        "the requirements of `{}` are {}",
                        m.name,
                        crate::diagnostics::capped_sorted(
                            names.iter().map(|n| format!("`{n}`")).collect()
                        )
                    ),
                };
                let d = self
                    .diag(
                        Code::E0517,
                        name.span,
                        format!(
                            "module `{}` has no requirement `{}` (instance `{}` on node `{}`)",
                            m.name,
                            name.name,
                            self.instances[i].name,
                            self.node_name(i)
                        ),
                    )
                    .with_help(help);
                self.refuse(i, d);
                continue;
            };
            match &entry.kind {
                AssignEntryKind::Value { name, value } => {
                    self.judge_operator_value(k, req, name, value, entry.span)
                }
                AssignEntryKind::Given {
                    requirement,
                    field,
                    value,
                } => self.judge_given(k, req, requirement, field, value),
                AssignEntryKind::Pin {
                    requirement,
                    instance,
                    node,
                } => self.judge_pin(k, req, requirement, instance, node.as_ref(), entry.span),
                AssignEntryKind::Place {
                    requirement,
                    at,
                    node,
                } => self.judge_place(k, req, requirement, at, node.as_ref(), entry.span),
                AssignEntryKind::Absent { requirement } => {
                    self.judge_absent(k, req, requirement, entry.span)
                }
                AssignEntryKind::KeepNetwork { .. } | AssignEntryKind::Genesis { .. } => {}
            }
        }
    }

    /// `NAME absent`: only an optional requirement may be declined (E0326).
    fn judge_absent(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        name: &'m Ident,
        span: Span,
    ) {
        let i = k.id;
        if req.is_optional() {
            self.settings.absent.insert(name.name.as_str());
            return;
        }
        let key = req.name();
        let kind = req.kind.map(|k| k.as_str()).unwrap_or("contract");
        let help = if req.kind == Some(ProviderKind::Module) {
            format!(
                "a requirement is made optional in its definition: `requires {key}?: module …`; or remove `{key} absent`"
            )
        } else {
            format!(
                "only a module requirement can be optional, and `{key}` is a {kind} requirement: remove `{key} absent`"
            )
        };
        let d = self
            .diag(
                Code::E0326,
                span,
                format!(
                    "`{key}` of instance `{}` on node `{}` is not optional; it cannot be declined with `absent`",
                    self.instances[i].name,
                    self.node_name(i)
                ),
            )
            .with_label_in(
                &k.module.path,
                req.ast.span,
                "required here, without `?`",
            )
            .with_help(help);
        self.refuse(i, d);
    }

    /// `keep_network "NAME"`: a found network's name, only on an adopted node (E0325).
    fn judge_keep_network(&mut self, i: InstanceId, keyword: Span, network: &Expr, span: Span) {
        let name = match network {
            Expr::Str(s) => s.as_plain(),
            _ => None,
        };
        let Some(name) = name.filter(|n| is_network_name(n)) else {
            if !matches!(network, Expr::Error(_)) {
                let d = self
                    .diag(
                        Code::E0513,
                        network.span(),
                        format!(
                            "`keep_network` on instance `{}` on node `{}` names a network: letters, digits, `_`, `.` and `-`, in quotes, with no `${{…}}`",
                            self.instances[i].name,
                            self.node_name(i)
                        ),
                    )
                    .with_help("e.g. `keep_network \"legacy\"`");
                self.refuse(i, d);
            }
            return;
        };
        let node = self.instances[i].node;
        if !self.nodes[node].adopted {
            let node_name = self.nodes[node].name.clone();
            let node_span = self.nodes[node].ast.name.span;
            let d = self
                .diag(
                    Code::E0325,
                    keyword.to(span),
                    format!(
                        "`keep_network \"{name}\"` on instance `{}`, but node `{node_name}` is not marked `adopted`",
                        self.instances[i].name
                    ),
                )
                .with_label(node_span, "this node is not adopted")
                .with_help(format!(
                    "a found network exists only on a machine that ran services before the mesh: write `adopted = true` in node `{node_name}`, or remove the line"
                ));
            self.refuse(i, d);
            return;
        }
        let kept = &mut self.settings.keep_networks;
        if kept.iter().any(|k| k == &name) {
            let rule = Duplicate::KeepNetwork {
                name: &name,
                instance: &self.instances[i].name,
            };
            let d = rule.at(self.path, span);
            self.refuse(i, d);
            return;
        }
        kept.push(name);
    }

    /// `short = "stg"`: 1 to 4 of `[a-z0-9]`, starting with a letter.
    fn judge_short(&mut self, i: InstanceId, value: &Expr) {
        match value {
            Expr::Str(s) if s.as_plain().is_some_and(|v| is_short(&v, 4)) => {
                self.settings.short = s.as_plain();
            }
            Expr::Error(_) => {}
            _ => {
                let d = self
                    .diag(
                        Code::E0513,
                        value.span(),
                        format!(
                            "the short form of instance `{}` on node `{}` does not fit: it is 1 to 4 of `a-z` and `0-9`, starting with a letter, in quotes",
                            self.instances[i].name,
                            self.node_name(i)
                        ),
                    )
                    .with_help("e.g. `short = \"stg\"`; it ends the instance's login");
                self.refuse(i, d);
            }
        }
    }

    /// A diagnostic naming node, instance and key for a value that does not fit (E0513).
    /// `default`: whether leaving the entry out takes a default, so the help offers it
    /// only where there is one.
    fn does_not_fit(
        &self,
        i: InstanceId,
        key: &str,
        span: Span,
        why: &str,
        default: bool,
    ) -> Diagnostic {
        self.diag(
            Code::E0513,
            span,
            format!(
                "the value of `{key}` for instance `{}` on node `{}` does not fit: {why}",
                self.instances[i].name,
                self.node_name(i)
            ),
        )
        .with_help(if default {
            format!(
                "write a literal that fits `{key}` as the module declares it (see the label), or leave it out to take the default"
            )
        } else {
            format!(
                "write a literal that fits `{key}` as the module declares it (see the label); it has no default, so the assignment must give one"
            )
        })
    }

    fn judge_operator_value(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        name: &'m Ident,
        value: &'m Expr,
        span: Span,
    ) {
        let i = k.id;
        let key = req.name();
        let Some(op) = &req.operator else {
            let kind = req.kind.map(|k| k.as_str()).unwrap_or("contract");
            let d = self
                .diag(
                    Code::E0516,
                    span,
                    format!(
                        "`{key}` of instance `{}` on node `{}` is a {kind} requirement; `{key} = …` sets an operator value",
                        self.instances[i].name,
                        self.node_name(i)
                    ),
                )
                .with_label_in(&k.module.path, req.ast.span, "required here")
                .with_help(self.entry_help(req));
            self.refuse(i, d);
            return;
        };
        if op.secret {
            let d = self
                .diag(
                    Code::E0512,
                    span,
                    format!(
                        "`{key}` of instance `{}` on node `{}` is a secret operator value; it is never written in a mesh",
                        self.instances[i].name,
                        self.node_name(i)
                    ),
                )
                // The value written may be the secret itself: the excerpt does not show it.
                .with_redacted(value.span())
                .with_label_in(&k.module.path, req.ast.span, "declared secret here")
                .with_help(
                    "remove it from the mesh and deliver it to the vault: the holder of the `vault` seat keeps it under the instance's login",
                );
            self.refuse(i, d);
            self.settings.values.insert(name.name.as_str(), None);
            return;
        }
        match judge_literal(value, &op.ty, &op.constraint) {
            Ok(v) => {
                self.settings.values.insert(key, Some(v));
            }
            Err(why) => {
                let why = why.unwrap_or_else(|| "the value did not parse".into());
                let mut d = self
                    .does_not_fit(i, key, value.span(), &why, op.default.is_some())
                    .with_label_in(
                        &k.module.path,
                        req.ast.span,
                        format!("`{key}` is an operator {}", op.ty),
                    );
                if let Some(help) = quoted_bool_help(key, &op.ty, value) {
                    d = d.with_help(help);
                }
                self.refuse(i, d);
                self.settings.values.insert(key, None);
            }
        }
    }

    fn judge_given(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        requirement: &'m Ident,
        field: &'m Ident,
        value: &'m Expr,
    ) {
        let i = k.id;
        let key = format!("{}.{}", requirement.name, field.name);
        let path = k.module.path.clone();
        if req.operator.is_some() {
            let d = self
                .diag(
                    Code::E0516,
                    requirement.span.to(field.span),
                    format!(
                        "`{}` of instance `{}` on node `{}` is an operator value; it has no fields",
                        requirement.name,
                        self.instances[i].name,
                        self.node_name(i)
                    ),
                )
                .with_help(format!("set it with `{} = …`", requirement.name));
            self.refuse(i, d);
            return;
        }
        let Some(contract) = req.contract.as_deref() else {
            return; // unknown contract: the checker's
        };
        let Some(info) = contract.fields.get(field.name.as_str()) else {
            let help = crate::diagnostics::did_you_mean(
                &field.name,
                contract
                    .fields
                    .values()
                    .filter(|f| f.given)
                    .map(|f| f.name.as_str()),
            )
            .unwrap_or_else(|| given_fields_help(contract));
            let rule = UnknownField::InAssignment {
                contract: &contract.name,
                field: &field.name,
                key: &key,
                instance: &self.instances[i].name,
                node: self.node_name(i),
                help,
            };
            let d = rule.at(self.path, field.span);
            self.refuse(i, d);
            return;
        };
        if !info.given {
            let d = self
                .diag(
                    Code::E0307,
                    field.span,
                    format!(
                        "`{key}` is answered by the provider of `{}`; an assignment sets only given fields",
                        contract.name
                    ),
                )
                .with_label_in(&contract.file, info.span, "declared here")
                .with_help(given_fields_help(contract));
            self.refuse(i, d);
            return;
        }
        if let Some(set) = req.sets.get(field.name.as_str()) {
            let d = self
                .does_not_fit(
                    i,
                    &key,
                    value.span(),
                    "the definition already sets it; an assignment sets only given fields the definition left open",
                    true,
                )
                .with_label_in(&path, set.span(), "set by the definition here");
            self.refuse(i, d);
            self.settings
                .givens
                .insert((requirement.name.as_str(), field.name.as_str()), None);
            return;
        }
        let constraint = req.field_constraint(info);
        let judged = judge_literal(value, &info.ty, &constraint);
        let stored = match judged {
            Ok(v) => Some(v),
            Err(why) => {
                let why = why.unwrap_or_else(|| "the value did not parse".into());
                let mut d = self
                    .does_not_fit(i, &key, value.span(), &why, info.default.is_some())
                    .with_label_in(
                        &contract.file,
                        info.span,
                        format!("`{}` is declared here", field.name),
                    );
                if let Some(help) = quoted_bool_help(&key, &info.ty, value) {
                    d = d.with_help(help);
                }
                self.refuse(i, d);
                None
            }
        };
        self.settings
            .givens
            .insert((requirement.name.as_str(), field.name.as_str()), stored);
    }

    fn judge_pin(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        requirement: &'m Ident,
        instance: &'m Ident,
        node: Option<&'m Ident>,
        span: Span,
    ) {
        let i = k.id;
        if req.kind != Some(ProviderKind::Module) {
            let kind = req.kind.map(|k| k.as_str()).unwrap_or("unknown");
            let d = self
                .diag(
                    Code::E0516,
                    span,
                    format!(
                        "`{}` of instance `{}` on node `{}` is a {kind} requirement; only a module requirement is pinned to a provider",
                        requirement.name,
                        self.instances[i].name,
                        self.node_name(i)
                    ),
                )
                .with_label_in(&k.module.path, req.ast.span, "required here")
                .with_help(self.entry_help(req));
            self.refuse(i, d);
            return;
        }
        let Some(node) = node else {
            return; // a syntax error, reported by the parser
        };
        match self.find_instance(instance, node, "the pinned provider") {
            Ok(p) => {
                self.settings
                    .pins
                    .insert(requirement.name.as_str(), Some((p, span)));
            }
            Err(d) => {
                self.refuse(i, d);
                self.settings.pins.insert(requirement.name.as_str(), None);
            }
        }
    }

    fn judge_place(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        requirement: &'m Ident,
        at: &'m Expr,
        node: Option<&'m Ident>,
        span: Span,
    ) {
        let i = k.id;
        let key = requirement.name.as_str();
        let contract = req.contract_name();
        let placeable = req.kind == Some(ProviderKind::Host)
            && matches!(contract, Some("directory" | "access" | "port"));
        if !placeable {
            let what = match (req.kind, contract) {
                (Some(k), Some(c)) => format!("a {} requirement of `{c}`", k.as_str()),
                (Some(k), None) => format!("an {} requirement", k.as_str()),
                _ => "a requirement".to_string(),
            };
            let d = self
                .diag(
                    Code::E0516,
                    span,
                    format!(
                        "`{key}` of instance `{}` on node `{}` is {what}; only a host directory, access or port is placed",
                        self.instances[i].name,
                        self.node_name(i)
                    ),
                )
                .with_label_in(&k.module.path, req.ast.span, "required here")
                .with_help(self.entry_help(req));
            self.refuse(i, d);
            return;
        }
        let places = |r: &mut Judge<'_, 'm>, p: Placement| {
            r.settings.places.insert(key, p);
        };
        if let Some(node) = node {
            if !self.nodes.contains_key(node.name.as_str()) {
                let d = self.unknown_node(node, "the placement's node");
                self.refuse(i, d);
                places(self, Placement::Refused);
                return;
            }
            let own = self.node_name(i).to_string();
            if node.name != own {
                let d = self
                    .diag(
                        Code::E0506,
                        node.span,
                        format!(
                            "`{key}` of instance `{}` on node `{own}` is placed on node `{}`; a host requirement is always answered on its own node",
                            self.instances[i].name, node.name
                        ),
                    )
                    .with_help(format!(
                        "a host path means nothing on another node: drop `on {}`, or assign the module to `{}`",
                        node.name, node.name
                    ));
                self.refuse(i, d);
                places(self, Placement::Refused);
                return;
            }
        }
        let placed = if contract == Some("port") {
            match at {
                Expr::Int(n) if (1..=65535).contains(&n.value) => {
                    Ok(Placement::Port(n.value, span))
                }
                Expr::Int(_) => Err(Some("a host port is in 1..65535".to_string())),
                Expr::Error(_) => Err(None),
                _ => Err(Some(format!(
                    "a port is placed on a host port number: `{key} at 8080`"
                ))),
            }
        } else {
            match at {
                Expr::Str(s) => match s.as_plain() {
                    Some(p) => validate_host_path(&p)
                        .map(|()| Placement::Path(p, span))
                        .map_err(Some),
                    None => Err(Some(
                        "a placement is a literal host path; `${…}` reads nothing here".into(),
                    )),
                },
                Expr::Error(_) => Err(None),
                _ => Err(Some(format!(
                    "a {} is placed at a host path: `{key} at \"/srv/data/{key}\"`",
                    contract.unwrap_or("directory")
                ))),
            }
        };
        match placed {
            Ok(p) => places(self, p),
            Err(why) => {
                let why = why.unwrap_or_else(|| "the placement did not parse".into());
                let d = self.does_not_fit(i, key, at.span(), &why, contract != Some("access"));
                self.refuse(i, d);
                places(self, Placement::Refused);
            }
        }
    }

    /// What an assignment may write for requirement `req`.
    fn entry_help(&self, req: &ReqInfo<'_>) -> String {
        let name = req.name();
        match (req.kind, req.contract_name()) {
            (Some(ProviderKind::Operator), _) => format!("set it with `{name} = …`"),
            (Some(ProviderKind::Module), _) => {
                format!("pin its provider with `{name} from INSTANCE on NODE`")
            }
            (Some(ProviderKind::Host), Some("directory" | "access")) => {
                format!("place it with `{name} at \"/host/path\"`")
            }
            (Some(ProviderKind::Host), Some("port")) => format!("place it with `{name} at 8080`"),
            _ => format!("`{name}` is answered by the mesh; the assignment writes nothing for it"),
        }
    }
}

fn given_fields_help(contract: &crate::check::registry::ContractInfo) -> String {
    let given: Vec<String> = contract
        .fields
        .values()
        .filter(|f| f.given)
        .map(|f| format!("`{}`", f.name))
        .collect();
    if given.is_empty() {
        format!("contract `{}` has no given field to set", contract.name)
    } else {
        format!(
            "the given fields of `{}` are {}",
            contract.name,
            crate::diagnostics::capped_list(&given)
        )
    }
}

/// A container network's name as the engine accepts it: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
pub(crate) fn is_network_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && name.len() <= 128
}

/// For a bool written as text (`debug = "no"`): how a bool is written.
fn quoted_bool_help(key: &str, ty: &Ty, value: &Expr) -> Option<String> {
    if *ty != Ty::Bool {
        return None;
    }
    let Expr::Str(s) = value else { return None };
    let text = s.as_plain()?;
    let meant = match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" | "y" | "enabled" => "true",
        "false" | "no" | "off" | "0" | "n" | "disabled" => "false",
        _ => {
            return Some(format!(
                "a bool is `true` or `false`, without quotes: `{key} = true`"
            ));
        }
    };
    Some(format!(
        "a bool is `true` or `false`, without quotes: write `{key} = {meant}`"
    ))
}
