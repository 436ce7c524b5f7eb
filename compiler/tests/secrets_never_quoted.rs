//! No diagnostic quotes a literal written where a secret is expected (LANGUAGE.md §10:
//! messages quote names and locations, never the value of anything secret), whatever
//! else is wrong with it.

use meshc::db::{self, Database};
use std::sync::Arc;

const SECRET: &str = "hunter2.example.com";

fn assert_never_quoted(source: &str) {
    let text = source.replace("SECRET", SECRET);
    let (database, ws) = Database::with_files([(Arc::from("a.mesh"), Arc::from(text.as_str()))]);
    let file = ws.files(&database)[1];
    let diags = db::check_file(&database, ws, file);
    assert!(!diags.is_empty(), "expected diagnostics for:\n{text}");
    for d in diags.iter() {
        let mut texts = vec![d.message.as_str()];
        texts.extend(d.help.as_deref());
        texts.extend(d.labels.iter().map(|l| l.message.as_str()));
        for t in texts {
            assert!(!t.contains("hunter2"), "{} quotes the secret: {t}", d.code);
        }
    }
}

#[test]
fn secret_file_literal() {
    assert_never_quoted(
        r#"module a { container a { image "nginx:1.27"  secret "/run/secrets/x" = "SECRET" } }"#,
    );
}

#[test]
fn secret_answer_literal() {
    assert_never_quoted(
        r#"module cache {
  requires here: host node
  requires p: host port { container = 6379 }
  container cache { image "redis:7.4.1"  publish p }
  provides redis { host = here.private_name  port = p.host_port  password = "SECRET" }
}"#,
    );
}

#[test]
fn secret_defaults() {
    assert_never_quoted(
        r#"module a {
  requires token: operator secret string len ..3 = "SECRET"
  container a { image "nginx:1.27"  secret "/run/secrets/t" = token }
}"#,
    );
    assert_never_quoted(r#"contract api for module { token: secret url = "SECRET" }"#);
}

#[test]
fn secret_node_name_literal() {
    assert_never_quoted(
        r#"module a { container a { image "nginx:1.27"  secret "/run/secrets/x" = "SECRET" } }
mesh lab { node alpha { private_name = "SECRET" } }"#,
    );
}

#[test]
fn secret_field_set_and_pattern() {
    // E0305 names neither the value written nor the contract's set of a secret field.
    assert_never_quoted(
        r#"contract c for module { code: secret string in {"SECRET", "b"} }
module a { requires up: module c { code in {"hunter2.other"} } }"#,
    );
    // A breach of a secret's set or pattern (E0304) quotes neither.
    assert_never_quoted(
        r#"contract c for module { code: secret string matches "SECRET" in {"hunter2-x", "hunter2-y"} }
module a { requires up: module c { code in {"hunter2-x"} } }"#,
    );
}
