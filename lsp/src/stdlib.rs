//! Where the standard contracts are shown. They are embedded in the compiler, not on disk,
//! yet go to definition on `postgres` must open something every client can show. The
//! server writes the embedded text once to a read-only file in a cache directory and
//! serves its `file:` URI; the file name carries a hash of the text, so a newer compiler
//! never shows an older library. When no cache directory is writable the URI is
//! `meshc-std:///std.mesh`, which clients that know no such scheme cannot open (hover and
//! references still work).

use meshc::db::STDLIB_TEXT;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use tower_lsp_server::ls_types::Uri;

/// The URI used when no cache file could be written.
pub const VIRTUAL_STD_URI: &str = "meshc-std:///std.mesh";

/// The cache directory to use: the one asked for, else `$XDG_CACHE_HOME/meshc-lsp`, else
/// `$HOME/.cache/meshc-lsp`, else the temporary directory.
pub fn default_cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("meshc-lsp");
    }
    if let Some(h) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(h).join(".cache").join("meshc-lsp");
    }
    std::env::temp_dir().join("meshc-lsp")
}

/// Writes the standard library under `dir` (if not already there) and returns its URI.
pub fn std_uri(dir: &Path) -> Uri {
    match write_std(dir) {
        Ok(path) => Uri::from_file_path(&path).unwrap_or_else(virtual_uri),
        Err(_) => virtual_uri(),
    }
}

fn virtual_uri() -> Uri {
    VIRTUAL_STD_URI.parse().expect("a valid URI")
}

fn write_std(dir: &Path) -> std::io::Result<PathBuf> {
    let dir = if dir.is_absolute() {
        dir.to_path_buf()
    } else {
        std::env::current_dir()?.join(dir)
    };
    let path = dir.join(format!("std-{:016x}.mesh", fnv1a(STDLIB_TEXT.as_bytes())));
    if std::fs::read(&path).is_ok_and(|b| b == STDLIB_TEXT.as_bytes()) {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    // Write aside, then rename: two servers starting together never show a half file.
    static WRITES: AtomicUsize = AtomicUsize::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let aside = dir.join(format!(".std-{}-{n}.tmp", std::process::id()));
    std::fs::write(&aside, STDLIB_TEXT)?;
    let mut perms = std::fs::metadata(&aside)?.permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&aside, perms)?;
    std::fs::rename(&aside, &path)?;
    Ok(path)
}

/// A stable 64-bit hash (FNV-1a): the same text gives the same file name on every run.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}
