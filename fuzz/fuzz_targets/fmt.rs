//! The formatter keeps its promises on any text that parses: the layout is what `format`
//! returns (its safety net did not have to fall back), the output parses without error
//! to the same tree (positions aside) with the same strings and comments, formatting it
//! again changes nothing, and it has the layout's properties. A text that does not parse
//! is refused with its diagnostics, never changed.

#![no_main]

use libfuzzer_sys::fuzz_target;
use meshc::span::FilePath;
use meshc_fuzz::{common, text_of};

fuzz_target!(|data: &[u8]| {
    let text = text_of(data);
    let path: FilePath = common::path();
    match meshc::fmt::format(&path, &text) {
        Ok(_) => {
            common::check_all(&text);
        }
        Err(diags) => assert!(!diags.is_empty(), "refused without a diagnostic"),
    }
});
