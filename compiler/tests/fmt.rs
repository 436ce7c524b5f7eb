//! `meshc fmt`: idempotence, meaning and comments kept, the layout decisions as
//! snapshots, syntax errors refused, and random programs.

mod common;

use common::{check_all, mesh_files, path};
use meshc::fmt::{format, format_unchecked};
use std::path::Path;

/// A snapshot holding the input above the output, after every check passed.
fn snap(name: &str, input: &str) {
    let output = check_all(input);
    insta::assert_snapshot!(name, format!("--- input\n{input}\n--- output\n{output}"));
}

// ---- idempotence and meaning on whole files ----

/// Formats every `.mesh` file that parses under `dir` (a missing folder is skipped) and
/// returns how many were checked.
fn check_dir(dir: &Path) -> usize {
    let mut n = 0;
    for file in mesh_files(dir) {
        let text = std::fs::read_to_string(&file).expect("readable");
        if format(&path(), &text).is_err() {
            continue;
        }
        // A failing check names the file.
        let result = std::panic::catch_unwind(|| check_all(&text));
        assert!(result.is_ok(), "in {}", file.display());
        n += 1;
    }
    n
}

#[test]
fn conformance_files_are_formatted_idempotently_and_keep_their_meaning() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance");
    let n = check_dir(&root);
    if root.exists() {
        assert!(n > 0, "no conformance file parsed");
    }
}

#[test]
fn project_mesh_files_are_formatted_idempotently_and_keep_their_meaning() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for dir in ["catalogue", "stdlib-contracts", "tests/cases"] {
        check_dir(&repo.join(dir));
    }
}

/// The examples of LANGUAGE.md and assorted shapes, each checked for idempotence,
/// meaning, comments and layout.
const INPUTS: &[&str] = &[
    "",
    "\n\n   \n",
    "// only a comment",
    "/// a doc comment with nothing to document\n",
    "seat vault delivers secret\nseat proxy delivers route\nseat dns delivers dns_record\nseat broker delivers amqp\n",
    r#"/// A PostgreSQL database with a login of its own.
contract postgres for module {
  host: hostname
  port: port
  database: string
  user: string len ..20
  password: secret string len 16..
  sslmode: string in {"disable", "prefer", "require"} = "prefer"
}
"#,
    r#"/// Forgejo, a self-hosted software forge.
module forge {
  requires db: module postgres { password len 32.. }
  requires data: host directory { owner = 1000  mode = 0o750 }
  requires http: host port { container = 3000 }
  requires route: module route { target = http.host_port }
  requires key: module secret { length = 64 }
  requires workers: operator int in 1..64 = 4

  container forge {
    image "codeberg.org/forgejo/forgejo:9.0.3"
    env {
      FORGEJO__database__HOST = "${db.host}:${db.port}"
      FORGEJO__database__NAME = db.database
      FORGEJO__database__USER = db.user
      FORGEJO__database__PASSWD__FILE = "/run/secrets/db_password"
      FORGEJO__server__ROOT_URL = route.url
      FORGEJO__queue__WORKERS = workers
    }
    secret "/run/secrets/db_password" = db.password
    secret "/run/secrets/key" = key.value
    mount data.path -> "/data"
    publish http
  }
}
"#,
    r#"module pg {
  slug "pg"
  provides postgres {
    host = here.private_name
    port = pg.host_port
    database = consumer.login
    user = consumer.login
  }
}
"#,
    r#"mesh lab {
  node alpha {
    private_name = "alpha.lab.internal"
    root = "/srv/mesh"
    ports = 20000..20999
  }
  node beta { private_name = "beta.lab.internal"  root = "/srv/mesh"  ports = 20000..20999 }

  seat vault = vault on alpha
  seat proxy = caddy on alpha

  assign vault to alpha
  assign caddy to alpha
  assign postgres to beta
  assign forge to alpha {
    route.public_name = "git.example.org"
    workers = 8
    data at "/mnt/disk2/forge"
  }
  assign forge to alpha as forge-staging {
    short = "stg"
    route.public_name = "git-staging.example.org"
    db from postgres on beta
  }
}
"#,
    // Everything on few lines, odd spacing, tabs and CRLF.
    "contract c for module{a:int  b : string=\"x\"}\r\nmodule m{requires a:operator list<list<int>>=[[1,2],[3]]\tcontainer c{image \"i:1\" command [\"a\",\"b\",] user 1000}}",
    // Keywords used as names.
    "module m {\n  requires mode: operator mode = 0o640\n  container file {\n    image \"x:1\"\n    env {\n      A = 1\n      exposed = 2\n      mode = 3\n      file = 4\n    }\n  }\n}\n",
    "mesh m {\n  assign a to b {\n    data at \"/p\"\n    on = 3\n  }\n  assign a to b { x at 8080 on n  y from z on w }\n}\n",
    "module m {\n  requires x: module c {\n    a len 1..\n    in = 3\n  }\n}\n",
    // Strings with escapes, interpolation and old forms.
    "module m {\n  container c {\n    image \"a\\\"b\\\\c\\n\\t\\$d\"\n    env { A = \"${binding:db.host}\"  B = \"${ db.port }\" }\n  }\n}\n",
    // Empty blocks, lists and sets.
    "contract c for module {}\nmodule m {\n  requires a: module c {}\n  container c {\n    command []\n    env {}\n  }\n  provides c {}\n}\nmesh x {\n  node n {}\n  assign a to n {}\n}\n",
    // Triple-quoted strings in every position.
    "module m {\n  container c {\n    file \"/a\" = \"\"\"\n\t\tx\n\t\t  y\n\t\t\"\"\"\n    file \"/b\" = \"\"\"inline\"\"\"\n    file \"/c\" = \"\"\"\n  no closing line\"\"\"\n    command [\"\"\"\n      a\n      \"\"\", \"b\"]\n    env { A = \"\"\"\n        v\n        \"\"\" exposed \"why\" }\n  }\n}\n",
    // Comments inside entries written over several lines.
    "module m {\n  container c {\n    mount data.path // the data\n      -> \"/data\"\n    /// docs stay attached\n    user // the user\n      1000\n  }\n}\n",
    // Negative numbers and ranges.
    "contract c for module {\n  a: int in -5..-1 = -3\n  b: int in ..20\n  c: list<string> len 1..3 = []\n}\n",
];

