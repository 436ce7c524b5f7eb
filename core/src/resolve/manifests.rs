//! Assembling the manifests of §9: one per node, its built instances in source order
//! (requirements, containers, what each provides and to whom), what was left out and
//! why, and the digest.
//!
//! The last phase. It reads the products of the phases before it (the instances with
//! their answers, and the values phase's [`Values`]) and changes none of them: each
//! node's manifest is built by a [`Builder`] of its own, on every core, in the mesh's
//! node order whatever the number of threads.

use super::FxIndexMap;
use super::evaluate::{Evaluate, Evaluation, OperatorValue, Resolved, into_json};
use super::ids::Id;
use super::loops::Binding;
use super::{
    Answer, ChoiceRef, IdVec, InstanceId, Ledger, LeftOutAssignment, LeftOutSet, MeshOutcome,
    NodeId, Output, Ports, ProviderChoice, Resolver, Values, World,
};
use crate::check::types::Value;
use crate::diagnostics::rules::{CheckerMiss, Rule};
use crate::diagnostics::{Diagnostic, Reported};
use crate::emit::{
    self, AbsentRequirement, AccessRequirement, Consumer, DirectoryRequirement,
    IdentityRequirement, Instance, LeftOut, LeftOutDiagnostic, Manifest, ModuleRequirement,
    NodeAddress, NodeRequirement, OperatorRequirement, PortRequirement, Provided, Requirement,
    Retired,
};
use crate::span::FilePath;
use indexmap::IndexMap;
use std::collections::{BTreeMap, BTreeSet};

use super::lock::WrittenBy;

/// Builds the manifests of one node or more from the products of the phases before:
/// evaluation reads the values phase's memo tables and never computes one, so building
/// refuses nothing and needs nothing but shared references (one builder per thread).
pub(crate) struct Builder<'a, 'm> {
    pub(super) world: World<'a, 'm>,
    values: &'a Values,
    /// The loop variables bound while a `for` template renders, innermost last.
    bindings: Vec<Binding<'m>>,
    /// The mesh's file, where a miss is placed.
    path: &'a FilePath,
    /// What the checker missed, met while building (none ever: [`Evaluate::missed`]).
    misses: Vec<Diagnostic>,
}

impl Builder<'_, '_> {
    /// A value the values phase computed for instance `i`, or, where it computed none,
    /// the miss `what` through the gate.
    fn computed<T>(
        &mut self,
        i: InstanceId,
        memo: Option<Evaluation<T>>,
        what: &'static str,
    ) -> Evaluation<T> {
        match memo {
            Some(v) => v,
            None => Err(self.passed_over(i, what).into()),
        }
    }
}

impl<'m> Evaluate<'m> for Builder<'_, 'm> {
    fn world(&self) -> World<'_, 'm> {
        self.world
    }

    // The values phase computed every value a built instance reads (each operator
    // value, given field and answer of every instance): one it did not is a miss.

    fn operator_memo(&mut self, i: InstanceId, r: u32) -> Evaluation<OperatorValue> {
        let memo = self.values.operator(i, r);
        self.computed(i, memo, "E0501 (a value the values phase did not compute)")
    }

    fn given_memo(&mut self, i: InstanceId, r: u32, f: u32) -> Evaluation {
        let memo = self.values.given(i, r, f);
        self.computed(i, memo, "E0501 (a value the values phase did not compute)")
    }

    fn answer_memo(&mut self, consumer: InstanceId, r: u32, f: u32) -> Evaluation {
        let memo = self.values.answer(consumer, r, f);
        self.computed(
            consumer,
            memo,
            "E0310 (an answer the values phase did not compute)",
        )
    }

    /// Recorded with the node's manifest and listed with the mesh's diagnostics: the
    /// manifest may be written already, so nothing is left out, but the build fails.
    fn missed(&mut self, i: InstanceId, code: &'static str) -> Reported {
        let module = self.world.module_of(i).map_or("", |m| m.name.as_str());
        let head = super::assign_head(self.world.instances[i].assign);
        let d = CheckerMiss { what: code, module }.at(self.path, head);
        Reported::record(&mut self.misses, d)
    }

