//! The checker copes with whatever parsed: every fixture, cut short at many points and
//! with pieces doubled or dropped, is checked without a panic. (Fuzz targets go further;
//! this runs in every test run.)

use meshc::check::registry::{Registry, RegistryInput};
use meshc::span::FilePath;
use meshc::syntax::{Parsed, parse};
use std::path::PathBuf;

/// Parses and checks `text` beside the already parsed standard library.
fn check(std_lib: &Parsed, text: &str) {
    let std_path: FilePath = meshc::db::STDLIB_PATH.into();
    let path: FilePath = "broken.mesh".into();
    let parsed = parse(&path, text);
    let registry = Registry::build([
        RegistryInput {
            path: &std_path,
            file: &std_lib.file,
            std: true,
        },
        RegistryInput {
            path: &path,
            file: &parsed.file,
            std: false,
        },
    ]);
    meshc::check::check_items_in(&path, &parsed.file, &registry, false, &parsed.diagnostics);
}

/// Char boundaries of `text`, about `n` of them spread evenly.
fn cuts(text: &str, n: usize) -> Vec<usize> {
    let step = (text.len() / n).max(1);
    (0..text.len())
        .step_by(step)
        .filter(|&i| text.is_char_boundary(i))
        .collect()
}

#[test]
fn broken_fixtures_never_panic() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases/check");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "mesh"))
        .collect();
    files.sort();
    let std_lib = parse(&meshc::db::STDLIB_PATH.into(), meshc::db::STDLIB_TEXT);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for cut in cuts(&text, 12) {
            // Cut short.
            check(&std_lib, &text[..cut]);
            // A piece dropped.
            let next = cuts(&text[cut..], 6).get(1).map_or(text.len(), |n| cut + n);
            check(&std_lib, &format!("{}{}", &text[..cut], &text[next..]));
            // A piece doubled.
            check(&std_lib, &format!("{}{}", &text[..next], &text[cut..]));
        }
    }
}