#[test]
fn assorted_inputs_are_formatted_idempotently_and_keep_their_meaning() {
    for input in INPUTS {
        check_all(input);
    }
}

#[test]
fn formatted_output_is_a_fixed_point() {
    for input in INPUTS {
        let once = format(&path(), input).unwrap();
        assert_eq!(check_all(&once), once);
    }
}

// ---- comments ----

#[test]
fn no_comment_is_lost() {
    let input = r#"// 1 header
/// 2 doc
module m { // 3 after the brace
  // 4 own line
  requires a: operator int // 5 trailing
  requires b: module c { // 6 in a narrowing
    x = 1 // 7
    // 8 before the brace
  } // 9 after the block
  container c {
    command [ // 10
      "a", // 11
      // 12
      "b"
      // 13
    ]
    mount a.path // 14 inside an entry
      -> "/d"
  }
  // 15 end of block
}
// 16 between items
mesh x {
  node n { short = "n" } // 17
}
// 18 end of file
// 19 last"#;
    let out = check_all(input);
    for n in 1..=19 {
        assert!(
            out.contains(&format!(" {n} ")) || out.contains(&format!(" {n}\n")),
            "comment {n} lost:\n{out}"
        );
    }
    let count = |t: &str| meshc::syntax::parse(&path(), t).comments.len();
    assert_eq!(count(input), 19);
    assert_eq!(count(&out), 19);
}

#[test]
fn doc_comments_stay_attached() {
    let input = "/// the contract\ncontract c for module {\n  /// the field\n  a: int /// documents b\n  b: int\n}\n";
    let out = check_all(input);
    let parsed = meshc::syntax::parse(&path(), &out);
    let meshc::syntax::ast::Item::Contract(c) = &parsed.file.items[0] else {
        panic!("a contract")
    };
    assert_eq!(c.docs.text.as_deref(), Some("the contract"));
    assert_eq!(c.fields[0].docs.text.as_deref(), Some("the field"));
    assert_eq!(c.fields[1].docs.text.as_deref(), Some("documents b"));
}

#[test]
fn a_layout_that_would_change_the_meaning_leaves_the_file_as_it_is() {
    // This `///` documents nothing where it stands (between a requirement's contract and
    // its braces); moved above the requirement it would document it.
    let input = "module m {\n  requires x: module c /// stray\n  { a = 1 }\n}\n";
    let moved = format_unchecked(&path(), input).unwrap();
    assert_ne!(
        common::meaning(&moved).tree,
        common::meaning(input).tree,
        "the example no longer shows a layout that changes the meaning"
    );
    assert_eq!(format(&path(), input).unwrap(), input);
}

