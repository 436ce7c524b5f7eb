//! Reading the files a Compose file names (LANGUAGE.md §14.6). The Compose file is
//! someone else's: `env_file: /proc/self/environ`, an `extends` file `../../home/me/.env`
//! or a `.env` that is a link to either would copy the importing user's environment or
//! files into the module, the manifest and the compose file. So a file is read only when
//! the path, its links resolved, is a regular file beside or under the Compose file's
//! folder; anything else is refused by name, and nothing is opened before its type is
//! known (a named pipe would wait for a writer, a device never ends). Reads go through
//! [`crate::fsio::read_regular`], bounded.

use std::path::Path;

/// The largest Compose, `.env`, `env_file` or `extends` file read.
pub const MAX_BYTES: u64 = 4 * 1024 * 1024;

/// Why a file was not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    /// The file does not exist (an `env_file` with `required: false` is then skipped);
    /// every other failure is a refusal.
    pub missing: bool,
    /// A sentence without the file's own name (the caller names it).
    pub reason: String,
}

impl Unread {
    fn refused(reason: String) -> Unread {
        Unread {
            missing: false,
            reason,
        }
    }
}

/// The text of the regular file at `path` (absolute, or relative to `dir`), when it
/// lies, links resolved, in `dir` or under it; `dir` is the Compose file's folder.
pub fn read_beside(dir: &Path, path: &Path) -> Result<String, Unread> {
    let folder = std::fs::canonicalize(dir).map_err(|e| {
        Unread::refused(format!(
            "the Compose file's folder `{}` cannot be read: {}",
            dir.display(),
            e.kind()
        ))
    })?;
    let joined = folder.join(path);
    let target = match std::fs::canonicalize(&joined) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Unread {
                missing: true,
                reason: "no such file".into(),
            });
        }
        Err(e) => return Err(Unread::refused(format!("cannot be read: {}", e.kind()))),
    };
    if !target.starts_with(&folder) {
        return Err(Unread::refused(outside(&folder, &joined, &target)));
    }
    let bytes = crate::fsio::read_regular(&target, MAX_BYTES).map_err(|f| Unread {
        missing: matches!(f, crate::fsio::ReadFailure::NotFound),
        reason: match f {
            crate::fsio::ReadFailure::NotRegular(what) => {
                format!("it is {what}, not a regular file; only regular files are read")
            }
            crate::fsio::ReadFailure::TooLarge { limit } => {
                format!("it is over {} MiB; larger files are refused", limit >> 20)
            }
            crate::fsio::ReadFailure::NotFound => "no such file".into(),
            crate::fsio::ReadFailure::Io(e) => format!("cannot be read: {}", e.kind()),
        },
    })?;
    String::from_utf8(bytes).map_err(|_| Unread::refused("it is not valid UTF-8".into()))
}

/// The refusal of a file outside the folder, saying where a link led.
fn outside(folder: &Path, asked: &Path, target: &Path) -> String {
    let led = if asked == target {
        String::new()
    } else {
        format!(" (it leads to `{}`)", target.display())
    };
    format!(
        "it is outside the Compose file's folder `{}`{led}; import reads only regular files beside or under it",
        folder.display()
    )
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_in_the_folder_are_read() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("p");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/app.env"), "A=1\n").unwrap();
        assert_eq!(
            read_beside(&dir, Path::new("sub/app.env")).unwrap(),
            "A=1\n"
        );
        std::fs::write(tmp.path().join("mine.env"), "HOME_SECRET=1\n").unwrap();
        for asked in ["/proc/self/environ", "../mine.env", "/etc/hostname"] {
            let e = read_beside(&dir, Path::new(asked)).unwrap_err();
            assert!(!e.missing && e.reason.contains("outside"), "{asked}: {e:?}");
        }
        std::os::unix::fs::symlink("/proc/self/environ", dir.join("link.env")).unwrap();
        let e = read_beside(&dir, Path::new("link.env")).unwrap_err();
        assert!(e.reason.contains("leads to `/proc/"), "{e:?}");
        std::os::unix::fs::symlink("/dev/zero", dir.join("zero.env")).unwrap();
        assert!(read_beside(&dir, Path::new("zero.env")).is_err());
        let e = read_beside(&dir, Path::new("sub")).unwrap_err();
        assert!(e.reason.contains("a directory"), "{e:?}");
        assert!(
            read_beside(&dir, Path::new("gone.env"))
                .unwrap_err()
                .missing
        );
    }
}
