//! Reading `.mesh` files from disk: the workspace folders at start, and single files the
//! client's watcher reports. Unreadable files and files that are not UTF-8 are left out
//! (`meshc check` reports them); nothing here reads a file's content into a log.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files larger than this are left out, as `meshc check` refuses them.
const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Every `.mesh` file under `roots`, with its text, in path order.
pub fn scan(roots: &[PathBuf]) -> Vec<(PathBuf, Arc<str>)> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for r in roots {
        walk(r, &mut found, &mut seen);
    }
    found.sort();
    found.dedup();
    found
        .into_iter()
        .filter_map(|p| read(&p).map(|t| (p, t)))
        .collect()
}

/// The text of one file, when it is a readable UTF-8 file of reasonable size.
pub fn read(path: &Path) -> Option<Arc<str>> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    String::from_utf8(bytes).ok().map(Arc::from)
}

/// Whether `path` names a mesh source file.
pub fn is_mesh(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "mesh")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, seen: &mut HashSet<PathBuf>) {
    // A directory reached twice (a symlink loop) is read once.
    let Ok(canonical) = std::fs::canonicalize(dir) else {
        return;
    };
    if !seen.insert(canonical) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => walk(&path, out, seen),
            Ok(m) if m.is_file() && is_mesh(&path) => out.push(path),
            _ => {}
        }
    }
}
