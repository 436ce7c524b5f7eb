//! The server's state: the salsa database, the file table (disk texts, open documents and
//! their versions) and the generation counter that tells stale results from current ones.
//!
//! The state lives behind one `std::sync::Mutex`. Every change applies to the database
//! while the lock is held and before any `.await`; work happens on a [`Snapshot`] (a clone
//! of the database) outside the lock. A salsa setter waits until every clone is dropped,
//! and cancels the queries running on them, so an edit stops stale work instead of
//! queuing behind it.

use crate::timing;
use meshc::db::{Database, STDLIB_PATH, SourceFile, Workspace};
use meshc::resolve::MeshOutcome;
use meshc::span::FilePath;
use meshc::syntax::line_index::ColumnUnit;
use salsa::{Durability, Setter as _};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::Uri;

/// One file of the workspace.
#[derive(Clone)]
pub struct FileEntry {
    pub uri: Uri,
    pub input: SourceFile,
    /// The version of the open document; `None` when the text is the disk's.
    pub version: Option<i32>,
    /// Whether the file was found on disk (under a workspace folder or by a watcher), so
    /// closing its document reverts to the disk instead of dropping the file.
    pub on_disk: bool,
}

/// Where files are, both ways, as one snapshot saw them.
#[derive(Default)]
pub struct FileMap {
    pub by_path: HashMap<FilePath, (Uri, SourceFile)>,
    pub by_uri: HashMap<Uri, FilePath>,
}

/// A consistent view for one computation: a clone of the database and the file map of the
/// same moment. Dropping it lets the next edit proceed.
pub struct Snapshot {
    pub db: Database,
    pub ws: Workspace,
    pub std_file: SourceFile,
    pub files: Arc<FileMap>,
    /// The versions of the open documents.
    pub versions: Arc<HashMap<FilePath, i32>>,
    pub unit: ColumnUnit,
    pub std_uri: Uri,
    pub generation: u64,
    /// Counts the snapshots alive ([`State::settle`] waits for none).
    _live: Arc<()>,
}

impl Snapshot {
    /// The file a URI names (the standard library's URI names its embedded file).
    pub fn file(&self, uri: &Uri) -> Option<(FilePath, SourceFile)> {
        if *uri == self.std_uri {
            return Some((FilePath::from(STDLIB_PATH), self.std_file));
        }
        let path = self.files.by_uri.get(uri)?;
        let (_, input) = self.files.by_path.get(path)?;
        Some((path.clone(), *input))
    }

    /// The file at `path` (as diagnostics and the registry name it).
    pub fn file_at(&self, path: &str) -> Option<SourceFile> {
        if path == STDLIB_PATH {
            return Some(self.std_file);
        }
        self.files.by_path.get(path).map(|(_, f)| *f)
    }

    /// The URI of the file at `path`.
    pub fn uri_of(&self, path: &str) -> Option<Uri> {
        if path == STDLIB_PATH {
            return Some(self.std_uri.clone());
        }
        self.files.by_path.get(path).map(|(u, _)| u.clone())
    }

    /// The version of the open document at `path`.
    pub fn version_of(&self, path: &str) -> Option<i32> {
        self.versions.get(path).copied()
    }
}

/// The server's mutable state.
pub struct State {
    pub db: Database,
    pub ws: Workspace,
    pub std_file: SourceFile,
    /// Sorted by path, so the workspace's file order (and every result) is deterministic.
    pub files: BTreeMap<FilePath, FileEntry>,
    /// Bumped by every change of an input.
    pub generation: u64,
    pub roots: Vec<PathBuf>,
    pub unit: ColumnUnit,
    pub std_uri: Uri,
    /// The file map of the current set of files; rebuilt when the set changes.
    map: Arc<FileMap>,
    map_stale: bool,
    versions: Arc<HashMap<FilePath, i32>>,
    /// The paths of the documents opened (some may be closed or gone since: each use
    /// checks the file's entry), so that what an edit does with the open documents costs
    /// their number, not the workspace's.
    open_paths: BTreeSet<FilePath>,
    /// The meshes' outcomes of the last workspace pass, and of the one before. Salsa frees
    /// a result it replaced when the next input is set, that is inside the next edit; a
    /// mesh of 10,000 assignments takes long to free. Holding them here makes salsa's
    /// free a count decrement; once salsa has let go, [`State::changed`] moves them to
    /// `garbage`, which the workspace pass drops on a thread of its own, after the edited
    /// file's diagnostics are out.
    retained: Vec<Arc<MeshOutcome>>,
    retained_before: Vec<Arc<MeshOutcome>>,
    garbage: Vec<Arc<MeshOutcome>>,
    /// Held by every snapshot: how many are alive.
    live: Arc<()>,
}

