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

/// A file [`discover`] found to read.
pub struct Listed {
    pub path: PathBuf,
    /// The directory listing said it is a regular file, not a link: it is opened without
    /// asking its type first (see [`meshc::fsio::read_listed`]).
    pub listed_regular: bool,
}

/// What [`discover`] found: the files to read, in path order, and what could not be
/// walked or was skipped.
#[derive(Default)]
pub struct Discovered {
    pub files: Vec<Listed>,
    /// Sentences for paths that could not be read at all (exit 2).
    pub io_errors: Vec<String>,
    /// Sentences for what was skipped on purpose (said as warnings).
    pub skipped: Vec<String>,
}

/// One file read: its text, a diagnostic for a text that is not UTF-8, or a sentence
/// saying why it could not be read.
pub enum Read {
    Text(FilePath, Arc<str>),
    /// Boxed: a diagnostic is large and few files are not UTF-8.
    Unreadable(Box<Diagnostic>, FilePath, Arc<str>),
    Failed(String),
}

impl Loaded {
    /// What was read, from what [`discover`] said and the reads of its files in order.
    pub fn from_reads(
        io_errors: Vec<String>,
        skipped: Vec<String>,
        reads: impl IntoIterator<Item = Read>,
    ) -> Loaded {
        let mut loaded = Loaded {
            io_errors,
            skipped,
            ..Loaded::default()
        };
        for r in reads {
            match r {
                Read::Text(path, text) => loaded.files.push((path, text)),
                Read::Unreadable(d, path, text) => loaded.unreadable.push((*d, path, text)),
                Read::Failed(sentence) => loaded.io_errors.push(sentence),
            }
        }
        loaded
    }
}

/// Every `.mesh` file under `paths` (a file named directly is taken whatever its
/// extension), in path order, leaving out every file at or under one of `exclude` (a
/// workspace's excludes, see `mesh.toml`); [`read`] reads each. Symlink loops and
/// unreadable directories are reported, not followed; a link that leads out of every
/// given path is not followed either (said, and skipped), so a link to `/` never walks
/// the file system. Each directory is listed once and asked its real path once: a file
/// found in it is known by that path joined with its name, so no file costs a path
/// lookup of its own.
pub fn discover(paths: &[PathBuf], exclude: &[PathBuf]) -> Discovered {
    let exclude: Vec<PathBuf> = exclude
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect();
    let mut found: Vec<Found> = Vec::new();
    let mut io_errors = Vec::new();
    let mut skipped = Vec::new();
    let mut dirs = Dirs::default();
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
                &mut dirs,
            ),
            Ok(_) => found.push(Found {
                path: p.clone(),
                real: Real::Unknown,
                listed_regular: false,
            }),
            Err(e) => io_errors.push(format!("cannot read `{}`: {}", p.display(), plain(&e))),
        }
    }
    // Each directory's files come sorted; only files of several directories, or of
    // several paths given, may need sorting. Two neighbours listed from one directory
    // are in order already (by their names' bytes, which is their paths' order), so
    // only the others are compared as paths, component by component: ten thousand
    // such comparisons were about a millisecond of the command's one thread here.
    let in_order = |a: &Found, b: &Found| match (&a.real, &b.real) {
        (Real::InDir(x), Real::InDir(y)) if x == y => true,
        _ => a.path <= b.path,
    };
    if !found.is_sorted_by(in_order) {
        found.sort_by(|a, b| a.path.cmp(&b.path));
    }
    // Files found by listing a directory (each walked once, by its real path) never
    // name one file twice; one of them can only be another file (given directly, or
    // reached through a link) when both have the same name. With no excludes, only those
    // are looked up.
    let other_names: Option<HashSet<std::ffi::OsString>> = exclude.is_empty().then(|| {
        found
            .iter()
            .filter(|f| !matches!(f.real, Real::InDir(_)))
            .filter_map(|f| match &f.real {
                Real::Known(c) => c.file_name().map(|n| n.to_os_string()),
                _ => std::fs::canonicalize(&f.path)
                    .ok()
                    .and_then(|c| c.file_name().map(|n| n.to_os_string()))
                    .or_else(|| f.path.file_name().map(|n| n.to_os_string())),
            })
            .collect()
    });
    // One file named twice (`lab.mesh` and `./lab.mesh`, or through a link) is read once.
    let mut seen_files = HashSet::new();
    let files = found
        .into_iter()
        .filter_map(|f| {
            let canonical = match f.real {
                Real::Known(c) => c,
                Real::InDir(dir) => match (f.path.file_name(), &other_names) {
                    (Some(name), Some(others)) if !others.contains(name) => {
                        return Some(Listed {
                            path: f.path,
                            listed_regular: f.listed_regular,
                        });
                    }
                    (Some(name), _) => dirs.real[dir].join(name),
                    (None, _) => f.path.clone(),
                },
                Real::Unknown => std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()),
            };
            let keep =
                !exclude.iter().any(|x| canonical.starts_with(x)) && seen_files.insert(canonical);
            keep.then_some(Listed {
                path: f.path,
                listed_regular: f.listed_regular,
            })
        })
        .collect();
    Discovered {
        files,
        io_errors,
        skipped,
    }
}

