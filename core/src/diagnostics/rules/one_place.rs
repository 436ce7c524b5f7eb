//! Keeps diagnostics built in one place: outside `diagnostics/`, no `Diagnostic::new(`
//! but the few listed here, each with why it stays; and the language server matches
//! codes by the `Code` enum, never by their text.

use std::path::{Path, PathBuf};

/// Where `Diagnostic::new(` still stands outside `diagnostics/`, at most how often, and
/// why: only a test's stand-ins. A count may fall (lower it then), never rise: a new
/// diagnostic is a rule in `diagnostics/rules/`.
const STILL_INLINE: &[(&str, usize, &str)] = &[(
    "check/mod.rs",
    3,
    "a test's stand-in diagnostics (a code and a place, no message)",
)];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("source directory readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every source file outside `diagnostics/`, of the compiler (`core/src/`) and of the
/// features and the binary around it (`compiler/src/`, package meshc): its path under its
/// `src/` (with `/`) and its text.
fn sources_outside_diagnostics() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for src in [
        Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../compiler/src"),
    ] {
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        assert!(files.len() > 20, "the sources were not found under {src:?}");
        out.extend(files.into_iter().filter_map(|path| {
            let rel = path
                .strip_prefix(&src)
                .expect("under src")
                .to_string_lossy()
                .replace('\\', "/");
            (!rel.starts_with("diagnostics/")).then(|| {
                let text = std::fs::read_to_string(&path).expect("source readable");
                (rel, text)
            })
        }));
    }
    out
}

#[test]
fn no_diagnostic_is_built_outside_the_rules_but_the_listed_ones() {
    let mut problems = Vec::new();
    for (rel, text) in sources_outside_diagnostics() {
        let found = text.matches("Diagnostic::new(").count();
        let allowed = STILL_INLINE
            .iter()
            .find(|(file, _, _)| *file == rel)
            .map_or(0, |(_, n, _)| *n);
        if found > allowed {
            problems.push(format!(
                "{rel}: {found} `Diagnostic::new(` (at most {allowed}); write a rule in diagnostics/rules/ and build it with `Rule::at`"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Builders that would word a diagnostic outside its rule: a help line or a label added
/// where a diagnostic is used.
const BUILDERS: &[&str] = &[
    ".with_help(",
    ".with_help_opt(",
    ".with_label(",
    ".with_label_in(",
];

#[test]
fn no_diagnostic_is_worded_outside_the_rules() {
    // The checker, the resolver, `meshc take` and the rest: a help or a label is a
    // rule's, written in diagnostics/rules/.
    let mut problems = Vec::new();
    for (rel, text) in sources_outside_diagnostics() {
        for builder in BUILDERS {
            if text.contains(builder) {
                problems.push(format!(
                    "{rel}: `{builder}…)`; give the rule in diagnostics/rules/ its help or label"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_resolver_and_take_build_no_diagnostic_inline() {
    // Named so a future entry in `STILL_INLINE` for them stands out: the resolver's and
    // the take's diagnostics are all rules.
    for (file, _, why) in STILL_INLINE {
        assert!(
            !file.starts_with("resolve/") && !file.starts_with("take/") && *file != "cli/take.rs",
            "{file} may not build diagnostics inline ({why}): write a rule in diagnostics/rules/"
        );
    }
}

#[test]
fn the_language_server_matches_codes_by_the_enum() {
    let lsp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../lsp/src");
    let mut files = Vec::new();
    rust_files(&lsp, &mut files);
    assert!(
        !files.is_empty(),
        "the server's sources were not found under {lsp:?}"
    );
    let mut problems = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("source readable");
        // A code written as a whole string literal, `"E0302"`: compared as text.
        let bytes = text.as_bytes();
        for (i, w) in bytes.windows(7).enumerate() {
            let is_code = w[0] == b'"'
                && matches!(w[1], b'E' | b'W')
                && w[2..6].iter().all(u8::is_ascii_digit)
                && w[6] == b'"';
            if is_code {
                let line = text[..i].lines().count();
                problems.push(format!("{}:{line}", path.display()));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "a code written as text in the server (match `Code::…` instead): {problems:?}"
    );
}
