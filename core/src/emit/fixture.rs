//! The manifest the targets' unit tests start from: one node `alpha` of mesh `lab`, one
//! instance `web` with one container, and the node facts a target reads. Each target's
//! tests change only the fields they are about, so what a test asserts stands beside it.

use super::manifest::*;
use crate::base::fx_hash::FxIndexMap;
use crate::emit::NodeFacts;

/// The facts of node `name` of the lab, with `address` as its private address.
pub(crate) fn node(name: &str, address: Option<&str>) -> NodeFacts {
    NodeFacts {
        name: name.into(),
        private_name: Some(format!("{name}.lab.internal")),
        private_address: address.map(str::to_string),
        root: "/srv/mesh".into(),
    }
}

/// A value sealed by the vault on node `beta` under `key`.
pub(crate) fn sealed(key: &str) -> SealedRef {
    SealedRef {
        by: InstanceRef {
            node: "beta".into(),
            instance: "vault".into(),
        },
        key: key.into(),
    }
}

/// A secret file at `target`, owned by 1000:1000, mode 0440.
pub(crate) fn secret(target: &str, sealed: Option<SealedRef>) -> SecretFile {
    SecretFile {
        target: target.into(),
        owner: 1000,
        group: 1000,
        mode: "0440".into(),
        sealed,
        template: None,
        references: None,
    }
}

/// Container `web` of image `example/web:1.0`, run as user 1000 with a command that
/// holds a `$`, on the instance's own network, and nothing else.
pub(crate) fn container() -> Container {
    Container {
        name: "web".into(),
        image: "example/web:1.0".into(),
        command: vec!["serve".into(), "--port=$PORT".into()],
        user: Some(1000),
        group: None,
        env: FxIndexMap::default(),
        mounts: Vec::new(),
        secrets: Vec::new(),
        files: Vec::new(),
        ports: Vec::new(),
        networks: vec![Network {
            name: "alpha_web".into(),
            kept: false,
        }],
        health: None,
        job: false,
        after: Vec::new(),
    }
}

/// The manifest of node `alpha`: instance `web` of module `web` (login `alpha_web`) with
/// `requirements` and `container`.
pub(crate) fn manifest(
    requirements: FxIndexMap<String, Requirement>,
    container: Container,
) -> Manifest {
    Manifest {
        mesh: "lab".into(),
        node: "alpha".into(),
        digest: "sha256:00".into(),
        nodes: Default::default(),
        instances: vec![Instance {
            instance: "web".into(),
            module: "web".into(),
            login: "alpha_web".into(),
            requirements,
            containers: vec![container],
            provides: vec![],
            genesis: false,
        }],
        left_out: vec![],
        retired: vec![],
    }
}
