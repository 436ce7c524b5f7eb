//! Checks shared by the formatter's tests: the tree with its positions erased, the decoded
//! string values, the comments, and the properties every formatted text has.

#![allow(dead_code)]

use meshc::span::{FilePath, Span};
use meshc::syntax::ast::*;
use meshc::syntax::{Parsed, parse};

#[path = "../support/ci.rs"]
mod ci;
#[allow(unused_imports)]
pub use ci::*;

pub fn path() -> FilePath {
    "test.mesh".into()
}

/// What a formatted file must keep: the tree without positions, every string's decoded
/// value, and the comments' texts.
#[derive(Debug, PartialEq, Eq)]
pub struct Meaning {
    pub tree: SourceFile,
    pub strings: Vec<String>,
    pub comments: Vec<String>,
}

/// The meaning of a text that parses without error.
pub fn meaning(text: &str) -> Meaning {
    let parsed = parse(&path(), text);
    assert!(
        parsed.diagnostics.is_empty(),
        "does not parse: {:?}\n{text}",
        parsed.diagnostics
    );
    let Parsed { file, comments, .. } = parsed;
    let mut e = Eraser::default();
    let mut tree = file;
    e.file(&mut tree);
    let mut comments: Vec<String> = comments
        .iter()
        .map(|c| text[c.span.range()].trim_end().to_string())
        .collect();
    comments.sort();
    Meaning {
        tree,
        strings: e.strings,
        comments,
    }
}

/// The spans of the triple-quoted strings of a text (their lines are the value's, so the
/// layout checks leave them alone).
pub fn triple_spans(text: &str) -> Vec<Span> {
    let mut file = parse(&path(), text).file;
    let mut e = Eraser::default();
    e.file(&mut file);
    e.triples
}

/// Walks the tree, zeroing every span and collecting every string's decoded value.
#[derive(Default)]
struct Eraser {
    strings: Vec<String>,
    triples: Vec<Span>,
}

impl Eraser {
    fn span(&mut self, s: &mut Span) {
        *s = Span::default();
    }

    fn opt_span(&mut self, s: &mut Option<Span>) {
        if let Some(s) = s {
            *s = Span::default();
        }
    }

    fn ident(&mut self, i: &mut Ident) {
        self.span(&mut i.span);
    }

    fn opt_ident(&mut self, i: &mut Option<Ident>) {
        if let Some(i) = i {
            self.ident(i);
        }
    }

    fn file(&mut self, f: &mut SourceFile) {
        for item in &mut f.items {
            match item {
                Item::Contract(c) => {
                    self.ident(&mut c.name);
                    self.opt_ident(&mut c.kind);
                    for f in &mut c.fields {
                        self.opt_span(&mut f.given);
                        self.ident(&mut f.name);
                        if let Some(t) = &mut f.ty {
                            self.ty(t);
                        }
                        self.refinements(&mut f.refinements);
                        if let Some(d) = &mut f.default {
                            self.expr(d);
                        }
                        self.span(&mut f.span);
                    }
                    self.span(&mut c.span);
                }
                Item::Module(m) => {
                    self.ident(&mut m.name);
                    for e in &mut m.entries {
                        self.module_entry(e);
                    }
                    self.span(&mut m.span);
                }
                Item::Mesh(m) => {
                    self.ident(&mut m.name);
                    for e in &mut m.entries {
                        self.mesh_entry(e);
                    }
                    self.span(&mut m.span);
                }
                Item::Seat(s) => {
                    self.ident(&mut s.name);
                    self.opt_ident(&mut s.contract);
                    self.span(&mut s.span);
                }
            }
        }
    }

    fn ty(&mut self, t: &mut TypeExpr) {
        self.opt_span(&mut t.secret);
        match &mut t.base {
            BaseType::Named(n) => self.ident(n),
            BaseType::List(inner) => self.ty(inner),
            BaseType::Error => {}
        }
        self.span(&mut t.span);
    }

    fn refinements(&mut self, rs: &mut [Refinement]) {
        for r in rs {
            match r {
                Refinement::InRange(r) | Refinement::Len(r) => self.range(r),
                Refinement::InSet(s) => {
                    for v in &mut s.values {
                        self.expr(v);
                    }
                    self.span(&mut s.span);
                }
                Refinement::Matches(s) => self.string(s),
            }
        }
    }

