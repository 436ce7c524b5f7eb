//! The names a mesh declares and uses: nodes (E0101), instances (E0106, E0107, E0508)
//! and seats (E0102, E0107, E0108, E0109, E0515).

use super::fx_hash::{FxHashMap, FxHashSet};
use super::{Dropped, InstanceId, InstanceState, Resolver, SeatState, assign_head};
use crate::diagnostics::rules::{Duplicate, InvalidLiteral};
use crate::diagnostics::{Code, Diagnostic, Rule, closest, did_you_mean};

impl<'m> Resolver<'m> {
    /// Reads every node; a second node of one name is refused (E0101) and ignored.
    pub(super) fn collect_nodes(&mut self) {
        let mesh = self.mesh;
        let mut private_names: FxHashMap<String, (String, crate::span::Span)> =
            FxHashMap::default();
        for node in mesh.nodes() {
            if let Some(first) = self.nodes.get(node.name.name.as_str()) {
                let first_span = first.ast.name.span;
                let d = self
                    .diag(
                        Code::E0101,
                        node.name.span,
                        format!(
                            "node `{}` is defined twice in mesh `{}`",
                            node.name.name, mesh.name.name
                        ),
                    )
                    .with_label(first_span, "first defined here")
                    .with_help("rename one of them; node names are unique in a mesh");
                self.mesh_diags.push(d);
                continue;
            }
            // A node's manifest is written as `<node>.json`: a name a file system cannot
            // hold is refused here, at check, not by the file system at build.
            if node.name.name.len() > NODE_NAME_MAX {
                let rule = InvalidLiteral::NodeNameTooLong {
                    max: NODE_NAME_MAX,
                    len: node.name.name.len(),
                };
                let d = rule.at(self.path, node.name.span);
                self.mesh_diags.push(d);
            }
            let mut info = self.read_node(node);
            // Two nodes with one private name: which machine a name reaches is unknown,
            // so both are in error (E0101: one item, the node's address, declared twice).
            if let Some(private) = &info.private_name {
                let key = private.trim_end_matches('.').to_ascii_lowercase();
                let span = node
                    .props
                    .iter()
                    .find(|p| p.key.name == "private_name")
                    .map_or(node.name.span, |p| p.value.span());
                match private_names.get(&key) {
                    Some((first_node, first_span)) => {
                        let d = self
                            .diag(
                                Code::E0101,
                                span,
                                format!(
                                    "nodes `{first_node}` and `{}` of mesh `{}` have one private name",
                                    node.name.name, mesh.name.name
                                ),
                            )
                            .with_label(*first_span, "first written here")
                            .with_help("a private name reaches one machine: give each node its own");
                        self.mesh_diags.push(d.clone());
                        info.errors.push(d.clone());
                        if let Some(first) = self.nodes.get_mut(first_node.as_str()) {
                            first.errors.push(d);
                        }
                    }
                    None => {
                        private_names.insert(key, (node.name.name.to_string(), span));
                    }
                }
            }
            self.nodes.insert(info);
        }
    }

    /// Turns every assignment with a known node into an instance. An unknown module is
    /// refused (E0106) but keeps its instance name; an unknown node (E0107) or a name taken
    /// on the node (E0508) drops the assignment.
    pub(super) fn collect_instances(&mut self) {
        let mesh = self.mesh;
        self.instances.reserve_exact(mesh.assigns().count());
        self.name_refusals = super::Refusals::new(mesh.assigns().count());
        for a in mesh.assigns() {
            let Some(node_ident) = &a.node else {
                continue; // a syntax error, reported by the parser
            };
            let instance = a.instance_name().name.to_string();
            let Some(node_index) = self.nodes.id_of(node_ident.name.as_str()) else {
                let d = self.unknown_node(node_ident, "the assignment's node");
                self.mesh_diags.push(d.clone());
                self.dropped.push(Dropped {
                    node: node_ident.name.to_string(),
                    node_index: None,
                    instance,
                    module: a.module.name.to_string(),
                    diagnostics: vec![d],
                });
                continue;
            };
            if let Some(&first) = self.nodes[node_index].instances.get(&instance) {
                let first_span = assign_head(self.instances[first].assign);
                let d = self
                    .diag(
                        Code::E0508,
                        a.instance_name().span,
                        format!(
                            "instance `{instance}` is already on node `{}`",
                            node_ident.name
                        ),
                    )
                    .with_label(first_span, "first assigned here")
                    .with_help(format!(
                        "give this assignment a name of its own: `assign {} to {} as {}-two`",
                        a.module.name, node_ident.name, instance
                    ));
                self.mesh_diags.push(d.clone());
                self.dropped.push(Dropped {
                    node: node_ident.name.to_string(),
                    node_index: Some(node_index),
                    instance,
                    module: a.module.name.to_string(),
                    diagnostics: vec![d],
                });
                continue;
            }
            let id = self.instances.next_id();
            let modules: &'m indexmap::IndexMap<String, super::LoadedModule<'m>> = self.modules;
            let module = modules.get(a.module.name.as_str());
            let state = InstanceState {
                assign: a,
                name: instance.clone(),
                module_name: a.module.name.to_string(),
                node: node_index,
                module,
            };
            if module.is_none() {
                let help = did_you_mean(
                    &a.module.name,
                    self.registry.modules.keys().map(String::as_str),
                )
                .unwrap_or_else(|| {
                    format!(
                        "no module named `{}` is defined in the workspace",
                        a.module.name
                    )
                });
                self.name_refusals.push(
                    id,
                    self.diag(
                        Code::E0106,
                        a.module.span,
                        format!("unknown module `{}` in `assign`", a.module.name),
                    )
                    .with_help(help),
                );
            }
            self.nodes[node_index].instances.insert(instance, id);
            if let Some(m) = module {
                for &contract in m.provides.keys() {
                    self.providers
                        .entry(contract.to_string())
                        .or_default()
                        .push(id);
                    self.providers_on_node
                        .entry((contract, node_index))
                        .or_default()
                        .push(id);
                }
            }
            self.instances.push(state);
        }
    }

