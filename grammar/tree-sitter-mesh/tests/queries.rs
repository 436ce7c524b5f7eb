//! The queries compile against the language, highlight what they promise,
//! never capture one node with two highlight patterns, and the copies kept
//! for editors are identical to them.

mod support;

use std::collections::BTreeMap;
use std::fs;

use tree_sitter::{Query, QueryCursor, StreamingIterator};

fn query(source: &str, name: &str) -> Query {
    Query::new(&tree_sitter_mesh::LANGUAGE.into(), source)
        .unwrap_or_else(|error| panic!("queries/{name} does not compile: {error}"))
}

#[test]
fn every_query_compiles() {
    query(tree_sitter_mesh::HIGHLIGHTS_QUERY, "highlights.scm");
    query(tree_sitter_mesh::LOCALS_QUERY, "locals.scm");
    query(tree_sitter_mesh::FOLDS_QUERY, "folds.scm");
    // Any other query file added later must compile too.
    for entry in fs::read_dir(support::crate_dir().join("queries")).expect("queries/") {
        let path = entry.expect("entry").path();
        let source = fs::read_to_string(&path).expect("readable query");
        query(&source, &path.file_name().unwrap().to_string_lossy());
    }
}

/// The highlight captures of every node of `source`, keyed by the node's
/// text and position; text predicates (`#any-of?`) are applied.
fn highlights(source: &str) -> BTreeMap<(usize, String), Vec<String>> {
    let query = query(tree_sitter_mesh::HIGHLIGHTS_QUERY, "highlights.scm");
    let tree = support::parse(source);
    let mut cursor = QueryCursor::new();
    let mut captures = cursor.captures(&query, tree.root_node(), source.as_bytes());
    let mut by_node: BTreeMap<(usize, String), Vec<String>> = BTreeMap::new();
    while let Some((found, index)) = captures.next() {
        let capture = found.captures()[*index];
        let node = capture.node;
        let name = query.capture_names()[capture.index as usize].to_string();
        by_node
            .entry((node.start_byte(), source[node.byte_range()].to_string()))
            .or_default()
            .push(name);
    }
    by_node
}

fn capture_of(
    map: &BTreeMap<(usize, String), Vec<String>>,
    source: &str,
    text: &str,
    nth: usize,
) -> String {
    let start = source
        .match_indices(text)
        .nth(nth)
        .unwrap_or_else(|| panic!("{text:?} #{nth} not in the source"))
        .0;
    map.get(&(start, text.to_string()))
        .map(|names| names.join(" "))
        .unwrap_or_default()
}

const SAMPLE: &str = r#"/// A database.
contract postgres for module {
  given mode: mode = 0o750
  password: secret string len 16..
  names: list<hostname>
}
module forge {
  requires db: module postgres
  container forge {
    image "nginx:1.27"
    env { HOST = "a\n${db.host}" FLAG = true }
    file "/etc/x" mode 0o640 = db.password
  }
  provides postgres { user = consumer.login }
}
// done
mesh lab { node alpha { } assign forge to alpha }
"#;

#[test]
fn highlights_capture_what_they_promise() {
    let map = highlights(SAMPLE);
    let expect = |text: &str, nth: usize, capture: &str| {
        assert_eq!(
            capture_of(&map, SAMPLE, text, nth),
            capture,
            "capture of {text:?} #{nth}"
        );
    };
    expect("/// A database.", 0, "comment.documentation");
    expect("// done", 0, "comment");
    expect("contract", 0, "keyword");
    expect("module", 0, "keyword"); // `for module`: the provider kind
    expect("given", 0, "keyword");
    expect("mode", 0, "variable.other.member"); // the field's name
    expect("mode", 1, "type.builtin");
    expect("0o750", 0, "constant.numeric");
    expect("secret", 0, "keyword");
    expect("len", 0, "keyword.operator");
    expect("list", 0, "type.builtin");
    expect("postgres", 1, "type"); // `module postgres`
    expect("forge", 0, "constructor");
    expect("db", 0, "variable");
    expect("image", 0, "keyword");
    expect("HOST", 0, "constant");
    expect("\\n", 0, "string.escape");
    expect("${", 0, "punctuation.special");
    expect("host", 1, "variable.other.member"); // `db.host`
    expect("true", 0, "constant.builtin.boolean");
    expect("consumer", 0, "variable.builtin");
    expect("alpha", 0, "label");
    expect("{", 0, "punctuation.bracket");
}

#[test]
fn no_node_is_captured_by_two_highlight_patterns() {
    let samples = support::crate_dir().join("test/samples");
    let mut sources = vec![SAMPLE.to_string()];
    for entry in fs::read_dir(samples).expect("test/samples") {
        sources.push(fs::read_to_string(entry.expect("entry").path()).expect("sample"));
    }
    for source in &sources {
        for ((start, text), names) in highlights(source) {
            assert!(
                names.len() == 1,
                "{text:?} at byte {start} is captured as {names:?}: Neovim and Helix would disagree"
            );
        }
    }
}

#[test]
fn every_editor_query_compiles() {
    // The copies, and queries of an editor's own (Helix's indents.scm).
    let root = support::repository_root();
    for dir in ["editors/neovim/queries/mesh", "editors/helix/queries/mesh"] {
        let Ok(entries) = fs::read_dir(root.join(dir)) else {
            panic!("{dir} is missing");
        };
        for entry in entries {
            let path = entry.expect("entry").path();
            let source = fs::read_to_string(&path).expect("readable query");
            Query::new(&tree_sitter_mesh::LANGUAGE.into(), &source)
                .unwrap_or_else(|error| panic!("{} does not compile: {error}", path.display()));
        }
    }
}

#[test]
fn editor_copies_of_the_queries_are_identical() {
    let root = support::repository_root();
    let copies = [
        (
            "editors/neovim/queries/mesh",
            &["highlights.scm", "locals.scm", "folds.scm"][..],
        ),
        (
            "editors/helix/queries/mesh",
            &["highlights.scm", "locals.scm"][..],
        ),
    ];
    let originals = support::crate_dir().join("queries");
    for (dir, files) in copies {
        for file in files {
            let original = fs::read_to_string(originals.join(file)).expect("original query");
            let copy_path = root.join(dir).join(file);
            let copy = fs::read_to_string(&copy_path).unwrap_or_else(|error| {
                panic!(
                    "{} missing ({error}); run editors/sync-queries.sh",
                    copy_path.display()
                )
            });
            assert!(
                copy == original,
                "{} differs from grammar/tree-sitter-mesh/queries/{file}; run editors/sync-queries.sh",
                copy_path.display()
            );
        }
    }
}
