//! Runs the corpus tests of `test/corpus/*.txt` through the Rust binding, so
//! that CI checks them without tree-sitter-cli. The format is the CLI's:
//!
//! ```text
//! ==================
//! name
//! :error            (optional: the input must not parse)
//! ==================
//! input
//! ------------------
//! (expected tree)
//! ```
//!
//! Trees are compared as the CLI compares them: whitespace-insensitive, with
//! field names only when the expected tree has any.

mod support;

use std::fs;

struct Case {
    file: String,
    name: String,
    expects_error: bool,
    skipped: bool,
    input: String,
    expected: String,
}

fn is_rule(line: &str, c: char) -> bool {
    line.len() >= 3 && line.chars().all(|x| x == c)
}

fn read_cases(file: &str, text: &str) -> Vec<Case> {
    let lines: Vec<&str> = text.lines().collect();
    let mut cases = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !is_rule(lines[i], '=') {
            i += 1;
            continue;
        }
        // Header: the name and attributes up to the closing `===` line.
        let mut name = String::new();
        let mut expects_error = false;
        let mut skipped = false;
        i += 1;
        while i < lines.len() && !is_rule(lines[i], '=') {
            match lines[i].trim() {
                ":error" => expects_error = true,
                ":skip" => skipped = true,
                attribute if attribute.starts_with(':') => {}
                text if name.is_empty() => name = text.to_string(),
                _ => {}
            }
            i += 1;
        }
        i += 1;
        let input_start = i;
        while i < lines.len() && !is_rule(lines[i], '-') {
            i += 1;
        }
        let input = lines[input_start..i.min(lines.len())].join("\n");
        i += 1;
        let expected_start = i;
        while i < lines.len() && !is_rule(lines[i], '=') {
            i += 1;
        }
        let expected = lines[expected_start.min(lines.len())..i].join("\n");
        cases.push(Case {
            file: file.to_string(),
            name,
            expects_error,
            skipped,
            input: input.trim_matches('\n').to_string() + "\n",
            expected,
        });
    }
    cases
}

/// Collapses whitespace: `( a  (b) )` and `(a (b))` compare equal.
fn normalize(tree: &str) -> String {
    let mut out = String::new();
    for word in tree.split_whitespace() {
        if !out.is_empty() && !word.starts_with(')') {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.replace("( ", "(").replace(" )", ")")
}

/// Removes `name:` field labels from a tree.
fn strip_fields(tree: &str) -> String {
    tree.split_whitespace()
        .filter(|word| !word.ends_with(':'))
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn corpus() {
    let corpus_dir = support::crate_dir().join("test/corpus");
    let mut paths: Vec<_> = fs::read_dir(&corpus_dir)
        .expect("test/corpus exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();

    let mut parser = support::parser();
    let mut ran = 0;
    let mut failures = Vec::new();
    for path in &paths {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(path).expect("readable corpus file");
        for case in read_cases(&file, &text) {
            if case.skipped {
                continue;
            }
            ran += 1;
            let tree = parser.parse(&case.input, None).expect("a tree");
            let root = tree.root_node();
            if case.expects_error {
                if !root.has_error() {
                    failures.push(format!(
                        "{} / {}: expected a syntax error",
                        case.file, case.name
                    ));
                }
                continue;
            }
            let expected = normalize(&case.expected);
            let mut actual = normalize(&root.to_sexp());
            if !expected.split_whitespace().any(|w| w.ends_with(':')) {
                actual = normalize(&strip_fields(&actual));
            }
            if actual != expected {
                failures.push(format!(
                    "{} / {}:\n  expected: {expected}\n  actual:   {actual}",
                    case.file, case.name
                ));
            }
        }
    }
    assert!(
        ran >= 30,
        "expected the corpus in {}, ran {ran} cases",
        corpus_dir.display()
    );
    println!("ran {ran} corpus cases");
    assert!(
        failures.is_empty(),
        "{} corpus case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn normalizing_ignores_layout() {
    assert_eq!(normalize("(a\n  x: (b)\n  (c))"), "(a x: (b) (c))");
    assert_eq!(strip_fields("(a x: (b) (c))"), "(a (b) (c))");
}