    /// E0107 for a node name this mesh does not declare.
    pub(super) fn unknown_node(&self, node: &crate::syntax::ast::Ident, what: &str) -> Diagnostic {
        let help =
            did_you_mean(&node.name, self.nodes.keys().map(String::as_str)).unwrap_or_else(|| {
                let names: Vec<String> = self.nodes.keys().map(|n| format!("`{n}`")).collect();
                if names.is_empty() {
                    format!("mesh `{}` declares no node", self.mesh.name.name)
                } else {
                    format!(
                        "the nodes of this mesh are {}",
                        crate::diagnostics::capped_list(&names)
                    )
                }
            });
        self.diag(
            Code::E0107,
            node.span,
            format!(
                "unknown node `{}` ({what}) in mesh `{}`",
                node.name, self.mesh.name.name
            ),
        )
        .with_help(help)
    }

    /// The instance `instance` on node `node`, or the diagnostic saying why there is none
    /// (E0107 for the node, E0109 for the instance).
    pub(super) fn find_instance(
        &self,
        instance: &crate::syntax::ast::Ident,
        node: &crate::syntax::ast::Ident,
        what: &str,
    ) -> Result<InstanceId, Diagnostic> {
        let Some(n) = self.nodes.get(node.name.as_str()) else {
            return Err(self.unknown_node(node, what));
        };
        if let Some(&i) = n.instances.get(instance.name.as_str()) {
            return Ok(i);
        }
        let elsewhere: Vec<String> = self
            .nodes
            .values()
            .filter(|other| other.instances.contains_key(instance.name.as_str()))
            .map(|other| format!("`{}`", other.name))
            .collect();
        let help = if !elsewhere.is_empty() {
            format!(
                "`{}` is assigned to {}; name its node",
                instance.name,
                crate::diagnostics::capped_list(&elsewhere)
            )
        } else if let Some(c) = closest(&instance.name, n.instances.keys().map(String::as_str)) {
            format!("did you mean `{c}`?")
        } else if n.instances.is_empty() {
            format!("nothing is assigned to node `{}`", node.name)
        } else {
            format!(
                "the instances on `{}` are {}",
                node.name,
                crate::diagnostics::capped_sorted(
                    n.instances.keys().map(|s| format!("`{s}`")).collect()
                )
            )
        };
        Err(self
            .diag(
                Code::E0109,
                instance.span,
                format!(
                    "no instance `{}` on node `{}` ({what})",
                    instance.name, node.name
                ),
            )
            .with_help(help))
    }

