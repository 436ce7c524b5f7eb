//! Bounded property tests of the front end, run in CI: parsing never panics and keeps its
//! positions inside the text; the formatter round-trips and is idempotent on whatever
//! parses; checking never panics on catalogue files broken line by line; the same input
//! gives the same diagnostics twice. `PROPTEST_CASES` asks for a longer run; the fuzz
//! targets in `fuzz/` are the unbounded version of the same promises.

mod common;
mod generate;

use common::{assert_span_in, sources_of};
use generate::maybe_broken_program;
use meshc::db::{Database, workspace_diagnostics};
use meshc::diagnostics::Diagnostic;
use meshc::diagnostics::render;
use meshc::span::FilePath;
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn config(default: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(default),
        // Shrinking a failure of a generated program can take long; the failure is kept.
        max_shrink_iters: 2_000,
        ..ProptestConfig::default()
    }
}

/// Every diagnostic and label names a known file and lies inside it on character
/// boundaries, and every renderer copes with them.
fn assert_sound(diags: &[Diagnostic], sources: &HashMap<FilePath, Arc<str>>) {
    common::assert_diagnostics_sound(diags, sources);
    let _ = render::to_human(diags, sources, false);
    let _ = render::to_json(diags, sources);
}

fn check(files: &[(FilePath, Arc<str>)]) -> Vec<Diagnostic> {
    let (db, ws) = Database::with_files(files.iter().cloned());
    workspace_diagnostics(&db, ws)
}

/// The catalogue's files, read once.
fn catalogue() -> &'static Vec<(FilePath, Arc<str>)> {
    static FILES: OnceLock<Vec<(FilePath, Arc<str>)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalogue");
        common::mesh_files(&dir)
            .into_iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                let text = std::fs::read_to_string(&p).unwrap();
                (FilePath::from(name.as_str()), Arc::from(text))
            })
            .collect()
    })
}

/// A change to a file's lines, as a bad merge or a careless edit makes.
#[derive(Debug, Clone)]
enum LineEdit {
    Delete(prop::sample::Index),
    Duplicate(prop::sample::Index),
    Swap(prop::sample::Index, prop::sample::Index),
}

fn line_edit() -> impl Strategy<Value = LineEdit> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(LineEdit::Delete),
        any::<prop::sample::Index>().prop_map(LineEdit::Duplicate),
        (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(a, b)| LineEdit::Swap(a, b)),
    ]
}

fn edit_lines(text: &str, edits: &[LineEdit]) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        match e {
            LineEdit::Delete(i) => {
                lines.remove(i.index(lines.len()));
            }
            LineEdit::Duplicate(i) => {
                let at = i.index(lines.len());
                lines.insert(at, lines[at]);
            }
            LineEdit::Swap(a, b) => {
                let (a, b) = (a.index(lines.len()), b.index(lines.len()));
                lines.swap(a, b);
            }
        }
    }
    lines.concat()
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn parsing_never_panics_and_keeps_positions_in_the_text(text in maybe_broken_program()) {
        let path = common::path();
        let parsed = meshc::syntax::parse(&path, &text);
        for c in &parsed.comments {
            assert_span_in(c.span, &text, "comment");
        }
        let sources = sources_of(&[(path, Arc::from(text.as_str()))]);
        assert_sound(&parsed.diagnostics, &sources);
    }

    #[test]
    fn whatever_formats_round_trips_and_is_idempotent(text in maybe_broken_program()) {
        match meshc::fmt::format(&common::path(), &text) {
            // parse ∘ fmt ∘ parse gives the same tree, strings and comments, and fmt(fmt(x))
            // is fmt(x): `check_all` asserts each.
            Ok(_) => {
                common::check_all(&text);
            }
            Err(diags) => prop_assert!(!diags.is_empty(), "refused without a diagnostic"),
        }
    }

    #[test]
    fn checking_a_broken_program_never_panics_and_is_deterministic(text in maybe_broken_program()) {
        let files = vec![(common::path(), Arc::<str>::from(text.as_str()))];
        let first = check(&files);
        assert_sound(&first, &sources_of(&files));
        prop_assert_eq!(first, check(&files));
    }
}

