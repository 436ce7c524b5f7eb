//! `meshc import compose FILE [--out DIR]`: reads the Compose file, its `.env` and the
//! files it names, and writes the imported definitions, the mesh and
//! `import-report.json` into DIR, all at once or not at all.

use super::output;
use meshc::import::files::{MAX_BYTES, Unread, read_beside};
use meshc::import::{Problem, Request, import_compose};
use std::path::{Path, PathBuf};

/// Runs the import; returns the exit status (0 written, 1 refused, 2 usage or I/O).
pub fn compose(file: PathBuf, out: PathBuf) -> u8 {
    let shown = super::workspace::display_path(&file);
    // The file named on the command line is read wherever it is (the user named it),
    // but only as a regular file, bounded: a named pipe or a device is refused unopened.
    let text = match meshc::fsio::read_regular(&file, MAX_BYTES) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(_) => {
                output::say(&format!("cannot read `{shown}`: not valid UTF-8"));
                return 2;
            }
        },
        Err(e) => {
            output::say(&e.sentence(&shown));
            return 2;
        }
    };
    let dir = match std::fs::canonicalize(&file) {
        Ok(p) => p
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("/")),
        Err(e) => {
            output::say(&format!(
                "cannot read `{shown}`: {}",
                super::workspace::plain(&e)
            ));
            return 2;
        }
    };
    match std::fs::read_dir(&out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                output::say(&format!(
                    "`{}` is not empty: import writes into a new or empty directory, so no file of yours is replaced",
                    out.display()
                ));
                return 2;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            output::say(&format!(
                "cannot use `{}`: {}",
                out.display(),
                super::workspace::plain(&e)
            ));
            return 2;
        }
    }
    let dotenv_path = dir.join(".env");
    let dotenv = match read_beside(&dir, Path::new(".env")) {
        Ok(t) => Some(t),
        Err(Unread { missing: true, .. }) => None,
        Err(e) => {
            output::say(&format!(
                "cannot read `{}`: {}",
                dotenv_path.display(),
                e.reason
            ));
            return 2;
        }
    };
    let dir_text = dir.to_string_lossy().to_string();
    let default_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| "compose".into());
    let read = |p: &str| read_beside(&dir, Path::new(p));
    let request = Request {
        text: &text,
        shown: &shown,
        dir: &dir_text,
        default_name: &default_name,
        dotenv: dotenv.as_deref(),
        read: &read,
    };
    match import_compose(&request) {
        Ok(imported) => {
            let files: Vec<(String, Vec<u8>)> = imported
                .files
                .iter()
                .map(|(n, t)| (n.clone(), t.clone().into_bytes()))
                .collect();
            if let Err(e) = super::atomic::write_all(&out, &files) {
                output::say(&e);
                output::say("nothing was written");
                return 2;
            }
            // The report quotes service names, keys and paths from the Compose file.
            print!("{}", meshc::base::visible::visible_lines(&imported.summary));
            output::say(&format!(
                "wrote {} files into {}; check them with `meshc check {}` and build with `meshc build {} {}`",
                files.len(),
                out.display(),
                out.display(),
                out.join(&imported.mesh_file).display(),
                out.display()
            ));
            0
        }
        Err(problems) => {
            for p in &problems {
                output::say(&describe(&shown, p));
            }
            output::say(&format!(
                "nothing was written: {} problem{} in `{shown}`",
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            ));
            1
        }
    }
}

fn describe(shown: &str, p: &Problem) -> String {
    let place = match (p.line, p.service.is_empty()) {
        (0, true) => shown.to_string(),
        (0, false) => format!("{shown}, service `{}`", p.service),
        (l, true) => format!("{shown}:{l}"),
        (l, false) => format!("{shown}:{l}, service `{}`", p.service),
    };
    format!("error: {place}: {}", p.message)
}
