//! Hover: what the name under the cursor is, its declaration as written and its docs.

use super::index::Symbol;
use super::resolution::{Answer, provider_info};
use super::{Cursor, definitions};
use crate::state::Snapshot;
use meshc::check::registry::ProviderKind;
use meshc::check::semantics::{LoopOver, ModuleNames, Reads, Resolved};
use meshc::check::types::Ty;
use meshc::db::{module_source, parse_file, registry};
use meshc::span::Span;
use meshc::syntax::ast::{self, Item, NarrowingKind, RequirementBody};
use std::fmt::Write as _;
use tower_lsp_server::ls_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Uri};

/// The hover at `pos` of `uri`.
pub fn hover(snap: &Snapshot, uri: &Uri, pos: Position) -> Option<Hover> {
    let cursor = Cursor::new(snap, uri, pos)?;
    let Some(occ) = cursor.occurrence().cloned() else {
        return word_hover(snap, &cursor);
    };
    // The reference under the cursor, as the model resolved it: what it reads and its type.
    let resolved = cursor.resolved(snap);
    let text = match &occ.symbol {
        Symbol::Requirement { module, name } => requirement(snap, module, name),
        Symbol::Field { contract, field } => {
            let narrowed = resolved
                .as_ref()
                .and_then(|(r, names)| narrowing_at(snap, r, names, occ.span, field));
            field_hover(snap, contract, field, narrowed)
        }
        Symbol::Contract(name) => contract(snap, name),
        Symbol::Module(name) => module(snap, name),
        Symbol::Mesh(name) => mesh(snap, name),
        Symbol::Node { mesh, node } => node_hover(snap, mesh, node),
        Symbol::Instance { mesh, node, name } => instance(snap, mesh, node, name),
        Symbol::Seat(name) => seat(snap, name),
        Symbol::Container { module, name } => container(snap, module, name),
        Symbol::LoopVar { module, name, at } => loop_var(snap, module, name, *at),
    }?;
    let text = match &resolved {
        Some((r, _)) if r.span.start <= occ.span.start && occ.span.end <= r.span.end => {
            format!("{text}{}", reads_line(cursor.text(), r))
        }
        _ => text,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: text,
        }),
        range: Some(cursor.lines.range(occ.span)),
    })
}

/// The source text of `span` in the file at `path`, doc lines dropped, and every place
/// that may hold a secret masked (`meshc::db::masked_text`: what a value is written for
/// decides, whatever else is wrong with the line), so a hover never shows a secret.
fn source_of(snap: &Snapshot, path: &str, span: Span) -> Option<String> {
    let file = snap.file_at(path)?;
    file.text(&snap.db).get(span.range())?;
    let masked = meshc::db::masked_text(&snap.db, snap.ws, file);
    let s = masked.text.get(masked.range(span.range()))?;
    let kept: Vec<&str> = s
        .lines()
        .filter(|l| !l.trim_start().starts_with("///"))
        .collect();
    Some(dedent(&kept))
}

/// Lines with their common indentation (after the first line) removed.
fn dedent(lines: &[&str]) -> String {
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let base = lines
        .last()
        .map(|l| l.len() - l.trim_start().len())
        .unwrap_or(0)
        .min(indent);
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(l.get(base..).unwrap_or(l.trim_start()));
        } else {
            out.push_str(l.trim());
        }
    }
    out
}

fn code(out: &mut String, text: &str) {
    let _ = write!(out, "```mesh\n{text}\n```\n");
}

fn docs(out: &mut String, docs: Option<&str>) {
    if let Some(d) = docs.filter(|d| !d.trim().is_empty()) {
        let _ = write!(out, "\n{}\n", d.trim());
    }
}