// ---- syntax errors ----

#[test]
fn a_file_with_a_syntax_error_is_refused_with_its_diagnostics() {
    for input in [
        "contract c for module { host hostname }",
        "module m {\n  container c {\n    image \"x\"\n",
        "module m { container c { image \"unterminated } }",
        "module m { container c { image \"\\q\" } }",
        "mesh m { node n { ports = 1.. } oops }",
        "garbage",
    ] {
        let expected = meshc::syntax::parse(&path(), input).diagnostics;
        assert!(!expected.is_empty());
        assert_eq!(format(&path(), input), Err(expected.clone()));
        assert_eq!(format_unchecked(&path(), input), Err(expected));
    }
}

// ---- snapshots of the layout decisions ----

#[test]
fn snapshot_one_line_blocks() {
    snap(
        "one_line_blocks",
        r#"module m {
  requires db: module postgres {
    password len 32..
  }
  requires data: host directory { owner = 1000
    mode = 0o750 }
  requires four: module c { a = 1  b = 2  c = 3  d = 4 }
  requires none: module c {}
  container c {
    image "x:1"
    env {
      A = "1"
      B = "2"
    }
  }
  provides c { a = 1 }
}

mesh lab {
  node alpha { private_name = "alpha.lab.internal"  root = "/srv/mesh"  ports = 20000..20999 }
  node beta { private_name = "beta.lab.internal"  root = "/srv/mesh"  ports = 20000..20999  short = "b" }
  assign forge to alpha as forge-staging {
    short = "stg"
  }
}
"#,
    );
}

#[test]
fn snapshot_structural_blocks_always_open() {
    snap(
        "structural_blocks",
        r#"contract c for module { a: int }
module a { requires db: module postgres { password len 32..  sslmode in {"require"} }
  container a { image "nginx:1.27"  secret "/run/secrets/db" = db.password  env { M = db.sslmode } } }
mesh m { node n { private_name = "n.lab.internal" } }
module empty {}
"#,
    );
}

#[test]
fn snapshot_continuation_words_keep_a_block_open() {
    snap(
        "continuation_words",
        r#"module m {
  requires x: module c { a len 1..
    in = 3 }
  container c {
    image "x:1"
    env { A = 1
      exposed = 2 }
  }
}

mesh m {
  assign a to b { data at "/p"
    on = 3 }
  assign a to b { on = 3  data at "/p" }
}
"#,
    );
}

#[test]
fn snapshot_comments_in_every_position() {
    snap(
        "comments",
        r#"// License header.

// What this file holds.
/// The forge.
module forge { // the forge itself
  // Requirements first.
  requires db: module postgres { password len 32.. } // a strong password
  requires data: host directory { // where the repositories live
    owner = 1000
    mode = 0o750 // rwxr-x---
  }

  container forge {
    image "codeberg.org/forgejo/forgejo:9.0.3" // pinned
    command ["forgejo", // the binary
      "web"]
    mount data.path // the repositories
      -> "/data"
    // More entries later.
  } // end of container
  // end of module
}
// Between items, right above the mesh.
mesh lab {
  node alpha { private_name = "alpha.lab.internal" } // the only node
}
// End of file.
"#,
    );
}

#[test]
fn snapshot_triple_quoted_strings_are_reindented() {
    snap(
        "triple_quoted",
        "module m {\n  container c {\n    image \"x:1\"\n    file \"/etc/app.ini\" mode 0o640 = \"\"\"\n[server]\n  port = ${http.host_port}\n\n[log]\n  level = \"info\"\n\"\"\"\n    file \"/deep\" = \"\"\"\n                a\n                  b\n                \"\"\"\n    file \"/inline\" = \"\"\"kept as written\"\"\"\n    file \"/no-closing-line\" = \"\"\"\n   every space counts\"\"\"\n    env {\n      A = \"\"\"\n          one\n          \"\"\" exposed \"the image reads it from env\"\n    }\n  }\n}\n",
    );
}

