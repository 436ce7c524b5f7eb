//! The checker copes with whatever parsed: every fixture, cut short at many points and
//! with pieces doubled or dropped, is checked without a panic. (Fuzz targets go further;
//! this runs in every test run.)

use meshc::db::{self, Database};
use std::path::PathBuf;
use std::sync::Arc;

fn check(text: &str) {
    let (database, ws) = Database::with_files([(Arc::from("broken.mesh"), Arc::from(text))]);
    let file = ws.files(&database)[1];
    let _ = db::check_file(&database, ws, file);
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
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for cut in cuts(&text, 8) {
            // Cut short.
            check(&text[..cut]);
            // A piece dropped.
            let next = cuts(&text[cut..], 6).get(1).map_or(text.len(), |n| cut + n);
            check(&format!("{}{}", &text[..cut], &text[next..]));
            // A piece doubled.
            check(&format!("{}{}", &text[..next], &text[cut..]));
        }
    }
}