fn requirement(snap: &Snapshot, module_name: &str, name: &str) -> Option<String> {
    // What the requirement is, as the model holds it; the tree gives its text and docs.
    let reqs = meshc::db::module_requirements(&snap.db, snap.ws, module_name)?;
    let (_, model) = reqs.get(name)?;
    let src = module_source(&snap.db, snap.ws, module_name)?;
    let r = src.module().requirements().find(|r| r.name.name == name)?;
    let mut out = String::new();
    code(&mut out, &source_of(snap, &src.path, r.span)?);
    match (&r.body, model.kind) {
        (RequirementBody::Contract { .. }, Some(kind)) => {
            let contract = model.contract.as_deref().unwrap_or("?");
            let _ = writeln!(
                out,
                "\nRequirement of module `{module_name}`: contract `{contract}`, answered by {}.",
                kind.answerer()
            );
            if model.optional && kind == ProviderKind::Module {
                let _ = writeln!(
                    out,
                    "Optional: absent where no instance provides `{contract}` or the assignment says `{name} absent`; read only inside `when {name} {{ … }}`."
                );
            }
        }
        (RequirementBody::Operator { .. }, _) => {
            let _ = writeln!(
                out,
                "\nRequirement of module `{module_name}`: a value the operator sets on each assignment."
            );
        }
        _ => {}
    }
    docs(&mut out, r.docs.text());
    let reg = registry(&snap.db, snap.ws);
    if let Some(c) = model.contract.as_deref()
        && let Some(info) = reg.contracts.get(c)
        && let Some(d) = info.docs.as_deref()
    {
        let _ = write!(out, "\n`{c}`: {}\n", d.trim());
    }
    let answers = provider_info(snap, module_name, name);
    if !answers.is_empty() {
        out.push_str("\nAnswered on each assignment:\n");
        for a in answers {
            let _ = match &a.answer {
                Answer::Provided {
                    provider_instance,
                    provider_node,
                    rule,
                } => writeln!(
                    out,
                    "- mesh `{}`, `{}` on `{}`: `{provider_instance}` on `{provider_node}` (by {rule})",
                    a.mesh, a.instance, a.node
                ),
                Answer::Absent => writeln!(
                    out,
                    "- mesh `{}`, `{}` on `{}`: absent (its `when {name}` entries are left out)",
                    a.mesh, a.instance, a.node
                ),
                Answer::LeftOut { reason } => writeln!(
                    out,
                    "- mesh `{}`, `{}` on `{}`: left out ({reason})",
                    a.mesh, a.instance, a.node
                ),
            };
        }
    }
    Some(out)
}

/// What the reference under the cursor reads, by its type as the model resolved it
/// (`Resolved::ty`): nothing when it reads nothing (the checker said why).
fn reads_line(text: &str, r: &Resolved) -> String {
    if r.refused || r.ty == Ty::Error {
        return String::new();
    }
    let Some(written) = text.get(r.span.range()) else {
        return String::new();
    };
    format!("\nHere `{written}` reads a value of type `{}`.\n", r.ty)
}

