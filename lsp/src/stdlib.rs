//! Where the standard contracts are shown. They are embedded in the compiler, not on disk,
//! yet go to definition on `postgres` must open something every client can show. The
//! server writes the embedded text once to a read-only file in a cache directory and
//! serves its `file:` URI; the file name carries a hash of the text, so a newer compiler
//! never shows an older library. When no cache directory is writable the URI is
//! `meshc-std:///std.mesh`, which clients that know no such scheme cannot open (hover and
//! references still work).

use meshc::db::STDLIB_TEXT;
use std::path::{Path, PathBuf};
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
    if meshc::fsio::read_regular(&path, STDLIB_TEXT.len() as u64)
        .is_ok_and(|b| b == STDLIB_TEXT.as_bytes())
    {
        return Ok(path);
    }
    std::fs::create_dir_all(&dir)?;
    // Write aside, then rename: two servers starting together never show a half file.
    // The aside name is fresh and created exclusively, never through a planted link.
    let (aside, mut file) = meshc::fsio::create_aside(&dir, "std", "tmp")?;
    if let Err(e) = std::io::Write::write_all(&mut file, STDLIB_TEXT.as_bytes()) {
        let _ = std::fs::remove_file(&aside);
        return Err(e);
    }
    drop(file);
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
