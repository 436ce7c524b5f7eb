//! `meshc import compose`: a Compose file turned into modules and a one-node mesh
//! (LANGUAGE.md §13.6), with a report of every key dropped or guessed.
//!
//! The stages: [`yaml`] reads the file into a tree (refusing anchors, aliases and merge
//! keys), [`interpolate`] applies the `.env` file beside it, [`compose`] reads the
//! services as the Compose specification defines them, [`generate`] writes the
//! definitions, and [`secrets`] tells which values are secrets and how an image reads
//! them. The whole result is formatted and checked here before it is returned: an import
//! that would not `meshc check` with no error is refused, never written.
//!
//! Pure like the rest of the library: files are read through the caller's function, and
//! the result is text for the caller to write (all at once).

pub mod compose;
pub mod files;
pub mod generate;
pub mod interpolate;
pub mod secrets;
pub mod yaml;

use serde::Serialize;

/// What became of a Compose key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The language has no place for it: it is not in the result.
    Dropped,
    /// Imported, on an assumption the user should confirm.
    Guessed,
    /// A secret: imported as a secret requirement; its value was written nowhere.
    Secret,
}

/// One line of the report: a key of a service (or of the file, when `service` is empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    #[serde(skip)]
    pub service: String,
    pub key: String,
    pub action: Action,
    pub reason: String,
}

/// A reason the import is refused, with the service (empty for the file) and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub service: String,
    pub line: usize,
    pub message: String,
}

/// What `meshc import compose` is given.
pub struct Request<'a> {
    /// The Compose file's text.
    pub text: &'a str,
    /// The name it is shown by (`compose.yaml`).
    pub shown: &'a str,
    /// Its directory, absolute: relative paths of the file are read from it.
    pub dir: &'a str,
    /// The project name when the file gives none (the directory's name).
    pub default_name: &'a str,
    /// The `.env` file beside the Compose file, when there is one.
    pub dotenv: Option<&'a str>,
    /// Reads another file the Compose file names (absolute path); the command line's
    /// reads only regular files beside or under `dir` ([`files::read_beside`]).
    pub read: &'a dyn Fn(&str) -> Result<String, files::Unread>,
}

/// The import's result: files to write (name → text) and the report.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The definitions and the mesh, formatted, in a stable order; then
    /// `import-report.json`.
    pub files: Vec<(String, String)>,
    /// The mesh file's name among `files`.
    pub mesh_file: String,
    /// The report, as written to `import-report.json`.
    pub report: serde_json::Value,
    /// The same, for people.
    pub summary: String,
}

/// Imports a Compose file. Every problem is returned at once; on any problem nothing is
/// produced.
pub fn import_compose(req: &Request<'_>) -> Result<Imported, Vec<Problem>> {
    // `PWD` is the Compose file's directory (Compose reads it from the shell that runs it
    // there), unless `.env` sets it.
    let pwd = vec![("PWD".to_string(), req.dir.to_string())];
    let vars = match req.dotenv {
        Some(text) => match interpolate::parse_env_file(text) {
            Ok(pairs) => interpolate::Vars::from_pairs(pwd.into_iter().chain(pairs).collect()),
            Err(ps) => {
                return Err(ps
                    .into_iter()
                    .map(|(line, message)| Problem {
                        service: String::new(),
                        line,
                        message: format!(".env line {line}: {message}"),
                    })
                    .collect());
            }
        },
        None => interpolate::Vars::from_pairs(pwd),
    };
    let mut root = yaml::parse(req.text).map_err(|ps| {
        ps.into_iter()
            .map(|p| Problem {
                service: String::new(),
                line: p.line,
                message: p.message,
            })
            .collect::<Vec<_>>()
    })?;
    let mut problems = Vec::new();
    interpolate::interpolate_tree(&mut root, &vars, &mut problems);
    if !problems.is_empty() {
        return Err(problems
            .into_iter()
            .map(|(line, message)| Problem {
                service: String::new(),
                line,
                message,
            })
            .collect());
    }
    let inputs = compose::Inputs {
        dir: req.dir,
        default_name: req.default_name,
        vars: &vars,
        read: req.read,
    };
    let project = compose::read(&root, &inputs)?;
    let generated = generate::generate(&project, req.shown, &vars);
    let mut files = Vec::new();
    for (name, text) in &generated.files {
        let path = crate::span::FilePath::from(name.as_str());
        match crate::fmt::format(&path, text) {
            Ok(t) => files.push((name.clone(), t)),
            Err(diags) => {
                return Err(diags
                    .into_iter()
                    .map(|d| Problem {
                        service: String::new(),
                        line: 0,
                        message: format!(
                            "the import wrote `{name}` that does not parse ({}: {}); this is a fault of meshc",
                            d.code.as_str(),
                            d.message
                        ),
                    })
                    .collect());
            }
        }
    }
    // The result must check with no error: say what would not, and write nothing.
    let (db, ws) = crate::db::Database::with_files(
        files
            .iter()
            .map(|(n, t)| {
                (
                    crate::span::FilePath::from(n.as_str()),
                    std::sync::Arc::<str>::from(t.as_str()),
                )
            })
            .collect::<Vec<_>>(),
    );
    let errors: Vec<Problem> = crate::db::workspace_diagnostics(&db, ws)
        .into_iter()
        .filter(crate::diagnostics::Diagnostic::is_error)
        .map(|d| Problem {
            service: String::new(),
            line: 0,
            message: format!(
                "the imported definitions would not check: {} {} (in `{}`)",
                d.code.as_str(),
                d.message,
                d.file
            ),
        })
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let report = generated.report(req.shown, &files);
    let summary = generated.summary(req.shown);
    let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
    text.push('\n');
    files.push(("import-report.json".to_string(), text));
    Ok(Imported {
        files,
        mesh_file: generated.mesh_file.clone(),
        report,
        summary,
    })
}