impl State {
    /// An empty workspace holding only the standard library.
    pub fn new(std_uri: Uri) -> State {
        let (mut db, ws) = Database::with_files(Vec::new());
        // Meshes resolve from position-free modules: an edit that moves only positions in
        // an assigned module resolves nothing again (`meshc::db::module_view`), nor does
        // one of a container's entries, which the check of a mesh never reads
        // (`meshc::db::module_check_view`).
        ws.set_reuse_resolution(&mut db)
            .with_durability(Durability::HIGH)
            .to(true);
        // Hovers and hints read how each module requirement is answered.
        ws.set_provider_choices(&mut db)
            .with_durability(Durability::HIGH)
            .to(true);
        // The open documents' pinned summaries change only when a document's names do,
        // as the files on disk: of their durability from the first pass on, or the
        // registry, and every check that reads it, would keep the low durability of the
        // input's first value and be walked again after every keystroke.
        ws.set_pinned(&mut db)
            .with_durability(Durability::MEDIUM)
            .to(Default::default());
        let std_file = ws.files(&db)[0];
        State {
            db,
            ws,
            std_file,
            files: BTreeMap::new(),
            generation: 0,
            roots: Vec::new(),
            unit: ColumnUnit::Utf16,
            std_uri,
            map: Arc::new(FileMap::default()),
            map_stale: false,
            versions: Arc::new(HashMap::new()),
            open_paths: BTreeSet::new(),
            retained: Vec::new(),
            retained_before: Vec::new(),
            garbage: Vec::new(),
            live: Arc::new(()),
        }
    }