    /// None: a refused instance is not built.
    fn refusal(&self, _i: InstanceId) -> Option<Reported> {
        None
    }

    fn bindings(&self) -> &Vec<Binding<'m>> {
        &self.bindings
    }

    fn bindings_mut(&mut self) -> &mut Vec<Binding<'m>> {
        &mut self.bindings
    }

    /// None: only an instance whose module the checker passed is built (one with errors
    /// is left out), so a gate met while building is the checker's miss, which debug
    /// builds assert against.
    fn module_error(&self, _i: InstanceId) -> Option<Reported> {
        None
    }

    /// The specs of every module were read before the manifests.
    fn reading(
        &self,
        m: &'m super::LoadedModule<'m>,
        reference: &crate::syntax::ast::Reference,
    ) -> crate::check::readings::Reading {
        m.reading(reference)
    }
}

/// What every node's manifest reads besides the world and the values, made once before
/// the nodes are built.
struct Shared<'a, 'm> {
    mesh: &'a str,
    /// Each node's built instances, in source order.
    built_on: IdVec<NodeId, Vec<InstanceId>>,
    /// provider → (consumer, requirement), for built consumers, in source order.
    consumers_of: IdVec<InstanceId, Vec<(InstanceId, &'m str)>>,
    /// Each node's left-out assignments, in source order.
    left_out_on: IdVec<NodeId, Vec<&'a LeftOutAssignment>>,
    /// What the previous build wrote (the lock's `written`).
    previous: &'a BTreeMap<String, WrittenBy>,
    /// The `node/instance` keys of what is left out or dropped: not rebuilt, so what it
    /// wrote stays as the previous build recorded it.
    kept: BTreeSet<String>,
    /// Every node's private name, the `mesh_names` fact each node requirement lists.
    mesh_names: std::sync::Arc<[String]>,
}

/// One node's manifest, what each of its instances wrote (`node/instance` keys), and
/// what the checker missed, met while building it (none ever: [`Evaluate::missed`]).
struct NodeBuilt {
    manifest: Manifest,
    written: Vec<(String, WrittenBy)>,
    misses: Vec<Diagnostic>,
}

/// What the manifests phase keeps of a node: its manifest, or nothing (it went to the
/// input's sink).
enum NodeKept {
    Manifest(Manifest),
    Sent,
}

impl<'a, 'm> Builder<'a, 'm> {
    fn new(world: World<'a, 'm>, values: &'a Values, path: &'a FilePath) -> Self {
        Builder {
            world,
            values,
            bindings: Vec::new(),
            path,
            misses: Vec::new(),
        }
    }

    fn build_instance(&mut self, i: InstanceId, shared: &Shared<'_, 'm>) -> Instance {
        let mut requirements = FxIndexMap::default();
        if let Some(m) = self.world.module_of(i) {
            for &req in m.scope.requirements.keys() {
                match self.requirement_entry(i, req, shared) {
                    Ok(entry) => {
                        requirements.insert(req.to_string(), entry);
                    }
                    // Never for a built instance: each of its values was computed, and
                    // what is refused leaves it out. Passed over on the proof.
                    Err(_passed_over) => {}
                }
            }
        }
        let inst = &self.world.instances[i];
        Instance {
            instance: inst.name.clone(),
            module: inst.module_name.clone(),
            login: self.world.logins[i].clone(),
            requirements,
            containers: self.build_containers(i),
            provides: Vec::new(),
            genesis: self.world.settings[i].genesis,
        }
    }

    fn given_json(
        &mut self,
        i: InstanceId,
        req: &'m str,
        field: &str,
    ) -> Evaluation<serde_json::Value> {
        match self.given_value(i, req, field)? {
            Resolved::Plain(v, ty) => Ok(into_json(v, &ty)),
            // A given field is plain (E0302, E0303 otherwise).
            _ => Err(self.passed_over(i, "E0302 or E0303").into()),
        }
    }

    fn given_int(&mut self, i: InstanceId, req: &'m str, field: &str) -> Evaluation<i64> {
        match self.given_value(i, req, field)? {
            Resolved::Plain(Value::Int(n), _) => Ok(n),
            // A host contract's `owner` or `container` is an integer (E0301 otherwise).
            _ => Err(self.passed_over(i, "E0301").into()),
        }
    }

