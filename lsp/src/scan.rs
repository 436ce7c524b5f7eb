//! Reading `.mesh` files from disk: the workspace folders at start, and single files the
//! client's watcher reports. Unreadable files and files that are not UTF-8 are left out
//! (`meshc check` reports them); nothing here reads a file's content into a log.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files larger than this are left out, as `meshc check` refuses them.
const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// Every `.mesh` file under `roots`, with its text, in path order. A link is followed
/// only while it stays inside the roots (a link to `/` never walks the file system), and
/// only regular files are read.
pub fn scan(roots: &[PathBuf]) -> Vec<(PathBuf, Arc<str>)> {
    paths(roots)
        .into_iter()
        .filter_map(|p| read(&p).map(|t| (p, t)))
        .collect()
}

/// The paths of every `.mesh` file under `roots`, in path order, without reading any:
/// the same walk as [`scan`] (the same links followed, the same directories skipped),
/// cheap enough to repeat on every save to notice files created or deleted outside the
/// editor.
pub fn paths(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    let inside: Vec<PathBuf> = roots
        .iter()
        .filter_map(|r| std::fs::canonicalize(r).ok())
        .collect();
    for r in roots {
        walk(r, &inside, &mut found, &mut seen);
    }
    found.sort();
    found.dedup();
    found
}

/// The text of one file, when it is a readable UTF-8 regular file of reasonable size (a
/// UTF-8 byte order mark left out).
pub fn read(path: &Path) -> Option<Arc<str>> {
    let bytes = meshc::fsio::read_regular(path, MAX_FILE_BYTES).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    Some(Arc::from(text.strip_prefix('\u{feff}').unwrap_or(&text)))
}

/// Whether `path` names a mesh source file.
pub fn is_mesh(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "mesh")
}

/// Walks `start` with a stack on the heap: a directory tree's depth is the user's.
fn walk(start: &Path, inside: &[PathBuf], out: &mut Vec<PathBuf>, seen: &mut HashSet<PathBuf>) {
    let mut pending = vec![start.to_path_buf()];
    while let Some(dir) = pending.pop() {
        // A directory reached twice (a symlink loop) is read once.
        let Ok(canonical) = std::fs::canonicalize(&dir) else {
            continue;
        };
        if !inside.iter().any(|r| canonical.starts_with(r)) || !seen.insert(canonical) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
            if is_link
                && !std::fs::canonicalize(&path)
                    .is_ok_and(|c| inside.iter().any(|r| c.starts_with(r)))
            {
                continue; // a link leading out of the roots is not followed
            }
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => pending.push(path),
                Ok(m) if m.is_file() && is_mesh(&path) => out.push(path),
                _ => {}
            }
        }
    }
}