    /// A snapshot for work outside the lock.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            db: self.db.clone(),
            ws: self.ws,
            std_file: self.std_file,
            files: self.map.clone(),
            versions: self.versions.clone(),
            unit: self.unit,
            std_uri: self.std_uri.clone(),
            generation: self.generation,
            _live: self.live.clone(),
        }
    }

    /// Starts a new revision with no input changed, if `generation` is still current and
    /// no snapshot is alive (one being computed on would be cancelled). Salsa frees the
    /// memos a revision replaced when the next revision starts: without this that is
    /// inside the next edit's write, under the lock (10 to 60 ms after a workspace pass
    /// with a mesh of 100,000 assignments); the workspace pass calls this once it is
    /// done, so the freeing happens while the user is not typing. The write is of low
    /// durability: what reads only files on disk stays confirmed, and what reads an open
    /// document is confirmed again by the next edit anyway. Returns whether it wrote.
    pub fn settle(&mut self, generation: u64) -> bool {
        if self.generation != generation || Arc::strong_count(&self.live) > 1 {
            return false;
        }
        salsa::Database::synthetic_write(&mut self.db, Durability::LOW);
        true
    }

    /// The path a URI maps to in the database: the file system path for `file:` URIs, the
    /// URI itself for others (an untitled buffer).
    pub fn path_for(uri: &Uri) -> FilePath {
        match uri.to_file_path() {
            Some(p) if uri.scheme().as_str() == "file" => FilePath::from(p.to_string_lossy()),
            _ => FilePath::from(uri.as_str()),
        }
    }

    /// Whether `uri` is the standard library's file (read-only: it is the embedded text).
    pub fn is_std(&self, uri: &Uri) -> bool {
        *uri == self.std_uri
    }

    /// Opens a document (or replaces its text): the open text overrides the disk.
    /// Returns the file's path.
    pub fn open(&mut self, uri: &Uri, text: &str, version: i32) -> FilePath {
        let path = Self::path_for(uri);
        self.open_paths.insert(path.clone());
        match self.files.get_mut(&path) {
            Some(entry) => {
                entry.version = Some(version);
                if **entry.input.text(&self.db) != *text {
                    entry
                        .input
                        .set_text(&mut self.db)
                        .with_durability(Durability::LOW)
                        .to(Arc::from(text));
                }
            }
            None => {
                let input = SourceFile::new(&self.db, path.clone(), Arc::from(text), false);
                self.files.insert(
                    path.clone(),
                    FileEntry {
                        uri: uri.clone(),
                        input,
                        version: Some(version),
                        on_disk: false,
                    },
                );
                self.sync_workspace();
            }
        }
        self.changed();
        path
    }

    /// Applies a full-text change of an open document. Returns `None` (and changes
    /// nothing) for a document that is not open or a version older than the one held.
    pub fn change(
        &mut self,
        uri: &Uri,
        text: &str,
        version: i32,
        steps: &mut Option<timing::Steps>,
    ) -> Option<FilePath> {
        let path = Self::path_for(uri);
        if self.files.get(&path)?.version.is_some_and(|v| v > version) {
            return None;
        }
        if steps.is_some() {
            // Timed apart: waiting for every other handle of the database to drop (a
            // computation still running on an older revision must see its cancellation
            // and unwind first), then the write itself (salsa's new revision frees the
            // memos the last revision replaced).
            salsa::Database::trigger_cancellation(&mut self.db);
            timing::mark(steps, "cancel");
        }
        let entry = self.files.get_mut(&path)?;
        entry.version = Some(version);
        self.open_paths.insert(path.clone());
        entry
            .input
            .set_text(&mut self.db)
            .with_durability(Durability::LOW)
            .to(Arc::from(text));
        timing::mark(steps, "write");
        self.changed();
        Some(path)
    }

    /// Closes a document: its file reverts to the disk's text (`disk`), or leaves the
    /// workspace when it is not on disk. Returns whether the file left.
    pub fn close(&mut self, uri: &Uri, disk: Option<Arc<str>>) -> bool {
        let path = Self::path_for(uri);
        let under_roots = self.under_roots(&path);
        let Some(entry) = self.files.get_mut(&path) else {
            return false;
        };
        entry.version = None;
        let gone = match disk {
            Some(text) if entry.on_disk || under_roots => {
                entry.on_disk = true;
                if **entry.input.text(&self.db) != *text {
                    entry
                        .input
                        .set_text(&mut self.db)
                        .with_durability(Durability::MEDIUM)
                        .to(text);
                }
                false
            }
            _ => {
                self.files.remove(&path);
                self.sync_workspace();
                true
            }
        };
        self.changed();
        gone
    }

    /// Whether `path` is the standard library's read-only copy (a cache directory inside a
    /// workspace folder must not make the library a workspace file too).
    fn is_std_copy(&self, path: &Path) -> bool {
        Uri::from_file_path(path).is_some_and(|u| u == self.std_uri)
    }

    /// A file read from disk: added, or its text updated unless an open document overrides
    /// it. Returns whether anything changed.
    pub fn disk_file(&mut self, path: &Path, text: Arc<str>) -> bool {
        match self.read_from_disk(path, text) {
            DiskRead::Unchanged => false,
            DiskRead::Updated => {
                self.changed();
                true
            }
            DiskRead::Added => {
                self.sync_workspace();
                self.changed();
                true
            }
        }
    }

    /// Adds or updates many disk files at once (a workspace scan): one workspace write.
    pub fn disk_files(&mut self, files: Vec<(PathBuf, Arc<str>)>) {
        let mut added = false;
        for (path, text) in files {
            added |= self.read_from_disk(&path, text) == DiskRead::Added;
        }
        if added {
            self.sync_workspace();
        }
        self.changed();
    }

    /// `path` read from disk with `text`: its entry added, or its text updated unless an
    /// open document overrides it. The workspace's list of files is left to the caller.
    fn read_from_disk(&mut self, path: &Path, text: Arc<str>) -> DiskRead {
        if self.is_std_copy(path) {
            return DiskRead::Unchanged;
        }
        let key = FilePath::from(path.to_string_lossy());
        if let Some(entry) = self.files.get_mut(&key) {
            entry.on_disk = true;
            if entry.version.is_some() || *entry.input.text(&self.db) == text {
                return DiskRead::Unchanged;
            }
            entry
                .input
                .set_text(&mut self.db)
                .with_durability(Durability::MEDIUM)
                .to(text);
            return DiskRead::Updated;
        }
        let Some(uri) = Uri::from_file_path(path) else {
            return DiskRead::Unchanged;
        };
        let input = disk_input(&self.db, key.clone(), text);
        self.files.insert(
            key,
            FileEntry {
                uri,
                input,
                version: None,
                on_disk: true,
            },
        );
        DiskRead::Added
    }

    /// A file deleted on disk: it leaves unless a document holds it open. Returns the
    /// path when it left.
    pub fn disk_deleted(&mut self, path: &Path) -> Option<FilePath> {
        let key = FilePath::from(path.to_string_lossy());
        let entry = self.files.get_mut(&key)?;
        entry.on_disk = false;
        if entry.version.is_some() {
            return None;
        }
        self.files.remove(&key);
        self.sync_workspace();
        self.changed();
        Some(key)
    }

    /// Drops every file under `root` that no document holds open (a removed folder).
    /// Returns the paths that left.
    pub fn drop_root(&mut self, root: &Path) -> Vec<FilePath> {
        self.roots.retain(|r| r != root);
        let gone: Vec<FilePath> = self
            .files
            .iter()
            .filter(|(p, e)| {
                e.version.is_none()
                    && Path::new(&***p).starts_with(root)
                    && !self.roots.iter().any(|r| Path::new(&***p).starts_with(r))
            })
            .map(|(p, _)| p.clone())
            .collect();
        for p in &gone {
            self.files.remove(p);
        }
        if !gone.is_empty() {
            self.sync_workspace();
            self.changed();
        }
        gone
    }

    /// The files found on disk under the workspace folders (open or not), as a rescan
    /// compares them with what the folders hold now.
    pub fn disk_paths_under_roots(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|(p, e)| e.on_disk && self.under_roots(p))
            .map(|(p, _)| PathBuf::from(&**p))
            .collect()
    }

    fn under_roots(&self, path: &str) -> bool {
        self.roots.iter().any(|r| Path::new(path).starts_with(r))
    }

    /// Rewrites the workspace input: the standard library first, then files by path.
    fn sync_workspace(&mut self) {
        let mut inputs = Vec::with_capacity(self.files.len() + 1);
        inputs.push(self.std_file);
        inputs.extend(self.files.values().map(|e| e.input));
        self.ws
            .set_files(&mut self.db)
            .with_durability(Durability::MEDIUM)
            .to(inputs);
        self.map_stale = true;
    }

    /// Holds the meshes' outcomes of a finished workspace pass (see `retained`).
    pub fn retain(&mut self, outcomes: Vec<Arc<MeshOutcome>>) {
        self.retained.extend(outcomes);
    }

    /// The outcomes nothing needs any more (see `retained`), for the caller to drop.
    pub fn take_garbage(&mut self) -> Vec<Arc<MeshOutcome>> {
        std::mem::take(&mut self.garbage)
    }

    /// Records that an input changed: a new generation, the open versions, the open
    /// documents' summaries pinned for the registry, and a fresh file map when the set of
    /// files changed.
    fn changed(&mut self) {
        self.generation += 1;
        // Salsa has just freed the results replaced before this change; what the pass
        // before last computed is now held by nothing else (or is still current, and
        // dropping it only counts down).
        let old = std::mem::replace(
            &mut self.retained_before,
            std::mem::take(&mut self.retained),
        );
        self.garbage.extend(old);
        let files = &self.files;
        self.open_paths
            .retain(|p| files.get(p).is_some_and(|e| e.version.is_some()));
        self.versions = Arc::new(
            self.open_paths
                .iter()
                .filter_map(|p| Some((p.clone(), files.get(p)?.version?)))
                .collect(),
        );
        // The registry reads the open documents' summaries as pinned here, so that a
        // keystroke that renames nothing leaves every other file's check confirmed by
        // durability (`meshc::db::Pinned`).
        let open: Vec<SourceFile> = self
            .open_paths
            .iter()
            .filter_map(|p| Some(files.get(p)?.input))
            .collect();
        meshc::db::pin_summaries(&mut self.db, self.ws, &open);
        if self.map_stale {
            let mut map = FileMap::default();
            for (path, e) in &self.files {
                map.by_path.insert(path.clone(), (e.uri.clone(), e.input));
                map.by_uri.insert(e.uri.clone(), path.clone());
            }
            self.map = Arc::new(map);
            self.map_stale = false;
        }
    }
}

