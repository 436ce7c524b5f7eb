//! What `meshc build` owns in its output directory. Each build records, in an index file
//! in `--out` written with the manifests (all or nothing), the files it wrote per mesh
//! and node, with the SHA-256 of their bytes. A later build of the same mesh removes the
//! files of nodes no longer in it — only a regular file (never a link, never through
//! one) whose bytes are still those meshc wrote; anything else is kept and said. A file
//! of the whole mesh a target writes (`swarm/stack.yaml`) is recorded per mesh.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fs;
use std::path::Path;

/// The index's name in `--out`.
pub const INDEX: &str = ".meshc-build.json";

/// The index: `{"meshc_build_index": 1, "meshes": {mesh: {node: {file: sha256}}},
/// "mesh_files": {mesh: {file: sha256}}}`. `mesh_files` is written only when a mesh has
/// any, so an index of builds without one is as earlier versions wrote it (and read it:
/// they ignore a field they do not know).
#[derive(Default, Serialize, Deserialize)]
struct Index {
    meshc_build_index: u32,
    meshes: IndexMap<String, IndexMap<String, IndexMap<String, String>>>,
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    mesh_files: IndexMap<String, IndexMap<String, String>>,
}

/// The largest file the removal reads to compare (a manifest is far smaller).
const READ_LIMIT: u64 = 1 << 30;

/// A file an earlier build wrote for a node no longer in the mesh.
pub struct Stale {
    node: String,
    name: String,
    sha256: String,
}

/// The SHA-256 of `bytes` in lowercase hex, as the index records a file.
pub fn digest(bytes: &[u8]) -> String {
    digest_parts(&[bytes])
}

/// [`digest`] of the bytes `parts` hold, in order.
pub fn digest_parts(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hex(hasher)
}

/// [`digest`] of the bytes `hasher` was given.
pub fn hex(hasher: Sha256) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(64);
    for b in hasher.finalize() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

/// The node a build file belongs to: its manifest `alpha.json` and every file a target
/// writes in its folder (`alpha/compose.yaml`, `alpha/.env`) are `alpha`'s.
fn node_of(name: &str) -> Option<&str> {
    match name.split_once('/') {
        Some((node, file)) if is_plain(file) => Some(node),
        Some(_) => None,
        None => name.strip_suffix(".json"),
    }
}

/// A name of one path component, none of `.` and `..`.
fn is_plain(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

/// Whether `name` is one a build writes for `node`: an index edited by hand never leads a
/// removal anywhere else (`..`, an absolute path, another folder).
fn is_build_file(node: &str, name: &str) -> bool {
    let plain_node = is_plain(node) && !node.starts_with('.');
    plain_node
        && (name == format!("{node}.json")
            || name
                .strip_prefix(node)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(is_plain))
}

/// Whether `name` is one a target writes for the whole mesh: a file directly in a folder
/// of its own (`swarm/stack.yaml`), named by no node of the build.
fn is_mesh_file(name: &str) -> bool {
    name.split_once('/').is_some_and(|(folder, file)| {
        is_plain(folder) && !folder.starts_with('.') && is_plain(file)
    })
}

/// Reads the index of `dir`, or none (missing, not a regular file, or not an index).
fn read(dir: &Path) -> (Index, Option<String>) {
    let path = dir.join(INDEX);
    if fs::symlink_metadata(&path).is_err() {
        return (Index::default(), None);
    }
    let parsed = meshc::fsio::read_regular(&path, 64 << 20)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok())
        .filter(|i| i.meshc_build_index == 1);
    match parsed {
        Some(index) => (index, None),
        None => (
            Index::default(),
            Some(format!(
                "warning: `{}` is not an index meshc can read; it is replaced, and no file of an earlier build is removed",
                path.display()
            )),
        ),
    }
}

/// What to remove, the new index's bytes, and warnings. `files` are this build's files,
/// each with the [`digest`] of its bytes.
pub fn plan(
    dir: &Path,
    mesh: &str,
    nodes: &[String],
    files: &[(&str, &str)],
) -> (Vec<Stale>, Vec<u8>, Vec<String>) {
    let (mut index, warning) = read(dir);
    let before = index.meshes.shift_remove(mesh).unwrap_or_default();
    // Files of the whole mesh an earlier build wrote stay recorded, as a node's do: they
    // are still meshc's when this build's target writes none.
    let mut mesh_files = index.mesh_files.shift_remove(mesh).unwrap_or_default();
    mesh_files.retain(|name, _| is_mesh_file(name));
    let mut now: IndexMap<String, IndexMap<String, String>> = IndexMap::new();
    for node in nodes {
        // Files an earlier build wrote for a node still built (its compose file, when
        // this build writes none) stay recorded: they are still meshc's.
        let mut entry = before.get(node).cloned().unwrap_or_default();
        entry.retain(|name, _| is_build_file(node, name));
        now.insert(node.clone(), entry);
    }
    for &(name, sha256) in files {
        if let Some(node) = node_of(name)
            && let Some(entry) = now.get_mut(node)
        {
            entry.insert(name.to_string(), sha256.to_string());
        } else if is_mesh_file(name) {
            mesh_files.insert(name.to_string(), sha256.to_string());
        }
    }
    let mut stale = Vec::new();
    for (node, entry) in &before {
        if now.contains_key(node) {
            continue;
        }
        for (name, sha256) in entry {
            if is_build_file(node, name) {
                stale.push(Stale {
                    node: node.clone(),
                    name: name.clone(),
                    sha256: sha256.clone(),
                });
            }
        }
    }
    index.meshc_build_index = 1;
    index.meshes.insert(mesh.to_string(), now);
    if !mesh_files.is_empty() {
        index.mesh_files.insert(mesh.to_string(), mesh_files);
    }
    let mut bytes = serde_json::to_vec_pretty(&index).unwrap_or_default();
    bytes.push(b'\n');
    (stale, bytes, warning.into_iter().collect())
}

