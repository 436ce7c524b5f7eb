//! Writing files atomically: every file is written aside, then renamed into place, so a
//! reader sees the old file or the new one, never half of either. A build writes all its
//! files aside first and renames them only when every write succeeded, under an exclusive
//! lock on the output directory, so two racing builds never leave a mix.

use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The sentence refusing to write at `path` because it is a link.
fn refuse_link(path: &Path) -> Result<(), String> {
    if meshc::fsio::is_link(path) {
        return Err(format!(
            "`{}` is a symbolic link; meshc writes no file through a link (remove the link, or write elsewhere)",
            path.display()
        ));
    }
    Ok(())
}

/// Writes `files` (name → bytes) into `dir`, all or nothing. Nothing is written through
/// a link: `dir`, the lock file and every target that is a link are refused, and each
/// file is written aside under a fresh random name created exclusively. A name may be
/// a relative path into a folder of `dir` (`alpha/compose.yaml`); the folder is created
/// (and refused if it is a link).
pub fn write_all(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    Staging::new(dir).write_all(files)
}

/// Like [`write_all`], without flushing each file to disk before the renames: for pages
/// a command derives from the sources and can write again at once (`meshc doc`'s
/// reference, a page per module and contract). The set is still renamed into place all
/// or nothing; only a power cut right after could leave pages to write again. A flush
/// per file cost 8 of the 21 seconds of the reference of 50,000 modules (100,000 files),
/// and waiting on the disk most of the rest.
pub fn write_all_unflushed(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    let mut staging = Staging::new(dir);
    staging.flushed = false;
    staging.write_all(files)
}

/// Like [`write_all`], each file readable and writable by its owner only (0600) from the
/// moment it is written aside: a take's cutover plan.
pub fn write_all_private(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    Staging::new_private(dir).write_all(files)
}

/// What a build owns in its output directory: the mesh built and, per node, the files
/// written for it (`alpha.json`, `alpha/compose.yaml`).
pub struct Build<'a> {
    pub mesh: &'a str,
    pub nodes: &'a [String],
}

/// Commits a build's staged files as [`write_all`] does, and records them in the
/// directory's index ([`super::owned::INDEX`]), written in the same all-or-nothing step.
/// The files an earlier build of this mesh wrote for nodes no longer in it are removed
/// afterwards, each only if it is still the regular file meshc wrote (same bytes, no
/// link). Returns the sentences saying what was removed or kept.
pub fn write_build(staging: Staging, build: &Build<'_>) -> Result<Vec<String>, String> {
    staging.commit(Some(build))
}

/// Files written aside in an output directory, each as soon as its bytes are made (from
/// any thread), and renamed into place together by [`write_build`] or [`write_all`], or
/// removed when dropped uncommitted (with the folders staging made, if empty, so the
/// directory is left as it was): a build need not hold every file's bytes
/// until the last is made, and the directory still changes all at once or not at all.
/// The first failure is kept and reported by `commit`; what is staged after it is
/// dropped unwritten.
pub struct Staging {
    dir: PathBuf,
    /// Whether each file is created 0600 ([`Staging::new_private`]).
    private: bool,
    /// Whether each file is flushed to disk before the renames (all but
    /// [`write_all_unflushed`]'s).
    flushed: bool,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Whether `dir` was checked (no link) and made.
    ready: bool,
    /// The folders staging created, outermost first: removed again (when empty) if
    /// nothing is written.
    created: Vec<PathBuf>,
    staged: Vec<Staged>,
    failed: Option<String>,
    /// Flushes the staged files to disk on a thread of its own while the build goes on.
    syncer: Option<Syncer>,
}

/// A thread that flushes each file written aside to disk (`fsync`), in the order they
/// come: the threads that make the files do not wait for the disk, and every file is on
/// disk before any is renamed into place ([`Syncer::finish`] is called first). Each file
/// is opened again by its path, so no file stays open while it waits.
struct Syncer {
    send: std::sync::mpsc::Sender<PathBuf>,
    thread: std::thread::JoinHandle<Vec<(PathBuf, std::io::Error)>>,
}

impl Syncer {
    fn start() -> Syncer {
        let (send, receive) = std::sync::mpsc::channel::<PathBuf>();
        let thread = std::thread::spawn(move || {
            let mut failed = Vec::new();
            for path in receive {
                let synced = fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.sync_all());
                if let Err(e) = synced {
                    failed.push((path, e));
                }
            }
            failed
        });
        Syncer { send, thread }
    }

    /// Waits until every file sent is on disk; the files that could not be flushed.
    fn finish(self) -> Vec<(PathBuf, std::io::Error)> {
        drop(self.send);
        self.thread.join().unwrap_or_default()
    }
}