    /// The manifest entry of requirement `req` of instance `i`.
    fn requirement_entry(
        &mut self,
        i: InstanceId,
        req: &'m str,
        shared: &Shared<'_, 'm>,
    ) -> Evaluation<Requirement> {
        let answer = self.world.answers[i].get(req).cloned();
        let Some(info) = self.world.requirement(i, req) else {
            // `req` is a name of the module's own scope.
            return Err(self.passed_over(i, "E0104").into());
        };
        let contract_name = info.contract_name().unwrap_or("").to_string();
        Ok(match answer {
            Some(Answer::Operator) | Some(Answer::SecretOperator { .. }) | None
                if info.operator.is_some() =>
            {
                let (value, from) = self.operator_value(i, req)?;
                let (value, sealed) = match value {
                    Resolved::Plain(v, ty) => (Some(into_json(v, &ty)), None),
                    Resolved::Sealed(s) => (None, Some(*s)),
                    // A host path as an operator's default (E0303).
                    _ => return Err(self.passed_over(i, "E0303").into()),
                };
                Requirement::Operator(OperatorRequirement {
                    kind: "operator",
                    value,
                    sealed,
                    from: from.into(),
                })
            }
            Some(Answer::Directory { path, placed }) => {
                Requirement::Directory(DirectoryRequirement {
                    kind: "host",
                    contract: contract_name,
                    path,
                    owner: self.given_int(i, req, "owner")?,
                    mode: self.given_text(i, req, "mode")?,
                    placed,
                })
            }
            Some(Answer::Access { path }) => Requirement::Access(AccessRequirement {
                kind: "host",
                contract: contract_name,
                path,
                write: matches!(
                    self.given_value(i, req, "write"),
                    Ok(Resolved::Plain(Value::Bool(true), _))
                ),
                placed: true,
            }),
            Some(Answer::Port { host_port, .. }) => Requirement::Port(PortRequirement {
                kind: "host",
                contract: contract_name,
                container: self.given_int(i, req, "container")?,
                host_port,
                reach: self.given_text(i, req, "reach")?,
                protocol: self.given_text(i, req, "protocol")?,
            }),
            Some(Answer::Node) => Requirement::Node(NodeRequirement {
                kind: "host",
                contract: contract_name,
                private_name: match &self.world.nodes[self.world.instances[i].node].private_name {
                    Some(name) => name.clone(),
                    // `Answer::Node` is given only on a node with a private name.
                    None => {
                        return Err(self
                            .passed_over(i, "E0501 (a node's `private_name`)")
                            .into());
                    }
                },
                mesh_names: shared.mesh_names.clone(),
            }),
            Some(Answer::Identity) => Requirement::Identity(IdentityRequirement {
                kind: "mesh",
                contract: contract_name,
                login: self.world.logins[i].clone(),
                instance: self.world.instances[i].name.clone(),
                module: self.world.instances[i].module_name.clone(),
            }),
            Some(Answer::Module { provider, by }) => Requirement::Module(ModuleRequirement {
                kind: "module",
                contract: contract_name,
                provider: self.world.instance_ref(provider),
                by,
            }),
            Some(Answer::Absent) => Requirement::Absent(AbsentRequirement {
                kind: "module",
                contract: contract_name,
                absent: true,
            }),
            // A requirement left unresolved refused its instance, which is not built.
            _ => {
                return Err(self
                    .passed_over(i, "E0103 (a requirement left unresolved)")
                    .into());
            }
        })
    }

