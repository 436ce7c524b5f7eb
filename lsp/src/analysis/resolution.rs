//! What mesh resolution tells the editor: which provider answers a module requirement on
//! each assignment and by which rule (pin, seat, node, only), read by hover and inlay
//! hints; and the resolution diagnostics of the meshes a file declares, published with the
//! file's own after an edit.
//!
//! Meshes are resolved as `meshc check` resolves them: with no lock (ports chosen afresh,
//! which changes no verdict), through the tracked `check_mesh` query: without building
//! manifests, and the same query the workspace check asks, so each mesh is resolved once
//! per edit and a request after an edit reuses what the workspace check computed.

use crate::state::Snapshot;
use meshc::db::{check_mesh, registry};
use meshc::diagnostics::Diagnostic;

/// How one assignment's requirement is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// An instance answers it, chosen by `rule`: `pin`, `seat`, `node` or `only`
    /// (LANGUAGE.md §7).
    Provided {
        provider_instance: String,
        provider_node: String,
        rule: String,
    },
    /// The assignment was left out of its node's manifest; the first reason.
    LeftOut { reason: String },
    /// An optional requirement with no provider, or declined with `absent`.
    Absent,
}

/// One assignment's answer to a module requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderAnswer {
    pub mesh: String,
    /// The consuming instance and its node.
    pub instance: String,
    pub node: String,
    pub answer: Answer,
}

/// Every assignment's answer to requirement `requirement` of module `module`, mesh by
/// mesh, in manifest order.
pub fn provider_info(snap: &Snapshot, module: &str, requirement: &str) -> Vec<ProviderAnswer> {
    let reg = registry(&snap.db, snap.ws);
    let mut out = Vec::new();
    for mesh in reg.meshes.keys() {
        salsa::Database::unwind_if_revision_cancelled(&snap.db);
        let outcome = check_mesh(&snap.db, snap.ws, mesh.clone());
        for choice in outcome
            .choices
            .iter()
            .filter(|c| *c.module == *module && *c.requirement == *requirement)
        {
            let answer = match &choice.provider {
                Some((provider, by)) => Answer::Provided {
                    provider_instance: provider.instance.to_string(),
                    provider_node: provider.node.to_string(),
                    rule: by.as_str().to_string(),
                },
                None => Answer::Absent,
            };
            out.push(ProviderAnswer {
                mesh: mesh.clone(),
                instance: choice.instance.to_string(),
                node: choice.node.to_string(),
                answer,
            });
        }
        for left in outcome.left_out.iter().filter(|l| l.module == module) {
            let reason = left
                .diagnostics
                .first()
                .map(|d| format!("{}: {}", d.code, d.message))
                .unwrap_or_default();
            out.push(ProviderAnswer {
                mesh: mesh.clone(),
                instance: left.instance.clone(),
                node: left.node.clone(),
                answer: Answer::LeftOut { reason },
            });
        }
    }
    out
}

/// The resolution diagnostics about the file at `path` of the meshes it declares.
pub fn mesh_diagnostics_of(snap: &Snapshot, path: &str) -> Vec<Diagnostic> {
    let reg = registry(&snap.db, snap.ws);
    let mut out = Vec::new();
    for (name, at) in &reg.meshes {
        if &*reg.files[at.file] != path {
            continue;
        }
        let outcome = check_mesh(&snap.db, snap.ws, name.clone());
        out.extend(
            outcome
                .diagnostics
                .iter()
                .filter(|d| &*d.file == path)
                .cloned(),
        );
    }
    out
}

/// How many consumers each instance of module `module` answers for `contract`, mesh by
/// mesh: what `for c in consumers CONTRACT` runs over on that instance. Counted from the
/// provider choices of the mesh (a consumer asking twice counts twice, as the loop
/// renders it twice); instances left out of their manifest are not counted.
pub fn consumer_counts(snap: &Snapshot, module: &str, contract: &str) -> Vec<ConsumerCount> {
    let reg = registry(&snap.db, snap.ws);
    let files = snap.ws.files(&snap.db);
    let mut out = Vec::new();
    for (mesh, at) in reg.meshes.iter() {
        salsa::Database::unwind_if_revision_cancelled(&snap.db);
        // The instances of the module, as the mesh's model declares them.
        let model = meshc::db::mesh_semantics(&snap.db, snap.ws, files[at.file], at.item);
        let outcome = check_mesh(&snap.db, snap.ws, mesh.clone());
        for a in model.instances.iter().filter(|a| a.module == module) {
            let (Some(node), instance) = (&a.node, a.name.as_str()) else {
                continue;
            };
            let node = node.as_str();
            if outcome
                .left_out
                .iter()
                .any(|l| l.instance == instance && l.node == node)
            {
                continue;
            }
            let count = outcome
                .choices
                .iter()
                .filter(|c| {
                    c.provider
                        .as_ref()
                        .is_some_and(|(p, _)| *p.instance == *instance && *p.node == *node)
                        && meshc::db::module_requirements(&snap.db, snap.ws, &c.module)
                            .and_then(|s| {
                                s.get(&c.requirement).and_then(|(_, r)| r.contract.clone())
                            })
                            .as_deref()
                            == Some(contract)
                })
                .count();
            out.push(ConsumerCount {
                mesh: mesh.clone(),
                instance: instance.to_string(),
                node: node.to_string(),
                count,
            });
        }
    }
    out
}

/// The consumers one provider instance answers for a contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerCount {
    pub mesh: String,
    pub instance: String,
    pub node: String,
    pub count: usize,
}