    fn range(&mut self, r: &mut RangeLit) {
        for i in [&mut r.lo, &mut r.hi].into_iter().flatten() {
            self.span(&mut i.span);
        }
        self.span(&mut r.span);
    }

    fn string(&mut self, s: &mut StringLit) {
        if s.triple {
            self.triples.push(s.span);
        }
        let mut value = String::new();
        for p in &mut s.parts {
            match p {
                StrPart::Text(t) => value.push_str(t),
                StrPart::Interp(i) => {
                    value.push_str("${");
                    if let Some(l) = &mut i.legacy {
                        value.push_str(&l.name);
                        value.push(':');
                        self.ident(l);
                    }
                    self.expr(&mut i.expr);
                    match i.reference() {
                        Some(r) => value.push_str(&r.dotted()),
                        None => value.push_str(&format!("{:?}", i.expr)),
                    }
                    value.push('}');
                    self.span(&mut i.span);
                }
            }
        }
        self.strings.push(value);
        self.span(&mut s.span);
    }

    fn expr(&mut self, e: &mut Expr) {
        match e {
            Expr::Str(s) => self.string(s),
            Expr::Int(i) => self.span(&mut i.span),
            Expr::Bool(_, s) | Expr::Error(s) => self.span(s),
            Expr::Ref(r) => {
                for seg in &mut r.segments {
                    self.ident(seg);
                }
                self.span(&mut r.span);
            }
            Expr::List(values, s) => {
                for v in values {
                    self.expr(v);
                }
                self.span(s);
            }
            Expr::Range(r) => self.range(r),
            Expr::Call(c) => {
                self.ident(&mut c.name);
                for a in &mut c.args {
                    self.expr(a);
                }
                self.span(&mut c.parens);
                self.span(&mut c.span);
            }
            Expr::For(f) => {
                self.ident(&mut f.var);
                match &mut f.iterable {
                    Some(Iterable::Consumers { keyword, contract }) => {
                        self.span(keyword);
                        self.opt_ident(contract);
                    }
                    Some(Iterable::List(r)) => {
                        for seg in &mut r.segments {
                            self.ident(seg);
                        }
                        self.span(&mut r.span);
                    }
                    None => {}
                }
                if let Some(t) = &mut f.template {
                    self.string(t);
                }
                self.span(&mut f.span);
            }
        }
    }

    fn module_entry(&mut self, e: &mut ModuleEntry) {
        match e {
            ModuleEntry::Slug(s, span) => {
                self.string(s);
                self.span(span);
            }
            ModuleEntry::Requires(r) => {
                self.ident(&mut r.name);
                self.opt_span(&mut r.optional);
                self.opt_ident(&mut r.kind);
                match &mut r.body {
                    RequirementBody::Operator(op) => {
                        let OperatorBody {
                            ty,
                            refinements,
                            default,
                        } = &mut **op;
                        if let Some(t) = ty {
                            self.ty(t);
                        }
                        self.refinements(refinements);
                        if let Some(d) = default {
                            self.expr(d);
                        }
                    }
                    RequirementBody::Contract {
                        contract,
                        narrowing,
                        block,
                    } => {
                        self.opt_ident(contract);
                        for n in narrowing {
                            self.ident(&mut n.field);
                            match &mut n.kind {
                                NarrowingKind::Set(v) => self.expr(v),
                                NarrowingKind::Refine(r) => self.refinements(r),
                            }
                            self.span(&mut n.span);
                        }
                        self.opt_span(block);
                    }
                }
                self.span(&mut r.span);
            }
            ModuleEntry::Container(c) => {
                self.ident(&mut c.name);
                for e in &mut c.entries {
                    self.container_entry(&mut e.kind);
                    self.when(&mut e.when);
                    self.span(&mut e.span);
                }
                self.span(&mut c.span);
            }
            ModuleEntry::Provides(p) => {
                self.ident(&mut p.contract);
                for a in &mut p.answers {
                    self.ident(&mut a.field);
                    self.expr(&mut a.value);
                    self.span(&mut a.span);
                }
                self.span(&mut p.span);
            }
        }
    }

