//! A workspace of one to three files (the input split on 0xFF) is checked whole without a
//! panic, and every diagnostic lies inside its file on character boundaries.
//!
//! One database lives across executions, as in the language server: each input is set as
//! the texts of three files (the missing ones empty), so the standard library is parsed
//! once and every execution also exercises salsa's re-validation after an edit.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::db::{Database, SourceFile, Workspace, workspace_diagnostics};
use meshc::span::FilePath;
use meshc_fuzz::{MAX_FILES, assert_diagnostics_sound, sources_of, workspace_of};
use salsa::Setter as _;
use std::cell::RefCell;
use std::sync::Arc;

struct Session {
    db: Database,
    ws: Workspace,
    files: Vec<SourceFile>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

fn session() -> Session {
    let empty =
        (0..MAX_FILES).map(|i| (FilePath::from(format!("f{i}.mesh")), Arc::<str>::from("")));
    let (db, ws) = Database::with_files(empty);
    let files = ws.files(&db)[1..].to_vec();
    Session { db, ws, files }
}

fuzz_target!(|data: &[u8]| {
    let mut files = workspace_of(data);
    while files.len() < MAX_FILES {
        files.push((format!("f{}.mesh", files.len()).into(), Arc::from("")));
    }
    SESSION.with(|cell| {
        let mut cell = cell.borrow_mut();
        let s = cell.get_or_insert_with(session);
        for (input, (_, text)) in s.files.iter().zip(&files) {
            if input.text(&s.db) != text {
                input.set_text(&mut s.db).to(text.clone());
            }
        }
        let diags = workspace_diagnostics(&s.db, s.ws);
        assert_diagnostics_sound(&diags, &sources_of(&files));
    });
});