/// One file written aside: its name in the directory, where it waits, where it goes,
/// and the SHA-256 of its bytes (for a build's index).
struct Staged {
    name: String,
    aside: PathBuf,
    target: PathBuf,
    sha256: String,
}

impl Staging {
    /// Stages into `dir`; nothing is touched until the first file is staged.
    pub fn new(dir: &Path) -> Staging {
        Staging::with(dir, false)
    }

    /// [`Staging::new`], each file created readable and writable by its owner only
    /// (0600) from the moment it exists aside, not only once it is renamed into place:
    /// no other user can open it while it is being written.
    pub fn new_private(dir: &Path) -> Staging {
        Staging::with(dir, true)
    }

    fn with(dir: &Path, private: bool) -> Staging {
        Staging {
            dir: dir.to_path_buf(),
            private,
            flushed: true,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        // A thread that panicked while staging leaves a state that is still whole.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Checks `dir` (no link) and makes it, once, recording the folders made.
    fn prepare(dir: &Path, state: &mut State) -> Result<(), String> {
        if state.ready {
            return Ok(());
        }
        refuse_link(dir)?;
        let mut missing = Vec::new();
        let mut at = Some(dir);
        while let Some(p) = at.filter(|p| !p.as_os_str().is_empty()) {
            if fs::symlink_metadata(p).is_ok() {
                break;
            }
            missing.push(p.to_path_buf());
            at = p.parent();
        }
        fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create `{}`: {}",
                dir.display(),
                super::workspace::plain(&e)
            )
        })?;
        missing.reverse();
        state.created.extend(missing);
        state.ready = true;
        Ok(())
    }

    /// Stages every file of `files` and commits them ([`write_all`]); a private staging
    /// makes each 0600 first.
    fn write_all(self, files: &[(String, Vec<u8>)]) -> Result<(), String> {
        for (name, bytes) in files {
            self.stage(name, bytes);
        }
        if self.private {
            self.restrict()?;
        }
        self.commit(None).map(|_| ())
    }

    /// Writes file `name`'s `bytes` aside, beside its target. Failures are kept for
    /// [`Staging::commit`]; after one, nothing more is written.
    pub fn stage(&self, name: &str, bytes: &[u8]) {
        self.stage_parts(name, &[bytes]);
    }

    /// [`Staging::stage`] of the file whose bytes are `parts`, in order.
    pub fn stage_parts(&self, name: &str, parts: &[&[u8]]) {
        let Some((folder, target)) = self.ready(name) else {
            return;
        };
        // Written and digested outside the lock: threads stage their files side by side.
        let base = target.file_name().unwrap_or_default().to_string_lossy();
        let written = write_aside_parts(&folder, &base, parts, false, self.private);
        let sha256 = super::owned::digest_parts(parts);
        self.staged(name, target, written, sha256);
    }

    /// Checks `dir` and the folder of file `name` (no link) and makes them, once; the
    /// folder the file is staged in and its target, or `None` after a failure (kept for
    /// [`Staging::commit`]).
    fn ready(&self, name: &str) -> Option<(PathBuf, PathBuf)> {
        let target = self.dir.join(name);
        // A name may hold one folder (`alpha/compose.yaml`): the file is staged beside its
        // target, in that folder, so the rename stays on one file system.
        let folder = target.parent().unwrap_or(&self.dir).to_path_buf();
        let mut state = self.state();
        if state.failed.is_some() {
            return None;
        }
        let ready = Self::prepare(&self.dir, &mut state).and_then(|()| {
            if folder != self.dir {
                refuse_link(&folder)?;
                match fs::create_dir(&folder) {
                    Ok(()) => state.created.push(folder.clone()),
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(e) => {
                        return Err(format!(
                            "cannot write `{}`: {}",
                            target.display(),
                            super::workspace::plain(&e)
                        ));
                    }
                }
                refuse_link(&folder)?;
            }
            refuse_link(&target)
        });
        match ready {
            Ok(()) => Some((folder, target)),
            Err(e) => {
                state.failed = Some(e);
                None
            }
        }
    }

    /// Records file `name` written aside (or the failure to write it) with the SHA-256
    /// of its bytes, and hands it to the syncer.
    fn staged(
        &self,
        name: &str,
        target: PathBuf,
        written: std::io::Result<PathBuf>,
        sha256: String,
    ) {
        let mut state = self.state();
        match written {
            Ok(aside) => {
                if self.flushed {
                    let syncer = state.syncer.get_or_insert_with(Syncer::start);
                    // A syncer that is gone leaves the file unflushed: `finish` says so.
                    let _ = syncer.send.send(aside.clone());
                }
                state.staged.push(Staged {
                    name: name.to_string(),
                    aside,
                    target,
                    sha256,
                })
            }
            Err(e) => {
                let e = cannot_write(&target, &e);
                state.failed.get_or_insert(e);
            }
        }
    }

    /// Keeps the first failure, for [`Staging::commit`]; nothing more is staged after it.
    fn fail(&self, failure: String) {
        self.state().failed.get_or_insert(failure);
    }

    /// Whether a failure was kept.
    fn failed(&self) -> bool {
        self.state().failed.is_some()
    }

    /// Makes every staged file 0600 before it is renamed into place.
    fn restrict(&self) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt;
        let mut state = self.state();
        if state.failed.is_some() {
            return Ok(()); // commit says why
        }
        let failed = state.staged.iter().find_map(|s| {
            fs::set_permissions(&s.aside, fs::Permissions::from_mode(0o600))
                .err()
                .map(|e| {
                    format!(
                        "cannot write `{}`: {}",
                        s.target.display(),
                        super::workspace::plain(&e)
                    )
                })
        });
        if failed.is_some() {
            state.failed = failed;
        }
        Ok(())
    }

    fn take(&self) -> State {
        std::mem::take(&mut *self.state())
    }

    /// Renames every staged file into place, all or nothing, under an exclusive lock on
    /// the directory, so two racing builds never leave a mix; with `build`, the index is
    /// written in the same step and stale files of the mesh are removed after.
    fn commit(self, build: Option<&Build<'_>>) -> Result<Vec<String>, String> {
        let mut state = self.take();
        let result = commit_staged(&self.dir, &mut state, build);
        if result.is_err() {
            undo(&mut state);
        }
        result
    }
}

