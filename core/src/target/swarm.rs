//! `--target swarm` (LANGUAGE.md §14.4, docs/swarm.md): one Docker Swarm stack for the
//! whole mesh, `swarm/stack.yaml`, written by [`crate::emit::swarm`] from the manifests as
//! they are written (their public JSON shape), once every node is built.

use super::{OutputFile, Target};
use crate::emit::{Manifest, NodeFacts, swarm};
use std::sync::Mutex;

/// The Swarm target: keeps each node's manifest, as JSON, until the mesh is built.
#[derive(Default)]
pub struct Swarm {
    manifests: Mutex<Vec<serde_json::Value>>,
}

impl Target for Swarm {
    fn node_files(&self, manifest: &Manifest, _: &[NodeFacts]) -> Vec<OutputFile> {
        // A manifest always serialises: it is the same value `NODE.json` was written from.
        if let Ok(v) = serde_json::to_value(manifest) {
            self.manifests
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(v);
        }
        Vec::new()
    }

    fn mesh_files(&self, nodes: &[NodeFacts]) -> Vec<OutputFile> {
        let kept = std::mem::take(&mut *self.manifests.lock().unwrap_or_else(|e| e.into_inner()));
        // In the mesh's order of nodes, whatever order the threads finished in.
        let manifests: Vec<serde_json::Value> = nodes
            .iter()
            .filter_map(|n| kept.iter().find(|m| m["node"] == n.name.as_str()).cloned())
            .collect();
        let Some(mesh) = manifests.first().and_then(|m| m["mesh"].as_str()) else {
            return Vec::new();
        };
        vec![(
            swarm::STACK.to_string(),
            swarm::stack_yaml(mesh, &manifests, nodes).into_bytes(),
        )]
    }
}
