//! `meshc doc [PATH…] --out DIR`: the browsable reference of a catalogue (see
//! `meshc::doc`), as HTML pages linking to each other and the same pages in Markdown.

use super::output::{self, Format};
use meshc::span::FilePath;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Writes the pages into `out`, all or nothing. Exit status: 0 written, 1 a file does not
/// parse (nothing written), 2 usage or I/O.
pub fn run(paths: Vec<PathBuf>, out: PathBuf) -> u8 {
    let loaded = match crate::load(paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let std_path = FilePath::from(meshc::db::STDLIB_PATH);
    let mut texts: Vec<(FilePath, Arc<str>, bool)> =
        vec![(std_path, Arc::from(meshc::db::STDLIB_TEXT), true)];
    texts.extend(
        loaded
            .files
            .iter()
            .map(|(p, t)| (p.clone(), t.clone(), false)),
    );
    let parsed: Vec<meshc::syntax::Parsed> = texts
        .iter()
        .map(|(p, t, _)| meshc::syntax::parse(p, t))
        .collect();
    let mut diags: Vec<meshc::diagnostics::Diagnostic> = loaded
        .unreadable
        .iter()
        .map(|(d, _, _)| d.clone())
        .collect();
    for p in &parsed {
        diags.extend(p.diagnostics.iter().filter(|d| d.is_error()).cloned());
    }
    if !diags.is_empty() {
        let mut sources: HashMap<FilePath, Arc<str>> = HashMap::new();
        for (p, t, _) in &texts {
            sources.insert(p.clone(), t.clone());
        }
        for (_, p, t) in &loaded.unreadable {
            sources.insert(p.clone(), t.clone());
        }
        let diags = output::finish(diags, &[]);
        output::print(&diags, &sources, Format::Human, texts.len() - 1);
        output::say("nothing was written: a file does not parse");
        return 1;
    }
    let inputs: Vec<meshc::doc::Input<'_>> = texts
        .iter()
        .zip(&parsed)
        .map(|((path, text, std), p)| meshc::doc::Input {
            path,
            text,
            file: &p.file,
            std: *std,
        })
        .collect();
    let catalogue = meshc::doc::Catalogue::of(&inputs);
    let pages = catalogue.pages();
    if let Err(e) = super::atomic::write_all_unflushed(&out, &pages) {
        output::say(&e);
        output::say("nothing was written");
        return 2;
    }
    output::say(&format!(
        "wrote the reference of {} modules and {} contracts into {}: open {}",
        catalogue.modules.len(),
        catalogue.contracts.len(),
        out.display(),
        out.join("index.html").display()
    ));
    0
}
