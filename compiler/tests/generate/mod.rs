//! Random mesh programs for property tests: a generator of syntactically valid text
//! (every construct of the language, keywords used as names, comments and blank lines in
//! every position, CRLF line ends, triple-quoted strings) and of slightly broken text
//! made from it the way a person breaks a file while typing.

#![allow(dead_code)]

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

pub fn program() -> impl Strategy<Value = String> {
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

/// A change that breaks a valid text the way typing does.
#[derive(Debug, Clone)]
pub enum Damage {
    /// Cut the text here: a file saved half-typed.
    Truncate(prop::sample::Index),
    /// Remove up to this many bytes from here.
    Delete(prop::sample::Index, usize),
    /// Insert a fragment here.
    Insert(prop::sample::Index, &'static str),
    /// Copy a stretch of the text to another place.
    Duplicate(prop::sample::Index, usize, prop::sample::Index),
}

/// Fragments that break a text: lone brackets and quotes, half an interpolation, stray
/// operators, a NUL, characters wider than a byte, a keyword out of place.
const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    "\"",
    "\"\"\"",
    "${",
    "$",
    "\\",
    "=",
    ":",
    ",",
    ".",
    "..",
    "->",
    "//",
    "///",
    "\n",
    "\r",
    "\t",
    "\0",
    "é",
    "🦀",
    "\u{feff}",
    "\u{2028}",
    "module",
    "mesh",
    "requires",
    "secret",
    "given",
    "in",
    "0x",
    "0o9",
    "99999999999999999999",
    "-",
    "@",
    "#",
    ";",
    "assign",
    "to",
    "on",
    "exposed",
];

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        1 => any::<prop::sample::Index>().prop_map(Damage::Truncate),
        3 => (any::<prop::sample::Index>(), 1usize..12).prop_map(|(i, n)| Damage::Delete(i, n)),
        4 => (any::<prop::sample::Index>(), prop::sample::select(FRAGMENTS))
            .prop_map(|(i, f)| Damage::Insert(i, f)),
        1 => (any::<prop::sample::Index>(), 1usize..40, any::<prop::sample::Index>())
            .prop_map(|(i, n, j)| Damage::Duplicate(i, n, j)),
    ]
}

/// The character boundary at or before the byte an index picks.
fn boundary(text: &str, i: &prop::sample::Index) -> usize {
    let mut at = if text.is_empty() {
        0
    } else {
        i.index(text.len() + 1)
    };
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `text` with `d` applied.
pub fn apply(text: &str, d: &Damage) -> String {
    let mut s = text.to_string();
    match d {
        Damage::Truncate(i) => s.truncate(boundary(text, i)),
        Damage::Delete(i, n) => {
            let from = boundary(text, i);
            let mut to = (from + n).min(text.len());
            while !text.is_char_boundary(to) {
                to += 1;
            }
            s.replace_range(from..to, "");
        }
        Damage::Insert(i, f) => s.insert_str(boundary(text, i), f),
        Damage::Duplicate(i, n, j) => {
            let from = boundary(text, i);
            let mut to = (from + n).min(text.len());
            while !text.is_char_boundary(to) {
                to += 1;
            }
            let piece = text[from..to].to_string();
            s.insert_str(boundary(text, j), &piece);
        }
    }
    s
}

/// A valid program, or one with up to three kinds of damage done to it.
pub fn maybe_broken_program() -> impl Strategy<Value = String> {
    (program(), proptest::collection::vec(damage(), 0..4))
        .prop_map(|(text, damages)| damages.iter().fold(text, |t, d| apply(&t, d)))
}
