//! The names a mesh declares and uses: nodes (E0101), instances (E0106, E0107, E0508)
//! and seats (E0102, E0107, E0108, E0109, E0515).

use super::fx_hash::{FxHashMap, FxHashSet};
use super::ids::Id;
use super::{Dropped, InstanceId, InstanceState, Resolver, SeatState, assign_head};
use crate::diagnostics::rules::{
    CouldHold, Duplicate, InstanceTaken, InvalidLiteral, MeshTwice, NoInstance,
    SeatHolderNotProvider, UnknownModule, UnknownNode, UnknownSeat,
};
use crate::diagnostics::{Code, Diagnostic, Rule, closest};

impl<'m> Resolver<'m> {
    /// Reads every node; a second node of one name is refused (E0101) and ignored.
    pub(super) fn collect_nodes(&mut self) {
        let mesh = self.mesh;
        let mut private_names: FxHashMap<String, (String, crate::span::Span)> =
            FxHashMap::default();
        for node in mesh.nodes() {
            if let Some(first) = self.nodes.get(node.name.name.as_str()) {
                let first_span = first.ast.name.span;
                let rule = MeshTwice::Node {
                    node: &node.name.name,
                    mesh: &mesh.name.name,
                    first: first_span,
                };
                let d = self.at(node.name.span, rule);
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
                        let rule = MeshTwice::PrivateName {
                            first_node,
                            node: &node.name.name,
                            mesh: &mesh.name.name,
                            first: *first_span,
                        };
                        let d = self.at(span, rule);
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
    pub(super) fn collect_instances(&mut self) -> super::Refusals {
        let mesh = self.mesh;
        self.instances.reserve_exact(mesh.assigns().count());
        let mut refusals = super::Refusals::default();
        // The name of every container on each node (`<instance>`, or
        // `<instance>-<container>` for a module with several): a Compose service and a
        // container are named by it, so two of one name on a node are refused (E0508).
        // One table per node, looked up by a borrowed name: a key of `(node, String)`
        // would copy every name to look it up, once for every assignment.
        // Each node's tables sized once, from how many assignments name it: grown by
        // doubling, a node's 5,000 names (100,000 assignments on twenty nodes) would be
        // hashed and moved again at each step, into fresh memory.
        let mut assigned = vec![0usize; self.nodes.len()];
        for a in mesh.assigns() {
            if let Some(node) = a
                .node
                .as_ref()
                .and_then(|n| self.nodes.id_of(n.name.as_str()))
            {
                assigned[node.index()] += 1;
            }
        }
        let mut services: Vec<FxHashMap<String, InstanceId>> = assigned
            .iter()
            .map(|&n| FxHashMap::with_capacity_and_hasher(n, Default::default()))
            .collect();
        for (node, &n) in assigned.iter().enumerate() {
            self.nodes[super::NodeId::from_index(node)]
                .instances
                .reserve(n);
        }
        for a in mesh.assigns() {
            self.interrupt();
            let Some(node_ident) = &a.node else {
                continue; // a syntax error, reported by the parser
            };
            // Copied as text: `to_string` on a name goes through the formatter, once for
            // every assignment of a large mesh.
            let instance = String::from(a.instance_name().name.as_str());
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
                let rule = InstanceTaken {
                    instance: &instance,
                    node: &node_ident.name,
                    module: &a.module.name,
                    first: first_span,
                    container: None,
                };
                let d = self.at(a.instance_name().span, rule);
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
            let modules: &'m super::FxIndexMap<String, super::LoadedModule<'m>> = self.modules;
            let module = modules.get(a.module.name.as_str());
            let names = container_names(&instance, module);
            if let Some((name, &first)) = names
                .iter()
                .find_map(|n| Some((n, services[node_index.index()].get(n.as_str())?)))
            {
                let rule = InstanceTaken {
                    instance: &instance,
                    node: &node_ident.name,
                    module: &a.module.name,
                    first: assign_head(self.instances[first].assign),
                    container: Some((name, &self.instances[first].name)),
                };
                let d = self.at(a.instance_name().span, rule);
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
            services[node_index.index()].extend(names.into_iter().map(|n| (n, id)));
            let state = InstanceState {
                assign: a,
                name: instance.clone(),
                module_name: String::from(a.module.name.as_str()),
                node: node_index,
                module,
            };
            if module.is_none() {
                let rule = UnknownModule {
                    module: &a.module.name,
                    closest: closest(
                        &a.module.name,
                        self.registry.modules.keys().map(String::as_str),
                    ),
                };
                let d = self.at(a.module.span, rule);
                refusals.push(id, d);
            }
            self.nodes[node_index].instances.insert(instance, id);
            if let Some(m) = module {
                for &contract in m.provides.keys() {
                    // The contract's name copied only the first time it is provided.
                    match self.providers.get_mut(contract) {
                        Some(ids) => ids.push(id),
                        None => {
                            self.providers.insert(contract.to_string(), vec![id]);
                        }
                    }
                    self.providers_on_node
                        .entry((contract, node_index))
                        .or_default()
                        .push(id);
                }
            }
            self.instances.push(state);
        }
        refusals
    }

    /// E0107 for a node name this mesh does not declare.
    pub(super) fn unknown_node(&self, node: &crate::syntax::ast::Ident, what: &str) -> Diagnostic {
        let closest = closest(&node.name, self.nodes.keys().map(String::as_str));
        let nodes = match closest {
            Some(_) => String::new(),
            None => crate::diagnostics::capped_list(self.nodes.keys().map(|n| format!("`{n}`"))),
        };
        let rule = UnknownNode {
            node: &node.name,
            what,
            mesh: &self.mesh.name.name,
            closest,
            nodes,
        };
        self.at(node.span, rule)
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
        let elsewhere = crate::diagnostics::capped_list(
            self.nodes
                .values()
                .filter(|other| other.instances.contains_key(instance.name.as_str()))
                .map(|other| format!("`{}`", other.name)),
        );
        let closest = closest(&instance.name, n.instances.keys().map(String::as_str));
        let on_node = match (elsewhere.is_empty(), closest) {
            (true, None) => crate::diagnostics::capped_sorted(
                n.instances.keys().map(|s| format!("`{s}`")).collect(),
            ),
            _ => String::new(),
        };
        let rule = NoInstance {
            instance: &instance.name,
            node: &node.name,
            what,
            elsewhere,
            closest,
            on_node,
        };
        Err(self.at(instance.span, rule))
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
                let rule = UnknownSeat {
                    seat: &s.seat.name,
                    closest: closest(&s.seat.name, known.iter().copied()),
                    seats: crate::diagnostics::capped_list(known.iter().map(|k| format!("`{k}`"))),
                };
                let d = self.at(s.seat.span, rule);
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
                        let in_mesh = self.could_hold(&seat.contract);
                        let rule = SeatHolderNotProvider {
                            seat: &s.seat.name,
                            instance: &instance.name,
                            node: &node.name,
                            module: &m.name,
                            contract: &seat.contract,
                            holder: self.head(holder),
                            could_hold: in_mesh.as_could_hold(),
                        };
                        let why = rule.message();
                        let d = self.at(instance.span, rule);
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

    /// What could hold a seat delivering `contract`: instances of this mesh providing
    /// it, else workspace modules that do.
    pub(super) fn could_hold(&self, contract: &str) -> Holders<'_> {
        let in_mesh: &[InstanceId] = self.providers.get(contract).map_or(&[], Vec::as_slice);
        if let Some(&first) = in_mesh.first() {
            return Holders::Instances {
                names: crate::diagnostics::capped_list(in_mesh.iter().map(|&i| self.who(i))),
                first: &self.instances[first].name,
                first_node: self.node_name(first),
            };
        }
        let modules = self.workspace_modules_providing(contract);
        match modules.first() {
            None => Holders::Nothing,
            Some(first) => Holders::Modules {
                names: crate::diagnostics::capped_list(modules.iter().map(|m| format!("`{m}`"))),
                first: first.clone(),
            },
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

/// What [`Resolver::could_hold`] finds, owned where the rule's [`CouldHold`] borrows.
pub(super) enum Holders<'a> {
    Instances {
        names: String,
        first: &'a str,
        first_node: &'a str,
    },
    Modules {
        names: String,
        first: String,
    },
    Nothing,
}

impl Holders<'_> {
    /// The rule's view of what could hold the seat.
    pub(super) fn as_could_hold(&self) -> CouldHold<'_> {
        match self {
            Holders::Instances {
                names,
                first,
                first_node,
            } => CouldHold::Instances {
                names: names.clone(),
                first,
                first_node,
            },
            Holders::Modules { names, first } => CouldHold::Modules {
                names: names.clone(),
                first,
            },
            Holders::Nothing => CouldHold::Nothing,
        }
    }
}

/// The names instance `instance` of `module` gives its containers and jobs: the instance's
/// for a module with one, else `<instance>-<container>` each (LANGUAGE.md §9).
fn container_names(instance: &str, module: Option<&super::LoadedModule<'_>>) -> Vec<String> {
    let Some(m) = module else {
        return Vec::new();
    };
    let containers: Vec<&str> = m.ast.containers().map(|c| c.name.name.as_str()).collect();
    match containers.as_slice() {
        [_] => vec![instance.to_string()],
        several => several.iter().map(|c| format!("{instance}-{c}")).collect(),
    }
}
