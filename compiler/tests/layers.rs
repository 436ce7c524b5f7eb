//! The layers of the core (docs/architecture.md, "Layers of the core"): each imports only
//! the layers below it. This test reads the sources and fails on any `crate::<module>` path
//! in a layer's code (comments and `#[cfg(test)]` items aside) that names a module of a
//! layer above it, or a module outside the core (the binary's commands, take, import…).

use std::path::{Path, PathBuf};

/// The core, bottom first: a module may name the modules of its own layer and of those
/// below it.
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["base", "span", "parallel", "fsio"]),
    ("diagnostics", &["diagnostics"]),
    ("syntax", &["syntax"]),
    ("check", &["check", "functions"]),
    ("emit", &["emit"]),
    ("resolve", &["resolve"]),
    ("db", &["db"]),
    ("target", &["target"]),
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, members)| members.contains(&module))
}

/// The source of a module: `src/<m>.rs` or every `.rs` file under `src/<m>/`.
fn files_of(src: &Path, module: &str) -> Vec<PathBuf> {
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let mut out = Vec::new();
    let mut stack = vec![src.join(module)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The text of a file without its comments and without the items under `#[cfg(test)]`
/// (a test may build a database to check a lower layer's code; the code itself may not).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            // Skip the item that follows: up to its `;` or its balanced braces.
            let mut depth = 0i32;
            let mut opened = false;
            for next in lines.by_ref() {
                let code = next.split("//").next().unwrap_or("");
                depth += code.matches('{').count() as i32;
                opened |= code.contains('{');
                depth -= code.matches('}').count() as i32;
                if (opened && depth <= 0) || (!opened && code.trim_end().ends_with(';')) {
                    break;
                }
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        // A trailing comment; a `//` inside a string literal cuts the line short, which
        // can only hide a path, never invent one.
        out.push_str(line.split("//").next().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// Every module named by a `crate::<module>` path in `code`, with `use crate::{a, b}`
/// groups read too.
fn named_modules(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue; // `$crate::` or a longer identifier
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let head: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !head.is_empty() {
                    names.push(head);
                }
            }
            continue;
        }
        let head: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !head.is_empty() {
            names.push(head);
        }
    }
    names
}

#[test]
fn no_layer_of_the_core_names_one_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    let mut paths_read = 0;
    for (rank, (layer, members)) in LAYERS.iter().enumerate() {
        for module in *members {
            for file in files_of(&src, module) {
                let text = std::fs::read_to_string(&file).expect("a source file");
                for named in named_modules(&code_of(&text)) {
                    paths_read += 1;
                    match layer_of(&named) {
                        Some(r) if r <= rank => {}
                        Some(r) => wrong.push(format!(
                            "{}: layer {layer} names crate::{named} (layer {})",
                            file.display(),
                            LAYERS[r].0
                        )),
                        None => wrong.push(format!(
                            "{}: layer {layer} names crate::{named}, which is outside the core",
                            file.display()
                        )),
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
    // The reader found the paths it is there to judge (a reader that found none would pass
    // every tree).
    assert!(paths_read > 200, "only {paths_read} crate:: paths read");
}

#[test]
fn every_module_of_the_crate_has_a_place() {
    // A new top-level module must be placed: in a layer of the core, or named here as
    // outside it (it may then use the core, and the core may not use it).
    const OUTSIDE: &[&str] = &[
        "doc", "fmt", "graph", "import", "migrate", "take", "workload", "lib", "main", "cli",
    ];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut unplaced = Vec::new();
    for entry in std::fs::read_dir(&src).expect("src/") {
        let path = entry.expect("an entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .expect("a name")
            .to_string();
        if layer_of(&name).is_none() && !OUTSIDE.contains(&name.as_str()) {
            unplaced.push(name);
        }
    }
    assert!(unplaced.is_empty(), "modules in no layer: {unplaced:?}");
}

#[test]
fn the_reader_sees_through_comments_tests_and_groups() {
    let text = "use crate::syntax::ast;\n\
                // crate::db in a comment\n\
                use crate::{base::x, emit};\n\
                #[cfg(test)]\n\
                mod tests {\n    use crate::db;\n    fn f() { let _ = 1; }\n}\n\
                fn g() -> crate::check::Scope { todo!() } // crate::cli\n\
                macro_rules! m { () => { $crate::db } }\n";
    assert_eq!(
        named_modules(&code_of(text)),
        ["syntax", "base", "emit", "check"]
    );
}