#[test]
fn snapshot_blank_line_groups() {
    snap(
        "blank_lines",
        "// header\n\n\n\n// second header\ncontract c for module {\n\n  a: int\n  b: int\n\n\n\n  c: int\n  // about d\n\n  d: int\n\n}\nseat vault delivers secret\nseat proxy delivers route\n\n\nseat dns delivers dns_record\nmodule m {\n  container c {\n    image \"x:1\"\n  }\n}\n\n\n\nmesh x {\n  node a { short = \"a\" }\n\n  node b { short = \"b\" }\n  assign m to a\n}\n\n\n",
    );
}

#[test]
fn snapshot_long_lines() {
    snap(
        "long_lines",
        r#"module m {
  requires route: module route { public_name = "a-rather-long-public-name.example.org"  target = http.host_port }
  container c {
    image "registry.example.org/some/very/long/path/to/an/image/that/does/not/fit/in/a/line:1.2.3-alpine"
    command ["/usr/bin/server", "--config", "/etc/server/config.toml", "--verbose", "--listen", "0.0.0.0:3000"]
    image_paths ["/usr/share/a", ["nested", "lists", "break", "one", "by", "one", "when", "they", "are", "too", "long"]]
    env { A = ["short", "list"] exposed "a reason long enough to push this entry past one hundred columns" }
  }
}

contract c for module {
  level: string in {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"} = "info"
}
"#,
    );
}

#[test]
fn snapshot_literals_are_kept_as_written() {
    snap(
        "literals",
        r#"contract c for module {
  mode: mode = 0o750
  mask: int = 0x1F
  neg: int in -10..-1 = -5
  open_lo: int in ..20
  open_hi: int in 16..
  flag: bool = true
  name: string matches "^[a-z]+\\.[a-z]+$" = "a\"b\\c\$d\n"
  tags: list<string> = ["a", "b",]
  kind: string in {"x", "y",} = "x"
}
"#,
    );
}

#[test]
fn snapshot_spacing_is_normalised() {
    snap(
        "spacing",
        "module forge {\n  requires   db :module   postgres{password   len 32 ..}\n  requires w:operator   secret string len  16..=\"x\"\n  container forge {\n    mount data . path->\"/data\"   read_only\n    file \"/p\"  mode   0o640=\"x\"\n  }\n}\nmesh m {\n  assign   forge to alpha   as forge-staging{short=\"stg\"}\n  seat vault=vault   on alpha\n}\n",
    );
}

// ---- random programs ----

mod random {
    use super::common::check_all;
    use proptest::prelude::*;