    /// What provider `p` provides, with the consumers it answers (built consumers, in
    /// source order).
    fn provided(&mut self, p: InstanceId, shared: &Shared<'_, 'm>) -> Vec<Provided> {
        let w = self.world;
        let Some(pm) = w.module_of(p) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &contract in pm.provides.keys() {
            let mut consumers = Vec::new();
            for &(c, req) in &shared.consumers_of[p] {
                let Some(cinfo) = w.requirement(c, req) else {
                    continue;
                };
                if cinfo.contract_name() != Some(contract) {
                    continue;
                }
                let mut given = FxIndexMap::default();
                if let Some(ci) = cinfo.contract.as_deref() {
                    for f in ci.fields.values().filter(|f| f.given) {
                        match self.given_json(c, req, &f.name) {
                            Ok(v) => {
                                given.insert(f.name.clone(), v);
                            }
                            // A given secret field has no plain value, whatever the
                            // resolver was told (`given_value_at`); anything else refused
                            // is passed over on its proof.
                            Err(_no_value) => {}
                        }
                    }
                }
                let inst = &w.instances[c];
                let login = &w.logins[c];
                // Every secret field's key is `<login>/<field>` unless one was recorded
                // in another form; then the consumer lists them all.
                let secret_fields: Vec<&str> = cinfo
                    .contract
                    .as_deref()
                    .map(|ci| {
                        ci.fields
                            .values()
                            .filter(|f| f.secret)
                            .map(|f| f.name.as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                let derived = secret_fields.iter().all(|&f| {
                    w.secret_keys
                        .get(c)
                        .is_none_or(|k| !k.contains_key(&(req, f)))
                });
                let keys = (!derived).then(|| {
                    secret_fields
                        .iter()
                        .map(|&f| (f.to_string(), w.secret_key(c, req, f)))
                        .collect()
                });
                consumers.push(Consumer {
                    node: w.node_name(c).to_string(),
                    private_name: w.nodes[inst.node].private_name.clone().unwrap_or_default(),
                    instance: inst.name.clone(),
                    login: login.clone(),
                    given,
                    requirement: (!derived).then(|| req.to_string()),
                    keys,
                });
            }
            out.push(Provided {
                contract: contract.to_string(),
                consumers,
            });
        }
        out
    }

    /// Node `n`'s manifest, its digest not yet taken (a manifest written to bytes at
    /// once has it worked out as it is written), and what its instances wrote. With
    /// `writer`, each instance is written there as soon as it is built and dropped, and
    /// the manifest holds none.
    fn node(
        &mut self,
        n: NodeId,
        shared: &Shared<'_, 'm>,
        mut writer: Option<&mut emit::ManifestWriter<'_>>,
    ) -> NodeBuilt {
        let w = self.world;
        let node = &w.nodes[n];
        let mut instances = Vec::with_capacity(match writer {
            Some(_) => 0,
            None => shared.built_on[n].len(),
        });
        let mut written = Vec::with_capacity(shared.built_on[n].len());
        // A node's instances name the same few nodes tens of thousands of times: each
        // name is looked up in a set, and only the few distinct ones are kept and sorted.
        let mut named: super::FxHashSet<String> = super::FxHashSet::default();
        for &i in &shared.built_on[n] {
            let mut instance = self.build_instance(i, shared);
            instance.provides = self.provided(i, shared);
            written.push((
                format!("{}/{}", node.name, instance.instance),
                written_by(&instance),
            ));
            let mut found = Vec::new();
            instance.nodes_named(&mut found);
            for name in found {
                if !named.contains(name) {
                    named.insert(name.to_string());
                }
            }
            match writer.as_deref_mut() {
                Some(writer) => writer.instance(&instance),
                None => instances.push(instance),
            }
        }
        let left_out = shared.left_out_on[n]
            .iter()
            .map(|l| LeftOut {
                instance: l.instance.clone(),
                module: l.module.clone(),
                diagnostics: l
                    .diagnostics
                    .iter()
                    .map(|d| LeftOutDiagnostic {
                        code: d.code.as_str().to_string(),
                        message: d.message.clone(),
                    })
                    .collect(),
            })
            .collect();
        let retired = retired_on(&node.name, &written, shared);
        if !named.contains(node.name.as_str()) {
            named.insert(node.name.clone());
        }
        let mut named: Vec<String> = named.into_iter().collect();
        named.sort_unstable();
        let nodes = named
            .into_iter()
            .filter_map(|name| {
                let private_name = w.nodes.get(name.as_str())?.private_name.clone()?;
                Some((name, NodeAddress { private_name }))
            })
            .collect();
        let manifest = Manifest {
            mesh: shared.mesh.to_string(),
            node: node.name.clone(),
            digest: String::new(),
            nodes,
            instances,
            left_out,
            retired,
        };
        NodeBuilt {
            manifest,
            written,
            misses: std::mem::take(&mut self.misses),
        }
    }
}

/// What `instance` writes: its containers, each with the sorted paths of its files and
/// secret files.
fn written_by(instance: &Instance) -> WrittenBy {
    instance
        .containers
        .iter()
        .map(|c| {
            let mut paths: Vec<String> = c
                .files
                .iter()
                .map(|f| f.target.clone())
                .chain(c.secrets.iter().map(|f| f.target.clone()))
                .collect();
            paths.sort();
            paths.dedup();
            (c.name.clone(), paths)
        })
        .collect()
}

/// What the previous build wrote on node `node` that this one no longer does: every
/// container, or file of a container, of an instance rebuilt without it or gone. What
/// a left-out or dropped assignment wrote stays (it was not rebuilt).
fn retired_on(
    node: &str,
    written: &[(String, WrittenBy)],
    shared: &Shared<'_, '_>,
) -> Vec<Retired> {
    let mut retired = Vec::new();
    if shared.previous.is_empty() {
        return retired;
    }
    // The node's keys (`node/instance`; a node's name holds no `/`) are one run of the
    // sorted record.
    let mut now_of: super::FxHashMap<&str, &WrittenBy> = super::FxHashMap::default();
    for (k, c) in written {
        now_of.entry(k.as_str()).or_insert(c);
    }
    let prefix = format!("{node}/");
    let from = (
        std::ops::Bound::Included(prefix.as_str()),
        std::ops::Bound::Unbounded,
    );
    for (key, before) in shared.previous.range::<str, _>(from) {
        let Some(instance) = key.strip_prefix(prefix.as_str()) else {
            break;
        };
        let now = now_of.get(key.as_str()).copied();
        if now.is_none() && shared.kept.contains(key) {
            continue;
        }
        for (container, paths) in before.iter() {
            match now.and_then(|c| c.get(container)) {
                None => retired.push(Retired {
                    instance: instance.to_string(),
                    container: container.clone(),
                    path: None,
                }),
                Some(now_paths) => {
                    for p in paths.iter().filter(|p| !now_paths.contains(p)) {
                        retired.push(Retired {
                            instance: instance.to_string(),
                            container: container.clone(),
                            path: Some(p.clone()),
                        });
                    }
                }
            }
        }
    }
    retired
}

impl<'m> Resolver<'m> {
    /// The outcome: what was left out and why, the provider choices, the lock, every
    /// diagnostic in order, and (for a build) the manifests, built from `values`.
    pub(super) fn assemble(
        &self,
        world: World<'_, 'm>,
        refused: &Ledger<'_>,
        waits_for: &IdVec<InstanceId, Vec<InstanceId>>,
        left_out_set: &LeftOutSet,
        values: &Values,
        ports: Ports,
    ) -> MeshOutcome {
        let flags = &left_out_set.flags;
        let built: Vec<InstanceId> = self.instances.ids().filter(|&i| !flags[i]).collect();

        // What was left out, in source order, with every reason.
        let mut left_out: Vec<(u32, Option<NodeId>, LeftOutAssignment)> = Vec::new();
        for (i, inst) in self.instances.iter_enumerated() {
            if !flags[i] {
                continue;
            }
            let mut diagnostics = refused.refusals_of(i);
            if let Some(m) = self.module_of(i) {
                diagnostics.extend(self.errors_of(m).iter().cloned());
            }
            diagnostics.extend(self.nodes[inst.node].errors.iter().cloned());
            left_out.push((
                inst.assign.span.start,
                Some(inst.node),
                LeftOutAssignment {
                    node: self.nodes[inst.node].name.clone(),
                    instance: inst.name.clone(),
                    module: inst.module_name.clone(),
                    diagnostics,
                },
            ));
        }
        for d in &self.dropped {
            left_out.push((
                d.diagnostics.first().map(|x| x.span.start).unwrap_or(0),
                d.node_index,
                LeftOutAssignment {
                    node: d.node.clone(),
                    instance: d.instance.clone(),
                    module: d.module.clone(),
                    diagnostics: d.diagnostics.clone(),
                },
            ));
        }
        left_out.sort_by_key(|(at, _, _)| *at);

        let choices = match self.input.choices {
            true => Self::provider_choices(world, &built),
            false => Vec::new(),
        };
        let lock = ports.lock;
        let nodes: Vec<super::NodeFacts> = self
            .nodes
            .values()
            .map(|n| super::NodeFacts {
                name: n.name.clone(),
                private_name: n.private_name.clone(),
                private_address: n.private_address.clone(),
                root: n.root.clone(),
            })
            .collect();
        let (kept, written, misses) = match self.output {
            Output::Nothing => (Vec::new(), Default::default(), Vec::new()),
            Output::Manifests | Output::Sent => {
                self.manifests(world, values, &built, &left_out, &nodes)
            }
        };
        let mut manifests = IndexMap::new();
        for kept in kept {
            if let NodeKept::Manifest(m) = kept {
                manifests.insert(m.node.clone(), m);
            }
        }

        let mut diagnostics = super::order_diagnostics(
            &self.mesh_diags,
            self.instances.ids().map(|i| refused.own(i)),
            self.waiting_groups(refused, waits_for, left_out_set),
        );
        // The checker's misses met while building, after the rest (none ever).
        diagnostics.extend(misses);

        MeshOutcome {
            mesh: self.mesh.name.name.to_string(),
            path: self.path.clone(),
            span: self.mesh.name.span,
            diagnostics,
            manifests,
            lock,
            written,
            left_out: left_out.into_iter().map(|(_, _, l)| l).collect(),
            port_moves: ports.moves,
            choices,
            nodes,
        }
    }

    /// How each module requirement of the built instances is answered, in manifest order
    /// (node by node, source order within a node).
    fn provider_choices(w: World<'_, '_>, built: &[InstanceId]) -> Vec<ProviderChoice> {
        use std::sync::Arc;
        let mut order: Vec<InstanceId> = built.to_vec();
        order.sort_by_key(|&i| w.instances[i].node);
        // Made on every core, in the order above whatever the number of threads. Each
        // name is made once per part and shared by the choices that hold it: a node's,
        // a requirement's and a provider's name by every choice of that part, an
        // instance's and its module's by its own choices.
        crate::parallel::map_chunks(&order, 512, |part| {
            let mut nodes: Vec<Option<Arc<str>>> = vec![None; w.nodes.len()];
            let mut node_of = |i: InstanceId| -> Arc<str> {
                let node = w.instances[i].node;
                nodes[node.index()]
                    .get_or_insert_with(|| Arc::from(w.node_name(i)))
                    .clone()
            };
            let mut requirements: crate::base::fx_hash::FxHashMap<&str, Arc<str>> =
                Default::default();
            let mut providers: crate::base::fx_hash::FxHashMap<InstanceId, ChoiceRef> =
                Default::default();
            let mut out = Vec::new();
            for &i in part {
                let Some(m) = w.module_of(i) else { continue };
                let mut consumer: Option<(Arc<str>, Arc<str>, Arc<str>)> = None;
                for &req in m.scope.requirements.keys() {
                    let provider = match w.answers[i].get(req) {
                        Some(Answer::Module { provider, by }) => {
                            let at = match providers.get(provider) {
                                Some(at) => at.clone(),
                                None => {
                                    let at = ChoiceRef {
                                        node: node_of(*provider),
                                        instance: Arc::from(w.instances[*provider].name.as_str()),
                                    };
                                    providers.insert(*provider, at.clone());
                                    at
                                }
                            };
                            Some((at, *by))
                        }
                        Some(Answer::Absent) => None,
                        _ => continue,
                    };
                    let (node, instance, module) = consumer
                        .get_or_insert_with(|| {
                            (
                                node_of(i),
                                Arc::from(w.instances[i].name.as_str()),
                                Arc::from(w.instances[i].module_name.as_str()),
                            )
                        })
                        .clone();
                    let requirement = requirements
                        .entry(req)
                        .or_insert_with(|| Arc::from(req))
                        .clone();
                    out.push(ProviderChoice {
                        node,
                        instance,
                        module,
                        requirement,
                        provider,
                    });
                }
            }
            out
        })
    }

    /// One manifest per node, in node order, built on every core: its built instances,
    /// what was left out of it and what it retired, digests filled in; and the record of
    /// what this build wrote, for the lock (what is left out or dropped keeps its
    /// previous record). For [`Output::Sent`] each node's manifest goes to the input's sink
    /// from the thread that built it, and is not kept.
    fn manifests(
        &self,
        world: World<'_, 'm>,
        values: &Values,
        built: &[InstanceId],
        left_out: &[(u32, Option<NodeId>, LeftOutAssignment)],
        facts: &[super::NodeFacts],
    ) -> (Vec<NodeKept>, BTreeMap<String, WrittenBy>, Vec<Diagnostic>) {
        let mut built_on: IdVec<NodeId, Vec<InstanceId>> =
            IdVec::filled(self.nodes.len(), Vec::new());
        let mut consumers_of: IdVec<InstanceId, Vec<(InstanceId, &'m str)>> =
            IdVec::filled(self.instances.len(), Vec::new());
        for &c in built {
            built_on[self.instances[c].node].push(c);
            let Some(m) = self.module_of(c) else { continue };
            for &req in m.scope.requirements.keys() {
                if let Some(Answer::Module { provider, .. }) = world.answers[c].get(req) {
                    consumers_of[*provider].push((c, req));
                }
            }
        }
        let mut left_out_on: IdVec<NodeId, Vec<&LeftOutAssignment>> =
            IdVec::filled(self.nodes.len(), Vec::new());
        for (_, node, l) in left_out {
            if let Some(n) = node {
                left_out_on[*n].push(l);
            }
        }
        let kept: BTreeSet<String> = self
            .instances
            .iter_enumerated()
            .filter(|&(i, _)| world.is_left_out(i))
            .map(|(_, s)| format!("{}/{}", self.nodes[s.node].name, s.name))
            .chain(
                self.dropped
                    .iter()
                    .map(|d| format!("{}/{}", d.node, d.instance)),
            )
            .collect();
        let shared = Shared {
            mesh: self.mesh.name.name.as_str(),
            built_on,
            consumers_of,
            left_out_on,
            previous: &self.input.lock.written,
            kept,
            mesh_names: world.mesh_names.into(),
        };
        let output = self.output;
        let sink = self.input.sink;
        let nodes: Vec<NodeId> = (0..self.nodes.len()).map(NodeId::from_index).collect();
        // One node per task: a thread takes the next node as it finishes one, and the
        // results come back in node order.
        let path = self.path;
        let per_node = crate::parallel::map_each(&nodes, |&n| {
            let mut writer = match (output, sink) {
                (Output::Sent, Some(sink)) => sink.writer(&world.nodes[n].name),
                _ => None,
            };
            let NodeBuilt {
                mut manifest,
                written,
                misses,
            } = Builder::new(world, values, path).node(n, &shared, writer.as_mut());
            let kept = match (output, sink) {
                (Output::Sent, Some(sink)) => {
                    match writer {
                        Some(writer) => sink.node_written(manifest, writer, facts),
                        None => sink.node(manifest, facts),
                    }
                    NodeKept::Sent
                }
                _ => {
                    manifest.digest = emit::digest_of(&manifest);
                    NodeKept::Manifest(manifest)
                }
            };
            (kept, written, misses)
        });
        let mut written: BTreeMap<String, WrittenBy> = BTreeMap::new();
        let mut manifests = Vec::with_capacity(per_node.len());
        let mut all_misses = Vec::new();
        for (kept, by, misses) in per_node {
            written.extend(by);
            manifests.push(kept);
            all_misses.extend(misses);
        }
        for key in &shared.kept {
            if let Some(prev) = shared.previous.get(key) {
                written.entry(key.clone()).or_insert_with(|| prev.clone());
            }
        }
        (manifests, written, all_misses)
    }
}
