//! Printing diagnostics in the format asked for, after `--deny` has raised what it names.

use meshc::diagnostics::render::{self, SourceMap};
use meshc::diagnostics::{Diagnostic, Severity};
use std::io::{IsTerminal, Write};

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source excerpts on stderr.
    Human,
    /// One JSON object on stdout (LANGUAGE.md §11).
    Json,
    /// SARIF 2.1.0 on stdout, for code-scanning services.
    Sarif,
}

/// What `--deny` can raise to errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Deny {
    /// Every warning.
    Warnings,
    /// The old forms (W0401, W0402).
    OldForms,
}

/// Raises warnings `deny` names to errors, and orders diagnostics by file and place.
pub fn finish(mut diags: Vec<Diagnostic>, deny: &[Deny]) -> Vec<Diagnostic> {
    for d in &mut diags {
        if d.severity == Severity::Warning
            && (deny.contains(&Deny::Warnings)
                || (deny.contains(&Deny::OldForms) && d.code.is_old_form()))
        {
            d.severity = Severity::Error;
        }
    }
    meshc::diagnostics::put_in_order(&mut diags);
    diags
}

/// Prints `diags`; `files` is how many files were read (for the human summary).
/// Whether human diagnostics are coloured (`--color`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum ColorChoice {
    /// When standard error is a terminal and `NO_COLOR` is not set.
    Auto,
    Always,
    Never,
}

static COLOR: std::sync::OnceLock<ColorChoice> = std::sync::OnceLock::new();

/// Sets the colour choice for the rest of the process (once, from `--color`).
pub fn set_color(choice: ColorChoice) {
    let _ = COLOR.set(choice);
}

pub fn print(diags: &[Diagnostic], sources: &dyn SourceMap, format: Format, files: usize) {
    match format {
        Format::Json => {
            let v = render::to_json(diags, sources);
            stdout_line(&serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        Format::Sarif => {
            let v = render::to_sarif(diags, sources, env!("CARGO_PKG_VERSION"));
            stdout_line(&serde_json::to_string_pretty(&v).unwrap_or_default());
        }
        Format::Human => {
            let stderr = std::io::stderr();
            let color = match COLOR.get().copied().unwrap_or(ColorChoice::Auto) {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none(),
            };
            let text = render::to_human(diags, sources, color);
            let mut lock = stderr.lock();
            let _ = lock.write_all(text.as_bytes());
            let (errors, warnings) = render::counts(diags);
            let files = match files {
                1 => "1 file".to_string(),
                n => format!("{n} files"),
            };
            let _ = match (errors, warnings) {
                (0, 0) => writeln!(lock, "meshc: {files} checked, no problems"),
                (e, w) => writeln!(
                    lock,
                    "meshc: {files} checked: {e} error{}, {w} warning{}",
                    if e == 1 { "" } else { "s" },
                    if w == 1 { "" } else { "s" }
                ),
            };
        }
    }
}

/// Prints a sentence on stderr as `meshc: …`. A sentence quotes names and text from
/// elsewhere (a file name, a Compose key, a path): its control and bidirectional
/// characters are written as visible escapes (`base::visible`), never raw.
pub fn say(sentence: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "meshc: {}",
        meshc::base::visible::visible_lines(sentence)
    );
}

/// Prints one line on stdout. A reader that went away (`meshc check --format json | head`)
/// had all it wanted: the error is ignored rather than panicking as `println!` would.
pub fn stdout_line(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(line.as_bytes());
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}
