//! Requirements (LANGUAGE.md §5.1, §5.2): provider kinds, contracts, operator
//! declarations, narrowing (sets of given fields and added refinements), and cycles among
//! requirements through what their narrowing reads.

use super::contracts::{Owner, check_declaration, check_refinement_applies, refinements_span};
use super::expressions::{Place, Slot, What};
use super::module::{ModuleChecker, Seen, duplicate};
use super::registry::{ContractInfo, FieldInfo, PROVIDER_KINDS, ProviderKind, Registry};
use super::scope::RefContext;
use super::types::{Bounds, Constraint, TYPE_NAMES, Ty, Value};
use crate::diagnostics::closest;
use crate::diagnostics::rules::{
    Breach, Duplicate, NoPossibleValue, OptionalNotModule, OtherProvider, ProviderField,
    ProviderKindError, RequirementCycle, UnknownContract, UnknownField, Widens,
};
use crate::diagnostics::{Reported, Rule};
use crate::span::Span;
use crate::syntax::ast::{Narrowing, NarrowingKind, Refinement, Requirement, RequirementBody};

/// "a host", "an operator".
fn article(k: ProviderKind) -> String {
    match k {
        ProviderKind::Operator => "an operator".into(),
        k => format!("a {}", k.as_str()),
    }
}

