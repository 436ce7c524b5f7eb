//! Quick fixes that rewrite structure rather than one word: delivering a secret read into
//! an env value as a secret file, or marking the env entry `exposed` (E0302); taking a
//! secret operator value out of a mesh (E0512).
//!
//! Each fix is a set of plain edits of the file's text; the item they touch (the module or
//! the mesh) is then laid out by the compiler's formatter, alone, and the answer is the
//! smallest edit between the item as written and the item fixed and formatted. So the fix
//! arrives in canonical layout, and nothing outside the item moves.

use meshc::span::{FilePath, Span};
use meshc::syntax::ast::{
    AssignEntryKind, ContainerEntryKind, EnvEntry, Expr, Item, MeshEntry, ModuleEntry, SourceFile,
};

/// A fix: its title and the replacement of `span` of the file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    pub span: Span,
    pub new_text: String,
}

/// Where secret files go when the fix chooses a path.
const SECRET_DIR: &str = "/run/secrets/";

/// The fixes of an E0302 at `at` (the secret value's span): when the value is an env
/// entry's, moving it into `secret "/run/secrets/NAME" = …` and marking the entry
/// `exposed "…"`.
pub fn secret_in_env(path: &FilePath, text: &str, file: &SourceFile, at: Span) -> Vec<Fix> {
    let mut out = Vec::new();
    for item in &file.items {
        let Item::Module(m) = item else { continue };
        if !covers(m.span, at) {
            continue;
        }
        for entry in &m.entries {
            let ModuleEntry::Container(c) = entry else {
                continue;
            };
            for ce in &c.entries {
                let ContainerEntryKind::Env(envs) = &ce.kind else {
                    continue;
                };
                let Some(e) = envs.iter().find(|e| covers(e.value.span(), at)) else {
                    continue;
                };
                if e.exposed.is_none() {
                    let reason = format!(
                        "TODO: why the image reads {} only from its environment",
                        e.key.name
                    );
                    let edits = vec![(
                        Span::new(e.value.span().end as usize, e.value.span().end as usize),
                        format!(" exposed \"{reason}\""),
                    )];
                    if let Some(fix) = fixed_item(path, text, item.span(), &edits) {
                        out.push(Fix {
                            title: format!(
                                "Mark `{}` exposed (the reason is yours to write)",
                                e.key.name
                            ),
                            ..fix
                        });
                    }
                }
                // An entry under a `when` inside `env { }` has no container-level place
                // of the same condition to move to: only `exposed` is offered.
                if e.when.is_some() {
                    continue;
                }
                let taken: Vec<String> = c
                    .entries
                    .iter()
                    .filter_map(|x| match &x.kind {
                        ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                            file.target.as_plain()
                        }
                        _ => None,
                    })
                    .collect();
                let target = secret_path(e, &taken);
                let value = &text[e.value.span().range()];
                let line_start = text[..ce.span.start as usize]
                    .rfind('\n')
                    .map_or(0, |i| i + 1);
                let indent: String = text[line_start..ce.span.start as usize]
                    .chars()
                    .take_while(|c| c.is_whitespace())
                    .collect();
                let secret = format!("secret \"{target}\" = {value}");
                let edits = if envs.len() == 1 {
                    // The env block held only this entry: the secret takes its place.
                    vec![(ce.span, secret)]
                } else {
                    vec![
                        (whole_lines(text, e.span), String::new()),
                        (
                            Span::new(ce.span.end as usize, ce.span.end as usize),
                            format!("\n{indent}{secret}"),
                        ),
                    ]
                };
                if let Some(fix) = fixed_item(path, text, item.span(), &edits) {
                    out.push(Fix {
                        title: format!(
                            "Deliver `{}` as the secret file `{target}` instead of env `{}`",
                            value, e.key.name
                        ),
                        ..fix
                    });
                }
            }
        }
    }
    out
}

