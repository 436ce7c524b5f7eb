//! Reading input files defensively, for the command line and the language server alike.
//!
//! A path may name anything: a link to `/dev/zero`, a named pipe, a file growing while it
//! is read. Only regular files are read, and never more than the limit plus one byte, so
//! neither memory nor time depends on what the path turns out to be.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadFailure {
    /// The path (or what its link leads to) does not exist.
    NotFound,
    /// A directory, a device, a pipe or a socket: only regular files are read.
    NotRegular(&'static str),
    /// More bytes than the limit.
    TooLarge { limit: u64 },
    /// Any other error of the operating system.
    Io(std::io::Error),
}

impl ReadFailure {
    /// The failure as one sentence about `shown`.
    pub fn sentence(&self, shown: &str) -> String {
        match self {
            ReadFailure::NotFound => format!("cannot read `{shown}`: no such file or directory"),
            ReadFailure::NotRegular(what) => {
                format!("`{shown}` is {what}, not a regular file; it is not read")
            }
            ReadFailure::TooLarge { limit } => format!(
                "`{shown}` is over {} MiB; files above {} MiB are refused (split it into several files)",
                limit / (1024 * 1024),
                limit / (1024 * 1024)
            ),
            ReadFailure::Io(e) => format!("cannot read `{shown}`: {}", plain(e)),
        }
    }
}

/// An I/O error as a lowercase phrase without the OS error number.
fn plain(e: &std::io::Error) -> String {
    let s = e.to_string();
    let s = s.find(" (os error").map_or(s.as_str(), |i| &s[..i]);
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// What kind of file `meta` describes, in words.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a regular file"
}

/// The bytes of the regular file at `path` (links followed), at most `limit` of them.
/// The type is asked before opening (opening a named pipe would wait for a writer) and
/// again of the open file; at most `limit + 1` bytes are read whatever the file claims.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, ReadFailure> {
    let failure = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => ReadFailure::NotFound,
        _ => ReadFailure::Io(e),
    };
    let meta = std::fs::metadata(path).map_err(failure)?;
    if !meta.is_file() {
        return Err(ReadFailure::NotRegular(kind(&meta)));
    }
    if meta.len() > limit {
        return Err(ReadFailure::TooLarge { limit });
    }
    let file = std::fs::File::open(path).map_err(failure)?;
    let mut bytes = Vec::new();
    read_open(file, limit, &mut bytes)?;
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `limit` of them, into `bytes` (its
/// contents replaced), for a path a directory listing has just said is a regular file
/// and not a link: it is opened without asking its type first, one path lookup fewer
/// than [`read_regular`], and a caller reading many files passes the same buffer each
/// time. Should the file have been replaced meanwhile, the open does not wait for a
/// writer (a named pipe is opened non-blocking) and the open file's type is asked before
/// anything is read, so the outcome is [`read_regular`]'s.
pub fn read_listed(path: &Path, limit: u64, bytes: &mut Vec<u8>) -> Result<(), ReadFailure> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)
            .map_err(failure)?;
        read_open(file, limit, bytes)
    }
    #[cfg(not(unix))]
    {
        *bytes = read_regular(path, limit)?;
        Ok(())
    }
}

/// An I/O error as a failure to read.
fn failure(e: std::io::Error) -> ReadFailure {
    match e.kind() {
        std::io::ErrorKind::NotFound => ReadFailure::NotFound,
        _ => ReadFailure::Io(e),
    }
}

/// Reads an open file into `bytes`: refused unless it is a regular file of at most
/// `limit` bytes, and never more than `limit + 1` bytes read whatever it claims. The
/// first read asks for one byte more than the size the file's type came with: a file of
/// that size is read whole in one call, without a second call to see the end; a file
/// that grew meanwhile is read on to its end or past the limit.
fn read_open(mut file: File, limit: u64, bytes: &mut Vec<u8>) -> Result<(), ReadFailure> {
    let meta = file.metadata().map_err(failure)?;
    if !meta.is_file() {
        return Err(ReadFailure::NotRegular(kind(&meta)));
    }
    let expected = meta.len().min(limit) as usize;
    bytes.clear();
    bytes.resize(expected + 1, 0);
    let mut got = 0;
    while got < bytes.len() {
        match file.read(&mut bytes[got..]) {
            Ok(0) => break,
            Ok(n) => {
                got += n;
                if got == expected {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failure(e)),
        }
    }
    bytes.truncate(got);
    if got > expected {
        file.take(limit + 1 - got as u64)
            .read_to_end(bytes)
            .map_err(failure)?;
    }
    if bytes.len() as u64 > limit {
        return Err(ReadFailure::TooLarge { limit });
    }
    Ok(())
}

/// 64 bits no other process can guess: std's hasher keys are random per process and
/// per call, mixed with the time and the process id.
fn unguessable() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.finish()
}

