//! A workspace's root: the nearest `mesh.toml` at or above the current directory, naming
//! the folders a command reads when it is given no path, and what to leave out of them.
//!
//! ```toml
//! [workspace]
//! sources = ["catalogue"]      # folders or files, relative to this file
//! exclude = ["catalogue/old"]  # left out of the sources
//! ```

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The name of the file that marks a workspace's root.
pub const FILE_NAME: &str = "mesh.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    workspace: Section,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Section {
    sources: Vec<String>,
    #[serde(default)]
    exclude: Vec<String>,
}

/// What a command reads when it is given no path.
#[derive(Debug, PartialEq)]
pub struct Default {
    /// The paths to read, as the user would write them from the current directory.
    pub sources: Vec<PathBuf>,
    /// Paths under the sources that are not read.
    pub exclude: Vec<PathBuf>,
}

/// The sources of the nearest `mesh.toml` at or above `cwd`; the current directory when
/// there is none. A `mesh.toml` that cannot be read or says something meshc does not
/// understand is an error (exit 2), never silently ignored.
pub fn default_paths(cwd: &Path) -> Result<Default, String> {
    let Some((root, up)) = find(cwd) else {
        return Ok(Default {
            sources: vec![PathBuf::from(".")],
            exclude: Vec::new(),
        });
    };
    let file = root.join(FILE_NAME);
    // The root as seen from the current directory: `.` or `../..`.
    let shown_root: PathBuf = if up == 0 {
        PathBuf::new()
    } else {
        std::iter::repeat_n("..", up).collect()
    };
    let shown_file = shown_root.join(FILE_NAME);
    let text = std::fs::read_to_string(&file).map_err(|e| {
        format!(
            "cannot read `{}`: {}",
            shown_file.display(),
            super::workspace::plain(&e)
        )
    })?;
    let parsed: File = toml::from_str(&text).map_err(|e| {
        format!(
            "`{}` is not a workspace file meshc can read: {}",
            shown_file.display(),
            e.message()
        )
    })?;
    if parsed.workspace.sources.is_empty() {
        return Err(format!(
            "`{}` names no sources; write `sources = [\"FOLDER\"]` under `[workspace]`",
            shown_file.display()
        ));
    }
    let resolve = |rel: &String, what: &str| -> Result<PathBuf, String> {
        let p = Path::new(rel);
        if p.is_absolute() || p.components().any(|c| c == std::path::Component::ParentDir) {
            return Err(format!(
                "`{}`: the {what} `{rel}` must be a path inside the workspace, relative to the file",
                shown_file.display()
            ));
        }
        let joined = shown_root.join(p);
        Ok(if joined.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            joined
        })
    };
    let sources = parsed
        .workspace
        .sources
        .iter()
        .map(|s| resolve(s, "source"))
        .collect::<Result<Vec<_>, _>>()?;
    let exclude = parsed
        .workspace
        .exclude
        .iter()
        .map(|s| resolve(s, "exclude"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Default { sources, exclude })
}

/// The nearest directory at or above `cwd` holding a `mesh.toml`, and how many levels up.
fn find(cwd: &Path) -> Option<(PathBuf, usize)> {
    cwd.ancestors()
        .enumerate()
        .find(|(_, dir)| dir.join(FILE_NAME).is_file())
        .map(|(up, dir)| (dir.to_path_buf(), up))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, text: &str) {
        std::fs::write(dir.join(FILE_NAME), text).unwrap();
    }

    #[test]
    fn no_workspace_file_means_the_current_directory() {
        let dir = tempfile::tempdir().unwrap();
        let d = default_paths(dir.path()).unwrap();
        assert_eq!(d.sources, [PathBuf::from(".")]);
        assert!(d.exclude.is_empty());
    }

    #[test]
    fn the_nearest_file_above_is_found_and_its_paths_seen_from_here() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "[workspace]\nsources = [\"catalogue\", \"more\"]\nexclude = [\"catalogue/old\"]\n",
        );
        let deep = dir.path().join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        let d = default_paths(&deep).unwrap();
        assert_eq!(
            d.sources,
            [
                PathBuf::from("../../catalogue"),
                PathBuf::from("../../more")
            ]
        );
        assert_eq!(d.exclude, [PathBuf::from("../../catalogue/old")]);
        let here = default_paths(dir.path()).unwrap();
        assert_eq!(here.sources[0], PathBuf::from("catalogue"));
        // A nearer file wins.
        write(&dir.path().join("a"), "[workspace]\nsources = [\".\"]\n");
        assert_eq!(default_paths(&deep).unwrap().sources, [PathBuf::from("..")]);
    }

    #[test]
    fn a_file_meshc_cannot_understand_is_said_not_ignored() {
        let dir = tempfile::tempdir().unwrap();
        for (text, said) in [
            (
                "[workspace]\nsources = [\"a\"]\nexclud = []\n",
                "unknown field `exclud`",
            ),
            ("[workspace]\nsources = []\n", "names no sources"),
            ("[workspace\n", "not a workspace file"),
            (
                "[workspace]\nsources = [\"../elsewhere\"]\n",
                "inside the workspace",
            ),
            (
                "[workspace]\nsources = [\"/etc\"]\n",
                "inside the workspace",
            ),
            ("", "missing field `workspace`"),
        ] {
            write(dir.path(), text);
            let err = default_paths(dir.path()).unwrap_err();
            assert!(err.contains(said), "{text:?}: {err}");
            assert!(err.starts_with("`mesh.toml`"), "{err}");
        }
    }
}