impl<'a> ModuleChecker<'a, '_> {
    /// Every requirement of the module, in source order.
    pub(crate) fn check_requirements(&mut self) {
        let module = self.module;
        let mut seen = Seen::new();
        for r in module.requirements() {
            let index = match seen.insert(&r.name.name, r.name.span) {
                Some(first) => {
                    let rule = Duplicate::Requirement {
                        requirement: &r.name.name,
                        module: &module.name.name,
                        first,
                    };
                    duplicate(self.cx, r.name.span, rule);
                    None
                }
                None => self.scope.requirements.get_index_of(r.name.name.as_str()),
            };
            self.check_requirement(r, index);
        }
    }

    fn check_requirement(&mut self, r: &'a Requirement, index: Option<usize>) {
        let Some(kind_ident) = &r.kind else {
            // `requires db: postgres`: the kind forgotten (E0201, showing the line with it).
            if let RequirementBody::Contract {
                contract: Some(c), ..
            } = &r.body
            {
                let info = self
                    .cx
                    .registry
                    .contracts
                    .get(c.name.as_str())
                    .map(|c| &**c);
                self.unknown_kind(r, info);
            }
            return;
        };
        let kind = ProviderKind::from_name(&kind_ident.name);
        if let Some(q) = r.optional
            && let Some(k) = kind
            && k != ProviderKind::Module
        {
            let help = match k {
                ProviderKind::Operator => format!(
                    "remove the `?`; an operator value that may be left out has a default: `requires {}: operator TYPE = DEFAULT`",
                    r.name.name
                ),
                _ => format!(
                    "remove the `?`: {} always answers a {} requirement",
                    k.answerer(),
                    k.as_str()
                ),
            };
            let rule = OptionalNotModule {
                requirement: &r.name.name,
                a_kind: &article(k),
                kind: kind_ident.span,
                help,
            };
            self.cx.report(rule.at(self.cx.path, q));
        }
        match &r.body {
            RequirementBody::Operator(op) => {
                check_declaration(
                    self.cx,
                    &r.name,
                    op.ty.as_ref(),
                    &op.refinements,
                    op.default.as_ref(),
                    Owner::Operator,
                );
                // A name where a literal belongs is refused (E0301) unread: what its
                // words name is still kept in the model.
                let sets = op.refinements.iter().filter_map(|f| match f {
                    crate::syntax::ast::Refinement::InSet(set) => Some(&set.values[..]),
                    _ => None,
                });
                for e in sets.flatten().chain(op.default.as_ref()) {
                    if crate::check::types::Value::from_literal(e).is_none() {
                        self.note_names(e, super::scope::RefContext::Definition);
                    }
                }
            }
            RequirementBody::Contract {
                contract,
                narrowing,
                ..
            } => {
                let Some(contract_ident) = contract else {
                    return;
                };
                let registry = self.cx.registry;
                let info = registry
                    .contracts
                    .get(contract_ident.name.as_str())
                    .map(|c| &**c);
                if kind.is_none() {
                    self.unknown_kind(r, info);
                }
                let Some(info) = info else {
                    // `requires n: operatr int`: the kind's error says it all.
                    if kind.is_none() && TYPE_NAMES.contains(&contract_ident.name.as_str()) {
                        return;
                    }
                    let help = module_named(registry, &r.name.name, &contract_ident.name)
                        .or_else(|| {
                            closest(
                                &contract_ident.name,
                                registry.contracts.keys().map(String::as_str),
                            )
                            .map(|s| format!("did you mean `{s}`?"))
                        })
                        .unwrap_or_else(|| {
                            "declare it with `contract NAME for module { … }`, or require an operator value with `operator TYPE`".into()
                        });
                    let rule = UnknownContract {
                        name: &contract_ident.name,
                        help,
                    };
                    self.cx.report(rule.at(self.cx.path, contract_ident.span));
                    for n in narrowing {
                        if let NarrowingKind::Set(e) = &n.kind {
                            self.eval_names(e, RefContext::Definition);
                        }
                    }
                    return;
                };
                if let (Some(k), Some(answered_by)) = (kind, info.kind)
                    && k != answered_by
                {
                    let rule = OtherProvider::Requirement {
                        requirement: &r.name.name,
                        contract: &info.name,
                        answered_by: answered_by.answerer(),
                        written: k.answerer(),
                        kind: answered_by.as_str(),
                        decl: (&info.file, info.name_span),
                    };
                    self.cx.report(rule.at(self.cx.path, kind_ident.span));
                }
                self.check_narrowing(r, index, info, narrowing);
            }
        }
    }

    /// E0201: a provider kind outside the closed set.
    fn unknown_kind(&mut self, r: &Requirement, contract: Option<&ContractInfo>) {
        let registry = self.cx.registry;
        let Some(kind) = &r.kind else {
            // `requires db: postgres`: the kind forgotten.
            let RequirementBody::Contract {
                contract: Some(c), ..
            } = &r.body
            else {
                return;
            };
            let answerer = contract
                .and_then(|c| c.kind)
                .unwrap_or(ProviderKind::Module);
            let optional = if r.optional.is_some() { "?" } else { "" };
            let help = if contract.is_none() && TYPE_NAMES.contains(&c.name.as_str()) {
                format!(
                    "an operator value is written with its kind: `requires {}: operator {}`",
                    r.name.name, c.name
                )
            } else {
                format!(
                    "`{}` is answered by {}: write `requires {}{optional}: {} {}`",
                    c.name,
                    answerer.answerer(),
                    r.name.name,
                    answerer.as_str(),
                    c.name
                )
            };
            let rule = ProviderKindError::Missing {
                requirement: &r.name.name,
                contract: &c.name,
                help,
            };
            self.cx.report(rule.at(self.cx.path, c.span));
            return;
        };
        let help = if let Some(seat) = registry.seats.get(kind.name.as_str()) {
            let answerer = registry
                .contracts
                .get(&seat.contract)
                .and_then(|c| c.kind)
                .unwrap_or(ProviderKind::Module);
            format!(
                "`{}` is a seat, held in a mesh; its holder answers `{}` requirements as {}: write `{} {}`",
                kind.name,
                seat.contract,
                answerer.answerer(),
                answerer.as_str(),
                contract.map_or(seat.contract.as_str(), |c| c.name.as_str())
            )
        } else if let Some(s) = closest(&kind.name, PROVIDER_KINDS.iter().copied()) {
            format!("did you mean `{s}`?")
        } else if let Some(k) = contract.and_then(|c| c.kind) {
            format!(
                "`{}` is answered by {}: write `{} {}`",
                contract.map_or("", |c| c.name.as_str()),
                k.answerer(),
                k.as_str(),
                contract.map_or("", |c| c.name.as_str())
            )
        } else {
            "a module answers module contracts, the host `directory`, `access`, `port` and `node`, the mesh `identity`; an operator value is `operator TYPE`".into()
        };
        let rule = ProviderKindError::Unknown {
            kind: &kind.name,
            help,
        };
        self.cx.report(rule.at(self.cx.path, kind.span));
    }

    /// The entries inside a requirement's braces.
    fn check_narrowing(
        &mut self,
        r: &'a Requirement,
        index: Option<usize>,
        contract: &'a ContractInfo,
        entries: &'a [Narrowing],
    ) {
        let mut seen = Seen::new();
        for n in entries {
            let Some(field) = contract.fields.get(n.field.name.as_str()) else {
                let names = || contract.fields.keys().map(String::as_str);
                let rule = UnknownField::OfContract {
                    contract: &contract.name,
                    field: &n.field.name,
                    suggestion: closest(&n.field.name, names()),
                    fields: super::list_names(names()),
                };
                self.cx.report(rule.at(self.cx.path, n.field.span));
                if let NarrowingKind::Set(e) = &n.kind {
                    self.eval_names(e, RefContext::Definition);
                }
                continue;
            };
            if let Some(first) = seen.insert(&n.field.name, n.field.span) {
                let rule = Duplicate::Narrowed {
                    requirement: &r.name.name,
                    field: &n.field.name,
                    first,
                };
                duplicate(self.cx, n.field.span, rule);
                if let NarrowingKind::Set(e) = &n.kind {
                    self.eval_names(e, RefContext::Definition);
                }
                continue;
            }
            match &n.kind {
                NarrowingKind::Set(e) => {
                    if !field.given {
                        let rule = ProviderField::Set {
                            field: &field.name,
                            contract: &contract.name,
                            requirement: &r.name.name,
                            decl: (&contract.file, field.span),
                            // A value written for a secret field may be one.
                            secret_value: field.secret.then(|| e.span()),
                            help: given_help(contract),
                        };
                        self.cx.report(rule.at(self.cx.path, n.field.span));
                        self.eval_names(e, RefContext::Definition);
                        continue;
                    }
                    self.edge_from = index;
                    let place = Place::Set(&r.name.name, &field.name);
                    let val = self.eval(e, place, RefContext::Definition);
                    self.edge_from = None;
                    if val.is_error() {
                        continue;
                    }
                    if let Some(taint) = val.secret {
                        self.secret_refused(taint, place, &val);
                        continue;
                    }
                    self.check_fit(
                        e,
                        &val,
                        &Slot {
                            what: What::Field(&r.name.name, &field.name),
                            ty: &field.ty,
                            constraint: &field.constraint,
                            secret: false,
                            decl: Some((&contract.file, field.span)),
                        },
                    );
                }
                NarrowingKind::Refine(rs) => {
                    self.check_refinements(r, contract, field, rs, n.span);
                }
            }
        }
    }

    /// Refinements a requirement adds to a field: they apply to its type (E0301), never
    /// widen the contract (E0305), and leave some value (E0306); a set value must satisfy
    /// the rest of the contract's constraint (E0304).
    fn check_refinements(
        &mut self,
        r: &Requirement,
        contract: &ContractInfo,
        field: &FieldInfo,
        rs: &[Refinement],
        entry: Span,
    ) {
        let mut sound = true;
        for refinement in rs {
            // A field of an unknown type is told at its contract: nothing to check here.
            if field.ty == Ty::Error
                || check_refinement_applies(self.cx, refinement, &field.ty, &field.name).is_err()
            {
                sound = false;
                continue;
            }
            sound &= self.check_not_widening(contract, field, refinement).is_ok();
        }
        if !sound {
            return;
        }
        let mut effective = field.constraint.clone();
        effective.refine(rs);
        if effective.is_empty() {
            let span = refinements_span(rs).unwrap_or(entry);
            let rule = NoPossibleValue::Narrowing {
                requirement: &r.name.name,
                field: &field.name,
                decl: (&contract.file, field.span),
            };
            self.cx.report(rule.at(self.cx.path, span));
            return;
        }
        // A set value outside the rest of the constraint can never be chosen.
        let rest = Constraint {
            one_of: None,
            ..effective
        };
        let what = What::ValueOfField(&r.name.name, &field.name);
        for refinement in rs {
            let Refinement::InSet(set) = refinement else {
                continue;
            };
            for v in &set.values {
                if let Some(value) = Value::from_literal(v)
                    && let Some(breach) = rest.check(&value)
                {
                    let rule = Breach::SetValue {
                        what: &what,
                        breach: &breach,
                        field: (&contract.file, field.span),
                    };
                    self.cx.report(rule.at(self.cx.path, v.span()));
                }
            }
        }
    }

    /// E0305: a refinement that allows a value the contract refuses. Refuses the
    /// refinement with the last of its diagnostics (a set may add several values).
    fn check_not_widening(
        &mut self,
        contract: &ContractInfo,
        field: &FieldInfo,
        refinement: &Refinement,
    ) -> Result<(), Reported> {
        let base_of_type = Constraint::of_type(&field.ty);
        let (written, base, keyword) = match refinement {
            Refinement::InRange(b) => (Bounds::from_ast(b), field.constraint.range, "in"),
            Refinement::Len(b) => (Bounds::from_ast(b), field.constraint.len, "len"),
            Refinement::InSet(set) => {
                let Some(allowed) = &field.constraint.one_of else {
                    return Ok(());
                };
                let mut refused = Ok(());
                for v in &set.values {
                    let Some(value) = Value::from_literal(v) else {
                        continue;
                    };
                    if allowed.contains(&value) {
                        continue;
                    }
                    // A secret field's set says much of the value: neither the value
                    // written nor the contract's set is quoted.
                    let (shown, allows) = if field.secret {
                        (
                            "this value".to_string(),
                            "the values of its own set".to_string(),
                        )
                    } else {
                        (
                            format!("`{value}`"),
                            crate::diagnostics::capped_list(allowed.iter()),
                        )
                    };
                    let rule = Widens::SetValue {
                        shown,
                        field: &field.name,
                        contract: &contract.name,
                        allows,
                        secret: field.secret,
                        decl: (&contract.file, field.span),
                    };
                    refused = Err(self.cx.refuse(rule.at(self.cx.path, v.span())));
                }
                return refused;
            }
            Refinement::Matches(_) => return Ok(()),
        };
        let Some(base) = base else {
            return Ok(());
        };
        if !written.widens(&base) {
            return Ok(());
        }
        let whose = if keyword == "in" && Some(base) == base_of_type.range {
            format!(
                "the range of {}, `in {base}`",
                super::expressions::a_type(&field.ty)
            )
        } else {
            format!("the contract's `{keyword} {base}`")
        };
        let rule = Widens::Bound {
            keyword,
            written: &written,
            base: &base,
            whose,
            field: &field.name,
            decl: (&contract.file, field.span),
        };
        Err(self.cx.refuse(rule.at(self.cx.path, refinement.span())))
    }

    /// E0313: requirements whose narrowing reads each other, directly or through others,
    /// so none can be answered first. Each cycle is reported once, at its first
    /// requirement in source order.
    pub(crate) fn check_cycles(&mut self) {
        if self.edges.is_empty() {
            return;
        }
        let n = self.scope.requirements.len();
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, e) in self.edges.iter().enumerate() {
            out[e.from].push(i);
        }
        // Known once, not searched for per component: 50,000 requirements are 50,000
        // components, and a search each would be quadratic.
        let mut reads_itself = vec![false; n];
        for e in &self.edges {
            if e.from == e.to {
                reads_itself[e.from] = true;
            }
        }
        for component in strongly_connected(n, &self.edges, &out) {
            let first = *component.iter().min().expect("non-empty component");
            let cyclic = component.len() > 1 || reads_itself[first];
            if !cyclic {
                continue;
            }
            let path = cycle_through(first, &component, &self.edges, &out);
            let names: Vec<&str> = path
                .iter()
                .map(|&e| self.scope.requirements[self.edges[e].from].name())
                .collect();
            let message = if names.len() == 1 {
                format!("requirement `{}` reads itself in its narrowing", names[0])
            } else {
                // A cycle through thousands of requirements is named by its first ones
                // only: a diagnostic stays short whatever the input's size.
                let mut chain = String::new();
                for name in names.iter().take(CYCLE_NAMED) {
                    chain.push('`');
                    chain.push_str(name);
                    chain.push_str("` reads ");
                }
                if names.len() > CYCLE_NAMED {
                    chain.push_str(&format!("{} more, which read ", names.len() - CYCLE_NAMED));
                }
                chain.push('`');
                chain.push_str(names[0]);
                chain.push('`');
                format!("cycle among requirements: {chain}")
            };
            let first_edge = self.edges[path[0]];
            let reads = path
                .iter()
                .skip(1)
                .take(CYCLE_NAMED)
                .map(|&e| {
                    let edge = self.edges[e];
                    let words = format!(
                        "`{}` reads `{}` here",
                        self.scope.requirements[edge.from].name(),
                        self.scope.requirements[edge.to].name()
                    );
                    (edge.at, words)
                })
                .collect();
            let rule = RequirementCycle::Narrowings { message, reads };
            self.cx.report(rule.at(self.cx.path, first_edge.at));
        }
    }
}