    fn when(&mut self, w: &mut Option<Box<When>>) {
        if let Some(w) = w {
            self.ident(&mut w.requirement);
            self.span(&mut w.span);
        }
    }

    fn container_entry(&mut self, k: &mut ContainerEntryKind) {
        match k {
            ContainerEntryKind::Image(s) => self.string(s),
            ContainerEntryKind::Command(e)
            | ContainerEntryKind::User(e)
            | ContainerEntryKind::ImagePaths(e) => self.expr(e),
            ContainerEntryKind::Env(entries) => {
                for e in entries {
                    self.ident(&mut e.key);
                    self.expr(&mut e.value);
                    if let Some(x) = &mut e.exposed {
                        if let Some(r) = &mut x.reason {
                            self.string(r);
                        }
                        self.span(&mut x.span);
                    }
                    self.when(&mut e.when);
                    self.span(&mut e.span);
                }
            }
            ContainerEntryKind::Mount(mount) => {
                let Mount {
                    source,
                    target,
                    read_only,
                } = &mut **mount;
                self.expr(source);
                if let Some(t) = target {
                    self.string(t);
                }
                self.opt_span(read_only);
            }
            ContainerEntryKind::Secret(file) | ContainerEntryKind::File(file) => {
                let FileEntry {
                    target,
                    owner,
                    mode,
                    value,
                } = &mut **file;
                self.string(target);
                if let Some(o) = owner {
                    self.span(&mut o.uid.span);
                    if let Some(g) = &mut o.gid {
                        self.span(&mut g.span);
                    }
                    self.span(&mut o.span);
                }
                if let Some(m) = mode {
                    self.span(&mut m.span);
                }
                self.expr(value);
            }
            ContainerEntryKind::Publish(i) => self.ident(i),
        }
    }

    fn mesh_entry(&mut self, e: &mut MeshEntry) {
        match e {
            MeshEntry::Node(n) => {
                self.ident(&mut n.name);
                for p in &mut n.props {
                    self.ident(&mut p.key);
                    self.expr(&mut p.value);
                    self.span(&mut p.span);
                }
                self.span(&mut n.span);
            }
            MeshEntry::Seat(s) => {
                self.ident(&mut s.seat);
                self.opt_ident(&mut s.instance);
                self.opt_ident(&mut s.node);
                self.span(&mut s.span);
            }
            MeshEntry::Assign(a) => {
                self.ident(&mut a.module);
                self.opt_ident(&mut a.node);
                self.opt_ident(&mut a.instance);
                for e in &mut a.entries {
                    match &mut e.kind {
                        AssignEntryKind::Value { name, value } => {
                            self.ident(name);
                            self.expr(value);
                        }
                        AssignEntryKind::Given {
                            requirement,
                            field,
                            value,
                        } => {
                            self.ident(requirement);
                            self.ident(field);
                            self.expr(value);
                        }
                        AssignEntryKind::Pin {
                            requirement,
                            instance,
                            node,
                        } => {
                            self.ident(requirement);
                            self.ident(instance);
                            self.opt_ident(node);
                        }
                        AssignEntryKind::Absent { requirement } => self.ident(requirement),
                        AssignEntryKind::Place {
                            requirement,
                            at,
                            node,
                        } => {
                            self.ident(requirement);
                            self.expr(at);
                            self.opt_ident(node);
                        }
                        AssignEntryKind::KeepNetwork { keyword, network } => {
                            self.span(keyword);
                            self.expr(network);
                        }
                        AssignEntryKind::Genesis { keyword } => self.span(keyword),
                    }
                    self.span(&mut e.span);
                }
                self.opt_span(&mut a.block);
                self.span(&mut a.span);
            }
        }
    }
}

