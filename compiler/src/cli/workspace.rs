//! Reading a workspace from disk: every `.mesh` file under the given paths, in a stable
//! order, with every problem said in a sentence instead of a panic.

use meshc::diagnostics::rules::SyntaxError;
use meshc::diagnostics::{Diagnostic, Rule};
use meshc::span::{FilePath, Span};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files larger than this are refused with a sentence: no real definition comes near it,
/// and the limit bounds memory.
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;

/// What was read.
#[derive(Default)]
pub struct Loaded {
    /// Files that read as UTF-8, in path order.
    pub files: Vec<(FilePath, Arc<str>)>,
    /// Files that did not: a diagnostic each, with a lossy text to show.
    pub unreadable: Vec<(Diagnostic, FilePath, Arc<str>)>,
    /// Sentences for paths that could not be read at all (exit 2).
    pub io_errors: Vec<String>,
    /// Sentences for what was skipped on purpose: links leading out of the given paths,
    /// and files that are not regular files (said as warnings; the rest is read).
    pub skipped: Vec<String>,
}

/// Reads every `.mesh` file under `paths` (a file named directly is read whatever its
/// extension), leaving out every file at or under one of `exclude` (a workspace's
/// excludes, see `mesh.toml`). Symlink loops and unreadable directories are reported,
/// not followed; a link that leads out of every given path is not followed either
/// (said, and skipped), so a link to `/` never walks the file system.
pub fn load_excluding(paths: &[PathBuf], exclude: &[PathBuf]) -> Loaded {
    let exclude: Vec<PathBuf> = exclude
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    let mut found: Vec<PathBuf> = Vec::new();
    let mut io_errors = Vec::new();
    let mut skipped = Vec::new();
    let mut seen_dirs = HashSet::new();
    // Where links may lead: inside one of the directories given (a file given directly
    // is read where it is, and lets its own directory be read).
    let roots: Vec<PathBuf> = paths
        .iter()
        .filter_map(|p| {
            let c = std::fs::canonicalize(p).ok()?;
            if c.is_dir() {
                Some(c)
            } else {
                c.parent().map(Path::to_path_buf)
            }
        })
        .collect();
    for p in paths {
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => walk(
                p,
                &roots,
                &mut found,
                &mut io_errors,
                &mut skipped,
                &mut seen_dirs,
            ),
            Ok(_) => found.push(p.clone()),
            Err(e) => io_errors.push(format!("cannot read `{}`: {}", p.display(), plain(&e))),
        }
    }
    found.sort();
    // One file named twice (`lab.mesh` and `./lab.mesh`, or through a link) is read once.
    let mut seen_files = HashSet::new();
    found.retain(|p| {
        let canonical = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        !exclude.iter().any(|x| canonical.starts_with(x)) && seen_files.insert(canonical)
    });
    let mut loaded = Loaded {
        io_errors,
        skipped,
        ..Loaded::default()
    };
    // Reading is mostly waiting on the kernel: spread it over the cores.
    let parts: Vec<Loaded> = meshc::parallel::map_chunks(&found, 2, |part| {
        let mut l = Loaded::default();
        for path in part {
            read_one(path, &mut l);
        }
        vec![l]
    });
    for part in parts {
        loaded.files.extend(part.files);
        loaded.unreadable.extend(part.unreadable);
        loaded.io_errors.extend(part.io_errors);
    }
    loaded
}

fn read_one(path: &Path, loaded: &mut Loaded) {
    let shown: FilePath = display_path(path).into();
    // Only a regular file is read, and at most one byte past the limit: a link to
    // `/dev/zero` or a named pipe is refused, never read forever.
    let bytes = match meshc::fsio::read_regular(path, MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            loaded.io_errors.push(e.sentence(&shown));
            return;
        }
    };
    // A UTF-8 byte order mark is no part of the text (editors on Windows write one).
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => loaded.files.push((shown, Arc::from(text))),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy: Arc<str> = Arc::from(String::from_utf8_lossy(e.as_bytes()).into_owned());
            // The lossy text replaces the bad bytes; point at the replacement character.
            let start = lossy[..]
                .char_indices()
                .nth(lossy[..at].chars().count())
                .map_or(at, |(i, _)| i);
            let end = (start + 1..=lossy.len())
                .find(|&i| lossy.is_char_boundary(i))
                .unwrap_or(start);
            let d = SyntaxError::NotUtf8 { shown: &shown, at }.at(&shown, Span::new(start, end));
            loaded.unreadable.push((d, shown, lossy));
        }
    }
}

