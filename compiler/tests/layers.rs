//! The layers of the core (docs/architecture.md, "Layers of the core"): each imports only
//! the layers below it. The core is package meshc-core (`core/src/`); what is not
//! compilation (the binary's commands, take, import…) is package meshc (`compiler/src/`),
//! which the core cannot depend on, so the compiler already refuses a core that names it.
//! This test reads the core's sources and fails on any `crate::<module>` path in a layer's
//! code (comments and `#[cfg(test)]` items aside) that names a module of a layer above it,
//! or a module outside the core; and it holds every module of either crate to its place.

use std::path::{Path, PathBuf};

/// The core, bottom first: a module may name the modules of its own layer and of those
/// below it.
const LAYERS: &[(&str, &[&str])] = &[
    ("base", &["base", "span", "parallel", "fsio"]),
    ("diagnostics", &["diagnostics"]),
    ("syntax", &["syntax"]),
    ("fmt", &["fmt"]),
    ("check", &["check", "functions"]),
    ("emit", &["emit"]),
    ("resolve", &["resolve"]),
    ("db", &["db"]),
    ("target", &["target"]),
];

/// The modules of package meshc that are not compilation: they may use the core, and the
/// core may not use them.
const OUTSIDE: &[&str] = &[
    "doc", "graph", "import", "migrate", "take", "workload", "lib", "main", "cli",
];

/// The core's sources, `core/src/`.
fn core_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src")
}

/// The sources of package meshc, `compiler/src/`.
fn outside_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level modules a source folder holds: its files' and folders' names.
fn top_level_modules(src: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .map(|entry| {
            let path = entry.expect("an entry").path();
            path.file_stem()
                .and_then(|s| s.to_str())
                .expect("a name")
                .to_string()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

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

/// What is wrong with a module of layer `rank` naming `crate::<named>`, if anything.
fn judge(rank: usize, named: &str) -> Option<String> {
    let layer = LAYERS[rank].0;
    match layer_of(named) {
        Some(r) if r <= rank => None,
        Some(r) => Some(format!(
            "layer {layer} names crate::{named} (layer {})",
            LAYERS[r].0
        )),
        None => Some(format!(
            "layer {layer} names crate::{named}, which is outside the core"
        )),
    }
}

#[test]
fn no_layer_of_the_core_names_one_above_it() {
    let src = core_src();
    let mut wrong = Vec::new();
    let mut paths_read = 0;
    for (rank, (_, members)) in LAYERS.iter().enumerate() {
        for module in *members {
            for file in files_of(&src, module) {
                let text = std::fs::read_to_string(&file).expect("a source file");
                for named in named_modules(&code_of(&text)) {
                    paths_read += 1;
                    if let Some(why) = judge(rank, &named) {
                        wrong.push(format!("{}: {why}", file.display()));
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
    // A new top-level module must be placed: in the core (`core/src/`), in a layer; or in
    // package meshc (`compiler/src/`), named in `OUTSIDE` (it may then use the core, and
    // the core may not use it).
    let mut unplaced = Vec::new();
    for name in top_level_modules(&core_src()) {
        if name != "lib" && layer_of(&name).is_none() {
            unplaced.push(format!("core/src/{name}: in no layer"));
        }
    }
    for name in top_level_modules(&outside_src()) {
        if !OUTSIDE.contains(&name.as_str()) {
            unplaced.push(format!(
                "compiler/src/{name}: not compilation? name it in OUTSIDE; compilation? it goes in core/src/, in a layer"
            ));
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules without a place:\n{}",
        unplaced.join("\n")
    );
}

/// The names of a `pub use meshc_core::{a, b}` group, or of `pub mod a;` lines.
fn declared(text: &str, group: bool) -> Vec<String> {
    let mut names: Vec<String> = if group {
        let start = text
            .find("pub use meshc_core::{")
            .expect("package meshc's lib.rs re-exports the core in one `pub use meshc_core::{…}`");
        let rest = &text[start + "pub use meshc_core::{".len()..];
        rest[..rest.find('}').expect("the group closes")]
            .split(',')
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    } else {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix("pub mod "))
            .map(|n| n.trim_end_matches(';').trim().to_string())
            .collect()
    };
    names.sort();
    names
}

#[test]
fn package_meshc_reexports_every_module_of_the_core() {
    // `meshc::check`, `crate::check` in meshc's modules and every path the tests, the
    // benchmarks and the documentation write stay valid because each module of the core is
    // re-exported under its own name.
    let core_lib = std::fs::read_to_string(core_src().join("lib.rs")).expect("core/src/lib.rs");
    let meshc_lib =
        std::fs::read_to_string(outside_src().join("lib.rs")).expect("compiler/src/lib.rs");
    let modules = declared(&core_lib, false);
    assert!(
        modules.len() >= 10,
        "only {modules:?} read from core/src/lib.rs"
    );
    assert_eq!(declared(&meshc_lib, true), modules);
    for module in &modules {
        assert!(
            layer_of(module).is_some(),
            "core module {module} is in no layer"
        );
    }
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

#[test]
fn the_judge_refuses_a_layer_above_and_every_feature_outside_the_core() {
    let top = LAYERS.len() - 1;
    for feature in OUTSIDE {
        assert!(
            judge(top, feature).is_some_and(|why| why.contains("outside the core")),
            "the core may name {feature}"
        );
    }
    let syntax = layer_of("syntax").expect("syntax is a layer");
    assert!(judge(syntax, "check").is_some());
    assert!(judge(syntax, "base").is_none());
    assert!(judge(layer_of("fmt").expect("fmt is a layer"), "syntax").is_none());
}