/// Creates a new file in `dir` named `.<stem>.<tag>-<random>`, exclusively: `O_EXCL`
/// never follows a link planted at the name, and a name that exists is never reused
/// (another random name is tried). Returns the path and the open file.
pub fn create_aside(dir: &Path, stem: &str, tag: &str) -> std::io::Result<(PathBuf, File)> {
    create_aside_with(dir, stem, tag, OpenOptions::new().write(true))
}

/// [`create_aside`], the file created with mode 0600 (on Unix): only its owner may read
/// it from the moment it exists, not only once it is renamed into place. With
/// `read_back`, the file is open for reading too: a file set aside to be read back.
pub fn create_aside_private(
    dir: &Path,
    stem: &str,
    tag: &str,
    read_back: bool,
) -> std::io::Result<(PathBuf, File)> {
    let mut options = OpenOptions::new();
    options.read(read_back).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    create_aside_with(dir, stem, tag, &options)
}

fn create_aside_with(
    dir: &Path,
    stem: &str,
    tag: &str,
    options: &OpenOptions,
) -> std::io::Result<(PathBuf, File)> {
    let mut last = None;
    for _ in 0..16 {
        let path = dir.join(format!(".{stem}.{tag}-{:016x}", unguessable()));
        match options.clone().create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// A name in `dir` for a hard link to an existing file, chosen as [`create_aside`]
/// chooses (`link` itself refuses a name that exists, link or not).
pub fn aside_name(dir: &Path, stem: &str, tag: &str) -> PathBuf {
    dir.join(format!(".{stem}.{tag}-{:016x}", unguessable()))
}

/// Whether `path` itself is a symbolic link (a missing path is not).
pub fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn devices_and_links_to_them_are_refused_without_reading() {
        let dir = tempfile::tempdir().unwrap();
        for dev in ["/dev/zero", "/dev/urandom"] {
            let link = dir.path().join("x.mesh");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(dev, &link).unwrap();
            let err = read_regular(&link, 1024).unwrap_err();
            assert!(
                matches!(err, ReadFailure::NotRegular("a device")),
                "{err:?}"
            );
            assert!(err.sentence("x.mesh").contains("not a regular file"));
        }
    }

    /// A file the listing called regular but that is now a named pipe with no writer is
    /// refused at once, not waited on; a regular file reads as with `read_regular`, and
    /// the limit holds.
    #[cfg(unix)]
    #[test]
    fn a_listed_file_turned_pipe_is_refused_without_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("a.mesh");
        std::fs::write(&plain, "module a {}\n").unwrap();
        let mut buf = b"what the buffer held before".to_vec();
        read_listed(&plain, 1024, &mut buf).unwrap();
        assert_eq!(buf, b"module a {}\n");
        assert_eq!(buf, read_regular(&plain, 1024).unwrap());
        // Exactly at the limit is read; a byte more is refused.
        read_listed(&plain, 12, &mut buf).unwrap();
        assert_eq!(buf.len(), 12);
        assert!(matches!(
            read_listed(&plain, 11, &mut buf),
            Err(ReadFailure::TooLarge { limit: 11 })
        ));
        let empty = dir.path().join("e.mesh");
        std::fs::write(&empty, "").unwrap();
        read_listed(&empty, 1024, &mut buf).unwrap();
        assert!(buf.is_empty());
        assert!(matches!(
            read_listed(&dir.path().join("gone.mesh"), 1024, &mut buf),
            Err(ReadFailure::NotFound)
        ));
        let pipe = dir.path().join("p.mesh");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped the pipe: mkfifo did not run");
            return;
        }
        let err = read_listed(&pipe, 1024, &mut buf).unwrap_err();
        assert!(
            matches!(err, ReadFailure::NotRegular("a named pipe")),
            "{err:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_aside_file_never_follows_a_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let (a, mut f) = create_aside(dir.path(), "n.json", "tmp").unwrap();
        std::io::Write::write_all(&mut f, b"x").unwrap();
        let (b, _) = create_aside(dir.path(), "n.json", "tmp").unwrap();
        assert_ne!(a, b, "two asides never share a name");
        assert!(
            a.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".n.json.tmp-")
        );
        // Opening exclusively at a name that is a link fails instead of following it.
        let victim = outside.path().join("victim");
        std::os::unix::fs::symlink(&victim, dir.path().join("planted")).unwrap();
        let err = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.path().join("planted"))
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert!(!victim.exists());
        assert!(is_link(&dir.path().join("planted")));
        assert!(!is_link(&a) && !is_link(&dir.path().join("missing")));
    }

    #[test]
    fn at_most_the_limit_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, vec![b'a'; 100]).unwrap();
        assert_eq!(read_regular(&p, 100).unwrap().len(), 100);
        assert!(matches!(
            read_regular(&p, 99),
            Err(ReadFailure::TooLarge { limit: 99 })
        ));
        assert!(matches!(
            read_regular(&dir.path().join("none"), 9),
            Err(ReadFailure::NotFound)
        ));
        assert!(matches!(
            read_regular(dir.path(), 9),
            Err(ReadFailure::NotRegular("a directory"))
        ));
    }
}