/// How many requirements of a cycle E0313 names (and labels); the rest are counted.
const CYCLE_NAMED: usize = 8;

fn given_help(contract: &ContractInfo) -> String {
    let given: Vec<&str> = contract
        .fields
        .values()
        .filter(|f| f.given)
        .map(|f| f.name.as_str())
        .collect();
    if given.is_empty() {
        format!(
            "`{}` has no given field; a requirement may only narrow its fields (`FIELD len …`, `FIELD in …`)",
            contract.name
        )
    } else {
        format!(
            "only given fields are set in a requirement; those of `{}` are {}",
            contract.name,
            super::list_names(given)
        )
    }
}

/// Tarjan's strongly connected components, iteratively (a module may have thousands of
/// requirements; no recursion). `out[v]` lists the indices of the edges leaving `v`.
fn strongly_connected(
    n: usize,
    edges: &[super::module::Edge],
    out: &[Vec<usize>],
) -> Vec<Vec<usize>> {
    const UNSEEN: usize = usize::MAX;
    let mut index = vec![UNSEEN; n];
    let mut low = vec![0usize; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut components = Vec::new();
    let mut next = 0usize;
    // (node, position in its out-list)
    let mut work: Vec<(usize, usize)> = Vec::new();
    for root in 0..n {
        if index[root] != UNSEEN || out[root].is_empty() {
            continue;
        }
        work.push((root, 0));
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            if *pos < out[v].len() {
                let w = edges[out[v][*pos]].to;
                *pos += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    low[parent] = low[parent].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut component = Vec::new();
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        component.push(w);
                        if w == v {
                            break;
                        }
                    }
                    components.push(component);
                }
            }
        }
    }
    components.sort_by_key(|c| c.iter().copied().min());
    components
}