/// The fix of an E0512 at `at` (the assignment entry): the entry leaves the mesh (the
/// value is delivered to the vault), and braces left empty go with it.
pub fn secret_operator_value(text: &str, file: &SourceFile, at: Span) -> Option<Fix> {
    for item in &file.items {
        let Item::Mesh(mesh) = item else { continue };
        if !covers(mesh.span, at) {
            continue;
        }
        for entry in &mesh.entries {
            let MeshEntry::Assign(a) = entry else {
                continue;
            };
            let Some(found) = a.entries.iter().find(|e| covers(e.span, at)) else {
                continue;
            };
            let AssignEntryKind::Value { name, .. } = &found.kind else {
                return None;
            };
            // A deletion only, never laid out again: the other entries of the assignment
            // may be secret values written in the mesh too (each its own E0512), and an
            // edit must not carry them.
            let span = match a.block {
                Some(block) if a.entries.len() == 1 => {
                    // `assign app to alpha { api_key = … }` → `assign app to alpha`
                    let before = text[..block.start as usize].trim_end().len();
                    Span::new(before, block.end as usize)
                }
                _ => entry_with_its_spacing(text, found.span),
            };
            return Some(Fix {
                title: format!(
                    "Remove `{}` from the mesh (the vault's holder delivers it)",
                    name.name
                ),
                span,
                new_text: String::new(),
            });
        }
    }
    None
}

/// An entry's span with the spacing that goes with it: its whole lines when it stands
/// alone; else the blanks after it (`{ a = 1  b = 2 }` → `{ b = 2 }`), or, when it ends
/// its line, the blanks before it (`{ a = 1  b = 2 }` → `{ a = 1 }`).
fn entry_with_its_spacing(text: &str, span: Span) -> Span {
    let lines = whole_lines(text, span);
    if lines != span {
        return lines;
    }
    let blank = |c: char| c == ' ' || c == '\t';
    let start = span.start as usize;
    let end = span.end as usize;
    let after = text[end..].len() - text[end..].trim_start_matches(blank).len();
    let next = text[end + after..].chars().next();
    if matches!(next, Some('}') | Some('\n') | Some('\r') | None) {
        // The blank after it (before `}`) stays and separates what precedes.
        let before = text[..start].len() - text[..start].trim_end_matches(blank).len();
        Span::new(start - before, end)
    } else {
        Span::new(start, end + after)
    }
}

fn covers(outer: Span, inner: Span) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

/// `span` widened to whole lines when nothing else stands on them (so removing it leaves
/// no blank line), else `span` itself.
fn whole_lines(text: &str, span: Span) -> Span {
    let start = span.start as usize;
    let end = span.end as usize;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let alone = text[line_start..start].trim().is_empty() && text[end..line_end].trim().is_empty();
    if alone && line_end < text.len() {
        Span::new(line_start, line_end + 1)
    } else {
        span
    }
}

/// `/run/secrets/NAME`: NAME from the reference read (`db.password` → `db_password`), else
/// the env key lowercased; a number added when the container already writes that path.
fn secret_path(e: &EnvEntry, taken: &[String]) -> String {
    let base = match &e.value {
        Expr::Ref(r) if !r.segments.is_empty() => r
            .segments
            .iter()
            .map(|s| s.name.to_string())
            .collect::<Vec<_>>()
            .join("_"),
        _ => e.key.name.as_str().to_lowercase(),
    };
    let base: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut path = format!("{SECRET_DIR}{base}");
    let mut n = 2;
    while taken.contains(&path) {
        path = format!("{SECRET_DIR}{base}_{n}");
        n += 1;
    }
    path
}

/// Applies `edits` (spans of `text`, inside `item`, not overlapping) and lays the item out
/// with the formatter; the answer is one edit of the item's text. `None` when the fixed
/// item does not parse (the fix would break the file).
fn fixed_item(path: &FilePath, text: &str, item: Span, edits: &[(Span, String)]) -> Option<Fix> {
    let mut edits: Vec<&(Span, String)> = edits.iter().collect();
    edits.sort_by_key(|(s, _)| (s.start, s.end));
    let old = &text[item.range()];
    let mut new = String::with_capacity(old.len() + 64);
    let mut at = item.start as usize;
    for (span, replacement) in edits {
        let (s, e) = (span.start as usize, span.end as usize);
        if s < at || e > item.end as usize {
            return None;
        }
        new.push_str(&text[at..s]);
        new.push_str(replacement);
        at = e;
    }
    new.push_str(&text[at..item.end as usize]);
    let formatted = meshc::fmt::format(path, &format!("{new}\n")).ok()?;
    let formatted = formatted.trim_end_matches('\n');
    // The smallest edit between the item as written and as fixed.
    let prefix = common_prefix(old, formatted);
    let suffix = common_suffix(&old[prefix..], &formatted[prefix..]);
    Some(Fix {
        title: String::new(),
        span: Span::new(
            item.start as usize + prefix,
            item.start as usize + old.len() - suffix,
        ),
        new_text: formatted[prefix..formatted.len() - suffix].to_string(),
    })
}

fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) || !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) || !b.is_char_boundary(b.len() - n) {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> SourceFile {
        meshc::syntax::parse(&FilePath::from("t.mesh"), text).file
    }

    fn apply(text: &str, fix: &Fix) -> String {
        let mut out = text.to_string();
        out.replace_range(fix.span.range(), &fix.new_text);
        out
    }

    const APP: &str = "module app {\n  requires db: module postgres\n  container app {\n    image \"registry.lan/app:1.0\"\n    env {\n      HOST = db.host\n      PASSWORD = db.password\n    }\n  }\n}\n";

    #[test]
    fn moves_a_secret_from_env_into_a_secret_file_in_canonical_layout() {
        let at = APP.find("db.password").unwrap();
        let span = Span::new(at, at + "db.password".len());
        let fixes = secret_in_env(&"t.mesh".into(), APP, &parse(APP), span);
        let moved = fixes
            .iter()
            .find(|f| f.title.starts_with("Deliver"))
            .unwrap();
        let fixed = apply(APP, moved);
        assert!(
            fixed.contains("    env { HOST = db.host }\n    secret \"/run/secrets/db_password\" = db.password\n")
                || fixed.contains("    env {\n      HOST = db.host\n    }\n    secret \"/run/secrets/db_password\" = db.password\n"),
            "{fixed}"
        );
        assert!(!fixed.contains("PASSWORD"), "{fixed}");
        assert_eq!(meshc::fmt::format(&"t.mesh".into(), &fixed).unwrap(), fixed);
        let exposed = fixes.iter().find(|f| f.title.starts_with("Mark")).unwrap();
        let fixed = apply(APP, exposed);
        assert!(
            fixed.contains("PASSWORD = db.password exposed \"TODO: why the image reads PASSWORD only from its environment\""),
            "{fixed}"
        );
    }

    #[test]
    fn a_taken_path_gets_a_number() {
        let text = APP.replace(
            "    env {",
            "    secret \"/run/secrets/db_password\" = db.password\n    env {",
        );
        let at = text.rfind("db.password").unwrap();
        let span = Span::new(at, at + "db.password".len());
        let fixes = secret_in_env(&"t.mesh".into(), &text, &parse(&text), span);
        let moved = fixes
            .iter()
            .find(|f| f.title.starts_with("Deliver"))
            .unwrap();
        assert!(
            apply(&text, moved).contains("\"/run/secrets/db_password_2\" = db.password"),
            "{}",
            apply(&text, moved)
        );
    }

    #[test]
    fn removes_one_entry_of_several_on_a_line_with_its_spacing() {
        let text = "mesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n  assign app to alpha { a = \"x1\"  b = \"x2\" }\n}\n";
        for (name, left) in [("a", "{ b = \"x2\" }"), ("b", "{ a = \"x1\" }")] {
            let at = text.find(&format!("{name} = ")).unwrap();
            let fix = secret_operator_value(text, &parse(text), Span::new(at, at + 8)).unwrap();
            assert!(fix.new_text.is_empty());
            let fixed = apply(text, &fix);
            assert!(
                fixed.contains(&format!("assign app to alpha {left}\n")),
                "{fixed}"
            );
            assert_eq!(meshc::fmt::format(&"t.mesh".into(), &fixed).unwrap(), fixed);
        }
    }

    #[test]
    fn takes_a_secret_operator_value_out_of_the_mesh() {
        let text = "mesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n  assign app to alpha { api_key = \"s3cr3t-value\" }\n}\n";
        let at = text.find("api_key").unwrap();
        let end = text.find("\" }").unwrap() + 1;
        let fix = secret_operator_value(text, &parse(text), Span::new(at, end)).unwrap();
        assert!(!fix.title.contains("s3cr3t"));
        assert_eq!(
            apply(text, &fix),
            "mesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n  assign app to alpha\n}\n"
        );
    }
}