/// Removes each stale file that is still the regular file meshc wrote; returns what it
/// says about each. Called with the output directory locked.
pub fn remove(dir: &Path, stale: &[Stale]) -> Vec<String> {
    let mut said = Vec::new();
    for s in stale {
        let path = dir.join(&s.name);
        let shown = path.display();
        let folder = path.parent().filter(|f| *f != dir);
        if let Some(folder) = folder
            && !fs::symlink_metadata(folder).is_ok_and(|m| m.is_dir())
        {
            if meshc::fsio::is_link(folder) {
                said.push(format!(
                    "kept `{}`: a link, not the folder meshc wrote",
                    folder.display()
                ));
            }
            continue;
        }
        match is_ours(&path, &s.sha256) {
            Ours::Yes => match fs::remove_file(&path) {
                Ok(()) => {
                    said.push(format!(
                        "removed `{shown}`: node `{}` is no longer in the mesh",
                        s.node
                    ));
                    if let Some(folder) = folder {
                        // Only an empty folder goes.
                        let _ = fs::remove_dir(folder);
                    }
                }
                Err(e) => said.push(format!(
                    "kept `{shown}` of node `{}`, no longer in the mesh: {}",
                    s.node,
                    super::workspace::plain(&e)
                )),
            },
            Ours::Gone => {}
            Ours::Link => said.push(format!(
                "kept `{shown}`: a link, not the file meshc wrote for node `{}`",
                s.node
            )),
            Ours::Changed => said.push(format!(
                "kept `{shown}` of node `{}`, no longer in the mesh: it changed since meshc wrote it",
                s.node
            )),
        }
    }
    said
}

enum Ours {
    Yes,
    Gone,
    Link,
    Changed,
}

/// Whether `path` is a regular file (not a link) holding the bytes meshc wrote.
fn is_ours(path: &Path, sha256: &str) -> Ours {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return Ours::Gone;
    };
    if meta.file_type().is_symlink() {
        return Ours::Link;
    }
    if !meta.is_file() {
        return Ours::Changed;
    }
    match meshc::fsio::read_regular(path, READ_LIMIT) {
        // `read_regular` refuses anything but a regular file, of the open file too.
        Ok(bytes) if digest(&bytes) == sha256 => Ours::Yes,
        _ => Ours::Changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A node's files are its manifest and the files a target writes directly in its
    /// folder; nothing deeper, nothing outside, no `..`.
    #[test]
    fn a_node_owns_its_manifest_and_the_files_of_its_folder() {
        assert_eq!(node_of("alpha.json"), Some("alpha"));
        assert_eq!(node_of("alpha/compose.yaml"), Some("alpha"));
        assert_eq!(node_of("alpha/.env"), Some("alpha"));
        assert_eq!(node_of("alpha/a/b"), None);
        assert_eq!(node_of("alpha/.."), None);
        assert!(is_build_file("alpha", "alpha/.env"));
        assert!(is_build_file("alpha", "alpha.json"));
        assert!(!is_build_file("alpha", "alpha/../x"));
        assert!(!is_build_file("alpha", "alpha/"));
        assert!(!is_build_file("alpha", "alphabet/compose.yaml"));
        assert!(!is_build_file("..", "../x"));
        assert!(!is_build_file(".hidden", ".hidden/x"));
    }

    /// The Swarm target's `swarm/stack.yaml` is the whole mesh's: the index records it
    /// under the mesh, keeps it recorded while the mesh is built by another target, and
    /// an index of builds that write none has no `mesh_files` at all.
    #[test]
    fn a_stack_of_the_whole_mesh_is_in_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let index = |bytes: &[u8]| serde_json::from_slice::<serde_json::Value>(bytes).unwrap();
        let nodes = ["alpha".to_string()];
        let (_, bytes, _) = plan(dir.path(), "lab", &nodes, &[("alpha.json", "a")]);
        assert!(index(&bytes).get("mesh_files").is_none());
        let files = [("alpha.json", "a"), ("swarm/stack.yaml", "s")];
        let (stale, bytes, _) = plan(dir.path(), "lab", &nodes, &files);
        assert!(stale.is_empty());
        assert_eq!(index(&bytes)["mesh_files"]["lab"]["swarm/stack.yaml"], "s");
        assert!(index(&bytes)["meshes"]["lab"].get("swarm").is_none());
        std::fs::write(dir.path().join(INDEX), &bytes).unwrap();
        let (_, bytes, _) = plan(dir.path(), "lab", &nodes, &[("alpha.json", "a")]);
        assert_eq!(index(&bytes)["mesh_files"]["lab"]["swarm/stack.yaml"], "s");
        assert!(is_mesh_file("swarm/stack.yaml"));
        assert!(!is_mesh_file("swarm/a/b") && !is_mesh_file("stack.yaml"));
        assert!(!is_mesh_file("../x") && !is_mesh_file(".hidden/x"));
    }
}