proptest! {
    #![proptest_config(config(48))]

    /// One catalogue file broken line by line, checked beside the catalogue's contracts
    /// (so its requirements still meet the contracts they name).
    #[test]
    fn checking_catalogue_files_with_lines_deleted_duplicated_or_swapped_never_panics(
        which in any::<prop::sample::Index>(),
        edits in proptest::collection::vec(line_edit(), 1..6),
    ) {
        let all = catalogue();
        prop_assume!(!all.is_empty());
        let (path, text) = &all[which.index(all.len())];
        let mut files = vec![(path.clone(), Arc::<str>::from(edit_lines(text, &edits)))];
        files.extend(all.iter().filter(|(p, _)| &**p == "contracts.mesh" && p != path).cloned());
        let first = check(&files);
        let sources = sources_of(&files);
        assert_sound(&first, &sources);
        let again = check(&files);
        prop_assert_eq!(
            render::to_json(&first, &sources).to_string(),
            render::to_json(&again, &sources).to_string(),
            "not deterministic"
        );
    }
}

#[test]
fn the_catalogue_is_there_to_break() {
    assert!(catalogue().len() > 10, "catalogue files not found");
}

#[test]
fn line_edits_do_what_they_say() {
    let t = "a\nb\nc\n";
    let idx = |n: usize| -> prop::sample::Index {
        use proptest::strategy::ValueTree;
        use proptest::test_runner::TestRunner;
        // An index that picks `n` of 3.
        let mut runner = TestRunner::deterministic();
        loop {
            let i = any::<prop::sample::Index>()
                .new_tree(&mut runner)
                .unwrap()
                .current();
            if i.index(3) == n {
                return i;
            }
        }
    };
    assert_eq!(edit_lines(t, &[LineEdit::Delete(idx(1))]), "a\nc\n");
    assert_eq!(
        edit_lines(t, &[LineEdit::Duplicate(idx(0))]),
        "a\na\nb\nc\n"
    );
    assert_eq!(
        edit_lines(t, &[LineEdit::Swap(idx(0), idx(2))]),
        "c\nb\na\n"
    );
}

/// Inputs the fuzz targets found, each checked for the property it once broke.
#[test]
fn fuzz_findings_stay_fixed() {
    let files = |text: &str| vec![(common::path(), Arc::<str>::from(text))];
    // An unclosed string ending in a two-byte character: E0402 cut the character.
    let unclosed =
        "module m {\n  container c {\n    env {\n      A = \"x.example.org\u{e9}\n    }\n  }\n}\n";
    // An interpolation holding only blanks sliced the text backwards.
    let blank = "module a {\n  container a { env { X = \"${ }\" } }\n}\n";
    for text in [unclosed, blank] {
        let f = files(text);
        assert_sound(&check(&f), &sources_of(&f));
    }
    // A doc comment inside a one-line entry made the formatter give up on the file.
    let inner_doc = "contract c for host {\n  given /// d\n  x: uid\n}\n";
    assert_ne!(common::check_all(inner_doc), inner_doc);
    // A `///` after an opening brace, then a comment inside the first entry: moved above
    // the entry, the comment came between the doc comment and the entry.
    let brace_doc = "contract n for h{///\ne//\n:i}";
    common::check_all(brace_doc);
    // The same after an entry: a trailing `///` documents the next entry.
    common::check_all("contract i for m{d:t///\ni//\n:e}");
    // A trailing comment ending in `{` opens no block.
    common::check_all("seat r delivers b//{\n//");
    // Blanks after the opening quotes of a triple-quoted string are its text, not
    // trailing spaces of the layout. (The finding held a form feed, which a literal may no
    // longer hold; the blanks stay.)
    let opening = "module m {\n  container c {\n    file \"/a\" = \"\"\"  \r\n      x\n      \"\"\"\n  }\n}\n";
    common::check_all(opening);
}