    fn pick(options: &'static [&'static str]) -> impl Strategy<Value = String> {
        proptest::sample::select(options).prop_map(String::from)
    }

    /// Names, some of them contextual keywords of the language.
    fn name() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => pick(&["a", "db", "forge-staging", "x_1", "http", "data", "route"]),
            1 => pick(&["mode", "file", "secret", "given", "list", "in", "len", "exposed", "on", "matches"]),
        ]
    }

    /// What separates entries: line breaks, blank lines, comments, or two spaces.
    fn sep() -> impl Strategy<Value = String> {
        prop_oneof![
            6 => pick(&["\n", "\n  ", "\r\n"]),
            2 => pick(&["\n\n", "\n\n\n    "]),
            2 => pick(&["  "]),
            1 => pick(&[" // trailing\n", "\n// own line\n", "\n/// doc\n", "\n  // a\n\n  // b\n"]),
        ]
    }

    /// What separates two tokens inside an entry where a line break is allowed: a
    /// comment there moves above the entry.
    fn gap() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => pick(&[""]),
            1 => pick(&["\t", "\n", " // inner\n", "\n// inner\n\n"]),
        ]
    }

    fn string() -> impl Strategy<Value = String> {
        prop_oneof![
            pick(&[
                "\"\"",
                "\"plain\"",
                "\"/run/secrets/x\"",
                "\"${db.host}:${db.port}\"",
                "\"esc \\\" \\\\ \\n \\t \\$\"",
                "\"${binding:a.b}\"",
                "\"http://a.example.org\"",
            ]),
            triple(),
        ]
    }

    /// A triple-quoted string with random indentation of its lines and closing quotes.
    fn triple() -> impl Strategy<Value = String> {
        (
            proptest::collection::vec(
                (
                    0usize..8,
                    pick(&["", "a", "b = 1", "${x.y}", "\\\"q\\\"", "\tt"]),
                ),
                0..4,
            ),
            0usize..6,
            any::<bool>(),
        )
            .prop_map(|(lines, close, newline)| {
                let mut s = String::from("\"\"\"");
                if newline {
                    s.push('\n');
                }
                for (indent, text) in lines {
                    s.push_str(&" ".repeat(indent));
                    s.push_str(&text);
                    s.push('\n');
                }
                s.push_str(&" ".repeat(close));
                s.push_str("\"\"\"");
                s
            })
    }

    fn int() -> impl Strategy<Value = String> {
        pick(&["0", "8", "1000", "-3", "0o750", "0x1F", "65535"])
    }

    fn range() -> impl Strategy<Value = String> {
        pick(&["1..64", "16..", "..20", "-5..-1", "20000..20999"])
    }

    fn reference() -> impl Strategy<Value = String> {
        pick(&[
            "db.host",
            "workers",
            "consumer.login",
            "http.host_port",
            "a.b.c",
        ])
    }

    fn value() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            string(),
            int(),
            pick(&["true", "false"]),
            reference(),
            range()
        ];
        leaf.prop_recursive(3, 12, 4, |inner| {
            (
                proptest::collection::vec((inner, sep()), 0..4),
                any::<bool>(),
            )
                .prop_map(|(values, trailing_comma)| {
                    let mut s = String::from("[");
                    let n = values.len();
                    for (i, (v, sep)) in values.into_iter().enumerate() {
                        s.push_str(&v);
                        if i + 1 < n || trailing_comma {
                            s.push(',');
                        }
                        // A separator holding a comment needs its line break.
                        s.push_str(if sep.contains("//") { &sep } else { " " });
                    }
                    s.push(']');
                    s
                })
        })
    }

    fn refinement() -> impl Strategy<Value = String> {
        prop_oneof![
            range().prop_map(|r| format!("in {r}")),
            range().prop_map(|r| format!("len {r}")),
            pick(&[
                "in {\"a\", \"b\"}",
                "in {\"x\",}",
                "in {1, 2, 3}",
                "matches \"^[a-z]+$\""
            ]),
        ]
    }

    fn ty() -> impl Strategy<Value = String> {
        pick(&[
            "string",
            "int",
            "port",
            "secret string",
            "list<string>",
            "list<list<int>>",
            "mode",
        ])
    }

    /// `{` entries `}` with random separators.
    fn block(entries: impl Strategy<Value = String>, max: usize) -> impl Strategy<Value = String> {
        (
            gap(),
            proptest::collection::vec((sep(), entries), 0..max),
            sep(),
        )
            .prop_map(|(gap, entries, last)| {
                let mut s = gap;
                s.push('{');
                for (sep, e) in entries {
                    s.push_str(&sep);
                    s.push_str(&e);
                }
                s.push_str(&last);
                s.push('}');
                s
            })
    }

    fn field() -> impl Strategy<Value = String> {
        (
            any::<bool>(),
            name(),
            ty(),
            proptest::collection::vec(refinement(), 0..2),
            proptest::option::of(value()),
        )
            .prop_map(|(given, n, t, r, d)| {
                let mut s = format!("{}{n}: {t}", if given { "given " } else { "" });
                for r in r {
                    s.push(' ');
                    s.push_str(&r);
                }
                if let Some(d) = d {
                    s.push_str(" = ");
                    s.push_str(&d);
                }
                s
            })
    }

    fn narrowing() -> impl Strategy<Value = String> {
        prop_oneof![
            (name(), value()).prop_map(|(n, v)| format!("{n} = {v}")),
            (name(), refinement()).prop_map(|(n, r)| format!("{n} {r}")),
        ]
    }

    fn assignment() -> impl Strategy<Value = String> {
        (name(), name(), value(), 0..5u8).prop_map(|(a, b, v, k)| match k {
            0 => format!("{a} = {v}"),
            1 => format!("{a}.{b} = {v}"),
            2 => format!("{a} from {b} on n"),
            3 => format!("{a} at \"/srv/{b}\" on n"),
            _ => format!("{a} at 8080"),
        })
    }

    fn env_entry() -> impl Strategy<Value = String> {
        (name(), value(), 0..3u8, gap()).prop_map(|(k, v, x, g)| match x {
            0 => format!("{k} ={g} {v}"),
            1 => format!("{k} = {v} exposed \"why\""),
            _ => format!("{k} = {v} exposed"),
        })
    }

    fn container_entry() -> impl Strategy<Value = String> {
        prop_oneof![
            string().prop_map(|s| format!("image {s}")),
            value().prop_map(|v| format!("command {v}")),
            int().prop_map(|v| format!("user {v}")),
            block(env_entry(), 5).prop_map(|b| format!("env {b}")),
            (reference(), any::<bool>(), gap()).prop_map(|(r, ro, g)| format!(
                "mount {r}{g} -> \"/data\"{}",
                if ro { " read_only" } else { "" }
            )),
            value().prop_map(|v| format!("secret \"/run/secrets/x\" = {v}")),
            (proptest::option::of(pick(&["0o640", "0o600"])), value()).prop_map(|(m, v)| match m {
                Some(m) => format!("file \"/etc/x\" mode {m} = {v}"),
                None => format!("file \"/etc/x\" = {v}"),
            }),
            name().prop_map(|n| format!("publish {n}")),
            value().prop_map(|v| format!("image_paths {v}")),
        ]
    }

    fn module_entry() -> impl Strategy<Value = String> {
        prop_oneof![
            pick(&["slug \"forge\""]),
            (
                name(),
                ty(),
                proptest::collection::vec(refinement(), 0..2),
                proptest::option::of(value())
            )
                .prop_map(|(n, t, r, d)| {
                    let mut s = format!("requires {n}: operator {t}");
                    for r in r {
                        s.push(' ');
                        s.push_str(&r);
                    }
                    if let Some(d) = d {
                        s.push_str(" = ");
                        s.push_str(&d);
                    }
                    s
                }),
            (
                name(),
                pick(&["module", "host", "mesh"]),
                name(),
                proptest::option::of(block(narrowing(), 5))
            )
                .prop_map(|(n, k, c, b)| match b {
                    Some(b) => format!("requires {n}: {k} {c} {b}"),
                    None => format!("requires {n}: {k} {c}"),
                }),
            (name(), block(container_entry(), 6)).prop_map(|(n, b)| format!("container {n} {b}")),
            (
                name(),
                block((name(), value()).prop_map(|(n, v)| format!("{n} = {v}")), 5)
            )
                .prop_map(|(n, b)| format!("provides {n} {b}")),
        ]
    }

    fn mesh_entry() -> impl Strategy<Value = String> {
        prop_oneof![
            (
                name(),
                block((name(), value()).prop_map(|(n, v)| format!("{n} = {v}")), 5)
            )
                .prop_map(|(n, b)| format!("node {n} {b}")),
            (name(), name()).prop_map(|(s, i)| format!("seat {s} = {i} on alpha")),
            (
                name(),
                proptest::option::of(name()),
                proptest::option::of(block(assignment(), 5))
            )
                .prop_map(|(m, i, b)| {
                    let mut s = format!("assign {m} to alpha");
                    if let Some(i) = i {
                        s.push_str(&format!(" as {i}"));
                    }
                    if let Some(b) = b {
                        s.push(' ');
                        s.push_str(&b);
                    }
                    s
                }),
        ]
    }

    fn item() -> impl Strategy<Value = String> {
        prop_oneof![
            (name(), block(field(), 5)).prop_map(|(n, b)| format!("contract {n} for module {b}")),
            (name(), block(module_entry(), 5)).prop_map(|(n, b)| format!("module {n} {b}")),
            (name(), block(mesh_entry(), 5)).prop_map(|(n, b)| format!("mesh {n} {b}")),
            (name(), name()).prop_map(|(s, c)| format!("seat {s} delivers {c}")),
        ]
    }

    fn program() -> impl Strategy<Value = String> {
        (
            proptest::collection::vec((item(), sep()), 0..4),
            pick(&["", "\n", "// tail", "\n\n// tail\n\n"]),
        )
            .prop_map(|(items, tail)| {
                let mut s = String::new();
                for (item, sep) in items {
                    s.push_str(&item);
                    // Items start on their own line.
                    s.push_str(if sep.contains('\n') { &sep } else { "\n" });
                }
                s.push_str(&tail);
                s
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            // PROPTEST_CASES asks for a longer run.
            cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256),
            max_global_rejects: 100_000,
            ..ProptestConfig::default()
        })]

        #[test]
        fn random_programs_are_formatted_idempotently_and_keep_their_meaning(text in program()) {
            // Some combinations do not parse (`in` as a name right after a refinement on
            // one line, say); those are the parser's business, not the formatter's.
            let valid = meshc::syntax::parse(&super::path(), &text).diagnostics.is_empty();
            prop_assume!(valid);
            check_all(&text);
        }
    }
}