/// A file found: its path as walked, what the walk knows of its real path, and whether
/// the listing said it is a regular file.
struct Found {
    path: PathBuf,
    real: Real,
    listed_regular: bool,
}

/// What the walk knows of a file's real path.
enum Real {
    /// Its name in the directory of this index in [`Dirs::real`] (not a link).
    InDir(usize),
    /// Looked up already (a link followed).
    Known(PathBuf),
    /// Nothing: a file given directly.
    Unknown,
}

/// The real path of every directory walked, each walked once.
#[derive(Default)]
struct Dirs {
    seen: HashSet<PathBuf>,
    real: Vec<PathBuf>,
}

/// Reads one file [`discover`] found.
pub fn read(file: &Listed) -> Read {
    thread_local! {
        /// The bytes of the last file this thread read: one buffer for every file, so
        /// reading touches no fresh memory but the text it keeps.
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        let read = read_into(file, buffer);
        // A large file's buffer is not kept for the next.
        if buffer.capacity() > 1024 * 1024 {
            *buffer = Vec::new();
        }
        read
    })
}

fn read_into(file: &Listed, buffer: &mut Vec<u8>) -> Read {
    let path = &file.path;
    let shown: FilePath = display_path(path).into();
    // Only a regular file is read, and at most one byte past the limit: a link to
    // `/dev/zero` or a named pipe is refused, never read forever.
    let done = if file.listed_regular {
        meshc::fsio::read_listed(path, MAX_FILE_BYTES, buffer)
    } else {
        meshc::fsio::read_regular(path, MAX_FILE_BYTES).map(|b| *buffer = b)
    };
    if let Err(e) = done {
        return Read::Failed(e.sentence(&shown));
    }
    // A UTF-8 byte order mark is no part of the text (editors on Windows write one).
    let bytes = buffer.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(buffer);
    match std::str::from_utf8(bytes) {
        Ok(text) => Read::Text(shown, Arc::from(text)),
        Err(e) => {
            let at = e.valid_up_to();
            let lossy: Arc<str> = Arc::from(String::from_utf8_lossy(bytes).into_owned());
            // The lossy text replaces the bad bytes; point at the replacement character.
            let start = lossy[..]
                .char_indices()
                .nth(lossy[..at].chars().count())
                .map_or(at, |(i, _)| i);
            let end = (start + 1..=lossy.len())
                .find(|&i| lossy.is_char_boundary(i))
                .unwrap_or(start);
            let d = SyntaxError::NotUtf8 { shown: &shown, at }.at(&shown, Span::new(start, end));
            Read::Unreadable(Box::new(d), shown, lossy)
        }
    }
}

