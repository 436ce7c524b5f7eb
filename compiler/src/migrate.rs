//! `meshc migrate`: old forms rewritten as the forms they stand for (LANGUAGE.md §13.6).
//!
//! - A legacy placeholder (`${binding:db.host}`, `${setting:workers}`, `${port:http}`,
//!   `${secret:key}`, `${machine:hostname}`) becomes the reference it is read as
//!   (`${db.host}`, `${workers}`, `${http.host_port}`, `${key.value}`,
//!   `${here.private_name}`); a `machine` fact adds `requires here: host node` where the
//!   module has no such requirement.
//! - A literal host path as a mount source becomes a requirement mounted as `NAME.path`,
//!   and every assignment of the module, in every mesh of the workspace, gains the
//!   placement `NAME at "/that/path"`, so the build places the data where it was. The
//!   requirement is a `directory`, or an `access` (never created, chowned or removed)
//!   when the module is assigned twice on one node, where two directories at one path
//!   would be refused (E0511).
//!
//! The edits are made on the text, so comments stay where they were, and each changed
//! file is then formatted. Pure: texts in, texts out.

use crate::check::readings::NodeFact;
use crate::check::scope::ModuleScope;
use crate::diagnostics::Diagnostic;
use crate::span::{FilePath, Span};
use crate::syntax::ast::{
    ContainerEntryKind, Expr, Item, Module, ModuleEntry, NarrowingKind, RequirementBody, StringLit,
};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One file the migration changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub path: FilePath,
    pub old: Arc<str>,
    /// The new text, formatted.
    pub new: String,
}

/// What the migration did, and what it could not do.
#[derive(Debug, Clone, Default)]
pub struct Migration {
    pub changed: Vec<Changed>,
    /// Old forms left as they are, each with the reason (file, sentence).
    pub left: Vec<(FilePath, String)>,
}

/// A text edit: replace `span` by `text` (an insertion has an empty span).
#[derive(Debug, Clone)]
struct Edit {
    span: Span,
    text: String,
}

