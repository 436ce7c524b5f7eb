//! Assembling the manifests of §9: one per node, its built instances in source order
//! (requirements, containers, what each provides and to whom), what was left out and
//! why, and the digest.

use super::evaluate::{Resolved, json_of, text_of};
use super::ids::Id;
use super::{
    Answer, IdVec, InstanceId, LeftOutAssignment, MeshOutcome, NodeId, Ports, ProviderChoice,
    Resolver,
};
use crate::check::types::Value;
use crate::emit::{
    self, AbsentRequirement, AccessRequirement, Consumer, DirectoryRequirement,
    IdentityRequirement, Instance, LeftOut, LeftOutDiagnostic, Manifest, ModuleRequirement,
    NodeAddress, NodeRequirement, OperatorRequirement, PortRequirement, Provided, Requirement,
    Retired,
};
use indexmap::IndexMap;

impl<'m> Resolver<'m> {
    /// Builds every instance that is not left out. Building can still refuse one (a value
    /// reading itself); then what waits for it is left out too and the rest rebuilt.
    ///
    /// Without manifests (`meshc check`) nothing is built: only the instances' ids are
    /// kept. Building reads values only through the memo tables, and
    /// [`Resolver::evaluate_requirements`] has already computed every entry they can hold
    /// (each operator value, each given field, each plain field a provider answers), so
    /// building refuses nothing it had not refused then; `tests/check_mode.rs` holds the
    /// two modes' diagnostics equal on every fixture.
    pub(super) fn build_instances(&mut self) -> Vec<(InstanceId, Option<Instance>)> {
        if !self.input.manifests {
            return self
                .instances
                .iter_enumerated()
                .filter(|(_, s)| !s.left_out)
                .map(|(i, _)| (i, None))
                .collect();
        }
        loop {
            let before: Vec<usize> = self.instances.iter().map(|s| s.refusals.len()).collect();
            let mut built = Vec::new();
            for i in self.instances.ids() {
                if !self.instances[i].left_out {
                    let instance = self.build_instance(i);
                    built.push((i, self.input.manifests.then_some(instance)));
                }
            }
            let grew = self
                .instances
                .iter()
                .zip(&before)
                .any(|(s, &n)| !s.left_out && s.refusals.len() > n);
            if !grew {
                return built;
            }
            self.leave_out_refused();
        }
    }

    fn build_instance(&mut self, i: InstanceId) -> Instance {
        let mut requirements = IndexMap::new();
        if let Some(m) = self.module_of(i) {
            for &req in m.scope.requirements.keys() {
                if let Some(entry) = self.requirement_entry(i, req) {
                    requirements.insert(req.to_string(), entry);
                }
            }
        }
        Instance {
            instance: self.instances[i].name.clone(),
            module: self.instances[i].module_name.clone(),
            login: self.instances[i].login.clone(),
            requirements,
            containers: self.build_containers(i),
            provides: Vec::new(),
            genesis: self.instances[i].settings.genesis,
        }
    }

    fn given_json(
        &mut self,
        i: InstanceId,
        req: &'m str,
        field: &str,
    ) -> Option<serde_json::Value> {
        match self.given_value(i, req, field)? {
            Resolved::Plain(v, ty) => Some(json_of(&v, &ty)),
            _ => None,
        }
    }

    fn given_int(&mut self, i: InstanceId, req: &'m str, field: &str) -> Option<i64> {
        match self.given_value(i, req, field)? {
            Resolved::Plain(Value::Int(n), _) => Some(n),
            _ => None,
        }
    }

    pub(super) fn given_text(
        &mut self,
        i: InstanceId,
        req: &'m str,
        field: &str,
    ) -> Option<String> {
        match self.given_value(i, req, field)? {
            Resolved::Plain(v, ty) => Some(text_of(&v, &ty)),
            _ => None,
        }
    }

