//! Reading a built manifest's JSON.

use serde_json::Value;

/// The entry of instance `name` in `manifest`'s `instances`; fails naming it if absent.
pub fn instance<'a>(manifest: &'a Value, name: &str) -> &'a Value {
    manifest["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["instance"] == name)
        .unwrap_or_else(|| panic!("no instance {name} in {manifest}"))
}
