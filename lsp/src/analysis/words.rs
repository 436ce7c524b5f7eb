//! Which files can hold an occurrence of a symbol: a word index of the workspace, so that
//! find references and rename index only the files that mention the symbol's names, and
//! cost what they find instead of the workspace's size.
//!
//! Every occurrence the index records is written as its symbol's name (an implicit
//! instance at its module's name, which is the instance's), so a file that holds one has
//! that name among its words. A symbol that lives inside a module or a mesh (a
//! requirement, a container, a loop variable, a node, an instance) occurs only in the file
//! that declares that module or mesh or in a mesh that assigns the module, and each of
//! those writes the module's or mesh's name too: such a file must hold both words. The
//! index only narrows; each file it gives is indexed ([`super::index::file_index`]) and
//! asked as before, so what a reference finds does not depend on it (a test compares it
//! with a scan of every file over the fixtures and the catalogue).
//!
//! The words are kept by groups of [`WORD_GROUP`] files, each a query of its own: an edit
//! reads its own group's texts again, and the other groups are confirmed by durability.
//! A word is kept as a hash: a collision only adds a file to index.

use super::index::Symbol;
use meshc::db::{SourceFile, Workspace};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// How many files' words one [`word_group`] holds: one bit each in a `u128`.
pub const WORD_GROUP: usize = 128;

/// The words of a run of files: for each word's hash, which of the files (a bit each,
/// the first file the lowest) hold it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WordGroup {
    words: HashMap<u64, u128>,
}

/// The words of the `group`-th run of [`WORD_GROUP`] files of the workspace.
#[salsa::tracked(returns(clone))]
pub fn word_group(db: &dyn salsa::Database, ws: Workspace, group: usize) -> Arc<WordGroup> {
    let files = ws.files(db);
    let start = (group * WORD_GROUP).min(files.len());
    let end = (start + WORD_GROUP).min(files.len());
    let mut words: HashMap<u64, u128> = HashMap::new();
    for (bit, file) in files[start..end].iter().enumerate() {
        each_word(file.text(db), |w| {
            *words.entry(word_hash(w)).or_default() |= 1 << bit
        });
    }
    words.shrink_to_fit();
    Arc::new(WordGroup { words })
}

/// Calls `f` with every word of `text`: each maximal run of ASCII letters, digits and
/// `_` (a name with `-` is several words: see [`parts`]).
fn each_word<'t>(text: &'t str, mut f: impl FnMut(&'t str)) {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !is_word(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_word(bytes[i]) {
            i += 1;
        }
        // Runs of ASCII bytes only: the slice is on character boundaries.
        f(&text[start..i]);
    }
}

/// The words of a name as [`each_word`] reads them.
fn parts(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    each_word(name, |w| out.push(w));
    out
}

fn word_hash(word: &str) -> u64 {
    // `DefaultHasher::new()` has fixed keys: the same hash for a word in every group.
    let mut h = std::hash::DefaultHasher::new();
    word.hash(&mut h);
    h.finish()
}

/// The names a file holding an occurrence of `symbol` must write (see the module's
/// comment).
pub fn key_names(symbol: &Symbol) -> Vec<&str> {
    match symbol {
        Symbol::Contract(n) | Symbol::Module(n) | Symbol::Mesh(n) | Symbol::Seat(n) => vec![n],
        Symbol::Field { field, .. } => vec![field],
        Symbol::Requirement { module, name }
        | Symbol::Container { module, name }
        | Symbol::LoopVar { module, name, .. } => vec![name, module],
        Symbol::Node { mesh, node } => vec![node, mesh],
        Symbol::Instance { mesh, name, .. } => vec![name, mesh],
    }
}

/// The files of the workspace, in its order, that may hold an occurrence of `symbol`.
pub fn files_with(db: &dyn salsa::Database, ws: Workspace, symbol: &Symbol) -> Vec<SourceFile> {
    let hashes: Vec<u64> = key_names(symbol)
        .into_iter()
        .flat_map(parts)
        .map(word_hash)
        .collect();
    let files = ws.files(db);
    let mut out = Vec::new();
    for group in 0..files.len().div_ceil(WORD_GROUP) {
        let words = word_group(db, ws, group);
        let mut mask = u128::MAX;
        for h in &hashes {
            mask &= words.words.get(h).copied().unwrap_or(0);
        }
        while mask != 0 {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if let Some(&file) = files.get(group * WORD_GROUP + bit) {
                out.push(file);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_every_character_that_is_no_letter_digit_or_underscore() {
        let mut seen = Vec::new();
        each_word(
            "requires db-main: module postgres { x = \"${db.host}\" } é_x",
            |w| seen.push(w.to_string()),
        );
        assert_eq!(
            seen,
            [
                "requires", "db", "main", "module", "postgres", "x", "db", "host", "_x"
            ]
        );
        assert_eq!(parts("db-main"), ["db", "main"]);
    }
}