    /// Reads the seat lines: each names a seat of the standard library (E0108), once
    /// (E0102), held by an instance (E0107, E0109) whose module provides what the seat
    /// delivers (E0515).
    pub(super) fn collect_seats(&mut self) {
        let mesh = self.mesh;
        let mut first_line: FxHashMap<&str, crate::span::Span> = FxHashMap::default();
        for s in mesh.seats() {
            let Some(seat) = self.registry.seats.get(s.seat.name.as_str()) else {
                let mut known: Vec<&str> = self.registry.seats.keys().map(String::as_str).collect();
                known.sort_unstable();
                let help = did_you_mean(&s.seat.name, known.iter().copied()).unwrap_or_else(|| {
                    format!(
                        "the seats are a closed set: {}",
                        crate::diagnostics::capped_list(known.iter().map(|k| format!("`{k}`")))
                    )
                });
                let d = self
                    .diag(
                        Code::E0108,
                        s.seat.span,
                        format!("unknown seat `{}`", s.seat.name),
                    )
                    .with_help(help);
                self.mesh_diags.push(d);
                continue;
            };
            if let Some(first) = first_line.get(s.seat.name.as_str()) {
                let rule = Duplicate::SeatHeld {
                    seat: &s.seat.name,
                    mesh: &mesh.name.name,
                    first: *first,
                };
                let d = rule.at(self.path, s.seat.span);
                self.mesh_diags.push(d);
                continue;
            }
            first_line.insert(s.seat.name.as_str(), s.span);
            let (Some(instance), Some(node)) = (&s.instance, &s.node) else {
                continue; // a syntax error, reported by the parser
            };
            let state = match self.find_instance(instance, node, "the seat's holder") {
                Err(d) => {
                    let code = d.code;
                    let why = d.message.clone();
                    self.mesh_diags.push(d);
                    SeatState::Broken {
                        code,
                        span: s.span,
                        why,
                    }
                }
                Ok(holder) => match self.module_of(holder) {
                    // An unknown module is refused on its own assignment; consumers wait for it.
                    None => SeatState::Held(holder),
                    Some(m) if m.provides.contains_key(seat.contract.as_str()) => {
                        SeatState::Held(holder)
                    }
                    Some(m) => {
                        let why = format!(
                            "seat `{}` is held by `{}` on `{}`, whose module `{}` does not provide `{}`",
                            s.seat.name, instance.name, node.name, m.name, seat.contract
                        );
                        let d = self
                            .diag(Code::E0515, instance.span, why.clone())
                            .with_label(self.head(holder), "assigned here")
                            .with_help(self.could_hold_help(&s.seat.name, &seat.contract.clone()));
                        self.mesh_diags.push(d);
                        SeatState::Broken {
                            code: Code::E0515,
                            span: s.span,
                            why,
                        }
                    }
                },
            };
            self.seats.insert(s.seat.name.to_string(), state);
        }
    }

    /// "hold it with `seat vault = keeper on alpha`", naming what could hold the seat:
    /// instances of this mesh providing the contract, else workspace modules that do.
    pub(super) fn could_hold_help(&self, seat: &str, contract: &str) -> String {
        let in_mesh: Vec<InstanceId> = self.providers.get(contract).cloned().unwrap_or_default();
        if let Some(&first) = in_mesh.first() {
            let names: Vec<String> = in_mesh.iter().map(|&i| self.who(i)).collect();
            return format!(
                "instances that could hold it: {}; hold it with `seat {seat} = {} on {}`",
                crate::diagnostics::capped_list(&names),
                self.instances[first].name,
                self.node_name(first)
            );
        }
        let modules = self.workspace_modules_providing(contract);
        if modules.is_empty() {
            format!(
                "no module of the workspace provides `{contract}`; write one with `provides {contract} {{ … }}`, assign it and hold the seat with `seat {seat} = INSTANCE on NODE`"
            )
        } else {
            format!(
                "modules that could hold it: {}; assign one and hold the seat with `seat {seat} = {} on NODE`",
                crate::diagnostics::capped_list(modules.iter().map(|m| format!("`{m}`"))),
                modules[0]
            )
        }
    }

    /// The workspace's modules that provide `contract`, in workspace order. Reads every
    /// module once, on first need.
    pub(super) fn workspace_modules_providing(&self, contract: &str) -> Vec<String> {
        let map = self.workspace_providers.get_or_init(|| {
            let mut map: FxHashMap<String, Vec<String>> = FxHashMap::default();
            for name in self.registry.modules.keys() {
                let Some(src) = (self.input.module)(name) else {
                    continue;
                };
                if let Some(crate::syntax::ast::Item::Module(m)) =
                    src.parsed.file.items.get(src.item)
                {
                    let mut seen = FxHashSet::default();
                    for p in m.provides() {
                        if seen.insert(p.contract.name.clone()) {
                            map.entry(p.contract.name.to_string())
                                .or_default()
                                .push(name.clone());
                        }
                    }
                }
            }
            map
        });
        map.get(contract).cloned().unwrap_or_default()
    }
}

/// The longest node name, in bytes: `<node>.json` and the aside files written beside it
/// (`.<node>.json.tmp-<16 hex digits>`) stay within the 255 bytes of a file name.
const NODE_NAME_MAX: usize = 200;
