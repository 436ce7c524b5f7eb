//! `--target swarm` (LANGUAGE.md §14.4, docs/swarm.md): one Docker Swarm stack for the
//! whole mesh, `swarm/stack.yaml`, written by [`crate::emit::swarm`] from the typed
//! manifests, once every node is built.

use super::{OutputFile, Target};
use crate::emit::{Manifest, NodeFacts, swarm};
use std::sync::Mutex;

/// The Swarm target: keeps each node's manifest until the mesh is built.
#[derive(Default)]
pub struct Swarm {
    manifests: Mutex<Vec<Manifest>>,
}

impl Target for Swarm {
    fn node_files(&self, manifest: &Manifest, _: &[NodeFacts]) -> Vec<OutputFile> {
        self.manifests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(manifest.clone());
        Vec::new()
    }

    fn mesh_files(&self, nodes: &[NodeFacts]) -> Vec<OutputFile> {
        let mut manifests =
            std::mem::take(&mut *self.manifests.lock().unwrap_or_else(|e| e.into_inner()));
        // In the mesh's order of nodes, whatever order the threads finished in.
        let at = |m: &Manifest| nodes.iter().position(|n| n.name == m.node);
        manifests.retain(|m| at(m).is_some());
        manifests.sort_by_cached_key(at);
        let Some(mesh) = manifests.first().map(|m| m.mesh.clone()) else {
            return Vec::new();
        };
        vec![(
            swarm::STACK.to_string(),
            swarm::stack_yaml(&mesh, &manifests, nodes).into_bytes(),
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(node: &str) -> Manifest {
        Manifest {
            mesh: "lab".into(),
            node: node.into(),
            digest: format!("sha256:{node}"),
            nodes: Default::default(),
            instances: vec![],
            left_out: vec![],
            retired: vec![],
        }
    }

    fn facts(name: &str) -> NodeFacts {
        NodeFacts {
            name: name.into(),
            private_name: None,
            private_address: None,
            root: crate::emit::DEFAULT_ROOT.into(),
        }
    }

    /// The stack names the manifests in the mesh's order of nodes, whichever thread
    /// finished first, from the typed manifests the build handed it.
    #[test]
    fn the_stack_names_the_manifests_in_the_meshs_order() {
        let swarm = Swarm::default();
        let nodes = [facts("alpha"), facts("beta")];
        swarm.node_files(&manifest("beta"), &nodes);
        swarm.node_files(&manifest("alpha"), &nodes);
        let files = swarm.mesh_files(&nodes);
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].0, swarm::STACK);
        let stack = String::from_utf8(files[0].1.clone()).unwrap();
        let named: Vec<&str> = stack
            .lines()
            .filter_map(|l| l.strip_prefix(swarm::NODE_LINE))
            .collect();
        assert_eq!(named, ["alpha sha256:alpha", "beta sha256:beta"]);
        // Kept once: a second build of the same value starts empty.
        assert!(swarm.mesh_files(&nodes).is_empty());
    }
}
