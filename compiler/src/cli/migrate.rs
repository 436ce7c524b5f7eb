//! `meshc migrate [PATH…] [--write]`: old forms rewritten as the forms they stand for.
//! Without `--write`, prints the unified diff of every file that would change; with it,
//! replaces each changed file atomically (formatted, comments kept).

use super::output;
use std::path::{Path, PathBuf};

/// Runs the migration; returns the exit status: 0 done (or nothing to change), 1 an old
/// form could not be migrated or a file has syntax errors, 2 usage or I/O.
pub fn run(paths: Vec<PathBuf>, write: bool) -> u8 {
    // No path: the workspace's (docs/workspace.md).
    let loaded = match crate::load(paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    if let Some((_, p, _)) = loaded.unreadable.first() {
        output::say(&format!("`{p}` is not valid UTF-8: nothing was migrated"));
        return 2;
    }
    let migration = match meshc::migrate::migrate(&loaded.files) {
        Ok(m) => m,
        Err(diags) => {
            let mut sources: std::collections::HashMap<meshc::span::FilePath, std::sync::Arc<str>> =
                loaded.files.iter().cloned().collect();
            sources.insert(
                meshc::span::FilePath::from(meshc::db::STDLIB_PATH),
                std::sync::Arc::from(meshc::db::STDLIB_TEXT),
            );
            let diags = output::finish(diags, &[]);
            output::print(&diags, &sources, output::Format::Human, loaded.files.len());
            output::say("nothing was migrated: fix the syntax errors first");
            return 1;
        }
    };
    // The diff shows each line as an excerpt does: what may be a secret masked, in the
    // old text and in the new (a CI log is no place for a secret either way).
    let masked = |texts: Vec<(meshc::span::FilePath, &str)>| {
        let spans =
            meshc::check::secrets::secret_spans_of_texts(texts.iter().map(|(p, t)| (p, *t)));
        texts
            .iter()
            .map(|(p, t)| {
                let s = spans.get(p).map(Vec::as_slice).unwrap_or_default();
                (
                    p.clone(),
                    meshc::diagnostics::render::Masked::new(t, s.iter().copied()).text,
                )
            })
            .collect::<std::collections::HashMap<_, _>>()
    };
    let (old_shown, new_shown) = if write {
        Default::default()
    } else {
        let old: Vec<(meshc::span::FilePath, &str)> = loaded
            .files
            .iter()
            .map(|(p, t)| (p.clone(), &**t))
            .collect();
        let new: Vec<(meshc::span::FilePath, &str)> = loaded
            .files
            .iter()
            .map(|(p, t)| {
                let text = migration
                    .changed
                    .iter()
                    .find(|c| c.path == *p)
                    .map_or(&**t, |c| c.new.as_str());
                (p.clone(), text)
            })
            .collect();
        (masked(old), masked(new))
    };
    let mut failed = false;
    for c in &migration.changed {
        if write {
            if let Err(e) = super::atomic::replace_file(Path::new(&*c.path), c.new.as_bytes()) {
                output::say(&e);
                failed = true;
            }
        } else {
            // The diff shows the file's text: its control and bidirectional characters
            // are written as visible escapes, as in an excerpt.
            print!(
                "{}",
                meshc::base::visible::visible_lines(&meshc::take::diff::unified(
                    old_shown.get(&c.path).map_or(&*c.old, String::as_str),
                    new_shown
                        .get(&c.path)
                        .map_or(c.new.as_str(), String::as_str),
                    &format!("a/{}", c.path),
                    &format!("b/{}", c.path)
                ))
            );
        }
    }
    for (path, why) in &migration.left {
        output::say(&format!("{path}: left as it is: {why}"));
    }
    let n = migration.changed.len();
    let files = if n == 1 { "file" } else { "files" };
    if write {
        output::say(&format!("migrated {n} {files}"));
    } else if n > 0 {
        output::say(&format!(
            "{n} {files} would change; run `meshc migrate --write` to write them"
        ));
    } else {
        output::say("no old form to migrate");
    }
    if failed {
        2
    } else {
        u8::from(!migration.left.is_empty())
    }
}