/// Every string literal a module writes, in any entry.
fn module_strings(m: &Module) -> Vec<&StringLit> {
    fn expr<'a>(e: &'a Expr, out: &mut Vec<&'a StringLit>) {
        match e {
            Expr::Str(s) => out.push(s),
            Expr::List(items, _) => items.iter().for_each(|i| expr(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for entry in &m.entries {
        match entry {
            ModuleEntry::Slug(s, _) => out.push(s),
            ModuleEntry::Requires(r) => match &r.body {
                RequirementBody::Operator(op) => {
                    let crate::syntax::ast::OperatorBody { default, .. } = &**op;
                    if let Some(d) = default {
                        expr(d, &mut out);
                    }
                }
                RequirementBody::Contract { narrowing, .. } => {
                    for n in narrowing {
                        if let NarrowingKind::Set(e) = &n.kind {
                            expr(e, &mut out);
                        }
                    }
                }
            },
            ModuleEntry::Container(c) => {
                for e in &c.entries {
                    match &e.kind {
                        ContainerEntryKind::Image(s) => out.push(s),
                        ContainerEntryKind::Command(x) | ContainerEntryKind::ImagePaths(x) => {
                            expr(x, &mut out)
                        }
                        ContainerEntryKind::User(u) => expr(&u.uid, &mut out),
                        ContainerEntryKind::Health(h) => {
                            expr(&h.argv, &mut out);
                            for o in &h.options {
                                expr(&o.value, &mut out);
                            }
                        }
                        ContainerEntryKind::Env(entries) => {
                            for en in entries {
                                expr(&en.value, &mut out);
                            }
                        }
                        ContainerEntryKind::Mount(mount) => expr(&mount.source, &mut out),
                        ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                            expr(&file.value, &mut out)
                        }
                        ContainerEntryKind::Publish(_) | ContainerEntryKind::After(_) => {}
                    }
                }
            }
            ModuleEntry::Provides(p) => {
                for a in &p.answers {
                    expr(&a.value, &mut out);
                }
            }
        }
    }
    out
}

/// A requirement name made from a mount's target (`/var/lib/data` → `data`), else from
/// its host path when the target's is taken, unique in the module.
fn requirement_name(target: Option<&str>, host: &str, taken: &mut BTreeSet<String>) -> String {
    let word = |path: &str| {
        path.rsplit('/')
            .find(|s| !s.is_empty())
            .map(crate::import::generate::ident)
            .filter(|w| !matches!(w.as_str(), "here" | "consumer" | "given"))
    };
    let from_target = target.and_then(word);
    let base = match (&from_target, word(host)) {
        (Some(t), _) if !taken.contains(t) => t.clone(),
        (_, Some(h)) if !taken.contains(&h) => h,
        (Some(t), _) => t.clone(),
        (None, _) => "data".to_string(),
    };
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// Migrates `files` (path, text). Files with syntax errors are refused: their errors are
/// returned and nothing is migrated.
pub fn migrate(files: &[(FilePath, Arc<str>)]) -> Result<Migration, Vec<Diagnostic>> {
    // The workspace as the compiler reads it: each module's scope is its semantic
    // model's, decided where every other reader's is.
    let (database, ws) = crate::db::Database::with_files(files.iter().cloned());
    let inputs: Vec<crate::db::SourceFile> = ws.files(&database)[1..].to_vec();
    let parsed: Vec<Arc<crate::syntax::Parsed>> = inputs
        .iter()
        .map(|&f| crate::db::parse_file(&database, f))
        .collect();
    let errors: Vec<Diagnostic> = parsed
        .iter()
        .flat_map(|p| p.diagnostics.iter().filter(|d| d.is_error()).cloned())
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut edits: BTreeMap<usize, Vec<Edit>> = BTreeMap::new();
    let mut left: Vec<(FilePath, String)> = Vec::new();
    // (module, requirement, host path) placements to add to every assignment of the module,
    // and whether the module is assigned twice on one node anywhere.
    let mut placements: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut twice_on_a_node: BTreeSet<String> = BTreeSet::new();
    for p in &parsed {
        for item in &p.file.items {
            if let Item::Mesh(mesh) = item {
                let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
                for a in mesh.assigns() {
                    let node = a
                        .node
                        .as_ref()
                        .map(|n| n.name.to_string())
                        .unwrap_or_default();
                    if !seen.insert((a.module.name.to_string(), node)) {
                        twice_on_a_node.insert(a.module.name.to_string());
                    }
                }
            }
        }
    }
    for (fi, ((path, text), p)) in files.iter().zip(&parsed).enumerate() {
        for (item_index, item) in p.file.items.iter().enumerate() {
            let Item::Module(m) = item else { continue };
            let table = crate::db::module_scope(&database, ws, inputs[fi], item_index);
            let scope = ModuleScope::of(m, &table);
            let mut taken: BTreeSet<String> =
                m.requirements().map(|r| r.name.name.to_string()).collect();
            let mut new_requirements: Vec<String> = Vec::new();
            // Legacy placeholders.
            let mut node_req: Option<String> = None;
            for s in module_strings(m) {
                for part in &s.parts {
                    let Some(i) = part.interp() else { continue };
                    let (Some(kind), Some(reference)) = (i.legacy, i.reference()) else {
                        continue;
                    };
                    let new = match scope.legacy_replacement(&kind.name, reference) {
                        Some(new) => new,
                        None if kind.name == "machine" => {
                            let dotted = reference.dotted();
                            let Some(fact) = NodeFact::of_field(NodeFact::legacy_field(&dotted))
                            else {
                                let facts: Vec<&str> =
                                    NodeFact::ALL.iter().map(|f| f.field()).collect();
                                left.push((
                                    path.clone(),
                                    format!(
                                        "`${{machine:{dotted}}}` in module `{}`: the node's facts are `{}`",
                                        m.name.name,
                                        facts.join("` and `")
                                    ),
                                ));
                                continue;
                            };
                            let fact = fact.field();
                            let here = node_req.get_or_insert_with(|| {
                                let name = if taken.contains("here") {
                                    "node_facts"
                                } else {
                                    "here"
                                };
                                taken.insert(name.to_string());
                                new_requirements.push(format!("requires {name}: host node"));
                                name.to_string()
                            });
                            format!("{here}.{fact}")
                        }
                        None => {
                            left.push((
                                path.clone(),
                                format!(
                                    "`${{{}:{}}}` in module `{}` stands for no form that can be told",
                                    kind.name,
                                    reference.dotted(),
                                    m.name.name
                                ),
                            ));
                            continue;
                        }
                    };
                    edits.entry(fi).or_default().push(Edit {
                        span: i.span,
                        text: format!("${{{new}}}"),
                    });
                }
            }
            // Literal host paths as mount sources.
            let mut by_path: BTreeMap<String, String> = BTreeMap::new();
            for c in m.containers() {
                for e in &c.entries {
                    let ContainerEntryKind::Mount(mount) = &e.kind else {
                        continue;
                    };
                    let crate::syntax::ast::Mount {
                        source: Expr::Str(src),
                        target,
                        read_only,
                    } = &**mount
                    else {
                        continue;
                    };
                    let Some(host_path) = src.as_plain() else {
                        continue;
                    };
                    let name = match by_path.get(&host_path) {
                        Some(n) => n.clone(),
                        None => {
                            let target_text = target.as_ref().and_then(StringLit::as_plain);
                            let name =
                                requirement_name(target_text.as_deref(), &host_path, &mut taken);
                            let shared = twice_on_a_node.contains(m.name.name.as_str());
                            new_requirements.push(if shared {
                                if read_only.is_some() {
                                    format!("requires {name}: host access")
                                } else {
                                    format!("requires {name}: host access {{ write = true }}")
                                }
                            } else {
                                format!("requires {name}: host directory")
                            });
                            placements
                                .entry(m.name.name.to_string())
                                .or_default()
                                .push((name.clone(), host_path.clone()));
                            by_path.insert(host_path.clone(), name.clone());
                            name
                        }
                    };
                    edits.entry(fi).or_default().push(Edit {
                        span: src.span,
                        text: format!("{name}.path"),
                    });
                }
            }
            if !new_requirements.is_empty() {
                // After the last requirement, else at the top of the body.
                let at = match m.requirements().last() {
                    Some(r) => r.span.end as usize,
                    None => text[m.name.span.end as usize..]
                        .find('{')
                        .map(|i| m.name.span.end as usize + i + 1)
                        .unwrap_or(m.name.span.end as usize),
                };
                let mut insert = String::new();
                for r in &new_requirements {
                    insert.push_str("\n  ");
                    insert.push_str(r);
                }
                edits.entry(fi).or_default().push(Edit {
                    span: Span::new(at, at),
                    text: insert,
                });
            }
        }
    }
    // Placements on every assignment of the migrated modules.
    for (fi, p) in parsed.iter().enumerate() {
        for item in &p.file.items {
            let Item::Mesh(mesh) = item else { continue };
            for a in mesh.assigns() {
                let Some(list) = placements.get(a.module.name.as_str()) else {
                    continue;
                };
                let entries: Vec<String> = list
                    .iter()
                    .filter(|(name, _)| {
                        // An assignment that already places the requirement keeps its own.
                        !a.entries.iter().any(|e| {
                            matches!(&e.kind, crate::syntax::ast::AssignEntryKind::Place { requirement, .. } if requirement.name == name.as_str())
                        })
                    })
                    .map(|(name, path)| {
                        format!("{name} at {}", crate::import::generate::quote(path))
                    })
                    .collect();
                if entries.is_empty() {
                    continue;
                }
                let edit = match a.block {
                    Some(block) => {
                        let at = block.end as usize - 1;
                        Edit {
                            span: Span::new(at, at),
                            text: format!("\n    {}\n  ", entries.join("\n    ")),
                        }
                    }
                    None => {
                        let at = a.span.end as usize;
                        Edit {
                            span: Span::new(at, at),
                            text: format!(" {{\n    {}\n  }}", entries.join("\n    ")),
                        }
                    }
                };
                edits.entry(fi).or_default().push(edit);
            }
        }
    }
    let mut changed = Vec::new();
    for (fi, mut list) in edits {
        let (path, old) = &files[fi];
        list.sort_by_key(|e| std::cmp::Reverse((e.span.start, e.span.end)));
        let mut text = old.to_string();
        for e in &list {
            text.replace_range(e.span.start as usize..e.span.end as usize, &e.text);
        }
        let new = crate::fmt::format(path, &text)?;
        if new != **old {
            changed.push(Changed {
                path: path.clone(),
                old: old.clone(),
                new,
            });
        }
    }
    Ok(Migration { changed, left })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(files: &[(&str, &str)]) -> Migration {
        let files: Vec<(FilePath, Arc<str>)> = files
            .iter()
            .map(|(p, t)| (FilePath::from(*p), Arc::<str>::from(*t)))
            .collect();
        migrate(&files).unwrap()
    }

    #[test]
    fn rewrites_placeholders_and_places_literal_mounts() {
        let m = run(&[
            (
                "app.mesh",
                "// the app\nmodule app {\n  requires db: module postgres\n  requires workers: operator int = 2\n  container app {\n    image \"example/app:1.0\"\n    env {\n      DB_HOST = \"${binding:db.host}\" // where the database is\n      WORKERS = \"${setting:workers}\"\n      NODE = \"${machine:hostname}\"\n    }\n    mount \"/srv/app/data\" -> \"/var/lib/app\"\n  }\n}\n",
            ),
            (
                "lab.mesh",
                "mesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n  // keep this comment\n  assign app to alpha\n}\n",
            ),
        ]);
        assert_eq!(m.changed.len(), 2, "{m:?}");
        let app = &m.changed[0].new;
        assert!(
            app.contains("DB_HOST = \"${db.host}\" // where the database is"),
            "{app}"
        );
        assert!(app.contains("\"${workers}\""), "{app}");
        assert!(app.contains("requires here: host node"), "{app}");
        assert!(app.contains("\"${here.private_name}\""), "{app}");
        assert!(app.contains("requires app: host directory"), "{app}");
        assert!(app.contains("mount app.path -> \"/var/lib/app\""), "{app}");
        assert!(app.starts_with("// the app\n"), "{app}");
        let lab = &m.changed[1].new;
        assert!(lab.contains("app at \"/srv/app/data\""), "{lab}");
        assert!(lab.contains("// keep this comment"), "{lab}");
        // Migrating again changes nothing.
        let again = run(&[("app.mesh", app), ("lab.mesh", lab)]);
        assert!(again.changed.is_empty(), "{again:?}");
    }

    /// `${machine:…}` of a fact no node has is left as written, naming the facts there
    /// are; a known fact beside it in the same module is still migrated.
    #[test]
    fn a_machine_placeholder_of_an_unknown_fact_is_left_naming_the_facts() {
        let m = run(&[(
            "app.mesh",
            "module app {\n  container app {\n    image \"example/app:1.0\"\n    env {\n      ARCH = \"${machine:arch}\"\n      PEERS = \"${machine:mesh_names}\"\n    }\n  }\n}\n",
        )]);
        assert_eq!(m.left.len(), 1, "{m:?}");
        assert_eq!(
            m.left[0].1,
            "`${machine:arch}` in module `app`: the node's facts are `private_name` and `mesh_names`"
        );
        let app = &m.changed[0].new;
        assert!(app.contains("\"${machine:arch}\""), "{app}");
        assert!(app.contains("\"${here.mesh_names}\""), "{app}");
    }

    #[test]
    fn a_module_twice_on_one_node_gets_access() {
        let m = run(&[(
            "a.mesh",
            "module app {\n  container app {\n    image \"example/app:1.0\"\n    mount \"/srv/shared\" -> \"/data\" read_only\n  }\n}\nmesh lab {\n  node alpha { private_name = \"alpha.lab.internal\" }\n  assign app to alpha\n  assign app to alpha as app2 { short = \"b\" }\n}\n",
        )]);
        let t = &m.changed[0].new;
        assert!(t.contains("requires data: host access"), "{t}");
        assert_eq!(t.matches("data at \"/srv/shared\"").count(), 2, "{t}");
    }
}
