//! A bounded fuzz target over `meshc import compose`'s inputs, run in CI as a property
//! test: a Compose file assembled from the keys import reads (and text of any kind in
//! their values), an `.env` and an `env_file` of arbitrary lines. Whatever the input:
//! no panic; a refusal says why, each problem at a line its file has; a line import
//! cannot parse is never quoted (LANGUAGE.md §14.6); an import that succeeds writes
//! definitions that parse and a report that is JSON. `PROPTEST_CASES=N` asks for more.

use meshc::import::files::Unread;
use meshc::import::{Request, import_compose};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(128)
}

/// A piece of a service: one of the keys import reads, with `v` in its value.
fn piece(kind: u8, v: &str) -> String {
    let q = serde_json::to_string(v).unwrap();
    match kind % 12 {
        0 => format!("    environment:\n      K: {q}\n"),
        1 => format!("    environment:\n      - {q}\n"),
        2 => format!("    command: [\"run\", {q}]\n"),
        3 => format!("    ports:\n      - {q}\n"),
        4 => format!("    volumes:\n      - {q}\n"),
        5 => "    env_file: app.env\n".into(),
        6 => format!("    user: {q}\n"),
        7 => format!("    depends_on: [{q}]\n"),
        8 => format!("    {q}: 1\n"),
        9 => format!("    configs:\n      - source: c\n        target: {q}\n"),
        10 => format!("    extends:\n      service: {q}\n"),
        _ => format!("    image: {q}\n"),
    }
}

/// The marker of an env line: text that must never be quoted back.
const LINE_MARK: &str = "Zq8LINE";

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn import_holds_on_any_compose_and_env_files(
        pieces in prop::collection::vec((any::<u8>(), "\\PC{0,24}"), 0..8),
        dotenv in prop::collection::vec("[ -~\u{1b}\u{2028}\u{202e}]{0,30}", 0..6),
        env_file in prop::collection::vec("[ -~\t\u{1b}]{0,30}", 0..6),
        raw in prop::collection::vec(any::<u8>(), 0..64),
        top in any::<u8>(),
    ) {
        let mut compose = String::from("services:\n  app:\n    image: nginx:1.27\n");
        for (k, v) in &pieces {
            compose.push_str(&piece(*k, v));
        }
        if top % 4 == 0 {
            compose.push_str(&format!("configs:\n  c:\n    content: {}\n", serde_json::to_string(&String::from_utf8_lossy(&raw)).unwrap()));
        }
        if top % 7 == 0 {
            compose.push_str(&String::from_utf8_lossy(&raw));
        }
        // Lines that do not parse carry the marker: import may say which line, never what.
        let mark = |lines: &[String]| -> String {
            lines.iter().map(|l| if l.contains('=') { format!("{l}\n") } else { format!("{LINE_MARK}{l}\n") }).collect()
        };
        // Half the time no `.env`: a bad line in it stops the import before the rest.
        let dotenv_text = if top % 2 == 0 { mark(&dotenv) } else { String::new() };
        let env_text = mark(&env_file);
        let read = |p: &str| -> Result<String, Unread> {
            if p == "/srv/p/app.env" {
                Ok(env_text.clone())
            } else {
                Err(Unread { missing: true, reason: "no such file".into() })
            }
        };
        let request = Request {
            text: &compose,
            shown: "compose.yaml",
            dir: "/srv/p",
            default_name: "p",
            dotenv: Some(&dotenv_text),
            read: &read,
        };
        match import_compose(&request) {
            Err(problems) => {
                prop_assert!(!problems.is_empty());
                let lines = compose.lines().count().max(dotenv_text.lines().count()) + 1;
                for p in &problems {
                    prop_assert!(!p.message.is_empty());
                    prop_assert!(p.line <= lines, "line {} of {lines}: {}", p.line, p.message);
                    prop_assert!(!p.message.contains(LINE_MARK), "a line quoted: {}", p.message);
                }
            }
            Ok(imported) => {
                for (name, text) in &imported.files {
                    if name.ends_with(".mesh") {
                        let path = meshc::span::FilePath::from(name.as_str());
                        prop_assert!(meshc::fmt::format(&path, text).is_ok(), "{name} does not parse:\n{text}");
                    } else {
                        prop_assert!(serde_json::from_str::<serde_json::Value>(text).is_ok());
                    }
                }
                prop_assert!(!imported.summary.contains(LINE_MARK));
            }
        }
    }
}
