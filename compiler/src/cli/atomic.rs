//! Writing files atomically: every file is written aside, then renamed into place, so a
//! reader sees the old file or the new one, never half of either. A build writes all its
//! files aside first and renames them only when every write succeeded, under an exclusive
//! lock on the output directory, so two racing builds never leave a mix.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `files` (name → bytes) into `dir`, all or nothing.
pub fn write_all(dir: &Path, files: &[(String, Vec<u8>)]) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| {
        format!(
            "cannot create `{}`: {}",
            dir.display(),
            super::workspace::plain(&e)
        )
    })?;
    let lock_path = dir.join(".meshc-build.lock");
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| {
            format!(
                "cannot write into `{}`: {}",
                dir.display(),
                super::workspace::plain(&e)
            )
        })?;
    lock.lock().map_err(|e| {
        format!(
            "cannot lock `{}`: {}",
            lock_path.display(),
            super::workspace::plain(&e)
        )
    })?;
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (name, bytes) in files {
        let target = dir.join(name);
        let aside = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        if let Err(e) = write_aside(&aside, bytes) {
            let _ = fs::remove_file(&aside);
            for (a, _) in &staged {
                let _ = fs::remove_file(a);
            }
            return Err(format!(
                "cannot write `{}`: {}",
                target.display(),
                super::workspace::plain(&e)
            ));
        }
        staged.push((aside, target));
    }
    for (aside, target) in &staged {
        if let Err(e) = fs::rename(aside, target) {
            for (a, _) in &staged {
                let _ = fs::remove_file(a);
            }
            return Err(format!(
                "cannot write `{}`: {}",
                target.display(),
                super::workspace::plain(&e)
            ));
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
