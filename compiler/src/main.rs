//! The `meshc` command: check, build, fmt and explain. All I/O happens here; the library
//! below is pure.

mod cli;

use clap::{Parser, Subcommand};
use cli::output::{self, Deny, Format};
use meshc::diagnostics::{Code, Diagnostic};
use meshc::span::FilePath;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The compiler of the mesh language: check definitions and meshes, build node manifests.
#[derive(Parser)]
#[command(name = "meshc", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Flags every checking command takes.
#[derive(clap::Args, Clone)]
struct CheckFlags {
    /// How diagnostics are printed: human (stderr, with source excerpts), json or sarif (stdout).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Turn warnings into errors: `warnings` (all of them) or `old-forms` (W0401, W0402).
    #[arg(long, value_enum)]
    deny: Vec<Deny>,
    /// List only the definitions still using an old form (host path literals, legacy placeholders).
    #[arg(long)]
    old_forms: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, type-check and resolve every mesh; nothing is written.
    ///
    /// Exit status: 0 clean or warnings only, 1 errors, 2 usage or I/O problems.
    Check {
        /// Files or directories (searched recursively for .mesh files). Default: the current directory.
        paths: Vec<PathBuf>,
        #[command(flatten)]
        flags: CheckFlags,
    },
    /// Check, then write the manifest of every node of the mesh in MESH_FILE.
    ///
    /// Writes DIR/<node>.json per node, atomically, and keeps chosen host ports in
    /// MESH_FILE.lock. Exit status: 0 built whole, 1 anything refused or left out, 2 usage or I/O.
    Build {
        /// The file holding the mesh to build.
        mesh_file: PathBuf,
        /// More files or directories of the workspace. Default: the current directory.
        paths: Vec<PathBuf>,
        /// Where manifests are written.
        #[arg(long, default_value = "manifests")]
        out: PathBuf,
        /// Refuse to change MESH_FILE.lock (for CI).
        #[arg(long)]
        locked: bool,
        #[command(flatten)]
        flags: CheckFlags,
    },
    /// Print the long explanation of a diagnostic code, with an example.
    Explain {
        /// A code such as E0302.
        code: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.command {
        Command::Check { paths, flags } => check(paths, &flags),
        Command::Build {
            mesh_file,
            paths,
            out,
            locked,
            flags,
        } => build(mesh_file, paths, out, locked, &flags),
        Command::Explain { code } => explain(&code),
    };
    if std::env::var_os("MESHC_STATS").is_some() {
        report_stats();
    }
    ExitCode::from(code)
}

/// With `MESHC_STATS` set, prints the peak resident memory on stderr (for the benchmark).
fn report_stats() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(kib) = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    {
        eprintln!("meshc-stats: peak_rss_kib={kib}");
    }
}

fn explain(code: &str) -> u8 {
    match Code::parse(code) {
        Some(c) => {
            println!("{}", c.explanation().trim_end());
            0
        }
        None => {
            let hint = meshc::diagnostics::did_you_mean(code, Code::ALL.iter().map(|c| c.as_str()))
                .map(|h| format!("; {h}"))
                .unwrap_or_default();
            output::say(&format!(
                "`{code}` is not a diagnostic code of the language{hint}"
            ));
            2
        }
    }
}

/// The workspace read from disk, and the texts diagnostics point into.
struct Session {
    db: meshc::db::Database,
    ws: meshc::db::Workspace,
    sources: HashMap<FilePath, Arc<str>>,
    /// Diagnostics about files that could not be parsed at all (invalid UTF-8).
    load_diagnostics: Vec<Diagnostic>,
    files_read: usize,
}

fn open(paths: Vec<PathBuf>) -> Result<Session, u8> {
    let paths = if paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        paths
    };
    let loaded = cli::workspace::load(&paths);
    if !loaded.io_errors.is_empty() {
        for e in &loaded.io_errors {
            output::say(e);
        }
        return Err(2);
    }
    let mut sources: HashMap<FilePath, Arc<str>> = HashMap::new();
    sources.insert(
        FilePath::from(meshc::db::STDLIB_PATH),
        Arc::from(meshc::db::STDLIB_TEXT),
    );
    for (p, t) in &loaded.files {
        sources.insert(p.clone(), t.clone());
    }
    let mut load_diagnostics = Vec::new();
    for (d, p, t) in loaded.unreadable {
        sources.insert(p, t);
        load_diagnostics.push(d);
    }
    let files_read = loaded.files.len() + load_diagnostics.len();
    let (db, ws) = meshc::db::Database::with_files(loaded.files);
    Ok(Session {
        db,
        ws,
        sources,
        load_diagnostics,
        files_read,
    })
}

fn check(paths: Vec<PathBuf>, flags: &CheckFlags) -> u8 {
    let session = match open(paths) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut diags = session.load_diagnostics.clone();
    diags.extend(meshc::db::workspace_diagnostics(&session.db, session.ws));
    let code = report(diags, &session, flags);
    // The process ends here: freeing every tree one by one would only cost time.
    std::mem::forget(session);
    code
}

/// Prints diagnostics as the flags ask and returns the exit status they call for.
fn report(diags: Vec<Diagnostic>, session: &Session, flags: &CheckFlags) -> u8 {
    let mut diags = output::finish(diags, &flags.deny);
    let failed = diags.iter().any(Diagnostic::is_error);
    if flags.old_forms {
        diags.retain(|d| d.code.is_old_form());
    }
    output::print(&diags, &session.sources, flags.format, session.files_read);
    u8::from(failed)
}

fn build(
    mesh_file: PathBuf,
    paths: Vec<PathBuf>,
    out: PathBuf,
    locked: bool,
    flags: &CheckFlags,
) -> u8 {
    let _ = (mesh_file, paths, out, locked, flags);
    output::say("build is not available yet");
    2
}