    /// The manifest entry of requirement `req` of instance `i`.
    fn requirement_entry(&mut self, i: InstanceId, req: &'m str) -> Option<Requirement> {
        let answer = self.instances[i].answers.get(req).cloned();
        let info = self.requirement(i, req)?;
        let contract_name = info.contract_name().unwrap_or("").to_string();
        Some(match answer {
            Some(Answer::Operator) | Some(Answer::SecretOperator { .. }) | None
                if info.operator.is_some() =>
            {
                let (value, from) = self.operator_value(i, req)?;
                let (value, sealed) = match value {
                    Resolved::Plain(v, ty) => (Some(json_of(&v, &ty)), None),
                    Resolved::Sealed(s) => (None, Some(*s)),
                    _ => return None,
                };
                Requirement::Operator(OperatorRequirement {
                    kind: "operator".into(),
                    value,
                    sealed,
                    from: from.into(),
                })
            }
            Some(Answer::Directory { path, placed }) => {
                Requirement::Directory(DirectoryRequirement {
                    kind: "host".into(),
                    contract: contract_name,
                    path,
                    owner: self.given_int(i, req, "owner")?,
                    mode: self.given_text(i, req, "mode")?,
                    placed,
                })
            }
            Some(Answer::Access { path }) => Requirement::Access(AccessRequirement {
                kind: "host".into(),
                contract: contract_name,
                path,
                write: matches!(
                    self.given_value(i, req, "write"),
                    Some(Resolved::Plain(Value::Bool(true), _))
                ),
                placed: true,
            }),
            Some(Answer::Port { host_port, .. }) => Requirement::Port(PortRequirement {
                kind: "host".into(),
                contract: contract_name,
                container: self.given_int(i, req, "container")?,
                host_port,
                reach: self.given_text(i, req, "reach")?,
                protocol: self.given_text(i, req, "protocol")?,
            }),
            Some(Answer::Node) => Requirement::Node(NodeRequirement {
                kind: "host".into(),
                contract: contract_name,
                private_name: self.nodes[self.instances[i].node].private_name.clone()?,
                mesh_names: self.mesh_names(),
            }),
            Some(Answer::Identity) => Requirement::Identity(IdentityRequirement {
                kind: "mesh".into(),
                contract: contract_name,
                login: self.instances[i].login.clone(),
                instance: self.instances[i].name.clone(),
                module: self.instances[i].module_name.clone(),
            }),
            Some(Answer::Module { provider, by }) => Requirement::Module(ModuleRequirement {
                kind: "module".into(),
                contract: contract_name,
                provider: self.instance_ref(provider),
                by,
            }),
            Some(Answer::Absent) => Requirement::Absent(AbsentRequirement {
                kind: "module".into(),
                contract: contract_name,
                absent: true,
            }),
            _ => return None,
        })
    }

