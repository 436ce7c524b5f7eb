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