/// Walks `start` with a stack on the heap (a directory tree's depth is the user's).
fn walk(
    start: &Path,
    roots: &[PathBuf],
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
    skipped: &mut Vec<String>,
    seen: &mut HashSet<PathBuf>,
) {
    let mut pending: Vec<PathBuf> = vec![start.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let mut subdirs = Vec::new();
        walk_one(&dir, roots, out, errors, skipped, seen, &mut subdirs);
        // Reversed, so the first in path order is walked first.
        pending.extend(subdirs.into_iter().rev());
    }
}

/// Reads one directory: its `.mesh` files into `out`, its directories into `subdirs`.
fn walk_one(
    dir: &Path,
    roots: &[PathBuf],
    out: &mut Vec<PathBuf>,
    errors: &mut Vec<String>,
    skipped: &mut Vec<String>,
    seen: &mut HashSet<PathBuf>,
    subdirs: &mut Vec<PathBuf>,
) {
    // A directory reached twice (a symlink loop, or two links to one place) is read once.
    let canonical = match std::fs::canonicalize(dir) {
        Ok(c) => c,
        Err(e) => {
            errors.push(format!("cannot read `{}`: {}", dir.display(), plain(&e)));
            return;
        }
    };
    if !seen.insert(canonical) {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(format!(
                "cannot read the directory `{}`: {}",
                dir.display(),
                plain(&e)
            ));
            return;
        }
    };
    let mut entry_types = std::collections::HashMap::new();
    let mut children: Vec<PathBuf> = Vec::new();
    for e in entries.flatten() {
        if let Ok(t) = e.file_type() {
            entry_types.insert(e.path(), t);
        }
        children.push(e.path());
    }
    children.sort();
    for child in children {
        let name = child.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        let meta = match entry_types.get(&child) {
            // Not a link: the directory listing already knows the type.
            Some(t) if !t.is_symlink() => {
                if t.is_dir() {
                    subdirs.push(child);
                } else if t.is_file() && name.ends_with(".mesh") {
                    out.push(child);
                } else if name.ends_with(".mesh") {
                    skipped.push(format!(
                        "`{}` is not a regular file; skipped",
                        display_path(&child)
                    ));
                }
                continue;
            }
            _ => std::fs::metadata(&child),
        };
        match meta {
            Ok(m) if m.is_dir() || name.ends_with(".mesh") => {
                // A link: followed only while it stays inside the given paths.
                let inside = std::fs::canonicalize(&child)
                    .is_ok_and(|c| roots.iter().any(|r| c.starts_with(r)));
                if !inside {
                    skipped.push(format!(
                        "`{}` is a link leading out of the paths given; not followed",
                        display_path(&child)
                    ));
                } else if m.is_dir() {
                    subdirs.push(child);
                } else if m.is_file() {
                    out.push(child);
                } else {
                    skipped.push(format!(
                        "`{}` is not a regular file; skipped",
                        display_path(&child)
                    ));
                }
            }
            Ok(_) => {}
            // A dangling link or a loop the OS refuses to follow.
            Err(e) if name.ends_with(".mesh") => {
                errors.push(format!("cannot read `{}`: {}", child.display(), plain(&e)))
            }
            Err(_) => {}
        }
    }
}

/// The path as the user would write it: without a leading `./`.
pub fn display_path(p: &Path) -> String {
    let s = p.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// An I/O error as a lowercase phrase without the OS error number.
pub fn plain(e: &std::io::Error) -> String {
    let s = e.to_string();
    let s = match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    };
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => s,
    }
}

/// The text of the lock file at `path`, `None` when there is none. Only a regular file
/// is read, and at most [`MAX_FILE_BYTES`] of it.
pub fn read_lock(path: &Path) -> Result<Option<String>, String> {
    let shown = display_path(path);
    match meshc::fsio::read_regular(path, MAX_FILE_BYTES) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("`{shown}` is not a lock file meshc can read: not UTF-8")),
        Err(meshc::fsio::ReadFailure::NotFound) => Ok(None),
        Err(e) => Err(e.sentence(&shown)),
    }
}