/// Checks every promise of the formatter on one input that parses: the layout is what
/// `format` returns (its safety net did not fall back), formatting again changes nothing,
/// the meaning and the comments are kept, and the text has the layout's properties.
/// Returns the formatted text.
pub fn check_all(input: &str) -> String {
    let p = path();
    let out = meshc::fmt::format_unchecked(&p, input).expect("parses");
    let checked = meshc::fmt::format(&p, input).expect("parses");
    assert_eq!(
        checked, out,
        "format fell back to the input: the layout changed its meaning\n{input}"
    );
    let again = meshc::fmt::format(&p, &out).expect("the output parses");
    assert_eq!(
        again, out,
        "not idempotent\n--- input\n{input}\n--- first\n{out}"
    );
    let before = meaning(input);
    let after = meaning(&out);
    assert_eq!(
        before.comments.len(),
        after.comments.len(),
        "a comment was lost\n--- input\n{input}\n--- output\n{out}"
    );
    assert_eq!(before.comments, after.comments, "comments changed\n{out}");
    assert_eq!(
        before.strings, after.strings,
        "string values changed\n{out}"
    );
    assert_eq!(
        before.tree, after.tree,
        "meaning changed\n--- input\n{input}\n--- output\n{out}"
    );
    assert_layout(&out);
    out
}

/// The properties of every formatted text.
pub fn assert_layout(out: &str) {
    if out.is_empty() {
        return;
    }
    assert!(out.ends_with('\n'), "no final newline:\n{out}");
    assert!(
        !out.ends_with("\n\n"),
        "more than one final newline:\n{out}"
    );
    assert!(!out.starts_with('\n'), "a blank first line:\n{out}");
    let triples = triple_spans(out);
    let comments = parse(&path(), out).comments;
    let mut offset = 0usize;
    let lines: Vec<&str> = out.split_inclusive('\n').collect();
    for (n, line) in lines.iter().enumerate() {
        let start = offset as u32;
        offset += line.len();
        let in_string = triples.iter().any(|s| s.start < start && start < s.end);
        if in_string {
            continue;
        }
        let body = line.trim_end_matches('\n');
        if body.is_empty() && n > 0 && lines[n - 1].trim().is_empty() {
            panic!("two blank lines in a row at line {}:\n{out}", n + 1);
        }
        // What ends a line that opens a triple-quoted string is the string's text.
        let line_end = start + body.len() as u32;
        let opens_string = triples
            .iter()
            .any(|s| s.start < line_end && line_end < s.end);
        // A line break is `\n`; a lone `\r` inside a comment or a string is their text.
        assert!(
            opens_string || !body.ends_with('\r'),
            "a carriage return ends line {}:\n{out}",
            n + 1
        );
        assert!(
            opens_string || body.trim_end() == body,
            "trailing spaces at line {}:\n{out}",
            n + 1
        );
        let indent = body.len() - body.trim_start_matches(' ').len();
        assert!(
            !body[indent..].starts_with('\t'),
            "a tab in the indentation at line {}:\n{out}",
            n + 1
        );
        assert_eq!(indent % 2, 0, "odd indentation at line {}:\n{out}", n + 1);
        // A line ending in a comment ends in the comment's text, whatever its last character.
        let is_comment = comments
            .iter()
            .any(|c| c.span.start < line_end && line_end <= c.span.end);
        if !is_comment
            && (body.ends_with('{') || body.ends_with('['))
            && let Some(next) = lines.get(n + 1)
        {
            assert_ne!(
                next.trim(),
                "",
                "a blank line after an opening brace:\n{out}"
            );
        }
        if body.is_empty()
            && let Some(next) = lines.get(n + 1)
        {
            let t = next.trim();
            assert!(
                !(t.starts_with('}') || t.starts_with(']')),
                "a blank line before a closing brace:\n{out}"
            );
        }
    }
}

/// The `.mesh` files under `dir`, recursively, sorted.
pub fn mesh_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in read.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "mesh") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The catalogue's `.mesh` files in name order, each named as `meshc check catalogue`
/// names it (`catalogue/<file>`), with its text.
pub fn catalogue_files() -> Vec<(FilePath, std::sync::Arc<str>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalogue");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = format!("catalogue/{}", p.file_name().unwrap().to_string_lossy());
            let text = std::fs::read_to_string(&p).unwrap();
            (name.as_str().into(), std::sync::Arc::from(text))
        })
        .collect()
}