/// What reading a file from disk did to the files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DiskRead {
    /// Nothing: the same text, a document open over it, or no path a URI can name.
    Unchanged,
    /// A known file's text replaced.
    Updated,
    /// A file the workspace did not hold.
    Added,
}

/// A file read from disk. Its text is of medium durability, an open document's of low:
/// an edit in the editor then revalidates what reads only files on disk (every other
/// file's summary, say) without walking their inputs (salsa's durability).
fn disk_input(db: &Database, path: FilePath, text: Arc<str>) -> SourceFile {
    SourceFile::builder(path, text, false)
        .durability(Durability::MEDIUM)
        .new(db)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The revision a workspace pass starts when it is done must not cancel a request
    /// computing on a snapshot, nor come after a newer edit.
    #[test]
    fn settle_writes_only_with_no_snapshot_alive_and_the_generation_current() {
        let mut state = State::new("untitled:std.mesh".parse().expect("a URI"));
        let uri: Uri = "untitled:a.mesh".parse().expect("a URI");
        state.open(&uri, "module a {\n}\n", 1);
        let generation = state.generation;
        let snap = state.snapshot();
        assert!(!state.settle(generation), "a snapshot is alive");
        drop(snap);
        assert!(!state.settle(generation + 1), "not the current generation");
        assert!(state.settle(generation));
        // The new revision changed nothing: the same check, the same generation.
        assert_eq!(state.generation, generation);
    }
}
