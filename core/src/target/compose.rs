//! `--target compose` (LANGUAGE.md §13.7, §14.3): one Docker Compose project per node,
//! `NODE/compose.yaml` and the `NODE/.env` that names the project. The file itself is
//! written by [`crate::emit::compose`], which `meshc render` shares for where files go.

use super::{OutputFile, Target};
use crate::emit::{Manifest, NodeFacts, compose};

/// The Compose target.
pub struct Compose;

impl Target for Compose {
    fn node_files(&self, manifest: &Manifest, nodes: &[NodeFacts]) -> Vec<OutputFile> {
        vec![
            (
                format!("{}/compose.yaml", manifest.node),
                compose::compose_yaml(manifest, nodes).into_bytes(),
            ),
            (
                format!("{}/.env", manifest.node),
                compose::dot_env(manifest).into_bytes(),
            ),
        ]
    }
}
