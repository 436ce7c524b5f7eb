//! Writing files atomically: every file is written aside, then renamed into place, so a
//! reader sees the old file or the new one, never half of either. A build writes all its
//! files aside first and renames them only when every write succeeded, under an exclusive
//! lock on the output directory, so two racing builds never leave a mix.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

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
    write_locked(dir, files, None).map(|_| ())
}

/// What a build owns in its output directory: the mesh built and, per node, the files
/// written for it (`alpha.json`, `alpha/compose.yaml`).
pub struct Build<'a> {
    pub mesh: &'a str,
    pub nodes: &'a [String],
}

/// Writes a build's `files` as [`write_all`] does, and records them in the directory's
/// index ([`super::owned::INDEX`]), written in the same all-or-nothing step. The files
/// an earlier build of this mesh wrote for nodes no longer in it are removed afterwards,
/// each only if it is still the regular file meshc wrote (same bytes, no link). Returns
/// the sentences saying what was removed or kept.
pub fn write_build(
    dir: &Path,
    build: &Build<'_>,
    files: &[(String, Vec<u8>)],
) -> Result<Vec<String>, String> {
    write_locked(dir, files, Some(build))
}

fn write_locked(
    dir: &Path,
    files: &[(String, Vec<u8>)],
    build: Option<&Build<'_>>,
) -> Result<Vec<String>, String> {
    refuse_link(dir)?;
    fs::create_dir_all(dir).map_err(|e| {
        format!(
            "cannot create `{}`: {}",
            dir.display(),
            super::workspace::plain(&e)
        )
    })?;
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
    // The files are borrowed, not copied: a large mesh's manifests are tens of megabytes.
    let mut files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(name, bytes)| (name.as_str(), bytes.as_slice()))
        .collect();
    let index;
    let mut plan = None;
    if let Some(build) = build {
        refuse_link(&dir.join(super::owned::INDEX))?;
        let (stale, bytes, notes) = super::owned::plan(dir, build.mesh, build.nodes, &files);
        index = bytes;
        files.push((super::owned::INDEX, &index));
        plan = Some((stale, notes));
    }
    for &(name, _) in &files {
        let target = dir.join(name);
        refuse_link(&target)?;
        if let Some(folder) = target.parent().filter(|f| *f != dir) {
            refuse_link(folder)?;
        }
    }
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let discard = |staged: &[(PathBuf, PathBuf)]| {
        for (a, _) in staged {
            let _ = fs::remove_file(a);
        }
    };
    for &(name, bytes) in &files {
        // A name may hold one folder (`alpha/compose.yaml`): the file is staged beside its
        // target, in that folder, so the rename stays on one file system.
        let target = dir.join(name);
        let folder = target.parent().unwrap_or(dir);
        let base = target.file_name().unwrap_or_default().to_string_lossy();
        let written = fs::create_dir_all(folder)
            .map_err(|e| {
                format!(
                    "cannot write `{}`: {}",
                    target.display(),
                    super::workspace::plain(&e)
                )
            })
            .and_then(|_| refuse_link(folder))
            .and_then(|_| refuse_link(&target))
            .and_then(|_| {
                write_aside(folder, &base, bytes).map_err(|e| {
                    format!(
                        "cannot write `{}`: {}",
                        target.display(),
                        super::workspace::plain(&e)
                    )
                })
            });
        match written {
            Ok(aside) => staged.push((aside, target)),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    // Each file the build replaces is kept aside (a hard link, no copy) until every rename
    // succeeded, so a failure halfway puts the previous files back: all or nothing.
    let mut done: Vec<(&PathBuf, Option<PathBuf>)> = Vec::new();
    for (aside, target) in &staged {
        let stem = target.file_name().unwrap_or_default().to_string_lossy();
        let previous = meshc::fsio::aside_name(target.parent().unwrap_or(dir), &stem, "old");
        let kept = fs::hard_link(target, &previous).is_ok().then_some(previous);
        if let Err(e) = fs::rename(aside, target) {
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
            discard(&staged);
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

/// Writes `bytes` into a new aside file for `name` in `dir` and flushes it to disk;
/// returns its path. The file is removed again when writing fails.
fn write_aside(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
    let (path, mut f) = meshc::fsio::create_aside(dir, name, "tmp")?;
    let result = f.write_all(bytes).and_then(|_| f.sync_all());
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
    let aside = write_aside(dir, &name, bytes).map_err(failed)?;
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

    #[test]
    fn files_in_folders_are_written_and_staged_beside_their_target() {
        let dir = tempfile::tempdir().unwrap();
        write_all(dir.path(), &files("new", &["a.json", "a/compose.yaml"])).unwrap();
        assert_eq!(read(dir.path(), "a/compose.yaml"), "new:a/compose.yaml");
        assert_eq!(listing(dir.path()), ["a", "a.json"]);
        assert_eq!(listing(&dir.path().join("a")), ["compose.yaml"]);
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