/// A build's files are staged as resolution makes them.
impl meshc::target::FileSink for Staging {
    fn put(&self, name: &str, bytes: &[u8]) {
        self.stage(name, bytes);
    }

    fn put_parts(&self, name: &str) -> Box<dyn meshc::emit::PartsFile + '_> {
        Box::new(StagedInParts {
            staging: self,
            name: name.to_string(),
            middle: None,
        })
    }
}

/// A file staged middle first (a manifest written instance by instance, whose head holds
/// the digest of every instance): the middle goes, as it comes, to a file of its own set
/// aside beside the target (`.<name>.part-<random>`), so a node's instances are never
/// held in memory. At the end the file is staged as any other, its head, then its middle
/// read back, then its tail, hashed as it is written; the middle's file is removed
/// whatever happens, also when the writer is dropped unended.
struct StagedInParts<'s> {
    staging: &'s Staging,
    name: String,
    /// The middle's file, made at its first bytes, with its target.
    middle: Option<(Aside, PathBuf)>,
}

/// A file set aside, removed when dropped.
struct Aside {
    path: PathBuf,
    file: File,
}

impl Drop for Aside {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// How much of a middle is read back at a time.
const READ_BACK: usize = 256 * 1024;

impl meshc::emit::PartsFile for StagedInParts<'_> {
    fn middle(&mut self, bytes: &[u8]) {
        if self.staging.failed() {
            // Nothing more is written after a failure (the commit reports it).
            self.middle = None;
            return;
        }
        if self.middle.is_none() {
            let Some((folder, target)) = self.staging.ready(&self.name) else {
                return;
            };
            let base = target.file_name().unwrap_or_default().to_string_lossy();
            match meshc::fsio::create_aside_private(&folder, &base, "part", true) {
                Ok((path, file)) => self.middle = Some((Aside { path, file }, target)),
                Err(e) => return self.staging.fail(cannot_write(&target, &e)),
            }
        }
        if let Some((aside, target)) = &mut self.middle
            && let Err(e) = aside.file.write_all(bytes)
        {
            self.staging.fail(cannot_write(target, &e));
            self.middle = None;
        }
    }

