//! The seam where mesh resolution plugs in: which provider answers a module requirement on
//! each assignment, and by which rule (pin, seat, node, only). Hover and inlay hints read
//! [`provider_info`]; until the compiler resolves meshes it answers nothing, and both
//! features show what needs no resolution.

use crate::state::Snapshot;

/// One assignment's answer to a module requirement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderAnswer {
    pub mesh: String,
    /// The consuming instance and its node.
    pub instance: String,
    pub node: String,
    /// The providing instance and its node.
    pub provider_instance: String,
    pub provider_node: String,
    /// `pin`, `seat`, `node` or `only` (LANGUAGE.md §7).
    pub rule: String,
}

/// Every assignment's answer to requirement `requirement` of module `module`, in mesh and
/// assignment order. Empty until the compiler resolves meshes.
pub fn provider_info(snap: &Snapshot, module: &str, requirement: &str) -> Vec<ProviderAnswer> {
    let _ = (snap, module, requirement);
    Vec::new()
}
