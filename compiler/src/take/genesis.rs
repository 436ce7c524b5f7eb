//! The genesis plan (LANGUAGE.md §13.5, ADR 0163 rule 7): the instances an assignment
//! marks `genesis`, raised exactly as their modules declare them — container names,
//! networks, data directories, images, mounts, ports and every file with its owner, group
//! and mode (a sealed one as its template, rendered on the node as `meshc render` does) —
//! so the module later adopts what genesis raised and a take finds no difference
//! (LANGUAGE.md §14.5).

use crate::diagnostics::rules::OutsideGenesis;
use crate::emit::{Manifest, Requirement};
use serde_json::{Value as Json, json};

/// A refusal of the plan: a genesis instance's module requirement (of `contract`) that
/// `provider` on `provider_node`, no genesis instance, answers (E0520, worded by
/// [`Refusal::rule`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub instance: String,
    pub node: String,
    pub requirement: String,
    pub contract: String,
    pub provider: String,
    pub provider_node: String,
}

impl Refusal {
    /// The rule this refusal breaks, with its data.
    pub fn rule(&self) -> OutsideGenesis<'_> {
        OutsideGenesis {
            instance: &self.instance,
            node: &self.node,
            requirement: &self.requirement,
            contract: &self.contract,
            provider: &self.provider,
            provider_node: &self.provider_node,
        }
    }
}

/// The bootstrap plan of `node`: its genesis instances, from the manifests of every node
/// of the mesh (a provider may be on another node). Refused when a genesis instance's
/// module requirement is answered by an instance that is not genesis.
pub fn plan(manifests: &[&Manifest], node: &str) -> Result<Json, Vec<Refusal>> {
    let is_genesis = |n: &str, i: &str| {
        manifests
            .iter()
            .filter(|m| m.node == n)
            .flat_map(|m| &m.instances)
            .any(|x| x.instance == i && x.genesis)
    };
    let Some(manifest) = manifests.iter().find(|m| m.node == node) else {
        return Ok(json!({"node": node, "instances": []}));
    };
    let mut refusals = Vec::new();
    let mut instances = Vec::new();
    let mut images: Vec<String> = Vec::new();
    let mut networks: Vec<String> = Vec::new();
    for inst in manifest.instances.iter().filter(|i| i.genesis) {
        let mut directories = Vec::new();
        for (name, r) in &inst.requirements {
            match r {
                Requirement::Module(m) if !is_genesis(&m.provider.node, &m.provider.instance) => {
                    refusals.push(Refusal {
                        instance: inst.instance.clone(),
                        node: node.to_string(),
                        requirement: name.clone(),
                        contract: m.contract.to_string(),
                        provider: m.provider.instance.clone(),
                        provider_node: m.provider.node.clone(),
                    });
                }
                // Render gives a directory its owner as group too.
                Requirement::Directory(d) => directories.push(json!({
                    "requirement": name, "path": d.path, "owner": d.owner, "group": d.owner,
                    "mode": d.mode,
                })),
                _ => {}
            }
        }
        let containers: Vec<Json> = inst
            .containers
            .iter()
            .map(|c| {
                if !images.contains(&c.image) {
                    images.push(c.image.clone());
                }
                for n in &c.networks {
                    if !n.kept && !networks.contains(&n.name) {
                        networks.push(n.name.clone());
                    }
                }
                json!({
                    "name": c.name,
                    "image": c.image,
                    "command": c.command,
                    "user": c.user,
                    // Plain values as they are; a secret one as the manifest has it (its
                    // sealed reference or template), never a value.
                    "env": c.env,
                    "networks": c.networks.iter().filter(|n| !n.kept).map(|n| n.name.clone()).collect::<Vec<_>>(),
                    "mounts": c.mounts,
                    "ports": c.ports,
                    // Every file with its owner, group and mode; a sealed one as render
                    // writes it: its template and what each reference stands for (a
                    // sealed reference names where the value is, never the value).
                    "files": c.files.iter().map(|f| match &f.content {
                        Some(content) => json!({
                            "target": f.target, "owner": f.owner, "group": f.group,
                            "mode": f.mode, "content": content,
                        }),
                        None => json!({
                            "target": f.target, "owner": f.owner, "group": f.group,
                            "mode": f.mode, "template": f.template, "references": f.references,
                        }),
                    }).collect::<Vec<_>>(),
                })
            })
            .collect();
        instances.push(json!({
            "instance": inst.instance,
            "module": inst.module,
            "login": inst.login,
            "directories": directories,
            "containers": containers,
        }));
    }
    if !refusals.is_empty() {
        return Err(refusals);
    }
    Ok(json!({
        "mesh": manifest.mesh,
        "node": node,
        "manifest_digest": manifest.digest,
        "networks": networks,
        "images": images,
        "instances": instances,
    }))
}
