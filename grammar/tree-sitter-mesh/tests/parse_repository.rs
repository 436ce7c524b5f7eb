//! Every `.mesh` file of the repository that is meant to be free of syntax
//! errors parses without an ERROR or MISSING node.
//!
//! Left out: build output and dependencies (`target/`, `node_modules/`),
//! hidden directories, fuzzing corpora, any directory named `bad`, and any
//! file whose header expects or allows a syntax error (`// expect: E0001`,
//! `// allow: E0005`: the codes E0001 to E0009), as test cases with broken
//! input declare.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

/// Directory names never searched, wherever they are.
const SKIPPED_DIRECTORIES: &[&str] = &["target", "node_modules", "bad"];

/// Paths, relative to the repository root, never searched.
/// `lsp/tests/fixtures` holds cursor markers (`$0`), so its files are not mesh as written.
const SKIPPED_PATHS: &[&str] = &["fuzz/corpus", "fuzz/artifacts", "lsp/tests/fixtures"];

fn collect_mesh_files(root: &Path, dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            let relative = path.strip_prefix(root).unwrap_or(&path);
            let skipped = name.starts_with('.')
                || SKIPPED_DIRECTORIES.contains(&name)
                || SKIPPED_PATHS.iter().any(|p| relative == Path::new(p));
            if !skipped {
                collect_mesh_files(root, &path, files);
            }
        } else if path.extension().is_some_and(|e| e == "mesh") {
            files.push(path);
        }
    }
}

/// Whether the file's leading comment lines expect or allow a syntax error
/// (a code E0001 to E0009).
fn declares_syntax_error(source: &str) -> bool {
    source
        .lines()
        .map(str::trim)
        .take_while(|line| line.starts_with("//") || line.is_empty())
        .filter_map(|line| {
            let comment = line.trim_start_matches('/').trim();
            comment
                .strip_prefix("expect:")
                .or_else(|| comment.strip_prefix("allow:"))
        })
        .flat_map(str::split_whitespace)
        .any(|code| {
            let code = code.trim_matches(|c: char| c == ',' || c == ';');
            code.len() == 5 && code.starts_with("E000")
        })
}

#[test]
fn every_mesh_file_without_syntax_errors_parses_cleanly() {
    let root = support::repository_root();
    let mut files = Vec::new();
    collect_mesh_files(&root, &root, &mut files);

    let mut parser = support::parser();
    let mut checked = Vec::new();
    let mut failures = Vec::new();
    for path in &files {
        let source = fs::read_to_string(path)
            .unwrap_or_else(|error| panic!("cannot read {}: {error}", path.display()));
        if declares_syntax_error(&source) {
            continue;
        }
        let tree = parser.parse(&source, None).expect("a tree");
        let relative = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        for error in support::syntax_errors(&tree, &source) {
            failures.push(format!("{relative}:{error}"));
        }
        checked.push(path.clone());
    }

    // The samples of this crate are always there, whatever else exists yet.
    let samples_dir = support::crate_dir().join("test/samples");
    let mut samples = Vec::new();
    collect_mesh_files(&root, &samples_dir, &mut samples);
    assert!(
        samples.len() >= 5,
        "expected the grammar's own samples in {}, found {}",
        samples_dir.display(),
        samples.len()
    );
    for sample in &samples {
        assert!(
            checked.contains(sample),
            "sample {} was not checked",
            sample.display()
        );
    }

    println!(
        "parsed {} .mesh files under {}",
        checked.len(),
        root.display()
    );
    assert!(
        failures.is_empty(),
        "{} syntax error(s) in files that should parse:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_header_expecting_a_syntax_error_is_recognised() {
    assert!(declares_syntax_error("// expect: E0001\nmodule a {"));
    assert!(declares_syntax_error("// expect: E0005\n// allow: E0001\n"));
    assert!(declares_syntax_error(
        "// A broken case.\n// expect: E0302 E0003\n"
    ));
    assert!(declares_syntax_error("// expect: E0101\n// allow: E0005\n"));
    assert!(!declares_syntax_error("// expect: E0302\nmodule a {}"));
    assert!(!declares_syntax_error("// expect: ok\n"));
    assert!(!declares_syntax_error("module a {}\n// expect: E0001\n"));
}

#[test]
fn broken_input_is_reported_with_its_position() {
    let source = "contract thing for module {\n  host hostname\n}\n";
    let tree = support::parse(source);
    let errors = support::syntax_errors(&tree, source);
    assert!(!errors.is_empty(), "a missing colon must be an error");
    assert!(
        errors[0].starts_with("2:"),
        "error reported on line 2: {errors:?}"
    );
}