    fn end(self: Box<Self>, head: &[u8], tail: &[u8]) {
        let StagedInParts {
            staging,
            name,
            middle,
        } = *self;
        let Some((mut middle, target)) = middle else {
            // No middle (a node without instances), or a failure already kept.
            if !staging.failed() {
                staging.stage_parts(&name, &[head, tail]);
            }
            return;
        };
        if staging.failed() {
            return;
        }
        let folder = target.parent().unwrap_or(&staging.dir).to_path_buf();
        let base = target.file_name().unwrap_or_default().to_string_lossy();
        let mut hasher = Sha256::new();
        let written = aside_file(&folder, &base, staging.private).and_then(|(path, mut file)| {
            let mut put = |bytes: &[u8]| {
                hasher.update(bytes);
                file.write_all(bytes)
            };
            let copied = (|| {
                put(head)?;
                middle.file.seek(std::io::SeekFrom::Start(0))?;
                let mut buffer = vec![0; READ_BACK];
                loop {
                    match middle.file.read(&mut buffer) {
                        Ok(0) => break,
                        Ok(n) => put(&buffer[..n])?,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                put(tail)
            })();
            match copied {
                Ok(()) => Ok(path),
                Err(e) => {
                    let _ = fs::remove_file(&path);
                    Err(e)
                }
            }
        });
        drop(middle);
        staging.staged(&name, target, written, super::owned::hex(hasher));
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        undo(&mut self.take());
    }
}

/// Removes what `state` staged and the folders it made (only if empty, innermost first).
fn undo(state: &mut State) {
    // Nothing is removed under the syncer's feet.
    if let Some(syncer) = state.syncer.take() {
        syncer.finish();
    }
    for s in &state.staged {
        let _ = fs::remove_file(&s.aside);
    }
    for folder in state.created.iter().rev() {
        let _ = fs::remove_dir(folder);
    }
}

/// The sentence saying `target` could not be written.
fn cannot_write(target: &Path, e: &std::io::Error) -> String {
    format!(
        "cannot write `{}`: {}",
        target.display(),
        super::workspace::plain(e)
    )
}

/// The sentence refusing `name` if it or its folder is a link.
fn refuse_links_at(dir: &Path, target: &Path) -> Result<(), String> {
    refuse_link(target)?;
    if let Some(folder) = target.parent().filter(|f| *f != dir) {
        refuse_link(folder)?;
    }
    Ok(())
}

fn commit_staged(
    dir: &Path,
    state: &mut State,
    build: Option<&Build<'_>>,
) -> Result<Vec<String>, String> {
    // Every staged file is on disk before anything is renamed.
    let unflushed = state.syncer.take().map(Syncer::finish).unwrap_or_default();
    if let Some(e) = state.failed.take() {
        return Err(e);
    }
    if let Some((aside, e)) = unflushed.first() {
        let target = state
            .staged
            .iter()
            .find(|s| s.aside == *aside)
            .map_or(aside, |s| &s.target);
        return Err(format!(
            "cannot write `{}`: {}",
            target.display(),
            super::workspace::plain(e)
        ));
    }
    Staging::prepare(dir, state)?;
    // The directory itself is locked (no lock file is left beside the manifests).
    let lock = File::open(dir).map_err(|e| {
        format!(
            "cannot write into `{}`: {}",
            dir.display(),
            super::workspace::plain(&e)
        )
    })?;
    lock.lock().map_err(|e| {
        format!(
            "cannot lock `{}`: {}",
            dir.display(),
            super::workspace::plain(&e)
        )
    })?;
    // The lock file earlier versions left behind, if it is there and empty.
    let old_lock = dir.join(".meshc-build.lock");
    if fs::metadata(&old_lock).is_ok_and(|m| m.is_file() && m.len() == 0) {
        let _ = fs::remove_file(&old_lock);
    }
    // A build also writes its index, and learns from the old one what it may remove.
    // Its files were staged in the order their threads finished: they are renamed in
    // the mesh's node order, the manifests first, then each node's target files.
    let mut plan = None;
    if let Some(build) = build {
        let place = |name: &str| {
            let node = match name.split_once('/') {
                Some((node, _)) => node,
                None => name.strip_suffix(".json").unwrap_or(name),
            };
            let at = build.nodes.iter().position(|n| n == node);
            (
                !name.ends_with(".json"),
                at.unwrap_or(usize::MAX),
                name.to_string(),
            )
        };
        state.staged.sort_by_cached_key(|s| place(&s.name));
        let index_path = dir.join(super::owned::INDEX);
        refuse_link(&index_path)?;
        let files: Vec<(&str, &str)> = state
            .staged
            .iter()
            .map(|s| (s.name.as_str(), s.sha256.as_str()))
            .collect();
        let (stale, bytes, notes) = super::owned::plan(dir, build.mesh, build.nodes, &files);
        let aside = write_aside(dir, super::owned::INDEX, &bytes, true).map_err(|e| {
            format!(
                "cannot write `{}`: {}",
                index_path.display(),
                super::workspace::plain(&e)
            )
        })?;
        state.staged.push(Staged {
            name: super::owned::INDEX.to_string(),
            aside,
            target: index_path,
            sha256: String::new(),
        });
        plan = Some((stale, notes));
    }
    for s in &state.staged {
        refuse_links_at(dir, &s.target)?;
    }
    // Each file the build replaces is kept aside (a hard link, no copy) until every rename
    // succeeded, so a failure halfway puts the previous files back: all or nothing.
    let mut done: Vec<(&PathBuf, Option<PathBuf>)> = Vec::new();
    for s in &state.staged {
        let target = &s.target;
        let stem = target.file_name().unwrap_or_default().to_string_lossy();
        let previous = meshc::fsio::aside_name(target.parent().unwrap_or(dir), &stem, "old");
        let kept = fs::hard_link(target, &previous).is_ok().then_some(previous);
        if let Err(e) = fs::rename(&s.aside, target) {
            if let Some(p) = &kept {
                let _ = fs::remove_file(p);
            }
            for (target, previous) in done.iter().rev() {
                match previous {
                    Some(p) => {
                        let _ = fs::rename(p, target);
                    }
                    None => {
                        let _ = fs::remove_file(target);
                    }
                }
            }
            return Err(format!(
                "cannot write `{}`: {}",
                target.display(),
                super::workspace::plain(&e)
            ));
        }
        done.push((target, kept));
    }
    for (_, previous) in &done {
        if let Some(p) = previous {
            let _ = fs::remove_file(p);
        }
    }
    // Everything is in place: nothing is left to undo.
    state.staged.clear();
    state.created.clear();
    let mut said = Vec::new();
    if let Some((stale, notes)) = plan {
        said = notes;
        said.extend(super::owned::remove(dir, &stale));
    }
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    drop(lock);
    Ok(said)
}

/// Writes `bytes` into a new aside file for `name` in `dir`, flushed to disk when `sync`
/// (else by a [`Syncer`]); returns its path. The file is removed again when writing
/// fails.
fn write_aside(dir: &Path, name: &str, bytes: &[u8], sync: bool) -> std::io::Result<PathBuf> {
    write_aside_parts(dir, name, &[bytes], sync, false)
}

/// A new file aside for `name` in `dir` ([`meshc::fsio::create_aside`]), 0600 from its
/// creation when `private`.
fn aside_file(dir: &Path, name: &str, private: bool) -> std::io::Result<(PathBuf, fs::File)> {
    match private {
        true => meshc::fsio::create_aside_private(dir, name, "tmp", false),
        false => meshc::fsio::create_aside(dir, name, "tmp"),
    }
}

/// [`write_aside`] of the file whose bytes are `parts`, in order; with `private`, the
/// file is 0600 from its creation ([`meshc::fsio::create_aside_private`]).
fn write_aside_parts(
    dir: &Path,
    name: &str,
    parts: &[&[u8]],
    sync: bool,
    private: bool,
) -> std::io::Result<PathBuf> {
    let (path, mut f) = aside_file(dir, name, private)?;
    let result = parts
        .iter()
        .try_for_each(|part| f.write_all(part))
        .and_then(|_| if sync { f.sync_all() } else { Ok(()) });
    match result {
        Ok(()) => Ok(path),
        Err(e) => {
            let _ = fs::remove_file(&path);
            Err(e)
        }
    }
}

/// Replaces one file atomically (for `meshc fmt` and the lock file). A path that is a
/// link is refused: the link would be replaced by a file, or, written through, lead the
/// write out of the directory it is in.
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    refuse_link(path)?;
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let failed = |e: std::io::Error| {
        format!(
            "cannot write `{}`: {}",
            path.display(),
            super::workspace::plain(&e)
        )
    };
    let aside = write_aside(dir, &name, bytes, true).map_err(failed)?;
    let result = (|| {
        if let Ok(meta) = fs::symlink_metadata(path) {
            fs::set_permissions(&aside, meta.permissions())?;
        }
        fs::rename(&aside, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&aside);
        failed(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(tag: &str, names: &[&str]) -> Vec<(String, Vec<u8>)> {
        names
            .iter()
            .map(|n| (n.to_string(), format!("{tag}:{n}").into_bytes()))
            .collect()
    }

    fn read(dir: &Path, name: &str) -> String {
        fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    /// Only the files a build means to leave: no staged or kept-aside file remains.
    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[cfg(unix)]
    #[test]
    fn links_in_the_output_are_refused_and_nothing_is_written_outside() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "untouched").unwrap();
        // A manifest's name is a link to a file elsewhere.
        let dir = tempfile::tempdir().unwrap();
        symlink(&victim, dir.path().join("a.json")).unwrap();
        let err = write_all(dir.path(), &files("new", &["a.json", "b.json"])).unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(read(outside.path(), "victim"), "untouched");
        assert!(!dir.path().join("b.json").exists(), "all or nothing");
        // A link where earlier versions kept a lock file (dangling: opening it would
        // create the victim) is never opened.
        let dir = tempfile::tempdir().unwrap();
        let created = outside.path().join("created");
        symlink(&created, dir.path().join(".meshc-build.lock")).unwrap();
        let _ = write_all(dir.path(), &files("new", &["a.json"]));
        assert!(!created.exists());
        // `--out` itself is a link.
        let link = dir.path().join("out");
        symlink(outside.path(), &link).unwrap();
        assert!(write_all(&link, &files("new", &["victim"])).is_err());
        assert_eq!(read(outside.path(), "victim"), "untouched");
        // The old predictable aside names are planted: they are never used.
        let dir = tempfile::tempdir().unwrap();
        for n in ["a.json", "lock"] {
            let aside = format!(".{n}.tmp-{}", std::process::id());
            symlink(&victim, dir.path().join(aside)).unwrap();
        }
        write_all(dir.path(), &files("new", &["a.json"])).unwrap();
        replace_file(&dir.path().join("lock"), b"lock").unwrap();
        assert_eq!(read(dir.path(), "a.json"), "new:a.json");
        assert_eq!(read(dir.path(), "lock"), "lock");
        assert_eq!(read(outside.path(), "victim"), "untouched");
        // `meshc fmt` and the lock never replace a link.
        symlink(&victim, dir.path().join("f.mesh")).unwrap();
        let err = replace_file(&dir.path().join("f.mesh"), b"x").unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(read(outside.path(), "victim"), "untouched");
        assert!(
            fs::symlink_metadata(dir.path().join("f.mesh"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[test]
    fn racing_writers_leave_one_whole_set() {
        let names: Vec<String> = (0..10).map(|i| format!("node-{i}.json")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for _ in 0..8 {
            let dir = tempfile::tempdir().unwrap();
            std::thread::scope(|s| {
                for tag in ["first", "second", "third"] {
                    let (dir, names) = (dir.path(), &names);
                    s.spawn(move || write_all(dir, &files(tag, names)).unwrap());
                }
            });
            let tag = read(dir.path(), names[0]);
            let tag = tag.split(':').next().unwrap();
            for n in &names {
                assert_eq!(read(dir.path(), n), format!("{tag}:{n}"), "a mix of builds");
            }
            assert_eq!(
                listing(dir.path()).len(),
                names.len(),
                "{:?}",
                listing(dir.path())
            );
        }
    }

    #[test]
    fn a_build_leaves_only_its_files_and_removes_an_old_empty_lock_file() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join(".meshc-build.lock"), "").unwrap();
        write_all(dir.path(), &files("new", &["a.json"])).unwrap();
        assert_eq!(listing(dir.path()), ["a.json"]);
    }

    #[test]
    fn an_output_under_a_file_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("plain"), "x").unwrap();
        let out = dir.path().join("plain/manifests");
        let err = write_all(&out, &files("new", &["a.json"])).unwrap_err();
        assert!(err.starts_with("cannot create"), "{err}");
        assert_eq!(read(dir.path(), "plain"), "x");
    }

    #[test]
    fn a_rename_that_fails_halfway_puts_the_previous_files_back() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("old", &["a.json", "b.json"])).unwrap();
        // `c.json` cannot be replaced (a directory is in the way): `a.json` and `b.json`
        // were renamed into place before it failed, and must be put back.
        fs::create_dir(dir.path().join("c.json")).unwrap();
        fs::write(dir.path().join("c.json/inside"), "x").unwrap();
        let err = write_all(dir.path(), &files("new", &["a.json", "b.json", "c.json"]));
        assert!(err.is_err());
        assert_eq!(read(dir.path(), "a.json"), "old:a.json");
        assert_eq!(read(dir.path(), "b.json"), "old:b.json");
        assert_eq!(listing(dir.path()), ["a.json", "b.json", "c.json"]);
        // A file that did not exist before is removed again.
        fs::remove_dir_all(dir.path().join("c.json")).unwrap();
        fs::create_dir(dir.path().join("d.json")).unwrap();
        let err = write_all(dir.path(), &files("new", &["c.json", "d.json"]));
        assert!(err.is_err());
        assert_eq!(listing(dir.path()), ["a.json", "b.json", "d.json"]);
    }

    /// Pages written without a flush each are still replaced all or nothing.
    #[test]
    fn unflushed_pages_are_replaced_all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        write_all_unflushed(dir.path(), &files("old", &["a.html", "b/c.md"])).unwrap();
        assert_eq!(read(dir.path(), "b/c.md"), "old:b/c.md");
        fs::create_dir(dir.path().join("d.html")).unwrap();
        fs::write(dir.path().join("d.html/inside"), "x").unwrap();
        let err = write_all_unflushed(dir.path(), &files("new", &["a.html", "d.html"]));
        assert!(err.is_err());
        assert_eq!(read(dir.path(), "a.html"), "old:a.html");
        write_all_unflushed(dir.path(), &files("new", &["a.html", "b/c.md"])).unwrap();
        assert_eq!(read(dir.path(), "a.html"), "new:a.html");
        assert_eq!(read(dir.path(), "b/c.md"), "new:b/c.md");
        assert_eq!(listing(dir.path()), ["a.html", "b", "d.html"]);
    }

    #[test]
    fn files_in_folders_are_written_and_staged_beside_their_target() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("new", &["a.json", "a/compose.yaml"])).unwrap();
        assert_eq!(read(dir.path(), "a/compose.yaml"), "new:a/compose.yaml");
        assert_eq!(listing(dir.path()), ["a", "a.json"]);
        assert_eq!(listing(&dir.path().join("a")), ["compose.yaml"]);
    }

    #[test]
    fn staged_files_appear_only_when_committed_and_go_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("old", &["a.json"])).unwrap();
        // Staged from several threads, in any order: nothing shows until the commit.
        let staging = Staging::new(dir.path());
        std::thread::scope(|s| {
            for name in ["b.json", "a.json", "b/compose.yaml"] {
                let staging = &staging;
                s.spawn(move || staging.stage(name, format!("new:{name}").as_bytes()));
            }
        });
        assert_eq!(read(dir.path(), "a.json"), "old:a.json");
        assert!(!dir.path().join("b.json").exists());
        let nodes = ["a".to_string(), "b".to_string()];
        let build = Build {
            mesh: "m",
            nodes: &nodes,
        };
        write_build(staging, &build).unwrap();
        assert_eq!(read(dir.path(), "a.json"), "new:a.json");
        assert_eq!(read(dir.path(), "b/compose.yaml"), "new:b/compose.yaml");
        assert_eq!(
            listing(dir.path()),
            [super::super::owned::INDEX, "a.json", "b", "b.json"]
        );
        let index = read(dir.path(), super::super::owned::INDEX);
        assert!(
            index.contains(&super::super::owned::digest(b"new:b/compose.yaml")),
            "{index}"
        );
        // A staging dropped uncommitted (a build that writes nothing) leaves no trace: not
        // its files, nor the folders it made.
        let staging = Staging::new(dir.path());
        staging.stage("a.json", b"dropped");
        staging.stage("c/compose.yaml", b"dropped");
        let out = dir.path().join("new/out");
        let elsewhere = Staging::new(&out);
        elsewhere.stage("a.json", b"dropped");
        assert!(out.join("a.json").parent().unwrap().is_dir());
        drop((staging, elsewhere));
        assert_eq!(read(dir.path(), "a.json"), "new:a.json");
        assert_eq!(
            listing(dir.path()),
            [super::super::owned::INDEX, "a.json", "b", "b.json"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_failure_while_staging_is_reported_at_the_commit_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("old", &["a.json"])).unwrap();
        std::os::unix::fs::symlink("/nowhere", dir.path().join("b")).unwrap();
        let staging = Staging::new(dir.path());
        staging.stage("a.json", b"new");
        staging.stage("b/compose.yaml", b"new");
        // Staged after the failure: dropped, never written.
        staging.stage("c.json", b"new");
        let err = staging.commit(None).unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(read(dir.path(), "a.json"), "old:a.json");
        assert_eq!(listing(dir.path()), ["a.json", "b"]);
    }

    /// A manifest written instance by instance: its middle goes to a file set aside as
    /// it comes, and the file staged at its end is its head, middle and tail, hashed as
    /// such in the index; no middle's file is left.
    #[test]
    fn a_file_staged_middle_first_is_its_head_middle_and_tail() {
        use meshc::target::FileSink;
        let dir = tempfile::tempdir().unwrap();
        let staging = Staging::new(dir.path());
        let mut file = staging.put_parts("a.json");
        // More than one read back's worth, in parts of uneven length.
        let middle: Vec<Vec<u8>> = (0..7u8)
            .map(|k| vec![b'a' + k; 60_000 + 1_000 * usize::from(k)])
            .collect();
        for part in &middle {
            file.middle(part);
        }
        let waiting = listing(dir.path());
        assert!(
            waiting.len() == 1 && waiting[0].starts_with(".a.json.part-"),
            "the middle waits aside: {waiting:?}"
        );
        file.end(b"{head}", b"{tail}");
        // A file without a middle (a node without instances), in a folder.
        staging.put_parts("b/b.json").end(b"{b-head}", b"{b-tail}");
        let nodes = ["a".to_string(), "b".to_string()];
        let build = Build {
            mesh: "m",
            nodes: &nodes,
        };
        write_build(staging, &build).unwrap();
        let want = [b"{head}".to_vec(), middle.concat(), b"{tail}".to_vec()].concat();
        assert_eq!(fs::read(dir.path().join("a.json")).unwrap(), want);
        assert_eq!(read(dir.path(), "b/b.json"), "{b-head}{b-tail}");
        assert_eq!(
            listing(dir.path()),
            [super::super::owned::INDEX, "a.json", "b"]
        );
        assert_eq!(listing(&dir.path().join("b")), ["b.json"]);
        let index = read(dir.path(), super::super::owned::INDEX);
        assert!(
            index.contains(&super::super::owned::digest(&want)),
            "{index}"
        );
    }

    /// A file staged middle first leaves nothing when it is dropped unended, when
    /// another file fails while its middle is written, or when its own folder is refused.
    #[cfg(unix)]
    #[test]
    fn a_file_staged_middle_first_leaves_nothing_when_it_fails_or_is_dropped() {
        use meshc::target::FileSink;
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("old", &["a.json"])).unwrap();
        // Dropped before its end (a build that stops): its middle's file goes.
        let staging = Staging::new(dir.path());
        let mut file = staging.put_parts("a.json");
        file.middle(b"instances");
        assert_eq!(listing(dir.path()).len(), 2);
        drop(file);
        assert_eq!(listing(dir.path()), ["a.json"]);
        drop(staging);
        // Another file fails while the middle is written: the middle's file goes, the
        // file is never staged, and the commit says why.
        std::os::unix::fs::symlink("/nowhere", dir.path().join("b")).unwrap();
        let staging = Staging::new(dir.path());
        let mut file = staging.put_parts("a.json");
        file.middle(b"instances");
        staging.stage("b/compose.yaml", b"new");
        file.middle(b"more instances");
        assert_eq!(listing(dir.path()), ["a.json", "b"]);
        file.end(b"{head}", b"{tail}");
        assert_eq!(listing(dir.path()), ["a.json", "b"]);
        let err = staging.commit(None).unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(read(dir.path(), "a.json"), "old:a.json");
        // The file's own folder is a link: refused at the first part, nothing written.
        let staging = Staging::new(dir.path());
        let mut file = staging.put_parts("b/b.json");
        file.middle(b"instances");
        file.end(b"{head}", b"{tail}");
        let err = staging.commit(None).unwrap_err();
        assert!(err.contains("is a symbolic link"), "{err}");
        assert_eq!(listing(dir.path()), ["a.json", "b"]);
        assert_eq!(read(dir.path(), "a.json"), "old:a.json");
    }

    /// The mode of every file of `dir` whose name starts with `.` (the files set aside).
    #[cfg(unix)]
    fn aside_modes(dir: &Path) -> Vec<u32> {
        use std::os::unix::fs::PermissionsExt;
        listing(dir)
            .iter()
            .filter(|n| n.starts_with('.'))
            .map(|n| fs::metadata(dir.join(n)).unwrap().permissions().mode() & 0o777)
            .collect()
    }

    /// A manifest's instances set aside (`.<node>.json.part-…`) are 0600 from the moment
    /// the file exists, whatever the process's umask; so is every file of a private
    /// staging (a take's plan) while it waits aside. A plain staging's files keep the
    /// default mode: a manifest is not private.
    #[cfg(unix)]
    #[test]
    fn files_set_aside_are_private_from_their_creation_where_asked() {
        use meshc::target::FileSink;
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let staging = Staging::new(dir.path());
        let mut file = staging.put_parts("a.json");
        file.middle(b"instances");
        assert_eq!(aside_modes(dir.path()), [0o600], "the middle's file");
        file.end(b"{head}", b"{tail}");
        staging.stage("b.json", b"b");
        // The mode any new file gets under this process's umask.
        let default = {
            let probe = dir.path().join("probe");
            fs::File::create(&probe).unwrap();
            let mode = fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
            fs::remove_file(&probe).unwrap();
            mode
        };
        assert_eq!(
            aside_modes(dir.path()),
            [default, default],
            "no middle's file left"
        );
        staging.commit(None).unwrap();
        let private = Staging::new_private(dir.path());
        private.stage("plan.json", b"plan");
        assert_eq!(aside_modes(dir.path()), [0o600], "a private staging's file");
        private.restrict().unwrap();
        private.commit(None).unwrap();
        let mode = |n: &str| {
            fs::metadata(dir.path().join(n))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("plan.json"), 0o600);
        assert_eq!(mode("a.json"), default);
    }

    #[test]
    fn a_file_that_cannot_be_staged_leaves_everything_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("old", &["a.json"])).unwrap();
        // A name longer than the file system allows fails while staging, before any rename.
        let long = format!("{}.json", "n".repeat(300));
        let err = write_all(dir.path(), &files("new", &["a.json", &long]));
        assert!(err.is_err());
        assert_eq!(read(dir.path(), "a.json"), "old:a.json");
        assert_eq!(listing(dir.path()), ["a.json"]);
    }
}
