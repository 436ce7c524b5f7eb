//! A workspace of one to three files (the input split on 0xFF) is checked whole without a
//! panic, and every diagnostic lies inside its file on character boundaries.
//!
//! One database lives across executions, as in the language server
//! (`meshc_fuzz::Session`): the standard library is parsed once and every execution also
//! exercises salsa's re-validation after an edit.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::db::workspace_diagnostics;
use meshc_fuzz::{assert_diagnostics_sound, in_session, sources_of};

fuzz_target!(|data: &[u8]| {
    in_session(data, |s, files| {
        let diags = workspace_diagnostics(&s.db, s.ws);
        assert_diagnostics_sound(&diags, &sources_of(files));
    });
});
