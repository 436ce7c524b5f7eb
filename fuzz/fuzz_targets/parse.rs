//! Any bytes parse: a tree and diagnostics come back, never a panic, and every position
//! the parser hands out (diagnostics, comments) lies inside the text on a character
//! boundary.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::span::FilePath;
use meshc_fuzz::{assert_diagnostics_sound, assert_span_in, sources_of, text_of};
use std::sync::Arc;

fuzz_target!(|data: &[u8]| {
    let text = text_of(data);
    let path: FilePath = "f0.mesh".into();
    let parsed = meshc::syntax::parse(&path, &text);
    for c in &parsed.comments {
        assert_span_in(c.span, &text, "comment");
    }
    let sources = sources_of(&[(path, Arc::from(text.as_str()))]);
    assert_diagnostics_sound(&parsed.diagnostics, &sources);
});
