//! The entries of an assignment, judged where they are written (LANGUAGE.md §6): operator
//! values and given fields must fit their requirement (E0513), name a requirement the
//! module has (E0517) of the right kind (E0516), never a secret operator value (E0512);
//! pins name an instance of the mesh (E0107, E0109); placements stay on the instance's
//! own node (E0506). An entry written twice is refused (E0102).

use super::fx_hash::FxHashMap;
use super::host::{is_short, validate_host_path};
use super::{Entries, IdVec, InstanceId, KnownInstance, Placement, Refusals, Resolver, Settings};
use crate::check::registry::{HostContract, ProviderKind};
use crate::check::scope::ReqInfo;
use crate::check::types::{Constraint, Ty, Value, validate_literal};
use crate::diagnostics::rules::{
    DoesNotFit, Duplicate, EntryFor, FitLabel, NoSuchRequirement, NotAdopted, NotOptional,
    PlacedElsewhere, ProviderField, QuotedBool, SecretInMesh, SystemPlace, UnknownField,
    WrongEntry,
};
use crate::diagnostics::{Diagnostic, Reported, closest};
use crate::span::{FilePath, Span};
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
    /// The entries phase: judges what every assignment writes in its braces, refusing
    /// what it writes wrongly.
    pub(super) fn judge_entries(&self) -> (Entries<'m>, Refusals) {
        let mut settings = IdVec::default();
        settings.reserve_exact(self.instances.len());
        let mut refusals = Refusals::default();
        for i in self.instances.ids() {
            self.interrupt();
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
        (Entries { settings }, refusals)
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
    /// Refuses the assignment being judged (`_i`) with `diagnostic`, and returns the
    /// proof.
    fn refuse(&mut self, _i: InstanceId, diagnostic: Diagnostic) -> Reported {
        Reported::record(&mut self.refusals, diagnostic)
    }

    /// Passes over what the checker refuses with `code` in instance `i`'s module `m`,
    /// through the gate ([`Resolver::gate`]): its proof, or `i` refused with the miss.
    fn passed_over(
        &mut self,
        i: InstanceId,
        m: &super::LoadedModule<'_>,
        code: &'static str,
    ) -> Reported {
        match self.r.gate(i, m, code) {
            Ok(proof) => proof,
            Err(miss) => self.refuse(i, miss),
        }
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
                        let d = self.at(*keyword, rule);
                        let _refused = self.refuse(i, d);
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
                let d = self.at(entry.span, rule);
                let _refused = self.refuse(i, d);
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
                let closest = closest(&name.name, names.iter().copied());
                let listed = match closest {
                    Some(_) => String::new(),
                    None => crate::diagnostics::capped_sorted(
                        names.iter().map(|n| format!("`{n}`")).collect(),
                    ),
                };
                let rule = NoSuchRequirement {
                    module: &m.name,
                    name: &name.name,
                    instance: &self.instances[i].name,
                    node: self.node_name(i),
                    closest,
                    listed,
                };
                let d = self.at(name.span, rule);
                let _refused = self.refuse(i, d);
                continue;
            };
            // A refused entry is recorded as refused in the settings, its proof with it.
            let _judged: Result<(), Reported> = match &entry.kind {
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
                AssignEntryKind::KeepNetwork { .. } | AssignEntryKind::Genesis { .. } => Ok(()),
            };
        }
    }

    /// `NAME absent`: only an optional requirement may be declined (E0326).
    fn judge_absent(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        name: &'m Ident,
        span: Span,
    ) -> Result<(), Reported> {
        let i = k.id;
        if req.is_optional() {
            self.settings.absent.insert(name.name.as_str());
            return Ok(());
        }
        let rule = NotOptional::Declined {
            requirement: req.name(),
            instance: &self.instances[i].name,
            node: self.node_name(i),
            module_kind: req.kind == Some(ProviderKind::Module),
            kind: req.kind.map(|k| k.as_str()).unwrap_or("contract"),
            declared: (&k.module.path, req.ast.span),
        };
        let d = self.at(span, rule);
        Err(self.refuse(i, d))
    }

    /// `keep_network "NAME"`: a found network's name, only on an adopted node (E0325).
    fn judge_keep_network(&mut self, i: InstanceId, keyword: Span, network: &Expr, span: Span) {
        let name = match network {
            Expr::Str(s) => s.as_plain(),
            _ => None,
        };
        let Some(name) = name.filter(|n| is_network_name(n)) else {
            if !matches!(network, Expr::Error(_)) {
                let rule = DoesNotFit::KeepNetwork {
                    instance: &self.instances[i].name,
                    node: self.node_name(i),
                };
                let d = self.at(network.span(), rule);
                let _refused = self.refuse(i, d);
            }
            return;
        };
        let node = &self.nodes[self.instances[i].node];
        if !node.adopted {
            let rule = NotAdopted {
                network: &name,
                instance: &self.instances[i].name,
                node: &node.name,
                node_span: node.ast.name.span,
            };
            let d = self.at(keyword.to(span), rule);
            let _refused = self.refuse(i, d);
            return;
        }
        if self.settings.keep_networks.contains(&name) {
            let rule = Duplicate::KeepNetwork {
                name: &name,
                instance: &self.instances[i].name,
            };
            let d = self.at(span, rule);
            let _refused = self.refuse(i, d);
            return;
        }
        self.settings.keep_networks.push(name);
    }

    /// `short = "stg"`: 1 to 4 of `[a-z0-9]`, starting with a letter.
    fn judge_short(&mut self, i: InstanceId, value: &Expr) {
        match value {
            Expr::Str(s) if s.as_plain().is_some_and(|v| is_short(&v, 4)) => {
                self.settings.short = s.as_plain();
            }
            Expr::Error(_) => {}
            _ => {
                let rule = DoesNotFit::Short {
                    instance: &self.instances[i].name,
                    node: self.node_name(i),
                };
                let d = self.at(value.span(), rule);
                let _refused = self.refuse(i, d);
            }
        }
    }

    /// Refuses instance `i` for a value of `key` at `span` that does not fit, because
    /// `why` (E0513). `default`: whether leaving the entry out takes a default, so the
    /// help offers it only where there is one; `label` is where the declaration is.
    #[allow(clippy::too_many_arguments)]
    fn does_not_fit(
        &mut self,
        i: InstanceId,
        key: &str,
        span: Span,
        why: &str,
        default: bool,
        label: Option<(&FilePath, Span, FitLabel<'_>)>,
        quoted_bool: Option<QuotedBool>,
    ) -> Reported {
        let rule = DoesNotFit::Value {
            key,
            instance: &self.instances[i].name,
            node: self.node_name(i),
            why,
            default,
            label,
            quoted_bool,
        };
        let d = self.at(span, rule);
        self.refuse(i, d)
    }

    fn judge_operator_value(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        name: &'m Ident,
        value: &'m Expr,
        span: Span,
    ) -> Result<(), Reported> {
        let i = k.id;
        let key = req.name();
        let Some(op) = &req.operator else {
            let rule = WrongEntry::NotOperator {
                key,
                instance: &self.instances[i].name,
                node: self.node_name(i),
                kind: req.kind.map(|k| k.as_str()).unwrap_or("contract"),
                decl: (&k.module.path, req.ast.span),
                entry: entry_for(req),
            };
            let d = self.at(span, rule);
            return Err(self.refuse(i, d));
        };
        if op.secret {
            let rule = SecretInMesh {
                key,
                instance: &self.instances[i].name,
                node: self.node_name(i),
                decl: (&k.module.path, req.ast.span),
                value: value.span(),
            };
            let d = self.at(span, rule);
            let refused = self.refuse(i, d);
            self.settings
                .values
                .insert(name.name.as_str(), Err(refused));
            return Err(refused);
        }
        let judged = judge_literal(value, &op.ty, &op.constraint).map_err(|why| {
            let why = why.unwrap_or_else(|| "the value did not parse".into());
            let label = FitLabel::Operator { ty: &op.ty };
            self.does_not_fit(
                i,
                key,
                value.span(),
                &why,
                op.default.is_some(),
                Some((&k.module.path, req.ast.span, label)),
                quoted_bool(&op.ty, value),
            )
        });
        self.settings.values.insert(key, judged.clone());
        judged.map(drop)
    }

    fn judge_given(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        requirement: &'m Ident,
        field: &'m Ident,
        value: &'m Expr,
    ) -> Result<(), Reported> {
        let i = k.id;
        let key = format!("{}.{}", requirement.name, field.name);
        if req.operator.is_some() {
            let rule = WrongEntry::FieldOfOperator {
                requirement: &requirement.name,
                instance: &self.instances[i].name,
                node: self.node_name(i),
            };
            let d = self.at(requirement.span.to(field.span), rule);
            return Err(self.refuse(i, d));
        }
        let Some(contract) = req.contract.as_deref() else {
            // An unknown contract (E0103).
            return Err(self.passed_over(i, k.module, "E0103"));
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
            let d = self.at(field.span, rule);
            let refused = self.refuse(i, d);
            // A misspelt given field (`route.public_nam`) is the assignment's attempt at the
            // field it is closest to: that field counts as written and refused here, not
            // also as missing (E0501).
            let given = contract.fields.values().filter(|f| f.given);
            if let Some(meant) =
                crate::diagnostics::closest(&field.name, given.map(|f| f.name.as_str()))
            {
                self.settings
                    .givens
                    .entry((requirement.name.as_str(), meant))
                    .or_insert(Err(refused));
            }
            return Err(refused);
        };
        if !info.given {
            let rule = ProviderField::InAssignment {
                key: &key,
                contract: &contract.name,
                decl: (&contract.file, info.span),
                given: given_fields(contract),
            };
            let d = self.at(field.span, rule);
            return Err(self.refuse(i, d));
        }
        let slot = (requirement.name.as_str(), field.name.as_str());
        if let Some(set) = req.sets.get(field.name.as_str()) {
            let refused = self.does_not_fit(
                i,
                &key,
                value.span(),
                "the definition already sets it; an assignment sets only given fields the definition left open",
                true,
                Some((&k.module.path, set.span(), FitLabel::SetByDefinition)),
                None,
            );
            self.settings.givens.insert(slot, Err(refused));
            return Err(refused);
        }
        let constraint = req.field_constraint(info);
        let judged = judge_literal(value, &info.ty, &constraint).map_err(|why| {
            let why = why.unwrap_or_else(|| "the value did not parse".into());
            let label = FitLabel::Field { field: &field.name };
            self.does_not_fit(
                i,
                &key,
                value.span(),
                &why,
                info.default.is_some(),
                Some((&contract.file, info.span, label)),
                quoted_bool(&info.ty, value),
            )
        });
        self.settings.givens.insert(slot, judged.clone());
        judged.map(drop)
    }

    fn judge_pin(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        requirement: &'m Ident,
        instance: &'m Ident,
        node: Option<&'m Ident>,
        span: Span,
    ) -> Result<(), Reported> {
        let i = k.id;
        if req.kind != Some(ProviderKind::Module) {
            let rule = WrongEntry::Pin {
                requirement: &requirement.name,
                instance: &self.instances[i].name,
                node: self.node_name(i),
                kind: req.kind.map(|k| k.as_str()).unwrap_or("unknown"),
                decl: (&k.module.path, req.ast.span),
                entry: entry_for(req),
            };
            let d = self.at(span, rule);
            return Err(self.refuse(i, d));
        }
        let Some(node) = node else {
            return Ok(()); // a syntax error, reported by the parser
        };
        let pinned = match self.find_instance(instance, node, "the pinned provider") {
            Ok(p) => Ok((p, span)),
            Err(d) => Err(self.refuse(i, d)),
        };
        self.settings.pins.insert(requirement.name.as_str(), pinned);
        pinned.map(drop)
    }

    fn judge_place(
        &mut self,
        k: KnownInstance<'m>,
        req: &'m ReqInfo<'m>,
        requirement: &'m Ident,
        at: &'m Expr,
        node: Option<&'m Ident>,
        span: Span,
    ) -> Result<(), Reported> {
        let i = k.id;
        let key = requirement.name.as_str();
        let contract = req.contract_name();
        let Some(host) = req.host_contract().filter(|h| h.is_placed()) else {
            let rule = WrongEntry::Place {
                key,
                instance: &self.instances[i].name,
                node: self.node_name(i),
                kind: req.kind.map(|k| k.as_str()),
                contract,
                decl: (&k.module.path, req.ast.span),
                entry: entry_for(req),
            };
            let d = self.at(span, rule);
            return Err(self.refuse(i, d));
        };
        let placed = self.placement(i, key, host, at, node, span);
        let place = placed.clone().unwrap_or_else(Placement::Refused);
        self.settings.places.insert(key, place);
        placed.map(drop)
    }

    /// Where requirement `key` (of host contract `host`) of instance `i` is placed, `at`
    /// on `node`.
    fn placement(
        &mut self,
        i: InstanceId,
        key: &str,
        host: HostContract,
        at: &Expr,
        node: Option<&Ident>,
        span: Span,
    ) -> Result<Placement, Reported> {
        if let Some(node) = node {
            if !self.nodes.contains_key(node.name.as_str()) {
                let d = self.unknown_node(node, "the placement's node");
                return Err(self.refuse(i, d));
            }
            let own = self.node_name(i);
            if node.name != own {
                let rule = PlacedElsewhere {
                    key,
                    instance: &self.instances[i].name,
                    own,
                    node: &node.name,
                };
                let d = self.at(node.span, rule);
                return Err(self.refuse(i, d));
            }
        }
        let placed = if host == HostContract::Port {
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
                    host.as_str()
                ))),
            }
        };
        if host == HostContract::Directory
            && let Ok(Placement::Path(path, _)) = &placed
            && let Some((under, state)) =
                system_place(path, &self.nodes[self.instances[i].node].root)
        {
            let rule = SystemPlace {
                key,
                instance: &self.instances[i].name,
                path,
                under: &under,
                state,
            };
            let d = self.at(at.span(), rule);
            return Err(self.refuse(i, d));
        }
        placed.map_err(|why| {
            let why = why.unwrap_or_else(|| "the placement did not parse".into());
            self.does_not_fit(
                i,
                key,
                at.span(),
                &why,
                host != HostContract::Access,
                None,
                None,
            )
        })
    }
}