    /// The consumers of every built provider, in source order, and the manifests.
    pub(super) fn assemble(
        &mut self,
        mut built: Vec<(InstanceId, Option<Instance>)>,
        ports: Ports,
    ) -> MeshOutcome {
        // provider → (consumer, requirement), for built consumers, in source order (none
        // without manifests: nothing reads them).
        let mut consumers_of: IdVec<InstanceId, Vec<(InstanceId, &'m str)>> =
            IdVec::filled(self.instances.len(), Vec::new());
        for &(c, _) in built.iter().filter(|_| self.input.manifests) {
            let Some(m) = self.module_of(c) else { continue };
            for &req in m.scope.requirements.keys() {
                if let Some(Answer::Module { provider, .. }) = self.instances[c].answers.get(req) {
                    consumers_of[*provider].push((c, req));
                }
            }
        }
        for (p, instance) in &mut built {
            // Without manifests there is nothing to fill in: the given fields a consumer
            // passes were all read (and refused, if need be) by `evaluate_requirements`.
            let Some(instance) = instance else { continue };
            let Some(pm) = self.module_of(*p) else {
                continue;
            };
            for &contract in pm.provides.keys() {
                let mut consumers = Vec::new();
                for &(c, req) in &consumers_of[*p] {
                    let Some(cinfo) = self.requirement(c, req) else {
                        continue;
                    };
                    if cinfo.contract_name() != Some(contract) {
                        continue;
                    }
                    let mut given = IndexMap::new();
                    if let Some(ci) = cinfo.contract.as_deref() {
                        for f in ci.fields.values().filter(|f| f.given) {
                            if let Some(v) = self.given_json(c, req, &f.name) {
                                given.insert(f.name.clone(), v);
                            }
                        }
                    }
                    let login = &self.instances[c].login;
                    // Every secret field's key is `<login>/<field>` unless one was
                    // recorded in another form; then the consumer lists them all.
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
                    let derived = secret_fields
                        .iter()
                        .all(|&f| !self.instances[c].secret_keys.contains_key(&(req, f)));
                    let keys = (!derived).then(|| {
                        secret_fields
                            .iter()
                            .map(|&f| (f.to_string(), self.instances[c].secret_key(req, f)))
                            .collect()
                    });
                    consumers.push(Consumer {
                        node: self.node_name(c).to_string(),
                        private_name: self.nodes[self.instances[c].node]
                            .private_name
                            .clone()
                            .unwrap_or_default(),
                        instance: self.instances[c].name.clone(),
                        login: login.clone(),
                        given,
                        requirement: (!derived).then(|| req.to_string()),
                        keys,
                    });
                }
                instance.provides.push(Provided {
                    contract: contract.to_string(),
                    consumers,
                });
            }
        }

        // What was left out, in source order, with every reason.
        let mut left_out: Vec<(u32, Option<NodeId>, LeftOutAssignment)> = Vec::new();
        for (i, inst) in self.instances.iter_enumerated() {
            if !inst.left_out {
                continue;
            }
            let mut diagnostics = self.refusals_of(i);
            if let Some(m) = self.module_of(i) {
                diagnostics.extend(m.errors().iter().cloned());
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

        let choices = self.provider_choices(&built);
        let mut lock = ports.lock;
        lock.written = self.input.lock.written.clone();
        let (manifests, written) = if self.input.manifests {
            let (retired, written) = self.remember_written(&built);
            (self.manifests(built, &left_out, retired), written)
        } else {
            (IndexMap::new(), Default::default())
        };

        let diagnostics = super::order_diagnostics(
            &self.mesh_diags,
            self.instances.iter().map(|s| s.refusals.as_slice()),
            self.waiting_groups(),
        );

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
            nodes: self
                .nodes
                .values()
                .map(|n| super::NodeFacts {
                    name: n.name.clone(),
                    private_name: n.private_name.clone(),
                    private_address: n.private_address.clone(),
                    root: n.root.clone(),
                })
                .collect(),
        }
    }

    /// How each module requirement of the built instances is answered, in manifest order
    /// (node by node, source order within a node).
    fn provider_choices(&self, built: &[(InstanceId, Option<Instance>)]) -> Vec<ProviderChoice> {
        let mut order: Vec<InstanceId> = built.iter().map(|&(i, _)| i).collect();
        order.sort_by_key(|&i| self.instances[i].node);
        let mut out = Vec::new();
        for i in order {
            let Some(m) = self.module_of(i) else { continue };
            for &req in m.scope.requirements.keys() {
                let provider = match self.instances[i].answers.get(req) {
                    Some(Answer::Module { provider, by }) => {
                        Some((self.instance_ref(*provider), *by))
                    }
                    Some(Answer::Absent) => None,
                    _ => continue,
                };
                out.push(ProviderChoice {
                    node: self.node_name(i).to_string(),
                    instance: self.instances[i].name.clone(),
                    module: self.instances[i].module_name.clone(),
                    requirement: req.to_string(),
                    provider,
                });
            }
        }
        out
    }

    /// One manifest per node: its built instances and what was left out of it, digests
    /// filled in.
    /// Records what every built instance writes (containers and their
    /// file paths), keeps the record of instances left out (they were not rebuilt), and
    /// returns, by node, what the previous record names and this build no longer does.
    #[allow(clippy::type_complexity)]
    fn remember_written(
        &self,
        built: &[(InstanceId, Option<Instance>)],
    ) -> (
        Vec<(NodeId, Retired)>,
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, Vec<String>>>,
    ) {
        use std::collections::BTreeMap;
        let previous = &self.input.lock.written;
        let mut written: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
        let mut rebuilt = std::collections::BTreeSet::new();
        for (i, instance) in built {
            let Some(instance) = instance else { continue };
            let key = format!("{}/{}", self.node_name(*i), instance.instance);
            let containers = instance
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
                .collect();
            written.insert(key.clone(), containers);
            rebuilt.insert(key);
        }
        // Left out or dropped: not rebuilt, so what it wrote stays as it was.
        let kept: Vec<String> = self
            .instances
            .iter()
            .filter(|s| s.left_out)
            .map(|s| format!("{}/{}", self.nodes[s.node].name, s.name))
            .chain(
                self.dropped
                    .iter()
                    .map(|d| format!("{}/{}", d.node, d.instance)),
            )
            .collect();
        for key in kept {
            if let Some(prev) = previous.get(&key) {
                written.entry(key).or_insert_with(|| prev.clone());
            }
        }
        let mut retired = Vec::new();
        for (key, before) in previous {
            let Some((node, instance)) = key.split_once('/') else {
                continue;
            };
            let Some(n) = self.nodes.id_of(node) else {
                continue; // the node is gone: no manifest to say it in
            };
            if written.contains_key(key) && !rebuilt.contains(key) {
                continue;
            }
            let now = written.get(key);
            for (container, paths) in before {
                match now.and_then(|c| c.get(container)) {
                    None => retired.push((
                        n,
                        Retired {
                            instance: instance.to_string(),
                            container: container.clone(),
                            path: None,
                        },
                    )),
                    Some(now_paths) => {
                        for p in paths.iter().filter(|p| !now_paths.contains(p)) {
                            retired.push((
                                n,
                                Retired {
                                    instance: instance.to_string(),
                                    container: container.clone(),
                                    path: Some(p.clone()),
                                },
                            ));
                        }
                    }
                }
            }
        }
        (retired, written)
    }

    fn manifests(
        &self,
        built: Vec<(InstanceId, Option<Instance>)>,
        left_out: &[(u32, Option<NodeId>, LeftOutAssignment)],
        retired: Vec<(NodeId, Retired)>,
    ) -> IndexMap<String, Manifest> {
        let mut manifests: IndexMap<String, Manifest> = self
            .nodes
            .values()
            .map(|n| {
                (
                    n.name.clone(),
                    Manifest {
                        mesh: self.mesh.name.name.to_string(),
                        node: n.name.clone(),
                        digest: String::new(),
                        nodes: Default::default(),
                        instances: Vec::new(),
                        left_out: Vec::new(),
                        retired: Vec::new(),
                    },
                )
            })
            .collect();
        // One manifest per node, in node order: a node's id is its manifest's place.
        for (i, instance) in built {
            let Some(instance) = instance else { continue };
            manifests[self.instances[i].node.index()]
                .instances
                .push(instance);
        }
        for (_, node, l) in left_out {
            if let Some(n) = node {
                manifests[n.index()].left_out.push(LeftOut {
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
                });
            }
        }
        for (n, r) in retired {
            manifests[n.index()].retired.push(r);
        }
        for m in manifests.values_mut() {
            let mut named = std::collections::BTreeSet::new();
            named.insert(m.node.clone());
            // Read from the instances as their JSON would read, without building it. A
            // failure (no JSON could be made) leaves the node's own name alone.
            let mut found = std::collections::BTreeSet::new();
            if emit::node_names::nodes_named(&m.instances, &mut found).is_ok() {
                named.extend(found);
            }
            m.nodes = named
                .into_iter()
                .filter_map(|n| {
                    let private_name = self.nodes.get(&n)?.private_name.clone()?;
                    Some((n, NodeAddress { private_name }))
                })
                .collect();
        }
        fill_digests(manifests.values_mut().collect());
        manifests
    }
}

/// Fills the digest of every manifest. Digests are independent, so a mesh of many nodes
/// takes them on every core (see [`crate::parallel`]; the work is pure: no I/O, no
/// shared state).
fn fill_digests(manifests: Vec<&mut Manifest>) {
    let digests = crate::parallel::map_chunks(&manifests, 2, |part| {
        part.iter().map(|m| emit::digest_of(m)).collect()
    });
    for (m, digest) in manifests.into_iter().zip(digests) {
        m.digest = digest;
    }
}