/// Walks `start` with a stack on the heap (a directory tree's depth is the user's).
fn walk(
    start: &Path,
    roots: &[PathBuf],
    out: &mut Vec<Found>,
    errors: &mut Vec<String>,
    skipped: &mut Vec<String>,
    dirs: &mut Dirs,
) {
    let mut pending: Vec<PathBuf> = vec![start.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let mut subdirs = Vec::new();
        walk_one(&dir, roots, out, errors, skipped, dirs, &mut subdirs);
        // Reversed, so the first in path order is walked first.
        pending.extend(subdirs.into_iter().rev());
    }
}

/// Reads one directory: its `.mesh` files into `out`, its directories into `subdirs`.
fn walk_one(
    dir: &Path,
    roots: &[PathBuf],
    out: &mut Vec<Found>,
    errors: &mut Vec<String>,
    skipped: &mut Vec<String>,
    dirs: &mut Dirs,
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
    if !dirs.seen.insert(canonical.clone()) {
        return;
    }
    let dir_index = dirs.real.len();
    dirs.real.push(canonical);
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
    let mut children: Vec<(PathBuf, Option<std::fs::FileType>)> = entries
        .flatten()
        .map(|e| (e.path(), e.file_type().ok()))
        .collect();
    // All in one directory: in path order is in the order of their names' bytes.
    children.sort_unstable_by(|a, b| a.0.as_os_str().cmp(b.0.as_os_str()));
    for (child, file_type) in children {
        let name = child.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        let meta = match file_type {
            // Not a link: the directory listing already knows the type.
            Some(t) if !t.is_symlink() => {
                if t.is_dir() {
                    subdirs.push(child);
                } else if t.is_file() && name.ends_with(".mesh") {
                    // Not a link, in a directory whose real path is known: so is its own.
                    out.push(Found {
                        path: child,
                        real: Real::InDir(dir_index),
                        listed_regular: true,
                    });
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
                let real = std::fs::canonicalize(&child)
                    .ok()
                    .filter(|c| roots.iter().any(|r| c.starts_with(r)));
                match real {
                    None => skipped.push(format!(
                        "`{}` is a link leading out of the paths given; not followed",
                        display_path(&child)
                    )),
                    Some(_) if m.is_dir() => subdirs.push(child),
                    Some(real) if m.is_file() => out.push(Found {
                        path: child,
                        real: Real::Known(real),
                        listed_regular: false,
                    }),
                    Some(_) => skipped.push(format!(
                        "`{}` is not a regular file; skipped",
                        display_path(&child)
                    )),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The files found are in the order of their paths (component by component), however
    /// they were found: one directory's in the order of their names, files of several
    /// directories and files given directly sorted among them. `discover` compares only
    /// neighbours from different directories as paths; this holds it to the full order.
    #[test]
    fn files_of_several_directories_and_paths_given_come_in_path_order() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["a", "a/b", "a-b", "a.b", "c"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        for file in [
            "a/z.mesh",
            "a/y.mesh",
            "a/b/x.mesh",
            "a/b.mesh",
            "a-b/w.mesh",
            "a.b/v.mesh",
            "c/u10.mesh",
            "c/u9.mesh",
            "c/u1.mesh",
            "top.mesh",
            "b.mesh",
        ] {
            std::fs::write(root.join(file), "").unwrap();
        }
        let paths = [root.join("c"), root.join("top.mesh"), root.to_path_buf()];
        let found: Vec<PathBuf> = discover(&paths, &[])
            .files
            .into_iter()
            .map(|f| f.path)
            .collect();
        let mut in_path_order = found.clone();
        in_path_order.sort();
        assert_eq!(found, in_path_order);
        // Each file once, though `c` and `top.mesh` are also under the root given.
        assert_eq!(found.len(), 11, "{found:?}");
    }
}