/// The directories of the system a host directory may not be placed at or under
/// (LANGUAGE.md §14.7): `/lib*` is these four, so `/library` is not one of them.
const SYSTEM_DIRECTORIES: &[&str] = &[
    "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/dev",
    "/proc", "/sys", "/run",
];

/// Whether a directory placed at `path` (normalised: placements are refused otherwise)
/// takes `/`, a system directory or the node's `ROOT/.mesh`: what it is at or under, and
/// whether that is the node's own state folder (E0521). `meshc render` asks the same,
/// since it believes no manifest that says otherwise.
pub fn system_place(path: &str, root: &str) -> Option<(String, bool)> {
    let at_or_under = |dir: &str| {
        path == dir
            || path
                .strip_prefix(dir)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    if path == "/" {
        return Some(("/".into(), false));
    }
    if let Some(dir) = SYSTEM_DIRECTORIES.iter().find(|d| at_or_under(d)) {
        return Some((dir.to_string(), false));
    }
    let state = format!("{}/.mesh", root.trim_end_matches('/'));
    at_or_under(&state).then_some((state, true))
}

/// What an assignment may write for requirement `req`.
fn entry_for(req: &ReqInfo<'_>) -> EntryFor {
    match (req.kind, req.host_contract()) {
        (Some(ProviderKind::Operator), _) => EntryFor::Operator,
        (Some(ProviderKind::Module), _) => EntryFor::Module,
        (_, Some(host)) if host.is_path() => EntryFor::HostPath,
        (_, Some(HostContract::Port)) => EntryFor::HostPort,
        _ => EntryFor::Nothing,
    }
}

/// The given fields of `contract`, listed (empty when it has none).
fn given_fields(contract: &crate::check::registry::ContractInfo) -> String {
    crate::diagnostics::capped_list(
        contract
            .fields
            .values()
            .filter(|f| f.given)
            .map(|f| format!("`{}`", f.name)),
    )
}

/// The help naming the given fields of `contract`.
fn given_fields_help(contract: &crate::check::registry::ContractInfo) -> String {
    crate::diagnostics::rules::given_fields_help(&contract.name, &given_fields(contract))
}

/// A container network's name as the engine accepts it: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
pub(crate) fn is_network_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
        && name.len() <= 128
}

