//! A workspace of one to three files (the input split on 0xFF) is checked whole without a
//! panic, every diagnostic lies inside its file on character boundaries and renders in
//! every format, and checking the same workspace again gives the same diagnostics.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::db::{Database, workspace_diagnostics};
use meshc_fuzz::{assert_diagnostics_sound, sources_of, workspace_of};

fuzz_target!(|data: &[u8]| {
    let files = workspace_of(data);
    let sources = sources_of(&files);
    let (db, ws) = Database::with_files(files.clone());
    let diags = workspace_diagnostics(&db, ws);
    assert_diagnostics_sound(&diags, &sources);
    let (db2, ws2) = Database::with_files(files);
    assert_eq!(
        diags,
        workspace_diagnostics(&db2, ws2),
        "diagnostics differ between two runs"
    );
});
