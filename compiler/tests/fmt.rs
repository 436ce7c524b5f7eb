//! `meshc fmt`: idempotence, meaning and comments kept, the layout decisions as
//! snapshots, syntax errors refused, and random programs.

mod common;
mod generate;

use common::{check_all, in_ci, mesh_files, path, refuse_update_modes_in_ci};
use meshc::fmt::{format, format_unchecked};
use std::path::Path;

/// A snapshot holding the input above the output, after every check passed.
fn snap(name: &str, input: &str) {
    refuse_update_modes_in_ci();
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
    if !root.is_dir() {
        assert!(
            !in_ci(),
            "the shared conformance suite is absent at {}, and CI is set: a CI run never skips it",
            root.display()
        );
        common::say_skipped(
            "no conformance sample at ../shared/conformance (the specification's public sample, which a clone of this repository does not hold)",
        );
        return;
    }
    let n = check_dir(&root);
    assert!(n > 20, "only {n} conformance files formatted");
}

#[test]
fn project_mesh_files_are_formatted_idempotently_and_keep_their_meaning() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The floors sit under the counts when they were set (catalogue 28 files,
    // stdlib-contracts 1, tests/cases 445, some refused on purpose): far fewer means the
    // files were lost.
    for (dir, floor) in [
        ("catalogue", 20),
        ("stdlib-contracts", 1),
        ("tests/cases", 300),
    ] {
        let n = check_dir(&repo.join(dir));
        assert!(
            n >= floor,
            "only {n} files of {dir} formatted (at least {floor} expected)"
        );
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
    assert_eq!(c.docs.text(), Some("the contract"));
    assert_eq!(c.fields[0].docs.text(), Some("the field"));
    assert_eq!(c.fields[1].docs.text(), Some("documents b"));
}

/// A `///` written inside an entry documents that entry (LANGUAGE.md §2: doc comments
/// attach to the item, field, requirement or container they belong to), so moving it
/// above the entry, as the layout does with every comment inside a one-line entry, keeps
/// the meaning. Found by the `fmt` fuzz target: such a comment used to document nothing
/// where it stood and the entry once moved, so the formatter gave up on the whole file.
#[test]
fn a_doc_comment_inside_an_entry_documents_it_before_and_after_formatting() {
    use meshc::syntax::ast::{ContainerEntryKind, Item, ModuleEntry};
    let docs_of = |text: &str| -> Vec<Option<Box<str>>> {
        let parsed = meshc::syntax::parse(&path(), text);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let mut out = Vec::new();
        for item in &parsed.file.items {
            match item {
                Item::Contract(c) => {
                    out.push(c.docs.text().map(Box::from));
                    out.extend(c.fields.iter().map(|f| f.docs.text().map(Box::from)));
                }
                Item::Module(m) => {
                    out.push(m.docs.text().map(Box::from));
                    for e in &m.entries {
                        match e {
                            ModuleEntry::Requires(r) => out.push(r.docs.text().map(Box::from)),
                            ModuleEntry::Container(c) => {
                                out.push(c.docs.text().map(Box::from));
                                for e in &c.entries {
                                    out.push(e.docs.text().map(Box::from));
                                    if let ContainerEntryKind::Env(env) = &e.kind {
                                        out.extend(
                                            env.iter().map(|v| v.docs.text().map(Box::from)),
                                        );
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        out
    };
    let cases: &[(&str, &[Option<&str>])] = &[
        (
            "contract c for host {\n  given /// d\n  x: uid\n}\n",
            &[None, Some("d")],
        ),
        (
            "contract c for host {\n  /// a\n\n  given /// d\n  x: uid\n  y: int\n}\n",
            &[None, Some("a\nd"), None],
        ),
        (
            "module m {\n  requires x: module c /// stray\n  { a = 1 }\n}\n",
            &[None, Some("stray")],
        ),
        (
            "module m {\n  container c {\n    mount data.path /// in\n      -> \"/data\"\n    env { A = /// e\n \"v\" }\n  }\n  slug /// s\n \"x\"\n}\n",
            &[Some("s"), None, Some("in"), None, Some("e")],
        ),
    ];
    for (input, want) in cases {
        let want: Vec<Option<Box<str>>> = want.iter().map(|d| d.map(Box::from)).collect();
        assert_eq!(docs_of(input), want, "before formatting:\n{input}");
        let out = check_all(input);
        assert_eq!(docs_of(&out), want, "after formatting:\n{out}");
    }
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

#[test]
fn snapshot_health_jobs_after_sep_and_group() {
    snap(
        "day_two",
        "module db {\n  requires names: operator list<string> = [\"a\"]\n  container pg { image \"postgres:18.6\"  user   999:70\n    health  [\"pg_isready\",\"--quiet\"]   retries 5  every \"10s\" }\n  /// Once.\n  job provision {\n    after   pg\n    file \"/x\" = for n in names   sep   \",\"  \"${n}\"\n  }\n  job solo { image \"alpine:3.20\"  after pg   provision }\n}\n",
    );
}

// ---- random programs ----

mod random {
    use super::common::check_all;
    use super::generate::program;
    use proptest::prelude::*;

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