/// For a bool written as text (`debug = "no"`): the bool it reads as, if any.
fn quoted_bool(ty: &Ty, value: &Expr) -> Option<QuotedBool> {
    if *ty != Ty::Bool {
        return None;
    }
    let Expr::Str(s) = value else { return None };
    let text = s.as_plain()?;
    Some(match text.trim().to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" | "y" | "enabled" => QuotedBool::Meant("true"),
        "false" | "no" | "off" | "0" | "n" | "disabled" => QuotedBool::Meant("false"),
        _ => QuotedBool::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::system_place;

    #[test]
    fn system_places_are_judged_whole_segments() {
        for (path, under) in [
            ("/", "/"),
            ("/etc", "/etc"),
            ("/etc/x", "/etc"),
            ("/lib64/a", "/lib64"),
            ("/libx32", "/libx32"),
            ("/run/mesh", "/run"),
            ("/srv/mesh/.mesh", "/srv/mesh/.mesh"),
            ("/srv/mesh/.mesh/digests", "/srv/mesh/.mesh"),
        ] {
            assert_eq!(
                system_place(path, "/srv/mesh").map(|(u, _)| u),
                Some(under.to_string()),
                "{path}"
            );
        }
        for path in [
            "/library",
            "/etcetera/x",
            "/srv/data",
            "/srv/mesh/.meshes",
            "/srv/mesh/app/.mesh",
            "/var/run",
            "/usrdata",
        ] {
            assert_eq!(system_place(path, "/srv/mesh"), None, "{path}");
        }
        assert_eq!(
            system_place("/.mesh/x", "/"),
            Some(("/.mesh".to_string(), true))
        );
    }
}