/// The narrowing a requirement adds to `field`, when the reference under the cursor
/// (`resolved`, as the model read it) reads `req.field` and requirement `req` narrows it.
fn narrowing_at(
    snap: &Snapshot,
    resolved: &Resolved,
    names: &ModuleNames,
    span: Span,
    field: &str,
) -> Option<String> {
    let Reads::ContractField {
        req,
        field: read,
        known: true,
    } = resolved.reads
    else {
        return None;
    };
    if read != span {
        return None;
    }
    let name = names
        .requirements
        .requirements
        .get(req as usize)?
        .name
        .as_str();
    // The narrowing as written, shown: the tree gives its text.
    let src = module_source(&snap.db, snap.ws, &names.module)?;
    let r = src
        .module()
        .requirements()
        .find(|r| r.name.name.as_str() == name)?;
    let RequirementBody::Contract { narrowing, .. } = &r.body else {
        return None;
    };
    let texts: Vec<String> = narrowing
        .iter()
        .filter(|n| n.field.name == field)
        .filter_map(|n| {
            let t = source_of(snap, &src.path, n.span)?;
            Some(match n.kind {
                NarrowingKind::Set(_) => format!("Set by requirement `{name}`: `{t}`."),
                NarrowingKind::Refine(_) => format!("Narrowed by requirement `{name}`: `{t}`."),
            })
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

fn field_hover(
    snap: &Snapshot,
    contract: &str,
    field: &str,
    narrowed: Option<String>,
) -> Option<String> {
    let reg = registry(&snap.db, snap.ws);
    let c = reg.contracts.get(contract)?;
    let f = c.fields.get(field)?;
    let mut out = String::new();
    code(&mut out, &source_of(snap, &c.file, f.span)?);
    let mut facts = vec![format!(
        "Field of contract `{contract}`, of type `{}`.",
        f.ty
    )];
    if f.given {
        facts.push("Given: the consumer sets it and the provider honours it.".into());
    }
    if f.secret {
        facts.push("Secret: never a plain value.".into());
    }
    // A secret's default is never shown (a literal one is refused, E0311).
    if let Some(d) = f.default.as_ref().filter(|_| !f.secret) {
        facts.push(format!("Default: `{d}`."));
    }
    let _ = writeln!(out, "\n{}", facts.join(" "));
    if let Some(n) = narrowed {
        let _ = writeln!(out, "\n{n}");
    }
    docs(&mut out, f.docs.as_deref());
    Some(out)
}

fn contract(snap: &Snapshot, name: &str) -> Option<String> {
    let reg = registry(&snap.db, snap.ws);
    let c = reg.contracts.get(name)?;
    let mut header = format!("contract {name}");
    if let Some(k) = c.kind {
        let _ = write!(header, " for {}", k.as_str());
    }
    header.push_str(" {");
    for f in c.fields.values() {
        if let Some(t) = source_of(snap, &c.file, f.span) {
            let _ = write!(header, "\n  {}", t.replace('\n', "\n  "));
        }
    }
    header.push_str("\n}");
    let mut out = String::new();
    code(&mut out, &header);
    if c.std {
        out.push_str("\nA standard contract.\n");
    }
    docs(&mut out, c.docs.as_deref());
    Some(out)
}

fn module(snap: &Snapshot, name: &str) -> Option<String> {
    let src = module_source(&snap.db, snap.ws, name)?;
    let m = src.module();
    let mut header = format!("module {name} {{");
    for r in m.requirements() {
        let first = source_of(snap, &src.path, r.span)?;
        let first = first
            .lines()
            .next()
            .unwrap_or_default()
            .trim_end_matches('{');
        let _ = write!(header, "\n  {}", first.trim_end());
    }
    for p in m.provides() {
        let _ = write!(header, "\n  provides {}", p.contract.name);
    }
    header.push_str("\n}");
    let mut out = String::new();
    code(&mut out, &header);
    docs(&mut out, m.docs.text());
    Some(out)
}

/// A container or job: how it starts (its `after` and `health`), its manifest name and
/// its docs (LANGUAGE.md §14.1).
fn container(snap: &Snapshot, module_name: &str, name: &str) -> Option<String> {
    let src = module_source(&snap.db, snap.ws, module_name)?;
    let m = src.module();
    let c = m.containers().find(|c| c.name.name == name)?;
    let single = m.containers().count() == 1;
    let mut out = String::new();
    code(&mut out, &format!("{} {name}", c.keyword()));
    let what = if c.job {
        "Job of module `{m}`: a container that runs to completion, run again when its manifest entry changes and restarted only when it fails."
    } else {
        "Container of module `{m}`."
    };
    let _ = writeln!(out, "\n{}", what.replace("{m}", module_name));
    let after: Vec<String> = c
        .entries
        .iter()
        .filter_map(|e| match &e.kind {
            ast::ContainerEntryKind::After(names) => Some(names.iter()),
            _ => None,
        })
        .flatten()
        .map(|n| format!("`{}`", n.name))
        .collect();
    if !after.is_empty() {
        let _ = writeln!(
            out,
            "\nStarts after {}: each ready (a job completed, a container with `health` healthy, any other started).",
            after.join(", ")
        );
    }
    if c.entries
        .iter()
        .any(|e| matches!(e.kind, ast::ContainerEntryKind::Health(_)))
    {
        let _ = writeln!(
            out,
            "\nHas a health test: what waits for it waits until it is healthy."
        );
    }
    let manifest = if single {
        "`<instance>`".to_string()
    } else {
        format!("`<instance>-{name}`")
    };
    let _ = writeln!(out, "\nIn the manifest: {manifest}.");
    docs(&mut out, c.docs.text());
    Some(out)
}

fn find_mesh<'a>(parsed: &'a meshc::syntax::Parsed, name: &str) -> Option<&'a ast::Mesh> {
    parsed.file.items.iter().find_map(|i| match i {
        Item::Mesh(m) if m.name.name == name => Some(m),
        _ => None,
    })
}

fn mesh(snap: &Snapshot, name: &str) -> Option<String> {
    let (path, file, _) = definitions(snap, &Symbol::Mesh(name.into()))
        .into_iter()
        .next()?;
    let parsed = parse_file(&snap.db, file);
    let m = find_mesh(&parsed, name)?;
    let _ = path;
    let mut out = String::new();
    code(&mut out, &format!("mesh {name}"));
    let _ = writeln!(
        out,
        "\n{} nodes, {} assignments.",
        m.nodes().count(),
        m.assigns().count()
    );
    docs(&mut out, m.docs.text());
    Some(out)
}

fn node_hover(snap: &Snapshot, mesh_name: &str, node: &str) -> Option<String> {
    let (path, file, _) = definitions(
        snap,
        &Symbol::Node {
            mesh: mesh_name.into(),
            node: node.into(),
        },
    )
    .into_iter()
    .next()?;
    let parsed = parse_file(&snap.db, file);
    let n = find_mesh(&parsed, mesh_name)?
        .nodes()
        .find(|n| n.name.name == node)?;
    let mut out = String::new();
    code(&mut out, &source_of(snap, &path, n.span)?);
    let _ = writeln!(out, "\nNode of mesh `{mesh_name}`.");
    docs(&mut out, n.docs.text());
    Some(out)
}

fn instance(snap: &Snapshot, mesh_name: &str, node: &str, name: &str) -> Option<String> {
    let symbol = Symbol::Instance {
        mesh: mesh_name.into(),
        node: node.into(),
        name: name.into(),
    };
    let (path, file, span) = definitions(snap, &symbol).into_iter().next()?;
    let parsed = parse_file(&snap.db, file);
    let a = find_mesh(&parsed, mesh_name)?
        .assigns()
        .find(|a| a.span.start <= span.start && span.end <= a.span.end)?;
    let header = source_of(snap, &path, a.span)?;
    let header = header
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches('{');
    let mut out = String::new();
    code(&mut out, header.trim_end());
    let _ = writeln!(
        out,
        "\nInstance `{name}` of module `{}` on node `{node}`, in mesh `{mesh_name}`.",
        a.module.name
    );
    docs(&mut out, a.docs.text());
    if let Some(src) = module_source(&snap.db, snap.ws, &a.module.name) {
        docs(&mut out, src.module().docs.text());
    }
    Some(out)
}

fn seat(snap: &Snapshot, name: &str) -> Option<String> {
    let (_, file, span) = definitions(snap, &Symbol::Seat(name.into()))
        .into_iter()
        .next()?;
    let parsed = parse_file(&snap.db, file);
    let s = parsed.file.items.iter().find_map(|i| match i {
        Item::Seat(s) if s.name.span == span => Some(s),
        _ => None,
    })?;
    let mut out = String::new();
    code(
        &mut out,
        &format!(
            "seat {name} delivers {}",
            s.contract.as_ref().map_or("?", |c| c.name.as_str())
        ),
    );
    docs(&mut out, s.docs.text());
    Some(out)
}

/// A `for` loop's variable: what it runs over and what it reads.
fn loop_var(snap: &Snapshot, module: &str, name: &str, at: u32) -> Option<String> {
    let (_, file, _) = definitions(
        snap,
        &Symbol::LoopVar {
            module: module.into(),
            name: name.into(),
            at,
        },
    )
    .into_iter()
    .next()?;
    // The loop as the module's model names it.
    let items = parse_file(&snap.db, file).file.items.len();
    let names = (0..items)
        .filter_map(|i| meshc::db::module_names(&snap.db, file, i))
        .find(|n| n.module == module)?;
    let f = names.loop_at(at)?;
    let mut out = String::new();
    match &f.over {
        LoopOver::Consumers(contract) => {
            let contract = contract.as_deref()?;
            let _ = write!(
                out,
                "```mesh\nfor {name} in consumers {contract}\n```\n\nLoop variable: one consumer of `{contract}` at a time, every instance this module answers for it (by node, then instance).\n\nReads `{name}.login`, `{name}.instance`, `{name}.module`, `{name}.node` (the private name of the consumer's node), `{name}.given.FIELD` (what the consumer set) and `{name}.FIELD` (this module's answer to it)."
            );
        }
        LoopOver::List(list) => {
            let _ = write!(
                out,
                "```mesh\nfor {name} in {list}\n```\n\nLoop variable: one element of `{list}` at a time, in the list's order."
            );
        }
        LoopOver::Missing => return None,
    }
    Some(out)
}

/// A word that names no symbol: a function of the language (`url` in `url(db.password)`)
/// or `owner`/`mode` on a `file` or `secret` entry.
/// The words of LANGUAGE.md §14.1 and §14.2 (`job`, `health` and its options, `after`,
/// `sep`) where they are keywords: their detail and doc from the keyword table. A word the
/// index reads as something else (an env key named `start`) is not one.
fn day_two_keyword(cursor: &Cursor<'_>, word: &str, span: Span) -> Option<String> {
    const WORDS: &[&str] = &["job", "health", "after", "every", "start", "retries", "sep"];
    if !WORDS.contains(&word)
        || cursor
            .index
            .names
            .iter()
            .any(|(s, class)| *s == span && *class != super::index::NameClass::Keyword)
    {
        return None;
    }
    // A word of a string or a comment is no keyword.
    let lexed = meshc::syntax::lexer::lex(cursor.text());
    if !lexed
        .tokens
        .iter()
        .any(|t| t.span == span && t.kind == meshc::syntax::lexer::TokenKind::Ident)
    {
        return None;
    }
    let row = meshc::syntax::keywords::KEYWORDS
        .iter()
        .find(|k| k.word == word && !k.doc.is_empty())?;
    let shown = if row.detail.is_empty() {
        word
    } else {
        row.detail
    };
    Some(format!("```mesh\n{shown}\n```\n\n{}", row.doc))
}

fn word_hover(snap: &Snapshot, cursor: &Cursor<'_>) -> Option<Hover> {
    let offset = cursor.offset;
    if let Some((span, _)) = cursor.index.names.iter().find(|(span, class)| {
        *class == super::index::NameClass::Function && span.start <= offset && offset < span.end
    }) {
        let name = cursor.text().get(span.range())?;
        let f = meshc::functions::Func::from_name(name)?;
        let args = if f.arity() == 1 {
            "one argument, any expression".to_string()
        } else {
            format!("{} arguments, each any expression", f.arity())
        };
        let value = format!(
            "```mesh\n{}\n```\n\nFunction of the language: {}.\n\nTakes {args}; the result is a string, secret when an argument is. In a sealed template the call is kept (`${{{}}}`) and the node applies it when it renders the file, with the same implementation as `meshc`.",
            f.signature(),
            f.summary(),
            f.signature()
        );
        return Some(markdown(value, cursor.lines.range(*span)));
    }
    let text = cursor.text();
    // The word starts after the last character that is not a word's: that character may
    // take several bytes (`é`, `→`), so the start is past all of them.
    let start = text[..offset as usize]
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[offset as usize..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(text.len(), |i| offset as usize + i);
    let word = &text[start..end];
    if let Some(value) = day_two_keyword(cursor, word, Span::new(start, end)) {
        return Some(markdown(value, cursor.lines.range(Span::new(start, end))));
    }
    if word != "owner" && word != "mode" {
        return None;
    }
    let word_span = Span::new(start, end);
    let parsed = parse_file(&snap.db, cursor.file);
    for item in &parsed.file.items {
        let Item::Module(m) = item else { continue };
        for entry in &m.entries {
            let ast::ModuleEntry::Container(c) = entry else {
                continue;
            };
            let user = c.entries.iter().find_map(|e| match &e.kind {
                ast::ContainerEntryKind::User(v) => Some(v),
                _ => None,
            });
            for e in &c.entries {
                let (what, owner, mode) = match &e.kind {
                    ast::ContainerEntryKind::File(file) => ("file", &file.owner, &file.mode),
                    ast::ContainerEntryKind::Secret(file) => {
                        ("secret file", &file.owner, &file.mode)
                    }
                    _ => continue,
                };
                if word == "owner"
                    && let Some(o) = owner
                    && o.span.start as usize == start
                {
                    let gid = o.gid.as_ref().map_or(o.uid.value, |g| g.value);
                    let user_text = match user.map(|u| (&u.uid, &u.gid)) {
                        Some((ast::Expr::Int(i), Some(g))) => {
                            format!("`user {}:{}`", i.value, g.value)
                        }
                        Some((ast::Expr::Int(i), None)) => format!("`user {}`", i.value),
                        Some(_) => "its `user`".into(),
                        None => "none here".into(),
                    };
                    let value = format!(
                        "```mesh\nowner {}:{gid}\n```\n\nWho owns the {what} on the host: uid {}, group {gid}{}. The manifest writes `owner` and `group` as numbers.\n\nWithout `owner`, the owner is the container's `user` ({user_text}), else `0:0`; the group is the group of `user UID:GID`, else the owner's number. A uid or gid lies in 0..4294967295 (E0304).",
                        o.uid.value,
                        o.uid.value,
                        if o.gid.is_none() {
                            " (the group defaults to the uid)"
                        } else {
                            ""
                        },
                    );
                    return Some(markdown(value, cursor.lines.range(word_span)));
                }
                if word == "mode"
                    && let Some(md) = mode
                    && md.span.start as usize >= end
                    && text[end..md.span.start as usize].trim().is_empty()
                {
                    let bits = md.value;
                    let value = format!(
                        "```mesh\nmode 0o{bits:o}\n```\n\nThe {what}'s permissions: `{bits:04o}` ({}). The manifest writes `mode` as four octal digits, `\"{bits:04o}\"`.\n\nWithout `mode`: `0o644` for a plain file, `0o640` for a sealed one (a file that reads a secret), `0o440` for a secret file.",
                        rwx(bits)
                    );
                    return Some(markdown(value, cursor.lines.range(word_span)));
                }
            }
        }
    }
    None
}

/// `0o640` as `rw-r-----`.
fn rwx(mode: i64) -> String {
    let mut out = String::new();
    for shift in [6, 3, 0] {
        let b = (mode >> shift) & 7;
        out.push(if b & 4 != 0 { 'r' } else { '-' });
        out.push(if b & 2 != 0 { 'w' } else { '-' });
        out.push(if b & 1 != 0 { 'x' } else { '-' });
    }
    out
}

fn markdown(value: String, range: tower_lsp_server::ls_types::Range) -> Hover {
    Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range),
    }
}
