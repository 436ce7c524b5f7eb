//! Writing files atomically: every file is written aside, then renamed into place, so a
//! reader sees the old file or the new one, never half of either. A build writes all its
//! files aside first and renames them only when every write succeeded, under an exclusive
//! lock on the output directory, so two racing builds never leave a mix.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `files` (name → bytes) into `dir`, all or nothing. A name may be a relative path
/// into a folder of `dir` (`alpha/compose.yaml`); the folder is created.
pub fn write_all(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
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
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    let discard = |staged: &[(PathBuf, PathBuf)]| {
        for (a, _) in staged {
            let _ = fs::remove_file(a);
        }
    };
    for (name, bytes) in files {
        // A name may hold one folder (`alpha/compose.yaml`): the file is staged beside its
        // target, in that folder, so the rename stays on one file system.
        let target = dir.join(name);
        let folder = target.parent().unwrap_or(dir);
        let base = target.file_name().unwrap_or_default().to_string_lossy();
        let aside = folder.join(format!(".{base}.tmp-{}", std::process::id()));
        if let Err(e) = fs::create_dir_all(folder).and_then(|_| write_aside(&aside, bytes)) {
            let _ = fs::remove_file(&aside);
            discard(&staged);
            return Err(format!(
                "cannot write `{}`: {}",
                target.display(),
                super::workspace::plain(&e)
            ));
        }
        staged.push((aside, target));
    }
    // Each file the build replaces is kept aside (a hard link, no copy) until every rename
    // succeeded, so a failure halfway puts the previous files back: all or nothing.
    let mut done: Vec<(&PathBuf, Option<PathBuf>)> = Vec::new();
    for (aside, target) in &staged {
        let previous = target.with_file_name(format!(
            ".{}.old-{}",
            target.file_name().unwrap_or_default().to_string_lossy(),
            std::process::id()
        ));
        let _ = fs::remove_file(&previous);
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
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    drop(lock);
    Ok(())
}

/// Writes one file aside and flushes it to disk.
fn write_aside(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Replaces one file atomically (for `meshc fmt` and the lock file).
pub fn replace_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let aside = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = write_aside(&aside, bytes).and_then(|_| {
        if let Ok(meta) = fs::metadata(path) {
            let _ = fs::set_permissions(&aside, meta.permissions());
        }
        fs::rename(&aside, path)
    });
    result.map_err(|e| {
        let _ = fs::remove_file(&aside);
        format!(
            "cannot write `{}`: {}",
            path.display(),
            super::workspace::plain(&e)
        )
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