/// The edges of one cycle from `start` back to it, inside `component` (breadth first, so
/// the cycle shown is a shortest one).
fn cycle_through(
    start: usize,
    component: &[usize],
    edges: &[super::module::Edge],
    out: &[Vec<usize>],
) -> Vec<usize> {
    // A set of the component's size, not of the module's: many small cycles in a large
    // module stay linear.
    let member: std::collections::HashSet<usize> = component.iter().copied().collect();
    // The edge that reached each node.
    let mut reached_by: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    let mut queue = std::collections::VecDeque::new();
    queue.push_back(start);
    while let Some(v) = queue.pop_front() {
        for &e in &out[v] {
            let w = edges[e].to;
            if !member.contains(&w) {
                continue;
            }
            if w == start {
                let mut path = vec![e];
                let mut at = v;
                while at != start {
                    let back = reached_by[&at];
                    path.push(back);
                    at = edges[back].from;
                }
                path.reverse();
                return path;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = reached_by.entry(w) {
                slot.insert(e);
                queue.push_back(w);
            }
        }
    }
    Vec::new()
}

/// The help of E0103 when the unknown contract is a module's name (`requires db: module
/// mariadb`): a requirement names what it needs, the contract, and any provider of it
/// answers. Says which contracts that module provides, with the line to write.
fn module_named(registry: &Registry, requirement: &str, name: &str) -> Option<String> {
    let provides = registry.module_provides.get(name)?;
    let answerable: Vec<&str> = provides
        .iter()
        .map(String::as_str)
        .filter(|c| {
            registry
                .contracts
                .get(*c)
                .is_some_and(|info| info.kind == Some(ProviderKind::Module))
        })
        .collect();
    Some(match answerable.as_slice() {
        [] => format!(
            "`{name}` is a module, not a contract, and provides no contract: a requirement \
             names the contract its provider answers"
        ),
        [one] => format!(
            "`{name}` is a module, not a contract; it provides `{one}`: \
             `requires {requirement}: module {one}`"
        ),
        many => format!(
            "`{name}` is a module, not a contract; it provides {}: name one, as in \
             `requires {requirement}: module {}`",
            super::list_names(many.iter().copied()),
            many[0]
        ),
    })
}
